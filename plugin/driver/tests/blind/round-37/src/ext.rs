//! Style `ext`: extension traits on the device API's `Pipeline`, with scoped stage access.
//!
//! The team does not wrap the pipeline in a type of its own: it adds methods to the device
//! API's `Pipeline<S>` through a local trait (`TileRingExt`), the way a crate adds
//! `Iterator`-style extension methods to a foreign type. The producer calls
//! `pipe.fill_next(&mut state, ring, source)`; a consumer calls
//! `pipe.drain_next(&mut state, ring, |tile| …)`, which waits, hands the closure the stage,
//! releases and advances, like a lock guard's scope. Roles and layouts differ per kernel.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLUMNS: usize = 32;
const ROWS: usize = 8;
const BLOCK: u32 = 64;
const SMEM: u32 = 8192;

/// Extension methods a producer and a consumer thread use on a pipeline of `S` stages whose
/// ring holds one 1 KiB tile per stage.
pub trait TileRingExt<const S: u32> {
    /// Producer: acquire the next stage, announce a tile, copy it from `source`, advance.
    fn fill_next(&self, state: &mut PipelineState<S>, ring: u32, source: *const f32);

    /// Consumer: wait for the next stage, run `read` on it, release it, advance.
    fn drain_next<R>(
        &self,
        state: &mut PipelineState<S>,
        ring: *const f32,
        read: impl FnOnce(*const f32) -> R,
    ) -> R;
}

impl<const S: u32> TileRingExt<S> for Pipeline<S> {
    #[inline(always)]
    fn fill_next(&self, state: &mut PipelineState<S>, ring: u32, source: *const f32) {
        self.producer_acquire(state);
        self.producer_expect_tx(state, TILE_BYTES);
        bulk_copy_global_to_shared(
            ring + state.index() * TILE_BYTES,
            source as *const u8,
            TILE_BYTES,
            self.producer_barrier(state),
        );
        state.advance();
    }

    #[inline(always)]
    fn drain_next<R>(
        &self,
        state: &mut PipelineState<S>,
        ring: *const f32,
        read: impl FnOnce(*const f32) -> R,
    ) -> R {
        self.consumer_wait(state);
        // SAFETY: the stage lies inside the ring the caller placed in dynamic shared memory.
        let tile = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
        let result = read(tile);
        self.consumer_release(state);
        state.advance();
        result
    }
}

/// A "latency-hiding" variant someone added for consumers that only need registers: it frees
/// the stage as soon as it has landed and runs the closure afterwards.
pub trait EagerDrainExt<const S: u32> {
    fn drain_next_eager<R>(
        &self,
        state: &mut PipelineState<S>,
        ring: *const f32,
        read: impl FnOnce(*const f32) -> R,
    ) -> R;
}

impl<const S: u32> EagerDrainExt<S> for Pipeline<S> {
    #[inline(always)]
    fn drain_next_eager<R>(
        &self,
        state: &mut PipelineState<S>,
        ring: *const f32,
        read: impl FnOnce(*const f32) -> R,
    ) -> R {
        self.consumer_wait(state);
        // SAFETY: as in `drain_next`.
        let tile = unsafe { ring.add(state.index() as usize * TILE_FLOATS) };
        self.consumer_release(state);
        state.advance();
        read(tile)
    }
}

/// Sum of column `c` of the tile at `tile` (rows 0..8).
#[inline(always)]
fn column_sum(tile: *const f32, c: usize) -> f32 {
    let mut sum = 0.0;
    let mut r = 0;
    while r < ROWS {
        // SAFETY: `r < 8`, `c < 32`: inside the tile.
        sum += unsafe { *tile.add(r * COLUMNS + c) };
        r += 1;
    }
    sum
}

// ---------------------------------------------------------------------------------------------
// Correct kernels
// ---------------------------------------------------------------------------------------------

/// Four stages; barriers at byte 0, ring at 1024; producer thread 32, consumers warp 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_ext_scoped_column(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = 0;
    const RING: u32 = 1024;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let b = block_idx_x();
    let g = grid_dim_x();

    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.fill_next(&mut state, window + RING, input.add(t as usize * TILE_FLOATS));
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            acc += pipe.drain_next(&mut state, ring, |tile| column_sum(tile, c));
            t += g;
        }
        *out.add(b as usize * COLUMNS + c) = acc;
    }
}

/// Three stages; ring at byte 0, barriers right after it (3072); producer thread 0, consumers
/// warp 1; the column is folded in the closure itself.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_ext_fold_rows(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    const RING: u32 = 0;
    const BARS: u32 = RING + STAGES * TILE_BYTES;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARS)
    };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.fill_next(&mut state, window + RING, input.add(t as usize * TILE_FLOATS));
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let ring = dynamic_shared_base::<f32>() as *const f32;
        let c = (tid - 32) as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            acc += pipe.drain_next(&mut state, ring, |tile| {
                (0..ROWS).fold(0.0f32, |s, r| s + unsafe { *tile.add(r * COLUMNS + c) })
            });
            t += g;
        }
        *out.add(b as usize * COLUMNS + c) = acc;
    }
}

