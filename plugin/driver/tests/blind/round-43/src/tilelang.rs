//! Style 3 (`tilelang`): TileLang-like kernels.
//!
//! `for k in T.Pipelined(range(bx, tiles, grid), num_stages=S)` is the [`Pipelined`] runner: it
//! owns the ring and its barriers and drives the loop; the kernel plugs its producer body (the
//! `T.copy` verbs of one tile) and its consumer body (the `T.reduce` verbs) into it as closures or
//! as a [`TileProgram`] trait impl.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

/// `T.Kernel(.., threads=64)`.
const THREADS: u32 = 64;
const SMEM_BYTES: u32 = 8192;
const ROWS: u32 = 8;
const COLS: u32 = 32;
const TILE_FLOATS: u32 = ROWS * COLS;
const TILE_BYTES: u32 = TILE_FLOATS * 4;
const HALF_FLOATS: u32 = TILE_FLOATS / 2;
const HALF_BYTES: u32 = TILE_BYTES / 2;

/// `T.Pipelined(range(first, end, step), num_stages=NUM_STAGES)` over one ring of tiles.
struct Pipelined<const NUM_STAGES: u32> {
    pipe: Pipeline<NUM_STAGES>,
    /// Shared-window address of stage 0 of `A_shared`.
    ring_addr: u32,
    /// Generic pointer to stage 0 of `A_shared`.
    ring: *mut f32,
    first: u32,
    step: u32,
    end: u32,
}

impl<const NUM_STAGES: u32> Pipelined<NUM_STAGES> {
    /// Lays out `A_shared` at `ring_off` and the barriers at `bars_off` of the window; thread 0
    /// initialises them for `consumers` releasing threads, then the whole block syncs.
    #[inline(always)]
    unsafe fn new(ring_off: u32, bars_off: u32, consumers: u32, tiles: u32) -> Self {
        let window = dynamic_shared_window_address();
        if thread_idx_x() == 0 {
            Pipeline::<NUM_STAGES>::init(window + bars_off, consumers);
        }
        barrier();
        Self::attached(window, ring_off, bars_off, tiles)
    }

    #[inline(always)]
    unsafe fn attached(window: u32, ring_off: u32, bars_off: u32, tiles: u32) -> Self {
        Pipelined {
            pipe: Pipeline::<NUM_STAGES>::attach(window + bars_off),
            ring_addr: window + ring_off,
            ring: dynamic_shared_base::<f32>().add((ring_off / 4) as usize),
            first: block_idx_x(),
            step: grid_dim_x(),
            end: tiles,
        }
    }

    /// The position the pipelined loop's stage iterator starts from.
    #[inline(always)]
    fn stage_iter(&self) -> PipelineState<NUM_STAGES> {
        PipelineState::<NUM_STAGES>::producer_start()
    }

    /// Shared-window address of the stage `st` points at.
    #[inline(always)]
    fn stage_addr(&self, st: &PipelineState<NUM_STAGES>) -> u32 {
        self.ring_addr + st.index() * TILE_BYTES
    }

    /// `A_shared[idx]`.
    #[inline(always)]
    unsafe fn stage(&self, idx: u32) -> *const f32 {
        self.ring.add((idx * TILE_FLOATS) as usize)
    }

    /// Producer side: for every `k`, acquire a stage, announce `bytes`, let `load` issue the
    /// copies of tile `k`, advance; then drain.
    #[inline(always)]
    unsafe fn produce(
        &self,
        bytes: u32,
        mut load: impl FnMut(&Pipeline<NUM_STAGES>, &PipelineState<NUM_STAGES>, u32),
    ) {
        let mut st = self.stage_iter();
        let mut k = self.first;
        while k < self.end {
            self.pipe.producer_acquire(&st);
            self.pipe.producer_expect_tx(&st, bytes);
            load(&self.pipe, &st, k);
            st.advance();
            k += self.step;
        }
        self.pipe.producer_tail(st);
    }

