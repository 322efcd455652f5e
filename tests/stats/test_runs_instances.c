/*
 * test_runs_instances.c: the comparison of two runs where either measured
 * the variant as several instances (src/analysis/pair.c,
 * ab_pair_analyse_runs_instances; instances.c, ab_instances_compare_runs:
 * the instance the unit across runs), and the grouping of a run's
 * instances V#k under V (variant_groups.c), against values computed by
 * hand (the arithmetic in Python's math module, no statistics library):
 *
 * Every instance has 2 rounds of 2 samples, a slow first one (9 ms, left
 * out by the settled median) and the instance's value v, so each round's
 * median is v and the instance's level is log v.
 *
 * 1. Candidate run, 4 instances 1.10 1.12 1.09 1.11; baseline run, 4
 *    instances 1.00 1.02 0.99 1.01. Welch's statistic of the log levels:
 *    mean(log b) - mean(log a) = -0.0948684885951943, se sqrt(var_a/4 +
 *    var_b/4) = 0.0086826389286066, t = -10.9262275415637 on Hsu's df
 *    min(4, 4) - 1 = 3; p = 2 (1 - F3(|t|)) with Student's t CDF for 3 df
 *    in closed form, F3(t) = 1/2 + (1/pi) (u / (1 + u^2) + atan u),
 *    u = t / sqrt 3 (Abramowitz & Stegun 26.7.3): 0.00164102977216052;
 *    speedup exp(diff) 0.909492535244596 in exp(diff -/+ 3.182446305284263
 *    se) (t_{3,0.975}, Student's table) = [0.884705444212075,
 *    0.934974094572609]. Called slower.
 * 2. Candidate run one instance (1.05, a run without instances), baseline
 *    the 4 of case 1: t = (mean(log b) - log 1.05) / (s_b sqrt(1 + 1/4)):
 *    diff -0.0438645085954705, se 0.0143630610037504, t -3.05398052574008,
 *    3 df: p 0.0552543573141693, speedup 0.957083625293054 in
 *    [0.914320439215082, 1.00184686518707]. Not called. Reversed (the
 *    4 instances the candidate): speedup 1.04484077835289, t +3.0539805.
 * 3. One instance each: the rounds' comparison of two runs
 *    (ab_pair_analyse_runs), by_instance 0.
 * 4. Grouping: stored names cuda_x#2, cuda_x#1, cuda_y, cuda_x#10 at one
 *    configuration give cuda_x (instances #1, #2, #10 in that order) and
 *    cuda_y (one, not instances); a name with '#' and a non-digit is not an
 *    instance.
 */
#include "abstats.h"
#include "check.h"
#include "pair.h"
#include "variant_groups.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* instance j: 2 rounds of (9.0, v[j]) */
static void instances_of(const double *v, size_t k, double x[][4], int r[][4],
                         ab_instance_sample *s)
{
    for (size_t j = 0; j < k; j++) {
        double row[4] = {9.0, v[j], 9.0, v[j]};
        int rr[4] = {0, 0, 1, 1};
        memcpy(x[j], row, sizeof row);
        memcpy(r[j], rr, sizeof rr);
        s[j] = (ab_instance_sample){x[j], r[j], 4};
    }
}

