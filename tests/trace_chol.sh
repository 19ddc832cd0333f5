#!/bin/sh
# hytile bench-gpu --chol --trace: the trace of the GPU-only Cholesky's last run (on one host
# device: N = 1100, nb 128, nine panels), and tools/trace_summary.py's Cholesky summary of it;
# then that summary on a small trace made up for it, whose answers are known.
#
#   tests/trace_chol.sh HYTILE
set -u
hytile=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "trace_chol: $*" >&2
    exit 1
}
summary=$(dirname "$0")/../tools/trace_summary.py

"$hytile" bench-gpu --chol 1100 --nb 128 --lookahead 1 --reps 2 --devices host:1 \
    --trace "$tmp/c.json" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "bench-gpu --trace failed"; }
panels=$(grep -o '"name":"gpu_chol_panel"' "$tmp/c.json" | wc -l)
[ "$panels" -eq 9 ] || fail "bench-gpu --chol --trace: $panels panels in the trace, expected 9"
python3 "$summary" "$tmp/c.json" >"$tmp/sum" 2>&1 || { cat "$tmp/sum"; fail "summary failed"; }
grep -q '^panels: 9;' "$tmp/sum" || { cat "$tmp/sum"; fail "summary of the bench's trace"; }
echo "bench-gpu --chol --trace: one run's nine panels, summarised"

# A made-up trace (us): panels of steps 0, 1 at 0-100, 100-200 (alone), of step 2 at 300-400
# (beside the first trailing update); trailing updates of steps 1 and 3 at 200-450 and 500-600;
# the tail at 650-800.  Span 0.8 ms: start 0.2, trailing 0.4 (busy 0.35), 0.05 to the tail,
# the tail 0.15.
cat >"$tmp/s.json" <<'JSON'
{"traceEvents":[
 {"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"gpu0 lookahead"}},
 {"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"gpu0 compute"}},
 {"ph":"X","name":"gpu_chol_panel","pid":1,"tid":1,"ts":0,"dur":100,"args":{"step":0}},
 {"ph":"X","name":"gpu_chol_panel","pid":1,"tid":1,"ts":100,"dur":100,"args":{"step":1}},
 {"ph":"X","name":"gpu_chol_panel","pid":1,"tid":1,"ts":300,"dur":100,"args":{"step":2}},
 {"ph":"X","name":"gpu_chol_update","pid":1,"tid":2,"ts":200,"dur":250,"args":{"step":1}},
 {"ph":"X","name":"gpu_chol_update","pid":1,"tid":2,"ts":500,"dur":100,"args":{"step":3}},
 {"ph":"X","name":"gpu_chol_tail","pid":1,"tid":1,"ts":650,"dur":150,"args":{"step":4}}
]}
JSON
python3 "$summary" "$tmp/s.json" >"$tmp/sum" 2>&1 || { cat "$tmp/sum"; fail "summary failed"; }
got=$(awk '/^start, before/ {a = $(NF - 1)} /trailing updates, first start/ {b = $(NF - 1)}
           /compute stream busy/ {c = $(NF - 1)} /to the tail.s start/ {d = $(NF - 1)}
           /^the tail/ {e = $(NF - 1)} END {print a, b, c, d, e}' "$tmp/sum")
[ "$got" = "0.20 0.40 0.35 0.05 0.15" ] || { cat "$tmp/sum"; fail "phases '$got'"; }
grep -q '^panels: 3; .* 2, mean 0.10 ms; beside one 1, mean 0.10 ms' "$tmp/sum" ||
    { cat "$tmp/sum"; fail "the panels alone and beside"; }
echo "trace_summary.py: the Cholesky's phases and its panels alone and beside"
echo "trace_chol: passed"
