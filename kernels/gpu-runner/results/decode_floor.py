"""Where a decode-shape row kernel's time goes (issue 15): run on the GPU machine, not in CI.

Times, as the gpu-runner does (a CUDA graph of K back-to-back launches between two events, median
per launch): a graph's memcpy node of the bytes of rms_norm 4 x 32,768, an empty kernel, an SM copy
kernel of the same bytes, the module's rms_norm/softmax_rows in clusters (launched through the
driver's cuLaunchKernelEx with a cluster-dimension attribute), and CUDA C prototypes of rms_norm
(pull exchange with two cluster barriers, push exchange with one, optionally programmatic
dependent launch). Usage: `python3 decode_floor.py kernels.ptx`; `ONCE=1` launches each once
(for Nsight Compute). Results: h200-decode-exchange.txt.
"""
import ctypes, sys, os, json
import cupy as cp
from graph_launch import RmsDecode, allow_large_clusters, function, graph_time, launch, pointer as P, stream

results = []
def row(name, us, note=""):
    results.append((name, us))
    print(f"{name:60s} {us:7.3f} us {note}", flush=True)

SRC = r'''
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void empty_kernel() {}
extern "C" __global__ void __cluster_dims__(8,1,1) empty_cluster_sync() { cg::this_cluster().sync(); }
extern "C" __global__ void empty_pdl() { asm volatile("griddepcontrol.wait;" ::: "memory"); asm volatile("griddepcontrol.launch_dependents;"); }
extern "C" __global__ void copy4(const float4* __restrict__ a, float4* __restrict__ b, unsigned long long n4) {
  for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) b[i] = a[i];
}
extern "C" __global__ void copy4_pdl(const float4* __restrict__ a, float4* __restrict__ b, unsigned long long n4) {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) b[i] = a[i];
  asm volatile("griddepcontrol.launch_dependents;");
}
// rms_norm prototype: a cluster per row, CH float4 per thread. PUSH: each block writes its partial
// into every block's slot array (one cluster barrier); otherwise pull through mapa (two barriers).
template <int CH, bool PDL, bool PUSH>
__device__ void rms_body(const float* x, const float* w, float* out, unsigned long long rows, unsigned long long cols, float eps) {
  __shared__ float scratch[32];
  __shared__ float slots[16];
  cg::cluster_group cluster = cg::this_cluster();
  unsigned nb = cluster.num_blocks(), rank = cluster.block_rank();
  unsigned long long seg = cols / nb;
  unsigned long long row = blockIdx.x / nb;
  const float4* xr = (const float4*)(x + row * cols + rank * seg);
  const float4* wr = (const float4*)(w + rank * seg);
  float4* orow = (float4*)(out + row * cols + rank * seg);
  if (PDL) asm volatile("griddepcontrol.wait;" ::: "memory");
  float4 v[CH];
  float s = 0;
  #pragma unroll
  for (int k = 0; k < CH; k++) { v[k] = xr[threadIdx.x + k * blockDim.x]; s += v[k].x*v[k].x + v[k].y*v[k].y + v[k].z*v[k].z + v[k].w*v[k].w; }
  for (int m = 16; m; m >>= 1) s += __shfl_xor_sync(~0u, s, m);
  if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = s;
  __syncthreads();
  unsigned lane = threadIdx.x & 31;
  if (threadIdx.x < 32) {
    float p = lane < blockDim.x / 32 ? scratch[lane] : 0.f;
    for (int m = 16; m; m >>= 1) p += __shfl_xor_sync(~0u, p, m);
    if (PUSH) { if (lane < nb) *cluster.map_shared_rank(&slots[rank], lane) = p; }
    else if (lane == 0) slots[0] = p;
  }
  cluster.sync();
  float t = 0;
  { float p = lane < nb ? (PUSH ? slots[lane] : *cluster.map_shared_rank(&slots[0], lane)) : 0.f;
    for (int m = 16; m; m >>= 1) p += __shfl_xor_sync(~0u, p, m); t = p; }
  float inv = rsqrtf(t / cols + eps);
  #pragma unroll
  for (int k = 0; k < CH; k++) { float4 f = wr[threadIdx.x + k * blockDim.x]; float4 o = v[k];
    o.x *= inv * f.x; o.y *= inv * f.y; o.z *= inv * f.z; o.w *= inv * f.w; orow[threadIdx.x + k * blockDim.x] = o; }
  if (PDL) asm volatile("griddepcontrol.launch_dependents;");
  if (!PUSH) cluster.sync();
}
#define RMS(CH, PDL, PUSH, NAME) extern "C" __global__ void NAME(const float* x, const float* w, float* o, unsigned long long r, unsigned long long c, float e) { rms_body<CH, PDL, PUSH>(x, w, o, r, c, e); }
RMS(1, false, false, rms_ch1) RMS(2, false, false, rms_ch2) RMS(4, false, false, rms_ch4) RMS(8, false, false, rms_ch8) RMS(16, false, false, rms_ch16)
RMS(1, true, false, rms_ch1_pdl) RMS(2, true, false, rms_ch2_pdl) RMS(4, true, false, rms_ch4_pdl) RMS(8, true, false, rms_ch8_pdl)
RMS(1, false, true, rms_ch1_push) RMS(2, false, true, rms_ch2_push) RMS(4, false, true, rms_ch4_push) RMS(8, false, true, rms_ch8_push)
RMS(1, true, true, rms_ch1_push_pdl) RMS(2, true, true, rms_ch2_push_pdl) RMS(4, true, true, rms_ch4_push_pdl) RMS(8, true, true, rms_ch8_push_pdl)
'''
mod = cp.RawModule(code=SRC, options=("-std=c++17",))
def fn(name, m=mod):
    return function(m, name)

