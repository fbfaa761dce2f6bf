"""Follow-up to decode_bound.py (issue 15): rms_norm with every warp pushing its sum straight into
every block of the cluster (no block-level stage, decode_bound.cu's warp_push_body) against the
two-stage push and the no-arithmetic floor, PDL triggered early. Run beside decode_bound.py and
decode_bound.cu on the GPU machine. Results: h200-decode-exchange.txt, section of 2026-12-01, 6.
"""
import cupy as cp
from graph_launch import RmsDecode, allow_large_clusters, function, graph_time, here, launch
def row(name, us):
    print(f"{name:60s} {us:7.3f} us", flush=True)
mod = cp.RawModule(code=open(here("decode_bound.cu")).read(), options=("-std=c++17",))
rms = RmsDecode()
ROWS = rms.ROWS
exp_ = rms.expected()
for rep in range(2):
  for cl, bl, ch in [(8, 256, 4), (16, 128, 4), (16, 256, 2), (16, 512, 1), (8, 512, 2)]:
    for name in [f"rmsc_pre{ch}_pdl_early", f"rmsw{ch}_pdl_early", f"ldsync{ch}_pdl_early"] + ([f"rmsw{ch}"] if ch == 4 else []):
        f = function(mod, name)
        if cl > 8: allow_large_clusters(f)
        args = rms.args()
        rms.o.fill(0)
        us = graph_time(lambda: launch(f, ROWS * cl, bl, 0, args, cluster=cl, pdl="pdl" in name))
        err = rms.error(exp_)
        row(f"{name} <<<{ROWS*cl},{bl}, cluster {cl}>>>" + ("" if name.startswith("ldsync") or err < 1e-4 else f" WRONG {err}"), us)
