/*
 * test_philox.c: the inputs' generator on the host (kernels/data.h,
 * kernels/philox.h), in CI (no GPU needed):
 *  1. philox.c's Philox4x32-10 block function against the known-answer
 *     vectors of Random123 (kat_vectors, the authors' reference
 *     implementation: Salmon et al. 2011);
 *  2. in builds with CUDA, philox.c's stream against cuRAND's host
 *     generator (curandCreateGeneratorHost, CURAND_RNG_PSEUDO_PHILOX4_32_10)
 *     bit for bit, at offsets and lengths across its 4-output blocks and its
 *     65536-block subsequence wrap, for seeds with both key words set; this
 *     is what makes the build without CUDA see the same inputs;
 *  3. seed determinism of ab_inputs_fill: the same seed gives the same bits
 *     on two calls (and with another OpenMP thread count), another seed
 *     different ones; K and V continue Q's stream (element numel, numel +
 *     kv numel), dO is the stream of seed + 1;
 *  4. the values: each is ab_input_value of its raw output (the exact
 *     conversion u / 2^31 - 1 in double, checked here at its ends and two
 *     midpoints), within [-1, 1] (1 only where rounding to the dtype reaches
 *     it), already a value of the dtype.
 * Exit 0 when all hold.
 */
#include "data.h"
#include "philox.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef AB_HAVE_CUDA
#include <curand.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

static int fails;
#define EXPECT(cond, ...)                                                                      \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            printf("FAIL: " __VA_ARGS__);                                                      \
            printf("\n");                                                                      \
            fails++;                                                                           \
        }                                                                                      \
    } while (0)

