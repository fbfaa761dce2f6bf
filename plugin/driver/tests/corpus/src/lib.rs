//! The verifier's ground-truth corpus: kernels that break the pipeline protocol or the pointer
//! rule in ordinary ways, and correct kernels written in many styles.
//!
//! Every kernel has one launch contract (the `[contract]` table of `expected.toml`, mirrored by
//! the constants below) and one deterministic output, so a kernel that computes a wrong result
//! is caught on the GPU:
//!
//! - signature `(input: *const f32, tiles: u32, out: *mut f32)`; `input` holds `tiles * 256`
//!   floats, 16-byte aligned;
//! - one-dimensional launch, [`BLOCK_THREADS`] threads per block, [`GRID_BLOCKS`] blocks,
//!   [`SHARED_BYTES`] of dynamic shared memory;
//! - block `b` handles tiles `b, b + gridDim.x, …`; consumer `c` (thread `32 + c`, `c < 32`)
//!   adds elements `c, c + 32, …` of each of its block's tiles, and writes the sum to
//!   `out[b * 32 + c]`.
//!
//! The pipeline kernels: thread 0 initialises the barriers and produces (one bulk copy of 1 KiB
//! per tile into a 2-stage ring), warp 1 consumes. Most kernels vary one side only; the
//! [`consumer_kernel!`] and [`producer_kernel!`] macros write the other side the standard way
//! (macros expand before MIR, so the verifier sees one ordinary kernel body). The pointer
//! kernels (`adaptation.rs`) stage each tile with plain stores and block barriers instead.
//!
//! Data flow: `expected.toml` names every kernel here with its expected verdict and hazard; the
//! driver's report (report mode) gives the verdicts; the ground-truth harness (`truth/`) gives outcomes.
#![no_std]
#![feature(abi_ptx, stdarch_nvptx, asm_experimental_arch, core_float_math)]
#![allow(clippy::missing_safety_doc)]

// The real device API, as this crate's `device` module.
#[path = "../../../../../kernels/src/device/mod.rs"]
#[allow(dead_code)]
pub mod device;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: `trap` aborts the kernel; nothing runs after it.
    unsafe { core::arch::nvptx::trap() }
}

/// Stages of the standard ring.
pub const STAGES: u32 = 2;
/// Floats per tile; one bulk copy moves one tile.
pub const TILE_FLOATS: u32 = 256;
pub const TILE_BYTES: u32 = TILE_FLOATS * 4;
/// Consumer threads (warp 1); thread 0 of warp 0 produces.
pub const CONSUMERS: u32 = 32;
/// The launch contract.
pub const BLOCK_THREADS: u32 = 64;
pub const GRID_BLOCKS: u32 = 8;
pub const SHARED_BYTES: u32 = 8192;
/// Shared-window offset of the standard pipeline's barriers (after a ring of up to 4 stages).
pub const BARRIERS: u32 = 4 * TILE_BYTES;
/// A second pipeline's ring and barriers, for the kernels that use two.
pub const SECOND_RING: u32 = BARRIERS + 64;
pub const SECOND_BARRIERS: u32 = SECOND_RING + STAGES * TILE_BYTES;

/// Whether thread `tid` is one of the consumers.
#[inline(always)]
pub fn is_consumer(tid: u32) -> bool {
    (device::WARP_SIZE..device::WARP_SIZE + CONSUMERS).contains(&tid)
}

/// Writes a consumer's sum to its slot of `out` (`out[block * 32 + consumer]`); other threads
/// write nothing.
#[inline(always)]
pub fn write_partial(out: *mut f32, tid: u32, partial: f32) {
    if is_consumer(tid) {
        let slot = device::block_idx_x() * CONSUMERS + tid - device::WARP_SIZE;
        // SAFETY: `out` holds `gridDim.x * 32` floats (the contract).
        unsafe { *out.add(slot as usize) = partial };
    }
}

/// Adds this consumer's elements (`c, c + 32, …`) of the 256 floats at `stage`.
macro_rules! sum_stage {
    ($stage:expr, $tid:expr) => {{
        let stage: *const f32 = $stage;
        let mut sum = 0.0f32;
        let mut k = ($tid - $crate::device::WARP_SIZE) as usize;
        while k < $crate::TILE_FLOATS as usize {
            // SAFETY: `k < TILE_FLOATS`, inside one stage of the ring.
            sum += unsafe { *stage.add(k) };
            k += $crate::CONSUMERS as usize;
        }
        sum
    }};
}

