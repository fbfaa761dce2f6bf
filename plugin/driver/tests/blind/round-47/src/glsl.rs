//! Module `glsl`: GLSL compute shaders ported line by line. The shader's built-ins
//! (`gl_LocalInvocationID`, `gl_WorkGroupID`, `gl_NumWorkGroups`), its `buffer` blocks (an SSBO
//! struct wrapping the kernel pointer), its `uniform` block, `shared` arrays declared at offsets of
//! the dynamic shared memory, and `barrier()` / `memoryBarrierShared()` as a shader writes them.
//! No bulk copies: a shader stages its workgroup's tile with ordinary loads and stores.
#![allow(non_snake_case, non_camel_case_types, non_upper_case_globals)]

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::reduce::segment_sum;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, thread_idx_x};

type uint = u32;
type float = f32;

// layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;
const gl_WorkGroupSize_x: uint = 64;
// The shared-memory budget the host gives the pipeline object (bytes).
const SHARED_BUDGET_BYTES: uint = 8192;
const TILE_FLOATS: uint = 256;
const ROW_LENGTH: uint = 32;
const ROW_COUNT: uint = 8;
const LOADS_PER_INVOCATION: uint = TILE_FLOATS / gl_WorkGroupSize_x;

/// GLSL's `uvec3`; the workgroup is one-dimensional, so `y` and `z` are never read.
#[allow(dead_code)]
#[derive(Clone, Copy)]
struct uvec3 {
    x: uint,
    y: uint,
    z: uint,
}

#[inline(always)]
fn gl_LocalInvocationID() -> uvec3 {
    uvec3 { x: thread_idx_x(), y: 0, z: 0 }
}

#[inline(always)]
fn gl_WorkGroupID() -> uvec3 {
    uvec3 { x: block_idx_x(), y: 0, z: 0 }
}

#[inline(always)]
fn gl_NumWorkGroups() -> uvec3 {
    uvec3 { x: grid_dim_x(), y: 1, z: 1 }
}

/// `memoryBarrierShared()`: orders this invocation's shared-memory accesses. On this target the
/// `bar.sync` of `barrier()` already does it for the whole workgroup, so this is kept only so the
/// port reads like the shader; it synchronises nothing.
#[inline(always)]
fn memoryBarrierShared() {}

/// `layout(std430, binding = 0) readonly buffer Tiles { float data[]; };`
#[derive(Clone, Copy)]
struct Tiles {
    data: *const float,
}

impl Tiles {
    #[inline(always)]
    unsafe fn fetch(&self, i: uint) -> float {
        *self.data.add(i as usize)
    }
}

/// `layout(std430, binding = 1) writeonly buffer Sums { float data[]; };`
#[derive(Clone, Copy)]
struct Sums {
    data: *mut float,
}

impl Sums {
    #[inline(always)]
    unsafe fn put(&self, i: uint, v: float) {
        *self.data.add(i as usize) = v;
    }
}

/// `uniform Params { uint tileCount; };`
#[derive(Clone, Copy)]
struct Params {
    tileCount: uint,
}

/// A `shared float name[]` declaration at `offset` floats into the workgroup's shared memory.
#[inline(always)]
unsafe fn shared_float_array(offset: uint) -> *mut float {
    dynamic_shared_base::<float>().add(offset as usize)
}

/// `for (uint k = 0; k < 4; ++k) dst[gl_LocalInvocationID.x + 64 * k] = tiles.data[base + ...];`
#[inline(always)]
unsafe fn stage_tile(dst: *mut float, tiles: &Tiles, tileIndex: uint, lid: uint) {
    for k in 0..LOADS_PER_INVOCATION {
        let i = lid + gl_WorkGroupSize_x * k;
        *dst.add(i as usize) = tiles.fetch(tileIndex * TILE_FLOATS + i);
    }
}

