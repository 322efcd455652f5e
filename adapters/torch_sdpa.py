#!/usr/bin/env python3
"""torch_sdpa.py: PyTorch's scaled_dot_product_attention as an attnbench
external variant, one SDPA backend per experiment row, e.g.

    { name = "torch_sdpa_flash"; command = "python3 adapters/torch_sdpa.py --backend flash"; }

It speaks protocol 1 and 2 of adapters/PROTOCOL.md, whichever
ATTNBENCH_PROTOCOL names. Protocol 1: the configuration arrives in
ATTNBENCH_* environment variables; it prints `sample <ms>` lines, one `check`
line, one `env` line (or an `error` line and exits 1). Protocol 2 (`protocol
= 2;` in the experiment): one process for the whole run, reading `config
...`, `take K` and `quit` requests on stdin; torch is imported and the CUDA
context made once, and its samples are taken inside attnbench's rounds. Inputs are attnbench's
own Q, K, V for the seed (kernels/data.h's MT19937 stream, reproduced with
numpy's legacy RandomState), rounded to the dtype exactly as kernels/data.c
does, uploaded in [B, H, S, D], the layout SDPA takes. Timing follows
kernels/gpu_harness.cu: warm-up calls, then CUDA events in the cold (2x L2
flush before each call), hot (back-to-back calls, an event between each) or
graph (graph_k calls captured in one CUDA graph, per call = replay / graph_k)
mode. Correctness figures are computed against a float64 reference and the
plain same-precision reference of kernels/reference.c, on the rows described
in PROTOCOL.md; attnbench applies the verdict.

Backends: flash, cudnn, efficient, math (torch.nn.attention.sdpa_kernel with
that one SDPBackend) or default (no restriction: PyTorch's own choice).
Measured (NVIDIA H200, torch 2.11.0+cu130, cuDNN 9.19, 2026-11-21, 50 samples,
medians cold/hot/graph, tests/external/gpu_smoke.sh): B=4 H=16 S=4096 D=128
fp16: flash 1.58/1.56/1.61 ms, cudnn 0.83/0.83/0.94, efficient 3.15/3.15/3.14,
math 21.7/21.7/21.7, default (picks cuDNN) 0.85/0.83/0.95; B=32 H=8 S=512
D=64 fp16: flash 0.073/0.071/0.068 ms, cudnn 0.050/0.049/0.047, efficient
0.148/0.148/0.145, math 1.21/1.21/1.19, default 0.050/0.049/0.048. All pass
the check; figures agree with kernels/check.c (check_figures.py).

When attnbench offers ATTNBENCH_OUTPUT (it does since 2026-11-23), O is
written there as float32 [B, H, S, D] and the check line names it
(`check output=PATH`): attnbench then checks it with its own rule and
reference, and the figures below are not computed.

Requires torch (CUDA build) and numpy. Debugging: TORCH_SDPA_DUMP_O=PATH
writes the checked output O as raw float32 [B, H, S, D] to PATH
(tests/external/check_figures.py compares the figures with kernels/check.c's).
"""
import argparse
import json
import math
import os
import platform
import sys
import traceback

BACKENDS = ("flash", "cudnn", "efficient", "math", "default")
ROWS_PER_SLICE = 64          # as kernels/check.h's AB_CHECK_ROWS_PER_SLICE
ALL_ROWS_MAX_SCORES = 1 << 26  # B*H*S*S at most this: every row is checked


class AdapterError(Exception):
    """A failure reported on the protocol's `error` line."""


