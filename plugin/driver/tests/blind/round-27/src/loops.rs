//! Plain loops in the kernel body: `while`, `for … step_by`, count-downs, `loop`/`break`,
//! labelled loops, reversed row loops.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;

/// The straight version: barriers at the window's start, four stages from byte 1024.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_loops_while_basic(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 4;
    let window = dynamic_shared_window_address();
    let ring_addr = window + 1024;
    let ring = dynamic_shared_base::<f32>().add(256) as *const f32;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window, 32) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = input.add(t as usize * TILE) as *const u8;
            bulk_copy_global_to_shared(ring_addr + st.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            let mut r = 0usize;
            while r < 8 {
                acc += *stage.add(r * 32 + tid as usize);
                r += 1;
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// `for … step_by` in both roles; producer is thread 0, consumers are warp 1; barriers after a
/// three-stage ring at the window's start.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_loops_for_step_by(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 3;
    let window = dynamic_shared_window_address();
    let bars = window + 7168;
    let smem = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let first = block_idx_x() as usize;
    let step = grid_dim_x() as usize;
    let n = tiles as usize;
    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        for t in (first..n).step_by(step) {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + st.index() * TILE_BYTES,
                input.add(t * TILE).cast::<u8>(),
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _t in (first..n).step_by(step) {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(first * 32 + col) = acc;
    }
}

/// Both roles count their tiles first, then count down.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_loops_countdown(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 2;
    let window = dynamic_shared_window_address();
    let bars = window + 64;
    let ring_addr = window + 2048;
    let ring = dynamic_shared_base::<f32>().add(512);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = if b < tiles { (tiles - b + g - 1) / g } else { 0 };
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    if tid == 32 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut left = mine;
        let mut t = b;
        while left > 0 {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring_addr + st.index() * TILE_BYTES, input.add((t as usize) << 8) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
            left -= 1;
        }
        pipe.producer_tail(st);
    }
    if tid < 32 {
        let mut st = PipelineState::<STAGES>::new();
        let mut left = mine;
        let mut acc = 0.0f32;
        while left > 0 {
            pipe.consumer_wait(&st);
            let base = st.index() as usize * TILE + tid as usize;
            let mut r = 8usize;
            while r > 0 {
                r -= 1;
                acc += *ring.add(base + r * 32);
            }
            pipe.consumer_release(&st);
            st.advance();
            left -= 1;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// `loop` with the exit test at the top, in both roles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_loops_loop_break(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + 4096 + 2048;
    let ring_addr = window + 1024;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 63 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        loop {
            if t >= tiles {
                break;
            }
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring_addr + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        loop {
            if t >= tiles {
                break;
            }
            pipe.consumer_wait(&st);
            let stage = smem.add(256 + st.index() as usize * TILE);
            for r in 0..8usize {
                acc += stage.add(r * 32 + tid as usize).read();
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        out.add((b * 32 + tid) as usize).write(acc);
    }
}

/// Rows summed from the last to the first with `(0..8).rev()`, tiles in a labelled `while`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_loops_rev_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 4;
    let window = dynamic_shared_window_address();
    let ring_addr = window + 2048;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window + 512, 32) } else { Pipeline::<STAGES>::attach(window + 512) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        'tiles: while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring_addr + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
            continue 'tiles;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(512);
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        'tiles: while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in (0..8usize).rev() {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
            continue 'tiles;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Five stages; consumers read two rows per pass of a `while` over row pairs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_loops_row_pairs(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 5;
    let window = dynamic_shared_window_address();
    let bars = window + 1024;
    let ring_addr = window + 2048;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring_addr + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(512);
        let c = tid as usize;
        let mut st = PipelineState::<STAGES>::new();
        let (mut even, mut odd) = (0.0f32, 0.0f32);
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            let mut r = 0usize;
            while r < 8 {
                even += *stage.add(r * 32 + c);
                odd += *stage.add((r + 1) * 32 + c);
                r += 2;
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + c) = even + odd;
    }
}

/// Rows written out with the device API's `unrolled!`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_loops_unrolled_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 6;
    const ROWS: usize = 8;
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + 6144 + 1024, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + 7168);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = [0.0f32; ROWS];
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE + tid as usize);
            crate::device::unrolled::unrolled!(R < ROWS => {
                acc[R] += *stage.add(R * 32);
            });
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        let mut total = 0.0f32;
        for v in acc {
            total += v;
        }
        *out.add((b * 32 + tid) as usize) = total;
    }
}

