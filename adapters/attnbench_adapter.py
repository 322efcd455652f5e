#!/usr/bin/env python3
"""attnbench_adapter.py: the Python adapter kit. It turns a function

    def attention(q, k, v, causal, scale):  # -> o, [B, H, S, D] like q
        ...

into a complete external variant of adapters/PROTOCOL.md (protocols 1 and
2, whichever ATTNBENCH_PROTOCOL names) with one call:

    import attnbench_adapter
    attnbench_adapter.main(attention, framework="numpy")   # or "torch"

The kit reads the configuration (environment or `config` requests), builds
attnbench's own Q, K, V for the seed (kernels/data.h's Philox4x32-10 stream
of cuRAND, written out in numpy, rounded to the dtype as kernels/data.c does),
calls the function once and computes the check figures against the float64
and the plain same-precision references (PROTOCOL.md "Correctness"; the
verdict stays with attnbench), does the warm-up and prints samples:

- framework="torch": q, k, v are CUDA tensors in the dtype (torch.float16,
  torch.bfloat16, torch.float32), [B, H, S, D] contiguous; samples by CUDA
  events in the cold, hot or graph mode attnbench asks for
  (kernels/gpu_harness.cu). Needs torch with CUDA and numpy.
- framework="numpy": q, k, v are float32 numpy arrays holding dtype values
  (numpy has no bfloat16); o may be any array-like of that shape; each
  sample is the host wall-clock time of one call (time.perf_counter), as
  attnbench times its CPU variants, whatever the timing mode. Needs numpy.

layout="bshd" (main's argument) hands the function [B, S, H, D] tensors
(FlashAttention's layout) and takes O back in it; the default "bhsd" is
[B, H, S, D]. The transposes happen outside the timed calls.

Device buffers (PROTOCOL.md "Device buffers"): under protocol 2, when
attnbench offers ATTNBENCH_IPC=1, the kit answers `hello ipc=1 layout=...`
(framework="torch"; numpy says ipc=0) and, for each configuration that
names an `ipc=PATH` description, maps attnbench's own Q, K, V, O through
CUDA IPC (cudaIpcOpenMemHandle from the libcudart torch loaded), calls the
function on them, copies the checked call's O (a backward pass: dQ, dK,
dV, from attnbench's dO) into attnbench's buffers and answers `check
device`: attnbench checks it on the device like a native variant's.

Shapes ahead (PROTOCOL.md "Shapes ahead"): the torch framework's hello
also says ahead=1; attnbench then sends the run's shapes as `ahead` lines
before the first configuration, and the kit calls the function once on
zero tensors of each (forward, or forward and backward), so PyTorch's
per-shape plans and a library's compiles are made at the start, not
inside each configuration's measurement. No answer; stderr gives each
shape's time.

Kept adapters (PROTOCOL.md "Kept adapters"): when attnbench keeps
adapters (by default 300 s; ATTNBENCH_KEEP set), the kit answers `quit` with `kept`
and waits, at most S seconds idle, for the next run of the same command to
be handed over, its framework, compiled kernels and plans kept; it leaves
instead when a module file or a library it loaded changed (_Keeper).

Input rotation: in hot and graph timing the calls take input sets in
turn, carrying on from block to block, as the native harness does
(kernels/gpu_harness.cu, docs/measurement.md "Input rotation"): attnbench's sets under
IPC; otherwise (protocol 1, ipc = false) copies of the kit's own Q, K, V
covering twice the L2 (l2_rotation_sets, the harness's count), so that
back-to-back calls do not read an L2-warm set. O is the function's own
allocation (PyTorch's caching allocator reuses one block), which the
harness would rotate too. A backward pass uses one set, as the harness.

Nothing else: no dependency beyond the standard library, numpy and, for
framework="torch", PyTorch. adapters/examples/ has examples;
adapters/torch_sdpa.py is built on the kit.
"""
import ctypes
import ctypes.util
import glob
import json
import math
import os
import platform
import sys
import time
import traceback

_STARTED = time.perf_counter()  # the kit's import: start-up stages are said from it

ROWS_PER_SLICE = 64            # as kernels/check.h's AB_CHECK_ROWS_PER_SLICE
ALL_ROWS_MAX_SCORES = 1 << 26  # B*H*S*S at most this: every row is checked
DTYPES = ("fp16", "bf16", "fp32")
LAYOUTS = ("bhsd", "bshd")     # [B, H, S, D] (attnbench's) or [B, S, H, D] (FlashAttention's)
PASSES = ("fwd", "bwd", "fwd+bwd")  # what a sample times
TIMINGS = ("cold", "hot", "graph")


class AdapterError(Exception):
    """A failure reported on the protocol's `error` line."""


# ---- configuration ----------------------------------------------------------------

def _validate(raw, names, where):
    """raw: dict of strings keyed like the protocol; returns the config dict
    (lower-case keys, ints, dtype, timing) or raises AdapterError naming
    `where` and the field."""
    out = {}
    for key in names:
        try:
            out[key.lower()] = int(raw.get(key))
        except (TypeError, ValueError):
            raise AdapterError("%s%s=%r is not an integer" % (where, key, raw.get(key)))
    for key in ("b", "h", "s", "d", "samples"):
        if key in out and out[key] < 1:
            raise AdapterError("%s%s must be >= 1" % (where, key.upper()))
    out["graph_k"] = max(out["graph_k"], 1)
    out["dtype"] = raw.get("dtype", "")
    if out["dtype"] not in DTYPES:
        raise AdapterError("%sdtype=%r is not fp16, bf16 or fp32" % (where, out["dtype"]))
    out["timing"] = raw.get("timing", "")
    if out["timing"] not in TIMINGS:
        raise AdapterError("%stiming=%r is not cold, hot or graph" % (where, out["timing"]))
    # K/V heads and length, optional: H and S when absent
    for key, dflt in (("h_kv", "h"), ("s_kv", "s")):
        val = raw.get(key.upper(), raw.get(key[0].upper() + key[1:]))
        try:
            out[key] = int(val) if val not in (None, "") else out[dflt]
        except ValueError:
            raise AdapterError("%s%s=%r is not an integer" % (where, key, val))
        if out[key] < 1:
            raise AdapterError("%s%s must be >= 1" % (where, key))
    if out["h"] % out["h_kv"]:
        raise AdapterError("%sH_kv=%d does not divide H=%d" % (where, out["h_kv"], out["h"]))
    out["pass"] = raw.get("pass") or "fwd"  # optional: fwd when absent
    if out["pass"] not in PASSES:
        raise AdapterError("%spass=%r is not fwd, bwd or fwd+bwd" % (where, out["pass"]))
    out["ipc"] = raw.get("ipc") or None  # protocol 2: attnbench's device buffers (a file)
    return out


def config_from_env():
    """The configuration of protocol 1 (ATTNBENCH_* variables), validated."""
    env = os.environ
    if env.get("ATTNBENCH_PROTOCOL") != "1":
        raise AdapterError("ATTNBENCH_PROTOCOL is %r; this adapter speaks protocols 1 and 2"
                           % env.get("ATTNBENCH_PROTOCOL"))
    names = ("B", "H", "S", "D", "CAUSAL", "WARMUP", "SAMPLES", "SEED", "GRAPH_K")
    raw = {k: env.get("ATTNBENCH_" + k) for k in names + ("H_KV", "S_KV")}
    raw["dtype"] = env.get("ATTNBENCH_DTYPE", "")
    raw["timing"] = env.get("ATTNBENCH_TIMING", "")
    raw["pass"] = env.get("ATTNBENCH_PASS", "")
    return _validate(raw, names, "ATTNBENCH_")


def config_from_line(rest):
    """The configuration of a protocol-2 `config` request, validated."""
    raw = {}
    for tok in rest.split():
        key, eq, val = tok.partition("=")
        if not eq:
            raise AdapterError("config: %r is not key=value" % tok)
        raw[key] = val
    return _validate(raw, ("B", "H", "S", "D", "causal", "warmup", "seed", "graph_k"),
                     "config: ")


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