def config_from_env():
    """The configuration of protocol 1, validated."""
    env = os.environ
    if env.get("ATTNBENCH_PROTOCOL") != "1":
        raise AdapterError("ATTNBENCH_PROTOCOL is %r; this adapter speaks protocol 1"
                           % env.get("ATTNBENCH_PROTOCOL"))
    cfg = {}
    for key in ("B", "H", "S", "D", "CAUSAL", "WARMUP", "SAMPLES", "SEED", "GRAPH_K"):
        raw = env.get("ATTNBENCH_" + key)
        try:
            cfg[key.lower()] = int(raw)
        except (TypeError, ValueError):
            raise AdapterError("ATTNBENCH_%s=%r is not an integer" % (key, raw))
    for key in ("B", "H", "S", "D", "SAMPLES"):
        if cfg[key.lower()] < 1:
            raise AdapterError("ATTNBENCH_%s must be >= 1" % key)
    cfg["graph_k"] = max(cfg["graph_k"], 1)
    cfg["dtype"] = env.get("ATTNBENCH_DTYPE", "")
    if cfg["dtype"] not in ("fp16", "bf16", "fp32"):
        raise AdapterError("ATTNBENCH_DTYPE=%r is not fp16, bf16 or fp32" % cfg["dtype"])
    cfg["timing"] = env.get("ATTNBENCH_TIMING", "")
    if cfg["timing"] not in ("cold", "hot", "graph"):
        raise AdapterError("ATTNBENCH_TIMING=%r is not cold, hot or graph" % cfg["timing"])
    return cfg


# ---- inputs: kernels/data.c in numpy ----------------------------------------------

def round_to_dtype(x32, dtype):
    """float32 array -> the nearest dtype values (round to nearest even), as
    float32; kernels/data.c's ab_round_to."""
    import numpy as np
    if dtype == "fp32":
        return x32
    if dtype == "fp16":
        return x32.astype(np.float16).astype(np.float32)
    u = x32.view(np.uint32).copy()
    finite = (u & 0x7F800000) != 0x7F800000
    u[finite] += (0x7FFF + ((u[finite] >> 16) & 1)).astype(np.uint32)
    u &= np.uint32(0xFFFF0000)
    return u.view(np.float32)


def make_inputs(B, H, S, D, dtype, seed):
    """Q, K, V as float32 numpy arrays [B, H, S, D] holding dtype values: GSL
    MT19937 seeded with `seed` (gsl_rng_set: 0 means 4357, else the low 32
    bits), Q then K then V, x = round(float32(2 u - 1)), u = out / 2^32."""
    import numpy as np
    s = 4357 if seed == 0 else seed & 0xFFFFFFFF
    rs = np.random.RandomState(s)
    n = B * H * S * D
    out = []
    for _ in range(3):
        u32 = rs.randint(0, 2 ** 32, size=n, dtype=np.uint32)
        x = (2.0 * (u32.astype(np.float64) / 4294967296.0) - 1.0).astype(np.float32)
        out.append(round_to_dtype(x, dtype).reshape(B, H, S, D))
    return out


def check_rows(B, H, S, seed):
    """Query rows compared per (b, h) slice: all when S <= 64 or B*H*S*S <=
    2^26; else 63 distinct rows of [0, S-1) drawn per slice, in slice order,
    by numpy's RandomState(seed).choice(S - 1, 63, replace=False), plus the
    last row. Returns an int64 array [B*H, R] (sorted rows)."""
    import numpy as np
    if S <= ROWS_PER_SLICE or B * H * S * S <= ALL_ROWS_MAX_SCORES:
        return np.tile(np.arange(S, dtype=np.int64), (B * H, 1))
    rs = np.random.RandomState((4357 if seed == 0 else seed & 0xFFFFFFFF))
    rows = np.empty((B * H, ROWS_PER_SLICE), dtype=np.int64)
    for i in range(B * H):
        pick = rs.choice(S - 1, ROWS_PER_SLICE - 1, replace=False)
        rows[i] = np.sort(np.append(pick, S - 1))
    return rows


# ---- correctness ------------------------------------------------------------------

