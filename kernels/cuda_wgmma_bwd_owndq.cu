/*
 * cuda_wgmma_bwd_owndq.cu: the Hopper backward with independent consumer
 * warpgroups, rung "cuda_wgmma_bwd_owndq" of the backward ladder (previous
 * rung cuda_wgmma_bwd_ws). Its forward is cuda_wgmma_persistent's.
 *
 * Idea: remove the last per-step meeting of the two consumer warpgroups.
 * In cuda_wgmma_bwd_ws each warpgroup computes half of the columns of the
 * tile's dQ share over all 128 keys of the block, so it must wait at a
 * 256-thread barrier until the other has stored its dS^T rows: both
 * warpgroups then run the same phase at the same time (S/dP products,
 * then both on the element-wise work while the tensor cores idle, then
 * both on dK/dV/dQ). Here warpgroup w computes the whole dQ share of its
 * own 64 keys, dS_w K_w (two 64-column halves at D = 128, 32 accumulator
 * registers each), from its own dS^T rows, so it waits only for its own
 * four warps (a 128-thread named barrier); the two warpgroups write their
 * shares to two fp32 buffers and the producer adds both before its float4
 * atomics (the same number of atomics as before). The warpgroups are still
 * tied through the single dQ buffer hand-over (one may run at most about a
 * step ahead), which is room for one warpgroup's element-wise work to run
 * under the other's products. Everything else is cuda_wgmma_bwd_ws's (wgmma_bwd_ws.cuh):
 * TMA producer (setmaxnreg 24) with full/empty mbarriers, two Q/dO stages,
 * consumers at 240 registers.
 *
 * Prediction (before the first run): if the warpgroups drift apart by part
 * of a step, the tensor cores stay busy during one warpgroup's element-wise
 * work: 1.05-1.15x cuda_wgmma_bwd_ws; if they stay in lock step (nothing
 * forces an offset), about 1.0x.
 *
 * Measured (NVIDIA H200, 2026-11-26, reports/hopper-bwd/hopper-bwd.db runs
 * 4-5, experiments/hopper-bwd-owndq.cfg and hopper-bwd-owndq-llama3-8b.cfg;
 * hot timing, medians of 20-30 samples): SLOWER than the previous rung.
 * 198.3-393.9 TFLOP/s over the 20 bf16 configurations; 0.92x
 * cuda_wgmma_bwd_ws at D = 128 (geometric mean, 0.91-0.94), 0.98x at
 * D = 64 (0.97-0.99); Llama 3 8B 0.92x (185.1-328.9 TFLOP/s). The
 * prediction (1.05-1.15x, or 1.0x in lock step) did not hold.
 *
 * Profiled (no database: the figures are in the log named): Nsight
 * Compute at B=4 H=16 S=4096 D=128 bf16 non-causal
 * (reports/hopper-bwd/ncu-call3.log): 3.33 ms against cuda_wgmma_bwd_ws's
 * 3.06, tensor pipe active 44.1% of peak (48.1%), warps waiting on
 * memory results 1.31 per issue (1.17) and on shared memory 1.08 (0.79).
 * Reading: the per-step barrier was not what held the tensor cores; each
 * warpgroup now waits for two small dQ products in turn (4 k-steps of
 * m64n64 each, a wgmma wait and 32 shared-memory stores between them)
 * instead of one 8-k-step product per warpgroup, and the producer reads
 * two buffers per atomic. Kept as a rung that was timed; cuda_wgmma_bwd_ws
 * stays the best own backward. Every gradient within FlashAttention's
 * tolerance; gpu_check_bwd 120 cases and memcheck, racecheck, synccheck
 * clean. ptxas: 168 registers at entry, no spills.
 *
 * Shared memory (bytes, regions on 1024-byte boundaries): K, V 2 x 128 x D
 * x 2; Q, dO two stages 4 x 64 x D x 2; dS^T 128 x 64 x 2 (each warpgroup
 * its 64 rows); logsumexp, Delta two stages 1 KiB; dQ two buffers 2 x 64 x
 * (D + 8) x 4; 7 mbarriers; + 1 KiB slack: 118 KiB (D = 64), 214 KiB
 * (D = 128). One block of 384 threads per SM.
 *
 * Supported: as cuda_wgmma_bwd (fp16, bf16; D in {64, 128}; causal or not;
 * any S, S_kv >= 1 with the bottom-right mask; H_kv dividing H); sm_90a
 * only, other devices get AB_SETUP_UNSUPPORTED.
 *
 * Sources: Shah et al., "FlashAttention-3" (2024) sections 3.1-3.2 (warp
 * specialisation; letting one warpgroup's softmax run under the other's
 * GEMMs, there for the forward), read to understand, not copied; Tri Dao,
 * "FlashAttention-2" (2023) Algorithm 2; PTX ISA wgmma, mbarrier,
 * cp.async.bulk(.tensor), setmaxnreg.
 */
#include "wgmma_bwd_ws.cuh"

using namespace abwgws;

