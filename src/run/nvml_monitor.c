/*
 * nvml_monitor.c: NVML observation of clocks, temperature, power and
 * throttling (nvml_monitor.h). Throttle policy: a block counts as throttled
 * when NVML reports a thermal or hardware slowdown (HW slowdown, HW thermal,
 * SW thermal, HW power brake); the software power cap is recorded apart,
 * because boost clocks sit at the power cap under any heavy load and that is
 * the card's normal state, not an anomaly (nvbench's throttle detection keys
 * on the SM clock falling below a threshold for the same reason).
 */
#include "nvml_monitor.h"

#include <stdio.h>
#include <string.h>

#ifdef AB_HAVE_NVML
#include <nvml.h>

/* nvmlClocksEventReasons bits (nvml.h; the names moved between NVML
 * versions, the values did not): SwPowerCap 0x4; HwSlowdown 0x8,
 * SwThermalSlowdown 0x20, HwThermalSlowdown 0x40, HwPowerBrakeSlowdown 0x80. */
#define AB_POWER_CAP_BIT 0x4ULL
#define AB_THROTTLE_MASK (0x8ULL | 0x20ULL | 0x40ULL | 0x80ULL)

static int nvml_state = 0; /* 0 untried, 1 ok, -1 failed */

static int init(void)
{
    if (nvml_state == 0)
        nvml_state = nvmlInit_v2() == NVML_SUCCESS ? 1 : -1;
    return nvml_state == 1 ? 0 : -1;
}

static int handle(const char *uuid, nvmlDevice_t *dev)
{
    if (init())
        return -1;
    return nvmlDeviceGetHandleByUUID(uuid, dev) == NVML_SUCCESS ? 0 : -1;
}

int ab_nvml_available(void) { return init() == 0; }

/* The driver's release ("580.82.07"): nvmlSystemGetDriverVersion. */
static void driver_release(json_t *gpu)
{
    char v[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
    if (init() == 0 && nvmlSystemGetDriverVersion(v, sizeof v) == NVML_SUCCESS)
        json_object_set_new(gpu, "driver", json_string(v));
    else
        json_object_set_new(gpu, "driver", json_string("unknown (NVML did not answer)"));
}

void ab_nvml_fingerprint(json_t *gpu, const char *uuid)
{
    nvmlDevice_t dev;
    driver_release(gpu);
    if (handle(uuid, &dev)) {
        json_object_set_new(gpu, "nvml", json_string("not available (nvmlInit or handle failed)"));
        return;
    }
    nvmlEnableState_t pm, cur, pend;
    unsigned int mw, app_sm, app_mem, def_sm, def_mem, mig, migp;
    char vbios[NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE];
    if (nvmlDeviceGetPersistenceMode(dev, &pm) == NVML_SUCCESS)
        json_object_set_new(gpu, "persistence_mode", json_boolean(pm == NVML_FEATURE_ENABLED));
    if (nvmlDeviceGetPowerManagementLimit(dev, &mw) == NVML_SUCCESS)
        json_object_set_new(gpu, "power_limit_w", json_real(mw / 1000.0));
    if (nvmlDeviceGetEccMode(dev, &cur, &pend) == NVML_SUCCESS)
        json_object_set_new(gpu, "ecc_mode", json_boolean(cur == NVML_FEATURE_ENABLED));
    if (nvmlDeviceGetMigMode(dev, &mig, &migp) == NVML_SUCCESS)
        json_object_set_new(gpu, "mig_mode", json_boolean(mig == NVML_DEVICE_MIG_ENABLE));
    else
        json_object_set_new(gpu, "mig_mode", json_string("not supported"));
    if (nvmlDeviceGetApplicationsClock(dev, NVML_CLOCK_SM, &app_sm) == NVML_SUCCESS &&
        nvmlDeviceGetApplicationsClock(dev, NVML_CLOCK_MEM, &app_mem) == NVML_SUCCESS) {
        json_object_set_new(gpu, "app_sm_clock_mhz", json_integer(app_sm));
        json_object_set_new(gpu, "app_mem_clock_mhz", json_integer(app_mem));
        if (nvmlDeviceGetDefaultApplicationsClock(dev, NVML_CLOCK_SM, &def_sm) == NVML_SUCCESS &&
            nvmlDeviceGetDefaultApplicationsClock(dev, NVML_CLOCK_MEM, &def_mem) == NVML_SUCCESS)
            json_object_set_new(gpu, "clocks_locked",
                                json_boolean(app_sm != def_sm || app_mem != def_mem));
    }
    if (nvmlDeviceGetVbiosVersion(dev, vbios, sizeof vbios) == NVML_SUCCESS)
        json_object_set_new(gpu, "vbios", json_string(vbios));
}

int ab_nvml_read(const char *uuid, ab_clock_reading *r)
{
    nvmlDevice_t dev;
    unsigned int v;
    unsigned long long reasons = 0;
    memset(r, 0, sizeof *r);
    if (handle(uuid, &dev))
        return -1;
    if (nvmlDeviceGetClockInfo(dev, NVML_CLOCK_SM, &v) == NVML_SUCCESS)
        r->sm_mhz = v;
    if (nvmlDeviceGetClockInfo(dev, NVML_CLOCK_MEM, &v) == NVML_SUCCESS)
        r->mem_mhz = v;
    if (nvmlDeviceGetTemperature(dev, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS)
        r->temp_c = v;
    if (nvmlDeviceGetPowerUsage(dev, &v) == NVML_SUCCESS)
        r->power_w = v / 1000.0;
    if (nvmlDeviceGetCurrentClocksEventReasons(dev, &reasons) == NVML_SUCCESS) {
        r->reasons = reasons;
        r->throttled = (reasons & AB_THROTTLE_MASK) != 0;
        r->power_capped = (reasons & AB_POWER_CAP_BIT) != 0;
    }
    r->valid = 1;
    return 0;
}

#else /* no NVML in this build */

int ab_nvml_available(void) { return 0; }

void ab_nvml_fingerprint(json_t *gpu, const char *uuid)
{
    json_object_set_new(gpu, "driver", json_string("unknown (built without NVML)"));
    json_object_set_new(gpu, "nvml", json_string("not built (nvml.h or libnvidia-ml not found)"));
}

int ab_nvml_read(const char *uuid, ab_clock_reading *r)
{
    memset(r, 0, sizeof *r);
    return -1;
}

#endif
