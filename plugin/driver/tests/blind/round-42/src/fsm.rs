//! Style `fsm`: each thread runs an explicit state machine, an enum state driven by
//! `loop { match step { … } }`. The producer's machine walks acquire → announce → copy →
//! advance per tile and then drains; the consumers' machine walks wait → sum → release →
//! advance and then stores its column. Setup (init and the block barrier) runs before the
//! machines, in straight-line code every thread executes.
//!
//! Layout: the ring of four 1 KiB stages from window byte 0, the barriers after it at 4096.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const BLOCK: u32 = 64;
const SHARED: u32 = 8192;
const STAGES: u32 = 4;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;
const COLS: usize = 32;
const RING: u32 = 0;
const BARS: u32 = RING + STAGES * TILE_BYTES;
const CONSUMERS: u32 = 32;
const PRODUCER: u32 = 0;
const FIRST_CONSUMER: u32 = 32;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Produce {
    Acquire,
    Announce,
    Copy,
    Advance,
    Idle,
    Drain,
    Done,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Consume {
    Start,
    Wait,
    Sum,
    Release,
    Advance,
    Store,
    Done,
}

/// Declares the launch, initialises the pipeline in thread `PRODUCER`, and publishes it.
#[inline(always)]
fn setup(window: u32) -> Pipeline<STAGES> {
    block_threads(BLOCK);
    dynamic_shared_bytes(SHARED);
    if thread_idx_x() == PRODUCER {
        Pipeline::<STAGES>::init(window + BARS, CONSUMERS);
    }
    barrier();
    Pipeline::<STAGES>::attach(window + BARS)
}

#[inline(always)]
unsafe fn column(stage: *const f32, col: usize) -> f32 {
    let mut sum = 0.0f32;
    for row in 0..ROWS {
        sum += *stage.add(row * COLS + col);
    }
    sum
}

/// The producer's machine, in its correct form.
#[inline(always)]
unsafe fn producer_machine(pipe: &Pipeline<STAGES>, window: u32, input: *const f32, tiles: u32) {
    let stride = grid_dim_x();
    let mut tile = block_idx_x();
    let mut state = PipelineState::<STAGES>::producer_start();
    let mut step = if tile < tiles { Produce::Acquire } else { Produce::Drain };
    loop {
        match step {
            Produce::Acquire => {
                pipe.producer_acquire(&state);
                step = Produce::Announce;
            }
            Produce::Announce => {
                pipe.producer_expect_tx(&state, TILE_BYTES);
                step = Produce::Copy;
            }
            Produce::Copy => {
                let src = input.add(tile as usize * TILE_FLOATS) as *const u8;
                let dst = window + RING + state.index() * TILE_BYTES;
                bulk_copy_global_to_shared(dst, src, TILE_BYTES, pipe.producer_barrier(&state));
                step = Produce::Advance;
            }
            Produce::Advance => {
                state.advance();
                tile += stride;
                step = if tile < tiles { Produce::Acquire } else { Produce::Drain };
            }
            Produce::Idle => {
                step = if tile < tiles { Produce::Acquire } else { Produce::Drain };
            }
            Produce::Drain => {
                pipe.producer_tail(state);
                step = Produce::Done;
            }
            Produce::Done => break,
        }
    }
}

/// The consumers' machine, in its correct form: column `col` of every tile of this block.
#[inline(always)]
unsafe fn consumer_machine(pipe: &Pipeline<STAGES>, tiles: u32, out: *mut f32, col: usize) {
    let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
    let stride = grid_dim_x();
    let first = block_idx_x();
    let mut tile = first;
    let mut state = PipelineState::<STAGES>::new();
    let mut total = 0.0f32;
    let mut step = if tile < tiles { Consume::Wait } else { Consume::Store };
    loop {
        match step {
            Consume::Start | Consume::Wait => {
                pipe.consumer_wait(&state);
                step = Consume::Sum;
            }
            Consume::Sum => {
                total += column(ring.add(state.index() as usize * TILE_FLOATS), col);
                step = Consume::Release;
            }
            Consume::Release => {
                pipe.consumer_release(&state);
                step = Consume::Advance;
            }
            Consume::Advance => {
                state.advance();
                tile += stride;
                step = if tile < tiles { Consume::Wait } else { Consume::Store };
            }
            Consume::Store => {
                *out.add(first as usize * COLS + col) = total;
                step = Consume::Done;
            }
            Consume::Done => break,
        }
    }
}

/// Producer and consumers each run their own machine (`Produce`, `Consume`).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_fsm_split_roles(input: *const f32, tiles: u32, out: *mut f32) {
    let window = dynamic_shared_window_address();
    let pipe = setup(window);
    let tid = thread_idx_x();
    if tid == PRODUCER {
        producer_machine(&pipe, window, input, tiles);
    } else if tid >= FIRST_CONSUMER {
        consumer_machine(&pipe, tiles, out, (tid - FIRST_CONSUMER) as usize);
    }
}

