//! Descriptor-driven kernels: small `Copy` structs passed by value describe everything the
//! helpers need: a `RingDesc` (where the barriers and the stages are, in window bytes), a
//! `Span` (first tile, step, end), a `CopyPlan` (how a tile is split into bulk copies), a
//! `ColumnDesc` (which floats of a stage form a column) and an `SmemTile` (a tile staged in
//! plain shared memory with its row pitch). The kernel builds the descriptors once and hands
//! them to `produce`/`consume` helpers, each called once.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const THREADS: u32 = 64;
const SMEM: u32 = 8192;
const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const COLS: u32 = 32;
const ROWS: u32 = 8;

/// Where a pipeline's barriers and stages live (window bytes), as `STAGES` stages of
/// `TILE_BYTES`.
#[derive(Clone, Copy)]
struct RingDesc {
    bars: u32,
    ring: u32,
}

impl RingDesc {
    #[inline(always)]
    fn slot(self, index: u32) -> u32 {
        self.ring + index * TILE_BYTES
    }

    /// The same slot as a generic pointer, for the consumers.
    #[inline(always)]
    unsafe fn slot_ptr(self, window: u32, index: u32) -> *const f32 {
        dynamic_shared_base::<f32>().add(((self.ring - window) / 4 + index * TILE_FLOATS) as usize)
    }
}

/// Tiles `first, first + step, …` below `end`.
#[derive(Clone, Copy)]
struct Span {
    first: u32,
    step: u32,
    end: u32,
}

impl Span {
    #[inline(always)]
    fn of_block(tiles: u32) -> Span {
        Span { first: block_idx_x(), step: grid_dim_x(), end: tiles }
    }
}

#[inline(always)]
unsafe fn produce<const S: u32>(pipe: &Pipeline<S>, ring: RingDesc, span: Span, input: *const f32) {
    let mut st = PipelineState::<S>::producer_start();
    let mut t = span.first;
    while t < span.end {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, TILE_BYTES);
        bulk_copy_global_to_shared(
            ring.slot(st.index()),
            input.add((t * TILE_FLOATS) as usize) as *const u8,
            TILE_BYTES,
            pipe.producer_barrier(&st),
        );
        st.advance();
        t += span.step;
    }
    pipe.producer_tail(st);
}

#[inline(always)]
unsafe fn consume<const S: u32>(pipe: &Pipeline<S>, ring: RingDesc, window: u32, span: Span, col: u32) -> f32 {
    let mut st = PipelineState::<S>::new();
    let mut acc = 0.0f32;
    let mut t = span.first;
    while t < span.end {
        pipe.consumer_wait(&st);
        let stage = ring.slot_ptr(window, st.index());
        for r in 0..ROWS {
            acc += *stage.add((r * COLS + col) as usize);
        }
        pipe.consumer_release(&st);
        st.advance();
        t += span.step;
    }
    acc
}

/// The ring and the span passed by value to a producer helper and a consumer helper; thread 0
/// produces, threads 32..63 consume. Barriers at 0, four stages from byte 1024.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_desc_ring_by_value(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM);
    let window = dynamic_shared_window_address();
    let ring = RingDesc { bars: window, ring: window + 1024 };
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(ring.bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(ring.bars);
    let span = Span::of_block(tiles);
    if tid == 0 {
        produce(&pipe, ring, span, input);
    } else if tid >= 32 {
        let col = tid - 32;
        let sum = consume(&pipe, ring, window, span, col);
        *out.add((span.first * COLS + col) as usize) = sum;
    }
}

/// How one tile is moved: `pieces` bulk copies of `piece_bytes`, all under one `expect_tx`.
#[derive(Clone, Copy)]
struct CopyPlan {
    pieces: u32,
    piece_bytes: u32,
}

const HALVES: CopyPlan = CopyPlan { pieces: 2, piece_bytes: TILE_BYTES / 2 };