/// Workgroup stages each of its tiles into `shared float tile[256]`, barrier, the first 32
/// invocations each add up one column of the tile, barrier before the next tile is staged.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_glsl_shared_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(gl_WorkGroupSize_x);
    dynamic_shared_bytes(SHARED_BUDGET_BYTES);
    let src = Tiles { data: input };
    let dst = Sums { data: out };
    let params = Params { tileCount: tiles };
    let tile = shared_float_array(0);

    let lid: uint = gl_LocalInvocationID().x;
    let group: uint = gl_WorkGroupID().x;
    let mut columnSum: float = 0.0;
    let mut t: uint = group;
    while t < params.tileCount {
        stage_tile(tile, &src, t, lid);
        memoryBarrierShared();
        barrier();
        if lid < ROW_LENGTH {
            for row in 0..ROW_COUNT {
                columnSum += *tile.add((row * ROW_LENGTH + lid) as usize);
            }
        }
        barrier();
        t += gl_NumWorkGroups().x;
    }
    if lid < ROW_LENGTH {
        dst.put(group * ROW_LENGTH + lid, columnSum);
    }
}

/// Both halves of the workgroup sum: invocation `i` adds rows `4 * (i / 32) .. +4` of column
/// `i % 32` of every tile; after the tile loop the 64 partials go to `shared float partial[64]`
/// (after the tile), barrier, and the first 32 invocations add their pair.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_glsl_two_row_halves(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(gl_WorkGroupSize_x);
    dynamic_shared_bytes(SHARED_BUDGET_BYTES);
    let src = Tiles { data: input };
    let dst = Sums { data: out };
    let tile = shared_float_array(0);
    let partial = shared_float_array(TILE_FLOATS);

    let lid = gl_LocalInvocationID().x;
    let column = lid % ROW_LENGTH;
    let half = lid / ROW_LENGTH;
    let mut acc: float = 0.0;
    let mut t = gl_WorkGroupID().x;
    while t < tiles {
        stage_tile(tile, &src, t, lid);
        memoryBarrierShared();
        barrier();
        for r in 0..ROW_COUNT / 2 {
            let row = half * (ROW_COUNT / 2) + r;
            acc += *tile.add((row * ROW_LENGTH + column) as usize);
        }
        barrier();
        t += gl_NumWorkGroups().x;
    }
    *partial.add(lid as usize) = acc;
    memoryBarrierShared();
    barrier();
    if lid < ROW_LENGTH {
        let total = *partial.add(lid as usize) + *partial.add((lid + ROW_LENGTH) as usize);
        dst.put(gl_WorkGroupID().x * ROW_LENGTH + lid, total);
    }
}

/// Ping-pong buffers `shared float tile[2][256]`: the next tile is staged into buffer
/// `(k + 1) & 1` while buffer `k & 1` is summed, one barrier per tile; the first tile is staged
/// before the loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_glsl_ping_pong(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(gl_WorkGroupSize_x);
    dynamic_shared_bytes(SHARED_BUDGET_BYTES);
    let src = Tiles { data: input };
    let dst = Sums { data: out };
    let buffers = shared_float_array(0);

    let lid = gl_LocalInvocationID().x;
    let step = gl_NumWorkGroups().x;
    let mut t = gl_WorkGroupID().x;
    let mut k: uint = 0;
    let mut columnSum: float = 0.0;
    if t < tiles {
        stage_tile(buffers, &src, t, lid);
    }
    barrier();
    while t < tiles {
        let next = t + step;
        if next < tiles {
            stage_tile(buffers.add((((k + 1) & 1) * TILE_FLOATS) as usize), &src, next, lid);
        }
        if lid < ROW_LENGTH {
            let current = buffers.add(((k & 1) * TILE_FLOATS) as usize);
            for row in 0..ROW_COUNT {
                columnSum += *current.add((row * ROW_LENGTH + lid) as usize);
            }
        }
        memoryBarrierShared();
        barrier();
        t = next;
        k += 1;
    }
    if lid < ROW_LENGTH {
        dst.put(gl_WorkGroupID().x * ROW_LENGTH + lid, columnSum);
    }
}

