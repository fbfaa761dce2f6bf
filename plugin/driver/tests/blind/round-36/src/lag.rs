//! Style: consumers that hold their stage until they have waited for the next one (the CUTLASS
//! order), written with a plain copy `let mut prev = state;` and a peeled first tile.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{bulk_copy_global_to_shared, Pipeline, PipelineState};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_BYTES: u32 = 1024;
const TILE_FLOATS: usize = 256;

/// Tiles of block `b` in a grid of `g` blocks: `t = b + k * g`.
#[inline(always)]
fn share(b: u32, g: u32, tiles: u32) -> u32 {
    if b < tiles { (tiles - b + g - 1) / g } else { 0 }
}

#[inline(always)]
unsafe fn column(stage: *const f32, c: usize) -> f32 {
    let mut s = 0.0f32;
    for r in 0..8 {
        s += *stage.add(r * 32 + c);
    }
    s
}

macro_rules! lag_kernel {
    ($name:ident, $stages:expr, $init_count:expr, $producer:expr, $cons_lo:expr, consumer_start = $cstart:ident, final_release = $fin:expr) => {
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(input: *const f32, tiles: u32, out: *mut f32) {
            const S: u32 = $stages;
            block_threads(64);
            dynamic_shared_bytes(8192);
            let tid = thread_idx_x();
            let window = dynamic_shared_window_address();
            let ring = dynamic_shared_base::<f32>();
            let bars = window + S * TILE_BYTES;
            if tid == 0 {
                Pipeline::<S>::init(bars, $init_count);
            }
            barrier();
            let pipe = Pipeline::<S>::attach(bars);
            let b = block_idx_x();
            let g = grid_dim_x();
            let mine = share(b, g, tiles);
            if tid == $producer {
                let mut st = PipelineState::<S>::producer_start();
                for k in 0..mine {
                    pipe.producer_acquire(&st);
                    pipe.producer_expect_tx(&st, TILE_BYTES);
                    let t = b + k * g;
                    bulk_copy_global_to_shared(
                        window + st.index() * TILE_BYTES,
                        input.add(t as usize * TILE_FLOATS) as *const u8,
                        TILE_BYTES,
                        pipe.producer_barrier(&st),
                    );
                    st.advance();
                }
                pipe.producer_tail(st);
            } else if tid / 32 == $cons_lo / 32 {
                let c = (tid - $cons_lo) as usize;
                let mut acc = 0.0f32;
                let mut state = PipelineState::<S>::$cstart();
                if mine > 0 {
                    pipe.consumer_wait(&state);
                    acc += column(ring.add(state.index() as usize * TILE_FLOATS), c);
                    let mut prev = state;
                    state.advance();
                    for _ in 1..mine {
                        pipe.consumer_wait(&state);
                        pipe.consumer_release(&prev);
                        acc += column(ring.add(state.index() as usize * TILE_FLOATS), c);
                        prev = state;
                        state.advance();
                    }
                    if $fin {
                        pipe.consumer_release(&prev);
                    }
                }
                *out.add(b as usize * 32 + c) = acc;
            }
        }
    };
}

// ---- correct ----
lag_kernel!(r36_lag_two_stages, 2, 32, 32, 0, consumer_start = new, final_release = true);
lag_kernel!(r36_lag_three_stages_producer_first, 3, 32, 0, 32, consumer_start = new, final_release = true);
lag_kernel!(r36_lag_four_stages_last_producer, 4, 32, 63, 0, consumer_start = new, final_release = true);

/// Correct: the producer peels its first tile as the consumers do, and the stage read is inline.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r36_lag_peeled_both(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 3;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>();
    let bars = window + S * TILE_BYTES;
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = share(b, g, tiles);
    if tid == 40 {
        let mut st = PipelineState::<S>::producer_start();
        for k in 0..mine {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + st.index() * TILE_BYTES,
                input.add((b + k * g) as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let c = tid as usize;
        let mut acc = 0.0f32;
        let mut state = PipelineState::<S>::new();
        if mine > 0 {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + c);
            }
            let mut prev = state;
            state.advance();
            let mut k = 1;
            while k < mine {
                pipe.consumer_wait(&state);
                pipe.consumer_release(&prev);
                let stage = ring.add(state.index() as usize * TILE_FLOATS);
                for r in 0..8 {
                    acc += *stage.add(r * 32 + c);
                }
                prev = state;
                state.advance();
                k += 1;
            }
            pipe.consumer_release(&prev);
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

// ---- broken ----
// The last held stage is never released: the producer's tail waits for it forever.
lag_kernel!(r36_lag_bad_no_final_release, 2, 32, 32, 0, consumer_start = new, final_release = false);
// One stage: the consumer holds stage 0 while waiting for its next fill, which needs that release.
lag_kernel!(r36_lag_bad_single_stage, 1, 32, 32, 0, consumer_start = new, final_release = true);
// Consumer state starts at the producer's phase: its first waits return at once on empty stages.
lag_kernel!(r36_lag_bad_consumer_producer_phase, 4, 32, 32, 0, consumer_start = producer_start, final_release = true);
// init announces 64 releasing threads, 32 release: the empty barriers never complete.
lag_kernel!(r36_lag_bad_release_count, 2, 64, 32, 0, consumer_start = new, final_release = true);
