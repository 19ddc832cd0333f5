#!/bin/sh
# Which panel factors each step of the LU with GPU panels (gpu.panel_ctas, gpu.panel_native_rows),
# as the trace names it: gpu_panel_native (hytile's native panel) for the panels of more than
# gpu.panel_native_rows rows, gpu_panel (cuSOLVER's) for the others; and as hytile bench-gpu's row
# says it.  N = 1000, nb 100 on one host device: ten panels of 1000, 900, ..., 100 rows.  Then
# tools/trace_summary.py on a small trace made up for it, whose answers are known.
#
#   tests/trace_panels.sh HYTILE
set -u
hytile=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "trace_panels: $*" >&2
    exit 1
}

# check NATIVE CUSOLVER [VAR=VALUE...]: the counts of each panel in the trace of one run (on
# DEVICES host devices, 1 unless set)
check() {
    want_nat=$1 want_cus=$2
    shift 2
    env HYT_PANEL=gpu "$@" "$hytile" hpl -n 1000 --nb 100 --devices host:${DEVICES:-1} --quiet \
        --trace "$tmp/t.json" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "$*: hpl failed"; }
    nat=$(grep -o '"name":"gpu_panel_native"' "$tmp/t.json" | wc -l)
    cus=$(grep -o '"name":"gpu_panel"' "$tmp/t.json" | wc -l)
    echo "$*: $nat native, $cus cuSOLVER panels"
    [ "$nat" -eq "$want_nat" ] && [ "$cus" -eq "$want_cus" ] ||
        fail "$*: expected $want_nat native and $want_cus cuSOLVER panels"
}

check 5 5 HYT_GPU_PANEL_NATIVE_ROWS=500  # more than 500 rows: 1000 ... 600
check 10 0 HYT_GPU_PANEL_NATIVE_ROWS=0   # every panel
check 0 10 HYT_GPU_PANEL_CTAS=0 HYT_GPU_PANEL_NATIVE_ROWS=0 # cuSOLVER's everywhere
check 10 0                               # auto: every panel
DEVICES=2 check 10 0                     # auto on several devices too
# bench ROW-TEXT [VAR=VALUE...]: the benchmark's row names the same steps
bench() {
    want=$1
    shift
    out=$(env HYT_PANEL=gpu "$@" "$hytile" bench-gpu -n 1000 --nb 100 --no-peer \
        --devices host:1 2>&1) || { printf '%s\n' "$out"; fail "$*: bench-gpu failed"; }
    printf '%s\n' "$out" | grep -F -q "(hytile, panels on GPUs: $want)" ||
        { printf '%s\n' "$out"; fail "$*: expected 'panels on GPUs: $want'"; }
    echo "$*: bench-gpu says $want"
}

bench "hytile's (16 CTAs) 0-4, cuSOLVER's 5-9" HYT_GPU_PANEL_NATIVE_ROWS=500
bench "hytile's (8 CTAs)" HYT_GPU_PANEL_CTAS=8 HYT_GPU_PANEL_NATIVE_ROWS=0
bench "hytile's (16 CTAs)"
bench "cuSOLVER's" HYT_GPU_PANEL_CTAS=0
# its two traces: the host-to-host LU, and the device-resident one (its two marks), ten panels
# each
env HYT_PANEL=gpu "$hytile" bench-gpu -n 1000 --nb 100 --no-peer --devices host:1 --reps 2 \
    --trace "$tmp/h.json" --trace-dev "$tmp/d.json" >"$tmp/out" 2>&1 ||
    { cat "$tmp/out"; fail "bench-gpu --trace --trace-dev failed"; }
for f in h d; do
    nat=$(grep -o '"name":"gpu_panel_native"' "$tmp/$f.json" | wc -l)
    marks=$(grep -o '"name":"mark"' "$tmp/$f.json" | wc -l)
    want=0
    [ $f = d ] && want=2
    [ "$nat" -eq 10 ] && [ "$marks" -eq $want ] ||
        fail "bench-gpu's trace $f: $nat native panels and $marks marks, expected 10 and $want"
done
echo "bench-gpu --trace / --trace-dev: ten panels each, the marks in the second"
# tools/trace_summary.py on a trace made up for it (us): panels of steps 0, 1, 2 at 0, 100, 200
# (100 each), the bulk updates of steps 0 and 1 at 50-150 and 150-350.  Panel 0 has update 0
# beside half its time (lag 0), panel 1 updates 0 then 1 all its time (lag 0.5), panel 2
# update 1 all its time (lag 1).
cat >"$tmp/s.json" <<'JSON'
{"traceEvents":[
 {"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"gpu0 panel"}},
 {"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"gpu0 compute"}},
 {"ph":"X","name":"gpu_panel_native","pid":1,"tid":1,"ts":0,"dur":100,"args":{"step":0}},
 {"ph":"X","name":"gpu_panel_native","pid":1,"tid":1,"ts":100,"dur":100,"args":{"step":1}},
 {"ph":"X","name":"gpu_panel","pid":1,"tid":1,"ts":200,"dur":100,"args":{"step":2}},
 {"ph":"X","name":"gpu_update","pid":1,"tid":2,"ts":50,"dur":100,"args":{"step":0}},
 {"ph":"X","name":"gpu_update","pid":1,"tid":2,"ts":150,"dur":200,"args":{"step":1}}
]}
JSON
summary=$(dirname "$0")/../tools/trace_summary.py
python3 "$summary" "$tmp/s.json" 300 100 1 >"$tmp/sum" 2>&1 ||
    { cat "$tmp/sum"; fail "trace_summary.py failed"; }
# the step rows' native count, beside-bulk share and lag
got=$(awk '/beside bulk %/ {on = 1; next} on && /^ +[0-9]+-[0-9]+ / {print $1, $7, $8, $9}' \
    "$tmp/sum" | tr '\n' ';')
[ "$got" = "0-0 1/1 50 0.0;1-1 1/1 100 0.5;2-2 0/1 100 1.0;" ] ||
    { cat "$tmp/sum"; fail "trace_summary.py: step rows '$got'"; }
echo "trace_summary.py: the panels' share beside the bulk updates and their lag"
echo "trace_panels: passed"
