//! Style: one generic kernel body over a *policy* trait. Each entry is a one-line
//! instantiation `run::<Policy, STAGES>` of the same body; the policy type states where the
//! barriers and the ring sit, which thread produces, which warp consumes, how many threads
//! the empty barriers count, and the word type the column reader sees the stage as. A defect
//! lives in a policy's constants, never in the body.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const COLUMNS: u32 = 32;
const ROWS: u32 = 8;

/// A word of a staged tile, widened to the accumulator's type.
trait Word: Copy {
    fn widen(self) -> f32;
}

impl Word for f32 {
    #[inline(always)]
    fn widen(self) -> f32 {
        self
    }
}

impl Word for u32 {
    #[inline(always)]
    fn widen(self) -> f32 {
        self as f32
    }
}

/// Where everything goes, for a ring of `S` stages.
trait Policy<const S: u32> {
    /// Window byte of the pipeline's barriers (`16 * S` bytes).
    const BARRIER_BYTE: u32;
    /// Window byte of stage 0; stage `s` is `TILE_BYTES * s` further.
    const RING_BYTE: u32;
    /// The one producer thread.
    const PRODUCER: u32;
    /// The warp whose 32 lanes consume (lane `c` sums column `c`).
    const CONSUMER_WARP: u32;
    /// Releasing threads the empty barriers are initialised for.
    const RELEASERS: u32;
    /// How the column reader sees the stage.
    type Word: Word;
}

#[inline(always)]
unsafe fn column<W: Word>(stage: *const W, column: u32) -> f32 {
    let mut sum = 0.0;
    for row in 0..ROWS {
        sum += (*stage.add((row * COLUMNS + column) as usize)).widen();
    }
    sum
}

#[inline(always)]
unsafe fn run<P: Policy<S>, const S: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == P::PRODUCER {
        Pipeline::<S>::init(window + P::BARRIER_BYTE, P::RELEASERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window + P::BARRIER_BYTE);
    let ring = dynamic_shared_base::<f32>().add((P::RING_BYTE / 4) as usize);
    let first = block_idx_x();
    let step = grid_dim_x();
    if tid == P::PRODUCER {
        let mut state = PipelineState::<S>::producer_start();
        let mut tile = first;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + P::RING_BYTE + state.index() * TILE_BYTES,
                input.add((tile * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += step;
        }
        pipe.producer_tail(state);
    } else if tid / 32 == P::CONSUMER_WARP {
        let lane = tid % 32;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut tile = first;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add((state.index() * TILE_FLOATS) as usize);
            acc += column::<P::Word>(stage.cast(), lane);
            pipe.consumer_release(&state);
            state.advance();
            tile += step;
        }
        *out.add((first * COLUMNS + lane) as usize) = acc;
    }
}

/// Four stages after the barriers' first KiB; thread 0 produces for warp 1.
struct Classic;
impl Policy<4> for Classic {
    const BARRIER_BYTE: u32 = 0;
    const RING_BYTE: u32 = 1024;
    const PRODUCER: u32 = 0;
    const CONSUMER_WARP: u32 = 1;
    const RELEASERS: u32 = 32;
    type Word = f32;
}

/// Two stages; the last thread of warp 1 produces for warp 0.
struct DoubleBuffer;
impl Policy<2> for DoubleBuffer {
    const BARRIER_BYTE: u32 = 0;
    const RING_BYTE: u32 = 1024;
    const PRODUCER: u32 = 63;
    const CONSUMER_WARP: u32 = 0;
    const RELEASERS: u32 = 32;
    type Word = f32;
}

/// Seven stages fill the window exactly: 1024 + 7 * 1024 = 8192.
struct Deep;
impl Policy<7> for Deep {
    const BARRIER_BYTE: u32 = 0;
    const RING_BYTE: u32 = 1024;
    const PRODUCER: u32 = 0;
    const CONSUMER_WARP: u32 = 1;
    const RELEASERS: u32 = 32;
    type Word = f32;
}

