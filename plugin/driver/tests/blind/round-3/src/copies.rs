//! How a stage gets filled: copy order, several copies per stage, byte counts, destinations.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::common::*;
use crate::device::launch::block_threads;
use crate::device::pipeline::*;
use crate::device::*;

const STAGES: u32 = 4;
const HALF_BYTES: u32 = TILE_BYTES / 2;

/// Ring behind the stages, initialised by thread 0 for one warp of consumers.
#[inline(always)]
unsafe fn open<const S: u32>(stage_bytes: u32) -> (u32, Pipeline<S>) {
    let window = dynamic_shared_window_address();
    let barriers = window + S * stage_bytes;
    if thread_idx_x() == 0 {
        Pipeline::<S>::init(barriers, CONSUMERS);
    }
    barrier();
    (window, Pipeline::<S>::attach(barriers))
}

/// The consumers of every kernel here but `half_tile_slots` and `tag_before_expect`.
#[inline(always)]
unsafe fn consume<const S: u32>(ring: &Pipeline<S>, tiles: u32, column: usize) -> f32 {
    let stages: *const f32 = dynamic_shared_base();
    let mut slot = PipelineState::<S>::new();
    let mut total = 0.0f32;
    let mut tile = block_idx_x();
    while tile < tiles {
        ring.consumer_wait(&slot);
        let stage = stages.add(slot.index() as usize * TILE_FLOATS);
        for row in 0..ROWS {
            total += *stage.add(row * COLUMNS as usize + column);
        }
        ring.consumer_release(&slot);
        slot.advance();
        tile += grid_dim_x();
    }
    total
}

/// Correct: the bulk copy is issued before the `expect_tx` that announces its bytes (the
/// transaction count goes negative until the arrival; the phase cannot complete before it).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn copy_then_expect(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open::<STAGES>(TILE_BYTES);
    if thread_idx_x() == 0 {
        let mut slot = PipelineState::<STAGES>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.producer_acquire(&slot);
            let full = ring.producer_barrier(&slot);
            bulk_copy_global_to_shared(window + slot.index() * TILE_BYTES, tile_source(input, tile), TILE_BYTES, full);
            ring.producer_expect_tx(&slot, TILE_BYTES);
            slot.advance();
            tile += grid_dim_x();
        }
        ring.producer_tail(slot);
    } else if warp_id() == 1 {
        let total = consume(&ring, tiles, lane_id() as usize);
        write_column(out, lane_id(), total);
    }
}

/// Correct: one `expect_tx` of the whole tile, then two copies of half a tile each.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn two_halves_one_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open::<STAGES>(TILE_BYTES);
    if thread_idx_x() == 0 {
        let mut slot = PipelineState::<STAGES>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.producer_acquire(&slot);
            ring.producer_expect_tx(&slot, TILE_BYTES);
            let destination = window + slot.index() * TILE_BYTES;
            let source = tile_source(input, tile);
            for half in 0..2u32 {
                bulk_copy_global_to_shared(
                    destination + half * HALF_BYTES,
                    source.add((half * HALF_BYTES) as usize),
                    HALF_BYTES,
                    ring.producer_barrier(&slot),
                );
            }
            slot.advance();
            tile += grid_dim_x();
        }
        ring.producer_tail(slot);
    } else if warp_id() == 1 {
        let total = consume(&ring, tiles, lane_id() as usize);
        write_column(out, lane_id(), total);
    }
}

/// Correct: four 256-byte copies per stage, issued last chunk first; the announcement is
/// `PARTS * CHUNK`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn four_chunks_reversed(input: *const f32, tiles: u32, out: *mut f32) {
    const PARTS: u32 = 4;
    const CHUNK: u32 = TILE_BYTES / PARTS;
    block_threads(BLOCK_THREADS);
    let (window, ring) = open::<STAGES>(TILE_BYTES);
    if thread_idx_x() == 0 {
        let mut slot = PipelineState::<STAGES>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.producer_acquire(&slot);
            ring.producer_expect_tx(&slot, PARTS * CHUNK);
            for part in (0..PARTS).rev() {
                bulk_copy_global_to_shared(
                    window + slot.index() * TILE_BYTES + part * CHUNK,
                    tile_source(input, tile).add((part * CHUNK) as usize),
                    CHUNK,
                    ring.producer_barrier(&slot),
                );
            }
            slot.advance();
            tile += grid_dim_x();
        }
        ring.producer_tail(slot);
    } else if warp_id() == 1 {
        let total = consume(&ring, tiles, lane_id() as usize);
        write_column(out, lane_id(), total);
    }
}

