//! Style `quad`: stages are read as 16-byte quads (`#[repr(C, align(16))] Quad([f32; 4])`,
//! one vector load each): a tile is 8 rows of 8 quads. Lanes own quad columns and row groups,
//! and their four-wide partials are combined by segment sums or through a quad scratch.
//!
//! Layout: four 1 KiB stages from byte 0, barriers at 4096, scratch after them. Thread 32
//! produces; the consumers are warp 0 (or a part of it where a kernel says so).

use crate::device::launch;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::reduce::segment_sum;
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

#[repr(C, align(16))]
#[derive(Clone, Copy, Default)]
struct Quad([f32; 4]);

impl Quad {
    #[inline(always)]
    fn add(self, other: Quad) -> Quad {
        let (a, b) = (self.0, other.0);
        Quad([a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]])
    }
}

const STAGES: u32 = 4;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const TILE_QUADS: usize = 64;
const ROW_QUADS: usize = 8;
const ROWS: usize = 8;
const COLS: usize = 32;
const CONSUMERS: u32 = 32;
const PRODUCER: u32 = 32;
const BARS_AT: u32 = STAGES * TILE_BYTES;
const SCRATCH_AT: u32 = BARS_AT + pipeline_barrier_bytes(STAGES);

#[inline(always)]
fn contract() {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
}

#[inline(always)]
fn open(tid: u32) -> Pipeline<STAGES> {
    open_for(tid, CONSUMERS)
}

#[inline(always)]
fn open_for(tid: u32, consumers: u32) -> Pipeline<STAGES> {
    let bars = dynamic_shared_window_address() + BARS_AT;
    let pipe = if tid == 0 { Pipeline::init(bars, consumers) } else { Pipeline::attach(bars) };
    barrier();
    pipe
}

#[inline(always)]
fn quads() -> *const Quad {
    dynamic_shared_base::<Quad>()
}

#[inline(always)]
unsafe fn produce(pipe: &Pipeline<STAGES>, input: *const f32, tiles: u32) {
    let window = dynamic_shared_window_address();
    let mut st = PipelineState::<STAGES>::producer_start();
    let mut t = block_idx_x();
    while t < tiles {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, TILE_BYTES);
        bulk_copy_global_to_shared(
            window + st.index() * TILE_BYTES,
            input.add(t as usize * TILE_FLOATS) as *const u8,
            TILE_BYTES,
            pipe.producer_barrier(&st),
        );
        st.advance();
        t += grid_dim_x();
    }
    pipe.producer_tail(st);
}

/// Lane `l` holds quad column `l / 4` summed over rows `l % 4` and `l % 4 + 4`; the four lanes
/// of a quad column are one aligned segment, so a segment sum of each component finishes the
/// column and the segment's first lane writes the four columns.
#[inline(always)]
unsafe fn write_segments(acc: Quad, lane: u32, out: *mut f32) {
    let q = (lane / 4) as usize;
    for j in 0..4 {
        let total = segment_sum(acc.0[j], 4);
        if lane % 4 == 0 {
            *out.add(block_idx_x() as usize * COLS + q * 4 + j) = total;
        }
    }
}

/// The consumers of `write_segments`: two quads of each tile per lane.
#[inline(always)]
unsafe fn consume_pairs(pipe: &Pipeline<STAGES>, tiles: u32, lane: u32) -> Quad {
    let (q, k) = ((lane / 4) as usize, (lane % 4) as usize);
    let mut st = PipelineState::<STAGES>::new();
    let mut acc = Quad::default();
    let mut t = block_idx_x();
    while t < tiles {
        pipe.consumer_wait(&st);
        let stage = quads().add(st.index() as usize * TILE_QUADS);
        let (upper, lower) = (*stage.add(k * ROW_QUADS + q), *stage.add((k + 4) * ROW_QUADS + q));
        acc = acc.add(upper).add(lower);
        pipe.consumer_release(&st);
        st.advance();
        t += grid_dim_x();
    }
    acc
}

