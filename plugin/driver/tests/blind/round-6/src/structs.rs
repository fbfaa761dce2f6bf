//! Persona: object-minded. Structs hold the pipeline, the ring's addresses and the states;
//! roles are types with methods (`Producer::run`, `Consumer::step`, `Consumer::finish`).

use crate::device::launch::block_threads;
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;

/// A ring of `S` one-tile stages starting at `window` (32-bit) / `base` (generic), and its
/// pipeline.
#[derive(Clone, Copy)]
struct Ring<const S: u32> {
    pipe: Pipeline<S>,
    window: u32,
    base: *const f32,
}

impl<const S: u32> Ring<S> {
    /// Ring at the start of dynamic shared memory, barriers right after it. Every thread calls
    /// this; thread 0 initialises.
    #[inline(always)]
    fn at_start(consumers: u32) -> Self {
        let window = dynamic_shared_window_address();
        let barriers = window + S * TILE_BYTES;
        if thread_idx_x() == 0 {
            Pipeline::<S>::init(barriers, consumers);
        }
        barrier();
        Ring { pipe: Pipeline::<S>::attach(barriers), window, base: dynamic_shared_base::<f32>() }
    }

    #[inline(always)]
    fn stage(&self, state: &PipelineState<S>) -> *const f32 {
        self.base.wrapping_add(state.index() as usize * TILE_FLOATS)
    }

    #[inline(always)]
    fn fill(&self, state: &mut PipelineState<S>, src: *const u8) {
        self.pipe.producer_acquire(state);
        self.pipe.producer_expect_tx(state, TILE_BYTES);
        bulk_copy_global_to_shared(self.window + state.index() * TILE_BYTES, src, TILE_BYTES, self.pipe.producer_barrier(state));
        state.advance();
    }

    #[inline(always)]
    fn drain(&self, state: &mut PipelineState<S>, lane: usize) -> f32 {
        self.pipe.consumer_wait(state);
        let tile = self.stage(state);
        let mut sum = 0.0;
        for row in 0..8 {
            // SAFETY: inside the held stage.
            sum += unsafe { *tile.add(row * 32 + lane) };
        }
        self.pipe.consumer_release(state);
        state.advance();
        sum
    }
}

#[inline(always)]
fn source(input: *const f32, tile: u32) -> *const u8 {
    input.wrapping_add(tile as usize * TILE_FLOATS).cast()
}

// ---------------------------------------------------------------------------------------------
// Correct: 4 stages through `Ring::fill` / `Ring::drain`.
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_struct_ring(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let ring = Ring::<4>::at_start(32);
    let tid = thread_idx_x();
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            ring.fill(&mut state, source(input, t));
            t += grid_dim_x();
        }
        ring.pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<4>::new();
        let mut total = 0.0;
        let mut t = block_idx_x();
        while t < tiles {
            total += ring.drain(&mut state, tid as usize);
            t += grid_dim_x();
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block_idx_x() as usize * 32 + tid as usize) = total };
    }
}

// ---------------------------------------------------------------------------------------------
// Correct: 2 stages, roles as structs with their own state and tile cursor.
// ---------------------------------------------------------------------------------------------
struct Producer<const S: u32> {
    state: PipelineState<S>,
    next: u32,
    end: u32,
    stride: u32,
}

impl<const S: u32> Producer<S> {
    #[inline(always)]
    fn new(tiles: u32) -> Self {
        Producer { state: PipelineState::producer_start(), next: block_idx_x(), end: tiles, stride: grid_dim_x() }
    }

    #[inline(always)]
    fn run(mut self, ring: &Ring<S>, input: *const f32) {
        while self.next < self.end {
            ring.fill(&mut self.state, source(input, self.next));
            self.next += self.stride;
        }
        ring.pipe.producer_tail(self.state);
    }
}

struct Consumer<const S: u32> {
    state: PipelineState<S>,
    acc: f32,
    lane: usize,
}

impl<const S: u32> Consumer<S> {
    #[inline(always)]
    fn new(lane: usize) -> Self {
        Consumer { state: PipelineState::new(), acc: 0.0, lane }
    }

    #[inline(always)]
    fn step(&mut self, ring: &Ring<S>) {
        ring.pipe.consumer_wait(&self.state);
        let tile = ring.stage(&self.state);
        for row in 0..8 {
            // SAFETY: inside the held stage.
            self.acc += unsafe { *tile.add(row * 32 + self.lane) };
        }
        ring.pipe.consumer_release(&self.state);
        self.state.advance();
    }

