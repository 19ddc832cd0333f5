#!/usr/bin/env python3
"""Summarise any hytile Chrome trace (hytile bench-gpu --trace FILE, HYT_TRACE=FILE) stream by
stream, whatever the algorithm: per track its tasks, busy time (the union of its tasks), first
start and last end; per kernel name and track the count and summed time; each GPU stream's
busy share in NBINS equal slices of the run (where the copies and the compute overlap, where
one waits); the compute streams' idle gaps; and per step (the tasks' "step" tag) the time on
the panel and compute streams.  Device task times are CUDA events, so a task's time includes
its kernels' waits for SMs held by other streams and for copies queued before its own.

    tools/trace_streams.py TRACE.json [NBINS]

(tools/trace_summary.py is the LU's: panel and bulk rates per group of steps.)
"""
import json
import sys
from collections import defaultdict

from trace_summary import union  # the same interval union (this directory)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    path = sys.argv[1]
    nbins = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    ev = json.load(open(path))["traceEvents"]
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev
             if e.get("ph") == "M" and e["name"] == "thread_name"}
    tasks = [e for e in ev if e.get("ph") == "X"]
    if not tasks:
        sys.exit(f"{path}: no tasks")
    t0 = min(e["ts"] for e in tasks)
    t1 = max(e["ts"] + e["dur"] for e in tasks)
    ms = 1e-3
    print(f"{path}: span of all tasks {(t1 - t0) * ms:.1f} ms, {len(tasks)} tasks")

    # per track (the CPU workers together)
    tracks = defaultdict(list)
    for e in tasks:
        nm = names.get((e["pid"], e["tid"]), "?")
        tracks["cpu" if e["pid"] == 0 and nm.startswith("cpu") else nm].append(e)
    print(f"{'track':32} {'tasks':>6} {'busy ms':>9} {'first':>8} {'last':>8}")
    for k, es in sorted(tracks.items()):
        busy = union([(e["ts"], e["ts"] + e["dur"]) for e in es]) * ms
        first = (min(e["ts"] for e in es) - t0) * ms
        last = (max(e["ts"] + e["dur"] for e in es) - t0) * ms
        print(f"{k[:32]:32} {len(es):6d} {busy:9.1f} {first:8.1f} {last:8.1f}")

    # per kernel name and stream
    byname = defaultdict(lambda: [0, 0.0, float("inf"), 0.0])
    for e in tasks:
        stream = "cpu" if e["pid"] == 0 else names.get((e["pid"], e["tid"]), "?").split()[-1]
        r = byname[(e["name"], stream)]
        r[0] += 1
        r[1] += e["dur"]
        r[2] = min(r[2], e["ts"])
        r[3] = max(r[3], e["ts"] + e["dur"])
    print(f"{'kernel@stream':40} {'n':>6} {'sum ms':>9} {'first':>8} {'last':>8}")
    for (k, s), r in sorted(byname.items(), key=lambda x: -x[1][1]):
        print(f"{(k + '@' + s)[:40]:40} {r[0]:6d} {r[1] * ms:9.1f} {(r[2] - t0) * ms:8.1f}"
              f" {(r[3] - t0) * ms:8.1f}")

    # busy share of each GPU stream per slice of the run
    w = (t1 - t0) / nbins
    gpu = sorted(k for k in tracks if k != "cpu" and not k.startswith("insert"))
    print(f"busy % per slice of {w * ms:.0f} ms: " + " ".join(t.split()[-1][:9] for t in gpu))
    for i in range(nbins):
        a, b = t0 + i * w, t0 + (i + 1) * w
        row = [union([(max(a, e["ts"]), min(b, e["ts"] + e["dur"])) for e in tracks[k]
                      if e["ts"] < b and e["ts"] + e["dur"] > a]) / w * 100 for k in gpu]
        print(f"{i * w * ms:8.0f} " + " ".join(f"{x:9.0f}" for x in row))

    # the compute streams' idle gaps, after their first task
    comp = sorted((e for k, es in tracks.items() if k.endswith("compute") for e in es),
                  key=lambda e: e["ts"])
    if comp:
        gaps, end = [], comp[0]["ts"] + comp[0]["dur"]
        for e in comp[1:]:
            if e["ts"] > end:
                gaps.append((e["ts"] - end, e["name"], e["args"].get("step"), (end - t0) * ms))
            end = max(end, e["ts"] + e["dur"])
        print(f"compute idle after its first task: {sum(g for g, *_ in gaps) * ms:.1f} ms in "
              f"{len(gaps)} gaps; first task at {(comp[0]['ts'] - t0) * ms:.1f} ms; after the "
              f"last {(t1 - end) * ms:.1f} ms")
        print("  largest (ms @ start ms, the task after it):",
              ", ".join(f"{g * ms:.2f}@{t:.0f} ({n} k{s})"
                        for g, n, s, t in sorted(gaps, reverse=True)[:10]))

    # per step: panel-stream and compute-stream time
    panel, compute = defaultdict(float), defaultdict(float)
    for k, es in tracks.items():
        for e in es:
            st = e["args"].get("step")
            if k.endswith("panel"):
                panel[st] += e["dur"] * ms
            elif k.endswith("compute"):
                compute[st] += e["dur"] * ms
    steps = sorted(set(panel) | set(compute), key=lambda x: (x is None, x))
    if len(steps) > 2:
        print("step: panel-stream ms / compute-stream ms (every 4th step and the last 8)")
        sel = [s for i, s in enumerate(steps) if i % 4 == 0 or i >= len(steps) - 8]
        print(" ".join(f"{s}:{panel[s]:.1f}/{compute[s]:.1f}" for s in sel))


if __name__ == "__main__":
    main()
