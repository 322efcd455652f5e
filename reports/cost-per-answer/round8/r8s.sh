#!/bin/bash
# round 8, call S (a fresh machine, this stop's final code 19c87f7):
# compute-sanitizer memcheck and synccheck over `gpu_check --reference`
# side by side (the reference's epilogue was folded into one helper,
# 178947f, after its last sanitizer run). The script as run was
# devscripts/sanitize-reference.sh; its logs are s/memcheck.log and
# s/synccheck.log.
set -u
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin
L=$OUT/san; mkdir -p $L
(export ATTNBENCH_COMMIT=$(cat devscripts/COMMIT); meson setup bf -Dbuildtype=release -Dgpu_targets=90a > $L/build.log 2>&1; ninja -C bf tests/gpu/gpu_check >> $L/build.log 2>&1)
for t in memcheck synccheck; do
  (timeout 330 compute-sanitizer --tool $t --error-exitcode 9 bf/tests/gpu/gpu_check --reference > $L/$t.log 2>&1; echo "rc $?" >> $L/$t.log) &
done
wait
