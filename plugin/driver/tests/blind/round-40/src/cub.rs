//! CUB-style block primitives: `BlockLoad` (direct blocked or striped arrangement into
//! registers), `BlockStore` into a shared `TempStorage`, a raking two-warp column reduction, and
//! a `BlockLoadTma` that hides the mbarrier pipeline behind `produce`/`column_sum` methods.
//! Temp storage is carved as CUB does it: each primitive gets a region, and a region shared by
//! two primitives (a union) is reused only after a `__syncthreads()`.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const BLOCK_THREADS: usize = 64;
const ITEMS_PER_THREAD: usize = 4;
const TILE_ITEMS: usize = BLOCK_THREADS * ITEMS_PER_THREAD;
const TILE_BYTES: u32 = (TILE_ITEMS * 4) as u32;
const COLS: usize = 32;
const ROWS: usize = TILE_ITEMS / COLS;
const SMEM: u32 = 8192;

/// `cub::BlockLoad<float, 64, 4, BLOCK_LOAD_DIRECT>`.
#[derive(Clone, Copy)]
struct BlockLoad {
    linear_tid: usize,
}

impl BlockLoad {
    /// Thread `t` gets items `4t .. 4t + 4` (the blocked arrangement).
    #[inline(always)]
    unsafe fn load_blocked(&self, src: *const f32, items: &mut [f32; ITEMS_PER_THREAD]) {
        for (i, item) in items.iter_mut().enumerate() {
            *item = *src.add(self.linear_tid * ITEMS_PER_THREAD + i);
        }
    }

    /// Thread `t` gets items `t, t + 64, t + 128, t + 192` (the striped arrangement).
    #[inline(always)]
    unsafe fn load_striped(&self, src: *const f32, items: &mut [f32; ITEMS_PER_THREAD]) {
        for i in 0..ITEMS_PER_THREAD {
            items[i] = *src.add(self.linear_tid + i * BLOCK_THREADS);
        }
    }
}

/// `cub::BlockStore` into shared temp storage.
#[derive(Clone, Copy)]
struct BlockStoreShared {
    storage: *mut f32,
    linear_tid: usize,
}

impl BlockStoreShared {
    #[inline(always)]
    unsafe fn store_blocked(&self, items: &[f32; ITEMS_PER_THREAD]) {
        for i in 0..ITEMS_PER_THREAD {
            *self.storage.add(self.linear_tid * ITEMS_PER_THREAD + i) = items[i];
        }
    }

    #[inline(always)]
    unsafe fn store_striped(&self, items: &[f32; ITEMS_PER_THREAD]) {
        for i in 0..ITEMS_PER_THREAD {
            *self.storage.add(self.linear_tid + i * BLOCK_THREADS) = items[i];
        }
    }
}

/// Blocked load into registers, blocked store into temp storage, `__syncthreads()`, then the
/// first warp reads its column in the striped order; a second barrier before the next tile
/// reuses the storage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_cub_blocked_exchange(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS as u32);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x() as usize;
    let temp = dynamic_shared_base::<f32>();
    let loader = BlockLoad { linear_tid: tid };
    let storer = BlockStoreShared { storage: temp, linear_tid: tid };
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut aggregate = 0.0f32;
    let mut t = b;
    while t < tiles {
        let mut items = [0.0f32; ITEMS_PER_THREAD];
        loader.load_blocked(input.add(t as usize * TILE_ITEMS), &mut items);
        storer.store_blocked(&items);
        barrier();
        if tid < COLS {
            for r in 0..ROWS {
                aggregate += *temp.add(r * COLS + tid);
            }
        }
        barrier();
        t += g;
    }
    if tid < COLS {
        *out.add(b as usize * COLS + tid) = aggregate;
    }
}

/// Raking reduction: each thread keeps a register partial of its column over half the rows of
/// every tile it owns (read straight from global), and the two warps meet once, at the end,
/// through 32 floats of raking storage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_cub_raking_pairs(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS as u32);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x() as usize;
    let col = tid % COLS;
    let half = tid / COLS;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut partial = 0.0f32;
    for t in (b..tiles).step_by(g as usize) {
        let src = input.add(t as usize * TILE_ITEMS);
        for r in 0..ROWS / 2 {
            partial += *src.add((half * (ROWS / 2) + r) * COLS + col);
        }
    }
    let raking = dynamic_shared_base::<f32>();
    if half == 1 {
        *raking.add(col) = partial;
    }
    barrier();
    if half == 0 {
        *out.add(b as usize * COLS + col) = partial + *raking.add(col);
    }
}

