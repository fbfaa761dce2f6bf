//! Pipeline kernels whose threads pick a role through an enum and a `match`. Three stages of one
//! tile sit at window byte 0; the barriers follow the ring at byte 3072.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const STAGES: u32 = 3;
const TILE: u32 = 1024;
const TILE_F32: usize = 256;
const BARRIERS_AT: u32 = STAGES * TILE;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Producer,
    Consumer { lane: u32 },
    Idle,
}

fn role_of(tid: u32) -> Role {
    match tid {
        0 => Role::Producer,
        32..=63 => Role::Consumer { lane: tid - 32 },
        _ => Role::Idle,
    }
}

/// The pipeline every thread uses: thread 0 initialises it, the others attach; then a block
/// barrier.
#[inline(always)]
fn pipeline_for(tid: u32, consumers: u32) -> Pipeline<STAGES> {
    let bars = dynamic_shared_window_address() + BARRIERS_AT;
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(bars, consumers)
    } else {
        Pipeline::<STAGES>::attach(bars)
    };
    barrier();
    pipe
}

/// One tile into the stage `state` names.
#[inline(always)]
unsafe fn load_stage(pipe: &Pipeline<STAGES>, state: &mut PipelineState<STAGES>, src: *const f32) {
    pipe.producer_acquire(state);
    pipe.producer_expect_tx(state, TILE);
    let dst = dynamic_shared_window_address() + state.index() * TILE;
    bulk_copy_global_to_shared(dst, src.cast::<u8>(), TILE, pipe.producer_barrier(state));
    state.advance();
}

#[inline(always)]
unsafe fn stage_ptr(state: &PipelineState<STAGES>) -> *const f32 {
    unsafe { dynamic_shared_base::<f32>().add(state.index() as usize * TILE_F32) }
}

/// Enum roles; the producer's state from `producer_start`, the consumers' from `new`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_roles_enum_match(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let pipe = pipeline_for(tid, 32);
    let (first, step) = (block_idx_x(), grid_dim_x());
    match role_of(tid) {
        Role::Producer => {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut t = first;
            while t < tiles {
                unsafe { load_stage(&pipe, &mut state, input.add(t as usize * TILE_F32)) };
                t += step;
            }
            pipe.producer_tail(state);
        }
        Role::Consumer { lane } => {
            let lane = lane as usize;
            let mut state = PipelineState::<STAGES>::new();
            let mut sum = 0.0f32;
            let mut t = first;
            while t < tiles {
                pipe.consumer_wait(&state);
                let stage = unsafe { stage_ptr(&state) };
                for r in 0..8 {
                    sum += unsafe { *stage.add(r * 32 + lane) };
                }
                pipe.consumer_release(&state);
                state.advance();
                t += step;
            }
            unsafe { *out.add(first as usize * 32 + lane) = sum };
        }
        Role::Idle => {}
    }
}

fn role_of_pair(tid: u32) -> Role {
    match tid {
        0..=1 => Role::Producer,
        32..=63 => Role::Consumer { lane: tid - 32 },
        _ => Role::Idle,
    }
}

/// BROKEN: threads 0 and 1 both take the producer role: two arrivals and two copies per stage on
/// a full barrier that expects one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_roles_two_producer_lanes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let pipe = pipeline_for(tid, 32);
    let (first, step) = (block_idx_x(), grid_dim_x());
    match role_of_pair(tid) {
        Role::Producer => {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut t = first;
            while t < tiles {
                unsafe { load_stage(&pipe, &mut state, input.add(t as usize * TILE_F32)) };
                t += step;
            }
            pipe.producer_tail(state);
        }
        Role::Consumer { lane } => {
            let lane = lane as usize;
            let mut state = PipelineState::<STAGES>::new();
            let mut sum = 0.0f32;
            let mut t = first;
            while t < tiles {
                pipe.consumer_wait(&state);
                let stage = unsafe { stage_ptr(&state) };
                for r in 0..8 {
                    sum += unsafe { *stage.add(r * 32 + lane) };
                }
                pipe.consumer_release(&state);
                state.advance();
                t += step;
            }
            unsafe { *out.add(first as usize * 32 + lane) = sum };
        }
        Role::Idle => {}
    }
}

/// BROKEN: the consumers start from `producer_start` (parity 1), so their first waits return at
/// once on stages no copy has filled, and they stay a phase behind.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_roles_consumer_producer_parity(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let pipe = pipeline_for(tid, 32);
    let (first, step) = (block_idx_x(), grid_dim_x());
    match role_of(tid) {
        Role::Producer => {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut t = first;
            while t < tiles {
                unsafe { load_stage(&pipe, &mut state, input.add(t as usize * TILE_F32)) };
                t += step;
            }
            pipe.producer_tail(state);
        }
        Role::Consumer { lane } => {
            let lane = lane as usize;
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut sum = 0.0f32;
            let mut t = first;
            while t < tiles {
                pipe.consumer_wait(&state);
                let stage = unsafe { stage_ptr(&state) };
                for r in 0..8 {
                    sum += unsafe { *stage.add(r * 32 + lane) };
                }
                pipe.consumer_release(&state);
                state.advance();
                t += step;
            }
            unsafe { *out.add(first as usize * 32 + lane) = sum };
        }
        Role::Idle => {}
    }
}

