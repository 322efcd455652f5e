/*
 * cuda_wgmma_pingpong.cu: forward attention on wgmma + TMA + warp
 * specialisation with FlashAttention-3's two overlaps, rung
 * "cuda_wgmma_pingpong" of the kernel ladder.
 *
 * Idea. cuda_wgmma_ws (TMA producer warpgroup, two consumer warpgroups,
 * full/empty mbarriers, setmaxnreg) plus the two ways FlashAttention-3
 * keeps the tensor cores busy while the softmax runs:
 *   - intra-warpgroup pipelining: in iteration j a consumer issues
 *     S_j = Q K_j^T and then O += P_{j-1} V_{j-1} back to back (two wgmma
 *     groups), waits only for the first, runs the softmax of S_j while
 *     P_{j-1} V_{j-1} is still on the tensor cores, then waits for it,
 *     releases tile j-1's stage, rescales O and packs P_j; the last P V is
 *     issued after the loop. The rescale factor is kept aside (O may not
 *     be touched while a wgmma writes it);
 *   - ping-pong between the two consumers: two named barriers order their
 *     GEMM issues, each warpgroup waits for its turn before issuing its
 *     wgmma of an iteration and hands the turn over right after, so one
 *     warpgroup's softmax lines up with the other's GEMMs;
 *   - 3 stages of (K, V) at D = 128 (Q 32 KiB + 3 x 64 KiB = 224 KiB plus
 *     the alignment slack, within the 227 KiB a block may have), 4 at D = 64,
 *     since a stage is now held one iteration longer.
 * Every consumer computes every tile of the block (rows past S too, on
 * zero-filled Q) so both warpgroups take the same number of turns.
 *
 * Source: Shah et al. 2024 (FlashAttention-3) section 3.1 (ping-pong
 * scheduling of two warpgroups with barriers) and section 3.2 / Algorithm
 * 2 (intra-warpgroup overlap of softmax and the two GEMMs); PTX ISA
 * bar.sync / bar.arrive. Previous rung: cuda_wgmma_ws.
 *
 * Prediction (before the first run). FlashAttention-3's ablation (Table
 * 2, H100, D = 128, non-causal): removing the GEMM-softmax pipelining
 * costs 661 -> 582 TFLOP/s (-12%). cuda_wgmma_ws timed 575 TFLOP/s at
 * the headline (gpu_check --time, fp16, H200, before the committed run)
 * against cudnn_sdpa's 659; this rung should
 * close most of that: +8-15%, 620-660 TFLOP/s, i.e. 0.94-1.0x cudnn_sdpa.
 *
 * Any S >= 1, causal or not, D in {64, 128}, fp16 and bf16, grouped-query
 * heads (H_kv dividing H) and any S_kv >= 1; sm_90a only.
 *
 * Measured (attnbench run experiments/hopper-d128.cfg: run 1 of
 * reports/hopper-forward/hopper.db, report
 * reports/hopper-forward/hopper-d128-run1.md; NVIDIA H200, 2026-11-23, hot
 * timing, medians; B*S = 16K tokens, H = 16, D = 128): 485.5-676.7 TFLOP/s;
 * B=4 S=4096 fp16: 650.7 non-causal (cuda_wgmma_ws 599.4, 1.09x; cudnn_sdpa
 * 646.7, 1.01x), 546.5 causal (1.02x; 0.94x). The fastest own kernel for
 * causal S <= 8192 (0.90-0.97x cudnn_sdpa) and fp16 non-causal S = 16384
 * (670.4 vs 645.9). Geometric mean against cudnn_sdpa 0.975 (0.90-1.04;
 * non-causal 1.00, causal 0.95). Against the prediction (+8-15%, 0.94-1.0x
 * cuDNN): non-causal -1% to +14% over cuda_wgmma_ws, 0.97-1.04x cuDNN; causal
 * -5% to +4%: short causal query tiles (few key tiles each at S = 2048) pay
 * the block start-up (barrier init, Q and first (K, V) load) and the O store
 * in the open, which the overlap cannot hide.
 *
 * ptxas: 168 registers at entry, no spills; SASS keeps the overlap
 * (WARPGROUP.DEPBAR.LE gsb0, 0x1 between the two wgmma groups, BAR.ARV /
 * BAR.SYNC for the turns). Checked: gpu_check (64 cases), memcheck and
 * racecheck clean.
 *
 * Grouped-query heads and S_kv != S (2026-11-26; checked by the GPU suite on
 * an H200, 56 such cases, 0 failed; not timed), as in
 * cuda_wgmma_persistent: block (bh, query tile) loads K/V slice bh / (H /
 * H_kv) of the [B H_kv, S_kv, D] tensor maps; the causal mask is aligned
 * bottom-right (key j <= row + S_kv - S) in the mask, the masked-path
 * choice and the key-tile count (kernels/key_tiles.h); a tile where no row sees a key (S > S_kv)
 * runs one fully masked key tile and stores O = 0.
 */
