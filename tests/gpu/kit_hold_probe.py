# tests/gpu/kit_hold_probe.py (run by hand on a GPU machine): PyTorch SDPA in hot blocks of 2 behind torch.cuda._sleep of 0-2 ms; median first and second sample. Output of 2026-11-25: reports/hold/kit-probe.log
import time, statistics, torch
import torch.nn.functional as F
torch.manual_seed(0)
def sdpa_fn(B, S):
    q = torch.randn(B, 8, S, 64, device="cuda", dtype=torch.float16)
    k = torch.randn_like(q); v = torch.randn_like(q)
    return lambda: F.scaled_dot_product_attention(q, k, v)
e0 = torch.cuda.Event(enable_timing=True); e1 = torch.cuda.Event(enable_timing=True)
torch.cuda.synchronize(); e0.record(); torch.cuda._sleep(10_000_000); e1.record(); e1.synchronize()
cps = 10_000_000 / (e0.elapsed_time(e1) * 1e-3)
print(f"cycles/s {cps:.3e}")
for B, S in ((32, 128), (8, 512), (32, 512)):
    call = sdpa_fn(B, S)
    for _ in range(20): call()
    torch.cuda.synchronize()
    for hold_ms in (0, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0):
        r, f, g = [], [], []
        for blk in range(40):
            ev = [torch.cuda.Event(enable_timing=True) for _ in range(3)]
            if hold_ms: torch.cuda._sleep(int(hold_ms * 1e-3 * cps))
            t0 = time.perf_counter()
            ev[0].record(); call(); ev[1].record(); call(); ev[2].record()
            enq = time.perf_counter() - t0
            ev[2].synchronize()
            a, b = ev[0].elapsed_time(ev[1]), ev[1].elapsed_time(ev[2])
            r.append(a / b); f.append(a); g.append(b)
        print(f"B={B} S={S} hold {hold_ms:4.2f} ms: first {statistics.median(f)*1e3:6.1f} us second {statistics.median(g)*1e3:6.1f} us ratio {statistics.median(r):.3f} enqueue {enq*1e6:.0f} us")
