#!/usr/bin/env python3
"""kit_ipc_test.py: the adapter kit's side of the device buffers
(adapters/attnbench_adapter.py, PROTOCOL.md "Device buffers") without a GPU,
torch or numpy: a stand-in libcudart records what cudaIpcOpenMemHandle and
cudaIpcCloseMemHandle are given.

  - the description attnbench writes (src/run/ext_ipc.c, through
    `ext_ipc_test - - describe PATH`: 3 sets, [B,S,H,D], bf16) is mapped
    handle by handle: each distinct allocation opened once with its 64 raw
    bytes and cudaIpcMemLazyEnablePeerAccess, every tensor at its
    allocation's pointer + offset with the description's shape, bf16 as
    int16 bits, and closed once each by close();
  - a backward pass's description (one set, [B,H,S,D]) maps dO, dQ, dK, dV
    in the dtype and the logsumexp as float32;
  - a handle with zero bytes reaches cudart whole (not cut at the first NUL);
  - a description that disagrees with the configuration is refused;
  - the rotation takes the sets in turn and carries on between blocks, as
    kernels/gpu_harness.cu's next_set does;
  - the protocol lines: `config ... ipc=PATH`, `check device`, the hello,
    printed first (before the framework is imported) only when offered.
Expected values come from the description's definition in ext_ipc.h (set 0
in four allocations at offset 0, sets i > 0 at ((i-1)*4 + j) * 1024 in a
fifth; handle bytes all equal to the allocation's number + 1, as the C test
writes them).
Usage: kit_ipc_test.py EXT_IPC_TEST ADAPTERS_DIR
"""
import ctypes
import json
import os
import subprocess
import sys
import tempfile

failures = 0