rms = RmsDecode(normal=False)
ROWS, COLS, n = rms.ROWS, rms.COLS, rms.n
x, w, o = rms.x, rms.w, rms.o
a = cp.random.rand(n, dtype=cp.float32); b = cp.empty_like(a)

# The roofline of the runner: a graph of memcpy nodes of the same bytes (512 KiB each way).
row("memcpy node 512 KiB (runner's decode copy)", graph_time(lambda: b.data.copy_from_device_async(a.data, 4 * n, stream)))
for g, bl in [(1, 32), (32, 256), (132, 256)]:
    row(f"empty kernel <<<{g},{bl}>>>", graph_time(lambda: launch(fn("empty_kernel"), g, bl, 0, [])))
    row(f"empty kernel <<<{g},{bl}>>> PDL attr+griddep", graph_time(lambda: launch(fn("empty_pdl"), g, bl, 0, [], pdl=True)))
row("empty kernel <<<32,256>>> cluster 8 (attr)", graph_time(lambda: launch(fn("empty_kernel"), 32, 256, 0, [], cluster=8)))
row("empty kernel <<<32,256>>> cluster 8 + cluster.sync", graph_time(lambda: launch(fn("empty_cluster_sync"), 32, 256, 0, [])))
for g, bl in [(32, 256), (64, 256), (128, 256), (132, 512), (256, 256), (128, 128)]:
    row(f"SM copy float4 <<<{g},{bl}>>> 512 KiB", graph_time(lambda: launch(fn("copy4"), g, bl, 0, [P(a), P(b), ctypes.c_uint64(n // 4)])))
    row(f"SM copy float4 <<<{g},{bl}>>> 512 KiB PDL", graph_time(lambda: launch(fn("copy4_pdl"), g, bl, 0, [P(a), P(b), ctypes.c_uint64(n // 4)], pdl=True)))

# Our kernels, from the module the runner loads.
ours = cp.RawModule(path=sys.argv[1])
eps = ctypes.c_float(1e-5)
for name in ["rms_norm", "softmax_rows"]:
    f = fn(name, ours)
    args = (lambda: [P(x), P(w), P(o), ctypes.c_uint64(ROWS), ctypes.c_uint64(COLS), eps]) if name == "rms_norm" else (lambda: [P(x), P(o), ctypes.c_uint64(ROWS), ctypes.c_uint64(COLS)])
    for bl, cl in [(256, 8), (512, 8), (128, 8), (256, 4), (1024, 4)]:
        row(f"ours {name} <<<{ROWS*cl},{bl},144, cluster {cl}>>>", graph_time(lambda: launch(f, ROWS * cl, bl, 144, args(), cluster=cl)))
    row(f"ours {name} <<<{ROWS*8},256,144, cluster 8>>> PDL attr only", graph_time(lambda: launch(f, ROWS * 8, 256, 144, args(), cluster=8, pdl=True)))
    row(f"ours {name} <<<{ROWS},1024,128>>> block per row", graph_time(lambda: launch(f, ROWS, 1024, 128, args())))
    try:
        allow_large_clusters(f)
        row(f"ours {name} <<<{ROWS*16},256,144, cluster 16>>>", graph_time(lambda: launch(f, ROWS * 16, 256, 144, args(), cluster=16)))
        row(f"ours {name} <<<{ROWS*16},128,144, cluster 16>>>", graph_time(lambda: launch(f, ROWS * 16, 128, 144, args(), cluster=16)))
    except Exception as ex:
        print("cluster 16:", ex)

# Prototype rms_norm: CH float4 per thread; cluster cl, block bl with cl*bl*CH*4 == COLS.
ref = None
for cl, bl, ch in [(8, 256, 4), (8, 512, 2), (8, 1024, 1), (16, 256, 2), (16, 512, 1), (16, 128, 4), (4, 1024, 2), (8, 128, 8), (4, 512, 4)]:
    for pdl, push in [(False, False), (True, False), (False, True), (True, True)]:
        if ch > 8 and (pdl or push): continue
        name = f"rms_ch{ch}" + ("_push" if push else "") + ("_pdl" if pdl else "")
        f = fn(name)
        if cl > 8:
            allow_large_clusters(f)
        argl = lambda: [P(x), P(w), P(o), ctypes.c_uint64(ROWS), ctypes.c_uint64(COLS), eps]
        try:
            us = graph_time(lambda: launch(f, ROWS * cl, bl, 0, argl(), cluster=cl, pdl=pdl))
            row(f"proto rms <<<{ROWS*cl},{bl}, cluster {cl}>>> {ch} float4/thread" + (" push(1 barrier)" if push else " pull(2 barriers)") + (" PDL" if pdl else ""), us)
        except Exception as ex:
            print("proto", cl, bl, ch, pdl, ex)
exp_ = rms.expected()
launch(fn("rms_ch4"), ROWS * 8, 256, 0, [P(x), P(w), P(o), ctypes.c_uint64(ROWS), ctypes.c_uint64(COLS), eps], cluster=8); stream.synchronize()
print("proto check max abs err", rms.error(exp_))
o.fill(0); launch(fn("rms_ch2_push"), ROWS * 16, 256, 0, [P(x), P(w), P(o), ctypes.c_uint64(ROWS), ctypes.c_uint64(COLS), eps], cluster=16); stream.synchronize()
print("proto push c16 check max abs err", rms.error(exp_))
json.dump(results, open(os.path.join(os.environ.get("OUT", "."), "probe.json"), "w"), indent=1)
