//! Persona: the object-oriented author. Rings, producers and consumers are structs with
//! fields holding pointers, pipelines and states; the kernel bodies only wire them together.

use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x, warp_id};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;

/// A ring of tile-sized stages, by its generic and its shared-window address.
#[derive(Clone, Copy)]
struct Ring<const S: u32> {
    base: *mut f32,
    window: u32,
}

impl<const S: u32> Ring<S> {
    #[inline(always)]
    fn at_offset(offset_bytes: u32) -> Self {
        Ring {
            base: dynamic_shared_base::<f32>().wrapping_add((offset_bytes / 4) as usize),
            window: dynamic_shared_window_address() + offset_bytes,
        }
    }

    #[inline(always)]
    fn stage(&self, state: &PipelineState<S>) -> *const f32 {
        self.base.wrapping_add((state.index() * TILE_FLOATS) as usize)
    }

    #[inline(always)]
    fn stage_window(&self, state: &PipelineState<S>) -> u32 {
        self.window + state.index() * TILE_BYTES
    }
}

struct Producer<const S: u32> {
    pipe: Pipeline<S>,
    ring: Ring<S>,
    state: PipelineState<S>,
    source: *const f32,
}

impl<const S: u32> Producer<S> {
    #[inline(always)]
    fn push(&mut self, tile: u32) {
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        let src = self.source.wrapping_add((tile * TILE_FLOATS) as usize) as *const u8;
        bulk_copy_global_to_shared(self.ring.stage_window(&self.state), src, TILE_BYTES, self.pipe.producer_barrier(&self.state));
        self.state.advance();
    }

    #[inline(always)]
    fn finish(self) {
        self.pipe.producer_tail(self.state);
    }
}

struct Consumer<const S: u32> {
    pipe: Pipeline<S>,
    ring: Ring<S>,
    state: PipelineState<S>,
    column: u32,
    acc: f32,
}

impl<const S: u32> Consumer<S> {
    #[inline(always)]
    unsafe fn pop(&mut self) {
        self.pipe.consumer_wait(&self.state);
        let stage = self.ring.stage(&self.state);
        for row in 0..8 {
            // SAFETY: the stage holds a full tile after the wait.
            self.acc += unsafe { *stage.add((row * 32 + self.column) as usize) };
        }
        self.pipe.consumer_release(&self.state);
        self.state.advance();
    }
}

/// Barriers at offset 0, four stages at 1024; thread 32 is the `Producer`, warp 0 are
/// `Consumer`s.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ob_producer_consumer_structs(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(64);
    let tid = thread_idx_x();
    let barriers = dynamic_shared_window_address();
    let ring = Ring::<S>::at_offset(1024);
    if tid == 32 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut producer = Producer { pipe, ring, state: PipelineState::producer_start(), source: input };
        let mut t = block;
        while t < tiles {
            producer.push(t);
            t += grid;
        }
        producer.finish();
    } else if tid < 32 {
        let mut consumer = Consumer { pipe, ring, state: PipelineState::new(), column: tid, acc: 0.0 };
        let mut t = block;
        while t < tiles {
            // SAFETY: see `Consumer::pop`.
            unsafe { consumer.pop() };
            t += grid;
        }
        // SAFETY: `out` has 32 floats per block.
        unsafe { *out.add((block * 32 + consumer.column) as usize) = consumer.acc };
    }
}

/// The ring at offset 0 with three stages, its barriers right after it; methods of the ring
/// give both addresses of a stage. Thread 0 produces, warp 1 consumes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ob_ring_methods_three_stages(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 3;
    block_threads(64);
    let tid = thread_idx_x();
    let ring = Ring::<S>::at_offset(0);
    let barriers = ring.window + S * TILE_BYTES;
    let pipe = if tid == 0 { Pipeline::<S>::init(barriers, 32) } else { Pipeline::<S>::attach(barriers) };
    barrier();
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                ring.stage_window(&state),
                input.wrapping_add((t * TILE_FLOATS) as usize).cast(),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if warp_id() == 1 {
        let column = tid - 32;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.stage(&state);
            for row in 0..8u32 {
                // SAFETY: after the wait the stage holds the tile.
                acc += unsafe { *stage.add((row * 32 + column) as usize) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add((block * 32 + column) as usize) = acc };
    }
}

