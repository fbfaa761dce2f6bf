//! Blind round 44, style `opencl`: kernels ported from OpenCL C.
//!
//! The ports keep the OpenCL vocabulary of their originals: work-items and work-groups,
//! `get_local_id(0)`, `get_group_id(0)`, `get_num_groups(0)`, `barrier(CLK_LOCAL_MEM_FENCE)`,
//! `__local` buffers, `size_t` index arithmetic, and `async_work_group_copy` whose `event_t` is
//! the stage's *full* mbarrier (the bulk copy completes its bytes there).
//!
//! NDRange of every kernel (`reqd_work_group_size`): local size 64, 8 work-groups, 8 KiB of
//! `__local` memory passed by the host. A work-group reduces the tiles `t` with
//! `t % get_num_groups(0) == get_group_id(0)`, column by column.

#![allow(non_camel_case_types)]

use core::mem::size_of;

use crate::device;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};

type size_t = usize;
type uint = u32;
type cl_mem_fence_flags = u32;
/// The completion event of an async work-group copy: a *full* mbarrier's window address.
type event_t = uint;

const CLK_LOCAL_MEM_FENCE: cl_mem_fence_flags = 1;

const LOCAL_SIZE: uint = 64;
const LOCAL_MEM_SIZE: uint = 8192;
const TILE_FLOATS: size_t = 256;
const TILE_BYTES: uint = (TILE_FLOATS * size_of::<f32>()) as uint;
const COLS: size_t = 32;
const ROWS: size_t = TILE_FLOATS / COLS;
/// Work-items that read the staged tiles (one column each).
const CONSUMER_ITEMS: uint = 32;

#[inline(always)]
fn get_local_id(dim: uint) -> size_t {
    if dim == 0 { device::thread_idx_x() as size_t } else { 0 }
}

#[inline(always)]
fn get_group_id(dim: uint) -> size_t {
    if dim == 0 { device::block_idx_x() as size_t } else { 0 }
}

#[inline(always)]
fn get_num_groups(dim: uint) -> size_t {
    if dim == 0 { device::grid_dim_x() as size_t } else { 1 }
}

#[inline(always)]
fn barrier(flags: cl_mem_fence_flags) {
    let _ = flags;
    device::barrier();
}

/// `__attribute__((reqd_work_group_size(64, 1, 1)))` and the `__local` bytes the host passes.
#[inline(always)]
fn reqd_work_group_size() {
    block_threads(LOCAL_SIZE);
    dynamic_shared_bytes(LOCAL_MEM_SIZE);
}

/// A `__local float*` kernel argument, at a byte offset of the local memory the host passed:
/// its address for the copy engine and its pointer for the work-items.
#[derive(Clone, Copy)]
struct LocalBuf {
    addr: uint,
    ptr: *mut f32,
}

#[inline(always)]
fn local_buffer(byte_offset: uint) -> LocalBuf {
    LocalBuf {
        addr: device::dynamic_shared_window_address() + byte_offset,
        ptr: device::dynamic_shared_base::<f32>().wrapping_add(byte_offset as size_t / size_of::<f32>()),
    }
}

/// `event_t async_work_group_copy(__local float *dst, const __global float *src, size_t n, event_t e)`.
#[inline(always)]
unsafe fn async_work_group_copy(dst: uint, src: *const f32, num_elements: size_t, event: event_t) {
    bulk_copy_global_to_shared(dst, src as *const u8, (num_elements * size_of::<f32>()) as uint, event);
}

#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct float4 {
    s: [f32; 4],
}

/// The `float4` overload of `async_work_group_copy`.
#[inline(always)]
unsafe fn async_work_group_copy_f4(dst: uint, src: *const float4, num_elements: size_t, event: event_t) {
    bulk_copy_global_to_shared(dst, src as *const u8, (num_elements * size_of::<f32>()) as uint, event);
}

