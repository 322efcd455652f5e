/*
 * cuda_fa1_rowwise.cu: the `cuda_fa1_rowwise` variant, FlashAttention-1's
 * loop structure with one thread per query row: the "before" picture of the
 * seed reports' kernel.
 *
 * Idea: the seeds' kernel design, kept as it was (seed 000, seed 002
 * "FlashAttention-1 vs FlashAttention-2" and "Insight 3"): grid
 * (H, B, query tiles of 64 rows), 256 threads per block of which the first
 * 64 each own one query row; all 256 cooperate to stage each 64-key tile of
 * K and V in shared memory (fp32), then the 64 row threads compute their
 * scores for the tile, and update the row with FlashAttention-1's
 * Algorithm 1 step (Dao et al. 2022): tile max m~, P~ = exp(S - m~),
 * l~ = rowsum P~, m_new = max(m, m~), l_new = e^(m-m_new) l + e^(m~-m_new) l~,
 * O = (l e^(m-m_new) O + e^(m~-m_new) P~ V) / l_new -- the normalised
 * accumulator rescaled at every tile, which FlashAttention-2 later removed.
 * The K/V loop is sequential within a block (the seeds' root cause), and
 * 192 of the 256 threads idle outside the loads (seed 002, "thread
 * utilization 25%"). Q and the tile's scores sit in shared memory
 * transposed ([d][row], [key][row]) so the row threads read them without
 * bank conflicts, K and V are read as broadcasts; the O accumulator is D
 * registers per thread (hence the template on D = 64, 128) and each thread
 * writes its own row (uncoalesced, as in the seeds). fp32 arithmetic;
 * log2(e) folded into the scale, exponentials by exp2f. Causal: key tiles
 * past the query tile's last row are skipped, keys j > i masked.
 * Shared memory: (3*64*D + 64*64)*4 bytes = 64 KiB (D=64), 112 KiB (D=128).
 * Source: seeds 000 and 002 (/work/shared/seeds/); Dao et al.,
 * "FlashAttention", NeurIPS 2022, Algorithm 1.
 * Rung: after cuda_naive (fused, no score matrix in global memory); the
 * baseline that cuda_fa2_warps (seed 002 priority 2) and cuda_split_kv
 * (priority 1) improve on.
 * Measured (reports/seeds-and-ladders/attnbench.db, NVIDIA H200, 2026-11-21,
 * hot timing, medians; run 10 ladder-d128, report
 * reports/seeds-and-ladders/ladder-d128-run10.md: D = 128, B*S = 16384, H =
 * 16, S = 512..8192, causal or not, fp16/bf16; run 9 ladder-d64, report
 * reports/seeds-and-ladders/ladder-d64-run9.md: B = 32, H = 8, D = 64, S =
 * 128..2048, fp16): 3.0-3.6 TFLOP/s over run 10's 20 configurations (3.5 at
 * B=4 S=4096 fp16 non-causal), 7.0-9.8 over run 9's 5 shapes; 0.59x
 * cuda_naive (geometric mean of the ratios of medians over run 10,
 * 0.56-0.61x).
 *
 * Checked: gpu_check: 96 cases, 0 failed (H200, 2026-11-21). ptxas (sm_90a): 127
 *   registers (D=64), 166-170 (D=128), no spills; 64/112 KiB dynamic shared
 *   memory: 2 resp. 1 block(s) of 256 threads per SM, set by the registers.
 */
#include "cuda_attn_util.cuh"
#include "entry_points.h"
#include "gpu.h"

