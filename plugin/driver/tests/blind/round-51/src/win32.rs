//! Column sums written the way a Win32/DirectX shop writes C: Hungarian notation (`dw`, `c`, `cb`,
//! `cch`, `p`, `flt`), ALL-CAPS typedefs, `HRESULT` status codes checked with `SUCCEEDED`/`FAILED`,
//! context structs that carry their own `cbSize`, out-parameters, and flag words tested bit by bit.
#![allow(non_snake_case, non_camel_case_types, non_upper_case_globals, clippy::upper_case_acronyms)]

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

type DWORD = u32;
type UINT = u32;
type FLOAT = f32;
type BOOL = bool;
type HRESULT = i32;
type LPCFLOAT = *const f32;
type LPFLOAT = *mut f32;
type LPCVOID = *const u8;

const S_OK: HRESULT = 0;
const S_FALSE: HRESULT = 1;
const E_INVALIDARG: HRESULT = 0x8007_0057_u32 as i32;

#[inline(always)]
fn SUCCEEDED(hr: HRESULT) -> BOOL {
    hr >= 0
}

#[inline(always)]
fn FAILED(hr: HRESULT) -> BOOL {
    hr < 0
}

const THREADS_PER_BLOCK: DWORD = 64;
const CB_DYNAMIC_SHARED: DWORD = 8192;
const C_COLUMNS: DWORD = 32;
const C_ROWS: DWORD = 8;
const CCH_TILE: DWORD = C_COLUMNS * C_ROWS; // floats per tile
const CB_TILE: DWORD = CCH_TILE * size_of::<FLOAT>() as DWORD; // bytes per tile
const C_STAGES: DWORD = 4;
const C_CONSUMER_THREADS: DWORD = 32;
const DW_FIRST_CONSUMER: DWORD = THREADS_PER_BLOCK - C_CONSUMER_THREADS;
const CB_BARRIER_OFFSET: DWORD = 0;
const CB_RING_OFFSET: DWORD = 1024;

/// Pipelined column sums: thread 0 streams this block's tiles into a four-stage ring, the
/// second warp (one thread per column) waits, sums its column and releases.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_win32_pipeline_basic(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS_PER_BLOCK);
    dynamic_shared_bytes(CB_DYNAMIC_SHARED);

    let pInput: LPCFLOAT = input;
    let cTiles: UINT = tiles;
    let pOutput: LPFLOAT = out;

    let dwTid: DWORD = thread_idx_x();
    let dwBlock: DWORD = block_idx_x();
    let cBlocks: DWORD = grid_dim_x();
    let dwWindow: DWORD = dynamic_shared_window_address();
    let dwBarriers: DWORD = dwWindow + CB_BARRIER_OFFSET;
    let dwRing: DWORD = dwWindow + CB_RING_OFFSET;
    let pRing: LPCFLOAT = dynamic_shared_base::<FLOAT>().add((CB_RING_OFFSET / 4) as usize);

    if dwTid == 0 {
        Pipeline::<C_STAGES>::init(dwBarriers, C_CONSUMER_THREADS);
    }
    barrier();
    let pipe = Pipeline::<C_STAGES>::attach(dwBarriers);

    if dwTid == 0 {
        let mut psProducer = PipelineState::<C_STAGES>::producer_start();
        let mut dwTile: DWORD = dwBlock;
        while dwTile < cTiles {
            pipe.producer_acquire(&psProducer);
            pipe.producer_expect_tx(&psProducer, CB_TILE);
            let dwDst: DWORD = dwRing + psProducer.index() * CB_TILE;
            let pSrc: LPCVOID = pInput.add((dwTile * CCH_TILE) as usize) as LPCVOID;
            bulk_copy_global_to_shared(dwDst, pSrc, CB_TILE, pipe.producer_barrier(&psProducer));
            psProducer.advance();
            dwTile += cBlocks;
        }
        pipe.producer_tail(psProducer);
    } else if dwTid >= DW_FIRST_CONSUMER {
        let dwColumn: DWORD = dwTid - DW_FIRST_CONSUMER;
        let mut psConsumer = PipelineState::<C_STAGES>::new();
        let mut fltSum: FLOAT = 0.0;
        let mut dwTile: DWORD = dwBlock;
        while dwTile < cTiles {
            pipe.consumer_wait(&psConsumer);
            let pStage: LPCFLOAT = pRing.add((psConsumer.index() * CCH_TILE) as usize);
            let mut dwRow: DWORD = 0;
            while dwRow < C_ROWS {
                fltSum += *pStage.add((dwRow * C_COLUMNS + dwColumn) as usize);
                dwRow += 1;
            }
            pipe.consumer_release(&psConsumer);
            psConsumer.advance();
            dwTile += cBlocks;
        }
        *pOutput.add((dwBlock * C_COLUMNS + dwColumn) as usize) = fltSum;
    }
}

