"""PyTorch as the peer of each kernel: its time on the runner's shapes, and its output on the
runner's special-value inputs.

Timing (no arguments): reads a JSON list of {"kernel", "dims", "launches"} on stdin; writes a
JSON list of {"kernel", "dims", "call", "median_ms", "launches", "timed"} on stdout. As the
runner times our kernels, `launches` calls are captured into one CUDA graph, and each of the
repeats times one replay between two CUDA events; the median per call is reported. (Events
around single calls would time the host's submission, ~6 us, at small shapes.) Where a call
cannot be captured, `launches` calls are enqueued between the events instead, and "timed" says
so. Inputs are random (never zeros) and as large as the runner's own: large shapes measure
device memory, decode shapes (inside the L2) the same L2-resident traffic as ours.

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
    # The wide wgmma entries compute what their narrow namesakes do, with another tile, and the
    # decode entry what the bf16 one does, on few rows.
    kernel = kernel.replace("gemm_bf16_wgmma_wide", "gemm_bf16_wgmma")
    kernel = kernel.replace("gemm_bf16_decode_bf16", "gemm_bf16_wgmma_bf16")
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
    if kernel == "gemv_f16_batched":
        batch, rows, cols = dims
        w, x = rand(rows, cols, dtype=torch.float16), rand(batch, cols, dtype=torch.float16)
        return "torch.matmul(x, w.T) (f16 weights and x)", lambda: torch.matmul(x, w.T)
    if kernel == "gemm_tiled":
        m, n, k = dims
        a, b = rand(m, k), rand(k, n)
        return "torch.matmul (f32, cuBLAS)", lambda: torch.matmul(a, b)
    if kernel == "gemm_bf16_wgmma":
        # The same product: A (m x k) times the transpose of a K-major B (n x k), bf16 in, f32 out.
        m, n, k = dims
        a, b = rand(m, k, dtype=torch.bfloat16), rand(n, k, dtype=torch.bfloat16)
        return "torch.matmul (bf16, A·Bᵀ, cuBLAS)", lambda: torch.matmul(a, b.t())
    if kernel in ("gemm_bf16_wgmma_bias", "gemm_bf16_wgmma_bf16", "gemm_bf16_wgmma_bias_bf16"):
        # What a user writes for the epilogues: a linear layer with its bias (bf16, as the
        # layer's weights; cuBLAS fuses it), or the bare product; PyTorch's result is bf16 in
        # every case (ours is f32 or bf16 as the entry says).
        m, n, k = dims
        a, b = rand(m, k, dtype=torch.bfloat16), rand(n, k, dtype=torch.bfloat16)
        if "bias" in kernel:
            bias = rand(n, dtype=torch.bfloat16)
            return "F.linear(a, b, bias) (bf16, cuBLAS)", lambda: F.linear(a, b, bias)
        return "torch.matmul (bf16, A·Bᵀ, cuBLAS)", lambda: torch.matmul(a, b.t())
    raise SystemExit(f"peer_timings.py: no peer for kernel {kernel!r}")


def graph_of(call, launches):
    """`launches` calls captured into one CUDA graph (warmed up on a side stream first, as
    capture requires), or None where the call cannot be captured."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(WARMUP):
            call()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(graph):
            for _ in range(launches):
                call()
    except RuntimeError as error:
        print(f"peer: cannot capture a graph ({error}); timing enqueued calls", file=sys.stderr)
        return None
    return graph


def median_ms(call, launches):
    """Median time per call, and how it was timed."""
    graph = graph_of(call, launches)
    if graph is not None:
        replay, timed = graph.replay, f"CUDA graph of {launches} calls, {REPEATS} replays"
    else:

        def replay():
            for _ in range(launches):
                call()

        timed = f"{launches} enqueued calls between events, {REPEATS} times (no graph)"
    for _ in range(WARMUP):
        replay()
    pairs = []
    for _ in range(REPEATS):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        replay()
        end.record()
        pairs.append((start, end))
    torch.cuda.synchronize()
    times = sorted(s.elapsed_time(e) / launches for s, e in pairs)
    return times[len(times) // 2], timed


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
    if kernel == "gemv_f16_batched":
        batch, rows, cols = dims
        weights = load(folder, request["halves"], torch.float16).view(rows, cols)
        return torch.matmul(f[0].view(batch, cols), weights.float().T)
    if kernel == "gemm_tiled":
        m, n, k = dims
        return torch.matmul(f[0].view(m, k), f[1].view(k, n))
    if kernel.startswith("gemm_bf16_wgmma") or kernel == "gemm_bf16_decode_bf16":
        # The same bf16 values (the runner's inputs are bf16 values widened to f32) multiplied
        # in f32, as the entries accumulate; F.linear adds the f32 bias. A bf16 C is compared
        # with this unrounded result under a tolerance that holds the rounding, except where
        # PyTorch's rounding to bf16 overflows to an infinity: there, that infinity.
        m, n, k = dims
        a = f[0].view(m, k).to(torch.bfloat16).float()
        b = f[1].view(n, k).to(torch.bfloat16).float()
        c = F.linear(a, b, f[2]) if "bias" in kernel else torch.matmul(a, b.t())
        if kernel.endswith("_bf16"):
            rounded = c.to(torch.bfloat16).float()
            c = torch.where(rounded.isinf() & c.isfinite(), rounded, c)
        return c
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
        kernel, dims, launches = request["kernel"], request["dims"], request["launches"]
        call, fn = peer(kernel, dims)
        median, timed = median_ms(fn, launches)
        results.append(
            {"kernel": kernel, "dims": dims, "call": call, "median_ms": median, "launches": launches, "timed": timed}
        )
        del fn
        torch.cuda.empty_cache()
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