def philox_stream(seed, offset, n):
    """Elements offset .. offset + n - 1 of cuRAND's Philox4x32-10 stream for
    `seed` as uint32 (kernels/philox.h: element i is output i % 4 of the
    block with counter (lo, hi of (i // 4) >> 16, (i // 4) & 0xFFFF, 0) and
    key (seed mod 2^32, seed >> 32))."""
    import numpy as np
    if n <= 0:
        return np.zeros(0, dtype=np.uint32)
    seed &= 0xFFFFFFFFFFFFFFFF
    first, last = offset // 4, (offset + n - 1) // 4
    blk = np.arange(first, last + 1, dtype=np.uint64)
    pos = blk >> np.uint64(16)
    m32 = np.uint64(0xFFFFFFFF)
    c0, c1 = pos & m32, pos >> np.uint64(32)
    c2, c3 = blk & np.uint64(0xFFFF), np.zeros_like(blk)
    k0, k1 = np.uint64(seed & 0xFFFFFFFF), np.uint64(seed >> 32)
    for r in range(10):
        if r:
            k0 = (k0 + np.uint64(0x9E3779B9)) & m32
            k1 = (k1 + np.uint64(0xBB67AE85)) & m32
        p0 = np.uint64(0xD2511F53) * c0
        p1 = np.uint64(0xCD9E8D57) * c2
        c0, c1, c2, c3 = (p1 >> np.uint64(32)) ^ c1 ^ k0, p1 & m32, (p0 >> np.uint64(32)) ^ c3 ^ k1, p0 & m32
    out = np.stack([c0, c1, c2, c3], axis=1).reshape(-1).astype(np.uint32)
    skip = offset - 4 * first
    return out[skip:skip + n]


def input_values(u32, dtype):
    """kernels/data.c's ab_input_value: round(float32(u / 2^31 - 1))."""
    import numpy as np
    x = (u32.astype(np.float64) * 2.0 ** -31 - 1.0).astype(np.float32)
    return round_to_dtype(x, dtype)


def make_inputs(B, H, S, D, dtype, seed, Hkv=None, Skv=None):
    """Q as a float32 numpy array [B, H, S, D] and K, V as [B, H_kv, S_kv, D]
    (H_kv, S_kv default to H, S), holding dtype values: cuRAND's Philox4x32-10
    stream for `seed`, Q then K then V (kernels/data.h)."""
    Hkv = H if Hkv is None else Hkv
    Skv = S if Skv is None else Skv
    out, off = [], 0
    for shape in ((B, H, S, D), (B, Hkv, Skv, D), (B, Hkv, Skv, D)):
        n = shape[0] * shape[1] * shape[2] * shape[3]
        out.append(input_values(philox_stream(seed, off, n), dtype).reshape(shape))
        off += n
    return out


def make_dout(B, H, S, D, dtype, seed):
    """dO [B, H, S, D] of a backward pass as kernels/data.c's ab_dout_fill:
    the same draws from the stream of seed + 1."""
    n = B * H * S * D
    return input_values(philox_stream(seed + 1, 0, n), dtype).reshape((B, H, S, D))


def expand_kv(cfg, k32, v32):
    """K, V [B, H_kv, S_kv, D] with each K/V head repeated for its H / H_kv
    query heads (head h reads K/V head h // (H / H_kv)): the layout the
    kit's own check reads."""
    import numpy as np
    g = cfg["h"] // cfg["h_kv"]
    if g == 1:
        return k32, v32
    return np.repeat(k32, g, axis=1), np.repeat(v32, g, axis=1)


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

def torch_dtype(torch, dtype):
    """The torch element type of a protocol dtype name (fp16, bf16, fp32)."""
    return {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}[dtype]


def correctness_torch(torch, cfg, q32, k32, v32, out, rows):
    """Figures of `out` (CUDA tensor in the dtype) against the float64 and
    the plain reference (kernels/reference.c) over `rows`, on the GPU.
    Returns the dict printed on the check line."""
    B, H, S, D = cfg["b"], cfg["h"], cfg["s"], cfg["d"]
    Skv = cfg["s_kv"]
    k32, v32 = expand_kv(cfg, k32, v32)
    dev = out.device
    tdt = torch_dtype(torch, cfg["dtype"])

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
        if cfg["causal"]:  # bottom-right: key j visible to row i iff j <= i + S_kv - S
            mask = torch.arange(Skv, device=dev)[None, None, :] > idx[:, :, None] + (Skv - S)
        # float64 oracle (kernels/reference.c ab_reference_row)
        sc = torch.matmul(qs.double(), k.double().transpose(1, 2)) * scale64
        if mask is not None:
            sc = sc.masked_fill(mask, -math.inf)
        ref = torch.matmul(torch.softmax(sc, dim=-1).nan_to_num(0.0), v.double())  # no key: 0
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
        p = rnd(e / e.sum(dim=-1, keepdim=True)).nan_to_num(0.0)
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
    return _figures(cfg, max_err, sum_err, sq_err, sq_ref, plain_max, atol, nonfinite, R)


def correctness_numpy(cfg, q32, k32, v32, out, rows):
    """The same figures as correctness_torch, in numpy on the host: `out` a
    float array [B, H, S, D] of the function's output."""
    import numpy as np
    B, H, S, D = cfg["b"], cfg["h"], cfg["s"], cfg["d"]
    Skv = cfg["s_kv"]
    k32, v32 = expand_kv(cfg, k32, v32)
    dt = cfg["dtype"]

    def rnd(x):
        return round_to_dtype(np.ascontiguousarray(x, dtype=np.float32), dt)

    out = np.asarray(out, dtype=np.float64)
    if out.shape != (B, H, S, D):
        raise AdapterError("the function returned shape %s, expected %s"
                           % (tuple(out.shape), (B, H, S, D)))
    scale64 = 1.0 / math.sqrt(D)
    scale_p = rnd(np.array([scale64], dtype=np.float32))[0]
    R = rows.shape[1]
    max_err = sum_err = sq_err = sq_ref = plain_max = atol = 0.0
    nonfinite = int((~np.isfinite(out)).sum())
    with np.errstate(invalid="ignore", over="ignore"):
        for bh in range(B * H):
            b, h = divmod(bh, H)
            idx = rows[bh]
            q, k, v = q32[b, h], k32[b, h], v32[b, h]              # [S, D] float32
            qs = q[idx]                                            # [R, D]
            mask = (np.arange(Skv)[None, :] > idx[:, None] + (Skv - S)) if cfg["causal"] else None
            sc = (qs.astype(np.float64) @ k.astype(np.float64).T) * scale64
            if mask is not None:
                sc[mask] = -np.inf
            sc = np.exp(sc - sc.max(axis=1, keepdims=True))
            ref = np.nan_to_num(sc / sc.sum(axis=1, keepdims=True)) @ v.astype(np.float64)
            sp = rnd(rnd(qs * scale_p) @ k.T)
            if mask is not None:
                sp[mask] = -np.inf
            e = np.exp(sp - sp.max(axis=1, keepdims=True))
            p = np.nan_to_num(rnd(e / e.sum(axis=1, keepdims=True)))
            plain = rnd(p @ v).astype(np.float64)
            err = np.abs(out[b, h][idx] - ref)
            fin = np.isfinite(err)
            max_err = max(max_err, math.inf if not fin.all() else float(err.max()))
            errf = np.where(fin, err, 0.0)
            sum_err += float(errf.sum())
            sq_err += float((errf * errf).sum())
            sq_ref += float((ref * ref).sum())
            plain_max = max(plain_max, float(np.abs(plain - ref).max()))
            xr = rnd(ref)
            atol = max(atol, float(np.abs(rnd(rnd(rnd(xr + np.float32(0.3)) - np.float32(0.3))
                                              - xr)).max()))
    return _figures(cfg, max_err, sum_err, sq_err, sq_ref, plain_max, atol, nonfinite, R)