/// Two stages; sixteen consumers (threads 0..16) each sum two columns, `c` and `c + 16`, the
/// closure returning both; producer thread 32.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_ext_paired_columns(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    const BARS: u32 = 0;
    const RING: u32 = 1024;
    const CONSUMERS: u32 = 16;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let b = block_idx_x();
    let g = grid_dim_x();

    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.fill_next(&mut state, window + RING, input.add(t as usize * TILE_FLOATS));
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid < CONSUMERS {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let (mut low, mut high) = (0.0f32, 0.0f32);
        let mut t = b;
        while t < tiles {
            let (l, h) = pipe.drain_next(&mut state, ring, |tile| {
                (column_sum(tile, c), column_sum(tile, c + 16))
            });
            low += l;
            high += h;
            t += g;
        }
        *out.add(b as usize * COLUMNS + c) = low;
        *out.add(b as usize * COLUMNS + c + 16) = high;
    }
}

/// Six stages; ring at byte 0 (0..6144), barriers at 6144; producer thread 63, consumers
/// warp 0; the tile loop counts the block's own tiles first.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_ext_deep_ring(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 6;
    const RING: u32 = 0;
    const BARS: u32 = STAGES * TILE_BYTES;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = if b < tiles { (tiles - b).div_ceil(g) } else { 0 };

    if tid == 63 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for k in 0..mine {
            let t = b + k * g;
            pipe.fill_next(&mut state, window + RING, input.add(t as usize * TILE_FLOATS));
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in 0..mine {
            acc += pipe.drain_next(&mut state, ring, |tile| column_sum(tile, c));
        }
        *out.add(b as usize * COLUMNS + c) = acc;
    }
}

// ---------------------------------------------------------------------------------------------
// Broken kernels
// ---------------------------------------------------------------------------------------------

/// BROKEN: consumers use the eager drain, which releases the stage before the closure reads
/// it; the producer, waiting on that stage, refills it while the column is summed.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_ext_bad_eager_release(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = 0;
    const RING: u32 = 1024;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let b = block_idx_x();
    let g = grid_dim_x();

    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.fill_next(&mut state, window + RING, input.add(t as usize * TILE_FLOATS));
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            acc += pipe.drain_next_eager(&mut state, ring, |tile| column_sum(tile, c));
            t += g;
        }
        *out.add(b as usize * COLUMNS + c) = acc;
    }
}

/// BROKEN: the consumer side still attaches the barriers as a three-stage pipeline (left from
/// an older ring depth) while thread 0 initialised four stages: the consumers' *empty*
/// barriers are the producer's `full[3]`, `empty[0]` and `empty[1]`, and their stage index
/// wraps at three.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_ext_bad_attach_depth(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = 0;
    const RING: u32 = 1024;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();

    if tid == 32 {
        let pipe = Pipeline::<STAGES>::attach(window + BARS);
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.fill_next(&mut state, window + RING, input.add(t as usize * TILE_FLOATS));
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let pipe = Pipeline::<3>::attach(window + BARS);
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let c = tid as usize;
        let mut state = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            acc += pipe.drain_next(&mut state, ring, |tile| column_sum(tile, c));
            t += g;
        }
        *out.add(b as usize * COLUMNS + c) = acc;
    }
}

/// BROKEN: the consumers count their tiles as `(tiles - b) / g + 1`, one too many whenever
/// `tiles - b` is a multiple of the grid (block 0 of the 64-tile launch): they wait for a ninth
/// tile the producer never copies.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_ext_bad_tile_count(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = 0;
    const RING: u32 = 1024;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let b = block_idx_x();
    let g = grid_dim_x();

    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.fill_next(&mut state, window + RING, input.add(t as usize * TILE_FLOATS));
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let c = tid as usize;
        let mine = if b < tiles { (tiles - b) / g + 1 } else { 0 };
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in 0..mine {
            acc += pipe.drain_next(&mut state, ring, |tile| column_sum(tile, c));
        }
        *out.add(b as usize * COLUMNS + c) = acc;
    }
}

/// BROKEN: the barriers are placed "right after the ring" at `STAGES * TILE_BYTES`, forgetting
/// that the ring starts at byte 1024: they sit at the start of stage 3, and every copy into
/// stage 3 overwrites them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_ext_bad_bars_in_ring(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const RING: u32 = 1024;
    const BARS: u32 = STAGES * TILE_BYTES;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let b = block_idx_x();
    let g = grid_dim_x();

    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.fill_next(&mut state, window + RING, input.add(t as usize * TILE_FLOATS));
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            acc += pipe.drain_next(&mut state, ring, |tile| column_sum(tile, c));
            t += g;
        }
        *out.add(b as usize * COLUMNS + c) = acc;
    }
}
