/*
 * md_json_check.c: `md_json_check REPORT.md REPORT.json` checks that the
 * JSON report (attnbench report --json) and the markdown report of the same
 * run give the same numbers. The markdown is the independent side here: for
 * every comparison in the JSON, the row of that variant (and baseline) in
 * the markdown section of its configuration must contain the JSON's
 * speedup and CI formatted as the markdown formats them ("%.3f× [%.3f,
 * %.3f]"), its p and Holm p ("%.4f", or "%.1e" below 1e-4, or "—" where the
 * rounds are too few for the test or for the family) and its verdict, and
 * for a paired comparison with the baseline its minimum detectable effect
 * ("VARIANT %.2f% (N rounds)"); for every summary, the variant's row
 * must carry its n, rounds, median and CI (at least four significant
 * digits and four decimals: ms4 below, src/core/units.h's rule); and the markdown must
 * hold exactly as many comparison rows (cells with "×") as the JSON has
 * computed comparisons. Exit 0 when everything matches, 1 otherwise (each
 * mismatch printed).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ms with at least four significant digits: 3 - floor(log10 |ms|)
 * decimals in [4, 9], counted by powers of ten (buf: 40 bytes). */
static const char *ms4(double ms, char *buf)
{
    double a = ms < 0 ? -ms : ms;
    int dec = 4;
    if (a > 0) {
        int e = 0; /* floor(log10 a) */
        for (; a >= 10; a /= 10)
            e++;
        for (; a < 1; a *= 10)
            e--;
        dec = 3 - e;
        dec = dec < 4 ? 4 : dec > 9 ? 9 : dec;
    }
    snprintf(buf, 40, "%.*f", dec, ms);
    return buf;
}

static int failures = 0;

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc((size_t)n + 1);
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    if (p)
        p[n] = '\0';
    fclose(f);
    return p;
}

static void fmt_p(double p, char *buf, size_t n)
{
    if (p < 1e-4)
        snprintf(buf, n, "%.1e", p);
    else
        snprintf(buf, n, "%.4f", p);
}

/* The section "### title\n" .. next "### " or "## " as [*b, *e). */
static int section(const char *md, const char *title, const char **b, const char **e)
{
    char head[256];
    snprintf(head, sizeof head, "\n### %s\n", title);
    const char *s = strstr(md, head);
    if (!s)
        return -1;
    s += strlen(head);
    const char *t = strstr(s, "\n## ");
    const char *u = strstr(s, "\n### ");
    if (!t || (u && u < t))
        t = u;
    *b = s;
    *e = t ? t : s + strlen(s);
    return 0;
}

/* A line in [b, e) that starts with prefix and contains every needle. */
static int find_line(const char *b, const char *e, const char *prefix, const char **needles,
                     int nn)
{
    for (const char *l = b; l < e;) {
        const char *nl = memchr(l, '\n', (size_t)(e - l));
        size_t len = nl ? (size_t)(nl - l) : (size_t)(e - l);
        char *line = strndup(l, len);
        int ok = strncmp(line, prefix, strlen(prefix)) == 0;
        for (int i = 0; ok && i < nn; i++)
            ok = strstr(line, needles[i]) != NULL;
        free(line);
        if (ok)
            return 1;
        l += len + 1;
    }
    return 0;
}

