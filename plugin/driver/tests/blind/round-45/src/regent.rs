//! Legion/Regent-style kernels: the shared window is a logical region, partitioned into stage
//! subregions; tasks take their regions with privileges spelled as types (`Reads`, `Writes`),
//! and roles are tasks launched over index spaces (`IndexSpace`, `index_launch`).
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const ELEMS: u32 = 256;
const ELEM_BYTES: u32 = 4;
const FIELD_BYTES: u32 = ELEMS * ELEM_BYTES;

/// An index space `lo..hi` stepped by `step`.
#[derive(Clone, Copy)]
struct IndexSpace { lo: u32, hi: u32, step: u32 }

impl IndexSpace {
    #[inline(always)]
    fn owned_tiles(tiles: u32) -> IndexSpace { IndexSpace { lo: block_idx_x(), hi: tiles, step: grid_dim_x() } }
}

#[inline(always)]
fn index_launch(is: IndexSpace, mut task: impl FnMut(u32)) {
    let mut p = is.lo;
    while p < is.hi { task(p); p += is.step; }
}

/// The window as a logical region: a partition of `STAGES` equal subregions of `FIELD_BYTES`.
#[derive(Clone, Copy)]
struct Partition<const STAGES: u32> { window: u32 }

impl<const STAGES: u32> Partition<STAGES> {
    #[inline(always)]
    fn subregion(&self, color: u32) -> u32 { self.window + color * FIELD_BYTES }
    #[inline(always)]
    fn barriers(&self) -> u32 { self.window + STAGES * FIELD_BYTES }
}

/// Privilege markers.
struct Reads(*const f32);
struct Writes(*mut f32);

impl Reads {
    #[inline(always)]
    unsafe fn field(&self, color: u32, row: u32, col: u32) -> f32 { *self.0.add((color * ELEMS + row * 32 + col) as usize) }
}

#[inline(always)]
unsafe fn writes_field(w: &Writes, p: u32, c: u32, v: f32) { *w.0.add((p * 32 + c) as usize) = v; }

#[inline(always)]
unsafe fn init_task<const S: u32>(bars: u32) -> Pipeline<S> {
    if thread_idx_x() == 0 { Pipeline::<S>::init(bars, 32); }
    barrier();
    Pipeline::<S>::attach(bars)
}

#[inline(always)]
unsafe fn fill_task<const S: u32>(pipe: &Pipeline<S>, part: Partition<S>, input: *const f32, is: IndexSpace) {
    let mut st = PipelineState::<S>::producer_start();
    index_launch(is, |t| {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, FIELD_BYTES);
        bulk_copy_global_to_shared(part.subregion(st.index()), input.add((t * ELEMS) as usize) as *const u8, FIELD_BYTES, pipe.producer_barrier(&st));
        st.advance();
    });
    pipe.producer_tail(st);
}

#[inline(always)]
unsafe fn sum_task<const S: u32>(pipe: &Pipeline<S>, region: Reads, c: u32, is: IndexSpace) -> f32 {
    let mut st = PipelineState::<S>::new();
    let mut acc = 0.0f32;
    index_launch(is, |_t| {
        pipe.consumer_wait(&st);
        for r in 0..8 { acc += region.field(st.index(), r, c); }
        pipe.consumer_release(&st);
        st.advance();
    });
    acc
}

// Fill and sum tasks launched over the block's index space, four subregions.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_regent_index_launch(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let part = Partition::<4> { window: dynamic_shared_window_address() };
    let pipe = init_task::<4>(part.barriers());
    let tid = thread_idx_x();
    if tid == 32 {
        fill_task(&pipe, part, input, IndexSpace::owned_tiles(tiles));
    } else if tid < 32 {
        let acc = sum_task(&pipe, Reads(dynamic_shared_base::<f32>()), tid, IndexSpace::owned_tiles(tiles));
        writes_field(&Writes(out), block_idx_x(), tid, acc);
    }
}

// The sum task keeps its previous subregion mapped until the next one is ready (peeled first).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_regent_hold_previous(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let part = Partition::<4> { window: dynamic_shared_window_address() };
    let pipe = init_task::<4>(part.barriers());
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        fill_task(&pipe, part, input, IndexSpace::owned_tiles(tiles));
    } else if tid < 32 {
        let region = Reads(dynamic_shared_base::<f32>());
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        if t < tiles {
            pipe.consumer_wait(&st);
            for r in 0..8 { acc += region.field(st.index(), r, tid); }
            let mut prev = st;
            st.advance();
            t += g;
            while t < tiles {
                pipe.consumer_wait(&st);
                for r in 0..8 { acc += region.field(st.index(), r, tid); }
                pipe.consumer_release(&prev);
                prev = st;
                st.advance();
                t += g;
            }
            pipe.consumer_release(&prev);
        }
        writes_field(&Writes(out), b, tid, acc);
    }
}

