//! Enums: roles as an enum matched once, producers and consumers written as explicit state
//! machines, states kept in an Option, per-tile steps that report through an Option.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Producer,
    Consumer { col: u32 },
    Idle,
}

#[inline(always)]
fn role_of(tid: u32) -> Role {
    match tid {
        0..=31 => Role::Consumer { col: tid },
        63 => Role::Producer,
        _ => Role::Idle,
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_enum_role_match(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + 4096;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    match role_of(tid) {
        Role::Producer => {
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
        }
        Role::Consumer { col } => {
            let ring = dynamic_shared_base::<f32>();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let p = ring.add(st.index() as usize * TILE + col as usize);
                for r in 0..8 {
                    acc += *p.add(r * 32);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * 32 + col) as usize) = acc;
        }
        Role::Idle => {}
    }
}

#[derive(Clone, Copy)]
enum Step {
    Acquire,
    Announce,
    Copy,
    Advance,
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_enum_producer_state_machine(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    const RING: u32 = 1024;
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        let mut step = Step::Acquire;
        loop {
            step = match step {
                Step::Acquire => {
                    if t >= tiles {
                        break;
                    }
                    pipe.producer_acquire(&st);
                    Step::Announce
                }
                Step::Announce => {
                    pipe.producer_expect_tx(&st, TILE_BYTES);
                    Step::Copy
                }
                Step::Copy => {
                    bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
                    Step::Advance
                }
                Step::Advance => {
                    st.advance();
                    t += g;
                    Step::Acquire
                }
            };
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
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
}

#[derive(Clone, Copy, PartialEq)]
enum Phase {
    Wait,
    Read,
    Release,
    Done,
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_enum_consumer_state_machine(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let window = dynamic_shared_window_address();
    let bars = window + 2048;
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
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        let mut phase = if t < tiles { Phase::Wait } else { Phase::Done };
        while phase != Phase::Done {
            phase = match phase {
                Phase::Wait => {
                    pipe.consumer_wait(&st);
                    Phase::Read
                }
                Phase::Read => {
                    let p = ring.add(st.index() as usize * TILE + tid as usize);
                    for r in 0..8 {
                        acc += *p.add(r * 32);
                    }
                    Phase::Release
                }
                Phase::Release => {
                    pipe.consumer_release(&st);
                    st.advance();
                    t += g;
                    if t < tiles { Phase::Wait } else { Phase::Done }
                }
                Phase::Done => Phase::Done,
            };
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// One consumer step: `None` once this block's tiles are used up.
#[inline(always)]
unsafe fn next_tile<const S: u32>(pipe: &Pipeline<S>, st: &mut PipelineState<S>, t: &mut u32, tiles: u32, col: usize) -> Option<f32> {
    if *t >= tiles {
        return None;
    }
    pipe.consumer_wait(st);
    let p = dynamic_shared_base::<f32>().add(st.index() as usize * TILE + col);
    let s = (0..8).fold(0.0, |a, r| a + *p.add(r * 32));
    pipe.consumer_release(st);
    st.advance();
    *t += grid_dim_x();
    Some(s)
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_enum_option_steps(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 5;
    let window = dynamic_shared_window_address();
    let bars = window + 5 * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let b = block_idx_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<S>::new();
        let mut t = b;
        let mut acc = 0.0f32;
        while let Some(s) = next_tile(&pipe, &mut st, &mut t, tiles, tid as usize) {
            acc += s;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_enum_state_in_option_slot(input: *const f32, tiles: u32, out: *mut f32) {
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
    const RING: u32 = 4096;
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mut slot: Option<PipelineState<S>> = match role_of(tid) {
        Role::Producer => Some(PipelineState::producer_start()),
        Role::Consumer { .. } => Some(PipelineState::new()),
        Role::Idle => None,
    };
    if let Some(st) = &mut slot {
        let mut t = b;
        if tid == 63 {
            while t < tiles {
                pipe.producer_acquire(st);
                pipe.producer_expect_tx(st, TILE_BYTES);
                bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(*st);
        } else {
            let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
            let mut acc = 0.0;
            while t < tiles {
                pipe.consumer_wait(st);
                let p = ring.add(st.index() as usize * TILE + tid as usize);
                for r in 0..8 {
                    acc += *p.add(r * 32);
                }
                pipe.consumer_release(st);
                st.advance();
                t += g;
            }
            *out.add((b * 32 + tid) as usize) = acc;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// broken

#[inline(always)]
fn role_of_last_two(tid: u32) -> Role {
    match tid {
        0..=31 => Role::Consumer { col: tid },
        62.. => Role::Producer,
        _ => Role::Idle,
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_enum_bad_producer_range_two_threads(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + 4096;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());
    match role_of_last_two(tid) {
        Role::Producer => {
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
        }
        Role::Consumer { col } => {
            let ring = dynamic_shared_base::<f32>();
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let p = ring.add(st.index() as usize * TILE + col as usize);
                for r in 0..8 {
                    acc += *p.add(r * 32);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * 32 + col) as usize) = acc;
        }
        Role::Idle => {}
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_enum_bad_machine_acquires_once(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 3;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    const RING: u32 = 1024;
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        let mut step = Step::Acquire;
        loop {
            step = match step {
                Step::Acquire => {
                    pipe.producer_acquire(&st);
                    Step::Announce
                }
                Step::Announce => {
                    if t >= tiles {
                        break;
                    }
                    pipe.producer_expect_tx(&st, TILE_BYTES);
                    Step::Copy
                }
                Step::Copy => {
                    bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
                    Step::Advance
                }
                Step::Advance => {
                    st.advance();
                    t += g;
                    Step::Announce
                }
            };
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
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
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_enum_bad_consumer_machine_double_step(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 2;
    let window = dynamic_shared_window_address();
    let bars = window + 2048;
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
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        let mut phase = if t < tiles { Phase::Wait } else { Phase::Done };
        while phase != Phase::Done {
            phase = match phase {
                Phase::Wait => {
                    pipe.consumer_wait(&st);
                    Phase::Read
                }
                Phase::Read => {
                    let p = ring.add(st.index() as usize * TILE + tid as usize);
                    for r in 0..8 {
                        acc += *p.add(r * 32);
                    }
                    t += g;
                    Phase::Release
                }
                Phase::Release => {
                    pipe.consumer_release(&st);
                    st.advance();
                    t += g;
                    if t < tiles { Phase::Wait } else { Phase::Done }
                }
                Phase::Done => Phase::Done,
            };
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_enum_bad_option_taken_each_tile(input: *const f32, tiles: u32, out: *mut f32) {
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
    const RING: u32 = 4096;
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 63 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut slot: Option<PipelineState<S>> = None;
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            let mut st = slot.take().unwrap_or_default();
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
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r25_enum_bad_consumer_column_rotated(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 5;
    let window = dynamic_shared_window_address();
    let bars = window + 5 * TILE_BYTES;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<S>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(bars);
    let b = block_idx_x();
    if tid == 32 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<S>::new();
        let mut t = b;
        let mut acc = 0.0f32;
        // column of this consumer, counted from 1 and wrapped to the row
        let col = (tid + 1) % 32;
        while let Some(s) = next_tile(&pipe, &mut st, &mut t, tiles, col as usize) {
            acc += s;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}
