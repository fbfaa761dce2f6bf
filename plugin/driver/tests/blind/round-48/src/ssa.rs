//! Module `ssa`: three-address code in static single assignment form, written by hand the way
//! a compiler's middle end prints it. Every `let` binds the result of exactly one operation
//! (one arithmetic operator, one comparison, one call, one load or one pointer offset) to a
//! fresh temporary `vN` (`cN` for predicates); no expression nests another. The only variables
//! assigned twice are the loop-carried ones (the φ-nodes at a loop header); a tile or row loop is a
//! header block that computes its exit predicate and branches out with `break` (a few row loops
//! over a constant count keep Rust's `for r in 0..ROWS`, which lowers to the same header).

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{bulk_copy_global_to_shared, Pipeline, PipelineState};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const BLOCK: u32 = 64;
const WINDOW_BYTES: u32 = 8192;
const STAGES: u32 = 4;
const COLUMNS: usize = 32;
const ROWS: usize = 8;
const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const BARRIERS: u32 = 0;
const RING: u32 = 1024;
const RING_FLOATS: usize = 256;
const CONSUMERS: u32 = 32;

/// Pipeline in three-address form: producer thread 0, consumers 32..63.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_ssa_pipeline_basic(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let v0 = thread_idx_x();
    let v1 = block_idx_x();
    let v2 = grid_dim_x();
    let v3 = dynamic_shared_window_address();
    let v4 = dynamic_shared_base::<f32>();
    let v5 = v3 + BARRIERS;
    let v6 = v3 + RING;
    let c0 = v0 == 0;
    if c0 {
        let _ = Pipeline::<STAGES>::init(v5, CONSUMERS);
    }
    barrier();
    let v7 = Pipeline::<STAGES>::attach(v5);
    if c0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = v1;
        loop {
            let c1 = t >= tiles;
            if c1 {
                break;
            }
            v7.producer_acquire(&st);
            v7.producer_expect_tx(&st, TILE_BYTES);
            let v10 = st.index();
            let v11 = v10 * TILE_BYTES;
            let v12 = v6 + v11;
            let v13 = t as usize;
            let v14 = v13 * TILE_FLOATS;
            let v15 = input.add(v14);
            let v16 = v15 as *const u8;
            let v17 = v7.producer_barrier(&st);
            bulk_copy_global_to_shared(v12, v16, TILE_BYTES, v17);
            st.advance();
            t = t + v2;
        }
        v7.producer_tail(st);
    } else {
        let c2 = v0 >= 32;
        if c2 {
            let v20 = v0 - 32;
            let v21 = v20 as usize;
            let mut st = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut t = v1;
            loop {
                let c3 = t >= tiles;
                if c3 {
                    break;
                }
                v7.consumer_wait(&st);
                let v22 = st.index();
                let v23 = v22 as usize;
                let v24 = v23 * TILE_FLOATS;
                let v25 = v24 + RING_FLOATS;
                let v26 = v4.add(v25);
                let mut r = 0usize;
                loop {
                    let c4 = r >= ROWS;
                    if c4 {
                        break;
                    }
                    let v27 = r * COLUMNS;
                    let v28 = v27 + v21;
                    let v29 = v26.add(v28);
                    let v30 = *v29;
                    acc = acc + v30;
                    r = r + 1;
                }
                v7.consumer_release(&st);
                st.advance();
                t = t + v2;
            }
            let v31 = v1 as usize;
            let v32 = v31 * COLUMNS;
            let v33 = v32 + v21;
            let v34 = out.add(v33);
            *v34 = acc;
        }
    }
}

