//! Loop shapes on either side: counts, exits, iterators, release order.
#![allow(unsafe_op_in_unsafe_fn)]

use crate::common::*;
use crate::device::launch::block_threads;
use crate::device::pipeline::*;
use crate::device::*;

const STAGES: u32 = 4;
type Ring = Pipeline<STAGES>;
type Slot = PipelineState<STAGES>;

#[inline(always)]
unsafe fn open() -> (u32, Ring) {
    let window = dynamic_shared_window_address();
    let barriers = window + STAGES * TILE_BYTES;
    if thread_idx_x() == 0 {
        Ring::init(barriers, CONSUMERS);
    }
    barrier();
    (window, Ring::attach(barriers))
}

#[inline(always)]
unsafe fn load(ring: &Ring, slot: &mut Slot, window: u32, input: *const f32, tile: u32) {
    ring.producer_acquire(slot);
    ring.producer_expect_tx(slot, TILE_BYTES);
    bulk_copy_global_to_shared(
        window + slot.index() * TILE_BYTES,
        tile_source(input, tile),
        TILE_BYTES,
        ring.producer_barrier(slot),
    );
    slot.advance();
}

/// The producer of most kernels here: `tile = block, block + grid, …` below `tiles`.
#[inline(always)]
unsafe fn produce(ring: &Ring, window: u32, input: *const f32, tiles: u32) {
    let mut slot = Slot::producer_start();
    let mut tile = block_idx_x();
    while tile < tiles {
        load(ring, &mut slot, window, input, tile);
        tile += grid_dim_x();
    }
    ring.producer_tail(slot);
}

#[inline(always)]
unsafe fn stage_of(slot: &Slot) -> *const f32 {
    dynamic_shared_base::<f32>().add(slot.index() as usize * TILE_FLOATS)
}

/// Correct: CUTLASS-style consumer that keeps the previous stage until the next one has
/// landed, then releases the previous one and reads the new one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn release_previous_after_next_wait(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open();
    if thread_idx_x() == 0 {
        produce(&ring, window, input, tiles);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let read = |slot: &Slot| -> f32 {
            let stage = stage_of(slot);
            let mut sum = 0.0f32;
            for row in 0..ROWS {
                sum += *stage.add(row * COLUMNS as usize + column);
            }
            sum
        };
        let mut total = 0.0f32;
        let mut state = Slot::new();
        let mut tile = block_idx_x();
        if tile < tiles {
            ring.consumer_wait(&state);
            total += read(&state);
            let mut previous = state;
            state.advance();
            tile += grid_dim_x();
            while tile < tiles {
                ring.consumer_wait(&state);
                ring.consumer_release(&previous);
                total += read(&state);
                previous = state;
                state.advance();
                tile += grid_dim_x();
            }
            ring.consumer_release(&previous);
        }
        write_column(out, column as u32, total);
    }
}

/// This block's tiles, yielding the ring position each one uses.
struct Laps<const S: u32> {
    state: PipelineState<S>,
    tile: u32,
    end: u32,
    step: u32,
}

impl<const S: u32> Iterator for Laps<S> {
    type Item = (u32, PipelineState<S>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.tile >= self.end {
            return None;
        }
        let item = (self.tile, self.state);
        self.state.advance();
        self.tile += self.step;
        Some(item)
    }
}

/// Correct: an `Iterator` hands out each tile's state (a copy) and advances its own; the
/// producer drains with the iterator's state after the loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn iterator_yields_states(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open();
    if thread_idx_x() == 0 {
        let mut laps = Laps { state: Slot::producer_start(), tile: block_idx_x(), end: tiles, step: grid_dim_x() };
        while let Some((tile, slot)) = laps.next() {
            ring.producer_acquire(&slot);
            ring.producer_expect_tx(&slot, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + slot.index() * TILE_BYTES,
                tile_source(input, tile),
                TILE_BYTES,
                ring.producer_barrier(&slot),
            );
        }
        ring.producer_tail(laps.state);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let mut total = 0.0f32;
        for (_, slot) in (Laps { state: Slot::new(), tile: block_idx_x(), end: tiles, step: grid_dim_x() }) {
            ring.consumer_wait(&slot);
            let stage = stage_of(&slot);
            for row in 0..ROWS {
                total += *stage.add(row * COLUMNS as usize + column);
            }
            ring.consumer_release(&slot);
        }
        write_column(out, column as u32, total);
    }
}

/// Correct: the stage is viewed as a slice and summed with `skip`/`step_by`/`sum` before the
/// release.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn slice_iter_sum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open();
    if thread_idx_x() == 0 {
        produce(&ring, window, input, tiles);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let mut slot = Slot::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.consumer_wait(&slot);
            let stage = core::slice::from_raw_parts(stage_of(&slot), TILE_FLOATS);
            total += stage.iter().skip(column).step_by(COLUMNS as usize).sum::<f32>();
            ring.consumer_release(&slot);
            slot.advance();
            tile += grid_dim_x();
        }
        write_column(out, column as u32, total);
    }
}

