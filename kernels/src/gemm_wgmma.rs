//! A Hopper GEMM (sm_90a): bf16 operands moved by the bulk tensor copy engine into a 4-stage
//! shared-memory ring, multiplied by two consumer warpgroups with `wgmma`, f32 accumulation.
//!
//! One mainloop ([`gemm_bf16_wgmma_tile`]), four entries that differ only in their epilogue:
//! C in f32 or in bf16 (rounded to nearest even), with or without a per-column f32 bias. The
//! epilogue is a type and a const parameter, so each entry's PTX holds only its own stores and
//! the mainloop is the same in all four. The same four again as `_wide` entries, with 128×256
//! tiles instead of 128×128 (fewer loads per multiply on large products; half the blocks on
//! small ones): the width is a const parameter too.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::math::f32_to_bf16_bits;
use crate::device::pipeline::{
    Pipeline, PipelineState, TensorMap, pipeline_barrier_bytes, tensor_box_bytes,
    tensor_copy_2d_global_to_shared,
};
use crate::device::wgmma::{
    Accumulators64x128, commit_group, fence, k_major_swizzle_128b_descriptor, mma_m64n128k16_bf16, wait_group,
};
use crate::device::{
    barrier, block_idx_x, block_idx_y, dynamic_shared_window_address, lane_id, thread_idx_x, warp_id,
};

/// Stages in the shared-memory ring.
const STAGES: u32 = 4;
/// Rows of C (and of A) per block.
pub const TILE_M: u32 = 128;
/// Columns of C (rows of the K-major B) per block of the four narrow entries.
pub const TILE_N: u32 = 128;
/// Columns of C per block of the wide entries (`_wide`): two 64×128 accumulator tiles per
/// consumer warpgroup.
pub const WIDE_TILE_N: u32 = 256;
/// Values of K per stage: one 128-byte swizzled row of bf16.
pub const TILE_K: u32 = 64;
/// Values of K per `wgmma` step.
const MMA_K: u32 = 16;
/// Rows of C per consumer warpgroup: one `m64n128k16` tile.
const WARPGROUP_M: u32 = 64;
/// Columns of C one `m64n128k16` multiply covers.
const MMA_N: u32 = 128;
const BF16_BYTES: u32 = 2;
const A_TILE_BYTES: u32 = tensor_box_bytes(TILE_K, TILE_M, BF16_BYTES);
/// The swizzled tiles start on 1024-byte boundaries; the ring starts at the first one at or
/// after the dynamic shared memory's base.
const SWIZZLE_ALIGN: u32 = 1024;
/// Consumer threads: warpgroups 0 and 1 (warps 0–7). Warp 8's lane 0 is the producer.
const CONSUMERS: u32 = 256;
const WARPS_PER_WARPGROUP: u32 = 4;

/// The shared-memory layout of a block computing `COLUMNS` columns of C: the A ring
/// (`STAGES` tiles of 128 rows), the B ring (`STAGES` tiles of `COLUMNS` rows), the barriers.
struct Layout<const COLUMNS: u32>;

impl<const COLUMNS: u32> Layout<COLUMNS> {
    const B_TILE_BYTES: u32 = tensor_box_bytes(TILE_K, COLUMNS, BF16_BYTES);
    /// What the two tensor copies of one stage deliver to its *full* barrier.
    const STAGE_BYTES: u32 = A_TILE_BYTES + Self::B_TILE_BYTES;
    const B_RING_OFFSET: u32 = STAGES * A_TILE_BYTES;
    const BARRIERS_OFFSET: u32 = Self::B_RING_OFFSET + STAGES * Self::B_TILE_BYTES;
    /// Dynamic shared memory a launch provides: the alignment slack, the two rings, the
    /// barriers. A block may have at most 227 KiB of shared memory on sm_90.
    const SHARED_BYTES: u32 = {
        let bytes = SWIZZLE_ALIGN + Self::BARRIERS_OFFSET + pipeline_barrier_bytes(STAGES);
        assert!(bytes <= 227 * 1024);
        bytes
    };
}

