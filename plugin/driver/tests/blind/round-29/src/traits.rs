//! Traits (static and `dyn`), enums and `match`: role traits dispatched statically, a combiner
//! trait, a role enum chosen by `match`, associated-constant layouts, a tile-source trait.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;

/// One role of the block over a four-stage pipeline.
trait Role {
    unsafe fn run(&mut self, pipe: &Pipeline<4>);
}

struct Copier {
    input: *const f32,
    ring: u32,
    tiles: u32,
}

impl Role for Copier {
    unsafe fn run(&mut self, pipe: &Pipeline<4>) {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < self.tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(self.ring + st.index() * TILE_BYTES, self.input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    }
}

struct ColumnSum {
    stages: *const f32,
    col: usize,
    tiles: u32,
    out: *mut f32,
}

impl Role for ColumnSum {
    unsafe fn run(&mut self, pipe: &Pipeline<4>) {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < self.tiles {
            pipe.consumer_wait(&st);
            let stage = self.stages.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + self.col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *self.out.add(block_idx_x() as usize * 32 + self.col) = acc;
    }
}

fn drive<R: Role>(mut role: R, pipe: &Pipeline<4>) {
    unsafe { role.run(pipe) }
}

/// Producer and consumer as implementations of a `Role` trait, dispatched statically.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_tr_static_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 32 {
        drive(Copier { input, ring: window + 1024, tiles }, &pipe);
    } else if tid < 32 {
        drive(ColumnSum { stages: dynamic_shared_base::<f32>().add(256), col: tid as usize, tiles, out }, &pipe);
    }
}

/// How a column's values are combined.
trait Combine {
    const ZERO: f32;
    fn join(a: f32, b: f32) -> f32;
}

struct Add;

impl Combine for Add {
    const ZERO: f32 = 0.0;
    fn join(a: f32, b: f32) -> f32 {
        a + b
    }
}

struct Max;

impl Combine for Max {
    const ZERO: f32 = f32::NEG_INFINITY;
    fn join(a: f32, b: f32) -> f32 {
        a.max(b)
    }
}

#[inline(always)]
unsafe fn fold_column<C: Combine>(stage: *const f32, col: usize) -> f32 {
    let mut v = C::ZERO;
    for r in 0..8 {
        v = C::join(v, *stage.add(r * 32 + col));
    }
    v
}

unsafe fn reduce_kernel<C: Combine>(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + 3072;
    let pipe = if tid == 0 { Pipeline::<3>::init(bars, 32) } else { Pipeline::<3>::attach(bars) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += fold_column::<C>(ring.add(st.index() as usize * TILE), col);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + col) = acc;
    }
}

/// A consumer generic over a `Combine` trait, instantiated with addition.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_tr_combine_add(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    reduce_kernel::<Add>(input, tiles, out);
}

/// What a thread does, decided once from its index.
enum Duty {
    Producer,
    Consumer { col: usize },
    Idle,
}

fn duty_of(tid: u32) -> Duty {
    match tid {
        0..=31 => Duty::Consumer { col: tid as usize },
        32 => Duty::Producer,
        _ => Duty::Idle,
    }
}

/// Roles as an enum matched once; two stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_tr_duty_enum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<2>::init(window, 32) } else { Pipeline::<2>::attach(window) };
    barrier();
    let ring = window + 1024;
    match duty_of(tid) {
        Duty::Producer => {
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
        }
        Duty::Consumer { col } => {
            let stages = dynamic_shared_base::<f32>().add(256);
            let mut st = PipelineState::<2>::new();
            let mut acc = 0.0f32;
            let mut t = block_idx_x();
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = stages.add(st.index() as usize * TILE);
                for r in 0..8 {
                    acc += *stage.add(r * 32 + col);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += grid_dim_x();
            }
            *out.add(block_idx_x() as usize * 32 + col) = acc;
        }
        Duty::Idle => {}
    }
}

/// A combiner used through a trait object, on register values only.
trait Fold {
    fn step(&self, acc: f32, v: f32) -> f32;
}

struct Plus;

impl Fold for Plus {
    fn step(&self, acc: f32, v: f32) -> f32 {
        acc + v
    }
}

/// The consumers add each tile's column total through a `&dyn Fold`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_tr_dyn_fold(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    let ring = window + 1024;
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let fold: &dyn Fold = &Plus;
        let stages = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE);
            let mut col = 0.0f32;
            for r in 0..8 {
                col += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            acc = fold.step(acc, col);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// A shared-memory plan given by associated constants.
trait Plan {
    const BARS: u32;
    const RING: u32;
    const PRODUCER: u32;
}

struct BarsFirst;

impl Plan for BarsFirst {
    const BARS: u32 = 0;
    const RING: u32 = 1024;
    const PRODUCER: u32 = 63;
}

unsafe fn planned<P: Plan>(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == P::PRODUCER { Pipeline::<4>::init(window + P::BARS, 32) } else { Pipeline::<4>::attach(window + P::BARS) };
    barrier();
    if tid == P::PRODUCER {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + P::RING + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let stages = dynamic_shared_base::<u8>().add(P::RING as usize) as *const f32;
        let mut st = PipelineState::<4>::new();
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

/// A kernel body generic over a `Plan` trait of associated constants.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_tr_assoc_plan(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    planned::<BarsFirst>(input, tiles, out);
}

/// Where the block's tiles come from.
trait Source {
    fn count(&self) -> u32;
    unsafe fn tile(&self, k: u32) -> *const u8;
}

struct BlockTiles {
    base: *const f32,
    first: u32,
    step: u32,
    tiles: u32,
}

impl Source for BlockTiles {
    fn count(&self) -> u32 {
        if self.first < self.tiles { (self.tiles - self.first).div_ceil(self.step) } else { 0 }
    }

    unsafe fn tile(&self, k: u32) -> *const u8 {
        self.base.add((self.first + k * self.step) as usize * TILE) as *const u8
    }
}

unsafe fn sourced<S: Source>(src: &S, out: *mut f32) {
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window + 4096, 32) } else { Pipeline::<4>::attach(window + 4096) };
    barrier();
    let n = src.count();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        for k in 0..n {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, src.tile(k), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        for _ in 0..n {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(block_idx_x() as usize * 32 + col) = acc;
    }
}

/// Tiles described by a `Source` trait implementation, both roles counting with it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_tr_tile_source(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let src = BlockTiles { base: input, first: block_idx_x(), step: grid_dim_x(), tiles };
    sourced(&src, out);
}