def _figures(cfg, max_err, sum_err, sq_err, sq_ref, plain_max, atol, nonfinite, R):
    atol *= 2.0
    if cfg["dtype"] == "fp32" and atol < 1e-5:
        atol = 1e-5
    B, H, D = cfg["b"], cfg["h"], cfg["d"]
    return {
        "max_abs_err": max_err,
        "mean_abs_err": sum_err / (B * H * R * D),
        "rel_l2_err": math.sqrt(sq_err / sq_ref) if sq_ref > 0 else math.sqrt(sq_err),
        "plain_max_abs_err": plain_max,
        "nonfinite": nonfinite,
        "atol": atol,
        "rows_checked": B * H * R,
    }


# ---- device buffers shared by attnbench (PROTOCOL.md "Device buffers") -----------

IPC_VERSION = 1                        # the description's "version" (src/run/ext_ipc.h)
IPC_LAZY_ENABLE_PEER_ACCESS = 1        # cudaIpcMemLazyEnablePeerAccess
IPC_TYPESTR = {"fp16": "<f2", "fp32": "<f4", "bf16": "<i2"}  # bf16: int16 bits, viewed


def find_cudart():
    """The path or soname of libcudart to open: the one this process has
    already loaded (torch's own, read from /proc/self/maps), else torch's
    lib folder, the nvidia-cuda-runtime wheel's, ctypes.util.find_library,
    the usual sonames. Returns a list of candidates, best first."""
    out = []
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split()[-1] if len(line.split()) >= 6 else ""
                if "/libcudart" in path and ".so" in path and path not in out:
                    out.append(path)
    except OSError:
        pass
    torch = sys.modules.get("torch")
    if torch is not None and getattr(torch, "__file__", None):
        out += sorted(glob.glob(os.path.join(os.path.dirname(torch.__file__), "lib",
                                             "libcudart*.so*")))
    for p in sys.path:
        out += sorted(glob.glob(os.path.join(p, "nvidia", "cuda_runtime", "lib",
                                             "libcudart.so*")))
    name = ctypes.util.find_library("cudart")
    if name:
        out.append(name)
    return out + ["libcudart.so.13", "libcudart.so.12", "libcudart.so"]


class _IpcHandle(ctypes.Structure):
    _fields_ = [("reserved", ctypes.c_char * 64)]  # cudaIpcMemHandle_t


class Cudart:
    """cudaIpcOpenMemHandle and cudaIpcCloseMemHandle through ctypes. `lib`:
    a loaded library object (tests pass a stand-in); default: the first of
    find_cudart() that loads."""

    def __init__(self, lib=None):
        if lib is None:
            errors = []
            for cand in find_cudart():
                try:
                    lib = ctypes.CDLL(cand)
                    break
                except OSError as e:
                    errors.append(str(e))
            if lib is None:
                raise AdapterError("cannot load libcudart for CUDA IPC (%s)"
                                   % "; ".join(errors[-3:]))
        self.lib = lib
        self.lib.cudaIpcOpenMemHandle.argtypes = [ctypes.POINTER(ctypes.c_void_p), _IpcHandle,
                                                  ctypes.c_uint]
        self.lib.cudaIpcOpenMemHandle.restype = ctypes.c_int
        self.lib.cudaIpcCloseMemHandle.argtypes = [ctypes.c_void_p]
        self.lib.cudaIpcCloseMemHandle.restype = ctypes.c_int

    def open(self, handle):
        """handle: 64 bytes. Returns the device pointer (an int)."""
        if len(handle) != 64:
            raise AdapterError("an IPC handle is 64 bytes, got %d" % len(handle))
        ptr = ctypes.c_void_p()
        rc = self.lib.cudaIpcOpenMemHandle(ctypes.byref(ptr), _IpcHandle.from_buffer_copy(handle),
                                           IPC_LAZY_ENABLE_PEER_ACCESS)
        if rc != 0 or not ptr.value:
            raise AdapterError("cudaIpcOpenMemHandle failed with CUDA error %d" % rc)
        return ptr.value

    def close(self, ptr):
        return self.lib.cudaIpcCloseMemHandle(ctypes.c_void_p(ptr))


class DeviceArray:
    """A device pointer as an object with __cuda_array_interface__ (version
    3, C-contiguous), for torch.as_tensor(obj, device="cuda"); holds
    `owner` (the mapping) so that it outlives every tensor made from it."""

    def __init__(self, ptr, shape, typestr, owner):
        self.ptr, self.shape, self.owner = ptr, tuple(shape), owner
        self.__cuda_array_interface__ = {"shape": self.shape, "typestr": typestr,
                                         "data": (ptr, False), "strides": None, "version": 3}


class SharedBuffers:
    """attnbench's buffers of one configuration, described by the JSON file
    at `path` (src/run/ext_ipc.h): each distinct handle opened once through
    `cudart` (a Cudart), `sets` a list of {"q", "k", "v", "o": DeviceArray}
    (set i's tensors at the handle's base + offset), `grads` for a backward
    pass {"do", "dq", "dk", "dv", "lse": DeviceArray} (else empty),
    `layout`, `dtype`, `desc` the parsed file. close() unmaps them all."""

    def __init__(self, path, cudart, cfg=None):
        try:
            with open(path) as f:
                desc = json.load(f)
        except (OSError, ValueError) as e:
            raise AdapterError("ipc=%s: %s" % (path, e))
        if desc.get("version") != IPC_VERSION:
            raise AdapterError("ipc=%s: version %r, this kit reads %d"
                               % (path, desc.get("version"), IPC_VERSION))
        if desc.get("layout") not in LAYOUTS or desc.get("dtype") not in DTYPES:
            raise AdapterError("ipc=%s: layout %r, dtype %r" % (path, desc.get("layout"),
                                                                desc.get("dtype")))
        if cfg is not None:
            for key, ckey in (("B", "b"), ("H", "h"), ("S", "s"), ("D", "d"), ("H_kv", "h_kv"),
                              ("S_kv", "s_kv"), ("dtype", "dtype")):
                if desc.get(key) != cfg[ckey]:
                    raise AdapterError("ipc=%s: %s=%r, the configuration says %r"
                                       % (path, key, desc.get(key), cfg[ckey]))
        self.desc, self.layout, self.dtype = desc, desc["layout"], desc["dtype"]
        self.cudart, self.bases, self.sets, self.grads = cudart, {}, [], {}
        typestr = IPC_TYPESTR[self.dtype]

        def array(ref, t, ts):
            hexh = ref["handle"]
            if hexh not in self.bases:  # an allocation is opened once
                self.bases[hexh] = cudart.open(bytes.fromhex(hexh))
            return DeviceArray(self.bases[hexh] + int(ref["offset"]), t["shape"], ts, self)
        try:
            for bufs in desc["buffers"]:
                self.sets.append({name: array(bufs[name], desc["tensors"][name], typestr)
                                  for name in ("q", "k", "v", "o")})
            # a backward pass: dO, dQ, dK, dV (the dtype) and the logsumexp
            # (float32) of set 0
            for name in ("do", "dq", "dk", "dv", "lse"):
                if name in desc["tensors"]:
                    self.grads[name] = array(desc["buffers"][0][name], desc["tensors"][name],
                                             "<f4" if name == "lse" else typestr)
        except (KeyError, TypeError, ValueError) as e:
            self.close()
            raise AdapterError("ipc=%s: malformed description (%s: %s)"
                               % (path, type(e).__name__, e))
        if len(self.sets) != desc.get("sets") or not self.sets:
            self.close()
            raise AdapterError("ipc=%s: %d buffer sets, \"sets\" says %r"
                               % (path, len(self.sets), desc.get("sets")))

    def close(self):
        for ptr in self.bases.values():
            self.cudart.close(ptr)
        self.bases = {}


def rotating(sets, fn):
    """A call that takes the input sets in turn, carrying on from call to
    call (kernels/gpu_harness.cu's next_set): fn(*sets[i])."""
    state = [0]
    n = len(sets)

    def call():
        i = state[0]
        state[0] = i + 1 if i + 1 < n else 0
        return fn(*sets[i])
    return call