def correctness(torch, cfg, q32, k32, v32, out, rows):
    """Figures of the output `out` (device tensor in the dtype) against the
    float64 reference and the plain reference (kernels/reference.c), over
    `rows`. Returns the dict printed on the check line."""
    B, H, S, D = cfg["b"], cfg["h"], cfg["s"], cfg["d"]
    dev = out.device
    tdt = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}[cfg["dtype"]]

    def rnd(x):  # float32 tensor -> nearest dtype value, back in float32
        return x.to(tdt).to(torch.float32)

    scale64 = 1.0 / math.sqrt(D)
    scale_p = rnd(torch.tensor(scale64, dtype=torch.float32, device=dev))
    R = rows.shape[1]
    max_err = 0.0
    sum_err = sq_err = sq_ref = 0.0
    plain_max = 0.0
    atol = 0.0
    nonfinite = int((~torch.isfinite(out)).sum().item())
    for b in range(B):
        idx = torch.from_numpy(rows[b * H:(b + 1) * H]).to(dev)          # [H, R]
        gidx = idx[:, :, None].expand(H, R, D)
        q = torch.from_numpy(q32[b]).to(dev)                               # [H, S, D] f32
        k = torch.from_numpy(k32[b]).to(dev)
        v = torch.from_numpy(v32[b]).to(dev)
        qs = torch.gather(q, 1, gidx)                                      # [H, R, D]
        mask = None
        if cfg["causal"]:
            mask = torch.arange(S, device=dev)[None, None, :] > idx[:, :, None]  # [H, R, S]
        # float64 oracle (kernels/reference.c ab_reference_row)
        sc = torch.matmul(qs.double(), k.double().transpose(1, 2)) * scale64
        if mask is not None:
            sc = sc.masked_fill(mask, -math.inf)
        ref = torch.matmul(torch.softmax(sc, dim=-1), v.double())          # [H, R, D]
        del sc
        # plain same precision (ab_plain_row): q pre-scaled and rounded, scores
        # accumulated in fp32 and rounded, softmax in fp32 rounded, PV in fp32
        # rounded
        qp = rnd(qs * scale_p)
        sp = rnd(torch.matmul(qp, k.transpose(1, 2)))
        if mask is not None:
            sp = sp.masked_fill(mask, -math.inf)
        mx = sp.amax(dim=-1, keepdim=True)
        e = torch.exp(sp - mx)
        p = rnd(e / e.sum(dim=-1, keepdim=True))
        del sp, e
        plain = rnd(torch.matmul(p, v)).double()
        del p
        o = torch.gather(out[b], 1, gidx).double()
        err = (o - ref).abs()
        fin = torch.isfinite(err)
        m = math.inf if not bool(fin.all()) else float(err.max())
        max_err = max(max_err, m)
        errf = torch.where(fin, err, torch.zeros_like(err))
        sum_err += float(errf.sum())
        sq_err += float((errf * errf).sum())
        sq_ref += float((ref * ref).sum())
        plain_max = max(plain_max, float((plain - ref).abs().max()))
        # FlashAttention's fwd_atol (kernels/check.c rounding_near_03)
        xr = rnd(ref.float())
        a = rnd(xr + 0.3)
        bb = rnd(a - 0.3)
        atol = max(atol, float(rnd(bb - xr).abs().max()))
    atol *= 2.0
    if cfg["dtype"] == "fp32" and atol < 1e-5:
        atol = 1e-5
    n_el = B * H * R * D
    return {
        "max_abs_err": max_err,
        "mean_abs_err": sum_err / n_el,
        "rel_l2_err": math.sqrt(sq_err / sq_ref) if sq_ref > 0 else math.sqrt(sq_err),
        "plain_max_abs_err": plain_max,
        "nonfinite": nonfinite,
        "atol": atol,
        "rows_checked": B * H * R,
    }


# ---- timing -----------------------------------------------------------------------

