/*
 * cuda_fa2_warps.cu: the `cuda_fa2_warps` variant, FlashAttention-2's work
 * partition on the CUDA cores (no tensor cores), every thread busy.
 *
 * Idea: one block of 4 warps per (query tile of 64 rows, b, h); each warp
 * owns 16 query rows, and its 32 lanes split the 64 keys of a K/V tile for
 * S = Q K^T and the D columns for O += P V, with warp shuffles for the row
 * max and the row sum; K and V tiles staged in shared memory as fp32;
 * FlashAttention-2's online softmax (rescale the unnormalised accumulator
 * when the max grows, divide by l once at the end); causal query tiles
 * launched heaviest first. The block body is in cuda_fa2_body.cuh (shared
 * with cuda_split_kv, which runs it with the key range split). All
 * arithmetic fp32, log2(e) folded into the scale (exp2f).
 * Against cuda_fa1_rowwise: 128 threads all computing instead of 64 of 256,
 * each loaded K/V element used by 16 rows of a warp from registers, no
 * per-tile normalisation of O, coalesced output stores.
 * Source: Dao, "FlashAttention-2: Faster Attention with Better Parallelism
 * and Work Partitioning" (2023), section 3.2 (warps split the queries);
 * seed 002 (/work/shared/seeds/) "priority 2: optimize thread utilization".
 * Rung: after cuda_fa1_rowwise; cuda_split_kv adds seed 002's "priority 1"
 * (parallelism over the keys) on top of it.
 * Measured (reports/seeds-and-ladders/attnbench.db, NVIDIA H200, 2026-11-21,
 * hot timing, medians; run 10 ladder-d128, report
 * reports/seeds-and-ladders/ladder-d128-run10.md: D = 128, B*S = 16384, H =
 * 16, S = 512..8192, causal or not, fp16/bf16; run 9 ladder-d64, report
 * reports/seeds-and-ladders/ladder-d64-run9.md: B = 32, H = 8, D = 64, S =
 * 128..2048, fp16): 23.8-32.1 TFLOP/s over run 10's 20 configurations (30.8
 * at B=4 S=4096 fp16 non-causal), 16.1-31.3 over run 9's 5 shapes; 8.50x
 * cuda_fa1_rowwise (geometric mean of the ratios of medians over run 10,
 * 7.88-9.14x). The largest grids reach 48% of the H200's fp32 FMA peak
 * (below).
 *
 * The H200's fp32 FMA peak: 2 x 128 x 132 SMs x 1.98 GHz = 66.9 TFLOP/s.
 * B=H=1 leaves most SMs idle (64 blocks for S=4096): cuda_split_kv's case.
 * Checked: gpu_check: 96 cases, 0 failed (H200, 2026-11-21). ptxas (sm_90a): 141
 *   registers (D=64), 168 (D=128), no spills, 53.25 / 86.5 KiB dynamic
 *   shared memory: 3 resp. 2 blocks of 128 threads per SM (D=64 limited by
 *   registers; capping at 128 registers for 4 blocks spilled).
 */
#include "cuda_fa2_body.cuh"
#include "entry_points.h"

/* setup: no workspace; raises the kernel's dynamic shared-memory limit
 * (53.25 KiB for D=64, 86.5 KiB for D=128). Fails for D other than 64, 128
 * or more than 65535 query tiles. */
extern "C" int cuda_fa2_warps_setup(const ab_shape *s, void **ctx, size_t *ws, char *err,
                                    size_t errlen)
{
    *ctx = NULL;
    *ws = 0;
    if ((s->S + FA2_BR - 1) / FA2_BR > 65535) {
        snprintf(err, errlen, "cuda_fa2_warps: S=%d: more than 65535 query tiles", s->S);
        return -1;
    }
    int rc = -1;
    if (s->D == 64)
        AB_DISPATCH_DTYPE(s->dtype, T, rc = (fa2_prepare<T, 64, false>(err, errlen)));
    else if (s->D == 128)
        AB_DISPATCH_DTYPE(s->dtype, T, rc = (fa2_prepare<T, 128, false>(err, errlen)));
    else
        snprintf(err, errlen, "cuda_fa2_warps: D=%d not supported (64, 128)", s->D);
    return rc;
}

extern "C" int cuda_fa2_warps_run(void *ctx, const ab_shape *s, const void *q, const void *k,
                                  const void *v, void *o, void *stream)
{
    (void)ctx;
    fa2_params p = {};
    p.q = q;
    p.k = k;
    p.v = v;
    p.o = o;
    p.S = s->S;
    p.BH = s->B * s->H;
    p.H = s->H;
    p.Hkv = ab_shape_hkv(s);
    p.Skv = ab_shape_skv(s);
    p.nsplit = 1;
    p.causal = s->causal;
    p.scale_log2 = AB_LOG2E / sqrtf((float)s->D);
    cudaStream_t st = (cudaStream_t)stream;
    if (s->D == 64)
        AB_DISPATCH_DTYPE(s->dtype, T, (fa2_launch<T, 64, false>(p, st)));
    else if (s->D == 128)
        AB_DISPATCH_DTYPE(s->dtype, T, (fa2_launch<T, 128, false>(p, st)));
    else
        return -1;
    return 0;
}

extern "C" void cuda_fa2_warps_teardown(void *ctx) { (void)ctx; }
