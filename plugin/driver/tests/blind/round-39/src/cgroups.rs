//! Style `cgroups`: CUDA's cooperative groups, ported. Threads are never picked by raw
//! `threadIdx` arithmetic: the kernel takes `this_thread_block()`, cuts it with
//! `tiled_partition::<N>()` into warps or quads, and chooses roles and data by `thread_rank()`,
//! `meta_group_rank()` and `elect_one()`; reductions are the group's (`reduce_sum`), and the block
//! synchronises through `block.sync()`.
//!
//! Pipeline kernels: 64 threads, warp 1's first lane produces, warp 0 consumes; the ring at
//! window byte 0 and the barriers right after it.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::reduce::segment_sum;
use crate::device::{barrier, block_dim_x, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const THREADS: u32 = 64;
const SMEM_BYTES: u32 = 8192;
const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;
const COLS: usize = 32;
const CONSUMERS: u32 = 32;

/// The block as a group.
#[derive(Clone, Copy)]
struct ThreadBlock;

#[inline(always)]
fn this_thread_block() -> ThreadBlock {
    ThreadBlock
}

impl ThreadBlock {
    #[inline(always)]
    fn thread_rank(self) -> u32 {
        thread_idx_x()
    }

    #[inline(always)]
    fn sync(self) {
        barrier();
    }
}

/// A static partition of the block into groups of `N` consecutive threads.
#[derive(Clone, Copy)]
struct ThreadBlockTile<const N: u32>;

#[inline(always)]
fn tiled_partition<const N: u32>(_parent: ThreadBlock) -> ThreadBlockTile<N> {
    const { assert!(N.is_power_of_two() && N <= 32) };
    ThreadBlockTile
}

impl<const N: u32> ThreadBlockTile<N> {
    #[inline(always)]
    fn thread_rank(self) -> u32 {
        thread_idx_x() % N
    }

    #[inline(always)]
    fn meta_group_rank(self) -> u32 {
        thread_idx_x() / N
    }

    #[inline(always)]
    #[allow(dead_code)]
    fn meta_group_size(self) -> u32 {
        block_dim_x() / N
    }

    #[inline(always)]
    fn elect_one(self) -> bool {
        self.thread_rank() == 0
    }

    /// Sum over the group; every member receives it. All 32 lanes of the warp must call it.
    #[inline(always)]
    fn reduce_sum(self, value: f32) -> f32 {
        segment_sum(value, N)
    }
}

/// Four floats moved by one 16-byte load.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct Quad([f32; 4]);

#[inline(always)]
fn pipeline_for<const S: u32>(block: ThreadBlock) -> (u32, Pipeline<S>) {
    let window = dynamic_shared_window_address();
    let bars = window + S * TILE_BYTES;
    if block.thread_rank() == 0 {
        Pipeline::<S>::init(bars, CONSUMERS);
    }
    block.sync();
    (window, Pipeline::<S>::attach(bars))
}

#[inline(always)]
unsafe fn produce<const S: u32>(pipe: &Pipeline<S>, window: u32, input: *const f32, tiles: u32) {
    let (b, g) = (block_idx_x(), grid_dim_x());
    let mut write = PipelineState::<S>::producer_start();
    let mut t = b;
    while t < tiles {
        pipe.producer_acquire(&write);
        pipe.producer_expect_tx(&write, TILE_BYTES);
        let src = unsafe { input.add(t as usize * TILE) };
        bulk_copy_global_to_shared(window + write.index() * TILE_BYTES, src.cast(), TILE_BYTES, pipe.producer_barrier(&write));
        write.advance();
        t += g;
    }
    pipe.producer_tail(write);
}

/// Four stages; warps by `tiled_partition::<32>`, the producer elected in warp 1.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_cgroups_warp_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let block = this_thread_block();
    let warp = tiled_partition::<32>(block);
    let (window, pipe) = pipeline_for::<4>(block);
    let (b, g) = (block_idx_x(), grid_dim_x());

    match warp.meta_group_rank() {
        0 => {
            let c = warp.thread_rank() as usize;
            let ring = dynamic_shared_base::<f32>();
            let mut read = PipelineState::<4>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&read);
                let stage = ring.add(read.index() as usize * TILE);
                for r in 0..ROWS {
                    acc += *stage.add(c + COLS * r);
                }
                pipe.consumer_release(&read);
                read.advance();
                t += g;
            }
            *out.add(b as usize * COLS + c) = acc;
        }
        _ => {
            if warp.elect_one() {
                produce(&pipe, window, input, tiles);
            }
        }
    }
}

