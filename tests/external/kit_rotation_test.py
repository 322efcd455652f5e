#!/usr/bin/env python3
"""kit_rotation_test.py: the adapter kit rotates its own input sets as the
native harness does (adapters/attnbench_adapter.py l2_rotation_sets,
own_input_sets, rotating; kernels/gpu_harness.cu and src/core/shape.c's
ab_l2_rotation_sets), without a GPU, torch or numpy.

Expected counts are worked by hand from the harness's rule (enough copies of
Q, K, V, O to cover twice the L2, at most 256; 1 when one set covers it):
bytes of one set = 2 (B*H*S*D + B*H_kv*S_kv*D) x the dtype's size, and an
H100's L2 of 50 MiB = 52428800 bytes (cudaDevAttrL2CacheSize on the H100
of reports/rotation/README.md):

  - B=1 H=8 S=512 D=64 fp16: 2 (262144 + 262144) 2 = 2097152 bytes,
    2 x 52428800 / 2097152 = 50 -> 51 sets;
  - decode B=1 H=32 H_kv=8 S=1 S_kv=4096 D=128 bf16: 2 (4096 + 4194304) 2
    = 16793600 bytes, 104857600 / 16793600 = 6.24 -> 7 sets;
  - B=8 H=16 S=2048 D=128 bf16: 268435456 bytes > 2 L2 -> 1 set;
  - B=1 H=1 S=16 D=16 fp32: 4096 bytes, 25600 -> the cap, 256;
  - a backward pass, or cold timing: 1 set.

Then own_input_sets with stand-in tensors: set 0 the checked call's own
tensors, each other set a distinct copy of each; and rotating() over them
takes the sets in turn and carries on from block to block (the harness's
next_set), so two blocks of 30 calls over 51 sets read sets 0..50 then
0..8. Usage: kit_rotation_test.py ADAPTERS_DIR
"""
import sys

sys.path.insert(0, sys.argv[1])
import attnbench_adapter as kit  # noqa: E402

failures = 0


def expect(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL: " + what, file=sys.stderr)


def cfg(B, H, S, D, dtype, Hkv=None, Skv=None, timing="hot", pss="fwd"):
    return {"b": B, "h": H, "s": S, "d": D, "dtype": dtype, "h_kv": Hkv or H,
            "s_kv": Skv or S, "timing": timing, "pass": pss}


L2 = 52428800
for c, want, what in (
        (cfg(1, 8, 512, 64, "fp16"), 51, "prefill B=1 H=8 S=512 D=64 fp16"),
        (cfg(1, 32, 1, 128, "bf16", 8, 4096), 7, "decode H_kv=8 S_kv=4096"),
        (cfg(8, 16, 2048, 128, "bf16"), 1, "one set larger than twice the L2"),
        (cfg(1, 1, 16, 16, "fp32"), 256, "tiny shape: the cap"),
        (cfg(1, 8, 512, 64, "fp16", pss="bwd"), 1, "a backward pass")):
    got = kit.l2_rotation_sets(c, L2)
    expect(got == want, "%s: %d sets, expected %d" % (what, got, want))


class Tensor:
    """A stand-in tensor: clone() is a new tensor of the same name."""
    made = 0

    def __init__(self, name):
        Tensor.made += 1
        self.name, self.id = name, Tensor.made

    def clone(self):
        return Tensor(self.name)


q, k, v = Tensor("q"), Tensor("k"), Tensor("v")
c = cfg(1, 8, 512, 64, "fp16")
sets = kit.own_input_sets(q, k, v, c, L2)
expect(len(sets) == 51, "own_input_sets: %d sets, expected 51" % len(sets))
expect(sets[0] == (q, k, v), "set 0 is not the checked call's tensors")
ids = [t.id for one in sets for t in one]
expect(len(set(ids)) == 3 * 51, "the sets' tensors are not distinct copies")
expect(all(one[0].name == "q" and one[1].name == "k" and one[2].name == "v" for one in sets),
       "a set's tensors are out of order")
cold = kit.own_input_sets(q, k, v, cfg(1, 8, 512, 64, "fp16", timing="cold"), L2)
expect(len(cold) == 1, "cold timing: %d sets, expected 1 (the L2 is flushed)" % len(cold))

seen = []
call = kit.rotating(sets, lambda q, k, v: seen.append(sets.index((q, k, v))))
for block in range(2):  # two blocks of 30 calls, as two `take 30`
    for _ in range(30):
        call()
expect(seen == list(range(51)) + list(range(9)),
       "rotation order %s, expected 0..50 then 0..8" % seen)

if failures:
    sys.exit(1)
print("ok: the kit rotates %d input sets of its own, carrying on between blocks" % len(sets))
