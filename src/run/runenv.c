/*
 * runenv.c: a run's settings and conditions (runenv.h): OpenMP threads,
 * CPU affinity (sched_getaffinity), load average (getloadavg), stored as
 * JSON in runs.run_settings.
 */
#include "runenv.h"
#include "gpu.h"
#include "runmeta.h"
#include "store.h"
#include "util.h"

#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* The CPUs of a mask as a list of ranges ("0-3,6"); their count in *count. */
static void cpu_list(const cpu_set_t *set, char *buf, size_t n, int *count)
{
    size_t len = 0;
    *count = 0;
    buf[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, set))
            continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
            last++;
        *count += last - c + 1;
        if (len < n)
            len += (size_t)snprintf(buf + len, n - len, last > c ? "%s%d-%d" : "%s%d", len ? "," : "",
                                    c, last);
        c = last;
    }
}

static json_t *load_json(void)
{
    double l[3];
    if (getloadavg(l, 3) != 3)
        return json_null();
    /* two decimals, as /proc/loadavg and uptime(1) print it */
    return json_pack("[f, f, f]", round(l[0] * 100) / 100, round(l[1] * 100) / 100,
                     round(l[2] * 100) / 100);
}

void ab_runenv_tuning_add(json_t *obj)
{
    static const char *const tuning[] = {"AB_TUNE", "ATTNBENCH_HOLD", "ATTNBENCH_SMEM_LIMIT"};
    for (size_t i = 0; obj && i < sizeof tuning / sizeof tuning[0]; i++) {
        const char *v = getenv(tuning[i]);
        if (v && *v)
            json_object_set_new(obj, tuning[i], json_string(v));
    }
}

/* {variant: "how many CPU threads it had"}: a CPU variant (built-in or
 * plugin) the run's OpenMP threads, an adapter the experiment's threads
 * through OMP_NUM_THREADS and its kin (external.h) or, without `threads`
 * in the experiment, whatever it inherited; a GPU variant its one host
 * thread launching work. */
static json_t *variant_threads(const ab_experiment *e, int omp_threads)
{
    json_t *o = json_object();
    for (size_t i = 0; o && i < e->nvariants; i++) {
        const ab_exp_variant *v = &e->variants[i];
        char buf[96];
        if (!v->native) {
            if (e->threads > 0 && e->threads_set)
                snprintf(buf, sizeof buf, "%d (adapter: OMP_NUM_THREADS=%d)", e->threads,
                         e->threads);
            else if (e->threads > 0)
                snprintf(buf, sizeof buf, "%d (adapter: OMP_NUM_THREADS=%d, the default)",
                         e->threads, e->threads);
            else
                snprintf(buf, sizeof buf, "inherited (adapter: threads = 0)");
        } else if (v->native->device == AB_DEV_CUDA)
            snprintf(buf, sizeof buf, "GPU (1 host thread launching)");
        else
            snprintf(buf, sizeof buf, "%d (OpenMP)", omp_threads);
        json_object_set_new(o, v->name, json_string(buf));
    }
    return o;
}

json_t *ab_runenv_apply(const ab_experiment *e, const char *timing_mode)
{
    int threads = 1, openmp = 0;
#ifdef _OPENMP
    openmp = 1;
    if (e->threads > 0)
        omp_set_num_threads(e->threads);
    threads = omp_get_max_threads();
#endif
    json_t *s = json_object();
    if (!s)
        return NULL;
    json_object_set_new(s, "timing_mode", json_string(timing_mode));
    if (strcmp(timing_mode, "host") != 0) /* GPU variants: how their blocks were enqueued */
        json_object_set_new(s, "launch_hold", json_boolean(ab_gpu_hold_enabled()));
    json_object_set_new(s, "threads", json_integer(threads));
    json_object_set_new(s, "threads_requested", json_integer(e->threads));
    json_object_set_new(s, "threads_from", json_string(e->threads_set ? "experiment" : "default"));
    json_object_set_new(s, "openmp", json_boolean(openmp));
    json_object_set_new(s, "variant_threads", variant_threads(e, threads));
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        char list[512];
        int count;
        cpu_list(&set, list, sizeof list, &count);
        json_object_set_new(s, "affinity", json_string(list));
        json_object_set_new(s, "affinity_cpus", json_integer(count));
    }
    json_object_set_new(s, "load_avg", load_json());
    /* instances per variant and where they came from: a stored text without
     * `instances` means the default only through this (ab_exp_stored_instances) */
    json_object_set_new(s, "instances", json_integer(e->instances));
    json_object_set_new(s, "instances_from",
                        json_string(e->instances_set ? "experiment" : "default"));
    /* the GPU-time budget (experiment.h): the file's, the default or the
     * command line's, which the experiment's text does not show */
    json_object_set_new(s, "sampling",
                        json_pack("{s:f, s:f, s:i, s:s}", "min_time_s", e->min_time_s,
                                  "max_time_s", e->max_time_s, "max_samples", e->max_samples,
                                  "from", e->sampling_from ? e->sampling_from : "default"));
    /* the warm-up's time bound (runner.c warm_up), which the report states */
    json_object_set_new(s, "warmup_time_s", json_real(e->warmup_time_s));
    /* adapters kept for later runs (ext_keep.h): the runner adds
     * keep_adapters_s and keep_adapters_from once it has decided */
    static const char *const vars[] = {"OMP_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES",
                                       "OMP_WAIT_POLICY", "GOMP_SPINCOUNT",
                                       /* plans built ahead (runner.c): setup time only */
                                       "ATTNBENCH_PREPARE_THREADS"};
    json_t *env = json_object();
    for (size_t i = 0; env && i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i]))
            json_object_set_new(env, vars[i], json_string(getenv(vars[i])));
    ab_runenv_tuning_add(env);
    if (env && json_object_size(env))
        json_object_set_new(s, "environment", env);
    else
        json_decref(env);
    return s;
}