/// Pipeline whose consumers keep the previous stage until the next one is full (CUTLASS's
/// order): the first tile is peeled off before the loop; in the loop, wait, read, release the
/// previous stage, keep this one; after the loop, release the last one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_ssa_hold_previous(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let v0 = thread_idx_x();
    let v1 = block_idx_x();
    let v2 = grid_dim_x();
    let v3 = dynamic_shared_window_address();
    let v4 = dynamic_shared_base::<f32>();
    let v5 = v3 + BARRIERS;
    let v6 = v3 + RING;
    let c0 = v0 == 0;
    if c0 {
        let _ = Pipeline::<STAGES>::init(v5, CONSUMERS);
    }
    barrier();
    let v7 = Pipeline::<STAGES>::attach(v5);
    if c0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = v1;
        loop {
            let c1 = t >= tiles;
            if c1 {
                break;
            }
            v7.producer_acquire(&st);
            v7.producer_expect_tx(&st, TILE_BYTES);
            let v10 = st.index();
            let v11 = v10 * TILE_BYTES;
            let v12 = v6 + v11;
            let v13 = t as usize;
            let v14 = v13 * TILE_FLOATS;
            let v15 = input.add(v14);
            let v16 = v15 as *const u8;
            let v17 = v7.producer_barrier(&st);
            bulk_copy_global_to_shared(v12, v16, TILE_BYTES, v17);
            st.advance();
            t = t + v2;
        }
        v7.producer_tail(st);
    } else {
        let c2 = v0 >= 32;
        if c2 {
            let v20 = v0 - 32;
            let v21 = v20 as usize;
            let mut st = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let c3 = v1 < tiles;
            if c3 {
                // peeled first tile
                v7.consumer_wait(&st);
                let v22 = st.index();
                let v23 = v22 as usize;
                let v24 = v23 * TILE_FLOATS;
                let v25 = v24 + RING_FLOATS;
                let v26 = v4.add(v25);
                for r in 0..ROWS {
                    let v27 = r * COLUMNS;
                    let v28 = v27 + v21;
                    let v29 = v26.add(v28);
                    let v30 = *v29;
                    acc = acc + v30;
                }
                let mut prev = st;
                st.advance();
                let mut t = v1 + v2;
                loop {
                    let c4 = t >= tiles;
                    if c4 {
                        break;
                    }
                    v7.consumer_wait(&st);
                    let v40 = st.index();
                    let v41 = v40 as usize;
                    let v42 = v41 * TILE_FLOATS;
                    let v43 = v42 + RING_FLOATS;
                    let v44 = v4.add(v43);
                    for r in 0..ROWS {
                        let v45 = r * COLUMNS;
                        let v46 = v45 + v21;
                        let v47 = v44.add(v46);
                        let v48 = *v47;
                        acc = acc + v48;
                    }
                    v7.consumer_release(&prev);
                    prev = st;
                    st.advance();
                    t = t + v2;
                }
                v7.consumer_release(&prev);
            }
            let v31 = v1 as usize;
            let v32 = v31 * COLUMNS;
            let v33 = v32 + v21;
            let v34 = out.add(v33);
            *v34 = acc;
        }
    }
}

/// Plain shared memory in three-address form: stage (four stores a thread), barrier, warp 0
/// sums its column, barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_ssa_plain_staged(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let v0 = thread_idx_x();
    let v1 = block_idx_x();
    let v2 = grid_dim_x();
    let v3 = dynamic_shared_base::<f32>();
    let v4 = v0 as usize;
    let c0 = v4 < COLUMNS;
    let mut acc = 0.0f32;
    let mut t = v1;
    loop {
        let c1 = t >= tiles;
        if c1 {
            break;
        }
        let v10 = t as usize;
        let v11 = v10 * TILE_FLOATS;
        let v12 = input.add(v11);
        for k in 0..4 {
            let v13 = 64 * k;
            let v14 = v4 + v13;
            let v15 = v12.add(v14);
            let v16 = *v15;
            let v17 = v3.add(v14);
            *v17 = v16;
        }
        barrier();
        if c0 {
            for r in 0..ROWS {
                let v18 = r * COLUMNS;
                let v19 = v18 + v4;
                let v20 = v3.add(v19);
                let v21 = *v20;
                acc = acc + v21;
            }
        }
        barrier();
        t = t + v2;
    }
    if c0 {
        let v30 = v1 as usize;
        let v31 = v30 * COLUMNS;
        let v32 = v31 + v4;
        let v33 = out.add(v32);
        *v33 = acc;
    }
}