/// Each role counts its tiles with a loop of its own first, then runs `for k in 0..n`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_loops_count_tiles_first(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 4;
    let window = dynamic_shared_window_address();
    let ring_addr = window + 4096;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + 128, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + 128);
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut n = 0u32;
    let mut probe = b;
    while probe < tiles {
        n += 1;
        probe += g;
    }
    if tid == 32 {
        let mut st = PipelineState::<STAGES>::producer_start();
        for k in 0..n {
            let t = b + k * g;
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring_addr + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(1024);
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        for _k in 0..n {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Broken: the consumers' loop test is `<=`, so block 0's consumers wait for a ninth tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_loops_bad_le_bound(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 4;
    let window = dynamic_shared_window_address();
    let ring_addr = window + 1024;
    let ring = dynamic_shared_base::<f32>().add(256) as *const f32;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window, 32) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring_addr + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t <= tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Broken: the consumers' count-down stops at one, so the last tile is never released and the
/// producer's tail waits for it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_loops_bad_countdown_short(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 2;
    let window = dynamic_shared_window_address();
    let bars = window + 64;
    let ring_addr = window + 2048;
    let ring = dynamic_shared_base::<f32>().add(512);
    let tid = thread_idx_x();
    let b = block_idx_x();
    let g = grid_dim_x();
    let mine = if b < tiles { (tiles - b + g - 1) / g } else { 0 };
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    if tid == 32 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut left = mine;
        let mut t = b;
        while left > 0 {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring_addr + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
            left -= 1;
        }
        pipe.producer_tail(st);
    }
    if tid < 32 {
        let mut st = PipelineState::<STAGES>::new();
        let mut left = mine;
        let mut acc = 0.0f32;
        while left > 1 {
            pipe.consumer_wait(&st);
            let base = st.index() as usize * TILE + tid as usize;
            for r in 0..8usize {
                acc += *ring.add(base + r * 32);
            }
            pipe.consumer_release(&st);
            st.advance();
            left -= 1;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Broken: on its last tile the consumer leaves the labelled loop right after summing, before
/// the release; the producer's tail waits for that stage forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_loops_bad_break_before_release(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 4;
    let window = dynamic_shared_window_address();
    let bars = window + 6144;
    let ring_addr = window + 1024;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 63 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        loop {
            if t >= tiles {
                break;
            }
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring_addr + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let smem = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        'tiles: loop {
            if t >= tiles {
                break;
            }
            pipe.consumer_wait(&st);
            let stage = smem.add(256 + st.index() as usize * TILE);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            if t + g >= tiles {
                // last tile: nothing more to read
                break 'tiles;
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Broken: `0..=8` reads a ninth row, which is the next stage's first row (past the ring for
/// the last stage).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_loops_bad_rows_inclusive(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 4;
    let window = dynamic_shared_window_address();
    let ring_addr = window + 2064;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window + 512, 32) } else { Pipeline::<STAGES>::attach(window + 512) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring_addr + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(516);
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..=8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Broken: the producer steps its tile by one instead of by the grid, so it copies many more
/// tiles than the consumers release and hangs at `producer_acquire`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_loops_bad_producer_step_one(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 3;
    let window = dynamic_shared_window_address();
    let bars = window + 7168;
    let smem = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE).cast::<u8>(), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += 1;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *stage.add(r * 32 + col);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

/// Broken: the consumers start from the producer's state (parity 1), so their first waits
/// return at once on stages no copy has filled yet.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_loops_bad_consumer_parity_one(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 4;
    let window = dynamic_shared_window_address();
    let ring_addr = window + 1552;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window + 16, 32) } else { Pipeline::<STAGES>::attach(window + 16) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring_addr + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(388);
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Broken: the producer announces the tile's size as if the floats were 8 bytes wide; the
/// full barrier never receives that many bytes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_loops_bad_tx_doubles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 4;
    let window = dynamic_shared_window_address();
    let ring_addr = window + 4096;
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + 128, 32);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window + 128);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, (TILE * core::mem::size_of::<f64>()) as u32);
            bulk_copy_global_to_shared(ring_addr + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(1024);
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Broken: the empty barriers are set up for all 64 threads of the block, but only warp 0
/// releases; the producer hangs on its fifth tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_loops_bad_release_count_block(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const STAGES: u32 = 4;
    const THREADS: u32 = 64;
    let window = dynamic_shared_window_address();
    let ring_addr = window + 1024;
    let tid = thread_idx_x();
    let pipe = if tid == 0 { Pipeline::<STAGES>::init(window, THREADS) } else { Pipeline::<STAGES>::attach(window) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 32 {
        let mut st = PipelineState::<STAGES>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring_addr + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<STAGES>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * TILE);
            for r in 0..8usize {
                acc += *stage.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}
