//! Column sums written by a team that writes Zig for a living: shared memory carved with a
//! `FixedBufferAllocator` (`alloc(bytes, alignment) catch unreachable`), `comptime` parameters
//! as const generics, error unions for roles (`role(tid) catch return`), explicit slices with
//! bounds-checked indexing, and `while (i < n) : (i += step)` loops everywhere.
#![allow(non_upper_case_globals)]

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const block_size: u32 = 64;
const shared_size: u32 = 8192;
const cols: u32 = 32;
const rows: u32 = 8;
const tile_len: u32 = cols * rows;
const tile_size: u32 = tile_len * 4;
const stage_count: u32 = 4;
const consumer_count: u32 = 32;

#[derive(Clone, Copy)]
enum AllocError {
    OutOfMemory,
}

/// `std.mem.alignForward`.
#[inline(always)]
fn align_forward(addr: u32, alignment: u32) -> u32 {
    (addr + alignment - 1) & !(alignment - 1)
}

/// `std.heap.FixedBufferAllocator` over the dynamic shared window: hands out window addresses.
struct FixedBufferAllocator {
    base: u32,
    end_index: u32,
    capacity: u32,
}

impl FixedBufferAllocator {
    #[inline(always)]
    fn init(base: u32, capacity: u32) -> FixedBufferAllocator {
        FixedBufferAllocator { base, end_index: 0, capacity }
    }

    #[inline(always)]
    fn alloc(&mut self, size: u32, alignment: u32) -> Result<u32, AllocError> {
        let start = align_forward(self.end_index, alignment);
        if start + size > self.capacity {
            return Err(AllocError::OutOfMemory);
        }
        self.end_index = start + size;
        Ok(self.base + start)
    }
}

/// `@ptrFromInt` for a window address: the generic pointer to the same shared bytes.
#[inline(always)]
unsafe fn ptr_from_window(window: u32, addr: u32) -> *mut f32 {
    dynamic_shared_base::<u8>().add((addr - window) as usize).cast::<f32>()
}

/// The barriers and the ring, carved out of the window at startup.
#[derive(Clone, Copy)]
struct Layout {
    barriers: u32,
    ring: u32,
    ring_ptr: *const f32,
}

#[inline(always)]
unsafe fn carve(window: u32) -> Layout {
    let mut fba = FixedBufferAllocator::init(window, shared_size);
    let barriers = match fba.alloc(pipeline_barrier_bytes(stage_count), 8) {
        Ok(addr) => addr,
        Err(_) => unreachable!(),
    };
    let ring = match fba.alloc(stage_count * tile_size, 128) {
        Ok(addr) => addr,
        Err(_) => unreachable!(),
    };
    Layout { barriers, ring, ring_ptr: ptr_from_window(window, ring) }
}

/// Barriers and ring from a `FixedBufferAllocator`; both roles `while (tile < tiles) : (tile
/// += grid)`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_zig_fixed_buffer_ring(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(block_size);
    dynamic_shared_bytes(shared_size);

    let window = dynamic_shared_window_address();
    let layout = carve(window);
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<stage_count>::init(layout.barriers, consumer_count);
    }
    barrier();
    let pipe = Pipeline::<stage_count>::attach(layout.barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();

    if tid == 0 {
        producer(&pipe, layout, input, tiles, block, grid);
    } else if tid >= block_size - consumer_count {
        let col = tid - (block_size - consumer_count);
        let mut state = PipelineState::<stage_count>::new();
        let mut sum: f32 = 0.0;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = layout.ring_ptr.add((state.index() * tile_len) as usize);
            let mut y: u32 = 0;
            while y < rows {
                sum += *stage.add((y * cols + col) as usize);
                y += 1;
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add((block * cols + col) as usize) = sum;
    }
}

/// `fn producer(pipe: *const Pipeline, layout: Layout, input: [*]const f32, …) void`
#[inline(always)]
unsafe fn producer(pipe: &Pipeline<stage_count>, layout: Layout, input: *const f32, tiles: u32, block: u32, grid: u32) {
    let mut state = PipelineState::<stage_count>::producer_start();
    let mut tile = block;
    while tile < tiles {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, tile_size);
        bulk_copy_global_to_shared(
            layout.ring + state.index() * tile_size,
            input.add((tile * tile_len) as usize) as *const u8,
            tile_size,
            pipe.producer_barrier(&state),
        );
        state.advance();
        tile += grid;
    }
    pipe.producer_tail(state);
}

