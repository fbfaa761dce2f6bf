//! mbarrier pipeline, structured style: a ring struct with methods, `#[inline(never)]` and
//! const-generic helpers, closures around the consumer's wait/read/release, a trait for the tile
//! source, role predicates as functions.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x,
};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLS: usize = 32;
const BARRIERS: u32 = 0;
const RING: u32 = 1024;

/// A four-stage ring: its barriers, the window address and the generic base of the stages.
struct Ring {
    pipe: Pipeline<4>,
    window: u32,
    stages: *const f32,
}

impl Ring {
    /// Thread `owner` initialises the barriers, the others attach; the caller must pass a block
    /// barrier before using the ring.
    fn setup(tid: u32, owner: u32) -> Ring {
        let window = dynamic_shared_window_address();
        let pipe = if tid == owner {
            Pipeline::<4>::init(window + BARRIERS, 32)
        } else {
            Pipeline::<4>::attach(window + BARRIERS)
        };
        let stages = unsafe { dynamic_shared_base::<u8>().add(RING as usize) }.cast::<f32>().cast_const();
        Ring { pipe, window, stages }
    }

    /// Producer: fills the stage `state` points at with tile `src`.
    fn fill(&self, state: &PipelineState<4>, src: *const f32) {
        self.pipe.producer_acquire(state);
        self.pipe.producer_expect_tx(state, TILE_BYTES);
        bulk_copy_global_to_shared(
            self.window + RING + state.index() * TILE_BYTES,
            src.cast::<u8>(),
            TILE_BYTES,
            self.pipe.producer_barrier(state),
        );
    }

    /// Consumer: waits for the stage, sums column `col`, releases it.
    unsafe fn column(&self, state: &PipelineState<4>, col: usize) -> f32 {
        self.pipe.consumer_wait(state);
        let stage = unsafe { self.stages.add(state.index() as usize * TILE_FLOATS) };
        let mut sum = 0.0;
        for row in 0..8 {
            sum += unsafe { *stage.add(col + COLS * row) };
        }
        self.pipe.consumer_release(state);
        sum
    }
}

/// Correct: a `Ring` struct with `setup`, `fill` and `column` methods; the kernel keeps the
/// states and advances them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_struct_ring_methods(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ring = Ring::setup(tid, 0);
    barrier();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            ring.fill(&state, unsafe { input.add(t as usize * TILE_FLOATS) });
            state.advance();
            t += grid_dim_x();
        }
        ring.pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            acc += unsafe { ring.column(&state, tid as usize) };
            state.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Sum of column `col` of a stage, in a function of its own.
#[inline(never)]
unsafe fn column_sum(stage: *const f32, col: usize) -> f32 {
    let mut sum = 0.0;
    let mut row = 0;
    while row < 8 {
        sum += unsafe { *stage.add(col + COLS * row) };
        row += 1;
    }
    sum
}

/// Correct: the consumer hands the waited stage to a non-inlined `column_sum` before releasing it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_struct_noinline_column(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 32 {
        Pipeline::<4>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<4>::attach(window + BARRIERS)
    };
    barrier();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                unsafe { input.add(t as usize * TILE_FLOATS) } as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add(RING as usize / 4 + state.index() as usize * TILE_FLOATS) };
            acc += unsafe { column_sum(stage, tid as usize) };
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Correct: the consumer's wait, read and release live in a closure taking the state by
/// reference; the loop advances the state after each call.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_closure_consumer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<4>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<4>::attach(window + BARRIERS)
    };
    barrier();
    let smem = dynamic_shared_base::<f32>();
    if tid < 32 {
        let col = tid as usize;
        let take = |state: &PipelineState<4>| -> f32 {
            pipe.consumer_wait(state);
            let stage = unsafe { smem.add(RING as usize / 4 + state.index() as usize * TILE_FLOATS) };
            let sum = (0..8).map(|row| unsafe { *stage.add(col + COLS * row) }).sum::<f32>();
            pipe.consumer_release(state);
            sum
        };
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            acc += take(&state);
            state.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + col) = acc };
    } else if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                unsafe { input.add(t as usize * TILE_FLOATS) } as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    }
}

