#!/bin/bash
# The LU on one GPU against cuSOLVER (device-resident and host to host) with the panel
# stream's SM bound (gpu.panel_sms: 0 none, N SMs, auto half) and the two panels; run from the
# repository root after building build-gpu.  Logs to $OUT (or /tmp), a table last.
set -u
out=${OUT:-/tmp}
ns=${NS:-16384,32768,65536}
b=build-gpu/drivers/hytile
[ -x $b ] || b=$(find build-gpu -name hytile -type f -perm -u+x | head -1)
# CFGS: panel_sms:panel_ctas pairs, comma separated
for cfg in $(echo ${CFGS:-0:0,auto:0,48:0,32:0,32:32,64:auto,0:auto} | tr , ' '); do
  set -- $(echo $cfg | tr : ' ')
  echo "== gpu.panel_sms $1 gpu.panel_ctas $2"
  HYT_GPU_PANEL_SMS=$1 HYT_GPU_PANEL_CTAS=$2 $b bench-gpu -n $ns ${PEER:-} 2>&1 \
    | tee $out/lu_sms$1_ctas$2.log | grep -E "^ +[0-9]+ .*\|.*\|.*\|" | grep -v hytile, \
    | sed "s/^/sms $1 ctas $2 /"
done
