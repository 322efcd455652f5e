/*
 * conclusion.c: writes a report's conclusion against its hypothesis
 * (conclusion.h): the claims as src/analysis/claims.c judged them from the
 * report's verdicts, and the measurements whose samples are too spread out
 * to trust (src/analysis/spread.h).
 */
#include "units.h"
#include "conclusion.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t *num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

/* "A vs B", with the covering claim's `where` in brackets when it has one,
 * into buf (n bytes); returns buf */
static const char *part_name(const ab_part *p, char *buf, size_t n)
{
    snprintf(buf, n, "%s vs %s%s%s%s", p->variant, p->reference, *p->where ? " (" : "", p->where,
             *p->where ? ")" : "");
    return buf;
}

json_t *ab_conclusion_json(const ab_judged *J_, const ab_rmeas *const *meas, size_t nmeas)
{
    const ab_judged J = *J_;
    json_t *root = NULL;
    if (J.status)
        return NULL;
    root = json_object();
    json_t *parts = json_array(), *wide = json_array();
    int tally[4] = {0, 0, 0, 0};
    for (size_t k = 0; k < J.np; k++) {
        const ab_part *p = &J.parts[k];
        const int j = ab_part_judge(p);
        tally[j]++;
        json_t *part = json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:s, s:s?}", "variant",
                                 p->variant, "reference", p->reference, "claim", ab_part_claim_name(p),
                                 "faster", p->count[AB_FASTER], "slower", p->count[AB_SLOWER],
                                 "no_difference", p->count[AB_NO_DIFFERENCE], "not_compared",
                                 p->not_compared, "wide", p->wide, "outcome", ab_part_outcome_name(j),
                                 "finding", j == AB_NOT_JUDGED ? ab_part_finding(p) : NULL);
        if (part && *p->where) /* the claim's `where`: a part of the pair's configurations */
            json_object_set_new(part, "where", json_string(p->where));
        if (part && p->has_range) {
            const int ne = p->inside + p->below + p->above;
            json_object_set_new(
                part, "predicted",
                json_pack("{s:o, s:o, s:i, s:i, s:i, s:i, s:o, s:o, s:o, s:s}", "lo",
                          num(p->range_lo), "hi", num(p->range_hi), "inside", p->inside, "below",
                          p->below, "above", p->above, "ci_outside", p->excluded, "geomean",
                          ne ? num(exp(p->log_sum / ne)) : json_null(), "min",
                          ne ? num(p->est_min) : json_null(), "max",
                          ne ? num(p->est_max) : json_null(), "outcome",
                          ab_part_outcome_name(ab_part_range_judge(p))));
        }
        json_array_append_new(parts, part);
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
    const char *overall = J.np == 0 ? "inconclusive (nothing compared)" : ab_conclusion_overall(tally, &judged_n);
    json_object_set_new(root, "parts", parts);
    json_object_set_new(root, "overall", json_string(overall));
    json_object_set_new(root, "held", json_integer(tally[AB_HELD]));
    json_object_set_new(root, "did_not_hold", json_integer(tally[AB_NOT_HELD]));
    json_object_set_new(root, "inconclusive", json_integer(tally[AB_INCONCLUSIVE]));
    json_object_set_new(root, "not_judged", json_integer(tally[AB_NOT_JUDGED]));
    json_object_set_new(root, "wide_measurements", wide);
    return root;
}

void ab_conclusion_write(FILE *out, const ab_judged *J_, const ab_rmeas *const *meas, size_t nmeas)
{
    const ab_judged J = *J_;
    if (J.status) {
        fprintf(out, "\n## Conclusion\n\n(out of memory)\n");
        return;
    }
    const ab_part *parts = J.parts;
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
            const ab_part *p = &parts[k];
            const int j = ab_part_judge(p);
            tally[j]++;
            char name[256];
            fprintf(out, "| %s | %s | %d | %d | %d | %d | %d | ", part_name(p, name, sizeof name),
                    ab_part_claim_name(p),
                    p->count[AB_FASTER], p->count[AB_SLOWER], p->count[AB_NO_DIFFERENCE],
                    p->not_compared, p->wide);
            if (j == AB_NOT_JUDGED)
                fprintf(out, "not judged: %s |\n", ab_part_finding(p));
            else
                fprintf(out, "**%s** |\n", ab_part_outcome_name(j));
        }
        int nrange = 0;
        for (size_t k = 0; k < np; k++)
            nrange += parts[k].has_range;
        if (nrange) {
            fprintf(out, "\nPredicted speedups (`expect`'s `speedup = [lo, hi]`: the reference's "
                         "time over the variant's), against each configuration's estimate: "
                         "**held** when every estimate lies in the range, **did not hold** when "
                         "some configuration's 95%% CI lies wholly outside it, **inconclusive** "
                         "otherwise (the outcome above is the worse of this and the verdict "
                         "claim, where a part has both).\n\n| part | predicted | inside | "
                         "below | above | CI outside | estimates: geometric mean (range) | "
                         "outcome |\n|---|---|---:|---:|---:|---:|---|---|\n");
            for (size_t k = 0; k < np; k++) {
                const ab_part *p = &parts[k];
                if (!p->has_range)
                    continue;
                const int ne = p->inside + p->below + p->above;
                char est[96] = "—";
                if (ne)
                    snprintf(est, sizeof est, "%.3f× (%.3f–%.3f)", exp(p->log_sum / ne),
                             p->est_min, p->est_max);
                char name[256];
                fprintf(out, "| %s | %.3f–%.3f× | %d | %d | %d | %d | %s | **%s** |\n",
                        part_name(p, name, sizeof name), p->range_lo, p->range_hi, p->inside,
                        p->below,
                        p->above, p->excluded, est,
                        ab_part_outcome_name(ab_part_range_judge(p)));
            }
        }
        int judged;
        const char *overall = ab_conclusion_overall(tally, &judged);
        if (judged == 0) {
            fprintf(out, "\nOverall: **not judged**. The experiment states no expected verdicts "
                         "(`expect = ( { variant = ...; than = ...; verdict = \"faster\"; } );`), "
                         "so its hypothesis is compared with the findings above by the reader, "
                         "not by attnbench.\n");
        } else {
            fprintf(out, "\nOverall: of %d judged part%s, %d held, %d did not hold, %d "
                         "inconclusive%s. The hypothesis: **%s**.\n",
                    judged, judged == 1 ? "" : "s", tally[AB_HELD], tally[AB_NOT_HELD],
                    tally[AB_INCONCLUSIVE], tally[AB_NOT_JUDGED] ? " (parts without a claim not counted)" : "",
                    overall);
        }
    }

    size_t nwide = 0;
    for (size_t i = 0; i < nmeas; i++)
        nwide += has_sp[i] && sp[i].wide;
    if (nwide == 0) {
        fprintf(out, "\nSpread: every measurement's p90/p10 is within %.1f.\n", AB_SPREAD_RATIO);
        return;
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
}
