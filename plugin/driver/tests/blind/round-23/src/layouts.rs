//! Pipeline kernels with less common ring layouts: half-tile stages, two tiles per stage, two
//! pipelines side by side, the ring at the top of the window.

use crate::device;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};

const HALF_BYTES: u32 = 512;
const HALF_FLOATS: usize = 128;

/// Eight stages of half a tile (512 bytes); each tile arrives as two stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_lay_eight_half_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 8;
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let bars = window + S * HALF_BYTES;
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let halves = 2 * (tiles - b).div_ceil(g);
    if tid == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut h = 0;
        while h < halves {
            let t = b + (h / 2) * g;
            let src = input.add(t as usize * 256 + (h % 2) as usize * HALF_FLOATS) as *const u8;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, HALF_BYTES);
            bulk_copy_global_to_shared(window + st.index() * HALF_BYTES, src, HALF_BYTES, pipe.producer_barrier(&st));
            st.advance();
            h += 1;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut h = 0;
        while h < halves {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * HALF_FLOATS);
            for r in 0..4 {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            h += 1;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Three stages of two tiles each (2 KiB), each filled by two 1 KiB copies.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_lay_two_tiles_per_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    const STAGE_BYTES: u32 = 2048;
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let bars = window + S * STAGE_BYTES;
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let pairs = (tiles - b).div_ceil(g) / 2;
    if tid == 0 {
        let mut st = PipelineState::<S>::producer_start();
        for p in 0..pairs {
            let t = b + 2 * p * g;
            let dst = window + st.index() * STAGE_BYTES;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, STAGE_BYTES);
            bulk_copy_global_to_shared(dst, input.add(t as usize * 256) as *const u8, 1024, pipe.producer_barrier(&st));
            bulk_copy_global_to_shared(dst + 1024, input.add((t + g) as usize * 256) as *const u8, 1024, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in 0..pairs {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * 512);
            for r in 0..16 {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Two pipelines of two stages each, one for the block's even tiles (thread 0) and one for its
/// odd tiles (thread 1); warp 1 alternates between them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_lay_two_pipelines_even_odd(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let even = if tid == 0 { Pipeline::<2>::init(window + 4096, 32) } else { Pipeline::<2>::attach(window + 4096) };
    let odd = if tid == 1 { Pipeline::<2>::init(window + 4096 + 32, 32) } else { Pipeline::<2>::attach(window + 4096 + 32) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let mine = (tiles - b).div_ceil(g);
    if tid == 0 {
        let mut st = PipelineState::<2>::producer_start();
        let mut k = 0;
        while k < mine {
            even.producer_acquire(&st);
            even.producer_expect_tx(&st, 1024);
            bulk_copy_global_to_shared(window + st.index() * 1024, input.add((b + k * g) as usize * 256) as *const u8, 1024, even.producer_barrier(&st));
            st.advance();
            k += 2;
        }
        even.producer_tail(st);
    } else if tid == 1 {
        let mut st = PipelineState::<2>::producer_start();
        let mut k = 1;
        while k < mine {
            odd.producer_acquire(&st);
            odd.producer_expect_tx(&st, 1024);
            bulk_copy_global_to_shared(window + 2048 + st.index() * 1024, input.add((b + k * g) as usize * 256) as *const u8, 1024, odd.producer_barrier(&st));
            st.advance();
            k += 2;
        }
        odd.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut se = PipelineState::<2>::new();
        let mut so = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut k = 0;
        while k < mine {
            pipe_pair_step(&even, &mut se, ring, c, &mut acc);
            if k + 1 < mine {
                pipe_pair_step(&odd, &mut so, ring.add(512), c, &mut acc);
            }
            k += 2;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

#[inline(always)]
unsafe fn pipe_pair_step(pipe: &Pipeline<2>, st: &mut PipelineState<2>, ring: *const f32, c: usize, acc: &mut f32) {
    pipe.consumer_wait(st);
    let stage = ring.add(st.index() as usize * 256);
    for r in 0..8 {
        *acc += *stage.add(r * 32 + c);
    }
    pipe.consumer_release(st);
    st.advance();
}

/// Barriers at byte 0, four stages in the top half of the window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_lay_ring_on_top(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const RING_AT: u32 = 8192 - S * 1024;
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<u8>().add(RING_AT as usize) as *const f32;
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(window, 32) } else { Pipeline::<S>::attach(window) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, 1024);
            bulk_copy_global_to_shared(window + RING_AT + st.index() * 1024, input.add(t as usize * 256) as *const u8, 1024, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * 256);
            for r in 0..8 {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Eight half-tile stages; consumers sum eight rows from each stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_lay_bad_half_stage_eight_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 8;
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let bars = window + S * HALF_BYTES;
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let halves = 2 * (tiles - b).div_ceil(g);
    if tid == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut h = 0;
        while h < halves {
            let t = b + (h / 2) * g;
            let src = input.add(t as usize * 256 + (h % 2) as usize * HALF_FLOATS) as *const u8;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, HALF_BYTES);
            bulk_copy_global_to_shared(window + st.index() * HALF_BYTES, src, HALF_BYTES, pipe.producer_barrier(&st));
            st.advance();
            h += 1;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut h = 0;
        while h < halves {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * HALF_FLOATS);
            for r in 0..8 {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            h += 1;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Eight half-tile stages; the second half's source is offset by `HALF_BYTES / 8` floats per half.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_lay_bad_half_source_offset(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 8;
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let bars = window + S * HALF_BYTES;
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let halves = 2 * (tiles - b).div_ceil(g);
    if tid == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut h = 0;
        while h < halves {
            let t = b + (h / 2) * g;
            let src = input.add(t as usize * 256 + (h % 2) as usize * (HALF_BYTES / 8) as usize) as *const u8;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, HALF_BYTES);
            bulk_copy_global_to_shared(window + st.index() * HALF_BYTES, src, HALF_BYTES, pipe.producer_barrier(&st));
            st.advance();
            h += 1;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut h = 0;
        while h < halves {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * HALF_FLOATS);
            for r in 0..4 {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            h += 1;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Two tiles per stage; the second copy of a stage takes the next tile of the input.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_lay_bad_pair_next_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    const STAGE_BYTES: u32 = 2048;
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let bars = window + S * STAGE_BYTES;
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let pairs = (tiles - b).div_ceil(g) / 2;
    if tid == 0 {
        let mut st = PipelineState::<S>::producer_start();
        for p in 0..pairs {
            let t = b + 2 * p * g;
            let dst = window + st.index() * STAGE_BYTES;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, STAGE_BYTES);
            bulk_copy_global_to_shared(dst, input.add(t as usize * 256) as *const u8, 1024, pipe.producer_barrier(&st));
            bulk_copy_global_to_shared(dst + 1024, input.add((t + 1) as usize * 256) as *const u8, 1024, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in 0..pairs {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * 512);
            for r in 0..16 {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Barriers at byte 0 and a four-stage ring placed 16 bytes above the upper half.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_lay_bad_ring_past_top(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    const RING_AT: u32 = 8192 - S * 1024 + 16;
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<u8>().add(RING_AT as usize) as *const f32;
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<S>::init(window, 32) } else { Pipeline::<S>::attach(window) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, 1024);
            bulk_copy_global_to_shared(window + RING_AT + st.index() * 1024, input.add(t as usize * 256) as *const u8, 1024, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * 256);
            for r in 0..8 {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Two pipelines for even and odd tiles, consumed alternately by warp 1.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_lay_bad_odd_released_on_even(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let even = if tid == 0 { Pipeline::<2>::init(window + 4096, 32) } else { Pipeline::<2>::attach(window + 4096) };
    let odd = if tid == 1 { Pipeline::<2>::init(window + 4096 + 32, 32) } else { Pipeline::<2>::attach(window + 4096 + 32) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let mine = (tiles - b).div_ceil(g);
    if tid == 0 {
        let mut st = PipelineState::<2>::producer_start();
        let mut k = 0;
        while k < mine {
            even.producer_acquire(&st);
            even.producer_expect_tx(&st, 1024);
            bulk_copy_global_to_shared(window + st.index() * 1024, input.add((b + k * g) as usize * 256) as *const u8, 1024, even.producer_barrier(&st));
            st.advance();
            k += 2;
        }
        even.producer_tail(st);
    } else if tid == 1 {
        let mut st = PipelineState::<2>::producer_start();
        let mut k = 1;
        while k < mine {
            odd.producer_acquire(&st);
            odd.producer_expect_tx(&st, 1024);
            bulk_copy_global_to_shared(window + 2048 + st.index() * 1024, input.add((b + k * g) as usize * 256) as *const u8, 1024, odd.producer_barrier(&st));
            st.advance();
            k += 2;
        }
        odd.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut se = PipelineState::<2>::new();
        let mut so = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut k = 0;
        while k < mine {
            even.consumer_wait(&se);
            let stage = ring.add(se.index() as usize * 256);
            for r in 0..8 {
                acc += *stage.add(r * 32 + c);
            }
            even.consumer_release(&se);
            se.advance();
            if k + 1 < mine {
                odd.consumer_wait(&so);
                let stage = ring.add(512 + so.index() as usize * 256);
                for r in 0..8 {
                    acc += *stage.add(r * 32 + c);
                }
                even.consumer_release(&so);
                so.advance();
            }
            k += 2;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}
