#!/bin/sh
# tests/gpu/check_committed.sh GPU_CHECK SHAPES: every CUDA variant of this
# build (gpu_check --list, from the registry) that supports it, at every
# configuration of the committed runs (SHAPES: tests/gpu/committed_shapes.txt,
# generated from reports/seeds-and-ladders/attnbench.db by the command in its header), checked
# over every row on the device (gpu_check --shape). The committed reports'
# own checks compared 64 sampled rows per (b, h) slice at large S; this
# re-checks those kernels at those shapes in full. Exit 0 when all pass, 1
# otherwise, 77 without a CUDA device.
gpu_check=$1
shapes=$2
out=$("$gpu_check" --shape 1,1,1,64,0,fp16 2>&1 | head -1)
case $out in skipped:*) echo "$out"; exit 77 ;; esac
variants=$("$gpu_check" --list)
fails=0 n=0
for s in $(grep -v '^#' "$shapes"); do
    log=$(mktemp)
    "$gpu_check" --shape "$s" $variants >"$log" 2>&1 || fails=$((fails + 1))
    grep -v '^on ' "$log"
    rm -f "$log"
    n=$((n + 1))
done
echo "committed shapes: $n, with a failure: $fails"
[ $fails -eq 0 ]
