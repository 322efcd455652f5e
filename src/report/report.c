/*
 * report.c: the markdown ablation report (report.h).
 *
 * Layout, after seed 004's ablation template: hypothesis; the run (GPU,
 * timing, timer floor, clocks); the method; per configuration a table of
 * variants with median, 95% CI, TFLOP/s, bandwidth, speedup over the
 * baseline with its CI, CI overlap, Cliff's delta, Hodges-Lehmann shift,
 * Mann-Whitney p raw and adjusted over the report's family (Holm), outliers,
 * drift and the verdict; a TFLOP/s summary across configurations; the
 * correctness figures of every measurement; the fingerprint; the command
 * that reproduces the run.
 */
#include "report.h"
#include "calibration_table.h"
#include "conclusion.h"
#include "plot.h"
#include "provenance.h"
#include "report_check.h"
#include "report_internal.h"
#include "run_rows.h"
#include "training.h"
#include "units.h"
#include "util.h"
#include "walltime_report.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef ab_rep_meas meas;
typedef ab_rep_cmp cmp;

/* The rate units of the report being written: chosen from its largest
 * values (units.h) at the start of ab_report_write. */
static ab_unit flop_unit = {1e9, "TFLOP/s"}, byte_unit = {1e6, "GB/s"};

/* Instances per variant of the report being written (the experiment's
 * `instances`), set at the start of ab_report_write. */

static void config_title(const meas *m, char *buf, size_t n) { ab_rmeas_title(&m->r, buf, n); }

static meas *find(meas *m, size_t n, int config, const char *variant)
{
    for (size_t i = 0; i < n; i++)
        if (m[i].r.config == config && strcmp(m[i].r.variant, variant) == 0)
            return &m[i];
    return NULL;
}

/* sorted[i..end) is one configuration (sorted by configuration). */
static size_t config_end(meas *const *sorted, size_t n, size_t i)
{
    size_t j = i;
    while (j < n && sorted[j]->r.config == sorted[i]->r.config)
        j++;
    return j;
}

/* The rows of a summary table: one per configuration, one cell (TFLOP/s) or
 * two (tokens/s, peak MiB) per variant of the experiment. */
static void summary_rows(FILE *out, const ab_experiment *e, meas *m, size_t n,
                         meas *const *sorted, int throughput)
{
    for (size_t i = 0; i < n; i = config_end(sorted, n, i)) {
        char title[128];
        config_title(sorted[i], title, sizeof title);
        fprintf(out, "| %s |", title);
        for (size_t v = 0; v < e->nvariants; v++) {
            meas *x = find(m, n, sorted[i]->r.config, e->variants[v].name);
            if (!x || !x->have_summary)
                fprintf(out, throughput ? " %s | |" : " %s |", x ? x->r.status : "—");
            else if (!throughput)
                fprintf(out, " %.2f |", x->r.flops / (x->s.median * flop_unit.per_ms));
            else if (x->peak_bytes > 0)
                fprintf(out, " %.3g | %.1f |", (double)x->r.B * x->r.S / (x->s.median * 1e-3),
                        x->peak_bytes / 1048576.0);
            else
                fprintf(out, " %.3g | — |", (double)x->r.B * x->r.S / (x->s.median * 1e-3));
        }
        fprintf(out, "\n");
    }
}

static void fmt_p(double p, char *buf, size_t n)
{
    if (p < 1e-4)
        snprintf(buf, n, "%.1e", p);
    else
        snprintf(buf, n, "%.4f", p);
}

/* One table row for variant x in its configuration, compared (when cp is
 * non-NULL) with the reference. ref_mhz > 0: also its latency at that SM
 * clock (--by-clock). */