#[derive(Clone, Copy)]
enum RoleError {
    Idle,
}

#[derive(Clone, Copy)]
enum Role {
    Producer,
    Consumer { col: u32 },
}

/// `fn role(tid: u32) error{Idle}!Role`
#[inline(always)]
fn role(tid: u32) -> Result<Role, RoleError> {
    if tid == 0 {
        return Ok(Role::Producer);
    }
    if tid >= cols && tid < 2 * cols {
        return Ok(Role::Consumer { col: tid - cols });
    }
    Err(RoleError::Idle)
}

/// `fn columnSums(comptime stages: u32, …) void`: the ring's depth is a comptime parameter.
#[inline(always)]
unsafe fn column_sums<const STAGES: u32>(input: *const f32, tiles: u32, out: *mut f32) {
    let window = dynamic_shared_window_address();
    let ring_offset: u32 = align_forward(pipeline_barrier_bytes(STAGES), 128);
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<STAGES>::init(window, consumer_count);
    }
    barrier();
    let pipe = Pipeline::<STAGES>::attach(window);
    let (block, grid) = (block_idx_x(), grid_dim_x());

    let Ok(my_role) = role(tid) else { return };
    match my_role {
        Role::Producer => {
            let mut state = PipelineState::<STAGES>::producer_start();
            let mut tile = block;
            while tile < tiles {
                pipe.producer_acquire(&state);
                pipe.producer_expect_tx(&state, tile_size);
                bulk_copy_global_to_shared(
                    window + ring_offset + state.index() * tile_size,
                    input.add((tile * tile_len) as usize) as *const u8,
                    tile_size,
                    pipe.producer_barrier(&state),
                );
                state.advance();
                tile += grid;
            }
            pipe.producer_tail(state);
        }
        Role::Consumer { col } => {
            let ring = dynamic_shared_base::<f32>().add((ring_offset / 4) as usize);
            let mut state = PipelineState::<STAGES>::new();
            let mut sum: f32 = 0.0;
            let mut tile = block;
            while tile < tiles {
                pipe.consumer_wait(&state);
                let stage = ring.add((state.index() * tile_len) as usize);
                let mut y: u32 = 0;
                while y < rows {
                    sum += *stage.add((y * cols + col) as usize);
                    y += 1;
                }
                pipe.consumer_release(&state);
                state.advance();
                tile += grid;
            }
            *out.add((block * cols + col) as usize) = sum;
        }
    }
}

/// `columnSums(3, …)`: a three-stage ring chosen at comptime, roles from an error union.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_zig_comptime_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(block_size);
    dynamic_shared_bytes(shared_size);
    column_sums::<3>(input, tiles, out);
}

