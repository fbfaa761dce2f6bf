//! Kernels stamped out by `macro_rules!`: a pipeline kernel parameterised by its stage count,
//! where its ring and barriers sit and the bytes it announces per stage; and a plain staging
//! kernel parameterised by where its tile buffer sits.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const TILE_BYTES: u32 = 1024;

macro_rules! pipe_kernel {
    ($(#[$doc:meta])* $name:ident, stages = $stages:literal, ring_at = $ring:expr, bars_at = $bars:expr, announce = $bytes:expr) => {
        $(#[$doc])*
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(input: *const f32, tiles: u32, out: *mut f32) {
            const STAGES: u32 = $stages;
            const RING: u32 = $ring;
            const BARS: u32 = $bars;
            block_threads(64);
            dynamic_shared_bytes(8192);
            let window = dynamic_shared_window_address();
            let tid = thread_idx_x();
            if tid == 0 {
                Pipeline::<STAGES>::init(window + BARS, 32);
            }
            barrier();
            let pipe = Pipeline::<STAGES>::attach(window + BARS);
            let mut tile = block_idx_x();
            if tid == 0 {
                let mut state = PipelineState::<STAGES>::producer_start();
                while tile < tiles {
                    pipe.producer_acquire(&state);
                    pipe.producer_expect_tx(&state, $bytes);
                    let src = unsafe { input.add(tile as usize * 256) } as *const u8;
                    bulk_copy_global_to_shared(window + RING + state.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&state));
                    state.advance();
                    tile += grid_dim_x();
                }
                pipe.producer_tail(state);
            } else if tid >= 32 {
                let lane = (tid - 32) as usize;
                let ring = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
                let mut state = PipelineState::<STAGES>::new();
                let mut acc = 0.0f32;
                while tile < tiles {
                    pipe.consumer_wait(&state);
                    let stage = unsafe { ring.add(state.index() as usize * 256) };
                    for row in 0..8 {
                        acc += unsafe { *stage.add(row * 32 + lane) };
                    }
                    pipe.consumer_release(&state);
                    state.advance();
                    tile += grid_dim_x();
                }
                unsafe { *out.add(block_idx_x() as usize * 32 + lane) = acc };
            }
        }
    };
}

pipe_kernel!(
    /// Two stages at byte 0, barriers at 2048.
    r15_mac_pipe_two_low, stages = 2, ring_at = 0, bars_at = 2048, announce = TILE_BYTES
);
pipe_kernel!(
    /// Six stages from byte 2048 to the window's end, barriers at byte 0.
    r15_mac_pipe_six_high, stages = 6, ring_at = 2048, bars_at = 0, announce = TILE_BYTES
);
pipe_kernel!(
    /// BROKEN: announces 16 bytes more per stage than the copy delivers.
    r15_mac_pipe_announce_sixteen_extra, stages = 4, ring_at = 1024, bars_at = 0, announce = TILE_BYTES + 16
);
pipe_kernel!(
    /// BROKEN: barriers at byte 4, not 8-byte aligned.
    r15_mac_pipe_barriers_at_four, stages = 3, ring_at = 1024, bars_at = 4, announce = TILE_BYTES
);
pipe_kernel!(
    /// BROKEN: the ring starts right after three stages' barriers plus a 4-byte tile counter
    /// slot (byte 52): bulk-copy destinations are not 16-byte aligned.
    r15_mac_pipe_ring_after_counter, stages = 3, ring_at = 3 * 16 + 4, bars_at = 0, announce = TILE_BYTES
);

macro_rules! plain_kernel {
    ($(#[$doc:meta])* $name:ident, tile_at_float = $at:expr) => {
        $(#[$doc])*
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(input: *const f32, tiles: u32, out: *mut f32) {
            block_threads(64);
            dynamic_shared_bytes(8192);
            let tid = thread_idx_x() as usize;
            let buf = unsafe { dynamic_shared_base::<f32>().add($at) };
            let mut acc = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                let src = unsafe { input.add(tile as usize * 256) };
                let mut k = tid;
                while k < 256 {
                    unsafe { *buf.add(k) = *src.add(k) };
                    k += 64;
                }
                barrier();
                if tid < 32 {
                    acc += (0..8).map(|row| unsafe { *buf.add(row * 32 + tid) }).sum::<f32>();
                }
                barrier();
                tile += grid_dim_x();
            }
            if tid < 32 {
                unsafe { *out.add(block_idx_x() as usize * 32 + tid) = acc };
            }
        }
    };
}

plain_kernel!(
    /// The tile buffer at float 0.
    r15_mac_plain_tile_first, tile_at_float = 0
);
plain_kernel!(
    /// The tile buffer in the window's last kilobyte (float 1792).
    r15_mac_plain_tile_last, tile_at_float = 2048 - 256
);
plain_kernel!(
    /// BROKEN: the tile buffer at float 1800, "the last kilobyte after a 32-byte header": its
    /// last eight floats lie past byte 8192.
    r15_mac_plain_tile_overhangs, tile_at_float = 1800
);