/// Everything a role needs, filled once by `InitTileContext` (the `cbSize` convention lets a
/// callee check which revision of the struct it was handed).
#[derive(Clone, Copy)]
struct TILE_CONTEXT {
    cbSize: DWORD,
    dwRing: DWORD,
    pRing: LPCFLOAT,
    dwFirstTile: DWORD,
    dwTileStride: DWORD,
    cTiles: UINT,
}

#[inline(always)]
fn InitTileContext(pCtx: &mut TILE_CONTEXT, dwWindow: DWORD, cTiles: UINT) -> HRESULT {
    pCtx.cbSize = size_of::<TILE_CONTEXT>() as DWORD;
    pCtx.dwRing = dwWindow + CB_RING_OFFSET;
    pCtx.pRing = unsafe { dynamic_shared_base::<FLOAT>().add((CB_RING_OFFSET / 4) as usize) };
    pCtx.dwFirstTile = block_idx_x();
    pCtx.dwTileStride = grid_dim_x();
    pCtx.cTiles = cTiles;
    if pCtx.dwTileStride == 0 { E_INVALIDARG } else { S_OK }
}

#[inline(always)]
unsafe fn ProduceTiles(pCtx: &TILE_CONTEXT, pPipe: &Pipeline<C_STAGES>, pInput: LPCFLOAT) -> HRESULT {
    let mut psProducer = PipelineState::<C_STAGES>::producer_start();
    let mut dwTile: DWORD = pCtx.dwFirstTile;
    while dwTile < pCtx.cTiles {
        pPipe.producer_acquire(&psProducer);
        pPipe.producer_expect_tx(&psProducer, CB_TILE);
        bulk_copy_global_to_shared(
            pCtx.dwRing + psProducer.index() * CB_TILE,
            pInput.add((dwTile * CCH_TILE) as usize) as LPCVOID,
            CB_TILE,
            pPipe.producer_barrier(&psProducer),
        );
        psProducer.advance();
        dwTile += pCtx.dwTileStride;
    }
    pPipe.producer_tail(psProducer);
    S_OK
}

#[inline(always)]
unsafe fn ConsumeTiles(pCtx: &TILE_CONTEXT, pPipe: &Pipeline<C_STAGES>, dwColumn: DWORD, pfltSum: &mut FLOAT) -> HRESULT {
    let mut psConsumer = PipelineState::<C_STAGES>::new();
    let mut fltSum: FLOAT = 0.0;
    let mut dwTile: DWORD = pCtx.dwFirstTile;
    while dwTile < pCtx.cTiles {
        pPipe.consumer_wait(&psConsumer);
        let pStage: LPCFLOAT = pCtx.pRing.add((psConsumer.index() * CCH_TILE) as usize);
        for dwRow in 0..C_ROWS {
            fltSum += *pStage.add((dwRow * C_COLUMNS + dwColumn) as usize);
        }
        pPipe.consumer_release(&psConsumer);
        psConsumer.advance();
        dwTile += pCtx.dwTileStride;
    }
    *pfltSum = fltSum;
    if pCtx.dwFirstTile < pCtx.cTiles { S_OK } else { S_FALSE }
}

