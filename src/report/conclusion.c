/*
 * conclusion.c: a report's conclusion against its hypothesis (conclusion.h):
 * the experiment's claims (`expect`, else the ablation's default), each
 * judged from the verdicts the report printed, and the measurements whose
 * samples are too spread out to trust (spread.h).
 */
#include "units.h"
#include "conclusion.h"
#include "claims.h"
#include "spread.h"

#include <jansson.h>
#include <libconfig.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const ab_exp_variant *exp_variant(const ab_experiment *e, const char *name)
{
    for (size_t i = 0; i < e->nvariants; i++)
        if (strcmp(e->variants[i].name, name) == 0)
            return &e->variants[i];
    return NULL;
}

enum { NO_CLAIM, STATED, AA_TEST };

/* The claim for (variant, than) and where it comes from (*source): the
 * experiment's `expect`, else "no difference" when both are instances of one
 * built-in variant in one timing mode (an A/A test), else none. */
static ab_verdict claim_for(const ab_experiment *e, const ab_claim *c, size_t nc, const char *variant,
                            const char *than, int *source)
{
    for (size_t i = 0; i < nc; i++)
        if (ab_claim_names(e, variant, c[i].variant) && ab_claim_names(e, than, c[i].than)) {
            *source = STATED;
            return c[i].verdict;
        }
    const ab_exp_variant *a = exp_variant(e, variant), *b = exp_variant(e, than);
    *source = a && b && a->native && a->native == b->native && a->timing == b->timing &&
                      !a->command && !b->command
                  ? AA_TEST
                  : NO_CLAIM;
    return AB_NO_DIFFERENCE;
}

typedef struct part {
    const char *variant, *reference;
    ab_verdict claim;
    int source; /* NO_CLAIM, STATED, AA_TEST */
    int count[3]; /* by verdict: no difference, faster, slower */
    int not_compared, wide;
} part;

enum { HELD, NOT_HELD, INCONCLUSIVE, NOT_JUDGED };
static const char *const outcome_name[] = {"held", "did not hold", "inconclusive", "not judged"};

static int judge(const part *p)
{
    if (p->source == NO_CLAIM)
        return NOT_JUDGED;
    const int total = p->count[0] + p->count[1] + p->count[2] + p->not_compared;
    const int contradicting = p->claim == AB_FASTER   ? p->count[AB_SLOWER]
                              : p->claim == AB_SLOWER ? p->count[AB_FASTER]
                                                      : p->count[AB_FASTER] + p->count[AB_SLOWER];
    if (contradicting > 0)
        return NOT_HELD;
    if (total > 0 && p->count[p->claim] == total)
        return HELD;
    return INCONCLUSIVE;
}

/* What the verdicts say without a claim: one verdict everywhere, one
 * direction with some configurations undecided, or both directions. */
static const char *finding(const part *p)
{
    const int total = p->count[0] + p->count[1] + p->count[2] + p->not_compared;
    if (total == 0 || p->not_compared == total)
        return "nothing compared";
    if (p->count[AB_FASTER] == total)
        return "faster everywhere";
    if (p->count[AB_SLOWER] == total)
        return "slower everywhere";
    if (p->count[AB_NO_DIFFERENCE] == total)
        return "no significant difference anywhere";
    if (p->count[AB_FASTER] && p->count[AB_SLOWER])
        return "faster in some configurations, slower in others";
    if (p->count[AB_FASTER])
        return "faster or no significant difference";
    if (p->count[AB_SLOWER])
        return "slower or no significant difference";
    return "no significant difference where compared";
}

static const char *claim_text(ab_verdict v)
{
    return v == AB_FASTER ? "faster" : v == AB_SLOWER ? "slower" : "no difference";
}

/* The parts of a conclusion and the spread of each measurement, built once
 * for both writers. */
typedef struct judged {
    config_t cfg;      /* the claims point into it */
    ab_claim *claims;
    part *parts;
    size_t np;
    ab_spread *sp;
    int *has_sp;
} judged;

static void judged_free(judged *J)
{
    free(J->parts);
    free(J->sp);
    free(J->has_sp);
    free(J->claims);
    config_destroy(&J->cfg);
}

/* Builds J from the outcomes o[0..n) and measurements meas[0..nmeas).
 * Returns 0, or -1 when out of memory (J to be freed either way). */
