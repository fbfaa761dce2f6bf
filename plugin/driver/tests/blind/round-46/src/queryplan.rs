//! Module `queryplan`: the kernels written the way a database engine's executor is written.
//! The input is a table of pages (a tile is a page of 8 rows × 32 columns); the block runs a
//! physical plan `Aggregate(SUM by column) ← SeqScan(partition)` in the Volcano iterator
//! model: operators are structs with `open`, `next` (returns whether a page was produced) and
//! `close`. The ring of stages is the buffer pool's frames (`BufferPool`), the scan is the
//! operator that reads pages into frames, the aggregate pulls frames and unpins them. The
//! block's partition of the table is a `Catalog` entry (`t % partitions == partition`).

use crate::device;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};

const FRAMES: u32 = 4;
const PAGE_FLOATS: u32 = 256;
const PAGE_BYTES: u32 = 1024;
const PAGE_ROWS: u32 = 8;
const PAGE_COLS: u32 = 32;
const BACKENDS: u32 = 64;
const SHARED_BYTES: u32 = 8192;
const POOL_LATCHES: u32 = 0;
const POOL_FRAMES: u32 = 1024;
/// The exchange buffer of the gather kernels, after the frames.
const EXCHANGE: u32 = 6144;
const AGG_WORKERS: u32 = 32;
const SCAN_BACKEND: u32 = 32;

/// The catalog entry of this block's partition of the table.
#[derive(Clone, Copy)]
struct Catalog {
    table: *const f32,
    pages: u32,
    partition: u32,
    partitions: u32,
    result: *mut f32,
}

#[inline(always)]
fn catalog(input: *const f32, tiles: u32, out: *mut f32) -> Catalog {
    Catalog { table: input, pages: tiles, partition: device::block_idx_x(), partitions: device::grid_dim_x(), result: out }
}

/// The buffer pool: its frames in both address spaces and the latches guarding them.
#[derive(Clone, Copy)]
struct BufferPool {
    latches: Pipeline<FRAMES>,
    frames: u32,
    frame_mem: *mut f32,
}

/// Backend 0 creates the latches; every backend waits for the pool to come up.
#[inline(always)]
fn start_pool(backend: u32, workers: u32) -> BufferPool {
    let window = device::dynamic_shared_window_address();
    if backend == 0 {
        Pipeline::<FRAMES>::init(window + POOL_LATCHES, workers);
    }
    device::barrier();
    BufferPool {
        latches: Pipeline::<FRAMES>::attach(window + POOL_LATCHES),
        frames: window + POOL_FRAMES,
        frame_mem: device::dynamic_shared_base::<f32>().wrapping_add((POOL_FRAMES / 4) as usize),
    }
}

/// Physical operator: sequential scan of the partition into the pool's frames.
struct SeqScan {
    page: u32,
    cursor: PipelineState<FRAMES>,
}

impl SeqScan {
    #[inline(always)]
    fn open(cat: &Catalog) -> SeqScan {
        SeqScan { page: cat.partition, cursor: PipelineState::producer_start() }
    }

    /// Reads the next page into a frame; false at the end of the partition.
    #[inline(always)]
    fn next(&mut self, cat: &Catalog, pool: &BufferPool) -> bool {
        if self.page >= cat.pages {
            return false;
        }
        pool.latches.producer_acquire(&self.cursor);
        pool.latches.producer_expect_tx(&self.cursor, PAGE_BYTES);
        let frame = pool.frames + self.cursor.index() * PAGE_BYTES;
        let page = cat.table.wrapping_add((self.page * PAGE_FLOATS) as usize) as *const u8;
        bulk_copy_global_to_shared(frame, page, PAGE_BYTES, pool.latches.producer_barrier(&self.cursor));
        self.cursor.advance();
        self.page += cat.partitions;
        true
    }

    #[inline(always)]
    fn close(self, pool: &BufferPool) {
        pool.latches.producer_tail(self.cursor);
    }
}

/// Physical operator: `SUM(col)` over the frames the scan fills, one column per worker.
struct SumAggregate {
    page: u32,
    cursor: PipelineState<FRAMES>,
    column: u32,
    total: f32,
}

