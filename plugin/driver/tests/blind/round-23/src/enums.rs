//! Pipeline kernels with enums and `match`: role enums chosen from the thread index, states in
//! `Option`, consumer state machines, a tile iterator driven by `while let`.

use crate::device;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};

const TILE_BYTES: u32 = 1024;

#[derive(Clone, Copy, PartialEq)]
enum Role {
    Producer,
    Consumer(usize),
    Idle,
}

#[inline(always)]
fn role_of(tid: u32) -> Role {
    match tid {
        0 => Role::Producer,
        32..=63 => Role::Consumer(tid as usize - 32),
        _ => Role::Idle,
    }
}

/// Role enum from the thread index and a `match` on it; four stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_enum_role_match(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let role = role_of(device::thread_idx_x());
    let pipe = if role == Role::Producer { Pipeline::<4>::init(window + 4096, 32) } else { Pipeline::<4>::attach(window + 4096) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    match role {
        Role::Producer => {
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
        }
        Role::Consumer(c) => {
            let mut st = PipelineState::<4>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add(st.index() as usize * 256);
                for r in 0..8 {
                    acc += *stage.add(c + 32 * r);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add(b as usize * 32 + c) = acc;
        }
        Role::Idle => {}
    }
}

/// The producer state lives in an `Option`, used through `if let Some(st) = slot.as_mut()`; three stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_enum_option_producer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<3>::init(window + 3072, 32) } else { Pipeline::<3>::attach(window + 3072) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let mut slot: Option<PipelineState<3>> = if tid == 0 { Some(PipelineState::producer_start()) } else { None };
    if let Some(st) = slot.as_mut() {
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(st);
            pipe.producer_expect_tx(st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(*st);
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * 256);
            for r in 0..8 {
                acc += *stage.add(c + 32 * r);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

#[derive(Clone, Copy)]
enum Step {
    Wait,
    Read,
    Release,
    Next,
}

/// The consumer is a four-step state machine driven by `match`; five stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_enum_consumer_machine(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<5>::init(window + 5120, 32) } else { Pipeline::<5>::attach(window + 5120) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    if tid == 0 {
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
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<5>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        let mut step = Step::Wait;
        while t < tiles {
            step = match step {
                Step::Wait => {
                    pipe.consumer_wait(&st);
                    Step::Read
                }
                Step::Read => {
                    let stage = ring.add(st.index() as usize * 256);
                    for r in 0..8 {
                        acc += *stage.add(c + 32 * r);
                    }
                    Step::Release
                }
                Step::Release => {
                    pipe.consumer_release(&st);
                    Step::Next
                }
                Step::Next => {
                    st.advance();
                    t += g;
                    Step::Wait
                }
            };
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

struct Tiles {
    next: u32,
    end: u32,
    step: u32,
}

impl Iterator for Tiles {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        if self.next < self.end {
            let t = self.next;
            self.next += self.step;
            Some(t)
        } else {
            None
        }
    }
}

#[inline(always)]
fn my_tiles(tiles: u32) -> Tiles {
    Tiles { next: device::block_idx_x(), end: tiles, step: device::grid_dim_x() }
}

/// A hand-written tile iterator consumed with `while let`; six stages, producer thread 32.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_enum_while_let_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let pipe = if tid == 32 { Pipeline::<6>::init(window + 6144, 32) } else { Pipeline::<6>::attach(window + 6144) };
    device::barrier();
    if tid == 32 {
        let mut st = PipelineState::<6>::producer_start();
        let mut it = my_tiles(tiles);
        while let Some(t) = it.next() {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let c = tid as usize;
        let mut st = PipelineState::<6>::new();
        let mut acc = 0.0f32;
        let mut it = my_tiles(tiles);
        while let Some(_t) = it.next() {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * 256);
            for r in 0..8 {
                acc += *stage.add(c + 32 * r);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(device::block_idx_x() as usize * 32 + c) = acc;
    }
}

/// Roles by `match` on the warp and lane; two stages with the barriers between ring and slack.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_enum_warp_lane_match(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let (warp, lane) = (device::warp_id(), device::lane_id());
    let pipe = if warp == 1 && lane == 0 { Pipeline::<2>::init(window + 2048, 32) } else { Pipeline::<2>::attach(window + 2048) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    match (warp, lane) {
        (1, 0) => {
            let mut st = PipelineState::<2>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        }
        (0, c) => {
            let c = c as usize;
            let mut st = PipelineState::<2>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add(st.index() as usize * 256);
                for r in 0..8 {
                    acc += *stage.add(c + 32 * r);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add(b as usize * 32 + c) = acc;
        }
        _ => {}
    }
}

#[inline(always)]
fn role_of_exclusive(tid: u32) -> Role {
    match tid {
        0 => Role::Producer,
        32..63 => Role::Consumer(tid as usize - 32),
        _ => Role::Idle,
    }
}

/// Role enum from an exclusive range pattern; four stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_enum_bad_exclusive_range(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let role = role_of_exclusive(device::thread_idx_x());
    let pipe = if role == Role::Producer { Pipeline::<4>::init(window + 4096, 32) } else { Pipeline::<4>::attach(window + 4096) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    match role {
        Role::Producer => {
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
        }
        Role::Consumer(c) => {
            let mut st = PipelineState::<4>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add(st.index() as usize * 256);
                for r in 0..8 {
                    acc += *stage.add(c + 32 * r);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add(b as usize * 32 + c) = acc;
        }
        Role::Idle => {}
    }
}

/// Consumer state machine of five stages whose read step moves on to the advance.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_enum_bad_machine_no_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<5>::init(window + 5120, 32) } else { Pipeline::<5>::attach(window + 5120) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    if tid == 0 {
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
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<5>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        let mut step = Step::Wait;
        while t < tiles {
            step = match step {
                Step::Wait => {
                    pipe.consumer_wait(&st);
                    Step::Read
                }
                Step::Read => {
                    let stage = ring.add(st.index() as usize * 256);
                    for r in 0..8 {
                        acc += *stage.add(c + 32 * r);
                    }
                    Step::Next
                }
                Step::Release => {
                    pipe.consumer_release(&st);
                    Step::Next
                }
                Step::Next => {
                    st.advance();
                    t += g;
                    Step::Wait
                }
            };
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// The producer state in an `Option`, taken out with `if let Some(mut st) = slot` each tile; three stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_enum_bad_option_copied_out(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let tid = device::thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<3>::init(window + 3072, 32) } else { Pipeline::<3>::attach(window + 3072) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    let slot: Option<PipelineState<3>> = if tid == 0 { Some(PipelineState::producer_start()) } else { None };
    if tid == 0 {
        let mut t = b;
        while t < tiles {
            if let Some(mut st) = slot {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            }
            t += g;
        }
        if let Some(st) = slot {
            pipe.producer_tail(st);
        }
    } else if tid >= 32 {
        let c = tid as usize - 32;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * 256);
            for r in 0..8 {
                acc += *stage.add(c + 32 * r);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

struct Actor {
    role: Role,
    state: PipelineState<4>,
}

impl Actor {
    fn new(role: Role) -> Actor {
        Actor { role, state: PipelineState::producer_start() }
    }
}

/// An actor struct per thread holding its role and state; four stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r23_enum_bad_actor_shared_start(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = device::dynamic_shared_window_address();
    let ring = device::dynamic_shared_base::<f32>();
    let mut actor = Actor::new(role_of(device::thread_idx_x()));
    let pipe = if actor.role == Role::Producer { Pipeline::<4>::init(window + 4096, 32) } else { Pipeline::<4>::attach(window + 4096) };
    device::barrier();
    let (b, g) = (device::block_idx_x(), device::grid_dim_x());
    match actor.role {
        Role::Producer => {
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&actor.state);
                pipe.producer_expect_tx(&actor.state, TILE_BYTES);
                bulk_copy_global_to_shared(window + actor.state.index() * TILE_BYTES, input.add(t as usize * 256) as *const u8, TILE_BYTES, pipe.producer_barrier(&actor.state));
                actor.state.advance();
                t += g;
            }
            pipe.producer_tail(actor.state);
        }
        Role::Consumer(c) => {
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&actor.state);
                let stage = ring.add(actor.state.index() as usize * 256);
                for r in 0..8 {
                    acc += *stage.add(c + 32 * r);
                }
                pipe.consumer_release(&actor.state);
                actor.state.advance();
                t += g;
            }
            *out.add(b as usize * 32 + c) = acc;
        }
        Role::Idle => {}
    }
}
