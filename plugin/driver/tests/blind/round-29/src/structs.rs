//! Structs with methods: a ring struct holding the pipeline and its addresses, producer and
//! consumer objects with their own state and cursor, a layout struct, a `#[repr(C)]` tile type.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;

/// A pipeline with its ring: window address of stage 0 and a generic pointer to it.
struct Ring<const S: u32> {
    pipe: Pipeline<S>,
    window: u32,
    base: *const f32,
}

impl<const S: u32> Ring<S> {
    /// Barriers at window byte `bars`, stages from window byte `ring`.
    fn new(bars: u32, ring: u32, consumers: u32) -> Self {
        let window = dynamic_shared_window_address();
        let pipe = if thread_idx_x() == 0 {
            Pipeline::<S>::init(window + bars, consumers)
        } else {
            Pipeline::<S>::attach(window + bars)
        };
        let base = unsafe { dynamic_shared_base::<u8>().add(ring as usize) as *const f32 };
        Ring { pipe, window: window + ring, base }
    }

    fn dest(&self, st: &PipelineState<S>) -> u32 {
        self.window + st.index() * TILE_BYTES
    }

    fn stage(&self, st: &PipelineState<S>) -> *const f32 {
        unsafe { self.base.add(st.index() as usize * TILE) }
    }
}

/// Ring struct with destination and stage methods; role loops written in the kernel.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_st_ring_methods(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ring = Ring::<4>::new(0, 1024, 32);
    barrier();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            ring.pipe.producer_acquire(&st);
            ring.pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring.dest(&st), input.add(t as usize * TILE) as *const u8, TILE_BYTES, ring.pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        ring.pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            ring.pipe.consumer_wait(&st);
            let stage = ring.stage(&st);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            ring.pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// The producer role as an object: the ring it fills, its state and its tile cursor.
struct Loader<'a, const S: u32> {
    ring: &'a Ring<S>,
    state: PipelineState<S>,
    input: *const f32,
    next: u32,
    step: u32,
    end: u32,
}

impl<'a, const S: u32> Loader<'a, S> {
    fn run(mut self) {
        while self.next < self.end {
            let ring = self.ring;
            ring.pipe.producer_acquire(&self.state);
            ring.pipe.producer_expect_tx(&self.state, TILE_BYTES);
            let src = unsafe { self.input.add(self.next as usize * TILE) as *const u8 };
            bulk_copy_global_to_shared(ring.dest(&self.state), src, TILE_BYTES, ring.pipe.producer_barrier(&self.state));
            self.state.advance();
            self.next += self.step;
        }
        self.ring.pipe.producer_tail(self.state);
    }
}

/// The consumer role as an object: one column's running total.
struct Summer<'a, const S: u32> {
    ring: &'a Ring<S>,
    state: PipelineState<S>,
    col: usize,
    acc: f32,
}

impl<'a, const S: u32> Summer<'a, S> {
    fn tile(&mut self) {
        let ring = self.ring;
        ring.pipe.consumer_wait(&self.state);
        let stage = ring.stage(&self.state);
        for r in 0..8 {
            self.acc += unsafe { *stage.add(r * 32 + self.col) };
        }
        ring.pipe.consumer_release(&self.state);
        self.state.advance();
    }
}

/// Producer and consumer objects with `run` and `tile` methods; three stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_st_role_objects(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ring = Ring::<3>::new(4096, 0, 32);
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        Loader { ring: &ring, state: PipelineState::producer_start(), input, next: b, step: g, end: tiles }.run();
    } else if tid < 32 {
        let mut summer = Summer { ring: &ring, state: PipelineState::new(), col: tid as usize, acc: 0.0 };
        let mut t = b;
        while t < tiles {
            summer.tile();
            t += g;
        }
        *out.add(b as usize * 32 + summer.col) = summer.acc;
    }
}

/// This block's tiles: `next, next + step, …` below `end`.
#[derive(Clone, Copy)]
struct Cursor {
    next: u32,
    step: u32,
    end: u32,
}

impl Cursor {
    fn of_block(tiles: u32) -> Cursor {
        Cursor { next: block_idx_x(), step: grid_dim_x(), end: tiles }
    }

