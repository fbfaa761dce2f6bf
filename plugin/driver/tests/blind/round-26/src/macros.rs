//! `macro_rules!`-generated kernels: one template, its layout, byte counts, arrival count, roles
//! and tile bound given per entry.

use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, launch, thread_idx_x};

macro_rules! ring_kernel {
    (
        $(#[$meta:meta])*
        $name:ident {
            tid: $tid:ident,
            depth: $depth:expr,
            ring_at: $ring_at:expr,
            bars_at: $bars_at:expr,
            expect: $expect:expr,
            copy: $copy:expr,
            releases: $releases:expr,
            producer: $producer:expr,
            consumer: $consumer:expr,
            column: $column:expr,
            consumer_bound: |$tiles:ident| $bound:expr $(,)?
        }
    ) => {
        $(#[$meta])*
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(input: *const f32, $tiles: u32, out: *mut f32) {
            launch::block_threads(64);
            launch::dynamic_shared_bytes(8192);
            const DEPTH: u32 = $depth;
            const RING_AT: u32 = $ring_at;
            let window = dynamic_shared_window_address();
            let ring = dynamic_shared_base::<u8>().add(RING_AT as usize).cast::<f32>();
            let bars = window + $bars_at;
            let $tid = thread_idx_x();
            if $tid == 0 {
                let _ = Pipeline::<DEPTH>::init(bars, $releases);
            }
            barrier();
            let pipe = Pipeline::<DEPTH>::attach(bars);
            let block = block_idx_x();
            let grid = grid_dim_x();
            if $producer {
                let mut state = PipelineState::<DEPTH>::producer_start();
                let mut t = block;
                while t < $tiles {
                    pipe.producer_acquire(&state);
                    pipe.producer_expect_tx(&state, $expect);
                    bulk_copy_global_to_shared(
                        window + RING_AT + state.index() * 1024,
                        input.add(t as usize * 256).cast(),
                        $copy,
                        pipe.producer_barrier(&state),
                    );
                    state.advance();
                    t += grid;
                }
                pipe.producer_tail(state);
            } else if $consumer {
                let col: u32 = $column;
                let mut state = PipelineState::<DEPTH>::new();
                let mut acc = 0.0f32;
                let mut t = block;
                while t < $bound {
                    pipe.consumer_wait(&state);
                    let stage = ring.add(state.index() as usize * 256);
                    for r in 0..8usize {
                        acc += *stage.add(r * 32 + col as usize);
                    }
                    pipe.consumer_release(&state);
                    state.advance();
                    t += grid;
                }
                *out.add((block * 32 + col) as usize) = acc;
            }
        }
    };
}

ring_kernel! {
    /// Four stages at byte 0, barriers at 4096; thread 32 produces, warp 0 consumes.
    r26_mac_four_stages {
        tid: tid, depth: 4, ring_at: 0, bars_at: 4096, expect: 1024, copy: 1024, releases: 32,
        producer: tid == 32, consumer: tid < 32, column: tid, consumer_bound: |tiles| tiles,
    }
}

ring_kernel! {
    /// Six stages at byte 128 behind barriers at byte 0.
    r26_mac_six_stages_bars_first {
        tid: tid, depth: 6, ring_at: 128, bars_at: 0, expect: 1024, copy: 1024, releases: 32,
        producer: tid == 32, consumer: tid < 32, column: tid, consumer_bound: |tiles| tiles,
    }
}

ring_kernel! {
    /// Two stages in the upper half of the window, barriers at byte 0.
    r26_mac_two_stages_high {
        tid: tid, depth: 2, ring_at: 4096, bars_at: 0, expect: 1024, copy: 1024, releases: 32,
        producer: tid == 32, consumer: tid < 32, column: tid, consumer_bound: |tiles| tiles,
    }
}

ring_kernel! {
    /// Thread 0 produces, warp 1 consumes column tid - 32.
    r26_mac_warp_one_consumers {
        tid: tid, depth: 4, ring_at: 0, bars_at: 4096, expect: 1024, copy: 1024, releases: 32,
        producer: tid == 0, consumer: tid >= 32, column: tid - 32, consumer_bound: |tiles| tiles,
    }
}

ring_kernel! {
    /// The 32 odd threads consume column tid / 2; thread 0 produces.
    r26_mac_odd_threads_consume {
        tid: tid, depth: 3, ring_at: 0, bars_at: 3072, expect: 1024, copy: 1024, releases: 32,
        producer: tid == 0, consumer: tid % 2 == 1, column: tid / 2, consumer_bound: |tiles| tiles,
    }
}

ring_kernel! {
    /// Threads 16..48 consume column tid - 16; thread 0 produces.
    r26_mac_middle_threads_consume {
        tid: tid, depth: 4, ring_at: 0, bars_at: 4096, expect: 1024, copy: 1024, releases: 32,
        producer: tid == 0, consumer: tid >= 16 && tid < 48, column: tid - 16, consumer_bound: |tiles| tiles,
    }
}

ring_kernel! {
    /// Five stages at byte 1024, barriers at byte 6144.
    r26_mac_five_stages_offset_ring {
        tid: tid, depth: 5, ring_at: 1024, bars_at: 6144, expect: 1024, copy: 1024, releases: 32,
        producer: tid == 40, consumer: tid < 32, column: tid, consumer_bound: |tiles| tiles,
    }
}

// ---------------------------------------------------------------- broken

ring_kernel! {
    /// Broken: copies and announces 1000 bytes, not a multiple of 16.
    r26_mac_bad_copy_not_multiple_of_16 {
        tid: tid, depth: 4, ring_at: 0, bars_at: 4096, expect: 1000, copy: 1000, releases: 32,
        producer: tid == 32, consumer: tid < 32, column: tid, consumer_bound: |tiles| tiles,
    }
}

ring_kernel! {
    /// Broken: the ring starts at byte 8, so no stage is 16-byte aligned.
    r26_mac_bad_ring_misaligned {
        tid: tid, depth: 4, ring_at: 8, bars_at: 4112, expect: 1024, copy: 1024, releases: 32,
        producer: tid == 32, consumer: tid < 32, column: tid, consumer_bound: |tiles| tiles,
    }
}

ring_kernel! {
    /// Broken: the barriers start at byte 4100, not on an 8-byte boundary.
    r26_mac_bad_bars_misaligned {
        tid: tid, depth: 4, ring_at: 0, bars_at: 4100, expect: 1024, copy: 1024, releases: 32,
        producer: tid == 32, consumer: tid < 32, column: tid, consumer_bound: |tiles| tiles,
    }
}

ring_kernel! {
    /// Broken: threads 31..64 consume (33 of them) against 32 expected releases; thread 63's
    /// column 32 is the next block's column 0.
    r26_mac_bad_thirty_three_consumers {
        tid: tid, depth: 4, ring_at: 0, bars_at: 4096, expect: 1024, copy: 1024, releases: 32,
        producer: tid == 0, consumer: tid >= 31, column: tid - 31, consumer_bound: |tiles| tiles,
    }
}

ring_kernel! {
    /// Broken: the consumer role `tid >= 64` is empty in a 64-thread block.
    r26_mac_bad_empty_consumer_role {
        tid: tid, depth: 4, ring_at: 0, bars_at: 4096, expect: 1024, copy: 1024, releases: 32,
        producer: tid == 0, consumer: tid >= 64, column: tid - 64, consumer_bound: |tiles| tiles,
    }
}

ring_kernel! {
    /// Broken: the barriers start at byte 8160, and four stages' worth (64 bytes) end past 8192.
    r26_mac_bad_bars_past_window {
        tid: tid, depth: 4, ring_at: 0, bars_at: 8160, expect: 1024, copy: 1024, releases: 32,
        producer: tid == 32, consumer: tid < 32, column: tid, consumer_bound: |tiles| tiles,
    }
}

ring_kernel! {
    /// Broken: consumers loop to `tiles + 1`, one tile more in block 0 only.
    r26_mac_bad_bound_plus_one {
        tid: tid, depth: 4, ring_at: 0, bars_at: 4096, expect: 1024, copy: 1024, releases: 32,
        producer: tid == 32, consumer: tid < 32, column: tid, consumer_bound: |tiles| tiles + 1,
    }
}

ring_kernel! {
    /// Broken: the empty barriers expect 33 releases from 32 consumers.
    r26_mac_bad_init_thirty_three {
        tid: tid, depth: 4, ring_at: 0, bars_at: 4096, expect: 1024, copy: 1024, releases: 33,
        producer: tid == 32, consumer: tid < 32, column: tid, consumer_bound: |tiles| tiles,
    }
}
