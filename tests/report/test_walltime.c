/*
 * test_walltime.c: the per-variant wall-time account (db/walltime.h) on
 * hand-made measurement accounts: sums, the first measurement's fixed
 * cost kept apart from the later ones' mean and largest (and where), the
 * 150 ms flag on the later ones in the markdown table and in the JSON.
 * Expected values are the hand sums written beside each check.
 */
#include "walltime_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void expect(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "FAIL: %s\n", what);
        failures++;
    }
}

static ab_walltime acct(double total, double timed, double check)
{
    ab_walltime w;
    memset(&w, 0, sizeof w);
    w.total_s = total;
    w.timed_s = timed;
    w.sampling_s = timed + 0.01;
    w.check_s = check;
    return w;
}

int main(void)
{
    ab_walltime_variant *v = NULL;
    size_t n = 0;
    ab_walltime m1 = acct(0.30, 0.20, 0.05), m2 = acct(0.50, 0.30, 0.12), m3 = acct(0.10, 0.05, 0.01);
    /* an adapter: 3 s of start-up in its first measurement, 0.1 s later */
    ab_walltime a1 = acct(3.05, 0.05, 0.0), a2 = acct(0.15, 0.05, 0.0), a3 = acct(0.17, 0.05, 0.0);
    expect(ab_walltime_variant_add(&v, &n, "fast_one", "B=1 H=8 S=512", &m1) == 0 &&
               ab_walltime_variant_add(&v, &n, "slow_setup", "B=1 H=8 S=512", &m3) == 0 &&
               ab_walltime_variant_add(&v, &n, "fast_one", "B=1 H=16 S=16384", &m2) == 0 &&
               ab_walltime_variant_add(&v, &n, "adapter", "B=8 S=2048", &a1) == 0 &&
               ab_walltime_variant_add(&v, &n, "adapter", "B=1 S=16384", &a2) == 0 &&
               ab_walltime_variant_add(&v, &n, "adapter", "B=2 S=8192", &a3) == 0,
           "adding accounts");
    expect(n == 3, "three variants");
    /* fast_one: 2 measurements, total 0.30 + 0.50 = 0.80, timed 0.50,
     * fixed 0.10 (the first) and 0.20 (later, at S=16384) */
    expect(v[0].measurements == 2 && fabs(v[0].w.total_s - 0.80) < 1e-12 &&
               fabs(v[0].w.timed_s - 0.50) < 1e-12 && fabs(v[0].w.check_s - 0.17) < 1e-12,
           "fast_one's sums");
    expect(fabs(v[0].first_fixed_s - 0.10) < 1e-12 && fabs(v[0].worst_fixed_s - 0.20) < 1e-12 &&
               strstr(v[0].worst_config, "S=16384"),
           "fast_one's first and largest later fixed cost and its configuration");
    expect(fabs(v[1].first_fixed_s - 0.05) < 1e-12 && v[1].worst_fixed_s < 0,
           "slow_setup: one measurement, fixed 0.10 - 0.05, no later one");
    /* the adapter: first 3.0 s, later 0.10 and 0.12: not flagged */
    expect(fabs(v[2].first_fixed_s - 3.0) < 1e-12 && fabs(v[2].worst_fixed_s - 0.12) < 1e-12 &&
               strcmp(v[2].worst_config, "B=2 S=8192") == 0,
           "the adapter's start-up kept in its first measurement");

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ab_walltime run = acct(1.2, 0.55, 0.18);
    ab_walltime_report(f, &run, v, n);
    fclose(f);
    /* later 0.20 s > 150 ms: flagged; sampling overhead 0.02; first
     * 100 ms, later mean (0.80 - 0.50 - 0.10) / 1 = 200 ms */
    expect(strstr(buf, "| fast_one **flagged** | 2 | 0.50 | 0.02 |") != NULL,
           "fast_one flagged, its timed and overhead columns");
    expect(strstr(buf, "| 100 ms | 200 ms | 200 ms (B=1 H=16 S=16384) |") != NULL,
           "fast_one's first, later mean and largest fixed cost");
    expect(strstr(buf, "| slow_setup | 1 |") != NULL && strstr(buf, "| 50 ms | - | - |") != NULL,
           "slow_setup not flagged, no later measurement");
    /* the adapter: later mean (3.37 - 0.15 - 3.0) / 2 = 110 ms */
    expect(strstr(buf, "| adapter | 3 |") != NULL &&
               strstr(buf, "| 3000 ms | 110 ms | 120 ms (B=2 S=8192) |") != NULL,
           "the adapter not flagged for its start-up");
    expect(strstr(buf, "1 variant had a later measurement whose fixed cost exceeded 150 ms.") !=
               NULL,
           "the flag's sentence");
    if (failures)
        fprintf(stderr, "%s", buf);
    free(buf);

    json_t *j = ab_walltime_json(&run, v, n);
    json_t *a = json_object_get(j, "variants");
    expect(json_array_size(a) == 3, "JSON: three variants");
    expect(json_is_true(json_object_get(json_array_get(a, 0), "over_fixed_cost_goal")) &&
               json_is_false(json_object_get(json_array_get(a, 1), "over_fixed_cost_goal")) &&
               json_is_false(json_object_get(json_array_get(a, 2), "over_fixed_cost_goal")),
           "JSON: the flag");
    expect(json_is_null(json_object_get(json_array_get(a, 1), "worst_fixed_s")) &&
               fabs(json_real_value(json_object_get(json_array_get(a, 2), "later_fixed_s_mean")) -
                    0.11) < 1e-12,
           "JSON: no later measurement (null), the adapter's later mean 0.11");
    expect(fabs(json_real_value(json_object_get(json_array_get(a, 0), "fixed_s_per_measurement")) -
                0.15) < 1e-12,
           "JSON: fixed cost per measurement (0.80 - 0.50) / 2");
    expect(fabs(json_real_value(json_object_get(j, "timed_share")) - 0.55 / 1.2) < 1e-12,
           "JSON: the run's timed share 0.55 / 1.2");
    json_decref(j);

    /* merging a resumed run's first part: sums, the larger worst kept */
    ab_walltime_variant first = v[1];
    first.measurements = 3;
    first.w.total_s = 1.0;
    first.worst_fixed_s = 0.4;
    snprintf(first.worst_config, sizeof first.worst_config, "S=32768");
    expect(ab_walltime_variant_merge(&v, &n, &first) == 0 && n == 3 && v[1].measurements == 4 &&
               fabs(v[1].w.total_s - 1.1) < 1e-12 && fabs(v[1].worst_fixed_s - 0.4) < 1e-12 &&
               strcmp(v[1].worst_config, "S=32768") == 0,
           "merge of a resumed run's account");
    free(v);
    if (failures)
        return 1;
    printf("ok: wall time per variant\n");
    return 0;
}