/// Each stage read as a `[]const f32` slice with bounds-checked indexing.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_zig_stage_slices(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(block_size);
    dynamic_shared_bytes(shared_size);

    let window = dynamic_shared_window_address();
    let layout = carve(window);
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<stage_count>::init(layout.barriers, consumer_count);
    }
    barrier();
    let pipe = Pipeline::<stage_count>::attach(layout.barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();

    if tid == 0 {
        producer(&pipe, layout, input, tiles, block, grid);
    } else if tid >= cols {
        let col = (tid - cols) as usize;
        let mut state = PipelineState::<stage_count>::new();
        let mut sum: f32 = 0.0;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage: &[f32] = core::slice::from_raw_parts(layout.ring_ptr.add((state.index() * tile_len) as usize), tile_len as usize);
            let mut y: usize = 0;
            while y < rows as usize {
                sum += stage[y * cols as usize + col];
                y += 1;
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add(block as usize * cols as usize + col) = sum;
    }
}

/// No pipeline: two staging buffers used alternately (`buffers[k & 1]`), so one barrier per
/// tile suffices: a buffer is refilled only after the barrier that follows its readers' next
/// tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_zig_double_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(block_size);
    dynamic_shared_bytes(shared_size);

    let smem = dynamic_shared_base::<f32>();
    let buffers: [*mut f32; 2] = [smem, smem.add(tile_len as usize)];
    let tid = thread_idx_x();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let count = if block < tiles { (tiles - block).div_ceil(grid) } else { 0 };
    let mut sum: f32 = 0.0;

    let mut k: u32 = 0;
    while k < count {
        let buf = buffers[(k & 1) as usize];
        let src = input.add(((block + k * grid) * tile_len) as usize);
        let mut i = tid;
        while i < tile_len {
            *buf.add(i as usize) = *src.add(i as usize);
            i += block_size;
        }
        barrier();
        if tid < cols {
            let mut y: u32 = 0;
            while y < rows {
                sum += *buf.add((y * cols + tid) as usize);
                y += 1;
            }
        }
        k += 1;
    }
    if tid < cols {
        *out.add((block * cols + tid) as usize) = sum;
    }
}

/// BROKEN: a `u32` progress word is allocated first, and the ring is then allocated with
/// `@alignOf(f32)` instead of the 16 bytes bulk copies need: the barriers land at 8..72 and
/// the ring at 72, so every bulk copy has a misaligned destination and faults.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_zig_bad_ring_alignment(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(block_size);
    dynamic_shared_bytes(shared_size);

    let window = dynamic_shared_window_address();
    let mut fba = FixedBufferAllocator::init(window, shared_size);
    let progress = match fba.alloc(4, 4) {
        Ok(addr) => addr,
        Err(_) => unreachable!(),
    };
    let barriers = match fba.alloc(pipeline_barrier_bytes(stage_count), 8) {
        Ok(addr) => addr,
        Err(_) => unreachable!(),
    };
    let ring = match fba.alloc(stage_count * tile_size, 4) {
        Ok(addr) => addr,
        Err(_) => unreachable!(),
    };
    let layout = Layout { barriers, ring, ring_ptr: ptr_from_window(window, ring) };

    let tid = thread_idx_x();
    if tid == 0 {
        *ptr_from_window(window, progress).cast::<u32>() = 0;
        let _ = Pipeline::<stage_count>::init(layout.barriers, consumer_count);
    }
    barrier();
    let pipe = Pipeline::<stage_count>::attach(layout.barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();

    if tid == 0 {
        producer(&pipe, layout, input, tiles, block, grid);
    } else if tid >= cols {
        let col = tid - cols;
        let mut state = PipelineState::<stage_count>::new();
        let mut sum: f32 = 0.0;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage = layout.ring_ptr.add((state.index() * tile_len) as usize);
            let mut y: u32 = 0;
            while y < rows {
                sum += *stage.add((y * cols + col) as usize);
                y += 1;
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add((block * cols + col) as usize) = sum;
    }
}

/// `fn produce(comptime stages: u32, …)`
#[inline(always)]
unsafe fn produce<const STAGES: u32>(barriers: u32, ring: u32, input: *const f32, tiles: u32) {
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let mut state = PipelineState::<STAGES>::producer_start();
    let mut tile = block_idx_x();
    while tile < tiles {
        pipe.producer_acquire(&state);
        pipe.producer_expect_tx(&state, tile_size);
        bulk_copy_global_to_shared(ring + state.index() * tile_size, input.add((tile * tile_len) as usize) as *const u8, tile_size, pipe.producer_barrier(&state));
        state.advance();
        tile += grid_dim_x();
    }
    pipe.producer_tail(state);
}

/// `fn consume(comptime stages: u32, …) f32`
#[inline(always)]
unsafe fn consume<const STAGES: u32>(barriers: u32, ring: *const f32, tiles: u32, col: u32) -> f32 {
    let pipe = Pipeline::<STAGES>::attach(barriers);
    let mut state = PipelineState::<STAGES>::new();
    let mut sum: f32 = 0.0;
    let mut tile = block_idx_x();
    while tile < tiles {
        pipe.consumer_wait(&state);
        let stage = ring.add((state.index() * tile_len) as usize);
        let mut y: u32 = 0;
        while y < rows {
            sum += *stage.add((y * cols + col) as usize);
            y += 1;
        }
        pipe.consumer_release(&state);
        state.advance();
        tile += grid_dim_x();
    }
    sum
}

/// The ring depth the consumer side was written for, before the ring grew to four stages.
const consumer_stages: u32 = 3;

/// BROKEN: the barriers are initialised for four stages and the producer runs `produce(4, …)`,
/// but the consumers call `consume(consumer_stages, …)` with a stale comptime 3: they wrap at
/// stage 3, compute their empty barriers at the wrong offsets (the first lands on the fourth
/// full barrier) and never release stage 3, so the producer hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_zig_bad_comptime_mismatch(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(block_size);
    dynamic_shared_bytes(shared_size);

    let window = dynamic_shared_window_address();
    let layout = carve(window);
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<stage_count>::init(layout.barriers, consumer_count);
    }
    barrier();

    let Ok(my_role) = role(tid) else { return };
    match my_role {
        Role::Producer => produce::<stage_count>(layout.barriers, layout.ring, input, tiles),
        Role::Consumer { col } => {
            let sum = consume::<consumer_stages>(layout.barriers, layout.ring_ptr, tiles, col);
            *out.add((block_idx_x() * cols + col) as usize) = sum;
        }
    }
}

