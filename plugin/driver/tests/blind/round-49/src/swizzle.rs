//! Style: bank-conflict-aware shared-memory layouts. Every buffer's layout is chosen for the
//! banks the warp's accesses fall into: a tile staged transposed with a padded pitch (9 floats per
//! column, so a warp's lanes stride 9 banks), row groups of partial sums padded to 36 floats,
//! an XOR swizzle of the column by the row, and skewed traversals in which the lanes of a warp
//! start on different rows.

use crate::device::geometry::{WARP_SIZE, block_idx_x, grid_dim_x, lane_id, thread_idx_x, warp_id};
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::row::FourFloats;
use crate::device::shared::{barrier, dynamic_shared_base, dynamic_shared_window_address};

const THREADS: usize = 64;
const SHARED_BYTES: u32 = 8192;
const ROW: usize = 32;
const ROWS: usize = 8;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const STAGES: u32 = 4;
/// The mbarriers at the start of the window, the ring from 1 KiB on.
const RING: u32 = 1024;
/// Pitch of a column of a tile staged transposed: one float of padding after its eight rows.
const PITCH: usize = ROWS + 1;

/// Plain: each tile is staged transposed with a padded pitch (`s[c * 9 + r]`): the warp's stores
/// and its column reads both stride 9 banks. Thread `(w, c)` sums rows `4w..4w + 4` of column `c`
/// as four consecutive floats; the warps meet at the end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_swizzle_padded_transpose(input: *const f32, tiles: u32, out: *mut f32) {
    const PARTIALS: usize = 2048;
    block_threads(THREADS as u32);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let (half, column) = (tid / ROW, tid % ROW);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let transposed = dynamic_shared_base::<f32>();
    let partials = transposed.byte_add(PARTIALS);

    let mut sum = 0.0f32;
    let mut t = block;
    while t < tiles {
        let source = input.add(t as usize * TILE_FLOATS);
        for k in 0..TILE_FLOATS / THREADS {
            let e = tid + THREADS * k;
            *transposed.add((e % ROW) * PITCH + e / ROW) = *source.add(e);
        }
        barrier();
        let mine = transposed.add(column * PITCH + half * (ROWS / 2));
        for j in 0..ROWS / 2 {
            sum += *mine.add(j);
        }
        barrier();
        t += grid;
    }
    if half == 1 {
        *partials.add(column) = sum;
    }
    barrier();
    if half == 0 {
        *out.add(block as usize * ROW + column) = sum + *partials.add(column);
    }
}

/// Pipeline with quad consumers (lane `L` of warp 1: quad `L % 8` of rows `L / 8` and `L / 8 + 4`)
/// whose four row groups of partial sums are parked beside the ring with a pitch of 36 floats, so
/// that the column reads of the epilogue spread over the banks.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_swizzle_padded_partials(input: *const f32, tiles: u32, out: *mut f32) {
    const PARTIALS: usize = 6144;
    const GROUP_PITCH: usize = ROW + 4;
    block_threads(THREADS as u32);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    let (warp, lane) = (warp_id(), lane_id() as usize);
    if tid == 0 {
        Pipeline::<STAGES>::init(window, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let (group, quad) = (lane / 8, lane % 8);

    let mut sums = [0.0f32; 4];
    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if warp == 1 {
        let ring = dynamic_shared_base::<f32>().byte_add(RING as usize);
        let mut state = PipelineState::<STAGES>::new();
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            let upper = *(stage.add(group * ROW + 4 * quad) as *const FourFloats);
            let lower = *(stage.add((group + 4) * ROW + 4 * quad) as *const FourFloats);
            pipe.consumer_release(&state);
            state.advance();
            for j in 0..4 {
                sums[j] += upper.0[j] + lower.0[j];
            }
            tile += grid;
        }
    }
    barrier();

    let partials = dynamic_shared_base::<f32>().byte_add(PARTIALS);
    if warp == 1 {
        *(partials.add(group * GROUP_PITCH + 4 * quad) as *mut FourFloats) = FourFloats(sums);
    }
    barrier();
    if warp == 0 {
        let mut column = 0.0f32;
        for g in 0..4 {
            column += *partials.add(g * GROUP_PITCH + lane);
        }
        *out.add(block as usize * ROW + lane) = column;
    }
}

/// Plain: element `(r, c)` of each tile is staged at `r * 32 + (c ^ r)`, an XOR swizzle of the
/// column by the row, and read back through the same swizzle; thread `(w, c)` sums rows
/// `4w..4w + 4` of column `c`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_swizzle_xor_rows(input: *const f32, tiles: u32, out: *mut f32) {
    const PARTIALS: usize = 2048;
    block_threads(THREADS as u32);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let (half, column) = (tid / ROW, tid % ROW);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let swizzled = dynamic_shared_base::<f32>();
    let partials = swizzled.byte_add(PARTIALS);

    let mut sum = 0.0f32;
    let mut t = block;
    while t < tiles {
        let source = input.add(t as usize * TILE_FLOATS);
        for k in 0..TILE_FLOATS / THREADS {
            let e = tid + THREADS * k;
            let (r, c) = (e / ROW, e % ROW);
            *swizzled.add(r * ROW + (c ^ r)) = *source.add(e);
        }
        barrier();
        for j in 0..ROWS / 2 {
            let r = half * (ROWS / 2) + j;
            sum += *swizzled.add(r * ROW + (column ^ r));
        }
        barrier();
        t += grid;
    }
    if half == 1 {
        *partials.add(column) = sum;
    }
    barrier();
    if half == 0 {
        *out.add(block as usize * ROW + column) = sum + *partials.add(column);
    }
}

