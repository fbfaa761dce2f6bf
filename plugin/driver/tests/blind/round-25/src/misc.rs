//! Odds and ends: the pipeline handle from a match, idle threads returning early, a table of
//! stage pointers, states passed and returned by value, a local macro for the steps, tiles from
//! `iter::successors`.

use core::iter::successors;

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_misc_handle_from_match_idle_return(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + 4096;
    let tid = thread_idx_x();
    let pipe = match tid {
        0 => Pipeline::<S>::init(bars, 32),
        _ => Pipeline::<S>::attach(bars),
    };
    barrier();
    if tid > 32 {
        return;
    }
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
        return;
    }
    let ring = dynamic_shared_base::<f32>();
    let mut st = PipelineState::<S>::new();
    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        pipe.consumer_wait(&st);
        let p = ring.add(st.index() as usize * TILE + tid as usize);
        for r in 0..8 {
            acc += *p.add(r * 32);
        }
        pipe.consumer_release(&st);
        st.advance();
        t += g;
    }
    *out.add((b * 32 + tid) as usize) = acc;
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_misc_stage_pointer_table(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    const RING: usize = 1024;
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING as u32 + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let base = dynamic_shared_base::<f32>().add(RING / 4);
        let stages: [*const f32; S as usize] = [base, base.add(TILE), base.add(2 * TILE), base.add(3 * TILE)];
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let p = stages[st.index() as usize];
            for r in 0..8 {
                acc += *p.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[inline(always)]
unsafe fn produce_one<const S: u32>(pipe: &Pipeline<S>, mut st: PipelineState<S>, ring: u32, src: *const f32) -> PipelineState<S> {
    pipe.producer_acquire(&st);
    pipe.producer_expect_tx(&st, TILE_BYTES);
    bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, src.cast(), TILE_BYTES, pipe.producer_barrier(&st));
    st.advance();
    st
}

#[inline(always)]
unsafe fn consume_one<const S: u32>(pipe: &Pipeline<S>, mut st: PipelineState<S>, ring: *const f32, col: usize) -> (PipelineState<S>, f32) {
    pipe.consumer_wait(&st);
    let p = ring.add(st.index() as usize * TILE + col);
    let s = *p + *p.add(32) + *p.add(64) + *p.add(96) + *p.add(128) + *p.add(160) + *p.add(192) + *p.add(224);
    pipe.consumer_release(&st);
    st.advance();
    (st, s)
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_misc_states_by_value(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let bars = window + 3 * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            st = produce_one(&pipe, st, window, input.add(t as usize * TILE));
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            let (next, s) = consume_one(&pipe, st, ring, tid as usize);
            st = next;
            acc += s;
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

macro_rules! produce_step {
    ($pipe:expr, $st:expr, $dst:expr, $src:expr) => {{
        $pipe.producer_acquire(&$st);
        $pipe.producer_expect_tx(&$st, TILE_BYTES);
        bulk_copy_global_to_shared($dst, $src, TILE_BYTES, $pipe.producer_barrier(&$st));
        $st.advance();
    }};
}

macro_rules! consume_step {
    ($pipe:expr, $st:expr, $stage:expr, $col:expr, $acc:ident) => {{
        $pipe.consumer_wait(&$st);
        let p: *const f32 = $stage;
        for r in 0..8 {
            $acc += *p.add(r * 32 + $col);
        }
        $pipe.consumer_release(&$st);
        $st.advance();
    }};
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_misc_local_macros(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 7;
    let window = dynamic_shared_window_address();
    let bars = window + 8192 - 16 * S;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            produce_step!(pipe, st, window + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast());
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            consume_step!(pipe, st, ring.add(st.index() as usize * TILE), tid as usize, acc);
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_misc_successors_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let window = dynamic_shared_window_address();
    let bars = window + 6144;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    let my_tiles = || successors(Some(b), move |t| Some(t + g)).take_while(move |t| *t < tiles);
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for t in my_tiles() {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + 4096 + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(1024);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in my_tiles() {
            pipe.consumer_wait(&st);
            let p = ring.add(st.index() as usize * TILE + tid as usize);
            for r in 0..8 {
                acc += *p.add(r * 32);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

// ---------------------------------------------------------------------------------------------
// broken

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_misc_bad_stage_table_rotated(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    const RING: usize = 1024;
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING as u32 + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let base = dynamic_shared_base::<f32>().add(RING / 4);
        // stage s is the s-th tile after the barriers' kilobyte
        let stages: [*const f32; S as usize] = core::array::from_fn(|s| base.add(((s + 1) % S as usize) * TILE) as *const f32);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let p = stages[st.index() as usize];
            for r in 0..8 {
                acc += *p.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_misc_bad_returned_state_dropped(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let bars = window + 3 * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            st = produce_one(&pipe, st, window, input.add(t as usize * TILE));
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            let (_, s) = consume_one(&pipe, st, ring, tid as usize);
            acc += s;
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

macro_rules! produce_step_quick {
    ($pipe:expr, $st:expr, $dst:expr, $src:expr) => {{
        $pipe.producer_acquire(&$st);
        bulk_copy_global_to_shared($dst, $src, TILE_BYTES, $pipe.producer_barrier(&$st));
        $st.advance();
    }};
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_misc_bad_macro_without_expect(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 7;
    let window = dynamic_shared_window_address();
    let bars = window + 8192 - 16 * S;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            produce_step_quick!(pipe, st, window + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast());
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            consume_step!(pipe, st, ring.add(st.index() as usize * TILE), tid as usize, acc);
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_misc_bad_successors_inclusive_bound(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let window = dynamic_shared_window_address();
    let bars = window + 6144;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        for t in successors(Some(b), |t| Some(t + g)).take_while(|t| *t < tiles) {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + 4096 + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(1024);
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        for _ in successors(Some(b), |t| Some(t + g)).take_while(|t| *t <= tiles) {
            pipe.consumer_wait(&st);
            let p = ring.add(st.index() as usize * TILE + tid as usize);
            for r in 0..8 {
                acc += *p.add(r * 32);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_misc_bad_consumers_through_thirty_two(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + 4096;
    let tid = thread_idx_x();
    let pipe = match tid {
        0 => Pipeline::<S>::init(bars, 32),
        _ => Pipeline::<S>::attach(bars),
    };
    barrier();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 40 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid <= 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let p = ring.add(st.index() as usize * TILE + tid.min(31) as usize);
            for r in 0..8 {
                acc += *p.add(r * 32);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        if tid < 32 {
            *out.add((b * 32 + tid) as usize) = acc;
        }
    }
}
