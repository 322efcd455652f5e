/*
 * env.c: the environment fingerprint of env.h, from the CUDA runtime, cuBLAS,
 * cuDNN (when linked), NVML (when built), /proc, uname and the build itself.
 * It describes the machine and the build only: a run's own settings (timing
 * mode, threads, load) are in runenv.h, so `attnbench env` and every run on
 * one machine share one hash.
 */
#include "env.h"
#include "ab_build.h"
#include "ab_commit.h"
#include "gpu.h"
#include "nvml_monitor.h"
#include "runenv.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* First line of `path` starting with `key`, the text after the ':' or '='
 * (quotes stripped), into out. */
static int read_keyed(const char *path, const char *key, char *out, size_t n)
{
    FILE *f = fopen(path, "r");
    char line[512];
    int found = 0;
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, strlen(key)) == 0) {
            char *p = line + strlen(key);
            while (*p == ' ' || *p == '\t' || *p == ':' || *p == '=' || *p == '"')
                p++;
            p[strcspn(p, "\"\n")] = '\0';
            snprintf(out, n, "%s", p);
            found = 1;
            break;
        }
    fclose(f);
    return found;
}

static json_t *version_json(int v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%d.%d", v / 1000, (v % 1000) / 10);
    return json_string(buf);
}

static void host_fields(json_t *host)
{
    char buf[256];
    struct utsname u;
    if (gethostname(buf, sizeof buf) == 0)
        json_object_set_new(host, "hostname", json_string(buf));
    if (read_keyed("/proc/cpuinfo", "model name", buf, sizeof buf))
        json_object_set_new(host, "cpu", json_string(buf));
    json_object_set_new(host, "cpus", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0)
        json_object_set_new(host, "memory_bytes", json_integer((json_int_t)pages * page));
    if (read_keyed("/etc/os-release", "PRETTY_NAME", buf, sizeof buf))
        json_object_set_new(host, "os", json_string(buf));
    if (uname(&u) == 0) {
        json_object_set_new(host, "kernel", json_string(u.release));
        json_object_set_new(host, "arch", json_string(u.machine));
    }
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "r");
    if (f && fgets(buf, sizeof buf, f)) {
        buf[strcspn(buf, "\n")] = '\0';
        json_object_set_new(host, "cpu_governor", json_string(buf));
    } else {
        json_object_set_new(host, "cpu_governor", json_string("unknown"));
    }
    if (f)
        fclose(f);
    f = fopen("/sys/devices/system/cpu/intel_pstate/no_turbo", "r");
    if (!f)
        f = fopen("/sys/devices/system/cpu/cpufreq/boost", "r");
    if (f && fgets(buf, sizeof buf, f)) {
        buf[strcspn(buf, "\n")] = '\0';
        json_object_set_new(host, "turbo_file", json_string(buf));
    } else {
        json_object_set_new(host, "turbo_file", json_string("unknown"));
    }
    if (f)
        fclose(f);
}

json_t *ab_env_fingerprint(int with_gpu)
{
    json_t *fp = json_object(), *host = json_object(), *build = json_object();
    if (!fp || !host || !build) {
        json_decref(fp);
        json_decref(host);
        json_decref(build);
        return NULL;
    }
    host_fields(host);
    json_object_set_new(fp, "host", host);

    json_object_set_new(build, "attnbench", json_string(AB_VERSION));
    json_object_set_new(build, "commit", json_string(AB_GIT_COMMIT));
    json_object_set_new(build, "compiler", json_string(AB_C_COMPILER));
    json_object_set_new(build, "build_type", json_string(AB_BUILD_TYPE));
    json_object_set_new(build, "nvcc", json_string(AB_NVCC_VERSION));
    json_object_set_new(build, "cuda_flags", json_string(AB_CUDA_FLAGS));
    json_object_set_new(fp, "build", build);

    json_t *settings = json_object();
    /* attnbench never enables TF32: cublas_standard runs fp32 GEMMs with
     * CUBLAS_COMPUTE_32F, and no variant uses tf32 mma. */
    json_object_set_new(settings, "tf32", json_false());
    ab_runenv_tuning_add(settings); /* AB_TUNE when set: the tiles are part of the environment */
    json_object_set_new(fp, "settings", settings);

    ab_gpu_info g;
    char err[256];
    if (with_gpu && ab_gpu_query(&g, err, sizeof err) == 0) {
        json_t *gpu = json_object();
        char cc[16];
        snprintf(cc, sizeof cc, "%d.%d", g.cc_major, g.cc_minor);
        json_object_set_new(gpu, "name", json_string(g.name));
        json_object_set_new(gpu, "uuid", json_string(g.uuid));
        json_object_set_new(gpu, "compute_capability", json_string(cc));
        json_object_set_new(gpu, "sm_count", json_integer(g.sm_count));
        json_object_set_new(gpu, "memory_bytes", json_integer((json_int_t)g.mem_total));
        json_object_set_new(gpu, "l2_bytes", json_integer(g.l2_bytes));
        json_object_set_new(gpu, "max_sm_clock_mhz", json_integer(g.sm_clock_khz / 1000));
        json_object_set_new(gpu, "max_mem_clock_mhz", json_integer(g.mem_clock_khz / 1000));
        json_object_set_new(gpu, "ecc", json_boolean(g.ecc));
        /* the CUDA version the driver supports ("13.0"); the driver's own
         * release ("580.82.07") is "driver", from NVML (nvml_monitor.c) */
        json_object_set_new(gpu, "cuda_driver_api", version_json(g.driver_version));
        json_object_set_new(gpu, "cuda_runtime", version_json(g.runtime_version));
        json_object_set_new(gpu, "cublas", json_integer(g.cublas_version));
        if (g.cudnn_version)
            json_object_set_new(gpu, "cudnn", json_integer(g.cudnn_version));
        ab_nvml_fingerprint(gpu, g.uuid);
        json_object_set_new(fp, "gpu", gpu);
    } else {
        json_object_set_new(fp, "gpu", json_null());
    }
    return fp;
}

int ab_env_canonical(const json_t *fp, char **text, char hash[17])
{
    *text = json_dumps(fp, JSON_SORT_KEYS | JSON_COMPACT);
    if (!*text)
        return -1;
    ab_hash_hex(*text, strlen(*text), hash);
    return 0;
}

static void diff_into(const json_t *a, const json_t *b, const char *prefix, char *out, size_t n)
{
    const char *key;
    json_t *va;
    json_object_foreach((json_t *)a, key, va) {
        json_t *vb = json_object_get(b, key);
        char name[512];
        snprintf(name, sizeof name, "%s%s", prefix, key);
        if (json_is_object(va) && json_is_object(vb)) {
            char p[520];
            snprintf(p, sizeof p, "%s.", name);
            diff_into(va, vb, p, out, n);
        } else if (!vb || !json_equal(va, vb)) {
            size_t len = strlen(out);
            snprintf(out + len, n - len, "%s%s", len ? ", " : "", name);
        }
    }
    json_object_foreach((json_t *)b, key, va) {
        if (!json_object_get(a, key)) {
            size_t len = strlen(out);
            snprintf(out + len, n - len, "%s%s%s", len ? ", " : "", prefix, key);
        }
    }
}

void ab_env_diff(const json_t *a, const json_t *b, char *out, size_t n)
{
    out[0] = '\0';
    diff_into(a, b, "", out, n);
}
