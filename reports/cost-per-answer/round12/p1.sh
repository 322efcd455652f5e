#!/bin/bash
# PyTorch start-up probe: 3 rounds of serial / ctx / ctxlib in fresh processes,
# then -X importtime of torch (top modules by cumulative time).
set -u
L=$OUT/p1; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/gpu.txt; date -u >> $L/gpu.txt
python3 -c "import torch; print(torch.__version__, torch.backends.cudnn.version())" >> $L/gpu.txt 2>&1
python3 -c "import torch" # warm the page cache as a second run would be
for r in 1 2 3; do for m in serial ctx ctxlib; do python3 devscripts/startup.py $m >> $L/probe.txt 2>> $L/err.txt; done; done
python3 -X importtime -c "import torch" 2> $L/importtime.txt
sort -t'|' -k2 -n -r $L/importtime.txt | head -25 > $L/importtop.txt
cat $L/gpu.txt; cat $L/probe.txt | cut -c1-400; cat $L/importtop.txt; tail -5 $L/err.txt
