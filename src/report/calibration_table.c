/*
 * calibration_table.c: the markdown table of an A/A calibration's rates
 * (calibration_table.h), from src/analysis/calibration.c's result.
 */
#include "calibration_table.h"

void ab_calibration_print(FILE *out, const ab_calibration *s)
{
    fprintf(out, "| configuration | pairs | paired over rounds | raw p < %.2f [95%% CI] | speedup CI "
                 "covers 1 [95%% CI] | verdict rule, raw p | verdict rule, Holm | flagged |\n"
                 "|---|---:|---:|---|---|---:|---:|---|\n",
            s->alpha);
    for (size_t j = 0; j <= s->nconfigs; j++) {
        const ab_calibration_config *c = j < s->nconfigs ? &s->cfg[j] : &s->all;
        if (j == s->nconfigs && s->nconfigs < 2)
            break;
        if (c->pairs == 0)
            continue;
        fprintf(out,
                "| %s | %d | %d | %d (%.1f%% [%.1f, %.1f]%s) | %d (%.1f%% [%.1f, %.1f]%s) | %d%s | %d | %s |\n",
                c->title, c->pairs, c->paired, c->raw_positives, 100.0 * c->raw_positives / c->pairs,
                100 * c->raw_lo, 100 * c->raw_hi,
                c->raw_binom_p < AB_CAL_FLAG_P ? ", **too many**" : "", c->covered,
                100.0 * c->covered / c->pairs, 100 * c->cov_lo, 100 * c->cov_hi,
                c->cov_binom_p < AB_CAL_FLAG_P ? ", **too few**" : "", c->uncorrected_positives,
                c->verdict_binom_p < AB_CAL_FLAG_P ? " (**too many**)" : "", c->rule_positives,
                c->flagged ? "**FLAGGED**" : "no");
    }
}

