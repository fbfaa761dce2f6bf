//! Style `sgn`: signed arithmetic and hand-kept counters. Thread indices, tile counters and
//! offsets are `i32`/`isize`; pointers move by `offset`; loops are `while` loops with manual
//! counters, count-downs, nested rounds and `checked_*`/`wrapping_*` steps that end the loop.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: i32 = 256;
const TILE_BYTES: i32 = 1024;
const RING: i32 = 128;
const STAGES: i32 = 4;

/// Tiles `b, b + g, …` below `n`: how many this block owns (rounded up).
#[inline(always)]
fn share(n: i32, b: i32, g: i32) -> i32 {
    if b < n { (n - b + g - 1) / g } else { 0 }
}

/// Window address of the stage `st` points at.
#[inline(always)]
fn slot(window: u32, st: &PipelineState<4>) -> u32 {
    (window as i32 + RING + st.index() as i32 * TILE_BYTES) as u32
}

/// One producer step for tile `t`.
#[inline(always)]
unsafe fn put(pipe: &Pipeline<4>, st: &mut PipelineState<4>, window: u32, input: *const f32, t: i32) {
    pipe.producer_acquire(st);
    pipe.producer_expect_tx(st, TILE_BYTES as u32);
    bulk_copy_global_to_shared(
        slot(window, st),
        input.offset((t * TILE) as isize) as *const u8,
        TILE_BYTES as u32,
        pipe.producer_barrier(st),
    );
    st.advance();
}

/// Float pointer to the stage `st` points at.
#[inline(always)]
unsafe fn stage_of(base: *const f32, st: &PipelineState<4>) -> *const f32 {
    base.offset((RING / 4 + st.index() as i32 * TILE) as isize)
}

#[inline(always)]
unsafe fn setup(tid: i32, window: u32) -> Pipeline<4> {
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    pipe
}

// ---- correct ----

/// `i32` counters everywhere; rows summed with an `isize` counter.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_sgn_i32_counters(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as i32;
    let (b, g) = (block_idx_x() as i32, grid_dim_x() as i32);
    let mine = share(tiles as i32, b, g);
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>() as *const f32;
    let pipe = setup(tid, window);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut k: i32 = 0;
        while k < mine {
            put(&pipe, &mut st, window, input, b + k * g);
            k += 1;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let col = tid as isize;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut k: i32 = 0;
        while k < mine {
            pipe.consumer_wait(&st);
            let stage = stage_of(base, &st);
            let mut r: isize = 0;
            while r < 8 {
                acc += *stage.offset(r * 32 + col);
                r += 1;
            }
            pipe.consumer_release(&st);
            st.advance();
            k += 1;
        }
        *out.offset((b * 32) as isize + col) = acc;
    }
}

/// Both roles count down what is left; rows are read last to first.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_sgn_countdown(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as i32;
    let (b, g) = (block_idx_x() as i32, grid_dim_x() as i32);
    let mine = share(tiles as i32, b, g);
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>() as *const f32;
    let pipe = setup(tid, window);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut left = mine;
        while left > 0 {
            put(&pipe, &mut st, window, input, b + (mine - left) * g);
            left -= 1;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut left = mine;
        while left > 0 {
            pipe.consumer_wait(&st);
            let stage = stage_of(base, &st);
            let mut r: isize = 8;
            while r > 0 {
                r -= 1;
                acc += *stage.offset(r * 32 + tid as isize);
            }
            pipe.consumer_release(&st);
            st.advance();
            left -= 1;
        }
        *out.offset((b * 32 + tid) as isize) = acc;
    }
}

/// The producer steps its tile with `checked_add` (leaving on overflow), the consumers count
/// down with `checked_sub`; window offsets use `wrapping_*`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_sgn_checked_steps(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mine = share(tiles as i32, b as i32, g as i32) as u32;
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>() as *const f32;
    let pipe = setup(tid as i32, window);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES as u32);
            let dst = window.wrapping_add(RING as u32).wrapping_add(st.index().wrapping_mul(TILE_BYTES as u32));
            bulk_copy_global_to_shared(dst, input.add(t as usize * 256) as *const u8, TILE_BYTES as u32, pipe.producer_barrier(&st));
            st.advance();
            t = match t.checked_add(g) {
                Some(next) => next,
                None => tiles,
            };
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut left = mine;
        while let Some(next) = left.checked_sub(1) {
            pipe.consumer_wait(&st);
            let stage = base.add((RING as u32 / 4).wrapping_add(st.index().wrapping_mul(TILE as u32)) as usize);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            left = next;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Roles by a signed lane: `lane = tid - 32`, consumers where `lane >= 0`, the producer at `-32`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_sgn_signed_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as i32;
    let lane = tid - 32;
    let (b, g) = (block_idx_x() as i32, grid_dim_x() as i32);
    let mine = share(tiles as i32, b, g);
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>() as *const f32;
    let pipe = setup(tid, window);
    if lane == -32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut k = 0;
        while k < mine {
            put(&pipe, &mut st, window, input, b + k * g);
            k += 1;
        }
        pipe.producer_tail(st);
    } else if lane >= 0 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut k = 0;
        while k < mine {
            pipe.consumer_wait(&st);
            let stage = stage_of(base, &st);
            for r in 0..8isize {
                acc += *stage.offset(r * 32 + lane as isize);
            }
            pipe.consumer_release(&st);
            st.advance();
            k += 1;
        }
        *out.offset((b * 32 + lane) as isize) = acc;
    }
}

