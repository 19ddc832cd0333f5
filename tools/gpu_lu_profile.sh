#!/bin/bash
# Traces of the one-GPU LU (hytile bench-gpu --trace, its host-to-host run) per size and tile
# size, summarised by tools/trace_summary.py (and tools/trace_streams.py: the copy streams'
# timeline, to streams.txt); run from the repository root after building
# build-gpu.  NS: sizes, NBS: tile sizes, LA: lookahead.  Logs and summaries to $OUT (or /tmp);
# the traces are deleted after summarising.
set -u
out=${OUT:-/tmp}
b=build-gpu/hytile
la=${LA:-4}
for n in ${NS:-32768 65536}; do
  for nb in ${NBS:-512 1024}; do
    $b bench-gpu -n $n --nb $nb --lookahead $la --no-peer --trace /tmp/t_${n}_${nb}.json \
      > $out/log_${n}_${nb}.txt 2>&1
    echo "== N $n nb $nb lookahead $la: $(grep -E '^ +[0-9]+ .*\|' $out/log_${n}_${nb}.txt | tail -1)" \
      | tee -a $out/summary.txt
    python3 tools/trace_summary.py /tmp/t_${n}_${nb}.json $n $nb $la >> $out/summary.txt 2>&1
    python3 tools/trace_streams.py /tmp/t_${n}_${nb}.json 16 >> $out/streams.txt 2>&1
    rm -f /tmp/t_${n}_${nb}.json
  done
done
