/*
 * cuda_wgmma_softexp.cu: forward attention on wgmma + TMA + warp
 * specialisation + FlashAttention-3's overlaps on a persistent grid with
 * per-warpgroup key-tile counts, and at D = 64 a quarter of the softmax's
 * exponentials computed by a polynomial on the FMA pipe; rung
 * "cuda_wgmma_softexp" of the kernel ladder (sm_90a only: the other
 * targets of a default build compile an empty kernel, and setup refuses
 * any GPU but compute capability 9.0).
 *
 * Idea. At D = 64 a consumer warpgroup's key tile (64 query rows x 128
 * keys) is 4 x 64 x 128 x 64 = 2.1 MFLOP of wgmma, 512 cycles of an SM's
 * dense fp16/bf16 tensor rate (4,096 FLOP a cycle: 989 TFLOP/s at 132 SMs
 * and 1.83 GHz), and 8,192 exponentials, 512 cycles of its MUFU unit
 * (16 ex2 a cycle; CUDA C++ Programming Guide, arithmetic instruction
 * throughput, compute capability 9.0). The two units are equally loaded,
 * so the ping-pong of three warpgroups must hide one behind the other
 * perfectly to reach either's peak; at D = 128 the tensor time doubles and
 * the exponentials are half of it. cuda_wgmma_uniform reaches 478-497
 * TFLOP/s at D = 64 non-causal from S = 2048 on against 593-645 at
 * D = 128 (bf16, reports/hopper-causal-uniform/fa3-grid-noncausal-
 * lookahead.db run 1, NVIDIA H200, 2026-11-26; cuda_wgmma_wgskip, the
 * previous rung, does within 3% of its work there). FlashAttention-4
 * (Zadouri, Hoehnerbach, Shah, Liu, Thakkar, Dao) moves part of the
 * exponentials to the FMA pipe
 * with a polynomial on Blackwell, whose tensor cores outran MUFU; here
 * the same at D = 64 on Hopper: columns 24-31, 56-63, 88-95 and 120-127
 * of each key tile (one group of 8 in 4) take ab_soft_exp2
 * (kernels/soft_exp2.h: round-to-nearest split, degree-3 polynomial,
 * exponent-field add; 9 instructions on the FMA and integer pipes, relative
 * error at most 7.5e-5), the rest ex2.approx. MUFU time per warpgroup
 * key tile 512 -> 384 cycles; issue slots per warp +128 instructions (8
 * extra for each of 16 emulated exponentials a thread) on about 350.
 * D = 128 is unchanged (EMU = 0 there: the same code as cuda_wgmma_wgskip).
 *
 * FLOPs and bytes: those of cuda_wgmma_wgskip (its header): the same
 * products and the same DRAM traffic; only which unit computes 2^x moves.
 *
 * Prediction (before the first run). If the MUFU unit's share is what
 * keeps D = 64 at ~53% of the tensor peak, D = 64 gains up to the
 * quarter of the exponential time it sheds, diluted by the overlap: 1.02-
 * 1.08x cuda_wgmma_wgskip's speed at D = 64 for S >= 2048 (causal and
 * not); if the issue slots bind instead (3 consumer warps per scheduler,
 * about 1,050 of 1,536 cycles busy per three warpgroup key tiles before,
 * about 1,440 after), 0.95-1.0x. D = 128: within 1%.
 *
 * Accuracy: the float64 check's tolerance rule is FlashAttention's
 * (twice the error of a plain computation in the same 16-bit precision,
 * plus an absolute term; kernels/check.h);
 * the polynomial's 7.5e-5 is below the 16-bit P's own rounding (2^-9
 * bf16, 2^-12 fp16), so the check should pass as for the previous rung.
 *
 * Measured (NVIDIA H100 80GB HBM3, 2026-11-26,
 * reports/hopper-wgskip/fa3-grid-wgskip.db run 1): SLOWER, D = 64 causal
 * 0.723x cuda_wgmma_wgskip and non-causal 0.665x in geometric mean (neither
 * prediction held: the polynomial costs more issue slots than the MUFU
 * time it saves); D = 128 1.000x (the same code).
 *
 * Status (2026-11-26): compiled for sm_90a (and empty for 80, 86, 89);
 * gpu_check 120 cases, memcheck and synccheck clean on the H100; racecheck
 * did not finish at the sanitize suite's shapes (killed at 100 s), and
 * later ran clean at two small shapes (reports/hopper-widekv/ final-check-
 * logs.tgz); the polynomial's error was checked in float32 on the CPU
 * (reports/hopper-wgskip/exp2_poly_fit.py, exp2-poly-fit.txt).
 *
 * Source: FlashAttention-4's idea of computing part of the exponentials
 * by a polynomial on the FMA units (as its authors describe it; not its
 * code): the split, the degree and the coefficients here are our own;
 * previous rung cuda_wgmma_wgskip.
 *
 * Any S >= 1, causal or not, D in {64, 128}, fp16 and bf16, grouped-query
 * heads (H_kv dividing H) and any S_kv >= 1; sm_90a only.
 */

#include "wgmma_persist_fwd.cuh"

/* The kernel body, host side and entry points (setup, run, teardown) are
 * kernels/wgmma_persist_fwd.cuh's, instantiated with this rung's ideas. */
AB_PERSIST_FWD_RUNG(cuda_wgmma_softexp, PF_UNIFORM | PF_WGSKIP | PF_SOFTEXP)
