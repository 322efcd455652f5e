# Device probe (not committed as code): PyTorch's start-up stages and the
# kit's per-take overhead for SDPA's backward in blocks of 2 (hot), with the
# kit's sleep hold, a flag hold (cuStreamWaitValue32 on mapped host memory),
# and no hold. Prints one line per case.
import ctypes, os, sys, time, statistics, math
T0 = time.perf_counter()
def el(): return time.perf_counter() - T0
import torch
t_import = el()
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.attention.bias import causal_lower_right
t_import2 = el()
torch.zeros(1, device="cuda"); torch.cuda.synchronize()
t_ctx = el()
sys.path.insert(0, "adapters")
import attnbench_adapter as kit
def shape_call(B, H, S, D, causal):
    q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
    out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    g = torch.randn_like(out)
    def call():
        return torch.autograd.grad(out, (q, k, v), g, retain_graph=True)
    return call
stages = []
for (B, S, c) in [(8, 2048, 0), (8, 2048, 1), (4, 4096, 0), (4, 4096, 1), (2, 8192, 0), (2, 8192, 1)]:
    t = el(); call = shape_call(B, 16, S, 128, bool(c)); call(); torch.cuda.synchronize(); stages.append((S, c, el() - t))
print("startup: import torch %.2f s, attention imports %.2f s, context %.2f s, first bwd %.2f s, others %s" % (
    t_import, t_import2 - t_import, t_ctx - t_import2, stages[0][2], " ".join("%.0f" % (1e3 * x[2]) for x in stages[1:])))

class FlagHold:
    def __init__(self):
        self.cu = ctypes.CDLL("libcuda.so.1")
        p = ctypes.c_void_p()
        assert self.cu.cuMemHostAlloc(ctypes.byref(p), ctypes.c_size_t(64), ctypes.c_uint(3)) == 0
        self.p = p.value
        d = ctypes.c_uint64()
        assert self.cu.cuMemHostGetDevicePointer_v2(ctypes.byref(d), ctypes.c_void_p(self.p), ctypes.c_uint(0)) == 0
        self.d = d.value
        self.flag = ctypes.c_uint32.from_address(self.p); self.flag.value = 0
        self.wait = getattr(self.cu, "cuStreamWaitValue32_v2")
        self.wait.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_uint]
        self.gen = 0
    def begin(self):
        self.gen += 1
        rc = self.wait(ctypes.c_void_p(torch.cuda.current_stream().cuda_stream), self.d, self.gen, 0)
        assert rc == 0, rc
    def end(self):
        self.flag.value = self.gen

class NoHold:
    def begin(self): pass
    def end(self): pass

def measure(name, hold, call, takes=30, n=2):
    cfg = {"samples": n, "timing": "hot"}
    walls, over, firsts, seconds, enq = [], [], [], [], []
    for i in range(takes + 3):
        t = time.perf_counter()
        ms = kit.time_torch(torch, call, cfg, hold)
        torch.cuda.synchronize()
        w = time.perf_counter() - t
        if i >= 3:
            walls.append(w * 1e3); over.append(w * 1e3 - sum(ms)); firsts.append(ms[0]); seconds.append(ms[1])
    print("%-10s take wall %.2f ms, overhead %.2f ms (median; mean %.2f), first %.4f second %.4f ms (medians)" % (
        name, statistics.median(walls), statistics.median(over), statistics.mean(over),
        statistics.median(firsts), statistics.median(seconds)))
    return statistics.mean(over)

for (B, S, c) in [(2, 8192, 1), (8, 2048, 0)]:
    call = shape_call(B, 16, S, 128, bool(c))
    for _ in range(3): call()
    t = time.perf_counter(); call(); te = time.perf_counter() - t; torch.cuda.synchronize()
    print("shape B=%d S=%d causal=%d: one call's enqueue %.3f ms" % (B, S, c, te * 1e3))
    sleep = kit._Hold(torch)
    for rep in range(2):
        measure("sleep", sleep, call)
        print("  sleep hold's enqueue_s %.3f ms" % (sleep.enqueue_s * 1e3))
        measure("flag", FlagHold(), call)
        measure("none", NoHold(), call)
    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
        measure("flag+ctx", FlagHold(), call)
# small forward: launch-bound, the hold's reason
q, k, v = (torch.randn(8, 8, 512, 64, device="cuda", dtype=torch.float16) for _ in range(3))
fcall = lambda: F.scaled_dot_product_attention(q, k, v)
for _ in range(5): fcall()
for rep in range(2):
    measure("fwd sleep", kit._Hold(torch), fcall, 40)
    measure("fwd flag", FlagHold(), fcall, 40)
    measure("fwd none", NoHold(), fcall, 40)
