"""Times PyTorch's own kernels on the shapes the GPU runner asks for (the peer of each kernel).

Reads a JSON list of {"kernel", "dims"} on stdin; writes a JSON list of
{"kernel", "dims", "call", "median_ms"} on stdout. Each call is timed with CUDA events around
single calls, after warm-up; the median of the repeats is reported. Inputs are random (never
zeros) and as large as the runner's own, so both sides measure device memory, not the cache.
"""

import json
import sys

import torch
import torch.nn.functional as F

WARMUP = 5
REPEATS = 30


def rand(*shape, dtype=torch.float32, low=-1.0, high=1.0):
    return torch.empty(*shape, device="cuda", dtype=torch.float32).uniform_(low, high).to(dtype)


def peer(kernel, dims):
    """The call a user would write instead of our kernel, with its inputs bound."""
    if kernel == "vector_add":
        a, b, out = rand(dims[0]), rand(dims[0]), rand(dims[0])
        return "torch.add(out=)", lambda: torch.add(a, b, out=out)
    if kernel == "saxpy":
        x, y = rand(dims[0]), rand(dims[0])
        return "Tensor.add_(alpha=)", lambda: y.add_(x, alpha=1.25)
    if kernel == "silu_mul":
        gate, up, out = rand(dims[0], low=-8, high=8), rand(dims[0]), rand(dims[0])
        return "torch.mul(F.silu(gate), up, out=)", lambda: torch.mul(F.silu(gate), up, out=out)
    if kernel in ("block_reduce_sum", "pipeline_sum"):
        x = rand(dims[0], low=0.0)
        return "torch.sum", lambda: torch.sum(x)
    if kernel == "rms_norm":
        rows, cols = dims
        x, weight = rand(rows, cols), rand(cols, low=0.5, high=1.5)
        return "F.rms_norm", lambda: F.rms_norm(x, (cols,), weight, 1e-5)
    if kernel == "softmax_rows":
        x = rand(*dims, low=-8, high=8)
        return "torch.softmax", lambda: torch.softmax(x, dim=-1)
    if kernel == "gemv_f16":
        rows, cols = dims
        w, x = rand(rows, cols, dtype=torch.float16), rand(cols, dtype=torch.float16)
        return "torch.mv (f16 weights and x)", lambda: torch.mv(w, x)
    if kernel == "gemm_tiled":
        m, n, k = dims
        a, b = rand(m, k), rand(k, n)
        return "torch.matmul (f32, cuBLAS)", lambda: torch.matmul(a, b)
    raise SystemExit(f"peer_timings.py: no peer for kernel {kernel!r}")


def median_ms(call):
    for _ in range(WARMUP):
        call()
    pairs = []
    for _ in range(REPEATS):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        call()
        end.record()
        pairs.append((start, end))
    torch.cuda.synchronize()
    times = sorted(s.elapsed_time(e) for s, e in pairs)
    return times[len(times) // 2]


def main():
    # Plain FP32 products, as our GEMM computes (PyTorch's default; said here so it is certain).
    torch.backends.cuda.matmul.allow_tf32 = False
    results = []
    for request in json.load(sys.stdin):
        kernel, dims = request["kernel"], request["dims"]
        call, fn = peer(kernel, dims)
        results.append({"kernel": kernel, "dims": dims, "call": call, "median_ms": median_ms(fn)})
        del fn
        torch.cuda.empty_cache()
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
