/*
 * cuda_split_kv.cu: the `cuda_split_kv` variant, cuda_fa2_warps with the
 * key/value sequence split across blocks ("split-K", flash-decoding style)
 * when the (query tile, b, h) grid alone would leave the GPU idle.
 *
 * Idea: seed 002's "priority 1, approach B" (no atomics, deterministic).
 * The main kernel is cuda_fa2_warps's block body (cuda_fa2_body.cuh) with a
 * third grid dimension: block (b*h, query tile, split s) visits only the
 * key tiles [s*per, (s+1)*per) of its query tile (per = ceil(n_k/nsplit),
 * n_k = the tile's key tiles, fewer when causal, so causal splits stay
 * balanced) and writes its partial result per query row to a workspace
 * allocated in setup: O_s = acc_s / l_s (fp32, [nsplit, B*H, S, D]), the
 * row max m_s (log2 units) and the row sum l_s ([nsplit, B*H, S]). A split
 * with no key tile (causal, short query tiles) or a row all of whose keys in
 * the split are masked writes O_s = 0, m_s = -inf, l_s = 0. A second kernel
 * (one warp per row) combines exactly:
 *     m = max_s m_s,  l = sum_s l_s 2^(m_s - m),
 *     O = sum_s O_s l_s 2^(m_s - m) / l.
 * The number of splits is chosen in setup from the shape and the device:
 * a wave is SMs x resident blocks per SM (cudaGetDeviceProperties and
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor); when the B*H*ceil(S/64)
 * blocks of the unsplit grid fill less than one wave, nsplit =
 * ceil(2 waves / blocks), at most the number of key tiles, rounded so that
 * no split of the full key range is empty; otherwise nsplit = 1 and the
 * variant runs the cuda_fa2_warps kernel unchanged (no workspace, no combine).
 * All arithmetic fp32; exp2f with log2(e) folded into the scale.
 * Source: seed 002 (/work/shared/seeds/), "Priority 1: parallelize K/V
 * tiles, approach B (split-K style, no atomics)"; Dao et al.,
 * "Flash-Decoding for long-context inference" (2023); the split-KV path of
 * FlashAttention-2's forward kernel (num_splits heuristic).
 * Grouped-query attention and S_kv != S: block (b*h, ...) reads
 * K/V head h / (H / H_kv); the causal mask is bottom-right (key j <= i +
 * S_kv - S), so a decode step (S = 1) against a long cache is the case this
 * rung is for: one query tile per (b, h), the key range split to fill the
 * GPU (flash-decoding). Query heads of one group are separate blocks that
 * read the same K/V (from L2 after the first); packing them into one tile
 * is the next step, not done.
 * Rung: after cuda_fa2_warps; wins where the grid is small (B*H small).
 * Measured (reports/seeds-and-ladders/attnbench.db, NVIDIA H200, 2026-11-21,
 * hot timing, medians; run 10 ladder-d128, report
 * reports/seeds-and-ladders/ladder-d128-run10.md: D = 128, B*S = 16384, H =
 * 16, S = 512..8192, causal or not, fp16/bf16; run 9 ladder-d64, report
 * reports/seeds-and-ladders/ladder-d64-run9.md: B = 32, H = 8, D = 64, S =
 * 128..2048, fp16): 23.8-32.1 TFLOP/s over run 10's 20 configurations (31.1
 * at B=4 S=4096 fp16 non-causal), 16.1-31.2 over run 9's 5 shapes; 1.00x
 * cuda_fa2_warps (geometric mean of the ratios of medians over run 10,
 * 1.00-1.01x). At a small grid (run 5, seed-001-latency: B=1 H=8 S=512 D=64
 * fp16) 1.48x cuda_fa2_warps non-causal and 2.15x causal.
 *
 * Where the unsplit grid fills a wave, nsplit = 1 and the time is
 * cuda_fa2_warps's.
 * Checked: gpu_check: 96 cases, 0 failed (H200, 2026-11-21; B=2, H=3, so S >= 65
 *   takes the split path, S=1025 and 2049 with empty causal splits).
 *   ptxas (sm_90a): split kernel 155-157 registers (D=64), 175 (D=128), no
 *   spills; combine kernel 32 registers.
 */
#include "cuda_fa2_body.cuh"
#include "entry_points.h"

#include <stdlib.h>

namespace {

struct split_ctx {
    int nsplit;
    float *opart, *mpart, *lpart; /* NULL when nsplit == 1 */
};

/* Blocks of fa2_kernel<T, D, true> resident per SM (at least 1). */
template <typename T, int D> int split_blocks_per_sm(int *nb, char *err, size_t errlen)
{
    if (fa2_prepare<T, D, true>(err, errlen) || fa2_prepare<T, D, false>(err, errlen))
        return -1;
    AB_CK_SETUP(cudaOccupancyMaxActiveBlocksPerMultiprocessor(nb, fa2_kernel<T, D, true>, FA2_NT,
                                                              fa2_smem_bytes<D>()));
    if (*nb < 1)
        *nb = 1;
    return 0;
}

} // namespace

