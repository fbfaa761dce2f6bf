//! Style: two independent pipelines in one kernel. Each tile is split in halves: pipeline A
//! carries rows 0..4 (512 bytes), pipeline B rows 4..8, each fed by its own producer thread;
//! the same 32 consumers wait on both and release both.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{bulk_copy_global_to_shared, Pipeline, PipelineState};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const HALF_BYTES: u32 = 512;
const HALF_FLOATS: usize = 128;
const TILE_FLOATS: usize = 256;
const BARS: u32 = 4096;

#[inline(always)]
fn share(b: u32, g: u32, tiles: u32) -> u32 {
    if b < tiles { (tiles - b + g - 1) / g } else { 0 }
}

/// Which defect a kernel carries (`None` for the correct ones).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bug {
    None,
    /// Producer B's copy completes on pipeline A's full barrier (A's barriers attached as B's type).
    CopyOnOtherPipe,
    /// Ring B starts 512 bytes into ring A.
    OverlapRings,
    /// Producer B announces a whole tile for its half.
    ExpectWholeTile,
    /// Producer B advances before its copy, copying into the next stage on its barrier.
    AdvanceBeforeCopy,
}

macro_rules! twin_kernel {
    ($name:ident, $sa:expr, $sb:expr, $pa:expr, $pb:expr, $cwarp:expr, $bug:expr) => {
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(input: *const f32, tiles: u32, out: *mut f32) {
            const SA: u32 = $sa;
            const SB: u32 = $sb;
            const BUG: Bug = $bug;
            block_threads(64);
            dynamic_shared_bytes(8192);
            let tid = thread_idx_x();
            let window = dynamic_shared_window_address();
            let ring = dynamic_shared_base::<f32>();
            // Ring A at byte 0, ring B right after it (or, broken, overlapping it).
            const RING_B: u32 = if matches!(BUG, Bug::OverlapRings) { HALF_BYTES } else { SA * HALF_BYTES };
            let bars_a = window + BARS;
            let bars_b = window + BARS + 16 * SA;
            if tid == 0 {
                Pipeline::<SA>::init(bars_a, 32);
                Pipeline::<SB>::init(bars_b, 32);
            }
            barrier();
            let pipe_a = Pipeline::<SA>::attach(bars_a);
            let pipe_b = Pipeline::<SB>::attach(bars_b);
            let b = block_idx_x();
            let g = grid_dim_x();
            let mine = share(b, g, tiles);
            if tid == $pa {
                let mut st = PipelineState::<SA>::producer_start();
                for k in 0..mine {
                    pipe_a.producer_acquire(&st);
                    pipe_a.producer_expect_tx(&st, HALF_BYTES);
                    let t = b + k * g;
                    bulk_copy_global_to_shared(
                        window + st.index() * HALF_BYTES,
                        input.add(t as usize * TILE_FLOATS) as *const u8,
                        HALF_BYTES,
                        pipe_a.producer_barrier(&st),
                    );
                    st.advance();
                }
                pipe_a.producer_tail(st);
            } else if tid == $pb {
                let mut st = PipelineState::<SB>::producer_start();
                for k in 0..mine {
                    pipe_b.producer_acquire(&st);
                    if matches!(BUG, Bug::ExpectWholeTile) {
                        pipe_b.producer_expect_tx(&st, 2 * HALF_BYTES);
                    } else {
                        pipe_b.producer_expect_tx(&st, HALF_BYTES);
                    }
                    if matches!(BUG, Bug::AdvanceBeforeCopy) {
                        st.advance();
                    }
                    let t = b + k * g;
                    let source = input.add(t as usize * TILE_FLOATS + HALF_FLOATS) as *const u8;
                    let destination = window + RING_B + st.index() * HALF_BYTES;
                    if matches!(BUG, Bug::CopyOnOtherPipe) {
                        // A's barriers, attached with B's stage count.
                        let other = Pipeline::<SB>::attach(bars_a);
                        bulk_copy_global_to_shared(destination, source, HALF_BYTES, other.producer_barrier(&st));
                    } else {
                        bulk_copy_global_to_shared(destination, source, HALF_BYTES, pipe_b.producer_barrier(&st));
                    }
                    if !matches!(BUG, Bug::AdvanceBeforeCopy) {
                        st.advance();
                    }
                }
                pipe_b.producer_tail(st);
            } else if tid / 32 == $cwarp {
                let c = (tid % 32) as usize;
                let mut acc = 0.0f32;
                let mut sa = PipelineState::<SA>::new();
                let mut sb = PipelineState::<SB>::new();
                for _ in 0..mine {
                    pipe_a.consumer_wait(&sa);
                    pipe_b.consumer_wait(&sb);
                    let half_a = ring.add(sa.index() as usize * HALF_FLOATS);
                    let half_b = ring.add((RING_B / 4) as usize + sb.index() as usize * HALF_FLOATS);
                    for r in 0..4 {
                        acc += *half_a.add(r * 32 + c);
                    }
                    for r in 0..4 {
                        acc += *half_b.add(r * 32 + c);
                    }
                    pipe_a.consumer_release(&sa);
                    pipe_b.consumer_release(&sb);
                    sa.advance();
                    sb.advance();
                }
                *out.add(b as usize * 32 + c) = acc;
            }
        }
    };
}

// ---- correct ----
twin_kernel!(r36_twin_halves_two_two, 2, 2, 32, 33, 0, Bug::None);
twin_kernel!(r36_twin_halves_four_four, 4, 4, 32, 63, 0, Bug::None);
twin_kernel!(r36_twin_halves_three_one, 3, 1, 0, 1, 1, Bug::None);
twin_kernel!(r36_twin_halves_one_four, 1, 4, 1, 0, 1, Bug::None);

// ---- broken ----
twin_kernel!(r36_twin_bad_copy_on_other_pipe, 2, 2, 32, 33, 0, Bug::CopyOnOtherPipe);
twin_kernel!(r36_twin_bad_overlapping_rings, 2, 2, 32, 33, 0, Bug::OverlapRings);
twin_kernel!(r36_twin_bad_expect_whole_tile, 3, 3, 32, 33, 0, Bug::ExpectWholeTile);
twin_kernel!(r36_twin_bad_advance_before_copy, 2, 3, 32, 33, 0, Bug::AdvanceBeforeCopy);
