/*
 * cuda_wgmma_widekv.cu: forward attention on wgmma + TMA + warp
 * specialisation + FlashAttention-3's overlaps on a persistent grid with
 * per-warpgroup key-tile counts, and at D = 128 non-causal key tiles of
 * 176 keys instead of 128; rung "cuda_wgmma_widekv" of the kernel ladder
 * (sm_90a only: the other targets of a default build compile an empty
 * kernel, and setup refuses any GPU but compute capability 9.0).
 *
 * Idea. Every key tile a consumer warpgroup runs has a fixed cost beside
 * its products: the ping-pong turn (a named-barrier sync and arrive), the
 * stage's full-barrier wait and empty-barrier arrive, two wgmma waits and
 * fences, the row maximum's shuffles, the two correction exponentials and
 * the rescale of O (D / 2 = 64 multiplies a thread at D = 128). Wider key
 * tiles pay it fewer times for the same products. FlashAttention-3's
 * tile_size_fwd_sm90 takes 128 x 176 for D = 128 non-causal (128 x 128
 * causal, where the diagonal tiles would waste more); the forward of
 * FlashAttention-4 on Hopper takes 128 x 128 (its interface's
 * _tile_size_fwd_sm90, flash-attn-4 4.0.0b36). Here, with PF_WIDEKV
 * (kernels/wgmma_persist_fwd.cuh, cfg): D = 128 non-causal runs 176-key
 * tiles (Q K^T is one m64n176k16 wgmma per 16 of D, P V eleven k-steps
 * of 16 keys) in 2 (K, V) stages of 88 KiB (3 would not fit shared
 * memory; 214 KiB in all); registers per consumer thread 88 for S, 44
 * for P, 64 for O within the 240 the warpgroup takes. D = 64 and causal
 * keep 128-key tiles (at D = 64 the 3 consumer warpgroups have 160
 * registers a thread, too few for 96 + 48 + 32). Two stages need K and V
 * on barriers of their own (PF_KVSPLIT, every shape of this rung): with
 * one barrier pair per stage, the stage of key tile j - 1 is freed only
 * after P_{j-1} V_{j-1}, late in iteration j, so the load of tile j + 1
 * into it has the rest of that iteration to land, less than the L2 round
 * trip of 88 KiB; with K freed as soon as S_j = Q K_j^T has landed (V
 * after its P V, as FlashAttention-3's separate K and V pipelines do), K
 * of tile j + 2 starts loading during iteration j. Everything else is
 * cuda_wgmma_wgskip (the previous rung).
 *
 * Work counted before coding (FlashAttention-3's grid at D = 128
 * non-causal, B*S = 16K tokens, H = 16; key tiles per query tile
 * ceil(S / 176) against S / 128): S = 1024, 2048, 4096, 8192, 16384:
 * 8 -> 6, 16 -> 12, 32 -> 24, 64 -> 47, 128 -> 94 turns (25-27% fewer
 * fixed costs), and the last tile pads the keys to 1056, 2112, 4224,
 * 8272, 16544 (3.1%, 3.1%, 3.1%, 1.0%, 1.0% more products and
 * exponentials, masked). Bytes: the same K and V reach shared memory
 * (from L2: 128 query rows per tile either way); DRAM traffic unchanged
 * (Q, K, V read and O written once, 268 MB, 64 us at ~4.2 TB/s), against
 * 3.1-3.4 ms of compute: compute-bound.
 *
 * Prediction (before the first run). In the same run
 * (reports/fa4-same-run/fa3-grid-fa4.db, NVIDIA H100, 2026-11-26) D = 128
 * non-causal ran at 646-670 TFLOP/s from S = 4096 on (cuda_wgmma_uniform)
 * against FlashAttention-4's 654-707, 4-5% apart, with the same tiles and
 * the same overlaps. If the per-tile fixed cost is about a tenth of a
 * tile's time, a quarter fewer tiles gives 2.5%, less the padding: 1.01-
 * 1.03x cuda_wgmma_wgskip at S = 8192 and 16384, 0.98-1.01x at S = 1024-
 * 4096 (3% padding); D = 64 and causal within 1% (the same code). The two
 * stages could cost instead, if one tile of lead does not hide the L2
 * latency of the next (K, V) tile: then 0.95-1.0x.
 *
 * A first version without PF_KVSPLIT (one barrier pair per stage, two
 * stages) was 0.72-0.76x cuda_wgmma_wgskip at D = 128 non-causal in a
 * quick timing (gpu_check --time, NVIDIA H100, 2026-11-26, 511 against
 * 676 TFLOP/s at B=1 H=16 S=16384 bf16; 419 against 585 at S=1024;
 * reports/hopper-widekv/call-a1-logs.tgz): the exposed load of the
 * stage's next tile, as above; the prediction below is for this version.
 *
 * Measured (NVIDIA H100 80GB HBM3, 2026-11-26, reports/hopper-widekv/
 * fa3-grid-widekv.db run 1; speed ratios, geometric means over bf16 and
 * fp16): D = 128 non-causal 1.019x cuda_wgmma_wgskip at S = 8192 and
 * 1.013x at S = 16384 (predicted 1.01-1.03: held, at its low end),
 * 0.989-1.007x by configuration at S = 1024-4096 (held); D = 64 0.997x and D = 128
 * causal 0.996x (held). In the next run (fa3-grid-desciter.db run 1)
 * D = 64 lost 0.985x non-causal and 0.980x causal: PF_KVSPLIT's
 * second barrier pair costs there. Against FlashAttention-4 in the same
 * run, D = 128 non-causal stays behind: the best own rung per
 * configuration 0.973x FA4 (0.952-0.999x).
 *
 * Status (2026-11-26): compiled for sm_90a (and empty for 80, 86, 89);
 * gpu_check 120 cases and five odd shapes (partial last key tile, S_kv !=
 * S, grouped-query heads) pass; compute-sanitizer memcheck and synccheck
 * clean (--small, H100); compute-sanitizer racecheck clean at B=1 H=2 S=300
 * D=128 bf16 and B=1 H=2 S=250 D=64 causal fp16 (reports/hopper-
 * widekv/final-check-logs.tgz).
 *
 * Source: FlashAttention-3 (Shah et al. 2024) and its code's
 * tile_size_fwd_sm90 for the 176-key width, read, not copied; PTX ISA 8.x
 * for wgmma m64n176k16; previous rung cuda_wgmma_wgskip.
 *
 * Any S >= 1, causal or not, D in {64, 128}, fp16 and bf16, grouped-query
 * heads (H_kv dividing H) and any S_kv >= 1; sm_90a only.
 */

#include "wgmma_persist_fwd.cuh"

/* The kernel body, host side and entry points (setup, run, teardown) are
 * kernels/wgmma_persist_fwd.cuh's, instantiated with this rung's ideas. */
AB_PERSIST_FWD_RUNG(cuda_wgmma_widekv, PF_UNIFORM | PF_WGSKIP | PF_WIDEKV | PF_KVSPLIT)
