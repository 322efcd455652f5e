#!/bin/sh
# verify.sh MAIN_DIR BRANCH_DIR OUT: the second GPU call of this study.
#  1. builds main's code and this branch's (as run.sh);
#  2. the experiment again in the reverse order (this branch first, then
#     main), against an order effect (the first run after a build finds
#     the libraries' files cold), and every run's report with its
#     "Where the time went" table;
#  3. compute-sanitizer memcheck and racecheck over the tiled reference at
#     both block heights (D = 64: 32 rows a block; D = 200: 16) and the
#     device inputs, while the branch's kernels compile for sm_80, 86, 89;
#  4. the GPU suite and the CPU check suite of this branch's build.
M=$1 W=$2 OUT=$3
here=$(cd "$(dirname "$0")" && pwd)
( cd "$M" && meson setup b -Dbuildtype=release -Dgpu_targets=90a >/dev/null && ninja -C b >"$OUT/build-main.log" 2>&1 ) &
( cd "$W" && meson setup b -Dbuildtype=release -Dgpu_targets=90a >/dev/null && ninja -C b >"$OUT/build-branch.log" 2>&1 ) &
wait
[ -x "$M/b/src/attnbench" ] || { tail -30 "$OUT/build-main.log"; exit 1; }
[ -x "$W/b/src/attnbench" ] || { tail -30 "$OUT/build-branch.log"; exit 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
date -u
cd "$W"
"$W/b/src/attnbench" run "$here/prefill.cfg" --db "$OUT/after2.db" 2>"$OUT/after2.log"; echo "after2: exit $?"
"$M/b/src/attnbench" run "$here/prefill.cfg" --db "$OUT/before2.db" 2>"$OUT/before2.log"; echo "before2: exit $?"
for f in before after; do
  cp "$here/$f.db" "$OUT/$f-copy.db"
  "$W/b/src/attnbench" report 1 --db "$OUT/$f-copy.db" -o "$OUT/$f.md" >/dev/null 2>&1
  "$W/b/src/attnbench" report 1 --db "$OUT/${f}2.db" -o "$OUT/${f}2.md" >/dev/null 2>&1
  rm -f "$OUT/$f-copy.db"
done
tail -1 "$OUT/after2.log" "$OUT/before2.log"
for arch in 80 86 89; do
  nvcc -std=c++17 --expt-relaxed-constexpr -gencode arch=compute_$arch,code=sm_$arch -I kernels \
    -I src/core -I b -c kernels/gpu_reference.cu -o /tmp/r$arch.o >/tmp/nvcc$arch.log 2>&1 &&
  nvcc -std=c++17 --expt-relaxed-constexpr -gencode arch=compute_$arch,code=sm_$arch -I kernels \
    -I src/core -I b -c kernels/gpu_inputs.cu -o /tmp/i$arch.o >>/tmp/nvcc$arch.log 2>&1 &&
  echo "sm_$arch: gpu_reference.cu, gpu_inputs.cu compile" || { echo "sm_$arch: FAIL"; cat /tmp/nvcc$arch.log; } &
done
cs=/usr/local/cuda/bin/compute-sanitizer
for tool in memcheck racecheck; do
  for sh in 1,2,100,64,1,fp16 1,2,70,200,0,bf16 1,2,45,256,1,fp32; do
    echo "$tool $sh: $(timeout 120 $cs --tool $tool b/tests/gpu/gpu_check --shape $sh cuda_naive 2>&1 | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|FAIL' | tr '\n' ' ')"
  done
done
echo "memcheck gpu_inputs: $(timeout 120 $cs --tool memcheck b/tests/gpu/gpu_inputs 2>&1 | grep 'ERROR SUMMARY')"
wait
timeout 300 meson test -C b --suite gpu --num-processes 4 --no-rebuild 2>&1 | grep -E "^ *[0-9]+/[0-9]+ |^Ok:|^Fail:|^Skipped:|^Timeout:" | grep -v " OK " | tail -30
timeout 100 meson test -C b --suite check --num-processes 8 --no-rebuild 2>&1 | grep -E "^Ok:|^Fail:|FAIL|^Skipped:" | tail -10