/// Dynamic shared memory a launch of a narrow entry provides (132 160 bytes).
const GEMM_BF16_WGMMA_SHARED_BYTES: u32 = Layout::<TILE_N>::SHARED_BYTES;
/// Dynamic shared memory a launch of a wide entry provides (197 696 bytes).
const GEMM_BF16_WGMMA_WIDE_SHARED_BYTES: u32 = Layout::<WIDE_TILE_N>::SHARED_BYTES;
const _: () =
    assert!(GEMM_BF16_WGMMA_SHARED_BYTES == 132_160 && GEMM_BF16_WGMMA_WIDE_SHARED_BYTES == 197_696);

/// `C = A·Bᵀ`: A is `m × k` bf16 row-major, B is `n × k` bf16 row-major (K-major, as a linear
/// layer stores its weights), C is `m × n` f32 row-major; products of bf16 values accumulate in
/// f32.
///
/// Block `(x, y)` computes the 128×128 tile of C at rows `128y`, columns `128x`. Lane 0 of warp
/// 8 produces: per 64-wide slice of K it copies the A and B tiles with bulk tensor copies
/// (128-byte swizzle) into a 4-stage ring, completing on the stage's *full* mbarrier.
/// Warpgroups 0 and 1 consume: each multiplies its 64 rows of A by the whole B tile with four
/// `wgmma` steps, keeps one batch of multiplies in flight, and releases a stage once the
/// multiplies that read it are done. See [`crate::device::pipeline`] and
/// [`crate::device::wgmma`] for the two protocols.
///
/// Tails: the copy engine fills rows and columns past `m`, `n` and `k` with zeros and the
/// stores skip elements outside C, so any `m`, `n`, `k` work. The maps' row strides are
/// multiples of 16 bytes: for a `k` that is not a multiple of 8, rows are laid out at a padded
/// pitch (the map's dimension stays `k`, so the padding is never read). Empty shapes: `k = 0`
/// stores C = 0 (no tile is copied, the accumulators stay zero); `m = 0` or `n = 0` leaves
/// nothing to store, and a launch of one block stores nothing (a map's dimensions must still
/// be at least 1).
///
/// Special values are PyTorch's (`torch.matmul` on the same bf16 values, f32 accumulation):
/// IEEE arithmetic throughout, no flushing. A NaN in A or B makes NaN every element of C whose
/// sum it enters; `inf · 0` is NaN; products `+inf` and `-inf` in one sum give NaN; otherwise
/// an infinite product gives that infinity; finite products whose f32 sum overflows (two
/// values near the bf16 maximum) give ±inf; bf16 subnormals are multiplied as they are, not
/// flushed to zero. `k = 0` gives +0.0. One case depends on the order of the sum, here as in
/// cuBLAS: finite products whose partial sum overflows to ±inf before or after an infinite
/// product of the other sign is added give NaN or that infinity.
///
/// Launch: grid `(⌈n / 128⌉, ⌈m / 128⌉)`, `blockDim.x = 288`; dynamic shared memory
/// `GEMM_BF16_WGMMA_SHARED_BYTES` = 132 160 bytes (raise the function's limit first).
///
/// # Safety
/// `a_map` and `b_map` point to tiled tensor maps in device memory encoding A (dims `k, m`)
/// and B (dims `k, n`), bf16, box 64 × 128, 128-byte swizzle; `c` to `m * n` floats.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn gemm_bf16_wgmma(
    a_map: *const TensorMap,
    b_map: *const TensorMap,
    c: *mut f32,
    m: u32,
    n: u32,
    k: u32,
) {
    block_threads(288);
    dynamic_shared_bytes(GEMM_BF16_WGMMA_SHARED_BYTES);
    gemm_bf16_wgmma_tile::<f32, false, TILE_N>(a_map, b_map, c, core::ptr::null(), m, n, k);
}

/// [`gemm_bf16_wgmma`] plus a bias per column: `C[i][j] = (A·Bᵀ)[i][j] + bias[j]`, C f32.
///
/// Special values as [`gemm_bf16_wgmma`], then the bias as `F.linear` adds it, in f32: a NaN
/// bias makes its column NaN, an infinite one its column that infinity (NaN where the product
/// is the opposite infinity); `k = 0` gives C = the bias.
///
/// # Safety
/// As [`gemm_bf16_wgmma`]; `bias` points to `n` floats.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn gemm_bf16_wgmma_bias(
    a_map: *const TensorMap,
    b_map: *const TensorMap,
    c: *mut f32,
    bias: *const f32,
    m: u32,
    n: u32,
    k: u32,
) {
    block_threads(288);
    dynamic_shared_bytes(GEMM_BF16_WGMMA_SHARED_BYTES);
    gemm_bf16_wgmma_tile::<f32, true, TILE_N>(a_map, b_map, c, bias, m, n, k);
}

