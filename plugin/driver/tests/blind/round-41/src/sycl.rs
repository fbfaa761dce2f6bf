//! SYCL style: the kernel body is a closure handed to `parallel_for` with an `NdItem` (local
//! id, group, group range, sub-group), shared memory is reached through `LocalAccessor`s placed
//! at fixed bytes of the window, `group_barrier(item)` is the block barrier, and work is split
//! by sub-group (a warp). The pipeline kernels keep the same vocabulary around the device
//! `Pipeline`: a "handler" copies into a local accessor ring.
//!
//! Launch: nd_range of 8 groups of 64 work-items, 8192 bytes of local memory.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const LOCAL_RANGE: u32 = 64;
const LOCAL_MEM_BYTES: u32 = 8192;
const SUB_GROUP: u32 = 32;
const STAGES: u32 = 4;
const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = TILE_FLOATS * 4;
const RING_BYTES: u32 = STAGES * TILE_BYTES;

/// SYCL's `nd_item<1>`.
#[derive(Clone, Copy)]
struct NdItem {
    local_id: u32,
    group: u32,
    group_range: u32,
}

impl NdItem {
    #[inline(always)]
    fn get_local_id(&self) -> u32 {
        self.local_id
    }

    #[inline(always)]
    fn get_group(&self) -> u32 {
        self.group
    }

    #[inline(always)]
    fn get_group_range(&self) -> u32 {
        self.group_range
    }

    #[inline(always)]
    fn get_sub_group_id(&self) -> u32 {
        self.local_id / SUB_GROUP
    }

    #[inline(always)]
    fn get_sub_group_local_id(&self) -> u32 {
        self.local_id % SUB_GROUP
    }
}

/// `group_barrier(item.get_group())`.
#[inline(always)]
fn group_barrier(_item: &NdItem) {
    barrier();
}

/// Runs the kernel closure for this work-item (the launch is the nd_range).
#[inline(always)]
fn parallel_for(kernel: impl FnOnce(NdItem)) {
    block_threads(LOCAL_RANGE);
    dynamic_shared_bytes(LOCAL_MEM_BYTES);
    kernel(NdItem { local_id: thread_idx_x(), group: block_idx_x(), group_range: grid_dim_x() });
}

/// A `local_accessor<float, 1>` of `N` floats at byte `BYTE` of the window.
#[derive(Clone, Copy)]
struct LocalAccessor<const BYTE: u32, const N: u32> {
    ptr: *mut f32,
}

impl<const BYTE: u32, const N: u32> LocalAccessor<BYTE, N> {
    #[inline(always)]
    fn new() -> Self {
        // SAFETY: `BYTE + 4N` is inside the declared window for every accessor built.
        LocalAccessor { ptr: unsafe { dynamic_shared_base::<u8>().add(BYTE as usize) } as *mut f32 }
    }

    #[inline(always)]
    unsafe fn read(&self, i: u32) -> f32 {
        *self.ptr.add(i as usize)
    }

    #[inline(always)]
    unsafe fn write(&self, i: u32, v: f32) {
        *self.ptr.add(i as usize) = v;
    }
}

/// Every work-item copies elements `id, id + 64, id + 128, id + 192` of tile `t`.
#[inline(always)]
unsafe fn stage_tile<const BYTE: u32>(acc: &LocalAccessor<BYTE, TILE_FLOATS>, input: *const f32, t: u32, id: u32) {
    let src = input.add((t * TILE_FLOATS) as usize);
    for k in 0..4 {
        let e = id + k * LOCAL_RANGE;
        acc.write(e, *src.add(e as usize));
    }
}

/// Plain: `local_accessor` tile, `group_barrier`, sub-group 0 sums its columns, `group_barrier`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_sycl_local_accessor(input: *const f32, tiles: u32, out: *mut f32) {
    parallel_for(|item| {
        let tile = LocalAccessor::<0, TILE_FLOATS>::new();
        let id = item.get_local_id();
        let mut sum = 0.0f32;
        let mut t = item.get_group();
        while t < tiles {
            stage_tile(&tile, input, t, id);
            group_barrier(&item);
            if item.get_sub_group_id() == 0 {
                for r in 0..8 {
                    sum += tile.read(r * 32 + id);
                }
            }
            group_barrier(&item);
            t += item.get_group_range();
        }
        if item.get_sub_group_id() == 0 {
            *out.add((item.get_group() * 32 + id) as usize) = sum;
        }
    });
}

