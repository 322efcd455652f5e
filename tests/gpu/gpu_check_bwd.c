/*
 * gpu_check_bwd.c: the GPU suite of the backward pass. Exit 0
 * when everything passes, 1 on a failure, 77 (meson's "skipped") when
 * there is no CUDA device.
 *
 * Usage:
 *   gpu_check_bwd --reference     the device's float64 gradients
 *                                 (gpu_reference_bwd.cu) against the CPU
 *                                 oracle ab_reference_bwd (itself checked by
 *                                 finite differences, tests/check), every
 *                                 element: fp16 and bf16, D in {64, 128, 200},
 *                                 causal and not, S in {1, 17, 113}, a GQA
 *                                 case and an S_kv != S case; and the forward
 *                                 state (logsumexp) against
 *                                 ab_reference_fwd_lse
 *   gpu_check_bwd VARIANT...      each variant's backward (ab_variant_bwd) on
 *                                 every supported dtype, D in {64, 128},
 *                                 causal and not, S in {1, 17, 97, 113, 200,
 *                                 1023, 1025} (FlashAttention's odd lengths),
 *                                 plus GQA, S < S_kv and S > S_kv (causal:
 *                                 rows that see no key, whose gradients
 *                                 are 0) when it declares AB_CAP_BWD_KV:
 *                                 launched, gradients poisoned,
 *                                 launched again, checked on the device
 *                                 (kernels/gpu_check.h ab_gpu_check_bwd);
 *                                 then once more as fwd+bwd
 *   gpu_check_bwd --small VARIANT...
 *                                 the same at B = 1, S in {17, 200} and the
 *                                 GQA / S_kv != S cases only, bwd pass: small
 *                                 enough for compute-sanitizer (racecheck
 *                                 and synccheck) yet still several query
 *                                 tiles per block and partial tiles
 *   gpu_check_bwd --time B,H,S,D,causal,dtype,pass[,H_kv,S_kv] VARIANT...
 *                                 a quick timing: 5 warm-ups, the median of
 *                                 30 hot-mode samples, TFLOP/s of the pass
 */
#include "check.h"
#include "data.h"
#include "gpu.h"
#include "gpu_check.h"
#include "reference.h"
#include "registry.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bcase {
    ab_shape s;
    float *q, *k, *v, *dout;
    ab_gpu_bufs *b;
} bcase;

static void bcase_free(bcase *c)
{
    ab_gpu_bufs_destroy(c->b);
    free(c->q), free(c->k), free(c->v), free(c->dout);
    memset(c, 0, sizeof *c);
}