/// Pipeline whose shared addresses are packed with bitwise OR of disjoint fields, as a code
/// generator emits them: the ring at byte 4096 (bit 12), the stage in bits 10..12 of the
/// destination, and for a consumer's load `ring | stage << 8 | row << 5 | column` in floats.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_ssa_or_packed_addresses(input: *const f32, tiles: u32, out: *mut f32) {
    const PACKED_RING: u32 = 4096;
    const PACKED_RING_FLOATS: usize = 1024;
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let v0 = thread_idx_x();
    let v1 = block_idx_x();
    let v2 = grid_dim_x();
    let v3 = dynamic_shared_window_address();
    let v4 = dynamic_shared_base::<f32>();
    let v5 = v3 + BARRIERS;
    let c0 = v0 == 0;
    if c0 {
        let _ = Pipeline::<STAGES>::init(v5, CONSUMERS);
    }
    barrier();
    let v7 = Pipeline::<STAGES>::attach(v5);
    if c0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = v1;
        loop {
            let c1 = t >= tiles;
            if c1 {
                break;
            }
            v7.producer_acquire(&st);
            v7.producer_expect_tx(&st, TILE_BYTES);
            let v10 = st.index();
            let v11 = v10 << 10;
            let v12 = PACKED_RING | v11;
            let v13 = v3 + v12;
            let v14 = t as usize;
            let v15 = v14 * TILE_FLOATS;
            let v16 = input.add(v15);
            let v17 = v16 as *const u8;
            let v18 = v7.producer_barrier(&st);
            bulk_copy_global_to_shared(v13, v17, TILE_BYTES, v18);
            st.advance();
            t = t + v2;
        }
        v7.producer_tail(st);
    } else {
        let c2 = v0 >= 32;
        if c2 {
            let v20 = v0 - 32;
            let v21 = v20 as usize;
            let mut st = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut t = v1;
            loop {
                let c3 = t >= tiles;
                if c3 {
                    break;
                }
                v7.consumer_wait(&st);
                let v22 = st.index();
                let v23 = v22 as usize;
                let v24 = v23 << 8;
                let v25 = PACKED_RING_FLOATS | v24;
                for r in 0..ROWS {
                    let v26 = r << 5;
                    let v27 = v25 | v26;
                    let v28 = v27 | v21;
                    let v29 = v4.add(v28);
                    let v30 = *v29;
                    acc = acc + v30;
                }
                v7.consumer_release(&st);
                st.advance();
                t = t + v2;
            }
            let v31 = v1 as usize;
            let v32 = v31 * COLUMNS;
            let v33 = v32 + v21;
            let v34 = out.add(v33);
            *v34 = acc;
        }
    }
}

/// BROKEN: the CUTLASS order with the release after the loop forgotten: the consumers leave
/// holding the last stage, and the producer's tail waits for it forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_ssa_bad_hold_never_released(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let v0 = thread_idx_x();
    let v1 = block_idx_x();
    let v2 = grid_dim_x();
    let v3 = dynamic_shared_window_address();
    let v4 = dynamic_shared_base::<f32>();
    let v5 = v3 + BARRIERS;
    let v6 = v3 + RING;
    let c0 = v0 == 0;
    if c0 {
        let _ = Pipeline::<STAGES>::init(v5, CONSUMERS);
    }
    barrier();
    let v7 = Pipeline::<STAGES>::attach(v5);
    if c0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = v1;
        loop {
            let c1 = t >= tiles;
            if c1 {
                break;
            }
            v7.producer_acquire(&st);
            v7.producer_expect_tx(&st, TILE_BYTES);
            let v10 = st.index();
            let v11 = v10 * TILE_BYTES;
            let v12 = v6 + v11;
            let v13 = t as usize;
            let v14 = v13 * TILE_FLOATS;
            let v15 = input.add(v14);
            let v16 = v15 as *const u8;
            let v17 = v7.producer_barrier(&st);
            bulk_copy_global_to_shared(v12, v16, TILE_BYTES, v17);
            st.advance();
            t = t + v2;
        }
        v7.producer_tail(st);
    } else {
        let c2 = v0 >= 32;
        if c2 {
            let v20 = v0 - 32;
            let v21 = v20 as usize;
            let mut st = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let c3 = v1 < tiles;
            if c3 {
                v7.consumer_wait(&st);
                let v22 = st.index();
                let v23 = v22 as usize;
                let v24 = v23 * TILE_FLOATS;
                let v25 = v24 + RING_FLOATS;
                let v26 = v4.add(v25);
                for r in 0..ROWS {
                    let v27 = r * COLUMNS;
                    let v28 = v27 + v21;
                    let v29 = v26.add(v28);
                    let v30 = *v29;
                    acc = acc + v30;
                }
                let mut prev = st;
                st.advance();
                let mut t = v1 + v2;
                loop {
                    let c4 = t >= tiles;
                    if c4 {
                        break;
                    }
                    v7.consumer_wait(&st);
                    let v40 = st.index();
                    let v41 = v40 as usize;
                    let v42 = v41 * TILE_FLOATS;
                    let v43 = v42 + RING_FLOATS;
                    let v44 = v4.add(v43);
                    for r in 0..ROWS {
                        let v45 = r * COLUMNS;
                        let v46 = v45 + v21;
                        let v47 = v44.add(v46);
                        let v48 = *v47;
                        acc = acc + v48;
                    }
                    v7.consumer_release(&prev);
                    prev = st;
                    st.advance();
                    t = t + v2;
                }
            }
            let v31 = v1 as usize;
            let v32 = v31 * COLUMNS;
            let v33 = v32 + v21;
            let v34 = out.add(v33);
            *v34 = acc;
        }
    }
}

