//! Structs holding the pipeline, the ring and the per-role state, with methods doing each step.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = (TILE * core::mem::size_of::<f32>()) as u32;

/// Where the ring lives, seen both ways (window address for copies, generic pointer for reads).
#[derive(Clone, Copy)]
struct Ring {
    window: u32,
    base: *mut f32,
}

impl Ring {
    #[inline(always)]
    fn at(byte_offset: u32) -> Ring {
        Ring {
            window: dynamic_shared_window_address() + byte_offset,
            base: unsafe { dynamic_shared_base::<u8>().add(byte_offset as usize).cast::<f32>() },
        }
    }

    #[inline(always)]
    fn destination<const S: u32>(&self, st: &PipelineState<S>) -> u32 {
        self.window + st.index() * TILE_BYTES
    }

    #[inline(always)]
    fn stage<const S: u32>(&self, st: &PipelineState<S>) -> *const f32 {
        unsafe { self.base.add(st.index() as usize * TILE) }
    }
}

#[inline(always)]
fn tile_source(input: *const f32, t: u32) -> *const u8 {
    unsafe { input.add(t as usize * TILE).cast() }
}

// ---- a ring with methods -------------------------------------------------------------------

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_ctx_ring_methods(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let ring = Ring::at(0);
    let bars = dynamic_shared_window_address() + 4096;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring.destination(&st), tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.stage(&st);
            for r in 0..8 {
                acc += *stage.add(32 * r + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((32 * b + tid) as usize) = acc;
    }
}

// ---- role structs with a `step` method ----------------------------------------------------

struct Producer<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    ring: Ring,
    input: *const f32,
}

impl<const S: u32> Producer<S> {
    #[inline(always)]
    fn step(&mut self, t: u32) {
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        bulk_copy_global_to_shared(
            self.ring.destination(&self.state),
            tile_source(self.input, t),
            TILE_BYTES,
            self.pipe.producer_barrier(&self.state),
        );
        self.state.advance();
    }

    #[inline(always)]
    fn finish(self) {
        self.pipe.producer_tail(self.state);
    }
}

struct Consumer<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    ring: Ring,
    column: usize,
    acc: f32,
}