/// One machine for every thread: the start step is chosen by the thread's role, and the arms of
/// both roles share one `match`; threads 1..31 start in `Exit`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_fsm_one_machine(input: *const f32, tiles: u32, out: *mut f32) {
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Step {
        Acquire,
        Announce,
        Copy,
        ProducerNext,
        Drain,
        Wait,
        Sum,
        Release,
        ConsumerNext,
        Store,
        Exit,
    }
    let window = dynamic_shared_window_address();
    let pipe = setup(window);
    let tid = thread_idx_x();
    let stride = grid_dim_x();
    let first = block_idx_x();
    let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
    let col = tid.wrapping_sub(FIRST_CONSUMER) as usize;
    let mut tile = first;
    let mut producer = PipelineState::<STAGES>::producer_start();
    let mut consumer = PipelineState::<STAGES>::new();
    let mut total = 0.0f32;
    let mut step = if tid == PRODUCER {
        if tile < tiles { Step::Acquire } else { Step::Drain }
    } else if tid >= FIRST_CONSUMER {
        if tile < tiles { Step::Wait } else { Step::Store }
    } else {
        Step::Exit
    };
    loop {
        match step {
            Step::Acquire => {
                pipe.producer_acquire(&producer);
                step = Step::Announce;
            }
            Step::Announce => {
                pipe.producer_expect_tx(&producer, TILE_BYTES);
                step = Step::Copy;
            }
            Step::Copy => {
                let src = input.add(tile as usize * TILE_FLOATS) as *const u8;
                let dst = window + RING + producer.index() * TILE_BYTES;
                bulk_copy_global_to_shared(dst, src, TILE_BYTES, pipe.producer_barrier(&producer));
                step = Step::ProducerNext;
            }
            Step::ProducerNext => {
                producer.advance();
                tile += stride;
                step = if tile < tiles { Step::Acquire } else { Step::Drain };
            }
            Step::Drain => {
                pipe.producer_tail(producer);
                step = Step::Exit;
            }
            Step::Wait => {
                pipe.consumer_wait(&consumer);
                step = Step::Sum;
            }
            Step::Sum => {
                total += column(ring.add(consumer.index() as usize * TILE_FLOATS), col);
                step = Step::Release;
            }
            Step::Release => {
                pipe.consumer_release(&consumer);
                step = Step::ConsumerNext;
            }
            Step::ConsumerNext => {
                consumer.advance();
                tile += stride;
                step = if tile < tiles { Step::Wait } else { Step::Store };
            }
            Step::Store => {
                *out.add(first as usize * COLS + col) = total;
                step = Step::Exit;
            }
            Step::Exit => break,
        }
    }
}

/// Plain shared memory as a machine every thread runs in lock step: stage a tile, barrier, warp 0
/// sums, barrier, next tile; the barriers sit in their own states, reached by every thread in
/// the same order.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_fsm_plain_phases(input: *const f32, tiles: u32, out: *mut f32) {
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Phase {
        Stage,
        Publish,
        Sum,
        Recycle,
        Next,
        Write,
        Exit,
    }
    block_threads(BLOCK);
    dynamic_shared_bytes(SHARED);
    let smem = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let stride = grid_dim_x();
    let first = block_idx_x();
    let mut tile = first;
    let mut total = 0.0f32;
    let mut phase = if tile < tiles { Phase::Stage } else { Phase::Write };
    loop {
        match phase {
            Phase::Stage => {
                let src = input.add(tile as usize * TILE_FLOATS);
                let mut i = tid;
                while i < TILE_FLOATS {
                    *smem.add(i) = *src.add(i);
                    i += BLOCK as usize;
                }
                phase = Phase::Publish;
            }
            Phase::Publish => {
                barrier();
                phase = Phase::Sum;
            }
            Phase::Sum => {
                if tid < COLS {
                    total += column(smem, tid);
                }
                phase = Phase::Recycle;
            }
            Phase::Recycle => {
                barrier();
                phase = Phase::Next;
            }
            Phase::Next => {
                tile += stride;
                phase = if tile < tiles { Phase::Stage } else { Phase::Write };
            }
            Phase::Write => {
                if tid < COLS {
                    *out.add(first as usize * COLS + tid) = total;
                }
                phase = Phase::Exit;
            }
            Phase::Exit => break,
        }
    }
}

