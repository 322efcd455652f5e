/*
 * plot.c: gnuplot figures for reports and history (plot.h). Each figure is
 * one gnuplot script written to a pipe, its data inline ($name << EOD), its
 * numbers printed with %.9g, its jitter from a fixed-seed xorshift, so that
 * the same database gives the same script and, with the same gnuplot, the
 * same image bytes. gnuplot runs under a time limit (proc.h; 60 s, or
 * $ATTNBENCH_GNUPLOT_TIMEOUT) in a process group of its own, and draws into a
 * temporary file beside the image that is renamed over it only when gnuplot
 * succeeded: a failed or hung gnuplot leaves no empty or partial image.
 */
#include "plot.h"
#include "experiment.h"
#include "outfile.h"
#include "proc.h"
#include "rundata.h"
#include "util.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *gnuplot_program(void)
{
    const char *p = getenv("ATTNBENCH_GNUPLOT"); /* tests point it at a missing program */
    return p && *p ? p : "gnuplot";
}

static double gnuplot_timeout(void) { return ab_proc_timeout("ATTNBENCH_GNUPLOT_TIMEOUT", 60.0); }

int ab_gnuplot_available(void)
{
    const char *argv[] = {gnuplot_program(), "--version", NULL};
    ab_proc_result r;
    return ab_proc_run(argv, "", 0, gnuplot_timeout(), &r) == 0;
}

/* One figure: the script is written into memory (g), then gnuplot draws it
 * into tmp, a temporary file beside path with the same extension. */
typedef struct gjob {
    FILE *g;
    char *script;
    size_t len;
    const char *path;
    char tmp[1200];
} gjob;

static FILE *gnuplot_open(gjob *j, const char *path)
{
    memset(j, 0, sizeof *j);
    j->path = path;
    if (ab_out_check_target(path, NULL))
        return NULL;
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    const char *ext = dot && (!slash || dot > slash) ? dot : "";
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    snprintf(j->tmp, sizeof j->tmp, "%.*s.plot.XXXXXX%s", (int)dirlen, path, ext);
    int fd = mkstemps(j->tmp, (int)strlen(ext));
    if (fd < 0) {
        error("cannot write %s: %s", path, strerror(errno));
        return NULL;
    }
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    close(fd);
    j->g = open_memstream(&j->script, &j->len);
    if (!j->g)
        unlink(j->tmp);
    return j->g;
}

static int gnuplot_close(gjob *j, const char *what)
{
    int bad = fclose(j->g) != 0;
    const char *argv[] = {gnuplot_program(), NULL};
    ab_proc_result r;
    struct stat sb;
    if (bad || !j->script) {
        free(j->script);
        unlink(j->tmp);
        return error("out of memory writing the plot script of %s", what);
    }
    int rc = ab_proc_run(argv, j->script, j->len, gnuplot_timeout(), &r);
    free(j->script);
    if (rc == 0 && (stat(j->tmp, &sb) != 0 || sb.st_size == 0)) {
        rc = -1;
        snprintf(r.error, sizeof r.error, "gnuplot wrote nothing");
    }
    if (rc == 0 && rename(j->tmp, j->path) != 0) {
        rc = -1;
        snprintf(r.error, sizeof r.error, "rename: %s", strerror(errno));
    }
    if (rc) {
        unlink(j->tmp);
        /* gnuplot's last message line ("-" line 12: no data), not its
         * whole output */
        size_t el = strlen(r.stderr_text);
        while (el && (r.stderr_text[el - 1] == '\n' || r.stderr_text[el - 1] == ' '))
            r.stderr_text[--el] = '\0';
        char *line = strrchr(r.stderr_text, '\n');
        line = line ? line + 1 : r.stderr_text;
        return error("gnuplot failed while drawing %s: %s%s%s", what, r.error,
                     *line ? ": " : "", line);
    }
    return 0;
}

/* terminal from the file name: .png is PNG (cairo), anything else SVG */
static void terminal(FILE *g, const char *path, int w, int h)
{
    size_t len = strlen(path);
    if (len > 4 && strcmp(path + len - 4, ".png") == 0)
        fprintf(g, "set terminal pngcairo size %d,%d font 'Sans,10' noenhanced\n", w, h);
    else
        fprintf(g, "set terminal svg size %d,%d fixed font 'Sans,11' noenhanced\n", w, h);
    fprintf(g, "set output '");
    for (const char *p = path; *p; p++)
        fputs(*p == '\'' ? "''" : (char[]){*p, 0}, g);
    fprintf(g, "'\n");
}