int main(void)
{
    const double va[] = {1.10, 1.12, 1.09, 1.11}, vb[] = {1.00, 1.02, 0.99, 1.01}, v1[] = {1.05};
    double xa[4][4], xb[4][4], x1[1][4];
    int ra[4][4], rb[4][4], r1[1][4];
    ab_instance_sample sa[4], sb[4], s1[1];
    instances_of(va, 4, xa, ra, sa);
    instances_of(vb, 4, xb, rb, sb);
    instances_of(v1, 1, x1, r1, s1);
    ab_compare_opts co;
    ab_compare_opts_default(&co);
    co.boot.resamples = 200; /* the i.i.d. statistics' bootstrap, unused here */

    /* 1. four instances each */
    ab_pair_analysis an;
    CHECK_RC(ab_pair_analyse_runs_instances(sa, 4, sb, 4, &co, &an), AB_STATS_OK);
    CHECK(an.ok && an.by_instance && an.two_runs && !an.paired && an.ir.one_side == 0,
          "case 1: by_instance %d two_runs %d one_side %d", an.by_instance, an.two_runs,
          an.ir.one_side);
    CHECK_CLOSE("case 1 diff", an.ir.w.diff, -0.0948684885951943, 1e-12, 0);
    CHECK_CLOSE("case 1 se", an.ir.w.se, 0.0086826389286066, 1e-12, 0);
    CHECK_CLOSE("case 1 t", an.ir.w.t, -10.9262275415637, 1e-12, 0);
    CHECK_CLOSE("case 1 df", an.ir.w.df, 3, 0, 0);
    CHECK_CLOSE("case 1 p", an.p, 0.00164102977216052, 1e-9, 0);
    CHECK(an.p_method == AB_P_WELCH_T, "case 1 p method %d", (int)an.p_method);
    CHECK_CLOSE("case 1 speedup", an.speedup, 0.909492535244596, 1e-12, 0);
    CHECK_CLOSE("case 1 lo", an.lo, 0.884705444212075, 1e-9, 0);
    CHECK_CLOSE("case 1 hi", an.hi, 0.934974094572609, 1e-9, 0);
    CHECK(!an.too_few, "case 1: too_few");
    ab_pair_analysis *fam[1] = {&an};
    CHECK_RC(ab_pair_decide_family(fam, 1, NULL, &co), AB_STATS_OK);
    CHECK(an.verdict == AB_SLOWER, "case 1 verdict %d, want slower", (int)an.verdict);
    CHECK(!an.too_few_family, "case 1: the instance test has no floor");

    /* 2. one instance against four */
    CHECK_RC(ab_pair_analyse_runs_instances(s1, 1, sb, 4, &co, &an), AB_STATS_OK);
    CHECK(an.by_instance && an.ir.one_side == 1, "case 2: one_side %d", an.ir.one_side);
    CHECK_CLOSE("case 2 diff", an.ir.w.diff, -0.0438645085954705, 1e-12, 0);
    CHECK_CLOSE("case 2 se", an.ir.w.se, 0.0143630610037504, 1e-12, 0);
    CHECK_CLOSE("case 2 t", an.ir.w.t, -3.05398052574008, 1e-12, 0);
    CHECK_CLOSE("case 2 df", an.ir.w.df, 3, 0, 0);
    CHECK_CLOSE("case 2 p", an.p, 0.0552543573141693, 1e-9, 0);
    CHECK(an.p_method == AB_P_ONE_INSTANCE_T, "case 2 p method %d", (int)an.p_method);
    CHECK_CLOSE("case 2 speedup", an.speedup, 0.957083625293054, 1e-12, 0);
    CHECK_CLOSE("case 2 lo", an.lo, 0.914320439215082, 1e-9, 0);
    CHECK_CLOSE("case 2 hi", an.hi, 1.00184686518707, 1e-9, 0);
    CHECK_RC(ab_pair_decide_family(fam, 1, NULL, &co), AB_STATS_OK);
    CHECK(an.verdict == AB_NO_DIFFERENCE, "case 2 verdict %d", (int)an.verdict);
    CHECK_RC(ab_pair_analyse_runs_instances(sb, 4, s1, 1, &co, &an), AB_STATS_OK);
    CHECK(an.ir.one_side == 2, "case 2 reversed: one_side %d", an.ir.one_side);
    CHECK_CLOSE("case 2 reversed speedup", an.speedup, 1.04484077835289, 1e-12, 0);
    CHECK_CLOSE("case 2 reversed t", an.ir.w.t, 3.05398052574008, 1e-12, 0);

    /* 3. one instance each: the rounds of two runs */
    ab_pair_analysis ref;
    CHECK_RC(ab_pair_analyse_runs_instances(s1, 1, sb, 1, &co, &an), AB_STATS_OK);
    CHECK_RC(ab_pair_analyse_runs(x1[0], r1[0], 4, 2, xb[0], rb[0], 4, 2, &co, &ref),
             AB_STATS_OK);
    CHECK(!an.by_instance && an.two_runs == ref.two_runs, "case 3: by_instance %d",
          an.by_instance);
    CHECK_CLOSE("case 3 speedup", an.speedup, ref.speedup, 0, 0);
    CHECK_CLOSE("case 3 p", an.p, ref.p, 0, 0);

    /* 4. grouping */
    ab_rmeas m[5];
    memset(m, 0, sizeof m);
    const char *names[5] = {"cuda_x#2", "cuda_x#1", "cuda_y", "cuda_x#10", "cuda_z#a"};
    for (int i = 0; i < 5; i++) {
        snprintf(m[i].variant, sizeof m[i].variant, "%s", names[i]);
        m[i].B = 1, m[i].H = 2, m[i].S = 16, m[i].D = 8, m[i].H_kv = 2, m[i].S_kv = 16;
        snprintf(m[i].dtype, sizeof m[i].dtype, "fp32");
    }
    ab_variant_group *g = NULL;
    size_t ng = 0;
    CHECK_RC(ab_variant_groups(m, 5, &g, &ng), 0);
    CHECK(ng == 3, "groups %zu, want 3", ng);
    if (ng == 3) {
        CHECK(strcmp(g[0].variant, "cuda_x") == 0 && g[0].k == 3 && g[0].instances,
              "group 0: %s k %zu instances %d", g[0].variant, g[0].k, g[0].instances);
        CHECK(g[0].k == 3 && g[0].m[0] == &m[1] && g[0].m[1] == &m[0] && g[0].m[2] == &m[3],
              "group 0 not in instance order");
        CHECK(strcmp(g[1].variant, "cuda_y") == 0 && g[1].k == 1 && !g[1].instances,
              "group 1: %s", g[1].variant);
        CHECK(strcmp(g[2].variant, "cuda_z#a") == 0 && !g[2].instances, "group 2: %s",
              g[2].variant);
    }
    ab_variant_groups_free(g, ng);
    CHECK(ab_variant_name_len("a#1") == 1 && ab_variant_name_len("a#") == 2 &&
              ab_variant_name_len("#3") == 2 && ab_variant_name_len("a#1x") == 4,
          "name lengths");
    return check_report("test_runs_instances");
}