/// `subgroupClusteredAdd(v, 8)`: each subgroup covers 16 columns; lane `l` reads row `l % 8` of
/// column `16 * subgroup + 4 * (l / 8) + j` for four `j`, and a clustered add over the eight
/// lanes of its row group gives the column's tile sum in every lane of the cluster. Lane 0 of
/// each cluster writes its four columns at the end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_glsl_subgroup_clustered(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(gl_WorkGroupSize_x);
    dynamic_shared_bytes(SHARED_BUDGET_BYTES);
    let src = Tiles { data: input };
    let dst = Sums { data: out };
    let tile = shared_float_array(0);

    let lid = gl_LocalInvocationID().x;
    let gl_SubgroupID = lid / 32;
    let gl_SubgroupInvocationID = lid % 32;
    let row = gl_SubgroupInvocationID % ROW_COUNT;
    let quad = gl_SubgroupInvocationID / ROW_COUNT;
    let firstColumn = gl_SubgroupID * 16 + quad * 4;
    let mut acc: [float; 4] = [0.0; 4]; // vec4
    let mut t = gl_WorkGroupID().x;
    while t < tiles {
        stage_tile(tile, &src, t, lid);
        barrier();
        let v0 = *tile.add((row * ROW_LENGTH + firstColumn) as usize);
        let v1 = *tile.add((row * ROW_LENGTH + firstColumn + 1) as usize);
        let v2 = *tile.add((row * ROW_LENGTH + firstColumn + 2) as usize);
        let v3 = *tile.add((row * ROW_LENGTH + firstColumn + 3) as usize);
        acc[0] += segment_sum(v0, ROW_COUNT);
        acc[1] += segment_sum(v1, ROW_COUNT);
        acc[2] += segment_sum(v2, ROW_COUNT);
        acc[3] += segment_sum(v3, ROW_COUNT);
        barrier();
        t += gl_NumWorkGroups().x;
    }
    if row == 0 {
        let base = gl_WorkGroupID().x * ROW_LENGTH + firstColumn;
        dst.put(base, acc[0]);
        dst.put(base + 1, acc[1]);
        dst.put(base + 2, acc[2]);
        dst.put(base + 3, acc[3]);
    }
}

/// BROKEN: the shader's `memoryBarrierShared(); barrier();` after staging became
/// `memoryBarrierShared();` alone, so the first 32 invocations sum rows 1, 3, 5 and 7 (staged by
/// the second subgroup) before that subgroup is known to have stored them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_glsl_bad_memory_barrier_only(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(gl_WorkGroupSize_x);
    dynamic_shared_bytes(SHARED_BUDGET_BYTES);
    let src = Tiles { data: input };
    let dst = Sums { data: out };
    let tile = shared_float_array(0);

    let lid = gl_LocalInvocationID().x;
    let mut columnSum: float = 0.0;
    let mut t = gl_WorkGroupID().x;
    while t < tiles {
        stage_tile(tile, &src, t, lid);
        memoryBarrierShared();
        if lid < ROW_LENGTH {
            for row in 0..ROW_COUNT {
                columnSum += *tile.add((row * ROW_LENGTH + lid) as usize);
            }
        }
        barrier();
        t += gl_NumWorkGroups().x;
    }
    if lid < ROW_LENGTH {
        dst.put(gl_WorkGroupID().x * ROW_LENGTH + lid, columnSum);
    }
}

