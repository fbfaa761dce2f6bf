//! Style `regs`: register tiles built with `core::array::from_fn`, reduced by pairwise trees.
//!
//! A consumer lifts its column of the stage into a `[f32; 8]` held in registers
//! (`core::array::from_fn(|r| …)`), and all arithmetic happens on that array: a fixed pairwise
//! tree per tile (`((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7))`) and, in one kernel,
//! Kahan-compensated accumulation over the tiles. The producer is spelled out inline in each
//! kernel; the consumers are warp 1 where the producer is thread 0, and warp 0 where it is
//! thread 32.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_dim_x, block_idx_x, dynamic_shared_base, dynamic_shared_window_address,
    grid_dim_x, thread_idx_x,
};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLUMNS: usize = 32;
const ROWS: usize = 8;
const BLOCK: u32 = 64;
const SMEM: u32 = 8192;

/// Pairwise sum of eight values, in a fixed order.
#[inline(always)]
fn tree8(v: [f32; ROWS]) -> f32 {
    ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]))
}

/// Column `c` of the tile at `tile`, lifted into registers.
#[inline(always)]
fn lift_column(tile: *const f32, c: usize) -> [f32; ROWS] {
    // SAFETY: `r < 8`, `c < 32`: inside the tile.
    core::array::from_fn(|r| unsafe { *tile.add(r * COLUMNS + c) })
}

/// Kahan-compensated running sum.
#[derive(Clone, Copy, Default)]
struct Compensated {
    sum: f32,
    carry: f32,
}

impl Compensated {
    #[inline(always)]
    fn add(&mut self, x: f32) {
        let y = x - self.carry;
        let t = self.sum + y;
        self.carry = (t - self.sum) - y;
        self.sum = t;
    }
}

// ---------------------------------------------------------------------------------------------
// Correct kernels
// ---------------------------------------------------------------------------------------------

/// Four stages, barriers at 0, ring at 1024; producer thread 0, consumers warp 1.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_regs_from_fn_tree(input: *const f32, tiles: u32, out: *mut f32) {
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

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let column = lift_column(ring.add(state.index() as usize * TILE_FLOATS), c);
            acc += tree8(column);
            pipe.consumer_release(&state);
            state.advance();
            t += g;
        }
        *out.add(b as usize * COLUMNS + c) = acc;
    }
}

/// Two stages, ring at 0 (0..2048), barriers at 2048; producer thread 32, consumers warp 0;
/// the tiles' column sums are accumulated with Kahan compensation.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_regs_kahan(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    const RING: u32 = 0;
    const BARS: u32 = 2048;
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
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = Compensated::default();
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let column = lift_column(ring.add(state.index() as usize * TILE_FLOATS), c);
            pipe.consumer_release(&state);
            state.advance();
            acc.add(tree8(column));
            t += g;
        }
        *out.add(b as usize * COLUMNS + c) = acc.sum;
    }
}

/// Five stages, barriers at 0, ring at 1024 (1024..6144); producer thread 0, consumers warp 1.
/// The column is copied out into registers and the stage released before any arithmetic; the
/// tree and the running sum then work on the copy only.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_regs_copy_out_release(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 5;
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

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut state = PipelineState::<STAGES>::new();
        let mut lanes = [0.0f32; ROWS];
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let tile = ring.add(state.index() as usize * TILE_FLOATS);
            let column: [f32; ROWS] = core::array::from_fn(|r| unsafe { *tile.add(r * COLUMNS + c) });
            pipe.consumer_release(&state);
            state.advance();
            // Per-row running sums, folded by the tree once at the end.
            lanes = core::array::from_fn(|r| lanes[r] + column[r]);
            t += g;
        }
        *out.add(b as usize * COLUMNS + c) = tree8(lanes);
    }
}

/// Six stages, ring at 0 (0..6144), barriers at 6144; producer thread 32, consumers warp 0.
/// The stage is viewed as `[[f32; 32]; 8]` rows and the column lifted as `rows[r][c]`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_regs_row_view(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 6;
    const RING: u32 = 0;
    const BARS: u32 = 6144;
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
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let rows = &*(ring.add(state.index() as usize * TILE_FLOATS) as *const [[f32; COLUMNS]; ROWS]);
            let column: [f32; ROWS] = core::array::from_fn(|r| rows[r][c]);
            pipe.consumer_release(&state);
            state.advance();
            acc += tree8(column);
            t += g;
        }
        *out.add(b as usize * COLUMNS + c) = acc;
    }
}

// ---------------------------------------------------------------------------------------------
// Broken kernels
// ---------------------------------------------------------------------------------------------

/// BROKEN: the row view is taken while the stage is held, but the column is lifted from it only
/// after `consumer_release`: the reads race with the producer's next copy into that stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_regs_bad_view_after_release(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const RING: u32 = 0;
    const BARS: u32 = 4096;
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
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let rows = &*(ring.add(state.index() as usize * TILE_FLOATS) as *const [[f32; COLUMNS]; ROWS]);
            pipe.consumer_release(&state);
            state.advance();
            let column: [f32; ROWS] = core::array::from_fn(|r| rows[r][c]);
            acc += tree8(column);
            t += g;
        }
        *out.add(b as usize * COLUMNS + c) = acc;
    }
}

/// BROKEN: the column is lifted with the padded row stride of 33 floats that the team's
/// bank-conflict-free staging layout uses elsewhere; the ring here is unpadded, so rows 1..8 are
/// read from the wrong columns and row 7 of columns 25..32 from past the stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_regs_bad_padded_stride(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = 0;
    const RING: u32 = 1024;
    const ROW_STRIDE: usize = COLUMNS + 1;
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

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let tile = ring.add(state.index() as usize * TILE_FLOATS);
            let column: [f32; ROWS] = core::array::from_fn(|r| unsafe { *tile.add(r * ROW_STRIDE + c) });
            pipe.consumer_release(&state);
            state.advance();
            acc += tree8(column);
            t += g;
        }
        *out.add(b as usize * COLUMNS + c) = acc;
    }
}

/// BROKEN: the pipeline is initialised for `block_dim_x()` releasing threads ("every thread of
/// the block"), but only the 32 consumers of warp 1 release: no *empty* barrier ever completes
/// and the producer stalls once the ring is full.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_regs_bad_init_block_count(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARS: u32 = 0;
    const RING: u32 = 1024;
    block_threads(BLOCK);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, block_dim_x());
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + BARS);
    let b = block_idx_x();
    let g = grid_dim_x();

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let column = lift_column(ring.add(state.index() as usize * TILE_FLOATS), c);
            pipe.consumer_release(&state);
            state.advance();
            acc += tree8(column);
            t += g;
        }
        *out.add(b as usize * COLUMNS + c) = acc;
    }
}

/// BROKEN: the producer's state is made with `PipelineState::default()` (the consumer's start,
/// phase 0) instead of `producer_start()`: its first acquire waits for the *empty* barrier's
/// first phase, which only the consumers' releases of data never copied could complete.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r37_regs_bad_producer_default_state(input: *const f32, tiles: u32, out: *mut f32) {
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
        let mut state: PipelineState<STAGES> = Default::default();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let c = tid as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4) as *const f32;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let column = lift_column(ring.add(state.index() as usize * TILE_FLOATS), c);
            pipe.consumer_release(&state);
            state.advance();
            acc += tree8(column);
            t += g;
        }
        *out.add(b as usize * COLUMNS + c) = acc;
    }
}