def l2_rotation_sets(cfg, l2_bytes):
    """The input sets the kit rotates among in hot and graph timing when it
    makes its own inputs (no ipc=), as src/core/shape.c's ab_l2_rotation_sets
    counts them for the native harness: enough copies of Q, K, V, O (the
    bytes a forward moves, 2 (B*H*S*D + B*H_kv*S_kv*D) x the dtype's size)
    to cover twice the L2, at most 256; 1 when one set already covers it or
    the pass is a backward (the harness rotates forwards only)."""
    size = 4 if cfg["dtype"] == "fp32" else 2
    per_set = 2.0 * (cfg["b"] * cfg["h"] * cfg["s"] * cfg["d"] +
                     cfg["b"] * cfg["h_kv"] * cfg["s_kv"] * cfg["d"]) * size
    if cfg.get("pass", "fwd") != "fwd" or l2_bytes <= 0 or per_set >= 2.0 * l2_bytes:
        return 1
    sets = 2.0 * l2_bytes / per_set
    return 256 if sets >= 256.0 else int(sets) + 1


def own_input_sets(q, k, v, cfg, l2_bytes):
    """The kit's own inputs as input sets for rotating(): set 0 is (q, k, v)
    (the checked call's), each other set a copy (x.clone(): same values,
    new memory), l2_rotation_sets of them in hot and graph timing, one in
    cold (the L2 is flushed before each call)."""
    n = l2_rotation_sets(cfg, l2_bytes) if cfg["timing"] != "cold" else 1
    return [(q, k, v)] + [(q.clone(), k.clone(), v.clone()) for _ in range(n - 1)]


# ---- timing -----------------------------------------------------------------------

class _Hold:
    """The launch hold of kernels/gpu_harness.cu, for PyTorch: before a
    block's first event the stream waits while Python enqueues the block's
    events and calls, so that the first sample does not hold the host's time
    to submit the call (without a hold PyTorch's SDPA samples in rounds of 2
    moved 20-40% with their position in the round on an H100,
    reports/hold/README.md).

    Two routes. "flag", as attnbench's own hold: the stream waits on a
    32-bit word of mapped host memory (the driver's cuStreamWaitValue32,
    CUDA's stream memory operations) that end() writes once the block is
    enqueued, so the GPU is held exactly as long as the host takes to
    submit. "sleep", where that is unavailable: torch.cuda._sleep (a private
    function) spins for a fixed time, twice the host time the previous
    block took to enqueue (at least 1 ms), measured in cycles by timing
    _sleep once; the GPU then idles for that time in every block whether the
    host needed it or not (on an H100, SDPA's backward in blocks of 2: 1.7-1.9
    ms a block against 1.0 ms with the flag; a small forward 1.03 against
    0.10 ms, reports/cost-per-answer/ round 9). Where neither exists nothing
    is held. ATTNBENCH_HOLD=0 turns it off as it does for attnbench.
    begin() and end() come in pairs; time_torch calls end() on every path,
    since a stream left waiting on the flag would never run again. A
    function that waits on the GPU inside the block (a .item(), a
    synchronize, an allocator that frees) would wait on the held stream
    forever: a watchdog thread releases a block still held after
    HOLD_TIMEOUT_S, as attnbench's hold kernel times out, and the kit says
    so once and holds with the sleep from then on."""

    HOLD_TIMEOUT_S = 0.2  # kernels/gpu_harness.cu's hold_stream: 200 ms

    def __init__(self, torch):
        self.torch = torch
        self.sleep = getattr(torch.cuda, "_sleep", None)
        self.route = "off" if os.environ.get("ATTNBENCH_HOLD") == "0" else None
        self.cycles_per_s = None
        self.enqueue_s = 1e-3
        self.gen = 0
        self.t0 = None

    def _flag_route(self):
        """Sets up the flag (needs the CUDA context, made by then): a word of
        page-locked host memory mapped into the device's address space, and
        the driver's wait on it; False where the driver lacks either."""
        try:
            cu = ctypes.CDLL("libcuda.so.1")
            wait = getattr(cu, "cuStreamWaitValue32_v2", None) or cu.cuStreamWaitValue32
            host, dev = ctypes.c_void_p(), ctypes.c_uint64()
            # CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP
            if cu.cuMemHostAlloc(ctypes.byref(host), ctypes.c_size_t(64), ctypes.c_uint(3)) != 0:
                return False
            if cu.cuMemHostGetDevicePointer_v2(ctypes.byref(dev), host, ctypes.c_uint(0)) != 0:
                return False
        except (OSError, AttributeError):
            return False
        wait.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_uint]
        wait.restype = ctypes.c_int
        self.wait, self.flag_dev = wait, dev.value
        self.flag = ctypes.c_uint32.from_address(host.value)
        self.flag.value = 0
        import threading
        self.cv = threading.Condition()
        self.armed = None  # (generation, deadline) of the block held now
        self.timed_out = False
        threading.Thread(target=self._watch, name="attnbench-hold-watchdog", daemon=True).start()
        return True

    def _watch(self):
        """The watchdog: releases the held block once its deadline passes."""
        with self.cv:
            while True:
                if self.armed is None:
                    self.cv.wait()
                    continue
                gen, deadline = self.armed
                left = deadline - time.perf_counter()
                if left > 0:
                    self.cv.wait(left)
                    continue
                self.flag.value = gen
                self.timed_out = True
                self.armed = None

    def begin(self):
        """Enqueues the wait (nothing when the hold is off)."""
        torch = self.torch
        if self.route is None:
            self.route = ("flag" if self._flag_route() else
                          "sleep" if self.sleep is not None else "off")
            sys.stderr.write("attnbench_adapter: launch hold: %s\n" % self.route)
        if self.route == "flag":
            self.gen = (self.gen + 1) & 0xFFFFFFFF or 1
            stream = torch.cuda.current_stream().cuda_stream
            # CU_STREAM_WAIT_VALUE_EQ: this block's value only
            if self.wait(ctypes.c_void_p(stream), self.flag_dev, self.gen, 1) == 0:
                self.t0 = time.perf_counter()
                with self.cv:
                    self.armed = (self.gen, self.t0 + self.HOLD_TIMEOUT_S)
                    self.cv.notify()
                return
            self.route = "sleep" if self.sleep is not None else "off"
            sys.stderr.write("attnbench_adapter: launch hold: the stream wait failed, %s\n"
                             % self.route)
        if self.route != "sleep":
            return
        if self.cycles_per_s is None:
            e0 = torch.cuda.Event(enable_timing=True)
            e1 = torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize()
            e0.record()
            self.sleep(10_000_000)
            e1.record()
            e1.synchronize()
            self.cycles_per_s = 10_000_000 / max(e0.elapsed_time(e1) * 1e-3, 1e-6)
        hold_s = max(1e-3, 2.0 * self.enqueue_s)
        self.sleep(int(hold_s * self.cycles_per_s))
        self.t0 = time.perf_counter()

    def end(self):
        """After the block is enqueued (or its enqueue failed): releases the
        stream; remembers how long the enqueue took."""
        if self.t0 is None:
            return
        if self.route == "flag":
            with self.cv:
                self.flag.value = self.gen
                self.armed = None
                timed_out, self.timed_out = self.timed_out, False
            if timed_out:
                self.route = "sleep" if self.sleep is not None else "off"
                sys.stderr.write("attnbench_adapter: launch hold: the block was still held after "
                                 "%.0f ms (the function waits on the GPU inside it): released; "
                                 "%s from here\n" % (1e3 * self.HOLD_TIMEOUT_S, self.route))
        self.enqueue_s = time.perf_counter() - self.t0
        self.t0 = None