namespace {

/* The main kernel: block (key tile of BC, b * H_kv + hk), NT threads,
 * ws_layout<D, 1, 2>::bytes of dynamic shared memory; the producer of
 * wgmma_bwd_ws.cuh (summing the two dQ buffers). tmQ, tmG: [B*H, S, D]
 * maps with 64-row boxes; tmK, tmV: [B*H_kv, S_kv, D] with BC-row boxes.
 * lse2, delta: [B*H, Sp] (Sp = S rounded up to 64). Adds dS K (unscaled)
 * into dqacc [B, H, S, D]; writes dK = scale sum dS^T Q and dV = sum P^T dO
 * of its keys in the dtype. */
template <typename T, int D>
__global__ void __launch_bounds__(NT, 1)
    bwd_owndq(const __grid_constant__ CUtensorMap tmQ, const __grid_constant__ CUtensorMap tmG,
              const __grid_constant__ CUtensorMap tmK, const __grid_constant__ CUtensorMap tmV,
              const float *__restrict__ lse2, const float *__restrict__ delta,
              float *__restrict__ dqacc, T *__restrict__ dK, T *__restrict__ dV, int H, int HK,
              int S, int SK, int Sp, int causal, float scale)
{
#if AB_WGMMA_DEVICE
    using L = ws_layout<D, 1, 2>;
    constexpr int NCT = 128 * NWG; /* consumer threads */
    extern __shared__ unsigned char smem_raw[];
    const uint32_t raw = smem_u32(smem_raw);
    const uint32_t base = (raw + 1023u) & ~1023u;
    unsigned char *sbase = smem_raw + (base - raw);
    const uint32_t uK = base + L::K, uV = base + L::V;
    const ws_bars m = ws_bars_at(base + L::BAR);
    float *sDQ = reinterpret_cast<float *>(sbase + L::DQ);

    const int tid = threadIdx.x, wg = tid >> 7, wtid = tid & 127;
    const int j0 = blockIdx.x * BC;
    const int bk = blockIdx.y; /* b * HK + hk */
    const int off = SK - S;    /* key j visible to row i iff j <= i + off */
    const ws_sweep w = ws_sweep_of(bk / HK, bk % HK, H, HK, 0, H / HK, j0, S, SK, causal);

    ws_init_bars(m, NCT);

    if (wg == 0) {
        setmaxnreg_dec<24>();
        ws_producer<D, 1, 2>(w, wtid, base, m, sDQ, &tmQ, &tmG, &tmK, &tmV, lse2, delta, dqacc,
                             j0, bk, S, Sp);
    } else {
        /* consumers: keys 64 (wg - 1) .. + 63 of the block */
        setmaxnreg_inc<240>();
        const int cw = wg - 1;
        const bwd_geo x = bwd_geo_of(wtid, cw);
        const float sl2 = scale * 1.4426950408889634f;
        float dv[D / 2], dk[D / 2];
#pragma unroll
        for (int i = 0; i < D / 2; i++)
            dv[i] = dk[i] = 0.f;
        mbar_wait(m.kv, 0);
        for (int it = 0; it < w.nsteps; it++) {
            const int st = it & 1;
            const int q0 = ws_q0(w, it);
            const uint32_t uQ = base + L::Q + st * L::TQ, uG = base + L::G + st * L::TQ;
            const uint32_t uDS = base + L::DS;
            const float *lL = reinterpret_cast<const float *>(sbase + L::L) + st * BR;
            const float *lD = reinterpret_cast<const float *>(sbase + L::DL) + st * BR;
            mbar_wait(m.full + st * 8, (uint32_t)((it >> 1) & 1));

            const bool full =
                q0 + BR <= S && j0 + BC <= SK && (!causal || j0 + BC - 1 <= q0 + off);
            uint32_t pf[4][4], df[4][4];
            bwd_wg_scores<T, D, BC>(pf, df, x, uK, uV, uQ, uG, uDS, lL, 1.0f, lD, full, q0, j0,
                                    S, SK, causal, off, sl2);
            bwd_wg_issue_dkdv<T, D>(dv, dk, pf, df, uQ, uG);
            named_sync(1 + cw, 128); /* this warpgroup's dS^T rows stored */
            /* dQ share = dS_w K_w, 64 columns at a time */
#pragma unroll
            for (int h = 0; h < D / 64; h++) {
                float qacc[32];
                bwd_wg_issue_dq_own<T, BC>(qacc, uDS, uK, cw, h);
                wg_wait<0>();
                reg_fence(qacc);
                if (h == 0) {
                    reg_fence(dv);
                    reg_fence(dk);
                    reg_fence_frag(pf);
                    reg_fence_frag(df);
                    abmma::mbar_arrive(m.empty + st * 8); /* Q, dO, lse, Delta of stage st read */
                    /* the dQ buffer once the producer took the last shares */
                    if (it >= 1)
                        mbar_wait(m.dqempty, (uint32_t)((it - 1) & 1));
                }
                float *own = sDQ + cw * BR * L::DQS + h * 64;
#pragma unroll
                for (int n = 0; n < 8; n++)
#pragma unroll
                    for (int e = 0; e < 2; e++) {
                        const int r = x.wi * 16 + x.g + 8 * e;
                        *reinterpret_cast<float2 *>(own + r * L::DQS + 8 * n + 2 * x.t) =
                            make_float2(qacc[4 * n + 2 * e], qacc[4 * n + 2 * e + 1]);
                    }
            }
            abmma::mbar_arrive(m.dqfull);
        }
        /* dK = scale * sum dS^T Q, dV = sum P^T dO, in the dtype */
        bwd_wg_store_dkdv<T, D>(dK, dV, (size_t)bk * SK * D, x, j0, SK, dk, dv, scale);
    }
#endif
}

/* Enqueues the four steps of one backward pass on st; 0, a cudaError_t,
 * or 3 when a tensor map cannot be encoded (printed). */
template <typename T, int D>
int launch(const ws_ctx *c, const ab_shape *s, const void *q, const void *k, const void *v,
           const void *o, const void *g, const float *lse, void *dq, void *dk, void *dv,
           cudaStream_t st)
{
    const int HK = ab_shape_hkv(s), SK = ab_shape_skv(s);
    ws_maps m;
    if (int rc = ws_before<T, D>("cuda_wgmma_bwd_owndq", c, s, q, k, v, o, g, lse, &m, st))
        return rc;
    dim3 grid((unsigned)((SK + BC - 1) / BC), (unsigned)(s->B * HK));
    bwd_owndq<T, D><<<grid, NT, ws_layout<D, 1, 2>::bytes, st>>>(
        m.q, m.g, m.k, m.v, c->lse2, c->delta, c->dqacc, (T *)dk, (T *)dv, s->H, HK, s->S, SK,
        c->Sp, s->causal, 1.0f / sqrtf((float)D));
    return ws_after<T>(c, s, dq, dk, dv, st);
}

/* Raises bwd_owndq's dynamic shared-memory limit for s's dtype and D; 0 or
 * a cudaError_t. */
template <typename T, int D> int set_smem_of(void)
{
    return (int)cudaFuncSetAttribute(bwd_owndq<T, D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     ws_layout<D, 1, 2>::bytes);
}
int set_smem(const ab_shape *s)
{
    if (s->D == 64)
        return s->dtype == AB_FP16 ? set_smem_of<__half, 64>() : set_smem_of<__nv_bfloat16, 64>();
    return s->dtype == AB_FP16 ? set_smem_of<__half, 128>() : set_smem_of<__nv_bfloat16, 128>();
}

} /* namespace */

