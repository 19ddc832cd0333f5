#!/usr/bin/env python3
"""Summarise a hytile Chrome trace (hytile bench-gpu --trace FILE, or --trace-dev FILE for the
device-resident run) of the one-GPU LU with GPU panels: per stream busy time (union of its
tasks), the compute stream's idle time and its largest gaps, per-step panel and bulk-update
times (early / middle / late), the bulk update's rate, how many of the steps' panels were
hytile's native one (the others cuSOLVER's), how much of a panel's time bulk updates ran
beside it and how many steps behind it those were ("beside bulk %", "bulk lag"), and, in traces
that record it, how long the host took to submit each panel's calls.
Device task times are CUDA events on the task's stream, so a task's time includes the time its
kernels waited for SMs held by other streams, and for the host's calls that submit them (each
device task's submission on the host, issue_ts / issue_dur, is summed per stream).

    tools/trace_summary.py TRACE.json [N [NB [LOOKAHEAD]]] [--from K]

N, NB and LOOKAHEAD default to the trace's own notes (lu.n, lu.nb, lu.lookahead in its
otherData, which the LU writes since 2026-12-03; for older traces give them: NB and LOOKAHEAD
then default to 512 and 4).

--from K also lists every GPU task of steps K and later by its start (ms from the first GPU
task: start, end, duration, stream, step, task name, its tile indices), which shows the chain
that bounds the last steps.

A trace of the GPU-only Cholesky (hytile bench-gpu --chol N --trace FILE; its tasks are named
gpu_chol_*) gets its own summary: per stream busy time, the start (before the first trailing
update, when only the first panels run), the trailing updates on the compute stream (first
start to last end, how much of it the stream was busy, each step's), the time between the last
of them and the tail (the vendor's dpotrf on the last columns, chol.tail), the tail, and the
panels alone and beside a trailing update.  N and NB are not needed there.
"""
import json
import sys


def union(iv):
    iv = sorted(iv)
    tot, cur_s, cur_e = 0.0, None, None
    for s, e in iv:
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                tot += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None:
        tot += cur_e - cur_s
    return tot


def group_mean(d, a, b, width, prec, scale=1.0):
    """The mean of d[k] over the steps a <= k < b that d has (times scale), as a column of
    width with prec decimals; '-' when it has none."""
    ks = [k for k in range(a, b) if k in d]
    if not ks:
        return f"{'-':>{width}}"
    return f"{scale * sum(d[k] for k in ks) / len(ks):{width}.{prec}f}"


def chol_summary(path, ev, names):
    """The GPU-only Cholesky's trace: where its time went (see the module's comment)."""
    gpu = sorted((e for e in ev if e.get("ph") == "X" and e["pid"] >= 1
                  and e["name"].startswith("gpu_chol_") and e["name"] != "gpu_chol_info"),
                 key=lambda e: e["ts"])
    # several runs (runtime.trace over a whole benchmark): the last, from its first panel on
    starts = [e["ts"] for e in gpu
              if e["name"] == "gpu_chol_panel" and e["args"].get("step") == 0]
    runs = ""
    if len(starts) > 1:
        gpu = [e for e in gpu if e["ts"] >= starts[-1]]
        runs = f" (the last of the trace's {len(starts)} runs)"
    by = {}
    for e in gpu:
        by.setdefault(names.get((e["pid"], e["tid"]), "?").split()[-1], []).append(e)
    t0 = gpu[0]["ts"]
    t1 = max(e["ts"] + e["dur"] for e in gpu)
    span = (t1 - t0) * 1e-3
    ms = lambda us: us * 1e-3
    print(f"trace {path}: the GPU-only Cholesky{runs}, {len(gpu)} tasks; GPU span {span:.2f} ms")
    print(f"{'stream':10} {'tasks':>6} {'busy ms':>9} {'busy %':>7}")
    for s, es in sorted(by.items()):
        b = ms(union([(e["ts"], e["ts"] + e["dur"]) for e in es]))
        print(f"{s:10} {len(es):6d} {b:9.2f} {100 * b / span:6.1f}%")
    trail = by.get("compute", [])
    tail = [e for e in gpu if e["name"] == "gpu_chol_tail"]
    panels = [e for e in gpu if e["name"] == "gpu_chol_panel"]
    rows = []
    if trail:
        first, last = trail[0]["ts"], max(e["ts"] + e["dur"] for e in trail)
        busy = ms(union([(e["ts"], e["ts"] + e["dur"]) for e in trail]))
        rows.append(("start, before the first trailing update", ms(first - t0)))
        rows.append((f"{len(trail)} trailing updates, first start to last end", ms(last - first)))
        rows.append(("  of which the compute stream busy", busy))
        end = last
    else:
        end = t0
    if tail:
        rows.append(("from there to the tail's start", ms(tail[0]["ts"] - end)))
        rows.append(("the tail (the vendor's dpotrf)", ms(tail[0]["dur"])))
        end = tail[0]["ts"] + tail[0]["dur"]
    rows.append(("after that, to the last task's end", ms(t1 - end)))
    print(f"{'phase':42} {'ms':>9} {'% span':>7}")
    for what, v in rows:
        print(f"{what:42} {v:9.2f} {100 * v / span:6.1f}%")
    if trail:
        print("trailing updates by step (ms):",
              ", ".join(f"k{e['args'].get('step')} {ms(e['dur']):.2f}" for e in trail))
    if panels:
        iv = [(e["ts"], e["ts"] + e["dur"]) for e in trail]
        alone, beside = [], []
        for e in panels:
            s0, s1 = e["ts"], e["ts"] + e["dur"]
            ov = union([(max(s0, a), min(s1, b)) for a, b in iv if a < s1 and b > s0])
            (beside if ov > 0.5 * e["dur"] else alone).append(ms(e["dur"]))
        mean = lambda v: f"{sum(v) / len(v):.2f}" if v else "-"
        print(f"panels: {len(panels)}; alone (a trailing update beside less than half their "
              f"time) {len(alone)}, mean {mean(alone)} ms; beside one {len(beside)}, mean "
              f"{mean(beside)} ms")