def time_torch(torch, call, cfg, hold):
    """Milliseconds per call, cfg['samples'] of them, in cfg['timing'] mode
    (kernels/gpu_harness.cu's ab_gpu_time), each block behind `hold` (a
    _Hold)."""
    n = cfg["samples"]
    ms = []
    cold_call = call
    if cfg["timing"] != "cold":  # hot and graph take the input sets in turn
        call = getattr(call, "rotating", None) or call
    if cfg["timing"] == "graph":
        gk = cfg["graph_k"]
        g = torch.cuda.CUDAGraph()
        side = getattr(call, "capture_stream", None)  # a backward's forward stream
        if side is not None:
            side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.graph(g, stream=side):
            for _ in range(gk):
                call()
        g.replay()  # one untimed replay: uploads the graph
        torch.cuda.synchronize()
        e0 = torch.cuda.Event(enable_timing=True)
        e1 = torch.cuda.Event(enable_timing=True)
        for _ in range(n):
            hold.begin()
            try:
                e0.record()
                g.replay()
                e1.record()
            finally:
                hold.end()
            e1.synchronize()
            ms.append(e0.elapsed_time(e1) / gk)
        del g
        return ms
    if cfg["timing"] == "hot":
        ev = [torch.cuda.Event(enable_timing=True) for _ in range(n + 1)]
        hold.begin()
        try:
            ev[0].record()
            for i in range(n):
                call()
                ev[i + 1].record()
        finally:
            hold.end()
        ev[n].synchronize()
        return [ev[i].elapsed_time(ev[i + 1]) for i in range(n)]
    # cold: overwrite a buffer of twice the L2 size before each call
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    l2 = getattr(props, "L2_cache_size", 0) or (32 << 20)
    flush = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
    e0 = torch.cuda.Event(enable_timing=True)
    e1 = torch.cuda.Event(enable_timing=True)
    for i in range(n):
        hold.begin()
        try:
            flush.fill_(i & 0xFF)
            e0.record()
            cold_call()
            e1.record()
        finally:
            hold.end()
        e1.synchronize()
        ms.append(e0.elapsed_time(e1))
    del flush
    return ms


def time_host(call, cfg):
    """Milliseconds of host wall clock per call (time.perf_counter)."""
    ms = []
    for _ in range(cfg["samples"]):
        t0 = time.perf_counter()
        call()
        ms.append((time.perf_counter() - t0) * 1e3)
    return ms


# ---- output -----------------------------------------------------------------------

def fmt(x):
    return repr(float(x)) if math.isfinite(x) else ("inf" if x > 0 else "nan")


def check_line(check):
    peak = " peak_bytes=%d" % check["peak_bytes"] if check.get("peak_bytes") else ""
    if check.get("device"):  # O is in attnbench's own device buffer
        return "check device" + peak
    if "output" in check:  # the file attnbench offered in ATTNBENCH_OUTPUT
        return "check output=" + check["output"] + peak
    return "check " + " ".join(
        "%s=%s" % (key, check[key] if isinstance(check[key], int) else fmt(check[key]))
        for key in ("max_abs_err", "mean_abs_err", "rel_l2_err", "plain_max_abs_err",
                    "nonfinite", "atol", "rows_checked"))


# ---- the two frameworks -----------------------------------------------------------