static void known_answers(void)
{
    /* Random123 kat_vectors, "philox4x32 10" lines: counter, key, output */
    static const uint32_t kat[3][10] = {
        {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
        {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d,
         0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
        {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09,
         0x94fdcceb, 0x5001e420, 0x24126ea1},
    };
    for (int i = 0; i < 3; i++) {
        uint32_t o[4];
        ab_philox4x32_10(kat[i], kat[i][4], kat[i][5], o);
        EXPECT(memcmp(o, kat[i] + 6, sizeof o) == 0,
               "Philox4x32-10 known answer %d: %08x %08x %08x %08x", i, o[0], o[1], o[2], o[3]);
    }
}

static void against_curand(void)
{
#ifdef AB_HAVE_CUDA
    const uint64_t seeds[] = {0, 1, 1234, 0x0123456789abcdefULL, ~0ULL};
    const uint64_t offsets[] = {0, 1, 3, 5, 262143, 262145, 1000003};
    const size_t lengths[] = {1, 7, 262144 * 2 + 5};
    const size_t most = 262144 * 2 + 5;
    uint32_t *a = malloc(most * sizeof *a), *b = malloc(most * sizeof *b);
    int compared = 0;
    for (int si = 0; si < 5; si++)
        for (int oi = 0; oi < 7; oi++)
            for (int li = 0; li < 3; li++) {
                curandGenerator_t g;
                const size_t n = lengths[li];
                if (curandCreateGeneratorHost(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10) ||
                    curandSetPseudoRandomGeneratorSeed(g, seeds[si]) ||
                    curandSetGeneratorOffset(g, offsets[oi]) || curandGenerate(g, a, n)) {
                    EXPECT(0, "cuRAND's host generator could not be made or run (no GPU needed)");
                    free(a), free(b);
                    return;
                }
                curandDestroyGenerator(g);
                ab_philox_stream(seeds[si], offsets[oi], n, b);
                size_t i = 0;
                while (i < n && a[i] == b[i])
                    i++;
                EXPECT(i == n, "seed %llu offset %llu n %zu: element %zu cuRAND %u philox.c %u",
                       (unsigned long long)seeds[si], (unsigned long long)offsets[oi], n, i,
                       a[i], b[i]);
                compared++;
            }
    printf("philox.c against cuRAND's host generator: %d streams compared\n", compared);
    free(a), free(b);
#else
    printf("philox.c against cuRAND: not built with CUDA (the known answers still hold)\n");
#endif
}

static void determinism(void)
{
    ab_shape s = {2, 4, 37, 24, 1, AB_BF16, 2, 45};
    const size_t nq = ab_shape_numel(&s), nkv = ab_shape_kv_numel(&s), all = nq + 2 * nkv;
    float *x = malloc(all * sizeof *x), *y = malloc(all * sizeof *y), *z = malloc(all * sizeof *z);
    float *dout = malloc(nq * sizeof *dout);
    uint32_t *u = malloc((all + nq) * sizeof *u);
    for (int t = 0; t < AB_NDTYPES; t++) {
        s.dtype = (ab_dtype)t;
        EXPECT(ab_inputs_fill(&s, 99, x, x + nq, x + nq + nkv) == 0, "ab_inputs_fill failed");
#ifdef _OPENMP
        const int threads = omp_get_max_threads();
        omp_set_num_threads(1);
#endif
        EXPECT(ab_inputs_fill(&s, 99, y, y + nq, y + nq + nkv) == 0, "ab_inputs_fill failed");
#ifdef _OPENMP
        omp_set_num_threads(threads);
#endif
        EXPECT(memcmp(x, y, all * sizeof *x) == 0, "%s: seed 99 gave different inputs twice",
               ab_dtype_name(s.dtype));
        ab_inputs_fill(&s, 100, z, z + nq, z + nq + nkv);
        size_t same = 0;
        for (size_t i = 0; i < all; i++)
            same += memcmp(&x[i], &z[i], sizeof *x) == 0;
        /* two independent draws agree by chance on about 0.1% of bf16
         * values (128 values per binade), far fewer for fp16 and fp32 */
        EXPECT(same < all / 50, "%s: seeds 99 and 100 agree on %zu of %zu values",
               ab_dtype_name(s.dtype), same, all);
        /* one stream: Q, K, V at offsets 0, nq, nq + nkv; dO the stream of seed + 1 */
        ab_philox_stream(99, 0, all, u);
        ab_philox_stream(100, 0, nq, u + all);
        ab_dout_fill(&s, 99, dout);
        size_t off = all;
        for (size_t i = 0; i < all && off == all; i++)
            if (memcmp(&x[i], &(float){ab_input_value(u[i], s.dtype)}, sizeof(float)) != 0)
                off = i;
        EXPECT(off == all, "%s: input %zu is not the value of stream element %zu",
               ab_dtype_name(s.dtype), off, off);
        off = nq;
        for (size_t i = 0; i < nq && off == nq; i++)
            if (memcmp(&dout[i], &(float){ab_input_value(u[all + i], s.dtype)}, sizeof(float)) != 0)
                off = i;
        EXPECT(off == nq, "%s: dO %zu is not element %zu of the stream of seed + 1",
               ab_dtype_name(s.dtype), off, off);
        for (size_t i = 0; i < all; i++) {
            if (!(x[i] >= -1.0f && x[i] <= 1.0f) || ab_round_to(x[i], s.dtype) != x[i]) {
                EXPECT(0, "%s: input %zu = %a outside [-1, 1] or not a dtype value",
                       ab_dtype_name(s.dtype), i, x[i]);
                break;
            }
        }
    }
    free(x), free(y), free(z), free(dout), free(u);
}

static void conversion(void)
{
    /* u / 2^31 - 1: 0 -> -1, 2^31 -> 0, 2^32 - 1 -> 1 - 2^-31, which
     * rounds to 1 in float (24 bits) */
    EXPECT(ab_input_value(0, AB_FP32) == -1.0f, "u = 0 is not -1");
    EXPECT(ab_input_value(0xFFFFFFFFu, AB_FP32) == 1.0f, "u = 2^32 - 1 is not 1 in float");
    EXPECT(ab_input_value(0xFFFFFF00u, AB_FP32) == 1.0f - 0x1p-23f, "u = 2^32 - 256 is not 1 - 2^-23");
    EXPECT(ab_input_value(0x80000000u, AB_FP32) == 0.0f, "u = 2^31 is not 0");
    EXPECT(ab_input_value(0xC0000000u, AB_BF16) == 0.5f, "u = 3 2^30 is not 0.5");
    EXPECT(ab_input_value(0x40000000u, AB_FP16) == -0.5f, "u = 2^30 is not -0.5");
}

int main(void)
{
    known_answers();
    against_curand();
    determinism();
    conversion();
    printf("%s (%d failures)\n", fails ? "FAIL" : "ok", fails);
    return fails ? 1 : 0;
}
