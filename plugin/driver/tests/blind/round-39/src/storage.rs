//! Style `storage`: the CUTLASS `SharedStorage` idiom. The whole dynamic shared memory is one
//! `#[repr(C)]` struct (tiles, the pipeline's barriers, epilogue scratch, unions for storage that
//! the mainloop and the epilogue share); every address comes from `offset_of!` and from places of
//! that struct (`&(*smem).tiles[s]`), and a `const` assertion checks the struct against the launch.
//!
//! Every kernel: 64 threads; thread 32 produces, threads 0..31 consume (consumer `c` owns column
//! `c`).

use core::mem::{offset_of, size_of};

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const THREADS: u32 = 64;
const SMEM_BYTES: usize = 8192;
const TILE: usize = 256;
const HALF: usize = TILE / 2;
const ROWS: usize = 8;
const COLS: usize = 32;
const CONSUMERS: u32 = 32;
const PRODUCER: u32 = 32;

type Tile = [f32; TILE];

/// The mbarriers of an `S`-stage pipeline, laid out as `Pipeline` expects them: full, then empty.
#[repr(C)]
struct PipelineStorage<const S: usize> {
    full: [u64; S],
    empty: [u64; S],
}

#[repr(C, align(16))]
struct SharedStorage<const S: usize> {
    tiles: [Tile; S],
    pipeline: PipelineStorage<S>,
}

/// A stage filled by two copies, like the A and B operands of a GEMM mainloop.
#[repr(C, align(16))]
struct SplitStorage<const S: usize> {
    top: [[f32; HALF]; S],
    bottom: [[f32; HALF]; S],
    pipeline: PipelineStorage<S>,
}

/// The mainloop's tiles and the epilogue's staging share their bytes.
#[repr(C)]
union MainloopOrEpilogue<const S: usize> {
    mainloop: [Tile; S],
    epilogue: [f32; COLS],
}

#[repr(C, align(16))]
struct ReusedStorage<const S: usize> {
    buffers: MainloopOrEpilogue<S>,
    pipeline: PipelineStorage<S>,
}

#[inline(always)]
fn window_at(offset: usize) -> u32 {
    dynamic_shared_window_address() + offset as u32
}

#[inline(always)]
unsafe fn source(input: *const f32, t: u32) -> *const u8 {
    unsafe { input.add(t as usize * TILE).cast() }
}

/// Four stages; tiles read through `&(*smem).tiles[s]`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_storage_nested(input: *const f32, tiles: u32, out: *mut f32) {
    const S: usize = 4;
    type Storage = SharedStorage<S>;
    const _: () = assert!(size_of::<Storage>() <= SMEM_BYTES);
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES as u32);

    let smem = dynamic_shared_base::<Storage>();
    let bars = window_at(offset_of!(Storage, pipeline));
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<{ S as u32 }>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<{ S as u32 }>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());

    if tid == PRODUCER {
        let mut write = PipelineState::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&write);
            pipe.producer_expect_tx(&write, size_of::<Tile>() as u32);
            let dst = window_at(offset_of!(Storage, tiles) + write.index() as usize * size_of::<Tile>());
            bulk_copy_global_to_shared(dst, source(input, t), size_of::<Tile>() as u32, pipe.producer_barrier(&write));
            write.advance();
            t += g;
        }
        pipe.producer_tail(write);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let mut read = PipelineState::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&read);
            let tile = &(*smem).tiles[read.index() as usize];
            for r in 0..ROWS {
                acc += tile[c + COLS * r];
            }
            pipe.consumer_release(&read);
            read.advance();
            t += g;
        }
        *out.add(b as usize * COLS + c) = acc;
    }
}