#include "entry_points.h"
#include "key_tiles.h"
#include "wgmma_common.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <type_traits>

using namespace abwg;

namespace {

constexpr int NWG = 2;              /* consumer warpgroups */
constexpr int BR = 64 * NWG;        /* query rows per block */
constexpr int BC = 128;             /* keys per tile */
constexpr int NT = 128 * (NWG + 1); /* threads: producer warpgroup + consumers */

template <int D> constexpr int nstages() { return D == 128 ? 3 : 4; }
template <int D> constexpr int smem_bytes()
{
    return 1024 + BR * D * 2 + nstages<D>() * 2 * BC * D * 2 + (2 * nstages<D>() + 1) * 8;
}

template <typename T, int D, bool CAUSAL>
__global__ void __launch_bounds__(NT, 1)
    wgmma_pp_fwd(const __grid_constant__ CUtensorMap tmQ, const __grid_constant__ CUtensorMap tmK,
                 const __grid_constant__ CUtensorMap tmV, T *__restrict__ O, int S, int Skv,
                 int grp, int nqt, float scale_log2)
{
#if AB_WGMMA_DEVICE
    constexpr int NST = nstages<D>();
    constexpr int TILE = BC * D * 2; /* bytes of one K or V tile */
    extern __shared__ unsigned char smem_raw[];
    const uint32_t raw = smem_u32(smem_raw);
    const uint32_t uQ = (raw + 1023u) & ~1023u;
    unsigned char *sQ = smem_raw + (uQ - raw);
    const uint32_t uKV = uQ + BR * D * 2;
    const uint32_t uFull = uKV + NST * 2 * TILE, uEmpty = uFull + NST * 8,
                   uQbar = uEmpty + NST * 8;

    const int tid = threadIdx.x;
    int qt = (int)(blockIdx.x % (unsigned)nqt);
    if (CAUSAL)
        qt = nqt - 1 - qt; /* longest query tiles of a (b, h) first */
    const int bh = (int)(blockIdx.x / (unsigned)nqt);
    const int q0 = qt * BR;
    /* grouped-query attention: query slice bh = b H + h reads K/V slice
     * b H_kv + h / grp = bh / grp (H = grp H_kv) */
    const int kvh = ab_kv_slice(bh, grp);
    const int shift = Skv - S; /* bottom-right causal mask: key j <= query row + shift */
    /* causal: at least one key tile, fully masked where no row of the tile
     * sees a key (S > S_kv): O = 0 there */
    const int jend = ab_key_tiles(CAUSAL, q0, BR, S, Skv, BC);

    if (tid == 0) {
        for (int st = 0; st < NST; st++) {
            mbar_init(uFull + st * 8, 1);
            mbar_init(uEmpty + st * 8, 4 * NWG); /* one arrival per consumer warp */
        }
        mbar_init(uQbar, 1);
        fence_mbar_init();
    }
    __syncthreads();

    const int wg = tid >> 7, wtid = tid & 127;
    if (wg == 0) {
        /* producer warpgroup */
        setmaxnreg_dec<24>();
        if (tid == 0) {
            mbar_expect_tx(uQbar, BR * D * 2);
#pragma unroll
            for (int cb = 0; cb < D / 64; cb++)
                tma_load_3d(uQ + cb * BR * 128, &tmQ, uQbar, cb * 64, q0, bh);
            for (int t = 0; t < jend; t++) {
                const int st = t % NST;
                if (t >= NST) /* every consumer warp released tile t - NST */
                    mbar_wait(uEmpty + st * 8, (uint32_t)((t / NST - 1) & 1));
                const uint32_t uK = uKV + (uint32_t)(st * 2 * TILE), bar = uFull + st * 8;
                mbar_expect_tx(bar, 2 * TILE);
#pragma unroll
                for (int cb = 0; cb < D / 64; cb++) {
                    tma_load_3d(uK + cb * BC * 128, &tmK, bar, cb * 64, t * BC, kvh);
                    tma_load_3d(uK + TILE + cb * BC * 128, &tmV, bar, cb * 64, t * BC, kvh);
                }
            }
        }
    } else {
        /* consumer warpgroups 1..NWG: rows 64 (wg - 1) .. + 63 of the tile */
        setmaxnreg_inc<240>();
        const int cw = wg - 1;
        wg_geo g;
        g.uQ = uQ;
        g.wrow = cw * 64;
        g.row0 = q0 + g.wrow + (wtid >> 5) * 16 + ((wtid & 31) >> 2);
        g.t = tid & 3;
        const int lane = wtid & 31;
        /* ping-pong: barrier 3 + c is consumer c's turn to issue wgmma; it
         * completes when c's 128 threads sync and the other's 128 arrive */
        const int my_turn = 3 + cw, other_turn = 3 + (1 - cw);
        if (cw == 1)
            named_arrive(3, 256); /* consumer 0 goes first */

        float o[D / 2];
#pragma unroll
        for (int i = 0; i < D / 2; i++)
            o[i] = 0.f;
        float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f}, corr[2];
        float s[BC / 2];
        uint32_t p[BC / 16][4];
        const int wfirst = q0 + g.wrow;
        /* whether tile j needs the element-wise mask for this warpgroup */
        auto masked = [&](int k0) { return ab_key_tile_masked(CAUSAL, k0, BC, wfirst, S, Skv); };

        mbar_wait(uQbar, 0);
        /* tile 0: S_0, softmax, P_0 */
        mbar_wait(uFull, 0);
        named_sync(my_turn, 256);
        wg_issue_qk<T, D, BC, BR>(s, g, uKV);
        named_arrive(other_turn, 256);
        wg_wait<0>();
        reg_fence(s);
        if (masked(0))
            wg_softmax<BC, CAUSAL, true>(s, m, l, corr, g, 0, Skv, scale_log2, shift);
        else
            wg_softmax<BC, CAUSAL, false>(s, m, l, corr, g, 0, Skv, scale_log2, shift);
        wg_pack_p<T, BC>(s, p);

        for (int j = 1; j < jend; j++) {
            const int st = j % NST, sp = (j - 1) % NST;
            const uint32_t uK = uKV + (uint32_t)(st * 2 * TILE);
            const uint32_t uVp = uKV + (uint32_t)(sp * 2 * TILE) + TILE;
            mbar_wait(uFull + st * 8, (uint32_t)((j / NST) & 1));
            named_sync(my_turn, 256);
            wg_issue_qk<T, D, BC, BR>(s, g, uK);   /* S_j */
            wg_issue_pv<T, D, BC>(o, p, uVp);       /* O += P_{j-1} V_{j-1} */
            named_arrive(other_turn, 256);
            wg_wait<1>(); /* S_j landed; P V still running */
            reg_fence(s);
            const int k0 = j * BC;
            if (masked(k0))
                wg_softmax<BC, CAUSAL, true>(s, m, l, corr, g, k0, Skv, scale_log2, shift);
            else
                wg_softmax<BC, CAUSAL, false>(s, m, l, corr, g, k0, Skv, scale_log2, shift);
            wg_wait<0>(); /* P_{j-1} V_{j-1} done */
            reg_fence(o);
            reg_fence_u(p);
            __syncwarp();
            if (lane == 0)
                abmma::mbar_arrive(uEmpty + sp * 8); /* this warp is done with tile j-1 */
            wg_rescale_o<D>(o, corr);
            wg_pack_p<T, BC>(s, p);
        }
        /* the last P V; consumer 1 leaves its final turn unpassed (nobody waits) */
        {
            const int sp = (jend - 1) % NST;
            named_sync(my_turn, 256);
            wg_issue_pv<T, D, BC>(o, p, uKV + (uint32_t)(sp * 2 * TILE) + TILE);
            if (cw == 0)
                named_arrive(other_turn, 256);
            wg_wait<0>();
            reg_fence(o);
            reg_fence_u(p);
            __syncwarp();
            if (lane == 0)
                abmma::mbar_arrive(uEmpty + sp * 8);
        }
        if (wfirst < S)
            wg_store_o<T, D, BR>(o, l, g, sQ, wtid, 1 + cw, O + (size_t)bh * S * D, q0, S);
    }
#endif
}