/// BROKEN: the ring was moved to byte 1024 without moving the stage field: `1024 | index << 10`
/// shares bit 10 with the stage field, so stages 0 and 1 (and 2 and 3) are the same bytes, and
/// each copy overwrites the tile the consumers are about to read.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_ssa_bad_or_overlap(input: *const f32, tiles: u32, out: *mut f32) {
    const PACKED_RING: u32 = 1024;
    const PACKED_RING_FLOATS: usize = 256;
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let v0 = thread_idx_x();
    let v1 = block_idx_x();
    let v2 = grid_dim_x();
    let v3 = dynamic_shared_window_address();
    let v4 = dynamic_shared_base::<f32>();
    let v5 = v3 + BARRIERS;
    let c0 = v0 == 0;
    if c0 {
        let _ = Pipeline::<STAGES>::init(v5, CONSUMERS);
    }
    barrier();
    let v7 = Pipeline::<STAGES>::attach(v5);
    if c0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = v1;
        loop {
            let c1 = t >= tiles;
            if c1 {
                break;
            }
            v7.producer_acquire(&st);
            v7.producer_expect_tx(&st, TILE_BYTES);
            let v10 = st.index();
            let v11 = v10 << 10;
            let v12 = PACKED_RING | v11;
            let v13 = v3 + v12;
            let v14 = t as usize;
            let v15 = v14 * TILE_FLOATS;
            let v16 = input.add(v15);
            let v17 = v16 as *const u8;
            let v18 = v7.producer_barrier(&st);
            bulk_copy_global_to_shared(v13, v17, TILE_BYTES, v18);
            st.advance();
            t = t + v2;
        }
        v7.producer_tail(st);
    } else {
        let c2 = v0 >= 32;
        if c2 {
            let v20 = v0 - 32;
            let v21 = v20 as usize;
            let mut st = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut t = v1;
            loop {
                let c3 = t >= tiles;
                if c3 {
                    break;
                }
                v7.consumer_wait(&st);
                let v22 = st.index();
                let v23 = v22 as usize;
                let v24 = v23 << 8;
                let v25 = PACKED_RING_FLOATS | v24;
                for r in 0..ROWS {
                    let v26 = r << 5;
                    let v27 = v25 | v26;
                    let v28 = v27 | v21;
                    let v29 = v4.add(v28);
                    let v30 = *v29;
                    acc = acc + v30;
                }
                v7.consumer_release(&st);
                st.advance();
                t = t + v2;
            }
            let v31 = v1 as usize;
            let v32 = v31 * COLUMNS;
            let v33 = v32 + v21;
            let v34 = out.add(v33);
            *v34 = acc;
        }
    }
}

