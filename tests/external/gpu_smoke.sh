#!/bin/sh
# gpu_smoke.sh: manual smoke test of the PyTorch SDPA adapter on a GPU machine
# (not part of `meson test`): builds tests/external/ext_run.c with
# src/run/external.c, cross-checks the adapter's correctness figures with
# kernels/check.c (check_figures.py), then runs every backend at
# B=4 H=16 S=4096 D=128 and B=32 H=8 S=512 D=64 fp16 in the cold, hot and
# graph modes through ab_ext_measure, 50 samples each, plus two causal runs.
# Usage (repository root): sh tests/external/gpu_smoke.sh [BUILD_DIR]
b=${1:-build-ext}
mkdir -p "$b"
cc -std=c11 -O2 -D_GNU_SOURCE -Isrc/run tests/external/ext_run.c src/run/external.c \
    -o "$b/ext_run" $(pkg-config --cflags --libs jansson 2>/dev/null || echo -ljansson) -lm || exit 1
python3 tests/external/check_figures.py "$b/fig" --backend flash

status=0
for shape in "4 16 4096 128" "32 8 512 64"; do
    for be in flash cudnn efficient math default; do
        for t in cold hot graph; do
            # shellcheck disable=SC2086
            "$b/ext_run" "torch_sdpa_$be" $t $shape 0 fp16 50 \
                "python3 adapters/torch_sdpa.py --backend $be" || status=1
        done
    done
done
for be in flash cudnn; do
    "$b/ext_run" "torch_sdpa_$be" graph 4 16 4096 128 1 fp16 50 \
        "python3 adapters/torch_sdpa.py --backend $be" || status=1
done
exit $status
