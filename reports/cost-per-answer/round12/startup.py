# Where a fresh PyTorch process's time to its first SDPA backward goes, and
# whether CUDA's primary context (and cuDNN's libraries) made on a thread
# beside `import torch` shortens it. argv[1]: serial | ctx | ctxlib
import ctypes, glob, os, sys, threading, time
T0 = time.perf_counter()
mode = sys.argv[1]
marks = []
def mark(what):
    marks.append((what, 1e3 * (time.perf_counter() - T0)))
side = {}
def early():
    t = time.perf_counter()
    cu = ctypes.CDLL("libcuda.so.1")
    rc = cu.cuInit(0)
    dev = ctypes.c_int()
    cu.cuDeviceGet(ctypes.byref(dev), 0)
    ctx = ctypes.c_void_p()
    rc2 = cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev)
    side["ctx_ms"] = 1e3 * (time.perf_counter() - t)
    side["rc"] = (rc, rc2)
    if mode == "ctxlib":
        t = time.perf_counter()
        libs = []
        for sp in sys.path:
            libs += sorted(glob.glob(os.path.join(sp, "nvidia/cudnn/lib/libcudnn*.so.9")))
            libs += sorted(glob.glob(os.path.join(sp, "nvidia/cu13/lib/libnvrtc*.so*")))
            libs += sorted(glob.glob(os.path.join(sp, "nvidia/cuda_nvrtc/lib/libnvrtc*.so*")))
        n = 0
        for p in libs:
            try:
                ctypes.CDLL(p, mode=ctypes.RTLD_GLOBAL); n += 1
            except OSError as e:
                side.setdefault("err", []).append(str(e)[:80])
        side["libs"] = n
        side["lib_ms"] = 1e3 * (time.perf_counter() - t)
    side["done_ms"] = 1e3 * (time.perf_counter() - T0)
th = None
if mode != "serial":
    th = threading.Thread(target=early); th.start()
import torch
mark("import torch")
torch.cuda.is_available()
mark("is_available")
if th: th.join(); mark("thread joined")
x = torch.zeros(1, device="cuda"); torch.cuda.synchronize()
mark("context")
v = torch.backends.cudnn.version()
mark("cudnn version")
import torch.nn.functional as F
def fb(B, H, S, D, causal):
    q, k, vv = (torch.zeros(B, H, S, D, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
    o = F.scaled_dot_product_attention(q, k, vv, is_causal=causal)
    torch.cuda.synchronize(); mark("fwd %d %d %d %d %d" % (B, H, S, D, causal))
    torch.autograd.grad(o, (q, k, vv), torch.zeros_like(o)); torch.cuda.synchronize()
    mark("bwd %d %d %d %d %d" % (B, H, S, D, causal))
fb(8, 16, 2048, 128, False)
fb(8, 16, 2048, 128, True)
fb(4, 16, 4096, 128, False)
print(mode, " ".join("%s=%.0f" % m for m in marks), "side", {k: (round(v) if isinstance(v, float) else v) for k, v in side.items()})