/// The same pipeline split into `HRESULT` functions over a `TILE_CONTEXT`, results returned
/// through an out-parameter.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_win32_context_hresult(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS_PER_BLOCK);
    dynamic_shared_bytes(CB_DYNAMIC_SHARED);

    let dwTid: DWORD = thread_idx_x();
    let dwWindow: DWORD = dynamic_shared_window_address();
    let dwBarriers: DWORD = dwWindow + CB_BARRIER_OFFSET;

    let mut ctx = TILE_CONTEXT {
        cbSize: 0,
        dwRing: 0,
        pRing: core::ptr::null(),
        dwFirstTile: 0,
        dwTileStride: 0,
        cTiles: 0,
    };
    let hr = InitTileContext(&mut ctx, dwWindow, tiles);

    if dwTid == 0 {
        Pipeline::<C_STAGES>::init(dwBarriers, C_CONSUMER_THREADS);
    }
    barrier();
    if FAILED(hr) {
        return;
    }
    let pipe = Pipeline::<C_STAGES>::attach(dwBarriers);

    if dwTid == 0 {
        let _ = ProduceTiles(&ctx, &pipe, input);
    } else if dwTid >= DW_FIRST_CONSUMER {
        let dwColumn = dwTid - DW_FIRST_CONSUMER;
        let mut fltSum: FLOAT = 0.0;
        let hrConsume = ConsumeTiles(&ctx, &pipe, dwColumn, &mut fltSum);
        if SUCCEEDED(hrConsume) {
            *out.add((ctx.dwFirstTile * C_COLUMNS + dwColumn) as usize) = fltSum;
        } else {
            *out.add((ctx.dwFirstTile * C_COLUMNS + dwColumn) as usize) = 0.0;
        }
    }
}

/// A descriptor in the D3D manner: one constant struct states the pipeline's shape.
#[derive(Clone, Copy)]
struct PIPELINE_DESC {
    cStages: DWORD,
    cbStage: DWORD,
    cbRingOffset: DWORD,
    cConsumers: DWORD,
    dwProducerThread: DWORD,
}

const RING_DESC: PIPELINE_DESC = PIPELINE_DESC {
    cStages: 3,
    cbStage: CB_TILE,
    cbRingOffset: 64,
    cConsumers: C_CONSUMER_THREADS,
    dwProducerThread: 32,
};

/// Pipelined column sums described by a constant `PIPELINE_DESC`: three stages right after
/// the barriers, thread 32 produces and the first warp consumes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_win32_desc_struct(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS_PER_BLOCK);
    dynamic_shared_bytes(CB_DYNAMIC_SHARED);

    const C_DESC_STAGES: DWORD = RING_DESC.cStages;
    let dwTid: DWORD = thread_idx_x();
    let dwWindow: DWORD = dynamic_shared_window_address();
    let dwRing: DWORD = dwWindow + RING_DESC.cbRingOffset;
    let pRing: LPCFLOAT = dynamic_shared_base::<FLOAT>().add((RING_DESC.cbRingOffset / 4) as usize);

    if dwTid == RING_DESC.dwProducerThread {
        Pipeline::<C_DESC_STAGES>::init(dwWindow, RING_DESC.cConsumers);
    }
    barrier();
    let pipe = Pipeline::<C_DESC_STAGES>::attach(dwWindow);

    let dwBlock = block_idx_x();
    let cBlocks = grid_dim_x();
    if dwTid == RING_DESC.dwProducerThread {
        let mut ps = PipelineState::<C_DESC_STAGES>::producer_start();
        let mut dwTile = dwBlock;
        while dwTile < tiles {
            pipe.producer_acquire(&ps);
            pipe.producer_expect_tx(&ps, RING_DESC.cbStage);
            bulk_copy_global_to_shared(
                dwRing + ps.index() * RING_DESC.cbStage,
                input.add((dwTile * CCH_TILE) as usize) as LPCVOID,
                RING_DESC.cbStage,
                pipe.producer_barrier(&ps),
            );
            ps.advance();
            dwTile += cBlocks;
        }
        pipe.producer_tail(ps);
    } else if dwTid < RING_DESC.cConsumers {
        let dwColumn = dwTid;
        let mut ps = PipelineState::<C_DESC_STAGES>::new();
        let mut fltSum: FLOAT = 0.0;
        let mut dwTile = dwBlock;
        while dwTile < tiles {
            pipe.consumer_wait(&ps);
            let pStage = pRing.add((ps.index() * (RING_DESC.cbStage / 4)) as usize);
            let mut dwRow = 0;
            while dwRow < C_ROWS {
                fltSum += *pStage.add((dwRow * C_COLUMNS + dwColumn) as usize);
                dwRow += 1;
            }
            pipe.consumer_release(&ps);
            ps.advance();
            dwTile += cBlocks;
        }
        *out.add((dwBlock * C_COLUMNS + dwColumn) as usize) = fltSum;
    }
}

