//! Style: stage *handles* passed by value and consumed. `acquire_empty` gives the producer an
//! `Empty` handle that owns its state until `fill(self, …)` consumes it and hands back the next
//! state; `wait_full` gives a consumer a `Full` handle (its stage and its state) that
//! `release(self)` consumes, handing back the next state. The loops thread the state through
//! the handles: `state = wait_full(&pipe, ring, state).…release()`.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const COLUMNS: u32 = 32;
const ROWS: u32 = 8;
const RING_BYTE: u32 = 1024;

/// A stage the producer may fill: owns the producer's state until `fill`.
struct Empty<'p, const S: u32> {
    pipe: &'p Pipeline<S>,
    state: PipelineState<S>,
}

#[inline(always)]
fn acquire_empty<const S: u32>(pipe: &Pipeline<S>, state: PipelineState<S>) -> Empty<'_, S> {
    pipe.producer_acquire(&state);
    Empty { pipe, state }
}

impl<const S: u32> Empty<'_, S> {
    /// Copies one tile into the stage and hands back the next state.
    #[inline(always)]
    fn fill(self, window: u32, source: *const u8) -> PipelineState<S> {
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        bulk_copy_global_to_shared(
            window + RING_BYTE + self.state.index() * TILE_BYTES,
            source,
            TILE_BYTES,
            self.pipe.producer_barrier(&self.state),
        );
        let mut next = self.state;
        next.advance();
        next
    }
}

/// A stage whose data has landed: owns the consumer's state until `release`.
struct Full<'p, const S: u32> {
    pipe: &'p Pipeline<S>,
    state: PipelineState<S>,
    stage: *const f32,
}

#[inline(always)]
unsafe fn wait_full<const S: u32>(pipe: &Pipeline<S>, ring: *const f32, state: PipelineState<S>) -> Full<'_, S> {
    pipe.consumer_wait(&state);
    Full { pipe, state, stage: ring.add((state.index() * TILE_FLOATS) as usize) }
}

impl<const S: u32> Full<'_, S> {
    #[inline(always)]
    unsafe fn column(&self, column: u32) -> f32 {
        let mut sum = 0.0;
        for row in 0..ROWS {
            sum += *self.stage.add((row * COLUMNS + column) as usize);
        }
        sum
    }

    /// Gives the stage back and hands on the next state.
    #[inline(always)]
    fn release(self) -> PipelineState<S> {
        self.pipe.consumer_release(&self.state);
        let mut next = self.state;
        next.advance();
        next
    }
}

#[inline(always)]
unsafe fn source_of(input: *const f32, tile: u32) -> *const u8 {
    input.add((tile * TILE_FLOATS) as usize) as *const u8
}

#[inline(always)]
unsafe fn producer_loop<const S: u32>(pipe: &Pipeline<S>, window: u32, input: *const f32, tiles: u32) {
    let mut state = PipelineState::<S>::producer_start();
    let mut tile = block_idx_x();
    while tile < tiles {
        state = acquire_empty(pipe, state).fill(window, source_of(input, tile));
        tile += grid_dim_x();
    }
    pipe.producer_tail(state);
}

/// Handles threaded through a `while` loop: thread 0 fills, warp 1 drains.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_handle_linear(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize) as *const f32;
    if tid == 0 {
        producer_loop(&pipe, window, input, tiles);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            let full = wait_full(&pipe, ring, state);
            acc += full.column(column);
            state = full.release();
            tile += grid_dim_x();
        }
        *out.add((block_idx_x() * COLUMNS + column) as usize) = acc;
    }
}

/// A handle that views its stage as a `&[f32]` of one tile.
struct FullView<'p, const S: u32> {
    pipe: &'p Pipeline<S>,
    state: PipelineState<S>,
    data: &'p [f32],
}

#[inline(always)]
unsafe fn wait_view<'p, const S: u32>(pipe: &'p Pipeline<S>, ring: *const f32, state: PipelineState<S>) -> FullView<'p, S> {
    pipe.consumer_wait(&state);
    let stage = ring.add((state.index() * TILE_FLOATS) as usize);
    FullView { pipe, state, data: core::slice::from_raw_parts(stage, TILE_FLOATS as usize) }
}

impl<const S: u32> FullView<'_, S> {
    #[inline(always)]
    fn column(&self, column: u32) -> f32 {
        let mut sum = 0.0;
        for row in 0..ROWS {
            sum += self.data[(row * COLUMNS + column) as usize];
        }
        sum
    }

    #[inline(always)]
    fn release(self) -> PipelineState<S> {
        self.pipe.consumer_release(&self.state);
        let mut next = self.state;
        next.advance();
        next
    }
}

/// The consumer's handle carries a slice of its stage; five stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_handle_slice_view(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<5>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<5>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize) as *const f32;
    if tid == 0 {
        producer_loop(&pipe, window, input, tiles);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut state = PipelineState::<5>::new();
        let mut acc = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            let view = wait_view(&pipe, ring, state);
            acc += view.column(column);
            state = view.release();
            tile += grid_dim_x();
        }
        *out.add((block_idx_x() * COLUMNS + column) as usize) = acc;
    }
}

/// Two stages, thread 32 filling for warp 0; the producer spells the handle chain out.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_handle_two_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 32 {
        Pipeline::<2>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<2>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize) as *const f32;
    if tid == 32 {
        let mut state = PipelineState::<2>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            let empty = acquire_empty(&pipe, state);
            state = empty.fill(window, source_of(input, tile));
            tile += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            let full = wait_full(&pipe, ring, state);
            let part = full.column(tid);
            state = full.release();
            acc += part;
            tile += grid_dim_x();
        }
        *out.add((block_idx_x() * COLUMNS + tid) as usize) = acc;
    }
}

