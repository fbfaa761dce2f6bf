//! Compile-time tables and plans: row and stage offsets built by `const fn` loops into
//! constant arrays, layouts as associated constants of a plan type checked by `const`
//! assertions, reads written out by hand or gathered with `core::array::from_fn`.
//!
//! Pipeline kernels: barriers at window byte 0, a ring of 1 KiB stages at the plan's offset,
//! thread 0 produces, threads 32..63 consume (consumer `c = tid - 32` sums column `c`).

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const BLOCK_THREADS: u32 = 64;
const WINDOW_BYTES: u32 = 8192;
const TILE_BYTES: u32 = 1024;
const TILE_FLOATS: usize = 256;
const COLS: usize = 32;
const ROWS: usize = 8;
const CONSUMERS: u32 = 32;
const PRODUCERS: u32 = 1;

/// Offset of each row of a tile, in floats.
const fn row_offsets() -> [usize; ROWS] {
    let mut at = [0; ROWS];
    let mut r = 0;
    while r < ROWS {
        at[r] = r * COLS;
        r += 1;
    }
    at
}

/// Offset of each row of a tile, in floats, counting rows from one.
const fn row_offsets_counted() -> [usize; ROWS] {
    let mut at = [0; ROWS];
    let mut r = 1;
    while r <= ROWS {
        at[r - 1] = r * COLS;
        r += 1;
    }
    at
}

/// Window byte of each stage of a ring of `S` tiles starting at `ring`.
const fn stage_offsets<const S: usize>(ring: u32) -> [u32; S] {
    let mut at = [0; S];
    let mut s = 0;
    while s < S {
        at[s] = ring + s as u32 * TILE_BYTES;
        s += 1;
    }
    at
}

/// Window byte of each stage of a ring of `S` tiles, stage `s` being the `s + 1`-th tile.
const fn stage_offsets_numbered<const S: usize>(ring: u32) -> [u32; S] {
    let mut at = [0; S];
    let mut s = 0;
    while s < S {
        at[s] = ring + (s as u32 + 1) * TILE_BYTES;
        s += 1;
    }
    at
}

const fn align_up(bytes: u32, to: u32) -> u32 {
    bytes.div_ceil(to) * to
}

const ROW_AT: [usize; ROWS] = row_offsets();
const ROW_AT_COUNTED: [usize; ROWS] = row_offsets_counted();
const STAGE_AT: [u32; 4] = stage_offsets::<4>(1024);
const DEST_AT: [u32; 4] = stage_offsets_numbered::<4>(1024);

/// A pipeline's plan: stages, where the ring starts, and what each copy announces.
struct Plan;

impl Plan {
    const STAGES: u32 = 3;
    const BARRIER_BYTES: u32 = 16 * Self::STAGES;
    const RING: u32 = align_up(Self::BARRIER_BYTES, 128);
    const END: u32 = Self::RING + Self::STAGES * TILE_BYTES;
    const TX: u32 = TILE_BYTES;
}

const _: () = assert!(Plan::END <= WINDOW_BYTES);

/// A deeper plan for the same window.
struct DeepPlan;

impl DeepPlan {
    const STAGES: u32 = 8;
    const BARRIER_BYTES: u32 = 16 * Self::STAGES;
    const RING: u32 = align_up(Self::BARRIER_BYTES, 1024);
}

/// A four-stage plan at byte 1024.
struct WidePlan;

impl WidePlan {
    const STAGES: u32 = 4;
    const RING: u32 = 1024;
}

/// Four stages at byte 1024; consumers read their column through a constant row table.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_cst_row_table(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + 1024 + st.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE_FLOATS).cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(1024 / 4);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *stage.add(ROW_AT[r] + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * COLS + c) = acc;
    }
}

/// Four stages at byte 1024; the column is gathered into an array with `array::from_fn`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_cst_from_fn_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + 1024 + st.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE_FLOATS).cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(1024 / 4) as *const f32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            let column: [f32; ROWS] = core::array::from_fn(|r| unsafe { *stage.add(r * COLS + c) });
            pipe.consumer_release(&st);
            for v in column {
                acc += v;
            }
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * COLS + c) = acc;
    }
}

/// Two stages at byte 128; the eight reads of a column are written out by hand.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_cst_unrolled_by_hand(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    const RING: u32 = 128;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<2>::init(window, CONSUMERS) } else { Pipeline::<2>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<2>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + RING + st.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE_FLOATS).cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(RING as usize / 4);
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let s = ring.add(st.index() as usize * TILE_FLOATS + c);
            acc += *s;
            acc += *s.add(32);
            acc += *s.add(64);
            acc += *s.add(96);
            acc += *s.add(128);
            acc += *s.add(160);
            acc += *s.add(192);
            acc += *s.add(224);
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * COLS + c) = acc;
    }
}

