#!/bin/sh
# hytile bench-gpu --chol --hybrid on host devices (no peer): the hybrid Cholesky (hyt_dpotrf),
# timed host to host, in a row after the device-resident row of each setting, its factor checked
# by the benchmark itself (a solve residual >= 16 prints FAILED and exits 1), hyt_dpotrf with
# chol.panel = gpu (the array streamed to a device matrix), and hyt_dpotrf_tile on a tile copy
# with chol.panel cpu (the hybrid) and gpu (GPU panels on the devices).  Passes when the
# benchmark exits 0 and prints every expected row: per setting a device row, then those four
# rows of the same n and triangle with a time; no FAILED.  Runs the sweep on the GPU-only
# Cholesky and on the device matrix (--dmat); with --h2h only the two GPU-panel rows follow
# (against the peer host to host on CUDA); with --group as well, those rows for each group.
#
#   tests/bench_chol_hybrid.sh HYTILE
set -u
hytile=$1
fail() {
    echo "bench_chol_hybrid: $*" >&2
    exit 1
}

# run EXPECTED-SETTINGS ARGS...: the benchmark, its exit status and its rows checked (--h2h
# among the ARGS: the GPU-panel rows alone)
run() {
    want=$1
    shift
    h2h=0
    case " $* " in *" --h2h "*) h2h=1 ;; esac
    echo "== hytile bench-gpu $*"
    out=$("$hytile" bench-gpu "$@" 2>&1)
    rc=$?
    printf '%s\n' "$out"
    [ "$rc" -eq 0 ] || fail "exit status $rc"
    if printf '%s\n' "$out" | grep -q FAILED; then
        fail "a row FAILED"
    fi
    # after each device row (leaf a number), four rows of the same setting with a positive
    # time: the hybrid's, hyt_dpotrf's on the devices, hyt_dpotrf_tile's hybrid and GPU-panel
    # ones (nb and lookahead: their own); count the settings
    pairs=$(printf '%s\n' "$out" | awk -v h2h="$h2h" '
        BEGIN {
            w[0] = "  hybrid, host to host$"; w[1] = "hyt_dpotrf on the devices, host to host$"
            w[2] = "hyt_dpotrf_tile, hybrid, host to host$"
            w[3] = "hyt_dpotrf_tile, GPU panels, host to host$"
            rows = 4
            if (h2h) {
                w[0] = w[1]; w[1] = w[3]; rows = 2
            }
        }
        /^#/ { next }
        $5 ~ /^[0-9]+$/ && $6 == "|" { key = $1 " " $2; k = 0; next }
        $5 == "-" && $6 == "|" {
            if ($1 " " $2 != key || !($7 + 0 > 0) || $0 !~ w[k]) {
                print "bad row: " $0 > "/dev/stderr"
                bad = 1
            }
            if (++k == rows) {
                key = ""
                n++
            }
        }
        END { print bad ? -1 : n + 0 }')
    [ "$pairs" -eq "$want" ] || fail "$pairs settings with all their rows, expected $want"
}

# 2 sizes x 2 triangles x 2 nb x 2 lookaheads
run 16 --chol 300 1000 --nb 64,96 --lookahead 0,2 --uplo L,U --hybrid --devices host:2
run 2 --chol 700 --nb 64 --lookahead 0,1 --dmat --hybrid --devices host:2
run 4 --chol 300 --nb 64,96 --uplo L,U --h2h --devices host:2
# --group with --h2h: the GPU-only rows of each group, then the two host-to-host rows of each
# group (chol.group set for them), each naming its group, with a time
out=$("$hytile" bench-gpu --chol 700 --nb 64 --h2h --group 1,2 --devices host:2 2>&1) ||
    { printf '%s\n' "$out"; fail "--h2h --group: exit status $?"; }
printf '%s\n' "$out"
for g in 1 2; do
    for what in "hyt_dpotrf on the devices" "hyt_dpotrf_tile, GPU panels"; do
        printf '%s\n' "$out" | awk -v w="$what, host to host   group $g" '
            index($0, w) && $7 + 0 > 0 && substr($0, length($0) - length(w) + 1) == w {f = 1}
            END {exit !f}' || fail "--h2h --group: no row '$what, host to host   group $g'"
    done
done
echo "bench-gpu --chol --h2h --group: the host-to-host rows of each group"
echo "bench_chol_hybrid: passed"