/// Six stages of a storage generic over its depth; the consumer reads through a raw pointer to
/// the tile array.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_storage_six_deep(input: *const f32, tiles: u32, out: *mut f32) {
    const DEPTH: usize = 6;
    type Storage = SharedStorage<DEPTH>;
    const _: () = assert!(size_of::<Storage>() <= SMEM_BYTES);
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES as u32);

    let smem = dynamic_shared_base::<Storage>();
    let bars = window_at(offset_of!(Storage, pipeline));
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<{ DEPTH as u32 }>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<{ DEPTH as u32 }>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());

    if tid < CONSUMERS {
        let c = tid as usize;
        let ring = (&raw const (*smem).tiles).cast::<f32>();
        let mut read = PipelineState::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&read);
            let stage = ring.add(read.index() as usize * TILE);
            let mut col = 0.0f32;
            for r in 0..ROWS {
                col += *stage.add(c + COLS * r);
            }
            pipe.consumer_release(&read);
            read.advance();
            acc += col;
            t += g;
        }
        *out.add(b as usize * COLS + c) = acc;
    } else if tid == PRODUCER {
        let tiles_at = window_at(offset_of!(Storage, tiles));
        let mut write = PipelineState::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&write);
            pipe.producer_expect_tx(&write, size_of::<Tile>() as u32);
            let dst = tiles_at + write.index() * size_of::<Tile>() as u32;
            bulk_copy_global_to_shared(dst, source(input, t), size_of::<Tile>() as u32, pipe.producer_barrier(&write));
            write.advance();
            t += g;
        }
        pipe.producer_tail(write);
    }
}

/// Four stages, each filled by two half-tile copies into two arrays (rows 0..3 into `top`, rows
/// 4..7 into `bottom`); the stage announces both.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_storage_split_operands(input: *const f32, tiles: u32, out: *mut f32) {
    const S: usize = 4;
    type Storage = SplitStorage<S>;
    const _: () = assert!(size_of::<Storage>() <= SMEM_BYTES);
    const HALF_BYTES: u32 = size_of::<[f32; HALF]>() as u32;
    const STAGE_BYTES: u32 = 2 * HALF_BYTES;
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES as u32);

    let smem = dynamic_shared_base::<Storage>();
    let bars = window_at(offset_of!(Storage, pipeline));
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<{ S as u32 }>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<{ S as u32 }>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());

    if tid == PRODUCER {
        let top = window_at(offset_of!(Storage, top));
        let bottom = window_at(offset_of!(Storage, bottom));
        let mut write = PipelineState::producer_start();
        let mut t = b;
        while t < tiles {
            let src = input.add(t as usize * TILE);
            pipe.producer_acquire(&write);
            pipe.producer_expect_tx(&write, STAGE_BYTES);
            let bar = pipe.producer_barrier(&write);
            bulk_copy_global_to_shared(top + write.index() * HALF_BYTES, src.cast(), HALF_BYTES, bar);
            bulk_copy_global_to_shared(bottom + write.index() * HALF_BYTES, src.add(HALF).cast(), HALF_BYTES, bar);
            write.advance();
            t += g;
        }
        pipe.producer_tail(write);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let mut read = PipelineState::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&read);
            let s = read.index() as usize;
            let top = &(*smem).top[s];
            let bottom = &(*smem).bottom[s];
            for r in 0..ROWS / 2 {
                acc += top[c + COLS * r] + bottom[c + COLS * r];
            }
            pipe.consumer_release(&read);
            read.advance();
            t += g;
        }
        *out.add(b as usize * COLS + c) = acc;
    }
}

/// Four stages; once the mainloop is over, the consumers stage their sums in the epilogue member
/// of a union over the tiles, the block synchronises, and warp 1 stores them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_storage_union_epilogue(input: *const f32, tiles: u32, out: *mut f32) {
    const S: usize = 4;
    type Storage = ReusedStorage<S>;
    const _: () = assert!(size_of::<Storage>() <= SMEM_BYTES);
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES as u32);

    let smem = dynamic_shared_base::<Storage>();
    let bars = window_at(offset_of!(Storage, pipeline));
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<{ S as u32 }>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<{ S as u32 }>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());

    if tid == PRODUCER {
        let tiles_at = window_at(offset_of!(Storage, buffers));
        let mut write = PipelineState::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&write);
            pipe.producer_expect_tx(&write, size_of::<Tile>() as u32);
            let dst = tiles_at + write.index() * size_of::<Tile>() as u32;
            bulk_copy_global_to_shared(dst, source(input, t), size_of::<Tile>() as u32, pipe.producer_barrier(&write));
            write.advance();
            t += g;
        }
        pipe.producer_tail(write);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let mainloop = (&raw const (*smem).buffers.mainloop).cast::<Tile>();
        let mut read = PipelineState::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&read);
            let tile = &*mainloop.add(read.index() as usize);
            for r in 0..ROWS {
                acc += tile[c + COLS * r];
            }
            pipe.consumer_release(&read);
            read.advance();
            t += g;
        }
        // Every copy this consumer waited for has landed; the tiles are dead from here on.
        (*smem).buffers.epilogue[c] = acc;
    }
    barrier();
    if tid >= PRODUCER {
        let c = (tid - PRODUCER) as usize;
        *out.add(b as usize * COLS + c) = (*smem).buffers.epilogue[c];
    }
}

