/*
 * cuda_wgmma_splitloop.cu: forward attention on wgmma + TMA + warp
 * specialisation + FlashAttention-3's overlaps on a persistent grid with
 * per-warpgroup key-tile counts, 176-key tiles at D = 128 non-causal and
 * descriptors stepped by adds, its key-tile loop split into an unmasked
 * and a masked loop; rung "cuda_wgmma_splitloop" of the kernel ladder
 * (sm_90a only: the other targets of a default build compile an empty
 * kernel, and setup refuses any GPU but compute capability 9.0).
 *
 * Idea. In the rungs so far each key tile of the loop chooses between the
 * masked and the unmasked softmax (a branch), and the two paths join
 * before the wait for P_{j-1} V_{j-1}, the rescale of O and the
 * conversion of P_j to 16 bits. The compiler schedules within a basic
 * block, so every exponential of tile j issues before that wait and the
 * multiplies and conversions after it: the MUFU unit drains while the FMA
 * and conversion work waits behind it. FlashAttention-3 and -4 run the
 * masked key tiles in loops of their own; in FlashAttention-4's Hopper
 * forward the compiler then moves the wait up among the exponentials and
 * interleaves the last exponentials and row-sum additions with the
 * rescale and the conversions (its SASS, below). Here (PF_SPLITLOOP,
 * kernels/wgmma_persist_fwd.cuh) the loop runs tiles 1 .. jm - 1 without
 * the mask and jm .. jw - 1 with it, jm the first tile that needs it
 * (ab_key_tile_masked grows with the tile, so the masked ones are the
 * last: one at most when non-causal, the diagonal's when causal); neither
 * loop branches on the mask. Everything else is cuda_wgmma_desciter's
 * (the previous rung).
 *
 * Seen before coding (Nsight Compute source counters, one launch each,
 * B=1 H=16 S=16384 bf16 non-causal, reports/hopper-widekv/prof-logs.tgz):
 * in cuda_wgmma_desciter the conversions (F2FP) hold 7.6% (D = 128) and
 * 8.3% (D = 64) of the warp stall samples, in FlashAttention-4 2.6% and
 * 1.8%, with the same 80 conversions a loop; FA4's WARPGROUP.DEPBAR for P V
 * sits among the MUFU.EX2 of the second row, ours after all of them. Same
 * FLOPs, exponentials, instructions and bytes as the previous rung.
 *
 * Prediction (before the first run). If the conversion and rescale time
 * is what ours pays beyond FA4's at long non-causal shapes (about 5% of
 * the samples, and the time the MUFU unit idles meanwhile), 1.02-1.05x
 * cuda_wgmma_desciter at D = 64 and D = 128 non-causal; causal 1.00-1.03x
 * (its masked tiles keep the old schedule, a smaller share at long S).
 * Within 1% means the branch was not what kept the schedule apart.
 *
 * Measured (NVIDIA H100 80GB HBM3, 2026-11-26, reports/hopper-widekv/
 * fa3-grid-splitloop.db run 1; speed ratios, geometric means over bf16
 * and fp16): non-causal 1.032x cuda_wgmma_desciter at D = 64 and 1.018x at
 * D = 128 (predicted 1.02-1.05: held at D = 64, just under at D = 128);
 * causal 0.981x at D = 64 and 0.994x at D = 128 (predicted 1.00-1.03:
 * failed, slower). Twice more in fa3-grid-latewait.db (runs 1 and 2):
 * 1.035x and 1.034x at D = 64 non-causal, 1.018x and 1.013x at D = 128
 * non-causal. Llama 3 8B prefill (causal, grouped-query;
 * llama3-8b-prefill-splitloop.db run 1): 0.992x desciter. Against
 * FlashAttention-4 over FlashAttention-3's grid: this rung 1.000x in
 * geometric mean (fa3-grid-splitloop.db run 1), the fastest own rung per
 * configuration 1.011x (0.946-1.241x).
 *
 * Profile (Nsight Compute source counters, one launch each, B=1 H=16
 * S=16384 bf16 non-causal, call-b4-logs.tgz): the conversions' share of
 * the stall samples fell from 7.6% to 2.1% at D = 128 and from 8.3% to
 * 2.6% at D = 64 (FlashAttention-4: 2.6% and 1.8%); at D = 128 the wait
 * for P V now sits before the exponentials and holds 11.5% of the samples
 * (cuda_wgmma_latewait's idea).
 *
 * Status (2026-11-26): compiled for sm_90a (and empty for 80, 86, 89);
 * gpu_check 120 cases and five odd shapes pass (and for every persistent
 * rung, whose shared loop changed); compute-sanitizer memcheck and
 * synccheck clean (--small, H100); compute-sanitizer racecheck clean at B=1
 * H=2 S=300 D=128 bf16 and B=1 H=2 S=250 D=64 causal fp16 (reports/hopper-
 * widekv/final-check-logs.tgz).
 *
 * Source: the masked/unmasked iteration split of FlashAttention-2/3/4's
 * main loops (read, not copied); previous rung cuda_wgmma_desciter.
 *
 * Any S >= 1, causal or not, D in {64, 128}, fp16 and bf16, grouped-query
 * heads (H_kv dividing H) and any S_kv >= 1; sm_90a only.
 */

#include "wgmma_persist_fwd.cuh"

/* The kernel body, host side and entry points (setup, run, teardown) are
 * kernels/wgmma_persist_fwd.cuh's, instantiated with this rung's ideas. */
AB_PERSIST_FWD_RUNG(cuda_wgmma_splitloop,
                    PF_UNIFORM | PF_WGSKIP | PF_WIDEKV | PF_KVSPLIT | PF_DESCADD | PF_SPLITLOOP)