// ---------------------------------------------------------------- correct

/// Two quads per lane and tile; columns finished by four-lane segment sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_quad_segment_sum(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid);
    if tid == PRODUCER {
        produce(&pipe, input, tiles);
    } else if tid < CONSUMERS {
        let acc = consume_pairs(&pipe, tiles, tid);
        write_segments(acc, tid, out);
    }
}

/// Eight consumers (the barriers initialised for eight), each walking one quad column down
/// all eight rows and writing four columns.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_quad_eight_consumers(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    const READERS: u32 = 8;
    let tid = thread_idx_x();
    let pipe = open_for(tid, READERS);
    if tid == PRODUCER {
        produce(&pipe, input, tiles);
    } else if tid < READERS {
        let q = tid as usize;
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = Quad::default();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = quads().add(st.index() as usize * TILE_QUADS);
            for r in 0..ROWS {
                acc = acc.add(*stage.add(r * ROW_QUADS + q));
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        for j in 0..4 {
            *out.add(block_idx_x() as usize * COLS + q * 4 + j) = acc.0[j];
        }
    }
}

/// Lane `l` reads quads `l` and `l + 32` (rows `l / 8` and `l / 8 + 4`, quad column `l % 8`),
/// parks its quad in scratch after the barriers, and warp 1 adds each column's four quads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_quad_scratch_combine(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid);
    let scratch = dynamic_shared_base::<u8>().add(SCRATCH_AT as usize) as *mut Quad;
    if tid == PRODUCER {
        produce(&pipe, input, tiles);
    } else if tid < CONSUMERS {
        let l = tid as usize;
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = Quad::default();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = quads().add(st.index() as usize * TILE_QUADS);
            acc = acc.add(*stage.add(l)).add(*stage.add(l + TILE_QUADS / 2));
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *scratch.add(l) = acc;
    }
    barrier();
    if tid >= 32 {
        let c = (tid - 32) as usize;
        let (q, j) = (c / 4, c % 4);
        let mut total = 0.0f32;
        for m in 0..4 {
            total += (*scratch.add(q + ROW_QUADS * m)).0[j];
        }
        *out.add(block_idx_x() as usize * COLS + c) = total;
    }
}

/// The stage as a `&[Quad]`; lanes 0..8 walk their quad column with `skip` and `step_by`,
/// every lane of the warp waits and releases.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_quad_slice_lanes(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid);
    if tid == PRODUCER {
        produce(&pipe, input, tiles);
    } else if tid < CONSUMERS {
        let q = tid as usize;
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = Quad::default();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            if q < ROW_QUADS {
                let tile = core::slice::from_raw_parts(quads().add(st.index() as usize * TILE_QUADS), TILE_QUADS);
                for quad in tile.iter().skip(q).step_by(ROW_QUADS) {
                    acc = acc.add(*quad);
                }
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        if q < ROW_QUADS {
            for j in 0..4 {
                *out.add(block_idx_x() as usize * COLS + q * 4 + j) = acc.0[j];
            }
        }
    }
}

const HALF_BYTES: u32 = TILE_BYTES / 2;
const HALF_FLOATS: usize = TILE_FLOATS / 2;

/// Each stage filled by two half-tile copies (rows 0..4, rows 4..8) under one `expect_tx`;
/// consumers as in `r33_quad_segment_sum`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_quad_half_copies(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid);
    if tid == PRODUCER {
        let window = dynamic_shared_window_address();
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let (dst, src) = (window + st.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS));
            bulk_copy_global_to_shared(dst, src as *const u8, HALF_BYTES, pipe.producer_barrier(&st));
            bulk_copy_global_to_shared(dst + HALF_BYTES, src.add(HALF_FLOATS) as *const u8, HALF_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < CONSUMERS {
        let acc = consume_pairs(&pipe, tiles, tid);
        write_segments(acc, tid, out);
    }
}

// ---------------------------------------------------------------- broken

