/*
 * run_analysis.h: the analysis of one run, computed once from its record
 * (db/run_record.h) before anything is written: each measurement's
 * summary (median and its CI over rounds, Tukey's outliers, drift), the
 * report's family of comparisons (every variant against the baseline, the
 * chain, the claims against other variants; paired over rounds, or by
 * instance) with their verdicts after the family correction and the A/A
 * resolution (resolution.h), the A/A calibration of the run's environment
 * and, for a calibration run, its own (calibration.h), the experiment's
 * claims judged from the verdicts (claims.h), and each variant's
 * provenance. The writers (src/report/: markdown, JSON, plots) print what
 * is here and compute nothing of their own from the samples.
 */
#ifndef ATTNBENCH_RUN_ANALYSIS_H
#define ATTNBENCH_RUN_ANALYSIS_H

#include "abstats.h"
#include "calibration.h"
#include "claims.h"
#include "clocks.h"
#include "experiment.h"
#include "pair.h"
#include "resolution.h"
#include "rounds.h"
#include "run_record.h"

#include <jansson.h>
#include <stddef.h>

typedef struct ab_rep_meas {
    ab_rmeas r;       /* id, variant, shape, status, samples, rounds, configuration
                         (shallow: the samples stay the record's) */
    char backend[32], mode[8];
    int input_sets;
    const char *message; /* the record's */
    int checked, external, warmup, graph_k;
    double max_abs_err, mean_abs_err, rel_l2_err, tolerance, bytes, peak_bytes;
    long nonfinite;
    long rows_checked; /* -1: not reported by the variant (an adapter may omit it) */
    int order;        /* position of the variant in the experiment */
    /* the summary (usable measurements only) */
    int have_summary;
    ab_summary s;
    double lo, hi;    /* 95% CI of the median */
    int ci_rounds;    /* 1: cluster bootstrap over rounds; 0: i.i.d. (one round) */
    const char *ci_name; /* the interval's method (src/analysis/median_ci.h) */
    ab_outliers ol;   /* Tukey's fences (with the summary) */
    int drift_ok;     /* drift tested (at least 3 samples) */
    ab_drift dr;
    ab_clock_summary clk;
} ab_rep_meas;

typedef struct ab_rep_cmp {
    ab_rep_meas *a, *b;  /* candidate, reference */
    ab_pair_analysis an; /* the comparison (src/analysis/pair.h) */
    int clocks_differ;   /* median SM clocks more than 2% apart */
    int predicted;       /* the experiment predicts this pair's speedup (`expect`'s `speedup`) */
    double pred_lo, pred_hi; /* that range */
} ab_rep_cmp;

/* Where comparison c's estimate falls against its predicted range:
 * "inside", "below", "above" (with ", CI outside" when its 95% CI lies
 * wholly outside the range); "" when c has no prediction or no estimate. */
const char *ab_rep_prediction(const ab_rep_cmp *c);

/* 1 when x was measured ok with at least 2 samples (run_compare.c). */
int ab_rep_usable(const ab_rep_meas *x);

/* Computes comparison c of c->a against c->b (both with r and clk
 * filled): the i.i.d. statistics (ab_compare), and the paired inference
 * over the rounds both were sampled in when there are at least 2 shared
 * rounds (stats/rounds.h), else the i.i.d. speedup and Mann-Whitney p (a
 * variant sampled outside the rounds, e.g. a protocol-1 adapter). Sets ok,
 * paired, speedup/lo/hi, p, too_few (the test cannot reach p < alpha),
 * clocks_differ. */
void ab_rep_compare(ab_rep_cmp *c, const ab_compare_opts *co);

/* The verdict of c given its family-adjusted p (or its raw p, for the
 * per-comparison error rate): the one verdict rule (ab_decide_why,
 * stats/verdict.c) on c's speedup and CI with min_shift_ms the minimum
 * resolvable shift (resolution.h; 0: none); no difference when the rounds
 * are too few for the test or the family. Sets verdict, why and
 * below_floor. */
void ab_rep_decide(ab_rep_cmp *c, double p_adj, const ab_compare_opts *co, double min_shift_ms);

