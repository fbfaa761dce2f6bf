//! Several pipelines and split copies: half tiles through two pipelines, a stage filled by two
//! halves or by a counted loop of row copies, pipelines used one after the other, unusual ring
//! placements.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const HALF: u32 = 512;

/// Rows 0..3 of every tile go through pipeline A, rows 4..7 through pipeline B.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_multi_two_half_pipes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING_A: u32 = 0;
    const RING_B: u32 = 2048;
    const BARS_A: u32 = 4096;
    const BARS_B: u32 = 4096 + 64;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    if tid == 0 {
        Pipeline::<4>::init(window + BARS_A, 32);
        Pipeline::<4>::init(window + BARS_B, 32);
    }
    barrier();
    let pa = Pipeline::<4>::attach(window + BARS_A);
    let pb = Pipeline::<4>::attach(window + BARS_B);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut sa = PipelineState::<4>::producer_start();
        let mut sb = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            let src = input.add(t as usize * 256);
            pa.producer_acquire(&sa);
            pa.producer_expect_tx(&sa, HALF);
            bulk_copy_global_to_shared(window + RING_A + sa.index() * HALF, src as *const u8, HALF, pa.producer_barrier(&sa));
            sa.advance();
            pb.producer_acquire(&sb);
            pb.producer_expect_tx(&sb, HALF);
            bulk_copy_global_to_shared(window + RING_B + sb.index() * HALF, src.add(128) as *const u8, HALF, pb.producer_barrier(&sb));
            sb.advance();
            t += g;
        }
        pa.producer_tail(sa);
        pb.producer_tail(sb);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut sa = PipelineState::<4>::new();
        let mut sb = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pa.consumer_wait(&sa);
            let top = smem.add(RING_A as usize / 4 + sa.index() as usize * 128);
            for r in 0..4 {
                acc += *top.add(r * 32 + col);
            }
            pa.consumer_release(&sa);
            sa.advance();
            pb.consumer_wait(&sb);
            let bottom = smem.add(RING_B as usize / 4 + sb.index() as usize * 128);
            for r in 0..4 {
                acc += *bottom.add(r * 32 + col);
            }
            pb.consumer_release(&sb);
            sb.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_multi_stage_two_halves(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 4096;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            let src = input.add(t as usize * 256);
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, 2 * HALF);
            let dst = window + st.index() * 1024;
            bulk_copy_global_to_shared(dst, src as *const u8, HALF, pipe.producer_barrier(&st));
            bulk_copy_global_to_shared(dst + HALF, src.add(128) as *const u8, HALF, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * 256);
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

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_multi_row_copies(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 3072;
    if tid == 0 {
        Pipeline::<3>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = b;
        while t < tiles {
            let src = input.add(t as usize * 256);
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, 1024);
            let dst = window + st.index() * 1024;
            for row in 0..8u32 {
                bulk_copy_global_to_shared(dst + row * 128, src.add(row as usize * 32) as *const u8, 128, pipe.producer_barrier(&st));
            }
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * 256);
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

/// Three stages at the top of the window (5120..8192), barriers just below them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_multi_ring_at_top(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: u32 = 8192 - 3 * 1024;
    const BARS: u32 = RING - 64;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().wrapping_add(RING as usize / 4);
    let pipe = if tid == 0 { Pipeline::<3>::init(window + BARS, 32) } else { Pipeline::<3>::attach(window + BARS) };
    barrier();
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, 1024);
            bulk_copy_global_to_shared(window + RING + st.index() * 1024, input.add(t as usize * 256) as *const u8, 1024, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * 256);
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

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_multi_seven_bars_first(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: u32 = 128;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    if tid == 0 {
        Pipeline::<7>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<7>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<7>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, 1024);
            bulk_copy_global_to_shared(window + RING + st.index() * 1024, input.add(t as usize * 256) as *const u8, 1024, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<7>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(RING as usize / 4 + st.index() as usize * 256);
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

/// Two passes over the block's tiles, each through its own pipeline: rows 0..3 first through
/// A, then rows 4..7 through B.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_multi_sequential_pipes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars_a = window + 6144;
    let bars_b = window + 6144 + 48;
    if tid == 0 {
        Pipeline::<3>::init(bars_a, 32);
        Pipeline::<3>::init(bars_b, 32);
    }
    barrier();
    let first = Pipeline::<3>::attach(bars_a);
    let second = Pipeline::<3>::attach(bars_b);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut s1 = PipelineState::<3>::producer_start();
        let mut t = b;
        while t < tiles {
            first.producer_acquire(&s1);
            first.producer_expect_tx(&s1, HALF);
            bulk_copy_global_to_shared(window + s1.index() * HALF, input.add(t as usize * 256) as *const u8, HALF, first.producer_barrier(&s1));
            s1.advance();
            t += g;
        }
        first.producer_tail(s1);
        let mut s2 = PipelineState::<3>::producer_start();
        let mut u = b;
        while u < tiles {
            second.producer_acquire(&s2);
            second.producer_expect_tx(&s2, HALF);
            bulk_copy_global_to_shared(window + 3072 + s2.index() * HALF, input.add(u as usize * 256 + 128) as *const u8, HALF, second.producer_barrier(&s2));
            s2.advance();
            u += g;
        }
        second.producer_tail(s2);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut acc = 0.0f32;
        let mut s1 = PipelineState::<3>::new();
        let mut t = b;
        while t < tiles {
            first.consumer_wait(&s1);
            let stage = smem.add(s1.index() as usize * 128);
            for r in 0..4 {
                acc += *stage.add(r * 32 + col);
            }
            first.consumer_release(&s1);
            s1.advance();
            t += g;
        }
        let mut s2 = PipelineState::<3>::new();
        let mut u = b;
        while u < tiles {
            second.consumer_wait(&s2);
            let stage = smem.add(768 + s2.index() as usize * 128);
            for r in 0..4 {
                acc += *stage.add(r * 32 + col);
            }
            second.consumer_release(&s2);
            s2.advance();
            u += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

// ---------------------------------------------------------------- broken

/// Pipeline B's barriers start 32 bytes after A's, inside A's 64-byte barrier block.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_multi_bad_bars_overlap(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING_A: u32 = 0;
    const RING_B: u32 = 2048;
    const BARS_A: u32 = 4096;
    const BARS_B: u32 = 4096 + 32;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    if tid == 0 {
        Pipeline::<4>::init(window + BARS_A, 32);
        Pipeline::<4>::init(window + BARS_B, 32);
    }
    barrier();
    let pa = Pipeline::<4>::attach(window + BARS_A);
    let pb = Pipeline::<4>::attach(window + BARS_B);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut sa = PipelineState::<4>::producer_start();
        let mut sb = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            let src = input.add(t as usize * 256);
            pa.producer_acquire(&sa);
            pa.producer_expect_tx(&sa, HALF);
            bulk_copy_global_to_shared(window + RING_A + sa.index() * HALF, src as *const u8, HALF, pa.producer_barrier(&sa));
            sa.advance();
            pb.producer_acquire(&sb);
            pb.producer_expect_tx(&sb, HALF);
            bulk_copy_global_to_shared(window + RING_B + sb.index() * HALF, src.add(128) as *const u8, HALF, pb.producer_barrier(&sb));
            sb.advance();
            t += g;
        }
        pa.producer_tail(sa);
        pb.producer_tail(sb);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut sa = PipelineState::<4>::new();
        let mut sb = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pa.consumer_wait(&sa);
            let top = smem.add(RING_A as usize / 4 + sa.index() as usize * 128);
            for r in 0..4 {
                acc += *top.add(r * 32 + col);
            }
            pa.consumer_release(&sa);
            sa.advance();
            pb.consumer_wait(&sb);
            let bottom = smem.add(RING_B as usize / 4 + sb.index() as usize * 128);
            for r in 0..4 {
                acc += *bottom.add(r * 32 + col);
            }
            pb.consumer_release(&sb);
            sb.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

/// The bottom half's copy names pipeline A's full barrier (copy-pasted from the top half).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_multi_bad_copy_on_other_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING_A: u32 = 0;
    const RING_B: u32 = 2048;
    const BARS_A: u32 = 4096;
    const BARS_B: u32 = 4096 + 64;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    if tid == 0 {
        Pipeline::<4>::init(window + BARS_A, 32);
        Pipeline::<4>::init(window + BARS_B, 32);
    }
    barrier();
    let pa = Pipeline::<4>::attach(window + BARS_A);
    let pb = Pipeline::<4>::attach(window + BARS_B);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut sa = PipelineState::<4>::producer_start();
        let mut sb = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            let src = input.add(t as usize * 256);
            pa.producer_acquire(&sa);
            pa.producer_expect_tx(&sa, HALF);
            bulk_copy_global_to_shared(window + RING_A + sa.index() * HALF, src as *const u8, HALF, pa.producer_barrier(&sa));
            sa.advance();
            pb.producer_acquire(&sb);
            pb.producer_expect_tx(&sb, HALF);
            bulk_copy_global_to_shared(window + RING_B + sb.index() * HALF, src.add(128) as *const u8, HALF, pa.producer_barrier(&sb));
            sb.advance();
            t += g;
        }
        pa.producer_tail(sa);
        pb.producer_tail(sb);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut sa = PipelineState::<4>::new();
        let mut sb = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pa.consumer_wait(&sa);
            let top = smem.add(RING_A as usize / 4 + sa.index() as usize * 128);
            for r in 0..4 {
                acc += *top.add(r * 32 + col);
            }
            pa.consumer_release(&sa);
            sa.advance();
            pb.consumer_wait(&sb);
            let bottom = smem.add(RING_B as usize / 4 + sb.index() as usize * 128);
            for r in 0..4 {
                acc += *bottom.add(r * 32 + col);
            }
            pb.consumer_release(&sb);
            sb.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

/// The row-copy loop runs `0..7`: seven rows delivered against a whole tile announced.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_multi_bad_seven_row_copies(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars = window + 3072;
    if tid == 0 {
        Pipeline::<3>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<3>::producer_start();
        let mut t = b;
        while t < tiles {
            let src = input.add(t as usize * 256);
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, 1024);
            let dst = window + st.index() * 1024;
            for row in 0..7u32 {
                bulk_copy_global_to_shared(dst + row * 128, src.add(row as usize * 32) as *const u8, 128, pipe.producer_barrier(&st));
            }
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<3>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = smem.add(st.index() as usize * 256);
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

/// Pipeline B's ring starts at byte 1024, on top of stages 2 and 3 of pipeline A's ring.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_multi_bad_rings_overlap(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING_A: u32 = 0;
    const RING_B: u32 = 1024;
    const BARS_A: u32 = 4096;
    const BARS_B: u32 = 4096 + 64;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    if tid == 0 {
        Pipeline::<4>::init(window + BARS_A, 32);
        Pipeline::<4>::init(window + BARS_B, 32);
    }
    barrier();
    let pa = Pipeline::<4>::attach(window + BARS_A);
    let pb = Pipeline::<4>::attach(window + BARS_B);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut sa = PipelineState::<4>::producer_start();
        let mut sb = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            let src = input.add(t as usize * 256);
            pa.producer_acquire(&sa);
            pa.producer_expect_tx(&sa, HALF);
            bulk_copy_global_to_shared(window + RING_A + sa.index() * HALF, src as *const u8, HALF, pa.producer_barrier(&sa));
            sa.advance();
            pb.producer_acquire(&sb);
            pb.producer_expect_tx(&sb, HALF);
            bulk_copy_global_to_shared(window + RING_B + sb.index() * HALF, src.add(128) as *const u8, HALF, pb.producer_barrier(&sb));
            sb.advance();
            t += g;
        }
        pa.producer_tail(sa);
        pb.producer_tail(sb);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut sa = PipelineState::<4>::new();
        let mut sb = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pa.consumer_wait(&sa);
            let top = smem.add(RING_A as usize / 4 + sa.index() as usize * 128);
            for r in 0..4 {
                acc += *top.add(r * 32 + col);
            }
            pa.consumer_release(&sa);
            sa.advance();
            pb.consumer_wait(&sb);
            let bottom = smem.add(RING_B as usize / 4 + sb.index() as usize * 128);
            for r in 0..4 {
                acc += *bottom.add(r * 32 + col);
            }
            pb.consumer_release(&sb);
            sb.advance();
            t += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

/// The second pass's consumers release through the first pipeline (whose tail has already
/// returned): pipeline B's stages are never released.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_multi_bad_release_on_first_pipe(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let smem = dynamic_shared_base::<f32>();
    let bars_a = window + 6144;
    let bars_b = window + 6144 + 48;
    if tid == 0 {
        Pipeline::<3>::init(bars_a, 32);
        Pipeline::<3>::init(bars_b, 32);
    }
    barrier();
    let first = Pipeline::<3>::attach(bars_a);
    let second = Pipeline::<3>::attach(bars_b);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut s1 = PipelineState::<3>::producer_start();
        let mut t = b;
        while t < tiles {
            first.producer_acquire(&s1);
            first.producer_expect_tx(&s1, HALF);
            bulk_copy_global_to_shared(window + s1.index() * HALF, input.add(t as usize * 256) as *const u8, HALF, first.producer_barrier(&s1));
            s1.advance();
            t += g;
        }
        first.producer_tail(s1);
        let mut s2 = PipelineState::<3>::producer_start();
        let mut u = b;
        while u < tiles {
            second.producer_acquire(&s2);
            second.producer_expect_tx(&s2, HALF);
            bulk_copy_global_to_shared(window + 3072 + s2.index() * HALF, input.add(u as usize * 256 + 128) as *const u8, HALF, second.producer_barrier(&s2));
            s2.advance();
            u += g;
        }
        second.producer_tail(s2);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut acc = 0.0f32;
        let mut s1 = PipelineState::<3>::new();
        let mut t = b;
        while t < tiles {
            first.consumer_wait(&s1);
            let stage = smem.add(s1.index() as usize * 128);
            for r in 0..4 {
                acc += *stage.add(r * 32 + col);
            }
            first.consumer_release(&s1);
            s1.advance();
            t += g;
        }
        let mut s2 = PipelineState::<3>::new();
        let mut u = b;
        while u < tiles {
            second.consumer_wait(&s2);
            let stage = smem.add(768 + s2.index() as usize * 128);
            for r in 0..4 {
                acc += *stage.add(r * 32 + col);
            }
            first.consumer_release(&s2);
            s2.advance();
            u += g;
        }
        *out.add(b as usize * 32 + col) = acc;
    }
}

/// The copy goes to the stage after the acquired one (`(index + 1) % 4`): it overwrites a
/// stage the consumers may still read, while the acquired stage keeps old data.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r28_multi_bad_destination_next_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING: u32 = 3584;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().wrapping_add(RING as usize / 4);
    let bars = window + 1024;
    if tid == 0 {
        Pipeline::<4>::init(bars, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(bars);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, 1024);
            let slot = (st.index() + 1) % 4;
            bulk_copy_global_to_shared(window + RING + slot * 1024, input.add(t as usize * 256) as *const u8, 1024, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid >= 32 {
        let col = tid as usize - 32;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add(st.index() as usize * 256);
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
