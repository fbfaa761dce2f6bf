//! Const-generic configuration structs: each kernel names its layout and its roles as the const
//! parameters of a zero-sized configuration type, and one shared body reads them back through
//! associated consts and `const fn`s.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;
const COLUMNS: usize = 32;

/// `S` one-tile stages `STRIDE` bytes apart from window byte `RING`, the barriers at byte
/// `BARS`, and the producer thread `P`. The 32 threads of the other warp consume, one column each.
struct Config<const S: u32, const RING: u32, const BARS: u32, const STRIDE: u32, const P: u32>;

impl<const S: u32, const RING: u32, const BARS: u32, const STRIDE: u32, const P: u32> Config<S, RING, BARS, STRIDE, P> {
    /// The warp that does not hold the producer.
    const CONSUMER_WARP: u32 = 1 - P / 32;

    const fn stage_byte(index: u32) -> u32 {
        RING + index * STRIDE
    }

    const fn is_consumer(tid: u32) -> bool {
        tid / 32 == Self::CONSUMER_WARP
    }

    #[inline(always)]
    unsafe fn run(input: *const f32, tiles: u32, out: *mut f32) {
        block_threads(64);
        dynamic_shared_bytes(8192);
        let tid = thread_idx_x();
        let window = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let pipe = if tid == 0 { Pipeline::<S>::init(window + BARS, 32) } else { Pipeline::<S>::attach(window + BARS) };
        barrier();

        let block = block_idx_x();
        let grid = grid_dim_x();
        if tid == P {
            let mut state = PipelineState::<S>::producer_start();
            let mut t = block;
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                let destination = window + Self::stage_byte(state.index());
                let source = input.add(t as usize * TILE_FLOATS) as *const u8;
                bulk_copy_global_to_shared(destination, source, TILE_BYTES, pipe.producer_barrier(&state));
                state.advance();
                t += grid;
            }
            pipe.producer_tail(state);
        } else if Self::is_consumer(tid) {
            let column = (tid % 32) as usize;
            let mut state = PipelineState::<S>::new();
            let mut sum = 0.0f32;
            let mut t = block;
            while t < tiles {
                pipe.consumer_wait(&state);
                let stage = smem.add((Self::stage_byte(state.index()) / 4) as usize);
                for row in 0..ROWS {
                    sum += *stage.add(row * COLUMNS + column);
                }
                pipe.consumer_release(&state);
                state.advance();
                t += grid;
            }
            *out.add(block as usize * COLUMNS + column) = sum;
        }
    }
}

/// Eight consumers, each reading four neighbouring columns as one 16-byte quad per row.
/// `RELEASERS` is the count the *empty* barriers are initialised with.
struct QuadConfig<const S: u32, const RING: u32, const BARS: u32, const P: u32, const RELEASERS: u32>;

impl<const S: u32, const RING: u32, const BARS: u32, const P: u32, const RELEASERS: u32>
    QuadConfig<S, RING, BARS, P, RELEASERS>
{
    const QUADS: u32 = 8;

    #[inline(always)]
    unsafe fn run(input: *const f32, tiles: u32, out: *mut f32) {
        block_threads(64);
        dynamic_shared_bytes(8192);
        let tid = thread_idx_x();
        let window = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        if tid == 0 {
            Pipeline::<S>::init(window + BARS, RELEASERS);
        }
        let pipe = Pipeline::<S>::attach(window + BARS);
        barrier();

        let block = block_idx_x();
        let grid = grid_dim_x();
        if tid == P {
            let mut state = PipelineState::<S>::producer_start();
            let mut t = block;
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + RING + state.index() * TILE_BYTES,
                    input.add(t as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                t += grid;
            }
            pipe.producer_tail(state);
        } else if tid < Self::QUADS {
            let first = tid as usize * 4;
            let mut state = PipelineState::<S>::new();
            let mut sums = [0.0f32; 4];
            let mut t = block;
            while t < tiles {
                pipe.consumer_wait(&state);
                let stage = smem.add((RING / 4) as usize + state.index() as usize * TILE_FLOATS);
                for row in 0..ROWS {
                    let quad = *(stage.add(row * COLUMNS + first) as *const [f32; 4]);
                    for k in 0..4 {
                        sums[k] += quad[k];
                    }
                }
                pipe.consumer_release(&state);
                state.advance();
                t += grid;
            }
            let dst = out.add(block as usize * COLUMNS + first);
            for k in 0..4 {
                *dst.add(k) = sums[k];
            }
        }
    }
}

