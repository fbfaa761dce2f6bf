//! Structs and methods: a ring descriptor, role structs holding the pipeline and their state,
//! a tile cursor, typed tile views (`[[f32; 32]; 8]`, a `#[repr(C)]` tile).

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id, thread_idx_x, warp_id};

const TILE_BYTES: u32 = 1024;
const TILE_FLOATS: usize = 256;

#[derive(Clone, Copy)]
struct Ring {
    window: u32,
    base: *mut f32,
}

impl Ring {
    #[inline(always)]
    fn new(byte_offset: u32) -> Ring {
        Ring {
            window: dynamic_shared_window_address() + byte_offset,
            base: dynamic_shared_base::<f32>().wrapping_add(byte_offset as usize / 4),
        }
    }

    #[inline(always)]
    fn dest<const S: u32>(&self, st: &PipelineState<S>) -> u32 {
        self.window + st.index() * TILE_BYTES
    }

    #[inline(always)]
    fn stage<const S: u32>(&self, st: &PipelineState<S>) -> *const f32 {
        self.base.wrapping_add(st.index() as usize * TILE_FLOATS)
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_st_ring_methods(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ring = Ring::new(0);
    let bars = dynamic_shared_window_address() + 4 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring.dest(&st), input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
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
            let stage = ring.stage(&st);
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

struct Producer {
    pipe: Pipeline<3>,
    state: PipelineState<3>,
    window: u32,
    input: *const f32,
}

impl Producer {
    #[inline(always)]
    unsafe fn push(&mut self, tile: u32) {
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        let dst = self.window + self.state.index() * TILE_BYTES;
        let src = self.input.add(tile as usize * TILE_FLOATS) as *const u8;
        bulk_copy_global_to_shared(dst, src, TILE_BYTES, self.pipe.producer_barrier(&self.state));
        self.state.advance();
    }

    #[inline(always)]
    fn finish(self) {
        self.pipe.producer_tail(self.state);
    }
}

struct Consumer {
    pipe: Pipeline<3>,
    state: PipelineState<3>,
    col: usize,
    acc: f32,
}

impl Consumer {
    #[inline(always)]
    unsafe fn pull(&mut self, ring: *const f32) {
        self.pipe.consumer_wait(&self.state);
        let stage = ring.add(self.state.index() as usize * TILE_FLOATS);
        for r in 0..8 {
            self.acc += *stage.add(r * 32 + self.col);
        }
        self.pipe.consumer_release(&self.state);
        self.state.advance();
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_st_role_structs(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + 3 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<3>::init(bars, 32);
    }
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut p = Producer { pipe: Pipeline::<3>::attach(bars), state: PipelineState::producer_start(), window, input };
        let mut t = b;
        while t < tiles {
            p.push(t);
            t += g;
        }
        p.finish();
    } else if tid >= 32 {
        let mut c = Consumer { pipe: Pipeline::<3>::attach(bars), state: PipelineState::new(), col: tid as usize - 32, acc: 0.0 };
        let ring = dynamic_shared_base::<f32>();
        let mut t = b;
        while t < tiles {
            c.pull(ring);
            t += g;
        }
        *out.add(b as usize * 32 + c.col) = c.acc;
    }
}

type Rows = [[f32; 32]; 8];

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_st_tile_rows_view(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4096;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
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
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let tile = smem.add(st.index() as usize * TILE_FLOATS) as *const Rows;
            for r in 0..8 {
                acc += (*tile)[r][col];
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

#[derive(Clone, Copy)]
struct Cursor {
    next: u32,
    step: u32,
    end: u32,
}

impl Cursor {
    #[inline(always)]
    fn of_block(tiles: u32) -> Cursor {
        Cursor { next: block_idx_x(), step: grid_dim_x(), end: tiles }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_st_cursor(input: *const f32, tiles: u32, out: *mut f32) {
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
    if tid == 0 {
        let mut work = Cursor::of_block(tiles);
        let mut st = PipelineState::<2>::producer_start();
        while work.next < work.end {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(work.next as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            work.next += work.step;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut work = Cursor::of_block(tiles);
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        while work.next < work.end {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE_FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            work.next += work.step;
        }
        *out.add(block_idx_x() as usize * 32 + col) = acc;
    }
}

#[repr(C)]
struct Tile {
    rows: [[f32; 32]; 8],
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_st_repr_c_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<Tile>() as *const Tile;
    let bars = window + 4 * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<4>::init(bars, 32) } else { Pipeline::<4>::attach(bars) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
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
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let tile = &*ring.add(st.index() as usize);
            for r in 0..8 {
                acc += tile.rows[r][col];
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_st_row_accumulators(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = Ring::new(2048);
    let bars = window;
    if tid == 0 {
        Pipeline::<5>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<5>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<5>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring.dest(&st), input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<5>::new();
        let mut rows = [0.0f32; 8];
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.stage(&st);
            for r in 0..8 {
                rows[r] += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        let mut total = 0.0f32;
        for v in rows {
            total += v;
        }
        *out.add(b as usize * 32 + col) = total;
    }
}

// ---------------------------------------------------------------- broken

#[derive(Clone, Copy)]
struct ByteRing {
    window: u32,
    base: *const f32,
}

impl ByteRing {
    #[inline(always)]
    fn dest(&self, st: &PipelineState<2>) -> u32 {
        self.window + st.index() * TILE_BYTES
    }

    #[inline(always)]
    fn stage(&self, st: &PipelineState<2>) -> *const f32 {
        // TILE_BYTES where the pointer counts floats
        self.base.wrapping_add((st.index() * TILE_BYTES) as usize)
    }
}

/// The ring's stage method scales the index by the tile's bytes on a float pointer: stage 1
/// is read 4 KiB into the window, where nothing was copied.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_st_bad_stage_in_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = ByteRing { window, base: dynamic_shared_base::<f32>() };
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
            bulk_copy_global_to_shared(ring.dest(&st), input.add(t as usize * TILE_FLOATS) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
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
            let stage = ring.stage(&st);
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

#[derive(Clone, Copy)]
struct Roles;

impl Roles {
    #[inline(always)]
    fn is_producer(&self) -> bool {
        // meant: lane 0 of warp 0
        lane_id() == 0
    }

    #[inline(always)]
    fn is_consumer(&self) -> bool {
        warp_id() == 1
    }
}

/// The producer predicate tests only the lane, so lane 0 of both warps produces (and warp 1's
/// lane 0 no longer consumes).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_st_bad_producer_every_warp(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let roles = Roles;
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if roles.is_producer() {
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
    } else if roles.is_consumer() {
        let col = lane_id() as usize;
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
}

/// The rows view is indexed `[col][r]`: columns past 7 index past the eight rows and trap.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_st_bad_rows_transposed(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4096;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
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
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let tile = &*(smem.add(st.index() as usize * TILE_FLOATS) as *const Rows);
            for r in 0..8 {
                acc += tile[col][r];
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

/// Results stored at `out[col]`, without the block's offset: blocks overwrite each other's
/// first 32 outputs and the rest stay NaN.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_st_bad_output_without_block(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + 3 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<3>::init(bars, 32);
    }
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut p = Producer { pipe: Pipeline::<3>::attach(bars), state: PipelineState::producer_start(), window, input };
        let mut t = b;
        while t < tiles {
            p.push(t);
            t += g;
        }
        p.finish();
    } else if tid >= 32 {
        let mut c = Consumer { pipe: Pipeline::<3>::attach(bars), state: PipelineState::new(), col: tid as usize - 32, acc: 0.0 };
        let ring = dynamic_shared_base::<f32>();
        let mut t = b;
        while t < tiles {
            c.pull(ring);
            t += g;
        }
        *out.add(c.col) = c.acc;
    }
}

/// The typed tile ring is stepped by `index * 256` tiles instead of `index` tiles: stage 1 is
/// 256 KiB past the window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_st_bad_tile_ring_float_stride(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<Tile>() as *const Tile;
    let bars = window + 4 * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<4>::init(bars, 32) } else { Pipeline::<4>::attach(bars) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
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
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let tile = &*ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..8 {
                acc += tile.rows[r][col];
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

impl Consumer {
    #[inline(always)]
    fn joined(bars: u32, col: usize) -> Consumer {
        // each consumer sets the barriers up itself
        Consumer { pipe: Pipeline::<3>::init(bars, 32), state: PipelineState::new(), col, acc: 0.0 }
    }
}

/// Every consumer builds its view with `Pipeline::init` instead of `attach`, re-initialising
/// barriers the producer is already arriving on.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_st_bad_consumers_reinit(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + 3 * TILE_BYTES;
    if tid == 0 {
        Pipeline::<3>::init(bars, 32);
    }
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut p = Producer { pipe: Pipeline::<3>::attach(bars), state: PipelineState::producer_start(), window, input };
        let mut t = b;
        while t < tiles {
            p.push(t);
            t += g;
        }
        p.finish();
    } else if tid >= 32 {
        let mut c = Consumer::joined(bars, tid as usize - 32);
        let ring = dynamic_shared_base::<f32>();
        let mut t = b;
        while t < tiles {
            c.pull(ring);
            t += g;
        }
        *out.add(b as usize * 32 + c.col) = c.acc;
    }
}
