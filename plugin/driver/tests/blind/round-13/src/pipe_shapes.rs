//! mbarrier pipelines in less usual shapes: other role assignments, deeper rings, two rings,
//! a thread that produces and consumes, states in tuples, enums and generic helpers. All meant
//! to be correct.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLS: usize = 32;
const ROWS: usize = 8;

#[inline(always)]
fn tiles_of_block(tiles: u32) -> u32 {
    let b = block_idx_x();
    if tiles > b { (tiles - b).div_ceil(grid_dim_x()) } else { 0 }
}

#[inline(always)]
fn nth_tile(input: *const f32, i: u32) -> *const u8 {
    let t = block_idx_x() + i * grid_dim_x();
    input.wrapping_add(t as usize * TILE) as *const u8
}

/// Warp 1 consumes, thread 0 produces (and initialises).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pipe_warp1_consumes(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    const BAR: u32 = 2048;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window + BAR, 32) } else { Pipeline::<STAGES>::attach(window + BAR) };
    barrier();
    let n = tiles_of_block(tiles);
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for i in 0..n {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, nth_tile(input, i), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if (32..64).contains(&tid) {
        let lane = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in 0..n {
            pipe.consumer_wait(&state);
            let column = ring.wrapping_add(state.index() as usize * TILE + lane);
            acc += (0..ROWS).map(|k| unsafe { *column.add(k * COLS) }).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + lane) = acc };
    }
}

/// Seven stages: 7 KiB of ring, the barriers in the last KiB.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pipe_seven_stages(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 7;
    const BARRIERS: u32 = STAGES * TILE_BYTES;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    match tid {
        0..=31 => {
            let mut state = PipelineState::<STAGES>::new();
            let ring = dynamic_shared_base::<f32>();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&state);
                let stage = ring.wrapping_add(state.index() as usize * TILE);
                for k in 0..ROWS {
                    acc += unsafe { *stage.add(k * COLS + tid as usize) };
                }
                pipe.consumer_release(&state);
                state.advance();
                t += g;
            }
            unsafe { *out.add(b as usize * COLS + tid as usize) = acc };
        }
        32 => {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                let src = input.wrapping_add(t as usize * TILE) as *const u8;
                bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&state));
                state.advance();
                t += g;
            }
            pipe.producer_tail(state);
        }
        _ => {}
    }
}

/// Consumers are lanes 0..16 of both warps (32 threads): lane `l` of warp `w` sums columns `l`
/// and `l + 16` over rows `4w..4w + 4`. Thread 16 produces. After the pipeline the two warps'
/// partials meet in scratch past the barriers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pipe_half_lanes_both_warps(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARRIERS: u32 = 4096;
    const SCRATCH: usize = 4352;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let n = tiles_of_block(tiles);
    let scratch = dynamic_shared_base::<u8>().wrapping_add(SCRATCH) as *mut f32;
    let (warp, lane) = ((tid / 32) as usize, (tid % 32) as usize);
    if tid == 16 {
        let mut state = PipelineState::<STAGES>::producer_start();
        for i in 0..n {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, nth_tile(input, i), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid % 32 < 16 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<STAGES>::new();
        let mut sums = [0.0f32; 2];
        for _ in 0..n {
            pipe.consumer_wait(&state);
            let stage = ring.wrapping_add(state.index() as usize * TILE);
            for row in warp * 4..warp * 4 + 4 {
                for (h, s) in sums.iter_mut().enumerate() {
                    *s += unsafe { *stage.add(row * COLS + lane + 16 * h) };
                }
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        unsafe {
            *scratch.add(warp * COLS + lane) = sums[0];
            *scratch.add(warp * COLS + lane + 16) = sums[1];
        }
    }
    barrier();
    if warp == 0 {
        unsafe { *out.add(block_idx_x() as usize * COLS + lane) = *scratch.add(lane) + *scratch.add(COLS + lane) };
    }
}

/// The consumer keeps `(state, total)` as a tuple, the producer its state in a one-element
/// array; both loops are `loop` with a `break`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pipe_state_tuple_array(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 3;
    const BARRIERS: u32 = 3072;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 40 {
        let mut states = [PipelineState::<STAGES>::producer_start()];
        let mut t = b;
        loop {
            if t >= tiles {
                break;
            }
            pipe.producer_acquire(&states[0]);
            pipe.producer_expect_tx(&states[0], TILE_BYTES);
            let src = input.wrapping_add(t as usize * TILE) as *const u8;
            bulk_copy_global_to_shared(window + states[0].index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&states[0]));
            states[0].advance();
            t += g;
        }
        pipe.producer_tail(states[0]);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut cursor = (PipelineState::<STAGES>::new(), 0.0f32);
        let mut t = b;
        loop {
            if t >= tiles {
                break;
            }
            pipe.consumer_wait(&cursor.0);
            let stage = ring.wrapping_add(cursor.0.index() as usize * TILE + tid as usize);
            for k in 0..ROWS {
                cursor.1 += unsafe { *stage.add(k * COLS) };
            }
            pipe.consumer_release(&cursor.0);
            cursor.0.advance();
            t += g;
        }
        unsafe { *out.add(b as usize * COLS + tid as usize) = cursor.1 };
    }
}