/// The standard producer: acquire, expect the tile's bytes, copy it into the acquired stage,
/// advance; the tail after the loop.
macro_rules! standard_producer {
    ($pipeline:expr, $smem:expr, $input:expr, $tiles:expr) => {{
        let mut state = $crate::device::pipeline::PipelineState::<{ $crate::STAGES }>::producer_start();
        let mut tile = $crate::device::block_idx_x();
        while tile < $tiles {
            $pipeline.producer_acquire(&state);
            $pipeline.producer_expect_tx(&state, $crate::TILE_BYTES);
            let source = $input.wrapping_add((tile * $crate::TILE_FLOATS) as usize) as *const u8;
            let destination = $smem + state.index() * $crate::TILE_BYTES;
            $crate::device::pipeline::bulk_copy_global_to_shared(
                destination,
                source,
                $crate::TILE_BYTES,
                $pipeline.producer_barrier(&state),
            );
            state.advance();
            tile += $crate::device::grid_dim_x();
        }
        $pipeline.producer_tail(state);
    }};
}

/// The standard consumer: wait, add this thread's elements of the stage, release, advance.
macro_rules! standard_consumer {
    ($pipeline:expr, $tid:expr, $tiles:expr) => {{
        let ring = $crate::device::dynamic_shared_base::<f32>();
        let mut state = $crate::device::pipeline::PipelineState::<{ $crate::STAGES }>::new();
        let mut partial = 0.0f32;
        let mut tile = $crate::device::block_idx_x();
        while tile < $tiles {
            $pipeline.consumer_wait(&state);
            let stage = ring.wrapping_add((state.index() * $crate::TILE_FLOATS) as usize);
            partial += sum_stage!(stage, $tid);
            $pipeline.consumer_release(&state);
            state.advance();
            tile += $crate::device::grid_dim_x();
        }
        partial
    }};
}

/// A pipeline kernel whose producer is the standard one: the given block is the consumer
/// side, run by the 32 consumer threads, and evaluates to the thread's sum.
macro_rules! consumer_kernel {
    (
        $(#[$doc:meta])*
        fn $name:ident($input:ident, $tiles:ident, $pipeline:ident, $tid:ident) $consumer:block
    ) => {
        $(#[$doc])*
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name($input: *const f32, $tiles: u32, out: *mut f32) {
            $crate::device::launch::block_threads($crate::BLOCK_THREADS);
            $crate::device::launch::dynamic_shared_bytes($crate::SHARED_BYTES);
            let smem = $crate::device::dynamic_shared_window_address();
            let $tid = $crate::device::thread_idx_x();
            let $pipeline = if $tid == 0 {
                $crate::device::pipeline::Pipeline::<{ $crate::STAGES }>::init(smem + $crate::BARRIERS, $crate::CONSUMERS)
            } else {
                $crate::device::pipeline::Pipeline::<{ $crate::STAGES }>::attach(smem + $crate::BARRIERS)
            };
            $crate::device::barrier();
            let mut partial = 0.0f32;
            if $tid == 0 {
                standard_producer!($pipeline, smem, $input, $tiles);
            } else if $crate::is_consumer($tid) {
                partial = $consumer;
            }
            $crate::write_partial(out, $tid, partial);
        }
    };
}

/// A pipeline kernel whose consumer is the standard one: the given block is the producer side,
/// run by thread 0 (`smem` is the shared window address).
macro_rules! producer_kernel {
    (
        $(#[$doc:meta])*
        fn $name:ident($input:ident, $tiles:ident, $pipeline:ident, $smem:ident, $tid:ident) $producer:block
    ) => {
        $(#[$doc])*
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name($input: *const f32, $tiles: u32, out: *mut f32) {
            $crate::device::launch::block_threads($crate::BLOCK_THREADS);
            $crate::device::launch::dynamic_shared_bytes($crate::SHARED_BYTES);
            let $smem = $crate::device::dynamic_shared_window_address();
            let $tid = $crate::device::thread_idx_x();
            let $pipeline = if $tid == 0 {
                $crate::device::pipeline::Pipeline::<{ $crate::STAGES }>::init($smem + $crate::BARRIERS, $crate::CONSUMERS)
            } else {
                $crate::device::pipeline::Pipeline::<{ $crate::STAGES }>::attach($smem + $crate::BARRIERS)
            };
            $crate::device::barrier();
            let mut partial = 0.0f32;
            if $tid == 0 {
                $producer
            } else if $crate::is_consumer($tid) {
                partial = standard_consumer!($pipeline, $tid, $tiles);
            }
            $crate::write_partial(out, $tid, partial);
        }
    };
}

pub mod adaptation;
pub mod aggregates;
pub mod containers;
pub mod guards_and_exits;
pub mod memory_styles;
pub mod more_styles;
pub mod operands;
pub mod role_ranges;
pub mod roles;
pub mod stage_access;
pub mod state_values;
pub mod styles;
