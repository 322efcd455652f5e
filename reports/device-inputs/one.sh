#!/bin/sh
# one.sh AB OUT: the per-configuration cost of inputs and the reference:
# one configuration, one variant (cudnn_sdpa), 10 samples, for the 16K-token
# shape and the small one; prints the run's wall-time account.
AB=$1 OUT=$2
for cfg in "1 16384" "1 1024"; do
  set -- $cfg
  cat > /tmp/one.cfg <<CFG
name = "device-inputs-one";
variants = ( "cudnn_sdpa" );
sweep = { B = $1; H = 16; S = $2; D = 128; causal = true; dtype = "bf16"; };
warmup = 2; samples = 10; round_size = 10; seed = 42;
CFG
  "$AB" run /tmp/one.cfg --db "$OUT" >/dev/null 2>&1 || echo "one.sh: run failed"
done
