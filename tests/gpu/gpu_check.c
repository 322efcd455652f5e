/*
 * gpu_check.c: the GPU correctness suite. For one CUDA variant (argv[1]),
 * every supported (dtype, D in {64, 128}, causal) and FlashAttention's odd
 * sequence lengths S in {1, 17, 97, 113, 200, 1023, 1025, 2049} (from
 * flash-attention tests/test_flash_attn.py), with B=2, H=3 and fresh random
 * inputs per case, the variant is launched once, the output poisoned with
 * NaN, the variant launched again (state kept between launches) and
 * compared over every row of every (b, h) with the device's float64
 * reference under the rule of kernels/check.h (kernels/gpu_check.h). Exit 0
 * when all pass, 1 on a failure, 77 (meson's "skipped") when there is no
 * CUDA device.
 *
 * Usage:
 *   gpu_check VARIANT... [S...]   the suite above (or these S); several
 *                                 variants share each case's inputs
 *   gpu_check --reference         the device reference against the CPU
 *                                 oracle (kernels/reference.c), every row,
 *                                 every dtype, D in {1, 64, 128, 200},
 *                                 causal and not, S in {1, 17, 113, 200}
 *   gpu_check --reference-digest  the device reference's bits, no oracle: for
 *                                 the --reference shapes (same inputs), B=1
 *                                 H=2 S in {2048, 4096} D in {64, 128} causal
 *                                 and not, and H_kv < H / S_kv != S shapes at
 *                                 D in {64, 128}, every dtype, one line each:
 *                                 FNV-1a 64 of the oref bytes, of the
 *                                 reference's sums (sq_ref, plain_max,
 *                                 plain_sq, ref_absmax, ref_atol, disagree,
 *                                 in that order), of its maxima alone (the
 *                                 four max fields), and the six in %a. To
 *                                 diff two builds of gpu_reference.cu. The
 *                                 maxima are exact; sq_ref and plain_sq are
 *                                 float64 atomicAdds of per-warp sums whose
 *                                 order across warps is not fixed, so they
 *                                 (and the sums hash) may differ in the last
 *                                 bits between two runs of one build
 *   gpu_check --reference-time B,H,S,D,causal,dtype[,H_kv,S_kv] [N]
 *                                 the device reference's wall time, not a
 *                                 test: N (default 7) times, the reference
 *                                 (kept in the buffers' slot) dropped and
 *                                 remade by ab_gpu_check (synchronised), then
 *                                 ab_gpu_check again with it cached; the
 *                                 median of the difference (the reference
 *                                 kernel, its atol pass and the float64
 *                                 buffer's cudaMalloc) is printed
 *   gpu_check --negative          every cuda_broken_* variant
 *                                 (tests/gpu/broken_cuda.cu) at every case of
 *                                 the suite: each must fail the check (and
 *                                 cuda_broken_none pass)
 *   gpu_check --list              the CUDA variants of this build, one a line
 *   gpu_check --small VARIANT... [S...]
 *                                 small shapes that still reach every code
 *                                 path (the sanitize suite): B=1, H=2, S in
 *                                 {17, 520} (or these S), every dtype, D and
 *                                 causal
 *   gpu_check --shape B,H,S,D,causal,dtype VARIANT...
 *                                 one shape, every row checked (the committed
 *                                 runs' shapes: tests/gpu/check_committed.sh)
 *   gpu_check --time B,H,S,D,causal,dtype[,H_kv,S_kv] VARIANT...
 *                                 a quick timing, not a test: per variant, 5
 *                                 warm-up runs then the median of 50
 *                                 hot-mode samples (ab_gpu_time,
 *                                 AB_TIME_HOT), TFLOP/s by ab_attention_flops
 */
#include "check.h"
#include "data.h"
#include "gpu.h"
#include "gpu_check.h"
#include "reference.h"
#include "registry.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int odd_lengths[] = {1, 17, 97, 113, 200, 1023, 1025, 2049};
/* 1: run_suite adds the H_kv / S_kv cases (the default suite, no S given) */
static int kv_cases_on;

/* One case: inputs of shape s from `seed`, uploaded once; every variant
 * of a run shares them (and the device reference cached in b). */
