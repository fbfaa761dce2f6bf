//! Unusual control flow: early returns, `loop`/`break`, `while let` over a range iterator,
//! `match` on the warp with guards, count-downs, a tile peeled off before the loop.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id, thread_idx_x, warp_id};

const TILE: u32 = 1024;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_flow_early_return_idle(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * TILE;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    if tid != 0 && tid < 32 {
        return;
    }
    let pipe = Pipeline::<4>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * 256) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
        return;
    }
    let col = tid as usize - 32;
    let mut st = PipelineState::<4>::new();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        pipe.consumer_wait(&st);
        let stage = smem.add(st.index() as usize * 256);
        for r in 0..8 {
            acc += *stage.add(r * 32 + col);
        }
        pipe.consumer_release(&st);
        st.advance();
        t += g;
    }
    *out.add(b as usize * 32 + col) = acc;
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_flow_loop_break(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 3 * TILE;
    if tid == 0 {
        Pipeline::<3>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = b;
        loop {
            if t >= tiles {
                break;
            }
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * 256) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        loop {
            if t >= tiles {
                break;
            }
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * 256);
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
pub unsafe extern "ptx-kernel" fn r28_flow_while_let(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 2 * TILE;
    if tid == 0 {
        Pipeline::<2>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<2>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<2>::producer_start();
        let mut it = (b..tiles).step_by(g as usize);
        while let Some(t) = it.next() {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * 256) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut it = (b..tiles).step_by(g as usize);
        while let Some(_t) = it.next() {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * 256);
            for r in 0..8 {
                acc += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_flow_match_warp_guard(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * TILE;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    match warp_id() {
        0 if lane_id() == 0 => {
            let mut st = PipelineState::<4>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE);
                bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * 256) as *const u8, TILE, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        }
        1 => {
            let col = lane_id() as usize;
            let mut st = PipelineState::<4>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = smem.add(st.index() as usize * 256);
                for r in 0..8 {
                    acc += *stage.add(r * 32 + col);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add(b as usize * 32 + col) = acc;
        }
        _ => {}
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_flow_countdown(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * TILE;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = if b < tiles { (tiles - b + g - 1) / g } else { 0 };
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut left = mine;
        let mut t = b;
        while left > 0 {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * 256) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
            t += g;
            left -= 1;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut left = mine;
        while left > 0 {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * 256);
            let mut r = 8;
            while r > 0 {
                r -= 1;
                acc += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            left -= 1;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_flow_labelled_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 3 * TILE;
    if tid == 0 {
        Pipeline::<3>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = b;
        'tiles: while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * 256) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
            t += g;
            continue 'tiles;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * 256);
            let mut r = 0usize;
            'rows: loop {
                if r == 8 {
                    break 'rows;
                }
                acc += *stage.add(r * 32 + col);
                r += 1;
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

// ---------------------------------------------------------------- broken

/// The consumers test for the last tile before reading it and break: the block's last tile
/// is never read or released, and the producer's tail waits for it forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_flow_bad_break_before_last(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 3 * TILE;
    if tid == 0 {
        Pipeline::<3>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * 256) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        loop {
            if t + g >= tiles {
                break;
            }
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * 256);
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

/// The exit test sits between the read and the release: the last tile's stage is read but
/// never released, so the producer's tail hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_flow_bad_break_before_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * TILE;
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
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * 256) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 && b < tiles {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        loop {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * 256);
            for r in 0..8 {
                acc += *stage.add(r * 32 + col);
            }
            t += g;
            if t >= tiles {
                break;
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

/// The consumers' arm is `1..=32` with the thread index as the column: column 32 reads past
/// the row and thread 32's result lands in the next block's first slot; column 0 is never written.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_flow_bad_match_shifted_consumers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * TILE;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    match tid {
        0 => {
            let mut st = PipelineState::<4>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE);
                bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * 256) as *const u8, TILE, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        }
        1..=32 => {
            let col = tid as usize;
            let mut st = PipelineState::<4>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = smem.add(st.index() as usize * 256);
                for r in 0..8 {
                    acc += *stage.add(r * 32 + col);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add(b as usize * 32 + col) = acc;
        }
        _ => {}
    }
}

/// The producer copies `ceil` tiles but the consumers count `floor((tiles - b) / g)`: blocks
/// past 0 consume one tile fewer and the producer's tail never returns.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_flow_bad_countdown_floor(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * TILE;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut left = (tiles - b + g - 1) / g;
        let mut t = b;
        while left > 0 {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * 256) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
            t += g;
            left -= 1;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut left = (tiles - b) / g;
        while left > 0 {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * 256);
            for r in 0..8 {
                acc += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            left -= 1;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

/// The first tile is peeled off before the loop, but the peeled step forgets to advance the
/// state: the loop waits on stage 0 again.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_flow_bad_peeled_without_advance(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: u32 = 2048;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>().wrapping_add(RING as usize / 4);
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE, input.add(t as usize * 256) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 && b < tiles {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        pipe.consumer_wait(&st);
        let first = smem.add(st.index() as usize * 256);
        let mut acc = 0.0f32;
        for r in 0..8 {
            acc += *first.add(r * 32 + col);
        }
        pipe.consumer_release(&st);
        let mut t = b + g;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * 256);
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

/// The consumers synchronise the block inside their tile loop (to "line the warp up"): the
/// producer never reaches that barrier, so both sides wait forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_flow_bad_barrier_in_consumer_loop(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 2 * TILE;
    if tid == 0 {
        Pipeline::<2>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<2>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE);
            bulk_copy_global_to_shared(window + st.index() * TILE, input.add(t as usize * 256) as *const u8, TILE, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            barrier();
            let stage = smem.add(st.index() as usize * 256);
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