/// Plain: sub-group `s` sums rows `4s..4s+4` of each tile; the two sub-groups' partial sums
/// meet in a second local accessor after the tile loop, and sub-group 0 adds them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_sycl_subgroup_halves(input: *const f32, tiles: u32, out: *mut f32) {
    parallel_for(|item| {
        let tile = LocalAccessor::<0, TILE_FLOATS>::new();
        let partials = LocalAccessor::<TILE_BYTES, 64>::new();
        let id = item.get_local_id();
        let sg = item.get_sub_group_id();
        let lane = item.get_sub_group_local_id();
        let mut sum = 0.0f32;
        let mut t = item.get_group();
        while t < tiles {
            stage_tile(&tile, input, t, id);
            group_barrier(&item);
            for r in 0..4 {
                sum += tile.read((sg * 4 + r) * 32 + lane);
            }
            group_barrier(&item);
            t += item.get_group_range();
        }
        partials.write(sg * 32 + lane, sum);
        group_barrier(&item);
        if sg == 0 {
            *out.add((item.get_group() * 32 + lane) as usize) = partials.read(lane) + partials.read(32 + lane);
        }
    });
}

/// Pipeline inside the `parallel_for` closure: work-item 0 is the producer, sub-group 1 the
/// consumers; the ring is a local accessor of four tiles with the pipeline's barriers after it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_sycl_parallel_for_pipe(input: *const f32, tiles: u32, out: *mut f32) {
    parallel_for(|item| {
        let window = dynamic_shared_window_address();
        let bars = window + RING_BYTES;
        if item.get_local_id() == 0 {
            Pipeline::<STAGES>::init(bars, SUB_GROUP);
        }
        group_barrier(&item);
        let pipe = Pipeline::<STAGES>::attach(bars);
        let ring = LocalAccessor::<0, { STAGES * TILE_FLOATS }>::new();
        if item.get_local_id() == 0 {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut t = item.get_group();
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    input.add((t * TILE_FLOATS) as usize) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                t += item.get_group_range();
            }
            pipe.producer_tail(state);
        } else if item.get_sub_group_id() == 1 {
            let lane = item.get_sub_group_local_id();
            let mut state = PipelineState::<STAGES>::new();
            let mut sum = 0.0f32;
            let mut t = item.get_group();
            while t < tiles {
                pipe.consumer_wait(&state);
                let base = state.index() * TILE_FLOATS;
                for r in 0..8 {
                    sum += ring.read(base + r * 32 + lane);
                }
                pipe.consumer_release(&state);
                state.advance();
                t += item.get_group_range();
            }
            *out.add((item.get_group() * 32 + lane) as usize) = sum;
        }
    });
}

/// Pipeline where the producer's "handler" issues the bulk copy first and only then arrives
/// with `expect_tx` on the same full barrier. Outside the usual order, and correct: the copy's
/// bytes may land first (the transaction count goes below zero), but the phase cannot complete
/// before the producer's single arrival, which brings the count back to zero.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_sycl_copy_then_expect(input: *const f32, tiles: u32, out: *mut f32) {
    parallel_for(|item| {
        let window = dynamic_shared_window_address();
        let bars = window + RING_BYTES;
        if item.get_local_id() == 0 {
            Pipeline::<STAGES>::init(bars, SUB_GROUP);
        }
        group_barrier(&item);
        let pipe = Pipeline::<STAGES>::attach(bars);
        let ring = LocalAccessor::<0, { STAGES * TILE_FLOATS }>::new();
        if item.get_local_id() == 0 {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut t = item.get_group();
            while t < tiles {
                pipe.producer_acquire(&state);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    input.add((t * TILE_FLOATS) as usize) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                pipe.producer_expect_tx(&state, TILE_BYTES);
                state.advance();
                t += item.get_group_range();
            }
            pipe.producer_tail(state);
        } else if item.get_sub_group_id() == 1 {
            let lane = item.get_sub_group_local_id();
            let mut state = PipelineState::<STAGES>::new();
            let mut sum = 0.0f32;
            let mut t = item.get_group();
            while t < tiles {
                pipe.consumer_wait(&state);
                let base = state.index() * TILE_FLOATS;
                for r in 0..8 {
                    sum += ring.read(base + r * 32 + lane);
                }
                pipe.consumer_release(&state);
                state.advance();
                t += item.get_group_range();
            }
            *out.add((item.get_group() * 32 + lane) as usize) = sum;
        }
    });
}

