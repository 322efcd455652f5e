/*
 * walltime_report.c: where a run's wall time went, as the report writes it
 * (walltime_report.h): the markdown section and the JSON object, from the
 * account db/walltime.h loads.
 */
#include "walltime_report.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The run-level phases: JSON key, report row, seconds. */
typedef struct phase_row {
    const char *key, *what;
    double s;
} phase_row;

static size_t phase_rows(const ab_walltime *w, phase_row *rows)
{
    const double known = w->sampling_s + w->warmup_s + w->check_s + w->setup_s + w->inputs_s +
                         w->ceilings_s + w->adapter_s + w->store_s;
    const phase_row r[] = {
        {"timed_s", "timed samples (the samples themselves)", w->timed_s},
        {"sampling_overhead_s",
         "sampling overhead (launches, synchronisation, NVML reads around the samples)",
         w->sampling_s - w->timed_s},
        {"warmup_s", "warm-up", w->warmup_s},
        {"check_s", "correctness checks (float64 reference)", w->check_s},
        {"setup_s", "variant setup and teardown", w->setup_s},
        {"inputs_s", "input generation and upload", w->inputs_s},
        {"ceilings_s", "timer floor and ceilings", w->ceilings_s},
        {"adapter_s", "external adapters' own overhead (start-up, imports, their warm-up and check)",
         w->adapter_s},
        {"store_s", "database writes", w->store_s},
        {"other_s", "other (report lines, allocation, statistics of adaptive stopping)",
         w->total_s - known},
    };
    memcpy(rows, r, sizeof r);
    return sizeof r / sizeof r[0];
}

json_t *ab_walltime_json(const ab_walltime *w, const ab_walltime_variant *v, size_t n)
{
    phase_row rows[16];
    const size_t nr = phase_rows(w, rows);
    json_t *o = json_object(), *ph = json_object(), *a = json_array();
    if (!o || !ph || !a) {
        json_decref(o);
        json_decref(ph);
        json_decref(a);
        return NULL;
    }
    for (size_t i = 0; i < nr; i++)
        json_object_set_new(ph, rows[i].key, json_real(rows[i].s));
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, ab_walltime_variant_json(&v[i]));
    json_object_set_new(o, "total_s", json_real(w->total_s));
    json_object_set_new(o, "timed_share", json_real(w->total_s > 0 ? w->timed_s / w->total_s : 0));
    json_object_set_new(o, "phases", ph);
    json_object_set_new(o, "variants", a);
    json_object_set_new(o, "fixed_cost_goal_s", json_real(AB_FIXED_COST_FLAG_S));
    return o;
}

void ab_walltime_report(FILE *out, const ab_walltime *w, const ab_walltime_variant *v, size_t n)
{
    const double t = w->total_s > 0 ? w->total_s : 1;
    phase_row rows[16];
    const size_t nr = phase_rows(w, rows);
    fprintf(out, "\n## Where the time went\n\nThe run took %.1f s of wall time; %.1f%% of it was "
                 "timed samples.\n\n| phase | s | share |\n|---|---:|---:|\n",
            w->total_s, 100 * w->timed_s / t);
    for (size_t i = 0; i < nr; i++)
        fprintf(out, "| %s | %.2f | %.1f%% |\n", rows[i].what, rows[i].s, 100 * rows[i].s / t);
    if (n == 0)
        return;
    fprintf(out, "\nPer variant, seconds over its measurements: what the runner did for that "
                 "variant alone (a configuration's inputs are in the table above only; the check "
                 "that built a configuration's float64 reference, shared by its variants, is "
                 "shown apart and left out of that variant's cost). Fixed cost: a measurement's "
                 "wall time less its timed samples. A variant's first measurement carries what "
                 "happens once (an adapter's start-up, a library's loading); a variant whose "
                 "later measurements' fixed cost exceeds %.0f ms is **flagged**.\n\n"
                 "| variant | measurements |",
            1e3 * AB_FIXED_COST_FLAG_S);
    for (size_t i = 0; i < ab_walltime_nvphases(); i++)
        fprintf(out, " %s |", ab_walltime_vphase_title(i));
    fprintf(out, " timed share | fixed cost: first | later, mean | later, largest (configuration) "
                 "|\n|---|---:|");
    for (size_t i = 0; i < ab_walltime_nvphases(); i++)
        fprintf(out, "---:|");
    fprintf(out, "---:|---:|---:|---|\n");
    int flagged = 0;
    for (size_t k = 0; k < n; k++) {
        const ab_walltime_variant *x = &v[k];
        const int over = x->worst_fixed_s > AB_FIXED_COST_FLAG_S;
        flagged += over;
        fprintf(out, "| %s%s | %d |", x->variant, over ? " **flagged**" : "", x->measurements);
        for (size_t i = 0; i < ab_walltime_nvphases(); i++)
            fprintf(out, " %.2f |", ab_walltime_vphase(&x->w, i));
        fprintf(out, " %.1f%% | %.0f ms |",
                x->w.total_s > 0 ? 100 * x->w.timed_s / x->w.total_s : 0.0,
                1e3 * x->first_fixed_s);
        if (x->worst_fixed_s >= 0)
            fprintf(out, " %.0f ms | %.0f ms (%s) |\n", 1e3 * ab_walltime_later_mean(x),
                    1e3 * x->worst_fixed_s, x->worst_config);
        else
            fprintf(out, " - | - |\n");
    }
    if (flagged)
        fprintf(out, "\n%d variant%s had a later measurement whose fixed cost exceeded %.0f ms.\n",
                flagged, flagged == 1 ? "" : "s", 1e3 * AB_FIXED_COST_FLAG_S);
}
