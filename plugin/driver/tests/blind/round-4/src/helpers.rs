//! Written by someone who factors everything out: closures, `#[inline(never)]` helpers, states
//! passed and returned, function pointers, context structs.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::common::{COLUMNS, ROWS, TILE_BYTES, TILE_FLOATS};
use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id, thread_idx_x,
    warp_id,
};

const STAGES: u32 = 4;
type Pipe = Pipeline<STAGES>;
type State = PipelineState<STAGES>;

/// Sets the pipeline up at the end of the ring (thread 0), then every thread attaches.
#[inline(always)]
fn setup(consumers: u32) -> (Pipe, u32) {
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    if thread_idx_x() == 0 {
        Pipe::init(barriers, consumers);
    }
    barrier();
    (Pipe::attach(barriers), window)
}

/// Generic address of row 0 of `column` in the stage `stage`.
#[inline(always)]
fn column_in_stage(smem: *mut f32, stage: u32, column: usize) -> *const f32 {
    smem.wrapping_add(stage as usize * TILE_FLOATS + column)
}

#[inline(never)]
unsafe fn fill_stage(pipe: &Pipe, state: &mut State, window: u32, src: *const f32) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE_BYTES);
    bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src.cast(), TILE_BYTES, pipe.producer_barrier(state));
    state.advance();
}

/// The consumer's step is a closure over the pipeline and the ring.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn help_closure_step(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let (pipe, window) = setup(32);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let tid = thread_idx_x();
    if tid == 32 {
        let mut state = State::producer_start();
        let mut t = block;
        while t < tiles {
            fill_stage(&pipe, &mut state, window, input.add(t as usize * TILE_FLOATS));
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let step = |state: &mut State| -> f32 {
            pipe.consumer_wait(state);
            let p = column_in_stage(smem, state.index(), column);
            let mut s = 0.0f32;
            for row in 0..ROWS {
                s += *p.add(row * COLUMNS);
            }
            pipe.consumer_release(state);
            state.advance();
            s
        };
        let mut state = State::new();
        let mut total = 0.0f32;
        let mut t = block;
        while t < tiles {
            total += step(&mut state);
            t += grid;
        }
        *out.add(block as usize * COLUMNS + column) = total;
    }
}

#[inline(never)]
unsafe fn drain_stage(pipe: &Pipe, state: &mut State, smem: *mut f32, column: usize) -> f32 {
    pipe.consumer_wait(state);
    let p = column_in_stage(smem, state.index(), column);
    let mut s = 0.0f32;
    for row in 0..ROWS {
        s += *p.add(row * COLUMNS);
    }
    pipe.consumer_release(state);
    state.advance();
    s
}

/// Both per-tile steps live in `#[inline(never)]` helpers taking `&mut` states.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn help_noinline_steps(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let (pipe, window) = setup(32);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let tid = thread_idx_x();
    if warp_id() == 1 && lane_id() == 31 {
        let mut state = State::producer_start();
        let mut t = block;
        while t < tiles {
            fill_stage(&pipe, &mut state, window, input.add(t as usize * TILE_FLOATS));
            t += grid;
        }
        pipe.producer_tail(state);
    } else if warp_id() == 0 {
        let column = tid as usize;
        let mut state = State::new();
        let mut total = 0.0f32;
        let mut t = block;
        while t < tiles {
            total += drain_stage(&pipe, &mut state, smem, column);
            t += grid;
        }
        *out.add(block as usize * COLUMNS + column) = total;
    }
}

type ColumnReduce = unsafe fn(*const f32) -> f32;

unsafe fn strided_sum(first: *const f32) -> f32 {
    let mut s = 0.0f32;
    let mut p = first;
    for _ in 0..ROWS {
        s += *p;
        p = p.add(COLUMNS);
    }
    s
}

/// The column reduction is chosen at run time through a function pointer.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn help_fn_pointer_reduce(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let (pipe, window) = setup(32);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let tid = thread_idx_x();
    let reduce: ColumnReduce = strided_sum;
    if tid == 32 {
        let mut state = State::producer_start();
        let mut t = block;
        while t < tiles {
            fill_stage(&pipe, &mut state, window, input.add(t as usize * TILE_FLOATS));
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = State::new();
        let mut total = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            total += reduce(column_in_stage(smem, state.index(), column));
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * COLUMNS + column) = total;
    }
}

/// Takes the state by value and returns it advanced, with the column's sum.
#[inline(never)]
unsafe fn consume_one(pipe: &Pipe, mut state: State, smem: *mut f32, column: usize) -> (State, f32) {
    pipe.consumer_wait(&state);
    let p = column_in_stage(smem, state.index(), column);
    let s = *p + *p.add(32) + *p.add(64) + *p.add(96) + *p.add(128) + *p.add(160) + *p.add(192) + *p.add(224);
    pipe.consumer_release(&state);
    state.advance();
    (state, s)
}

#[inline(never)]
unsafe fn produce_one(pipe: &Pipe, mut state: State, window: u32, src: *const f32) -> State {
    pipe.producer_acquire(&state);
    pipe.producer_expect_tx(&state, TILE_BYTES);
    bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src.cast(), TILE_BYTES, pipe.producer_barrier(&state));
    state.advance();
    state
}

/// States go into helpers by value and come back as return values.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn help_returned_state(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let (pipe, window) = setup(32);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let tid = thread_idx_x();
    if tid == 32 {
        let mut state = State::producer_start();
        let mut t = block;
        while t < tiles {
            state = produce_one(&pipe, state, window, input.add(t as usize * TILE_FLOATS));
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = State::new();
        let mut total = 0.0f32;
        let mut t = block;
        while t < tiles {
            let (next, s) = consume_one(&pipe, state, smem, column);
            state = next;
            total += s;
            t += grid;
        }
        *out.add(block as usize * COLUMNS + column) = total;
    }
}

