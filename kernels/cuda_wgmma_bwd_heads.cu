/*
 * cuda_wgmma_bwd_heads.cu: the Hopper backward with one block per key tile
 * and query head, launched longest first, rung "cuda_wgmma_bwd_heads" of
 * the backward ladder (previous rung cuda_wgmma_bwd_ws, whose main kernel
 * it runs: wgmma_bwd_ws.cuh). Its forward is cuda_wgmma_persistent's.
 *
 * Idea: fill the machine with blocks of equal-or-falling length. In
 * cuda_wgmma_bwd_ws a block owns 128 keys of one K/V head and sweeps the
 * query tiles of every query head of its group, so a grouped-query shape
 * has B * H_kv * S_kv / 128 blocks, each Gq = H / H_kv times as long as a
 * block of one head: the Llama 3 8B layer (B = 1, H = 32, H_kv = 8) has
 * 128 blocks at S = 2K on 132 SMs, and under the causal mask the block of
 * the first key tile sweeps 4 x 32 query tiles while the average sweeps
 * 4 x 17: the last SM finishes long after the others idle. Here:
 *   - a block owns 128 keys and ONE query head (grid: S_kv/128 x B x H),
 *     so the group's Gq blocks of a key tile run side by side; their dK,
 *     dV sums are added (unscaled, fp32 vector atomics red.global.add.v2)
 *     into [2][B, H_kv, S_kv, D] accumulators, zeroed before the main
 *     kernel and converted to the dtype after it (dK times the softmax
 *     scale), FlashAttention-3's reduction of dK/dV over the group; with
 *     H_kv = H nothing is shared and the block stores dK, dV in the dtype
 *     as before (no accumulators, no extra launches);
 *   - causal: the query heads in sections of 8, and within a section the
 *     linear block index runs over the heads fastest and the key tiles
 *     slowest, so every head's first key tile (the longest sweep: all
 *     query tiles) is dispatched first and the shortest last, the
 *     longest-processing-time-first list schedule (Graham 1969: within
 *     4/3 of the optimum for identical machines) on a working set that
 *     stays in L2 (8 heads' Q, dO and fp32 dQ rows; the first version ran
 *     all heads as one section, below); non-causal blocks are all equally
 *     long and keep cuda_wgmma_bwd_ws's order (key tiles fastest: the
 *     blocks on the SMs at one time share a head's Q and dO in L2).
 * Everything inside a block is cuda_wgmma_bwd_ws's (TMA producer with
 * setmaxnreg 24, two consumer warpgroups at 240, dQ float4 atomics from
 * shared memory). Launches per call: the accumulator memset(s), the
 * pre-pass, the main kernel, dQ = scale * acc (and, when H_kv < H, the
 * dK and dV conversions).
 *
 * Work and traffic (before the first run). FLOPs are unchanged (10 B H S
 * S_kv D, half causal). Per block of the split: K, V loaded once per
 * query head instead of once per group (2 x 128 x D x 2 bytes, 64 KiB at
 * D = 128, against 32 KiB of Q, dO per step: +6% of the block's loads at
 * the Llama shape's average 17 steps at S = 2K), and 2 x 128 x D x 4 =
 * 128 KiB of fp32 atomics at its end (the dQ atomics are 32 KiB per step:
 * +23% atomic traffic at S = 2K, +3% at 8K); the accumulators add 2 x 4
 * B H_kv S_kv D bytes zeroed, read and converted (8 MiB at S = 2K). A
 * model of the schedule (blocks as numbers of steps, one step per time
 * unit, handed to 132 SMs in index order, 1-2 steps of fixed cost per
 * block) gives the makespan over the previous rung's: Llama 3 8B causal
 * S = 2K 129 -> 76 (1.70x), 4K 410 -> 274 (1.50x), 8K 1252 -> 1042
 * (1.20x); the H = H_kv causal grid of hopper-bwd-ladder.cfg 1.00-1.07x;
 * non-causal 1.00x (the same blocks in the same order).
 * Prediction: the model's ratios are an upper bound (when few SMs run,
 * each runs faster: the previous rung's Llama TFLOP/s are 0.8-0.9x of its
 * equal-head causal ones, not the model's 0.5-0.8x), so Llama 3 8B
 * 1.3-1.6x at S = 2K, 1.2-1.4x at 4K, 1.05-1.2x at 8K (from 0.66x towards
 * 0.85-0.95x cudnn_sdpa); causal H = H_kv 1.00-1.05x; non-causal 1.00x
 * within 1%.
 *
 * The first version (built as commit e565952, the branch before its rebase
 * onto main; its tree is that of the commit "cuda_wgmma_bwd_heads: one
 * block per key tile and query head ...") ran the causal blocks longest
 * first over ALL heads at once, without sections. Measured (NVIDIA H200,
 * 2026-11-26, reports/hopper-bwd/hopper-bwd.db runs 6-7, the experiments
 * named below): the idea's target held, Llama 3 8B 1.46x, 1.39x, 1.17x
 * cuda_wgmma_bwd_ws at S = 2K, 4K, 8K (predicted 1.3-1.6, 1.2-1.4,
 * 1.05-1.2); the control did not, causal H = H_kv 0.87-1.04x (predicted
 * 1.00-1.05; slower at S <= 4096, faster at S = 8192), non-causal 0.96-0.99x
 * (predicted 1.00 within 1%; the same blocks in the same order, a 1-D
 * grid instead of 2-D; not explained).
 *
 * Profiled (no database: the figures are in the logs named): Nsight
 * Compute of the first version at the Llama shape S = 4K
 * (reports/hopper-bwd/ncu-heads-first.log): 0.83 ms against 1.21 ms for
 * the main kernel, but 596 MB read from DRAM against 216 MB: with every
 * head's first key tile in flight, each head's Q, dO and fp32 dQ rows
 * leave L2 between uses, as the forward's persistent rung found for its
 * causal sections. Hence the sections of 8 heads; prediction for them
 * (before their run): the causal H = H_kv grid 1.00-1.06x
 * cuda_wgmma_bwd_ws (the model's 1.00-1.07x with L2 kept), Llama 3 8B as
 * the first version (within 3%), non-causal unchanged. With them
 * (reports/hopper-bwd/ncu-heads.log, ncu-heads-grid.log): 0.83 ms and 186
 * MB against cuda_wgmma_bwd_ws's 1.23 ms and 210 MB at the Llama shape,
 * tensor pipe active 45.2% of peak (47.9%: the dK/dV atomics and the
 * per-block start are not tensor work); at B=16 H=16 S=1024 D=128 causal
 * 0.553 ms for both, 405 MB against 407 MB.
 *
 * Measured (NVIDIA H200, 2026-11-26, reports/hopper-bwd/hopper-bwd.db
 * runs 8-10, experiments/hopper-bwd-heads-llama3-8b.cfg,
 * hopper-bwd-heads.cfg, hopper-bwd-heads-fp16.cfg; hot timing, medians of
 * 20-30 samples, clocks left alone): Llama 3 8B (S = 2K/4K/8K) 1.46x,
 * 1.40x, 1.17x cuda_wgmma_bwd_ws (predicted 1.3-1.6, 1.2-1.4, 1.05-1.2:
 * held), 291.5, 371.2, 406.3 TFLOP/s, 0.96x, 0.86x, 0.80x cudnn_sdpa
 * (geometric mean 0.87x; the bar, ≥ 0.9x, met at S = 2K only). The H =
 * H_kv grid (D = 64/128, S = 1024..16384 at B*S = 16384, H = 16), bf16:
 * causal 1.02x cuda_wgmma_bwd_ws (geometric mean, 0.99-1.04; predicted
 * 1.00-1.06: held in the mean, not at S = 16384), non-causal 0.98x
 * (0.97-0.99; as in the first version, not explained); fp16 causal
 * 1.02x (0.98-1.09), non-causal 0.99x (0.97-0.99). Against cudnn_sdpa
 * over the 20 configurations: bf16 0.77x (0.72-0.87), fp16 0.78x
 * (0.72-0.87): the grid's gap is the per-SM efficiency this rung does not
 * touch (the profile's tensor pipe stays below half of its peak).
 *
 * Checked: every gradient within FlashAttention's tolerance; gpu_check_bwd
 * 120 cases (bwd and fwd+bwd, GQA, S_kv != S) and compute-sanitizer
 * memcheck, racecheck, synccheck over gpu_check_bwd --small clean
 * (reports/hopper-bwd/gpu-bwd-suite-cuda_wgmma_bwd_heads.log,
 * sanitize-*-heads.log). ptxas (nvcc 13.0, sm_90a): 168 registers at
 * entry, no spills.
 *
 * Shared memory: cuda_wgmma_bwd_ws's (196 KiB at D = 128, 116 KiB at
 * D = 64). Supported: fp16, bf16; D in
 * {64, 128}; causal or not; any S, S_kv >= 1 with the bottom-right mask;
 * H_kv dividing H; S_kv / 128 x B x H blocks below 2^31; sm_90a only,
 * other devices get AB_SETUP_UNSUPPORTED.
 *
 * Sources: Shah et al., "FlashAttention-3" (2024), its backward's
 * grouped-query handling (dK/dV accumulated in fp32 over the group, then
 * converted) and its causal scheduling of the longest tiles first, read to
 * understand, not copied; R. L. Graham, "Bounds on multiprocessing timing
 * anomalies", SIAM J. Appl. Math. 17 (1969) (LPT list scheduling); PTX ISA
 * red.global.add (v2.f32).
 */
#include "wgmma_bwd_ws.cuh"

/* Its schedule is abwgws::sched_heads (wgmma_bwd_ws.cuh: causal sections of
 * sched_heads::ARG = 8 query heads). */
AB_WS_RUNG(cuda_wgmma_bwd_heads, abwgws::sched_heads, 0)
