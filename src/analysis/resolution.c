/*
 * resolution.c: the A/A resolution of a measurement (resolution.h): the
 * largest paired difference between identical instances in the A/A
 * calibration of its environment and timing mode.
 */
#include "resolution.h"
#include "rounds.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The median of ms[0..n) (0 when n = 0 or out of memory). */
static double median(const double *ms, size_t n)
{
    double *s = n ? malloc(n * sizeof *s) : NULL;
    if (!s)
        return 0;
    memcpy(s, ms, n * sizeof *s);
    gsl_sort(s, 1, n);
    const double m = gsl_stats_median_from_sorted_data(s, 1, n);
    free(s);
    return m;
}

/* One instance's rounds and their medians. */
typedef struct rmedians {
    int *rid;     /* the rounds, ascending */
    double *rmed; /* their medians */
    size_t nr;
} rmedians;

static int rmedians_of(const ab_aa_row *x, rmedians *m)
{
    memset(m, 0, sizeof *m);
    if (x->n == 0)
        return 0;
    m->rid = malloc(x->n * sizeof *m->rid);
    m->rmed = malloc(x->n * sizeof *m->rmed);
    if (!m->rid || !m->rmed ||
        ab_round_medians(x->ms, x->round, x->n, m->rid, m->rmed, &m->nr) != AB_STATS_OK) {
        free(m->rid);
        free(m->rmed);
        memset(m, 0, sizeof *m);
        return -1;
    }
    return 0;
}

/* exp of the median over shared rounds of log(median_b / median_a); NAN
 * with no shared round. */
static double paired_speedup(const rmedians *a, const rmedians *b)
{
    size_t n = a->nr < b->nr ? a->nr : b->nr, k = 0, i = 0, j = 0;
    double *lr = malloc((n ? n : 1) * sizeof *lr);
    if (!lr)
        return NAN;
    while (i < a->nr && j < b->nr) {
        if (a->rid[i] < b->rid[j])
            i++;
        else if (a->rid[i] > b->rid[j])
            j++;
        else {
            if (a->rmed[i] > 0 && b->rmed[j] > 0)
                lr[k++] = log(b->rmed[j] / a->rmed[i]);
            i++;
            j++;
        }
    }
    double s = NAN;
    if (k > 0) {
        gsl_sort(lr, 1, k);
        s = exp(gsl_stats_median_from_sorted_data(lr, 1, k));
    }
    free(lr);
    return s;
}

void ab_aa_groups_build(const ab_aa_samples *aa, const char *mode, ab_aa_groups *G)
{
    memset(G, 0, sizeof *G);
    snprintf(G->mode, sizeof G->mode, "%s", mode);
    const ab_aa_row **in = malloc((aa->n ? aa->n : 1) * sizeof *in);
    size_t n = 0;
    if (!in)
        return;
    for (size_t i = 0; i < aa->n; i++)
        if (strcmp(aa->rows[i].mode, mode) == 0)
            in[n++] = &aa->rows[i];
    for (size_t i = 0; i < n && G->n < AB_AA_MAX_GROUPS;) {
        size_t j = i;
        while (j < n && in[j]->run == in[i]->run && strcmp(in[j]->cfg, in[i]->cfg) == 0)
            j++;
        double worst = 0, logsum = 0;
        int pairs = 0, meds = 0;
        for (size_t a = i; a < j; a += 2) { /* pairs (a, a + 1); a lone last instance counts for the median */
            const ab_aa_row *both[2] = {in[a], a + 1 < j ? in[a + 1] : NULL};
            for (int w = 0; w < 2; w++) {
                const double med = both[w] ? median(both[w]->ms, both[w]->n) : 0;
                if (med > 0) {
                    logsum += log(med);
                    meds++;
                }
            }
            double sp = NAN;
            if (both[1]) {
                rmedians ma, mb;
                if (rmedians_of(both[0], &ma) || rmedians_of(both[1], &mb)) {
                    free(ma.rid);
                    free(ma.rmed);
                    G->n = 0; /* out of memory: no groups, no veto */
                    free(in);
                    return;
                }
                sp = paired_speedup(&ma, &mb);
                free(ma.rid);
                free(ma.rmed);
                free(mb.rid);
                free(mb.rmed);
            }
            if (isfinite(sp)) {
                pairs++;
                worst = fabs(sp - 1) > worst ? fabs(sp - 1) : worst;
            }
        }
        if (pairs > 0 && meds > 0) {
            ab_resolution *g = &G->g[G->n++];
            g->rel = worst;
            g->calibration_run = in[i]->run;
            g->pairs = pairs;
            g->aa_median_ms = exp(logsum / meds);
        }
        i = j;
    }
    free(in);
}

void ab_aa_resolution(const ab_aa_groups *G, const double *ms, size_t n, ab_resolution *r)
{
    memset(r, 0, sizeof *r);
    if (G->n == 0)
        return;
    const double med = median(ms, n);
    if (!(med > 0))
        return;
    size_t best = 0;
    for (size_t i = 1; i < G->n; i++)
        if (fabs(log(G->g[i].aa_median_ms / med)) < fabs(log(G->g[best].aa_median_ms / med)))
            best = i;
    *r = G->g[best];
    r->median_ms = med;
}

double ab_aa_min_shift_ms(const ab_aa_groups *G, const double *ms, size_t n)
{
    ab_resolution r;
    ab_aa_resolution(G, ms, n, &r);
    return r.rel > 0 && r.median_ms > 0 ? r.rel * r.median_ms : 0;
}
