/*
 * cuda_wgmma_bwd_wgdesc.cu: the Hopper backward of cuda_wgmma_bwd_wguni
 * with its wgmma descriptors stepped by constant adds; rung
 * "cuda_wgmma_bwd_wgdesc" of the backward ladder (previous rung
 * cuda_wgmma_bwd_wguni). Its forward is cuda_wgmma_persistent's.
 *
 * Idea: cuda_wgmma_bwd_wguni moved the descriptor arithmetic into the
 * uniform datapath (1.094x cuda_wgmma_bwd_dslate on the grid, H200,
 * reports/hopper-bwd-pingpong/hopper-bwd-dslate.db) but still builds every
 * descriptor from its address (add, mask, shift, merge): Nsight Compute of
 * wguni (reports/hopper-bwd-pingpong/e2-logs.tgz, B=4 H=16 S=4096 D=128
 * bf16 non-causal) counts 111 M ULOP3, 76 M UMOV, 64 M UIADD3 and 55 M
 * USHF among its 755 M executed warp instructions (41%). Here (feature
 * WS_DESC_ADD) each operand's descriptor is built once per product
 * (desc_lo) and each k-step adds its constant offset in 16-byte units, as
 * cuda_wgmma_desciter does in the forward (CUTLASS's descriptor iterator).
 *
 * Work and traffic (before the first run): wguni's products and bytes;
 * per consumer warp and step about 48 descriptors, each about three
 * uniform instructions fewer (some 150 M of the 755 M). Prediction:
 * Nsight Compute's instruction count 10-25% lower; speed 1.00-1.05x
 * cuda_wgmma_bwd_wguni (the forward's cuda_wgmma_desciter bought
 * 0.99-1.01x, but wguni showed the backward is sensitive to the
 * descriptor work).
 *
 * Measured (NVIDIA H200, 2026-11-27,
 * reports/hopper-bwd-pingpong/hopper-bwd-wgdesc.db and -llama3-8b.db run 1,
 * nothing else on the GPU; ratios of the instances' geometric-mean medians,
 * geometric means over the part's configurations (S, and bf16 with fp16) with
 * their range, summarize.py there): against cuda_wgmma_bwd_wguni 0.935x at D =
 * 128 (0.905-0.968), 1.009x at D = 64 (1.003-1.020), 0.944x at Llama 3 8B
 * (0.927-0.965): the prediction (1.00-1.05x) held at D = 64 only; at D = 128
 * the rung is slower.
 *
 * Profiled (no database: the counters are in the log named): Nsight Compute at
 * B=4 H=16 S=4096 D=128 bf16 non-causal (H200,
 * reports/hopper-bwd-pingpong/e3-logs.tgz): 603 M warp instructions against
 * cuda_wgmma_bwd_wguni's 729 M (17% fewer, inside the 10-25% predicted) but
 * 4.20 M SM cycles against 3.90 M and the tensor pipe active in 60.8% of them
 * against 65.7%: fewer instructions, later wgmmas. In the same call's
 * SASS stall sampling the waits for wgmma groups (WARPGROUP.DEPBAR) hold
 * 23.4% of wgdesc's samples against wguni's 12.6%, and its HGMMA
 * instructions 7.0% against 4.8%: the same products take longer to
 * complete; why (the two consumers' products, now issued with less between
 * them, interleaving on the tensor cores; operand fetch) is not known.
 *
 * Supported: as cuda_wgmma_bwd_wguni; sm_90a only, other devices get
 * AB_SETUP_UNSUPPORTED.
 *
 * Sources: previous rung cuda_wgmma_bwd_wguni; PTX ISA 8.x, "Matrix
 * Descriptor Format"; CUTLASS's GmmaDescriptor iterator (read, not
 * copied).
 */
#include "wgmma_bwd_ws.cuh"

AB_WS_RUNG(cuda_wgmma_bwd_wgdesc, abwgws::sched_heads,
           abwgws::WS_SPLIT_FULL | abwgws::WS_DEFER_DQ | abwgws::WS_VEC_LSE | abwgws::WS_BULK_DQ |
               abwgws::WS_DQ_WIDE | abwgws::WS_DQ_TMA | abwgws::WS_DQ_EARLY | abwgws::WS_DS_LATE |
               abwgws::WS_WG_UNIFORM | abwgws::WS_DESC_ADD)
