/*
 * report_json.c: `attnbench report RUN --json`, the machine-readable report
 * (report_internal.h). Every comparison the markdown report makes, with the
 * numbers report.c computed for it (the markdown prints the same values,
 * rounded), and one summary per measurement:
 *
 *   {"run": 3, "experiment": "...", "baseline": "...", "alpha": 0.05,
 *    "practical": 0.01, "provenance": {VARIANT: {"route", ...}} (provenance.h),
 *    "comparisons": [{"config": {"B", "H", "S", "D", "causal", "dtype", "H_kv",
 *       "S_kv", "pass"},
 *       "variant", "baseline" (the variant it is compared with: the
 *       baseline, the rung before with --chain, or a claim's `than`),
 *       where the experiment predicts the pair's speedup "predicted" ([lo,
 *       hi] of `expect`'s `speedup`) and "estimate_vs_predicted" ("inside",
 *       "below", "above", with ", CI outside"; null when not compared),
 *       "speedup", "speedup_ci": [lo, hi],
 *       "p", "p_adjusted" (null where the rounds are too few for the test
 *       to reach alpha), "verdict", "method", "p_method", "paired", "rounds",
 *       "too_few_rounds", "too_few_rounds_for_family" (no comparison of the
 *       family can reach alpha after Holm: p_adjusted null), "clocks_differ",
 *       "serial_correlation" (lag-1 autocorrelation of the per-round log
 *       ratios; null unpaired), "serial_correlation_p" (Young's test of no
 *       serial correlation, one-sided), "serial_correlation_widened" (the test and
 *       interval widened for it), "variance_inflation" (its factor, 1 when
 *       not widened), "first_samples_left_out" (rounds' first samples left
 *       out of the per-round medians, both variants), "mde" (minimum
 *       detectable effect of the paired test at alpha 0.05 and 80% power,
 *       relative; null unpaired; by instance the Welch test's),
 *       "instances": [k_variant, k_baseline], "instance_variance" ("measured"
 *       or "not measured (one instance per variant)"), and by instance
 *       "instance_sd", "round_sd_within_instance" (log scale), "df"},
 *       ...],
 *    "variants": [{"config", "variant", "status", "message", "n", "rounds",
 *       "median_ms", "median_ci": [lo, hi], "median_ci_method", "tflops",
 *       "sm_mhz", "power_w", "power_capped_share"}, ...],
 *    "run_record": {uuid, status, started, finished, command, timing_mode,
 *       environment_hash, experiment_hash, experiment_path,
 *       clocks_monitored, instances}, "fingerprint", "settings" (the run's
 *       stored settings), "calibration" (the A/A calibration of the
 *       environment: run, pairs, alpha, raw_positives, ci_covers_1,
 *       uncorrected_positives, rule_positives, binom_p, flagged; null
 *       without one), "wall_time" (db/walltime.h's parts, s; null when not
 *       recorded), "check_coverage" (null without row counts), "conclusion"
 *       (src/report/conclusion.h, ab_conclusion_json), "timer_floor"
 *       [{timing_mode, median_ms, n}], "clocks" (NVML totals; null when not
 *       monitored), "aa_calibration_table" (a calibration run's own A/A
 *       summary; null for other runs),
 *    "walltime": {"total_s", "timed_share", "phases": {...}, "variants":
 *       [{"variant", "measurements", "phases", "fixed_s_per_measurement",
 *       "worst_fixed_s", "worst_config", "over_fixed_cost_goal"}, ...],
 *       "fixed_cost_goal_s"} (db/walltime.h; null for older runs),
 *    "sampling": {"min_time_s", "max_time_s", "max_samples", "from"} (the
 *       GPU-time budget, src/run/runenv.h; null for older runs)}
 *
 * Numbers are written with 17 significant digits (jansson's real format);
 * absent values (no clocks, no summary) are null.
 */
#include "report_internal.h"
#include "conclusion.h"
#include "util.h"
#include "walltime_report.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