/// Roles by signed distance from thread 16: thread 0 (distance -16) produces, distances 0..32
/// (threads 16..47) consume.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn help_signed_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let (pipe, window) = setup(32);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let offset = thread_idx_x() as i32 - 16;
    if offset == -16 {
        let mut state = State::producer_start();
        let mut t = block;
        while t < tiles {
            fill_stage(&pipe, &mut state, window, input.add(t as usize * TILE_FLOATS));
            t += grid;
        }
        pipe.producer_tail(state);
    } else if (0..COLUMNS as i32).contains(&offset) {
        let column = offset as usize;
        let mut state = State::new();
        let mut total = 0.0f32;
        let mut t = block;
        while t < tiles {
            total += drain_stage(&pipe, &mut state, smem, column);
            t += grid;
        }
        *out.add(block as usize * COLUMNS + column) = total;
    }
}

/// Adds up one column of a stage, the eight words `stride` apart.
#[inline(never)]
unsafe fn column_total(words: *const u32, stride: usize) -> f32 {
    let mut total = 0.0f32;
    for row in 0..ROWS {
        total += *words.add(row * stride) as f32;
    }
    total
}

/// The column helper is shared with a histogram kernel and works on 32-bit words.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn help_bits_reinterpret(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let (pipe, window) = setup(32);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let tid = thread_idx_x();
    if tid == 32 {
        let mut state = State::producer_start();
        let mut t = block;
        while t < tiles {
            fill_stage(&pipe, &mut state, window, input.add(t as usize * TILE_FLOATS));
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let mut state = State::new();
        let mut total = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            total += column_total(column_in_stage(smem, state.index(), column).cast(), COLUMNS);
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        *out.add(block as usize * COLUMNS + column) = total;
    }
}

/// The closure knows when it handles the block's last tile and finishes early there.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn help_closure_skip_last(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let (pipe, window) = setup(32);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let tid = thread_idx_x();
    if tid == 32 {
        let mut state = State::producer_start();
        let mut t = block;
        while t < tiles {
            fill_stage(&pipe, &mut state, window, input.add(t as usize * TILE_FLOATS));
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let step = |state: &mut State, last: bool| -> f32 {
            pipe.consumer_wait(state);
            let p = column_in_stage(smem, state.index(), column);
            let mut s = 0.0f32;
            for row in 0..ROWS {
                s += *p.add(row * COLUMNS);
            }
            if last {
                return s;
            }
            pipe.consumer_release(state);
            state.advance();
            s
        };
        let mut state = State::new();
        let mut total = 0.0f32;
        let mut t = block;
        while t < tiles {
            total += step(&mut state, t + grid >= tiles);
            t += grid;
        }
        *out.add(block as usize * COLUMNS + column) = total;
    }
}

/// Consumes the tile at `state`.
#[inline(never)]
unsafe fn consume_tile(pipe: &Pipe, mut state: State, smem: *mut f32, column: usize) -> f32 {
    pipe.consumer_wait(&state);
    let p = column_in_stage(smem, state.index(), column);
    let mut s = 0.0f32;
    for row in 0..ROWS {
        s += *p.add(row * COLUMNS);
    }
    pipe.consumer_release(&state);
    state.advance();
    s
}

/// The consumer's per-tile work in a helper that receives the state.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn help_by_value_advance(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let smem = dynamic_shared_base::<f32>();
    let (pipe, window) = setup(32);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let tid = thread_idx_x();
    if tid == 32 {
        let mut state = State::producer_start();
        let mut t = block;
        while t < tiles {
            fill_stage(&pipe, &mut state, window, input.add(t as usize * TILE_FLOATS));
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let column = tid as usize;
        let state = State::new();
        let mut total = 0.0f32;
        let mut t = block;
        while t < tiles {
            total += consume_tile(&pipe, state, smem, column);
            t += grid;
        }
        *out.add(block as usize * COLUMNS + column) = total;
    }
}

/// Everything a role needs, built once.
struct Context {
    pipe: Pipe,
    window: u32,
    smem: *mut f32,
    input: *const f32,
    tiles: u32,
    out: *mut f32,
    /// (lane, warp) of this thread.
    ids: (u32, u32),
}

unsafe fn produce_role(ctx: &Context) {
    let (lane, _) = ctx.ids;
    if lane != 0 {
        return;
    }
    let mut state = State::producer_start();
    let mut t = block_idx_x();
    while t < ctx.tiles {
        fill_stage(&ctx.pipe, &mut state, ctx.window, ctx.input.add(t as usize * TILE_FLOATS));
        t += grid_dim_x();
    }
    ctx.pipe.producer_tail(state);
}

unsafe fn consume_role(ctx: &Context) {
    let column = lane_id() as usize;
    let mut state = State::new();
    let mut total = 0.0f32;
    let mut t = block_idx_x();
    while t < ctx.tiles {
        total += drain_stage(&ctx.pipe, &mut state, ctx.smem, column);
        t += grid_dim_x();
    }
    *ctx.out.add(block_idx_x() as usize * COLUMNS + column) = total;
}

/// Roles from a table of function pointers indexed by warp.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn help_swapped_ids(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let (pipe, window) = setup(32);
    let ctx = Context {
        pipe,
        window,
        smem: dynamic_shared_base::<f32>(),
        input,
        tiles,
        out,
        ids: (warp_id(), lane_id()),
    };
    let roles: [unsafe fn(&Context); 2] = [consume_role, produce_role];
    roles[warp_id() as usize & 1](&ctx);
}