/// `BlockLoadTma`: the mbarrier ring behind two methods. Temp storage: barriers at 0, three
/// 1 KiB stages from byte 1024.
#[derive(Clone, Copy)]
struct BlockLoadTma {
    pipe: Pipeline<3>,
    window: u32,
}

impl BlockLoadTma {
    const BARS: u32 = 0;
    const RING: u32 = 1024;

    #[inline(always)]
    unsafe fn produce(&self, input: *const f32, first: u32, step: u32, tiles: u32) {
        let mut state = PipelineState::<3>::producer_start();
        let mut t = first;
        while t < tiles {
            self.pipe.producer_acquire(&state);
            self.pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                self.window + Self::RING + state.index() * TILE_BYTES,
                input.add(t as usize * TILE_ITEMS) as *const u8,
                TILE_BYTES,
                self.pipe.producer_barrier(&state),
            );
            state.advance();
            t += step;
        }
        self.pipe.producer_tail(state);
    }

    #[inline(always)]
    unsafe fn column_sum(&self, first: u32, step: u32, tiles: u32, col: usize) -> f32 {
        let ring = dynamic_shared_base::<f32>().add(Self::RING as usize / 4);
        let mut state = PipelineState::<3>::new();
        let mut sum = 0.0f32;
        let mut t = first;
        while t < tiles {
            self.pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_ITEMS);
            for r in 0..ROWS {
                sum += *stage.add(r * COLS + col);
            }
            self.pipe.consumer_release(&state);
            state.advance();
            t += step;
        }
        sum
    }
}

/// The TMA flavour of `BlockLoad`: thread 0 produces, warp 1 sums columns.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_cub_block_load_tma(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS as u32);
    dynamic_shared_bytes(SMEM);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<3>::init(window + BlockLoadTma::BARS, 32);
    }
    barrier();
    let loader = BlockLoadTma { pipe: Pipeline::<3>::attach(window + BlockLoadTma::BARS), window };
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        loader.produce(input, b, g, tiles);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let sum = loader.column_sum(b, g, tiles, col);
        *out.add(b as usize * COLS + col) = sum;
    }
}

/// Striped store into the tile storage, each thread sums its column over four rows into a
/// separate partials region, the first warp adds the two halves. Two barriers per tile are
/// enough: the partials are rewritten only after the next tile's first barrier, and the tile
/// storage only after the partials' barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_cub_two_region_partials(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS as u32);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x() as usize;
    let tile = dynamic_shared_base::<f32>();
    let partials = tile.add(TILE_ITEMS);
    let loader = BlockLoad { linear_tid: tid };
    let storer = BlockStoreShared { storage: tile, linear_tid: tid };
    let col = tid % COLS;
    let half = tid / COLS;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut aggregate = 0.0f32;
    let mut t = b;
    while t < tiles {
        let mut items = [0.0f32; ITEMS_PER_THREAD];
        loader.load_striped(input.add(t as usize * TILE_ITEMS), &mut items);
        storer.store_striped(&items);
        barrier();
        let mut p = 0.0f32;
        for r in 0..ROWS / 2 {
            p += *tile.add((half * (ROWS / 2) + r) * COLS + col);
        }
        *partials.add(tid) = p;
        barrier();
        if tid < COLS {
            aggregate += *partials.add(tid) + *partials.add(tid + COLS);
        }
        t += g;
    }
    if tid < COLS {
        *out.add(b as usize * COLS + tid) = aggregate;
    }
}

/// BROKEN: the load storage and the reduce storage are one union (`TempStorage { load, reduce }`)
/// and the partials are written into it right after the column reads, without the
/// `__syncthreads()` CUB requires before reuse: a thread's partial overwrites rows 0 and 1 of
/// the tile while threads of the other warp may still be reading them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_cub_bad_union_reuse(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS as u32);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x() as usize;
    let temp = dynamic_shared_base::<f32>();
    let tile = temp;
    let partials = temp;
    let loader = BlockLoad { linear_tid: tid };
    let storer = BlockStoreShared { storage: tile, linear_tid: tid };
    let col = tid % COLS;
    let half = tid / COLS;
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut aggregate = 0.0f32;
    let mut t = b;
    while t < tiles {
        let mut items = [0.0f32; ITEMS_PER_THREAD];
        loader.load_striped(input.add(t as usize * TILE_ITEMS), &mut items);
        storer.store_striped(&items);
        barrier();
        let mut p = 0.0f32;
        for r in 0..ROWS / 2 {
            p += *tile.add((half * (ROWS / 2) + r) * COLS + col);
        }
        *partials.add(tid) = p;
        barrier();
        if tid < COLS {
            aggregate += *partials.add(tid) + *partials.add(tid + COLS);
        }
        barrier();
        t += g;
    }
    if tid < COLS {
        *out.add(b as usize * COLS + tid) = aggregate;
    }
}

