//! Unusual control flow: labelled loops and breaks, early returns by role, loop-and-a-half,
//! a consumer written as a state machine, `while let` over an iterator, a peeled first tile.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;

#[inline(always)]
fn mine_of(tiles: u32) -> u32 {
    let b = block_idx_x();
    let g = grid_dim_x();
    if b < tiles { (tiles - b).div_ceil(g) } else { 0 }
}

/// Both tile loops are `'tiles: loop` with a labelled break at the end of the block's tiles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_fl_labelled_loops(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    let ring = window + 1024;
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        'tiles: loop {
            if t >= tiles {
                break 'tiles;
            }
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let stages = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        'tiles: loop {
            if t >= tiles {
                break 'tiles;
            }
            pipe.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// Idle threads and the producer leave by early `return`s; the consumers fall through.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_fl_early_returns(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<3>::init(window + 3072, 32) } else { Pipeline::<3>::attach(window + 3072) };
    barrier();
    if tid > 32 {
        return;
    }
    if tid == 32 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
        return;
    }
    let ring = dynamic_shared_base::<f32>();
    let mut st = PipelineState::<3>::new();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        pipe.consumer_wait(&st);
        let stage = ring.add(st.index() as usize * TILE);
        for r in 0..8 {
            acc += *stage.add(r * 32 + tid as usize);
        }
        pipe.consumer_release(&st);
        st.advance();
        t += grid_dim_x();
    }
    *out.add((block_idx_x() * 32 + tid) as usize) = acc;
}