    /// Consumer side from a given start: for every `k`, wait, `compute(stage index)`, release,
    /// advance.
    #[inline(always)]
    unsafe fn consume_from(&self, start: PipelineState<NUM_STAGES>, mut compute: impl FnMut(u32)) {
        let mut st = start;
        let mut k = self.first;
        while k < self.end {
            self.pipe.consumer_wait(&st);
            compute(st.index());
            self.pipe.consumer_release(&st);
            st.advance();
            k += self.step;
        }
    }

    #[inline(always)]
    unsafe fn consume(&self, compute: impl FnMut(u32)) {
        self.consume_from(PipelineState::<NUM_STAGES>::new(), compute)
    }

    /// A program's two bodies plugged into the two sides.
    #[inline(always)]
    unsafe fn run_producer<P: TileProgram<NUM_STAGES>>(&self, prog: &mut P) {
        self.produce(P::STAGE_BYTES, |pipe, st, k| prog.load(pipe, self.stage_addr(st), st, k));
    }

    #[inline(always)]
    unsafe fn run_consumer<P: TileProgram<NUM_STAGES>>(&self, prog: &mut P) {
        self.consume(|idx| prog.compute(self.stage(idx)));
    }
}

/// A TileLang program: what one tile loads and what it computes.
trait TileProgram<const NUM_STAGES: u32> {
    const STAGE_BYTES: u32;
    unsafe fn load(&mut self, pipe: &Pipeline<NUM_STAGES>, dst: u32, st: &PipelineState<NUM_STAGES>, k: u32);
    unsafe fn compute(&mut self, stage: *const f32);
}

/// `T.copy(A[k, off:off + bytes / 4], A_shared[stage, ..])`: one bulk copy into `dst`.
#[inline(always)]
unsafe fn copy<const S: u32>(
    pipe: &Pipeline<S>,
    st: &PipelineState<S>,
    dst: u32,
    a: *const f32,
    src_off: u32,
    bytes: u32,
) {
    bulk_copy_global_to_shared(dst, a.add(src_off as usize) as *const u8, bytes, pipe.producer_barrier(st));
}

/// `T.reduce_sum(A_shared[row_lo:row_hi, c], acc)`.
#[inline(always)]
unsafe fn reduce(stage: *const f32, row_lo: u32, row_hi: u32, c: u32, acc: &mut f32) {
    let mut r = row_lo;
    while r < row_hi {
        *acc += *stage.add((r * COLS + c) as usize);
        r += 1;
    }
}

/// The column-sum program of [`r43_tilelang_trait_program`].
struct ColumnSum {
    a: *const f32,
    col: u32,
    acc: f32,
}

impl<const S: u32> TileProgram<S> for ColumnSum {
    const STAGE_BYTES: u32 = TILE_BYTES;

    #[inline(always)]
    unsafe fn load(&mut self, pipe: &Pipeline<S>, dst: u32, st: &PipelineState<S>, k: u32) {
        copy(pipe, st, dst, self.a, k * TILE_FLOATS, TILE_BYTES);
    }

    #[inline(always)]
    unsafe fn compute(&mut self, stage: *const f32) {
        reduce(stage, 0, ROWS, self.col, &mut self.acc);
    }
}

// ================================================================ correct kernels

/// Correct. `T.Pipelined(num_stages=4)` with closure bodies: thread 32 runs the producer side
/// (`T.copy` of the whole tile), threads 0..32 the consumer side (`T.reduce` of their column).
/// Ring at byte 0, barriers at 4096.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_tilelang_pipelined_closures(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tx = thread_idx_x();
    let p = Pipelined::<4>::new(0, 4 * TILE_BYTES, COLS, tiles);
    if tx == COLS {
        p.produce(TILE_BYTES, |pipe, st, k| copy(pipe, st, p.stage_addr(st), input, k * TILE_FLOATS, TILE_BYTES));
    } else if tx < COLS {
        let mut acc = 0.0f32;
        p.consume(|idx| reduce(p.stage(idx), 0, ROWS, tx, &mut acc));
        *out.add((block_idx_x() * COLS + tx) as usize) = acc;
    }
}