/// [`gemm_bf16_wgmma`] with C stored as bf16: the f32 sum rounded to nearest even (NaN stays
/// NaN, overflow gives infinity).
///
/// Special values as [`gemm_bf16_wgmma`], then the rounding as PyTorch's `.to(torch.bfloat16)`:
/// NaN becomes the bf16 NaN 0x7fff, ±inf stays, a finite sum at or past half an ulp above the
/// bf16 maximum (`(2 − 2⁻⁸) · 2¹²⁷`) rounds to ±inf, subnormal sums stay subnormal.
///
/// # Safety
/// As [`gemm_bf16_wgmma`], with `c` pointing to `m * n` bf16 values.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn gemm_bf16_wgmma_bf16(
    a_map: *const TensorMap,
    b_map: *const TensorMap,
    c: *mut u16,
    m: u32,
    n: u32,
    k: u32,
) {
    block_threads(288);
    dynamic_shared_bytes(GEMM_BF16_WGMMA_SHARED_BYTES);
    gemm_bf16_wgmma_tile::<Bf16, false, TILE_N>(a_map, b_map, c.cast(), core::ptr::null(), m, n, k);
}

/// [`gemm_bf16_wgmma_bias`] with C stored as bf16: `bf16(A·Bᵀ + bias)`, the bias added in f32
/// before the one rounding.
///
/// Special values as [`gemm_bf16_wgmma_bias`], then rounded as [`gemm_bf16_wgmma_bf16`]:
/// `F.linear` in f32 followed by `.to(torch.bfloat16)`; `k = 0` gives C = bf16(bias).
///
/// # Safety
/// As [`gemm_bf16_wgmma_bf16`]; `bias` points to `n` floats.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn gemm_bf16_wgmma_bias_bf16(
    a_map: *const TensorMap,
    b_map: *const TensorMap,
    c: *mut u16,
    bias: *const f32,
    m: u32,
    n: u32,
    k: u32,
) {
    block_threads(288);
    dynamic_shared_bytes(GEMM_BF16_WGMMA_SHARED_BYTES);
    gemm_bf16_wgmma_tile::<Bf16, true, TILE_N>(a_map, b_map, c.cast(), bias, m, n, k);
}

/// [`gemm_bf16_wgmma`] with a 128×256 tile per block: each consumer warpgroup multiplies its
/// 64 rows of A by both halves of a 256-row B tile, so a stage's A tile serves twice the
/// columns and the blocks of a large product load a quarter less from L2. Contract, special
/// values and tails as [`gemm_bf16_wgmma`], except:
///
/// Launch: grid `(⌈n / 256⌉, ⌈m / 128⌉)`, `blockDim.x = 288`; dynamic shared memory
/// `GEMM_BF16_WGMMA_WIDE_SHARED_BYTES` = 197 696 bytes (raise the function's limit first).
///
/// # Safety
/// As [`gemm_bf16_wgmma`], with B's tensor map boxed 64 × 256 (A's stays 64 × 128).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn gemm_bf16_wgmma_wide(
    a_map: *const TensorMap,
    b_map: *const TensorMap,
    c: *mut f32,
    m: u32,
    n: u32,
    k: u32,
) {
    block_threads(288);
    dynamic_shared_bytes(GEMM_BF16_WGMMA_WIDE_SHARED_BYTES);
    gemm_bf16_wgmma_tile::<f32, false, WIDE_TILE_N>(a_map, b_map, c, core::ptr::null(), m, n, k);
}

