/*
 * changepoint.c: asv's L1 step detection (changepoint.h). Friedrich et al.
 * (2008) for the Potts functional, solved exactly by optimal partitioning;
 * asv's information criterion (asv/step_detect.py, solve_potts_autogamma,
 * after Yao 1988) to choose the penalty gamma.
 */
#include "changepoint.h"
#include "abstats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define AB_CP_MAX_N 2000
#define AB_CP_GRID 96 /* gamma values scanned, log-spaced */

typedef struct item {
    double y, w;
} item;

/* Weighted median of sorted items, asv's weighted_median rule: the first
 * item whose cumulative weight passes half the total, averaged with the
 * items at exactly half (so equal weights give the ordinary median). */
static double wmedian(const item *a, size_t m, double wtotal)
{
    double mid = wtotal / 2, wsum = 0, sum = 0;
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        wsum += a[i].w;
        if (wsum > mid) {
            sum += a[i].y;
            k++;
            break;
        } else if (wsum == mid) {
            sum += a[i].y;
            k++;
        }
    }
    return k ? sum / (double)k : a[m - 1].y;
}

/* Triangular tables: cost and median of y[l..r], index tri(l, r). */
typedef struct tables {
    size_t n;
    double *cost, *mu;
} tables;

static size_t tri(size_t n, size_t l, size_t r) { return l * n - l * (l - 1) / 2 + (r - l); }

static int build_tables(const double *y, const double *w, size_t n, tables *t)
{
    size_t cells = n * (n + 1) / 2;
    t->n = n;
    t->cost = malloc(cells * sizeof *t->cost);
    t->mu = malloc(cells * sizeof *t->mu);
    item *a = malloc(n * sizeof *a);
    if (!t->cost || !t->mu || !a) {
        free(a);
        return AB_STATS_ENOMEM;
    }
    for (size_t l = 0; l < n; l++) {
        size_t m = 0;
        double wtotal = 0;
        for (size_t r = l; r < n; r++) {
            item x = {y[r], w[r]};
            size_t p = m; /* insertion keeps a sorted by y (stable) */
            while (p > 0 && a[p - 1].y > x.y)
                p--;
            memmove(a + p + 1, a + p, (m - p) * sizeof *a);
            a[p] = x;
            m++;
            wtotal += x.w;
            double mu = wmedian(a, m, wtotal), c = 0;
            for (size_t i = 0; i < m; i++)
                c += a[i].w * fabs(a[i].y - mu);
            t->mu[tri(n, l, r)] = mu;
            t->cost[tri(n, l, r)] = c;
        }
    }
    free(a);
    return AB_STATS_OK;
}

static void free_tables(tables *t)
{
    free(t->cost);
    free(t->mu);
}

/* Optimal partitioning: B[r+1] = min_l B[l] + gamma + cost(l, r), B[0] =
 * -gamma; ties go to the later l, as asv's solve_potts does. */
static int solve(const tables *t, double gamma, ab_steps *out)
{
    size_t n = t->n;
    double *B = malloc((n + 1) * sizeof *B);
    size_t *left = malloc(n * sizeof *left);
    ab_segment *seg = NULL;
    if (!B || !left)
        goto nomem;
    B[0] = -gamma;
    for (size_t r = 0; r < n; r++) {
        B[r + 1] = INFINITY;
        for (size_t l = 0; l <= r; l++) {
            double b = B[l] + gamma + t->cost[tri(n, l, r)];
            if (b <= B[r + 1]) {
                B[r + 1] = b;
                left[r] = l;
            }
        }
    }
    size_t k = 0;
    for (size_t r = n; r > 0; r = left[r - 1])
        k++;
    seg = malloc(k * sizeof *seg);
    if (!seg)
        goto nomem;
    size_t j = k;
    for (size_t r = n; r > 0; r = left[r - 1]) {
        size_t l = left[r - 1];
        seg[--j] = (ab_segment){l, r, t->mu[tri(n, l, r - 1)], t->cost[tri(n, l, r - 1)]};
    }
    out->seg = seg;
    out->nseg = k;
    out->gamma = gamma;
    out->objective = B[n];
    free(B);
    free(left);
    return AB_STATS_OK;
nomem:
    free(B);
    free(left);
    return AB_STATS_ENOMEM;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Checks y and fills ww with w normalised by its median (asv's detect_steps):
 * invalid weights become the median weight, all 1 without weights. */
static int prepare(const double *y, const double *w, size_t n, double *ww)
{
    if (!y || n == 0 || n > AB_CP_MAX_N)
        return AB_STATS_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(y[i]))
            return AB_STATS_ENONFINITE;
    double wmed = 1.0;
    if (w) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (isfinite(w[i]) && w[i] > 0)
                ww[k++] = w[i];
        if (k) {
            qsort(ww, k, sizeof *ww, cmp_double);
            wmed = k % 2 ? ww[k / 2] : (ww[k / 2 - 1] + ww[k / 2]) / 2;
        }
    }
    for (size_t i = 0; i < n; i++)
        ww[i] = w && isfinite(w[i]) && w[i] > 0 ? w[i] / wmed : 1.0;
    return AB_STATS_OK;
}