/// Correct. The same loop driven through the [`TileProgram`] trait (`ColumnSum`), three stages
/// with the barriers at byte 0 and the ring from byte 1024; thread 0 produces, the second warp
/// consumes (`col = tx - 32`).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_tilelang_trait_program(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tx = thread_idx_x();
    let p = Pipelined::<3>::new(1024, 0, COLS, tiles);
    if tx == 0 {
        let mut prog = ColumnSum { a: input, col: 0, acc: 0.0 };
        p.run_producer(&mut prog);
    } else if tx >= COLS {
        let mut prog = ColumnSum { a: input, col: tx - COLS, acc: 0.0 };
        p.run_consumer(&mut prog);
        *out.add((block_idx_x() * COLS + prog.col) as usize) = prog.acc;
    }
}

/// Correct, with an unusual layout on purpose: `A_shared` is split into two rings, rows 0..4 of
/// every tile in ring A (stages of 512 bytes from byte 0) and rows 4..8 in ring B (from byte
/// 2048), so each stage is filled by two `T.copy` of 512 bytes into two separate rings under one
/// `expect_tx` of 1024 bytes. Barriers at byte 4096.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_tilelang_split_rings(input: *const f32, tiles: u32, out: *mut f32) {
    const RING_B: u32 = 4 * HALF_BYTES;
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tx = thread_idx_x();
    let p = Pipelined::<4>::new(0, 8 * HALF_BYTES, COLS, tiles);
    if tx == COLS {
        let window = p.ring_addr;
        p.produce(TILE_BYTES, |pipe, st, k| {
            copy(pipe, st, window + st.index() * HALF_BYTES, input, k * TILE_FLOATS, HALF_BYTES);
            copy(pipe, st, window + RING_B + st.index() * HALF_BYTES, input, k * TILE_FLOATS + HALF_FLOATS, HALF_BYTES);
        });
    } else if tx < COLS {
        let ring = p.ring;
        let mut acc = 0.0f32;
        p.consume(|idx| {
            reduce(ring.add((idx * HALF_FLOATS) as usize), 0, ROWS / 2, tx, &mut acc);
            reduce(ring.add((RING_B / 4 + idx * HALF_FLOATS) as usize), 0, ROWS / 2, tx, &mut acc);
        });
        *out.add((block_idx_x() * COLS + tx) as usize) = acc;
    }
}

/// Correct. Plain shared memory, `num_stages = 2` done by hand as TileLang lowers it without
/// async copies: all 64 threads `T.copy` the next tile into buffer `buf ^ 1` while threads 0..32
/// reduce buffer `buf`, one block barrier per tile (the buffer written in a pass was last read
/// before the previous barrier).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_tilelang_plain_double_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tx = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let a_shared = dynamic_shared_base::<f32>();
    let stage_in = |buf: u32, k: u32| {
        for e in 0..4u32 {
            let i = e * THREADS + tx;
            *a_shared.add((buf * TILE_FLOATS + i) as usize) = *input.add((k * TILE_FLOATS + i) as usize);
        }
    };
    let mut acc = 0.0f32;
    let mut k = b;
    let mut buf = 0u32;
    if k < tiles {
        stage_in(0, k);
    }
    barrier();
    while k < tiles {
        let next = k + g;
        if next < tiles {
            stage_in(buf ^ 1, next);
        }
        if tx < COLS {
            reduce(a_shared.add((buf * TILE_FLOATS) as usize), 0, ROWS, tx, &mut acc);
        }
        barrier();
        buf ^= 1;
        k = next;
    }
    if tx < COLS {
        *out.add((b * COLS + tx) as usize) = acc;
    }
}

// ================================================================ broken kernels

