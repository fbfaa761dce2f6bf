"""Lower bounds for a single-launch row kernel that must reduce before it stores (issue 15).

Run on the GPU machine (CuPy and the driver's cuLaunchKernelEx; no Rust): `python3
decode_bound.py`. Times, as the gpu-runner does (a CUDA graph of K back-to-back launches between
two events, median per launch), at rms_norm's 4 x 32,768: the memcpy node of the same bytes, an
SM copy kernel, a kernel that loads, waits at one cluster barrier and stores (no arithmetic: the
floor of any kernel whose stores wait for a cluster-wide reduction), CUDA C rms_norm with the
push exchange with and without the weight loaded before the reduction, and the same with a
grid-wide exchange through global memory (ticket + release/acquire slots, no clusters), each
with programmatic dependent launch off, triggered at the end, or triggered at the start. The
CUDA C is decode_bound.cu. Results: h200-decode-exchange.txt, section of 2026-12-01.
"""
import ctypes, sys, os, json
import numpy as np, cupy as cp
K, REPS = 100, 30
cuda = ctypes.CDLL("libcuda.so.1")
class LaunchAttr(ctypes.Structure):
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", ctypes.c_ubyte * 64)]
class LaunchConfig(ctypes.Structure):
    _fields_ = [("gx", ctypes.c_uint), ("gy", ctypes.c_uint), ("gz", ctypes.c_uint),
                ("bx", ctypes.c_uint), ("by", ctypes.c_uint), ("bz", ctypes.c_uint),
                ("shared", ctypes.c_uint), ("stream", ctypes.c_void_p),
                ("attrs", ctypes.POINTER(LaunchAttr)), ("nattrs", ctypes.c_uint)]
stream = cp.cuda.Stream(non_blocking=True)
def launch(fn, grid, block, shared, args, cluster=1, pdl=False, coop=False):
    attrs = (LaunchAttr * 3)(); n = 0
    if cluster > 1:
        attrs[n].id = 4; ctypes.memmove(attrs[n].value, (ctypes.c_uint * 3)(cluster, 1, 1), 12); n += 1
    if pdl:
        attrs[n].id = 6; ctypes.memmove(attrs[n].value, (ctypes.c_int * 1)(1), 4); n += 1
    if coop:
        attrs[n].id = 2; ctypes.memmove(attrs[n].value, (ctypes.c_int * 1)(1), 4); n += 1
    cfg = LaunchConfig(grid, 1, 1, block, 1, 1, shared, stream.ptr, attrs, n)
    params = (ctypes.c_void_p * len(args))(*[ctypes.cast(ctypes.pointer(h), ctypes.c_void_p) for h in args])
    rc = cuda.cuLaunchKernelEx(ctypes.byref(cfg), ctypes.c_void_p(fn), params, None)
    if rc != 0: raise RuntimeError(f"cuLaunchKernelEx rc={rc}")
def graph_time(work):
    with stream:
        stream.begin_capture()
        try:
            for _ in range(K): work()
        finally:
            g = stream.end_capture()
        g.upload(stream)
        for _ in range(5): g.launch(stream)
        ts = []
        for _ in range(REPS):
            s, e = cp.cuda.Event(), cp.cuda.Event()
            s.record(stream); g.launch(stream); e.record(stream); e.synchronize()
            ts.append(cp.cuda.get_elapsed_time(s, e) * 1e3 / K)
    ts.sort(); return ts[len(ts) // 2]
results = []
def row(name, us):
    results.append((name, us)); print(f"{name:72s} {us:7.3f} us", flush=True)
SRC = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "decode_bound.cu")).read()
mod = cp.RawModule(code=SRC, options=("-std=c++17",), name_expressions=None)
def fn(name):
    f = mod.get_function(name); return f.kernel.ptr if hasattr(f, "kernel") else f.ptr
ROWS, COLS = 4, 32768
n = ROWS * COLS
x = cp.random.randn(n, dtype=cp.float32); w = cp.random.rand(COLS, dtype=cp.float32); o = cp.empty_like(x)
a = cp.random.rand(n, dtype=cp.float32); b = cp.empty_like(a)
count = cp.zeros(64, dtype=cp.uint32); slots = cp.zeros(64 * 64, dtype=cp.uint64)
P = lambda arr: ctypes.c_uint64(arr.data.ptr)
eps = ctypes.c_float(1e-5)
row("memcpy node 512 KiB", graph_time(lambda: b.data.copy_from_device_async(a.data, 4 * n, stream)))
for g, bl in [(64, 256), (128, 256), (256, 256)]:
    for pdl in ["", "_pdl", "_pdl_early"]:
        row(f"SM copy <<<{g},{bl}>>>{pdl}", graph_time(lambda: launch(fn("copy4" + pdl), g, bl, 0, [P(a), P(b), ctypes.c_uint64(n // 4)], pdl=bool(pdl))))
xs = x.reshape(ROWS, COLS)
exp_ = xs / cp.sqrt((xs * xs).mean(axis=1, keepdims=True) + 1e-5) * w
def check(name):
    err = float(cp.abs(o.reshape(ROWS, COLS) - exp_).max()); 
    if err > 1e-4: print("WRONG", name, err)
# cluster: load, cluster.sync, store (no math); then rms push with weight preloaded
for cl, bl, ch in [(8, 256, 4), (8, 512, 2), (16, 256, 2), (16, 512, 1), (16, 128, 4)]:
    for kind in ["ldsync", "rmsc", "rmsc_pre"]:
        for pdl in ["", "_pdl", "_pdl_early"]:
            name = f"{kind}{ch}{pdl}"
            f = fn(name)
            if cl > 8: cuda.cuFuncSetAttribute(ctypes.c_void_p(f), 14, 1)
            args = [P(x), P(w), P(o), ctypes.c_uint64(COLS), eps]
            o.fill(0)
            us = graph_time(lambda: launch(f, ROWS * cl, bl, 0, args, cluster=cl, pdl=bool(pdl)))
            if kind != "ldsync": check(name)
            row(f"{name} <<<{ROWS*cl},{bl}, cluster {cl}>>>", us)
# grid-wide exchange through global memory (ticket + release/acquire slots)
for B, bl, ch in [(8, 256, 4), (16, 256, 2), (32, 256, 1), (32, 128, 2), (16, 512, 1), (32, 64, 4)]:
    for kind in ["rmsg", "rmsg_pre"]:
        for pdl in ["", "_pdl", "_pdl_early"]:
            for coop in [False, True]:
                if coop and pdl: continue
                name = f"{kind}{ch}{pdl}"
                f = fn(name)
                args = [P(x), P(w), P(o), ctypes.c_uint64(COLS), eps, ctypes.c_uint32(B), P(count), P(slots)]
                o.fill(0); count.fill(0); slots.fill(0)
                try:
                    us = graph_time(lambda: launch(f, ROWS * B, bl, 0, args, pdl=bool(pdl), coop=coop))
                except Exception as ex:
                    print("fail", name, B, bl, coop, ex); continue
                check(name)
                row(f"{name} <<<{ROWS*B},{bl}>>> {B} blocks/row" + (" coop" if coop else ""), us)
json.dump(results, open(os.path.join(os.environ.get("OUT", "."), "bound.json"), "w"), indent=1)
