/*
 * cuda_wgmma_splitwide.cu: forward attention on wgmma + TMA + warp
 * specialisation + FlashAttention-3's overlaps on a persistent grid with
 * per-warpgroup key-tile counts, 176-key tiles at D = 128 non-causal,
 * descriptors stepped by adds and the key-tile loop split by mask, with K
 * and V on barriers of their own only where the wide tiles need them; rung
 * "cuda_wgmma_splitwide" of the kernel ladder (sm_90a only: the other
 * targets of a default build compile an empty kernel, and setup refuses
 * any GPU but compute capability 9.0).
 *
 * Idea. cuda_wgmma_widekv took PF_KVSPLIT (a full and an empty barrier
 * for K and another pair for V, per stage) for every shape, because its
 * two 88 KiB stages at D = 128 non-causal starve without it; at the other
 * shapes (128-key tiles, three or four stages) the second pair only adds
 * a wait and an arrive per key tile. cuda_wgmma_splitloop (the previous
 * rung that held) kept it. Here (PF_SPLITWIDE, kernels/wgmma_persist_fwd.cuh)
 * the split stays where the tiles are wide and the other shapes go back to
 * one barrier pair per stage, as in cuda_wgmma_wgskip; everything else is
 * cuda_wgmma_splitloop's.
 *
 * Counted before coding: per consumer warp and 128-key tile one mbarrier
 * wait and one arrive fewer; the products, exponentials and bytes are
 * unchanged. Where the split alone changed between rungs (cuda_wgmma_widekv
 * against cuda_wgmma_wgskip; reports/hopper-widekv/, NVIDIA H100,
 * 2026-11-26), D = 64 lost 0.3-0.4% in one run and 1.5-2.0% in two others,
 * D = 128 causal 0.2-0.4%.
 *
 * Prediction (before the first run): D = 64 1.00-1.02x cuda_wgmma_splitloop
 * (causal and not), D = 128 causal 1.00-1.01x, D = 128 non-causal within 1%
 * (the same code).
 *
 * Measured (NVIDIA H100 80GB HBM3, 2026-11-26, reports/hopper-widekv/
 * fa3-grid-splitwide.db runs 1 and 2, back to back; speed ratios,
 * geometric means over bf16 and fp16): 1.021x and 1.018x
 * cuda_wgmma_splitloop at D = 64 non-causal, 1.019x and 1.019x causal
 * (predicted 1.00-1.02: held, at its top), 1.018x and 1.016x at D = 128
 * causal (predicted 1.00-1.01: faster than predicted), 1.000x and 1.000x
 * at D = 128 non-causal (held: the same code). Against FlashAttention-4 in
 * the same runs, this one rung over FlashAttention-3's grid: 1.013x and
 * 1.012x in geometric mean (0.964-1.163x), D = 128 non-causal 0.980x and
 * 0.979x, D = 64 non-causal 1.009x and 1.008x, causal 1.018-1.044x; against
 * cudnn_sdpa 1.033x and 1.031x. The fastest own rung per configuration,
 * chosen in one run and judged in the other: reports/hopper-widekv/README.md.
 * Llama 3 8B prefill (H = 32, H_kv = 8, causal, bf16, and a multi-query
 * and a chunked shape; llama3-8b-prefill-splitwide.db run 1): 1.026x
 * cuda_wgmma_splitloop (predicted 1.01-1.02: faster than predicted),
 * 1.043x cudnn_sdpa in geometric mean (0.940-1.104x) and 1.002x
 * FlashAttention-4 (0.962-1.106x).
 *
 * Status (2026-11-26): compiled for sm_90a (and empty for 80, 86, 89);
 * gpu_check 120 cases and five odd shapes pass (with cuda_wgmma_splitloop
 * and cuda_wgmma_wgskip); compute-sanitizer memcheck and synccheck clean
 * (--small, H100), racecheck clean at B=1 H=2 S=300 D=128 bf16 and B=1
 * H=2 S=250 D=64 causal fp16 (reports/hopper-widekv/call-a6-logs.tgz).
 *
 * Source: previous rung cuda_wgmma_splitloop.
 *
 * Any S >= 1, causal or not, D in {64, 128}, fp16 and bf16, grouped-query
 * heads (H_kv dividing H) and any S_kv >= 1; sm_90a only.
 */

#include "wgmma_persist_fwd.cuh"

/* The kernel body, host side and entry points (setup, run, teardown) are
 * kernels/wgmma_persist_fwd.cuh's, instantiated with this rung's ideas. */
AB_PERSIST_FWD_RUNG(cuda_wgmma_splitwide, PF_UNIFORM | PF_WGSKIP | PF_WIDEKV | PF_KVSPLIT |
                                              PF_SPLITWIDE | PF_DESCADD | PF_SPLITLOOP)