/// Loop-and-a-half tile loops: the exit test sits after each tile's work.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_fl_loop_and_a_half(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<2>::init(window, 32) } else { Pipeline::<2>::attach(window) };
    barrier();
    let ring = window + 256;
    let mine = mine_of(tiles);
    if tid == 0 {
        let mut st = PipelineState::<2>::producer_start();
        let mut k = 0;
        if mine > 0 {
            loop {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add((b + k * g) as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                k += 1;
                if k == mine {
                    break;
                }
            }
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let stages = dynamic_shared_base::<f32>().add(64);
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut k = 0;
        if mine > 0 {
            loop {
                pipe.consumer_wait(&st);
                let stage = stages.add(st.index() as usize * TILE);
                for r in 0..8 {
                    acc += *stage.add(r * 32 + c);
                }
                pipe.consumer_release(&st);
                st.advance();
                k += 1;
                if k == mine {
                    break;
                }
            }
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// The consumer's steps in one tile.
#[derive(Clone, Copy, PartialEq)]
enum Step {
    Wait,
    Read,
    Release,
    Next,
    Done,
}

/// The consumer is a state machine over `Step`, one transition per pass of its loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_fl_step_machine(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    let ring = window + 1024;
    let mine = mine_of(tiles);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        for k in 0..mine {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let t = block_idx_x() + k * grid_dim_x();
            bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let stages = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut k = 0;
        let mut step = if mine > 0 { Step::Wait } else { Step::Done };
        loop {
            match step {
                Step::Wait => {
                    pipe.consumer_wait(&st);
                    step = Step::Read;
                }
                Step::Read => {
                    let stage = stages.add(st.index() as usize * TILE);
                    for r in 0..8 {
                        acc += *stage.add(r * 32 + tid as usize);
                    }
                    step = Step::Release;
                }
                Step::Release => {
                    pipe.consumer_release(&st);
                    step = Step::Next;
                }
                Step::Next => {
                    st.advance();
                    k += 1;
                    step = if k < mine { Step::Wait } else { Step::Done };
                }
                Step::Done => break,
            }
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// Both roles walk `(b..tiles).step_by(g)` with `while let Some(t) = it.next()`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_fl_while_let(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 63 { Pipeline::<4>::init(window + 6144, 32) } else { Pipeline::<4>::attach(window + 6144) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x() as usize;
    if tid == 63 {
        let mut st = PipelineState::<4>::producer_start();
        let mut it = (b..tiles).step_by(g);
        while let Some(t) = it.next() {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + 2048 + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let stages = dynamic_shared_base::<f32>().add(512);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut it = (b..tiles).step_by(g);
        while let Some(_) = it.next() {
            pipe.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(b as usize * 32 + tid as usize) = acc;
    }
}

/// The first tile is peeled out of both roles' loops.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_fl_peeled_first(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<3>::init(window, 32) } else { Pipeline::<3>::attach(window) };
    barrier();
    let ring = window + 1024;
    let mine = mine_of(tiles);
    if tid == 32 {
        let mut st = PipelineState::<3>::producer_start();
        if mine > 0 {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add(b as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            for k in 1..mine {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add((b + k * g) as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let c = tid as usize;
        let stages = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        if mine > 0 {
            pipe.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            for _ in 1..mine {
                pipe.consumer_wait(&st);
                let stage = stages.add(st.index() as usize * TILE);
                for r in 0..8 {
                    acc += *stage.add(r * 32 + c);
                }
                pipe.consumer_release(&st);
                st.advance();
            }
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// The consumers store their result and break out on the last tile before releasing it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_fl_bad_break_before_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    let ring = window + 1024;
    let mine = mine_of(tiles);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        for k in 0..mine {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let t = block_idx_x() + k * grid_dim_x();
            bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let stages = dynamic_shared_base::<f32>().add(256);
        let o = out.add((block_idx_x() * 32 + tid) as usize);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut k = 0;
        while k < mine {
            pipe.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            if k + 1 == mine {
                *o = acc;
                break;
            }
            pipe.consumer_release(&st);
            st.advance();
            k += 1;
        }
    }
}

/// The producer returns as soon as the next tile would be its last.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_fl_bad_producer_returns_early(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<3>::init(window + 3072, 32) } else { Pipeline::<3>::attach(window + 3072) };
    barrier();
    if tid > 32 {
        return;
    }
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = block_idx_x();
        loop {
            if t + g >= tiles {
                return;
            }
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
    }
    let ring = dynamic_shared_base::<f32>();
    let mut st = PipelineState::<3>::new();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        pipe.consumer_wait(&st);
        let stage = ring.add(st.index() as usize * TILE);
        for r in 0..8 {
            acc += *stage.add(r * 32 + tid as usize);
        }
        pipe.consumer_release(&st);
        st.advance();
        t += g;
    }
    *out.add((block_idx_x() * 32 + tid) as usize) = acc;
}

/// The state machine starts at `Read`, so the first tile is read before any wait.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_fl_bad_machine_starts_reading(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    let ring = window + 1024;
    let mine = mine_of(tiles);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        for k in 0..mine {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let t = block_idx_x() + k * grid_dim_x();
            bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let stages = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut k = 0;
        let mut step = if mine > 0 { Step::Read } else { Step::Done };
        while step != Step::Done {
            step = match step {
                Step::Wait => {
                    pipe.consumer_wait(&st);
                    Step::Read
                }
                Step::Read => {
                    let stage = stages.add(st.index() as usize * TILE);
                    for r in 0..8 {
                        acc += *stage.add(r * 32 + tid as usize);
                    }
                    Step::Release
                }
                Step::Release => {
                    pipe.consumer_release(&st);
                    Step::Next
                }
                Step::Next => {
                    st.advance();
                    k += 1;
                    if k < mine { Step::Wait } else { Step::Done }
                }
                Step::Done => Step::Done,
            };
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// The first tile seeds the total and `continue`s past the state's advance.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_fl_bad_continue_skips_advance(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    let ring = window + 1024;
    let mine = mine_of(tiles);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        for k in 0..mine {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let t = block_idx_x() + k * grid_dim_x();
            bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let stages = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut k = 0;
        while k < mine {
            pipe.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE);
            let mut v = 0.0f32;
            for r in 0..8 {
                v += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            if k == 0 {
                acc = v;
                k += 1;
                continue;
            }
            acc += v;
            st.advance();
            k += 1;
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// The consumers' labelled loop stops once the following tile would be past the end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_fl_bad_labelled_stop_early(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    let ring = window + 1024;
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        'tiles: loop {
            if t >= tiles {
                break 'tiles;
            }
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let stages = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        'tiles: loop {
            pipe.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
            if t + g > tiles {
                break 'tiles;
            }
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

/// Consumers rebuild their state every tile, stepping it `k % 4` times from a fresh one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r29_fl_bad_state_rebuilt(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    let ring = window + 1024;
    let mine = mine_of(tiles);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        for k in 0..mine {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let t = block_idx_x() + k * grid_dim_x();
            bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let stages = dynamic_shared_base::<f32>().add(256);
        let mut acc = 0.0f32;
        for k in 0..mine {
            let mut st = PipelineState::<4>::new();
            for _ in 0..k % 4 {
                st.advance();
            }
            pipe.consumer_wait(&st);
            let stage = stages.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}
