//! Column sums in the idiom of an image-processing codebase: a tile is an 8-row, 32-pixel
//! single-channel image and the result its vertical projection profile. Images are described
//! by `width`/`height`/`pitch`/`channels`, read through views with `row(y)` and `pixel(x, y)`,
//! copied row by row as `memcpy2D` does, and staged in shared memory with a padded pitch.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const BLOCK_THREADS: u32 = 64;
const SHARED_BYTES: u32 = 8192;
const PIXEL_BYTES: u32 = size_of::<f32>() as u32;

/// An image's shape: `pitch` is the distance between rows, in pixels.
#[derive(Clone, Copy)]
struct ImageDesc {
    width: u32,
    height: u32,
    pitch: u32,
    channels: u32,
}

impl ImageDesc {
    /// A dense image of `width × height` pixels; like the rest of the codebase it defaults to
    /// RGBA.
    const fn new(width: u32, height: u32) -> ImageDesc {
        ImageDesc { width, height, pitch: width, channels: 4 }
    }

    const fn gray(width: u32, height: u32) -> ImageDesc {
        ImageDesc { width, height, pitch: width, channels: 1 }
    }

    const fn with_pitch(self, pitch: u32) -> ImageDesc {
        ImageDesc { pitch, ..self }
    }

    const fn row_bytes(&self) -> u32 {
        self.width * self.channels * PIXEL_BYTES
    }

    const fn pitch_bytes(&self) -> u32 {
        self.pitch * self.channels * PIXEL_BYTES
    }

    const fn size_bytes(&self) -> u32 {
        self.pitch_bytes() * self.height
    }

    const fn pixels(&self) -> u32 {
        self.pitch * self.height
    }
}

/// One input tile: 32 × 8 gray pixels, dense.
const TILE: ImageDesc = ImageDesc::gray(32, 8);
/// The shared-memory copy of a tile padded by one pixel per row against bank conflicts.
const TILE_PADDED: ImageDesc = TILE.with_pitch(33);

/// A read-only view of an image.
#[derive(Clone, Copy)]
struct ImageView {
    data: *const f32,
    pitch: u32,
}

impl ImageView {
    #[inline(always)]
    fn new(data: *const f32, desc: ImageDesc) -> ImageView {
        ImageView { data, pitch: desc.pitch }
    }

    #[inline(always)]
    unsafe fn row(&self, y: u32) -> *const f32 {
        self.data.add((y * self.pitch) as usize)
    }

    #[inline(always)]
    unsafe fn pixel(&self, x: u32, y: u32) -> f32 {
        *self.row(y).add(x as usize)
    }
}

/// Vertical projection of one column: the sum of `pixel(x, y)` down the image.
#[inline(always)]
unsafe fn project_column(view: ImageView, x: u32, height: u32) -> f32 {
    let mut sum = 0.0f32;
    for y in 0..height {
        sum += view.pixel(x, y);
    }
    sum
}

/// `memcpy2D` onto the copy engine: `height` rows of `row_bytes`, each row its own bulk copy,
/// all completing on `barrier`.
#[inline(always)]
unsafe fn memcpy2d_async(dst: u32, dst_pitch_bytes: u32, src: *const f32, src_pitch: u32, row_bytes: u32, height: u32, barrier: u32) {
    for y in 0..height {
        bulk_copy_global_to_shared(dst + y * dst_pitch_bytes, src.add((y * src_pitch) as usize) as *const u8, row_bytes, barrier);
    }
}

const STAGES: u32 = 4;
const RING_BYTE: u32 = 1024;

/// Each stage filled row by row with `memcpy2D` (eight 128-byte copies under one `expect_tx`
/// of the image's bytes); the consumers take the vertical projection of their column.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_imaging_memcpy2d_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(window, TILE.width);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / PIXEL_BYTES) as usize);
    let (block, grid) = (block_idx_x(), grid_dim_x());

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE.size_bytes());
            let src = input.add((tile * TILE.pixels()) as usize);
            let dst = window + RING_BYTE + state.index() * TILE.size_bytes();
            memcpy2d_async(dst, TILE.pitch_bytes(), src, TILE.pitch, TILE.row_bytes(), TILE.height, pipe.producer_barrier(&state));
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let x = tid - 32;
        let mut state = PipelineState::<STAGES>::new();
        let mut profile = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let view = ImageView::new(ring.add((state.index() * TILE.pixels()) as usize), TILE);
            profile += project_column(view, x, TILE.height);
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add((block * TILE.width + x) as usize) = profile;
    }
}