template <typename T, int D, bool CAUSAL> int set_attr()
{
    return cudaFuncSetAttribute(wgmma_pp_fwd<T, D, CAUSAL>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                smem_bytes<D>()) == cudaSuccess
               ? 0
               : -1;
}

template <typename T, int D, bool CAUSAL>
int launch(const ab_shape *s, const void *q, const void *k, const void *v, void *o,
           cudaStream_t st)
{
    const int nqt = (s->S + BR - 1) / BR;
    const long long bh = (long long)s->B * s->H, blocks = (long long)nqt * bh;
    const int hkv = ab_shape_hkv(s), skv = ab_shape_skv(s);
    const long long bhkv = (long long)s->B * hkv;
    if (blocks > 0x7fffffffLL)
        return 2;
    char err[256];
    CUtensorMap mq, mk, mv;
    const int bf = std::is_same<T, __nv_bfloat16>::value;
    /* Q: [B H, S, D]; K, V: [B H_kv, S_kv, D] */
    if (ab_wgmma_tensor_map(&mq, q, bf, bh, s->S, D, BR, err, sizeof err) ||
        ab_wgmma_tensor_map(&mk, k, bf, bhkv, skv, D, BC, err, sizeof err) ||
        ab_wgmma_tensor_map(&mv, v, bf, bhkv, skv, D, BC, err, sizeof err)) {
        fprintf(stderr, "cuda_wgmma_pingpong: %s\n", err);
        return 3;
    }
    const float scale_log2 = 1.4426950408889634f / sqrtf((float)D);
    wgmma_pp_fwd<T, D, CAUSAL><<<(unsigned)blocks, NT, smem_bytes<D>(), st>>>(
        mq, mk, mv, (T *)o, s->S, skv, s->H / hkv, nqt, scale_log2);
    return 0;
}

