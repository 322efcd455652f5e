/*
 * nvml_monitor.h: what NVML can tell about the GPU's state, observed only
 * (attnbench never changes clocks, power limits or any other setting).
 * Built against NVML when its header and library were found (-Dnvml);
 * otherwise every call reports "not monitored".
 */
#ifndef ATTNBENCH_NVML_MONITOR_H
#define ATTNBENCH_NVML_MONITOR_H

#include <jansson.h>

/* One reading around a block of samples. */
typedef struct ab_clock_reading {
    int valid;                 /* 0: NVML unavailable */
    unsigned sm_mhz, mem_mhz;  /* current clocks */
    unsigned temp_c;
    double power_w;
    unsigned long long reasons; /* nvmlClocksEventReasons bit mask */
    int throttled;             /* thermal or hardware slowdown (see AB_THROTTLE_MASK) */
    int power_capped;          /* software power cap active (boost's normal limit) */
} ab_clock_reading;

/* Whether this build monitors clocks through NVML. */
int ab_nvml_available(void);

/* Adds NVML's static fields for the GPU with this CUDA uuid to `gpu`:
 * driver (the release, nvmlSystemGetDriverVersion; "unknown (...)" without
 * NVML), persistence mode, power limit (W), application clocks and their defaults,
 * clocks_locked (application clocks differ from defaults), MIG mode, ECC
 * mode, VBIOS. Adds "nvml": "not available" without NVML. */
void ab_nvml_fingerprint(json_t *gpu, const char *uuid);

/* Reads clocks, temperature, power and throttle reasons of the GPU with this
 * uuid. Returns 0, or -1 (r->valid = 0) when NVML is unavailable. */
int ab_nvml_read(const char *uuid, ab_clock_reading *r);

#endif