/// The consumers count their tiles and run a `for` whose body is one expression of handles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_handle_counted_chain(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<3>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize) as *const f32;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = if b < tiles { (tiles - b).div_ceil(g) } else { 0 };
    if tid == 0 {
        let mut state = PipelineState::<3>::producer_start();
        for k in 0..mine {
            state = acquire_empty(&pipe, state).fill(window, source_of(input, b + k * g));
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut state = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        for _ in 0..mine {
            let full = wait_full(&pipe, ring, state);
            acc += full.column(column);
            state = full.release();
        }
        *out.add((b * COLUMNS + column) as usize) = acc;
    }
}

impl<const S: u32> Full<'_, S> {
    /// Gives the stage back, handing on the state it held (BROKEN use: nobody advances it).
    #[inline(always)]
    fn give_back(self) -> PipelineState<S> {
        self.pipe.consumer_release(&self.state);
        self.state
    }
}

/// BROKEN: the consumers give their handle back with `give_back`, which returns the state it
/// held without advancing it: every pass re-reads stage 0 (its wait returns at once on the
/// completed phase) and releases it again; stages 1 to 3 are never released and the producer
/// waits forever at its sixth tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_handle_bad_give_back_keeps_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize) as *const f32;
    if tid == 0 {
        producer_loop(&pipe, window, input, tiles);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            let full = wait_full(&pipe, ring, state);
            acc += full.column(column);
            state = full.give_back();
            tile += grid_dim_x();
        }
        *out.add((block_idx_x() * COLUMNS + column) as usize) = acc;
    }
}

impl<'p, const S: u32> FullView<'p, S> {
    /// Releases, but keeps the view for a caller that still wants the data (BROKEN use).
    #[inline(always)]
    fn release_keeping_view(self) -> (PipelineState<S>, &'p [f32]) {
        self.pipe.consumer_release(&self.state);
        let mut next = self.state;
        next.advance();
        (next, self.data)
    }
}

/// BROKEN: the consumers release through `release_keeping_view` and sum the slice it hands
/// back afterwards: the stage is read after it was given back, while the producer may be
/// refilling it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_handle_bad_view_outlives_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize) as *const f32;
    if tid == 0 {
        producer_loop(&pipe, window, input, tiles);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            let (next, data) = wait_view(&pipe, ring, state).release_keeping_view();
            for row in 0..ROWS {
                acc += data[(row * COLUMNS + column) as usize];
            }
            state = next;
            tile += grid_dim_x();
        }
        *out.add((block_idx_x() * COLUMNS + column) as usize) = acc;
    }
}

impl<const S: u32> Empty<'_, S> {
    /// Fills the stage with this tile and the one after it, "to halve the copies" (BROKEN use:
    /// a stage holds one tile).
    #[inline(always)]
    fn fill_pair(self, window: u32, source: *const u8) -> PipelineState<S> {
        self.pipe.producer_expect_tx(&self.state, 2 * TILE_BYTES);
        bulk_copy_global_to_shared(
            window + RING_BYTE + self.state.index() * TILE_BYTES,
            source,
            2 * TILE_BYTES,
            self.pipe.producer_barrier(&self.state),
        );
        let mut next = self.state;
        next.advance();
        next
    }

    /// Fills the stage unless the tile would run past the input (BROKEN: the bound is off by
    /// one, so the input's last tile is announced but never copied).
    #[inline(always)]
    fn fill_checked(self, window: u32, input: *const f32, tile: u32, tiles: u32) -> PipelineState<S> {
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        if (tile + 1) * TILE_FLOATS < tiles * TILE_FLOATS {
            bulk_copy_global_to_shared(
                window + RING_BYTE + self.state.index() * TILE_BYTES,
                source_of_checked(input, tile),
                TILE_BYTES,
                self.pipe.producer_barrier(&self.state),
            );
        }
        let mut next = self.state;
        next.advance();
        next
    }
}

#[inline(always)]
fn source_of_checked(input: *const f32, tile: u32) -> *const u8 {
    input.wrapping_add((tile * TILE_FLOATS) as usize) as *const u8
}

/// BROKEN: `fill_pair` copies two tiles (2048 bytes) into a 1024-byte stage: each copy also
/// overwrites the next stage, which the consumers may be reading or waiting on.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_handle_bad_fill_pair(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize) as *const f32;
    if tid == 0 {
        let mut state = PipelineState::<4>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            state = acquire_empty(&pipe, state).fill_pair(window, source_of(input, tile));
            tile += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            let full = wait_full(&pipe, ring, state);
            acc += full.column(column);
            state = full.release();
            tile += grid_dim_x();
        }
        *out.add((block_idx_x() * COLUMNS + column) as usize) = acc;
    }
}

/// BROKEN: `fill_checked` skips the copy of the input's last tile (its `<` should be `<=`)
/// after announcing its bytes: that stage's full barrier never completes and the block that
/// owns the last tile hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r38_handle_bad_fill_checked_last(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / 4) as usize) as *const f32;
    if tid == 0 {
        let mut state = PipelineState::<4>::producer_start();
        let mut tile = block_idx_x();
        while tile < tiles {
            state = acquire_empty(&pipe, state).fill_checked(window, input, tile, tiles);
            tile += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid - 32;
        let mut state = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut tile = block_idx_x();
        while tile < tiles {
            let full = wait_full(&pipe, ring, state);
            acc += full.column(column);
            state = full.release();
            tile += grid_dim_x();
        }
        *out.add((block_idx_x() * COLUMNS + column) as usize) = acc;
    }
}
