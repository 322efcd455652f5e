/*
 * cuda_wgmma_desciter.cu: forward attention on wgmma + TMA + warp
 * specialisation + FlashAttention-3's overlaps on a persistent grid with
 * per-warpgroup key-tile counts and 176-key tiles at D = 128 non-causal,
 * its wgmma descriptors stepped by constant adds; rung
 * "cuda_wgmma_desciter" of the kernel ladder (sm_90a only: the other
 * targets of a default build compile an empty kernel, and setup refuses
 * any GPU but compute capability 9.0).
 *
 * Idea. Every wgmma names its shared-memory operands by 64-bit
 * descriptors. The rungs so far build each one from its address
 * (desc_sw128: mask to 18 bits, shift by 4, merge the leading and stride
 * offsets and the swizzle mode), once per k-step: per consumer warp and
 * key tile 2 D / 16 descriptors for S = Q K^T and BC / 16 for O += P V
 * (D = 128 at 176 keys: 16 + 11 = 27; D = 64 at 128 keys: 8 + 8 = 16).
 * Here (PF_DESCADD, kernels/wgmma_persist_fwd.cuh) the low word of each
 * operand's descriptor is built once (Q's once per query tile, K's and
 * V's once per key tile) and each k-step adds its constant offset in
 * 16-byte units (wgmma_common.cuh: desc_lo, wg_issue_qk_lo,
 * wg_issue_pv_lo), as CUTLASS's descriptor iterator does. The products,
 * the pipeline and the softmax are cuda_wgmma_widekv's (the previous rung
 * that held; cuda_wgmma_ilpsoft's chains are not taken: 0.95x at D = 128).
 *
 * Counted before coding. In one run on an NVIDIA H100 (2026-11-26,
 * Nsight Compute at its base clock, B=1 H=16 S=16384 bf16 non-causal,
 * reports/hopper-widekv/call-b-logs.tgz) FlashAttention-4 issued 966 M
 * warp instructions at D = 128 against cuda_wgmma_widekv's 1,029 M (and
 * 4.70 M against 4.92 M SM cycles), and 885 M at D = 64 against 994 M
 * (3.21 M against 3.46 M cycles), with the same MUFU (138-139 M), FMA
 * (357-421 M) and ALU (231-242 M) counts within a few percent: the excess
 * is in the other pipes, where integer address work sits. If a descriptor
 * costs about four instructions built and one stepped, the rung issues
 * about 3 x 27 = 81 fewer instructions per consumer warp and key tile at
 * D = 128 (1.54 M warp-key tiles: ~125 M, 12%) and 3 x 16 = 48 at D = 64
 * (2.11 M: ~100 M, 10%); FLOPs, exponentials and bytes unchanged.
 *
 * Prediction (before the first run). Fewer instructions matter only where
 * the descriptor work delays the next wgmma inside a warpgroup's turn (it
 * sits between the wgmma issues) or the softmax: 1.00-1.04x
 * cuda_wgmma_widekv on FlashAttention-3's grid (D = 64 and 128, causal
 * and not), and Nsight Compute's instruction count 8-12% lower. Within
 * 1% means the descriptor work was hidden behind the tensor cores.
 *
 * Measured (NVIDIA H100 80GB HBM3, 2026-11-26, reports/hopper-widekv/
 * fa3-grid-desciter.db run 1; speed ratios, geometric means over bf16 and
 * fp16): 1.007x cuda_wgmma_widekv at D = 128 non-causal, 1.005x
 * causal, 1.007x at D = 64 causal (held, at the prediction's low end)
 * and 0.985x at D = 64 non-causal (failed: slower). Against
 * FlashAttention-4 in the same run: this rung 0.992x in geometric mean
 * over the grid, the fastest own rung per configuration 1.007x
 * (0.942-1.240x).
 *
 * Profile (Nsight Compute at its base clock, one launch each, B=1 H=16
 * S=16384 bf16 non-causal, reports/hopper-widekv/call-b2-logs.tgz): 8.4%
 * fewer warp instructions than cuda_wgmma_widekv at D = 128 and 7.6% at
 * D = 64 (predicted 8-12%: held at D = 128, just under at D = 64) for
 * 0.6% fewer SM cycles at D = 128 and 0.7% more at D = 64. At D = 128 the
 * rung issues fewer instructions than FlashAttention-4 (943 M against
 * 966 M) and still takes 4% more cycles (4.89 M against 4.70 M): the gap
 * is not in issue slots; the stall profiles differ most in fixed-latency
 * waits (1.96 against 1.56 warps stalled per issued instruction).
 *
 * Status (2026-11-26): compiled for sm_90a (and empty for 80, 86, 89);
 * gpu_check 120 cases and five odd shapes pass; compute-sanitizer memcheck
 * and synccheck clean (--small, H100); compute-sanitizer racecheck clean at
 * B=1 H=2 S=300 D=128 bf16 and B=1 H=2 S=250 D=64 causal fp16
 * (reports/hopper-widekv/final-check-logs.tgz).
 *
 * Source: PTX ISA 8.x, "Matrix Descriptor Format" (the fields) and
 * CUTLASS's GmmaDescriptor iterator (stepping by adds; read, not
 * copied); previous rung cuda_wgmma_widekv.
 *
 * Any S >= 1, causal or not, D in {64, 128}, fp16 and bf16, grouped-query
 * heads (H_kv dividing H) and any S_kv >= 1; sm_90a only.
 */

#include "wgmma_persist_fwd.cuh"

/* The kernel body, host side and entry points (setup, run, teardown) are
 * kernels/wgmma_persist_fwd.cuh's, instantiated with this rung's ideas. */
AB_PERSIST_FWD_RUNG(cuda_wgmma_desciter,
                    PF_UNIFORM | PF_WGSKIP | PF_WIDEKV | PF_KVSPLIT | PF_DESCADD)