/// Correct: eight stages of half a tile; every tile takes two turns of the ring on both sides.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn half_tile_slots(input: *const f32, tiles: u32, out: *mut f32) {
    const SLOTS: u32 = 8;
    const SLOT_FLOATS: usize = TILE_FLOATS / 2;
    block_threads(BLOCK_THREADS);
    let (window, ring) = open::<SLOTS>(HALF_BYTES);
    if thread_idx_x() == 0 {
        let mut slot = PipelineState::<SLOTS>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            for half in 0..2u32 {
                ring.producer_acquire(&slot);
                ring.producer_expect_tx(&slot, HALF_BYTES);
                bulk_copy_global_to_shared(
                    window + slot.index() * HALF_BYTES,
                    tile_source(input, tile).add((half * HALF_BYTES) as usize),
                    HALF_BYTES,
                    ring.producer_barrier(&slot),
                );
                slot.advance();
            }
            tile += grid_dim_x();
        }
        ring.producer_tail(slot);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let slots: *const f32 = dynamic_shared_base();
        let mut slot = PipelineState::<SLOTS>::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            for _half in 0..2 {
                ring.consumer_wait(&slot);
                let rows = slots.add(slot.index() as usize * SLOT_FLOATS);
                for row in 0..ROWS / 2 {
                    total += *rows.add(row * COLUMNS as usize + column);
                }
                ring.consumer_release(&slot);
                slot.advance();
            }
            tile += grid_dim_x();
        }
        write_column(out, column as u32, total);
    }
}

/// Correct: the producer skips the acquire for the first lap (the stages start empty; the
/// acquire would return at once there).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn prologue_without_acquire(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open::<STAGES>(TILE_BYTES);
    if thread_idx_x() == 0 {
        let mut slot = PipelineState::<STAGES>::producer_start();
        let mut filled = 0u32;
        let mut tile = block_idx_x();
        while tile < tiles {
            if filled >= STAGES {
                ring.producer_acquire(&slot);
            }
            ring.producer_expect_tx(&slot, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + slot.index() * TILE_BYTES,
                tile_source(input, tile),
                TILE_BYTES,
                ring.producer_barrier(&slot),
            );
            slot.advance();
            filled += 1;
            tile += grid_dim_x();
        }
        ring.producer_tail(slot);
    } else if warp_id() == 1 {
        let total = consume(&ring, tiles, lane_id() as usize);
        write_column(out, lane_id(), total);
    }
}

/// Correct: the producer writes the stage's row count into a per-stage tag between the acquire
/// and the `expect_tx` (then a proxy fence before the copy); the consumers read it after the
/// wait: the arrival releases the tag with the phase.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn tag_before_expect(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open::<STAGES>(TILE_BYTES);
    let tags = dynamic_shared_base::<u8>()
        .add((STAGES * TILE_BYTES + pipeline_barrier_bytes(STAGES)) as usize)
        .cast::<u32>();
    if thread_idx_x() == 0 {
        let mut slot = PipelineState::<STAGES>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.producer_acquire(&slot);
            *tags.add(slot.index() as usize) = ROWS as u32;
            fence_proxy_async_shared();
            ring.producer_expect_tx(&slot, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + slot.index() * TILE_BYTES,
                tile_source(input, tile),
                TILE_BYTES,
                ring.producer_barrier(&slot),
            );
            slot.advance();
            tile += grid_dim_x();
        }
        ring.producer_tail(slot);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let stages: *const f32 = dynamic_shared_base();
        let mut slot = PipelineState::<STAGES>::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.consumer_wait(&slot);
            let rows = *tags.add(slot.index() as usize) as usize;
            let stage = stages.add(slot.index() as usize * TILE_FLOATS);
            for row in 0..rows {
                total += *stage.add(row * COLUMNS as usize + column);
            }
            ring.consumer_release(&slot);
            slot.advance();
            tile += grid_dim_x();
        }
        write_column(out, column as u32, total);
    }
}