/// [`gemm_bf16_wgmma_bias`] with the tile of [`gemm_bf16_wgmma_wide`] (and its launch).
///
/// # Safety
/// As [`gemm_bf16_wgmma_wide`]; `bias` points to `n` floats.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn gemm_bf16_wgmma_wide_bias(
    a_map: *const TensorMap,
    b_map: *const TensorMap,
    c: *mut f32,
    bias: *const f32,
    m: u32,
    n: u32,
    k: u32,
) {
    block_threads(288);
    dynamic_shared_bytes(GEMM_BF16_WGMMA_WIDE_SHARED_BYTES);
    gemm_bf16_wgmma_tile::<f32, true, WIDE_TILE_N>(a_map, b_map, c, bias, m, n, k);
}

/// [`gemm_bf16_wgmma_bf16`] with the tile of [`gemm_bf16_wgmma_wide`] (and its launch).
///
/// # Safety
/// As [`gemm_bf16_wgmma_wide`], with `c` pointing to `m * n` bf16 values.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn gemm_bf16_wgmma_wide_bf16(
    a_map: *const TensorMap,
    b_map: *const TensorMap,
    c: *mut u16,
    m: u32,
    n: u32,
    k: u32,
) {
    block_threads(288);
    dynamic_shared_bytes(GEMM_BF16_WGMMA_WIDE_SHARED_BYTES);
    gemm_bf16_wgmma_tile::<Bf16, false, WIDE_TILE_N>(a_map, b_map, c.cast(), core::ptr::null(), m, n, k);
}

/// [`gemm_bf16_wgmma_bias_bf16`] with the tile of [`gemm_bf16_wgmma_wide`] (and its launch).
///
/// # Safety
/// As [`gemm_bf16_wgmma_wide_bf16`]; `bias` points to `n` floats.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn gemm_bf16_wgmma_wide_bias_bf16(
    a_map: *const TensorMap,
    b_map: *const TensorMap,
    c: *mut u16,
    bias: *const f32,
    m: u32,
    n: u32,
    k: u32,
) {
    block_threads(288);
    dynamic_shared_bytes(GEMM_BF16_WGMMA_WIDE_SHARED_BYTES);
    gemm_bf16_wgmma_tile::<Bf16, true, WIDE_TILE_N>(a_map, b_map, c.cast(), bias, m, n, k);
}

/// An element type of C: how an f32 result is stored.
trait Stored: Copy {
    /// Writes `value` to `c[index]`.
    ///
    /// # Safety
    /// `c[index]` is inside C.
    unsafe fn store(c: *mut Self, index: usize, value: f32);

    /// Writes `values` to `c[index]` and `c[index + 1]` with one store.
    ///
    /// # Safety
    /// Both elements are inside C and `index` is even (C's allocation is aligned to at least
    /// twice the element's size, so the pair is aligned to its size).
    unsafe fn store_pair(c: *mut Self, index: usize, values: [f32; 2]);
}

/// Two adjacent f32 elements of C, written by one 8-byte store.
#[derive(Clone, Copy)]
#[repr(C, align(8))]
struct F32Pair([f32; 2]);

impl Stored for f32 {
    #[inline(always)]
    unsafe fn store(c: *mut f32, index: usize, value: f32) {
        // SAFETY: the caller's contract.
        unsafe { *c.add(index) = value };
    }

    #[inline(always)]
    unsafe fn store_pair(c: *mut f32, index: usize, values: [f32; 2]) {
        // SAFETY: the caller's contract: both elements inside C, the pair 8-byte aligned.
        unsafe { *(c.add(index) as *mut F32Pair) = F32Pair(values) };
    }
}

/// A bf16 element of C, as its bits.
#[derive(Clone, Copy)]
#[repr(transparent)]
struct Bf16(u16);

/// Two adjacent bf16 elements of C, written by one 4-byte store.
#[derive(Clone, Copy)]
#[repr(C, align(4))]
struct Bf16Pair([u16; 2]);

impl Stored for Bf16 {
    #[inline(always)]
    unsafe fn store(c: *mut Bf16, index: usize, value: f32) {
        // SAFETY: the caller's contract.
        unsafe { *c.add(index) = Bf16(f32_to_bf16_bits(value)) };
    }

    #[inline(always)]
    unsafe fn store_pair(c: *mut Bf16, index: usize, values: [f32; 2]) {
        let bits = Bf16Pair([f32_to_bf16_bits(values[0]), f32_to_bf16_bits(values[1])]);
        // SAFETY: the caller's contract: both elements inside C, the pair 4-byte aligned.
        unsafe { *(c.add(index) as *mut Bf16Pair) = bits };
    }
}