/// A cursor is a tuple `(state, tile)` moved along together; thread 0 produces, warp 1 consumes,
/// two stages at offset 2048 and barriers at offset 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ob_cursor_tuple(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 2;
    block_threads(64);
    let tid = thread_idx_x();
    let barriers = dynamic_shared_window_address();
    let ring = Ring::<S>::at_offset(2048);
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut cursor = (PipelineState::<S>::producer_start(), block);
        while cursor.1 < tiles {
            pipe.producer_acquire(&cursor.0);
            pipe.producer_expect_tx(&cursor.0, TILE_BYTES);
            let src = input.wrapping_add((cursor.1 * TILE_FLOATS) as usize) as *const u8;
            bulk_copy_global_to_shared(ring.stage_window(&cursor.0), src, TILE_BYTES, pipe.producer_barrier(&cursor.0));
            cursor.0.advance();
            cursor.1 += grid;
        }
        pipe.producer_tail(cursor.0);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut cursor = (PipelineState::<S>::new(), block);
        let mut acc = 0.0f32;
        while cursor.1 < tiles {
            pipe.consumer_wait(&cursor.0);
            let stage = ring.stage(&cursor.0);
            for row in 0..8u32 {
                // SAFETY: after the wait the stage holds the tile.
                acc += unsafe { *stage.add((column + 32 * row) as usize) };
            }
            pipe.consumer_release(&cursor.0);
            cursor.0.advance();
            cursor.1 += grid;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add((block * 32 + column) as usize) = acc };
    }
}

/// A ring whose window method is off by one stage (the author "pre-advanced" it for the copy).
#[derive(Clone, Copy)]
struct AheadRing<const S: u32> {
    base: *mut f32,
    window: u32,
}

impl<const S: u32> AheadRing<S> {
    #[inline(always)]
    fn stage(&self, state: &PipelineState<S>) -> *const f32 {
        self.base.wrapping_add((state.index() * TILE_FLOATS) as usize)
    }

    #[inline(always)]
    fn next_stage_window(&self, state: &PipelineState<S>) -> u32 {
        self.window + ((state.index() + 1) % S) * TILE_BYTES
    }
}

/// BROKEN: the copy lands in stage `(index + 1) % S` while it completes on stage `index`'s
/// barrier: consumers read a stage that holds older data and the copy tramples a stage that may
/// still be read.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ob_stage_window_off_by_one(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(64);
    let tid = thread_idx_x();
    let barriers = dynamic_shared_window_address();
    let ring = AheadRing::<S> {
        base: dynamic_shared_base::<f32>().wrapping_add(256),
        window: dynamic_shared_window_address() + 1024,
    };
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<S>::producer_start();
        let mut t = block;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                ring.next_stage_window(&state),
                input.wrapping_add((t * TILE_FLOATS) as usize).cast(),
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut state = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.stage(&state);
            for row in 0..8u32 {
                // SAFETY: in bounds of the ring.
                acc += unsafe { *stage.add((column + 32 * row) as usize) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add((block * 32 + column) as usize) = acc };
    }
}

/// A producer that is `Copy` and whose `push` takes `self` by value: every push advances a copy.
#[derive(Clone, Copy)]
struct ValueProducer<const S: u32> {
    pipe: Pipeline<S>,
    ring: Ring<S>,
    state: PipelineState<S>,
    source: *const f32,
}

impl<const S: u32> ValueProducer<S> {
    #[inline(always)]
    fn push(mut self, tile: u32) {
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        let src = self.source.wrapping_add((tile * TILE_FLOATS) as usize) as *const u8;
        bulk_copy_global_to_shared(self.ring.stage_window(&self.state), src, TILE_BYTES, self.pipe.producer_barrier(&self.state));
        self.state.advance();
    }
}

