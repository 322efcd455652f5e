#!/usr/bin/env python3
"""plugin_via_kit.py: an attnbench plugin library (include/attnbench/plugin.h)
called from the Python adapter kit through ctypes, e.g.

    { name = "kit_fa2_warps"; protocol = 2; timing = "hot";
      command = "python3 adapters/examples/plugin_via_kit.py LIBRARY VARIANT"; }

Two uses: a researcher whose kernel already is a shared library can time it
from Python beside PyTorch code; and, with tests/plugin/rung_plugin.c's
library (the built-in rung cuda_fa2_warps compiled as a plugin), the same
kernel code reaches attnbench three ways (registry, plugin, kit), so one
run isolates the per-call cost of each route (experiments/plugin-overhead.cfg).
The variant's setup runs once per shape outside the timed call; a CUDA
variant's run enqueues on PyTorch's current stream (graph capture
included), a CPU variant's runs on the numpy kit's arrays; the ABI's
dtype codes are attnbench's (fp16 0, bf16 1, fp32 2).
"""
import atexit
import ctypes as C
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import attnbench_adapter  # noqa: E402

ABI_VERSION = 1  # include/attnbench/plugin.h ATTNBENCH_PLUGIN_ABI_VERSION


class Shape(C.Structure):
    _fields_ = [("B", C.c_int), ("H", C.c_int), ("S", C.c_int), ("D", C.c_int),
                ("causal", C.c_int), ("dtype", C.c_int)]


SETUP = C.CFUNCTYPE(C.c_int, C.POINTER(Shape), C.POINTER(C.c_void_p), C.POINTER(C.c_size_t),
                    C.c_char_p, C.c_size_t)
RUN = C.CFUNCTYPE(C.c_int, C.c_void_p, C.POINTER(Shape), C.c_void_p, C.c_void_p, C.c_void_p,
                  C.c_void_p, C.c_void_p)
TEARDOWN = C.CFUNCTYPE(None, C.c_void_p)


class Variant(C.Structure):
    _fields_ = [("name", C.c_char_p), ("device", C.c_int), ("dtypes", C.c_uint),
                ("head_dims", C.c_int * 8), ("idea", C.c_char_p), ("setup", SETUP),
                ("run", RUN), ("teardown", TEARDOWN), ("backward", C.c_void_p),
                ("reserved", C.c_void_p * 4)]


class Table(C.Structure):
    _fields_ = [("abi_version", C.c_int), ("library_name", C.c_char_p),
                ("nvariants", C.c_size_t), ("variants", C.POINTER(Variant))]


def load(library, name):
    """The variant `name` of `library`, or AdapterError naming both."""
    try:
        lib = C.CDLL(os.path.abspath(library), mode=C.RTLD_LOCAL)
        fn = lib.attnbench_plugin_variants
    except (OSError, AttributeError) as e:
        raise attnbench_adapter.AdapterError("%s: cannot load the plugin: %s" % (library, e))
    fn.restype = C.POINTER(Table)
    t = fn()
    if not t or t.contents.abi_version != ABI_VERSION:
        raise attnbench_adapter.AdapterError("%s: plugin ABI version %s, this script speaks %d"
                                             % (library, t and t.contents.abi_version,
                                                ABI_VERSION))
    for i in range(t.contents.nvariants):
        v = t.contents.variants[i]
        if v.name.decode() == name:
            return lib, v
    raise attnbench_adapter.AdapterError("%s: no variant %r" % (library, name))


def make_numpy(library, name):
    """The CPU variant `name` of `library` as a function of float32 numpy
    arrays [B, H, S, D] (the kit's framework="numpy"): setup once per
    shape, then run on the arrays' own memory, O into a fresh array."""
    import numpy as np
    lib, v = load(library, name)
    if v.device != 0:
        raise attnbench_adapter.AdapterError("%s: %s is not a CPU variant" % (library, name))
    ctxs = {}

    def close():
        for ctx, _ in ctxs.values():
            v.teardown(ctx)
    atexit.register(close)

    def attention(q, k, v_, causal, scale):
        B, H, S, D = q.shape
        key = (B, H, S, D, int(bool(causal)), 2)  # fp32: the numpy kit's arrays are float32
        if key not in ctxs:
            shape = Shape(*key)
            ctx, ws, err = C.c_void_p(), C.c_size_t(), C.create_string_buffer(512)
            if v.setup(C.byref(shape), C.byref(ctx), C.byref(ws), err, 512):
                raise attnbench_adapter.AdapterError("%s: setup: %s" % (name, err.value.decode()))
            ctxs[key] = (ctx, shape)
        ctx, shape = ctxs[key]
        o = np.empty_like(q)
        rc = v.run(ctx, C.byref(shape), q.ctypes.data, k.ctypes.data, v_.ctypes.data,
                   o.ctypes.data, None)
        if rc:
            raise attnbench_adapter.AdapterError("%s: run returned %d" % (name, rc))
        return o

    attention.keep = lib  # the library stays loaded while the function lives
    return attention


def make(library, name):
    import torch
    lib, v = load(library, name)
    codes = {torch.float16: 0, torch.bfloat16: 1, torch.float32: 2}
    ctxs = {}

    def close():
        for ctx, _ in ctxs.values():
            if v.teardown:
                v.teardown(ctx)
    atexit.register(close)

    def attention(q, k, v_, causal, scale):
        B, H, S, D = q.shape
        key = (B, H, S, D, int(bool(causal)), codes[q.dtype])
        if key not in ctxs:  # setup once per shape, outside the timed calls
            shape = Shape(*key)
            ctx, ws, err = C.c_void_p(), C.c_size_t(), C.create_string_buffer(512)
            if v.setup(C.byref(shape), C.byref(ctx), C.byref(ws), err, 512):
                raise attnbench_adapter.AdapterError("%s: setup: %s" % (name, err.value.decode()))
            ctxs[key] = (ctx, shape)
        ctx, shape = ctxs[key]
        o = torch.empty_like(q)
        rc = v.run(ctx, C.byref(shape), q.data_ptr(), k.data_ptr(), v_.data_ptr(), o.data_ptr(),
                   torch.cuda.current_stream().cuda_stream)
        if rc:
            raise attnbench_adapter.AdapterError("%s: run returned %d" % (name, rc))
        return o

    return attention


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("error usage: plugin_via_kit.py LIBRARY VARIANT", flush=True)
        sys.exit(1)
    lib_path, vname = sys.argv[1], sys.argv[2]
    impl = []
    # a CPU variant (device 0) runs on numpy arrays, a CUDA one on torch tensors
    try:
        framework = "numpy" if load(lib_path, vname)[1].device == 0 else "torch"
    except attnbench_adapter.AdapterError:
        framework = "torch"  # the first call reports the failure on the error line

    def attention(q, k, v, causal, scale):
        """loads the library on the first call, so a failure is an error line"""
        if not impl:
            impl.append((make_numpy if framework == "numpy" else make)(lib_path, vname))
        return impl[0](q, k, v, causal, scale)

    attnbench_adapter.main(attention, framework=framework,
                           env={"adapter": "plugin_via_kit", "library": lib_path,
                                "variant": vname}, describe=vname)