static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(const double *x, size_t n)
{
    double *t = malloc(n * sizeof *t);
    if (!t || !n) {
        free(t);
        return 0;
    }
    memcpy(t, x, n * sizeof *t);
    qsort(t, n, sizeof *t, cmp_double);
    double m = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
    free(t);
    return m;
}

/* variant order: the experiment's list, then any others by first appearance */
static size_t variant_order(const ab_experiment *e, const ab_rmeas *m, size_t n,
                            char (*names)[64], size_t cap)
{
    size_t k = 0;
    for (size_t v = 0; e && v < e->nvariants && k < cap; v++)
        snprintf(names[k++], 64, "%s", e->variants[v].name);
    for (size_t i = 0; i < n && k < cap; i++) {
        int seen = 0;
        for (size_t j = 0; j < k; j++)
            seen |= strcmp(names[j], m[i].variant) == 0;
        if (!seen)
            snprintf(names[k++], 64, "%s", m[i].variant);
    }
    return k;
}

static const char *palette[] = {"#4477aa", "#ee6677", "#228833", "#ccbb44",
                                "#66ccee", "#aa3377", "#bbbbbb", "#000000"};

/* one strip plot: every usable variant's samples in configuration c */
static int strip_plot(const char *path, const ab_rmeas *m, size_t n, int c, char (*names)[64],
                      size_t nv)
{
    char title[128] = "";
    double lo = 1e300, hi = 0;
    for (size_t i = 0; i < n; i++)
        if (m[i].config == c) {
            ab_rmeas_title(&m[i], title, sizeof title);
            for (size_t s = 0; s < m[i].n; s++) {
                lo = m[i].ms[s] < lo ? m[i].ms[s] : lo;
                hi = m[i].ms[s] > hi ? m[i].ms[s] : hi;
            }
        }
    gjob job;
    FILE *g = gnuplot_open(&job, path);
    if (!g)
        return -1;
    terminal(g, job.tmp, 900, 480);
    fprintf(g, "set title '%s: latency of every sample (jittered), median marked'\n", title);
    fprintf(g, "set ylabel 'latency per forward pass (ms)'\nset grid ytics\nset key outside right top\n");
    if (lo > 0 && hi / lo > 20)
        fprintf(g, "set logscale y\n");
    fprintf(g, "set xrange [0.5:%zu.5]\nset xtics rotate by -20 (", nv);
    for (size_t v = 0; v < nv; v++)
        fprintf(g, "%s'%s' %zu", v ? ", " : "", names[v], v + 1);
    fprintf(g, ")\n$samples << EOD\n");
    uint64_t rng = 0x9e3779b97f4a7c15ULL ^ (uint64_t)(c + 1) * 42;
    for (size_t v = 0; v < nv; v++)
        for (size_t i = 0; i < n; i++)
            if (m[i].config == c && strcmp(m[i].variant, names[v]) == 0 &&
                strcmp(m[i].status, "ok") == 0)
                for (size_t s = 0; s < m[i].n; s++) {
                    double j = ((double)(xorshift(&rng) >> 11) / 9007199254740992.0 - 0.5) * 0.5;
                    fprintf(g, "%.9g %.9g\n", (double)(v + 1) + j, m[i].ms[s]);
                }
    fprintf(g, "EOD\n$medians << EOD\n");
    for (size_t v = 0; v < nv; v++)
        for (size_t i = 0; i < n; i++)
            if (m[i].config == c && strcmp(m[i].variant, names[v]) == 0 &&
                strcmp(m[i].status, "ok") == 0 && m[i].n)
                fprintf(g, "%zu %.9g\n", v + 1, median_of(m[i].ms, m[i].n));
    fprintf(g, "EOD\nplot $samples using 1:2 with points pt 7 ps 0.35 lc rgb '%s' title "
               "'samples', $medians using 1:2:(0.3) with xerrorbars pt 0 lw 2 lc rgb '%s' "
               "title 'median'\n",
            palette[0], palette[1]);
    return gnuplot_close(&job, path);
}