/// Three stages; warp 0 is cut into quads: quad `q` owns columns `4q..4q + 4`, its lane `i` reads
/// rows `i` and `i + 4` with 16-byte loads, and the quad's `reduce_sum` adds the four lanes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_cgroups_quad_reduce(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let block = this_thread_block();
    let warp = tiled_partition::<32>(block);
    let quad = tiled_partition::<4>(block);
    let (window, pipe) = pipeline_for::<3>(block);
    let (b, g) = (block_idx_x(), grid_dim_x());

    if warp.meta_group_rank() == 0 {
        let (q, i) = (quad.meta_group_rank() as usize, quad.thread_rank() as usize);
        let ring = dynamic_shared_base::<f32>();
        let mut read = PipelineState::<3>::new();
        let mut acc = [0.0f32; 4];
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&read);
            let stage = ring.add(read.index() as usize * TILE);
            let upper = *(stage.add(i * COLS + 4 * q) as *const Quad);
            let lower = *(stage.add((i + 4) * COLS + 4 * q) as *const Quad);
            pipe.consumer_release(&read);
            read.advance();
            for j in 0..4 {
                acc[j] += upper.0[j] + lower.0[j];
            }
            t += g;
        }
        for (j, a) in acc.iter().enumerate() {
            let column = quad.reduce_sum(*a);
            if quad.elect_one() {
                *out.add(b as usize * COLS + 4 * q + j) = column;
            }
        }
    } else if warp.elect_one() {
        produce(&pipe, window, input, tiles);
    }
}

/// No pipeline: the block stages each tile (one quad per thread), syncs, each warp adds four rows
/// of its lane's column, and syncs again before the next tile; warp 1 hands its sums to warp 0
/// through shared memory at the end.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_cgroups_block_staging(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let block = this_thread_block();
    let warp = tiled_partition::<32>(block);
    let (b, g) = (block_idx_x(), grid_dim_x());
    let staging = dynamic_shared_base::<Quad>();
    let tile = staging as *const f32;
    let partial = dynamic_shared_base::<f32>().add(TILE);
    let (lane, w) = (warp.thread_rank() as usize, warp.meta_group_rank() as usize);

    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * TILE) as *const Quad;
        *staging.add(block.thread_rank() as usize) = *src.add(block.thread_rank() as usize);
        block.sync();
        for r in 4 * w..4 * w + 4 {
            acc += *tile.add(lane + COLS * r);
        }
        block.sync();
        t += g;
    }
    if w == 1 {
        *partial.add(lane) = acc;
    }
    block.sync();
    if w == 0 {
        *out.add(b as usize * COLS + lane) = acc + *partial.add(lane);
    }
}

/// Four stages; the whole producer warp walks the mainloop (every lane acquires, advances and
/// runs the tail), and only its elected lane arrives with the byte count and issues the copy, as
/// a CUTLASS producer warp does.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_cgroups_producer_warp_elects(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let block = this_thread_block();
    let warp = tiled_partition::<32>(block);
    let (window, pipe) = pipeline_for::<4>(block);
    let (b, g) = (block_idx_x(), grid_dim_x());

    if warp.meta_group_rank() == 1 {
        let mut write = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&write);
            if warp.elect_one() {
                pipe.producer_expect_tx(&write, TILE_BYTES);
                let src = input.add(t as usize * TILE);
                bulk_copy_global_to_shared(window + write.index() * TILE_BYTES, src.cast(), TILE_BYTES, pipe.producer_barrier(&write));
            }
            write.advance();
            t += g;
        }
        pipe.producer_tail(write);
    } else {
        let c = warp.thread_rank() as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut read = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&read);
            let stage = ring.add(read.index() as usize * TILE);
            for r in 0..ROWS {
                acc += *stage.add(c + COLS * r);
            }
            pipe.consumer_release(&read);
            read.advance();
            t += g;
        }
        *out.add(b as usize * COLS + c) = acc;
    }
}

/// BROKEN: the partition size was changed to 16 (`GROUP`): group 0 is threads 0..15, so only 16
/// threads consume (and release) while the pipeline counts 32 releases per stage; group 1's
/// elected thread (16) produces. No empty barrier completes, the producer blocks on its fifth
/// tile and the consumers on it: the launch hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_cgroups_bad_partition_of_sixteen(input: *const f32, tiles: u32, out: *mut f32) {
    const GROUP: u32 = 16;
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let block = this_thread_block();
    let group = tiled_partition::<GROUP>(block);
    let (window, pipe) = pipeline_for::<4>(block);
    let (b, g) = (block_idx_x(), grid_dim_x());

    match group.meta_group_rank() {
        0 => {
            let ring = dynamic_shared_base::<f32>();
            let mut read = PipelineState::<4>::new();
            let mut acc = [0.0f32; 2];
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&read);
                let stage = ring.add(read.index() as usize * TILE);
                for (h, a) in acc.iter_mut().enumerate() {
                    let c = group.thread_rank() as usize + h * GROUP as usize;
                    for r in 0..ROWS {
                        *a += *stage.add(c + COLS * r);
                    }
                }
                pipe.consumer_release(&read);
                read.advance();
                t += g;
            }
            for (h, a) in acc.iter().enumerate() {
                *out.add(b as usize * COLS + group.thread_rank() as usize + h * GROUP as usize) = *a;
            }
        }
        1 => {
            if group.elect_one() {
                produce(&pipe, window, input, tiles);
            }
        }
        _ => {}
    }
}

