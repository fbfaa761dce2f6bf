//! Pipeline kernels built on traits: roles, tile sources and column readers as trait impls.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{bulk_copy_global_to_shared, Pipeline, PipelineState};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TB: u32 = 1024;
const S: u32 = 4;

trait Role {
    unsafe fn step(&mut self, pipe: &Pipeline<S>, tile: u32);
    unsafe fn finish(self, pipe: &Pipeline<S>);
}

struct Loader {
    state: PipelineState<S>,
    window: u32,
    input: *const f32,
}

struct Reader {
    state: PipelineState<S>,
    smem: *const f32,
    col: u32,
    acc: f32,
    out: *mut f32,
}

impl Role for Loader {
    unsafe fn step(&mut self, pipe: &Pipeline<S>, tile: u32) {
        pipe.producer_acquire(&self.state);
        pipe.producer_expect_tx(&self.state, TB);
        bulk_copy_global_to_shared(self.window + self.state.index() * TB, self.input.add(tile as usize * TILE) as *const u8, TB, pipe.producer_barrier(&self.state));
        self.state.advance();
    }
    unsafe fn finish(self, pipe: &Pipeline<S>) {
        pipe.producer_tail(self.state);
    }
}

impl Role for Reader {
    unsafe fn step(&mut self, pipe: &Pipeline<S>, _tile: u32) {
        pipe.consumer_wait(&self.state);
        let stage = self.smem.add(self.state.index() as usize * TILE);
        for r in 0..8 {
            self.acc += *stage.add(r * 32 + self.col as usize);
        }
        pipe.consumer_release(&self.state);
        self.state.advance();
    }
    unsafe fn finish(self, _pipe: &Pipeline<S>) {
        *self.out.add((block_idx_x() * 32 + self.col) as usize) = self.acc;
    }
}

unsafe fn drive<R: Role>(mut role: R, pipe: &Pipeline<S>, tiles: u32) {
    let mut t = block_idx_x();
    while t < tiles {
        role.step(pipe, t);
        t += grid_dim_x();
    }
    role.finish(pipe);
}