def time_samples(torch, call, cfg):
    """Milliseconds per call, cfg['samples'] of them, in cfg['timing'] mode
    (kernels/gpu_harness.cu's ab_gpu_time)."""
    n = cfg["samples"]
    ms = []
    if cfg["timing"] == "graph":
        gk = cfg["graph_k"]
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(gk):
                call()
        g.replay()  # one untimed replay: uploads the graph
        torch.cuda.synchronize()
        e0 = torch.cuda.Event(enable_timing=True)
        e1 = torch.cuda.Event(enable_timing=True)
        for _ in range(n):
            e0.record()
            g.replay()
            e1.record()
            e1.synchronize()
            ms.append(e0.elapsed_time(e1) / gk)
        del g
        return ms
    if cfg["timing"] == "hot":
        ev = [torch.cuda.Event(enable_timing=True) for _ in range(n + 1)]
        ev[0].record()
        for i in range(n):
            call()
            ev[i + 1].record()
        ev[n].synchronize()
        return [ev[i].elapsed_time(ev[i + 1]) for i in range(n)]
    # cold: overwrite a buffer of twice the L2 size before each call
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    l2 = getattr(props, "L2_cache_size", 0) or (32 << 20)
    flush = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
    e0 = torch.cuda.Event(enable_timing=True)
    e1 = torch.cuda.Event(enable_timing=True)
    for i in range(n):
        flush.fill_(i & 0xFF)
        e0.record()
        call()
        e1.record()
        e1.synchronize()
        ms.append(e0.elapsed_time(e1))
    del flush
    return ms


def fmt(x):
    return repr(float(x)) if math.isfinite(x) else ("inf" if x > 0 else "nan")


def import_torch():
    """torch, F and the SDPBackend table, with TF32 off; AdapterError without CUDA."""
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend

    if not torch.cuda.is_available():
        raise AdapterError("no CUDA device visible to PyTorch %s" % torch.__version__)
    torch.backends.cuda.matmul.allow_tf32 = False  # fp32 means fp32 (reference too)
    torch.backends.cudnn.allow_tf32 = False
    backends = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
                "efficient": SDPBackend.EFFICIENT_ATTENTION, "math": SDPBackend.MATH}
    return torch, F, backends


def backend_ctx(backends, name):
    """The sdpa_kernel context restricting SDPA to one backend (or none)."""
    import contextlib
    from torch.nn.attention import sdpa_kernel
    b = backends.get(name)
    return sdpa_kernel([b]) if b is not None else contextlib.nullcontext()


def prepare(torch, F, backend, cfg):
    """Inputs, one checked call and the warm-up of configuration cfg (inside
    the backend's context). Returns (call, check figures)."""
    B, H, S, D = cfg["b"], cfg["h"], cfg["s"], cfg["d"]
    tdt = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}[cfg["dtype"]]
    q32, k32, v32 = make_inputs(B, H, S, D, cfg["dtype"], cfg["seed"])
    # exact: the float32 values are already dtype values
    q, k, v = (torch.from_numpy(x).to("cuda").to(tdt).contiguous() for x in (q32, k32, v32))
    causal = bool(cfg["causal"])

    def call():
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

    try:
        out = call()
        torch.cuda.synchronize()
    except RuntimeError as e:
        raise AdapterError("backend %s rejects B=%d H=%d S=%d D=%d %s causal=%d: %s"
                           % (backend, B, H, S, D, cfg["dtype"], cfg["causal"],
                              str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__))
    opath = os.environ.get("ATTNBENCH_OUTPUT")
    if opath:  # attnbench checks O itself (PROTOCOL.md, "Correctness"): no figures needed
        out.float().cpu().numpy().tofile(opath)
        check = {"output": opath}
    else:
        check = correctness(torch, cfg, q32, k32, v32, out, check_rows(B, H, S, cfg["seed"]))
    dump = os.environ.get("TORCH_SDPA_DUMP_O")
    if dump:  # for tests/external/check_figures.py: O as float32 [B,H,S,D]
        out.float().cpu().numpy().tofile(dump)
    del out
    for _ in range(cfg["warmup"]):
        call()
    torch.cuda.synchronize()
    return call, check


def env_of(torch, backend):
    import numpy as np
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    return {
        "adapter": "torch_sdpa",
        "backend": backend,
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "gpu": props.name,
        "numpy": np.__version__,
        "python": platform.python_version(),
    }