/// Two pipelines: one carries the first half of every tile (rows 0..4), the other the second
/// half. One producer thread feeds both; the consumers drain both.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pipe_two_rings_halves(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 2;
    const HALF: u32 = TILE_BYTES / 2;
    const BARS_TOP: u32 = 0;
    const BARS_BOTTOM: u32 = 64;
    const RING_TOP: u32 = 1024;
    const RING_BOTTOM: u32 = 2048;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let (top, bottom) = if tid == 0 {
        (Pipeline::<STAGES>::init(window + BARS_TOP, 32), Pipeline::<STAGES>::init(window + BARS_BOTTOM, 32))
    } else {
        (Pipeline::<STAGES>::attach(window + BARS_TOP), Pipeline::<STAGES>::attach(window + BARS_BOTTOM))
    };
    barrier();
    let n = tiles_of_block(tiles);
    if tid == 32 {
        let mut s_top = PipelineState::<STAGES>::producer_start();
        let mut s_bottom = PipelineState::<STAGES>::producer_start();
        for i in 0..n {
            let src = nth_tile(input, i);
            top.producer_acquire(&s_top);
            top.producer_expect_tx(&s_top, HALF);
            bulk_copy_global_to_shared(window + RING_TOP + s_top.index() * HALF, src, HALF, top.producer_barrier(&s_top));
            s_top.advance();
            bottom.producer_acquire(&s_bottom);
            bottom.producer_expect_tx(&s_bottom, HALF);
            bulk_copy_global_to_shared(
                window + RING_BOTTOM + s_bottom.index() * HALF,
                src.wrapping_add(HALF as usize),
                HALF,
                bottom.producer_barrier(&s_bottom),
            );
            s_bottom.advance();
        }
        top.producer_tail(s_top);
        bottom.producer_tail(s_bottom);
    } else if tid < 32 {
        let c = tid as usize;
        let base = dynamic_shared_base::<u8>();
        let ring_top = base.wrapping_add(RING_TOP as usize) as *const f32;
        let ring_bottom = base.wrapping_add(RING_BOTTOM as usize) as *const f32;
        let mut s_top = PipelineState::<STAGES>::new();
        let mut s_bottom = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in 0..n {
            top.consumer_wait(&s_top);
            let half = ring_top.wrapping_add(s_top.index() as usize * TILE / 2);
            for k in 0..ROWS / 2 {
                acc += unsafe { *half.add(k * COLS + c) };
            }
            top.consumer_release(&s_top);
            s_top.advance();
            bottom.consumer_wait(&s_bottom);
            let half = ring_bottom.wrapping_add(s_bottom.index() as usize * TILE / 2);
            for k in 0..ROWS / 2 {
                acc += unsafe { *half.add(k * COLS + c) };
            }
            bottom.consumer_release(&s_bottom);
            s_bottom.advance();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + c) = acc };
    }
}

/// All 64 threads consume (half a column each); thread 0 also produces, interleaved: it fills
/// the ring up front, then after consuming tile `i` refills its stage with tile `i + STAGES`.
/// It never runs ahead of what the ring holds, so its own waits only depend on the others.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pipe_interleaved_producer_consumer(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGES: u32 = 4;
    const BARRIERS: u32 = 4096;
    const SCRATCH: usize = 5120;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, 64)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let n = tiles_of_block(tiles);
    let (half, col) = ((tid / 32) as usize, (tid % 32) as usize);
    let ring = dynamic_shared_base::<f32>();
    let mut made = PipelineState::<STAGES>::producer_start();
    let mut issued = 0u32;
    if tid == 0 {
        while issued < n && issued < STAGES {
            pipe.producer_acquire(&made);
            pipe.producer_expect_tx(&made, TILE_BYTES);
            bulk_copy_global_to_shared(window + made.index() * TILE_BYTES, nth_tile(input, issued), TILE_BYTES, pipe.producer_barrier(&made));
            made.advance();
            issued += 1;
        }
    }
    let mut seen = PipelineState::<STAGES>::new();
    let mut acc = 0.0f32;
    for _ in 0..n {
        pipe.consumer_wait(&seen);
        let stage = ring.wrapping_add(seen.index() as usize * TILE);
        for k in half * 4..half * 4 + 4 {
            acc += unsafe { *stage.add(k * COLS + col) };
        }
        pipe.consumer_release(&seen);
        seen.advance();
        if tid == 0 && issued < n {
            pipe.producer_acquire(&made);
            pipe.producer_expect_tx(&made, TILE_BYTES);
            bulk_copy_global_to_shared(window + made.index() * TILE_BYTES, nth_tile(input, issued), TILE_BYTES, pipe.producer_barrier(&made));
            made.advance();
            issued += 1;
        }
    }
    if tid == 0 {
        pipe.producer_tail(made);
    }
    let scratch = dynamic_shared_base::<u8>().wrapping_add(SCRATCH) as *mut f32;
    unsafe { *scratch.add(tid as usize) = acc };
    barrier();
    if half == 0 {
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = acc + *scratch.add(COLS + col) };
    }
}