/// Correct: the column is copied into registers, the stage released, and only then summed.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn registers_then_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open();
    if thread_idx_x() == 0 {
        produce(&ring, window, input, tiles);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let mut slot = Slot::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.consumer_wait(&slot);
            let stage = stage_of(&slot);
            let values: [f32; ROWS] = core::array::from_fn(|row| *stage.add(row * COLUMNS as usize + column));
            ring.consumer_release(&slot);
            slot.advance();
            total += values.iter().sum::<f32>();
            tile += grid_dim_x();
        }
        write_column(out, column as u32, total);
    }
}

/// Correct: labeled loops; the exit test is at the top of the tile loop and the row loop
/// breaks to its own label.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn labeled_exit_after_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open();
    if thread_idx_x() == 0 {
        produce(&ring, window, input, tiles);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let mut slot = Slot::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        'tiles: loop {
            if tile >= tiles {
                break 'tiles;
            }
            ring.consumer_wait(&slot);
            let stage = stage_of(&slot);
            let mut row = 0;
            'rows: loop {
                if row == ROWS {
                    break 'rows;
                }
                total += *stage.add(row * COLUMNS as usize + column);
                row += 1;
            }
            ring.consumer_release(&slot);
            slot.advance();
            tile += grid_dim_x();
        }
        write_column(out, column as u32, total);
    }
}

/// Broken: the consumers skip the release of their last tile ("nothing is refilled after
/// it"), but the producer's tail waits for that release.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn skip_final_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open();
    if thread_idx_x() == 0 {
        produce(&ring, window, input, tiles);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let mut slot = Slot::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.consumer_wait(&slot);
            let stage = stage_of(&slot);
            for row in 0..ROWS {
                total += *stage.add(row * COLUMNS as usize + column);
            }
            let next = tile + grid_dim_x();
            if next < tiles {
                ring.consumer_release(&slot);
            }
            slot.advance();
            tile = next;
        }
        write_column(out, column as u32, total);
    }
}

/// Broken: the producer stops at the first tile of the last round (`tiles - grid`, inclusive),
/// which is right for block 0 only: blocks 1..7 load 7 tiles and their consumers wait for an
/// eighth.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn last_start_bound(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open();
    if thread_idx_x() == 0 {
        let last_start = tiles.saturating_sub(grid_dim_x());
        let mut slot = Slot::producer_start();
        let mut tile = block_idx_x();
        while tile <= last_start {
            load(&ring, &mut slot, window, input, tile);
            tile += grid_dim_x();
        }
        ring.producer_tail(slot);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let mut slot = Slot::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.consumer_wait(&slot);
            let stage = stage_of(&slot);
            for row in 0..ROWS {
                total += *stage.add(row * COLUMNS as usize + column);
            }
            ring.consumer_release(&slot);
            slot.advance();
            tile += grid_dim_x();
        }
        write_column(out, column as u32, total);
    }
}

/// Broken: a do-while consumer whose exit test sits between the read and the release: the
/// last tile is never released and the producer's tail never returns.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn exit_before_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open();
    if thread_idx_x() == 0 {
        produce(&ring, window, input, tiles);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let mut slot = Slot::new();
        let mut total = 0.0f32;
        let mut tile = block_idx_x();
        if tile < tiles {
            'tiles: loop {
                ring.consumer_wait(&slot);
                let stage = stage_of(&slot);
                for row in 0..ROWS {
                    total += *stage.add(row * COLUMNS as usize + column);
                }
                tile += grid_dim_x();
                if tile >= tiles {
                    break 'tiles;
                }
                ring.consumer_release(&slot);
                slot.advance();
            }
        }
        write_column(out, column as u32, total);
    }
}

/// Broken: the consumers count their tiles as `(tiles - block) / grid` in signed arithmetic,
/// rounding down: 7 for blocks 1..7 where the producer loads 8.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn floor_tile_count(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open();
    if thread_idx_x() == 0 {
        produce(&ring, window, input, tiles);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let mine = ((tiles as i32 - block_idx_x() as i32) / grid_dim_x() as i32).max(0) as u32;
        let mut slot = Slot::new();
        let mut total = 0.0f32;
        for _ in 0..mine {
            ring.consumer_wait(&slot);
            let stage = stage_of(&slot);
            for row in 0..ROWS {
                total += *stage.add(row * COLUMNS as usize + column);
            }
            ring.consumer_release(&slot);
            slot.advance();
        }
        write_column(out, column as u32, total);
    }
}

/// The consumers' walk over their tiles.
struct Walk {
    slot: Slot,
    tile: u32,
    stride: u32,
}

impl Walk {
    /// Moves to this block's next tile.
    fn next_tile(&mut self) {
        self.tile += self.stride;
        self.slot.advance();
    }
}

/// Broken: the loop advances the state after the release and `next_tile` advances it again:
/// the consumers visit every other stage and leave the others unreleased.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn double_advance_step(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open();
    if thread_idx_x() == 0 {
        produce(&ring, window, input, tiles);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let mut walk = Walk { slot: Slot::new(), tile: block_idx_x(), stride: grid_dim_x() };
        let mut total = 0.0f32;
        while walk.tile < tiles {
            ring.consumer_wait(&walk.slot);
            let stage = stage_of(&walk.slot);
            for row in 0..ROWS {
                total += *stage.add(row * COLUMNS as usize + column);
            }
            ring.consumer_release(&walk.slot);
            walk.slot.advance();
            walk.next_tile();
        }
        write_column(out, column as u32, total);
    }
}