/// BROKEN: the producer's state comes from `Default` (parity 0): its first acquire waits for a
/// release of a stage nobody has filled.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_roles_producer_default_state(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let pipe = pipeline_for(tid, 32);
    let (first, step) = (block_idx_x(), grid_dim_x());
    match role_of(tid) {
        Role::Producer => {
            let mut state: PipelineState<STAGES> = Default::default();
            let mut t = first;
            while t < tiles {
                unsafe { load_stage(&pipe, &mut state, input.add(t as usize * TILE_F32)) };
                t += step;
            }
            pipe.producer_tail(state);
        }
        Role::Consumer { lane } => {
            let lane = lane as usize;
            let mut state = PipelineState::<STAGES>::new();
            let mut sum = 0.0f32;
            let mut t = first;
            while t < tiles {
                pipe.consumer_wait(&state);
                let stage = unsafe { stage_ptr(&state) };
                for r in 0..8 {
                    sum += unsafe { *stage.add(r * 32 + lane) };
                }
                pipe.consumer_release(&state);
                state.advance();
                t += step;
            }
            unsafe { *out.add(first as usize * 32 + lane) = sum };
        }
        Role::Idle => {}
    }
}

/// BROKEN: the consumers' loop bound is inclusive; block 0 (whose tiles reach `tiles` exactly)
/// waits for one stage more than the producer fills.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_roles_consumer_inclusive_bound(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let pipe = pipeline_for(tid, 32);
    let (first, step) = (block_idx_x(), grid_dim_x());
    match role_of(tid) {
        Role::Producer => {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut t = first;
            while t < tiles {
                unsafe { load_stage(&pipe, &mut state, input.add(t as usize * TILE_F32)) };
                t += step;
            }
            pipe.producer_tail(state);
        }
        Role::Consumer { lane } => {
            let lane = lane as usize;
            let mut state = PipelineState::<STAGES>::new();
            let mut sum = 0.0f32;
            let mut t = first;
            while t <= tiles {
                pipe.consumer_wait(&state);
                let stage = unsafe { stage_ptr(&state) };
                for r in 0..8 {
                    sum += unsafe { *stage.add(r * 32 + lane) };
                }
                pipe.consumer_release(&state);
                state.advance();
                t += step;
            }
            unsafe { *out.add(first as usize * 32 + lane) = sum };
        }
        Role::Idle => {}
    }
}

/// Half a warp consumes: lanes 0..15 of warp 1, each owning columns `l` and `l + 16`; the
/// barriers count 16 releases.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_roles_sixteen_consumers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let pipe = pipeline_for(tid, 16);
    let (first, step) = (block_idx_x(), grid_dim_x());
    match tid {
        0 => {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut t = first;
            while t < tiles {
                unsafe { load_stage(&pipe, &mut state, input.add(t as usize * TILE_F32)) };
                t += step;
            }
            pipe.producer_tail(state);
        }
        32..=47 => {
            let lane = (tid - 32) as usize;
            let mut state = PipelineState::<STAGES>::new();
            let mut sums = [0.0f32; 2];
            let mut t = first;
            while t < tiles {
                pipe.consumer_wait(&state);
                let stage = unsafe { stage_ptr(&state) };
                for r in 0..8 {
                    sums[0] += unsafe { *stage.add(r * 32 + lane) };
                    sums[1] += unsafe { *stage.add(r * 32 + lane + 16) };
                }
                pipe.consumer_release(&state);
                state.advance();
                t += step;
            }
            let row = unsafe { out.add(first as usize * 32) };
            unsafe {
                *row.add(lane) = sums[0];
                *row.add(lane + 16) = sums[1];
            }
        }
        _ => {}
    }
}

/// BROKEN: as `r15_roles_sixteen_consumers`, but the empty barriers are initialised for 32
/// releases: a stage is free again only after two passes, which the producer never gets to.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_roles_sixteen_of_thirty_two(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let pipe = pipeline_for(tid, 32);
    let (first, step) = (block_idx_x(), grid_dim_x());
    match tid {
        0 => {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut t = first;
            while t < tiles {
                unsafe { load_stage(&pipe, &mut state, input.add(t as usize * TILE_F32)) };
                t += step;
            }
            pipe.producer_tail(state);
        }
        32..=47 => {
            let lane = (tid - 32) as usize;
            let mut state = PipelineState::<STAGES>::new();
            let mut sums = [0.0f32; 2];
            let mut t = first;
            while t < tiles {
                pipe.consumer_wait(&state);
                let stage = unsafe { stage_ptr(&state) };
                for r in 0..8 {
                    sums[0] += unsafe { *stage.add(r * 32 + lane) };
                    sums[1] += unsafe { *stage.add(r * 32 + lane + 16) };
                }
                pipe.consumer_release(&state);
                state.advance();
                t += step;
            }
            let row = unsafe { out.add(first as usize * 32) };
            unsafe {
                *row.add(lane) = sums[0];
                *row.add(lane + 16) = sums[1];
            }
        }
        _ => {}
    }
}

/// BROKEN: warp 0 consumes (barriers for 32 releases) and its thread 0 also produces, running its
/// whole producer loop first: after three tiles it waits for a release only it would make.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r15_roles_producer_runs_ahead(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let pipe = pipeline_for(tid, 32);
    let (first, step) = (block_idx_x(), grid_dim_x());
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = first;
        while t < tiles {
            unsafe { load_stage(&pipe, &mut state, input.add(t as usize * TILE_F32)) };
            t += step;
        }
        pipe.producer_tail(state);
    }
    if tid < 32 {
        let lane = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut t = first;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { stage_ptr(&state) };
            for r in 0..8 {
                sum += unsafe { *stage.add(r * 32 + lane) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        unsafe { *out.add(first as usize * 32 + lane) = sum };
    }
}