/// BROKEN: the consumers skip the release of their last tile ("nobody refills it"), but the
/// producer's tail waits for every stage to be released once more: the block never finishes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_sycl_bad_last_tile_unreleased(input: *const f32, tiles: u32, out: *mut f32) {
    parallel_for(|item| {
        let window = dynamic_shared_window_address();
        let bars = window + RING_BYTES;
        if item.get_local_id() == 0 {
            Pipeline::<STAGES>::init(bars, SUB_GROUP);
        }
        group_barrier(&item);
        let pipe = Pipeline::<STAGES>::attach(bars);
        let ring = LocalAccessor::<0, { STAGES * TILE_FLOATS }>::new();
        if item.get_local_id() == 0 {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut t = item.get_group();
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    input.add((t * TILE_FLOATS) as usize) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                t += item.get_group_range();
            }
            pipe.producer_tail(state);
        } else if item.get_sub_group_id() == 1 {
            let lane = item.get_sub_group_local_id();
            let mut state = PipelineState::<STAGES>::new();
            let mut sum = 0.0f32;
            let mut t = item.get_group();
            while t < tiles {
                pipe.consumer_wait(&state);
                let base = state.index() * TILE_FLOATS;
                for r in 0..8 {
                    sum += ring.read(base + r * 32 + lane);
                }
                if t + item.get_group_range() < tiles {
                    pipe.consumer_release(&state);
                    state.advance();
                }
                t += item.get_group_range();
            }
            *out.add((item.get_group() * 32 + lane) as usize) = sum;
        }
    });
}

/// BROKEN: the input is read as a padded buffer with a row pitch of 258 floats per tile (a
/// pitch meant for the local accessor), so the bulk copy's source is `t * 1032` bytes into the
/// input: 8 bytes off the 16-byte alignment a bulk copy needs for every odd tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_sycl_bad_source_pitch(input: *const f32, tiles: u32, out: *mut f32) {
    const PITCH: u32 = TILE_FLOATS + 2;
    parallel_for(|item| {
        let window = dynamic_shared_window_address();
        let bars = window + RING_BYTES;
        if item.get_local_id() == 0 {
            Pipeline::<STAGES>::init(bars, SUB_GROUP);
        }
        group_barrier(&item);
        let pipe = Pipeline::<STAGES>::attach(bars);
        let ring = LocalAccessor::<0, { STAGES * TILE_FLOATS }>::new();
        if item.get_local_id() == 0 {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut t = item.get_group();
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    input.add((t * PITCH) as usize) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                t += item.get_group_range();
            }
            pipe.producer_tail(state);
        } else if item.get_sub_group_id() == 1 {
            let lane = item.get_sub_group_local_id();
            let mut state = PipelineState::<STAGES>::new();
            let mut sum = 0.0f32;
            let mut t = item.get_group();
            while t < tiles {
                pipe.consumer_wait(&state);
                let base = state.index() * TILE_FLOATS;
                for r in 0..8 {
                    sum += ring.read(base + r * 32 + lane);
                }
                pipe.consumer_release(&state);
                state.advance();
                t += item.get_group_range();
            }
            *out.add((item.get_group() * 32 + lane) as usize) = sum;
        }
    });
}

/// BROKEN: only one `group_barrier` per tile, between staging and reading: sub-group 1 goes
/// straight on to stage the next tile over the one sub-group 0 is still reading.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_sycl_bad_missing_second_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    parallel_for(|item| {
        let tile = LocalAccessor::<0, TILE_FLOATS>::new();
        let id = item.get_local_id();
        let mut sum = 0.0f32;
        let mut t = item.get_group();
        while t < tiles {
            stage_tile(&tile, input, t, id);
            group_barrier(&item);
            if item.get_sub_group_id() == 0 {
                for r in 0..8 {
                    sum += tile.read(r * 32 + id);
                }
            }
            t += item.get_group_range();
        }
        if item.get_sub_group_id() == 0 {
            *out.add((item.get_group() * 32 + id) as usize) = sum;
        }
    });
}

/// BROKEN: both sub-groups store their partial sums at `partials[lane]` (the sub-group's offset
/// forgotten): the two warps write the same 32 slots, and `partials[32 + lane]`, which
/// sub-group 0 adds, is never written.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r41_sycl_bad_partial_slot_shared(input: *const f32, tiles: u32, out: *mut f32) {
    parallel_for(|item| {
        let tile = LocalAccessor::<0, TILE_FLOATS>::new();
        let partials = LocalAccessor::<{ TILE_BYTES + 512 }, 64>::new();
        let id = item.get_local_id();
        let sg = item.get_sub_group_id();
        let lane = item.get_sub_group_local_id();
        let mut sum = 0.0f32;
        let mut t = item.get_group();
        while t < tiles {
            stage_tile(&tile, input, t, id);
            group_barrier(&item);
            for r in 0..4 {
                sum += tile.read((sg * 4 + r) * 32 + lane);
            }
            group_barrier(&item);
            t += item.get_group_range();
        }
        partials.write(lane, sum);
        group_barrier(&item);
        if sg == 0 {
            *out.add((item.get_group() * 32 + lane) as usize) = partials.read(lane) + partials.read(32 + lane);
        }
    });
}