/* setup: ws_setup's contract (fp16/bf16, D in {64, 128}, any S, S_kv, H_kv
 * dividing H, B*H_kv <= 65535 (the grid's y dimension); compute capability
 * 9.0, else AB_SETUP_UNSUPPORTED with the reason); no dK/dV accumulators. */
extern "C" int cuda_wgmma_bwd_owndq_setup(const ab_shape *s, void **ctx, size_t *ws, char *err,
                                          size_t n)
{
    return ws_setup("cuda_wgmma_bwd_owndq", s, ctx, ws, err, n, 65535, set_smem, 0);
}

/* run: the forward, cuda_wgmma_persistent's (o = attention(q, k, v)). */
extern "C" int cuda_wgmma_bwd_owndq_run(void *ctx, const ab_shape *s, const void *q,
                                        const void *k, const void *v, void *o, void *stream)
{
    return cuda_wgmma_persistent_run(((ws_ctx *)ctx)->fwd, s, q, k, v, o, stream);
}

/* run_bwd: enqueues the accumulator memset, the pre-pass, the main kernel
 * and the dQ conversion on `stream` (no allocation, no synchronisation:
 * graph-capturable). Needs a setup with s->pass != "fwd". Returns 0, a
 * cudaError_t, or 3 when a tensor map cannot be encoded. */
extern "C" int cuda_wgmma_bwd_owndq_run_bwd(void *ctx, const ab_shape *s, const void *q,
                                            const void *k, const void *v, const void *o,
                                            const void *dout, const float *lse, void *dq,
                                            void *dk, void *dv, void *stream)
{
    const ws_ctx *c = (const ws_ctx *)ctx;
    if (!c || !c->dqacc)
        return (int)cudaErrorInvalidValue;
    cudaStream_t st = (cudaStream_t)stream;
    if (s->D == 64)
        return s->dtype == AB_FP16
                   ? launch<__half, 64>(c, s, q, k, v, o, dout, lse, dq, dk, dv, st)
                   : launch<__nv_bfloat16, 64>(c, s, q, k, v, o, dout, lse, dq, dk, dv, st);
    return s->dtype == AB_FP16
               ? launch<__half, 128>(c, s, q, k, v, o, dout, lse, dq, dk, dv, st)
               : launch<__nv_bfloat16, 128>(c, s, q, k, v, o, dout, lse, dq, dk, dv, st);
}

/* teardown: frees what setup allocated (the forward's context included);
 * ctx may be NULL. */
extern "C" void cuda_wgmma_bwd_owndq_teardown(void *ctx) { ws_teardown(ctx); }