/// Nested loops: rounds of up to `STAGES` tiles, the inner loop leaving early on the last round.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_sgn_nested_rounds(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as i32;
    let (b, g) = (block_idx_x() as i32, grid_dim_x() as i32);
    let mine = share(tiles as i32, b, g);
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>() as *const f32;
    let pipe = setup(tid, window);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut done: i32 = 0;
        while done < mine {
            let mut s: i32 = 0;
            while s < STAGES && done < mine {
                put(&pipe, &mut st, window, input, b + done * g);
                s += 1;
                done += 1;
            }
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut done: i32 = 0;
        while done < mine {
            let mut s: i32 = 0;
            while s < STAGES && done < mine {
                pipe.consumer_wait(&st);
                let stage = stage_of(base, &st);
                for r in 0..8isize {
                    acc += *stage.offset(r * 32 + tid as isize);
                }
                pipe.consumer_release(&st);
                st.advance();
                s += 1;
                done += 1;
            }
        }
        *out.offset((b * 32 + tid) as isize) = acc;
    }
}

// ---- broken ----

/// `lane > 0` instead of `lane >= 0`: 31 consumers release, the barriers expect 32.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_sgn_bad_lane_positive(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as i32;
    let lane = tid - 32;
    let (b, g) = (block_idx_x() as i32, grid_dim_x() as i32);
    let mine = share(tiles as i32, b, g);
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>() as *const f32;
    let pipe = setup(tid, window);
    if lane == -32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut k = 0;
        while k < mine {
            put(&pipe, &mut st, window, input, b + k * g);
            k += 1;
        }
        pipe.producer_tail(st);
    } else if lane > 0 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut k = 0;
        while k < mine {
            pipe.consumer_wait(&st);
            let stage = stage_of(base, &st);
            for r in 0..8isize {
                acc += *stage.offset(r * 32 + lane as isize);
            }
            pipe.consumer_release(&st);
            st.advance();
            k += 1;
        }
        *out.offset((b * 32 + lane) as isize) = acc;
    }
}

/// The producer counts its tiles with a floor division, the consumers with `share` (rounded
/// up): every block but block 0 copies 7 tiles and waits for 8.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_sgn_bad_floor_share(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as i32;
    let (b, g) = (block_idx_x() as i32, grid_dim_x() as i32);
    let n = tiles as i32;
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>() as *const f32;
    let pipe = setup(tid, window);
    if tid == 32 {
        let owned = (n - b) / g;
        let mut st = PipelineState::<4>::producer_start();
        let mut k = 0;
        while k < owned {
            put(&pipe, &mut st, window, input, b + k * g);
            k += 1;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mine = share(n, b, g);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut k = 0;
        while k < mine {
            pipe.consumer_wait(&st);
            let stage = stage_of(base, &st);
            for r in 0..8isize {
                acc += *stage.offset(r * 32 + tid as isize);
            }
            pipe.consumer_release(&st);
            st.advance();
            k += 1;
        }
        *out.offset((b * 32 + tid) as isize) = acc;
    }
}

/// The consumers leave their loop on the last tile before releasing it ("nothing more will be
/// copied"): the producer's tail waits for that release forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_sgn_bad_last_unreleased(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as i32;
    let (b, g) = (block_idx_x() as i32, grid_dim_x() as i32);
    let mine = share(tiles as i32, b, g);
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>() as *const f32;
    let pipe = setup(tid, window);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut k = 0;
        while k < mine {
            put(&pipe, &mut st, window, input, b + k * g);
            k += 1;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut left = mine;
        while left > 0 {
            pipe.consumer_wait(&st);
            let stage = stage_of(base, &st);
            for r in 0..8isize {
                acc += *stage.offset(r * 32 + tid as isize);
            }
            left -= 1;
            if left == 0 {
                break;
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.offset((b * 32 + tid) as isize) = acc;
    }
}

/// The consumers' stage offset is computed in bytes but applied to a float pointer: stage 1
/// reads from byte 4608, stage 2 from byte 8704, past the window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_sgn_bad_offset_in_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as i32;
    let (b, g) = (block_idx_x() as i32, grid_dim_x() as i32);
    let mine = share(tiles as i32, b, g);
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>() as *const f32;
    let pipe = setup(tid, window);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut k = 0;
        while k < mine {
            put(&pipe, &mut st, window, input, b + k * g);
            k += 1;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut k = 0;
        while k < mine {
            pipe.consumer_wait(&st);
            let offset = RING + st.index() as i32 * TILE_BYTES;
            let stage = base.offset(offset as isize);
            for r in 0..8isize {
                acc += *stage.offset(r * 32 + tid as isize);
            }
            pipe.consumer_release(&st);
            st.advance();
            k += 1;
        }
        *out.offset((b * 32 + tid) as isize) = acc;
    }
}

/// Tiles taken in pairs; the consumers start a fresh state for every pair, so each pair is
/// waited for in stages 0 and 1 again (parity 0, long complete) and stages 2 and 3 are never
/// released.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_sgn_bad_state_per_pair(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x() as i32;
    let (b, g) = (block_idx_x() as i32, grid_dim_x() as i32);
    let mine = share(tiles as i32, b, g);
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>() as *const f32;
    let pipe = setup(tid, window);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut done: i32 = 0;
        while done < mine {
            let mut s: i32 = 0;
            while s < 2 && done < mine {
                put(&pipe, &mut st, window, input, b + done * g);
                s += 1;
                done += 1;
            }
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut acc = 0.0f32;
        let mut done: i32 = 0;
        while done < mine {
            let mut st = PipelineState::<4>::new();
            let mut s: i32 = 0;
            while s < 2 && done < mine {
                pipe.consumer_wait(&st);
                let stage = stage_of(base, &st);
                for r in 0..8isize {
                    acc += *stage.offset(r * 32 + tid as isize);
                }
                pipe.consumer_release(&st);
                st.advance();
                s += 1;
                done += 1;
            }
        }
        *out.offset((b * 32 + tid) as isize) = acc;
    }
}
