//! Traits: roles behind a trait (static and dyn dispatch), default methods for stage
//! arithmetic, an extension trait on `Pipeline`, and pluggable tile sources and accumulators.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;

trait Role {
    unsafe fn run(&mut self, tiles: u32);
}

struct Filler<const S: u32> {
    pipe: Pipeline<S>,
    ring_window: u32,
    input: *const f32,
}

impl<const S: u32> Role for Filler<S> {
    #[inline(always)]
    unsafe fn run(&mut self, tiles: u32) {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            self.pipe.producer_acquire(&st);
            self.pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                self.ring_window + st.index() * TILE_BYTES,
                self.input.add(t as usize * TILE).cast(),
                TILE_BYTES,
                self.pipe.producer_barrier(&st),
            );
            st.advance();
            t += grid_dim_x();
        }
        self.pipe.producer_tail(st);
    }
}

struct Summer<const S: u32> {
    pipe: Pipeline<S>,
    ring: *const f32,
    col: usize,
    out: *mut f32,
}

impl<const S: u32> Role for Summer<S> {
    #[inline(always)]
    unsafe fn run(&mut self, tiles: u32) {
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            self.pipe.consumer_wait(&st);
            let stage = self.ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + self.col);
            }
            self.pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *self.out.add(block_idx_x() as usize * 32 + self.col) = acc;
    }
}

#[inline(always)]
unsafe fn drive<R: Role>(mut role: R, tiles: u32) {
    role.run(tiles);
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_trait_static_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window + 4096, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window + 4096);
    if tid == 32 {
        drive(Filler { pipe, ring_window: window, input }, tiles);
    } else if tid < 32 {
        drive(Summer { pipe, ring: dynamic_shared_base::<f32>(), col: tid as usize, out }, tiles);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_trait_dyn_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let mut filler = Filler { pipe, ring_window: window + 1024, input };
    let mut summer = Summer { pipe, ring: dynamic_shared_base::<f32>().add(256), col: (tid % 32) as usize, out };
    let role: Option<&mut dyn Role> = if tid == 32 {
        Some(&mut filler)
    } else if tid < 32 {
        Some(&mut summer)
    } else {
        None
    };
    if let Some(r) = role {
        r.run(tiles);
    }
}

// ---- default methods for the stage arithmetic ------------------------------------------------

trait StageRing {
    const STRIDE_FLOATS: usize;
    fn window(&self) -> u32;
    fn base(&self) -> *mut f32;

    #[inline(always)]
    fn dest<const S: u32>(&self, st: &PipelineState<S>) -> u32 {
        self.window() + st.index() * (Self::STRIDE_FLOATS * 4) as u32
    }

    #[inline(always)]
    fn stage<const S: u32>(&self, st: &PipelineState<S>) -> *const f32 {
        unsafe { self.base().add(st.index() as usize * Self::STRIDE_FLOATS) }
    }
}