const TWO_STAGES: u32 = 2;
const RING_BYTE_SMALL: u32 = 256;
const PRODUCER_THREAD: u32 = 63;

/// A two-stage ring, one copy per image, the last thread producing and the first warp
/// projecting through `ImageView`s.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_imaging_projection_view(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == PRODUCER_THREAD {
        Pipeline::<TWO_STAGES>::init(window, TILE.width);
    }
    barrier();
    let pipe = Pipeline::<TWO_STAGES>::attach(window);
    let (block, grid) = (block_idx_x(), grid_dim_x());

    if tid == PRODUCER_THREAD {
        let mut state = PipelineState::<TWO_STAGES>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE.size_bytes());
            bulk_copy_global_to_shared(
                window + RING_BYTE_SMALL + state.index() * TILE.size_bytes(),
                input.add((tile * TILE.pixels()) as usize) as *const u8,
                TILE.size_bytes(),
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid < TILE.width {
        let x = tid;
        let ring = dynamic_shared_base::<f32>().add((RING_BYTE_SMALL / PIXEL_BYTES) as usize);
        let mut state = PipelineState::<TWO_STAGES>::new();
        let mut profile = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let image = ImageView::new(ring.add((state.index() * TILE.pixels()) as usize), TILE);
            profile += project_column(image, x, TILE.height);
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add((block * TILE.width + x) as usize) = profile;
    }
}

/// No pipeline: each tile is staged into a padded shared image (pitch 33), a barrier, then
/// the top half of the block projects rows 0..4 and the bottom half rows 4..8; the two
/// half-profiles meet in shared memory at the end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_imaging_padded_smem(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let smem = dynamic_shared_base::<f32>();
    let profiles = smem.add(TILE_PADDED.pixels() as usize); // two rows of 32 after the image
    let tid = thread_idx_x();
    let (x, half) = (tid % TILE.width, tid / TILE.width);
    let band = TILE.height / 2;
    let staged = ImageView::new(smem, TILE_PADDED);
    let mut profile = 0.0f32;

    let mut tile = block_idx_x();
    while tile < tiles {
        let src = ImageView::new(input.add((tile * TILE.pixels()) as usize), TILE);
        let mut i = tid;
        while i < TILE.width * TILE.height {
            let (px, py) = (i % TILE.width, i / TILE.width);
            *smem.add((py * TILE_PADDED.pitch + px) as usize) = src.pixel(px, py);
            i += BLOCK_THREADS;
        }
        barrier();
        for y in half * band..(half + 1) * band {
            profile += staged.pixel(x, y);
        }
        barrier();
        tile += grid_dim_x();
    }

    *profiles.add((half * TILE.width + x) as usize) = profile;
    barrier();
    if half == 0 {
        *out.add((block_idx_x() * TILE.width + x) as usize) = *profiles.add(x as usize) + *profiles.add((TILE.width + x) as usize);
    }
}

/// No pipeline and no staging: the top warp projects rows 0..4 of every tile straight from
/// global memory, the bottom warp rows 4..8, and the two ROI profiles are added through
/// shared memory after a barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_imaging_split_roi(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let roi_profiles = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    let (x, roi) = (tid % TILE.width, tid / TILE.width);
    let band = TILE.height / 2;
    let mut profile = 0.0f32;

    let mut tile = block_idx_x();
    while tile < tiles {
        let image = ImageView::new(input.add((tile * TILE.pixels()) as usize), TILE);
        let top = ImageView { data: image.row(roi * band), pitch: image.pitch };
        profile += project_column(top, x, band);
        tile += grid_dim_x();
    }

    *roi_profiles.add((roi * TILE.width + x) as usize) = profile;
    barrier();
    if roi == 0 {
        *out.add((block_idx_x() * TILE.width + x) as usize) = *roi_profiles.add(x as usize) + *roi_profiles.add((TILE.width + x) as usize);
    }
}