/// The consumers are the 32 threads from `FIRST`; the producer is thread `P`.
struct Split<const S: u32, const P: u32, const FIRST: u32>;

impl<const S: u32, const P: u32, const FIRST: u32> Split<S, P, FIRST> {
    const BARS: u32 = S * TILE_BYTES;

    #[inline(always)]
    unsafe fn run(input: *const f32, tiles: u32, out: *mut f32) {
        block_threads(64);
        dynamic_shared_bytes(8192);
        let tid = thread_idx_x();
        let window = dynamic_shared_window_address();
        let smem = dynamic_shared_base::<f32>();
        let pipe = if tid == P { Pipeline::<S>::init(window + Self::BARS, 32) } else { Pipeline::<S>::attach(window + Self::BARS) };
        barrier();

        let block = block_idx_x();
        let grid = grid_dim_x();
        if tid == P {
            let mut state = PipelineState::<S>::producer_start();
            let mut t = block;
            while t < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + state.index() * TILE_BYTES,
                    input.add(t as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                t += grid;
            }
            pipe.producer_tail(state);
        } else if tid >= FIRST && tid < FIRST + 32 {
            let column = (tid - FIRST) as usize;
            let mut state = PipelineState::<S>::new();
            let mut sum = 0.0f32;
            let mut t = block;
            while t < tiles {
                pipe.consumer_wait(&state);
                let stage = smem.add(state.index() as usize * TILE_FLOATS);
                for row in 0..ROWS {
                    sum += *stage.add(row * COLUMNS + column);
                }
                pipe.consumer_release(&state);
                state.advance();
                t += grid;
            }
            *out.add(block as usize * COLUMNS + column) = sum;
        }
    }
}

// ---- correct ----

/// Four stages from byte 0, barriers right after the ring, thread 0 produces for warp 1.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_cfg_four_low(input: *const f32, tiles: u32, out: *mut f32) {
    Config::<4, 0, 4096, TILE_BYTES, 0>::run(input, tiles, out)
}

/// Two stages at the top of the window, barriers at byte 0, thread 32 produces for warp 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_cfg_two_high(input: *const f32, tiles: u32, out: *mut f32) {
    Config::<2, 6144, 0, TILE_BYTES, 32>::run(input, tiles, out)
}

/// Seven stages, the deepest ring the window holds beside its barriers; thread 63 produces.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_cfg_seven_deep(input: *const f32, tiles: u32, out: *mut f32) {
    Config::<7, 0, 7168, TILE_BYTES, 63>::run(input, tiles, out)
}

/// Three stages padded to 1.5 KiB each from byte 1024, barriers at byte 64, thread 40 produces.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_cfg_padded_three(input: *const f32, tiles: u32, out: *mut f32) {
    Config::<3, 1024, 64, 1536, 40>::run(input, tiles, out)
}

/// Eight quad readers in warp 0, thread 33 produces into four stages from byte 128.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_cfg_quads(input: *const f32, tiles: u32, out: *mut f32) {
    QuadConfig::<4, 128, 0, 33, 8>::run(input, tiles, out)
}

/// One stage only: every tile waits for the previous one to be released.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_cfg_split_single(input: *const f32, tiles: u32, out: *mut f32) {
    Split::<1, 0, 32>::run(input, tiles, out)
}

// ---- broken ----

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_cfg_bad_five_from_half(input: *const f32, tiles: u32, out: *mut f32) {
    Config::<5, 4096, 0, TILE_BYTES, 32>::run(input, tiles, out)
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_cfg_bad_bars_after_three(input: *const f32, tiles: u32, out: *mut f32) {
    Config::<4, 0, 3072, TILE_BYTES, 0>::run(input, tiles, out)
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_cfg_bad_quad_releasers(input: *const f32, tiles: u32, out: *mut f32) {
    QuadConfig::<4, 128, 0, 33, 32>::run(input, tiles, out)
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_cfg_bad_bars_after_word(input: *const f32, tiles: u32, out: *mut f32) {
    // Three stages, a word for bookkeeping at byte 3072, then the barriers.
    Config::<3, 0, 3076, TILE_BYTES, 0>::run(input, tiles, out)
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_cfg_bad_stride_in_floats(input: *const f32, tiles: u32, out: *mut f32) {
    Config::<4, 0, 4096, { TILE_FLOATS as u32 }, 0>::run(input, tiles, out)
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_cfg_bad_split_producer_in_warp(input: *const f32, tiles: u32, out: *mut f32) {
    Split::<4, 32, 32>::run(input, tiles, out)
}
