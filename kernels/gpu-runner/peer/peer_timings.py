"""PyTorch as the peer of each kernel: its time on the runner's shapes, and its output on the
runner's special-value inputs.

Timing (no arguments): reads a JSON list of {"kernel", "dims"} on stdin; writes a JSON list of
{"kernel", "dims", "call", "median_ms"} on stdout. Each call is timed with CUDA events around
single calls, after warm-up; the median of the repeats is reported. Inputs are random (never
zeros) and as large as the runner's own, so both sides measure device memory, not the cache.

Outputs (`--outputs FOLDER`): reads FOLDER/requests.json, a list of {"kernel", "dims", "grid",
"block", "scalar", "floats", "halves", "output"} whose inputs are raw little-endian files in
FOLDER (float32, and binary16 bits for "halves"); computes on the GPU what a PyTorch user would
call on those inputs and writes it as raw float32 to FOLDER/<output>.
"""

import json
import os
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
    if kernel == "gemm_bf16_wgmma":
        # The same product: A (m x k) times the transpose of a K-major B (n x k), bf16 in, f32 out.
        m, n, k = dims
        a, b = rand(m, k, dtype=torch.bfloat16), rand(n, k, dtype=torch.bfloat16)
        return "torch.matmul (bf16, A·Bᵀ, cuBLAS)", lambda: torch.matmul(a, b.t())
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


def load(folder, name, dtype):
    with open(os.path.join(folder, name), "rb") as f:
        data = bytearray(f.read())
    if not data:
        return torch.empty(0, dtype=dtype, device="cuda")
    return torch.frombuffer(data, dtype=dtype).to("cuda")


def partial_sums(values, units, grid):
    """Sums of the runner's partition: unit u (of `units` consecutive values) goes to u mod grid."""
    total = units * grid
    padded = torch.zeros(-(-values.numel() // total) * total, device="cuda", dtype=values.dtype)
    padded[: values.numel()] = values
    return padded.view(-1, grid, units).sum(dim=(0, 2))


def output(request, folder):
    """PyTorch's result on one special-value case, as a flat float32 tensor."""
    kernel, dims, scalar = request["kernel"], request["dims"], request["scalar"]
    f = [load(folder, name, torch.float32) for name in request["floats"]]
    if kernel == "vector_add":
        return f[0] + f[1]
    if kernel == "saxpy":
        return torch.add(f[1], f[0], alpha=scalar)
    if kernel == "silu_mul":
        return F.silu(f[0]) * f[1]
    if kernel == "rms_norm":
        rows, cols = dims
        x = f[0].view(rows, cols)
        fused = F.rms_norm(x, (cols,), f[1], scalar)
        # F.rms_norm's documented definition, computed by PyTorch too. Its fused kernel follows
        # it on every input except one: rows whose f32 sum of squares overflows, which its
        # non-vectorised path (rows not a multiple of 4 long) turns NaN throughout while the
        # definition (and the vectorised path) gives 0, NaN only at infinities. Where the two
        # PyTorch results disagree on NaN-ness, the definition is the reference; stderr says
        # how often.
        defined = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + scalar) * f[1]
        disagree = (fused.isnan() != defined.isnan()).any(dim=-1)
        if disagree.any():
            print(
                f"peer: F.rms_norm on {rows}x{cols} disagrees with its definition in NaN-ness on "
                f"{int(disagree.sum())} rows; those rows are compared with the definition",
                file=sys.stderr,
            )
        return torch.where(disagree.unsqueeze(-1), defined, fused)
    if kernel == "softmax_rows":
        return torch.softmax(f[0].view(*dims), dim=-1)
    if kernel == "gemv_f16":
        rows, cols = dims
        weights = load(folder, request["halves"], torch.float16).view(rows, cols)
        return torch.mv(weights.float(), f[0])
    if kernel == "gemm_tiled":
        m, n, k = dims
        return torch.matmul(f[0].view(m, k), f[1].view(k, n))
    if kernel == "block_reduce_sum":
        return partial_sums(f[0], request["block"], request["grid"])
    if kernel == "pipeline_sum":
        return partial_sums(f[0], 1024, request["grid"])
    raise SystemExit(f"peer_timings.py: no PyTorch output for kernel {kernel!r}")


def outputs(folder):
    with open(os.path.join(folder, "requests.json")) as f:
        requests = json.load(f)
    for request in requests:
        result = output(request, folder).reshape(-1).to(torch.float32).cpu().numpy().tobytes()
        with open(os.path.join(folder, request["output"]), "wb") as f:
            f.write(result)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--outputs":
        torch.backends.cuda.matmul.allow_tf32 = False
        outputs(sys.argv[2])
        return
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
