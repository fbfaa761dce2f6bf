//! Roles as trait objects.
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

trait Role {
    unsafe fn run(&mut self, ring: &Ring, tiles: u32);
}

struct Loader {
    window: u32,
    input: *const f32,
}

struct Summer {
    stages: *const f32,
    column: usize,
    total: f32,
}

impl Role for Loader {
    unsafe fn run(&mut self, ring: &Ring, tiles: u32) {
        let mut slot = Slot::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.producer_acquire(&slot);
            ring.producer_expect_tx(&slot, TILE_BYTES);
            bulk_copy_global_to_shared(
                self.window + slot.index() * TILE_BYTES,
                tile_source(self.input, tile),
                TILE_BYTES,
                ring.producer_barrier(&slot),
            );
            slot.advance();
            tile += grid_dim_x();
        }
        ring.producer_tail(slot);
    }
}

impl Role for Summer {
    unsafe fn run(&mut self, ring: &Ring, tiles: u32) {
        let mut slot = Slot::new();
        let mut tile = block_idx_x();
        while tile < tiles {
            ring.consumer_wait(&slot);
            let stage = self.stages.add(slot.index() as usize * TILE_FLOATS);
            for row in 0..ROWS {
                self.total += *stage.add(row * COLUMNS as usize + self.column);
            }
            ring.consumer_release(&slot);
            slot.advance();
            tile += grid_dim_x();
        }
    }
}

/// Correct: lane 0 of warp 0 runs the `Loader`, warp 1 the `Summer`, both through
/// `&mut dyn Role`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn dyn_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open();
    let mut loader = Loader { window, input };
    let mut summer = Summer { stages: dynamic_shared_base(), column: lane_id() as usize, total: 0.0 };
    let role: Option<&mut dyn Role> = match warp_id() {
        0 if lane_id() == 0 => Some(&mut loader),
        1 => Some(&mut summer),
        _ => None,
    };
    if let Some(role) = role {
        role.run(&ring, tiles);
    }
    if warp_id() == 1 {
        write_column(out, summer.column as u32, summer.total);
    }
}

trait Stepper {
    /// One tile.
    unsafe fn step(&mut self, ring: &Ring, tile: u32);
    /// Called once after the last tile.
    unsafe fn finish(&mut self, _ring: &Ring) {}
}

struct Feeder {
    slot: Slot,
    window: u32,
    input: *const f32,
}

impl Feeder {
    /// Waits until the consumers are done with every stage, so the block cannot exit early.
    unsafe fn finish(&mut self, ring: &Ring) {
        ring.producer_tail(self.slot);
    }
}

impl Stepper for Feeder {
    unsafe fn step(&mut self, ring: &Ring, tile: u32) {
        ring.producer_acquire(&self.slot);
        ring.producer_expect_tx(&self.slot, TILE_BYTES);
        bulk_copy_global_to_shared(
            self.window + self.slot.index() * TILE_BYTES,
            tile_source(self.input, tile),
            TILE_BYTES,
            ring.producer_barrier(&self.slot),
        );
        self.slot.advance();
    }
}

struct Reader {
    slot: Slot,
    stages: *const f32,
    column: usize,
    total: f32,
}

impl Stepper for Reader {
    unsafe fn step(&mut self, ring: &Ring, _tile: u32) {
        ring.consumer_wait(&self.slot);
        let stage = self.stages.add(self.slot.index() as usize * TILE_FLOATS);
        for row in 0..ROWS {
            self.total += *stage.add(row * COLUMNS as usize + self.column);
        }
        ring.consumer_release(&self.slot);
        self.slot.advance();
    }
}

/// Broken: `Feeder::finish` is an inherent method, not the trait's; through `dyn Stepper` the
/// empty default runs, so the producer never drains the ring (no `producer_tail`).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn dyn_default_finish(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    let (window, ring) = open();
    let tid = thread_idx_x();
    let mut feeder = Feeder { slot: Slot::producer_start(), window, input };
    let mut reader = Reader { slot: Slot::new(), stages: dynamic_shared_base(), column: lane_id() as usize, total: 0.0 };
    let worker: Option<&mut dyn Stepper> = if tid == 0 {
        Some(&mut feeder)
    } else if tid >= WARP_SIZE {
        Some(&mut reader)
    } else {
        None
    };
    if let Some(worker) = worker {
        let mut tile = block_idx_x();
        while tile < tiles {
            worker.step(&ring, tile);
            tile += grid_dim_x();
        }
        worker.finish(&ring);
    }
    if tid >= WARP_SIZE {
        write_column(out, reader.column as u32, reader.total);
    }
}