json_t *ab_report_json_sections(const ab_run_record *rec, const ab_run_analysis *an,
                                json_t *fp, json_t *settings)
{
    const ab_run_header *h = &rec->h;
    json_t *sec = json_object();
    if (!sec)
        return NULL;
    json_object_set_new(sec, "run_record",
                        json_pack("{s:s, s:s, s:s?, s:s?, s:s, s:s, s:s, s:s, s:s, s:b, s:i}",
                                  "uuid", h->uuid, "status", h->status, "started", h->started,
                                  "finished", h->finished, "command", h->command, "timing_mode",
                                  h->mode, "environment_hash", h->env_hash, "experiment_hash",
                                  h->exp_hash, "experiment_path", an->e.path, "clocks_monitored",
                                  h->monitored, "instances", an->instances_k));
    json_object_set(sec, "fingerprint", fp ? fp : json_null());
    json_object_set(sec, "settings", settings ? settings : json_null());
    const ab_calibration *cal = &an->cal;
    json_object_set_new(
        sec, "calibration",
        an->cal_status == 0 && cal->pairs > 0
            ? json_pack("{s:I, s:i, s:f, s:i, s:i, s:i, s:i, s:f, s:b}", "run",
                        (json_int_t)cal->run_id, "pairs", cal->pairs, "alpha", cal->alpha,
                        "raw_positives", cal->raw_positives, "ci_covers_1", cal->all.covered,
                        "uncorrected_positives", cal->uncorrected_positives, "rule_positives",
                        cal->rule_positives, "binom_p", cal->binom_p, "flagged", cal->flagged)
            : json_null());
    const ab_walltime *w = &rec->wall;
    json_object_set_new(
        sec, "wall_time",
        rec->walltime_status == 0
            ? json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "total_s",
                        w->total_s, "timed_s", w->timed_s, "sampling_s", w->sampling_s,
                        "warmup_s", w->warmup_s, "check_s", w->check_s, "setup_s", w->setup_s,
                        "inputs_s", w->inputs_s, "ceilings_s", w->ceilings_s, "adapter_s",
                        w->adapter_s, "store_s", w->store_s)
            : json_null());
    const ab_check_coverage *cc = &rec->cov;
    json_object_set_new(
        sec, "check_coverage",
        rec->coverage_status == 0
            ? json_pack("{s:I, s:I, s:I, s:I, s:I, s:f, s:s}", "measurements", (json_int_t)cc->n,
                        "rows_checked", (json_int_t)cc->rows_checked, "sampled",
                        (json_int_t)cc->nsampled, "sampled_rows_checked",
                        (json_int_t)cc->sampled_checked, "sampled_rows",
                        (json_int_t)cc->sampled_total, "max_escape", cc->max_escape, "seeds",
                        cc->seeds ? cc->seeds : "")
            : json_null());
    json_t *concl = ab_conclusion_json(&an->judged, an->sorted_r, an->n);
    json_object_set_new(sec, "conclusion", concl ? concl : json_null());
    /* provenance.h: built in, the plugin library (path, SHA-256) or the
     * adapter (command, version line) of each variant; null when unread */
    json_t *prov = an->provenance ? json_deep_copy(an->provenance) : NULL;
    json_object_set_new(sec, "provenance", prov ? prov : json_null());
    json_t *floors = json_array();
    for (int i = 0; i < rec->nfloors; i++)
        json_array_append_new(floors, json_pack("{s:s, s:f, s:I}", "timing_mode",
                                                rec->floors[i].mode, "median_ms",
                                                rec->floors[i].median_ms, "n",
                                                (json_int_t)rec->floors[i].n));
    json_object_set_new(sec, "timer_floor", floors);
    const ab_clock_totals *t = &rec->totals;
    json_object_set_new(
        sec, "clocks",
        rec->have_totals
            ? json_pack("{s:I, s:i, s:i, s:i, s:i, s:i, s:f, s:I, s:I}", "blocks",
                        (json_int_t)t->blocks, "sm_mhz_min", t->sm_mhz_min, "sm_mhz_max",
                        t->sm_mhz_max, "mem_mhz_min", t->mem_mhz_min, "mem_mhz_max",
                        t->mem_mhz_max, "temp_c_max", t->temp_c_max, "power_w_max",
                        t->power_w_max, "throttled_blocks", (json_int_t)t->throttled,
                        "power_capped_blocks", (json_int_t)t->power_capped)
            : json_null());
    const ab_calibration *aa = &an->own;
    json_object_set_new(
        sec, "aa_calibration_table",
        an->own_cal
            ? json_pack("{s:i, s:i, s:i, s:i, s:i, s:f, s:b}", "pairs", aa->pairs,
                        "raw_positives", aa->raw_positives, "ci_covers_1", aa->all.covered,
                        "uncorrected_positives", aa->uncorrected_positives, "rule_positives",
                        aa->rule_positives, "binom_p", aa->binom_p, "flagged", aa->flagged)
            : json_null());
    /* the per-variant wall time and the GPU-time budget (walltime_report.h,
     * the run's settings) */
    json_t *jw = rec->walltime_status == 0 && rec->walltime_variants_status == 0
                     ? ab_walltime_json(&rec->wall, rec->wv, rec->nwv)
                     : NULL;
    json_object_set_new(sec, "walltime", jw ? jw : json_null());
    json_t *b = json_object_get(settings, "sampling");
    json_object_set(sec, "sampling", b ? b : json_null());
    return sec;
}