class TorchRunner:
    """framework="torch": CUDA tensors in, CUDA events out. `context`, when
    given, is a callable returning a context manager entered around the
    checked call, the warm-up and every timing (e.g. an SDPA backend);
    `layout` the layout fn takes and returns ("bhsd" or "bshd")."""

    def __init__(self, fn, context=None, layout="bhsd", cudart=None):
        import contextlib
        import torch
        if not torch.cuda.is_available():
            raise AdapterError("no CUDA device visible to PyTorch %s" % torch.__version__)
        torch.backends.cuda.matmul.allow_tf32 = False  # fp32 means fp32 (reference too)
        torch.backends.cudnn.allow_tf32 = False
        self.torch, self.fn, self.layout = torch, fn, layout
        self.context = context or contextlib.nullcontext
        self.hold = _Hold(torch)
        self.cudart = cudart  # made on the first ipc= configuration
        self.shared = None    # the SharedBuffers of the current configuration

    def release(self):
        """Unmaps the previous configuration's shared buffers (attnbench
        frees them after the configuration)."""
        if self.shared is not None:
            self.torch.cuda.synchronize()
            self.shared.close()
            self.shared = None

    def _to_layout(self, x):
        """[B, H, S, D] -> the function's layout (a copy, untimed)."""
        return x.transpose(1, 2).contiguous() if self.layout == "bshd" else x

    def _from_layout(self, x):
        """The function's layout -> [B, H, S, D] (a view)."""
        return x.transpose(1, 2) if self.layout == "bshd" else x

    def _prepare_ipc(self, cfg, describe):
        """A configuration on attnbench's own buffers (cfg["ipc"], PROTOCOL.md
        "Device buffers"): the checked call on set 0, its O copied into
        attnbench's O of set 0 (outside any timing), `check device`; the
        timed calls take the sets in turn in hot and graph timing. A
        backward pass: _prepare_bwd on attnbench's Q, K, V and dO, the
        gradients copied into its dQ, dK, dV."""
        torch = self.torch
        if self.cudart is None:
            self.cudart = Cudart()
        t_start = time.perf_counter()
        with open(cfg["ipc"]) as f:  # the device first: IPC maps into the current one
            dev = json.load(f).get("device", 0)
        torch.cuda.set_device(dev)
        shared = SharedBuffers(cfg["ipc"], self.cudart, cfg)
        t_mapped = time.perf_counter()
        self.shared = shared
        if shared.layout != self.layout:
            raise AdapterError("ipc=: attnbench shares %s tensors, the function takes %s"
                               % (shared.layout, self.layout))
        tdt = torch_dtype(torch, cfg["dtype"])

        def wrap(a):
            t = torch.as_tensor(a, device="cuda")
            return t.view(tdt) if t.dtype != tdt else t
        sets = [tuple(wrap(one[n]) for n in ("q", "k", "v", "o")) for one in shared.sets]
        causal, scale, fn = bool(cfg["causal"]), 1.0 / math.sqrt(cfg["d"]), self.fn
        q, k, v, o = sets[0]
        # the memory of the pass as native variants count it: attnbench's
        # tensors plus what the function allocated (its O, workspace, grads)
        own = sum(int(t["bytes"]) for t in shared.desc["tensors"].values())
        if cfg["pass"] != "fwd":  # one set; dQ, dK, dV into attnbench's buffers
            if not shared.grads:
                raise AdapterError("ipc=: pass=%s, but no backward buffers described"
                                   % cfg["pass"])
            bufs = {n: wrap(a) for n, a in shared.grads.items() if n != "lse"}
            bufs["bytes"] = own
            call, check = self._prepare_bwd(cfg, describe, q, k, v, tdt, shared=bufs)
            sys.stderr.write("attnbench_adapter: ipc: the %s pass on attnbench's buffers\n"
                             % cfg["pass"])
            return call, check

        def call():
            return fn(q, k, v, causal, scale)
        call.rotating = rotating([s[:3] for s in sets], lambda q, k, v: fn(q, k, v, causal, scale))
        with self.context():
            try:
                torch.cuda.synchronize()
                torch.cuda.reset_peak_memory_stats()
                out = call()
                if tuple(out.shape) != tuple(o.shape):
                    raise AdapterError("the function returned shape %s, expected %s (%s)"
                                       % (tuple(out.shape), tuple(o.shape), self.layout))
                o.copy_(out)  # attnbench checks O in its own buffer
                torch.cuda.synchronize()
            except RuntimeError as e:
                first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                raise AdapterError("%s rejects B=%d H=%d H_kv=%d S=%d S_kv=%d D=%d %s causal=%d: %s"
                                   % (describe, cfg["b"], cfg["h"], cfg["h_kv"], cfg["s"],
                                      cfg["s_kv"], cfg["d"], cfg["dtype"], cfg["causal"], first))
            check = {"device": True, "peak_bytes": own + torch.cuda.max_memory_allocated()}
            del out
            t_checked = time.perf_counter()
            warm = call.rotating if cfg["timing"] != "cold" else call
            for _ in range(cfg["warmup"]):
                warm()
            torch.cuda.synchronize()
        # where the configuration's time went in the kit (the report's
        # "adapter's own" per variant, reports/sampling-budget/)
        sys.stderr.write("attnbench_adapter: ipc: %d input sets of attnbench's, layout %s; "
                         "mapped in %.1f ms, checked call %.1f ms, warm-up %.1f ms\n"
                         % (len(sets), self.layout, 1e3 * (t_mapped - t_start),
                            1e3 * (t_checked - t_mapped), 1e3 * (time.perf_counter() - t_checked)))
        return call, check

    def env(self):
        import numpy as np
        torch = self.torch
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        return dict(_threads(), torch=torch.__version__, torch_cuda=torch.version.cuda,
                    cudnn=torch.backends.cudnn.version(), gpu=props.name,
                    numpy=np.__version__, python=platform.python_version())

    def prepare(self, cfg, describe):
        torch = self.torch
        self.release()
        if cfg.get("ipc"):
            return self._prepare_ipc(cfg, describe)
        B, H, S, D = cfg["b"], cfg["h"], cfg["s"], cfg["d"]
        tdt = torch_dtype(torch, cfg["dtype"])
        q32, k32, v32 = make_inputs(B, H, S, D, cfg["dtype"], cfg["seed"], cfg["h_kv"],
                                    cfg["s_kv"])
        # exact: the float32 values are already dtype values
        q, k, v = (self._to_layout(torch.from_numpy(x).to("cuda").to(tdt).contiguous())
                   for x in (q32, k32, v32))
        causal, scale, fn = bool(cfg["causal"]), 1.0 / math.sqrt(D), self.fn
        if cfg["pass"] != "fwd":
            return self._prepare_bwd(cfg, describe, q, k, v, tdt)

        def call():
            return fn(q, k, v, causal, scale)

        with self.context():
            try:
                torch.cuda.synchronize()
                torch.cuda.reset_peak_memory_stats()
                out = call()
                torch.cuda.synchronize()
            except RuntimeError as e:
                first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                raise AdapterError("%s rejects B=%d H=%d H_kv=%d S=%d S_kv=%d D=%d %s causal=%d: %s"
                                   % (describe, B, H, cfg["h_kv"], S, cfg["s_kv"], D,
                                      cfg["dtype"], cfg["causal"], first))
            out = self._from_layout(out)  # [B, H, S, D] for the check
            opath = os.environ.get("ATTNBENCH_OUTPUT")
            if opath:  # attnbench checks O itself (PROTOCOL.md, "Correctness")
                out.float().contiguous().cpu().numpy().tofile(opath)
                check = {"output": opath, "peak_bytes": torch.cuda.max_memory_allocated()}
            else:
                check = correctness_torch(torch, cfg, q32, k32, v32, out,
                                          check_rows(B, H, S, cfg["seed"]))
            dump = os.environ.get("TORCH_SDPA_DUMP_O") or os.environ.get("ATTNBENCH_ADAPTER_DUMP_O")
            if dump:  # tests/external/check_figures.py: O as float32 [B,H,S,D]
                out.float().contiguous().cpu().numpy().tofile(dump)
            del out
            # hot and graph timing rotate among copies of the inputs covering
            # twice the L2, as the native harness does (kernels/gpu_harness.cu),
            # so back-to-back calls read Q, K, V from memory, not from L2; made
            # after the checked call, so that its peak memory counts one set
            # as the native variants' does
            props = torch.cuda.get_device_properties(torch.cuda.current_device())
            sets = own_input_sets(q, k, v, cfg, getattr(props, "L2_cache_size", 0) or (32 << 20))
            call.rotating = rotating(sets, lambda q, k, v: fn(q, k, v, causal, scale))
            warm = call.rotating if cfg["timing"] != "cold" else call
            for _ in range(cfg["warmup"]):
                warm()
            torch.cuda.synchronize()
        if len(sets) > 1:
            sys.stderr.write("attnbench_adapter: %d input sets of its own (twice the L2)\n"
                             % len(sets))
        return call, check

    def _prepare_bwd(self, cfg, describe, q, k, v, tdt, shared=None):
        """A backward pass through autograd: "bwd" times
        torch.autograd.grad of the output (the forward made once, outside the
        timed region, its graph retained), "fwd+bwd" the forward and that
        backward together. dQ, dK, dV go to ATTNBENCH_OUTPUT for attnbench's
        gradient check (required: the kit has no gradient check of its own),
        or, with `shared` (a dict of attnbench's dO, dQ, dK, dV tensors,
        device buffers), into attnbench's dQ, dK, dV (`check device`)."""
        torch = self.torch
        B, H, S, D = cfg["b"], cfg["h"], cfg["s"], cfg["d"]
        opath = os.environ.get("ATTNBENCH_OUTPUT")
        if shared is not None:
            g = shared["do"]
        elif not opath:
            raise AdapterError("pass=%s needs ATTNBENCH_OUTPUT (attnbench checks the gradients)"
                               % cfg["pass"])
        else:
            g = self._to_layout(torch.from_numpy(make_dout(B, H, S, D, cfg["dtype"],
                                                           cfg["seed"])).to("cuda").to(tdt))
        for x in (q, k, v):
            x.requires_grad_(True)
        causal, scale, fn = bool(cfg["causal"]), 1.0 / math.sqrt(D), self.fn
        with self.context():
            try:
                torch.cuda.synchronize()
                torch.cuda.reset_peak_memory_stats()
                # autograd runs each backward op on its forward op's stream, so
                # for a CUDA graph of the backward alone the forward is made on
                # the stream the graph will be captured on (PyTorch, "CUDA
                # semantics": stream semantics of backward passes); on the
                # default stream the capture fails
                side = (torch.cuda.Stream()
                        if cfg["timing"] == "graph" and cfg["pass"] == "bwd" else None)
                if side is not None:
                    side.wait_stream(torch.cuda.current_stream())
                    with torch.cuda.stream(side):
                        out = fn(q, k, v, causal, scale)
                    torch.cuda.synchronize()
                else:
                    out = fn(q, k, v, causal, scale)
                if cfg["pass"] == "bwd":
                    def call():
                        return torch.autograd.grad(out, (q, k, v), g, retain_graph=True)
                    call.capture_stream = side
                else:
                    def call():
                        return torch.autograd.grad(fn(q, k, v, causal, scale), (q, k, v), g)
                grads = call()
                torch.cuda.synchronize()
                # the pass's peak: inputs, dO, O and the autograd state, the gradients
                peak = torch.cuda.max_memory_allocated()
            except RuntimeError as e:
                first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                raise AdapterError("%s rejects the %s pass of B=%d H=%d H_kv=%d S=%d S_kv=%d "
                                   "D=%d %s causal=%d: %s"
                                   % (describe, cfg["pass"], B, H, cfg["h_kv"], S, cfg["s_kv"],
                                      D, cfg["dtype"], cfg["causal"], first))
            if shared is not None:  # attnbench checks them in its own buffers
                for name, x in zip(("dq", "dk", "dv"), grads):
                    shared[name].copy_(x)
                torch.cuda.synchronize()
                check = {"device": True, "peak_bytes": peak + shared["bytes"]}
            else:
                import numpy as np
                np.concatenate([self._from_layout(x).float().contiguous().cpu().numpy().ravel()
                                for x in grads]).tofile(opath)
                check = {"output": opath, "peak_bytes": peak}
            del grads
            for _ in range(cfg["warmup"]):
                call()
            torch.cuda.synchronize()
        return call, check

    def time(self, call, cfg):
        with self.context():
            ms = time_torch(self.torch, call, cfg, self.hold)
            self.torch.cuda.synchronize()
        return ms

    def ahead(self, cfg):
        """A shape told ahead (PROTOCOL.md "Shapes ahead"): one call of the
        function (the forward, or the forward and its backward for pass=bwd
        and fwd+bwd) on tensors of the shape in its layout, contiguous like
        attnbench's, whose values do not matter, so that the library's
        per-shape work (PyTorch's cuDNN plan, a compile) is done now; the
        tensors are freed and the allocator's cache emptied."""
        torch = self.torch
        tdt = torch_dtype(torch, cfg["dtype"])
        B, H, S, D, Hkv, Skv = (cfg[k] for k in ("b", "h", "s", "d", "h_kv", "s_kv"))

        def make(heads, length):
            shape = (B, length, heads, D) if self.layout == "bshd" else (B, heads, length, D)
            return torch.zeros(shape, device="cuda", dtype=tdt)
        q, k, v = make(H, S), make(Hkv, Skv), make(Hkv, Skv)
        causal, scale, fn = bool(cfg["causal"]), 1.0 / math.sqrt(D), self.fn
        with self.context():
            if cfg["pass"] == "fwd":
                fn(q, k, v, causal, scale)
            else:
                for x in (q, k, v):
                    x.requires_grad_(True)
                out = fn(q, k, v, causal, scale)
                torch.autograd.grad(out, (q, k, v), torch.zeros_like(out))
            torch.cuda.synchronize()
        del q, k, v
        torch.cuda.empty_cache()

    def recover(self):
        self.torch.cuda.empty_cache()

    def idle(self):
        """Between kept sessions: the allocator's cache back to the device."""
        self.release()
        self.torch.cuda.synchronize()
        self.torch.cuda.empty_cache()


