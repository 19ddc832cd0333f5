#!/bin/sh
# compute-sanitizer (memcheck, racecheck, synccheck, initcheck) on a small hybrid LU in both
# panel modes (hytile hpl -n 3000 --devices cuda, HYT_PANEL=gpu and cpu: every GPU; and GPU
# panels that are hytile's native ones for the tall steps, cuSOLVER's for the rest), on the
# native panel LU's test, the fused potf2's test and the few-right-hand-side solve's test (small
# cases; hpl's solve runs that kernel too), and on small GPU-only
# Cholesky runs (hytile bench-gpu --chol: both triangles on cuda:0, blocks of 256 and of 768
# in pieces; the device matrix's on every GPU; the panels' solve both ways).
# Usage: gpu-sanitize.sh HYTILE TEST_GPU_PANEL TEST_GPU_DPOTF2 TEST_GPU_DTRSM_FEW
# (HYTILE_SANITIZE_TOOLS, e.g. "synccheck initcheck": those tools alone).
# Exits 77 (skipped) without compute-sanitizer or without a usable GPU.
hytile=$1
panel=$2
potf2=$3
trsm=$4
cs=$(command -v compute-sanitizer || true)
if [ -z "$cs" ] && [ -x /usr/local/cuda/bin/compute-sanitizer ]; then
    cs=/usr/local/cuda/bin/compute-sanitizer
fi
if [ -z "$cs" ]; then
    echo "gpu-sanitize: skipped: compute-sanitizer not found (it comes with the CUDA toolkit)"
    exit 77
fi
if ! "$hytile" hpl -n 200 --devices cuda --quiet >/dev/null 2>&1; then
    echo "gpu-sanitize: skipped: hytile hpl --devices cuda does not run here (no usable GPU?)"
    exit 77
fi
fail=0
# HYTILE_SANITIZE_TOOLS: a subset of the tools (the four take ~8-9 minutes on one H200)
for tool in ${HYTILE_SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}; do
    # racecheck watches every shared-memory access: a smaller matrix keeps it to minutes
    n=3000
    [ "$tool" = memcheck ] || n=1200
    for mode in gpu cpu mix; do
        # mix: hytile's native panel on 16 CTAs for the steps of more than n / 2 rows,
        # cuSOLVER's for the rest (both panels in one factorization)
        set -- HYT_PANEL=$mode
        [ "$mode" = mix ] &&
            set -- HYT_PANEL=gpu HYT_GPU_PANEL_CTAS=16 HYT_GPU_PANEL_NATIVE_ROWS=$((n / 2))
        echo "== $tool, $*: hytile hpl -n $n --devices cuda"
        if ! env "$@" "$cs" --tool "$tool" --error-exitcode 99 \
                "$hytile" hpl -n $n --devices cuda --quiet; then
            echo "gpu-sanitize: FAILED: $tool, $*"
            fail=1
        fi
    done
    echo "== $tool: test_gpu_panel cuda small"
    if ! "$cs" --tool "$tool" --error-exitcode 99 "$panel" cuda small; then
        echo "gpu-sanitize: FAILED: $tool on test_gpu_panel"
        fail=1
    fi
    echo "== $tool: test_gpu_dpotf2 small"
    if ! "$cs" --tool "$tool" --error-exitcode 99 "$potf2" small; then
        echo "gpu-sanitize: FAILED: $tool on test_gpu_dpotf2"
        fail=1
    fi
    echo "== $tool: test_gpu_dtrsm_few cuda (orders up to 100)"
    if ! HYTILE_TEST_SMALL=1 "$cs" --tool "$tool" --error-exitcode 99 "$trsm" cuda; then
        echo "gpu-sanitize: FAILED: $tool on test_gpu_dtrsm_few"
        fail=1
    fi
    for chol in "--uplo L,U --nb 256,768 --devices cuda:0" "--nb 256 --dmat --devices cuda"; do
        # --inv-rows: the panels' solve as chosen (a TRSM at this size) and as a GEMM with the
        # inverse of the diagonal block on every panel
        chol="$chol --inv-rows auto,1"
        echo "== $tool: hytile bench-gpu --chol 1100 $chol --no-peer"
        # shellcheck disable=SC2086
        if ! "$cs" --tool "$tool" --error-exitcode 99 "$hytile" bench-gpu --chol 1100 $chol \
                --no-peer --reps 1 >/dev/null; then
            echo "gpu-sanitize: FAILED: $tool on bench-gpu --chol 1100 $chol"
            fail=1
        fi
    done
done
exit $fail
