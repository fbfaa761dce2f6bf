//! Style "split": bulk copies split or combined per stage (two halves, four quarters, two
//! tiles per stage), two pipelines side by side, roles by ranges and `match`, a cursor struct
//! holding the state, and the shared-memory layout written out by hand.

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, launch, thread_idx_x};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const HALF_BYTES: u32 = 512;
const COLS: usize = 32;

#[inline(always)]
unsafe fn tile_bytes_at(input: *const f32, t: u32, byte_offset: u32) -> *const u8 {
    unsafe { (input.add(t as usize * TILE_FLOATS) as *const u8).add(byte_offset as usize) }
}

/// Correct: each stage is filled by two 512-byte copies (rows 0–3 and rows 4–7) after one
/// `expect_tx` of the whole 1024 bytes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_split_two_copies(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const STAGES: u32 = 2;
    const RING: u32 = 128;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<u8>();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window, 32) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, 2 * HALF_BYTES);
            let dst = window + RING + state.index() * TILE_BYTES;
            let bar = pipe.producer_barrier(&state);
            bulk_copy_global_to_shared(dst, unsafe { tile_bytes_at(input, t, 0) }, HALF_BYTES, bar);
            bulk_copy_global_to_shared(dst + HALF_BYTES, unsafe { tile_bytes_at(input, t, HALF_BYTES) }, HALF_BYTES, bar);
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add((RING + state.index() * TILE_BYTES) as usize) } as *const f32;
            for r in 0..8 {
                acc += unsafe { *stage.add(r * COLS + tid as usize) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Broken: the second half is copied only `if t + 1 < tiles` (a guard meant for something
/// else): for the grid's very last tile the stage gets 512 of the 1024 announced bytes, its
/// *full* barrier never completes and that block hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_split_second_half_guarded(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    const STAGES: u32 = 2;
    const RING: u32 = 128;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<u8>();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window, 32) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let dst = window + RING + state.index() * TILE_BYTES;
            let bar = pipe.producer_barrier(&state);
            bulk_copy_global_to_shared(dst, unsafe { tile_bytes_at(input, t, 0) }, HALF_BYTES, bar);
            if t + 1 < tiles {
                bulk_copy_global_to_shared(dst + HALF_BYTES, unsafe { tile_bytes_at(input, t, HALF_BYTES) }, HALF_BYTES, bar);
            }
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add((RING + state.index() * TILE_BYTES) as usize) } as *const f32;
            for r in 0..8 {
                acc += unsafe { *stage.add(r * COLS + tid as usize) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Correct: two pipelines, one per half of the tile. Thread 32 copies rows 0–3 through
/// pipeline A, thread 33 rows 4–7 through pipeline B; warp 0 consumes both in turn.
/// Layout: A's barriers at 0, B's at 32, A's ring (2 × 512) at 128, B's ring at 1152.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_split_two_pipelines(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const RING_A: u32 = 128;
    const RING_B: u32 = RING_A + 2 * HALF_BYTES;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<u8>();
    let (a, b) = if tid == 0 {
        (Pipeline::<2>::init(window, 32), Pipeline::<2>::init(window + 32, 32))
    } else {
        (Pipeline::<2>::attach(window), Pipeline::<2>::attach(window + 32))
    };
    barrier();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<2>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            a.producer_acquire(&state);
            a.producer_expect_tx(&state, HALF_BYTES);
            bulk_copy_global_to_shared(
                window + RING_A + state.index() * HALF_BYTES,
                unsafe { tile_bytes_at(input, t, 0) },
                HALF_BYTES,
                a.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        a.producer_tail(state);
    } else if tid == 33 {
        let mut state = PipelineState::<2>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            b.producer_acquire(&state);
            b.producer_expect_tx(&state, HALF_BYTES);
            bulk_copy_global_to_shared(
                window + RING_B + state.index() * HALF_BYTES,
                unsafe { tile_bytes_at(input, t, HALF_BYTES) },
                HALF_BYTES,
                b.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        b.producer_tail(state);
    } else if tid < 32 {
        let mut top = PipelineState::<2>::new();
        let mut bottom = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            a.consumer_wait(&top);
            let rows = unsafe { smem.add((RING_A + top.index() * HALF_BYTES) as usize) } as *const f32;
            for r in 0..4 {
                acc += unsafe { *rows.add(r * COLS + tid as usize) };
            }
            a.consumer_release(&top);
            top.advance();
            b.consumer_wait(&bottom);
            let rows = unsafe { smem.add((RING_B + bottom.index() * HALF_BYTES) as usize) } as *const f32;
            for r in 0..4 {
                acc += unsafe { *rows.add(r * COLS + tid as usize) };
            }
            b.consumer_release(&bottom);
            bottom.advance();
            t += grid;
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Broken: `r10_split_two_pipelines` with pipeline B's copy completing on A's *full* barrier
/// (`a.producer_barrier(&state)` pasted from the block above): B's *full* never gets its bytes
/// (the consumers hang on B) and A's gets 512 bytes it did not announce.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_split_copy_signals_other_pipeline(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    const RING_A: u32 = 128;
    const RING_B: u32 = RING_A + 2 * HALF_BYTES;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<u8>();
    let (a, b) = if tid == 0 {
        (Pipeline::<2>::init(window, 32), Pipeline::<2>::init(window + 32, 32))
    } else {
        (Pipeline::<2>::attach(window), Pipeline::<2>::attach(window + 32))
    };
    barrier();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<2>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            a.producer_acquire(&state);
            a.producer_expect_tx(&state, HALF_BYTES);
            bulk_copy_global_to_shared(
                window + RING_A + state.index() * HALF_BYTES,
                unsafe { tile_bytes_at(input, t, 0) },
                HALF_BYTES,
                a.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        a.producer_tail(state);
    } else if tid == 33 {
        let mut state = PipelineState::<2>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            b.producer_acquire(&state);
            b.producer_expect_tx(&state, HALF_BYTES);
            bulk_copy_global_to_shared(
                window + RING_B + state.index() * HALF_BYTES,
                unsafe { tile_bytes_at(input, t, HALF_BYTES) },
                HALF_BYTES,
                a.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        b.producer_tail(state);
    } else if tid < 32 {
        let mut top = PipelineState::<2>::new();
        let mut bottom = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            a.consumer_wait(&top);
            let rows = unsafe { smem.add((RING_A + top.index() * HALF_BYTES) as usize) } as *const f32;
            for r in 0..4 {
                acc += unsafe { *rows.add(r * COLS + tid as usize) };
            }
            a.consumer_release(&top);
            top.advance();
            b.consumer_wait(&bottom);
            let rows = unsafe { smem.add((RING_B + bottom.index() * HALF_BYTES) as usize) } as *const f32;
            for r in 0..4 {
                acc += unsafe { *rows.add(r * COLS + tid as usize) };
            }
            b.consumer_release(&bottom);
            bottom.advance();
            t += grid;
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Correct: a stage holds two tiles (2 KiB). Each stage gets the block's next tile and, when
/// there is one, the tile after it; the announced bytes follow (1 or 2 tiles), computed the
/// same way by the producer and the consumers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_split_paired_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const STAGES: u32 = 2;
    const RING: u32 = 128;
    const STAGE_BYTES: u32 = 2 * TILE_BYTES;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window, 32) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            let second = t + grid < tiles;
            let bytes = if second { 2 * TILE_BYTES } else { TILE_BYTES };
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, bytes);
            let dst = window + RING + state.index() * STAGE_BYTES;
            let bar = pipe.producer_barrier(&state);
            bulk_copy_global_to_shared(dst, unsafe { tile_bytes_at(input, t, 0) }, TILE_BYTES, bar);
            if second {
                bulk_copy_global_to_shared(dst + TILE_BYTES, unsafe { tile_bytes_at(input, t + grid, 0) }, TILE_BYTES, bar);
            }
            state.advance();
            t += 2 * grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            let held = if t + grid < tiles { 2 } else { 1 };
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add(((RING + state.index() * STAGE_BYTES) / 4) as usize) };
            for r in 0..8 * held {
                acc += unsafe { *stage.add(r * COLS + tid as usize) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += 2 * grid;
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Correct: five stages; the consumers are threads 16..48 (a range across both warps, column
/// `tid - 16`) and thread 0 produces.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_split_range_roles(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const STAGES: u32 = 5;
    const RING: u32 = 128;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window, 32) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let grid = grid_dim_x();
    if (16..48).contains(&tid) {
        let column = (tid - 16) as usize;
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add(((RING + state.index() * TILE_BYTES) / 4) as usize) };
            for r in 0..8 {
                acc += unsafe { *stage.add(r * COLS + column) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + column) = acc };
    } else if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                unsafe { tile_bytes_at(input, t, 0) },
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    }
}

/// Correct: roles by `match` on the thread index; each stage is filled by four 256-byte copies
/// (two rows each) in a `for` loop after one `expect_tx` of 4 × 256 bytes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_split_match_quarters(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const STAGES: u32 = 3;
    const RING: u32 = 128;
    const QUARTER: u32 = TILE_BYTES / 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<u8>();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window, 32) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let grid = grid_dim_x();
    match tid {
        0..=31 => {
            let mut state = PipelineState::<STAGES>::new();
            let mut acc = 0.0f32;
            let mut t = block_idx_x();
            while t < tiles {
                pipe.consumer_wait(&state);
                let stage = unsafe { smem.add((RING + state.index() * TILE_BYTES) as usize) } as *const f32;
                for r in 0..8 {
                    acc += unsafe { *stage.add(r * COLS + tid as usize) };
                }
                pipe.consumer_release(&state);
                state.advance();
                t += grid;
            }
            unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
        }
        32 => {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut t = block_idx_x();
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, 4 * QUARTER);
                let dst = window + RING + state.index() * TILE_BYTES;
                for q in 0..4 {
                    bulk_copy_global_to_shared(
                        dst + q * QUARTER,
                        unsafe { tile_bytes_at(input, t, q * QUARTER) },
                        QUARTER,
                        pipe.producer_barrier(&state),
                    );
                }
                state.advance();
                t += grid;
            }
            pipe.producer_tail(state);
        }
        _ => {}
    }
}

