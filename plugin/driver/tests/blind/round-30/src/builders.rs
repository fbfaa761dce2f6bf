//! Builder-style setup: a `RingBuilder` collects the layout and the roles with chained `const fn`
//! setters, `build` initialises the barriers and synchronises the block, and the resulting `Ring`
//! runs either role through its methods.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;
const COLUMNS: u32 = 32;

/// The layout and roles of a ring of `S` one-tile stages, chosen before anything is touched.
#[derive(Clone, Copy)]
struct RingBuilder<const S: u32> {
    ring: u32,
    bars: u32,
    producer: u32,
    first: u32,
    count: u32,
    chunk: u32,
}

impl<const S: u32> RingBuilder<S> {
    /// Stages from byte 0, barriers after them, thread 0 producing whole tiles for warp 1.
    const fn new() -> Self {
        RingBuilder { ring: 0, bars: S * TILE_BYTES, producer: 0, first: 32, count: 32, chunk: TILE_BYTES }
    }

    const fn ring_at(mut self, byte: u32) -> Self {
        self.ring = byte;
        self
    }

    const fn barriers_at(mut self, byte: u32) -> Self {
        self.bars = byte;
        self
    }

    const fn producer(mut self, tid: u32) -> Self {
        self.producer = tid;
        self
    }

    /// `count` consumer threads from thread `first`; each sums the columns `lane + k * count`.
    const fn consumers(mut self, first: u32, count: u32) -> Self {
        self.first = first;
        self.count = count;
        self
    }

    /// Each tile arrives as `TILE_BYTES / bytes` copies of `bytes`.
    const fn copies_of(mut self, bytes: u32) -> Self {
        self.chunk = bytes;
        self
    }

    #[inline(always)]
    unsafe fn build(self) -> Ring<S> {
        block_threads(64);
        dynamic_shared_bytes(8192);
        let window = dynamic_shared_window_address();
        let pipe = if thread_idx_x() == self.producer {
            Pipeline::<S>::init(window + self.bars, self.count)
        } else {
            Pipeline::<S>::attach(window + self.bars)
        };
        barrier();
        Ring { pipe, window, base: dynamic_shared_base::<f32>(), cfg: self }
    }
}

struct Ring<const S: u32> {
    pipe: Pipeline<S>,
    window: u32,
    base: *mut f32,
    cfg: RingBuilder<S>,
}

impl<const S: u32> Ring<S> {
    fn is_producer(&self, tid: u32) -> bool {
        tid == self.cfg.producer
    }

    fn is_consumer(&self, tid: u32) -> bool {
        tid >= self.cfg.first && tid < self.cfg.first + self.cfg.count
    }

    /// Bytes from the window's start to the stage `state` points at.
    fn stage_offset(&self, state: &PipelineState<S>) -> u32 {
        self.cfg.ring + state.index() * TILE_BYTES
    }

    fn stage_window(&self, state: &PipelineState<S>) -> u32 {
        self.window + self.stage_offset(state)
    }

    unsafe fn stage(&self, state: &PipelineState<S>) -> *const f32 {
        self.base.add((self.stage_offset(state) / 4) as usize)
    }

    #[inline(always)]
    unsafe fn produce(&self, input: *const f32, tiles: u32) {
        let copies = TILE_BYTES / self.cfg.chunk;
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            self.pipe.producer_acquire(&state);
            self.pipe.producer_expect_tx(&state, TILE_BYTES);
            let destination = self.stage_window(&state);
            let source = input.add(t as usize * TILE_FLOATS) as *const u8;
            for k in 0..copies {
                let at = k * self.cfg.chunk;
                bulk_copy_global_to_shared(
                    destination + at,
                    source.add(at as usize),
                    self.cfg.chunk,
                    self.pipe.producer_barrier(&state),
                );
            }
            state.advance();
            t += grid_dim_x();
        }
        self.pipe.producer_tail(state);
    }

    #[inline(always)]
    unsafe fn consume(&self, tiles: u32, out: *mut f32) {
        let lane = thread_idx_x() - self.cfg.first;
        let per = (COLUMNS / self.cfg.count) as usize;
        let mut sums = [0.0f32; 4];
        let mut state = PipelineState::<S>::new();
        let mut t = block_idx_x();
        while t < tiles {
            self.pipe.consumer_wait(&state);
            let stage = self.stage(&state);
            for j in 0..per {
                let column = (lane + j as u32 * self.cfg.count) as usize;
                for row in 0..ROWS {
                    sums[j] += *stage.add(row * COLUMNS as usize + column);
                }
            }
            self.pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        let row_out = out.add((block_idx_x() * COLUMNS) as usize);
        for j in 0..per {
            *row_out.add((lane + j as u32 * self.cfg.count) as usize) = sums[j];
        }
    }
}