/// Sum of column `col` of a `__local` tile.
#[inline(always)]
unsafe fn column_sum(l_tile: *const f32, col: size_t) -> f32 {
    let mut sum = 0.0f32;
    for row in 0..ROWS {
        sum += *l_tile.add(row * COLS + col);
    }
    sum
}

/// The consuming work-item's loop: one column of every tile of the group, in the ring's order.
#[inline(always)]
unsafe fn consume_tiles<const N: uint>(
    pipe: &Pipeline<N>,
    l_ring: LocalBuf,
    col: size_t,
    tiles: uint,
    out: *mut f32,
) {
    let group = get_group_id(0);
    let num_groups = get_num_groups(0);
    let mut sum = 0.0f32;
    let mut st = PipelineState::<N>::new();
    let mut t = group;
    while t < tiles as size_t {
        pipe.consumer_wait(&st);
        let l_tile = l_ring.ptr.add(st.index() as size_t * TILE_FLOATS) as *const f32;
        sum += column_sum(l_tile, col);
        pipe.consumer_release(&st);
        st.advance();
        t += num_groups;
    }
    *out.add(group * COLS + col) = sum;
}

const RING_STAGES: uint = 4;

/// Four `__local` tile buffers filled by `async_work_group_copy` from work-item 0; work-items
/// 32..63 each reduce one column (events at byte 0, buffers from byte 1024).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_opencl_async_copy_ring(input: *const f32, tiles: u32, out: *mut f32) {
    reqd_work_group_size();
    let lid = get_local_id(0);
    let group = get_group_id(0);
    let num_groups = get_num_groups(0);
    let events: event_t = local_buffer(0).addr;
    let l_ring = local_buffer(1024);
    if lid == 0 {
        Pipeline::<RING_STAGES>::init(events, CONSUMER_ITEMS);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    let pipe = Pipeline::<RING_STAGES>::attach(events);
    if lid == 0 {
        let mut st = PipelineState::<RING_STAGES>::producer_start();
        let mut t = group;
        while t < tiles as size_t {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            async_work_group_copy(
                l_ring.addr + st.index() * TILE_BYTES,
                input.add(t * TILE_FLOATS),
                TILE_FLOATS,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += num_groups;
        }
        pipe.producer_tail(st);
    } else if lid >= (LOCAL_SIZE - CONSUMER_ITEMS) as size_t {
        let col = lid - (LOCAL_SIZE - CONSUMER_ITEMS) as size_t;
        consume_tiles(&pipe, l_ring, col, tiles, out);
    }
}

const EVENT_STAGES: uint = 3;

/// The original's `e = async_work_group_copy(...); ...; wait_group_events(1, &e)` order: the
/// copy is issued first and its event told how many bytes to wait for right after; three
/// buffers (events at byte 0, buffers from byte 128).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_opencl_copy_then_event(input: *const f32, tiles: u32, out: *mut f32) {
    reqd_work_group_size();
    let lid = get_local_id(0);
    let group = get_group_id(0);
    let num_groups = get_num_groups(0);
    let events: event_t = local_buffer(0).addr;
    let l_ring = local_buffer(128);
    if lid == 0 {
        Pipeline::<EVENT_STAGES>::init(events, CONSUMER_ITEMS);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    let pipe = Pipeline::<EVENT_STAGES>::attach(events);
    if lid == 0 {
        let mut st = PipelineState::<EVENT_STAGES>::producer_start();
        let mut t = group;
        while t < tiles as size_t {
            pipe.producer_acquire(&st);
            let event = pipe.producer_barrier(&st);
            async_work_group_copy(l_ring.addr + st.index() * TILE_BYTES, input.add(t * TILE_FLOATS), TILE_FLOATS, event);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            st.advance();
            t += num_groups;
        }
        pipe.producer_tail(st);
    } else if lid >= COLS {
        consume_tiles(&pipe, l_ring, lid - COLS, tiles, out);
    }
}

const PING_PONG: uint = 2;

/// Double-buffered; the consumers are the odd work-items (the original interleaved reader and
/// writer lanes), column `lid / 2`; work-item 0 issues the copies.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_opencl_odd_work_items(input: *const f32, tiles: u32, out: *mut f32) {
    reqd_work_group_size();
    let lid = get_local_id(0);
    let group = get_group_id(0);
    let num_groups = get_num_groups(0);
    let events: event_t = local_buffer(0).addr;
    let l_ring = local_buffer(1024);
    if lid == 0 {
        Pipeline::<PING_PONG>::init(events, CONSUMER_ITEMS);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    let pipe = Pipeline::<PING_PONG>::attach(events);
    if lid == 0 {
        let mut st = PipelineState::<PING_PONG>::producer_start();
        let mut t = group;
        while t < tiles as size_t {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            async_work_group_copy(
                l_ring.addr + st.index() * TILE_BYTES,
                input.add(t * TILE_FLOATS),
                TILE_FLOATS,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += num_groups;
        }
        pipe.producer_tail(st);
    } else if lid % 2 == 1 {
        consume_tiles(&pipe, l_ring, lid / 2, tiles, out);
    }
}

/// Plain `__local` staging: the work-group copies a tile with ordinary loads and stores,
/// `barrier(CLK_LOCAL_MEM_FENCE)`, work-items 0..31 reduce their column, barrier again before
/// the buffer is refilled.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_opencl_local_tile_reduce(input: *const f32, tiles: u32, out: *mut f32) {
    reqd_work_group_size();
    let lid = get_local_id(0);
    let group = get_group_id(0);
    let num_groups = get_num_groups(0);
    let l_tile = local_buffer(0).ptr;
    let mut sum = 0.0f32;
    let mut t = group;
    while t < tiles as size_t {
        let g_tile = input.add(t * TILE_FLOATS);
        let mut i = lid;
        while i < TILE_FLOATS {
            *l_tile.add(i) = *g_tile.add(i);
            i += LOCAL_SIZE as size_t;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if lid < COLS {
            sum += column_sum(l_tile, lid);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        t += num_groups;
    }
    if lid < COLS {
        *out.add(group * COLS + lid) = sum;
    }
}

/// Tiles of a strided NDRange that work-group `group` visits: `ceil((n - group) / num_groups)`.
#[inline(always)]
fn tiles_in_group(n: size_t, group: size_t, num_groups: size_t) -> size_t {
    if group >= n {
        return 0;
    }
    (n - group + num_groups).checked_div(num_groups).unwrap_or(0)
}

/// BROKEN.
/// Four `__local` buffers filled by work-item 0; work-items 32..63 size their loop from the
/// group's tile count (`tiles_in_group`) and reduce one column each.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_opencl_bad_ceil_div_groups(input: *const f32, tiles: u32, out: *mut f32) {
    reqd_work_group_size();
    let lid = get_local_id(0);
    let group = get_group_id(0);
    let num_groups = get_num_groups(0);
    let events: event_t = local_buffer(0).addr;
    let l_ring = local_buffer(1024);
    if lid == 0 {
        Pipeline::<RING_STAGES>::init(events, CONSUMER_ITEMS);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    let pipe = Pipeline::<RING_STAGES>::attach(events);
    if lid == 0 {
        let mut st = PipelineState::<RING_STAGES>::producer_start();
        let mut t = group;
        while t < tiles as size_t {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            async_work_group_copy(
                l_ring.addr + st.index() * TILE_BYTES,
                input.add(t * TILE_FLOATS),
                TILE_FLOATS,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += num_groups;
        }
        pipe.producer_tail(st);
    } else if lid >= COLS {
        let col = lid - COLS;
        let n = tiles_in_group(tiles as size_t, group, num_groups);
        let mut sum = 0.0f32;
        let mut st = PipelineState::<RING_STAGES>::new();
        for _ in 0..n {
            pipe.consumer_wait(&st);
            let l_tile = l_ring.ptr.add(st.index() as size_t * TILE_FLOATS) as *const f32;
            sum += column_sum(l_tile, col);
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add(group * COLS + col) = sum;
    }
}

/// BROKEN.
/// Four `__local` buffers, each tile moved as 64 `float4`s by the vector form of
/// `async_work_group_copy`; work-items 32..63 reduce one column each.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_opencl_bad_float4_event_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    reqd_work_group_size();
    let lid = get_local_id(0);
    let group = get_group_id(0);
    let num_groups = get_num_groups(0);
    let events: event_t = local_buffer(0).addr;
    let l_ring = local_buffer(1024);
    if lid == 0 {
        Pipeline::<RING_STAGES>::init(events, CONSUMER_ITEMS);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    let pipe = Pipeline::<RING_STAGES>::attach(events);
    if lid == 0 {
        let mut st = PipelineState::<RING_STAGES>::producer_start();
        let mut t = group;
        while t < tiles as size_t {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            async_work_group_copy_f4(
                l_ring.addr + st.index() * TILE_BYTES,
                input.add(t * TILE_FLOATS) as *const float4,
                TILE_FLOATS / 4,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += num_groups;
        }
        pipe.producer_tail(st);
    } else if lid >= COLS {
        consume_tiles(&pipe, l_ring, lid - COLS, tiles, out);
    }
}

/// The `__local` buffer the copy of the next tile goes to while the current one is reduced.
#[inline(always)]
fn prefetch_buffer(l_ring: LocalBuf, current: uint) -> uint {
    l_ring.addr + ((current + 1) % PING_PONG) * TILE_BYTES
}

/// BROKEN.
/// Double-buffered `async_work_group_copy` in the original's prefetch style; work-items 32..63
/// reduce one column each.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_opencl_bad_prefetch_slot(input: *const f32, tiles: u32, out: *mut f32) {
    reqd_work_group_size();
    let lid = get_local_id(0);
    let group = get_group_id(0);
    let num_groups = get_num_groups(0);
    let events: event_t = local_buffer(0).addr;
    let l_ring = local_buffer(1024);
    if lid == 0 {
        Pipeline::<PING_PONG>::init(events, CONSUMER_ITEMS);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    let pipe = Pipeline::<PING_PONG>::attach(events);
    if lid == 0 {
        let mut st = PipelineState::<PING_PONG>::producer_start();
        let mut t = group;
        while t < tiles as size_t {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            async_work_group_copy(
                prefetch_buffer(l_ring, st.index()),
                input.add(t * TILE_FLOATS),
                TILE_FLOATS,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += num_groups;
        }
        pipe.producer_tail(st);
    } else if lid >= COLS {
        consume_tiles(&pipe, l_ring, lid - COLS, tiles, out);
    }
}

/// BROKEN.
/// Plain `__local` staging: the group copies a tile, `barrier(CLK_LOCAL_MEM_FENCE)`, work-items
/// 0..31 reduce their column.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_opencl_bad_local_reuse(input: *const f32, tiles: u32, out: *mut f32) {
    reqd_work_group_size();
    let lid = get_local_id(0);
    let group = get_group_id(0);
    let num_groups = get_num_groups(0);
    let l_tile = local_buffer(0).ptr;
    let mut sum = 0.0f32;
    let mut t = group;
    while t < tiles as size_t {
        let g_tile = input.add(t * TILE_FLOATS);
        let mut i = lid;
        while i < TILE_FLOATS {
            *l_tile.add(i) = *g_tile.add(i);
            i += LOCAL_SIZE as size_t;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if lid < COLS {
            sum += column_sum(l_tile, lid);
        }
        t += num_groups;
    }
    if lid < COLS {
        *out.add(group * COLS + lid) = sum;
    }
}