def expect(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL: " + what, file=sys.stderr)


class FakeFn:
    """A ctypes function stand-in: accepts argtypes/restype, records calls."""

    def __init__(self, impl):
        self.impl, self.calls = impl, []

    def __call__(self, *args):
        self.calls.append(args)
        return self.impl(*args)


class FakeCudart:
    """cudaIpcOpenMemHandle hands out 0x7000_0000_0000 + 0x1_0000_0000 * k
    for the k-th distinct handle it is given (0 on a repeat: a second open
    of one handle is an error in real CUDA)."""

    def __init__(self):
        self.opened = {}  # raw handle bytes -> pointer
        self.closed = []
        self.flags = []

        def open_(pptr, handle, flags):
            raw = bytes(handle)
            if raw in self.opened:
                return 201  # cudaErrorInvalidContext-like: not expected
            ptr = 0x700000000000 + 0x100000000 * len(self.opened)
            self.opened[raw] = ptr
            self.flags.append(flags)
            pptr._obj.value = ptr
            return 0

        def close_(ptr):
            self.closed.append(ptr.value)
            return 0
        self.cudaIpcOpenMemHandle = FakeFn(open_)
        self.cudaIpcCloseMemHandle = FakeFn(close_)


def main():
    ext_ipc_test, adapters = sys.argv[1], sys.argv[2]
    sys.path.insert(0, adapters)
    import attnbench_adapter as kit

    tmp = tempfile.mkdtemp(prefix="kit_ipc_test-")
    path = os.path.join(tmp, "variant-0.ipc.json")
    subprocess.run([ext_ipc_test, "-", "-", "describe", path], check=True)
    cfg = {"b": 2, "h": 4, "s": 5, "d": 8, "h_kv": 2, "s_kv": 7, "dtype": "bf16"}

    # ---- mapping ----
    lib = FakeCudart()
    shared = kit.SharedBuffers(path, kit.Cudart(lib), cfg)
    expect(shared.layout == "bshd" and shared.dtype == "bf16", "layout/dtype read")
    expect(len(shared.sets) == 3, "%d sets mapped, expected 3" % len(shared.sets))
    expect(len(lib.opened) == 5 and len(lib.cudaIpcOpenMemHandle.calls) == 5,
           "%d handles opened, expected 5 distinct allocations each once" % len(lib.opened))
    expect(all(f == 1 for f in lib.flags), "flags %r, expected cudaIpcMemLazyEnablePeerAccess"
           % lib.flags)
    base = {bytes([a + 1]) * 64: lib.opened.get(bytes([a + 1]) * 64) for a in range(5)}
    expect(all(v is not None for v in base.values()), "a handle's raw bytes changed on the way")
    names = ("q", "k", "v", "o")
    shapes = {"q": (2, 5, 4, 8), "o": (2, 5, 4, 8), "k": (2, 7, 2, 8), "v": (2, 7, 2, 8)}
    for i, one in enumerate(shared.sets):
        for j, n in enumerate(names):
            alloc = j if i == 0 else 4
            want = base[bytes([alloc + 1]) * 64] + (0 if i == 0 else ((i - 1) * 4 + j) * 1024)
            cai = one[n].__cuda_array_interface__
            expect(cai["data"] == (want, False), "set %d %s at %#x, expected %#x"
                   % (i, n, cai["data"][0], want))
            expect(cai["shape"] == shapes[n], "set %d %s shape %r" % (i, n, cai["shape"]))
            expect(cai["typestr"] == "<i2" and cai["strides"] is None and cai["version"] == 3,
                   "set %d %s interface %r" % (i, n, cai))
            expect(one[n].owner is shared, "the mapping is not held by its arrays")
    shared.close()
    expect(sorted(lib.closed) == sorted(lib.opened.values()),
           "closed %r, expected each opened pointer once" % lib.closed)

    # ---- a backward pass: one set, [B,H,S,D], dO, dQ, dK, dV and the logsumexp ----
    pb = os.path.join(tmp, "bwd.json")
    subprocess.run([ext_ipc_test, "-", "-", "describe-bwd", pb], check=True)
    lib3 = FakeCudart()
    sb = kit.SharedBuffers(pb, kit.Cudart(lib3), cfg)
    expect(len(sb.sets) == 1 and sorted(sb.grads) == ["dk", "do", "dq", "dv", "lse"],
           "backward: %d sets, grads %r" % (len(sb.sets), sorted(sb.grads)))
    expect(len(lib3.opened) == 9, "backward: %d handles opened, expected 9" % len(lib3.opened))
    gshape = {"do": (2, 4, 5, 8), "dq": (2, 4, 5, 8), "dk": (2, 2, 7, 8), "dv": (2, 2, 7, 8),
              "lse": (2, 4, 5)}
    for j, n in enumerate(("do", "dq", "dk", "dv", "lse")):
        cai = sb.grads[n].__cuda_array_interface__
        expect(cai["data"][0] == lib3.opened.get(bytes([5 + j + 1]) * 64),
               "backward %s not at its allocation" % n)
        expect(cai["shape"] == gshape[n] and cai["typestr"] == ("<f4" if n == "lse" else "<i2"),
               "backward %s: %r" % (n, cai))
    sb.close()
    expect(len(lib3.closed) == 9, "backward: %d closed" % len(lib3.closed))

    # ---- a handle with zero bytes ----
    with open(path) as f:
        desc = json.load(f)
    raw = bytes([0, 0xAB] * 32)
    for one in desc["buffers"]:
        for n in names:
            one[n]["handle"] = raw.hex()
    p2 = os.path.join(tmp, "zeros.json")
    with open(p2, "w") as f:
        json.dump(desc, f)
    lib2 = FakeCudart()
    kit.SharedBuffers(p2, kit.Cudart(lib2), cfg).close()
    expect(list(lib2.opened) == [raw], "handle with NUL bytes arrived as %r" % list(lib2.opened))

    # ---- a description that is not this configuration ----
    try:
        kit.SharedBuffers(path, kit.Cudart(FakeCudart()), dict(cfg, s=6))
        expect(False, "S=5 description accepted for S=6")
    except kit.AdapterError as e:
        expect("S=5, the configuration says 6" in str(e), "mismatch message: %s" % e)

    # ---- rotation ----
    seen = []
    call = kit.rotating([(0,), (1,), (2,)], lambda i: seen.append(i))
    for _ in range(4):
        call()
    for _ in range(3):  # the next block carries on
        call()
    expect(seen == [0, 1, 2, 0, 1, 2, 0], "rotation %r" % seen)

    # ---- protocol lines ----
    line = "B=2 H=4 S=5 D=8 causal=0 dtype=bf16 warmup=1 seed=42 timing=hot graph_k=1 ipc=" + path
    expect(kit.config_from_line(line)["ipc"] == path, "ipc= not read from config")
    expect(kit.config_from_line(line.split(" ipc=")[0])["ipc"] is None, "ipc without ipc=")
    expect(kit.check_line({"device": True, "peak_bytes": 4096}) == "check device peak_bytes=4096",
           "check line %r" % kit.check_line({"device": True, "peak_bytes": 4096}))
    expect(kit.hello_line("torch", "bshd") == "hello ipc=1 layout=bshd ahead=1", "torch hello")
    # the numpy kit runs the forward only, and says so (PROTOCOL.md "Capabilities")
    expect(kit.hello_line("numpy", "bhsd") == "hello ipc=0 layout=bhsd passes=fwd", "numpy hello")
    expect(kit.hello_line("torch", "bhsd", {"dtypes": ["fp16", "bf16"], "head_dims": [64, 128],
                                            "h_kv": "h"}, env={"ATTNBENCH_HELLO": "1"})
           == "hello ipc=0 layout=bhsd ahead=1 dtypes=fp16,bf16 head_dims=64,128 h_kv=h",
           "torch hello with capabilities, no buffers offered")
    script = ("import sys; sys.path.insert(0, %r); import attnbench_adapter as k; "
              "k.main(lambda q, k_, v, c, s: q, framework='numpy', layout='bshd')" % adapters)
    env = {key: val for key, val in os.environ.items() if not key.startswith("ATTNBENCH_")}
    for offered in ("ipc", "hello", None):
        e = dict(env, ATTNBENCH_PROTOCOL="2", **({"ATTNBENCH_IPC": "1"} if offered == "ipc" else
                                                 {"ATTNBENCH_HELLO": "1"} if offered else {}))
        r = subprocess.run([sys.executable, "-c", script], env=e, input="quit\n",
                           capture_output=True, text=True, timeout=30)
        first = (r.stdout.splitlines() or [""])[0]
        if offered:
            expect(first == "hello ipc=0 layout=bshd passes=fwd",
                   "offered %s: first line %r" % (offered, first))
        else:
            expect(not first.startswith("hello"), "not offered, yet %r" % first)
    try:
        os.remove(path)
        os.remove(p2)
        os.remove(pb)
        os.rmdir(tmp)
    except OSError:
        pass
    if failures:
        print("%d failures" % failures, file=sys.stderr)
        return 1
    print("ok: the kit maps attnbench's description handle by handle, rotates the sets, "
          "speaks the hello and check device")
    return 0


if __name__ == "__main__":
    sys.exit(main())
