//! Style: warp-specialised roles as an enum. A `const fn`-like `role_of(tid)` maps the thread
//! index to a `Role` (`Producer`, `Consumer { column }`, `Idle`), and each kernel's work is a
//! single `match` on it, one arm per role. Barriers at window byte 0, a ring of one-tile stages
//! from byte 1024.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id, thread_idx_x, warp_id};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const COLUMNS: u32 = 32;
const ROWS: u32 = 8;
const RING_BYTE: u32 = 1024;

/// What a thread does in the kernel.
#[derive(Clone, Copy)]
enum Role {
    Producer,
    Consumer { column: u32 },
    Idle,
}

/// Thread 0 produces, warp 1 consumes (lane = column), the rest of warp 0 idles.
#[inline(always)]
fn role_of(tid: u32) -> Role {
    match tid {
        0 => Role::Producer,
        32..=63 => Role::Consumer { column: tid - 32 },
        _ => Role::Idle,
    }
}

#[inline(always)]
unsafe fn produce<const S: u32>(pipe: &Pipeline<S>, window: u32, input: *const f32, tiles: u32) {
    let mut state = PipelineState::<S>::producer_start();
    let mut tile = block_idx_x();
    while tile < tiles {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        bulk_copy_global_to_shared(
            window + RING_BYTE + state.index() * TILE_BYTES,
            input.add((tile * TILE_FLOATS) as usize) as *const u8,
            TILE_BYTES,
            pipe.producer_barrier(&state),
        );
        state.advance();
        tile += grid_dim_x();
    }
    pipe.producer_tail(state);
}

#[inline(always)]
unsafe fn stage_column(stage: *const f32, column: u32) -> f32 {
    let mut sum = 0.0;
    for row in 0..ROWS {
        sum += *stage.add((row * COLUMNS + column) as usize);
    }
    sum
}

/// The plain split: thread 0 produces, warp 1 consumes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_role_warp_split(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let role = role_of(thread_idx_x());
    let window = dynamic_shared_window_address();
    if let Role::Producer = role {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize);
    match role {
        Role::Producer => produce(&pipe, window, input, tiles),
        Role::Consumer { column } => {
            let mut state = PipelineState::<4>::new();
            let mut acc = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.consumer_wait(&state);
                acc += stage_column(ring.add((state.index() * TILE_FLOATS) as usize), column);
                pipe.consumer_release(&state);
                state.advance();
                tile += grid_dim_x();
            }
            *out.add((block_idx_x() * COLUMNS + column) as usize) = acc;
        }
        Role::Idle => {}
    }
}

/// Roles from a `match` on `(warp, lane)`: lane 31 of warp 1 produces, warp 0 consumes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_role_warp_lane_tuple(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let role = match (warp_id(), lane_id()) {
        (0, lane) => Role::Consumer { column: lane },
        (1, 31) => Role::Producer,
        _ => Role::Idle,
    };
    let window = dynamic_shared_window_address();
    if thread_idx_x() == 63 {
        Pipeline::<3>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize);
    match role {
        Role::Producer => produce(&pipe, window, input, tiles),
        Role::Consumer { column } => {
            let mut state = PipelineState::<3>::new();
            let mut acc = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.consumer_wait(&state);
                acc += stage_column(ring.add((state.index() * TILE_FLOATS) as usize), column);
                pipe.consumer_release(&state);
                state.advance();
                tile += grid_dim_x();
            }
            *out.add((block_idx_x() * COLUMNS + column) as usize) = acc;
        }
        Role::Idle => {}
    }
}

/// Roles as a `match` with guards; the consumers count their tiles first and run a `for`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_role_counted_arms(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let role = match tid {
        t if t == 0 => Role::Producer,
        t if t >= 32 => Role::Consumer { column: t - 32 },
        _ => Role::Idle,
    };
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<5>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<5>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize);
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = if b < tiles { (tiles - b).div_ceil(g) } else { 0 };
    match role {
        Role::Producer => {
            let mut state = PipelineState::<5>::producer_start();
            for k in 0..mine {
                let tile = b + k * g;
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + RING_BYTE + state.index() * TILE_BYTES,
                    input.add((tile * TILE_FLOATS) as usize) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
            }
            pipe.producer_tail(state);
        }
        Role::Consumer { column } => {
            let mut state = PipelineState::<5>::new();
            let mut acc = 0.0f32;
            for _ in 0..mine {
                pipe.consumer_wait(&state);
                acc += stage_column(ring.add((state.index() * TILE_FLOATS) as usize), column);
                pipe.consumer_release(&state);
                state.advance();
            }
            *out.add((b * COLUMNS + column) as usize) = acc;
        }
        Role::Idle => {}
    }
}

