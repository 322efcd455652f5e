/*
 * cuda_wgmma_ilpsoft.cu: forward attention on wgmma + TMA + warp
 * specialisation + FlashAttention-3's overlaps on a persistent grid with
 * per-warpgroup key-tile counts and 176-key tiles at D = 128 non-causal,
 * the softmax's row reductions split into independent chains; rung
 * "cuda_wgmma_ilpsoft" of the kernel ladder (sm_90a only: the other
 * targets of a default build compile an empty kernel, and setup refuses
 * any GPU but compute capability 9.0).
 *
 * Idea. In the ping-pong, a warpgroup's softmax of key tile j must finish
 * while the other warpgroups' products run, or the tensor cores wait. Its
 * critical path starts with the row maximum: in cuda_wgmma_widekv (the
 * previous rung) a thread folds its BC / 4 columns of a row into one
 * running maximum, a chain of BC / 8 dependent FMNMX (16 at BC = 128, 22
 * at 176), then two shuffles, then the exponentials, whose row sum is
 * another chain of BC / 8 dependent FADD. Here (wg_softmax's ILP,
 * kernels/wgmma_common.cuh) both run as four independent partial results
 * combined at the end: chains of about BC / 16, the same instruction
 * count (plus three combining operations a row). FlashAttention-4's
 * Hopper softmax does the maximum with four partial results too (its
 * utils.fmax_reduce; read, not copied).
 *
 * Work: identical products, exponentials and bytes to cuda_wgmma_widekv
 * (its header); per warpgroup key tile the dependent FMNMX chain of a row
 * drops from BC / 8 to BC / 16 + 2 and the FADD chain likewise (at ~4
 * cycles a step, about 30 cycles a row at BC = 128, two rows a thread
 * interleaved), against 512 (D = 64) or 1,024 (D = 128) tensor cycles
 * of the warpgroup's own products.
 *
 * Prediction (before the first run). Only where the softmax's latency,
 * not the MUFU unit's throughput, keeps the tensor cores waiting: D = 64
 * (three warpgroups, exponentials as long as the products) 1.00-1.03x
 * cuda_wgmma_widekv; D = 128 1.00-1.02x. Within 1% means the chains were
 * hidden already.
 *
 * Measured (NVIDIA H100 80GB HBM3, 2026-11-26, reports/hopper-widekv/
 * fa3-grid-widekv.db run 1; speed ratios, geometric means over bf16 and
 * fp16): D = 64 1.012x cuda_wgmma_widekv non-causal and 1.014x causal
 * (held); D = 128 SLOWER, 0.952x non-causal and 0.961x causal, down to
 * 0.937x at S = 16384 non-causal (predicted 1.00-1.02: failed). The
 * instruction count is the same; at D = 128 the partial results keep more
 * registers live beside S, P and O while the exponentials run, a likely
 * cause (not profiled). Kept as a measured step; the next rung builds on
 * cuda_wgmma_widekv.
 *
 * Status (2026-11-26): compiled for sm_90a (and empty for 80, 86, 89);
 * gpu_check 120 cases and five odd shapes pass; compute-sanitizer memcheck
 * and synccheck clean (--small, H100); compute-sanitizer racecheck clean at
 * B=1 H=2 S=300 D=128 bf16 and B=1 H=2 S=250 D=64 causal fp16
 * (reports/hopper-widekv/final-check-logs.tgz).
 *
 * Source: the tree reduction of any parallel-reduction text; previous rung
 * cuda_wgmma_widekv.
 *
 * Any S >= 1, causal or not, D in {64, 128}, fp16 and bf16, grouped-query
 * heads (H_kv dividing H) and any S_kv >= 1; sm_90a only.
 */

#include "wgmma_persist_fwd.cuh"

/* The kernel body, host side and entry points (setup, run, teardown) are
 * kernels/wgmma_persist_fwd.cuh's, instantiated with this rung's ideas. */
AB_PERSIST_FWD_RUNG(cuda_wgmma_ilpsoft,
                    PF_UNIFORM | PF_WGSKIP | PF_WIDEKV | PF_KVSPLIT | PF_ILPSOFT)
