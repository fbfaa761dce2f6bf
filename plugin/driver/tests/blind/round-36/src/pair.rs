//! Style: hand-unrolled loops that take two tiles per pass, with an epilogue for an odd last
//! tile, in both roles.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{bulk_copy_global_to_shared, Pipeline, PipelineState};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_BYTES: u32 = 1024;
const TILE_FLOATS: usize = 256;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Bug {
    None,
    /// The consumer does not advance between the two tiles of a pass.
    SecondTileSameStage,
    /// The producer's second copy of a pass reuses the destination computed for the first.
    StaleDestination,
    /// The producer announces two tiles for the second copy of a pass.
    SecondAnnouncesTwoTiles,
}

macro_rules! pair_kernel {
    ($name:ident, $stages:expr, $producer:expr, $cwarp:expr, $bug:expr) => {
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(input: *const f32, tiles: u32, out: *mut f32) {
            const S: u32 = $stages;
            const BUG: Bug = $bug;
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
            let mine = if b < tiles { (tiles - b + g - 1) / g } else { 0 };
            if tid == $producer {
                let mut st = PipelineState::<S>::producer_start();
                let mut k = 0;
                while k + 1 < mine {
                    // first tile of the pass
                    pipe.producer_acquire(&st);
                    pipe.producer_expect_tx(&st, TILE_BYTES);
                    let first = window + st.index() * TILE_BYTES;
                    bulk_copy_global_to_shared(
                        first,
                        input.add((b + k * g) as usize * TILE_FLOATS) as *const u8,
                        TILE_BYTES,
                        pipe.producer_barrier(&st),
                    );
                    st.advance();
                    // second tile
                    pipe.producer_acquire(&st);
                    if matches!(BUG, Bug::SecondAnnouncesTwoTiles) {
                        pipe.producer_expect_tx(&st, 2 * TILE_BYTES);
                    } else {
                        pipe.producer_expect_tx(&st, TILE_BYTES);
                    }
                    let second = if matches!(BUG, Bug::StaleDestination) { first } else { window + st.index() * TILE_BYTES };
                    bulk_copy_global_to_shared(
                        second,
                        input.add((b + (k + 1) * g) as usize * TILE_FLOATS) as *const u8,
                        TILE_BYTES,
                        pipe.producer_barrier(&st),
                    );
                    st.advance();
                    k += 2;
                }
                if k < mine {
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
            }
            if tid / 32 == $cwarp {
                let c = (tid % 32) as usize;
                let mut acc0 = 0.0f32;
                let mut acc1 = 0.0f32;
                let mut st = PipelineState::<S>::new();
                let mut k = 0;
                while k + 1 < mine {
                    pipe.consumer_wait(&st);
                    let s0 = ring.add(st.index() as usize * TILE_FLOATS);
                    for r in 0..8 {
                        acc0 += *s0.add(r * 32 + c);
                    }
                    pipe.consumer_release(&st);
                    if !matches!(BUG, Bug::SecondTileSameStage) {
                        st.advance();
                    }
                    pipe.consumer_wait(&st);
                    let s1 = ring.add(st.index() as usize * TILE_FLOATS);
                    for r in 0..8 {
                        acc1 += *s1.add(r * 32 + c);
                    }
                    pipe.consumer_release(&st);
                    st.advance();
                    k += 2;
                }
                if k < mine {
                    pipe.consumer_wait(&st);
                    let s0 = ring.add(st.index() as usize * TILE_FLOATS);
                    for r in 0..8 {
                        acc0 += *s0.add(r * 32 + c);
                    }
                    pipe.consumer_release(&st);
                    st.advance();
                }
                *out.add(b as usize * 32 + c) = acc0 + acc1;
            }
        }
    };
}

// ---- correct ----
pair_kernel!(r36_pair_two_stages, 2, 32, 0, Bug::None);
pair_kernel!(r36_pair_three_stages, 3, 32, 0, Bug::None);
pair_kernel!(r36_pair_four_stages_warp1, 4, 0, 1, Bug::None);
pair_kernel!(r36_pair_one_stage, 1, 63, 0, Bug::None);

// ---- broken ----
pair_kernel!(r36_pair_bad_second_same_stage, 2, 32, 0, Bug::SecondTileSameStage);
pair_kernel!(r36_pair_bad_stale_second_destination, 4, 32, 0, Bug::StaleDestination);
pair_kernel!(r36_pair_bad_second_announces_two_tiles, 3, 32, 0, Bug::SecondAnnouncesTwoTiles);
// The producer is thread 0, which is also one of warp 0's consumers.
pair_kernel!(r36_pair_bad_producer_also_consumes, 2, 0, 0, Bug::None);
