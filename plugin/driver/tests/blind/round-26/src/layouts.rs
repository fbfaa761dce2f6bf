//! Layouts and pointer arithmetic: `byte_add`, `offset` with signed counts, 64-bit offsets,
//! offset tables from const fns, scratch beside or over the ring after the pipeline, two
//! independent pipelines with their own roles.

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, launch, thread_idx_x};

const TILE_BYTES: u32 = 1024;
const TILE_FLOATS: usize = 256;
const S: u32 = 4;

/// The producer loop with the copy destination computed by a closure from the stage index.
#[inline(always)]
unsafe fn produce<const N: u32>(pipe: &Pipeline<N>, input: *const f32, tiles: u32, dest: impl Fn(u32) -> u32) {
    let mut state = PipelineState::<N>::producer_start();
    let mut t = block_idx_x();
    while t < tiles {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        bulk_copy_global_to_shared(dest(state.index()), input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pipe.producer_barrier(&state));
        state.advance();
        t += grid_dim_x();
    }
    pipe.producer_tail(state);
}

#[inline(always)]
unsafe fn setup<const N: u32>(bars: u32, consumers: u32) -> Pipeline<N> {
    if thread_idx_x() == 0 {
        let _ = Pipeline::<N>::init(bars, consumers);
    }
    barrier();
    Pipeline::<N>::attach(bars)
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_lay_byte_add_stage(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>() as *const f32;
    let pipe = setup::<S>(window + S * TILE_BYTES, 32);
    let tid = thread_idx_x();
    if tid == 32 {
        produce(&pipe, input, tiles, |i| window + i * TILE_BYTES);
    } else if tid < 32 {
        let (block, grid) = (block_idx_x(), grid_dim_x());
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = base.byte_add(state.index() as usize * TILE_BYTES as usize);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

const RING_AT: u64 = 2048;

/// Copy destinations and stage pointers computed in `u64` and narrowed.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_lay_u64_offsets(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<u8>() as *const u8;
    let pipe = setup::<S>(window, 32);
    let tid = thread_idx_x();
    if tid == 32 {
        produce(&pipe, input, tiles, |i| window + (RING_AT + i as u64 * TILE_BYTES as u64) as u32);
    } else if tid < 32 {
        let (block, grid) = (block_idx_x(), grid_dim_x());
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let offset: u64 = RING_AT + state.index() as u64 * TILE_BYTES as u64;
            let stage = base.add(offset as usize).cast::<f32>();
            for r in 0..8u64 {
                acc += *stage.add((r * 32 + tid as u64) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

/// Stage pointers stepped back from the ring's end with a negative `isize` count.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_lay_from_ring_end(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let end = (dynamic_shared_base::<f32>() as *const f32).add(S as usize * TILE_FLOATS);
    let pipe = setup::<S>(window + S * TILE_BYTES, 32);
    let tid = thread_idx_x();
    if tid == 32 {
        produce(&pipe, input, tiles, |i| window + i * TILE_BYTES);
    } else if tid < 32 {
        let (block, grid) = (block_idx_x(), grid_dim_x());
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let back = (S - state.index()) as isize;
            let stage = end.offset(-back * TILE_FLOATS as isize);
            for r in 0..8isize {
                acc += *stage.offset(r * 32 + tid as isize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

/// Stage offsets in `i32`, through `offset`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_lay_i32_offset(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const N: u32 = 5;
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>() as *const f32;
    let pipe = setup::<N>(window + N * TILE_BYTES, 32);
    let tid = thread_idx_x() as i32;
    if tid == 32 {
        produce(&pipe, input, tiles, |i| window + i * TILE_BYTES);
    } else if tid < 32 {
        let (block, grid) = (block_idx_x(), grid_dim_x());
        let mut state = PipelineState::<N>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let first: i32 = state.index() as i32 * TILE_FLOATS as i32;
            let mut r: i32 = 0;
            while r < 8 {
                acc += *base.offset((first + r * 32 + tid) as isize);
                r += 1;
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * 32 + tid as usize) = acc;
    }
}

const fn stage_offsets<const N: usize>(first: u32) -> [u32; N] {
    let mut table = [0u32; N];
    let mut i = 0;
    while i < N {
        table[i] = first + i as u32 * TILE_BYTES;
        i += 1;
    }
    table
}

const OFFSETS: [u32; 4] = stage_offsets::<4>(256);

/// Stage byte offsets from a const-fn table: barriers at byte 0, the ring at byte 256.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_lay_const_fn_table(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<u8>();
    let pipe = setup::<S>(window, 32);
    let tid = thread_idx_x();
    if tid == 32 {
        produce(&pipe, input, tiles, |i| window + OFFSETS[i as usize]);
    } else if tid < 32 {
        let (block, grid) = (block_idx_x(), grid_dim_x());
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = base.add(OFFSETS[state.index() as usize] as usize).cast::<f32>();
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

const SCRATCH_AT: usize = 5120;

/// Consumers park their sums in scratch after the ring (byte 5120); after a block barrier warp 1
/// writes them out.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_lay_scratch_after_ring(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    let scratch = base.add(SCRATCH_AT / 4);
    let pipe = setup::<S>(window + S * TILE_BYTES, 32);
    let tid = thread_idx_x();
    let block = block_idx_x();
    if tid == 32 {
        produce(&pipe, input, tiles, |i| window + i * TILE_BYTES);
    } else if tid < 32 {
        let grid = grid_dim_x();
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = base.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *scratch.add(tid as usize) = acc;
    }
    barrier();
    if tid >= 32 {
        *out.add((block * 32 + tid - 32) as usize) = *scratch.add((tid - 32) as usize);
    }
}

/// As above, but the scratch is stage 0 of the ring itself, written only after a block barrier
/// that follows both roles (every copy consumed, the producer's tail done).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_lay_scratch_over_ring(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    let pipe = setup::<S>(window + S * TILE_BYTES, 32);
    let tid = thread_idx_x();
    let block = block_idx_x();
    let mut acc = 0.0f32;
    if tid == 32 {
        produce(&pipe, input, tiles, |i| window + i * TILE_BYTES);
    } else if tid < 32 {
        let grid = grid_dim_x();
        let mut state = PipelineState::<S>::new();
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = base.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
    }
    barrier();
    if tid < 32 {
        *base.add(tid as usize) = acc;
    }
    barrier();
    if tid >= 32 {
        *out.add((block * 32 + tid - 32) as usize) = *base.add((tid - 32) as usize);
    }
}

const RING_A: u32 = 0;
const RING_B: u32 = 2048;
const BARS_A: u32 = 4096;
const BARS_B: u32 = 4128;
const PARTIALS: usize = 4224;

/// Two independent two-stage pipelines: A (producer 32, consumers 0..16) takes the block's even
/// tiles, B (producer 33, consumers 16..32) the odd ones; B's sums meet A's through scratch.
#[inline(always)]
unsafe fn two_pipes<const RB: u32, const BB: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    let partials = base.add(PARTIALS / 4);
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<2>::init(window + BARS_A, 16);
        let _ = Pipeline::<2>::init(window + BB, 16);
    }
    barrier();
    let pa = Pipeline::<2>::attach(window + BARS_A);
    let pb = Pipeline::<2>::attach(window + BB);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let mine = (tiles + grid - 1 - block) / grid;
    let (mut lo, mut hi) = (0.0f32, 0.0f32);
    if tid == 32 {
        let mut state = PipelineState::<2>::producer_start();
        let mut k = 0u32;
        while k < mine {
            let t = block + k * grid;
            pa.producer_acquire(&state);
            pa.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING_A + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pa.producer_barrier(&state));
            state.advance();
            k += 2;
        }
        pa.producer_tail(state);
    } else if tid == 33 {
        let mut state = PipelineState::<2>::producer_start();
        let mut k = 1u32;
        while k < mine {
            let t = block + k * grid;
            pb.producer_acquire(&state);
            pb.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + RB + state.index() * TILE_BYTES, input.add(t as usize * TILE_FLOATS).cast(), TILE_BYTES, pb.producer_barrier(&state));
            state.advance();
            k += 2;
        }
        pb.producer_tail(state);
    } else if tid < 16 {
        let c = tid as usize;
        let mut state = PipelineState::<2>::new();
        let mut k = 0u32;
        while k < mine {
            pa.consumer_wait(&state);
            let stage = base.add(RING_A as usize / 4 + state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                lo += *stage.add(r * 32 + c);
                hi += *stage.add(r * 32 + c + 16);
            }
            pa.consumer_release(&state);
            state.advance();
            k += 2;
        }
    } else if tid < 32 {
        let c = (tid - 16) as usize;
        let mut state = PipelineState::<2>::new();
        let mut k = 1u32;
        while k < mine {
            pb.consumer_wait(&state);
            let stage = base.add(RB as usize / 4 + state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                lo += *stage.add(r * 32 + c);
                hi += *stage.add(r * 32 + c + 16);
            }
            pb.consumer_release(&state);
            state.advance();
            k += 2;
        }
        *partials.add(c) = lo;
        *partials.add(c + 16) = hi;
    }
    barrier();
    if tid < 16 {
        let c = tid as usize;
        *out.add(block as usize * 32 + c) = lo + *partials.add(c);
        *out.add(block as usize * 32 + c + 16) = hi + *partials.add(c + 16);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_lay_two_independent_pipes(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    two_pipes::<RING_B, BARS_B>(input, tiles, out);
}

// ---------------------------------------------------------------- broken

/// Broken: the scratch handoff has no block barrier; warp 1 reads scratch the consumers have
/// not written yet.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_lay_bad_scratch_no_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    let scratch = base.add(7424 / 4);
    let pipe = setup::<S>(window + S * TILE_BYTES, 32);
    let tid = thread_idx_x();
    let block = block_idx_x();
    if tid == 32 {
        produce(&pipe, input, tiles, |i| window + i * TILE_BYTES);
    } else if tid < 32 {
        let grid = grid_dim_x();
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = base.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *scratch.add(tid as usize) = acc;
    }
    if tid > 32 {
        *out.add((block * 32 + tid - 32) as usize) = *scratch.add((tid - 32) as usize);
    }
    if tid == 32 {
        *out.add((block * 32) as usize) = *scratch;
    }
}

/// Broken: consumers record their running sums after every tile in "scratch" at byte 4096,
/// which is the barriers' area, while later tiles still wait on those barriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_lay_bad_scratch_on_barriers(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>();
    let scratch = base.add(4096 / 4);
    let pipe = setup::<S>(window + S * TILE_BYTES, 32);
    let tid = thread_idx_x();
    let block = block_idx_x();
    if tid == 32 {
        produce(&pipe, input, tiles, |i| window + i * TILE_BYTES);
    } else if tid < 32 {
        let grid = grid_dim_x();
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = base.add(state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            // Progress record after every tile.
            *scratch.add(tid as usize) = acc;
            t += grid;
        }
    }
    barrier();
    if tid >= 32 {
        *out.add((block * 32 + tid - 32) as usize) = *scratch.add((tid - 32) as usize);
    }
}

/// Broken: `byte_add` is handed the stage's offset in floats (index * 256), not bytes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_lay_bad_byte_add_floats(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>() as *const f32;
    let pipe = setup::<S>(window + S * TILE_BYTES, 32);
    let tid = thread_idx_x();
    if tid == 32 {
        produce(&pipe, input, tiles, |i| window + i * TILE_BYTES);
    } else if tid < 32 {
        let (block, grid) = (block_idx_x(), grid_dim_x());
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = base.byte_add(state.index() as usize * TILE_FLOATS);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

/// Broken: stepping back from the ring's end by `S - 1 - index` stages lands one stage late
/// (stage S - 1 reads the barriers and what follows them).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_lay_bad_from_ring_end_off_by_one(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let end = (dynamic_shared_base::<f32>() as *const f32).add(S as usize * TILE_FLOATS);
    let pipe = setup::<S>(window + S * TILE_BYTES, 32);
    let tid = thread_idx_x();
    if tid == 32 {
        produce(&pipe, input, tiles, |i| window + i * TILE_BYTES);
    } else if tid < 32 {
        let (block, grid) = (block_idx_x(), grid_dim_x());
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let back = (S - 1 - state.index()) as isize;
            let stage = end.offset(-back * TILE_FLOATS as isize);
            for r in 0..8isize {
                acc += *stage.offset(r * 32 + tid as isize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

/// Broken: the 64-bit destination scales the index by the tile's bytes twice over (4096 per
/// stage), so stage 1's copy lands on the barriers at byte 4096 and stage 2 past the window.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_lay_bad_u64_stride_scaled(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<u8>() as *const u8;
    let pipe = setup::<S>(window + S * TILE_BYTES, 32);
    let tid = thread_idx_x();
    if tid == 32 {
        produce(&pipe, input, tiles, |i| window + (i as u64 * TILE_BYTES as u64 * 4) as u32);
    } else if tid < 32 {
        let (block, grid) = (block_idx_x(), grid_dim_x());
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = base.add(state.index() as usize * TILE_BYTES as usize).cast::<f32>();
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add((block * 32 + tid) as usize) = acc;
    }
}

/// Broken: pipeline B is initialised on pipeline A's barriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_lay_bad_two_pipes_same_barriers(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    two_pipes::<RING_B, BARS_A>(input, tiles, out);
}

/// Broken: pipeline B's ring is pipeline A's ring.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r26_lay_bad_two_pipes_same_ring(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    two_pipes::<RING_A, BARS_B>(input, tiles, out);
}
