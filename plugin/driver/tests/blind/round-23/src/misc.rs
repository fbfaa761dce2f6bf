//! Pipeline kernels in assorted control-flow styles: macros for the per-tile steps, labelled
//! `loop`s, count-down loops, early returns, arrays of stage pointers.

use crate::device;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};

const TILE_BYTES: u32 = 1024;

macro_rules! produce_tile {
    ($pipe:expr, $st:expr, $dst:expr, $src:expr) => {{
        $pipe.producer_acquire(&$st);
        $pipe.producer_expect_tx(&$st, TILE_BYTES);
        bulk_copy_global_to_shared($dst, $src, TILE_BYTES, $pipe.producer_barrier(&$st));
        $st.advance();
    }};
}

macro_rules! consume_tile {
    ($pipe:expr, $st:expr, |$stage:ident| $body:block) => {{
        $pipe.consumer_wait(&$st);
        let $stage = $body;
        $pipe.consumer_release(&$st);
        $st.advance();
        $stage
    }};
}

macro_rules! consume_tile_quick {
    ($pipe:expr, $st:expr, |$stage:ident| $body:block) => {{
        $pipe.consumer_wait(&$st);
        $pipe.consumer_release(&$st);
        let $stage = $body;
        $st.advance();
        $stage
    }};
}

/// Per-tile steps as macros; four stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_misc_macro_steps(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(window + 4096, 32) } else { Pipeline::<4>::attach(window + 4096) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            produce_tile!(pipe, st, window + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8);
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            acc += consume_tile!(pipe, st, |sum| {
                let stage = ring.add(st.index() as usize * 256 + c);
                let mut s = 0.0f32;
                for r in 0..8 {
                    s += *stage.add(32 * r);
                }
                s
            });
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Producer as a labelled `loop` with `break 'tiles`; three stages after barriers at byte 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_misc_labelled_loop(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = device::dynamic_shared_window_address();
    let ring_at = 512u32;
    let ring = device::dynamic_shared_base::<f32>().add(ring_at as usize / 4);
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<3>::init(window, 32) } else { Pipeline::<3>::attach(window) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = b;
        'tiles: loop {
            if t >= tiles {
                break 'tiles;
            }
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + ring_at + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        'consume: loop {
            if t >= tiles {
                break 'consume;
            }
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

/// Both roles count down the block's remaining tiles; seven stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_misc_countdown(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<7>::init(window + 7168, 32) } else { Pipeline::<7>::attach(window + 7168) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let mine = (tiles - b).div_ceil(g);
    if tid == 0 {
        let mut st = PipelineState::<7>::producer_start();
        let mut left = mine;
        let mut t = b;
        while left > 0 {
            produce_tile!(pipe, st, window + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8);
            t += g;
            left -= 1;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<7>::new();
        let mut acc = 0.0f32;
        let mut left = mine;
        while left > 0 {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * 256 + c);
            let mut r = 8;
            while r > 0 {
                r -= 1;
                acc += *stage.add(r * 32);
            }
            pipe.consumer_release(&st);
            st.advance();
            left -= 1;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Idle threads return right after the set-up barrier; two stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_misc_early_return_idle(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<2>::init(window + 2048, 32) } else { Pipeline::<2>::attach(window + 2048) };
    device::barrier();
    if tid != 0 && tid < 32 {
        return;
    }
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = b;
        while t < tiles {
            produce_tile!(pipe, st, window + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8);
            t += g;
        }
        pipe.producer_tail(st);
        return;
    }
    let c = tid as usize - 32;
    let mut st = PipelineState::<2>::new();
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

/// Stage pointers kept in an array built before the loop and picked by the stage index; four stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_misc_stage_pointer_array(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>() as *const f32;
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(window + 4096, 32) } else { Pipeline::<4>::attach(window + 4096) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let stages: [*const f32; 4] = [ring, ring.add(256), ring.add(512), ring.add(768)];
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            produce_tile!(pipe, st, window + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8);
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = stages[st.index() as usize];
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

/// Per-tile steps as macros; the consumer uses the quick variant of the step macro.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_misc_bad_quick_macro(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<2>::init(window + 2048, 32) } else { Pipeline::<2>::attach(window + 2048) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = b;
        while t < tiles {
            produce_tile!(pipe, st, window + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8);
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            acc += consume_tile_quick!(pipe, st, |sum| {
                let stage = ring.add(st.index() as usize * 256 + c);
                let mut s = 0.0f32;
                for r in 0..8 {
                    s += *stage.add(32 * r);
                }
                s
            });
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Count-down loops in both roles; seven stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_misc_bad_countdown_stops_at_one(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<7>::init(window + 7168, 32) } else { Pipeline::<7>::attach(window + 7168) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let mine = (tiles - b).div_ceil(g);
    if tid == 0 {
        let mut st = PipelineState::<7>::producer_start();
        let mut left = mine;
        let mut t = b;
        while left > 0 {
            produce_tile!(pipe, st, window + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8);
            t += g;
            left -= 1;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<7>::new();
        let mut acc = 0.0f32;
        let mut left = mine;
        while left > 1 {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * 256 + c);
            let mut r = 8;
            while r > 0 {
                r -= 1;
                acc += *stage.add(r * 32);
            }
            pipe.consumer_release(&st);
            st.advance();
            left -= 1;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Consumers store their result and return as soon as they have summed their last tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_misc_bad_return_on_last_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<3>::init(window + 3072, 32) } else { Pipeline::<3>::attach(window + 3072) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = b;
        while t < tiles {
            produce_tile!(pipe, st, window + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8);
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * 256);
            for r in 0..8 {
                acc += *stage.add(r * 32 + c);
            }
            if t + g >= tiles {
                *out.add(b as usize * 32 + c) = acc;
                return;
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
    }
}

/// Stage pointers kept in an array built before the loop; four stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_misc_bad_stage_array_typo(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>() as *const f32;
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<4>::init(window + 4096, 32) } else { Pipeline::<4>::attach(window + 4096) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let stages: [*const f32; 4] = [ring, ring.add(256), ring.add(512), ring.add(512)];
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            produce_tile!(pipe, st, window + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8);
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = stages[st.index() as usize];
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
