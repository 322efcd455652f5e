/*
 * split_combine.cuh: the partial results of a key range split across
 * blocks (flash-decoding) and their exact merge, shared by cuda_split_kv
 * (through cuda_fa2_body.cuh) and cuda_decode_split_kv.
 *
 * Each of nsplit splits writes, per query row, O_s = acc_s / l_s (fp32,
 * [nsplit, rows, D]), its row max m_s (log2 units; -inf when the split saw
 * no key of the row) and row sum l_s ([nsplit, rows]). The merge is exact:
 *     m = max_s m_s,  l = sum_s l_s 2^(m_s - m),  O = sum_s O_s l_s 2^(m_s - m) / l
 * and a row no split saw (causal, S > S_kv) is 0. Source: Dao et al.,
 * "Flash-Decoding for long-context inference" (2023); the online softmax of
 * Milakov & Gimelshein (2018).
 */
#ifndef ATTNBENCH_SPLIT_COMBINE_CUH
#define ATTNBENCH_SPLIT_COMBINE_CUH

#include "cuda_attn_util.cuh"

#include <stdio.h>

/* The partials of one variant instance (device memory, one allocation). */
struct ab_split_parts {
    float *opart;         /* [nsplit, rows, D] */
    float *mpart, *lpart; /* [nsplit, rows] */
};

/* Allocates nsplit * rows * (D + 2) floats after checking free memory;
 * *bytes gets the size (workspace accounting). 0, or -1 with a message in
 * err naming `who`. Free with cudaFree(parts->opart). */
static inline int ab_split_parts_alloc(ab_split_parts *parts, int nsplit, size_t rows, int D,
                                       const char *who, size_t *bytes, char *err, size_t errlen)
{
    const size_t r = (size_t)nsplit * rows;
    const size_t b = r * (size_t)(D + 2) * sizeof(float);
    if (ab_cuda_check_free(b, "the split-KV partial results", err, errlen))
        return -1;
    cudaError_t e = cudaMalloc((void **)&parts->opart, b);
    if (e != cudaSuccess) {
        snprintf(err, errlen, "%s: cudaMalloc(%.2f GiB): %s", who, b / 1073741824.0,
                 cudaGetErrorString(e));
        return -1;
    }
    parts->mpart = parts->opart + r * D;
    parts->lpart = parts->mpart + r;
    *bytes = b;
    return 0;
}

/* One warp per row of [rows]: merges the nsplit partials into O (T, [rows, D]). */
template <typename T, int D>
__global__ void __launch_bounds__(128)
    ab_split_combine(const ab_split_parts p, T *__restrict__ O, size_t rows, int nsplit)
{
    constexpr int C = D / 32;
    const size_t row = (size_t)blockIdx.x * 4 + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (row >= rows)
        return;
    float mx = -INFINITY;
    for (int s = 0; s < nsplit; s++)
        mx = fmaxf(mx, p.mpart[s * rows + row]);
    if (mx == -INFINITY)
        mx = 0.0f; /* no split saw a key: every weight below is 0, O = 0 */
    float lsum = 0.0f, acc[C];
#pragma unroll
    for (int c = 0; c < C; c++)
        acc[c] = 0.0f;
    for (int s = 0; s < nsplit; s++) {
        const float w = p.lpart[s * rows + row] * exp2f(p.mpart[s * rows + row] - mx);
        lsum += w;
        const float *os = p.opart + (s * rows + row) * D;
#pragma unroll
        for (int c = 0; c < C; c++)
            acc[c] = fmaf(w, os[lane + 32 * c], acc[c]);
    }
    const float inv = lsum > 0.0f ? 1.0f / lsum : 0.0f;
    T *o = O + row * D;
#pragma unroll
    for (int c = 0; c < C; c++)
        o[lane + 32 * c] = ab_from_f<T>(acc[c] * inv);
}

/* Enqueues ab_split_combine on st. */
template <typename T, int D>
static inline void ab_split_combine_launch(const ab_split_parts &p, void *O, size_t rows,
                                           int nsplit, cudaStream_t st)
{
    ab_split_combine<T, D><<<(unsigned)((rows + 3) / 4), 128, 0, st>>>(p, (T *)O, rows, nsplit);
}

#endif