impl SumAggregate {
    #[inline(always)]
    fn open(cat: &Catalog, column: u32) -> SumAggregate {
        SumAggregate { page: cat.partition, cursor: PipelineState::new(), column, total: 0.0 }
    }

    /// Pulls the next frame, folds its column in, unpins it; false at the end of the partition.
    #[inline(always)]
    unsafe fn next(&mut self, cat: &Catalog, pool: &BufferPool) -> bool {
        if self.page >= cat.pages {
            return false;
        }
        pool.latches.consumer_wait(&self.cursor);
        let frame = pool.frame_mem.add((self.cursor.index() * PAGE_FLOATS) as usize);
        self.total += fold_column(frame, self.column);
        pool.latches.consumer_release(&self.cursor);
        self.cursor.advance();
        self.page += cat.partitions;
        true
    }

    #[inline(always)]
    unsafe fn emit(&self, cat: &Catalog) {
        *cat.result.add((cat.partition * PAGE_COLS + self.column) as usize) = self.total;
    }
}

/// The expression `SUM(page.col)` over one page.
#[inline(always)]
unsafe fn fold_column(page: *const f32, column: u32) -> f32 {
    let mut acc = 0.0;
    let mut row = 0;
    while row < PAGE_ROWS {
        acc += *page.add((row * PAGE_COLS + column) as usize);
        row += 1;
    }
    acc
}

/// The plan executed as written: the scan backend drives `SeqScan` to exhaustion, each
/// aggregate worker drives its `SumAggregate` to exhaustion and emits.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_queryplan_volcano_sum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BACKENDS);
    dynamic_shared_bytes(SHARED_BYTES);
    let cat = catalog(input, tiles, out);
    let backend = device::thread_idx_x();
    let pool = start_pool(backend, AGG_WORKERS);
    if backend == SCAN_BACKEND {
        let mut scan = SeqScan::open(&cat);
        while scan.next(&cat, &pool) {}
        scan.close(&pool);
    } else if backend < AGG_WORKERS {
        let mut agg = SumAggregate::open(&cat, backend);
        while agg.next(&cat, &pool) {}
        agg.emit(&cat);
    }
}

/// The scan runs on the last backend (thread 63) and reads each page as two half-page I/Os of
/// 512 bytes into the two halves of its frame, both counted by the frame's one `expect_tx`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_queryplan_last_backend_half_pages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BACKENDS);
    dynamic_shared_bytes(SHARED_BYTES);
    const HALF_BYTES: u32 = PAGE_BYTES / 2;
    const HALF_FLOATS: u32 = PAGE_FLOATS / 2;
    let cat = catalog(input, tiles, out);
    let backend = device::thread_idx_x();
    let pool = start_pool(backend, AGG_WORKERS);
    if backend == BACKENDS - 1 {
        let mut cursor = PipelineState::<FRAMES>::producer_start();
        let mut page = cat.partition;
        while page < cat.pages {
            pool.latches.producer_acquire(&cursor);
            pool.latches.producer_expect_tx(&cursor, PAGE_BYTES);
            let frame = pool.frames + cursor.index() * PAGE_BYTES;
            let first = cat.table.wrapping_add((page * PAGE_FLOATS) as usize);
            let latch = pool.latches.producer_barrier(&cursor);
            bulk_copy_global_to_shared(frame, first as *const u8, HALF_BYTES, latch);
            bulk_copy_global_to_shared(frame + HALF_BYTES, first.wrapping_add(HALF_FLOATS as usize) as *const u8, HALF_BYTES, latch);
            cursor.advance();
            page += cat.partitions;
        }
        pool.latches.producer_tail(cursor);
    } else if backend < AGG_WORKERS {
        let mut agg = SumAggregate::open(&cat, backend);
        let mut page = cat.partition;
        while page < cat.pages {
            pool.latches.consumer_wait(&agg.cursor);
            let frame = pool.frame_mem.add((agg.cursor.index() * PAGE_FLOATS) as usize);
            agg.total += fold_column(frame, agg.column);
            pool.latches.consumer_release(&agg.cursor);
            agg.cursor.advance();
            page += cat.partitions;
        }
        agg.emit(&cat);
    }
}