/* Number of splits for shape s on a device with `slots` resident blocks (SMs
 * x blocks per SM): 1 when the unsplit grid fills a wave, else about two
 * waves' worth, at most one split per key tile. */
static int split_count(const ab_shape *s, long slots)
{
    const long n_q = (s->S + FA2_BR - 1) / FA2_BR,
               n_k = (ab_shape_skv(s) + FA2_BC - 1) / FA2_BC; /* key tiles of S_kv */
    const long base = (long)s->B * s->H * n_q;
    if (base >= slots || n_k < 2)
        return 1;
    long ns = (2 * slots + base - 1) / base;
    if (ns > n_k)
        ns = n_k;
    if (ns > 65535)
        ns = 65535;
    const long per = (n_k + ns - 1) / ns;
    return (int)((n_k + per - 1) / per);
}

/* setup: picks the number of splits (see above) and, when it is > 1,
 * allocates the partials: nsplit * B*H*S * (D + 2) floats, reported through
 * *ws, after checking free memory. Fails for D other than 64, 128. */
extern "C" int cuda_split_kv_setup(const ab_shape *s, void **ctx, size_t *ws, char *err,
                                   size_t errlen)
{
    *ctx = NULL;
    *ws = 0;
    if ((s->S + FA2_BR - 1) / FA2_BR > 65535) {
        snprintf(err, errlen, "cuda_split_kv: S=%d: more than 65535 query tiles", s->S);
        return -1;
    }
    int nb = 0, rc = -1;
    if (s->D == 64)
        AB_DISPATCH_DTYPE(s->dtype, T, rc = (split_blocks_per_sm<T, 64>(&nb, err, errlen)));
    else if (s->D == 128)
        AB_DISPATCH_DTYPE(s->dtype, T, rc = (split_blocks_per_sm<T, 128>(&nb, err, errlen)));
    else
        snprintf(err, errlen, "cuda_split_kv: D=%d not supported (64, 128)", s->D);
    if (rc)
        return -1;
    int dev = 0;
    cudaDeviceProp prop;
    AB_CK_SETUP(cudaGetDevice(&dev));
    AB_CK_SETUP(cudaGetDeviceProperties(&prop, dev));
    const int nsplit = split_count(s, (long)prop.multiProcessorCount * nb);

    split_ctx *c = (split_ctx *)calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of host memory");
        return -1;
    }
    c->nsplit = nsplit;
    if (nsplit > 1) {
        ab_split_parts parts;
        if (ab_split_parts_alloc(&parts, nsplit, (size_t)s->B * s->H * (size_t)s->S, s->D,
                                 "cuda_split_kv", ws, err, errlen)) {
            free(c);
            return -1;
        }
        c->opart = parts.opart;
        c->mpart = parts.mpart;
        c->lpart = parts.lpart;
    }
    *ctx = c;
    return 0;
}

extern "C" int cuda_split_kv_run(void *ctx, const ab_shape *s, const void *q, const void *k,
                                 const void *v, void *o, void *stream)
{
    const split_ctx *c = (const split_ctx *)ctx;
    fa2_params p = {};
    p.q = q;
    p.k = k;
    p.v = v;
    p.o = o;
    p.opart = c->opart;
    p.mpart = c->mpart;
    p.lpart = c->lpart;
    p.S = s->S;
    p.BH = s->B * s->H;
    p.H = s->H;
    p.Hkv = ab_shape_hkv(s);
    p.Skv = ab_shape_skv(s);
    p.nsplit = c->nsplit;
    p.causal = s->causal;
    p.scale_log2 = AB_LOG2E / sqrtf((float)s->D);
    cudaStream_t st = (cudaStream_t)stream;
    const bool split = c->nsplit > 1;
    if (s->D == 64)
        AB_DISPATCH_DTYPE(s->dtype, T,
                          split ? fa2_launch<T, 64, true>(p, st) : fa2_launch<T, 64, false>(p, st));
    else if (s->D == 128)
        AB_DISPATCH_DTYPE(s->dtype, T,
                          split ? fa2_launch<T, 128, true>(p, st)
                                : fa2_launch<T, 128, false>(p, st));
    else
        return -1;
    return 0;
}

extern "C" void cuda_split_kv_teardown(void *ctx)
{
    split_ctx *c = (split_ctx *)ctx;
    if (!c)
        return;
    cudaFree(c->opart);
    free(c);
}
