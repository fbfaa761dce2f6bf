//! Pipeline kernels built from closures: per-tile steps capturing the state by reference,
//! closures handed to helpers taking `impl FnMut`, `for_each` and `fold` over tile counts.

use crate::device;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};

const TILE_BYTES: u32 = 1024;

#[inline(always)]
fn setup<const S: u32>(producer: u32, bars: u32) -> Pipeline<S> {
    let window = device::dynamic_shared_window_address();
    let pipe = if device::thread_idx_x() == producer { Pipeline::<S>::init(window + bars, 32) } else { Pipeline::<S>::attach(window + bars) };
    device::barrier();
    pipe
}

/// Producer and consumer steps are closures capturing the state by `&mut`; four stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_clo_step_closures(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = setup::<4>(0, 4096);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut produce = |t: u32| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        };
        let mut t = b;
        while t < tiles {
            produce(t);
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut consume = || -> f32 {
            pipe.consumer_wait(&st);
            let s = ring.add(st.index() as usize * 256 + c);
            let v = *s + *s.add(32) + *s.add(64) + *s.add(96) + *s.add(128) + *s.add(160) + *s.add(192) + *s.add(224);
            pipe.consumer_release(&st);
            st.advance();
            v
        };
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            acc += consume();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// A column-reading closure handed each stage pointer; five stages, warp 0 consumes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_clo_reader_closure(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = setup::<5>(32, 5 * TILE_BYTES);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>() as *const f32;
    let tid = device::thread_idx_x();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let read = |stage: *const f32, col: u32| -> f32 {
        let mut s = 0.0;
        for r in 0..8u32 {
            s += *stage.add((r * 32 + col) as usize);
        }
        s
    };
    if tid == 32 {
        let mut st = PipelineState::<5>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<5>::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += read(ring.add(st.index() as usize * 256), tid);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + tid as usize) = acc;
    }
}

#[inline(always)]
fn each_tile(tiles: u32, mut f: impl FnMut(u32)) {
    let g = device::grid_dim_x();
    let mut t = device::block_idx_x();
    while t < tiles {
        f(t);
        t += g;
    }
}

/// A helper runs a closure for each of the block's tiles; three stages, barriers first.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_clo_each_tile_helper(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = setup::<3>(0, 0);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>().add(256);
    let tid = device::thread_idx_x();
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        each_tile(tiles, |t| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + TILE_BYTES + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        each_tile(tiles, |_| {
            pipe.consumer_wait(&st);
            for r in 0..8 {
                acc += *ring.add(st.index() as usize * 256 + r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
        });
        *out.add(device::block_idx_x() as usize * 32 + c) = acc;
    }
}

/// `for_each` over the tile count for the producer, `fold` for the consumers; six stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_clo_for_each_fold(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = setup::<6>(0, 6 * TILE_BYTES);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let mine = (tiles - b).div_ceil(g);
    if tid == 0 {
        let mut st = PipelineState::<6>::producer_start();
        (0..mine).for_each(|k| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add((b + k * g) as usize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<6>::new();
        let total = (0..mine).fold(0.0f32, |acc, _| {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * 256);
            let mut tile = 0.0;
            for r in 0..8 {
                tile += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            acc + tile
        });
        *out.add(b as usize * 32 + c) = total;
    }
}

/// Two closures created once, one per role, each owning nothing but references; two stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_clo_two_stage_refs(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = setup::<2>(63, 7168);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let src = |t: u32| input.add(t as usize * 256) as *const u8;
    if tid == 63 {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, src(t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut add_rows = |stage: *const f32| {
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
        };
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            add_rows(ring.add(st.index() as usize * 256));
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + tid as usize) = acc;
    }
}

/// Consumer step written as a `move` closure built at the top of each pass; four stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_clo_bad_move_closure_per_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = setup::<4>(0, 4096);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let st = PipelineState::<4>::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            let mut step = move || -> f32 {
                let mut st = st;
                pipe.consumer_wait(&st);
                let s = ring.add(st.index() as usize * 256 + c);
                let mut v = 0.0;
                for r in 0..8 {
                    v += *s.add(32 * r);
                }
                pipe.consumer_release(&st);
                st.advance();
                v
            };
            acc += step();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// `fold` over the tiles whose closure returns the tile's own sum; six stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_clo_bad_fold_drops_acc(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = setup::<6>(0, 6 * TILE_BYTES);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let mine = (tiles - b).div_ceil(g);
    if tid == 0 {
        let mut st = PipelineState::<6>::producer_start();
        (0..mine).for_each(|k| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add((b + k * g) as usize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<6>::new();
        let total = (0..mine).fold(0.0f32, |_acc, _| {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * 256);
            let mut tile = 0.0;
            for r in 0..8 {
                tile += *stage.add(r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            tile
        });
        *out.add(b as usize * 32 + c) = total;
    }
}

#[inline(always)]
fn each_tile_from(start: u32, tiles: u32, mut f: impl FnMut(u32)) {
    let g = device::grid_dim_x();
    let mut t = start;
    while t < tiles {
        f(t);
        t += g;
    }
}

/// Tile-loop helper handed a start; both roles start it at the block's second tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_clo_bad_each_tile_from_second(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = setup::<3>(0, 0);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>().add(256);
    let tid = device::thread_idx_x();
    let first = device::block_idx_x() + device::grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        each_tile_from(first, tiles, |t| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + TILE_BYTES + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        each_tile_from(first, tiles, |_| {
            pipe.consumer_wait(&st);
            for r in 0..8 {
                acc += *ring.add(st.index() as usize * 256 + r * 32 + c);
            }
            pipe.consumer_release(&st);
            st.advance();
        });
        *out.add(device::block_idx_x() as usize * 32 + c) = acc;
    }
}

/// Byte counts through a conversion closure; five stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_clo_bad_bytes_closure(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = setup::<5>(32, 5 * TILE_BYTES);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>() as *const f32;
    let tid = device::thread_idx_x();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let bytes_of = |floats: u32| floats * 4;
    if tid == 32 {
        let mut st = PipelineState::<5>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, bytes_of(TILE_BYTES));
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8, bytes_of(256), pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<5>::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * 256);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + tid as usize) = acc;
    }
}

/// Reader closure capturing the stage pointer of the consumer's starting state; four stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_clo_bad_captured_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = setup::<4>(0, 4096);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let stage = ring.add(st.index() as usize * 256) as *const f32;
        let column = || (0..8).map(|r| *stage.add(r * 32 + c)).sum::<f32>();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column();
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}