/// The ring first, at byte 0; the barriers right after its three stages.
struct BarriersLast;
impl Policy<3> for BarriersLast {
    const BARRIER_BYTE: u32 = 3 * TILE_BYTES;
    const RING_BYTE: u32 = 0;
    const PRODUCER: u32 = 32;
    const CONSUMER_WARP: u32 = 0;
    const RELEASERS: u32 = 32;
    type Word = f32;
}

/// Eight stages packed right after their 128 bytes of barriers: the last stage ends 128 bytes
/// past the 8192-byte window.
struct Packed;
impl Policy<8> for Packed {
    const BARRIER_BYTE: u32 = 0;
    const RING_BYTE: u32 = 16 * 8;
    const PRODUCER: u32 = 0;
    const CONSUMER_WARP: u32 = 1;
    const RELEASERS: u32 = 32;
    type Word = f32;
}

/// Barriers "after the scratch KiB" at byte 4096, which is stage 3 of a ring from byte 1024.
struct BarriersMidRing;
impl Policy<4> for BarriersMidRing {
    const BARRIER_BYTE: u32 = 4096;
    const RING_BYTE: u32 = 1024;
    const PRODUCER: u32 = 0;
    const CONSUMER_WARP: u32 = 1;
    const RELEASERS: u32 = 32;
    type Word = f32;
}

/// Empty barriers counted for the whole block, though one warp releases.
struct WholeBlockReleases;
impl Policy<4> for WholeBlockReleases {
    const BARRIER_BYTE: u32 = 0;
    const RING_BYTE: u32 = 1024;
    const PRODUCER: u32 = 0;
    const CONSUMER_WARP: u32 = 1;
    const RELEASERS: u32 = 64;
    type Word = f32;
}

/// A policy written for integer tiles, reused on float tiles.
struct IntegerTiles;
impl Policy<4> for IntegerTiles {
    const BARRIER_BYTE: u32 = 0;
    const RING_BYTE: u32 = 1024;
    const PRODUCER: u32 = 0;
    const CONSUMER_WARP: u32 = 1;
    const RELEASERS: u32 = 32;
    type Word = u32;
}

/// Four stages, thread 0 producing for warp 1.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_policy_classic(input: *const f32, tiles: u32, out: *mut f32) {
    run::<Classic, 4>(input, tiles, out);
}

/// Two stages, thread 63 producing for warp 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_policy_double_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    run::<DoubleBuffer, 2>(input, tiles, out);
}

/// Seven stages filling the window to its last byte.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_policy_deep(input: *const f32, tiles: u32, out: *mut f32) {
    run::<Deep, 7>(input, tiles, out);
}

/// Three stages from byte 0, the barriers after them; thread 32 produces for warp 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_policy_barriers_last(input: *const f32, tiles: u32, out: *mut f32) {
    run::<BarriersLast, 3>(input, tiles, out);
}

/// BROKEN: eight stages packed after their barriers reach 128 bytes past the window; the copy
/// into stage 7 writes outside the block's shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_policy_bad_packed_eight(input: *const f32, tiles: u32, out: *mut f32) {
    run::<Packed, 8>(input, tiles, out);
}

/// BROKEN: the barriers sit at byte 4096, inside stage 3 of the ring; the copy into stage 3
/// overwrites the mbarriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_policy_bad_barriers_in_ring(input: *const f32, tiles: u32, out: *mut f32) {
    run::<BarriersMidRing, 4>(input, tiles, out);
}

/// BROKEN: the empty barriers expect 64 releases a phase but only warp 1's 32 threads release;
/// no stage is ever freed and the producer waits at its fifth acquire.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_policy_bad_whole_block_releases(input: *const f32, tiles: u32, out: *mut f32) {
    run::<WholeBlockReleases, 4>(input, tiles, out);
}

/// BROKEN: the column reader is handed the float stage as `*const u32` and converts the bit
/// patterns as integers: every sum is wrong.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_policy_bad_integer_words(input: *const f32, tiles: u32, out: *mut f32) {
    run::<IntegerTiles, 4>(input, tiles, out);
}