/// No pipeline: all 64 threads stage each tile (four floats each), a block barrier, then each
/// thread sums half a column; the halves meet in a scratch array after the loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_win32_staged_columns(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS_PER_BLOCK);
    dynamic_shared_bytes(CB_DYNAMIC_SHARED);

    const CCH_SCRATCH_OFFSET: usize = 512; // floats: the scratch starts at byte 2048
    let lpTile: LPFLOAT = dynamic_shared_base::<FLOAT>();
    let lpScratch: LPFLOAT = lpTile.add(CCH_SCRATCH_OFFSET);

    let dwTid: DWORD = thread_idx_x();
    let dwBlock: DWORD = block_idx_x();
    let cBlocks: DWORD = grid_dim_x();
    let dwColumn: DWORD = dwTid % C_COLUMNS;
    let dwHalf: DWORD = dwTid / C_COLUMNS; // rows 0..3 or 4..7
    let mut fltPartial: FLOAT = 0.0;

    let mut dwTile: DWORD = dwBlock;
    while dwTile < tiles {
        let pSrc: LPCFLOAT = input.add((dwTile * CCH_TILE) as usize);
        let mut dwPass: DWORD = 0;
        while dwPass < CCH_TILE / THREADS_PER_BLOCK {
            let dwIndex = dwPass * THREADS_PER_BLOCK + dwTid;
            *lpTile.add(dwIndex as usize) = *pSrc.add(dwIndex as usize);
            dwPass += 1;
        }
        barrier();
        let mut dwRow: DWORD = dwHalf * (C_ROWS / 2);
        while dwRow < (dwHalf + 1) * (C_ROWS / 2) {
            fltPartial += *lpTile.add((dwRow * C_COLUMNS + dwColumn) as usize);
            dwRow += 1;
        }
        barrier();
        dwTile += cBlocks;
    }

    *lpScratch.add(dwTid as usize) = fltPartial;
    barrier();
    if dwTid < C_COLUMNS {
        *out.add((dwBlock * C_COLUMNS + dwTid) as usize) = *lpScratch.add(dwTid as usize) + *lpScratch.add((dwTid + C_COLUMNS) as usize);
    }
}

/// Copies `cb` bytes of one tile into the ring and signals the stage's full barrier.
#[inline(always)]
unsafe fn CopyTileAsync(dwDst: DWORD, pSrc: LPCFLOAT, cb: DWORD, dwBarrier: DWORD) {
    bulk_copy_global_to_shared(dwDst, pSrc as LPCVOID, cb, dwBarrier);
}

