#!/bin/bash
# round 7, call E (call D's warm machine, FA4 installed there): call D's
# runs of the previous stop's code failed (its sources were not on the
# machine: old-src is re-extracted here); cost-fa4 on it with FA4's disk
# cache cold (a fresh folder), then warm, then this stop's code once more
# with its cache of call D (warm). The command as run (one line).
source .deps/env.sh; export PATH=$PATH:/usr/local/cuda/bin; tar xJf devscripts/old-src.tar.xz; L=$OUT/r7e; mkdir -p $L/db; export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages; OLD=$PWD/old-src/bf/src/attnbench; AB=$PWD/bf/src/attnbench; ls $OLD $AB /tmp/site | head -3; for pass in cold warm; do (cd old-src && FLASH_ATTENTION_CUTE_DSL_CACHE_DIR=/tmp/fa4-cache-old2 timeout 100 $OLD run ../experiments/cost-fa4.cfg --db $L/db/cost-fa4-old.db > /dev/null 2> $L/run-cost-fa4-old-$pass.log); echo "old $pass rc=$?"; done; FLASH_ATTENTION_CUTE_DSL_CACHE_DIR=/tmp/fa4-cache-new timeout 100 $AB run experiments/cost-fa4.cfg --db $L/db/cost-fa4-new.db > /dev/null 2> $L/run-cost-fa4-new-warm3.log; echo "new warm rc=$?"; for f in $L/run-*.log; do echo "$(basename $f .log): $(grep -h 'timed samples$' $f | tail -1)"; done; cd $OUT && tar czf r7e.tgz r7e