    fn more(&self) -> bool {
        self.next < self.end
    }

    fn step(&mut self) {
        self.next += self.step;
    }
}

/// A cursor struct drives both roles' tile loops; three stages, barriers first.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_st_cursor_struct(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<3>::init(window, 32) } else { Pipeline::<3>::attach(window) };
    barrier();
    let ring = window + 128;
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut cur = Cursor::of_block(tiles);
        while cur.more() {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add(cur.next as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            cur.step();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let stages = dynamic_shared_base::<f32>().add(32);
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut cur = Cursor::of_block(tiles);
        while cur.more() {
            pipe.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            cur.step();
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}

/// Two columns' running totals of one consumer thread.
struct Pair {
    cols: [usize; 2],
    acc: [f32; 2],
}

impl Pair {
    unsafe fn add_stage(&mut self, stage: *const f32) {
        for k in 0..2 {
            let mut s = 0.0;
            for r in 0..8 {
                s += *stage.add(r * 32 + self.cols[k]);
            }
            self.acc[k] += s;
        }
    }

    unsafe fn store(&self, out: *mut f32, block: u32) {
        for k in 0..2 {
            *out.add(block as usize * 32 + self.cols[k]) = self.acc[k];
        }
    }
}

/// Sixteen consumers each keep a `Pair` of column totals; two stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_st_pair_accumulator(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<2>::init(window, 16) } else { Pipeline::<2>::attach(window) };
    barrier();
    let ring = window + 2048;
    if tid == 48 {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 16 {
        let stages = dynamic_shared_base::<f32>().add(512);
        let mut pair = Pair { cols: [2 * tid as usize, 2 * tid as usize + 1], acc: [0.0; 2] };
        let mut st = PipelineState::<2>::new();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            pair.add_stage(stages.add(st.index() as usize * TILE));
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        pair.store(out, block_idx_x());
    }
}

/// Where the barriers and the ring lie in the window, in bytes.
struct Layout {
    bars: u32,
    ring: u32,
}

const LAYOUT: Layout = Layout { bars: 0, ring: 512 };

/// A constant layout struct places five stages after the barriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_st_layout_const(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<5>::init(window + LAYOUT.bars, 32) } else { Pipeline::<5>::attach(window + LAYOUT.bars) };
    barrier();
    if tid == 32 {
        let mut st = PipelineState::<5>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + LAYOUT.ring + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let stages = dynamic_shared_base::<u8>().add(LAYOUT.ring as usize) as *const f32;
        let mut st = PipelineState::<5>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// One staged tile, row by row.
#[repr(C)]
struct Tile {
    rows: [[f32; 32]; 8],
}

/// The ring is an array of `#[repr(C)]` tiles indexed by the stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_st_repr_c_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + 1024 + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<u8>().add(1024) as *const Tile;
        let c = tid as usize;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let tile = &*ring.add(st.index() as usize);
            for r in 0..8 {
                acc += tile.rows[r][c];
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}

/// A consumer that is `Copy`, taking a tile by value.
#[derive(Clone, Copy)]
struct Reader<'a> {
    ring: &'a Ring<4>,
    state: PipelineState<4>,
    col: usize,
}

impl<'a> Reader<'a> {
    fn take(mut self) -> f32 {
        self.ring.pipe.consumer_wait(&self.state);
        let stage = self.ring.stage(&self.state);
        let mut s = 0.0;
        for r in 0..8 {
            s += unsafe { *stage.add(r * 32 + self.col) };
        }
        self.ring.pipe.consumer_release(&self.state);
        self.state.advance();
        s
    }
}

/// A `Copy` reader advances its state inside a by-value method, so the caller's never moves.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_st_bad_copy_reader(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ring = Ring::<4>::new(0, 1024, 32);
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        Loader { ring: &ring, state: PipelineState::producer_start(), input, next: b, step: g, end: tiles }.run();
    } else if tid < 32 {
        let reader = Reader { ring: &ring, state: PipelineState::new(), col: tid as usize };
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            acc += reader.take();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// A ring whose stage stride is half a tile.
struct HalfRing {
    pipe: Pipeline<4>,
    window: u32,
    base: *const f32,
}

impl HalfRing {
    const STRIDE: u32 = 512;

    fn dest(&self, st: &PipelineState<4>) -> u32 {
        self.window + st.index() * Self::STRIDE
    }

    fn stage(&self, st: &PipelineState<4>) -> *const f32 {
        unsafe { self.base.add((st.index() * Self::STRIDE / 4) as usize) }
    }
}

/// Stages laid out 512 bytes apart while every copy writes a whole 1 KiB tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_st_bad_stride_half_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    let ring = HalfRing { pipe, window: window + 1024, base: dynamic_shared_base::<f32>().add(256) };
    barrier();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            ring.pipe.producer_acquire(&st);
            ring.pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring.dest(&st), input.add(t as usize * TILE) as *const u8, TILE_BYTES, ring.pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        ring.pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            ring.pipe.consumer_wait(&st);
            let stage = ring.stage(&st);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            ring.pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// A producer object whose push skips waiting for the stage to be released.
struct Pusher<'a> {
    ring: &'a Ring<4>,
    state: PipelineState<4>,
    input: *const f32,
}

impl<'a> Pusher<'a> {
    fn push(&mut self, t: u32) {
        let pipe = &self.ring.pipe;
        pipe.producer_expect_tx(&self.state, TILE_BYTES);
        let src = unsafe { self.input.add(t as usize * TILE) as *const u8 };
        bulk_copy_global_to_shared(self.ring.dest(&self.state), src, TILE_BYTES, pipe.producer_barrier(&self.state));
        self.state.advance();
    }

    fn finish(self) {
        self.ring.pipe.producer_tail(self.state);
    }
}

/// The producer object never acquires a stage before refilling it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_st_bad_pusher_no_acquire(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ring = Ring::<4>::new(0, 1024, 32);
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut pusher = Pusher { ring: &ring, state: PipelineState::producer_start(), input };
        let mut t = b;
        while t < tiles {
            pusher.push(t);
            t += g;
        }
        pusher.finish();
    } else if tid < 32 {
        let mut summer = Summer { ring: &ring, state: PipelineState::new(), col: tid as usize, acc: 0.0 };
        let mut t = b;
        while t < tiles {
            summer.tile();
            t += g;
        }
        *out.add(b as usize * 32 + summer.col) = summer.acc;
    }
}