/// Pipeline whose consumer lanes walk each stage's rows in a skewed order: lane `c` starts at row
/// `c / 4` and wraps around, so the warp's loads at any step fall in eight different rows.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_swizzle_skewed_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS as u32);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(window, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let (block, grid) = (block_idx_x(), grid_dim_x());

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let skew = column / 4;
        let ring = dynamic_shared_base::<f32>().byte_add(RING as usize);
        let mut sum = 0.0f32;
        let mut state = PipelineState::<STAGES>::new();
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for i in 0..ROWS {
                sum += *stage.add(((i + skew) % ROWS) * ROW + column);
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add(block as usize * ROW + column) = sum;
    }
}

/// BROKEN: `r49_swizzle_padded_transpose` with the tile kept at the top of the window (bytes
/// 7168..8192, sized for an unpadded tile) and the partials at the bottom: the padded tile needs
/// 288 floats, so the stores of the last columns reach past byte 8192 (a fault).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_swizzle_bad_padding_past_window(input: *const f32, tiles: u32, out: *mut f32) {
    const TRANSPOSED: usize = SHARED_BYTES as usize - TILE_BYTES as usize;
    block_threads(THREADS as u32);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let (half, column) = (tid / ROW, tid % ROW);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let partials = dynamic_shared_base::<f32>();
    let transposed = partials.byte_add(TRANSPOSED);

    let mut sum = 0.0f32;
    let mut t = block;
    while t < tiles {
        let source = input.add(t as usize * TILE_FLOATS);
        for k in 0..TILE_FLOATS / THREADS {
            let e = tid + THREADS * k;
            *transposed.add((e % ROW) * PITCH + e / ROW) = *source.add(e);
        }
        barrier();
        let mine = transposed.add(column * PITCH + half * (ROWS / 2));
        for j in 0..ROWS / 2 {
            sum += *mine.add(j);
        }
        barrier();
        t += grid;
    }
    if half == 1 {
        *partials.add(column) = sum;
    }
    barrier();
    if half == 0 {
        *out.add(block as usize * ROW + column) = sum + *partials.add(column);
    }
}

/// BROKEN: the producer pads each stage to 1040 bytes (stages start on different banks), but the
/// consumers still step stages by a tile (256 floats): from stage 1 on they read 4, 8, 12 floats
/// short of the stage the copy filled (wrong sums).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_swizzle_bad_padded_stage_stride(input: *const f32, tiles: u32, out: *mut f32) {
    const STAGE_PITCH: u32 = TILE_BYTES + 16;
    block_threads(THREADS as u32);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(window, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let (block, grid) = (block_idx_x(), grid_dim_x());

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * STAGE_PITCH,
                input.add(tile as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let ring = dynamic_shared_base::<f32>().byte_add(RING as usize);
        let mut sum = 0.0f32;
        let mut state = PipelineState::<STAGES>::new();
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for r in 0..ROWS {
                sum += *stage.add(r * ROW + column);
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add(block as usize * ROW + column) = sum;
    }
}

/// BROKEN: `r49_swizzle_xor_rows` with the staging swizzle keyed by the thread (`tid & 7`) instead
/// of the row: `c ^ (c & 7)` sends eight lanes to the same slot of a row, and most slots are never
/// written before they are read (threads colliding on one slot; wrong sums).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_swizzle_bad_key_from_thread(input: *const f32, tiles: u32, out: *mut f32) {
    const PARTIALS: usize = 2048;
    block_threads(THREADS as u32);
    dynamic_shared_bytes(SHARED_BYTES);
    let tid = thread_idx_x() as usize;
    let (half, column) = (tid / ROW, tid % ROW);
    let (block, grid) = (block_idx_x(), grid_dim_x());
    let swizzled = dynamic_shared_base::<f32>();
    let partials = swizzled.byte_add(PARTIALS);
    let key = tid & 7;

    let mut sum = 0.0f32;
    let mut t = block;
    while t < tiles {
        let source = input.add(t as usize * TILE_FLOATS);
        for k in 0..TILE_FLOATS / THREADS {
            let e = tid + THREADS * k;
            let (r, c) = (e / ROW, e % ROW);
            *swizzled.add(r * ROW + (c ^ key)) = *source.add(e);
        }
        barrier();
        for j in 0..ROWS / 2 {
            let r = half * (ROWS / 2) + j;
            sum += *swizzled.add(r * ROW + (column ^ r));
        }
        barrier();
        t += grid;
    }
    if half == 1 {
        *partials.add(column) = sum;
    }
    barrier();
    if half == 0 {
        *out.add(block as usize * ROW + column) = sum + *partials.add(column);
    }
}

/// BROKEN: `r49_swizzle_skewed_rows` with the wrap-around dropped: lane `c` reads rows
/// `c / 4 .. c / 4 + 8`, up to row 14, which lie in the next stage (or past the ring), where the
/// producer may be copying another tile (wrong sums).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r49_swizzle_bad_skew_without_wrap(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS as u32);
    dynamic_shared_bytes(SHARED_BYTES);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(window, WARP_SIZE);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let (block, grid) = (block_idx_x(), grid_dim_x());

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                input.add(tile as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if warp_id() == 1 {
        let column = lane_id() as usize;
        let skew = column / 4;
        let ring = dynamic_shared_base::<f32>().byte_add(RING as usize);
        let mut sum = 0.0f32;
        let mut state = PipelineState::<STAGES>::new();
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_FLOATS);
            for i in 0..ROWS {
                sum += *stage.add((i + skew) * ROW + column);
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add(block as usize * ROW + column) = sum;
    }
}