/// No pipeline: a buffer pool of one frame. Every backend pins the page (copies its four
/// floats into the frame), a block barrier, the aggregate workers fold their column, a block
/// barrier (unpin) before the next page replaces the frame.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_queryplan_single_frame_pool(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BACKENDS);
    dynamic_shared_bytes(SHARED_BYTES);
    let cat = catalog(input, tiles, out);
    let backend = device::thread_idx_x();
    let frame = device::dynamic_shared_base::<f32>();
    let mut total = 0.0;
    let mut page = cat.partition;
    while page < cat.pages {
        let mut slot = backend;
        while slot < PAGE_FLOATS {
            *frame.add(slot as usize) = *cat.table.add((page * PAGE_FLOATS + slot) as usize);
            slot += BACKENDS;
        }
        device::barrier();
        if backend < AGG_WORKERS {
            total += fold_column(frame, backend);
        }
        device::barrier();
        page += cat.partitions;
    }
    if backend < AGG_WORKERS {
        *cat.result.add((cat.partition * PAGE_COLS + backend) as usize) = total;
    }
}

/// A Gather node over the aggregate: the scan runs on backend 0, the aggregate workers are
/// backends 32..63; when the partition is exhausted they write their partial results into an
/// exchange buffer after the frames, a block barrier, and backends 0..31 emit them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_queryplan_gather_exchange(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BACKENDS);
    dynamic_shared_bytes(SHARED_BYTES);
    let cat = catalog(input, tiles, out);
    let backend = device::thread_idx_x();
    let pool = start_pool(backend, AGG_WORKERS);
    let exchange = device::dynamic_shared_base::<f32>().wrapping_add((EXCHANGE / 4) as usize);
    if backend == 0 {
        let mut scan = SeqScan::open(&cat);
        let mut page = cat.partition;
        while page < cat.pages {
            scan.next(&cat, &pool);
            page += cat.partitions;
        }
        scan.close(&pool);
    } else if backend >= PAGE_COLS {
        let column = backend - PAGE_COLS;
        let mut agg = SumAggregate::open(&cat, column);
        let mut page = cat.partition;
        while page < cat.pages {
            agg.next(&cat, &pool);
            page += cat.partitions;
        }
        *exchange.add(column as usize) = agg.total;
    }
    device::barrier();
    if backend < PAGE_COLS {
        *cat.result.add((cat.partition * PAGE_COLS + backend) as usize) = *exchange.add(backend as usize);
    }
}

/// BROKEN: the scan assumes every frame of the pool is free and never waits for the
/// aggregate to unpin it (no `producer_acquire`): from the fifth page on, the scan reads
/// pages into frames the aggregate workers are still folding.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_queryplan_bad_scan_without_pin(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BACKENDS);
    dynamic_shared_bytes(SHARED_BYTES);
    let cat = catalog(input, tiles, out);
    let backend = device::thread_idx_x();
    let pool = start_pool(backend, AGG_WORKERS);
    if backend == SCAN_BACKEND {
        let mut cursor = PipelineState::<FRAMES>::producer_start();
        let mut page = cat.partition;
        while page < cat.pages {
            pool.latches.producer_expect_tx(&cursor, PAGE_BYTES);
            let frame = pool.frames + cursor.index() * PAGE_BYTES;
            let src = cat.table.wrapping_add((page * PAGE_FLOATS) as usize) as *const u8;
            bulk_copy_global_to_shared(frame, src, PAGE_BYTES, pool.latches.producer_barrier(&cursor));
            cursor.advance();
            page += cat.partitions;
        }
        pool.latches.producer_tail(cursor);
    } else if backend < AGG_WORKERS {
        let mut agg = SumAggregate::open(&cat, backend);
        while agg.next(&cat, &pool) {}
        agg.emit(&cat);
    }
}