/// BROKEN: the block stages all of its (up to eight) tiles at once, 8 KiB, and places the
/// raking storage right after them, at byte 8192: past the dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_cub_bad_raking_past_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    const MAX_TILES: usize = 8;
    block_threads(BLOCK_THREADS as u32);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x() as usize;
    let staged = dynamic_shared_base::<f32>();
    let raking = staged.add(MAX_TILES * TILE_ITEMS);
    let loader = BlockLoad { linear_tid: tid };
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut count = 0usize;
    let mut t = b;
    while t < tiles && count < MAX_TILES {
        let mut items = [0.0f32; ITEMS_PER_THREAD];
        loader.load_striped(input.add(t as usize * TILE_ITEMS), &mut items);
        let storer = BlockStoreShared { storage: staged.add(count * TILE_ITEMS), linear_tid: tid };
        storer.store_striped(&items);
        count += 1;
        t += g;
    }
    barrier();
    let col = tid % COLS;
    let half = tid / COLS;
    let mut partial = 0.0f32;
    for j in 0..count {
        for r in 0..ROWS / 2 {
            partial += *staged.add(j * TILE_ITEMS + (half * (ROWS / 2) + r) * COLS + col);
        }
    }
    if half == 1 {
        *raking.add(col) = partial;
    }
    barrier();
    if half == 0 {
        *out.add(b as usize * COLS + col) = partial + *raking.add(col);
    }
}

/// BROKEN: the blocked exchange without the `__syncthreads()` between the store and the
/// striped reads: warp 0 reads rows 4 to 7, which warp 1 stores, with nothing ordering them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_cub_bad_exchange_no_sync(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS as u32);
    dynamic_shared_bytes(SMEM);
    let tid = thread_idx_x() as usize;
    let temp = dynamic_shared_base::<f32>();
    let loader = BlockLoad { linear_tid: tid };
    let storer = BlockStoreShared { storage: temp, linear_tid: tid };
    let b = block_idx_x();
    let g = grid_dim_x();
    let mut aggregate = 0.0f32;
    let mut t = b;
    while t < tiles {
        let mut items = [0.0f32; ITEMS_PER_THREAD];
        loader.load_blocked(input.add(t as usize * TILE_ITEMS), &mut items);
        storer.store_blocked(&items);
        if tid < COLS {
            for r in 0..ROWS {
                aggregate += *temp.add(r * COLS + tid);
            }
        }
        barrier();
        t += g;
    }
    if tid < COLS {
        *out.add(b as usize * COLS + tid) = aggregate;
    }
}

/// BROKEN: `BlockLoadTma` issuing each tile as four 256-byte chunks, with the chunk loop written
/// `0..CHUNKS - 1`: three chunks land, the full barrier still expects the tile's 1024 bytes,
/// and the consumers wait forever on the first stage.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_cub_bad_chunk_loop_short(input: *const f32, tiles: u32, out: *mut f32) {
    const CHUNKS: u32 = 4;
    const CHUNK_BYTES: u32 = TILE_BYTES / CHUNKS;
    block_threads(BLOCK_THREADS as u32);
    dynamic_shared_bytes(SMEM);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<3>::init(window + BlockLoadTma::BARS, 32);
    }
    barrier();
    let pipe = Pipeline::<3>::attach(window + BlockLoadTma::BARS);
    let b = block_idx_x();
    let g = grid_dim_x();
    if tid == 0 {
        let mut state = PipelineState::<3>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let src = input.add(t as usize * TILE_ITEMS) as *const u8;
            for ch in 0..CHUNKS - 1 {
                bulk_copy_global_to_shared(
                    window + BlockLoadTma::RING + state.index() * TILE_BYTES + ch * CHUNK_BYTES,
                    src.add((ch * CHUNK_BYTES) as usize),
                    CHUNK_BYTES,
                    pipe.producer_barrier(&state),
                );
            }
            state.advance();
            t += g;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let ring = dynamic_shared_base::<f32>().add(BlockLoadTma::RING as usize / 4);
        let mut state = PipelineState::<3>::new();
        let mut sum = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&state);
            let stage = ring.add(state.index() as usize * TILE_ITEMS);
            for r in 0..ROWS {
                sum += *stage.add(r * COLS + col);
            }
            pipe.consumer_release(&state);
            state.advance();
            t += g;
        }
        *out.add(b as usize * COLS + col) = sum;
    }
}
