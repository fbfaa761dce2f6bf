//! Pipeline kernels with roles and steps as enums: role dispatch, small state machines, Option.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{bulk_copy_global_to_shared, Pipeline, PipelineState};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const BYTES: u32 = 1024;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Producer,
    Consumer(u32),
    Idle,
}

fn role_of(tid: u32) -> Role {
    match tid {
        0..=31 => Role::Consumer(tid),
        32 => Role::Producer,
        _ => Role::Idle,
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_enum_role_match(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * BYTES;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    match role_of(tid) {
        Role::Producer => {
            let mut st = PipelineState::<4>::producer_start();
            let mut t = block_idx_x();
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, BYTES);
                bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * TILE) as *const u8, BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += grid_dim_x();
            }
            pipe.producer_tail(st);
        }
        Role::Consumer(col) => {
            let mut st = PipelineState::<4>::new();
            let mut acc = 0.0f32;
            let mut t = block_idx_x();
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = smem.add(st.index() as usize * TILE);
                for r in 0..8 {
                    acc += *stage.add(r * 32 + col as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += grid_dim_x();
            }
            *out.add((block_idx_x() * 32 + col) as usize) = acc;
        }
        Role::Idle => {}
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_enum_match_tid_ranges(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 5 * BYTES;
    if tid == 0 {
        Pipeline::<5>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<5>::attach(bars);
    match tid {
        32..=63 => {
            let col = tid - 32;
            let mut st = PipelineState::<5>::new();
            let mut acc = 0.0f32;
            let mut t = block_idx_x();
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = smem.add(st.index() as usize * TILE);
                for r in 0..8 {
                    acc += *stage.add(r * 32 + col as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += grid_dim_x();
            }
            *out.add((block_idx_x() * 32 + col) as usize) = acc;
        }
        5 => {
            let mut st = PipelineState::<5>::producer_start();
            let mut t = block_idx_x();
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, BYTES);
                bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * TILE) as *const u8, BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += grid_dim_x();
            }
            pipe.producer_tail(st);
        }
        _ => {}
    }
}

enum Step {
    Acquire,
    Expect,
    Copy,
    Advance,
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_enum_producer_step_machine(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * BYTES;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            let mut step = Step::Acquire;
            loop {
                step = match step {
                    Step::Acquire => {
                        pipe.producer_acquire(&st);
                        Step::Expect
                    }
                    Step::Expect => {
                        pipe.producer_expect_tx(&st, BYTES);
                        Step::Copy
                    }
                    Step::Copy => {
                        bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * TILE) as *const u8, BYTES, pipe.producer_barrier(&st));
                        Step::Advance
                    }
                    Step::Advance => {
                        st.advance();
                        break;
                    }
                };
            }
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_enum_option_next_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * BYTES;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let g = grid_dim_x();
    let next = |t: u32| if t + g < tiles { Some(t + g) } else { None };
    let first = if block_idx_x() < tiles { Some(block_idx_x()) } else { None };
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut cur = first;
        while let Some(t) = cur {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, BYTES);
            bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * TILE) as *const u8, BYTES, pipe.producer_barrier(&st));
            st.advance();
            cur = next(t);
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut cur = first;
        while let Some(t) = cur {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            cur = next(t);
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[derive(Clone, Copy)]
enum Layout {
    RingFirst,
    BarriersFirst,
}

impl Layout {
    fn bars(self) -> u32 {
        match self {
            Layout::RingFirst => 4 * BYTES,
            Layout::BarriersFirst => 0,
        }
    }
    fn ring(self) -> u32 {
        match self {
            Layout::RingFirst => 0,
            Layout::BarriersFirst => 256,
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_enum_layout_variant(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let layout = Layout::BarriersFirst;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<u8>().add(layout.ring() as usize) as *const f32;
    if tid == 0 {
        Pipeline::<4>::init(window + layout.bars(), 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + layout.bars());
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, BYTES);
            bulk_copy_global_to_shared(window + layout.ring() + st.index() * BYTES, input.add(t as usize * TILE) as *const u8, BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
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
}

// ---- broken ----

fn role_of_wide(tid: u32) -> Role {
    match tid {
        0..=32 => Role::Consumer(tid),
        33 => Role::Producer,
        _ => Role::Idle,
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_enum_bad_consumer_range_inclusive(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * BYTES;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    match role_of_wide(tid) {
        Role::Producer => {
            let mut st = PipelineState::<4>::producer_start();
            let mut t = block_idx_x();
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, BYTES);
                bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * TILE) as *const u8, BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += grid_dim_x();
            }
            pipe.producer_tail(st);
        }
        Role::Consumer(col) => {
            let mut st = PipelineState::<4>::new();
            let mut acc = 0.0f32;
            let mut t = block_idx_x();
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = smem.add(st.index() as usize * TILE);
                for r in 0..8 {
                    acc += *stage.add(r * 32 + (col % 32) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += grid_dim_x();
            }
            if col < 32 {
                *out.add((block_idx_x() * 32 + col) as usize) = acc;
            }
        }
        Role::Idle => {}
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_enum_bad_machine_skips_expect(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * BYTES;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        let mut first = true;
        while t < tiles {
            // the first lap's stages are free: go straight to the copy
            let mut step = if first { Step::Copy } else { Step::Acquire };
            loop {
                step = match step {
                    Step::Acquire => {
                        pipe.producer_acquire(&st);
                        Step::Expect
                    }
                    Step::Expect => {
                        pipe.producer_expect_tx(&st, BYTES);
                        Step::Copy
                    }
                    Step::Copy => {
                        bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * TILE) as *const u8, BYTES, pipe.producer_barrier(&st));
                        Step::Advance
                    }
                    Step::Advance => {
                        st.advance();
                        break;
                    }
                };
            }
            if st.index() == 0 {
                first = false;
            }
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_enum_bad_option_consumer_stops_early(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4 * BYTES;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let g = grid_dim_x();
    let first = if block_idx_x() < tiles { Some(block_idx_x()) } else { None };
    if tid == 32 {
        let next = |t: u32| if t + g < tiles { Some(t + g) } else { None };
        let mut st = PipelineState::<4>::producer_start();
        let mut cur = first;
        while let Some(t) = cur {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, BYTES);
            bulk_copy_global_to_shared(window + st.index() * BYTES, input.add(t as usize * TILE) as *const u8, BYTES, pipe.producer_barrier(&st));
            st.advance();
            cur = next(t);
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let next = |t: u32| if t + 2 * g < tiles { Some(t + g) } else { None };
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut cur = first;
        while let Some(t) = cur {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            cur = next(t);
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r24_enum_bad_layout_variants_mixed(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    // the ring is read where RingFirst puts it, the barriers where BarriersFirst does
    let ring = dynamic_shared_base::<u8>().add(Layout::RingFirst.ring() as usize) as *const f32;
    let bars = window + Layout::BarriersFirst.bars();
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, BYTES);
            bulk_copy_global_to_shared(window + Layout::RingFirst.ring() + st.index() * BYTES, input.add(t as usize * TILE) as *const u8, BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
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
}