int ab_potts_l1(const double *y, const double *w, size_t n, double gamma, ab_steps *out)
{
    memset(out, 0, sizeof *out);
    if (!(gamma >= 0))
        return AB_STATS_EINVAL;
    double *ww = malloc((n ? n : 1) * sizeof *ww);
    if (!ww)
        return AB_STATS_ENOMEM;
    int rc = prepare(y, w, n, ww);
    tables t = {0};
    if (rc == AB_STATS_OK)
        rc = build_tables(y, ww, n, &t);
    if (rc == AB_STATS_OK)
        rc = solve(&t, gamma, out);
    free_tables(&t);
    free(ww);
    return rc;
}

/* asv's criterion: beta k + ln(sigma_0 + sum of weighted deviations). */
static double criterion(const ab_steps *s, double beta)
{
    double dev = 0, sigma0;
    for (size_t j = 0; j < s->nseg; j++)
        dev += s->seg[j].cost;
    if (s->nseg > 2) {
        sigma0 = INFINITY;
        for (size_t j = 0; j + 1 < s->nseg; j++)
            sigma0 = fmin(sigma0, fabs(s->seg[j + 1].value - s->seg[j].value));
        sigma0 *= 0.1;
    } else {
        sigma0 = INFINITY;
        for (size_t j = 0; j < s->nseg; j++)
            sigma0 = fmin(sigma0, fabs(s->seg[j].value));
        sigma0 *= 0.001;
    }
    sigma0 = fmax(1e-300, sigma0);
    return beta * (double)s->nseg + log(sigma0 + dev);
}

int ab_detect_steps(const double *y, const double *w, size_t n, ab_steps *out)
{
    memset(out, 0, sizeof *out);
    double *ww = malloc((n ? n : 1) * sizeof *ww);
    if (!ww)
        return AB_STATS_ENOMEM;
    int rc = prepare(y, w, n, ww);
    tables t = {0};
    if (rc == AB_STATS_OK)
        rc = build_tables(y, ww, n, &t);
    if (rc != AB_STATS_OK)
        goto done;
    double beta = 4 * log((double)n) / (double)n;
    double gamma0 = t.cost[tri(n, 0, n - 1)];
    if (gamma0 == 0)
        gamma0 = 1.0; /* zero variance, as asv */
    /* x from 1 (gamma > gamma_0: always one segment, where gamma_0 itself
     * can tie) down to ln(0.01/n), a decade below asv's search interval
     * [ln(0.1/n), 0]; from large to small gamma, so that ties keep the
     * solution with fewer segments. */
    double xmin = log(0.01 / (double)n), xmax = 1.0;
    for (int g = 0; g < AB_CP_GRID; g++) {
        double x = xmax + (xmin - xmax) * (double)g / (AB_CP_GRID - 1);
        ab_steps s;
        rc = solve(&t, gamma0 * exp(x), &s);
        if (rc != AB_STATS_OK)
            break;
        s.objective = criterion(&s, beta);
        if (!out->seg || s.objective < out->objective) {
            ab_steps_free(out);
            *out = s;
        } else {
            ab_steps_free(&s);
        }
    }
    if (rc != AB_STATS_OK)
        ab_steps_free(out);
done:
    free_tables(&t);
    free(ww);
    return rc;
}

void ab_steps_free(ab_steps *s)
{
    if (!s)
        return;
    free(s->seg);
    s->seg = NULL;
    s->nseg = 0;
}