// ---- correct ----

/// The builder's defaults: four stages from byte 0, barriers after them, thread 0 for warp 1.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_bld_defaults(input: *const f32, tiles: u32, out: *mut f32) {
    let ring = RingBuilder::<4>::new().build();
    let tid = thread_idx_x();
    if ring.is_producer(tid) {
        ring.produce(input, tiles);
    } else if ring.is_consumer(tid) {
        ring.consume(tiles, out);
    }
}

/// Each tile as two 512-byte copies into three stages from byte 2048; barriers at byte 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_bld_half_copies(input: *const f32, tiles: u32, out: *mut f32) {
    let ring = RingBuilder::<3>::new().ring_at(2048).barriers_at(0).copies_of(512).build();
    let tid = thread_idx_x();
    if ring.is_producer(tid) {
        ring.produce(input, tiles);
    } else if ring.is_consumer(tid) {
        ring.consume(tiles, out);
    }
}

/// Eight 128-byte row copies per tile into a two-stage ring; thread 63 produces for warp 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_bld_row_copies(input: *const f32, tiles: u32, out: *mut f32) {
    let ring = RingBuilder::<2>::new().producer(63).consumers(0, 32).copies_of(128).build();
    let tid = thread_idx_x();
    if ring.is_producer(tid) {
        ring.produce(input, tiles);
    } else if ring.is_consumer(tid) {
        ring.consume(tiles, out);
    }
}

/// Sixteen consumers, two columns each; five stages at the top of the window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_bld_sixteen_pairs(input: *const f32, tiles: u32, out: *mut f32) {
    let ring = RingBuilder::<5>::new().ring_at(3072).barriers_at(128).producer(32).consumers(0, 16).build();
    let tid = thread_idx_x();
    if ring.is_producer(tid) {
        ring.produce(input, tiles);
    } else if ring.is_consumer(tid) {
        ring.consume(tiles, out);
    }
}

/// Eight consumers in warp 1, four strided columns each; six stages, barriers at the end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_bld_eight_strided(input: *const f32, tiles: u32, out: *mut f32) {
    let ring = RingBuilder::<6>::new().barriers_at(8192 - 96).consumers(40, 8).producer(1).build();
    let tid = thread_idx_x();
    if ring.is_producer(tid) {
        ring.produce(input, tiles);
    } else if ring.is_consumer(tid) {
        ring.consume(tiles, out);
    }
}

/// A builder kept as a `const` item, shared by a kernel that writes its own consumer loop.
const PAIRED: RingBuilder<2> = RingBuilder::<2>::new().ring_at(1024).barriers_at(512).producer(31).consumers(32, 32);

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_bld_const_builder(input: *const f32, tiles: u32, out: *mut f32) {
    let ring = PAIRED.build();
    let tid = thread_idx_x();
    if ring.is_producer(tid) {
        ring.produce(input, tiles);
        return;
    }
    if !ring.is_consumer(tid) {
        return;
    }
    let column = (tid - 32) as usize;
    let mut state = PipelineState::<2>::new();
    let mut total = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        ring.pipe.consumer_wait(&state);
        let stage = ring.stage(&state);
        total += (0..ROWS).map(|row| *stage.add(row * 32 + column)).sum::<f32>();
        ring.pipe.consumer_release(&state);
        state.advance();
        t += grid_dim_x();
    }
    *out.add(block_idx_x() as usize * 32 + column) = total;
}