/// BROKEN: the copy helper is handed `CCH_TILE` (a count of floats, 256) where it wants bytes:
/// each copy delivers 256 bytes against the 1024 the stage announced, so no full barrier ever
/// completes and the consumers wait forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_win32_bad_cch_for_cb(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS_PER_BLOCK);
    dynamic_shared_bytes(CB_DYNAMIC_SHARED);

    let dwTid: DWORD = thread_idx_x();
    let dwBlock: DWORD = block_idx_x();
    let cBlocks: DWORD = grid_dim_x();
    let dwWindow: DWORD = dynamic_shared_window_address();
    let dwBarriers: DWORD = dwWindow + CB_BARRIER_OFFSET;
    let dwRing: DWORD = dwWindow + CB_RING_OFFSET;
    let pRing: LPCFLOAT = dynamic_shared_base::<FLOAT>().add((CB_RING_OFFSET / 4) as usize);

    if dwTid == 0 {
        Pipeline::<C_STAGES>::init(dwBarriers, C_CONSUMER_THREADS);
    }
    barrier();
    let pipe = Pipeline::<C_STAGES>::attach(dwBarriers);

    if dwTid == 0 {
        let mut psProducer = PipelineState::<C_STAGES>::producer_start();
        let mut dwTile: DWORD = dwBlock;
        while dwTile < tiles {
            pipe.producer_acquire(&psProducer);
            pipe.producer_expect_tx(&psProducer, CB_TILE);
            CopyTileAsync(
                dwRing + psProducer.index() * CB_TILE,
                input.add((dwTile * CCH_TILE) as usize),
                CCH_TILE,
                pipe.producer_barrier(&psProducer),
            );
            psProducer.advance();
            dwTile += cBlocks;
        }
        pipe.producer_tail(psProducer);
    } else if dwTid >= DW_FIRST_CONSUMER {
        let dwColumn: DWORD = dwTid - DW_FIRST_CONSUMER;
        let mut psConsumer = PipelineState::<C_STAGES>::new();
        let mut fltSum: FLOAT = 0.0;
        let mut dwTile: DWORD = dwBlock;
        while dwTile < tiles {
            pipe.consumer_wait(&psConsumer);
            let pStage: LPCFLOAT = pRing.add((psConsumer.index() * CCH_TILE) as usize);
            for dwRow in 0..C_ROWS {
                fltSum += *pStage.add((dwRow * C_COLUMNS + dwColumn) as usize);
            }
            pipe.consumer_release(&psConsumer);
            psConsumer.advance();
            dwTile += cBlocks;
        }
        *out.add((dwBlock * C_COLUMNS + dwColumn) as usize) = fltSum;
    }
}

/// BROKEN: `init` is given `THREADS_PER_BLOCK` (64) releasing threads where only the 32 of the
/// second warp release: no empty barrier ever completes, and the producer hangs at its fifth
/// tile's acquire.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_win32_bad_consumer_count(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS_PER_BLOCK);
    dynamic_shared_bytes(CB_DYNAMIC_SHARED);

    let dwTid: DWORD = thread_idx_x();
    let dwWindow: DWORD = dynamic_shared_window_address();
    let dwBarriers: DWORD = dwWindow + CB_BARRIER_OFFSET;

    let mut ctx = TILE_CONTEXT {
        cbSize: 0,
        dwRing: 0,
        pRing: core::ptr::null(),
        dwFirstTile: 0,
        dwTileStride: 0,
        cTiles: 0,
    };
    let hr = InitTileContext(&mut ctx, dwWindow, tiles);

    if dwTid == 0 {
        Pipeline::<C_STAGES>::init(dwBarriers, THREADS_PER_BLOCK);
    }
    barrier();
    if FAILED(hr) {
        return;
    }
    let pipe = Pipeline::<C_STAGES>::attach(dwBarriers);

    if dwTid == 0 {
        let _ = ProduceTiles(&ctx, &pipe, input);
    } else if dwTid >= DW_FIRST_CONSUMER {
        let dwColumn = dwTid - DW_FIRST_CONSUMER;
        let mut fltSum: FLOAT = 0.0;
        let _ = ConsumeTiles(&ctx, &pipe, dwColumn, &mut fltSum);
        *out.add((ctx.dwFirstTile * C_COLUMNS + dwColumn) as usize) = fltSum;
    }
}

const CS_WAIT: DWORD = 0x1;
const CS_READ: DWORD = 0x2;
const CS_RELEASE: DWORD = 0x4;

/// One consumer step, its parts chosen by a flag word (`CS_WAIT | CS_READ | CS_RELEASE`).
#[inline(always)]
unsafe fn ConsumeStage(pPipe: &Pipeline<C_STAGES>, pps: &PipelineState<C_STAGES>, pRing: LPCFLOAT, dwColumn: DWORD, dwFlags: DWORD, pfltSum: &mut FLOAT) {
    if dwFlags & CS_WAIT != 0 {
        pPipe.consumer_wait(pps);
    }
    if dwFlags & CS_READ != 0 {
        let pStage = pRing.add((pps.index() * CCH_TILE) as usize);
        for dwRow in 0..C_ROWS {
            *pfltSum += *pStage.add((dwRow * C_COLUMNS + dwColumn) as usize);
        }
    }
    if dwFlags & CS_RELEASE != 0 {
        pPipe.consumer_release(pps);
    }
}

