#!/bin/bash
# rounds_calibration.sh OUTDIR: the rounds calibration study in one device call; a
# manual script, not a meson test. Steps (each logged under OUTDIR, a line
# per step in OUTDIR/summary.txt):
#   build    meson setup + ninja src/attnbench in build-gpu-aa-study (sm_90a,
#            release, no cuDNN: none of these experiments uses it)
#   aa       attnbench calibrate --pairs 20 (40 identical instances of
#            cuda_mma_pipeline) at the launch-bound and the compute-bound
#            shape (experiments/aa-*.cfg)
#   power    experiments/power-slowed.cfg (cuda_mma_pipeline_slowed against
#            cuda_mma_pipeline, the A/A budget) run POWER_RUNS times (10)
#   interleave  experiments/interleave-rounds.cfg (PyTorch flash through
#            adapter protocol 2 in the rounds, and protocol 1 beside it), if
#            the elapsed time is under INTERLEAVE_UNTIL_S (220)
#   extra    while the elapsed time is under EXTRA_UNTIL_S (150): more power
#            runs at round size 1 and 5 with the same 40 samples (the
#            round-size trade-off per second of GPU time)
# Everything goes into OUTDIR/aa-study.db (or $AA_STUDY_DB; the summary to
# $AA_STUDY_SUMMARY); reports are written from it on the
# development machine (no GPU needed).
# Usage (repository root, GPU machine, after `source .deps/env.sh`):
#   bash tests/gpu/rounds_calibration.sh OUTDIR
set -u
out=${1:?usage: rounds_calibration.sh OUTDIR}
mkdir -p "$out"
db=${AA_STUDY_DB:-$out/aa-study.db}
b=build-gpu-aa-study
AB=${AB:-./$b/src/attnbench}   # AB=path: use that build, build nothing
sum=${AA_STUDY_SUMMARY:-$out/summary.txt}
t0=$(date +%s)
el() { echo $(($(date +%s) - t0)); }
stamp() { echo "[$(el) s] $*" | tee -a "$sum"; }

nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv,noheader | tee -a "$sum"
if [ -x "$AB" ]; then :
elif ! { meson setup $b -Dgpu_targets=90a -Dbuildtype=release -Dcudnn=disabled >"$out/build.log" 2>&1 &&
       ninja -C $b src/attnbench >>"$out/build.log" 2>&1; }; then
  tail -40 "$out/build.log"; stamp "build FAILED"; exit 1
fi
stamp "build ok"

for shape in launch compute; do
  $AB calibrate experiments/aa-$shape.cfg --pairs 20 --db "$db" >"$out/aa-$shape.id" 2>"$out/aa-$shape.log"
  stamp "aa $shape: rc $? run $(cat "$out/aa-$shape.id") $(grep -m1 'A/A calibration' "$out/aa-$shape.log" | cut -c1-200)"
done

power_run() { # LABEL ROUND_SIZE: a copy of the power experiment with that round size
  local label=$1 rs=$2 cfg=$out/power-$1.cfg
  sed -e "s/^round_size = 2;/round_size = $rs;/" \
      -e "s/^name = \"issue11-power\";/name = \"issue11-power-$label\";/" \
      experiments/power-slowed.cfg >"$cfg"
  $AB run "$cfg" --db "$db" >>"$out/power-$label.ids" 2>>"$out/power-$label.log"
}
for i in $(seq 1 "${POWER_RUNS:-10}"); do
  power_run r2 2
  stamp "power r2 $i: run $(tail -1 "$out/power-r2.ids"): $(grep 'cuda_mma_pipeline_slowed' "$out/power-r2.log" | tail -1 | cut -c1-110)"
done
if [ "$(el)" -lt "${INTERLEAVE_UNTIL_S:-220}" ]; then
  $AB run experiments/interleave-rounds.cfg --db "$db" >"$out/interleave.id" 2>"$out/interleave.log"
  stamp "interleave: rc $? run $(cat "$out/interleave.id"); $(grep -c 'torch_sdpa' "$out/interleave.log") torch lines"
fi
for rs in 1 5; do
  for i in 1 2 3 4 5; do
    [ "$(el)" -lt "${EXTRA_UNTIL_S:-150}" ] || break
    power_run r$rs $rs
    stamp "power r$rs $i: run $(tail -1 "$out/power-r$rs.ids")"
  done
done
stamp "done; $(ls "$out")"