/// Each tile arrives as two 512-byte halves (a `CopyPlan` constant), both completing on the
/// stage's full barrier, which expects the plan's total.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_desc_copy_plan_halves(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM);
    let window = dynamic_shared_window_address();
    let ring = RingDesc { bars: window, ring: window + 1024 };
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(ring.bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(ring.bars);
    let span = Span::of_block(tiles);
    let plan = HALVES;
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = span.first;
        while t < span.end {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, plan.pieces * plan.piece_bytes);
            let src = input.add((t * TILE_FLOATS) as usize) as *const u8;
            for p in 0..plan.pieces {
                bulk_copy_global_to_shared(
                    ring.slot(st.index()) + p * plan.piece_bytes,
                    src.add((p * plan.piece_bytes) as usize),
                    plan.piece_bytes,
                    pipe.producer_barrier(&st),
                );
            }
            st.advance();
            t += span.step;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid - 32;
        let sum = consume(&pipe, ring, window, span, col);
        *out.add((span.first * COLS + col) as usize) = sum;
    }
}

/// Which floats of a stage form one column: `count` floats from `first`, `stride` apart.
#[derive(Clone, Copy)]
struct ColumnDesc {
    first: u32,
    stride: u32,
    count: u32,
}

#[inline(always)]
unsafe fn gather(stage: *const f32, column: ColumnDesc) -> f32 {
    let mut s = 0.0f32;
    let mut k = 0;
    while k < column.count {
        s += *stage.add((column.first + k * column.stride) as usize);
        k += 1;
    }
    s
}

/// Three stages at byte 2048, barriers at 0; the consumers describe their column once with a
/// `ColumnDesc` and hand it, by value, to a gather helper for each stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_desc_column_gather(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM);
    let window = dynamic_shared_window_address();
    let ring = RingDesc { bars: window, ring: window + 2048 };
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<3>::init(ring.bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(ring.bars);
    let span = Span::of_block(tiles);
    if tid == 0 {
        produce(&pipe, ring, span, input);
    } else if tid >= 32 {
        let column = ColumnDesc { first: tid - 32, stride: COLS, count: ROWS };
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = span.first;
        while t < span.end {
            pipe.consumer_wait(&st);
            acc += gather(ring.slot_ptr(window, st.index()), column);
            pipe.consumer_release(&st);
            st.advance();
            t += span.step;
        }
        *out.add((span.first * COLS + column.first) as usize) = acc;
    }
}

/// A tile staged in plain shared memory: `rows × cols` floats from float `base`, row pitch
/// `pitch` (padding against bank conflicts when `pitch > cols`).
#[derive(Clone, Copy)]
struct SmemTile {
    base: u32,
    cols: u32,
    pitch: u32,
}

impl SmemTile {
    #[inline(always)]
    unsafe fn at(self, row: u32, col: u32) -> *mut f32 {
        dynamic_shared_base::<f32>().add((self.base + row * self.pitch + col) as usize)
    }
}

/// Plain staging through an `SmemTile` with a padded pitch of 33 floats at byte 2048 (8 rows
/// × 33 floats fit easily): staged by all threads, summed by warp 0, two barriers per tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_desc_padded_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM);
    let tile = SmemTile { base: 512, cols: COLS, pitch: COLS + 1 };
    let tid = thread_idx_x();
    let span = Span::of_block(tiles);
    let mut acc = 0.0f32;
    let mut t = span.first;
    while t < span.end {
        let src = input.add((t * TILE_FLOATS) as usize);
        let mut e = tid;
        while e < TILE_FLOATS {
            *tile.at(e / tile.cols, e % tile.cols) = *src.add(e as usize);
            e += THREADS;
        }
        barrier();
        if tid < COLS {
            for r in 0..ROWS {
                acc += *tile.at(r, tid);
            }
        }
        barrier();
        t += span.step;
    }
    if tid < COLS {
        *out.add((span.first * COLS + tid) as usize) = acc;
    }
}

