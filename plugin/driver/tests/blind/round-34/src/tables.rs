//! Plans kept in small tables: per-stage slots as an array of structs or a struct of arrays,
//! per-row partial sums kept as an array, job lists handed out in chunks, and the thread roles
//! as a table of `{ first, count }` records.
//!
//! The ring sits at the start of the window, the barriers after it.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROW: usize = 32;
const ROWS: usize = 8;
const STAGES: u32 = 4;
const S: usize = STAGES as usize;

#[inline(always)]
fn owned(tiles: u32, b: u32, g: u32) -> u32 {
    if b < tiles { (tiles - b + g - 1) / g } else { 0 }
}

/// A thread role: threads `first..first + count`.
#[derive(Clone, Copy)]
struct RoleSpec {
    first: u32,
    count: u32,
}

impl RoleSpec {
    #[inline(always)]
    fn holds(&self, tid: u32) -> bool {
        tid >= self.first && tid < self.first + self.count
    }
}

const CONSUMER: usize = 0;
const PRODUCER: usize = 1;
/// The default roles: warp 0 sums, thread 32 copies.
const ROLES: [RoleSpec; 2] = [RoleSpec { first: 0, count: 32 }, RoleSpec { first: 32, count: 1 }];

/// One stage, as both sides see it.
#[derive(Clone, Copy)]
struct Slot {
    dst: u32,
    data: *const f32,
}

/// All stages, field by field.
struct SlotColumns {
    dst: [u32; S],
    data: [*const f32; S],
}

#[inline(always)]
fn open(roles: &[RoleSpec; 2], barriers_at: u32) -> Pipeline<STAGES> {
    let window = dynamic_shared_window_address();
    let pipe = if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(window + barriers_at, roles[CONSUMER].count)
    } else {
        Pipeline::<STAGES>::attach(window + barriers_at)
    };
    barrier();
    pipe
}

#[inline(always)]
fn slot_table() -> [Slot; S] {
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>() as *const f32;
    let mut slots = [Slot { dst: 0, data: base }; S];
    for (s, slot) in slots.iter_mut().enumerate() {
        *slot = Slot { dst: window + s as u32 * TILE_BYTES, data: base.wrapping_add(s * TILE) };
    }
    slots
}

#[inline(always)]
fn slot_columns() -> SlotColumns {
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>() as *const f32;
    let mut cols = SlotColumns { dst: [0; S], data: [base; S] };
    for s in 0..S {
        cols.dst[s] = window + (s as u32) * TILE_BYTES;
        cols.data[s] = base.wrapping_add(s * TILE);
    }
    cols
}

#[inline(always)]
fn produce_slots(pipe: &Pipeline<STAGES>, slots: &[Slot; S], input: *const f32, n: u32, b: u32, g: u32) {
    let mut state = PipelineState::<STAGES>::producer_start();
    for k in 0..n {
        let slot = slots[state.index() as usize];
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, TILE_BYTES);
        let src = input.wrapping_add(((b + k * g) as usize) * TILE);
        bulk_copy_global_to_shared(slot.dst, src as *const u8, TILE_BYTES, pipe.producer_barrier(&state));
        state.advance();
    }
    pipe.producer_tail(state);
}

