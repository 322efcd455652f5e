/*
 * wgmma_host.cu: host-side helpers of the wgmma rungs (kernels/cuda_wgmma*.cu):
 * the TMA tensor-map encoder (driver entry point cuTensorMapEncodeTiled,
 * looked up through the CUDA runtime so nothing links against libcuda) and
 * the device check that keeps sm_90a-only kernels off other GPUs.
 * Contracts in kernels/wgmma_common.cuh.
 */
#include "wgmma_common.cuh"

#include <cudaTypedefs.h>
#include <stdio.h>

int ab_wgmma_device_ok(const char *name, char *err, size_t n)
{
    int dev = 0, major = 0, minor = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
        snprintf(err, n, "%s: cannot query the device: %s", name,
                 cudaGetErrorString(cudaGetLastError()));
        return -1;
    }
    if (major != 9 || minor != 0) {
        snprintf(err, n,
                 "%s: Hopper only (sm_90a: wgmma, TMA, setmaxnreg); this GPU is sm_%d%d",
                 name, major, minor);
        return AB_SETUP_UNSUPPORTED;
    }
    return 0;
}

/* cuTensorMapEncodeTiled, looked up once (NULL with err when the driver
 * has none) */
static PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder(char *err, size_t n)
{
    static PFN_cuTensorMapEncodeTiled_v12000 encode = NULL;
    if (!encode) {
        void *fn = NULL;
        cudaDriverEntryPointQueryResult q;
        /* cudaGetDriverEntryPointByVersion, which names the driver ABI version
         * (12000: the only one of cuTensorMapEncodeTiled), exists from CUDA
         * 12.5 on and replaces cudaGetDriverEntryPoint (deprecated in 13.0).
         * Before 12.5, cudaGetDriverEntryPoint asks for the runtime's own
         * version (12.0 to 12.4, all >= 12000): the same function. */
#if CUDART_VERSION >= 12050
        cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                                         cudaEnableDefault, &q);
#else
        cudaError_t e = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn, cudaEnableDefault,
                                                &q);
#endif
        if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !fn) {
            snprintf(err, n, "cuTensorMapEncodeTiled: not found in the CUDA driver");
            return NULL;
        }
        encode = (PFN_cuTensorMapEncodeTiled_v12000)fn;
    }
    return encode;
}

/* A [BH, S, D] tensor map of elements of ebytes bytes (2 or 4) at gptr,
 * boxes of one 128-byte row (128 / ebytes elements) by rows rows, 128-byte
 * swizzle (the contracts of ab_wgmma_tensor_map and ab_wgmma_tensor_map_f32
 * in wgmma_common.cuh); tag names the element type in the error */
static int encode_rows_128b(CUtensorMap *map, CUtensorMapDataType dtype, int ebytes, void *gptr,
                            long long BH, int S, int D, int rows, const char *tag, char *err,
                            size_t n)
{
    PFN_cuTensorMapEncodeTiled_v12000 encode = tensor_map_encoder(err, n);
    if (!encode)
        return -1;
    const cuuint64_t dims[3] = {(cuuint64_t)D, (cuuint64_t)S, (cuuint64_t)BH};
    const cuuint64_t strides[2] = {(cuuint64_t)D * ebytes,
                                   (cuuint64_t)S * D * ebytes}; /* bytes, dims 1.. */
    const cuuint32_t box[3] = {(cuuint32_t)(128 / ebytes), (cuuint32_t)rows, 1};
    const cuuint32_t estr[3] = {1, 1, 1};
    CUresult r = encode(map, dtype, 3, gptr, dims, strides, box, estr,
                        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        snprintf(err, n, "cuTensorMapEncodeTiled failed (CUresult %d) for %sS=%d D=%d rows=%d",
                 (int)r, tag, S, D, rows);
        return -1;
    }
    return 0;
}

int ab_wgmma_tensor_map(CUtensorMap *map, const void *gptr, int is_bf16, long long BH, int S,
                        int D, int rows, char *err, size_t n)
{
    return encode_rows_128b(map,
                            is_bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                    : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                            2, const_cast<void *>(gptr), BH, S, D, rows, "", err, n);
}

int ab_wgmma_tensor_map_f32(CUtensorMap *map, float *gptr, long long BH, int S, int D, int rows,
                            char *err, size_t n)
{
    return encode_rows_128b(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, gptr, BH, S, D, rows,
                            "fp32 ", err, n);
}