static json_t *num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

static json_t *config(const ab_rmeas *r)
{
    return json_pack("{s:i, s:i, s:i, s:i, s:b, s:s, s:i, s:i, s:s}", "B", r->B, "H", r->H, "S",
                     r->S, "D", r->D, "causal", r->causal, "dtype", r->dtype, "H_kv", r->H_kv,
                     "S_kv", r->S_kv, "pass", r->pass);
}

int ab_report_json(FILE *out, long long run_id, const char *experiment, const char *baseline,
                   ab_rep_meas *const *sorted, size_t n, const ab_rep_cmp *cmps, size_t ncmp,
                   double alpha, double practical, json_t *sections)
{
    json_t *root = json_object(), *jc = json_array(), *jv = json_array();
    int rc = -1;
    if (!root || !jc || !jv)
        goto cleanup;
    json_object_set_new(root, "run", json_integer(run_id));
    json_object_set_new(root, "experiment", json_string(experiment));
    json_object_set_new(root, "baseline", json_string(baseline));
    json_object_set_new(root, "alpha", json_real(alpha));
    json_object_set_new(root, "practical", json_real(practical));
    if (sections)
        json_object_update(root, sections);
    for (size_t i = 0; i < ncmp; i++) {
        const ab_rep_cmp *c = &cmps[i];
        json_t *o = json_object();
        json_object_set_new(o, "config", config(&c->a->r));
        if (c->an.by_instance) { /* the variants, not their first instances */
            json_object_set_new(o, "variant", json_stringn(c->a->r.variant,
                                                           strcspn(c->a->r.variant, "#")));
            json_object_set_new(o, "baseline", json_stringn(c->b->r.variant,
                                                            strcspn(c->b->r.variant, "#")));
        } else {
            json_object_set_new(o, "variant", json_string(c->a->r.variant));
            json_object_set_new(o, "baseline", json_string(c->b->r.variant));
        }
        /* the experiment's predicted speedup of the pair, and where the
         * estimate falls (ab_rep_prediction) */
        if (c->predicted) {
            json_object_set_new(o, "predicted",
                                json_pack("[o, o]", num(c->pred_lo), num(c->pred_hi)));
            json_object_set_new(o, "estimate_vs_predicted",
                                c->an.ok ? json_string(ab_rep_prediction(c)) : json_null());
        }
        if (!c->an.ok) {
            json_object_set_new(o, "speedup", json_null());
            json_object_set_new(o, "speedup_ci", json_null());
            json_object_set_new(o, "p", json_null());
            json_object_set_new(o, "p_adjusted", json_null());
            json_object_set_new(o, "verdict", json_string("not compared"));
            json_object_set_new(o, "method", json_null());
        } else {
            json_object_set_new(o, "speedup", num(c->an.speedup));
            json_object_set_new(o, "speedup_ci", json_pack("[o, o]", num(c->an.lo), num(c->an.hi)));
            json_object_set_new(o, "p", c->an.too_few ? json_null() : num(c->an.p));
            json_object_set_new(o, "p_adjusted",
                                c->an.too_few || c->an.too_few_family ? json_null() : num(c->an.p_adj));
            json_object_set_new(o, "verdict", json_string(ab_rep_verdict(c)));
            json_object_set_new(o, "method", json_string(ab_rep_method(c)));
            /* how the p was obtained: exact, exact permutation, Monte Carlo
             * permutation or normal approximation (stats/) */
            json_object_set_new(o, "p_method",
                                json_string(ab_pmethod_name(c->an.paired || c->an.by_instance
                                                                ? c->an.p_method
                                                                : c->an.c.mw.method)));
            json_object_set_new(o, "paired", json_boolean(c->an.paired));
            json_object_set_new(o, "rounds", json_integer(c->an.paired ? (json_int_t)c->an.rr.rounds
                                                          : c->an.by_instance
                                                              ? (json_int_t)lround(c->an.ir.rounds)
                                                              : 0));
            json_object_set_new(o, "too_few_rounds", json_boolean(c->an.too_few));
            json_object_set_new(o, "too_few_rounds_for_family", json_boolean(c->an.too_few_family));
            json_object_set_new(o, "clocks_differ", json_boolean(c->clocks_differ));
            /* the paired analysis: serial correlation of the per-round log
             * ratios and whether it widened the test and interval */
            json_object_set_new(o, "serial_correlation",
                                c->an.paired ? num(c->an.rr.serial.r1) : json_null());
            json_object_set_new(o, "serial_correlation_p",
                                c->an.paired ? num(c->an.rr.serial.p_serial) : json_null());
            json_object_set_new(o, "serial_correlation_widened",
                                json_boolean(c->an.paired && c->an.rr.serial.widened));
            json_object_set_new(o, "variance_inflation",
                                c->an.paired ? num(c->an.rr.serial.inflation) : json_null());
            /* minimum detectable effect of the paired test (relative,
             * 0.02 = 2%), alpha 0.05 and 80% power (stats/mde.c) */
            json_object_set_new(o, "mde", c->an.paired ? num(c->an.rr.mde) : json_null());
            json_object_set_new(o, "first_samples_left_out",
                                json_integer(c->an.paired ? (json_int_t)c->an.rr.dropped : 0));
            /* instances: the two-stage analysis's variance components, or
             * that one instance per variant cannot measure them */
            if (c->an.by_instance) {
                const ab_instances_result *ir = &c->an.ir;
                json_object_set_new(o, "instances", json_pack("[I, I]", (json_int_t)ir->instances_a,
                                                              (json_int_t)ir->instances_b));
                json_object_set_new(o, "instance_sd", num(ir->sd_instance));
                json_object_set_new(o, "round_sd_within_instance", num(ir->sd_round));
                json_object_set_new(o, "df", num(ir->w.df));
                json_object_set_new(o, "mde", num(ir->mde));
                json_object_set_new(o, "instance_variance", json_string("measured"));
            } else {
                json_object_set_new(o, "instances", json_pack("[i, i]", 1, 1));
                json_object_set_new(o, "instance_variance",
                                    json_string("not measured (one instance per variant)"));
            }
        }
        json_array_append_new(jc, o);
    }
    for (size_t i = 0; i < n; i++) {
        const ab_rep_meas *x = sorted[i];
        json_t *o = json_object();
        json_object_set_new(o, "config", config(&x->r));
        json_object_set_new(o, "variant", json_string(x->r.variant));
        json_object_set_new(o, "status", json_string(x->r.status));
        /* why a measurement is not ok (the check's figures, the adapter's error) */
        json_object_set_new(o, "message", x->message && x->message[0] ? json_string(x->message)
                                                                      : json_null());
        json_object_set_new(o, "n", json_integer((json_int_t)x->r.n));
        json_object_set_new(o, "rounds", json_integer(x->r.rounds));
        if (x->have_summary) {
            json_object_set_new(o, "median_ms", num(x->s.median));
            json_object_set_new(o, "median_ci", json_pack("[o, o]", num(x->lo), num(x->hi)));
            json_object_set_new(o, "median_ci_method", json_string(x->ci_name));
            json_object_set_new(o, "tflops", num(x->r.flops / (x->s.median * 1e9)));
        } else {
            json_object_set_new(o, "median_ms", json_null());
            json_object_set_new(o, "median_ci", json_null());
            json_object_set_new(o, "median_ci_method", json_null());
            json_object_set_new(o, "tflops", json_null());
        }
        int clk = x->clk.blocks > 0;
        json_object_set_new(o, "sm_mhz", clk ? num(x->clk.sm_mhz) : json_null());
        json_object_set_new(o, "power_w", clk ? num(x->clk.power_w) : json_null());
        json_object_set_new(o, "power_capped_share", clk ? num(x->clk.capped_share) : json_null());
        json_array_append_new(jv, o);
    }
    json_object_set_new(root, "comparisons", jc);
    json_object_set_new(root, "variants", jv);
    jc = jv = NULL;
    if (json_dumpf(root, out, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) != 0) {
        error("report: writing the JSON failed");
        goto cleanup;
    }
    fputc('\n', out);
    rc = 0;
cleanup:
    if (rc && !root)
        error("out of memory");
    json_decref(jc);
    json_decref(jv);
    json_decref(root);
    return rc;
}
