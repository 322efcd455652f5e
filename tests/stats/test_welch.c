/*
 * test_welch.c: Welch's t-test (stats/welch.c; Satterthwaite's and Hsu's df)
 * and the two-stage analysis of instances (src/analysis/instances.c),
 * against independent values:
 *
 * 1. Student's (1908) sleep data, the example of R's ?t.test: group 1
 *    0.7 -1.6 -0.2 -1.2 -0.1 3.4 3.7 0.8 0.0 2.0, group 2 1.9 0.8 1.1 0.1
 *    -0.1 4.4 5.5 1.6 4.6 3.4. R 4.x, t.test(extra ~ group, data = sleep)
 *    prints t = -1.8608, df = 17.776, p-value = 0.07939, 95 percent
 *    confidence interval -3.3654832 0.2054832, means 0.75 and 2.33 (here
 *    y - x, so the signs turn).
 * 2. Instances whose log latency is an instance level plus a round effect
 *    shared by every instance (one sample a round, so a round's median is
 *    its sample): the analysis must return the instance levels' Welch test
 *    by hand (levels A 0, 0.02, -0.01; B 0.05, 0.03, 0.07: means 0.00333..
 *    and 0.05, variances 0.000233.. and 0.0004, se sqrt(0.000211..) =
 *    0.0145297, log speedup 0.0466667; speedup exp(0.0466667) = 1.0477727; Satterthwaite df
 *    0.000211..^2 / ((0.0000777..^2 + 0.000133..^2)/2) = 3.7409, scipy
 *    1.17.1 ttest_ind(B, A, equal_var=False): t 3.2118203, df 3.7409326),
 *    zero round noise, and an instance sd equal to the pooled sd of the
 *    levels, sqrt((2 x 0.000233.. + 2 x 0.0004)/4) = 0.0177951. The test
 *    uses Hsu's df min(3, 3) - 1 = 2: two-sided p by Student's t on 2 df in
 *    closed form 1 - t / sqrt(t^2 + 2) = 0.0847914 (scipy 1.17.1:
 *    2 t.sf(3.2118203, 2) = 0.08479137), interval exp(0.0466667 -/+
 *    4.3026527 x 0.0145297) = [0.9842755, 1.1153662] (t.ppf(0.975, 2) =
 *    4.3026527); minimum detectable effect from the components,
 *    se^2 = (0.0177951^2 + 0) (1/3 + 1/3) = 0.0145297^2, expm1((4.3026527 +
 *    t.ppf(0.8, 2) = 1.0606602) x 0.0145297) = 0.0810439.
 * 2b. Welch with Hsu's df on the sleep data: df 9, p 2 t.sf(1.8608, 9)
 *    = 0.0956893 (scipy 1.17.1, t = 1.8608135), interval 1.58 -/+
 *    t.ppf(0.975, 9) = 2.2621572 x se 0.8490910 = [-0.3407773, 3.5007773].
 * 3. Errors: one instance, one value.
 * 4. The between-run variance (src/analysis/between_runs.c): medians 1.0,
 *    1.1, 1.05 -> sd of their logs 0.0476596 (by hand); a comparison with
 *    speedup 1.05 judged by it: t = log(1.05) / (sqrt(2) x 0.0476596) =
 *    0.7238806 on 2 df, whose two-sided p has the closed form 1 - t /
 *    sqrt(t^2 + 2) = 0.5443599 (Student's t with 2 df), CI log(1.05) -/+
 *    4.302653 (t table, 2 df, 0.975) x se -> [0.7856748, 1.4032523]. The
 *    step-robust estimate of medians exp(0), exp(0.01), exp(0.03),
 *    exp(0.06): successive differences 0.01, 0.02, 0.03, median 0.02,
 *    x 1.4826 / sqrt(2) = 0.0209671.
 */
#include "abstats.h"
#include "check.h"
#include "instances.h"
#include "pair.h"
#include "welch.h"

#include <math.h>
#include <string.h>

