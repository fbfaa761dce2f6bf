//! Pipeline kernels organised around context structs: a ring, role objects, a layout builder.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{bulk_copy_global_to_shared, Pipeline, PipelineState};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = (TILE * 4) as u32;

#[derive(Clone, Copy)]
struct Ring {
    base: *const f32,
    window: u32,
}

impl Ring {
    fn at(offset_bytes: u32) -> Ring {
        Ring {
            base: unsafe { dynamic_shared_base::<u8>().add(offset_bytes as usize) as *const f32 },
            window: dynamic_shared_window_address() + offset_bytes,
        }
    }
    fn stage<const S: u32>(&self, st: &PipelineState<S>) -> *const f32 {
        unsafe { self.base.add(st.index() as usize * TILE) }
    }
    fn dst<const S: u32>(&self, st: &PipelineState<S>) -> u32 {
        self.window + st.index() * TILE_BYTES
    }
}

struct Tiles {
    next: u32,
    end: u32,
    step: u32,
}

impl Tiles {
    fn of_block(tiles: u32) -> Tiles {
        Tiles { next: block_idx_x(), end: tiles, step: grid_dim_x() }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_st_ring_context(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ring = Ring::at(0);
    let bars = dynamic_shared_window_address() + 4 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let mut work = Tiles::of_block(tiles);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        while work.next < work.end {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring.dst(&st), input.add(work.next as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            work.next += work.step;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        while work.next < work.end {
            pipe.consumer_wait(&st);
            let s = ring.stage(&st);
            for r in 0..8 {
                acc += *s.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            work.next += work.step;
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

struct Producer<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    window: u32,
}

impl<const S: u32> Producer<S> {
    fn new(pipe: Pipeline<S>, window: u32) -> Self {
        Producer { pipe, state: PipelineState::producer_start(), window }
    }
    fn push(&mut self, src: *const f32) {
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        bulk_copy_global_to_shared(self.window + self.state.index() * TILE_BYTES, src as *const u8, TILE_BYTES, self.pipe.producer_barrier(&self.state));
        self.state.advance();
    }
    fn finish(self) {
        self.pipe.producer_tail(self.state);
    }
}

struct Consumer<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    col: usize,
    acc: f32,
}

impl<const S: u32> Consumer<S> {
    fn new(pipe: Pipeline<S>, col: usize) -> Self {
        Consumer { pipe, state: PipelineState::new(), col, acc: 0.0 }
    }
    unsafe fn pop(&mut self, ring: *const f32) {
        self.pipe.consumer_wait(&self.state);
        let stage = ring.add(self.state.index() as usize * TILE);
        for r in 0..8 {
            self.acc += *stage.add(r * 32 + self.col);
        }
        self.pipe.consumer_release(&self.state);
        self.state.advance();
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_st_role_objects(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + 4 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let ring = dynamic_shared_base::<f32>() as *const f32;
    if tid == 32 {
        let mut p = Producer::new(pipe, window);
        let mut t = block_idx_x();
        while t < tiles {
            p.push(input.add(t as usize * TILE));
            t += grid_dim_x();
        }
        p.finish();
    } else if tid < 32 {
        let mut c = Consumer::new(pipe, tid as usize);
        let mut t = block_idx_x();
        while t < tiles {
            c.pop(ring);
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c.col) = c.acc;
    }
}

#[derive(Clone, Copy)]
struct Layout {
    ring: u32,
    bars: u32,
}

struct LayoutBuilder {
    cursor: u32,
    ring: u32,
    bars: u32,
}

impl LayoutBuilder {
    fn new() -> Self {
        LayoutBuilder { cursor: 0, ring: 0, bars: 0 }
    }
    fn barriers(mut self, stages: u32) -> Self {
        self.bars = self.cursor;
        self.cursor += 16 * stages;
        self
    }
    fn align(mut self, to: u32) -> Self {
        self.cursor = (self.cursor + to - 1) / to * to;
        self
    }
    fn ring(mut self, stages: u32) -> Self {
        self.ring = self.cursor;
        self.cursor += stages * TILE_BYTES;
        self
    }
    fn build(self) -> Layout {
        Layout { ring: self.ring, bars: self.bars }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_st_layout_builder(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let layout = LayoutBuilder::new().barriers(6).align(128).ring(6).build();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<6>::init(window + layout.bars, 32);
    }
    barrier();
    let pipe = Pipeline::<6>::attach(window + layout.bars);
    let ring = dynamic_shared_base::<u8>().add(layout.ring as usize) as *const f32;
    if tid == 32 {
        let mut st = PipelineState::<6>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + layout.ring + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<6>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let s = ring.add(st.index() as usize * TILE + tid as usize);
            for r in 0..8 {
                acc += *s.add(32 * r);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

struct Kernel {
    input: *const f32,
    tiles: u32,
    out: *mut f32,
    tid: u32,
    window: u32,
}

impl Kernel {
    fn new(input: *const f32, tiles: u32, out: *mut f32) -> Self {
        Kernel { input, tiles, out, tid: thread_idx_x(), window: dynamic_shared_window_address() }
    }
    fn pipeline(&self) -> Pipeline<2> {
        let bars = self.window + 2 * TILE_BYTES;
        if self.tid == 0 {
            Pipeline::<2>::init(bars, 32);
        }
        barrier();
        Pipeline::<2>::attach(bars)
    }
    unsafe fn produce(&self, pipe: &Pipeline<2>) {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = block_idx_x();
        while t < self.tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(self.window + st.index() * TILE_BYTES, self.input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    }
    unsafe fn consume(&self, pipe: &Pipeline<2>) {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < self.tiles {
            pipe.consumer_wait(&st);
            for r in 0..8 {
                acc += *ring.add(st.index() as usize * TILE + r * 32 + self.tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *self.out.add((block_idx_x() * 32 + self.tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_st_kernel_object(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let k = Kernel::new(input, tiles, out);
    let pipe = k.pipeline();
    if k.tid == 32 {
        k.produce(&pipe);
    } else if k.tid < 32 {
        k.consume(&pipe);
    }
}

struct Cursor {
    state: PipelineState<4>,
    seen: u32,
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_st_cursor_with_count(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + 4096;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let ring = Ring::at(0);
    if tid == 32 {
        let mut cur = Cursor { state: PipelineState::producer_start(), seen: 0 };
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&cur.state);
            pipe.producer_expect_tx(&cur.state, TILE_BYTES);
            bulk_copy_global_to_shared(ring.dst(&cur.state), input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&cur.state));
            cur.state.advance();
            cur.seen += 1;
            t += grid_dim_x();
        }
        pipe.producer_tail(cur.state);
    } else if tid < 32 {
        let mut cur = Cursor { state: PipelineState::new(), seen: 0 };
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&cur.state);
            let s = ring.stage(&cur.state);
            for r in 0..8 {
                acc += *s.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&cur.state);
            cur.state.advance();
            cur.seen += 1;
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

// ---- broken ----

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_st_bad_builder_bars_overlap_ring(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    // ring placed first but the cursor is not moved past the barriers
    let mut b = LayoutBuilder::new().barriers(4);
    b.cursor = 0;
    let layout = b.ring(4).build();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(window + layout.bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + layout.bars);
    let ring = dynamic_shared_base::<u8>().add(layout.ring as usize) as *const f32;
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + layout.ring + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let s = ring.add(st.index() as usize * TILE + tid as usize);
            for r in 0..8 {
                acc += *s.add(32 * r);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

struct CachedConsumer {
    pipe: Pipeline<4>,
    state: PipelineState<4>,
    stage: *const f32,
}

impl CachedConsumer {
    fn new(pipe: Pipeline<4>) -> Self {
        let state = PipelineState::<4>::new();
        let stage = unsafe { dynamic_shared_base::<f32>().add(state.index() as usize * TILE) };
        CachedConsumer { pipe, state, stage }
    }
    unsafe fn take(&mut self, col: usize) -> f32 {
        self.pipe.consumer_wait(&self.state);
        let mut s = 0.0;
        for r in 0..8 {
            s += *self.stage.add(r * 32 + col);
        }
        self.pipe.consumer_release(&self.state);
        self.state.advance();
        s
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_st_bad_cached_stage_pointer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + 4 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    if tid == 32 {
        let mut p = Producer::new(pipe, window);
        let mut t = block_idx_x();
        while t < tiles {
            p.push(input.add(t as usize * TILE));
            t += grid_dim_x();
        }
        p.finish();
    } else if tid < 32 {
        let mut c = CachedConsumer::new(pipe);
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            acc += c.take(tid as usize);
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

impl<const S: u32> Consumer<S> {
    unsafe fn pop_eagerly(&mut self, ring: *const f32) {
        self.pipe.consumer_wait(&self.state);
        let stage = ring.add(self.state.index() as usize * TILE);
        self.pipe.consumer_release(&self.state);
        for r in 0..8 {
            self.acc += *stage.add(r * 32 + self.col);
        }
        self.state.advance();
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_st_bad_release_before_sum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + 2 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<2>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<2>::attach(bars);
    let ring = dynamic_shared_base::<f32>() as *const f32;
    if tid == 32 {
        let mut p = Producer::new(pipe, window);
        let mut t = block_idx_x();
        while t < tiles {
            p.push(input.add(t as usize * TILE));
            t += grid_dim_x();
        }
        p.finish();
    } else if tid < 32 {
        let mut c = Consumer::new(pipe, tid as usize);
        let mut t = block_idx_x();
        while t < tiles {
            c.pop_eagerly(ring);
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c.col) = c.acc;
    }
}

impl Kernel {
    unsafe fn produce_from_zero(&self, pipe: &Pipeline<2>) {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = 0;
        while t < self.tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(self.window + st.index() * TILE_BYTES, self.input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_st_bad_producer_starts_at_tile_zero(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let k = Kernel::new(input, tiles, out);
    let pipe = k.pipeline();
    if k.tid == 32 {
        k.produce_from_zero(&pipe);
    } else if k.tid < 32 {
        k.consume(&pipe);
    }
}

impl Ring {
    fn dst_rotated<const S: u32>(&self, st: &PipelineState<S>) -> u32 {
        self.window + (S - 1 - st.index()) * TILE_BYTES
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_st_bad_ring_dst_reversed(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ring = Ring::at(0);
    let bars = dynamic_shared_window_address() + 4 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let mut work = Tiles::of_block(tiles);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        while work.next < work.end {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring.dst_rotated(&st), input.add(work.next as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            work.next += work.step;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        while work.next < work.end {
            pipe.consumer_wait(&st);
            let s = ring.stage(&st);
            for r in 0..8 {
                acc += *s.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            work.next += work.step;
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_st_bad_cursor_restarted(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + 4096;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let ring = Ring::at(0);
    if tid == 32 {
        let mut cur = Cursor { state: PipelineState::producer_start(), seen: 0 };
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&cur.state);
            pipe.producer_expect_tx(&cur.state, TILE_BYTES);
            bulk_copy_global_to_shared(ring.dst(&cur.state), input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&cur.state));
            cur.state.advance();
            cur.seen += 1;
            t += grid_dim_x();
        }
        pipe.producer_tail(cur.state);
    } else if tid < 32 {
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        let mut seen = 0;
        while t < tiles {
            // a fresh cursor per tile, "fast-forwarded" by hand
            let mut cur = Cursor { state: PipelineState::new(), seen };
            pipe.consumer_wait(&cur.state);
            let s = ring.stage(&cur.state);
            for r in 0..8 {
                acc += *s.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&cur.state);
            cur.state.advance();
            cur.seen += 1;
            seen = cur.seen;
            t += grid_dim_x();
        }
        let _ = seen;
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}
