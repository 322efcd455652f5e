#!/bin/bash
# cubin.sh SRC OUT: the sm_90a machine code of one kernel file (nvcc with the
# build's flags for it, -cubin) and its disassembly (nvdisasm -c) as OUT.cubin
# and OUT.sass, for sass_compare.py. REPO (default: this checkout), BUILD (a
# configured meson build directory, for config.h; default build) and NVDISASM
# (default: nvdisasm on PATH) may be set; no GPU needed.
set -e
src=$1; out=$2
here=$(cd "$(dirname "$0")/../.." && pwd)
repo=${REPO:-$here}
build=${BUILD:-$repo/build}
nvcc -DNDEBUG -O3 -std=c++17 -lineinfo --expt-relaxed-constexpr \
    -gencode=arch=compute_90a,code=sm_90a -DAB_HAVE_CUDA=1 -DAB_HAVE_CUDNN=1 \
    -I"$repo/src" -I"$build/src" -I"$repo/src/core" -I"$build/src/core" -I"$repo/kernels" \
    -I"$repo" -I"$build" -cubin -o "$out.cubin" "$src"
${NVDISASM:-nvdisasm} -c "$out.cubin" >"$out.sass"
