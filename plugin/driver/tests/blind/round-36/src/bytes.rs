//! Style: byte-level stage addressing. The ring is a `*const u8`; a stage pointer is
//! `ring + index * TILE_BYTES` bytes, read as `*const f32` or as a `#[repr(C)]` row struct.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{bulk_copy_global_to_shared, Pipeline, PipelineState};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_BYTES: u32 = 1024;

/// One row of a tile: 32 floats, 128 bytes.
#[repr(C)]
struct Row {
    v: [f32; 32],
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Read {
    /// `stage as *const f32`, element `r * 32 + c`.
    Floats,
    /// `stage as *const Row`, `(*rows.add(r)).v[c]`.
    Rows,
    /// Broken: the stage offset in floats (`ring_f32.add(index * TILE_BYTES)`).
    FloatsScaledByBytes,
    /// Broken: reads the stage before waiting on it.
    BeforeWait,
}

macro_rules! bytes_kernel {
    ($name:ident, $stages:expr, $bars:expr, $producer:expr, $cwarp:expr, $read:expr, $src_skew:expr) => {
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(input: *const f32, tiles: u32, out: *mut f32) {
            const S: u32 = $stages;
            const READ: Read = $read;
            block_threads(64);
            dynamic_shared_bytes(8192);
            let tid = thread_idx_x();
            let window = dynamic_shared_window_address();
            let ring = dynamic_shared_base::<u8>() as *const u8;
            let bars = window + $bars;
            if tid == 0 {
                Pipeline::<S>::init(bars, 32);
            }
            barrier();
            let pipe = Pipeline::<S>::attach(bars);
            let b = block_idx_x();
            let g = grid_dim_x();
            let mine = if b < tiles { (tiles - b + g - 1) / g } else { 0 };
            if tid == $producer {
                let mut st = PipelineState::<S>::producer_start();
                let bytes = input as *const u8;
                for k in 0..mine {
                    pipe.producer_acquire(&st);
                    pipe.producer_expect_tx(&st, TILE_BYTES);
                    let t = b + k * g;
                    bulk_copy_global_to_shared(
                        window + st.index() * TILE_BYTES,
                        bytes.add($src_skew + t as usize * TILE_BYTES as usize),
                        TILE_BYTES,
                        pipe.producer_barrier(&st),
                    );
                    st.advance();
                }
                pipe.producer_tail(st);
            } else if tid / 32 == $cwarp {
                let c = (tid % 32) as usize;
                let mut acc = 0.0f32;
                let mut st = PipelineState::<S>::new();
                for _ in 0..mine {
                    let stage: *const u8 = ring.add(st.index() as usize * TILE_BYTES as usize);
                    if matches!(READ, Read::BeforeWait) {
                        let f = stage as *const f32;
                        for r in 0..8 {
                            acc += *f.add(r * 32 + c);
                        }
                    }
                    pipe.consumer_wait(&st);
                    match READ {
                        Read::Floats => {
                            let f = stage as *const f32;
                            for r in 0..8 {
                                acc += *f.add(r * 32 + c);
                            }
                        }
                        Read::Rows => {
                            let rows = stage as *const Row;
                            for r in 0..8 {
                                acc += (*rows.add(r)).v[c];
                            }
                        }
                        Read::FloatsScaledByBytes => {
                            let f = (ring as *const f32).add(st.index() as usize * TILE_BYTES as usize);
                            for r in 0..8 {
                                acc += *f.add(r * 32 + c);
                            }
                        }
                        Read::BeforeWait => {}
                    }
                    pipe.consumer_release(&st);
                    st.advance();
                }
                *out.add(b as usize * 32 + c) = acc;
            }
        }
    };
}

// ---- correct ----
// Barriers right after the ring.
bytes_kernel!(r36_bytes_floats_two_stages, 2, 2 * TILE_BYTES, 32, 0, Read::Floats, 0);
bytes_kernel!(r36_bytes_rows_four_stages, 4, 4 * TILE_BYTES, 32, 0, Read::Rows, 0);
// Barriers at the top of the window, the ring below.
bytes_kernel!(r36_bytes_rows_three_stages_top_barriers, 3, 8192 - 16 * 3, 0, 1, Read::Rows, 0);
bytes_kernel!(r36_bytes_floats_one_stage, 1, TILE_BYTES, 63, 0, Read::Floats, 0);

// ---- broken ----
bytes_kernel!(r36_bytes_bad_offset_in_floats, 2, 2 * TILE_BYTES, 32, 0, Read::FloatsScaledByBytes, 0);
// The source skips an 8-byte "header": not 16-byte aligned.
bytes_kernel!(r36_bytes_bad_source_header, 2, 2 * TILE_BYTES, 32, 0, Read::Floats, 8);
bytes_kernel!(r36_bytes_bad_read_before_wait, 3, 3 * TILE_BYTES, 32, 0, Read::BeforeWait, 0);
// Barriers placed at the start of the last stage: its copy lands on them.
bytes_kernel!(r36_bytes_bad_barriers_in_last_stage, 2, TILE_BYTES, 32, 0, Read::Rows, 0);
