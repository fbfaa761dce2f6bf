// CUDA C of decode_bound.py (issue 15): copy, load-barrier-store, and rms_norm prototypes with a
// cluster (push) or grid-wide (global memory) exchange, each with programmatic dependent launch
// off (PDL 0), triggered at the end (1) or right after the wait (2). Measurement only.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
#define WAIT asm volatile("griddepcontrol.wait;" ::: "memory")
#define TRIGGER asm volatile("griddepcontrol.launch_dependents;" ::: "memory")
// PDL: 0 none, 1 wait + trigger at end, 2 wait + trigger right after the wait
template <int PDL> __device__ __forceinline__ void pdl_start() { if (PDL) WAIT; if (PDL == 2) TRIGGER; }
template <int PDL> __device__ __forceinline__ void pdl_end() { if (PDL == 1) TRIGGER; }
template <int PDL> __device__ void copy_body(const float4* __restrict__ a, float4* __restrict__ b, unsigned long long n4) {
  pdl_start<PDL>();
  for (unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) b[i] = a[i];
  pdl_end<PDL>();
}
extern "C" __global__ void copy4(const float4* a, float4* b, unsigned long long n) { copy_body<0>(a, b, n); }
extern "C" __global__ void copy4_pdl(const float4* a, float4* b, unsigned long long n) { copy_body<1>(a, b, n); }
extern "C" __global__ void copy4_pdl_early(const float4* a, float4* b, unsigned long long n) { copy_body<2>(a, b, n); }