int main(void)
{
    const double g1[] = {0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
    const double g2[] = {1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};
    ab_welch w;
    CHECK_RC(ab_welch_t(g1, 10, g2, 10, 0.95, &w), AB_STATS_OK);
    CHECK_CLOSE("sleep mean_x", w.mean_x, 0.75, 1e-12, 0);
    CHECK_CLOSE("sleep mean_y", w.mean_y, 2.33, 1e-12, 0);
    CHECK_CLOSE("sleep t", w.t, 1.8608, 0, 5e-5);
    CHECK_CLOSE("sleep df", w.df, 17.776, 0, 5e-4);
    CHECK_CLOSE("sleep p", w.p, 0.07939, 0, 5e-6);
    CHECK_CLOSE("sleep lo", w.lo, -0.2054832, 0, 5e-7);
    CHECK_CLOSE("sleep hi", w.hi, 3.3654832, 0, 5e-7);
    CHECK_RC(ab_welch_t_conservative(g1, 10, g2, 10, 0.95, &w), AB_STATS_OK);
    CHECK_CLOSE("sleep Hsu df", w.df, 9, 0, 0);
    CHECK_CLOSE("sleep Hsu Satterthwaite df", w.df_satterthwaite, 17.776, 0, 5e-4);
    CHECK_CLOSE("sleep Hsu p", w.p, 0.0956893, 0, 5e-7);
    CHECK_CLOSE("sleep Hsu lo", w.lo, -0.3407773, 0, 5e-7);
    CHECK_CLOSE("sleep Hsu hi", w.hi, 3.5007773, 0, 5e-7);

    /* instances: 3 of A, 3 of B, 6 rounds, round effects shared by all */
    const double lvl[6] = {0, 0.02, -0.01, 0.05, 0.03, 0.07};
    const double u[6] = {0.1, -0.05, 0.02, 0.3, -0.2, 0.0};
    double ms[6][6];
    int rd[6][6];
    ab_instance_sample in[6];
    for (int j = 0; j < 6; j++) {
        for (int r = 0; r < 6; r++) {
            ms[j][r] = 0.1 * exp(lvl[j] + u[r]); /* B's levels higher: A faster */
            rd[j][r] = r + 3;
        }
        in[j].ms = ms[j];
        in[j].round = rd[j];
        in[j].n = 6;
    }
    ab_instances_result ir;
    CHECK_RC(ab_instances_compare(in, 3, in + 3, 3, 0.95, &ir), AB_STATS_OK);
    CHECK_CLOSE("instances speedup", ir.speedup, 1.0477727, 0, 5e-7);
    CHECK_CLOSE("instances se", ir.w.se, 0.0145297, 0, 5e-7);
    CHECK_CLOSE("instances Satterthwaite df", ir.w.df_satterthwaite, 3.7409, 0, 5e-4);
    CHECK_CLOSE("instances Hsu df", ir.w.df, 2, 0, 0);
    CHECK_CLOSE("instances p", ir.w.p, 0.0847914, 0, 5e-7);
    CHECK_CLOSE("instances lo", ir.lo, 0.9842755, 0, 5e-7);
    CHECK_CLOSE("instances hi", ir.hi, 1.1153662, 0, 5e-7);
    CHECK_CLOSE("instances mde", ir.mde, 0.0810439, 0, 5e-7);
    CHECK_CLOSE("instances sd_round", ir.sd_round, 0, 0, 1e-12);
    CHECK_CLOSE("instances sd_instance", ir.sd_instance, 0.0177951, 0, 5e-7);
    CHECK(ir.instances_a == 3 && ir.instances_b == 3 && ir.rounds == 6, "counts");
    CHECK(ir.lo < ir.speedup && ir.speedup < ir.hi, "CI around the estimate");

    CHECK_RC(ab_instances_compare(in, 1, in + 3, 3, 0.95, &ir), AB_STATS_EINVAL);
    CHECK_RC(ab_welch_t(g1, 1, g2, 10, 0.95, &w), AB_STATS_EINVAL);
    /* between runs */
    const double med[3] = {1.0, 1.1, 1.05};
    ab_between_runs br;
    CHECK(ab_between_runs_sd(med, 3, &br) == 0, "between-run sd");
    CHECK_CLOSE("between-run sd", br.sd_log, 0.0476596, 0, 5e-7);
    CHECK(ab_between_runs_sd(med, 2, &br) == -1, "two runs refused");
    ab_between_runs_sd(med, 3, &br);
    ab_pair_analysis pa;
    memset(&pa, 0, sizeof pa);
    pa.ok = 1;
    pa.speedup = 1.05;
    pa.too_few = 1;
    ab_pair_between_runs(&pa, &br, 0.95);
    CHECK(pa.between_runs && !pa.too_few && pa.p_method == AB_P_BETWEEN_RUNS, "marked");
    CHECK_CLOSE("between-run p", pa.p, 0.5443599, 0, 5e-7);
    CHECK_CLOSE("between-run lo", pa.lo, 0.7856748, 0, 5e-6);
    CHECK_CLOSE("between-run hi", pa.hi, 1.4032523, 0, 5e-6);
    const double steps[4] = {exp(0), exp(0.01), exp(0.03), exp(0.06)};
    CHECK(ab_between_runs_sd_steps(steps, 4, &br) == 0, "step-robust sd");
    CHECK_CLOSE("step-robust sd", br.sd_log, 0.0209671, 0, 5e-7);
    printf("%d checks, %d failed\n", check_count, check_failures);
    return check_failures != 0;
}