/// BROKEN: the tile descriptor's byte count comes from an element size of 8 (the `f64` version
/// of the descriptor): the producer announces 2048 bytes per stage and copies 1024, so no full
/// barrier ever completes and the consumers hang on the first stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_desc_bad_elem_size_tx(input: *const f32, tiles: u32, out: *mut f32) {
    #[derive(Clone, Copy)]
    struct TileDesc {
        floats: u32,
        elem_bytes: u32,
    }
    impl TileDesc {
        fn bytes(self) -> u32 {
            self.floats * self.elem_bytes
        }
    }
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM);
    let window = dynamic_shared_window_address();
    let ring = RingDesc { bars: window, ring: window + 1024 };
    let desc = TileDesc { floats: TILE_FLOATS, elem_bytes: 8 };
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(ring.bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(ring.bars);
    let span = Span::of_block(tiles);
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = span.first;
        while t < span.end {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, desc.bytes());
            bulk_copy_global_to_shared(
                ring.slot(st.index()),
                input.add((t * desc.floats) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += span.step;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid - 32;
        let sum = consume(&pipe, ring, window, span, col);
        *out.add((span.first * COLS + col) as usize) = sum;
    }
}

/// BROKEN: the consumers' span rounds its end up to a whole step (`end: tiles + step - 1`,
/// meant for a ceiling elsewhere): with 64 tiles over 8 blocks, blocks 0 to 6 walk a ninth
/// tile the producer, whose span ends at `tiles`, never copies, and wait for it forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_desc_bad_span_rounded_up(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM);
    let window = dynamic_shared_window_address();
    let ring = RingDesc { bars: window, ring: window + 1024 };
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(ring.bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(ring.bars);
    let span = Span::of_block(tiles);
    if tid == 0 {
        produce(&pipe, ring, span, input);
    } else if tid >= 32 {
        let col = tid - 32;
        let wide = Span { first: span.first, step: span.step, end: tiles + span.step - 1 };
        let sum = consume(&pipe, ring, window, wide, col);
        *out.add((span.first * COLS + col) as usize) = sum;
    }
}

/// BROKEN: the padded tile (pitch 33) is placed in the last KiB of shared memory, sized for an
/// unpadded tile: the padded rows take 8 × 33 floats, the end of row 7 runs past byte 8192,
/// and the stores there fault.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_desc_bad_padded_tile_at_end(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM);
    let tile = SmemTile { base: (SMEM - TILE_BYTES) / 4, cols: COLS, pitch: COLS + 1 };
    let tid = thread_idx_x();
    let span = Span::of_block(tiles);
    let mut acc = 0.0f32;
    let mut t = span.first;
    while t < span.end {
        let src = input.add((t * TILE_FLOATS) as usize);
        let mut e = tid;
        while e < TILE_FLOATS {
            *tile.at(e / tile.cols, e % tile.cols) = *src.add(e as usize);
            e += THREADS;
        }
        barrier();
        if tid < COLS {
            for r in 0..ROWS {
                acc += *tile.at(r, tid);
            }
        }
        barrier();
        t += span.step;
    }
    if tid < COLS {
        *out.add((span.first * COLS + tid) as usize) = acc;
    }
}

/// BROKEN: the ring descriptor keeps a 4-byte header (the block's tile count) in front of the
/// barriers, `bars: window + 4`: every mbarrier sits on a 4-byte boundary and the first
/// `mbarrier.init` faults on its misaligned address.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_desc_bad_header_before_bars(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM);
    let window = dynamic_shared_window_address();
    let ring = RingDesc { bars: window + 4, ring: window + 1024 };
    let header = dynamic_shared_base::<u32>();
    let tid = thread_idx_x();
    let span = Span::of_block(tiles);
    if tid == 0 {
        *header = if span.first < tiles { (tiles - span.first + span.step - 1) / span.step } else { 0 };
        Pipeline::<4>::init(ring.bars, COLS);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(ring.bars);
    if tid == 0 {
        produce(&pipe, ring, span, input);
    } else if tid >= 32 {
        let col = tid - 32;
        let sum = consume(&pipe, ring, window, span, col);
        *out.add((span.first * COLS + col) as usize) = sum;
    }
}
