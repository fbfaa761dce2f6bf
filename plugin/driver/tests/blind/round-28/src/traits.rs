//! Enums and traits: roles chosen by a `match` into an enum, role types behind a trait with
//! static dispatch, column reducers and tile sources as traits, a custom tile iterator.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_BYTES: u32 = 1024;
const TILE_FLOATS: usize = 256;

enum Role {
    Produce,
    Consume { col: usize },
    Idle,
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_tr_role_enum_match(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let role = match tid {
        0 => Role::Produce,
        32..=63 => Role::Consume { col: tid as usize - 32 },
        _ => Role::Idle,
    };
    let b = block_idx_x();
    let g = grid_dim_x();
    match role {
        Role::Produce => {
            let mut st = PipelineState::<4>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        }
        Role::Consume { col } => {
            let mut st = PipelineState::<4>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = smem.add(st.index() as usize * TILE_FLOATS);
                for r in 0..8 {
                    acc += *stage.add(r * 32 + col);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add(b as usize * 32 + col) = acc;
        }
        Role::Idle => {}
    }
}

trait Part {
    unsafe fn run(self, pipe: &Pipeline<4>, tiles: u32);
}

struct Loader {
    window: u32,
    input: *const f32,
}

struct Summer {
    ring: *const f32,
    col: usize,
    out: *mut f32,
}

impl Part for Loader {
    #[inline(always)]
    unsafe fn run(self, pipe: &Pipeline<4>, tiles: u32) {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(self.window + st.index() * TILE_BYTES, self.input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    }
}

impl Part for Summer {
    #[inline(always)]
    unsafe fn run(self, pipe: &Pipeline<4>, tiles: u32) {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = self.ring.add(st.index() as usize * TILE_FLOATS);
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

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_tr_static_parts(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + 4 * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<4>::init(bars, 32) } else { Pipeline::<4>::attach(bars) };
    barrier();
    if tid == 0 {
        Loader { window, input }.run(&pipe, tiles);
    } else if tid >= 32 {
        Summer { ring: dynamic_shared_base::<f32>(), col: tid as usize - 32, out }.run(&pipe, tiles);
    }
}

trait ColumnReducer {
    unsafe fn column(stage: *const f32, col: usize) -> f32;
}

struct Pairwise;

impl ColumnReducer for Pairwise {
    #[inline(always)]
    unsafe fn column(stage: *const f32, col: usize) -> f32 {
        let a = *stage.add(col) + *stage.add(32 + col);
        let b = *stage.add(64 + col) + *stage.add(96 + col);
        let c = *stage.add(128 + col) + *stage.add(160 + col);
        let d = *stage.add(192 + col) + *stage.add(224 + col);
        (a + b) + (c + d)
    }
}

#[inline(always)]
unsafe fn reduce_kernel<R: ColumnReducer>(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>() as *const f32;
    let bars = window + 3 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<3>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += R::column(smem.add(st.index() as usize * TILE_FLOATS), col);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_tr_reducer_pairwise(input: *const f32, tiles: u32, out: *mut f32) {
    reduce_kernel::<Pairwise>(input, tiles, out);
}

trait TileSource {
    fn tile(&self, t: u32) -> *const u8;
}

struct Dense {
    input: *const f32,
}

impl TileSource for Dense {
    #[inline(always)]
    fn tile(&self, t: u32) -> *const u8 {
        self.input.wrapping_add(t as usize * TILE_FLOATS) as *const u8
    }
}

struct ByteStrided {
    input: *const f32,
}

impl TileSource for ByteStrided {
    #[inline(always)]
    fn tile(&self, t: u32) -> *const u8 {
        // stride given in floats on a byte pointer
        (self.input as *const u8).wrapping_add(t as usize * TILE_FLOATS)
    }
}

#[inline(always)]
unsafe fn sourced_kernel<S: TileSource>(src: S, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 2 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<2>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<2>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, src.tile(t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE_FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_tr_tile_source(input: *const f32, tiles: u32, out: *mut f32) {
    sourced_kernel(Dense { input }, tiles, out);
}

struct BlockTiles {
    next: u32,
    step: u32,
    end: u32,
}

impl Iterator for BlockTiles {
    type Item = u32;
    #[inline(always)]
    fn next(&mut self) -> Option<u32> {
        if self.next >= self.end {
            return None;
        }
        let t = self.next;
        self.next += self.step;
        Some(t)
    }
}

#[inline(always)]
fn block_tiles(tiles: u32) -> BlockTiles {
    BlockTiles { next: block_idx_x(), step: grid_dim_x(), end: tiles }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_tr_custom_iterator(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        for t in block_tiles(tiles) {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        for _ in block_tiles(tiles) {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE_FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(block_idx_x() as usize * 32 + col) = acc;
    }
}

#[derive(Clone, Copy)]
enum Layout {
    RingFirst,
    BarsFirst,
}

impl Layout {
    #[inline(always)]
    const fn ring(self) -> u32 {
        match self {
            Layout::RingFirst => 0,
            Layout::BarsFirst => 1024,
        }
    }

    #[inline(always)]
    const fn bars(self, stages: u32) -> u32 {
        match self {
            Layout::RingFirst => stages * TILE_BYTES,
            Layout::BarsFirst => 0,
        }
    }
}

const LAYOUT: Layout = Layout::BarsFirst;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_tr_layout_enum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: u32 = LAYOUT.ring();
    const BARS: u32 = LAYOUT.bars(4);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    if tid == 0 {
        Pipeline::<4>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + BARS);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add((RING / 4) as usize + st.index() as usize * TILE_FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

// ---------------------------------------------------------------- broken

/// The consumer arm's range starts at 31: 33 threads release a barrier set up for 32, and
/// thread 63 writes column 32, which is the next block's column 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_tr_bad_role_range_from_31(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let role = match tid {
        0 => Role::Produce,
        31..=63 => Role::Consume { col: tid as usize - 31 },
        _ => Role::Idle,
    };
    let b = block_idx_x();
    let g = grid_dim_x();
    match role {
        Role::Produce => {
            let mut st = PipelineState::<4>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        }
        Role::Consume { col } => {
            let mut st = PipelineState::<4>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = smem.add(st.index() as usize * TILE_FLOATS);
                for r in 0..8 {
                    acc += *stage.add(r * 32 + col);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add(b as usize * 32 + col) = acc;
        }
        Role::Idle => {}
    }
}

trait Finish {
    #[inline(always)]
    fn finish(&self, _pipe: &Pipeline<3>, _st: &PipelineState<3>) {}
}

struct ColumnTaker {
    col: usize,
}

// `finish` was meant to release the stage; the default does nothing.
impl Finish for ColumnTaker {}

/// The consumer's `finish` hook keeps the trait's empty default instead of releasing.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_tr_bad_default_finish(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 3 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<3>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let taker = ColumnTaker { col: tid as usize - 32 };
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE_FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + taker.col);
            }
            taker.finish(&pipe, &st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + taker.col) = acc;
    }
}

struct LooseTiles {
    next: u32,
    step: u32,
    end: u32,
}

impl Iterator for LooseTiles {
    type Item = u32;
    #[inline(always)]
    fn next(&mut self) -> Option<u32> {
        if self.next > self.end {
            return None;
        }
        let t = self.next;
        self.next += self.step;
        Some(t)
    }
}

/// The consumers' tile iterator stops only past `end` (`>` for `>=`): block 0 waits for a
/// ninth tile the producer never copies.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_tr_bad_iterator_past_end(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        for t in block_tiles(tiles) {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        for _ in (LooseTiles { next: block_idx_x(), step: grid_dim_x(), end: tiles }) {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE_FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(block_idx_x() as usize * 32 + col) = acc;
    }
}

/// The tile source steps a byte pointer by 256 per tile: every copy but the first reads a
/// quarter tile further instead of a whole tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_tr_bad_source_byte_stride(input: *const f32, tiles: u32, out: *mut f32) {
    sourced_kernel(ByteStrided { input }, tiles, out);
}

/// The barriers are initialised for four stages but the consumers attach them as three.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_tr_bad_attach_three_of_four(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: u32 = LAYOUT.ring();
    const BARS: u32 = LAYOUT.bars(4);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    if tid == 0 {
        Pipeline::<4>::init(window + BARS, 32);
    }
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let pipe = Pipeline::<4>::attach(window + BARS);
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let pipe = Pipeline::<3>::attach(window + BARS);
        let col = tid as usize - 32;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add((RING / 4) as usize + st.index() as usize * TILE_FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

struct Issuer {
    state: PipelineState<2>,
}

impl Issuer {
    #[inline(always)]
    fn new() -> Issuer {
        Issuer { state: PipelineState::default() }
    }
}

/// The producer's state comes from `Default` (the consumers' start, parity 0): its first
/// acquire waits for a release that needs a tile it has not copied.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_tr_bad_producer_default_state(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 2 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<2>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<2>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut issuer = Issuer::new();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&issuer.state);
            pipe.producer_expect_tx(&issuer.state, TILE_BYTES);
            bulk_copy_global_to_shared(window + issuer.state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&issuer.state));
            issuer.state.advance();
            t += g;
        }
        pipe.producer_tail(issuer.state);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE_FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}