/// BROKEN: the row loop is `while (y <= rows)`: the ninth pass indexes `stage[256 + col]` of a
/// 256-float slice, the bounds check fails and every consumer thread traps.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_zig_bad_slice_bound(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(block_size);
    dynamic_shared_bytes(shared_size);

    let window = dynamic_shared_window_address();
    let layout = carve(window);
    let tid = thread_idx_x();
    if tid == 0 {
        let _ = Pipeline::<stage_count>::init(layout.barriers, consumer_count);
    }
    barrier();
    let pipe = Pipeline::<stage_count>::attach(layout.barriers);
    let block = block_idx_x();
    let grid = grid_dim_x();

    if tid == 0 {
        producer(&pipe, layout, input, tiles, block, grid);
    } else if tid >= cols {
        let col = (tid - cols) as usize;
        let mut state = PipelineState::<stage_count>::new();
        let mut sum: f32 = 0.0;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            let stage: &[f32] = core::slice::from_raw_parts(layout.ring_ptr.add((state.index() * tile_len) as usize), tile_len as usize);
            let mut y: usize = 0;
            while y <= rows as usize {
                sum += stage[y * cols as usize + col];
                y += 1;
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add(block as usize * cols as usize + col) = sum;
    }
}

/// BROKEN: the double buffer was folded into one buffer to save shared memory, keeping one
/// barrier per tile: the threads that finish early stage the next tile over the buffer the
/// first warp is still summing (a write-after-read race).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_zig_bad_single_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(block_size);
    dynamic_shared_bytes(shared_size);

    let buf = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let count = if block < tiles { (tiles - block).div_ceil(grid) } else { 0 };
    let mut sum: f32 = 0.0;

    let mut k: u32 = 0;
    while k < count {
        let src = input.add(((block + k * grid) * tile_len) as usize);
        let mut i = tid;
        while i < tile_len {
            *buf.add(i as usize) = *src.add(i as usize);
            i += block_size;
        }
        barrier();
        if tid < cols {
            let mut y: u32 = 0;
            while y < rows {
                sum += *buf.add((y * cols + tid) as usize);
                y += 1;
            }
        }
        k += 1;
    }
    if tid < cols {
        *out.add((block * cols + tid) as usize) = sum;
    }
}