/// BROKEN: the stage pointer steps the quad pointer by `TILE_FLOATS` (256 quads, 4 KiB) per
/// stage instead of `TILE_QUADS`: stage 1 reads the barriers and stages 2 and 3 lie past the
/// 8 KiB window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_quad_bad_stage_in_floats(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid);
    if tid == PRODUCER {
        produce(&pipe, input, tiles);
    } else if tid < CONSUMERS {
        let (q, k) = ((tid / 4) as usize, (tid % 4) as usize);
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = Quad::default();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = quads().add(st.index() as usize * TILE_FLOATS);
            acc = acc.add(*stage.add(k * ROW_QUADS + q)).add(*stage.add((k + 4) * ROW_QUADS + q));
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        write_segments(acc, tid, out);
    }
}

/// BROKEN: the eight-reader kernel sets up its pipeline with the module's `open`, which
/// initialises the empty barriers for 32 consumers: 8 releases never free a stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_quad_bad_eight_of_32(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    const READERS: u32 = 8;
    let tid = thread_idx_x();
    let pipe = open(tid);
    if tid == PRODUCER {
        produce(&pipe, input, tiles);
    } else if tid < READERS {
        let q = tid as usize;
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = Quad::default();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = quads().add(st.index() as usize * TILE_QUADS);
            for r in 0..ROWS {
                acc = acc.add(*stage.add(r * ROW_QUADS + q));
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        for j in 0..4 {
            *out.add(block_idx_x() as usize * COLS + q * 4 + j) = acc.0[j];
        }
    }
}

/// BROKEN: to overlap the loads with the wait, the lane loads its two quads from the stage
/// before `consumer_wait`: it sums whatever the stage held before the copy landed.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_quad_bad_prefetch(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid);
    if tid == PRODUCER {
        produce(&pipe, input, tiles);
    } else if tid < CONSUMERS {
        let (q, k) = ((tid / 4) as usize, (tid % 4) as usize);
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = Quad::default();
        let mut t = block_idx_x();
        while t < tiles {
            let stage = quads().add(st.index() as usize * TILE_QUADS);
            let (upper, lower) = (*stage.add(k * ROW_QUADS + q), *stage.add((k + 4) * ROW_QUADS + q));
            pipe.consumer_wait(&st);
            acc = acc.add(upper).add(lower);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        write_segments(acc, tid, out);
    }
}

/// BROKEN: the second half-tile copy goes to the stage's start too (its `+ HALF_BYTES` is
/// missing on the destination): rows 4..8 of every stage are never written.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_quad_bad_halves_same_dest(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid);
    if tid == PRODUCER {
        let window = dynamic_shared_window_address();
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let (dst, src) = (window + st.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS));
            bulk_copy_global_to_shared(dst, src as *const u8, HALF_BYTES, pipe.producer_barrier(&st));
            bulk_copy_global_to_shared(dst, src.add(HALF_FLOATS) as *const u8, HALF_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < CONSUMERS {
        let acc = consume_pairs(&pipe, tiles, tid);
        write_segments(acc, tid, out);
    }
}

/// BROKEN: the stage announces `size_of::<[Quad; 64]>()` bytes (1024) but the copy's length
/// is counted in floats' bytes (`TILE_QUADS * 4` = 256): the full barrier never completes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r33_quad_bad_tx_in_words(input: *const f32, tiles: u32, out: *mut f32) {
    contract();
    let tid = thread_idx_x();
    let pipe = open(tid);
    if tid == PRODUCER {
        let window = dynamic_shared_window_address();
        let announced = core::mem::size_of::<[Quad; TILE_QUADS]>() as u32;
        let copied = (TILE_QUADS * core::mem::size_of::<f32>()) as u32;
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, announced);
            let src = input.add(t as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, src, copied, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < CONSUMERS {
        let acc = consume_pairs(&pipe, tiles, tid);
        write_segments(acc, tid, out);
    }
}