/// The role decides everything, setup included: the producer arm also initialises (before the
/// block barrier every role reaches), and the consumer arm keeps its partial sums per row.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_role_rows_in_registers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let role = role_of(thread_idx_x());
    let window = dynamic_shared_window_address();
    match role {
        Role::Producer => {
            Pipeline::<2>::init(window, 32);
        }
        Role::Consumer { .. } | Role::Idle => {}
    }
    barrier();
    let pipe = Pipeline::<2>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize);
    match role {
        Role::Producer => produce(&pipe, window, input, tiles),
        Role::Consumer { column } => {
            let mut state = PipelineState::<2>::new();
            let mut rows = [0.0f32; 8];
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.consumer_wait(&state);
                let stage = ring.add((state.index() * TILE_FLOATS) as usize);
                for r in 0..ROWS {
                    rows[r as usize] += *stage.add((r * COLUMNS + column) as usize);
                }
                pipe.consumer_release(&state);
                state.advance();
                tile += grid_dim_x();
            }
            let mut acc = 0.0f32;
            for v in rows {
                acc += v;
            }
            *out.add((block_idx_x() * COLUMNS + column) as usize) = acc;
        }
        Role::Idle => {}
    }
}

/// BROKEN: "one producer per half-warp" slipped into the role map: threads 0 and 16 are both
/// producers, each arriving with `expect_tx` on full barriers initialised for one arrival and
/// copying every tile again.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_role_bad_half_warp_producers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let role = match tid {
        0..=31 if tid % 16 == 0 => Role::Producer,
        32..=63 => Role::Consumer { column: tid - 32 },
        _ => Role::Idle,
    };
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize);
    match role {
        Role::Producer => produce(&pipe, window, input, tiles),
        Role::Consumer { column } => {
            let mut state = PipelineState::<4>::new();
            let mut acc = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.consumer_wait(&state);
                acc += stage_column(ring.add((state.index() * TILE_FLOATS) as usize), column);
                pipe.consumer_release(&state);
                state.advance();
                tile += grid_dim_x();
            }
            *out.add((block_idx_x() * COLUMNS + column) as usize) = acc;
        }
        Role::Idle => {}
    }
}

/// BROKEN: the consumer arm advances before it releases, so each release frees the *next*
/// stage (not yet read) and the producer refills stages the consumers are still reading.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_role_bad_release_next_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let role = role_of(thread_idx_x());
    let window = dynamic_shared_window_address();
    if let Role::Producer = role {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize);
    match role {
        Role::Producer => produce(&pipe, window, input, tiles),
        Role::Consumer { column } => {
            let mut state = PipelineState::<4>::new();
            let mut acc = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.consumer_wait(&state);
                let stage = ring.add((state.index() * TILE_FLOATS) as usize);
                state.advance();
                pipe.consumer_release(&state);
                acc += stage_column(stage, column);
                tile += grid_dim_x();
            }
            *out.add((block_idx_x() * COLUMNS + column) as usize) = acc;
        }
        Role::Idle => {}
    }
}

/// BROKEN: the consumer range was written `33..=63` (thread 32 taken for a second producer that
/// was later removed): 31 threads release empty barriers initialised for 32, so no stage is
/// ever freed, and column 31's output is never written.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_role_bad_consumer_range_short(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let role = match tid {
        0 => Role::Producer,
        33..=63 => Role::Consumer { column: tid - 33 },
        _ => Role::Idle,
    };
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize);
    match role {
        Role::Producer => produce(&pipe, window, input, tiles),
        Role::Consumer { column } => {
            let mut state = PipelineState::<4>::new();
            let mut acc = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.consumer_wait(&state);
                acc += stage_column(ring.add((state.index() * TILE_FLOATS) as usize), column);
                pipe.consumer_release(&state);
                state.advance();
                tile += grid_dim_x();
            }
            *out.add((block_idx_x() * COLUMNS + column) as usize) = acc;
        }
        Role::Idle => {}
    }
}

/// Starting state for a role: the producer's fresh-ring parity.
#[inline(always)]
fn start_state<const S: u32>(_role: Role) -> PipelineState<S> {
    PipelineState::<S>::producer_start()
}

/// BROKEN: both arms take their first state from `start_state`, which gives the producer's
/// start (parity 1) to the consumers too: their first wait on each stage returns at once on a
/// fresh barrier, so they read stages before the copies land and release them early.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_role_bad_consumer_producer_parity(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let role = role_of(thread_idx_x());
    let window = dynamic_shared_window_address();
    if let Role::Producer = role {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize);
    match role {
        Role::Producer => {
            let mut state = start_state::<4>(role);
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + RING_BYTE + state.index() * TILE_BYTES,
                    input.add((tile * TILE_FLOATS) as usize) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                tile += grid_dim_x();
            }
            pipe.producer_tail(state);
        }
        Role::Consumer { column } => {
            let mut state = start_state::<4>(role);
            let mut acc = 0.0f32;
            let mut tile = block_idx_x();
            while tile < tiles {
                pipe.consumer_wait(&state);
                acc += stage_column(ring.add((state.index() * TILE_FLOATS) as usize), column);
                pipe.consumer_release(&state);
                state.advance();
                tile += grid_dim_x();
            }
            *out.add((block_idx_x() * COLUMNS + column) as usize) = acc;
        }
        Role::Idle => {}
    }
}
