/*
 * run_rows.c: rows of the report's "Run" table that come from the run's
 * stored settings and its shard (run_rows.h).
 */
#include "run_rows.h"
#include "runenv.h"

#include <string.h>

void ab_report_settings_rows(FILE *out, const json_t *s)
{
    if (!s)
        return;
    json_t *l = json_object_get(s, "load_avg"), *le = json_object_get(s, "load_avg_end");
    long long threads = json_integer_value(json_object_get(s, "threads"));
    fprintf(out, "| CPU threads, affinity, load | %lld OpenMP thread%s (%s%s), CPUs %s (%lld)",
            threads, threads == 1 ? "" : "s",
            strcmp(json_string_value(json_object_get(s, "threads_from")) ?: "", "experiment") == 0
                ? "set by the experiment"
                : "default",
            json_is_true(json_object_get(s, "openmp")) ? "" : "; this build has no OpenMP",
            json_string_value(json_object_get(s, "affinity")) ?: "?",
            json_integer_value(json_object_get(s, "affinity_cpus")));
    if (json_is_array(l))
        fprintf(out, ", load average %.2f / %.2f / %.2f (1 / 5 / 15 min) at the start",
                json_real_value(json_array_get(l, 0)), json_real_value(json_array_get(l, 1)),
                json_real_value(json_array_get(l, 2)));
    if (json_is_array(le))
        fprintf(out, ", %.2f at the end", json_real_value(json_array_get(le, 0)));
    if (ab_runenv_busy(s))
        fprintf(out, "; **busy host: the load average plus this run's threads exceeded its "
                     "CPUs, so samples include waiting for a core**");
    fprintf(out, " |\n");
    json_t *vt = json_object_get(s, "variant_threads"), *val;
    const char *key;
    if (json_object_size(vt)) {
        fprintf(out, "| CPU threads per variant |");
        const char *sep = " ";
        json_object_foreach(vt, key, val) {
            fprintf(out, "%s%s: %s", sep, key, json_string_value(val) ?: "?");
            sep = "; ";
        }
        fprintf(out, " |\n");
    }
    const json_t *ik = json_object_get(s, "instances"); /* runs before it: no row */
    if (json_is_integer(ik)) {
        const long long k = json_integer_value(ik);
        const int dflt = strcmp(json_string_value(json_object_get(s, "instances_from")) ?: "",
                                "default") == 0;
        fprintf(out, "| instances | %lld per variant (%s)%s |\n", k,
                dflt ? "the default" : "the experiment's `instances`",
                dflt && k > 1 ? "; each instance took its share of a measurement's budget "
                                "(samples, max_samples, min_time, max_time: a 1/k each, rounded "
                                "up; docs/experiments.md)"
                              : "");
    }
    json_t *b = json_object_get(s, "sampling");
    if (json_is_object(b)) {
        const double lo = json_number_value(json_object_get(b, "min_time_s")),
                     hi = json_number_value(json_object_get(b, "max_time_s"));
        fprintf(out, "| GPU-time budget | each GPU measurement sampled until its samples held "
                     "%.0f ms of GPU time (min_time, %s) as well as its count or convergence, "
                     "blocks growing to spread it over the rounds; ",
                1e3 * lo, json_string_value(json_object_get(b, "from")) ?: "?");
        if (hi > 0)
            fprintf(out, "stopped at %.0f ms of GPU time (max_time)", 1e3 * hi);
        else
            fprintf(out, "no max_time");
        fprintf(out, ", at most %lld samples; CPU variants by count alone (docs/measurement.md, Sampling "
                     "in GPU time) |\n",
                json_integer_value(json_object_get(b, "max_samples")));
    }
    const char *tune = json_string_value(json_object_get(json_object_get(s, "environment"),
                                                         "AB_TUNE"));
    if (tune)
        fprintf(out, "| tuning | AB_TUNE=%s: cuda_mma_pipeline ran tile candidate %s instead of "
                     "its tuning table's (recorded in the fingerprint too) |\n",
                tune, tune);
    const char *smem = json_string_value(json_object_get(json_object_get(s, "environment"),
                                                         "ATTNBENCH_SMEM_LIMIT"));
    if (smem)
        fprintf(out, "| shared memory | ATTNBENCH_SMEM_LIMIT=%s: variants were held to %s bytes of "
                     "shared memory per block, as on a smaller GPU (recorded in the fingerprint "
                     "too) |\n",
                smem, smem);
    const char *hold = json_string_value(json_object_get(json_object_get(s, "environment"),
                                                         "ATTNBENCH_HOLD"));
    if (json_is_true(json_object_get(s, "launch_hold")))
        fprintf(out, "| launch hold | on: each block of samples was enqueued behind a waiting "
                     "kernel and released at once, so no sample holds the host's time to submit "
                     "a launch (docs/measurement.md) |\n");
    else if (hold)
        fprintf(out, "| launch hold | ATTNBENCH_HOLD=%s%s |\n", hold,
                strcmp(hold, "0") == 0
                    ? ": off, so a block's first sample (in hot timing, every sample of a "
                      "variant whose host submission outlasts its GPU work) includes the host's "
                      "time to submit the launch (docs/measurement.md)"
                    : " (only 0 turns the hold off)");
    const json_t *keep = json_object_get(s, "keep_adapters_s");
    const char *keep_from = json_string_value(json_object_get(s, "keep_adapters_from"));
    if (json_is_number(keep)) {
        /* a run before the default (2026-11-27) stored no keep_adapters_from:
         * its seconds came from the command line */
        if (!keep_from || strcmp(keep_from, "command line") == 0)
            fprintf(out, "| kept adapters | --keep-adapters %g: ", json_number_value(keep));
        else if (strcmp(keep_from, "default") == 0)
            fprintf(out, "| kept adapters | %g s, the default (ATTNBENCH_KEEP_ADAPTERS=0 or "
                         "--keep-adapters 0 keeps none): ",
                    json_number_value(keep));
        else
            fprintf(out, "| kept adapters | %s=%g: ", keep_from, json_number_value(keep));
        fprintf(out, "protocol-2 adapters could stay for later runs and take this one from an "
                     "earlier run (measurements.stderr_text says which); their start-up then "
                     "falls outside this run's wall time (adapters/PROTOCOL.md, Kept adapters) "
                     "|\n");
    }
}

void ab_report_shard_row(FILE *out, const ab_run_record *rec)
{
    const ab_run_shard_info *s = &rec->shard;
    if (rec->shard_status != 1)
        return;
    fprintf(out,
            "| shard | part %d of %d of experiment %s: this report covers only this "
            "part's configurations; the other parts are separate runs (%d in this "
            "database), `attnbench status %s` lists them%s%s |\n",
            s->k, s->n, s->hash, s->others, s->exp_path, s->has_worker ? "; worker " : "", s->worker);
}
