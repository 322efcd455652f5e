#!/bin/bash
# tests/gpu/adapter_routes.sh OUTDIR: every route of bringing your own kernel in one run on the GPU
# machine (a manual script, not a meson test): builds attnbench (build-gpu,
# sm_90a), installs it into a scratch prefix, builds examples/plugin out of
# tree against the installed header and attnbench-plugin.pc (ex/, with its
# CUDA plugin), then runs experiments/adapter-routes.cfg into
# OUTDIR/adapter-routes.db. Run from the repository root after
# `source .deps/env.sh`.
set -u
out=${1:?usage: adapter_routes.sh OUTDIR}
mkdir -p "$out"
dest=$(mktemp -d)
(meson setup build-gpu -Dgpu_targets=90a -Dbuildtype=release && ninja -C build-gpu) >"$out/build.log" 2>&1 ||
    { tail -20 "$out/build.log"; exit 1; }
meson install -C build-gpu --no-rebuild --destdir "$dest" >>"$out/build.log" 2>&1 || { echo "install failed"; exit 1; }
pc=$(dirname "$(find "$dest" -name attnbench-plugin.pc | head -n 1)")
rm -rf ex
PKG_CONFIG_PATH=$pc PKG_CONFIG_SYSROOT_DIR=$dest meson setup ex examples/plugin -Dcuda=enabled \
    -Dgpu_target=90a >"$out/ex.log" 2>&1 && ninja -C ex >>"$out/ex.log" 2>&1 ||
    { tail -20 "$out/ex.log"; echo "examples/plugin build failed"; exit 1; }
ls -l ex/libexample_cuda.so >>"$out/ex.log"
ab=$(find "$dest" -path '*/bin/attnbench' | head -n 1)
"$ab" run experiments/adapter-routes.cfg --db "$out/adapter-routes.db" >"$out/run.ids" 2>"$out/run.log"
rc=$?
echo "adapter-routes rc=$rc run $(cat "$out/run.ids") (installed attnbench: $ab)"
exit $rc