/// BROKEN (state-provenance): the consumer side is started from the runner's `stage_iter()`, the
/// producer's start (phase 1), instead of a consumer state. Its first wait on every stage returns
/// at once on the fresh barriers, so the first four tiles are read before their copies land (and
/// later tiles from the stage's previous fill): wrong sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_tilelang_bad_consumer_stage_iter(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tx = thread_idx_x();
    let p = Pipelined::<4>::new(0, 4 * TILE_BYTES, COLS, tiles);
    if tx == COLS {
        p.produce(TILE_BYTES, |pipe, st, k| copy(pipe, st, p.stage_addr(st), input, k * TILE_FLOATS, TILE_BYTES));
    } else if tx < COLS {
        let mut acc = 0.0f32;
        p.consume_from(p.stage_iter(), |idx| reduce(p.stage(idx), 0, ROWS, tx, &mut acc));
        *out.add((block_idx_x() * COLS + tx) as usize) = acc;
    }
}

/// BROKEN (expect-tx-bytes): the tile is loaded as two `T.copy` halves of 512 bytes and the
/// runner is told to announce `HALF_BYTES`, as if `expect_tx` were per copy: the stage's full
/// barrier is told 512 bytes and receives 1024. Its phase completes when the first half lands and
/// the surplus completes the next phase early, so consumers read partial and stale stages (wrong
/// sums).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_tilelang_bad_half_announced(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tx = thread_idx_x();
    let p = Pipelined::<4>::new(0, 4 * TILE_BYTES, COLS, tiles);
    if tx == COLS {
        p.produce(HALF_BYTES, |pipe, st, k| {
            let dst = p.stage_addr(st);
            copy(pipe, st, dst, input, k * TILE_FLOATS, HALF_BYTES);
            copy(pipe, st, dst + HALF_BYTES, input, k * TILE_FLOATS + HALF_FLOATS, HALF_BYTES);
        });
    } else if tx < COLS {
        let mut acc = 0.0f32;
        p.consume(|idx| reduce(p.stage(idx), 0, ROWS, tx, &mut acc));
        *out.add((block_idx_x() * COLS + tx) as usize) = acc;
    }
}

/// BROKEN (consumer-order): the consumer loop is written with TileLang's "epilogue" in mind and
/// skips the release of the last tile (`if k + step < end`), reasoning that nothing is loaded
/// after it. The producer's drain (`producer_tail`) waits for that release forever (hang).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_tilelang_bad_epilogue_keeps_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tx = thread_idx_x();
    let p = Pipelined::<4>::new(0, 4 * TILE_BYTES, COLS, tiles);
    if tx == COLS {
        p.produce(TILE_BYTES, |pipe, st, k| copy(pipe, st, p.stage_addr(st), input, k * TILE_FLOATS, TILE_BYTES));
    } else if tx < COLS {
        let mut acc = 0.0f32;
        let mut st = PipelineState::<4>::new();
        let mut k = p.first;
        while k < p.end {
            p.pipe.consumer_wait(&st);
            reduce(p.stage(st.index()), 0, ROWS, tx, &mut acc);
            if k + p.step < p.end {
                p.pipe.consumer_release(&st);
            }
            st.advance();
            k += p.step;
        }
        *out.add((block_idx_x() * COLS + tx) as usize) = acc;
    }
}

/// BROKEN (pipeline-init): the runner is built with the barriers initialised by "the last thread
/// of `T.Kernel(threads=64)`", written `tx == THREADS` (one past the last): no thread runs the
/// `init`, and the producer and consumers arrive, wait and copy on uninitialised mbarriers
/// (fault, or a hang).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r43_tilelang_bad_leader_past_block(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let tx = thread_idx_x();
    let window = dynamic_shared_window_address();
    let leader = THREADS;
    if tx == leader {
        Pipeline::<4>::init(window + 4 * TILE_BYTES, COLS);
    }
    barrier();
    let p = Pipelined::<4>::attached(window, 0, 4 * TILE_BYTES, tiles);
    if tx == COLS {
        p.produce(TILE_BYTES, |pipe, st, k| copy(pipe, st, p.stage_addr(st), input, k * TILE_FLOATS, TILE_BYTES));
    } else if tx < COLS {
        let mut acc = 0.0f32;
        p.consume(|idx| reduce(p.stage(idx), 0, ROWS, tx, &mut acc));
        *out.add((block_idx_x() * COLS + tx) as usize) = acc;
    }
}
