//! Pipeline kernels organised around structs: role structs owning their pipeline and state,
//! ring views with methods, `#[repr(C)]` tile types, newtype tile cursors.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_BYTES: u32 = 1024;

struct Producer<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    window: u32,
    input: *const f32,
    next: u32,
    step: u32,
    end: u32,
}

impl<const S: u32> Producer<S> {
    unsafe fn step(&mut self) -> bool {
        if self.next >= self.end {
            return false;
        }
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        let src = self.input.add(self.next as usize * 256) as *const u8;
        bulk_copy_global_to_shared(self.window + self.state.index() * TILE_BYTES, src, TILE_BYTES, self.pipe.producer_barrier(&self.state));
        self.state.advance();
        self.next += self.step;
        true
    }

    fn finish(self) {
        self.pipe.producer_tail(self.state);
    }
}

struct Consumer<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    ring: *const f32,
    col: usize,
    acc: f32,
}

impl<const S: u32> Consumer<S> {
    unsafe fn take(&mut self) {
        self.pipe.consumer_wait(&self.state);
        let stage = self.ring.add(self.state.index() as usize * 256 + self.col);
        for r in 0..8 {
            self.acc += *stage.add(r * 32);
        }
        self.pipe.consumer_release(&self.state);
        self.state.advance();
    }
}

/// Producer and consumer structs with `&mut self` step methods; four stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_struct_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let bars = window + 4 * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<4>::init(bars, 32) } else { Pipeline::<4>::attach(bars) };
    barrier();
    if tid == 0 {
        let mut p = Producer { pipe, state: PipelineState::producer_start(), window, input, next: block_idx_x(), step: grid_dim_x(), end: tiles };
        while p.step() {}
        p.finish();
    } else if tid >= 32 {
        let mut c = Consumer { pipe, state: PipelineState::new(), ring: dynamic_shared_base::<f32>(), col: (tid - 32) as usize, acc: 0.0 };
        let mut t = block_idx_x();
        while t < tiles {
            c.take();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c.col) = c.acc;
    }
}

#[derive(Clone, Copy)]
struct Ring<const S: u32> {
    window: u32,
    base: *mut f32,
    offset: u32,
}

impl<const S: u32> Ring<S> {
    fn destination(&self, st: &PipelineState<S>) -> u32 {
        self.window + self.offset + st.index() * TILE_BYTES
    }
    fn stage(&self, st: &PipelineState<S>) -> *const f32 {
        self.base.wrapping_add((self.offset + st.index() * TILE_BYTES) as usize / 4)
    }
    fn barriers(&self) -> u32 {
        self.window
    }
}

/// A ring view struct computes copy destinations and stage pointers; barriers first, six stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_struct_ring_view(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 6;
    let ring = Ring::<S> { window: dynamic_shared_window_address(), base: dynamic_shared_base::<f32>(), offset: 1024 };
    let tid = thread_idx_x();
    let pipe = if tid == 32 { Pipeline::<S>::init(ring.barriers(), 32) } else { Pipeline::<S>::attach(ring.barriers()) };
    barrier();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring.destination(&st), input.add(256 * t as usize) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
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
            for r in 0..8usize {
                acc += *p.add(tid as usize + 32 * r);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(32 * b as usize + tid as usize) = acc;
    }
}

#[repr(C)]
struct Tile {
    rows: [[f32; 32]; 8],
}

/// The ring is an array of `#[repr(C)]` tiles of eight rows; four stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_struct_repr_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tiles_ring = dynamic_shared_base::<Tile>();
    let tid = thread_idx_x();
    let bars = window + 4 * core::mem::size_of::<Tile>() as u32;
    let pipe = if tid == 0 { Pipeline::<4>::init(bars, 32) } else { Pipeline::<4>::attach(bars) };
    barrier();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let tile = tiles_ring.add(st.index() as usize);
            for r in 0..8 {
                acc += (*tile).rows[r][c];
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

#[derive(Clone, Copy, PartialEq, PartialOrd)]
struct TileNo(u32);

impl TileNo {
    fn first() -> Self {
        TileNo(block_idx_x())
    }
    fn next(self) -> Self {
        TileNo(self.0 + grid_dim_x())
    }
    unsafe fn source(self, input: *const f32) -> *const u8 {
        input.add(self.0 as usize * 256).cast()
    }
}

/// Tiles counted with a newtype cursor; three stages, ring in the upper half of the window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_struct_tile_newtype(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring_bytes = 4096u32;
    let ring = dynamic_shared_base::<f32>().add(ring_bytes as usize / 4);
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<3>::init(window + 2048, 32) } else { Pipeline::<3>::attach(window + 2048) };
    barrier();
    let last = TileNo(tiles);
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = TileNo::first();
        while t < last {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + ring_bytes + st.index() * TILE_BYTES, t.source(input), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t = t.next();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = TileNo::first();
        while t < last {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * 256);
            let mut r = 8;
            while r > 0 {
                r -= 1;
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t = t.next();
        }
        *out.add(block_idx_x() as usize * 32 + c) = acc;
    }
}

#[derive(Clone, Copy)]
struct Reader {
    pipe: Pipeline<4>,
    state: PipelineState<4>,
    ring: *const f32,
    col: usize,
}

impl Reader {
    unsafe fn read_tile(mut self) -> f32 {
        self.pipe.consumer_wait(&self.state);
        let mut s = 0.0;
        for r in 0..8 {
            s += *self.ring.add(self.state.index() as usize * 256 + r * 32 + self.col);
        }
        self.pipe.consumer_release(&self.state);
        self.state.advance();
        s
    }
}