/* median TFLOP/s against S for configurations like m[first] but S */
static int sweep_plot(const char *path, const ab_rmeas *m, size_t n, const ab_rmeas *key,
                      char (*names)[64], size_t nv)
{
    gjob job;
    FILE *g = gnuplot_open(&job, path);
    if (!g)
        return -1;
    terminal(g, job.tmp, 900, 480);
    fprintf(g, "set title 'B=%d H=%d D=%d %s %s: median TFLOP/s against S'\n", key->B, key->H,
            key->D, key->causal ? "causal" : "non-causal", key->dtype);
    fprintf(g, "set xlabel 'S (sequence length)'\nset ylabel 'TFLOP/s at the median'\n"
               "set logscale x 2\nset grid\nset key outside right top\n");
    int nblocks = 0;
    for (size_t v = 0; v < nv; v++) {
        /* points sorted by S: measurements are few, selection sort by S */
        int last = 0, any = 0;
        for (;;) {
            const ab_rmeas *best = NULL;
            for (size_t i = 0; i < n; i++) {
                const ab_rmeas *x = &m[i];
                if (strcmp(x->variant, names[v]) || strcmp(x->status, "ok") || x->n < 1 ||
                    x->B != key->B || x->H != key->H || x->D != key->D ||
                    x->causal != key->causal || strcmp(x->dtype, key->dtype) || x->S <= last)
                    continue;
                if (!best || x->S < best->S)
                    best = x;
            }
            if (!best)
                break;
            if (!any)
                fprintf(g, "$v%zu << EOD\n", v);
            any = 1;
            fprintf(g, "%d %.9g\n", best->S, best->flops / (median_of(best->ms, best->n) * 1e9));
            last = best->S;
        }
        if (any) {
            fprintf(g, "EOD\n");
            nblocks++;
        }
    }
    fprintf(g, "plot ");
    int k = 0;
    for (size_t v = 0; v < nv; v++) {
        int has = 0;
        for (size_t i = 0; i < n; i++)
            has |= strcmp(m[i].variant, names[v]) == 0 && strcmp(m[i].status, "ok") == 0 &&
                   m[i].n >= 1 && m[i].B == key->B && m[i].H == key->H && m[i].D == key->D &&
                   m[i].causal == key->causal && strcmp(m[i].dtype, key->dtype) == 0;
        if (!has)
            continue;
        fprintf(g, "%s$v%zu using 1:2 with linespoints pt 7 lw 2 lc rgb '%s' title '%s'",
                k++ ? ", " : "", v, palette[v % 8], names[v]);
    }
    fprintf(g, "\n");
    (void)nblocks;
    return gnuplot_close(&job, path);
}