def _threads():
    """{"threads": N} when attnbench passed the experiment's `threads` (as
    OMP_NUM_THREADS, PROTOCOL.md), for the env line; else {}."""
    t = os.environ.get("OMP_NUM_THREADS")
    return {"threads": t} if t else {}


class NumpyRunner:
    """framework="numpy": float32 host arrays in, host wall clock out."""

    def __init__(self, fn, context=None, layout="bhsd"):
        import numpy  # noqa: F401  (fail here, with the reason, when absent)
        self.fn, self.layout = fn, layout

    def release(self):
        pass

    def env(self):
        import numpy as np
        return dict(_threads(), numpy=np.__version__, python=platform.python_version(),
                    timing="host wall clock per call (time.perf_counter)")

    def prepare(self, cfg, describe):
        B, H, S, D = cfg["b"], cfg["h"], cfg["s"], cfg["d"]
        if cfg["pass"] != "fwd":
            raise AdapterError("%s: the numpy kit runs the forward pass only (pass=%s)"
                               % (describe, cfg["pass"]))
        import numpy as np
        q, k, v = make_inputs(B, H, S, D, cfg["dtype"], cfg["seed"], cfg["h_kv"], cfg["s_kv"])
        causal, scale, fn = bool(cfg["causal"]), 1.0 / math.sqrt(D), self.fn
        bshd = self.layout == "bshd"
        fq, fk, fv = ((np.ascontiguousarray(x.transpose(0, 2, 1, 3)) for x in (q, k, v))
                      if bshd else (q, k, v))

        def call():
            return fn(fq, fk, fv, causal, scale)

        out = call()
        if bshd:
            out = np.asarray(out).transpose(0, 2, 1, 3)
        opath = os.environ.get("ATTNBENCH_OUTPUT")
        if opath:  # attnbench checks O itself (PROTOCOL.md, "Correctness")
            import numpy as np
            np.ascontiguousarray(out, dtype=np.float32).tofile(opath)
            check = {"output": opath}
        else:
            check = correctness_numpy(cfg, q, k, v, out, check_rows(B, H, S, cfg["seed"]))
        for _ in range(cfg["warmup"]):
            call()
        return call, check

    def time(self, call, cfg):
        return time_host(call, cfg)

    def ahead(self, cfg):
        pass  # the numpy kit has no per-shape work to do ahead

    def recover(self):
        pass

    def idle(self):
        pass


# ---- kept adapters ------------------------------------------------------------------

class _Keeper:
    """Kept adapters (PROTOCOL.md "Kept adapters"; attnbench's side:
    src/run/ext_keep.h). attnbench run --keep-adapters S sets
    ATTNBENCH_KEEP=SOCKET:S; after a session that ended with `quit` the kit
    answers `kept`, puts /dev/null on its stdin, stdout and stderr and
    listens at SOCKET for the next run of the same command, at most S
    seconds idle. A run is handed over as three descriptors (SCM_RIGHTS: the
    new stdin, stdout, stderr) and NAME=VALUE\\0 variables (the run's
    ATTNBENCH_OUTPUT, ATTNBENCH_VARIANT, ATTNBENCH_KEEP); the kit answers
    one byte and speaks protocol 2 from its hello again, its framework,
    compiled kernels and plans kept. It does not take a run, and leaves,
    when a file it runs changed since it was first seen (the modification
    time or size of a Python module's file or of any file mapped into the
    process, /proc/self/maps: shared libraries, ctypes-loaded ones too): a
    new process then loads the new code. A file changed while the very run
    that loaded it was going is not noticed."""

    def __init__(self, spec):
        self.path, self.idle_s = self._parse(spec)
        self.stamps = {}
        self.sessions = 1
        self.stamp()

    @staticmethod
    def _parse(spec):
        path, _, secs = spec.rpartition(":")
        return path, float(secs)

    def _files(self):
        for m in list(sys.modules.values()):
            f = getattr(m, "__file__", None)
            if isinstance(f, str):
                yield os.path.abspath(f)
        try:
            with open("/proc/self/maps") as maps:
                for line in maps:
                    parts = line.split(None, 5)
                    if len(parts) == 6 and parts[5].startswith("/"):
                        yield parts[5].rstrip("\n")
        except OSError:
            pass

    def stamp(self):
        """Records the files first seen since the last stamp."""
        for f in self._files():
            if f not in self.stamps:
                try:
                    st = os.stat(f)
                except OSError:
                    continue
                self.stamps[f] = (st.st_mtime_ns, st.st_size)

    def changed(self):
        """The first file whose time or size moved (or that is gone), else None."""
        for f, was in self.stamps.items():
            try:
                st = os.stat(f)
            except OSError:
                return f
            if (st.st_mtime_ns, st.st_size) != was:
                return f
        return None

    def wait(self):
        """Listens until a run is handed over: True with descriptors 0, 1, 2
        replaced and os.environ updated; False when idle for idle_s, another
        kept adapter holds the socket, or a file changed."""
        import errno
        import select
        import socket
        import struct
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(self.path)
        except OSError as e:
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                if e.errno != errno.EADDRINUSE:
                    return False
                probe.connect(self.path)
                return False  # another kept adapter listens there
            except OSError:  # a stale socket: taken over
                os.unlink(self.path)
                listener.bind(self.path)
            finally:
                probe.close()
        try:
            listener.listen(4)
            while True:
                ready, _, _ = select.select([listener], [], [], self.idle_s)
                if not ready:
                    return False
                conn, _ = listener.accept()
                with conn:
                    cred = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                           struct.calcsize("3i"))
                    if struct.unpack("3i", cred)[1] != os.getuid():
                        continue
                    conn.settimeout(5.0)
                    msg, fds, _, _ = socket.recv_fds(conn, 65536, 3)
                    if len(fds) != 3:
                        for fd in fds:
                            os.close(fd)
                        continue
                    if self.changed() is not None:
                        for fd in fds:
                            os.close(fd)
                        return False
                    for i, fd in enumerate(fds):
                        os.dup2(fd, i)
                        os.close(fd)
                    for kv in msg.split(b"\0"):
                        if b"=" in kv:
                            k, _, v = kv.decode().partition("=")
                            os.environ[k] = v
                    conn.sendall(b"1")
                if os.environ.get("ATTNBENCH_KEEP"):
                    self.idle_s = self._parse(os.environ["ATTNBENCH_KEEP"])[1]
                self.sessions += 1
                return True
        finally:
            listener.close()
            try:  # closed while serving: a concurrent run starts its own process
                os.unlink(self.path)
            except OSError:
                pass