#[inline(always)]
unsafe fn consume_slots(pipe: &Pipeline<STAGES>, slots: &[Slot; S], n: u32, c: usize) -> f32 {
    let mut state = PipelineState::<STAGES>::new();
    let mut acc = 0.0f32;
    for _ in 0..n {
        pipe.consumer_wait(&state);
        let stage = slots[state.index() as usize].data;
        for r in 0..ROWS {
            acc += *stage.add(r * ROW + c);
        }
        pipe.consumer_release(&state);
        state.advance();
    }
    acc
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_tables_slot_records(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = open(&ROLES, STAGES * TILE_BYTES);
    let slots = slot_table();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = owned(tiles, b, g);
    if ROLES[PRODUCER].holds(tid) {
        produce_slots(&pipe, &slots, input, n, b, g);
    } else if ROLES[CONSUMER].holds(tid) {
        let c = (tid - ROLES[CONSUMER].first) as usize;
        *out.add(b as usize * 32 + c) = consume_slots(&pipe, &slots, n, c);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_tables_slot_columns(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = open(&ROLES, STAGES * TILE_BYTES);
    let cols = slot_columns();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = owned(tiles, b, g);
    if ROLES[PRODUCER].holds(tid) {
        let mut state = PipelineState::<STAGES>::producer_start();
        for k in 0..n {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = input.add(((b + k * g) as usize) * TILE);
            bulk_copy_global_to_shared(
                cols.dst[state.index() as usize],
                src as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if ROLES[CONSUMER].holds(tid) {
        let c = tid as usize;
        // Partial sums by row, folded at the end.
        let mut by_row = [0.0f32; ROWS];
        let mut state = PipelineState::<STAGES>::new();
        for _ in 0..n {
            pipe.consumer_wait(&state);
            let stage = cols.data[state.index() as usize];
            for r in 0..ROWS {
                by_row[r] += *stage.add(r * ROW + c);
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        let mut acc = 0.0f32;
        for v in by_row {
            acc += v;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Jobs are handed out this many at a time.
const CHUNK: usize = 3;

/// The block's tiles `done..done + len` as a job list.
#[inline(always)]
fn job_chunk(done: u32, len: u32, b: u32, g: u32) -> [u32; CHUNK] {
    let mut jobs = [0u32; CHUNK];
    for j in 0..len as usize {
        jobs[j] = b + (done + j as u32) * g;
    }
    jobs
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_tables_job_chunks(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = open(&ROLES, STAGES * TILE_BYTES);
    let slots = slot_table();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = owned(tiles, b, g);
    if ROLES[PRODUCER].holds(tid) {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut done = 0;
        while done < n {
            let len = (n - done).min(CHUNK as u32);
            let jobs = job_chunk(done, len, b, g);
            for &t in jobs.iter().take(len as usize) {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                let src = input.add(t as usize * TILE);
                bulk_copy_global_to_shared(
                    slots[state.index() as usize].dst,
                    src as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
            }
            done += len;
        }
        pipe.producer_tail(state);
    } else if ROLES[CONSUMER].holds(tid) {
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut done = 0;
        while done < n {
            let len = (n - done).min(CHUNK as u32);
            for _ in 0..len {
                pipe.consumer_wait(&state);
                let stage = slots[state.index() as usize].data;
                for r in 0..ROWS {
                    acc += *stage.add(r * ROW + c);
                }
                pipe.consumer_release(&state);
                state.advance();
            }
            done += len;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Roles with the copier at the top of the block: warp 0 sums, thread 63 copies.
const HIGH_ROLES: [RoleSpec; 2] = [RoleSpec { first: 0, count: 32 }, RoleSpec { first: 63, count: 1 }];

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_tables_role_records(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = open(&HIGH_ROLES, STAGES * TILE_BYTES);
    let slots = slot_table();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = owned(tiles, b, g);
    if HIGH_ROLES[PRODUCER].holds(tid) {
        produce_slots(&pipe, &slots, input, n, b, g);
    } else if HIGH_ROLES[CONSUMER].holds(tid) {
        let c = (tid - HIGH_ROLES[CONSUMER].first) as usize;
        *out.add(b as usize * 32 + c) = consume_slots(&pipe, &slots, n, c);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_tables_bad_slot_stride(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = open(&ROLES, STAGES * TILE_BYTES);
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<u8>() as *const u8;
    let mut slots = [Slot { dst: 0, data: base as *const f32 }; S];
    for (s, slot) in slots.iter_mut().enumerate() {
        *slot = Slot { dst: window + s as u32 * TILE_BYTES, data: base.wrapping_add(s * TILE) as *const f32 };
    }
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = owned(tiles, b, g);
    if ROLES[PRODUCER].holds(tid) {
        produce_slots(&pipe, &slots, input, n, b, g);
    } else if ROLES[CONSUMER].holds(tid) {
        let c = tid as usize;
        *out.add(b as usize * 32 + c) = consume_slots(&pipe, &slots, n, c);
    }
}

/// Stages the slot columns are laid out for.
const LAID_OUT: u32 = 3;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_tables_bad_barrier_column(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = open(&ROLES, LAID_OUT * TILE_BYTES);
    let cols = slot_columns();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = owned(tiles, b, g);
    if ROLES[PRODUCER].holds(tid) {
        let mut state = PipelineState::<STAGES>::producer_start();
        for k in 0..n {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = input.add(((b + k * g) as usize) * TILE);
            bulk_copy_global_to_shared(
                cols.dst[state.index() as usize],
                src as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if ROLES[CONSUMER].holds(tid) {
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _ in 0..n {
            pipe.consumer_wait(&state);
            let stage = cols.data[state.index() as usize];
            for r in 0..ROWS {
                acc += *stage.add(r * ROW + c);
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_tables_bad_chunk_tail(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = open(&ROLES, STAGES * TILE_BYTES);
    let slots = slot_table();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = owned(tiles, b, g);
    if ROLES[PRODUCER].holds(tid) {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut done = 0;
        while done < n {
            let len = (n - done).min(CHUNK as u32);
            let jobs = job_chunk(done, len, b, g);
            for &t in jobs.iter().take(len as usize) {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                let src = input.add(t as usize * TILE);
                bulk_copy_global_to_shared(
                    slots[state.index() as usize].dst,
                    src as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
            }
            done += len;
        }
        pipe.producer_tail(state);
    } else if ROLES[CONSUMER].holds(tid) {
        let c = tid as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut done = 0;
        while done < n {
            let jobs = job_chunk(done, (n - done).min(CHUNK as u32), b, g);
            for _job in jobs {
                pipe.consumer_wait(&state);
                let stage = slots[state.index() as usize].data;
                for r in 0..ROWS {
                    acc += *stage.add(r * ROW + c);
                }
                pipe.consumer_release(&state);
                state.advance();
            }
            done += CHUNK as u32;
        }
        *out.add(b as usize * 32 + c) = acc;
    }
}

/// Roles by warp: warp 0 sums, warp 1 copies.
const WARP_ROLES: [RoleSpec; 2] = [RoleSpec { first: 0, count: 32 }, RoleSpec { first: 32, count: 32 }];

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r34_tables_bad_warp_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let pipe = open(&WARP_ROLES, STAGES * TILE_BYTES);
    let slots = slot_table();
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = owned(tiles, b, g);
    if WARP_ROLES[PRODUCER].holds(tid) {
        produce_slots(&pipe, &slots, input, n, b, g);
    } else if WARP_ROLES[CONSUMER].holds(tid) {
        let c = (tid - WARP_ROLES[CONSUMER].first) as usize;
        *out.add(b as usize * 32 + c) = consume_slots(&pipe, &slots, n, c);
    }
}