template <typename T>
int dispatch_t(int op, const ab_shape *s, const void *q, const void *k, const void *v, void *o,
               cudaStream_t st)
{
    const bool c = s->causal != 0;
    if (s->D == 64)
        return op == 0 ? (c ? set_attr<T, 64, true>() : set_attr<T, 64, false>())
                       : (c ? launch<T, 64, true>(s, q, k, v, o, st)
                            : launch<T, 64, false>(s, q, k, v, o, st));
    return op == 0 ? (c ? set_attr<T, 128, true>() : set_attr<T, 128, false>())
                   : (c ? launch<T, 128, true>(s, q, k, v, o, st)
                        : launch<T, 128, false>(s, q, k, v, o, st));
}

/* op 0: set_attr, op 1: launch, for the shape's (dtype, D, causal). */
int dispatch(int op, const ab_shape *s, const void *q, const void *k, const void *v, void *o,
             cudaStream_t st)
{
    return s->dtype == AB_FP16 ? dispatch_t<__half>(op, s, q, k, v, o, st)
                               : dispatch_t<__nv_bfloat16>(op, s, q, k, v, o, st);
}

} /* namespace */

/* setup: checks the shape (fp16/bf16, D in {64, 128}, B, H, S, S_kv >= 1,
 * H_kv dividing H, B*H below 2^31) and the device (compute capability 9.0), raises the dynamic
 * shared-memory limit. No workspace. Fails (-1, reason in err) otherwise. */
extern "C" int cuda_wgmma_pingpong_setup(const ab_shape *s, void **ctx, size_t *ws, char *err,
                                   size_t n)
{
    *ctx = NULL;
    *ws = 0;
    if (s->dtype != AB_FP16 && s->dtype != AB_BF16) {
        snprintf(err, n, "cuda_wgmma_pingpong: dtype must be fp16 or bf16");
        return -1;
    }
    if (s->D != 64 && s->D != 128) {
        snprintf(err, n, "cuda_wgmma_pingpong: D must be 64 or 128");
        return -1;
    }
    if (ab_shape_skv(s) < 1 || ab_shape_hkv(s) < 1 || s->H % ab_shape_hkv(s) != 0) {
        snprintf(err, n, "cuda_wgmma_pingpong: S_kv must be >= 1 and H_kv must divide H");
        return -1;
    }
    if (s->S < 1 || s->B < 1 || s->H < 1 || (long long)s->B * s->H > 0x7fffffffLL) {
        snprintf(err, n, "cuda_wgmma_pingpong: B, H, S must be >= 1 and B*H < 2^31");
        return -1;
    }
    if (int dev_rc = ab_wgmma_device_ok("cuda_wgmma_pingpong", err, n))
        return dev_rc;
    if (dispatch(0, s, NULL, NULL, NULL, NULL, 0)) {
        snprintf(err, n, "cuda_wgmma_pingpong: cudaFuncSetAttribute: %s",
                 cudaGetErrorString(cudaGetLastError()));
        return -1;
    }
    return 0;
}

/* run: encodes the three tensor maps and enqueues one forward pass on
 * `stream`; 2 when the grid is too large, 3 when a tensor map cannot be
 * encoded (message on stderr). */
extern "C" int cuda_wgmma_pingpong_run(void *ctx, const ab_shape *s, const void *q, const void *k,
                                 const void *v, void *o, void *stream)
{
    (void)ctx;
    return dispatch(1, s, q, k, v, o, (cudaStream_t)stream);
}

extern "C" void cuda_wgmma_pingpong_teardown(void *ctx) { (void)ctx; }