/// BROKEN: the consumers call `ConsumeStage` with `CS_READ | CS_RELEASE` and no `CS_WAIT`: they
/// read each stage before its copy has landed (and race ahead of the producer), so the sums are
/// of whatever the shared memory held.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_win32_bad_flags_without_wait(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS_PER_BLOCK);
    dynamic_shared_bytes(CB_DYNAMIC_SHARED);

    let dwTid: DWORD = thread_idx_x();
    let dwBlock: DWORD = block_idx_x();
    let cBlocks: DWORD = grid_dim_x();
    let dwWindow: DWORD = dynamic_shared_window_address();
    let dwBarriers: DWORD = dwWindow + CB_BARRIER_OFFSET;
    let dwRing: DWORD = dwWindow + CB_RING_OFFSET;
    let pRing: LPCFLOAT = dynamic_shared_base::<FLOAT>().add((CB_RING_OFFSET / 4) as usize);

    if dwTid == 0 {
        Pipeline::<C_STAGES>::init(dwBarriers, C_CONSUMER_THREADS);
    }
    barrier();
    let pipe = Pipeline::<C_STAGES>::attach(dwBarriers);

    if dwTid == 0 {
        let mut psProducer = PipelineState::<C_STAGES>::producer_start();
        let mut dwTile: DWORD = dwBlock;
        while dwTile < tiles {
            pipe.producer_acquire(&psProducer);
            pipe.producer_expect_tx(&psProducer, CB_TILE);
            bulk_copy_global_to_shared(
                dwRing + psProducer.index() * CB_TILE,
                input.add((dwTile * CCH_TILE) as usize) as LPCVOID,
                CB_TILE,
                pipe.producer_barrier(&psProducer),
            );
            psProducer.advance();
            dwTile += cBlocks;
        }
        pipe.producer_tail(psProducer);
    } else if dwTid >= DW_FIRST_CONSUMER {
        let dwColumn: DWORD = dwTid - DW_FIRST_CONSUMER;
        let mut psConsumer = PipelineState::<C_STAGES>::new();
        let mut fltSum: FLOAT = 0.0;
        let mut dwTile: DWORD = dwBlock;
        while dwTile < tiles {
            ConsumeStage(&pipe, &psConsumer, pRing, dwColumn, CS_READ | CS_RELEASE, &mut fltSum);
            psConsumer.advance();
            dwTile += cBlocks;
        }
        *out.add((dwBlock * C_COLUMNS + dwColumn) as usize) = fltSum;
    }
}

/// BROKEN: the staging buffer is addressed by the tile's global number (`dwTile * CCH_TILE`)
/// instead of a slot of the window: from the second tile on, every block writes and reads
/// 8 KiB or more past its 8 KiB of dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_win32_bad_tile_as_slot(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS_PER_BLOCK);
    dynamic_shared_bytes(CB_DYNAMIC_SHARED);

    let lpShared: LPFLOAT = dynamic_shared_base::<FLOAT>();
    let dwTid: DWORD = thread_idx_x();
    let dwBlock: DWORD = block_idx_x();
    let cBlocks: DWORD = grid_dim_x();
    let mut fltSum: FLOAT = 0.0;

    let mut dwTile: DWORD = dwBlock;
    while dwTile < tiles {
        let lpTile: LPFLOAT = lpShared.add((dwTile * CCH_TILE) as usize);
        let pSrc: LPCFLOAT = input.add((dwTile * CCH_TILE) as usize);
        let mut dwPass: DWORD = 0;
        while dwPass < CCH_TILE / THREADS_PER_BLOCK {
            let dwIndex = dwPass * THREADS_PER_BLOCK + dwTid;
            *lpTile.add(dwIndex as usize) = *pSrc.add(dwIndex as usize);
            dwPass += 1;
        }
        barrier();
        if dwTid < C_COLUMNS {
            let mut dwRow: DWORD = 0;
            while dwRow < C_ROWS {
                fltSum += *lpTile.add((dwRow * C_COLUMNS + dwTid) as usize);
                dwRow += 1;
            }
        }
        barrier();
        dwTile += cBlocks;
    }
    if dwTid < C_COLUMNS {
        *out.add((dwBlock * C_COLUMNS + dwTid) as usize) = fltSum;
    }
}
