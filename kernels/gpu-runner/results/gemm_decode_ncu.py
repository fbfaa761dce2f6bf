"""Nsight Compute on gemm_bf16_decode_bf16 at m x 14336 x 4096, launched directly (the runner times
its cases as CUDA graphs, which ncu does not profile by default). Usage, on the GPU machine with the
module from `cargo xtask gpu --bundle DIR`:

    ncu -k gemm_bf16_decode_bf16 --launch-skip 2 --launch-count 1 --section SpeedOfLight \
        --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats \
        python3 gemm_decode_ncu.py kernels.ptx M

The last launch is checked against a float product (maximum relative error printed).
"""
import sys, cupy as cp, torch
mod = cp.RawModule(path=sys.argv[1])
f = mod.get_function('gemm_bf16_decode_bf16')
m, n, k = int(sys.argv[2]), 14336, 4096
A = torch.randn(m, k, device='cuda').bfloat16(); B = torch.randn(n, k, device='cuda').bfloat16()
C = torch.empty(m * n, dtype=torch.bfloat16, device='cuda')
shared = 16384
f.max_dynamic_shared_size_bytes = shared
args = (cp.uint64(A.data_ptr()), cp.uint64(B.data_ptr()), cp.uint64(C.data_ptr()), cp.uint32(m), cp.uint32(n), cp.uint32(k), cp.uint32(k))
grid = ((n + 15) // 16, (m + 15) // 16)
for _ in range(4):
    f(grid, (512,), args, shared_mem=shared)
torch.cuda.synchronize()
ref = (A.float() @ B.float().T).view(-1)
err = ((C.float() - ref).abs() / (ref.abs() + 1)).max().item()
print('grid', grid, 'max rel err', err)