/// BROKEN: a parallel sequential scan with two scan workers (backends 32 and 33), worker `w`
/// reading the partition's pages `2k + w`, each with its own cursor from frame 0: both read
/// into the same frames and both announce on *full* latches that expect one arrival.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_queryplan_bad_two_scan_workers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BACKENDS);
    dynamic_shared_bytes(SHARED_BYTES);
    const SCAN_WORKERS: u32 = 2;
    let cat = catalog(input, tiles, out);
    let backend = device::thread_idx_x();
    let pool = start_pool(backend, AGG_WORKERS);
    if backend >= SCAN_BACKEND && backend < SCAN_BACKEND + SCAN_WORKERS {
        let worker = backend - SCAN_BACKEND;
        let mut cursor = PipelineState::<FRAMES>::producer_start();
        let mut page = cat.partition + worker * cat.partitions;
        while page < cat.pages {
            pool.latches.producer_acquire(&cursor);
            pool.latches.producer_expect_tx(&cursor, PAGE_BYTES);
            let frame = pool.frames + cursor.index() * PAGE_BYTES;
            let src = cat.table.wrapping_add((page * PAGE_FLOATS) as usize) as *const u8;
            bulk_copy_global_to_shared(frame, src, PAGE_BYTES, pool.latches.producer_barrier(&cursor));
            cursor.advance();
            page += SCAN_WORKERS * cat.partitions;
        }
        pool.latches.producer_tail(cursor);
    } else if backend < AGG_WORKERS {
        let mut agg = SumAggregate::open(&cat, backend);
        while agg.next(&cat, &pool) {}
        agg.emit(&cat);
    }
}

/// BROKEN: the aggregate "reads ahead": it folds the frame's column first and only then waits
/// for the frame's latch (the wait was moved down to overlap the I/O), so it sums frames
/// before their pages have landed.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_queryplan_bad_read_ahead(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BACKENDS);
    dynamic_shared_bytes(SHARED_BYTES);
    let cat = catalog(input, tiles, out);
    let backend = device::thread_idx_x();
    let pool = start_pool(backend, AGG_WORKERS);
    if backend == SCAN_BACKEND {
        let mut scan = SeqScan::open(&cat);
        while scan.next(&cat, &pool) {}
        scan.close(&pool);
    } else if backend < AGG_WORKERS {
        let mut agg = SumAggregate::open(&cat, backend);
        let mut page = cat.partition;
        while page < cat.pages {
            let frame = pool.frame_mem.add((agg.cursor.index() * PAGE_FLOATS) as usize);
            agg.total += fold_column(frame, agg.column);
            pool.latches.consumer_wait(&agg.cursor);
            pool.latches.consumer_release(&agg.cursor);
            agg.cursor.advance();
            page += cat.partitions;
        }
        agg.emit(&cat);
    }
}

/// BROKEN: the Gather node without its barrier: backends 0..31 emit the exchange buffer as
/// soon as they reach it, while the aggregate workers (backends 32..63) are still folding
/// pages and have not written their partials yet.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_queryplan_bad_gather_unsynced(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BACKENDS);
    dynamic_shared_bytes(SHARED_BYTES);
    let cat = catalog(input, tiles, out);
    let backend = device::thread_idx_x();
    let pool = start_pool(backend, AGG_WORKERS);
    let exchange = device::dynamic_shared_base::<f32>().wrapping_add((EXCHANGE / 4) as usize);
    if backend == 0 {
        let mut scan = SeqScan::open(&cat);
        let mut page = cat.partition;
        while page < cat.pages {
            scan.next(&cat, &pool);
            page += cat.partitions;
        }
        scan.close(&pool);
    } else if backend >= PAGE_COLS {
        let column = backend - PAGE_COLS;
        let mut agg = SumAggregate::open(&cat, column);
        let mut page = cat.partition;
        while page < cat.pages {
            agg.next(&cat, &pool);
            page += cat.partitions;
        }
        *exchange.add(column as usize) = agg.total;
    }
    if backend < PAGE_COLS {
        *cat.result.add((cat.partition * PAGE_COLS + backend) as usize) = *exchange.add(backend as usize);
    }
}