typedef struct tcase {
    ab_shape s;
    unsigned long seed;
    float *q, *k, *v, *o;
    ab_gpu_bufs *b;
} tcase;

static void case_free(tcase *c)
{
    ab_gpu_bufs_destroy(c->b);
    free(c->q), free(c->k), free(c->v), free(c->o);
    memset(c, 0, sizeof *c);
}

static int case_make(tcase *c, const ab_shape *s, unsigned long seed)
{
    char err[512];
    const size_t numel = ab_shape_numel(s), kv = ab_shape_kv_numel(s);
    memset(c, 0, sizeof *c);
    c->s = *s;
    c->seed = seed;
    c->q = malloc(numel * 4), c->k = malloc(kv * 4), c->v = malloc(kv * 4);
    c->o = malloc(numel * 4);
    if (!c->q || !c->k || !c->v || !c->o || ab_inputs_fill(s, seed, c->q, c->k, c->v)) {
        fprintf(stderr, "out of host memory\n");
        case_free(c);
        return -1;
    }
    if (ab_gpu_bufs_create(s, c->q, c->k, c->v, &c->b, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        case_free(c);
        return -1;
    }
    return 0;
}

/* Runs v twice on case c (one setup) and checks the second launch on the
 * device: the output is poisoned between the launches, so state a kernel
 * keeps from one launch to the next (cuda_wgmma_persistent's causal tile
 * counters, a workspace) must be left right for the next one. Returns 0
 * when it passes, 1 when it fails, 2 on a setup/launch/CUDA error
 * (printed), 3 when setup says this GPU cannot run the shape
 * (AB_SETUP_UNSUPPORTED: shared memory, architecture; counted in
 * device_skips). *r is filled when the check ran. */
static int device_skips;
static int run_on(const ab_variant *v, tcase *c, ab_check *r, int quiet)
{
    char err[512];
    size_t ws = 0;
    void *ctx = NULL;
    int rc = 2;
    const ab_shape *s = &c->s;
    memset(r, 0, sizeof *r);
    int setup_rc = v->setup(s, &ctx, &ws, err, sizeof err);
    if (setup_rc == AB_SETUP_UNSUPPORTED) {
        printf("%-24s %s D=%-3d skipped on this GPU: %s\n", v->name, ab_dtype_name(s->dtype),
               s->D, err);
        device_skips++;
        return 3;
    }
    if (setup_rc) {
        fprintf(stderr, "%s: %s\n", v->name, err);
        return 2;
    }
    if (ab_gpu_run_once(v, ctx, c->b, err, sizeof err) || ab_gpu_poison(c->b, err, sizeof err) ||
        ab_gpu_run_once(v, ctx, c->b, err, sizeof err) ||
        ab_check_measurement(s, c->b, c->q, c->k, c->v, c->o, c->seed + 7, r, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", v->name, err);
        goto cleanup;
    }
    if (!quiet)
        printf("%-24s %s B=%d H=%d H_kv=%d S=%-5d S_kv=%-5d D=%-3d causal=%d max_err=%.3e "
               "tol=%.3e rel_l2=%.2e l2_tol=%.2e rows=%ld/%ld nonfinite=%ld %s%s%s\n",
               v->name, ab_dtype_name(s->dtype), s->B, s->H, ab_shape_hkv(s), s->S,
               ab_shape_skv(s), s->D, s->causal,
               r->max_abs_err, r->tolerance, r->rel_l2_err, r->l2_tolerance, r->rows_checked,
               r->rows_total, r->nonfinite, r->pass ? "ok" : "FAIL", r->pass ? "" : ": ",
               r->why);
    rc = r->pass ? 0 : 1;
cleanup:
    if (v->teardown)
        v->teardown(ctx);
    return rc;
}

/* A pass needs every row: the device check, not a host sample. */
static int full_rows(const ab_check *c)
{
    return c->rows_checked == c->rows_total && c->rows_total > 0;
}

static int positive_case(const ab_variant *v, tcase *c)
{
    ab_check r;
    int rc = run_on(v, c, &r, 0);
    if (rc == 3)
        return 0; /* not this GPU's: printed and counted */
    if (rc == 0 && !full_rows(&r)) {
        printf("  ^ not every row was checked on the device\n");
        return 1;
    }
    return rc != 0;
}

/* --negative: a broken variant must fail; cuda_broken_none must pass. */
static int negative_case(const ab_variant *v, tcase *c)
{
    const ab_shape *s = &c->s;
    const int control = strcmp(v->name, "cuda_broken_none") == 0;
    if (strcmp(v->name, "cuda_broken_causal_offset") == 0 && (!s->causal || s->S == 1))
        return 0; /* a mask bug cannot show without the mask or past the diagonal */
    if (strcmp(v->name, "cuda_broken_column") == 0 && s->D < 2)
        return 0;
    if ((strcmp(v->name, "cuda_broken_softmax_scale") == 0 ||
         strcmp(v->name, "cuda_broken_vmean") == 0) && s->S == 1)
        return 0; /* one key: O = V whatever the weights */
    ab_check r;
    int rc = run_on(v, c, &r, 1);
    int bad = control ? rc != 0 : rc != 1; /* a crash is not a caught bug */
    printf("%-28s %s S=%-5d D=%-3d causal=%d max_err=%.3e tol=%.3e rel_l2=%.2e l2_tol=%.2e "
           "%s -> %s\n",
           v->name, ab_dtype_name(s->dtype), s->S, s->D, s->causal, r.max_abs_err, r.tolerance,
           r.rel_l2_err, r.l2_tolerance, r.pass ? "passed" : r.why,
           bad ? "WRONG" : control ? "ok" : "caught");
    return bad;
}

/* Every case of the suite (every dtype, D in {64, 128}, causal, each S)
 * that at least one of vs supports: inputs made once, each variant run and
 * checked on them by fn. Prints per-variant totals; 0 when none failed and
 * every variant had a case. */
typedef int (*case_fn)(const ab_variant *v, tcase *c);

/* One case of the suite: inputs of shape s from seed, made once when any
 * of vs supports s, each supporting variant run on them by fn; its count
 * in cases[] (and kv_cases[] when given), failures in fails[]. Returns 1
 * when the inputs could not be made, else 0. */
static int suite_case(const ab_variant **vs, int nv, const ab_shape *s, unsigned long seed,
                      case_fn fn, int *cases, int *fails, int *kv_cases)
{
    char why[256];
    int any = 0;
    for (int i = 0; i < nv; i++)
        any |= !ab_variant_supports(vs[i], s, why, sizeof why);
    if (!any)
        return 0;
    tcase c;
    if (case_make(&c, s, seed))
        return 1;
    for (int i = 0; i < nv && i < 64; i++)
        if (!ab_variant_supports(vs[i], s, why, sizeof why)) {
            cases[i]++;
            if (kv_cases)
                kv_cases[i]++;
            fails[i] += fn(vs[i], &c);
        }
    case_free(&c);
    return 0;
}
static int run_suite(const ab_variant **vs, int nv, const int *lengths, int nlen, int B, int H,
                     case_fn fn)
{
    int cases[64] = {0}, fails[64] = {0}, kv_cases[64] = {0}, bad = 0;
    unsigned long seed = 1000;
    const int dims[] = {64, 128};
    for (int t = 0; t < AB_NDTYPES; t++)
        for (int di = 0; di < 2; di++)
            for (int causal = 0; causal <= 1; causal++)
                for (int li = 0; li < nlen; li++) {
                    ab_shape s = {B, H, lengths[li], dims[di], causal, (ab_dtype)t, 0, 0};
                    bad |= suite_case(vs, nv, &s, ++seed, fn, cases, fails, NULL);
                }
    /* grouped-query attention and S_kv != S, for the variants
     * that claim them (AB_CAP_KV): GQA, MQA, a decode step, S < S_kv and
     * S > S_kv (rows that see no key when causal), odd lengths. The last,
     * S - S_kv = 571, leaves whole query tiles of up to 512 rows (the
     * first 571 rows) with no visible key when causal, then a tile whose
     * rows see 1..129 keys, so a kernel's "no key tile at all" path runs
     * (FlashAttention's convention: O = 0 there). */
    static const int kv_shapes[][4] = {/* H, H_kv, S, S_kv */
                                       {4, 2, 1, 1000},  {4, 1, 17, 300},   {8, 2, 200, 97},
                                       {4, 4, 113, 1025}, {4, 2, 1025, 2049}, {2, 1, 1, 1},
                                       {4, 2, 700, 129}};
    const int nkv_shapes = (int)(sizeof kv_shapes / sizeof kv_shapes[0]);
    if (kv_cases_on)
        for (int t = 0; t < AB_NDTYPES; t++)
            for (int di = 0; di < 2; di++)
                for (int causal = 0; causal <= 1; causal++)
                    for (int k = 0; k < nkv_shapes; k++) {
                        ab_shape s = {B,           kv_shapes[k][0], kv_shapes[k][2], dims[di],
                                      causal,      (ab_dtype)t,     kv_shapes[k][1],
                                      kv_shapes[k][3]};
                        ++seed;
                        if (ab_shape_kv_differs(&s))
                            bad |= suite_case(vs, nv, &s, seed, fn, cases, fails, kv_cases);
                    }
    for (int i = 0; i < nv && i < 64; i++) {
        printf("%s: %d cases (%d with H_kv < H or S_kv != S), %d failed\n", vs[i]->name,
               cases[i], kv_cases[i], fails[i]);
        bad |= fails[i] != 0 || cases[i] == 0;
    }
    if (device_skips)
        printf("%d cases skipped on this GPU (setup: AB_SETUP_UNSUPPORTED)\n", device_skips);
    return bad;
}

/* The --reference suite's shapes in its order (seed 77 + index): the
 * i-th of them into *s, 0; 1 past the last. */
static int reference_shape(int i, ab_shape *s)
{
    const int dims[] = {1, 64, 128, 200}, lengths[] = {1, 17, 113, 200};
    if (i < 0 || i >= 3 * AB_NDTYPES * 4 * 2 * 4)
        return 1;
    /* kvk 0: H_kv = H, S_kv = S; 1: MQA with S_kv = S + 31; 2: MQA with
     * S_kv = (S + 2) / 3 (causal rows that see no key) */
    const int li = i % 4, causal = i / 4 % 2, di = i / 8 % 4, t = i / 32 % AB_NDTYPES,
              kvk = i / (32 * AB_NDTYPES);
    ab_shape x = {2, 2, lengths[li], dims[di], causal, (ab_dtype)t, kvk ? 1 : 0,
                  kvk == 1 ? lengths[li] + 31 : kvk == 2 ? (lengths[li] + 2) / 3 : 0};
    *s = x;
    return 0;
}

/* --reference: device float64 reference vs the CPU oracle, every row. */
static int check_reference(void)
{
    int failures = 0, cases = 0;
    unsigned long seed = 77;
    ab_shape s;
    for (int ci = 0; !reference_shape(ci, &s); ci++) {
        const size_t numel = ab_shape_numel(&s), kvn = ab_shape_kv_numel(&s);
        float *q = malloc(numel * 4), *k = malloc(kvn * 4), *v = malloc(kvn * 4);
        double *dev = malloc(numel * 8),
               *row = malloc(sizeof(double) * (ab_shape_skv(&s) + 3 * s.D));
        ab_gpu_bufs *b = NULL;
        ab_check_sums ds;
        char err[512];
        cases++;
        if (!q || !k || !v || !dev || !row || ab_inputs_fill(&s, seed++, q, k, v) ||
            ab_gpu_bufs_create(&s, q, k, v, &b, err, sizeof err) ||
            ab_gpu_reference(b, dev, &ds, err, sizeof err)) {
            printf("reference case %d: error\n", cases);
            failures++;
        } else {
            double worst = 0, host_plain = 0;
            for (size_t bh = 0; bh < (size_t)s.B * s.H; bh++)
                for (int i = 0; i < s.S; i++) {
                    double *ref = row + ab_shape_skv(&s), *pl = ref + s.D,
                           *sh = pl + s.D;
                    ab_reference_row(&s, q, k, v, bh, i, ref, row);
                    ab_plain_row(&s, q, k, v, bh, i, pl, sh, row);
                    for (int d = 0; d < s.D; d++) {
                        double e = fabs(dev[(bh * s.S + i) * s.D + d] - ref[d]);
                        worst = e > worst || isnan(e) ? e : worst;
                        if (fabs(pl[d] - sh[d]) > host_plain)
                            host_plain = fabs(pl[d] - sh[d]);
                    }
                }
            /* float64 against float64: rounding of sums of at
             * most 200 terms of size <= 1 */
            const int ok = worst <= 1e-12 && ds.disagree <= 1e-12 &&
                           ds.plain_max <= 4 * host_plain + 1e-7 &&
                           host_plain <= 4 * ds.plain_max + 1e-7;
            failures += !ok;
            printf("reference %s H_kv=%d S=%-3d S_kv=%-3d D=%-3d causal=%d "
                   "device-vs-cpu %.2e, shadow-vs-ref %.2e, plain error device %.3e "
                   "host %.3e %s\n",
                   ab_dtype_name(s.dtype), ab_shape_hkv(&s), s.S, ab_shape_skv(&s),
                   s.D, s.causal, worst, ds.disagree,
                   ds.plain_max, host_plain, ok ? "ok" : "FAIL");
        }
        ab_gpu_bufs_destroy(b);
        free(q), free(k), free(v), free(dev), free(row);
    }
    printf("reference: %d cases, %d failed\n", cases, failures);
    return failures ? 1 : 0;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int parse_shape(const char *shape, ab_shape *s)
{
    char dt[16] = "";
    memset(s, 0, sizeof *s);
    /* B,H,S,D,causal,dtype[,H_kv,S_kv] */
    const int n = sscanf(shape, "%d,%d,%d,%d,%d,%15[a-z0-9],%d,%d", &s->B, &s->H, &s->S, &s->D,
                         &s->causal, dt, &s->H_kv, &s->S_kv);
    char err[200];
    if ((n != 6 && n != 8) || ab_dtype_parse(dt, &s->dtype) ||
        ab_shape_check(s, NULL, err, sizeof err)) {
        fprintf(stderr, "gpu_check: bad shape '%s' (want B,H,S,D,causal,dtype[,H_kv,S_kv])\n",
                shape);
        return -1;
    }
    return 0;
}

/* gpu_check --shape: every named variant that supports the shape, full check */
static int check_shape(const char *shape, char **names, int nnames)
{
    ab_shape s;
    tcase c;
    int fails = 0;
    if (parse_shape(shape, &s))
        return 2;
    if (case_make(&c, &s, 42))
        return 1;
    for (int i = 0; i < nnames; i++) {
        const ab_variant *v = ab_variant_find(names[i]);
        char why[256];
        ab_check r;
        if (!v || ab_variant_supports(v, &s, why, sizeof why))
            continue;
        int rc = run_on(v, &c, &r, 0);
        if (rc == 3)
            continue; /* not this GPU's: printed */
        fails += rc != 0 || !full_rows(&r);
    }
    case_free(&c);
    return fails ? 1 : 0;
}

/* gpu_check --time B,H,S,D,causal,dtype VARIANT...; 0, or 1 if any failed. */
static int time_variants(const char *shape, char **names, int nnames)
{
    enum { WARM = 5, SAMPLES = 50 };
    char err[512] = "out of host memory", dt[16];
    ab_shape s;
    int fails = 0;
    if (parse_shape(shape, &s))
        return 2;
    snprintf(dt, sizeof dt, "%s", ab_dtype_name(s.dtype));
    const size_t numel = ab_shape_numel(&s), kvn = ab_shape_kv_numel(&s);
    float *q = malloc(numel * sizeof *q), *k = malloc(kvn * sizeof *k);
    float *vv = malloc(kvn * sizeof *vv);
    ab_gpu_bufs *b = NULL;
    if (!q || !k || !vv || ab_inputs_fill(&s, 1, q, k, vv) ||
        ab_gpu_bufs_create(&s, q, k, vv, &b, err, sizeof err)) {
        fprintf(stderr, "gpu_check --time: %s\n", err);
        free(q), free(k), free(vv);
        return 1;
    }
    for (int i = 0; i < nnames; i++) {
        const ab_variant *v = ab_variant_find(names[i]);
        double ms[SAMPLES], warm[WARM];
        size_t ws = 0;
        void *ctx = NULL;
        if (!v || ab_variant_supports(v, &s, err, sizeof err)) {
            printf("time %-18s skipped: %s\n", names[i], v ? err : "unknown variant");
            continue;
        }
        if (v->setup(&s, &ctx, &ws, err, sizeof err)) {
            printf("time %-18s setup failed: %s\n", v->name, err);
            fails++;
            continue;
        }
        if (ab_gpu_time(v, ctx, b, AB_TIME_HOT, 1, WARM, warm, err, sizeof err) ||
            ab_gpu_time(v, ctx, b, AB_TIME_HOT, 1, SAMPLES, ms, err, sizeof err)) {
            printf("time %-18s failed: %s\n", v->name, err);
            fails++;
        } else {
            qsort(ms, SAMPLES, sizeof ms[0], cmp_double);
            const double med = 0.5 * (ms[SAMPLES / 2 - 1] + ms[SAMPLES / 2]);
            printf("time %-18s B=%d H=%d H_kv=%d S=%d S_kv=%d D=%d causal=%d %s median %.4f ms "
                   "(min %.4f, max %.4f) %.2f TFLOP/s %.0f GB/s ws=%.1f MiB\n",
                   v->name, s.B, s.H, ab_shape_hkv(&s), s.S, ab_shape_skv(&s), s.D, s.causal, dt,
                   med, ms[0], ms[SAMPLES - 1], ab_attention_flops(&s) / (med * 1e9),
                   ab_attention_bytes(&s) / (med * 1e6), ws / 1048576.0);
        }
        if (v->teardown)
            v->teardown(ctx);
    }
    ab_gpu_bufs_destroy(b);
    free(q), free(k), free(vv);
    return fails ? 1 : 0;
}

/* --reference-digest: the i-th shape of the digest list into *s with its
 * input seed, 0; 1 past the last. The --reference suite's shapes and
 * seeds first, then B=1 H=2 S in {2048, 4096}, then H_kv < H and
 * S_kv != S (causal rows with no key in the last). */
static int digest_shape(int i, ab_shape *s, unsigned long *seed)
{
    static const int kv[][4] = {/* H, H_kv, S, S_kv */
                                {4, 2, 2048, 2048}, {2, 1, 1500, 2600}, {2, 2, 2600, 1500}};
    const int nref = 3 * AB_NDTYPES * 4 * 2 * 4, nlong = AB_NDTYPES * 2 * 2 * 2;
    const int nkv = (int)(sizeof kv / sizeof kv[0]) * AB_NDTYPES * 2 * 2;
    *seed = 77 + (unsigned long)i;
    if (i < nref)
        return reference_shape(i, s);
    i -= nref;
    if (i < nlong) {
        memset(s, 0, sizeof *s);
        s->B = 1, s->H = 2, s->S = i % 2 ? 4096 : 2048, s->D = i / 2 % 2 ? 128 : 64;
        s->causal = i / 4 % 2, s->dtype = (ab_dtype)(i / 8);
        return 0;
    }
    i -= nlong;
    if (i < nkv) {
        const int *k = kv[i / (AB_NDTYPES * 4)];
        memset(s, 0, sizeof *s);
        s->B = 1, s->H = k[0], s->H_kv = k[1], s->S = k[2], s->S_kv = k[3];
        s->D = i % 2 ? 128 : 64, s->causal = i / 2 % 2, s->dtype = (ab_dtype)(i / 4 % AB_NDTYPES);
        return 0;
    }
    return 1;
}

/* gpu_check --reference-digest: one line a shape; 0, or 1 on an error. */
static int reference_digest(void)
{
    int fails = 0, cases = 0;
    ab_shape s;
    unsigned long seed;
    for (int ci = 0; !digest_shape(ci, &s, &seed); ci++) {
        const size_t numel = ab_shape_numel(&s), kvn = ab_shape_kv_numel(&s);
        float *q = malloc(numel * 4), *k = malloc(kvn * 4), *v = malloc(kvn * 4);
        double *dev = malloc(numel * 8);
        ab_gpu_bufs *b = NULL;
        ab_check_sums ds;
        char err[512] = "out of host memory";
        cases++;
        if (!q || !k || !v || !dev || ab_inputs_fill(&s, seed, q, k, v) ||
            ab_gpu_bufs_create(&s, q, k, v, &b, err, sizeof err) ||
            ab_gpu_reference(b, dev, &ds, err, sizeof err)) {
            printf("digest %s B=%d H=%d S=%d D=%d causal=%d: error: %s\n",
                   ab_dtype_name(s.dtype), s.B, s.H, s.S, s.D, s.causal, err);
            fails++;
        } else {
            const double sums[6] = {ds.sq_ref,     ds.plain_max, ds.plain_sq,
                                    ds.ref_absmax, ds.ref_atol,  ds.disagree};
            const double maxima[4] = {ds.plain_max, ds.ref_absmax, ds.ref_atol, ds.disagree};
            char ho[17], hs[17], hm[17];
            ab_hash_hex(dev, numel * sizeof *dev, ho);
            ab_hash_hex(sums, sizeof sums, hs);
            ab_hash_hex(maxima, sizeof maxima, hm);
            printf("digest %s B=%d H=%d H_kv=%d S=%d S_kv=%d D=%d causal=%d oref=%s sums=%s "
                   "maxima=%s sq_ref=%a plain_max=%a plain_sq=%a ref_absmax=%a ref_atol=%a "
                   "disagree=%a\n",
                   ab_dtype_name(s.dtype), s.B, s.H, ab_shape_hkv(&s), s.S, ab_shape_skv(&s),
                   s.D, s.causal, ho, hs, hm, ds.sq_ref, ds.plain_max, ds.plain_sq,
                   ds.ref_absmax, ds.ref_atol, ds.disagree);
        }
        ab_gpu_bufs_destroy(b);
        free(q), free(k), free(v), free(dev);
    }
    printf("digest: %d shapes, %d errors\n", cases, fails);
    return fails ? 1 : 0;
}

/* gpu_check --reference-time SHAPE [N]: 0, or 1 on an error. */
static int reference_time(const char *shape, int reps)
{
    char err[512] = "out of host memory";
    ab_shape s;
    if (parse_shape(shape, &s))
        return 2;
    if (reps < 1 || reps > 1000)
        reps = 7;
    const size_t numel = ab_shape_numel(&s), kvn = ab_shape_kv_numel(&s);
    float *q = malloc(numel * sizeof *q), *k = malloc(kvn * sizeof *k);
    float *vv = malloc(kvn * sizeof *vv);
    double *ms = malloc(reps * sizeof *ms), *full = malloc(reps * sizeof *full);
    ab_gpu_bufs *b = NULL;
    int rc = 1;
    if (!q || !k || !vv || !ms || !full || ab_inputs_fill(&s, 1, q, k, vv) ||
        ab_gpu_bufs_create(&s, q, k, vv, &b, err, sizeof err)) {
        fprintf(stderr, "gpu_check --reference-time: %s\n", err);
        goto done;
    }
    for (int r = 0; r < reps; r++) {
        ab_gpu_parts p;
        ab_check c;
        ab_gpu_bufs_parts(b, &p);
        ab_gpu_ref_free(*p.ref); /* drop the cached reference: remade below */
        *p.ref = NULL;
        const double t0 = ab_now_s();
        int e = ab_gpu_check(b, &c, err, sizeof err);
        const double t1 = ab_now_s();
        e = e ? e : ab_gpu_check(b, &c, err, sizeof err);
        const double t2 = ab_now_s();
        if (e) {
            fprintf(stderr, "gpu_check --reference-time: %s\n", err);
            goto done;
        }
        full[r] = (t1 - t0) * 1e3;
        ms[r] = ((t1 - t0) - (t2 - t1)) * 1e3;
    }
    qsort(ms, reps, sizeof ms[0], cmp_double);
    qsort(full, reps, sizeof full[0], cmp_double);
    printf("reference-time %s B=%d H=%d H_kv=%d S=%d S_kv=%d D=%d causal=%d: median %.3f ms "
           "(min %.3f, max %.3f, %d runs; with the compare pass %.3f ms)\n",
           ab_dtype_name(s.dtype), s.B, s.H, ab_shape_hkv(&s), s.S, ab_shape_skv(&s), s.D,
           s.causal, reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]), ms[0],
           ms[reps - 1], reps,
           reps % 2 ? full[reps / 2] : 0.5 * (full[reps / 2 - 1] + full[reps / 2]));
    rc = 0;
done:
    ab_gpu_bufs_destroy(b);
    free(q), free(k), free(vv), free(ms), free(full);
    return rc;
}

int main(int argc, char **argv)
{
    char err[256];
    ab_gpu_info g;
    if (argc < 2) {
        fprintf(stderr, "usage: gpu_check VARIANT [S...] | --reference | --reference-digest | "
                        "--reference-time SHAPE [N] | --negative | --list | --small VARIANT | "
                        "--shape SHAPE VARIANT... | --time SHAPE VARIANT...\n");
        return 2;
    }
    if (strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < ab_variant_count(); i++) {
            const ab_variant *v = ab_variant_at(i);
            if (v->device == AB_DEV_CUDA && !v->unavailable)
                printf("%s\n", v->name);
        }
        return 0;
    }
    if (ab_gpu_query(&g, err, sizeof err)) {
        printf("skipped: no CUDA device (%s)\n", err);
        return 77;
    }
    printf("on %s (sm_%d%d)\n", g.name, g.cc_major, g.cc_minor);
    if (strcmp(argv[1], "--time") == 0 || strcmp(argv[1], "--shape") == 0) {
        if (argc < 4) {
            fprintf(stderr, "usage: gpu_check %s B,H,S,D,causal,dtype VARIANT...\n", argv[1]);
            return 2;
        }
        return argv[1][2] == 't' ? time_variants(argv[2], argv + 3, argc - 3)
                                 : check_shape(argv[2], argv + 3, argc - 3);
    }
    if (strcmp(argv[1], "--reference") == 0)
        return check_reference();
    if (strcmp(argv[1], "--reference-digest") == 0)
        return reference_digest();
    if (strcmp(argv[1], "--reference-time") == 0) {
        if (argc < 3) {
            fprintf(stderr, "usage: gpu_check --reference-time B,H,S,D,causal,dtype[,H_kv,S_kv] "
                            "[N]\n");
            return 2;
        }
        return reference_time(argv[2], argc > 3 ? atoi(argv[3]) : 7);
    }
    const int nodd = (int)(sizeof odd_lengths / sizeof odd_lengths[0]);
    const ab_variant *vs[64];
    int nv = 0;
    if (strcmp(argv[1], "--negative") == 0) {
        size_t n = 0;
        const ab_variant *t = ab_test_variants ? ab_test_variants(&n) : NULL;
        for (size_t i = 0; i < n && nv < 64; i++)
            vs[nv++] = &t[i];
        if (nv == 0) {
            fprintf(stderr, "gpu_check: no broken variants in this build\n");
            return 1;
        }
        return run_suite(vs, nv, odd_lengths, nodd, 2, 3, negative_case);
    }
    const int small = strcmp(argv[1], "--small") == 0;
    int lengths[16], nlen = 0;
    for (int i = small ? 2 : 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] >= '0' && a[0] <= '9') {
            if (nlen < 16)
                lengths[nlen++] = atoi(a);
            continue;
        }
        const ab_variant *v = ab_variant_find(a);
        if (!v) {
            fprintf(stderr, "gpu_check: unknown variant '%s'\n", a);
            return 2;
        }
        if (v->unavailable) {
            fprintf(stderr, "gpu_check: %s: %s\n", v->name, v->unavailable);
            return 1;
        }
        if (nv < 64)
            vs[nv++] = v;
    }
    if (nv == 0) {
        fprintf(stderr, "gpu_check: no variant named\n");
        return 2;
    }
    if (small) {
        static const int small_lengths[] = {17, 520};
        if (nlen > 0) /* racecheck's shorter lengths (tests/gpu/sanitize.sh) */
            return run_suite(vs, nv, lengths, nlen, 1, 2, positive_case);
        return run_suite(vs, nv, small_lengths, 2, 1, 2, positive_case);
    }
    if (nlen == 0) {
        for (int i = 0; i < nodd; i++)
            lengths[nlen++] = odd_lengths[i];
        kv_cases_on = 1; /* the whole suite: with the H_kv / S_kv cases */
    }
    return run_suite(vs, nv, lengths, nlen, 2, 3, positive_case);
}