impl<const S: u32> Consumer<S> {
    #[inline(always)]
    fn step(&mut self) {
        self.pipe.consumer_wait(&self.state);
        let stage = self.ring.stage(&self.state);
        let mut s = 0.0;
        for r in 0..8 {
            s += unsafe { *stage.add(r * 32 + self.column) };
        }
        self.pipe.consumer_release(&self.state);
        self.state.advance();
        self.acc += s;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_ctx_role_structs(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let bars = dynamic_shared_window_address();
    let ring = Ring::at(1024);
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut p = Producer { pipe, state: PipelineState::producer_start(), ring, input };
        let mut t = b;
        while t < tiles {
            p.step(t);
            t += g;
        }
        p.finish();
    } else if tid < 32 {
        let mut c = Consumer { pipe, state: PipelineState::new(), ring, column: tid as usize, acc: 0.0 };
        let mut t = b;
        while t < tiles {
            c.step();
            t += g;
        }
        *out.add(b as usize * 32 + c.column) = c.acc;
    }
}

// ---- a work cursor struct ------------------------------------------------------------------

#[derive(Clone, Copy)]
struct Work {
    next: u32,
    step: u32,
    end: u32,
}

impl Work {
    #[inline(always)]
    fn of_block(tiles: u32) -> Work {
        Work { next: block_idx_x(), step: grid_dim_x(), end: tiles }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_ctx_work_cursor(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 5;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let mut work = Work::of_block(tiles);
    if tid == 40 {
        let mut st = PipelineState::<S>::producer_start();
        while work.next < work.end {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, tile_source(input, work.next), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            work.next += work.step;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        while work.next < work.end {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            work.next += work.step;
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

// ---- one context for the whole block, roles as methods -------------------------------------

struct Block {
    pipe: Pipeline<2>,
    ring: Ring,
    b: u32,
    g: u32,
    tiles: u32,
}

impl Block {
    #[inline(always)]
    unsafe fn setup(tiles: u32) -> Block {
        let bars = dynamic_shared_window_address() + 6144;
        if thread_idx_x() == 0 {
            Pipeline::<2>::init(bars, 32);
        }
        barrier();
        Block { pipe: Pipeline::<2>::attach(bars), ring: Ring::at(2048), b: block_idx_x(), g: grid_dim_x(), tiles }
    }

    #[inline(always)]
    unsafe fn produce(&self, input: *const f32) {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = self.b;
        while t < self.tiles {
            self.pipe.producer_acquire(&st);
            self.pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(self.ring.destination(&st), tile_source(input, t), TILE_BYTES, self.pipe.producer_barrier(&st));
            st.advance();
            t += self.g;
        }
        self.pipe.producer_tail(st);
    }

    #[inline(always)]
    unsafe fn consume(&self, col: u32) -> f32 {
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0;
        let mut t = self.b;
        while t < self.tiles {
            self.pipe.consumer_wait(&st);
            let stage = self.ring.stage(&st);
            for r in 0..8 {
                acc += *stage.add(r * 32 + col as usize);
            }
            self.pipe.consumer_release(&st);
            st.advance();
            t += self.g;
        }
        acc
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_ctx_block_methods(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let blk = Block::setup(tiles);
    let tid = thread_idx_x();
    if tid == 32 {
        blk.produce(input);
    } else if tid < 32 {
        let sum = blk.consume(tid);
        *out.add((blk.b * 32 + tid) as usize) = sum;
    }
}

// ---- state kept by value in a tuple struct, moved around ------------------------------------

#[derive(Clone, Copy)]
struct Cursor(PipelineState<4>, f32);

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_ctx_tuple_cursor(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ring = Ring::at(0);
    let bars = ring.window + 4 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut cur = Cursor(PipelineState::producer_start(), 0.0);
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&cur.0);
            pipe.producer_expect_tx(&cur.0, TILE_BYTES);
            bulk_copy_global_to_shared(ring.destination(&cur.0), tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&cur.0));
            cur.0.advance();
            t += g;
        }
        pipe.producer_tail(cur.0);
    } else if tid < 32 {
        let mut cur = Cursor(PipelineState::new(), 0.0);
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&cur.0);
            let stage = ring.stage(&cur.0);
            for r in 0..8 {
                cur.1 += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&cur.0);
            cur.0.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = cur.1;
    }
}

// ---------------------------------------------------------------------------------------------
// broken

impl Ring {
    /// "The stage after the one we hold" — used by the prefetching producer below.
    #[inline(always)]
    fn next_destination<const S: u32>(&self, st: &PipelineState<S>) -> u32 {
        self.window + ((st.index() + 1) % S) * TILE_BYTES
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_ctx_bad_destination_next_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let ring = Ring::at(0);
    let bars = dynamic_shared_window_address() + 4096;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring.next_destination(&st), tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.stage(&st);
            for r in 0..8 {
                acc += *stage.add(32 * r + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((32 * b + tid) as usize) = acc;
    }
}

/// A consumer that hands the stage back as soon as it has waited and sums it one step later,
/// "so that the producer is never kept waiting".
struct LazyConsumer<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    ring: Ring,
    column: usize,
    pending: *const f32,
    acc: f32,
}

impl<const S: u32> LazyConsumer<S> {
    #[inline(always)]
    fn sum_pending(&mut self) {
        if !self.pending.is_null() {
            for r in 0..8 {
                self.acc += unsafe { *self.pending.add(r * 32 + self.column) };
            }
        }
    }

    #[inline(always)]
    fn step(&mut self) {
        self.pipe.consumer_wait(&self.state);
        self.sum_pending();
        self.pending = self.ring.stage(&self.state);
        self.pipe.consumer_release(&self.state);
        self.state.advance();
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_ctx_bad_release_before_read(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 1;
    let bars = dynamic_shared_window_address();
    let ring = Ring::at(1024);
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut p = Producer { pipe, state: PipelineState::producer_start(), ring, input };
        let mut t = b;
        while t < tiles {
            p.step(t);
            t += g;
        }
        p.finish();
    } else if tid < 32 {
        let mut c = LazyConsumer {
            pipe,
            state: PipelineState::new(),
            ring,
            column: tid as usize,
            pending: core::ptr::null(),
            acc: 0.0,
        };
        let mut t = b;
        while t < tiles {
            c.step();
            t += g;
        }
        c.sum_pending();
        *out.add(b as usize * 32 + c.column) = c.acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_ctx_bad_init_for_whole_block(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 5;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        // one release per thread of the block
        Pipeline::<S>::init(bars, 64);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let mut work = Work::of_block(tiles);
    if tid == 40 {
        let mut st = PipelineState::<S>::producer_start();
        while work.next < work.end {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, tile_source(input, work.next), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            work.next += work.step;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        while work.next < work.end {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            work.next += work.step;
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_ctx_bad_tuple_cursor_stale_copy(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ring = Ring::at(0);
    let bars = ring.window + 4 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut cur = Cursor(PipelineState::producer_start(), 0.0);
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&cur.0);
            pipe.producer_expect_tx(&cur.0, TILE_BYTES);
            bulk_copy_global_to_shared(ring.destination(&cur.0), tile_source(input, t), TILE_BYTES, pipe.producer_barrier(&cur.0));
            cur.0.advance();
            t += g;
        }
        pipe.producer_tail(cur.0);
    } else if tid < 32 {
        let mut cur = Cursor(PipelineState::new(), 0.0);
        let mut t = b;
        while t < tiles {
            // work on a copy of the cursor, then forget to store it back
            let mut c = cur;
            pipe.consumer_wait(&c.0);
            let stage = ring.stage(&c.0);
            for r in 0..8 {
                c.1 += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&c.0);
            c.0.advance();
            cur.1 = c.1;
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = cur.1;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_ctx_bad_block_methods_wrong_output_row(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let blk = Block::setup(tiles);
    let tid = thread_idx_x();
    if tid == 32 {
        blk.produce(input);
    } else if tid < 32 {
        let sum = blk.consume(tid);
        // rows of `out` counted from the last block
        *out.add(((blk.g - 1 - blk.b) * 32 + tid) as usize) = sum;
    }
}