// ---- broken ----

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_bld_bad_ring_moved(input: *const f32, tiles: u32, out: *mut f32) {
    let ring = RingBuilder::<4>::new().ring_at(1024).build();
    let tid = thread_idx_x();
    if ring.is_producer(tid) {
        ring.produce(input, tiles);
    } else if ring.is_consumer(tid) {
        ring.consume(tiles, out);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_bld_bad_half_tx(input: *const f32, tiles: u32, out: *mut f32) {
    let ring = RingBuilder::<3>::new().copies_of(512).build();
    let tid = thread_idx_x();
    if ring.is_producer(tid) {
        let mut state = PipelineState::<3>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            ring.pipe.producer_acquire(&state);
            ring.pipe.producer_expect_tx(&state, ring.cfg.chunk);
            let destination = ring.stage_window(&state);
            let source = input.add(t as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(destination, source, 512, ring.pipe.producer_barrier(&state));
            bulk_copy_global_to_shared(destination + 512, source.add(512), 512, ring.pipe.producer_barrier(&state));
            state.advance();
            t += grid_dim_x();
        }
        ring.pipe.producer_tail(state);
    } else if ring.is_consumer(tid) {
        ring.consume(tiles, out);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_bld_bad_row_count(input: *const f32, tiles: u32, out: *mut f32) {
    let ring = RingBuilder::<4>::new().copies_of(128).build();
    let tid = thread_idx_x();
    if ring.is_producer(tid) {
        let rows = (TILE_BYTES - 1) / ring.cfg.chunk;
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            ring.pipe.producer_acquire(&state);
            ring.pipe.producer_expect_tx(&state, TILE_BYTES);
            let destination = ring.stage_window(&state);
            let source = input.add(t as usize * TILE_FLOATS) as *const u8;
            for row in 0..rows {
                let at = row * ring.cfg.chunk;
                bulk_copy_global_to_shared(destination + at, source.add(at as usize), ring.cfg.chunk, ring.pipe.producer_barrier(&state));
            }
            state.advance();
            t += grid_dim_x();
        }
        ring.pipe.producer_tail(state);
    } else if ring.is_consumer(tid) {
        ring.consume(tiles, out);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_bld_bad_consumers_moved(input: *const f32, tiles: u32, out: *mut f32) {
    let ring = RingBuilder::<4>::new().consumers(0, 32).build();
    let tid = thread_idx_x();
    if ring.is_producer(tid) {
        ring.produce(input, tiles);
    } else if ring.is_consumer(tid) {
        ring.consume(tiles, out);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_bld_bad_offset_as_floats(input: *const f32, tiles: u32, out: *mut f32) {
    let ring = RingBuilder::<4>::new().build();
    let tid = thread_idx_x();
    if ring.is_producer(tid) {
        ring.produce(input, tiles);
    } else if ring.is_consumer(tid) {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            ring.pipe.consumer_wait(&state);
            let stage = ring.base.add(ring.stage_offset(&state) as usize);
            for row in 0..ROWS {
                sum += *stage.add(row * 32 + column);
            }
            ring.pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + column) = sum;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_bld_bad_consumer_start(input: *const f32, tiles: u32, out: *mut f32) {
    let ring = RingBuilder::<3>::new().ring_at(64).barriers_at(0).build();
    let tid = thread_idx_x();
    if ring.is_producer(tid) {
        ring.produce(input, tiles);
    } else if ring.is_consumer(tid) {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<3>::producer_start();
        let mut sum = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            ring.pipe.consumer_wait(&state);
            let stage = ring.stage(&state);
            for row in 0..ROWS {
                sum += *stage.add(row * 32 + column);
            }
            ring.pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * 32 + column) = sum;
    }
}