/// The whole kernel for `S` stages: barriers at byte 0 (`16 * S` bytes), ring at byte 1024.
#[inline(always)]
unsafe fn run_stages<const S: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<S>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<S>::attach(window + BARRIERS)
    };
    barrier();
    if tid == 32 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                unsafe { input.add(t as usize * TILE_FLOATS) } as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add(RING as usize / 4 + state.index() as usize * TILE_FLOATS) };
            for row in 0..8 {
                acc += unsafe { *stage.add(tid as usize + COLS * row) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Correct: the const-generic `run_stages::<3>` (barriers 48 bytes at 0, ring 1024..4096).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_generic_three_stages(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { run_stages::<3>(input, tiles, out) };
}

/// Correct: the const-generic `run_stages::<7>` (barriers 112 bytes at 0, ring 1024..8192, the
/// window's last byte exactly).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_generic_seven_stages(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { run_stages::<7>(input, tiles, out) };
}

/// Where tiles come from and how many bytes each one is.
trait TileSource {
    const BYTES: u32;
    fn tile(&self, t: u32) -> *const u8;
}

struct Rows {
    base: *const f32,
}

impl TileSource for Rows {
    const BYTES: u32 = TILE_BYTES;
    fn tile(&self, t: u32) -> *const u8 {
        self.base.wrapping_add(t as usize * TILE_FLOATS).cast()
    }
}

/// Correct: the producer takes its source pointers and byte count from a `TileSource` trait
/// implementation; the consumer is written out.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_trait_tile_source(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<4>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<4>::attach(window + BARRIERS)
    };
    barrier();
    let source = Rows { base: input };
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, Rows::BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * Rows::BYTES,
                source.tile(t),
                Rows::BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add(RING as usize / 4 + state.index() as usize * TILE_FLOATS) };
            for row in 0..8 {
                acc += unsafe { *stage.add(tid as usize + COLS * row) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// A reader whose method releases the stage as soon as it has waited ("so that the producer can
/// start the next copy early") and then sums it.
struct EagerReader {
    pipe: Pipeline<4>,
    stages: *const f32,
}

impl EagerReader {
    unsafe fn take(&self, state: &PipelineState<4>, col: usize) -> f32 {
        self.pipe.consumer_wait(state);
        self.pipe.consumer_release(state);
        let stage = unsafe { self.stages.add(state.index() as usize * TILE_FLOATS) };
        (0..8).map(|row| unsafe { *stage.add(col + COLS * row) }).sum()
    }
}

/// Broken: `EagerReader::take` releases the stage before reading it, so the producer may refill
/// it (the next lap's copy) while the consumers still sum it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_struct_release_in_reader(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<4>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<4>::attach(window + BARRIERS)
    };
    barrier();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                unsafe { input.add(t as usize * TILE_FLOATS) } as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let reader =
            EagerReader { pipe, stages: unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) } };
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            acc += unsafe { reader.take(&state, tid as usize) };
            state.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Broken: the producer copies into `(index + 1) % 4`, "the stage after the one just acquired",
/// so each tile lands in a stage the consumers are not waiting on (or are still reading) while
/// the stage they read keeps old or uninitialised data.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_struct_next_stage_copy(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ring = Ring::setup(tid, 0);
    barrier();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            ring.pipe.producer_acquire(&state);
            ring.pipe.producer_expect_tx(&state, TILE_BYTES);
            let next = (state.index() + 1) % 4;
            bulk_copy_global_to_shared(
                ring.window + RING + next * TILE_BYTES,
                unsafe { input.add(t as usize * TILE_FLOATS) }.cast::<u8>(),
                TILE_BYTES,
                ring.pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid_dim_x();
        }
        ring.pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            acc += unsafe { ring.column(&state, tid as usize) };
            state.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Consumes "the next tile" with a state made on the spot.
#[inline(always)]
unsafe fn consume_next(pipe: &Pipeline<4>, stages: *const f32, col: usize) -> f32 {
    let state = PipelineState::<4>::new();
    pipe.consumer_wait(&state);
    let stage = unsafe { stages.add(state.index() as usize * TILE_FLOATS) };
    let sum = (0..8).map(|row| unsafe { *stage.add(col + COLS * row) }).sum();
    pipe.consumer_release(&state);
    sum
}

/// Broken: the consumer helper makes a fresh `PipelineState::new()` on every call, so every
/// tile waits on stage 0, phase 0 (complete after the first tile: stale reads) and only stage 0
/// is ever released; the producer hangs acquiring stage 1 for the fifth tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_struct_fresh_state(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<4>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<4>::attach(window + BARRIERS)
    };
    barrier();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                unsafe { input.add(t as usize * TILE_FLOATS) } as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let stages = unsafe { dynamic_shared_base::<f32>().add(RING as usize / 4) };
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            acc += unsafe { consume_next(&pipe, stages, tid as usize) };
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Broken: the producer's loop is `while t + grid < tiles` ("the last tile is the tail's"), one
/// tile short of the consumers' loop: the consumers wait forever on the eighth tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_struct_prefetch_count(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ring = Ring::setup(tid, 0);
    barrier();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t + grid < tiles {
            ring.fill(&state, unsafe { input.add(t as usize * TILE_FLOATS) });
            state.advance();
            t += grid;
        }
        ring.pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            acc += unsafe { ring.column(&state, tid as usize) };
            state.advance();
            t += grid;
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// "The first thread of each half-warp of warp 1 produces."
#[inline(always)]
fn is_producer(tid: u32) -> bool {
    tid >= 32 && tid % 16 == 0
}

/// Broken: `is_producer` picks threads 32 and 48, two producers on one ring: each arrives with
/// `expect_tx` on a full barrier that expects one arrival and copies every tile again.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_struct_two_producers(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<4>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<4>::attach(window + BARRIERS)
    };
    barrier();
    if is_producer(tid) {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                unsafe { input.add(t as usize * TILE_FLOATS) } as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add(RING as usize / 4 + state.index() as usize * TILE_FLOATS) };
            for row in 0..8 {
                acc += unsafe { *stage.add(tid as usize + COLS * row) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Moves a state to its next stage (or so its author believed: it takes the state by value).
#[inline(always)]
fn step(mut state: PipelineState<4>) {
    state.advance();
}

/// Broken: the consumer "advances" through `step(state)`, which advances a copy; the consumer
/// stays on stage 0, phase 0, reads stale data, releases only stage 0, and the producer hangs
/// acquiring stage 1 for the fifth tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r11_pipe_struct_advance_by_value(
    input: *const f32,
    tiles: u32,
    out: *mut f32,
) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let ring = Ring::setup(tid, 0);
    barrier();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            ring.fill(&state, unsafe { input.add(t as usize * TILE_FLOATS) });
            state.advance();
            t += grid_dim_x();
        }
        ring.pipe.producer_tail(state);
    } else if tid < 32 {
        let state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            acc += unsafe { ring.column(&state, tid as usize) };
            step(state);
            t += grid_dim_x();
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}
