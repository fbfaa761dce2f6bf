//! Kernels stamped out by a macro from a layout description, kernels instantiated from a
//! const-generic body, and the device API's `unrolled!` for the row loop.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::unrolled::unrolled;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

macro_rules! ring_kernel {
    ($name:ident { stages: $S:literal, ring: $RING:expr, bars: $BARS:expr, releasers: $COUNT:expr, producer: $P:expr, consumers: $LO:expr, $HI:expr }) => {
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(input: *const f32, tiles: u32, out: *mut f32) {
            block_threads(64);
            dynamic_shared_bytes(8192);
            const S: u32 = $S;
            const RING: u32 = $RING;
            const BARS: u32 = $BARS;
            let tid = thread_idx_x();
            let window = dynamic_shared_window_address();
            let smem = dynamic_shared_base::<f32>();
            if tid == $P {
                Pipeline::<S>::init(window + BARS, $COUNT);
            }
            barrier();
            let pipe = Pipeline::<S>::attach(window + BARS);
            let b = block_idx_x();
            let g = grid_dim_x();
            if tid == $P {
                let mut st = PipelineState::<S>::producer_start();
                let mut t = b;
                while t < tiles {
                    pipe.producer_acquire(&st);
                    pipe.producer_expect_tx(&st, 1024);
                    bulk_copy_global_to_shared(window + RING + st.index() * 1024, input.add(t as usize * 256) as *const u8, 1024, pipe.producer_barrier(&st));
                    st.advance();
                    t += g;
                }
                pipe.producer_tail(st);
            } else if tid >= $LO && tid < $HI {
                let col = (tid - $LO) as usize;
                let mut st = PipelineState::<S>::new();
                let mut acc = 0.0f32;
                let mut t = b;
                while t < tiles {
                    pipe.consumer_wait(&st);
                    let stage = smem.add(RING as usize / 4 + st.index() as usize * 256);
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
    };
}

ring_kernel!(r28_mac_s2_ring0 { stages: 2, ring: 0, bars: 2048, releasers: 32, producer: 0, consumers: 32, 64 });
ring_kernel!(r28_mac_s4_bars_first { stages: 4, ring: 128, bars: 0, releasers: 32, producer: 0, consumers: 32, 64 });
ring_kernel!(r28_mac_s7_tight { stages: 7, ring: 0, bars: 7 * 1024, releasers: 32, producer: 0, consumers: 32, 64 });
ring_kernel!(r28_mac_s3_producer_32 { stages: 3, ring: 0, bars: 3 * 1024, releasers: 32, producer: 32, consumers: 0, 32 });

// broken configurations
ring_kernel!(r28_mac_bad_s8_no_room { stages: 8, ring: 0, bars: 8 * 1024, releasers: 32, producer: 0, consumers: 32, 64 });
ring_kernel!(r28_mac_bad_bars_misaligned { stages: 4, ring: 0, bars: 4 * 1024 + 4, releasers: 32, producer: 0, consumers: 32, 64 });
ring_kernel!(r28_mac_bad_ring_over_bars { stages: 4, ring: 32, bars: 0, releasers: 32, producer: 0, consumers: 32, 64 });
ring_kernel!(r28_mac_bad_releasers_31 { stages: 4, ring: 0, bars: 4096, releasers: 31, producer: 0, consumers: 32, 64 });
ring_kernel!(r28_mac_bad_producer_among_consumers { stages: 4, ring: 0, bars: 4096, releasers: 32, producer: 40, consumers: 32, 64 });

#[inline(always)]
unsafe fn cg_body<const S: u32, const RING: u32, const BARS: u32, const P: u32, const LO: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
    let pipe = if tid == P { Pipeline::<S>::init(window + BARS, 32) } else { Pipeline::<S>::attach(window + BARS) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == P {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, 1024);
            bulk_copy_global_to_shared(window + RING + st.index() * 1024, input.add(t as usize * 256) as *const u8, 1024, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= LO && tid < LO + 32 {
        let col = (tid - LO) as usize;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * 256);
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
pub unsafe extern "ptx-kernel" fn r28_mac_cg_ring_at_4096(input: *const f32, tiles: u32, out: *mut f32) {
    cg_body::<4, 4096, 0, 63, 0>(input, tiles, out);
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_mac_cg_five_after_pad(input: *const f32, tiles: u32, out: *mut f32) {
    cg_body::<5, 1024, 6144, 0, 32>(input, tiles, out);
}

/// Seven stages from byte 1152: the last stage ends at 8320, past the 8 KiB window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_mac_bad_cg_ring_past_window(input: *const f32, tiles: u32, out: *mut f32) {
    cg_body::<7, 1152, 0, 0, 32>(input, tiles, out);
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_mac_unrolled_rows(input: *const f32, tiles: u32, out: *mut f32) {
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
            pipe.producer_expect_tx(&st, 1024);
            bulk_copy_global_to_shared(window + st.index() * 1024, input.add(t as usize * 256) as *const u8, 1024, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut rows = [0.0f32; 8];
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * 256);
            unrolled!(R < 8 => {
                rows[R] += *stage.add(R * 32 + col);
            });
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        let total = ((rows[0] + rows[1]) + (rows[2] + rows[3])) + ((rows[4] + rows[5]) + (rows[6] + rows[7]));
        *out.add(b as usize * 32 + col) = total;
    }
}