static int bcase_make(bcase *c, const ab_shape *s, unsigned long seed)
{
    char err[512];
    const size_t nq = ab_shape_numel(s), nkv = ab_shape_kv_numel(s);
    memset(c, 0, sizeof *c);
    c->s = *s;
    c->q = malloc(nq * 4), c->k = malloc(nkv * 4), c->v = malloc(nkv * 4);
    c->dout = malloc(nq * 4);
    if (!c->q || !c->k || !c->v || !c->dout || ab_inputs_fill(s, seed, c->q, c->k, c->v) ||
        ab_dout_fill(s, seed, c->dout)) {
        fprintf(stderr, "out of host memory\n");
        bcase_free(c);
        return -1;
    }
    if (ab_gpu_bufs_create(s, c->q, c->k, c->v, &c->b, err, sizeof err) ||
        ab_gpu_bwd_prepare(c->b, c->dout, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        bcase_free(c);
        return -1;
    }
    return 0;
}

static void shape_line(const ab_shape *s, char *buf, size_t n)
{
    snprintf(buf, n, "%s B=%d H=%d H_kv=%d S=%-5d S_kv=%-5d D=%-3d causal=%d %s",
             ab_dtype_name(s->dtype), s->B, s->H, ab_shape_hkv(s), s->S, ab_shape_skv(s), s->D,
             s->causal, ab_pass_name(s->pass));
}

/* --reference */
static int check_reference(void)
{
    static const int lens[][2] = {{1, 1}, {17, 17}, {113, 113}, {17, 40}, {40, 17}};
    int cases = 0, failures = 0;
    for (int t = 0; t < 2; t++)
        for (int di = 0; di < 3; di++)
            for (int causal = 0; causal < 2; causal++)
                for (int li = 0; li < 5; li++)
                    for (int hk = 0; hk < 2; hk++) {
                        /* D = 200: the reference's 16-row blocks (above 128) */
                        const int D = di == 2 ? 200 : di ? 128 : 64;
                        ab_shape s = {2, 4, lens[li][0], D, causal, t ? AB_BF16 : AB_FP16,
                                      hk ? 2 : 0, lens[li][1], AB_BWD};
                        if (s.S_kv == s.S)
                            s.S_kv = 0;
                        bcase c;
                        char err[512], sh[200];
                        if (bcase_make(&c, &s, 1000u + (unsigned)cases))
                            return 1;
                        const size_t nq = ab_shape_numel(&s), nkv = ab_shape_kv_numel(&s);
                        double *dev = malloc(sizeof(double) * (nq + 2 * nkv));
                        double *cpu = malloc(sizeof(double) * (nq + 2 * nkv));
                        float *o = malloc(4 * nq), *lse = malloc(4 * (size_t)s.B * s.H * s.S);
                        int bad = !dev || !cpu || !o || !lse;
                        if (!bad && ab_gpu_reference_bwd(c.b, dev, dev + nq, dev + nq + nkv, err,
                                                         sizeof err)) {
                            fprintf(stderr, "%s\n", err);
                            bad = 1;
                        }
                        double worst = 0, m = 0;
                        if (!bad) {
                            ab_reference_bwd(&s, c.q, c.k, c.v, c.dout, cpu, cpu + nq,
                                             cpu + nq + nkv);
                            for (size_t i = 0; i < nq + 2 * nkv; i++) {
                                const double e = fabs(dev[i] - cpu[i]);
                                worst = e > worst || isnan(e) ? e : worst;
                                m = fabs(cpu[i]) > m ? fabs(cpu[i]) : m;
                            }
                            bad = !(worst <= 1e-9 * (1.0 + m));
                        }
                        shape_line(&s, sh, sizeof sh);
                        printf("reference %s max|dev-cpu|=%.2e max|g|=%.2e %s\n", sh, worst, m,
                               bad ? "FAIL" : "ok");
                        failures += bad;
                        cases++;
                        free(dev), free(cpu), free(o), free(lse);
                        bcase_free(&c);
                    }
    printf("bwd reference: %d cases, %d failed\n", cases, failures);
    return failures != 0;
}

/* Cases skipped because setup said this GPU cannot run them. */
static int device_skips;

/* v's backward on c: run, poison, run, check. 0 pass, 1 fail, 2 error, 3
 * skipped on this GPU (setup returned AB_SETUP_UNSUPPORTED; printed and
 * counted in device_skips). */
static int run_on(const ab_variant *v, bcase *c)
{
    char err[512], sh[200];
    size_t ws = 0;
    void *ctx = NULL;
    ab_grad_check g;
    int setup_rc = v->setup(&c->s, &ctx, &ws, err, sizeof err);
    if (setup_rc == AB_SETUP_UNSUPPORTED) {
        printf("%-18s skipped on this GPU: %s\n", v->name, err);
        device_skips++;
        return 3;
    }
    if (setup_rc) {
        fprintf(stderr, "%s: %s\n", v->name, err);
        return 2;
    }
    int rc = 2;
    if (ab_gpu_poison_grads(c->b, err, sizeof err) ||
        ab_gpu_run_once(v, ctx, c->b, err, sizeof err) ||
        ab_gpu_poison_grads(c->b, err, sizeof err) ||
        ab_gpu_run_once(v, ctx, c->b, err, sizeof err) ||
        ab_gpu_check_bwd(c->b, &g, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", v->name, err);
        goto cleanup;
    }
    shape_line(&c->s, sh, sizeof sh);
    printf("%-18s %s", v->name, sh);
    for (int i = 0; i < 3; i++)
        printf(" %s %.2e/%.2e", ab_grad_name(i), g.g[i].max_abs_err, g.g[i].tolerance);
    printf(" %s%s%s\n", g.pass ? "ok" : "FAIL", g.pass ? "" : ": ", g.why);
    rc = g.pass ? 0 : 1;
cleanup:
    if (v->teardown)
        v->teardown(ctx);
    return rc;
}

/* Set by --small: the shapes of suite() a sanitizer can afford. */
static int small_only;

static int suite(const ab_variant *v)
{
    static const int S_list[] = {1, 17, 97, 113, 200, 1023, 1025};
    int failures = 0, cases = 0;
    char why[256];
    for (int t = 0; t < AB_NDTYPES; t++)
        for (int di = 0; di < 2; di++)
            for (int causal = 0; causal < 2; causal++)
                for (int si = 0; si < 10; si++) {
                    if (small_only && si != 1 && si != 4 && si < 7)
                        continue;
                    ab_shape s = {small_only ? 1 : 2, 4, 0, di ? 128 : 64, causal, (ab_dtype)t,
                                  0, 0, AB_BWD};
                    if (si < 7) {
                        s.S = S_list[si];
                    } else if (si == 7) { /* GQA */
                        s.S = 200, s.H_kv = 2;
                    } else if (si == 8) { /* chunked prefill: S < S_kv */
                        s.S = 113, s.S_kv = 300, s.H_kv = 1;
                    } else { /* S > S_kv: causal rows 0..186 see no key */
                        s.S = 300, s.S_kv = 113, s.H_kv = 2;
                    }
                    if (ab_variant_supports(v, &s, why, sizeof why))
                        continue;
                    for (int p = 0; p < 2; p++) { /* bwd, then fwd+bwd on odd S */
                        if (p == 1 && (si % 2 == 0 || small_only))
                            continue;
                        s.pass = p ? AB_FWDBWD : AB_BWD;
                        bcase c;
                        if (bcase_make(&c, &s, 77u + (unsigned)cases))
                            return 1;
                        const int rc = run_on(v, &c);
                        failures += rc != 0 && rc != 3;
                        cases += rc != 3;
                        bcase_free(&c);
                    }
                }
    printf("%s backward: %d cases, %d failed, %d skipped on this GPU\n", v->name, cases,
           failures, device_skips);
    return failures != 0 || cases == 0;
}

static int timing(const char *spec, int argc, char **argv)
{
    ab_shape s;
    char dt[16] = "", ps[16] = "";
    memset(&s, 0, sizeof s);
    const int got = sscanf(spec, "%d,%d,%d,%d,%d,%15[^,],%15[^,],%d,%d", &s.B, &s.H, &s.S, &s.D,
                           &s.causal, dt, ps, &s.H_kv, &s.S_kv);
    if ((got != 7 && got != 9) || ab_dtype_parse(dt, &s.dtype) || ab_pass_parse(ps, &s.pass) ||
        ab_shape_check(&s, NULL, NULL, 0)) {
        fprintf(stderr, "gpu_check_bwd --time: want B,H,S,D,causal,dtype,pass[,H_kv,S_kv]\n");
        return 1;
    }
    bcase c;
    if (bcase_make(&c, &s, 5))
        return 1;
    int bad = 0;
    for (int i = 0; i < argc; i++) {
        const ab_variant *v = ab_variant_find(argv[i]);
        char err[512];
        size_t ws = 0;
        void *ctx = NULL;
        double ms[30];
        if (!v || v->setup(&s, &ctx, &ws, err, sizeof err)) {
            fprintf(stderr, "%s: %s\n", argv[i], v ? err : "unknown variant");
            bad = 1;
            continue;
        }
        if (ab_gpu_time(v, ctx, c.b, AB_TIME_HOT, 1, 5, ms, err, sizeof err) ||
            ab_gpu_time(v, ctx, c.b, AB_TIME_HOT, 1, 30, ms, err, sizeof err)) {
            fprintf(stderr, "%s: %s\n", v->name, err);
            bad = 1;
        } else {
            for (int a = 1; a < 30; a++) /* insertion sort of 30 values */
                for (int b = a; b > 0 && ms[b] < ms[b - 1]; b--) {
                    double x = ms[b];
                    ms[b] = ms[b - 1];
                    ms[b - 1] = x;
                }
            const double med = (ms[14] + ms[15]) / 2;
            printf("%-18s %s median %.4f ms %.1f TFLOP/s\n", v->name, spec, med,
                   ab_attention_flops(&s) / (med * 1e9));
        }
        if (v->teardown)
            v->teardown(ctx);
    }
    bcase_free(&c);
    return bad;
}

int main(int argc, char **argv)
{
    ab_gpu_info gi;
    char err[512];
    if (argc < 2) {
        fprintf(stderr, "usage: gpu_check_bwd --reference | [--small] VARIANT... | --time SPEC VARIANT...\n");
        return 2;
    }
    if (ab_gpu_query(&gi, err, sizeof err)) {
        printf("skipped: %s\n", err);
        return 77;
    }
    if (strcmp(argv[1], "--reference") == 0)
        return check_reference();
    if (strcmp(argv[1], "--time") == 0 && argc >= 4)
        return timing(argv[2], argc - 3, argv + 3);
    int bad = 0, first = 1;
    if (strcmp(argv[1], "--small") == 0)
        small_only = 1, first = 2;
    for (int i = first; i < argc; i++) {
        const ab_variant *v = ab_variant_find(argv[i]);
        if (!v || !ab_variant_bwd(v)) {
            fprintf(stderr, "%s: no such variant with a backward pass\n", argv[i]);
            bad = 1;
            continue;
        }
        bad |= suite(v);
    }
    return bad;
}