/// Storage with a header: the block's tile count, computed once and read by the consumers.
#[repr(C, align(16))]
struct CountedStorage<const S: usize> {
    tile_count: u32,
    tiles: [Tile; S],
    pipeline: PipelineStorage<S>,
}

/// BROKEN: a `u32` header field put in front of the tiles moves them to byte 4 (`repr(C)` aligns
/// an `f32` array to 4 only), so every bulk copy's shared destination is 4 bytes off the 16-byte
/// alignment the copy needs: the first copy faults (misaligned address).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_storage_bad_header_field(input: *const f32, tiles: u32, out: *mut f32) {
    const S: usize = 4;
    type Storage = CountedStorage<S>;
    const _: () = assert!(size_of::<Storage>() <= SMEM_BYTES);
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES as u32);

    let smem = dynamic_shared_base::<Storage>();
    let bars = window_at(offset_of!(Storage, pipeline));
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 0 {
        Pipeline::<{ S as u32 }>::init(bars, CONSUMERS);
        (*smem).tile_count = if b < tiles { (tiles - b).div_ceil(g) } else { 0 };
    }
    barrier();
    let pipe = Pipeline::<{ S as u32 }>::attach(bars);
    let count = (*smem).tile_count;

    if tid == PRODUCER {
        let tiles_at = window_at(offset_of!(Storage, tiles));
        let mut write = PipelineState::producer_start();
        for k in 0..count {
            pipe.producer_acquire(&write);
            pipe.producer_expect_tx(&write, size_of::<Tile>() as u32);
            let dst = tiles_at + write.index() * size_of::<Tile>() as u32;
            bulk_copy_global_to_shared(dst, source(input, b + k * g), size_of::<Tile>() as u32, pipe.producer_barrier(&write));
            write.advance();
        }
        pipe.producer_tail(write);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let mut read = PipelineState::new();
        let mut acc = 0.0f32;
        for _ in 0..count {
            pipe.consumer_wait(&read);
            let tile = &(*smem).tiles[read.index() as usize];
            for r in 0..ROWS {
                acc += tile[c + COLS * r];
            }
            pipe.consumer_release(&read);
            read.advance();
        }
        *out.add(b as usize * COLS + c) = acc;
    }
}

/// BROKEN: eight stages; the `const` assertion checks only the tiles (`8 × 1 KiB = 8192`), not
/// the barriers after them, so `SharedStorage<8>` is 8320 bytes and its barriers lie at bytes
/// 8192..8320, past the 8192-byte window: `Pipeline::init` writes outside the block's shared
/// memory and faults.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_storage_bad_eight_deep(input: *const f32, tiles: u32, out: *mut f32) {
    const DEPTH: usize = 8;
    type Storage = SharedStorage<DEPTH>;
    const _: () = assert!(DEPTH * size_of::<Tile>() <= SMEM_BYTES);
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES as u32);

    let smem = dynamic_shared_base::<Storage>();
    let bars = window_at(offset_of!(Storage, pipeline));
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<{ DEPTH as u32 }>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<{ DEPTH as u32 }>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());

    if tid == PRODUCER {
        let mut write = PipelineState::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&write);
            pipe.producer_expect_tx(&write, size_of::<Tile>() as u32);
            let dst = window_at(offset_of!(Storage, tiles) + write.index() as usize * size_of::<Tile>());
            bulk_copy_global_to_shared(dst, source(input, t), size_of::<Tile>() as u32, pipe.producer_barrier(&write));
            write.advance();
            t += g;
        }
        pipe.producer_tail(write);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let mut read = PipelineState::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&read);
            let tile = &(*smem).tiles[read.index() as usize];
            for r in 0..ROWS {
                acc += tile[c + COLS * r];
            }
            pipe.consumer_release(&read);
            read.advance();
            t += g;
        }
        *out.add(b as usize * COLS + c) = acc;
    }
}