def _keep_serving(runner, env_json, describe, framework, layout, caps):
    """After a session that ended with `quit`, with ATTNBENCH_KEEP set:
    stays for later runs (_Keeper) until idle, stale or ended by EOF."""
    import signal
    keeper = _Keeper(os.environ["ATTNBENCH_KEEP"])
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    while True:
        runner.idle()
        keeper.stamp()
        sys.stderr.flush()  # before `kept`: attnbench closes its ends on reading it
        try:
            sys.stdout.write("kept\n")
            sys.stdout.flush()
        except OSError:  # attnbench is gone
            return
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.close(null)
        if not keeper.wait():
            return
        sys.stdin = open(0, "r", closefd=False)
        if hello_wanted():
            sys.stdout.write(hello_line(framework, layout, caps, os.environ) + "\n")
            sys.stdout.flush()
        sys.stderr.write("attnbench_adapter: kept from an earlier run: session %d of pid %d, "
                         "started %.0f s ago\n"
                         % (keeper.sessions, os.getpid(), time.perf_counter() - _STARTED))
        if not serve(runner, env_json, describe):
            return


# ---- the protocols ----------------------------------------------------------------

def _one_line(e):
    return " ".join(str(e).split())[:300]


def serve(runner, env, describe, inp=None, out=None):
    """Protocol 2: answer config / take / quit requests until quit (returns
    True) or EOF (False)."""
    inp, out = inp or sys.stdin, out or sys.stdout
    call, cfg = None, None
    for line in inp:
        cmd, _, rest = line.strip().partition(" ")
        if cmd == "config":
            call = None
            try:
                cfg = config_from_line(rest)
                call, check = runner.prepare(cfg, describe)
            except AdapterError as e:
                out.write("error " + _one_line(e) + "\n")
            except Exception as e:  # e.g. out of memory: this configuration only
                traceback.print_exc()
                out.write("error %s: %s\n" % (type(e).__name__, _one_line(e)))
                runner.recover()
            else:
                out.write("env %s\n%s\nready\n" % (env, check_line(check)))
            out.flush()
        elif cmd == "ahead":  # no answer (PROTOCOL.md "Shapes ahead")
            t0 = time.perf_counter()
            try:
                runner.ahead(config_from_line(rest))
            except Exception as e:  # the configuration itself will report it
                sys.stderr.write("attnbench_adapter: ahead %s: %s: %s\n"
                                 % (rest.split(" warmup=")[0], type(e).__name__, _one_line(e)))
                runner.recover()
            else:
                now = time.perf_counter()
                sys.stderr.write("attnbench_adapter: ahead %s: %.1f ms, done %.0f ms after start\n"
                                 % (rest.split(" warmup=")[0], 1e3 * (now - t0),
                                    1e3 * (now - _STARTED)))
        elif cmd == "take":
            if call is None:
                raise AdapterError("take before a configuration was accepted")
            cfg["samples"] = int(rest)
            ms = runner.time(call, cfg)
            out.write("".join("sample %r\n" % float(x) for x in ms) + "done\n")
            out.flush()
        elif cmd == "quit":
            call = None
            runner.release()
            return True
        elif cmd:
            raise AdapterError("unknown request %r" % cmd)
    call = None
    runner.release()
    return False


CAPS = ("dtypes", "head_dims", "passes", "h_kv", "s_kv", "causal")


def hello_wanted(env=None):
    """1 when attnbench asked for a hello (protocol 2 with ATTNBENCH_HELLO=1
    or ATTNBENCH_IPC=1 in env, default os.environ)."""
    env = os.environ if env is None else env
    return env.get("ATTNBENCH_PROTOCOL") == "2" and (
        env.get("ATTNBENCH_HELLO") == "1" or env.get("ATTNBENCH_IPC") == "1")


def hello_line(framework, layout, caps=None, env=None):
    """The hello (PROTOCOL.md "Device buffers", "Capabilities"): the torch
    framework maps attnbench's buffers when offered (ATTNBENCH_IPC=1 in env,
    env None: what the framework can); caps declares what fn runs, e.g.
    {"dtypes": ["fp16", "bf16"], "head_dims": [64, 128], "h_kv": "h"};
    numpy's runner adds passes=fwd. Raises AdapterError on an unknown key."""
    ipc = framework == "torch" and (env is None or env.get("ATTNBENCH_IPC") == "1")
    caps = dict(caps or {})
    if framework == "numpy":
        caps.setdefault("passes", ["fwd"])  # the numpy kit runs the forward only
    bad = [k for k in caps if k not in CAPS]
    if bad:
        raise AdapterError("capability %r is not one of %s" % (bad[0], ", ".join(CAPS)))
    words = ["hello ipc=%d layout=%s" % (1 if ipc else 0, layout)]
    if framework == "torch":  # it makes its first call of each shape told ahead
        words.append("ahead=1")
    for key in CAPS:
        if key in caps:
            v = caps[key]
            words.append("%s=%s" % (key, ",".join(str(x) for x in v)
                                    if isinstance(v, (list, tuple)) else v))
    return " ".join(words)


def run(fn, framework="torch", env=None, context=None, describe="the function", layout="bhsd",
        caps=None, preload=None):
    """Speaks the protocol ATTNBENCH_PROTOCOL names for `fn(q, k, v, causal,
    scale) -> o`. env: extra fields of the `env` line (merged into the
    measurement's fingerprint); context: see TorchRunner; describe: names
    the function in error messages; layout: "bhsd" (fn takes and returns
    [B, H, S, D]) or "bshd" ([B, S, H, D]); caps: the capabilities the
    hello declares (hello_line), so attnbench skips the configurations fn
    cannot run instead of storing errors; preload: a callable run once
    after the hello and the framework's import, before the first request
    (e.g. a library's own import, so that it overlaps attnbench's work on
    the first configuration instead of delaying the first checked call).
    Raises AdapterError on a failure to report."""
    runners = {"torch": TorchRunner, "numpy": NumpyRunner}
    if framework not in runners:
        raise AdapterError("framework %r is not torch or numpy" % framework)
    if layout not in LAYOUTS:
        raise AdapterError("layout %r is not bhsd or bshd" % (layout,))
    proto = os.environ.get("ATTNBENCH_PROTOCOL")
    if hello_wanted():
        # at once, before torch is imported: attnbench waits only a moment for it
        sys.stdout.write(hello_line(framework, layout, caps, os.environ) + "\n")
        sys.stdout.flush()
    cfg = None if proto == "2" else config_from_env()  # refuses other protocols
    runner = runners[framework](fn, context, layout)
    sys.stderr.write("attnbench_adapter: %s imported, %.0f ms after start (pid %d)\n"
                     % (framework, 1e3 * (time.perf_counter() - _STARTED), os.getpid()))
    if preload is not None:
        t0 = time.perf_counter()
        preload()
        sys.stderr.write("attnbench_adapter: preload %.0f ms\n" % (1e3 * (time.perf_counter() - t0)))
    fields = runner.env()
    fields.update(env or {})
    env_json = json.dumps(fields, sort_keys=True)
    if proto == "2":
        if serve(runner, env_json, describe) and os.environ.get("ATTNBENCH_KEEP"):
            _keep_serving(runner, env_json, describe, framework, layout, caps)
        return
    call, check = runner.prepare(cfg, describe)
    ms = runner.time(call, cfg)
    lines = ["sample %r" % float(x) for x in ms]
    lines.append(check_line(check))
    lines.append("env " + env_json)
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.flush()


def main(fn, framework="torch", env=None, context=None, describe="the function", layout="bhsd",
         caps=None, preload=None):
    """run(), with failures printed as the protocol's `error` line and exit
    status 1 (the traceback of an unexpected exception stays on stderr)."""
    try:
        run(fn, framework, env, context, describe, layout, caps, preload)
    except AdapterError as e:
        print("error " + _one_line(e), flush=True)
        sys.exit(1)
    except Exception as e:
        traceback.print_exc()
        print("error %s: %s" % (type(e).__name__, _one_line(e)), flush=True)
        sys.exit(1)
