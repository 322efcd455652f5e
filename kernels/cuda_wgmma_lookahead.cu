/*
 * cuda_wgmma_lookahead.cu: forward attention on wgmma + TMA + warp
 * specialisation + FlashAttention-3's overlaps on a persistent grid, with
 * the switch from one query tile to the next shortened; rung
 * "cuda_wgmma_lookahead" of the kernel ladder (sm_90a only: the other
 * targets of a default build compile an empty kernel, and setup refuses
 * any GPU but compute capability 9.0).
 *
 * Idea. In cuda_wgmma_uniform (the previous rung) a block's next query
 * tile starts only after a chain the consumers cannot hide: once the
 * consumers have issued the tile's last Q K^T, the producer takes the
 * next tile from the atomic counter (causal), and only then loads its Q
 * (read once, so from DRAM) and its first (K, V) stage. Here the producer
 * claims tile n + 1 (the atomicAdd) when it starts tile n, so the round
 * trip overlaps tile n's loads (FlashAttention-3's dynamic persistent
 * scheduler does the same: its producer prefetches the next tile index
 * at the start of the current one), and with that index known a tile
 * early it prefetches tile n + 1's Q into L2 (cp.async.bulk.prefetch.
 * tensor), so the Q load after tile n's last Q K^T hits L2. Everything
 * else is cuda_wgmma_uniform's (warp-uniform tile coordinates in the
 * consumers) and cuda_wgmma_persistent's (tile list, LPT order in
 * sections of 8 heads, ping-pong of the consumers, softmax during the
 * previous P V, the masked path per warpgroup, grouped-query K/V slices,
 * bottom-right causal mask, O from the accumulators); see their headers.
 *
 * Where the time goes (before coding). A block's key tile (BR = 128 query
 * rows x BC = 128 keys, D = 128) is 4 BR BC D = 8.39 MFLOP of wgmma for
 * 64 KiB of K and V from L2; a query tile of k key tiles costs about
 * (k + X) key-tile times, X its fixed cost. Fitted to
 * reports/fa4-on-hopper/fa3-grid-fa4.db run 1 (H200, 2026-11-26, bf16,
 * D = 128, t scaled by each configuration's SM clock; the fit is in
 * cuda_wgmma_uniform's header): non-causal X = 1.6-2.6 key tiles, about
 * 3-4 us per query tile. Causal tiles are short where the gap to cuDNN is
 * widest (4.5 key tiles on average at S = 1024, 8.5 at 2048, against 8
 * and 16 non-causal), so their fixed cost weighs twice as much there.
 * The switch chain's parts: the atomic's round trip (~0.5 us; the
 * non-causal list is static) and Q from DRAM (~1 us).
 *
 * First version (commit 8a99af9): it also put K and V of a stage on
 * separate mbarriers (K first, so a tile's first Q K^T waited for 32 KiB,
 * not 64 KiB; FlashAttention-3 keeps separate K and V pipelines),
 * predicted 4-10% faster than cuda_wgmma_uniform at causal S = 1024,
 * 2-6% at 2048, <= 1% from 8192 on and non-causal. Measured
 * (reports/hopper-causal-uniform/llama3-8b-prefill-lookahead.db run 1,
 * NVIDIA H200, 2026-11-26, ratios of medians), it ran at 0.965-0.984x
 * cuda_wgmma_uniform's speed at Llama 3 8B prefill causal and 0.977x
 * non-causal (B = 4, S = 4096).
 *
 * That loss at the non-causal shape (a static list, long query tiles)
 * points at a per-key-tile cost; the one change inside the key-tile loop
 * was the consumers' second mbarrier wait (V of the previous tile, before
 * the turn's wgmma issue), so this version drops the K/V split and keeps
 * the rest (if it is still slower, the Q prefetch or the early claim costs
 * more than it saves). Nsight Compute in that session (run1-ncu.log
 * there; B = 4, H = 32, H_kv = 8, S = 4096, causal bf16): 884 us against
 * cuda_wgmma_uniform's 866 us, L2 hit rate 91.8% against 93.6%.
 *
 * Prediction (this version, before its run). Per causal query tile
 * 0.3-0.7 key-tile times less than cuda_wgmma_uniform: 3-8% faster at
 * S = 1024, 2-5% at 2048, 1-3% at 4096, <= 1% from 8192 on; non-causal
 * within 1%.
 *
 * Measured, this version (reports/hopper-causal-uniform/, NVIDIA H200,
 * 2026-11-26; ratios of medians): SLOWER than cuda_wgmma_uniform again.
 * Llama 3 8B prefill causal (llama3-8b-prefill-lookahead.db run 2):
 * 0.959x cuda_wgmma_uniform's speed at S = 1024 and S = 2048,
 * 0.979-0.992x at S >= 4096 (multi-query included), 0.990x chunked; the
 * causal FlashAttention-3 grid (fa3-grid-causal-lookahead.db run 2):
 * 0.937-0.990x; non-causal (fa3-grid-noncausal-lookahead.db run 1), where
 * the list is static and the Q prefetch alone acts: 0.992-1.009x. So the
 * early claim is the loss, larger where query tiles are short.
 *
 * Why, as far as a model goes: a block claims its next tile when it
 * starts the current one, not when it is free, so the longest-first list
 * is no longer handed to whichever block frees first. A 132-block
 * simulation of the Llama 3 8B tile lists (reports/hopper-causal-uniform/
 * tile_schedule_sim.py; a fixed cost of two key tiles per query tile)
 * gives makespans 2.0% (S = 1024), 2.1%, 1.4%, 0.6%,
 * 0.3% (S = 16384) longer than claiming when free: the same trend, about
 * half the loss. The switch chain this rung shortened was not where the
 * S = 1024 time goes. Kept as a step of the ladder, not the best forward
 * rung.
 *
 * Source: Shah et al. 2024 (FlashAttention-3) section 3.1 and its code's
 * persistent tile scheduler (prefetch of the next tile index by the
 * producer), read, not copied; PTX ISA 8.0 cp.async.bulk.prefetch.tensor.
 * Previous rung: cuda_wgmma_uniform.
 *
 * Any S >= 1, causal or not, D in {64, 128}, fp16 and bf16, grouped-query
 * heads (H_kv dividing H) and any S_kv >= 1; sm_90a only. ptxas (CUDA
 * 13.0, sm_90a): 168 registers at entry (D = 128) / 128 (D = 64); the
 * causal producer at its 24 registers spills around its atomic (per
 * query tile, not per key tile; SASS).
 */

#include "wgmma_persist_fwd.cuh"

/* The kernel body, host side and entry points (setup, run, teardown) are
 * kernels/wgmma_persist_fwd.cuh's, instantiated with this rung's ideas. */
AB_PERSIST_FWD_RUNG(cuda_wgmma_lookahead, PF_UNIFORM | PF_LOOKAHEAD)