static int judge_all(judged *J, const ab_experiment *e, const ab_outcome *o, size_t n,
                     const ab_rmeas *const *meas, size_t nmeas)
{
    size_t nclaims = 0;
    char err[512];
    memset(J, 0, sizeof *J);
    config_init(&J->cfg);
    if (ab_claims_load(e, &J->cfg, &J->claims, &nclaims, err, sizeof err))
        J->claims = NULL, nclaims = 0; /* checked at run time; an old run's text: defaults */
    J->parts = calloc(n ? n : 1, sizeof *J->parts);
    J->sp = calloc(nmeas ? nmeas : 1, sizeof *J->sp);
    J->has_sp = calloc(nmeas ? nmeas : 1, sizeof *J->has_sp);
    if (!J->parts || !J->sp || !J->has_sp)
        return -1;
    for (size_t i = 0; i < nmeas; i++)
        J->has_sp[i] = strcmp(meas[i]->status, "ok") == 0 && meas[i]->n >= 2 &&
                       ab_spread_check(meas[i]->ms, meas[i]->n, &J->sp[i]) == 0;
    for (size_t i = 0; i < n; i++) {
        part *p = NULL;
        for (size_t k = 0; k < J->np && !p; k++)
            if (strcmp(J->parts[k].variant, o[i].variant->variant) == 0 &&
                strcmp(J->parts[k].reference, o[i].reference->variant) == 0)
                p = &J->parts[k];
        if (!p) {
            p = &J->parts[J->np++];
            p->variant = o[i].variant->variant;
            p->reference = o[i].reference->variant;
            p->claim = claim_for(e, J->claims, nclaims, p->variant, p->reference, &p->source);
        }
        if (o[i].computed)
            p->count[o[i].verdict]++;
        else
            p->not_compared++;
        for (size_t k = 0; k < nmeas; k++)
            if ((meas[k] == o[i].variant || meas[k] == o[i].reference) && J->has_sp[k] &&
                J->sp[k].wide)
                p->wide++;
    }
    return 0;
}

static const char *claim_name(const part *p)
{
    return p->source == NO_CLAIM  ? "none stated"
           : p->source == AA_TEST ? "no difference (A/A)"
                                  : claim_text(p->claim);
}

/* The overall outcome from the tally of judge() over the parts: "held",
 * "inconclusive", "held in part", "did not hold", or "not judged" when no
 * part has a claim; *judged_n: the parts judged. */
static const char *overall_of(const int tally[4], int *judged_n)
{
    *judged_n = tally[HELD] + tally[NOT_HELD] + tally[INCONCLUSIVE];
    if (*judged_n == 0)
        return "not judged";
    return tally[NOT_HELD] == 0 && tally[INCONCLUSIVE] == 0 ? "held"
           : tally[NOT_HELD] == 0                           ? "inconclusive"
           : tally[HELD] > 0                                ? "held in part"
                                                            : "did not hold";
}

static json_t *num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

json_t *ab_conclusion_json(const ab_experiment *e, const ab_outcome *o, size_t n,
                           const ab_rmeas *const *meas, size_t nmeas)
{
    judged J;
    json_t *root = NULL;
    if (judge_all(&J, e, o, n, meas, nmeas))
        goto cleanup;
    root = json_object();
    json_t *parts = json_array(), *wide = json_array();
    int tally[4] = {0, 0, 0, 0};
    for (size_t k = 0; k < J.np; k++) {
        const part *p = &J.parts[k];
        const int j = judge(p);
        tally[j]++;
        json_array_append_new(
            parts, json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:s, s:s?}", "variant",
                             p->variant, "reference", p->reference, "claim", claim_name(p),
                             "faster", p->count[AB_FASTER], "slower", p->count[AB_SLOWER],
                             "no_difference", p->count[AB_NO_DIFFERENCE], "not_compared",
                             p->not_compared, "wide", p->wide, "outcome", outcome_name[j],
                             "finding", j == NOT_JUDGED ? finding(p) : NULL));
    }
    for (size_t i = 0; i < nmeas; i++)
        if (J.has_sp[i] && J.sp[i].wide) {
            char title[128];
            ab_rmeas_title(meas[i], title, sizeof title);
            json_array_append_new(wide, json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:b}", "variant",
                                                  meas[i]->variant, "config", title, "p10",
                                                  num(J.sp[i].p10), "p90", num(J.sp[i].p90),
                                                  "ratio", num(J.sp[i].ratio), "bimodality",
                                                  num(J.sp[i].bc), "bimodal", J.sp[i].bimodal));
        }
    int judged_n;
    const char *overall = J.np == 0 ? "inconclusive (nothing compared)" : overall_of(tally, &judged_n);
    json_object_set_new(root, "parts", parts);
    json_object_set_new(root, "overall", json_string(overall));
    json_object_set_new(root, "held", json_integer(tally[HELD]));
    json_object_set_new(root, "did_not_hold", json_integer(tally[NOT_HELD]));
    json_object_set_new(root, "inconclusive", json_integer(tally[INCONCLUSIVE]));
    json_object_set_new(root, "not_judged", json_integer(tally[NOT_JUDGED]));
    json_object_set_new(root, "wide_measurements", wide);
cleanup:
    judged_free(&J);
    return root;
}