/// The whole kernel for one block, generic over its width and its epilogue: `COLUMNS` columns
/// of C per block ([`TILE_N`] or [`WIDE_TILE_N`]), C's element type, and whether a per-column
/// bias (`bias`, `n` floats; unread without `BIAS`) is added before the store.
#[inline(always)]
fn gemm_bf16_wgmma_tile<C: Stored, const BIAS: bool, const COLUMNS: u32>(
    a_map: *const TensorMap,
    b_map: *const TensorMap,
    c: *mut C,
    bias: *const f32,
    m: u32,
    n: u32,
    k: u32,
) {
    let base = dynamic_shared_window_address();
    let ring = (base + SWIZZLE_ALIGN - 1) & !(SWIZZLE_ALIGN - 1);
    let barriers = ring + Layout::<COLUMNS>::BARRIERS_OFFSET;
    let tid = thread_idx_x();
    let pipeline = if tid == 0 {
        Pipeline::<STAGES>::init(barriers, CONSUMERS)
    } else {
        Pipeline::<STAGES>::attach(barriers)
    };
    barrier();

    let row0 = block_idx_y() * TILE_M;
    let column0 = block_idx_x() * COLUMNS;
    let k_tiles = k.div_ceil(TILE_K);
    let warp = warp_id();
    if warp == 2 * WARPS_PER_WARPGROUP {
        if lane_id() == 0 {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut k_tile = 0;
            while k_tile < k_tiles {
                pipeline.producer_acquire(&state);
                pipeline.producer_expect_tx(&state, Layout::<COLUMNS>::STAGE_BYTES);
                let full = pipeline.producer_barrier(&state);
                let k0 = (k_tile * TILE_K) as i32;
                let a_tile = ring + state.index() * A_TILE_BYTES;
                tensor_copy_2d_global_to_shared(a_tile, a_map, k0, row0 as i32, A_TILE_BYTES, full);
                let b_tile =
                    ring + Layout::<COLUMNS>::B_RING_OFFSET + state.index() * Layout::<COLUMNS>::B_TILE_BYTES;
                let b_bytes = Layout::<COLUMNS>::B_TILE_BYTES;
                tensor_copy_2d_global_to_shared(b_tile, b_map, k0, column0 as i32, b_bytes, full);
                state.advance();
                k_tile += 1;
            }
            pipeline.producer_tail(state);
        }
    } else if warp < 2 * WARPS_PER_WARPGROUP {
        // A wide block's warpgroup multiplies its 64 rows of A by both 128-row halves of the B
        // tile, into two accumulator tiles; a narrow one by the one half it has. `wide` is a
        // constant: each entry's code holds only its own branch.
        let wide = COLUMNS == WIDE_TILE_N;
        let warpgroup = warp / WARPS_PER_WARPGROUP;
        let mut left: Accumulators64x128 = [0.0; 64];
        let mut right: Accumulators64x128 = [0.0; 64];
        let mut state = PipelineState::<STAGES>::new();
        let mut k_tile = 0;
        while k_tile < k_tiles {
            pipeline.consumer_wait(&state);
            let a_tile = ring + state.index() * A_TILE_BYTES + warpgroup * WARPGROUP_M * TILE_K * BF16_BYTES;
            let b_tile =
                ring + Layout::<COLUMNS>::B_RING_OFFSET + state.index() * Layout::<COLUMNS>::B_TILE_BYTES;
            fence(&mut left);
            if wide {
                fence(&mut right);
            }
            let mut step = 0;
            while step < TILE_K / MMA_K {
                let offset = step * MMA_K * BF16_BYTES;
                let accumulate = k_tile > 0 || step > 0;
                let a = k_major_swizzle_128b_descriptor(a_tile + offset);
                let b = k_major_swizzle_128b_descriptor(b_tile + offset);
                mma_m64n128k16_bf16(&mut left, a, b, accumulate);
                if wide {
                    let b_right =
                        k_major_swizzle_128b_descriptor(b_tile + MMA_N * TILE_K * BF16_BYTES + offset);
                    mma_m64n128k16_bf16(&mut right, a, b_right, accumulate);
                }
                step += 1;
            }
            commit_group();
            // The stage is released only once the multiplies that read it are done. (Keeping
            // one batch in flight and releasing the previous stage is what CUTLASS does; the
            // verifier's `consumer-order` rule does not yet accept releasing a stage after
            // the state moved on.)
            wait_group::<0>(&mut left);
            if wide {
                wait_group::<0>(&mut right);
            }
            pipeline.consumer_release(&state);
            state.advance();
            k_tile += 1;
        }
        let output = Output::<C, BIAS> { c, bias, m, n };
        let row = row0 + warpgroup * WARPGROUP_M;
        output.store_tile(&left, row, column0);
        if wide {
            output.store_tile(&right, row, column0 + MMA_N);
        }
    }
}

