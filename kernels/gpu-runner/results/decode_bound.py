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
import ctypes, os, json
import cupy as cp
from graph_launch import RmsDecode, allow_large_clusters, function, graph_time, here, launch, pointer as P, stream
results = []
def row(name, us):
    results.append((name, us)); print(f"{name:72s} {us:7.3f} us", flush=True)
SRC = open(here("decode_bound.cu")).read()
mod = cp.RawModule(code=SRC, options=("-std=c++17",), name_expressions=None)
fn = lambda name: function(mod, name)
rms = RmsDecode()
ROWS, COLS, n = rms.ROWS, rms.COLS, rms.n
x, w, o, eps = rms.x, rms.w, rms.o, rms.eps
a = cp.random.rand(n, dtype=cp.float32); b = cp.empty_like(a)
count = cp.zeros(64, dtype=cp.uint32); slots = cp.zeros(64 * 64, dtype=cp.uint64)
row("memcpy node 512 KiB", graph_time(lambda: b.data.copy_from_device_async(a.data, 4 * n, stream)))
for g, bl in [(64, 256), (128, 256), (256, 256)]:
    for pdl in ["", "_pdl", "_pdl_early"]:
        row(f"SM copy <<<{g},{bl}>>>{pdl}", graph_time(lambda: launch(fn("copy4" + pdl), g, bl, 0, [P(a), P(b), ctypes.c_uint64(n // 4)], pdl=bool(pdl))))
exp_ = rms.expected()
def check(name):
    err = rms.error(exp_)
    if err > 1e-4: print("WRONG", name, err)
# cluster: load, cluster.sync, store (no math); then rms push with weight preloaded
for cl, bl, ch in [(8, 256, 4), (8, 512, 2), (16, 256, 2), (16, 512, 1), (16, 128, 4)]:
    for kind in ["ldsync", "rmsc", "rmsc_pre"]:
        for pdl in ["", "_pdl", "_pdl_early"]:
            name = f"{kind}{ch}{pdl}"
            f = fn(name)
            if cl > 8: allow_large_clusters(f)
            args = rms.args()
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