/* Marks every computed comparison of c[0..n) too_few_family when no
 * comparison of the family can reach alpha after Holm's adjustment: Holm's
 * adjusted p-values are all at least n_ok x min p (Holm 1979), and each p is
 * at least its test's smallest attainable value (p_min of a round-level
 * test, 0 for an i.i.d. one), so n_ok x min p_min >= alpha rules every
 * verdict out. Sets family = n_ok on each. */
void ab_rep_family_limit(ab_rep_cmp *c, size_t n, double alpha);

/* "paired over N rounds: ..." / "i.i.d. ..." method name of a comparison. */
const char *ab_rep_method(const ab_rep_cmp *c);

/* The verdict as reports print it: ab_verdict_name, or "no significant
 * difference (...)" with why (too few rounds, below the timer floor). */
const char *ab_rep_verdict(const ab_rep_cmp *c);

/* The achieved bandwidth of one variant in one pass over its
 * configurations: bytes / median of each usable measurement (GB/s). */
typedef struct ab_pass_bandwidth {
    const char *pass, *variant; /* "fwd", "bwd", "fwd+bwd"; the measurement's */
    size_t n;                   /* configurations */
    double median, max;         /* GB/s */
} ab_pass_bandwidth;

/* What the analysis is asked. */
typedef struct ab_analysis_opts {
    const char *baseline; /* NULL: the experiment's baseline, else its first variant */
    int chain;            /* also compare each variant with the one listed before it
                             (by instance when the run has instances) */
    int by_clock;         /* the run's highest SM clock, for clock-normalised latency */
} ab_analysis_opts;

#define AB_ANALYSIS_MAX_MODES 8

typedef struct ab_run_analysis {
    ab_experiment e;          /* the stored experiment, parsed */
    int instances_k;          /* instances per variant (1: none) */
    char baseline[256];
    ab_rep_meas *m;           /* m[i] for the record's m[i] */
    size_t n;
    ab_rep_meas **sorted;     /* by configuration, then the variant's order */
    ab_rep_cmp *cmps;         /* the family, decided */
    size_t ncmp, family;      /* family: the computed comparisons */
    ab_compare_opts co;       /* the options they were made with (alpha, practical) */
    double ref_mhz;           /* by_clock: the run's highest SM clock, else 0 */
    int any_bwd, any_kv;      /* a backward measurement; H_kv != H or S_kv != S */
    double max_flop_s, max_byte_s; /* largest rates of a summarised measurement (for units) */
    int cpu_meas, device_meas; /* measurements on the CPU, on a device */
    int baseline_ok;          /* the baseline has a usable measurement */
    int cal_status;           /* environment's calibration: 0 in cal, 1 none, -1 error */
    ab_calibration cal;
    int own_cal;              /* a calibration run ("*-calibration") with its own A/A table in own */
    ab_calibration own;
    json_t *provenance;       /* src/run/provenance.h; NULL when unread */
    ab_outcome *outcomes;     /* outcomes[i]: cmps[i]'s verdict, for the claims */
    const ab_rmeas **sorted_r; /* sorted[i]->r */
    ab_pass_bandwidth *bw;    /* per pass (fwd, bwd, fwd+bwd) and variant in sorted order */
    size_t nbw;
    ab_judged judged;         /* the claims judged and the spread (claims.h) */
    int judged_set;           /* judged was built (to be freed) */
    size_t ngroups;           /* the A/A groups of each timing mode used */
    ab_aa_groups *groups;
} ab_run_analysis;

/* Analyses record rec into *an (zeroed first). Returns 0, or -1 with a
 * message printed (the stored experiment does not parse, the baseline is
 * not a variant of the run, out of memory, a statistics error). Free with
 * ab_run_analysis_free (also after -1); an points into rec, which must
 * outlive it. */
int ab_run_analyse(const ab_run_record *rec, const ab_analysis_opts *o, ab_run_analysis *an);
void ab_run_analysis_free(ab_run_analysis *an);

/* 1 when measurement variant v is the variant named (itself, or with
 * instances one of its instances v#k). */
int ab_run_is_variant(const ab_run_analysis *an, const char *v, const char *name);

#endif