/// Where finished accumulators go: C (`m × n` of `C`), and the bias per column with `BIAS`.
#[derive(Clone, Copy)]
struct Output<C: Stored, const BIAS: bool> {
    c: *mut C,
    bias: *const f32,
    m: u32,
    n: u32,
}

impl<C: Stored, const BIAS: bool> Output<C, BIAS> {
    /// Stores a warpgroup's 64×128 accumulator tile at (`row0`, `column0`) of C, skipping
    /// elements outside it (layout: [`Accumulators64x128`]).
    ///
    /// Every accumulator is named by a constant index (the groups are spelled out, not looped
    /// over), so the array stays in registers instead of going to local memory.
    #[inline(always)]
    fn store_tile(self, accumulators: &Accumulators64x128, row0: u32, column0: u32) {
        let lane = lane_id();
        let row = row0 + 16 * (warp_id() % WARPS_PER_WARPGROUP) + lane / 4;
        let column = column0 + 2 * (lane % 4);
        macro_rules! store_groups {
            ($($group:literal)*) => {$(
                self.store_group(
                    row,
                    column + 8 * $group,
                    [
                        accumulators[4 * $group],
                        accumulators[4 * $group + 1],
                        accumulators[4 * $group + 2],
                        accumulators[4 * $group + 3],
                    ],
                );
            )*};
        }
        store_groups!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    }

    /// Stores one group of four accumulators: two columns at `row` and the same two at
    /// `row + 8` (with `BIAS`, one bias value per column added first).
    #[inline(always)]
    fn store_group(self, row: u32, column: u32, mut values: [f32; 4]) {
        if BIAS {
            // Not `+ 0.0` without a bias: that would turn -0.0 into +0.0, and cost an add.
            let (left, right) = (self.bias_at(column), self.bias_at(column + 1));
            values = [values[0] + left, values[1] + right, values[2] + left, values[3] + right];
        }
        self.store_pair(row, column, [values[0], values[1]]);
        self.store_pair(row + 8, column, [values[2], values[3]]);
    }

    /// Stores the elements at (`row`, `column`) and (`row`, `column + 1`) (`column` even): with
    /// one store where both are inside C and `n` is even (the pair then starts at an even
    /// index), else one at a time.
    #[inline(always)]
    fn store_pair(self, row: u32, column: u32, values: [f32; 2]) {
        if row < self.m && column + 1 < self.n && self.n.is_multiple_of(2) {
            let index = row as usize * self.n as usize + column as usize;
            // SAFETY: `row < m` and `column + 1 < n`, inside the `m * n` elements of `c`;
            // `index` is even since `n` and `column` are.
            unsafe { C::store_pair(self.c, index, values) };
        } else {
            self.store_element(row, column, values[0]);
            self.store_element(row, column + 1, values[1]);
        }
    }

    /// The bias of `column` (0 past C's last column, where nothing is stored).
    #[inline(always)]
    fn bias_at(self, column: u32) -> f32 {
        if column < self.n {
            // SAFETY: `column < n`, inside the `n` floats of `bias`.
            unsafe { *self.bias.add(column as usize) }
        } else {
            0.0
        }
    }

    #[inline(always)]
    fn store_element(self, row: u32, column: u32, value: f32) {
        if row < self.m && column < self.n {
            // SAFETY: `row < m` and `column < n`, inside the `m * n` elements of `c`.
            unsafe { C::store(self.c, row as usize * self.n as usize + column as usize, value) };
        }
    }
}
