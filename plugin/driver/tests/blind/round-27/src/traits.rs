//! Traits: associated constants read by generic readers (static dispatch), `dyn` objects for
//! arithmetic and for a whole per-tile step.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;

#[derive(Clone, Copy)]
struct Ring {
    addr: u32,
    base: *const f32,
}

impl Ring {
    fn at(window: u32, byte: u32) -> Ring {
        Ring { addr: window + byte, base: dynamic_shared_base::<u8>().wrapping_add(byte as usize) as *const f32 }
    }
    fn dst(&self, st: &PipelineState<4>) -> u32 {
        self.addr + st.index() * TILE_BYTES
    }
    fn stage(&self, st: &PipelineState<4>) -> *const f32 {
        self.base.wrapping_add(st.index() as usize * TILE)
    }
}

/// The producer as a free function over a plain loop.
fn produce(pipe: &Pipeline<4>, dst: u32, input: *const f32, tiles: u32) {
    let mut st = PipelineState::<4>::producer_start();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mut t = b;
    while t < tiles {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, TILE_BYTES);
        // SAFETY: `t < tiles`.
        let src = unsafe { input.add(t as usize * TILE) } as *const u8;
        bulk_copy_global_to_shared(dst + st.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&st));
        st.advance();
        t += g;
    }
    pipe.producer_tail(st);
}

trait TileShape {
    const ROWS: usize;
    const STRIDE: usize;
}

struct Dense;
impl TileShape for Dense {
    const ROWS: usize = 8;
    const STRIDE: usize = 32;
}

unsafe fn column_of<S: TileShape>(stage: *const f32, col: usize) -> f32 {
    let mut s = 0.0;
    for r in 0..S::ROWS {
        s += *stage.add(r * S::STRIDE + col);
    }
    s
}

/// The tile's shape comes from a trait's associated constants (static dispatch).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_trait_assoc_shape(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = Ring::at(window, 1024);
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 5120, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 5120);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring.dst(&st), input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_of::<Dense>(ring.stage(&st), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

trait Combine {
    fn combine(&self, acc: f32, v: f32) -> f32;
}
struct Plus;
impl Combine for Plus {
    fn combine(&self, acc: f32, v: f32) -> f32 {
        acc + v
    }
}

/// Consumers combine values through a `&dyn Combine` (numbers only cross the call).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_trait_dyn_combine(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 256, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 256);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        produce(&pipe, window + 2048, input, tiles);
    } else if tid < 32 {
        let op: &dyn Combine = &Plus;
        let ring = dynamic_shared_base::<f32>().add(512);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let s = ring.add(st.index() as usize * TILE + tid as usize);
            let mut vals = [0.0f32; 8];
            for r in 0..8 {
                vals[r] = *s.add(r * 32);
            }
            pipe.consumer_release(&st);
            st.advance();
            for v in vals {
                acc = op.combine(acc, v);
            }
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}


trait TileSink {
    unsafe fn tile(&mut self, pipe: &Pipeline<4>, st: &mut PipelineState<4>, ring: *const f32);
    fn total(&self) -> f32;
}

struct ColumnSink {
    col: usize,
    acc: f32,
}

impl TileSink for ColumnSink {
    unsafe fn tile(&mut self, pipe: &Pipeline<4>, st: &mut PipelineState<4>, ring: *const f32) {
        pipe.consumer_wait(st);
        let s = ring.add(st.index() as usize * TILE + self.col);
        for r in 0..8 {
            self.acc += *s.add(r * 32);
        }
        st.advance();
    }
    fn total(&self) -> f32 {
        self.acc
    }
}

/// Broken: the consumers' per-tile work runs in a `dyn TileSink` method that never releases the
/// stage; the producer hangs once the ring is full.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_trait_bad_dyn_sink_no_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 64, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 64);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        produce(&pipe, window + 2048, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(512);
        let mut sink = ColumnSink { col: tid as usize, acc: 0.0 };
        let s: &mut dyn TileSink = &mut sink;
        let mut st = PipelineState::<4>::new();
        let mut t = b;
        while t < tiles {
            s.tile(&pipe, &mut st, ring);
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = s.total();
    }
}


struct Padded;
impl TileShape for Padded {
    const ROWS: usize = 8;
    const STRIDE: usize = 33;
}

/// Broken: the consumers read with a padded shape (row stride 33), so the last rows run up to
/// 6 floats into the next stage (past the ring for the last stage).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_trait_bad_padded_shape(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = Ring::at(window, 1840);
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 5936, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 5936);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring.dst(&st), input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column_of::<Padded>(ring.stage(&st), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}