/// BROKEN: plain three-address staging with the second barrier of the pass left out: warp 1
/// stores the next tile into the buffer while warp 0 still loads this one.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_ssa_bad_plain_reuse_race(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let v0 = thread_idx_x();
    let v1 = block_idx_x();
    let v2 = grid_dim_x();
    let v3 = dynamic_shared_base::<f32>();
    let v4 = v0 as usize;
    let c0 = v4 < COLUMNS;
    let mut acc = 0.0f32;
    let mut t = v1;
    loop {
        let c1 = t >= tiles;
        if c1 {
            break;
        }
        let v10 = t as usize;
        let v11 = v10 * TILE_FLOATS;
        let v12 = input.add(v11);
        for k in 0..4 {
            let v13 = 64 * k;
            let v14 = v4 + v13;
            let v15 = v12.add(v14);
            let v16 = *v15;
            let v17 = v3.add(v14);
            *v17 = v16;
        }
        barrier();
        if c0 {
            for r in 0..ROWS {
                let v18 = r * COLUMNS;
                let v19 = v18 + v4;
                let v20 = v3.add(v19);
                let v21 = *v20;
                acc = acc + v21;
            }
        }
        t = t + v2;
    }
    if c0 {
        let v30 = v1 as usize;
        let v31 = v30 * COLUMNS;
        let v32 = v31 + v4;
        let v33 = out.add(v32);
        *v33 = acc;
    }
}

/// BROKEN: the consumers' exit predicate looks one tile ahead (`t + g >= tiles`), so they stop
/// one tile short; the last stage is never released and the producer's tail waits forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r48_ssa_bad_consumer_one_short(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK);
    dynamic_shared_bytes(WINDOW_BYTES);
    let v0 = thread_idx_x();
    let v1 = block_idx_x();
    let v2 = grid_dim_x();
    let v3 = dynamic_shared_window_address();
    let v4 = dynamic_shared_base::<f32>();
    let v5 = v3 + BARRIERS;
    let v6 = v3 + RING;
    let c0 = v0 == 0;
    if c0 {
        let _ = Pipeline::<STAGES>::init(v5, CONSUMERS);
    }
    barrier();
    let v7 = Pipeline::<STAGES>::attach(v5);
    if c0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = v1;
        loop {
            let c1 = t >= tiles;
            if c1 {
                break;
            }
            v7.producer_acquire(&st);
            v7.producer_expect_tx(&st, TILE_BYTES);
            let v10 = st.index();
            let v11 = v10 * TILE_BYTES;
            let v12 = v6 + v11;
            let v13 = t as usize;
            let v14 = v13 * TILE_FLOATS;
            let v15 = input.add(v14);
            let v16 = v15 as *const u8;
            let v17 = v7.producer_barrier(&st);
            bulk_copy_global_to_shared(v12, v16, TILE_BYTES, v17);
            st.advance();
            t = t + v2;
        }
        v7.producer_tail(st);
    } else {
        let c2 = v0 >= 32;
        if c2 {
            let v20 = v0 - 32;
            let v21 = v20 as usize;
            let mut st = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut t = v1;
            loop {
                let v19 = t + v2;
                let c3 = v19 >= tiles;
                if c3 {
                    break;
                }
                v7.consumer_wait(&st);
                let v22 = st.index();
                let v23 = v22 as usize;
                let v24 = v23 * TILE_FLOATS;
                let v25 = v24 + RING_FLOATS;
                let v26 = v4.add(v25);
                let mut r = 0usize;
                loop {
                    let c4 = r >= ROWS;
                    if c4 {
                        break;
                    }
                    let v27 = r * COLUMNS;
                    let v28 = v27 + v21;
                    let v29 = v26.add(v28);
                    let v30 = *v29;
                    acc = acc + v30;
                    r = r + 1;
                }
                v7.consumer_release(&st);
                st.advance();
                t = t + v2;
            }
            let v31 = v1 as usize;
            let v32 = v31 * COLUMNS;
            let v33 = v32 + v21;
            let v34 = out.add(v33);
            *v34 = acc;
        }
    }
}