fn setup() -> Pipeline<S> {
    let bars = dynamic_shared_window_address() + S * TB;
    if thread_idx_x() == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    Pipeline::<S>::attach(bars)
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_trait_generic_drive(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let pipe = setup();
    if tid == 32 {
        drive(Loader { state: PipelineState::producer_start(), window: dynamic_shared_window_address(), input }, &pipe, tiles);
    } else if tid < 32 {
        drive(Reader { state: PipelineState::new(), smem: dynamic_shared_base::<f32>(), col: tid, acc: 0.0, out }, &pipe, tiles);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_trait_dyn_role(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let pipe = setup();
    let mut loader = Loader { state: PipelineState::producer_start(), window: dynamic_shared_window_address(), input };
    let mut reader = Reader { state: PipelineState::new(), smem: dynamic_shared_base::<f32>(), col: tid, acc: 0.0, out };
    if tid == 32 || tid < 32 {
        let role: &mut dyn RoleStep = if tid == 32 { &mut loader } else { &mut reader };
        let mut t = block_idx_x();
        while t < tiles {
            role.step_dyn(&pipe, t);
            t += grid_dim_x();
        }
    }
    if tid == 32 {
        loader.finish(&pipe);
    } else if tid < 32 {
        reader.finish(&pipe);
    }
}

trait RoleStep {
    unsafe fn step_dyn(&mut self, pipe: &Pipeline<S>, tile: u32);
}

impl<R: Role> RoleStep for R {
    unsafe fn step_dyn(&mut self, pipe: &Pipeline<S>, tile: u32) {
        self.step(pipe, tile)
    }
}

trait ColumnSum {
    unsafe fn column(stage: *const f32, col: usize) -> f32;
}

struct Forward;
struct Unrolled;

impl ColumnSum for Forward {
    unsafe fn column(stage: *const f32, col: usize) -> f32 {
        let mut s = 0.0;
        for r in 0..8 {
            s += *stage.add(r * 32 + col);
        }
        s
    }
}

impl ColumnSum for Unrolled {
    unsafe fn column(stage: *const f32, col: usize) -> f32 {
        let p = stage.add(col);
        (*p + *p.add(32)) + (*p.add(64) + *p.add(96)) + ((*p.add(128) + *p.add(160)) + (*p.add(192) + *p.add(224)))
    }
}

unsafe fn with_reader<C: ColumnSum>(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TB);
            bulk_copy_global_to_shared(window + st.index() * TB, input.add(t as usize * TILE) as *const u8, TB, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += C::column(smem.add(st.index() as usize * TILE), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_trait_column_forward(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    with_reader::<Forward>(input, tiles, out);
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_trait_column_unrolled(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    with_reader::<Unrolled>(input, tiles, out);
}

trait TileIndex {
    fn first(&self) -> u32;
    fn step(&self) -> u32;
}

struct RoundRobin;

impl TileIndex for RoundRobin {
    fn first(&self) -> u32 {
        block_idx_x()
    }
    fn step(&self) -> u32 {
        grid_dim_x()
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_trait_tile_index(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup();
    let order = RoundRobin;
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = order.first();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TB);
            bulk_copy_global_to_shared(window + st.index() * TB, input.add(t as usize * TILE) as *const u8, TB, pipe.producer_barrier(&st));
            st.advance();
            t += order.step();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = order.first();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += Forward::column(smem.add(st.index() as usize * TILE), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += order.step();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

// ---- broken ----

struct Transposed;

impl ColumnSum for Transposed {
    // column c as the c-th run of 8 floats
    unsafe fn column(stage: *const f32, col: usize) -> f32 {
        let mut s = 0.0;
        for r in 0..8 {
            s += *stage.add(col * 8 + r);
        }
        s
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_trait_bad_column_transposed(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    with_reader::<Transposed>(input, tiles, out);
}

struct EagerReader {
    state: PipelineState<S>,
    smem: *const f32,
    col: u32,
    acc: f32,
    out: *mut f32,
}

impl Role for EagerReader {
    unsafe fn step(&mut self, pipe: &Pipeline<S>, _tile: u32) {
        let stage = self.smem.add(self.state.index() as usize * TILE);
        for r in 0..8 {
            self.acc += *stage.add(r * 32 + self.col as usize);
        }
        pipe.consumer_wait(&self.state);
        pipe.consumer_release(&self.state);
        self.state.advance();
    }
    unsafe fn finish(self, _pipe: &Pipeline<S>) {
        *self.out.add((block_idx_x() * 32 + self.col) as usize) = self.acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_trait_bad_read_before_wait(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let pipe = setup();
    if tid == 32 {
        drive(Loader { state: PipelineState::producer_start(), window: dynamic_shared_window_address(), input }, &pipe, tiles);
    } else if tid < 32 {
        drive(EagerReader { state: PipelineState::new(), smem: dynamic_shared_base::<f32>(), col: tid, acc: 0.0, out }, &pipe, tiles);
    }
}

struct HeaderlessLoader {
    inner: Loader,
}

const HEADER: u32 = 16;

impl Role for HeaderlessLoader {
    unsafe fn step(&mut self, pipe: &Pipeline<S>, tile: u32) {
        let st = &mut self.inner.state;
        pipe.producer_acquire(st);
        pipe.producer_expect_tx(st, TB);
        // the first 16 bytes of a tile are "only a header": skip them
        let src = (self.inner.input.add(tile as usize * TILE) as *const u8).add(HEADER as usize);
        bulk_copy_global_to_shared(self.inner.window + st.index() * TB + HEADER, src, TB - HEADER, pipe.producer_barrier(st));
        st.advance();
    }
    unsafe fn finish(self, pipe: &Pipeline<S>) {
        pipe.producer_tail(self.inner.state);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_trait_bad_copy_short_of_expect(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let pipe = setup();
    if tid == 32 {
        let loader = Loader { state: PipelineState::producer_start(), window: dynamic_shared_window_address(), input };
        drive(HeaderlessLoader { inner: loader }, &pipe, tiles);
    } else if tid < 32 {
        drive(Reader { state: PipelineState::new(), smem: dynamic_shared_base::<f32>(), col: tid, acc: 0.0, out }, &pipe, tiles);
    }
}

struct Staggered;

impl TileIndex for Staggered {
    fn first(&self) -> u32 {
        block_idx_x() + 1
    }
    fn step(&self) -> u32 {
        grid_dim_x()
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_trait_bad_consumer_order_staggered(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup();
    if tid == 32 {
        let order = RoundRobin;
        let mut st = PipelineState::<S>::producer_start();
        let mut t = order.first();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TB);
            bulk_copy_global_to_shared(window + st.index() * TB, input.add(t as usize * TILE) as *const u8, TB, pipe.producer_barrier(&st));
            st.advance();
            t += order.step();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        // consumers count their tiles with the one-based order
        let order = Staggered;
        let smem = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = order.first();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += Forward::column(smem.add(st.index() as usize * TILE), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += order.step();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}
