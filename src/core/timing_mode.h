/*
 * timing_mode.h: the three ways a GPU sample is timed, named in experiment
 * files, stored with every measurement and implemented by the GPU harness
 * (kernels/gpu.h). Part of the shared vocabulary, so that the experiment
 * parser and the store need no GPU header. Names: timing_modes.c.
 */
#ifndef ATTNBENCH_TIMING_MODE_H
#define ATTNBENCH_TIMING_MODE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Timing modes (issue "Measurements a GPU engineer trusts"):
 *   COLD:  L2 flushed (a cudaMemsetAsync over 2x the L2 size) before each
 *          sample; one launch between one event pair.
 *   HOT:   back-to-back launches, an event pair around each.
 *   GRAPH: `graph_k` launches captured in one CUDA graph, one event pair
 *          around each replay, sample = elapsed / graph_k. */
typedef enum ab_timing_mode { AB_TIME_COLD = 0, AB_TIME_HOT = 1, AB_TIME_GRAPH = 2 } ab_timing_mode;

/* "cold", "hot", "graph"; "?" for a value outside the enum. */
const char *ab_timing_mode_name(ab_timing_mode m);

/* Sets *m from its name; returns 0, or -1 (and leaves *m) for an unknown
 * name. */
int ab_timing_mode_parse(const char *s, ab_timing_mode *m);

#ifdef __cplusplus
}
#endif

#endif