/// Two pipelines kept side by side in one struct.
struct Duo {
    front: Pipeline<2>,
    back: Pipeline<2>,
}

/// The consumers wait on the front pipeline and release on the back one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_st_bad_duo_crossed(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let duo = if tid == 0 {
        Duo { front: Pipeline::<2>::init(window, 32), back: Pipeline::<2>::init(window + 32, 32) }
    } else {
        Duo { front: Pipeline::<2>::attach(window), back: Pipeline::<2>::attach(window + 32) }
    };
    barrier();
    let ring = window + 1024;
    if tid == 32 {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            duo.front.producer_acquire(&st);
            duo.front.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, duo.front.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        duo.front.producer_tail(st);
    } else if tid < 32 {
        let stages = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            duo.front.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            duo.back.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

const DEEP: Layout = Layout { bars: 0, ring: 1024 };

/// A layout struct placing eight stages after 1 KiB, so the last stage ends past the window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_st_bad_layout_eight_deep(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<8>::init(window + DEEP.bars, 32) } else { Pipeline::<8>::attach(window + DEEP.bars) };
    barrier();
    if tid == 32 {
        let mut st = PipelineState::<8>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + DEEP.ring + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let stages = dynamic_shared_base::<u8>().add(DEEP.ring as usize) as *const f32;
        let mut st = PipelineState::<8>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// Consumers in warp 1 store their `Summer` total at `b * 32 + tid`, not at their column.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_st_bad_summer_out_index(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ring = Ring::<3>::new(4096, 0, 32);
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        Loader { ring: &ring, state: PipelineState::producer_start(), input, next: b, step: g, end: tiles }.run();
    } else if tid >= 32 {
        let mut summer = Summer { ring: &ring, state: PipelineState::new(), col: (tid - 32) as usize, acc: 0.0 };
        let mut t = b;
        while t < tiles {
            summer.tile();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = summer.acc;
    }
}