/// Four stages; both roles find their stage's window byte in a constant table of offsets.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_cst_stage_table(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + STAGE_AT[st.index() as usize];
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE_FLOATS).cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let base = dynamic_shared_base::<u8>();
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = base.add(STAGE_AT[st.index() as usize] as usize) as *const f32;
            for r in 0..ROWS {
                acc += *stage.add(r * COLS + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * COLS + c) = acc;
    }
}

/// Three stages laid out by `Plan`'s associated constants (checked against the window at
/// compile time); the stage count is the plan's in both roles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_cst_assoc_plan(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<{ Plan::STAGES }>::init(window, CONSUMERS)
    } else {
        Pipeline::<{ Plan::STAGES }>::attach(window)
    };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<{ Plan::STAGES }>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, Plan::TX);
            let dst = window + Plan::RING + st.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE_FLOATS).cast::<u8>(), Plan::TX, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(Plan::RING as usize / 4);
        let mut st = PipelineState::<{ Plan::STAGES }>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *stage.add(r * COLS + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * COLS + c) = acc;
    }
}

/// Four stages at byte 1024; both roles run the block's tile count, computed once, as a
/// `for` over a range.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_cst_counted_range(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = if b < tiles { (tiles - b).div_ceil(g) } else { 0 };
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        for k in 0..mine {
            let t = b + k * g;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + 1024 + st.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE_FLOATS).cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(1024 / 4);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        for _ in 0..mine {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *stage.add(ROW_AT[r] + c);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(b as usize * COLS + c) = acc;
    }
}

/// Four stages at byte 1024; consumers read their column through the row table counted
/// from one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_cst_bad_row_table_counted(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + 1024 + st.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE_FLOATS).cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(1024 / 4);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *stage.add(ROW_AT_COUNTED[r] + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * COLS + c) = acc;
    }
}

/// Four stages at byte 1024; the producer takes its destination from the table of stages
/// numbered from one, the consumers compute theirs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_cst_bad_dest_table_numbered(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + DEST_AT[st.index() as usize];
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE_FLOATS).cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(1024 / 4);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *stage.add(r * COLS + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * COLS + c) = acc;
    }
}

/// `WidePlan`'s four stages set up by thread 0; the consumers attach again with a literal
/// stage count.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_cst_bad_attach_depth(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<{ WidePlan::STAGES }>::init(window, CONSUMERS)
    } else {
        Pipeline::<{ WidePlan::STAGES }>::attach(window)
    };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<{ WidePlan::STAGES }>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + WidePlan::RING + st.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE_FLOATS).cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let pipe = Pipeline::<3>::attach(window);
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(WidePlan::RING as usize / 4);
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *stage.add(r * COLS + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * COLS + c) = acc;
    }
}

/// Four stages at byte 1024; the release count is every thread of the block but the producer.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_cst_bad_consumer_const(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    const RELEASERS: u32 = BLOCK_THREADS - PRODUCERS;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, RELEASERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + 1024 + st.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE_FLOATS).cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(1024 / 4);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *stage.add(r * COLS + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * COLS + c) = acc;
    }
}

/// Four stages at byte 1024; the consumers' range over the block's tiles is inclusive.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_cst_bad_inclusive_count(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = if b < tiles { (tiles - b).div_ceil(g) } else { 0 };
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 { Pipeline::<4>::init(window, CONSUMERS) } else { Pipeline::<4>::attach(window) };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        for k in 0..mine {
            let t = b + k * g;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + 1024 + st.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE_FLOATS).cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(1024 / 4);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        for _ in 0..=mine {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *stage.add(ROW_AT[r] + c);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(b as usize * COLS + c) = acc;
    }
}

/// Eight stages laid out by `DeepPlan` after its barriers, rounded up to a KiB.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r32_cst_bad_deep_plan(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(WINDOW_BYTES);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = if tid == 0 {
        Pipeline::<{ DeepPlan::STAGES }>::init(window, CONSUMERS)
    } else {
        Pipeline::<{ DeepPlan::STAGES }>::attach(window)
    };
    barrier();
    if tid == 0 {
        let mut st = PipelineState::<{ DeepPlan::STAGES }>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let dst = window + DeepPlan::RING + st.index() * TILE_BYTES;
            bulk_copy_global_to_shared(dst, input.add(t as usize * TILE_FLOATS).cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(DeepPlan::RING as usize / 4);
        let mut st = PipelineState::<{ DeepPlan::STAGES }>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                acc += *stage.add(r * COLS + c);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        *out.add(block_idx_x() as usize * COLS + c) = acc;
    }
}