/// Two stages; the consumers' machine sums a stage one row per step (`Row(r)` carries the row),
/// so a long tile could be interleaved with other work.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_fsm_row_states(input: *const f32, tiles: u32, out: *mut f32) {
    const TWO: u32 = 2;
    const BARS2: u32 = RING + TWO * TILE_BYTES;
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Step {
        Wait,
        Row(usize),
        Release,
        Next,
        Store,
        Done,
    }
    block_threads(BLOCK);
    dynamic_shared_bytes(SHARED);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == PRODUCER {
        Pipeline::<TWO>::init(window + BARS2, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<TWO>::attach(window + BARS2);
    let stride = grid_dim_x();
    let first = block_idx_x();
    if tid == PRODUCER {
        let mut state = PipelineState::<TWO>::producer_start();
        let mut tile = first;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = input.add(tile as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                src,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += stride;
        }
        pipe.producer_tail(state);
    } else if tid >= FIRST_CONSUMER {
        let col = (tid - FIRST_CONSUMER) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut state = PipelineState::<TWO>::new();
        let mut tile = first;
        let mut total = 0.0f32;
        let mut step = if tile < tiles { Step::Wait } else { Step::Store };
        loop {
            match step {
                Step::Wait => {
                    pipe.consumer_wait(&state);
                    step = Step::Row(0);
                }
                Step::Row(row) => {
                    total += *ring.add(state.index() as usize * TILE_FLOATS + row * COLS + col);
                    step = if row + 1 < ROWS { Step::Row(row + 1) } else { Step::Release };
                }
                Step::Release => {
                    pipe.consumer_release(&state);
                    step = Step::Next;
                }
                Step::Next => {
                    state.advance();
                    tile += stride;
                    step = if tile < tiles { Step::Wait } else { Step::Store };
                }
                Step::Store => {
                    *out.add(first as usize * COLS + col) = total;
                    step = Step::Done;
                }
                Step::Done => break,
            }
        }
    }
}

/// BROKEN: after summing the block's last tile the consumers' machine goes straight to `Store`
/// ("nobody refills the last stage, so it needs no release"): that stage is never released and
/// the producer's drain waits for it forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_fsm_bad_last_tile_unreleased(input: *const f32, tiles: u32, out: *mut f32) {
    let window = dynamic_shared_window_address();
    let pipe = setup(window);
    let tid = thread_idx_x();
    if tid == PRODUCER {
        producer_machine(&pipe, window, input, tiles);
    } else if tid >= FIRST_CONSUMER {
        let col = (tid - FIRST_CONSUMER) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let stride = grid_dim_x();
        let first = block_idx_x();
        let mut tile = first;
        let mut state = PipelineState::<STAGES>::new();
        let mut total = 0.0f32;
        let mut step = if tile < tiles { Consume::Wait } else { Consume::Store };
        loop {
            match step {
                Consume::Start | Consume::Wait => {
                    pipe.consumer_wait(&state);
                    step = Consume::Sum;
                }
                Consume::Sum => {
                    total += column(ring.add(state.index() as usize * TILE_FLOATS), col);
                    step = if tile + stride < tiles { Consume::Release } else { Consume::Store };
                }
                Consume::Release => {
                    pipe.consumer_release(&state);
                    step = Consume::Advance;
                }
                Consume::Advance => {
                    state.advance();
                    tile += stride;
                    step = Consume::Wait;
                }
                Consume::Store => {
                    *out.add(first as usize * COLS + col) = total;
                    step = Consume::Done;
                }
                Consume::Done => break,
            }
        }
    }
}

