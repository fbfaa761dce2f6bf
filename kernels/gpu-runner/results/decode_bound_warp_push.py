"""Follow-up to decode_bound.py (issue 15): rms_norm with every warp pushing its sum straight into
every block of the cluster (no block-level stage, decode_bound.cu's warp_push_body) against the
two-stage push and the no-arithmetic floor, PDL triggered early. Run beside decode_bound.py and
decode_bound.cu on the GPU machine. Results: h200-decode-exchange.txt, section of 2026-12-01, 6.
"""
import os, sys, ctypes
here = os.path.dirname(os.path.abspath(__file__))
src = open(os.path.join(here, "decode_bound.py")).read().split("results = []")[0]
exec(src)
results = []
def row(name, us):
    print(f"{name:60s} {us:7.3f} us", flush=True)
mod = cp.RawModule(code=open(os.path.join(here, "decode_bound.cu")).read(), options=("-std=c++17",))
def fn(name):
    f = mod.get_function(name); return f.kernel.ptr if hasattr(f, "kernel") else f.ptr
ROWS, COLS = 4, 32768
n = ROWS * COLS
x = cp.random.randn(n, dtype=cp.float32); w = cp.random.rand(COLS, dtype=cp.float32); o = cp.empty_like(x)
P = lambda arr: ctypes.c_uint64(arr.data.ptr)
eps = ctypes.c_float(1e-5)
xs = x.reshape(ROWS, COLS)
exp_ = xs / cp.sqrt((xs * xs).mean(axis=1, keepdims=True) + 1e-5) * w
for rep in range(2):
  for cl, bl, ch in [(8, 256, 4), (16, 128, 4), (16, 256, 2), (16, 512, 1), (8, 512, 2)]:
    for name in [f"rmsc_pre{ch}_pdl_early", f"rmsw{ch}_pdl_early", f"ldsync{ch}_pdl_early"] + ([f"rmsw{ch}"] if ch == 4 else []):
        f = fn(name)
        if cl > 8: cuda.cuFuncSetAttribute(ctypes.c_void_p(f), 14, 1)
        args = [P(x), P(w), P(o), ctypes.c_uint64(COLS), eps]
        o.fill(0)
        us = graph_time(lambda: launch(f, ROWS * cl, bl, 0, args, cluster=cl, pdl="pdl" in name))
        err = float(cp.abs(o.reshape(ROWS, COLS) - exp_).max())
        row(f"{name} <<<{ROWS*cl},{bl}, cluster {cl}>>>" + ("" if name.startswith("ldsync") or err < 1e-4 else f" WRONG {err}"), us)