__device__ __forceinline__ float warp_sum(float s) { for (int m = 16; m; m >>= 1) s += __shfl_xor_sync(~0u, s, m); return s; }
__device__ __forceinline__ float block_sum_to_warp0(float s, float* scratch) {
  s = warp_sum(s);
  if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = s;
  __syncthreads();
  unsigned lane = threadIdx.x & 31;
  float p = 0.f;
  if (threadIdx.x < 32) { p = lane < blockDim.x / 32 ? scratch[lane] : 0.f; p = warp_sum(p); }
  return p;
}
// The float4 views of a block's part of row `row` (x, w, out) when `parts` blocks share each row
// of `cols` floats and this block is part `rank`.
struct Segment { const float4* x; const float4* w; float4* out; };
__device__ __forceinline__ Segment segment_of(const float* x, const float* w, float* out, unsigned long long cols,
                                              unsigned long long row, unsigned parts, unsigned rank) {
  unsigned long long seg = cols / parts;
  return { (const float4*)(x + row * cols + rank * seg), (const float4*)(w + rank * seg), (float4*)(out + row * cols + rank * seg) };
}
// MODE 0: load, cluster barrier, store (no math). 1: rms push exchange, weight after. 2: weight preloaded.
template <int CH, int PDL, int MODE>
__device__ void cluster_body(const float* x, const float* w, float* out, unsigned long long cols, float eps) {
  __shared__ float scratch[32];
  __shared__ float slots[16];
  __shared__ float total;
  cg::cluster_group cluster = cg::this_cluster();
  unsigned nb = cluster.num_blocks(), rank = cluster.block_rank();
  auto [xr, wr, orow] = segment_of(x, w, out, cols, blockIdx.x / nb, nb, rank);
  pdl_start<PDL>();
  float4 v[CH], wv[CH];
  float s = 0;
  #pragma unroll
  for (int k = 0; k < CH; k++) { v[k] = xr[threadIdx.x + k * blockDim.x]; if (MODE == 2) wv[k] = wr[threadIdx.x + k * blockDim.x]; }
  if (MODE == 0) {
    cluster.sync();
    #pragma unroll
    for (int k = 0; k < CH; k++) orow[threadIdx.x + k * blockDim.x] = v[k];
    pdl_end<PDL>();
    return;
  }
  #pragma unroll
  for (int k = 0; k < CH; k++) s += v[k].x*v[k].x + v[k].y*v[k].y + v[k].z*v[k].z + v[k].w*v[k].w;
  float p = block_sum_to_warp0(s, scratch);
  unsigned lane = threadIdx.x & 31;
  if (threadIdx.x < 32 && lane < nb) *cluster.map_shared_rank(&slots[rank], lane) = p;
  cluster.sync();
  float t = warp_sum(lane < nb ? slots[lane] : 0.f);
  float inv = rsqrtf(t / cols + eps);
  #pragma unroll
  for (int k = 0; k < CH; k++) { float4 f = MODE == 2 ? wv[k] : wr[threadIdx.x + k * blockDim.x]; float4 q = v[k];
    q.x *= inv * f.x; q.y *= inv * f.y; q.z *= inv * f.z; q.w *= inv * f.w; orow[threadIdx.x + k * blockDim.x] = q; }
  pdl_end<PDL>();
}
#define CK(CH, PDL, MODE, NAME) extern "C" __global__ void NAME(const float* x, const float* w, float* o, unsigned long long c, float e) { cluster_body<CH, PDL, MODE>(x, w, o, c, e); }
#define CKALL(CH) CK(CH,0,0,ldsync##CH) CK(CH,1,0,ldsync##CH##_pdl) CK(CH,2,0,ldsync##CH##_pdl_early) \
  CK(CH,0,1,rmsc##CH) CK(CH,1,1,rmsc##CH##_pdl) CK(CH,2,1,rmsc##CH##_pdl_early) \
  CK(CH,0,2,rmsc_pre##CH) CK(CH,1,2,rmsc_pre##CH##_pdl) CK(CH,2,2,rmsc_pre##CH##_pdl_early)
CKALL(1) CKALL(2) CKALL(4)

// Grid exchange: B blocks per row; each block takes a ticket (generation) at its start, publishes its
// partial as (generation, bits) with st.release.gpu, and warp 0 acquires the B slots of its row.
template <int CH, int PDL, bool PRE>
__device__ void grid_body(const float* x, const float* w, float* out, unsigned long long cols, float eps,
                          unsigned B, unsigned* count, unsigned long long* slots) {
  __shared__ float scratch[32];
  __shared__ float total;
  unsigned row = blockIdx.x / B, rank = blockIdx.x % B;
  auto [xr, wr, orow] = segment_of(x, w, out, cols, row, B, rank);
  pdl_start<PDL>();
  unsigned lane = threadIdx.x & 31;
  unsigned gen = 0;
  if (threadIdx.x == 0) gen = atomicAdd(&count[row], 1u) / B + 1;
  float4 v[CH], wv[CH];
  #pragma unroll
  for (int k = 0; k < CH; k++) { v[k] = xr[threadIdx.x + k * blockDim.x]; if (PRE) wv[k] = wr[threadIdx.x + k * blockDim.x]; }
  float s = 0;
  #pragma unroll
  for (int k = 0; k < CH; k++) s += v[k].x*v[k].x + v[k].y*v[k].y + v[k].z*v[k].z + v[k].w*v[k].w;
  float p = block_sum_to_warp0(s, scratch);
  if (threadIdx.x < 32) {
    gen = __shfl_sync(~0u, gen, 0);
    unsigned long long* rs = slots + row * 32;
    if (lane == 0) {
      unsigned long long val = ((unsigned long long)gen << 32) | __float_as_uint(p);
      asm volatile("st.release.gpu.global.u64 [%0], %1;" :: "l"(rs + rank), "l"(val) : "memory");
    }
    float q = 0.f;
    if (lane < B) {
      unsigned long long got;
      do { asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(got) : "l"(rs + lane) : "memory"); } while ((unsigned)(got >> 32) != gen);
      q = __uint_as_float((unsigned)got);
    }
    q = warp_sum(q);
    if (lane == 0) total = q;
  }
  __syncthreads();
  float inv = rsqrtf(total / cols + eps);
  #pragma unroll
  for (int k = 0; k < CH; k++) { float4 f = PRE ? wv[k] : wr[threadIdx.x + k * blockDim.x]; float4 q = v[k];
    q.x *= inv * f.x; q.y *= inv * f.y; q.z *= inv * f.z; q.w *= inv * f.w; orow[threadIdx.x + k * blockDim.x] = q; }
  pdl_end<PDL>();
}
#define GK(CH, PDL, PRE, NAME) extern "C" __global__ void NAME(const float* x, const float* w, float* o, unsigned long long c, float e, unsigned B, unsigned* cnt, unsigned long long* sl) { grid_body<CH, PDL, PRE>(x, w, o, c, e, B, cnt, sl); }
#define GKALL(CH) GK(CH,0,false,rmsg##CH) GK(CH,1,false,rmsg##CH##_pdl) GK(CH,2,false,rmsg##CH##_pdl_early) \
  GK(CH,0,true,rmsg_pre##CH) GK(CH,1,true,rmsg_pre##CH##_pdl) GK(CH,2,true,rmsg_pre##CH##_pdl_early)
GKALL(1) GKALL(2) GKALL(4)

// Warp push: every warp stores its warp sum into its slot of every block of the cluster (no
// block-level stage), one cluster barrier, then every warp sums all nb * warps partials itself.
template <int CH, int PDL>
__device__ void warp_push_body(const float* x, const float* w, float* out, unsigned long long cols, float eps) {
  __shared__ float slots[16 * 32];
  cg::cluster_group cluster = cg::this_cluster();
  unsigned nb = cluster.num_blocks(), rank = cluster.block_rank();
  unsigned warps = blockDim.x / 32, warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  auto [xr, wr, orow] = segment_of(x, w, out, cols, blockIdx.x / nb, nb, rank);
  pdl_start<PDL>();
  float4 v[CH], wv[CH];
  #pragma unroll
  for (int k = 0; k < CH; k++) { v[k] = xr[threadIdx.x + k * blockDim.x]; wv[k] = wr[threadIdx.x + k * blockDim.x]; }
  float s = 0;
  #pragma unroll
  for (int k = 0; k < CH; k++) s += v[k].x*v[k].x + v[k].y*v[k].y + v[k].z*v[k].z + v[k].w*v[k].w;
  s = warp_sum(s);
  if (lane < nb) *cluster.map_shared_rank(&slots[rank * warps + warp], lane) = s;
  cluster.sync();
  unsigned n = nb * warps;
  float t = 0;
  for (unsigned i = lane; i < n; i += 32) t += slots[i];
  t = warp_sum(t);
  float inv = rsqrtf(t / cols + eps);
  #pragma unroll
  for (int k = 0; k < CH; k++) { float4 f = wv[k]; float4 q = v[k];
    q.x *= inv * f.x; q.y *= inv * f.y; q.z *= inv * f.z; q.w *= inv * f.w; orow[threadIdx.x + k * blockDim.x] = q; }
  pdl_end<PDL>();
}
#define WK(CH, PDL, NAME) extern "C" __global__ void NAME(const float* x, const float* w, float* o, unsigned long long c, float e) { warp_push_body<CH, PDL>(x, w, o, c, e); }
WK(1,2,rmsw1_pdl_early) WK(2,2,rmsw2_pdl_early) WK(4,2,rmsw4_pdl_early) WK(4,0,rmsw4)