int ab_runenv_store(sqlite3 *db, long long run_id, const json_t *settings, char *err)
{
    char *text = json_dumps(settings, JSON_SORT_KEYS | JSON_COMPACT);
    if (!text) {
        snprintf(err, AB_ERR, "out of memory storing the run settings");
        return -1;
    }
    int rc = ab_run_settings_store(db, run_id, text, err);
    free(text);
    return rc;
}

int ab_runenv_finish(sqlite3 *db, long long run_id, char *err)
{
    json_t *l = load_json();
    char *text = json_dumps(l, JSON_ENCODE_ANY | JSON_COMPACT);
    json_decref(l);
    if (!text) {
        snprintf(err, AB_ERR, "out of memory storing the run settings");
        return -1;
    }
    int rc = ab_run_settings_set(db, run_id, "$.load_avg_end", text, err);
    free(text);
    return rc;
}

json_t *ab_runenv_load(sqlite3 *db, long long run_id)
{
    char *text = ab_run_settings_text(db, run_id);
    json_t *s = text ? json_loads(text, 0, NULL) : NULL;
    free(text);
    return s;
}

int ab_runenv_busy(const json_t *s)
{
    json_t *l = json_object_get(s, "load_avg");
    long long cpus = json_integer_value(json_object_get(s, "affinity_cpus")),
              threads = json_integer_value(json_object_get(s, "threads"));
    if (!json_is_array(l) || cpus <= 0 || threads <= 0)
        return 0;
    return json_real_value(json_array_get(l, 0)) + (double)threads > (double)cpus;
}

void ab_runenv_budget_restore(sqlite3 *db, long long run_id, ab_experiment *e)
{
    json_t *s = ab_runenv_load(db, run_id), *b = json_object_get(s, "sampling");
    static char from[32];
    if (!json_is_object(b)) {
        e->min_time_s = e->max_time_s = 0;
        e->sampling_from = "none (a run from before the GPU-time budget)";
    } else {
        e->min_time_s = json_number_value(json_object_get(b, "min_time_s"));
        e->max_time_s = json_number_value(json_object_get(b, "max_time_s"));
        if (json_integer_value(json_object_get(b, "max_samples")) > 0)
            e->max_samples = (int)json_integer_value(json_object_get(b, "max_samples"));
        snprintf(from, sizeof from, "%s",
                 json_string_value(json_object_get(b, "from")) ?: "default");
        e->sampling_from = from;
    }
    json_decref(s);
}

void ab_runenv_warn(const json_t *fp, const json_t *s)
{
    const char *commit = json_string_value(json_object_get(json_object_get(fp, "build"), "commit"));
    if (!commit || strcmp(commit, "unknown") == 0)
        fprintf(stderr, "  (warning: the build's commit is unknown: git is not installed or this is "
                        "not a git checkout; the fingerprint cannot name the source)\n");
    if (ab_runenv_busy(s))
        fprintf(stderr, "  (warning: busy host: load average %.2f with %lld CPUs for %lld thread(s); "
                        "samples will include waiting for a core)\n",
                json_real_value(json_array_get(json_object_get(s, "load_avg"), 0)),
                json_integer_value(json_object_get(s, "affinity_cpus")),
                json_integer_value(json_object_get(s, "threads")));
}
