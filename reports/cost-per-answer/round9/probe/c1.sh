#!/bin/bash
# call 1: build; PyTorch start-up stages and the kit's per-take overhead
# (probe_take.py); cost-bwd twice with a timeline of the runner's stderr
set -u
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/c1; mkdir -p $L/db
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt
(export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT); meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build.log 2>&1; ninja -C bf >> $L/build.log 2>&1; echo "rc $?" >> $L/build.log) &
python3 devscripts/probe_take.py > $L/probe1.log 2>&1; echo "probe1 rc=$? $(el) s"
wait; echo "built $(el) s: $(tail -1 $L/build.log)"
AB=$PWD/bf/src/attnbench
for i in 0 1 2; do timeout 100 python3 devscripts/ts.py $AB run experiments/cost-bwd.cfg --db $L/db/cost-bwd.db > $L/run-cost-bwd-$i.log; echo "cost-bwd $i rc=$? $(el) s: $(tail -1 $L/run-cost-bwd-$i.log)"; done
python3 devscripts/probe_take.py > $L/probe2.log 2>&1; echo "probe2 rc=$? $(el) s"
cat $L/probe2.log
sqlite3 $L/db/cost-bwd.db "select stderr_text from measurements where run_id=3 and variant like 'torch%' order by id limit 1" 2>/dev/null || python3 -c "
import sqlite3;c=sqlite3.connect('$L/db/cost-bwd.db');print(c.execute(\"select stderr_text from measurements where run_id=3 and variant like 'torch%' order by id limit 1\").fetchone()[0])"
grep -E '^ *[0-9.]+ (\[|run|  torch_sdpa_default:|  cudnn)' $L/run-cost-bwd-2.log | head -12
cd $OUT && tar czf c1.tgz c1 && rm -rf c1
