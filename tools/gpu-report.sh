#!/bin/bash
# What the README's GPU lines rest on, in one call on a GPU machine: the build, the gpu suite
# (compute-sanitizer included), the LU and the Cholesky (both triangles, and the device
# matrix's on every GPU) against cuSOLVER in the same run, and
# the README's main job (hytile hpl with the shipped configuration).  From the repository root,
# after `source tools/gpu-env.sh`.  Logs to $OUT (or /tmp/hytile-gpu); a summary last.
# STEPS (default "suite hpl lu chol": with "sanitize" the whole exceeds a device call's 600 s)
# picks the parts ("suite": the gpu suite but
# compute-sanitizer, "sanitize": that test alone; "first": the first LU of a process (NS1;
# host to host it overlaps its loads as later runs do); "lu1": the LU on the first GPU alone, for
# the scaling of "lu" on every GPU; "trace": hytile hpl -n TRACE_N on every GPU with an SVG
# Gantt chart of its trace; "panels": the LU at NS1 with cuSOLVER's panels, the default and
# the native panel everywhere; "cholgroup": the GPU-only Cholesky with chol.group 1, 2 and 3,
# both triangles (CHOL_NS, default 32768 65536); "lapack": LAPACK's DGE/DPO tests preloaded on
# the GPUs; "abi":
# dgesv_ and dposv_ through the ABI against OpenBLAS; "hplmax": the main job at the largest N
# the GPUs' memory allows, hpl.seconds lifted); NS, NS1, CHOL_NS, CHOL_DMAT_NS, TRACE_N,
# ABI_N the sizes; MG the blocks of cusolverMg's runs on several GPUs (default 256,512; 512 was
# the faster on 2 and 4 GPUs, 2026-11-27); LIMIT the seconds a step may take (default 300; 580
# for "sanitize", which took 268-350 s on one H200 before its mixed-panel runs and over 540 s
# after; on one H100 on 2026-11-28 racecheck alone took 477 s and the other three tools 29 s,
# and the panel test's one-CTA shapes came after that (racecheck on that test's small set: 208 s,
# 234 s with the short-panel kernel): with a device call limited to 600 s, run
# it in two calls, STEPS=sanitize HYTILE_SANITIZE_TOOLS=racecheck, then "memcheck synccheck
# initcheck"; see tests/gpu-sanitize.sh).
set -u
out=${OUT:-/tmp/hytile-gpu}
mkdir -p "$out"
steps=${STEPS:-suite hpl lu chol}
lim=${LIMIT:-300}
t0=$(date +%s)
say() { printf '%s\n' "$*" | tee -a "$out/summary.txt"; }
stamp() { say "[$(($(date +%s) - t0)) s] $*"; }

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader >"$out/gpu.txt" 2>&1
stamp "GPU: $(cat "$out/gpu.txt")"
if [ ! -f build-gpu/build.ninja ]; then
    meson setup build-gpu -Dcuda=enabled -Dgpu_arch="${GPU_ARCH:-90}" >"$out/setup.log" 2>&1 ||
        { tail -20 "$out/setup.log"; exit 1; }