    #[inline(always)]
    fn finish(self, out: *mut f32) {
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block_idx_x() as usize * 32 + self.lane) = self.acc };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_struct_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let ring = Ring::<2>::at_start(32);
    let tid = thread_idx_x();
    if tid == 0 {
        Producer::<2>::new(tiles).run(&ring, input);
    } else if tid >= 32 {
        let mut consumer = Consumer::<2>::new((tid - 32) as usize);
        let mut t = block_idx_x();
        while t < tiles {
            consumer.step(&ring);
            t += grid_dim_x();
        }
        consumer.finish(out);
    }
}

// ---------------------------------------------------------------------------------------------
// Correct: two 2-stage pipelines, the block's even tiles through `even`, odd tiles through `odd`,
// one producer thread each (32 and 33); the consumers alternate. States kept in a pair struct.
// Layout: ring even 0..2K, ring odd 2K..4K, barriers even at 4096, odd at 4128.
// ---------------------------------------------------------------------------------------------
#[derive(Clone, Copy)]
struct Pair {
    even: PipelineState<2>,
    odd: PipelineState<2>,
}

const EVEN_RING: u32 = 0;
const ODD_RING: u32 = 2 * TILE_BYTES;
const EVEN_BARS: u32 = 4 * TILE_BYTES;
const ODD_BARS: u32 = EVEN_BARS + 32;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_struct_two_pipes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>() as *const f32;
    if tid == 0 {
        Pipeline::<2>::init(window + EVEN_BARS, 32);
        Pipeline::<2>::init(window + ODD_BARS, 32);
    }
    barrier();
    let even = Pipeline::<2>::attach(window + EVEN_BARS);
    let odd = Pipeline::<2>::attach(window + ODD_BARS);
    let block = block_idx_x();
    let grid = grid_dim_x();

    if tid == 32 {
        let mut state = PipelineState::<2>::producer_start();
        let mut t = block;
        while t < tiles {
            even.producer_acquire(&state);
            even.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + EVEN_RING + state.index() * TILE_BYTES, source(input, t), TILE_BYTES, even.producer_barrier(&state));
            state.advance();
            t += 2 * grid;
        }
        even.producer_tail(state);
    } else if tid == 33 {
        let mut state = PipelineState::<2>::producer_start();
        let mut t = block + grid;
        while t < tiles {
            odd.producer_acquire(&state);
            odd.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + ODD_RING + state.index() * TILE_BYTES, source(input, t), TILE_BYTES, odd.producer_barrier(&state));
            state.advance();
            t += 2 * grid;
        }
        odd.producer_tail(state);
    } else if tid < 32 {
        let lane = tid as usize;
        let mut states = Pair { even: PipelineState::new(), odd: PipelineState::new() };
        let mut total = 0.0f32;
        let mut is_even = true;
        let mut t = block;
        while t < tiles {
            if is_even {
                even.consumer_wait(&states.even);
                let tile = base.wrapping_add((EVEN_RING / 4) as usize + states.even.index() as usize * TILE_FLOATS);
                for row in 0..8 {
                    // SAFETY: inside the held stage.
                    total += unsafe { *tile.add(row * 32 + lane) };
                }
                even.consumer_release(&states.even);
                states.even.advance();
            } else {
                odd.consumer_wait(&states.odd);
                let tile = base.wrapping_add((ODD_RING / 4) as usize + states.odd.index() as usize * TILE_FLOATS);
                for row in 0..8 {
                    // SAFETY: inside the held stage.
                    total += unsafe { *tile.add(row * 32 + lane) };
                }
                odd.consumer_release(&states.odd);
                states.odd.advance();
            }
            is_even = !is_even;
            t += grid;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block as usize * 32 + lane) = total };
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: as above, but the odd branch was copy-pasted from the even one and still releases on
// `even`: the odd pipeline's stages are never released (and the even one gets extra arrivals).
// ---------------------------------------------------------------------------------------------
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_struct_release_other_pipe(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let base = dynamic_shared_base::<f32>() as *const f32;
    if tid == 0 {
        Pipeline::<2>::init(window + EVEN_BARS, 32);
        Pipeline::<2>::init(window + ODD_BARS, 32);
    }
    barrier();
    let even = Pipeline::<2>::attach(window + EVEN_BARS);
    let odd = Pipeline::<2>::attach(window + ODD_BARS);
    let block = block_idx_x();
    let grid = grid_dim_x();

    if tid == 32 {
        let mut state = PipelineState::<2>::producer_start();
        let mut t = block;
        while t < tiles {
            even.producer_acquire(&state);
            even.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + EVEN_RING + state.index() * TILE_BYTES, source(input, t), TILE_BYTES, even.producer_barrier(&state));
            state.advance();
            t += 2 * grid;
        }
        even.producer_tail(state);
    } else if tid == 33 {
        let mut state = PipelineState::<2>::producer_start();
        let mut t = block + grid;
        while t < tiles {
            odd.producer_acquire(&state);
            odd.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(window + ODD_RING + state.index() * TILE_BYTES, source(input, t), TILE_BYTES, odd.producer_barrier(&state));
            state.advance();
            t += 2 * grid;
        }
        odd.producer_tail(state);
    } else if tid < 32 {
        let lane = tid as usize;
        let mut states = Pair { even: PipelineState::new(), odd: PipelineState::new() };
        let mut total = 0.0f32;
        let mut is_even = true;
        let mut t = block;
        while t < tiles {
            if is_even {
                even.consumer_wait(&states.even);
                let tile = base.wrapping_add((EVEN_RING / 4) as usize + states.even.index() as usize * TILE_FLOATS);
                for row in 0..8 {
                    // SAFETY: inside the held stage.
                    total += unsafe { *tile.add(row * 32 + lane) };
                }
                even.consumer_release(&states.even);
                states.even.advance();
            } else {
                odd.consumer_wait(&states.odd);
                let tile = base.wrapping_add((ODD_RING / 4) as usize + states.odd.index() as usize * TILE_FLOATS);
                for row in 0..8 {
                    // SAFETY: inside the held stage.
                    total += unsafe { *tile.add(row * 32 + lane) };
                }
                even.consumer_release(&states.odd);
                states.odd.advance();
            }
            is_even = !is_even;
            t += grid;
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block as usize * 32 + lane) = total };
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: the producer struct derives its state from `Default`, which is the *consumer's* start
// (parity 0): its first acquire waits for a release that can never come.
// ---------------------------------------------------------------------------------------------
#[derive(Default)]
struct LazyProducer {
    state: PipelineState<3>,
    issued: u32,
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_struct_producer_default(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let ring = Ring::<3>::at_start(32);
    let tid = thread_idx_x();
    if tid == 32 {
        let mut producer = LazyProducer::default();
        let mut t = block_idx_x();
        while t < tiles {
            ring.fill(&mut producer.state, source(input, t));
            producer.issued += 1;
            t += grid_dim_x();
        }
        ring.pipe.producer_tail(producer.state);
    } else if tid < 32 {
        let mut consumer = Consumer::<3>::new(tid as usize);
        let mut t = block_idx_x();
        while t < tiles {
            consumer.step(&ring);
            t += grid_dim_x();
        }
        consumer.finish(out);
    }
}

// ---------------------------------------------------------------------------------------------
// BROKEN: the consumer struct caches its tile pointer when it is built (stage 0) and never
// recomputes it as the state advances: every tile is read from stage 0.
// ---------------------------------------------------------------------------------------------
struct CachedConsumer<const S: u32> {
    state: PipelineState<S>,
    tile: *const f32,
    acc: f32,
    lane: usize,
}

impl<const S: u32> CachedConsumer<S> {
    #[inline(always)]
    fn new(ring: &Ring<S>, lane: usize) -> Self {
        let state = PipelineState::new();
        let tile = ring.stage(&state);
        CachedConsumer { state, tile, acc: 0.0, lane }
    }

    #[inline(always)]
    fn step(&mut self, ring: &Ring<S>) {
        ring.pipe.consumer_wait(&self.state);
        for row in 0..8 {
            // SAFETY: (the author believed) inside the held stage.
            self.acc += unsafe { *self.tile.add(row * 32 + self.lane) };
        }
        ring.pipe.consumer_release(&self.state);
        self.state.advance();
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r6_struct_cached_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    let ring = Ring::<4>::at_start(32);
    let tid = thread_idx_x();
    if tid == 32 {
        Producer::<4>::new(tiles).run(&ring, input);
    } else if tid < 32 {
        let mut consumer = CachedConsumer::<4>::new(&ring, tid as usize);
        let mut t = block_idx_x();
        while t < tiles {
            consumer.step(&ring);
            t += grid_dim_x();
        }
        // SAFETY: 32 outputs per block.
        unsafe { *out.add(block_idx_x() as usize * 32 + consumer.lane) = consumer.acc };
    }
}