def check_line(check):
    if "output" in check:
        return "check output=" + check["output"]
    return "check " + " ".join(
        "%s=%s" % (key, check[key] if isinstance(check[key], int) else fmt(check[key]))
        for key in ("max_abs_err", "mean_abs_err", "rel_l2_err", "plain_max_abs_err",
                    "nonfinite", "atol", "rows_checked"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", choices=BACKENDS, default="default")
    args = ap.parse_args()
    if os.environ.get("ATTNBENCH_PROTOCOL") == "2":
        return serve(args)
    cfg = config_from_env()
    torch, F, backends = import_torch()
    with backend_ctx(backends, args.backend):
        call, check = prepare(torch, F, args.backend, cfg)
        ms = time_samples(torch, call, cfg)
        torch.cuda.synchronize()
    lines = ["sample %r" % float(x) for x in ms]
    lines.append(check_line(check))
    lines.append("env " + json.dumps(env_of(torch, args.backend), sort_keys=True))
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.flush()


# ---- protocol 2 -------------------------------------------------------------------

def config_from_line(rest):
    """The configuration of a protocol-2 `config` request, validated."""
    cfg = {}
    for tok in rest.split():
        key, eq, val = tok.partition("=")
        if not eq:
            raise AdapterError("config: %r is not key=value" % tok)
        cfg[key] = val
    out = {}
    for key in ("B", "H", "S", "D", "causal", "warmup", "seed", "graph_k"):
        try:
            out[key.lower()] = int(cfg.get(key))
        except (TypeError, ValueError):
            raise AdapterError("config: %s=%r is not an integer" % (key, cfg.get(key)))
    for key in ("b", "h", "s", "d"):
        if out[key] < 1:
            raise AdapterError("config: %s must be >= 1" % key.upper())
    out["graph_k"] = max(out["graph_k"], 1)
    out["dtype"] = cfg.get("dtype", "")
    if out["dtype"] not in ("fp16", "bf16", "fp32"):
        raise AdapterError("config: dtype=%r is not fp16, bf16 or fp32" % out["dtype"])
    out["timing"] = cfg.get("timing", "")
    if out["timing"] not in ("cold", "hot", "graph"):
        raise AdapterError("config: timing=%r is not cold, hot or graph" % out["timing"])
    return out


def serve(args):
    """Protocol 2: answer config / take / quit requests until quit or EOF."""
    torch, F, backends = import_torch()
    env = json.dumps(env_of(torch, args.backend), sort_keys=True)
    call, cfg = None, None
    out = sys.stdout
    for line in sys.stdin:
        cmd, _, rest = line.strip().partition(" ")
        if cmd == "config":
            call = None
            try:
                cfg = config_from_line(rest)
                with backend_ctx(backends, args.backend):
                    call, check = prepare(torch, F, args.backend, cfg)
            except AdapterError as e:
                out.write("error " + " ".join(str(e).split()) + "\n")
            except Exception as e:  # e.g. out of memory: this configuration only
                traceback.print_exc()
                out.write("error %s: %s\n" % (type(e).__name__, " ".join(str(e).split())[:300]))
                torch.cuda.empty_cache()
            else:
                out.write("env %s\n%s\nready\n" % (env, check_line(check)))
            out.flush()
        elif cmd == "take":
            if call is None:
                raise AdapterError("take before a configuration was accepted")
            cfg["samples"] = int(rest)
            with backend_ctx(backends, args.backend):
                ms = time_samples(torch, call, cfg)
            out.write("".join("sample %r\n" % float(x) for x in ms) + "done\n")
            out.flush()
        elif cmd == "quit":
            return
        elif cmd:
            raise AdapterError("unknown request %r" % cmd)


if __name__ == "__main__":
    try:
        main()
    except AdapterError as e:
        print("error " + " ".join(str(e).split()), flush=True)
        sys.exit(1)
    except Exception as e:  # anything else: the traceback stays on stderr
        traceback.print_exc()
        print("error %s: %s" % (type(e).__name__, " ".join(str(e).split())[:300]), flush=True)
        sys.exit(1)