/// Roles as an enum, chosen once by a match on the thread index.
enum Role {
    Producer(PipelineState<4>),
    Consumer { state: PipelineState<4>, col: usize, total: f32 },
    Idle,
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pipe_role_enum(input: *const f32, tiles: u32, out: *mut f32) {
    const BARRIERS: u32 = 6144;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window + BARRIERS, 32) } else { Pipeline::<4>::attach(window + BARRIERS) };
    barrier();
    let n = tiles_of_block(tiles);
    let mut role = match tid {
        0..=31 => Role::Consumer { state: PipelineState::new(), col: tid as usize, total: 0.0 },
        32 => Role::Producer(PipelineState::producer_start()),
        _ => Role::Idle,
    };
    match &mut role {
        Role::Producer(state) => {
            for i in 0..n {
                pipe.producer_acquire(state);
                pipe.producer_expect_tx(state, TILE_BYTES);
                bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, nth_tile(input, i), TILE_BYTES, pipe.producer_barrier(state));
                state.advance();
            }
            pipe.producer_tail(*state);
        }
        Role::Consumer { state, col, total } => {
            let ring = dynamic_shared_base::<f32>();
            for _ in 0..n {
                pipe.consumer_wait(state);
                let stage = ring.wrapping_add(state.index() as usize * TILE + *col);
                for k in 0..ROWS {
                    *total += unsafe { *stage.add(k * COLS) };
                }
                pipe.consumer_release(state);
                state.advance();
            }
            unsafe { *out.add(block_idx_x() as usize * COLS + *col) = *total };
        }
        Role::Idle => {}
    }
}

/// The whole kernel is a helper generic over the number of stages; the ring takes `S` KiB and
/// the barriers follow it.
#[inline(always)]
unsafe fn ring_sum<const S: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<S>::init(bars, 32) } else { Pipeline::<S>::attach(bars) };
    barrier();
    let n = tiles_of_block(tiles);
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut i = 0;
        while i < n {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, nth_tile(input, i), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            i += 1;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<S>::default();
        let mut acc = 0.0f32;
        let mut i = 0;
        while i < n {
            pipe.consumer_wait(&state);
            let stage = ring.wrapping_add(state.index() as usize * TILE);
            acc += (0..ROWS).rev().map(|k| unsafe { *stage.add(k * COLS + tid as usize) }).sum::<f32>();
            pipe.consumer_release(&state);
            state.advance();
            i += 1;
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pipe_const_generic_five(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { ring_sum::<5>(input, tiles, out) };
}

/// Both roles behind one trait, each a struct with its own loop.
trait PipeRole {
    fn run(&mut self, pipe: &Pipeline<2>);
}

struct Loader {
    input: *const f32,
    ring: u32,
    count: u32,
}

struct Summer {
    ring: *const f32,
    col: usize,
    count: u32,
    total: f32,
}

impl PipeRole for Loader {
    fn run(&mut self, pipe: &Pipeline<2>) {
        let mut state = PipelineState::<2>::producer_start();
        for i in 0..self.count {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(self.ring + state.index() * TILE_BYTES, nth_tile(self.input, i), TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    }
}

impl PipeRole for Summer {
    fn run(&mut self, pipe: &Pipeline<2>) {
        let mut state = PipelineState::<2>::new();
        for _ in 0..self.count {
            pipe.consumer_wait(&state);
            let stage = self.ring.wrapping_add(state.index() as usize * TILE);
            for k in 0..ROWS {
                self.total += unsafe { *stage.add(k * COLS + self.col) };
            }
            pipe.consumer_release(&state);
            state.advance();
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r13_pipe_trait_roles(input: *const f32, tiles: u32, out: *mut f32) {
    const RING: u32 = 4096;
    const BARRIERS: u32 = 128;
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<2>::init(window + BARRIERS, 32) } else { Pipeline::<2>::attach(window + BARRIERS) };
    barrier();
    let count = tiles_of_block(tiles);
    if tid == 33 {
        let mut loader = Loader { input, ring: window + RING, count };
        loader.run(&pipe);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<u8>().wrapping_add(RING as usize) as *const f32;
        let mut summer = Summer { ring, col: tid as usize, count, total: 0.0 };
        summer.run(&pipe);
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = summer.total };
    }
}