// No pipeline: the region is written by every thread, a barrier, then read by the sum task.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_regent_plain_region(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let w = Writes(dynamic_shared_base::<f32>());
    let tid = thread_idx_x();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        for k in 0..4u32 { *w.0.add((tid + 64 * k) as usize) = *input.add((t * ELEMS + tid + 64 * k) as usize); }
        barrier();
        if tid < 32 {
            let r = Reads(w.0);
            for row in 0..8 { acc += r.field(0, row, tid); }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < 32 { writes_field(&Writes(out), block_idx_x(), tid, acc); }
}

// Each subregion is filled by two half-field copies (two child regions) under one announcement.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_regent_split_partition(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let part = Partition::<3> { window: dynamic_shared_window_address() };
    let pipe = init_task::<3>(part.barriers());
    let tid = thread_idx_x();
    const HALF: u32 = FIELD_BYTES / 2;
    if tid == 48 {
        let mut st = PipelineState::<3>::producer_start();
        index_launch(IndexSpace::owned_tiles(tiles), |t| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, FIELD_BYTES);
            let src = input.add((t * ELEMS) as usize) as *const u8;
            bulk_copy_global_to_shared(part.subregion(st.index()), src, HALF, pipe.producer_barrier(&st));
            bulk_copy_global_to_shared(part.subregion(st.index()) + HALF, src.add(HALF as usize), HALF, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let acc = sum_task(&pipe, Reads(dynamic_shared_base::<f32>()), tid, IndexSpace::owned_tiles(tiles));
        writes_field(&Writes(out), block_idx_x(), tid, acc);
    }
}

/// Colour of the subregion the next fill writes (colours start at 1 in the mapper's numbering).
#[inline(always)]
fn fill_color<const S: u32>(index: u32) -> u32 { (index + 1) % S }

// The fill task maps its subregion through the mapper's colour.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_regent_bad_mapper_color(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let part = Partition::<4> { window: dynamic_shared_window_address() };
    let pipe = init_task::<4>(part.barriers());
    let tid = thread_idx_x();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        index_launch(IndexSpace::owned_tiles(tiles), |t| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, FIELD_BYTES);
            bulk_copy_global_to_shared(part.subregion(fill_color::<4>(st.index())), input.add((t * ELEMS) as usize) as *const u8, FIELD_BYTES, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let acc = sum_task(&pipe, Reads(dynamic_shared_base::<f32>()), tid, IndexSpace::owned_tiles(tiles));
        writes_field(&Writes(out), block_idx_x(), tid, acc);
    }
}

// The sum task's read privilege is exercised when the task is mapped, before it waits.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_regent_bad_early_mapping(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let part = Partition::<4> { window: dynamic_shared_window_address() };
    let pipe = init_task::<4>(part.barriers());
    let tid = thread_idx_x();
    if tid == 32 {
        fill_task(&pipe, part, input, IndexSpace::owned_tiles(tiles));
    } else if tid < 32 {
        let region = Reads(dynamic_shared_base::<f32>());
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        index_launch(IndexSpace::owned_tiles(tiles), |_t| {
            let mut mapped = 0.0f32;
            for r in 0..8 { mapped += region.field(st.index(), r, tid); }
            pipe.consumer_wait(&st);
            acc += mapped;
            pipe.consumer_release(&st);
            st.advance();
        });
        writes_field(&Writes(out), block_idx_x(), tid, acc);
    }
}

/// Barriers packed at the end of the partition's own bytes.
#[inline(always)]
fn barrier_region<const S: u32>(window: u32) -> u32 { window + S * FIELD_BYTES - pipeline_barrier_bytes(S) }

// The barrier region is carved from the tail of the stage partition.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_regent_bad_barrier_region(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let part = Partition::<4> { window: dynamic_shared_window_address() };
    let pipe = init_task::<4>(barrier_region::<4>(part.window));
    let tid = thread_idx_x();
    if tid == 32 {
        fill_task(&pipe, part, input, IndexSpace::owned_tiles(tiles));
    } else if tid < 32 {
        let acc = sum_task(&pipe, Reads(dynamic_shared_base::<f32>()), tid, IndexSpace::owned_tiles(tiles));
        writes_field(&Writes(out), block_idx_x(), tid, acc);
    }
}

// No pipeline: the region is filled, the sum task reads it, the barrier closes the launch.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_regent_bad_plain_fence_late(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let w = Writes(dynamic_shared_base::<f32>());
    let tid = thread_idx_x();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        for k in 0..4u32 { *w.0.add((tid + 64 * k) as usize) = *input.add((t * ELEMS + tid + 64 * k) as usize); }
        if tid < 32 {
            let r = Reads(w.0);
            for row in 0..8 { acc += r.field(0, row, tid); }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < 32 { writes_field(&Writes(out), block_idx_x(), tid, acc); }
}