void ab_conclusion_write(FILE *out, const ab_experiment *e, const ab_outcome *o, size_t n,
                         const ab_rmeas *const *meas, size_t nmeas)
{
    judged J;
    if (judge_all(&J, e, o, n, meas, nmeas)) {
        fprintf(out, "\n## Conclusion\n\n(out of memory)\n");
        goto cleanup;
    }
    const part *parts = J.parts;
    const size_t np = J.np;
    const ab_spread *sp = J.sp;
    const int *has_sp = J.has_sp;

        fprintf(out, "\n## Conclusion\n\nAgainst the hypothesis above, from this report's own "
                 "verdicts. The hypothesis is free text; what is judged is one claim per part (a "
                 "variant against its reference, in every configuration): the verdict the "
                 "experiment expects in its `expect` list, or no difference when both are "
                 "instances of one variant (an A/A test). A part **held** when every "
                 "configuration's verdict is the claimed one, **did not hold** when any verdict "
                 "contradicts it, and is **inconclusive** otherwise (no significant difference, "
                 "or no comparison, somewhere). A part without a claim is not judged; its "
                 "verdicts are summarised. Wide: measurements of the part whose p90/p10 exceeds "
                 "%.1f (listed below).\n\n",
            AB_SPREAD_RATIO);
    if (np == 0) {
        fprintf(out, "No comparisons: the experiment has a single variant, or none was "
                     "measured, so nothing was tested: **inconclusive**.\n");
    } else {
        int tally[4] = {0, 0, 0, 0};
        fprintf(out, "| part | claim | faster | slower | no significant difference | not compared "
                     "| wide | outcome |\n|---|---|---:|---:|---:|---:|---:|---|\n");
        for (size_t k = 0; k < np; k++) {
            const part *p = &parts[k];
            const int j = judge(p);
            tally[j]++;
            fprintf(out, "| %s vs %s | %s | %d | %d | %d | %d | %d | ", p->variant, p->reference,
                    claim_name(p),
                    p->count[AB_FASTER], p->count[AB_SLOWER], p->count[AB_NO_DIFFERENCE],
                    p->not_compared, p->wide);
            if (j == NOT_JUDGED)
                fprintf(out, "not judged: %s |\n", finding(p));
            else
                fprintf(out, "**%s** |\n", outcome_name[j]);
        }
        int judged;
        const char *overall = overall_of(tally, &judged);
        if (judged == 0) {
            fprintf(out, "\nOverall: **not judged**. The experiment states no expected verdicts "
                         "(`expect = ( { variant = ...; than = ...; verdict = \"faster\"; } );`), "
                         "so its hypothesis is compared with the findings above by the reader, "
                         "not by attnbench.\n");
        } else {
            fprintf(out, "\nOverall: of %d judged part%s, %d held, %d did not hold, %d "
                         "inconclusive%s. The hypothesis: **%s**.\n",
                    judged, judged == 1 ? "" : "s", tally[HELD], tally[NOT_HELD],
                    tally[INCONCLUSIVE], tally[NOT_JUDGED] ? " (parts without a claim not counted)" : "",
                    overall);
        }
    }

    size_t nwide = 0;
    for (size_t i = 0; i < nmeas; i++)
        nwide += has_sp[i] && sp[i].wide;
    if (nwide == 0) {
        fprintf(out, "\nSpread: every measurement's p90/p10 is within %.1f.\n", AB_SPREAD_RATIO);
        goto cleanup;
    }
    fprintf(out, "\n**Warning: %zu measurement%s spread too widely to trust** (p90/p10 > %.1f; "
                 "bimodal when the bimodality coefficient also exceeds 5/9, Pfister et al. 2013). "
                 "Their medians depend on how many samples fell in each mode; on a CPU this is "
                 "usually threads waiting for a busy core (see the run's load average and "
                 "threads above):\n\n",
            nwide, nwide == 1 ? "" : "s", AB_SPREAD_RATIO);
    size_t shown = 0;
    for (size_t i = 0; i < nmeas; i++) {
        if (!has_sp[i] || !sp[i].wide)
            continue;
        if (shown++ == 20) {
            fprintf(out, "- … and %zu more\n", nwide - 20);
            break;
        }
        char title[128];
        ab_rmeas_title(meas[i], title, sizeof title);
        char m1[40], m2[40];
        fprintf(out, "- %s, %s: p10 %s ms, p90 %s ms (×%.1f), bimodality coefficient %.2f%s\n",
                meas[i]->variant, title, ab_fmt_ms(sp[i].p10, 0, m1, sizeof m1),
                ab_fmt_ms(sp[i].p90, 0, m2, sizeof m2), sp[i].ratio, sp[i].bc,
                sp[i].bimodal ? ": **bimodal**" : "");
    }
cleanup:
    judged_free(&J);
}