namespace {

enum { BR = 64, BC = 64, NT = 256 };

template <int D> constexpr size_t fa1_smem_bytes()
{
    return (size_t)(3 * BR * D + BC * BR) * sizeof(float);
}

/* grid (H, B, ceil(S/64)), block 256, dynamic shared memory fa1_smem_bytes<D>. */
template <typename T, int D>
__global__ void __launch_bounds__(NT) fa1_kernel(const T *Q, const T *K, const T *V, T *O,
                                                 int S, int H, float scale_log2, int causal)
{
    extern __shared__ float sm[];
    float *qt = sm;               /* [D][BR]  Q tile, transposed, pre-scaled */
    float *ks = qt + D * BR;      /* [BC][D]  K tile */
    float *vs = ks + BC * D;      /* [BC][D]  V tile */
    float *st = vs + BC * D;      /* [BC][BR] scores of the tile, transposed */

    const int h = blockIdx.x, b = blockIdx.y, q0 = blockIdx.z * BR;
    const size_t base = ((size_t)b * H + h) * (size_t)S * D;
    const int tid = threadIdx.x;
    const int r = tid;            /* the row of threads 0..63 */
    const int i = q0 + r;
    const bool row_thread = tid < BR;
    const bool row_valid = row_thread && i < S;

    for (int e = tid; e < BR * D; e += NT) {
        const int rr = e / D, d = e % D;
        qt[d * BR + rr] = q0 + rr < S ? ab_to_f(Q[base + (size_t)(q0 + rr) * D + d]) * scale_log2
                                      : 0.0f;
    }

    float acc[D];
#pragma unroll
    for (int d = 0; d < D; d++)
        acc[d] = 0.0f;
    float m = -INFINITY, l = 0.0f;

    const int kend = causal ? min(S, q0 + BR) : S;
    for (int j0 = 0; j0 < kend; j0 += BC) {
        __syncthreads(); /* previous tile fully consumed (and Q stored) */
        for (int e = tid; e < BC * D; e += NT) {
            const int jj = e / D, d = e % D;
            const bool in = j0 + jj < S;
            ks[e] = in ? ab_to_f(K[base + (size_t)(j0 + jj) * D + d]) : 0.0f;
            vs[e] = in ? ab_to_f(V[base + (size_t)(j0 + jj) * D + d]) : 0.0f;
        }
        __syncthreads();
        if (row_valid) {
            int nk = min(BC, S - j0);
            if (causal)
                nk = min(nk, i - j0 + 1);
            /* scores of this row against the tile, and the tile max m~ */
            float mt = -INFINITY;
            for (int jj = 0; jj < nk; jj++) {
                float x = 0.0f;
#pragma unroll
                for (int d = 0; d < D; d++)
                    x = fmaf(qt[d * BR + r], ks[jj * D + d], x);
                st[jj * BR + r] = x;
                mt = fmaxf(mt, x);
            }
            if (nk > 0) {
                /* P~ = exp(S - m~) in place, l~ = rowsum P~; then the Algorithm 1
                 * merge O = (l e^(m-m_new) O + e^(m~-m_new) P~ V) / l_new */
                float lt = 0.0f;
                for (int jj = 0; jj < nk; jj++) {
                    const float p = exp2f(st[jj * BR + r] - mt);
                    st[jj * BR + r] = p;
                    lt += p;
                }
                const float mn = fmaxf(m, mt);
                const float a = exp2f(m - mn), bt = exp2f(mt - mn);
                const float ln = a * l + bt * lt;
                const float c_old = a * l / ln, c_new = bt / ln;
#pragma unroll
                for (int d = 0; d < D; d++)
                    acc[d] *= c_old;
                for (int jj = 0; jj < nk; jj++) {
                    const float p = st[jj * BR + r] * c_new;
#pragma unroll
                    for (int d = 0; d < D; d++)
                        acc[d] = fmaf(p, vs[jj * D + d], acc[d]);
                }
                m = mn;
                l = ln;
            }
        }
    }
    if (row_valid) {
        T *o = O + base + (size_t)i * D;
#pragma unroll
        for (int d = 0; d < D; d++)
            o[d] = ab_from_f<T>(acc[d]);
    }
}

template <typename T, int D> int fa1_prepare(char *err, size_t errlen)
{
    if (int fit = ab_gpu_smem_fits(fa1_smem_bytes<D>(), "cuda_fa1_rowwise", D, err, errlen))
        return fit; /* 112 KiB at D = 128: more than sm_86 and sm_89 give a block */
    AB_CK_SETUP(cudaFuncSetAttribute(fa1_kernel<T, D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)fa1_smem_bytes<D>()));
    return 0;
}

template <typename T, int D>
void fa1_launch(const ab_shape *s, const void *q, const void *k, const void *v, void *o,
                cudaStream_t st)
{
    const dim3 grid((unsigned)s->H, (unsigned)s->B, (unsigned)((s->S + BR - 1) / BR));
    const float scale_log2 = AB_LOG2E / sqrtf((float)D);
    fa1_kernel<T, D><<<grid, NT, fa1_smem_bytes<D>(), st>>>(
        (const T *)q, (const T *)k, (const T *)v, (T *)o, s->S, s->H, scale_log2, s->causal);
}

} // namespace

/* setup: no workspace; raises the dynamic shared-memory limit of the kernel
 * instance (64 or 112 KiB). AB_SETUP_UNSUPPORTED where the device gives a
 * block less (D = 128 on sm_86, sm_89: 99 KiB); fails for D other than 64,
 * 128 or grids beyond CUDA's limits (H, B <= 65535, S <= 64*65535). */
extern "C" int cuda_fa1_rowwise_setup(const ab_shape *s, void **ctx, size_t *ws, char *err,
                                      size_t errlen)
{
    *ctx = NULL;
    *ws = 0;
    if (s->H > 65535 || s->B > 65535 || (s->S + BR - 1) / BR > 65535) {
        snprintf(err, errlen, "cuda_fa1_rowwise: grid (H=%d, B=%d, S/64) exceeds 65535", s->H,
                 s->B);
        return -1;
    }
    int rc = -1;
    if (s->D == 64)
        AB_DISPATCH_DTYPE(s->dtype, T, rc = fa1_prepare<T, 64>(err, errlen));
    else if (s->D == 128)
        AB_DISPATCH_DTYPE(s->dtype, T, rc = fa1_prepare<T, 128>(err, errlen));
    else
        snprintf(err, errlen, "cuda_fa1_rowwise: D=%d not supported (64, 128)", s->D);
    return rc;
}

extern "C" int cuda_fa1_rowwise_run(void *ctx, const ab_shape *s, const void *q, const void *k,
                                    const void *v, void *o, void *stream)
{
    (void)ctx;
    cudaStream_t st = (cudaStream_t)stream;
    if (s->D == 64)
        AB_DISPATCH_DTYPE(s->dtype, T, fa1_launch<T, 64>(s, q, k, v, o, st));
    else if (s->D == 128)
        AB_DISPATCH_DTYPE(s->dtype, T, fa1_launch<T, 128>(s, q, k, v, o, st));
    else
        return -1;
    return 0;
}

extern "C" void cuda_fa1_rowwise_teardown(void *ctx) { (void)ctx; }