/// BROKEN: the ring holds padded images (pitch 33, the shared-memory convention), so
/// `memcpy2D` lands row `y` at `y * 132` bytes into the stage: every row but the first is a
/// bulk copy to an address that is not 16-byte aligned, and the copy faults.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_imaging_bad_padded_stage_copy(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(window, TILE.width);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / PIXEL_BYTES) as usize);
    let (block, grid) = (block_idx_x(), grid_dim_x());

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE.row_bytes() * TILE.height);
            let src = input.add((tile * TILE.pixels()) as usize);
            let dst = window + RING_BYTE + state.index() * TILE_PADDED.size_bytes();
            memcpy2d_async(dst, TILE_PADDED.pitch_bytes(), src, TILE.pitch, TILE.row_bytes(), TILE.height, pipe.producer_barrier(&state));
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let x = tid - 32;
        let mut state = PipelineState::<STAGES>::new();
        let mut profile = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let view = ImageView::new(ring.add((state.index() * TILE_PADDED.pixels()) as usize), TILE_PADDED);
            profile += project_column(view, x, TILE.height);
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add((block * TILE.width + x) as usize) = profile;
    }
}

/// BROKEN: the stage's byte count comes from `ImageDesc::new(32, 8)`, which defaults to four
/// channels: `expect_tx` announces 4096 bytes for a 1024-byte copy, so no full barrier ever
/// completes and the consumers hang.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_imaging_bad_rgba_expect(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    const FRAME: ImageDesc = ImageDesc::new(32, 8);
    const TILE_BYTES: u32 = 32 * 8 * PIXEL_BYTES;

    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == PRODUCER_THREAD {
        Pipeline::<TWO_STAGES>::init(window, TILE.width);
    }
    barrier();
    let pipe = Pipeline::<TWO_STAGES>::attach(window);
    let (block, grid) = (block_idx_x(), grid_dim_x());

    if tid == PRODUCER_THREAD {
        let mut state = PipelineState::<TWO_STAGES>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, FRAME.size_bytes());
            bulk_copy_global_to_shared(
                window + RING_BYTE_SMALL + state.index() * TILE_BYTES,
                input.add((tile * TILE.pixels()) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid < TILE.width {
        let x = tid;
        let ring = dynamic_shared_base::<f32>().add((RING_BYTE_SMALL / PIXEL_BYTES) as usize);
        let mut state = PipelineState::<TWO_STAGES>::new();
        let mut profile = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let image = ImageView::new(ring.add((state.index() * TILE.pixels()) as usize), TILE);
            profile += project_column(image, x, TILE.height);
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add((block * TILE.width + x) as usize) = profile;
    }
}

/// BROKEN: the barrier between writing the two ROI profiles and adding them was dropped: the
/// top warp reads the bottom warp's profile while the bottom warp may still be writing it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_imaging_bad_roi_combine_unsynced(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let roi_profiles = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    let (x, roi) = (tid % TILE.width, tid / TILE.width);
    let band = TILE.height / 2;
    let mut profile = 0.0f32;

    let mut tile = block_idx_x();
    while tile < tiles {
        let image = ImageView::new(input.add((tile * TILE.pixels()) as usize), TILE);
        let top = ImageView { data: image.row(roi * band), pitch: image.pitch };
        profile += project_column(top, x, band);
        tile += grid_dim_x();
    }

    *roi_profiles.add((roi * TILE.width + x) as usize) = profile;
    if roi == 0 {
        *out.add((block_idx_x() * TILE.width + x) as usize) = *roi_profiles.add(x as usize) + *roi_profiles.add((TILE.width + x) as usize);
    }
}

/// BROKEN: the ring is filled dense (pitch 32) but the consumers view each stage with the
/// padded shared-memory pitch (33): row `y` is read `y` pixels to the right, and the last rows
/// run into the next stage, so the profiles are wrong.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_imaging_bad_view_pitch(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(window, TILE.width);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let ring = dynamic_shared_base::<f32>().add((RING_BYTE / PIXEL_BYTES) as usize);
    let (block, grid) = (block_idx_x(), grid_dim_x());

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE.size_bytes());
            let src = input.add((tile * TILE.pixels()) as usize);
            let dst = window + RING_BYTE + state.index() * TILE.size_bytes();
            memcpy2d_async(dst, TILE.pitch_bytes(), src, TILE.pitch, TILE.row_bytes(), TILE.height, pipe.producer_barrier(&state));
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let x = tid - 32;
        let mut state = PipelineState::<STAGES>::new();
        let mut profile = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let view = ImageView::new(ring.add((state.index() * TILE.pixels()) as usize), TILE_PADDED);
            profile += project_column(view, x, TILE.height);
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add((block * TILE.width + x) as usize) = profile;
    }
}