/// BROKEN: the stage is filled by two half-tile copies but announces only one operand's bytes
/// (`size_of::<[f32; HALF]>()`): the full barrier completes when the first half lands, and the
/// second half's 512 bytes complete on the stage's next phase, which then completes as soon as
/// the producer arrives, before its own copies land. Consumers read halves not yet written and
/// stale tiles: wrong sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_storage_bad_operand_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    const S: usize = 4;
    type Storage = SplitStorage<S>;
    const _: () = assert!(size_of::<Storage>() <= SMEM_BYTES);
    const HALF_BYTES: u32 = size_of::<[f32; HALF]>() as u32;
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES as u32);

    let smem = dynamic_shared_base::<Storage>();
    let bars = window_at(offset_of!(Storage, pipeline));
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<{ S as u32 }>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<{ S as u32 }>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());

    if tid == PRODUCER {
        let top = window_at(offset_of!(Storage, top));
        let bottom = window_at(offset_of!(Storage, bottom));
        let mut write = PipelineState::producer_start();
        let mut t = b;
        while t < tiles {
            let src = input.add(t as usize * TILE);
            pipe.producer_acquire(&write);
            pipe.producer_expect_tx(&write, HALF_BYTES);
            let bar = pipe.producer_barrier(&write);
            bulk_copy_global_to_shared(top + write.index() * HALF_BYTES, src.cast(), HALF_BYTES, bar);
            bulk_copy_global_to_shared(bottom + write.index() * HALF_BYTES, src.add(HALF).cast(), HALF_BYTES, bar);
            write.advance();
            t += g;
        }
        pipe.producer_tail(write);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let mut read = PipelineState::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&read);
            let s = read.index() as usize;
            let top = &(*smem).top[s];
            let bottom = &(*smem).bottom[s];
            for r in 0..ROWS / 2 {
                acc += top[c + COLS * r] + bottom[c + COLS * r];
            }
            pipe.consumer_release(&read);
            read.advance();
            t += g;
        }
        *out.add(b as usize * COLS + c) = acc;
    }
}

/// Accumulators kept in the storage, in the union's epilogue member.
#[repr(C)]
union MainloopOrAccumulators<const S: usize> {
    mainloop: [Tile; S],
    acc: [f32; COLS],
}

#[repr(C, align(16))]
struct AccumulatingStorage<const S: usize> {
    buffers: MainloopOrAccumulators<S>,
    pipeline: PipelineStorage<S>,
}

/// BROKEN: the consumers keep their running sums in the union member that shares its bytes with
/// the mainloop's tiles (`acc` is row 0 of stage 0) and update it during the mainloop: every copy
/// into stage 0 overwrites the sums, and the sums' stores overwrite the row that lane then reads
/// from stage 0: wrong sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_storage_bad_union_accumulators(input: *const f32, tiles: u32, out: *mut f32) {
    const S: usize = 4;
    type Storage = AccumulatingStorage<S>;
    const _: () = assert!(size_of::<Storage>() <= SMEM_BYTES);
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES as u32);

    let smem = dynamic_shared_base::<Storage>();
    let bars = window_at(offset_of!(Storage, pipeline));
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<{ S as u32 }>::init(bars, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<{ S as u32 }>::attach(bars);
    let (b, g) = (block_idx_x(), grid_dim_x());

    if tid == PRODUCER {
        let tiles_at = window_at(offset_of!(Storage, buffers));
        let mut write = PipelineState::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&write);
            pipe.producer_expect_tx(&write, size_of::<Tile>() as u32);
            let dst = tiles_at + write.index() * size_of::<Tile>() as u32;
            bulk_copy_global_to_shared(dst, source(input, t), size_of::<Tile>() as u32, pipe.producer_barrier(&write));
            write.advance();
            t += g;
        }
        pipe.producer_tail(write);
    } else if tid < CONSUMERS {
        let c = tid as usize;
        let acc = (&raw mut (*smem).buffers.acc).cast::<f32>().add(c);
        let mainloop = (&raw const (*smem).buffers.mainloop).cast::<Tile>();
        *acc = 0.0;
        let mut read = PipelineState::new();
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&read);
            let tile = &*mainloop.add(read.index() as usize);
            let mut col = 0.0f32;
            for r in 0..ROWS {
                col += tile[c + COLS * r];
            }
            *acc += col;
            pipe.consumer_release(&read);
            read.advance();
            t += g;
        }
        *out.add(b as usize * COLS + c) = *acc;
    }
}