static void row(FILE *out, const ab_run_analysis *an, const meas *x, const cmp *cp,
                const char *baseline, double ref_mhz)
{
    if (!x->have_summary) {
        fprintf(out, "| %s | %zu | | %s |%s | | | | | | | | | | | | | |\n", x->r.variant, x->r.n,
                strcmp(x->r.status, "ok") == 0 ? "too few samples" : x->r.status,
                ref_mhz > 0 ? " |" : "");
        return;
    }
    const ab_outliers ol = x->ol;
    const ab_drift dr = x->dr;
    const int drift_ok = x->drift_ok;
    double tflops = x->r.flops / (x->s.median * flop_unit.per_ms);
    double gbs = x->bytes / (x->s.median * byte_unit.per_ms);
    char m1[40], m2[40];
    fprintf(out, "| %s%s | %zu | %d | %s |", x->r.variant, x->external ? " (ext)" : "", x->r.n,
            x->r.rounds, ab_fmt_ms(x->s.median, 0, m1, sizeof m1));
    if (ref_mhz > 0) {
        double nm = ab_clock_normalised_ms(x->s.median, x->clk.sm_mhz, ref_mhz);
        if (isnan(nm))
            fprintf(out, " — |");
        else
            fprintf(out, " %s |", ab_fmt_ms(nm, 0, m1, sizeof m1));
    }
    fprintf(out, " [%s, %s]%s | %.2f | %.0f | ", ab_fmt_ms(x->lo, 0, m1, sizeof m1),
            ab_fmt_ms(x->hi, 0, m2, sizeof m2), x->ci_rounds ? "" : " ‡", tflops, gbs);
    if (x->clk.blocks > 0)
        fprintf(out, "%.0f | %.0f | %.0f%% | ", x->clk.sm_mhz, x->clk.power_w,
                100 * x->clk.capped_share);
    else
        fprintf(out, "— | — | — | ");
    if (!cp) {
        fprintf(out, "%s | | | | | |", ab_run_is_variant(an, x->r.variant, baseline) ? "baseline"
                                       : an->instances_k > 1 ? "(on #1)" : "—");
    } else if (!cp->an.ok) {
        fprintf(out, "— | | | | | |");
    } else {
        const ab_comparison *c = &cp->an.c;
        char p1[64], p2[32];
        if (cp->an.too_few) {
            snprintf(p1, sizeof p1, "— (%zu rounds)", cp->an.rr.rounds);
            snprintf(p2, sizeof p2, "—");
        } else if (cp->an.too_few_family) {
            fmt_p(cp->an.p, p1, sizeof p1);
            snprintf(p2, sizeof p2, "— (family of %zu)", cp->an.family);
        } else {
            fmt_p(cp->an.p, p1, sizeof p1);
            fmt_p(cp->an.p_adj, p2, sizeof p2);
        }
        fprintf(out, "%.3f× [%.3f, %.3f]%s%s | %+.3f [%+.2f, %+.2f] %s | %s | %s | %s | **%s** |",
                cp->an.speedup, cp->an.lo, cp->an.hi, cp->an.paired || cp->an.by_instance ? "" : " ‡",
                cp->clocks_differ ? " ⚠" : "",
                c->cliff.delta, c->cliff.lo, c->cliff.hi, ab_cliffs_magnitude(c->cliff.delta),
                ab_fmt_ms(c->hl.shift, 1, m1, sizeof m1), p1, p2, ab_rep_verdict(cp));
    }
    fprintf(out, " %zu/%zu | %s |\n", ol.mild, ol.severe,
            !drift_ok ? "—" : dr.drifting ? "**drift**" : "no");
}

static void print_fingerprint_summary(FILE *out, json_t *fp)
{
    json_t *gpu = json_object_get(fp, "gpu"), *host = json_object_get(fp, "host");
    if (json_is_object(gpu))
        fprintf(out, "| GPU | %s (compute capability %s, %lld SMs, %.0f GiB, L2 %.0f MB), driver %s, CUDA runtime %s |\n",
                json_string_value(json_object_get(gpu, "name")),
                json_string_value(json_object_get(gpu, "compute_capability")),
                (long long)json_integer_value(json_object_get(gpu, "sm_count")),
                json_integer_value(json_object_get(gpu, "memory_bytes")) / 1073741824.0,
                json_integer_value(json_object_get(gpu, "l2_bytes")) / 1e6,
                json_string_value(json_object_get(gpu, "driver")),
                json_string_value(json_object_get(gpu, "cuda_runtime")));
    else
        fprintf(out, "| GPU | none (CPU variants only) |\n");
    if (json_is_object(host))
        fprintf(out, "| host | %s, %lld CPUs, %s |\n",
                json_string_value(json_object_get(host, "cpu")),
                (long long)json_integer_value(json_object_get(host, "cpus")),
                json_string_value(json_object_get(host, "os")));
    json_t *build = json_object_get(fp, "build");
    if (json_is_object(build))
        fprintf(out, "| build | attnbench %s, commit %s, %s, nvcc %s |\n",
                json_string_value(json_object_get(build, "attnbench")),
                json_string_value(json_object_get(build, "commit")),
                json_string_value(json_object_get(build, "compiler")),
                json_string_value(json_object_get(build, "nvcc")));
}

static void print_timer_and_clocks(const ab_run_record *rec, FILE *out)
{
    const ab_timer_floor_row *fl = rec->floors;
    int nf = rec->nfloors;
    char m[40];
    for (int i = 0; i < nf; i++)
        fprintf(out, "%s%s %s ms", i ? ", " : "| timer floor (empty kernel, median) | ",
                fl[i].mode, ab_fmt_ms(fl[i].median_ms, 0, m, sizeof m));
    if (nf > 0)
        fprintf(out, " |\n");
    if (!rec->h.monitored) {
        fprintf(out, "| clocks | not monitored (no NVML in this build, or a CPU-only run) |\n");
        return;
    }
    const ab_clock_totals t = rec->totals;
    if (rec->have_totals)
        fprintf(out,
                "| clocks (NVML, around each block of samples) | %lld blocks; SM %d–%d MHz, "
                "memory %d–%d MHz, max %d °C, max %.0f W; %lld blocks throttled (thermal or "
                "hardware slowdown; their samples are excluded), %lld at the software power "
                "cap (kept) |\n",
                t.blocks, t.sm_mhz_min, t.sm_mhz_max, t.mem_mhz_min, t.mem_mhz_max,
                t.temp_c_max, t.power_w_max, t.throttled, t.power_capped);
}

/* One external variant's own environment, printed as the report's
 * fingerprint section lists it. */
typedef struct adapter_env_ctx {
    FILE *out;
    int any;
} adapter_env_ctx;