struct LowRing;
impl StageRing for LowRing {
    const STRIDE_FLOATS: usize = TILE;
    #[inline(always)]
    fn window(&self) -> u32 {
        dynamic_shared_window_address()
    }
    #[inline(always)]
    fn base(&self) -> *mut f32 {
        dynamic_shared_base::<f32>()
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_trait_default_stage_methods(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 5;
    let ring = LowRing;
    let bars = ring.window() + 5120;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring.dest(&st), input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let p = ring.stage(&st);
            for r in 0..8 {
                acc += *p.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

// ---- an extension trait on Pipeline ----------------------------------------------------------

trait PipeExt<const S: u32> {
    fn fill(&self, st: &mut PipelineState<S>, dst: u32, src: *const u8);
    unsafe fn drain(&self, st: &mut PipelineState<S>, stage0: *const f32, col: usize) -> f32;
}

impl<const S: u32> PipeExt<S> for Pipeline<S> {
    #[inline(always)]
    fn fill(&self, st: &mut PipelineState<S>, ring: u32, src: *const u8) {
        self.producer_acquire(st);
        self.producer_expect_tx(st, TILE_BYTES);
        bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, src, TILE_BYTES, self.producer_barrier(st));
        st.advance();
    }

    #[inline(always)]
    unsafe fn drain(&self, st: &mut PipelineState<S>, ring: *const f32, col: usize) -> f32 {
        self.consumer_wait(st);
        let p = ring.add(st.index() as usize * TILE + col);
        let mut s = 0.0;
        for r in 0..8 {
            s += *p.add(32 * r);
        }
        self.consumer_release(st);
        st.advance();
        s
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_trait_pipeline_extension(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 6;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let bars = window + 128;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.fill(&mut st, window + 1024, input.add(t as usize * TILE).cast());
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            acc += pipe.drain(&mut st, ring, tid as usize);
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

// ---- pluggable tile source and accumulator ---------------------------------------------------

trait TileSource {
    fn tile(&self, k: u32) -> *const u8;
}

struct Strided {
    input: *const f32,
    first: u32,
    step: u32,
}

impl TileSource for Strided {
    #[inline(always)]
    fn tile(&self, k: u32) -> *const u8 {
        unsafe { self.input.add((self.first + k * self.step) as usize * TILE).cast() }
    }
}

trait Accumulator: Default {
    fn add_row(&mut self, r: usize, v: f32);
    fn total(&self) -> f32;
}

#[derive(Default)]
struct PerRow([f32; 8]);
impl Accumulator for PerRow {
    #[inline(always)]
    fn add_row(&mut self, r: usize, v: f32) {
        self.0[r] += v;
    }
    #[inline(always)]
    fn total(&self) -> f32 {
        self.0.iter().sum()
    }
}

#[inline(always)]
unsafe fn source_and_acc<Src: TileSource, A: Accumulator>(src: Src, input_tiles: u32, out: *mut f32) {
    const S: u32 = 2;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let bars = window + 4096;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = input_tiles.saturating_sub(b).div_ceil(g);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for k in 0..mine {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, src.tile(k), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = A::default();
        for _ in 0..mine {
            pipe.consumer_wait(&st);
            let p = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc.add_row(r, *p.add(r * 32 + tid as usize));
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add((b * 32 + tid) as usize) = acc.total();
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_trait_tile_source_accumulator(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let src = Strided { input, first: block_idx_x(), step: grid_dim_x() };
    source_and_acc::<_, PerRow>(src, tiles, out);
}

// ---------------------------------------------------------------------------------------------
// broken

struct HastySummer<const S: u32> {
    pipe: Pipeline<S>,
    ring: *const f32,
    col: usize,
    out: *mut f32,
}

impl<const S: u32> Role for HastySummer<S> {
    #[inline(always)]
    unsafe fn run(&mut self, tiles: u32) {
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            let stage = self.ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + self.col);
            }
            self.pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *self.out.add(block_idx_x() as usize * 32 + self.col) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_trait_bad_dyn_consumer_never_waits(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let mut filler = Filler { pipe, ring_window: window + 1024, input };
    let mut summer = HastySummer { pipe, ring: dynamic_shared_base::<f32>().add(256), col: (tid % 32) as usize, out };
    let role: Option<&mut dyn Role> = if tid == 32 {
        Some(&mut filler)
    } else if tid < 32 {
        Some(&mut summer)
    } else {
        None
    };
    if let Some(r) = role {
        r.run(tiles);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_trait_bad_extension_released_twice(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 6;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let bars = window + 128;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.fill(&mut st, window + 1024, input.add(t as usize * TILE).cast());
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            let done = st;
            acc += pipe.drain(&mut st, ring, tid as usize);
            // hand the stage we just summed back to the producer
            pipe.consumer_release(&done);
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_trait_bad_source_local_index(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    // the k-th tile of this block, taken as the k-th tile of the input
    let src = Strided { input, first: 0, step: 1 };
    source_and_acc::<_, PerRow>(src, tiles, out);
}

struct ByteStrideRing;
impl StageRing for ByteStrideRing {
    /// the stage stride, in bytes
    const STRIDE_FLOATS: usize = TILE_BYTES as usize;
    #[inline(always)]
    fn window(&self) -> u32 {
        dynamic_shared_window_address()
    }
    #[inline(always)]
    fn base(&self) -> *mut f32 {
        dynamic_shared_base::<f32>()
    }
    #[inline(always)]
    fn dest<const S: u32>(&self, st: &PipelineState<S>) -> u32 {
        self.window() + st.index() * Self::STRIDE_FLOATS as u32
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_trait_bad_stage_stride_in_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let ring = ByteStrideRing;
    let bars = ring.window() + 2048;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring.dest(&st), input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let p = ring.stage(&st);
            for r in 0..8 {
                acc += *p.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

struct SkippingSummer<const S: u32> {
    pipe: Pipeline<S>,
    ring: *const f32,
    col: usize,
    out: *mut f32,
}

impl<const S: u32> SkippingSummer<S> {
    #[inline(always)]
    fn done_with(&self, st: &mut PipelineState<S>) {
        self.pipe.consumer_release(st);
        st.advance();
    }
}

impl<const S: u32> Role for SkippingSummer<S> {
    #[inline(always)]
    unsafe fn run(&mut self, tiles: u32) {
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            self.pipe.consumer_wait(&st);
            let stage = self.ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + self.col);
            }
            self.done_with(&mut st);
            st.advance();
            t += grid_dim_x();
        }
        *self.out.add(block_idx_x() as usize * 32 + self.col) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_trait_bad_consumer_advances_twice(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window + 4096, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window + 4096);
    if tid == 32 {
        drive(Filler { pipe, ring_window: window, input }, tiles);
    } else if tid < 32 {
        drive(SkippingSummer { pipe, ring: dynamic_shared_base::<f32>(), col: tid as usize, out }, tiles);
    }
}