/// A copyable reader struct whose tile method takes `self`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_struct_bad_reader_by_value(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let bars = window + 4 * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<4>::init(bars, 32) } else { Pipeline::<4>::attach(bars) };
    barrier();
    if tid == 0 {
        let mut p = Producer { pipe, state: PipelineState::producer_start(), window, input, next: block_idx_x(), step: grid_dim_x(), end: tiles };
        while p.step() {}
        p.finish();
    } else if tid >= 32 {
        let reader = Reader { pipe, state: PipelineState::new(), ring: dynamic_shared_base::<f32>(), col: (tid - 32) as usize };
        let mut acc = 0.0;
        let mut t = block_idx_x();
        while t < tiles {
            acc += reader.read_tile();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + reader.col) = acc;
    }
}

/// Ring view with six stages, but the copy destination steps by half a tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_struct_bad_ring_half_stride(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 6;
    let ring = Ring::<S> { window: dynamic_shared_window_address(), base: dynamic_shared_base::<f32>(), offset: 1024 };
    let tid = thread_idx_x();
    let pipe = if tid == 32 { Pipeline::<S>::init(ring.barriers(), 32) } else { Pipeline::<S>::attach(ring.barriers()) };
    barrier();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = ring.window + ring.offset + st.index() * (TILE_BYTES / 2);
            bulk_copy_global_to_shared(dst, input.add(256 * t as usize) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
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
            for r in 0..8usize {
                acc += *p.add(tid as usize + 32 * r);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(32 * b as usize + tid as usize) = acc;
    }
}

#[repr(C)]
struct PaddedTile {
    rows: [[f32; 32]; 8],
    pad: [f32; 4],
}

/// The ring is an array of padded `#[repr(C)]` tiles; copies land 1 KiB apart.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_struct_bad_padded_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tiles_ring = dynamic_shared_base::<PaddedTile>();
    let tid = thread_idx_x();
    let bars = window + 5 * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<4>::init(bars, 32) } else { Pipeline::<4>::attach(bars) };
    barrier();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let tile = tiles_ring.add(st.index() as usize);
            for r in 0..8 {
                acc += (*tile).rows[r][c];
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

struct Config {
    stages_at: u32,
    releasers: u32,
}

/// Configuration struct for the barrier area and the release count; four stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_struct_bad_config_releasers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let cfg = Config { stages_at: 4 * TILE_BYTES, releasers: 33 };
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(window + cfg.stages_at, cfg.releasers) } else { Pipeline::<4>::attach(window + cfg.stages_at) };
    barrier();
    if tid == 0 {
        let mut p = Producer { pipe, state: PipelineState::producer_start(), window, input, next: block_idx_x(), step: grid_dim_x(), end: tiles };
        while p.step() {}
        p.finish();
    } else if tid >= 32 {
        let mut c = Consumer { pipe, state: PipelineState::new(), ring: dynamic_shared_base::<f32>(), col: (tid - 32) as usize, acc: 0.0 };
        let mut t = block_idx_x();
        while t < tiles {
            c.take();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c.col) = c.acc;
    }
}

/// Role structs; the consumer's tile bound is taken one short of the tile count.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_struct_bad_consumer_end(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let bars = window + 5 * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<5>::init(bars, 32) } else { Pipeline::<5>::attach(bars) };
    barrier();
    if tid == 0 {
        let mut p = Producer { pipe, state: PipelineState::producer_start(), window, input, next: block_idx_x(), step: grid_dim_x(), end: tiles };
        while p.step() {}
        p.finish();
    } else if tid >= 32 {
        let mut c = Consumer { pipe, state: PipelineState::new(), ring: dynamic_shared_base::<f32>(), col: (tid - 32) as usize, acc: 0.0 };
        let last = tiles - 1;
        let mut t = block_idx_x();
        while t < last {
            c.take();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c.col) = c.acc;
    }
}

/// Role structs with five stages; the result is stored column-major.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_struct_bad_output_transposed(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let bars = window + 5 * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<5>::init(bars, 32) } else { Pipeline::<5>::attach(bars) };
    barrier();
    if tid == 0 {
        let mut p = Producer { pipe, state: PipelineState::producer_start(), window, input, next: block_idx_x(), step: grid_dim_x(), end: tiles };
        while p.step() {}
        p.finish();
    } else if tid >= 32 {
        let mut c = Consumer { pipe, state: PipelineState::new(), ring: dynamic_shared_base::<f32>(), col: (tid - 32) as usize, acc: 0.0 };
        let mut t = block_idx_x();
        while t < tiles {
            c.take();
            t += grid_dim_x();
        }
        *out.add(c.col * grid_dim_x() as usize + block_idx_x() as usize) = c.acc;
    }
}

/// Role structs with five stages and the whole tile loop inside the producer's `step`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_struct_five_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let bars = window + 5 * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<5>::init(bars, 32) } else { Pipeline::<5>::attach(bars) };
    barrier();
    if tid == 0 {
        let mut p = Producer { pipe, state: PipelineState::producer_start(), window, input, next: block_idx_x(), step: grid_dim_x(), end: tiles };
        loop {
            if !p.step() {
                break;
            }
        }
        p.finish();
    } else if tid >= 32 {
        let mut c = Consumer { pipe, state: PipelineState::new(), ring: dynamic_shared_base::<f32>(), col: (tid - 32) as usize, acc: 0.0 };
        let mut t = block_idx_x();
        while t < tiles {
            c.take();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + c.col) = c.acc;
    }
}