/// Broken: each half-tile copy gets its own `expect_tx`: two arrivals per phase on a full
/// barrier that expects one (the second lands while the phase still waits for bytes).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn expect_per_half(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open::<STAGES>(TILE_BYTES);
    if thread_idx_x() == 0 {
        let mut slot = PipelineState::<STAGES>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.producer_acquire(&slot);
            let destination = window + slot.index() * TILE_BYTES;
            for half in 0..2u32 {
                ring.producer_expect_tx(&slot, HALF_BYTES);
                bulk_copy_global_to_shared(
                    destination + half * HALF_BYTES,
                    tile_source(input, tile).add((half * HALF_BYTES) as usize),
                    HALF_BYTES,
                    ring.producer_barrier(&slot),
                );
            }
            slot.advance();
            tile += grid_dim_x();
        }
        ring.producer_tail(slot);
    } else if warp_id() == 1 {
        let total = consume(&ring, tiles, lane_id() as usize);
        write_column(out, lane_id(), total);
    }
}

/// Broken: the stage is filled by four chunk copies but announces one chunk's bytes: the phase
/// completes after the first chunk, the other three count against the next phase, whose
/// transaction count then never returns to zero.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn announce_one_chunk(input: *const f32, tiles: u32, out: *mut f32) {
    const CHUNKS: u32 = 4;
    const CHUNK_BYTES: u32 = TILE_BYTES / CHUNKS;
    block_threads(BLOCK_THREADS);
    let (window, ring) = open::<STAGES>(TILE_BYTES);
    if thread_idx_x() == 0 {
        let mut slot = PipelineState::<STAGES>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.producer_acquire(&slot);
            ring.producer_expect_tx(&slot, CHUNK_BYTES);
            let full = ring.producer_barrier(&slot);
            let source = tile_source(input, tile);
            for chunk in 0..CHUNKS {
                let offset = chunk * CHUNK_BYTES;
                bulk_copy_global_to_shared(
                    window + slot.index() * TILE_BYTES + offset,
                    source.add(offset as usize),
                    CHUNK_BYTES,
                    full,
                );
            }
            slot.advance();
            tile += grid_dim_x();
        }
        ring.producer_tail(slot);
    } else if warp_id() == 1 {
        let total = consume(&ring, tiles, lane_id() as usize);
        write_column(out, lane_id(), total);
    }
}

/// Splits a tile into `PARTS` equal copies.
#[inline(always)]
unsafe fn split_copy<const PARTS: u32>(destination: u32, source: *const u8, full: u32) {
    let part_bytes = TILE_BYTES / PARTS;
    for part in 0..PARTS {
        bulk_copy_global_to_shared(
            destination + part * part_bytes,
            source.add((part * part_bytes) as usize),
            part_bytes,
            full,
        );
    }
}

/// Broken: the tile is split three ways (one copy per producer "lane" of an older design):
/// 341-byte copies, neither a multiple of 16 nor 16-byte aligned, and 1023 bytes in all
/// against the 1024 announced.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn three_way_split(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open::<STAGES>(TILE_BYTES);
    if thread_idx_x() == 0 {
        let mut slot = PipelineState::<STAGES>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.producer_acquire(&slot);
            ring.producer_expect_tx(&slot, TILE_BYTES);
            split_copy::<3>(window + slot.index() * TILE_BYTES, tile_source(input, tile), ring.producer_barrier(&slot));
            slot.advance();
            tile += grid_dim_x();
        }
        ring.producer_tail(slot);
    } else if warp_id() == 1 {
        let total = consume(&ring, tiles, lane_id() as usize);
        write_column(out, lane_id(), total);
    }
}

/// Window address of stage `stage`.
#[inline(always)]
fn stage_window(window: u32, stage: u32) -> u32 {
    window + stage * TILE_BYTES
}

/// Broken: the second half's destination adds the half to the stage index instead of adding
/// half a tile of bytes: it lands at the start of the next stage (after the last stage: on the
/// barriers), and the stage's own second half keeps stale data.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn half_into_next_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open::<STAGES>(TILE_BYTES);
    if thread_idx_x() == 0 {
        let mut slot = PipelineState::<STAGES>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.producer_acquire(&slot);
            ring.producer_expect_tx(&slot, TILE_BYTES);
            for part in 0..2u32 {
                bulk_copy_global_to_shared(
                    stage_window(window, slot.index() + part),
                    tile_source(input, tile).add((part * HALF_BYTES) as usize),
                    HALF_BYTES,
                    ring.producer_barrier(&slot),
                );
            }
            slot.advance();
            tile += grid_dim_x();
        }
        ring.producer_tail(slot);
    } else if warp_id() == 1 {
        let total = consume(&ring, tiles, lane_id() as usize);
        write_column(out, lane_id(), total);
    }
}
