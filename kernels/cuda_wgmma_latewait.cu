/*
 * cuda_wgmma_latewait.cu: forward attention on wgmma + TMA + warp
 * specialisation + FlashAttention-3's overlaps on a persistent grid with
 * per-warpgroup key-tile counts, 176-key tiles at D = 128 non-causal,
 * descriptors stepped by adds and an unmasked key-tile loop without
 * branches, whose wait for P V comes after the first row's exponentials;
 * rung "cuda_wgmma_latewait" of the kernel ladder (sm_90a only: the other
 * targets of a default build compile an empty kernel, and setup refuses
 * any GPU but compute capability 9.0).
 *
 * Idea. In cuda_wgmma_splitloop (the previous rung) the compiler, free to
 * place the wait for P_{j-1} V_{j-1} (WARPGROUP.DEPBAR, which names no
 * register) anywhere before the first use of O or P, puts it in the
 * middle of the row maximum, before any exponential of tile j (its SASS):
 * the warp then stalls until the product finishes instead of computing
 * exponentials meanwhile (Nsight Compute source counters at D = 128: that
 * one instruction 11.1% of the warp stall samples, 8.2% for the wait on
 * S_j; in FlashAttention-4 the wait on P V is not among the hot lines and
 * sits after about a third of the second row's exponentials;
 * reports/hopper-widekv/call-b4-logs.tgz, prof-logs.tgz). Here
 * (PF_LATEWAIT, kernels/wgmma_persist_fwd.cuh) the unmasked loop computes
 * row 0's softmax (wg_softmax's ROW), stores its row sum to a scratch word
 * of shared memory (never read), then waits: a shared-memory store and the
 * wait stay in program order, so the wait follows row 0's exponentials,
 * and row 1's may overlap the rescale of O and the conversion of P (in the
 * SASS: the wait after row 0's, most of row 1's still before it, the last
 * ones interleaved with the multiplies and conversions after it). The
 * masked loop and everything else are cuda_wgmma_splitloop's.
 *
 * Work: one 4-byte shared-memory store per thread and key tile added;
 * FLOPs, exponentials and DRAM bytes unchanged.
 *
 * Prediction (before the first run). If the early wait costs what its
 * stall samples suggest, less what the other warpgroup's work already
 * hid: 1.02-1.06x cuda_wgmma_splitloop at D = 128 non-causal (the longest
 * P V, 176 keys), 1.00-1.03x at D = 64 non-causal, within 1% causal (its
 * few masked tiles keep the old schedule, its unmasked ones change).
 *
 * Measured (NVIDIA H100 80GB HBM3, 2026-11-26, reports/hopper-widekv/
 * fa3-grid-latewait.db runs 1 and 2; speed ratios, geometric means over
 * bf16 and fp16): SLOWER, 0.989x and 0.985x cuda_wgmma_splitloop at
 * D = 128 non-causal, 0.981x and 0.982x at D = 64 non-causal, 0.975x and
 * 0.978x at D = 128 causal (predicted 1.02-1.06, 1.00-1.03 and within 1%:
 * failed). Kept as a measured step.
 *
 * Profile (Nsight Compute source counters, D = 128, call-b5-logs.tgz): the
 * wait for P V left the hot lines (0.4% of the stall samples, from 11.5%),
 * and the conversions went back to 8.0% (splitloop 2.1%): with the wait
 * after the exponentials the rescale of O and the conversion of P no
 * longer overlap them, and that overlap was worth more than the early
 * wait cost.
 *
 * Status (2026-11-26): compiled for sm_90a (and empty for 80, 86, 89);
 * gpu_check 120 cases and five odd shapes pass; compute-sanitizer memcheck
 * and synccheck clean (--small, H100); compute-sanitizer racecheck clean at
 * B=1 H=2 S=300 D=128 bf16 and B=1 H=2 S=250 D=64 causal fp16
 * (reports/hopper-widekv/final-check-logs.tgz).
 *
 * Source: the placement seen in FlashAttention-4's Hopper forward SASS
 * (Nsight Compute's source view; not its code); previous rung
 * cuda_wgmma_splitloop.
 *
 * Any S >= 1, causal or not, D in {64, 128}, fp16 and bf16, grouped-query
 * heads (H_kv dividing H) and any S_kv >= 1; sm_90a only.
 */

#include "wgmma_persist_fwd.cuh"

/* The kernel body, host side and entry points (setup, run, teardown) are
 * kernels/wgmma_persist_fwd.cuh's, instantiated with this rung's ideas. */
AB_PERSIST_FWD_RUNG(cuda_wgmma_latewait, PF_UNIFORM | PF_WGSKIP | PF_WIDEKV | PF_KVSPLIT |
                                             PF_DESCADD | PF_SPLITLOOP | PF_LATEWAIT)