/// BROKEN: the producer's `Drain` returns to `Idle` ("look for more work") instead of `Done`;
/// `Idle` finds no tile left and drains again: the second `producer_tail` waits for releases of
/// a phase no consumer will ever make.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_fsm_bad_drain_twice(input: *const f32, tiles: u32, out: *mut f32) {
    let window = dynamic_shared_window_address();
    let pipe = setup(window);
    let tid = thread_idx_x();
    if tid == PRODUCER {
        let stride = grid_dim_x();
        let mut tile = block_idx_x();
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut step = Produce::Idle;
        loop {
            match step {
                Produce::Acquire => {
                    pipe.producer_acquire(&state);
                    step = Produce::Announce;
                }
                Produce::Announce => {
                    pipe.producer_expect_tx(&state, TILE_BYTES);
                    step = Produce::Copy;
                }
                Produce::Copy => {
                    let src = input.add(tile as usize * TILE_FLOATS) as *const u8;
                    let dst = window + RING + state.index() * TILE_BYTES;
                    bulk_copy_global_to_shared(dst, src, TILE_BYTES, pipe.producer_barrier(&state));
                    step = Produce::Advance;
                }
                Produce::Advance => {
                    state.advance();
                    tile += stride;
                    step = Produce::Idle;
                }
                Produce::Idle => {
                    step = if tile < tiles { Produce::Acquire } else { Produce::Drain };
                }
                Produce::Drain => {
                    pipe.producer_tail(state);
                    step = Produce::Idle;
                }
                Produce::Done => break,
            }
        }
    } else if tid >= FIRST_CONSUMER {
        consumer_machine(&pipe, tiles, out, (tid - FIRST_CONSUMER) as usize);
    }
}

/// BROKEN: the consumers' machine goes back to `Start`, which makes a fresh
/// `PipelineState::new()`, after every tile: every tile waits on stage 0 phase 0 (done long
/// ago), re-reads stage 0 and releases it; stages 1..3 are never released and the producer hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_fsm_bad_restart_state(input: *const f32, tiles: u32, out: *mut f32) {
    let window = dynamic_shared_window_address();
    let pipe = setup(window);
    let tid = thread_idx_x();
    if tid == PRODUCER {
        producer_machine(&pipe, window, input, tiles);
    } else if tid >= FIRST_CONSUMER {
        let col = (tid - FIRST_CONSUMER) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let stride = grid_dim_x();
        let first = block_idx_x();
        let mut tile = first;
        let mut state = PipelineState::<STAGES>::new();
        let mut total = 0.0f32;
        let mut step = if tile < tiles { Consume::Start } else { Consume::Store };
        loop {
            match step {
                Consume::Start => {
                    state = PipelineState::<STAGES>::new();
                    step = Consume::Wait;
                }
                Consume::Wait => {
                    pipe.consumer_wait(&state);
                    step = Consume::Sum;
                }
                Consume::Sum => {
                    total += column(ring.add(state.index() as usize * TILE_FLOATS), col);
                    step = Consume::Release;
                }
                Consume::Release => {
                    pipe.consumer_release(&state);
                    step = Consume::Advance;
                }
                Consume::Advance => {
                    state.advance();
                    tile += stride;
                    step = if tile < tiles { Consume::Start } else { Consume::Store };
                }
                Consume::Store => {
                    *out.add(first as usize * COLS + col) = total;
                    step = Consume::Done;
                }
                Consume::Done => break,
            }
        }
    }
}

/// BROKEN: the consumers' machine counts its turns down from `(tiles - first) / stride + 1`, a
/// ceiling written as "quotient plus one": exact for blocks 1..7 (8 tiles) but 9 for block 0,
/// whose ninth wait is on a stage the producer never fills.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r42_fsm_bad_extra_turn(input: *const f32, tiles: u32, out: *mut f32) {
    let window = dynamic_shared_window_address();
    let pipe = setup(window);
    let tid = thread_idx_x();
    if tid == PRODUCER {
        producer_machine(&pipe, window, input, tiles);
    } else if tid >= FIRST_CONSUMER {
        let col = (tid - FIRST_CONSUMER) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let stride = grid_dim_x();
        let first = block_idx_x();
        let mut left = if first < tiles { (tiles - first) / stride.max(1) + 1 } else { 0 };
        let mut state = PipelineState::<STAGES>::new();
        let mut total = 0.0f32;
        let mut step = if left > 0 { Consume::Wait } else { Consume::Store };
        loop {
            match step {
                Consume::Start | Consume::Wait => {
                    pipe.consumer_wait(&state);
                    step = Consume::Sum;
                }
                Consume::Sum => {
                    total += column(ring.add(state.index() as usize * TILE_FLOATS), col);
                    step = Consume::Release;
                }
                Consume::Release => {
                    pipe.consumer_release(&state);
                    step = Consume::Advance;
                }
                Consume::Advance => {
                    state.advance();
                    left -= 1;
                    step = if left > 0 { Consume::Wait } else { Consume::Store };
                }
                Consume::Store => {
                    *out.add(first as usize * COLS + col) = total;
                    step = Consume::Done;
                }
                Consume::Done => break,
            }
        }
    }
}