/// One step of the producer, behind a trait object.
trait Stage {
    unsafe fn fill(&self, pipe: &Pipeline<4>, st: &PipelineState<4>, t: u32);
}

struct HalfCopier {
    input: *const f32,
    ring: u32,
}

impl Stage for HalfCopier {
    unsafe fn fill(&self, pipe: &Pipeline<4>, st: &PipelineState<4>, t: u32) {
        pipe.producer_expect_tx(st, TILE_BYTES);
        bulk_copy_global_to_shared(self.ring + st.index() * TILE_BYTES, self.input.add(t as usize * TILE) as *const u8, TILE_BYTES / 2, pipe.producer_barrier(st));
    }
}

/// The producer fills stages through a `dyn Stage` whose copy moves half the announced bytes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_tr_bad_dyn_half_fill(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    let ring = window + 1024;
    if tid == 32 {
        let filler: &dyn Stage = &HalfCopier { input, ring };
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            filler.fill(&pipe, &st, t);
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        drive(ColumnSum { stages: dynamic_shared_base::<f32>().add(256), col: tid as usize, tiles, out }, &pipe);
    }
}

fn duty_of_inclusive(tid: u32) -> Duty {
    match tid {
        0..=32 => Duty::Consumer { col: tid as usize },
        33 => Duty::Producer,
        _ => Duty::Idle,
    }
}

/// The role `match` gives the consumer arm an inclusive range `0..=32`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_tr_bad_duty_inclusive(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<2>::init(window, 32) } else { Pipeline::<2>::attach(window) };
    barrier();
    let ring = window + 1024;
    match duty_of_inclusive(tid) {
        Duty::Producer => {
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
        }
        Duty::Consumer { col } => {
            let stages = dynamic_shared_base::<f32>().add(256);
            let mut st = PipelineState::<2>::new();
            let mut acc = 0.0f32;
            let mut t = block_idx_x();
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = stages.add(st.index() as usize * TILE);
                for r in 0..8 {
                    acc += *stage.add(r * 32 + col);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += grid_dim_x();
            }
            *out.add(block_idx_x() as usize * 32 + col) = acc;
        }
        Duty::Idle => {}
    }
}

/// The generic consumer instantiated with the maximum instead of the sum.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_tr_bad_combine_max(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    reduce_kernel::<Max>(input, tiles, out);
}

/// A source whose tiles are consecutive from the block's index.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_tr_bad_source_contiguous(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let g = grid_dim_x();
    let b = block_idx_x();
    let per_block = tiles.div_ceil(g);
    let src = BlockTiles { base: input, first: b * per_block, step: 1, tiles: (b + 1) * per_block };
    sourced(&src, out);
}

fn duty_past_warps(tid: u32) -> Duty {
    if tid < 32 {
        Duty::Consumer { col: tid as usize }
    } else if tid == 64 {
        Duty::Producer
    } else {
        Duty::Idle
    }
}

/// The producer is the thread after the two warps, index 64.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_tr_bad_duty_past_block(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    let ring = window + 1024;
    match duty_past_warps(tid) {
        Duty::Producer => {
            let mut st = PipelineState::<4>::producer_start();
            let mut t = block_idx_x();
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += grid_dim_x();
            }
            pipe.producer_tail(st);
        }
        Duty::Consumer { col } => {
            drive(ColumnSum { stages: dynamic_shared_base::<f32>().add(256), col, tiles, out }, &pipe);
        }
        Duty::Idle => {}
    }
}

/// A consumer role behind a trait object.
trait Consume {
    unsafe fn tile(&mut self, pipe: &Pipeline<4>) -> f32;
}

struct Lane {
    stages: *const f32,
    state: PipelineState<4>,
    col: usize,
}

impl Consume for Lane {
    unsafe fn tile(&mut self, pipe: &Pipeline<4>) -> f32 {
        pipe.consumer_wait(&self.state);
        let stage = self.stages.add(self.state.index() as usize * TILE);
        let mut s = 0.0;
        for r in 0..8 {
            s += *stage.add(r * 32 + self.col);
        }
        pipe.consumer_release(&self.state);
        s
    }
}

/// The consumers take tiles through a `dyn Consume` whose method never advances its state.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_tr_bad_dyn_consume_stuck(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 32 {
        drive(Copier { input, ring: window + 1024, tiles }, &pipe);
    } else if tid < 32 {
        let mut lane = Lane { stages: dynamic_shared_base::<f32>().add(256), state: PipelineState::new(), col: tid as usize };
        let consumer: &mut dyn Consume = &mut lane;
        let mut acc = 0.0;
        let mut t = block_idx_x();
        while t < tiles {
            acc += consumer.tile(&pipe);
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}