/// BROKEN: `ValueProducer::push(self)` advances its own copy of the state; the kernel's
/// producer stays on stage 0 forever, so consumers wait for stage 1 that is never filled.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ob_push_by_value(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(64);
    let tid = thread_idx_x();
    let barriers = dynamic_shared_window_address();
    let ring = Ring::<S>::at_offset(1024);
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let producer = ValueProducer { pipe, ring, state: PipelineState::producer_start(), source: input };
        let mut t = block;
        while t < tiles {
            producer.push(t);
            t += grid;
        }
        pipe.producer_tail(producer.state);
    } else if tid >= 32 {
        let mut consumer = Consumer { pipe, ring, state: PipelineState::new(), column: tid - 32, acc: 0.0 };
        let mut t = block;
        while t < tiles {
            // SAFETY: see `Consumer::pop`.
            unsafe { consumer.pop() };
            t += grid;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add((block * 32 + consumer.column) as usize) = consumer.acc };
    }
}

struct SnapshotConsumer<const S: u32> {
    pipe: Pipeline<S>,
    ring: Ring<S>,
    state: PipelineState<S>,
    column: u32,
}

impl<const S: u32> SnapshotConsumer<S> {
    /// Takes a snapshot of the state, works on it, and forgets to store it back.
    #[inline(always)]
    unsafe fn pop(&mut self) -> f32 {
        let mut current = self.state;
        self.pipe.consumer_wait(&current);
        let stage = self.ring.stage(&current);
        let mut sum = 0.0;
        for row in 0..8 {
            // SAFETY: in bounds of the ring.
            sum += unsafe { *stage.add((row * 32 + self.column) as usize) };
        }
        self.pipe.consumer_release(&current);
        current.advance();
        sum
    }
}

/// BROKEN: the consumer advances a snapshot of its state and never stores it back: it waits
/// and releases stage 0 every time (stale data, extra arrivals on empty[0]), stages 1..3 are
/// never released, and the producer hangs at its second round.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ob_consumer_snapshot_not_stored(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(64);
    let tid = thread_idx_x();
    let barriers = dynamic_shared_window_address();
    let ring = Ring::<S>::at_offset(1024);
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut producer = Producer { pipe, ring, state: PipelineState::producer_start(), source: input };
        let mut t = block;
        while t < tiles {
            producer.push(t);
            t += grid;
        }
        producer.finish();
    } else if tid >= 32 {
        let mut consumer = SnapshotConsumer { pipe, ring, state: PipelineState::new(), column: tid - 32 };
        let mut acc = 0.0f32;
        let mut t = block;
        while t < tiles {
            // SAFETY: see `SnapshotConsumer::pop`.
            acc += unsafe { consumer.pop() };
            t += grid;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add((block * 32 + consumer.column) as usize) = acc };
    }
}

struct NoisyConsumer<const S: u32> {
    pipe: Pipeline<S>,
    ring: Ring<S>,
    state: PipelineState<S>,
    column: u32,
    acc: f32,
}

impl<const S: u32> NoisyConsumer<S> {
    /// Releases after every element it reads instead of once per tile.
    #[inline(always)]
    unsafe fn pop(&mut self) {
        self.pipe.consumer_wait(&self.state);
        let stage = self.ring.stage(&self.state);
        for row in 0..8 {
            // SAFETY: in bounds of the ring.
            self.acc += unsafe { *stage.add((row * 32 + self.column) as usize) };
            self.pipe.consumer_release(&self.state);
        }
        self.state.advance();
    }
}

/// BROKEN: each consumer releases the stage once per element (8 times a tile): the empty
/// barrier completes after 4 threads' worth of reads and the surplus arrivals run into later
/// phases, so the producer overwrites stages still being read.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r5_ob_release_per_element(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(64);
    let tid = thread_idx_x();
    let barriers = dynamic_shared_window_address();
    let ring = Ring::<S>::at_offset(1024);
    if tid == 0 {
        Pipeline::<S>::init(barriers, 32);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();
    if tid == 0 {
        let mut producer = Producer { pipe, ring, state: PipelineState::producer_start(), source: input };
        let mut t = block;
        while t < tiles {
            producer.push(t);
            t += grid;
        }
        producer.finish();
    } else if tid >= 32 {
        let mut consumer = NoisyConsumer { pipe, ring, state: PipelineState::new(), column: tid - 32, acc: 0.0 };
        let mut t = block;
        while t < tiles {
            // SAFETY: see `NoisyConsumer::pop`.
            unsafe { consumer.pop() };
            t += grid;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add((block * 32 + consumer.column) as usize) = consumer.acc };
    }
}