/// BROKEN: `shared float tile[SHARED_BUDGET_BYTES / 4]; shared float partial[64];` — the tile
/// was declared as large as the whole budget, so `partial` starts at float 2048, byte 8192: every
/// store and load of the partials lies past the 8 KiB of dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_glsl_bad_partials_past_budget(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(gl_WorkGroupSize_x);
    dynamic_shared_bytes(SHARED_BUDGET_BYTES);
    let src = Tiles { data: input };
    let dst = Sums { data: out };
    let tile = shared_float_array(0);
    let partial = shared_float_array(SHARED_BUDGET_BYTES / 4);

    let lid = gl_LocalInvocationID().x;
    let column = lid % ROW_LENGTH;
    let half = lid / ROW_LENGTH;
    let mut acc: float = 0.0;
    let mut t = gl_WorkGroupID().x;
    while t < tiles {
        stage_tile(tile, &src, t, lid);
        barrier();
        for r in 0..ROW_COUNT / 2 {
            let row = half * (ROW_COUNT / 2) + r;
            acc += *tile.add((row * ROW_LENGTH + column) as usize);
        }
        barrier();
        t += gl_NumWorkGroups().x;
    }
    *partial.add(lid as usize) = acc;
    barrier();
    if lid < ROW_LENGTH {
        let total = *partial.add(lid as usize) + *partial.add((lid + ROW_LENGTH) as usize);
        dst.put(gl_WorkGroupID().x * ROW_LENGTH + lid, total);
    }
}

/// BROKEN: the ping-pong shader stages the next tile into `tile[k & 1]`, the buffer being summed
/// in the same pass, instead of `tile[(k + 1) & 1]`: the sums read the next tile's values (or a
/// mix), and the staging races with the reads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_glsl_bad_ping_pong_same_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(gl_WorkGroupSize_x);
    dynamic_shared_bytes(SHARED_BUDGET_BYTES);
    let src = Tiles { data: input };
    let dst = Sums { data: out };
    let buffers = shared_float_array(0);

    let lid = gl_LocalInvocationID().x;
    let step = gl_NumWorkGroups().x;
    let mut t = gl_WorkGroupID().x;
    let mut k: uint = 0;
    let mut columnSum: float = 0.0;
    if t < tiles {
        stage_tile(buffers, &src, t, lid);
    }
    barrier();
    while t < tiles {
        let next = t + step;
        if next < tiles {
            stage_tile(buffers.add(((k & 1) * TILE_FLOATS) as usize), &src, next, lid);
        }
        if lid < ROW_LENGTH {
            let current = buffers.add(((k & 1) * TILE_FLOATS) as usize);
            for row in 0..ROW_COUNT {
                columnSum += *current.add((row * ROW_LENGTH + lid) as usize);
            }
        }
        barrier();
        t = next;
        k += 1;
    }
    if lid < ROW_LENGTH {
        dst.put(gl_WorkGroupID().x * ROW_LENGTH + lid, columnSum);
    }
}

/// BROKEN: the tile is staged column-major (`std430` `mat` layout, column `c` at
/// `tile[c * 8 .. c * 8 + 8]`) so each invocation reads its column contiguously, but the row of
/// element `e` is taken as `e / gl_WorkGroupSize.x` instead of `e / 32`: invocations `i` and
/// `i + 32` store into the same slot, and rows 4 to 7 of every column are never staged.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_glsl_bad_column_major_stride(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(gl_WorkGroupSize_x);
    dynamic_shared_bytes(SHARED_BUDGET_BYTES);
    let src = Tiles { data: input };
    let dst = Sums { data: out };
    let tile = shared_float_array(0);

    let lid = gl_LocalInvocationID().x;
    let mut columnSum: float = 0.0;
    let mut t = gl_WorkGroupID().x;
    while t < tiles {
        for k in 0..LOADS_PER_INVOCATION {
            let e = lid + gl_WorkGroupSize_x * k;
            let column = e % ROW_LENGTH;
            let row = e / gl_WorkGroupSize_x;
            *tile.add((column * ROW_COUNT + row) as usize) = src.fetch(t * TILE_FLOATS + e);
        }
        barrier();
        if lid < ROW_LENGTH {
            for row in 0..ROW_COUNT {
                columnSum += *tile.add((lid * ROW_COUNT + row) as usize);
            }
        }
        barrier();
        t += gl_NumWorkGroups().x;
    }
    if lid < ROW_LENGTH {
        dst.put(gl_WorkGroupID().x * ROW_LENGTH + lid, columnSum);
    }
}