/// A group barrier. The device API has no warp barrier, so it takes the block's (`bar.sync 0`),
/// "a superset of the group".
#[inline(always)]
fn group_sync<const N: u32>(_group: ThreadBlockTile<N>) {
    barrier();
}

/// BROKEN: after each tile the consumer warp "re-converges" with `group_sync(warp)`, which is the
/// block barrier: warp 0 waits there for warp 1, whose producer lane is waiting for warp 0 to
/// release its stages (and whose other lanes have left): the launch hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_cgroups_bad_group_sync(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let block = this_thread_block();
    let warp = tiled_partition::<32>(block);
    let (window, pipe) = pipeline_for::<4>(block);
    let (b, g) = (block_idx_x(), grid_dim_x());

    if warp.meta_group_rank() == 0 {
        let c = warp.thread_rank() as usize;
        let ring = dynamic_shared_base::<f32>();
        let mut read = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&read);
            let stage = ring.add(read.index() as usize * TILE);
            for r in 0..ROWS {
                acc += *stage.add(c + COLS * r);
            }
            pipe.consumer_release(&read);
            read.advance();
            group_sync(warp);
            t += g;
        }
        *out.add(b as usize * COLS + c) = acc;
    } else if warp.elect_one() {
        produce(&pipe, window, input, tiles);
    }
}

/// BROKEN: the staging loop syncs only once per tile, after the stores: a warp that has added its
/// rows goes on to store the next tile over the buffer while the other warp may still be reading
/// this one (a race between block barriers; wrong sums when the store wins).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_cgroups_bad_one_sync_per_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let block = this_thread_block();
    let warp = tiled_partition::<32>(block);
    let (b, g) = (block_idx_x(), grid_dim_x());
    let staging = dynamic_shared_base::<Quad>();
    let tile = staging as *const f32;
    let partial = dynamic_shared_base::<f32>().add(TILE);
    let (lane, w) = (warp.thread_rank() as usize, warp.meta_group_rank() as usize);

    let mut acc = 0.0f32;
    let mut t = b;
    while t < tiles {
        let src = input.add(t as usize * TILE) as *const Quad;
        *staging.add(block.thread_rank() as usize) = *src.add(block.thread_rank() as usize);
        block.sync();
        for r in 4 * w..4 * w + 4 {
            acc += *tile.add(lane + COLS * r);
        }
        t += g;
    }
    if w == 1 {
        *partial.add(lane) = acc;
    }
    block.sync();
    if w == 0 {
        *out.add(b as usize * COLS + lane) = acc + *partial.add(lane);
    }
}

/// BROKEN: the quads read the stage with rows padded to 33 floats ("against bank conflicts"),
/// but the bulk copy lands the tile unpadded: row `i`'s 16-byte load starts `4 · i` bytes off the
/// 16-byte alignment (and row 7 reaches past the stage): the vector load of row 1 faults
/// (misaligned address).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r39_cgroups_bad_padded_pitch(input: *const f32, tiles: u32, out: *mut f32) {
    const PITCH: usize = COLS + 1;
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let block = this_thread_block();
    let warp = tiled_partition::<32>(block);
    let quad = tiled_partition::<4>(block);
    let (window, pipe) = pipeline_for::<3>(block);
    let (b, g) = (block_idx_x(), grid_dim_x());

    if warp.meta_group_rank() == 0 {
        let (q, i) = (quad.meta_group_rank() as usize, quad.thread_rank() as usize);
        let ring = dynamic_shared_base::<f32>();
        let mut read = PipelineState::<3>::new();
        let mut acc = [0.0f32; 4];
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&read);
            let stage = ring.add(read.index() as usize * TILE);
            let upper = *(stage.add(i * PITCH + 4 * q) as *const Quad);
            let lower = *(stage.add((i + 4) * PITCH + 4 * q) as *const Quad);
            pipe.consumer_release(&read);
            read.advance();
            for j in 0..4 {
                acc[j] += upper.0[j] + lower.0[j];
            }
            t += g;
        }
        for (j, a) in acc.iter().enumerate() {
            let column = quad.reduce_sum(*a);
            if quad.elect_one() {
                *out.add(b as usize * COLS + 4 * q + j) = column;
            }
        }
    } else if warp.elect_one() {
        produce(&pipe, window, input, tiles);
    }
}
