/*
 * test_survivors.c: guards for mutants that survived the whole suite before
 * an earlier mutation run (tests/mutation/mutants.py):
 *   - FLOPs: ab_attention_flops against an independent count, 4 D flops
 *     (a multiply and an add in Q K^T and in P V) per (query, key) pair,
 *     pairs counted by brute-force enumeration, causal counted as
 *     FlashAttention's benchmarks do (half the pairs: flops / 2, "causal
 *     FLOPs are halved", flash-attention benchmarks/benchmark_flash_attention.py)
 *   - the fingerprint hash covers every section: changing any leaf of any
 *     top-level section (build, gpu, host, software, settings, ...) changes
 *     the hash; "gpu" is replaced by an object when it is null.
 */
#include "env.h"
#include "variant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
#define CHECK(c, ...)                                           \
    do {                                                        \
        if (!(c)) {                                             \
            fprintf(stderr, "FAIL line %d: ", __LINE__);        \
            fprintf(stderr, __VA_ARGS__);                       \
            fputc('\n', stderr);                                \
            failures++;                                         \
        }                                                       \
    } while (0)

static void flops(void)
{
    const int shapes[][4] = {{1, 1, 1, 8}, {2, 3, 17, 64}, {1, 2, 100, 128}, {3, 1, 33, 40}};
    for (int i = 0; i < 4; i++)
        for (int causal = 0; causal <= 1; causal++) {
            ab_shape s = {shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3], causal, AB_FP16, 0, 0};
            double pairs = 0;
            for (int b = 0; b < s.B; b++)
                for (int h = 0; h < s.H; h++)
                    for (int q = 0; q < s.S; q++)
                        for (int k = 0; k < s.S; k++)
                            pairs += 1;
            const double want = 4.0 * s.D * pairs / (causal ? 2.0 : 1.0);
            CHECK(ab_attention_flops(&s) == want, "flops B=%d H=%d S=%d D=%d causal=%d: %.0f, want %.0f",
                  s.B, s.H, s.S, s.D, causal, ab_attention_flops(&s), want);
        }
}

/* Changes one leaf of v (recursively the first leaf found), in place. */
static int change_leaf(json_t *v)
{
    if (json_is_object(v)) {
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x) {
            if (json_is_object(x) || json_is_array(x)) {
                if (change_leaf(x))
                    return 1;
            } else {
                json_object_set_new(v, k, json_string("changed-by-test"));
                return 1;
            }
        }
        json_object_set_new(v, "added_by_test", json_true());
        return 1;
    }
    if (json_is_array(v)) {
        json_array_append_new(v, json_string("changed-by-test"));
        return 1;
    }
    return 0;
}

static void fingerprint(void)
{
    json_t *fp = ab_env_fingerprint(0);
    char *t0, h0[17];
    CHECK(fp && ab_env_canonical(fp, &t0, h0) == 0, "fingerprint");
    const char *must[] = {"build", "gpu"};
    for (int i = 0; i < 2; i++)
        CHECK(json_object_get(fp, must[i]) != NULL, "no '%s' section", must[i]);
    const char *key;
    json_t *val;
    int sections = 0;
    json_object_foreach(fp, key, val) {
        json_t *c = json_deep_copy(fp);
        json_t *sec = json_object_get(c, key);
        if (json_is_object(sec) || json_is_array(sec))
            change_leaf(sec);
        else
            json_object_set_new(c, key, json_is_null(sec)
                                            ? json_pack("{s:s}", "name", "changed-by-test")
                                            : json_string("changed-by-test"));
        char *t1, h1[17];
        CHECK(ab_env_canonical(c, &t1, h1) == 0, "canonical");
        CHECK(strcmp(h0, h1) != 0, "section '%s' changed, hash unchanged (%s)", key, h0);
        free(t1);
        json_decref(c);
        sections++;
    }
    CHECK(sections >= 3, "only %d sections", sections);
    printf("fingerprint: %d sections, each changes the hash\n", sections);
    free(t0);
    json_decref(fp);
}

int main(void)
{
    flops();
    fingerprint();
    printf("test_survivors: %d failed\n", failures);
    return failures ? 1 : 0;
}