int ab_report_plots(const ab_rmeas *m, size_t n, const ab_experiment *e, const char *report_path,
                    FILE *md)
{
    fprintf(md, "\n## Plots\n\n");
    if (!report_path || strcmp(report_path, "-") == 0) {
        fprintf(md, "Plots: the report went to standard output; this report has no images.\n");
        return 0;
    }
    if (!ab_gnuplot_available()) {
        fprintf(md, "Plots: gnuplot not found; this report has no images.\n");
        return 0;
    }
    size_t cap = n + (e ? e->nvariants : 0);
    char(*names)[64] = calloc(cap ? cap : 1, 64);
    if (!names)
        return error("out of memory");
    size_t nv = variant_order(e, m, n, names, cap);
    /* file names: the report's path without .md, then -K.svg */
    char base[1024], file[1100];
    snprintf(base, sizeof base, "%s", report_path);
    size_t bl = strlen(base);
    if (bl > 3 && strcmp(base + bl - 3, ".md") == 0)
        base[bl - 3] = '\0';
    const char *slash = strrchr(base, '/');
    const char *link = slash ? slash + 1 : base;
    int rc = 0, nconf = 0;
    for (size_t i = 0; i < n; i++)
        nconf = m[i].config + 1 > nconf ? m[i].config + 1 : nconf;
    for (int c = 0; c < nconf && rc == 0; c++) {
        int usable = 0;
        const ab_rmeas *first = NULL;
        for (size_t i = 0; i < n; i++)
            if (m[i].config == c) {
                first = first ? first : &m[i];
                usable |= strcmp(m[i].status, "ok") == 0 && m[i].n > 0;
            }
        if (!usable)
            continue;
        char title[128];
        ab_rmeas_title(first, title, sizeof title);
        snprintf(file, sizeof file, "%s-%d.svg", base, c + 1);
        rc = strip_plot(file, m, n, c, names, nv);
        if (rc == 0)
            fprintf(md, "![%s: latency distributions](%s-%d.svg)\n\n", title, link, c + 1);
    }
    /* sweeps: groups of configurations equal but for S, with 2+ values of S */
    int nsweep = 0;
    for (int c = 0; c < nconf && rc == 0; c++) {
        const ab_rmeas *key = NULL;
        for (size_t i = 0; i < n && !key; i++)
            if (m[i].config == c)
                key = &m[i];
        int earlier = 0, others = 0;
        for (size_t i = 0; i < n; i++) {
            const ab_rmeas *x = &m[i];
            if (x->B != key->B || x->H != key->H || x->D != key->D || x->causal != key->causal ||
                strcmp(x->dtype, key->dtype) != 0)
                continue;
            earlier |= x->config < c;
            others |= x->S != key->S;
        }
        if (earlier || !others)
            continue;
        snprintf(file, sizeof file, "%s-sweep%d.svg", base, ++nsweep);
        rc = sweep_plot(file, m, n, key, names, nv);
        if (rc == 0)
            fprintf(md, "![B=%d H=%d D=%d %s %s: median TFLOP/s against S](%s-sweep%d.svg)\n\n",
                    key->B, key->H, key->D, key->causal ? "causal" : "non-causal", key->dtype,
                    link, nsweep);
    }
    if (rc)
        fprintf(md, "Plots: gnuplot failed; this report's images are incomplete.\n\n");
    free(names);
    return rc;
}

int ab_history_plot(const char *path, const char *title, const ab_hist_point *pts, size_t n,
                    const size_t *seg_begin, const size_t *seg_end, const double *seg_value,
                    size_t nseg)
{
    if (!ab_gnuplot_available())
        return error("history: gnuplot not found; no plot written");
    gjob job;
    FILE *g = gnuplot_open(&job, path);
    if (!g)
        return -1;
    terminal(g, job.tmp, 900, 480);
    fprintf(g, "set title '%s: median and 95%% CI per run, fitted steps (asv step detection)'\n",
            title);
    fprintf(g, "set xlabel 'run (time order)'\nset ylabel 'latency per forward pass (ms)'\n"
               "set grid ytics\nset key outside right top\nset xrange [0.5:%zu.5]\n",
            n);
    size_t every = n > 20 ? (n + 19) / 20 : 1;
    fprintf(g, "set xtics rotate by -45 (");
    for (size_t i = 0, k = 0; i < n; i += every, k++)
        fprintf(g, "%s'%lld' %zu", k ? ", " : "", pts[i].run_id, i + 1);
    fprintf(g, ")\n");
    for (size_t j = 1; j < nseg; j++)
        fprintf(g, "set arrow from %.1f, graph 0 to %.1f, graph 1 nohead dt 2 lc rgb '#cc3311'\n",
                (double)seg_begin[j] + 0.5, (double)seg_begin[j] + 0.5);
    fprintf(g, "$points << EOD\n");
    for (size_t i = 0; i < n; i++)
        fprintf(g, "%zu %.9g %.9g %.9g\n", i + 1, pts[i].median, pts[i].lo, pts[i].hi);
    fprintf(g, "EOD\n$steps << EOD\n");
    for (size_t j = 0; j < nseg; j++)
        fprintf(g, "%.1f %.9g\n%.1f %.9g\n\n", (double)seg_begin[j] + 0.5, seg_value[j],
                (double)seg_end[j] + 0.5, seg_value[j]);
    fprintf(g, "EOD\nplot $points using 1:2:3:4 with yerrorbars pt 7 lc rgb '%s' title 'median "
               "[95%% CI]', $steps using 1:2 with lines lw 2 lc rgb '%s' title 'fitted level'\n",
            palette[0], palette[1]);
    return gnuplot_close(&job, path);
}