def main():
    argv = sys.argv[1:]
    k_from = None
    if "--from" in argv:
        i = argv.index("--from")
        k_from = int(argv[i + 1])
        del argv[i:i + 2]
    path = argv[0]
    trace = json.load(open(path))
    ev = trace["traceEvents"]
    notes = trace.get("otherData", {})
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev
             if e.get("ph") == "M" and e["name"] == "thread_name"}
    if any(e.get("ph") == "X" and e["name"].startswith("gpu_chol_") for e in ev):
        chol_summary(path, ev, names)
        return
    def param(i, key, default):
        if len(argv) > i:
            return int(argv[i])
        if key in notes:
            return int(notes[key])
        if default is None:
            sys.exit(f"{path}: no {key} note in the trace: give N (and NB, LOOKAHEAD)")
        return default

    n = param(1, "lu.n", None)
    nb = param(2, "lu.nb", 512)
    la = param(3, "lu.lookahead", 4)
    tasks = [e for e in ev if e.get("ph") == "X"]
    streams = {}
    for e in tasks:
        nm = names.get((e["pid"], e["tid"]), "?")
        if e["pid"] == 0:
            nm = "cpu"
        else:
            nm = nm.split()[-1]
        streams.setdefault(nm, []).append(e)
    gpu = [e for e in tasks if e["pid"] >= 1]
    t0 = min(e["ts"] for e in gpu)
    t1 = max(e["ts"] + e["dur"] for e in gpu)
    span = (t1 - t0) * 1e-3
    print(f"trace {path}: N {n} nb {nb} lookahead {la}; GPU span {span:.1f} ms")
    print(f"{'stream':10} {'tasks':>6} {'busy ms':>9} {'busy %':>7}")
    for s, es in sorted(streams.items()):
        b = union([(e["ts"], e["ts"] + e["dur"]) for e in es]) * 1e-3
        print(f"{s:10} {len(es):6d} {b:9.1f} {100 * b / span:6.1f}%")
    comp = sorted(streams.get("compute", []), key=lambda e: e["ts"])
    crit = [(e["ts"], e["ts"] + e["dur"]) for s in ("panel", "lookahead")
            for e in streams.get(s, [])]
    # compute idle: gaps between compute tasks (after its first task)
    gaps = []
    for a, b in zip(comp, comp[1:]):
        g = b["ts"] - (a["ts"] + a["dur"])
        if g > 0:
            gaps.append((g, b["args"]["step"], a["ts"] + a["dur"], b["ts"]))
    idle = sum(g for g, *_ in gaps) * 1e-3
    if comp:
        first = comp[0]["ts"]
        print(f"compute stream: first task at {(first - t0) * 1e-3:.1f} ms, idle after it "
              f"{idle:.1f} ms in {len(gaps)} gaps; after its last task "
              f"{(t1 - comp[-1]['ts'] - comp[-1]['dur']) * 1e-3:.1f} ms")
        # how much of the idle time the critical streams were busy
        cov = 0.0
        for g, k, s, e in gaps:
            cov += union([(max(s, a), min(e, b)) for a, b in crit if a < e and b > s])
        print(f"  of the idle time, panel or lookahead stream busy {cov * 1e-3:.1f} ms")
        top = sorted(gaps, reverse=True)[:8]
        print("  largest gaps (ms, before the update of step):",
              ", ".join(f"{g * 1e-3:.2f}@k{k}" for g, k, *_ in top))
    # per step
    kt = (n + nb - 1) // nb
    # gpu_panel: cuSOLVER's panel, gpu_panel_native: hytile's
    panel = {e["args"]["step"]: e["dur"] * 1e-3 for e in streams.get("panel", [])
             if e["name"].startswith("gpu_panel")}
    native = {e["args"]["step"] for e in streams.get("panel", [])
              if e["name"] == "gpu_panel_native"}
    # the host's submission of each panel (traces since 2026-12-01; else none)
    psub = {e["args"]["step"]: e["args"]["issue_dur"] * 1e-3 for e in streams.get("panel", [])
            if e["name"].startswith("gpu_panel") and "issue_dur" in e["args"]}
    # each panel beside the bulk updates: the share of its time that compute-stream tasks
    # overlap, and how many steps behind it (weighted by overlap) those updates were
    upd = [(e["ts"], e["ts"] + e["dur"], e["args"]["step"]) for e in comp
           if e["name"] == "gpu_update"]
    beside, lag = {}, {}
    for e in streams.get("panel", []):
        if not e["name"].startswith("gpu_panel"):
            continue
        s0, s1, k = e["ts"], e["ts"] + e["dur"], e["args"]["step"]
        ov = [(max(s0, a), min(s1, b), ku) for a, b, ku in upd if a < s1 and b > s0]
        beside[k] = union([(a, b) for a, b, _ in ov]) / e["dur"] if e["dur"] > 0 else 0.0
        w = sum(b - a for a, b, _ in ov)
        if w > 0:
            lag[k] = sum((b - a) * (k - ku) for a, b, ku in ov) / w
    bulk, la_t = {}, {}
    for e in comp:
        if e["name"] == "gpu_update":
            k = e["args"]["step"]
            bulk[k] = bulk.get(k, 0) + e["dur"] * 1e-3
    for e in streams.get("lookahead", []):
        k = e["args"]["step"]
        la_t[k] = la_t.get(k, 0) + e["dur"] * 1e-3
    print(f"{'steps':>9} {'panel ms':>9} {'la ms':>8} {'bulk ms':>8} {'bulk TF/s':>9}"
          f" {'panel/bulk':>10} {'native':>6} {'beside bulk %':>13} {'bulk lag':>8}"
          + (f" {'panel submit ms':>15}" if psub else ""))
    edges = sorted(set([0, 1, 2, 4, 8, kt // 4, kt // 2, 3 * kt // 4, kt - 8, kt - 2, kt]))
    edges = [x for x in edges if 0 <= x <= kt]
    for a, b in zip(edges, edges[1:]):
        if a >= b:
            continue
        p = sum(panel.get(k, 0) for k in range(a, b))
        l = sum(la_t.get(k, 0) for k in range(a, b))
        u = sum(bulk.get(k, 0) for k in range(a, b))
        fl = 0.0
        for k in range(a, b):
            rows = max(n - (k + 1) * nb, 0)
            cols = max(n - (k + la + 1) * nb, 0)
            fl += 2.0 * rows * cols * nb + 2.0 * cols * nb * nb
        rate = fl / (u * 1e-3) * 1e-12 if u > 0 else 0
        pb = p / u if u > 0 else float("inf")
        nat = sum(1 for k in range(a, b) if k in native)
        sub = " " + group_mean(psub, a, b, 15, 2) if psub else ""
        bs = group_mean(beside, a, b, 13, 0, 100)
        lg = group_mean(lag, a, b, 8, 1)
        print(f"{a:4d}-{b - 1:<4d} {p / (b - a):9.2f} {l / (b - a):8.2f} {u / (b - a):8.2f}"
              f" {rate:9.1f} {pb:10.2f} {nat:3d}/{b - a:<2d} {bs} {lg}{sub}")
    # the host's submission of each device task (traces since 2026-12-01): where it is close
    # to the task's time on the device, the device waited for the host's calls
    submit = {}
    for s, es in streams.items():
        iss = [e["args"]["issue_dur"] for e in es if "issue_dur" in e["args"]]
        if s != "cpu" and iss:
            submit[s] = (len(iss), sum(iss) * 1e-3, max(iss) * 1e-3)
    if submit:
        print("host submission of the device tasks (ms: count, sum, largest):",
              ", ".join(f"{s} {c} / {t:.1f} / {m:.2f}" for s, (c, t, m) in sorted(submit.items())))
    tot = {k: sum(e["dur"] for e in es) * 1e-3 for k, es in streams.items()}
    print("sum of task times (ms):", ", ".join(f"{k} {v:.0f}" for k, v in sorted(tot.items())))
    if k_from is not None:
        late = sorted((e for e in gpu if e["args"].get("step", -1) >= k_from),
                      key=lambda e: e["ts"])
        print(f"GPU tasks of steps {k_from} and later (ms: start, end, duration; the host's "
              f"submission of the task, where recorded: its start and duration)")
        for e in late:
            st = names.get((e["pid"], e["tid"]), "?").split()[-1]
            a = e["args"]
            iss = (f" submitted {(a['issue_ts'] - t0) * 1e-3:.2f} +{a['issue_dur'] * 1e-3:.2f}"
                   if "issue_dur" in a else "")
            print(f"{(e['ts'] - t0) * 1e-3:9.2f} {(e['ts'] + e['dur'] - t0) * 1e-3:9.2f} "
                  f"{e['dur'] * 1e-3:7.2f} {st:9} k{a['step']:<3} {e['name']} "
                  f"(i {a.get('i')}, j {a.get('j')}){iss}")


if __name__ == "__main__":
    main()