static void title_of(json_t *c, char *buf, size_t n)
{
    snprintf(buf, n, "B=%d H=%d S=%d D=%d %s %s",
             (int)json_integer_value(json_object_get(c, "B")),
             (int)json_integer_value(json_object_get(c, "H")),
             (int)json_integer_value(json_object_get(c, "S")),
             (int)json_integer_value(json_object_get(c, "D")),
             json_is_true(json_object_get(c, "causal")) ? "causal" : "non-causal",
             json_string_value(json_object_get(c, "dtype")));
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: md_json_check REPORT.md REPORT.json\n");
        return 2;
    }
    char *md = slurp(argv[1]);
    json_error_t je;
    json_t *root = json_load_file(argv[2], 0, &je);
    if (!md || !root) {
        fprintf(stderr, "cannot read %s or %s (%s)\n", argv[1], argv[2], je.text);
        return 2;
    }
    const char *baseline = json_string_value(json_object_get(root, "baseline"));
    json_t *cmps = json_object_get(root, "comparisons"), *vars = json_object_get(root, "variants");
    size_t i, computed = 0;
    json_t *c;
    json_array_foreach(cmps, i, c)
    {
        char title[256], spd[128], p1[64], p2[64], verdict[160], prefix[200];
        const char *b, *e;
        title_of(json_object_get(c, "config"), title, sizeof title);
        const char *v = json_string_value(json_object_get(c, "variant"));
        const char *ref = json_string_value(json_object_get(c, "baseline"));
        if (section(md, title, &b, &e)) {
            fprintf(stderr, "no section '%s' in the markdown\n", title);
            failures++;
            continue;
        }
        if (json_is_null(json_object_get(c, "speedup")))
            continue;
        computed++;
        json_t *ci = json_object_get(c, "speedup_ci");
        snprintf(spd, sizeof spd, "%.3f× [%.3f, %.3f]",
                 json_real_value(json_object_get(c, "speedup")),
                 json_real_value(json_array_get(ci, 0)), json_real_value(json_array_get(ci, 1)));
        const int is_base = strcmp(ref, baseline) == 0;
        if (json_is_null(json_object_get(c, "p")))
            snprintf(p1, sizeof p1, "— (%d rounds)", (int)json_integer_value(json_object_get(c, "rounds")));
        else
            fmt_p(json_real_value(json_object_get(c, "p")), p1, sizeof p1);
        if (json_is_null(json_object_get(c, "p_adjusted")))
            snprintf(p2, sizeof p2, "—");
        else
            fmt_p(json_real_value(json_object_get(c, "p_adjusted")), p2, sizeof p2);
        snprintf(verdict, sizeof verdict, "**%s**", json_string_value(json_object_get(c, "verdict")));
        /* the minimum detectable effect of a paired comparison with the
         * baseline: "VARIANT X.XX% (N rounds)" on the section's line */
        json_t *mde = json_object_get(c, "mde");
        if (is_base && json_is_real(mde)) {
            char want[200];
            snprintf(want, sizeof want, " %s %.2f%% (%d rounds)", v, 100 * json_real_value(mde),
                     (int)json_integer_value(json_object_get(c, "rounds")));
            const char *hit = strstr(b, want);
            if (!hit || hit >= e) {
                fprintf(stderr, "%s, %s: no minimum detectable effect '%s'\n", title, v, want);
                failures++;
            }
        }
        if (is_base) {
            const char *needles[] = {spd, p1, p2, verdict};
            snprintf(prefix, sizeof prefix, "| %s", v);
            char pfx1[220], pfx2[220];
            snprintf(pfx1, sizeof pfx1, "%s |", prefix);
            snprintf(pfx2, sizeof pfx2, "%s (ext) |", prefix);
            if (!find_line(b, e, pfx1, needles, 4) && !find_line(b, e, pfx2, needles, 4)) {
                fprintf(stderr, "%s, %s vs %s: no markdown row with '%s' '%s' '%s' '%s'\n", title, v,
                        ref, spd, p1, p2, verdict);
                failures++;
            }
        } else {
            const char *needles[] = {spd, p2, verdict};
            snprintf(prefix, sizeof prefix, "| %s | %s |", v, ref);
            if (!find_line(b, e, prefix, needles, 3)) {
                fprintf(stderr, "%s, %s vs %s (chain): no markdown row with '%s' '%s' '%s'\n",
                        title, v, ref, spd, p2, verdict);
                failures++;
            }
        }
    }
    /* as many comparison rows in the markdown as computed comparisons */
    size_t rows = 0;
    for (const char *l = md; (l = strstr(l, "\n| ")) != NULL; l++) {
        const char *nl = strchr(l + 1, '\n');
        const char *x = strstr(l + 1, "× [");
        if (x && (!nl || x < nl))
            rows++;
    }
    if (rows != computed) {
        fprintf(stderr, "markdown has %zu comparison rows, the JSON %zu computed comparisons\n", rows,
                computed);
        failures++;
    }
    json_t *x;
    json_array_foreach(vars, i, x)
    {
        char title[256], head[200], med[64], ci[96];
        const char *b, *e;
        title_of(json_object_get(x, "config"), title, sizeof title);
        if (json_is_null(json_object_get(x, "median_ms")) || section(md, title, &b, &e))
            continue;
        const char *v = json_string_value(json_object_get(x, "variant"));
        json_t *mc = json_object_get(x, "median_ci");
        char m1[40], m2[40], m3[40];
        snprintf(med, sizeof med, "| %s |", ms4(json_real_value(json_object_get(x, "median_ms")), m1));
        snprintf(ci, sizeof ci, "[%s, %s]", ms4(json_real_value(json_array_get(mc, 0)), m2),
                 ms4(json_real_value(json_array_get(mc, 1)), m3));
        snprintf(head, sizeof head, "| %s", v);
        char counts[64];
        snprintf(counts, sizeof counts, "| %d | %d |", (int)json_integer_value(json_object_get(x, "n")),
                 (int)json_integer_value(json_object_get(x, "rounds")));
        const char *needles[] = {med, ci, counts};
        if (!find_line(b, e, head, needles, 3)) {
            fprintf(stderr, "%s, %s: no markdown row with '%s' '%s' '%s'\n", title, v, counts, med, ci);
            failures++;
        }
    }
    printf("%zu comparisons and %zu summaries checked, %d mismatches\n", computed,
           json_array_size(vars), failures);
    json_decref(root);
    free(md);
    return failures ? 1 : 0;
}