fi
ninja -C build-gpu >"$out/build.log" 2>&1 || { grep -E "error|FAILED" "$out/build.log" | head -20; exit 1; }
stamp "built"
hy=build-gpu/hytile
for s in $steps; do
    case $s in
    suite | sanitize)
        sel="--suite gpu --no-suite sanitize" slim=$lim
        [ "$s" = sanitize ] && sel="--suite sanitize" slim=${LIMIT:-580}
        # shellcheck disable=SC2086
        timeout "$slim" meson test -C build-gpu --print-errorlogs $sel >"$out/$s.log" 2>&1
        stamp "$s: exit $?"
        grep -E "^ *[0-9]+/[0-9]+ .*(OK|FAIL|SKIP|TIMEOUT)" "$out/$s.log" |
            sed 's/^ *[0-9]*\/[0-9]* //' | tee -a "$out/summary.txt"
        ;;
    lu)
        timeout "$lim" $hy bench-gpu -n "${NS:-16384,32768,65536}" --reps "${REPS:-2}" \
            --mg-block "${MG:-256,512}" >"$out/lu.log" 2>&1
        stamp "bench-gpu (LU): exit $?"
        tail -n 25 "$out/lu.log" | tee -a "$out/summary.txt"
        ;;
    first)
        # the first LU of a process (bench-gpu reports the best of --reps after an untimed
        # run; --cold times that one): host to host it must overlap the loads as later runs do
        timeout "$lim" $hy bench-gpu -n "${NS1:-65536}" --reps 1 --no-peer --cold \
            >"$out/first.log" 2>&1
        stamp "bench-gpu (LU, the first run of a process): exit $?"
        tail -n 1 "$out/first.log" | tee -a "$out/summary.txt"
        ;;
    lu1)
        timeout "$lim" $hy bench-gpu -n "${NS1:-${NS:-65536}}" --devices cuda:0 --reps "${REPS:-2}" \
            >"$out/lu1.log" 2>&1
        stamp "bench-gpu (LU, cuda:0 alone): exit $?"
        tail -n 6 "$out/lu1.log" | tee -a "$out/summary.txt"
        ;;
    trace)
        # the JSON trace stays on the machine (large); the SVG comes back
        timeout "$lim" $hy hpl -n "${TRACE_N:-98304}" --devices cuda --trace /tmp/hytile-trace.json \
            >"$out/trace.log" 2>&1
        rc=$?
        cp /tmp/hytile-trace.svg "$out/trace.svg" 2>/dev/null
        stamp "hytile hpl -n ${TRACE_N:-98304} --trace: exit $rc, SVG $(wc -c <"$out/trace.svg" 2>/dev/null) bytes"
        grep -E "^WR|^HYL|PASSED|FAILED" "$out/trace.log" | tail -n 3 | tee -a "$out/summary.txt"
        ;;
    chol)
        # shellcheck disable=SC2086
        timeout "$lim" $hy bench-gpu --chol ${CHOL_NS:-4096 8192 16384 32768 65536} --uplo L,U \
            --reps "${REPS:-2}" >"$out/chol.log" 2>&1
        stamp "bench-gpu --chol: exit $?"
        tail -n 12 "$out/chol.log" | tee -a "$out/summary.txt"
        # the device matrix's Cholesky (hyt_dpotrf_dmat) on every GPU
        # shellcheck disable=SC2086
        timeout "$lim" $hy bench-gpu --chol ${CHOL_DMAT_NS:-32768 65536} --dmat --devices cuda \
            --reps "${REPS:-2}" --mg-block "${MG:-256,512}" >"$out/chol_dmat.log" 2>&1
        stamp "bench-gpu --chol --dmat: exit $?"
        tail -n 6 "$out/chol_dmat.log" | tee -a "$out/summary.txt"
        ;;
    cholgroup)
        # the GPU-only Cholesky with one, two and three steps' panels a trailing update
        # (chol.group), both triangles, against cusolverDnDpotrf in the same process
        # shellcheck disable=SC2086
        timeout "$lim" $hy bench-gpu --chol ${CHOL_NS:-32768 65536} --uplo L,U --group 1,2,3 \
            --reps "${REPS:-2}" >"$out/cholgroup.log" 2>&1
        stamp "bench-gpu --chol --group: exit $?"
        grep -E "^ +[0-9]+ [LU] " "$out/cholgroup.log" | tee -a "$out/summary.txt"
        ;;
    lapack)
        # LAPACK's DGE and DPO tests with the library preloaded on the GPUs, every matrix
        # through them (gpu.min_n 1: the tests' matrices are small): solves with few
        # right-hand sides on the CPUs as configured, then every solve on the GPUs too
        xl=${HYTILE_XLINTSTD:-$(ls /opt/deps/usr/lib/*/lapack/xlintstd 2>/dev/null | head -n 1)}
        for m in 32 1; do
            HYTILE_XLINTSTD=$xl HYT_DEVICES=cuda HYT_GPU_MIN_N=1 HYT_GPU_SOLVE_MIN_NRHS=$m \
                timeout "$lim" tests/lapack-testing build-gpu/libhytile.so \
                >"$out/lapack_$m.log" 2>&1
            stamp "LAPACK DGE/DPO tests, preloaded, HYT_DEVICES=cuda HYT_GPU_MIN_N=1" \
                "HYT_GPU_SOLVE_MIN_NRHS=$m: exit $?"
            grep -iE "passed|failed|tests run" "$out/lapack_$m.log" | tail -n 10 |
                tee -a "$out/summary.txt"
        done
        ;;
    abi)
        # dgesv_ and dposv_ as an unmodified program calls them, against OpenBLAS
        timeout "$lim" $hy bench-gpu --abi -n "${ABI_N:-30000}" --reps 2 >"$out/abi.log" 2>&1
        stamp "bench-gpu --abi: exit $?"
        timeout "$lim" $hy bench-gpu --abi --chol -n "${ABI_N:-30000}" --reps 2 >>"$out/abi.log" 2>&1
        stamp "bench-gpu --abi --chol: exit $?"
        grep -E "^ *[0-9]+ " "$out/abi.log" | tee -a "$out/summary.txt"
        ;;
    panels)
        # the LU with each panel choice, alternately, twice (no peer): cuSOLVER's panels
        # everywhere (gpu.panel_ctas 0), the default (native above gpu.panel_native_rows),
        # the native panel everywhere (gpu.panel_native_rows 0); default=1 sets nothing hytile
        # reads (an unknown HYT_ variable would be refused)
        for r in 1 2; do
            for v in HYT_GPU_PANEL_CTAS=0 default=1 HYT_GPU_PANEL_NATIVE_ROWS=0; do
                env "$v" timeout "$lim" $hy bench-gpu -n "${NS1:-65536}" --reps 2 --no-peer \
                    >"$out/panels.log" 2>&1
                printf '%-30s %s\n' "$v" "$(grep -E '^ *[0-9]+ .*hytile' "$out/panels.log")" |
                    tee -a "$out/summary.txt"
            done
        done
        stamp "bench-gpu (LU, panel choices)"
        ;;
    hplmax)
        HYT_HPL_SECONDS=86400 timeout "$lim" $hy hpl --config configs/hpl.ini >"$out/hplmax.log" 2>&1
        stamp "hytile hpl --config configs/hpl.ini, hpl.seconds lifted: exit $?"
        grep -E "^WR|^HYL|PASSED|FAILED|sizes|rror" "$out/hplmax.log" | tail -n 6 |
            tee -a "$out/summary.txt"
        ;;
    hpl)
        h0=$(date +%s.%N)
        timeout "$lim" $hy hpl --config configs/hpl.ini >"$out/hpl.log" 2>&1
        rc=$?
        stamp "hytile hpl --config configs/hpl.ini: exit $rc, $(awk -v a="$h0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s in all"
        grep -E "^WR|^HYL|PASSED|FAILED|N *=|GFLOP" "$out/hpl.log" | tail -n 12 |
            tee -a "$out/summary.txt"
        ;;
    esac
done