static void print_adapter_env(adapter_env_ctx *c, const char *variant, const char *env)
{
    json_t *j = json_loads(env, 0, NULL);
    char *pretty = j ? json_dumps(j, JSON_SORT_KEYS | JSON_INDENT(2)) : NULL;
    if (!c->any)
        fprintf(c->out, "\nExternal variants' own environments (from their adapters):\n");
    c->any = 1;
    fprintf(c->out, "\n%s:\n\n```json\n%s\n```\n", variant, pretty ? pretty : env);
    free(pretty);
    json_decref(j);
}

int ab_report_write(const ab_run_record *rec, const ab_run_analysis *an, const ab_report_opts *o,
                    FILE *out)
{
    int rc = -1;
    const long long run_id = rec->run_id;
    const ab_experiment e = an->e; /* shallow: the analysis owns it */
    meas *m = an->m;
    const size_t n = an->n, ncmp = an->ncmp, family = an->family;
    const cmp *cmps = an->cmps;
    int any_predicted = 0;
    for (size_t c = 0; c < ncmp; c++)
        any_predicted |= cmps[c].predicted;
    meas *const *sorted = an->sorted;
    const char *baseline = an->baseline;
    const ab_compare_opts co = an->co;
    const double ref_mhz = an->ref_mhz;
    const int any_bwd = an->any_bwd, any_kv = an->any_kv;
    const int cpu_meas = an->cpu_meas, device_meas = an->device_meas;
    const char *uuid = rec->h.uuid, *started = rec->h.started, *finished = rec->h.finished,
               *status = rec->h.status, *command = rec->h.command, *mode = rec->h.mode,
               *fp_text = rec->h.fingerprint, *env_hash = rec->h.env_hash,
               *exp_hash = rec->h.exp_hash;
    const double peak_gemm = rec->h.peak_gemm_tflops, peak_copy = rec->h.peak_copy_gbs;
    json_t *fp = json_loads(fp_text, 0, NULL);
    json_t *settings = rec->settings ? json_loads(rec->settings, 0, NULL) : NULL;

    /* ---- rate units and the memory label, from this report's own values ---- */
    flop_unit = ab_flop_unit(an->max_flop_s);
    byte_unit = ab_byte_unit(an->max_byte_s);

    if (o->json) {
        json_t *sec = ab_report_json_sections(rec, an, fp, settings);
        if (!sec) {
            error("out of memory");
            goto cleanup;
        }
        rc = ab_report_json(out, run_id, e.name, baseline, sorted, n, cmps, ncmp, co.alpha,
                            co.practical, sec);
        json_decref(sec);
        goto cleanup;
    }

    /* ---- header ---- */
    fprintf(out, "# %s: ablation report, run %lld\n\n", e.name, run_id);
    fprintf(out, "<!-- written by `attnbench report %lld`; every number below is read from the "
                 "database%s%s and recomputed with fixed seeds -->\n\n",
            run_id, o->db_label ? " " : "", o->db_label ? o->db_label : "");
    fprintf(out, "## Hypothesis\n\n%s\n\n", e.hypothesis && *e.hypothesis ? e.hypothesis : "(none stated)");
    fprintf(out, "## Run\n\n| | |\n|---|---|\n");
    fprintf(out, "| run | %lld (`%s`), status **%s** |\n", run_id, uuid, status);
    fprintf(out, "| experiment | `%s` (%s, definition hash %s) |\n", e.path, e.name, exp_hash);
    fprintf(out, "| started / finished (UTC) | %s / %s |\n", started, finished);
    if (fp)
        print_fingerprint_summary(out, fp);
    fprintf(out, "| environment hash | %s |\n", env_hash);
    ab_report_settings_rows(out, settings);
    int rmin = 0, rmax = 0; /* rounds per measurement, from the samples */
    for (size_t i = 0; i < n; i++)
        if (m[i].have_summary) {
            if (!rmax || m[i].r.rounds < rmin)
                rmin = m[i].r.rounds;
            if (m[i].r.rounds > rmax)
                rmax = m[i].r.rounds;
        }
    char rounds_txt[64];
    if (rmin == rmax)
        snprintf(rounds_txt, sizeof rounds_txt, "%d rounds per measurement", rmax);
    else
        snprintf(rounds_txt, sizeof rounds_txt, "%d to %d rounds per measurement", rmin, rmax);
    /* the warm-up's time bound, stored with runs made since it exists */
    char warm[96];
    const json_t *wts = json_object_get(settings, "warmup_time_s");
    if (json_is_number(wts) && json_number_value(wts) > 0)
        snprintf(warm, sizeof warm, "%d launches or %.0f ms of them (GPU time; host time on the CPU), whichever comes first",
                 e.warmup, 1e3 * json_number_value(wts));
    else
        snprintf(warm, sizeof warm, "%d", e.warmup);
    if (e.adaptive)
        fprintf(out, "| sampling | %s timing, warm-up %s, adaptive: until the median's CI is within "
                     "±%.2f%%, %d to %d samples, budget %.1f s per measurement; %s, "
                     "variants interleaved in seeded random order |\n",
                mode, warm, 100 * e.target_rel_ci, e.min_samples, e.max_samples, e.budget_s,
                rounds_txt);
    else
        fprintf(out, "| sampling | %s timing%s, warm-up %s, %d samples per measurement, %s, "
                     "variants interleaved in seeded random order |\n",
                mode, strcmp(mode, "graph") == 0 ? " (per-launch time of graph replays)" : "",
                warm, e.samples, rounds_txt);
    {
        /* the generator stored with the run (data.h); runs without one used MT19937 */
        const char *gen = json_string_value(json_object_get(settings, "inputs"));
        fprintf(out, "| inputs | uniform on [-1, 1) from %s seed %lu, rounded to the dtype |\n",
                gen && strcmp(gen, "philox4x32-10") == 0 ? "cuRAND's Philox4x32-10" : "MT19937",
                e.seed);
    }
    print_timer_and_clocks(rec, out);
    {
        const ab_calibration cal = an->cal;
        const int c = an->cal_status;
        if (c == 0 && cal.pairs > 0)
            fprintf(out, "| A/A calibration | run %lld, same environment, %d identical pairs: p < %.2f in "
                         "%d (%.1f%%), speedup CI covering 1 in %d (%.1f%%), called different by the "
                         "verdict rule in %d without the family correction and %d with Holm%s |\n",
                    cal.run_id, cal.pairs, cal.alpha, cal.raw_positives,
                    100.0 * cal.raw_positives / cal.pairs, cal.all.covered,
                    100.0 * cal.all.covered / cal.pairs, cal.uncorrected_positives,
                    cal.rule_positives,
                    cal.flagged ? ": **FLAGGED, a rate is not what the method promises on this "
                                  "machine** (calibration report)"
                                : ": ok");
        else if (c == 1)
            fprintf(out, "| A/A calibration | none in this environment (attnbench calibrate) |\n");
    }
    ab_report_shard_row(out, rec); /* a run of one part says so */
    fprintf(out, "| reproduce | `%s` |\n\n", command);

    fprintf(out, "## Method\n\n"
                 "Latencies are per forward pass in milliseconds (CUDA events for GPU variants, the "
                 "monotonic clock for CPU variants). The unit of inference is the round: each round "
                 "samples every variant of a configuration in a seeded random order, so a run is a "
                 "randomised complete block design, and samples within a round share the GPU's "
                 "state (clock, power, temperature) and are not independent. Medians are of all "
                 "samples, with %.0f%% cluster-bootstrap CIs that resample whole rounds (Davison & "
                 "Hinkley 1997, sec. 3.8; %d resamples, seed %lu, percentile). Per round, each variant's "
                 "samples give their median without the round's first sample (when the round has "
                 "two or more), so that one slow first sample never decides a round. Speedup over "
                 "%s = exp(Hodges-Lehmann estimate of the per-round log ratios log(baseline / "
                 "variant) over the rounds both ran in), with the interval that inverts the test "
                 "(the Walsh averages' order statistics, Hollander & Wolfe 1999 sec. 3.2); p is the "
                 "two-sided Wilcoxon signed-rank test of those log ratios (exact, or exact given "
                 "ties, up to 50 rounds; normal approximation beyond). Where the log ratios are "
                 "serially correlated from round to round (with at least 16 rounds, Young's "
                 "(1941) test of no serial correlation rejecting at one-sided 0.35 and the lag-1 "
                 "autocorrelation r1 with (n r1 + 1)/(n − 4) > 0: Kendall's bias correction), the "
                 "test and the interval are widened by the AR(1) variance factor (1 + ρ)/(1 − ρ) "
                 "with Student's t on the effective rounds (Zwiers & von Storch 1995), and the "
                 "configuration says so. Where the rounds are too few for any p below %.2f the table says so "
                 "instead of a p. A variant not sampled in the rounds (a protocol-1 external "
                 "variant) is compared i.i.d. and marked ‡: ratio of medians with a %s bootstrap CI "
                 "(%zu resamples), Mann-Whitney U. p (Holm) is adjusted over the report's family of "
                 "%zu comparisons. Verdict: faster or slower only when p (Holm) < %.2f and the "
                 "speedup CI excludes 1 ± %.0f%%, and never when the Hodges-Lehmann shift is "
                 "smaller than the A/A resolution: the largest paired difference found between "
                 "identical instances in an A/A calibration (attnbench calibrate) of the same "
                 "environment and timing mode, at the calibrated latency closest to the variant's, "
                 "times the variant's median (without a calibration there is no such veto: the "
                 "round-level CI carries the noise; the empty-kernel timer floor is launch overhead "
                 "both sides pay, shown for information). Each configuration gives the minimum "
                 "detectable effect of each paired comparison: the smallest true change the "
                 "signed-rank test of its rounds detects at α = 0.05 with 80%% power, (z₀.₉₇₅ + "
                 "z₀.₈) × sd / √(3n/π) on the log scale, sd the standard deviation of the per-round "
                 "log ratios, n the rounds divided by the serial-correlation factor (the paired "
                 "z-test's normal-approximation power, Chow, Shao & Wang 2008 sec. 3.1, with the "
                 "signed-rank test's efficiency 3/π); unlike the A/A resolution it does not grow "
                 "with the number of calibration pairs. Cliff's delta δ = P(variant > "
                 "baseline) − P(variant < baseline) (negative: the variant is faster), labelled "
                 "negligible / small / medium / large at 0.147 / 0.33 / 0.474, with Cliff's (1993) "
                 "CI, and HL, the Hodges-Lehmann shift (variant − baseline, ms), describe the pooled "
                 "samples (i.i.d.). SM MHz and W are the medians over the measurement's blocks of "
                 "NVML's readings, at cap the share of its blocks at the software power cap; ⚠ marks "
                 "a comparison whose median SM clocks differ by more than 2%%. Outliers: Tukey's "
                 "fences, mild (1.5 IQR) / severe (3 IQR), counted, never dropped. Drift: Spearman's "
                 "ρ of latency against sample order, flagged at p < 0.05. %s = 4·B·H·S²·D "
                 "(halved when causal) / median; %s = Q, K, V read and O written once / "
                 "median.%s%s%s\n\n",
            100 * co.boot.level, AB_ROUND_RESAMPLES, co.boot.seed, baseline, co.alpha,
            ab_ci_method_name(co.boot.method), co.boot.resamples, family, co.alpha,
            100 * co.practical, flop_unit.name, byte_unit.name,
            ref_mhz > 0 ? " ms @ clock: the median scaled to the run's highest SM clock "
                          "(median × SM MHz / highest), as if time scaled with the clock "
                          "(compute-bound work; memory-bound work scales less)."
                        : "",
            any_kv ? " Where H_kv or S_kv is given (grouped-query attention, decode): K and V "
                     "are [B, H_kv, S_kv, D], FLOPs 4·B·H·S·S_kv·D with causal counted exactly "
                     "for the bottom-right mask (key j visible to query i when j ≤ i + S_kv − S; "
                     "a decode row sees every key), bytes Q and O once and K, V once per K/V "
                     "head, so decode's GB/s is against the copy ceiling."
                   : "",
            any_bwd ? " Configurations marked bwd or fwd+bwd time the backward pass "
                      "alone (dQ, dK, dV from Q, K, V, O, dO and the forward's logsumexp, "
                      "prepared outside the timed region) or the forward then the backward, "
                      "per pass; their FLOPs are 2.5× resp. 3.5× the forward's "
                      "(FlashAttention's convention) and their bytes Q, O, dO, dQ and K, V, dK, "
                      "dV once (and the forward's for fwd+bwd)."
                    : "");

    if (an->instances_k > 1)
        fprintf(out, "Instances: each variant ran as %d instances (V#1..V#%d, each its own setup: "
                     "fresh allocations, graphs and adapter processes), interleaved in the same "
                     "rounds, and the instance is the unit of its comparison (on its #1 row): each "
                     "instance's mean over its rounds of the log settled per-round median, centred "
                     "on the round's mean over all instances, then Welch's t statistic of those "
                     "means on Hsu's conservative degrees of freedom, the fewer instances minus 1, "
                     "and its interval (a two-stage "
                     "analysis of rounds nested in instances: Donner & Klar 2000 sec. 6.2), so the "
                     "test's variance includes what identical instances differ by. Each "
                     "configuration gives the between-instance and within-instance standard "
                     "deviations.\n\n",
                an->instances_k, an->instances_k);
    else
        fprintf(out, "Instance variance: not measured. Each variant ran as one instance, and "
                     "identical instances can differ for a whole run (fresh allocations, graphs, "
                     "processes): such an offset counts here as a difference of the variants. "
                     "`instances = k;` in the experiment measures it.\n\n");

    /* ---- a calibration run: its A/A table ---- */
    {
        const ab_calibration cal = an->own;
        if (an->own_cal) {
            fprintf(out, "## A/A calibration\n\nInstance #(2i−1) against #(2i) of the same variant, "
                         "disjoint pairs, analysed as below. Every difference called is a false "
                         "positive. Flagged when a one-sided exact binomial test gives p < %.2f: more "
                         "raw p < α than α allows, fewer speedup CIs covering 1 than their %.0f%% "
                         "level, or more verdicts than α. Rates with Clopper-Pearson 95%% CIs.\n\n",
                    AB_CAL_FLAG_P, 100 * cal.level);
            ab_calibration_print(out, &cal);
            fprintf(out, "\n");
        }
    }

    /* a baseline with no usable measurement: one line, not a family of 0 */
    {
        if (!an->baseline_ok) {
            fprintf(out, "**The baseline `%s` has no successful measurement in this run: nothing is "
                         "compared with it** (choose another with `--baseline`).\n\n",
                    baseline);
            fprintf(stderr, "attnbench: report: baseline '%s' has no successful measurement in run "
                            "%lld; the report has no comparisons with it\n",
                    baseline, run_id);
        }
    }

    { /* which method gave the p values (stats/) */
        size_t nm[5] = {0, 0, 0, 0, 0};
        for (size_t i = 0; i < ncmp; i++) {
            ab_pmethod pm = cmps[i].an.paired || cmps[i].an.by_instance ? cmps[i].an.p_method
                                                                        : cmps[i].an.c.mw.method;
            if (cmps[i].an.ok && (unsigned)pm < 5)
                nm[pm]++;
        }
        if (nm[AB_P_WELCH_T])
            fprintf(out, "p values by instance: %zu Welch t. ", nm[AB_P_WELCH_T]);
        fprintf(out, "p values: %zu exact, %zu exact permutation (given the ties), %zu Monte Carlo "
                     "permutation, %zu normal approximation (Mann-Whitney: exact when one sample "
                     "has at most 8 or both at most 50, or ties are heavy). Median CIs of fewer "
                     "than 30 i.i.d. samples are distribution-free order-statistic intervals.\n\n",
                nm[AB_P_EXACT], nm[AB_P_PERMUTATION], nm[AB_P_MONTE_CARLO], nm[AB_P_NORMAL]);
    }

    /* ---- per configuration ---- */
    fprintf(out, "## Results\n\n");
    for (size_t i = 0; i < n;) {
        size_t j = config_end(sorted, n, i);
        char title[128];
        config_title(sorted[i], title, sizeof title);
        fprintf(out, "### %s\n\n", title);
        {
            int sets = 1;
            for (size_t k = i; k < j; k++)
                if (sorted[k]->input_sets > sets)
                    sets = sorted[k]->input_sets;
            if (sets > 1)
                fprintf(out, "Q, K, V, O take %.2f MiB, under twice the L2: hot and graph timings "
                             "rotated among %d copies of them so that launches read from memory, "
                             "not L2.\n\n",
                        sorted[i]->bytes / 1048576.0, sets);
        }
        char clk_col[48] = "";
        if (ref_mhz > 0)
            snprintf(clk_col, sizeof clk_col, " ms @ %.0f MHz |", ref_mhz);
        fprintf(out, "| variant | n | rounds | median ms |%s 95%% CI ms | %s | %s | SM MHz | W "
                     "| at cap | speedup vs %s [95%% CI] | Cliff's δ [95%% CI] | HL shift ms | p "
                     "| p (Holm) | verdict | outliers mild/severe | drift |\n",
                clk_col, flop_unit.name, byte_unit.name, baseline);
        fprintf(out, "|---|---:|---:|---:|%s---|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---|---|---|\n",
                ref_mhz > 0 ? "---:|" : "");
        for (size_t k = i; k < j; k++) {
            const cmp *cp = NULL;
            for (size_t c = 0; c < ncmp; c++)
                if (cmps[c].a == sorted[k] && ab_run_is_variant(an, cmps[c].b->r.variant, baseline))
                    cp = &cmps[c];
            row(out, an, sorted[k], cp, baseline, ref_mhz);
        }
        { /* the chain (--chain), the claims against other variants (`than`)
             * and every comparison with a predicted speedup (`speedup`) */
            int any = 0;
            for (size_t c = 0; c < ncmp; c++) {
                if (cmps[c].a->r.config != sorted[i]->r.config ||
                    (ab_run_is_variant(an, cmps[c].b->r.variant, baseline) && !cmps[c].predicted))
                    continue;
                /* the predicted range and where the estimate falls: columns
                 * of their own only when the experiment predicts any */
                const char *pcols = any_predicted ? " predicted | estimate |" : "";
                const char *prule = any_predicted ? "---|---|" : "";
                if (!any && o->chain)
                    fprintf(out, "\nEach rung against the one before it%s:\n\n| rung | previous | "
                                 "speedup [95%% CI] | Cliff's δ | p (Holm) | verdict |%s\n"
                                 "|---|---|---|---|---:|---|%s\n",
                            any_predicted ? " (and the pairs the experiment predicts a speedup for)" : "",
                            pcols, prule);
                else if (!any)
                    fprintf(out, "\nThe claims against other variants than %s (`expect`'s `than`)%s, "
                                 "in the same family:\n\n| variant | than | speedup [95%% CI] | "
                                 "Cliff's δ | p (Holm) | verdict |%s\n|---|---|---|---|---:|---|%s\n",
                            baseline, any_predicted ? " and the predicted speedups" : "", pcols, prule);
                any = 1;
                char pred[64] = "";
                if (any_predicted && cmps[c].predicted)
                    snprintf(pred, sizeof pred, " %.3f–%.3f× | %s |", cmps[c].pred_lo,
                             cmps[c].pred_hi, ab_rep_prediction(&cmps[c]));
                else if (any_predicted)
                    snprintf(pred, sizeof pred, " | |");
                if (!cmps[c].an.ok) {
                    fprintf(out, "| %s | %s | — | | | |%s\n", cmps[c].a->r.variant,
                            cmps[c].b->r.variant, pred);
                    continue;
                }
                char p2[32];
                if (cmps[c].an.too_few)
                    snprintf(p2, sizeof p2, "— (%zu rounds)", cmps[c].an.rr.rounds);
                else if (cmps[c].an.too_few_family)
                    snprintf(p2, sizeof p2, "— (family of %zu)", cmps[c].an.family);
                else
                    fmt_p(cmps[c].an.p_adj, p2, sizeof p2);
                fprintf(out, "| %s | %s | %.3f× [%.3f, %.3f]%s | %+.3f %s | %s | **%s** |%s\n",
                        cmps[c].a->r.variant, cmps[c].b->r.variant, cmps[c].an.speedup, cmps[c].an.lo,
                        cmps[c].an.hi, cmps[c].an.paired || cmps[c].an.by_instance ? "" : " ‡",
                        cmps[c].an.c.cliff.delta,
                        ab_cliffs_magnitude(cmps[c].an.c.cliff.delta), p2, ab_rep_verdict(&cmps[c]),
                        pred);
            }
        }
        for (size_t c = 0; c < ncmp; c++)
            if (cmps[c].an.ok && cmps[c].clocks_differ && cmps[c].a->r.config == sorted[i]->r.config)
                fprintf(out, "\n⚠ %s ran at a median SM clock of %.0f MHz, %s at %.0f MHz (more "
                             "than 2%% apart): part of their difference may be the clock's.\n",
                        cmps[c].a->r.variant, cmps[c].a->clk.sm_mhz, cmps[c].b->r.variant,
                        cmps[c].b->clk.sm_mhz);
        for (size_t c = 0; c < ncmp; c++)
            if (cmps[c].an.ok && cmps[c].an.paired && cmps[c].an.rr.serial.widened &&
                cmps[c].a->r.config == sorted[i]->r.config)
                fprintf(out, "\n%s against %s: serial correlation of the per-round log ratios "
                             "(Young's test p = %.3f, lag-1 r1 = %.2f, bias-corrected ρ = %.2f > 0): "
                             "the test and the "
                             "interval are widened, variance × %.2f (%.1f effective rounds of "
                             "%zu).\n",
                        cmps[c].a->r.variant, cmps[c].b->r.variant, cmps[c].an.rr.serial.p_serial,
                        cmps[c].an.rr.serial.r1,
                        cmps[c].an.rr.serial.rho, cmps[c].an.rr.serial.inflation,
                        (double)cmps[c].an.rr.rounds / cmps[c].an.rr.serial.inflation,
                        cmps[c].an.rr.rounds);
        for (size_t c = 0; c < ncmp; c++) {
            const cmp *x = &cmps[c];
            if (!x->an.ok || !x->an.by_instance || x->a->r.config != sorted[i]->r.config)
                continue;
            fprintf(out, "\n%.*s against %.*s by instance (%zu and %zu instances, %.1f rounds "
                         "each): between-instance sd %.2f%%, within-instance round sd %.2f%% (log "
                         "scale), Welch t on %.0f df (Hsu); minimum detectable effect %.2f%% (α = 0.05, 80%% "
                         "power).\n",
                    (int)strcspn(x->a->r.variant, "#"), x->a->r.variant,
                    (int)strcspn(x->b->r.variant, "#"), x->b->r.variant, x->an.ir.instances_a,
                    x->an.ir.instances_b, x->an.ir.rounds, 100 * x->an.ir.sd_instance,
                    100 * x->an.ir.sd_round, x->an.ir.w.df, 100 * x->an.ir.mde);
        }
        { /* the minimum detectable effect of each paired comparison with the baseline */
            int any = 0;
            for (size_t c = 0; c < ncmp; c++) {
                const cmp *x = &cmps[c];
                if (!x->an.ok || !x->an.paired || !isfinite(x->an.rr.mde) ||
                    x->a->r.config != sorted[i]->r.config || !ab_run_is_variant(an, x->b->r.variant, baseline))
                    continue;
                fprintf(out, "%s %s %.2f%% (%zu rounds)", any ? "," : "\nMinimum detectable effect "
                             "(α = 0.05, 80% power, from the spread of the per-round log ratios):",
                        x->a->r.variant, 100 * x->an.rr.mde, x->an.rr.rounds);
                any = 1;
            }
            if (any)
                fprintf(out, ".\n");
        }
        for (size_t k = i; k < j; k++)
            if (sorted[k]->r.throttled)
                fprintf(out, "\n%s: %ld samples taken while throttled, excluded.\n",
                        sorted[k]->r.variant, sorted[k]->r.throttled);
        fprintf(out, "\n");
        i = j;
    }

    /* ---- summary across configurations ---- */
    fprintf(out, "## Summary: median %s\n\n| configuration |", flop_unit.name);
    for (size_t v = 0; v < e.nvariants; v++)
        fprintf(out, " %s |", e.variants[v].name);
    fprintf(out, "\n|---|");
    for (size_t v = 0; v < e.nvariants; v++)
        fprintf(out, "---:|");
    fprintf(out, "\n");
    summary_rows(out, &e, m, n, sorted, 0);

    /* ---- throughput and memory (seed 001, seed 003) ---- */
    fprintf(out, "\n## Summary: throughput and memory\n\ntokens/s = B·S / median; peak = "
                 "%s the variant needed (Q, K, V, O and its own workspace, MiB).\n\n"
                 "| configuration |",
            !cpu_meas ? "device memory" : !device_meas ? "host memory"
                      : "device memory (host memory for CPU variants)");
    for (size_t v = 0; v < e.nvariants; v++)
        fprintf(out, " %s tokens/s | peak MiB |", e.variants[v].name);
    fprintf(out, "\n|---|");
    for (size_t v = 0; v < e.nvariants; v++)
        fprintf(out, "---:|---:|");
    fprintf(out, "\n");
    summary_rows(out, &e, m, n, sorted, 1);

    /* ---- roofline (seed 004's analysis) ---- */
    if (peak_gemm > 0 && peak_copy > 0) {
        const double ridge = peak_gemm * 1e12 / (peak_copy * 1e9);
        fprintf(out, "\n## Roofline\n\nCeilings measured at the start of this run: %.0f TFLOP/s "
                     "(cuBLAS bf16 GEMM 8192³) and %.0f GB/s (device-to-device copy, read + "
                     "written); ridge point %.0f FLOP/byte. Arithmetic intensity counts Q, K, V "
                     "read and O written once; attainable = min(peak, intensity × bandwidth).\n\n"
                     "| configuration | intensity FLOP/byte | bound | attainable TFLOP/s | best "
                     "variant | its TFLOP/s | of attainable |\n|---|---:|---|---:|---|---:|---:|\n",
                peak_gemm, peak_copy, ridge);
        for (size_t i = 0; i < n;) {
            size_t j = config_end(sorted, n, i);
            char title[128];
            config_title(sorted[i], title, sizeof title);
            const double ai = sorted[i]->r.flops / sorted[i]->bytes;
            const double attain = fmin(peak_gemm, ai * peak_copy * 1e-3);
            const meas *best = NULL;
            double best_tf = 0;
            for (size_t k = i; k < j; k++) {
                if (sorted[k]->have_summary && sorted[k]->r.flops / (sorted[k]->s.median * 1e9) > best_tf) {
                    best_tf = sorted[k]->r.flops / (sorted[k]->s.median * 1e9);
                    best = sorted[k];
                }
            }
            fprintf(out, "| %s | %.0f | %s | %.0f | %s | %.1f | %.1f%% |\n", title, ai,
                    ai < ridge ? "memory" : "compute", attain, best ? best->r.variant : "—", best_tf,
                    100.0 * best_tf / attain);
            i = j;
        }
    }

    /* ---- backward passes: training step, scaling with B, bandwidth ---- */
    ab_report_training(out, sorted, n, an->bw, an->nbw, peak_copy);

    /* ---- wall time (runs that recorded it) ---- */
    {
        if (rec->walltime_status == 0)
            ab_walltime_report(out, &rec->wall, rec->wv, rec->nwv);
    }

    /* ---- correctness ---- */
    fprintf(out, "\n## Correctness\n\nEach measurement was checked before it was timed: output "
                 "poisoned with NaN, one run, compared with a float64 reference on the same "
                 "inputs (all rows, or 64 seeded rows per (b, h) slice for larger S). Pass: no "
                 "NaN/Inf and max abs error ≤ 2 × the error of a plain same-precision "
                 "implementation + FlashAttention's atol.\n\n");
    fprintf(out, "| configuration | variant | status | max abs err | tolerance | mean abs err | rel L2 "
                 "| non-finite | rows checked | peak MiB | stop |\n");
    fprintf(out, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (size_t i = 0; i < n; i++) {
        meas *x = sorted[i];
        char title[128];
        config_title(x, title, sizeof title);
        if (x->checked) {
            char rows[32] = ""; /* blank where the variant did not report its rows */
            if (x->rows_checked >= 0)
                snprintf(rows, sizeof rows, "%ld", x->rows_checked);
            fprintf(out, "| %s | %s | %s | %.3e | %.3e | %.3e | %.3e | %ld | %s | %.1f | %s |\n",
                    title, x->r.variant, x->r.status, x->max_abs_err, x->tolerance, x->mean_abs_err,
                    x->rel_l2_err, x->nonfinite, rows, x->peak_bytes / 1048576.0, x->r.stop);
        } else
            fprintf(out, "| %s | %s | %s | | | | | | | | %s |\n", title, x->r.variant, x->r.status,
                    x->message && *x->message ? x->message : "");
    }
    int any_msg = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(sorted[i]->r.status, "ok") != 0 && sorted[i]->message && *sorted[i]->message) {
            if (!any_msg)
                fprintf(out, "\nFailures:\n\n");
            any_msg = 1;
            char title[128];
            config_title(sorted[i], title, sizeof title);
            fprintf(out, "- %s, %s: %s\n", title, sorted[i]->r.variant, sorted[i]->message);
        }
    ab_report_check_coverage(rec, out);
    ab_report_grad_checks(rec, out);

    if (o->plots) { /* the figures draw the model loaded above, in the measurements' order */
        ab_rmeas *pm = calloc(n ? n : 1, sizeof *pm);
        for (size_t i = 0; pm && i < n; i++)
            pm[i] = m[i].r; /* shallow: the samples stay m's */
        if (pm)
            ab_report_plots(pm, n, &e, o->path, out); /* prints its own errors */
        free(pm);
    }

    /* ---- environment ---- */
    fprintf(out, "\n## Environment fingerprint\n\n```json\n");
    if (fp) {
        char *pretty = json_dumps(fp, JSON_SORT_KEYS | JSON_INDENT(2));
        fprintf(out, "%s\n", pretty ? pretty : fp_text);
        free(pretty);
    } else {
        fprintf(out, "%s\n", fp_text);
    }
    fprintf(out, "```\n");
    /* external variants bring their own environment (e.g. PyTorch's
     * version): part of this run's fingerprint, listed per variant */
    {
        adapter_env_ctx ac = {out, 0};
        for (size_t i = 0; i < rec->nenvs; i++)
            print_adapter_env(&ac, rec->envs[i].variant, rec->envs[i].env);
    }
    { /* what produced each variant's numbers: built in, which plugin library, which adapter */
        if (an->provenance) {
            fprintf(out, "\nProvenance of each variant:\n");
            ab_provenance_markdown(out, an->provenance);
        }
    }
    /* ---- conclusion against the hypothesis (conclusion.c) ---- */
    ab_conclusion_write(out, &an->judged, an->sorted_r, n);
    rc = 0;
cleanup:
    json_decref(fp);
    json_decref(settings);
    return rc;
}