/// A consumer's place: its pipeline state and the tile it is on.
#[derive(Clone, Copy)]
struct Cursor {
    state: PipelineState<3>,
    tile: u32,
}

impl Cursor {
    fn more(&self, tiles: u32) -> bool {
        self.tile < tiles
    }

    fn step(&mut self, grid: u32) {
        self.state.advance();
        self.tile += grid;
    }
}

/// Correct: both roles keep their state inside a `Cursor` struct (state plus tile number) and
/// move with `step`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_split_cursor_struct(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const RING: u32 = 128;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 { Pipeline::<3>::init(window, 32) } else { Pipeline::<3>::attach(window) };
    barrier();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut cur = Cursor { state: PipelineState::producer_start(), tile: block_idx_x() };
        while cur.more(tiles) {
            pipe.producer_acquire(&cur.state);
            pipe.producer_expect_tx(&cur.state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + cur.state.index() * TILE_BYTES,
                unsafe { tile_bytes_at(input, cur.tile, 0) },
                TILE_BYTES,
                pipe.producer_barrier(&cur.state),
            );
            cur.step(grid);
        }
        pipe.producer_tail(cur.state);
    } else if tid < 32 {
        let mut cur = Cursor { state: PipelineState::new(), tile: block_idx_x() };
        let mut acc = 0.0f32;
        while cur.more(tiles) {
            pipe.consumer_wait(&cur.state);
            let stage = unsafe { smem.add(((RING + cur.state.index() * TILE_BYTES) / 4) as usize) };
            for r in 0..8 {
                acc += unsafe { *stage.add(r * COLS + tid as usize) };
            }
            pipe.consumer_release(&cur.state);
            cur.step(grid);
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Broken: four stages with the ring at byte 0 and the barriers "after the ring" at a constant
/// left from a three-stage version (`3 * TILE_BYTES`): stage 3 is the barriers' bytes, so the
/// fourth tile's copy overwrites the mbarriers (hang or fault).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_split_ring_over_barriers(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    const STAGES: u32 = 4;
    const BARRIERS: u32 = 3 * TILE_BYTES;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 {
        Pipeline::<STAGES>::init(window + BARRIERS, 32)
    } else {
        Pipeline::<STAGES>::attach(window + BARRIERS)
    };
    barrier();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                unsafe { tile_bytes_at(input, t, 0) },
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add((state.index() * TILE_BYTES / 4) as usize) };
            for r in 0..8 {
                acc += unsafe { *stage.add(r * COLS + tid as usize) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Broken: a 4-byte tag word is reserved after the barriers and the ring starts right after it,
/// at byte `16 * STAGES + 4`: every bulk copy's shared destination is misaligned (bulk copies
/// need 16-byte alignment; the copy faults).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_split_ring_after_tag(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    const STAGES: u32 = 2;
    const TAG: u32 = 16 * STAGES;
    const RING: u32 = TAG + 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<u8>();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window, 32) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                unsafe { tile_bytes_at(input, t, 0) },
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add((RING + state.index() * TILE_BYTES) as usize) } as *const f32;
            for r in 0..8 {
                acc += unsafe { stage.add(r * COLS + tid as usize).read_unaligned() };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Broken: eight stages "to cover a block's eight tiles", the ring starting at byte 1024 after
/// a generous barrier area: stage 7 lies at bytes 8192..9216, past the declared 8 KiB of
/// dynamic shared memory (the eighth copy writes outside the block's shared memory: fault).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_split_eight_stages(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    const STAGES: u32 = 8;
    const RING: u32 = 1024;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window, 32) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                unsafe { tile_bytes_at(input, t, 0) },
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add(((RING + state.index() * TILE_BYTES) / 4) as usize) };
            for r in 0..8 {
                acc += unsafe { *stage.add(r * COLS + tid as usize) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Broken: the consumer builds a lazy iterator over its column of the stage, releases the
/// stage, and only then folds the iterator: the reads happen after the release, when the
/// producer may already be refilling the stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_split_fold_after_release(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    const STAGES: u32 = 2;
    const RING: u32 = 128;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window, 32) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                unsafe { tile_bytes_at(input, t, 0) },
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe {
                core::slice::from_raw_parts(smem.add(((RING + state.index() * TILE_BYTES) / 4) as usize), TILE_FLOATS)
            };
            let column = stage.iter().skip(tid as usize).step_by(COLS);
            pipe.consumer_release(&state);
            acc = column.fold(acc, |sum, x| sum + *x);
            state.advance();
            t += grid;
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}

/// Broken: thread 0 initialises the pipeline but no block barrier follows: the producer (warp 1)
/// may acquire, announce bytes and copy on mbarriers that are not initialised yet, and the
/// later `mbarrier.init` wipes its arrival (hang, or stale phases).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r10_split_init_without_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    const STAGES: u32 = 2;
    const RING: u32 = 128;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window, 32) } else { Pipeline::<STAGES>::attach(window) };
    let grid = grid_dim_x();
    if tid == 32 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + state.index() * TILE_BYTES,
                unsafe { tile_bytes_at(input, t, 0) },
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            t += grid;
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = unsafe { smem.add(((RING + state.index() * TILE_BYTES) / 4) as usize) };
            for r in 0..8 {
                acc += unsafe { *stage.add(r * COLS + tid as usize) };
            }
            pipe.consumer_release(&state);
            state.advance();
            t += grid;
        }
        unsafe { *out.add(block_idx_x() as usize * COLS + tid as usize) = acc };
    }
}
