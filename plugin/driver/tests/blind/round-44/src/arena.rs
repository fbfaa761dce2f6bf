//! Blind round 44, style `arena`: shared memory carved at run time by a bump allocator.
//!
//! Every thread builds the same `Arena` over the dynamic shared window and asks it for regions:
//! `alloc::<T>(count, align)` returns a `Handle<T>`, a byte offset into the window with its
//! element count, from which the window address (for mbarriers and bulk copies) and the generic
//! pointer (for loads and stores) are derived. A pipeline's `Layout` is computed in code from
//! such handles, and the ring is addressed through index-based `Slot` handles taken from the
//! pipeline state.
//!
//! Launch of every kernel: 64 threads, 8 blocks, 8 KiB of dynamic shared memory.

use core::marker::PhantomData;
use core::mem::size_of;

use crate::device;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLS: u32 = 32;
const ROWS: u32 = 8;
const CONSUMERS: u32 = 32;
const BLOCK_THREADS: u32 = 64;
const SHARED_BYTES: u32 = 8192;

type Tile = [f32; TILE_FLOATS];

#[inline(always)]
fn launch_contract() {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
}

#[inline(always)]
const fn align_up(x: u32, align: u32) -> u32 {
    (x + align - 1) & !(align - 1)
}

/// `count` values of `T` at byte `offset` of the shared window.
pub struct Handle<T> {
    offset: u32,
    count: u32,
    _t: PhantomData<T>,
}

impl<T> Clone for Handle<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Handle<T> {}

impl<T> Handle<T> {
    /// The region's shared-window address (for mbarriers and the copy engine).
    #[inline(always)]
    fn window(&self) -> u32 {
        device::dynamic_shared_window_address() + self.offset
    }

    /// The region's generic pointer.
    #[inline(always)]
    unsafe fn ptr(&self) -> *mut T {
        device::dynamic_shared_base::<T>().byte_add(self.offset as usize)
    }

    /// Element `i` of the region.
    #[inline(always)]
    unsafe fn at(&self, i: u32) -> *mut T {
        self.ptr().add(i as usize)
    }

    /// The same bytes as values of `U`.
    #[inline(always)]
    fn cast<U>(self) -> Handle<U> {
        Handle { offset: self.offset, count: self.count * size_of::<T>() as u32 / size_of::<U>() as u32, _t: PhantomData }
    }
}

/// A bump allocator over the shared window.
pub struct Arena {
    top: u32,
}

impl Arena {
    #[inline(always)]
    fn new() -> Arena {
        Arena { top: 0 }
    }

    #[inline(always)]
    fn alloc<T>(&mut self, count: u32, align: u32) -> Handle<T> {
        let offset = align_up(self.top, align);
        self.top = offset + count * size_of::<T>() as u32;
        Handle { offset, count, _t: PhantomData }
    }

    #[inline(always)]
    fn alloc_bytes(&mut self, bytes: u32, align: u32) -> Handle<u8> {
        self.alloc::<u8>(bytes, align)
    }
}

/// An index-based handle to one stage of the ring.
#[derive(Clone, Copy)]
struct Slot(u32);

impl Slot {
    #[inline(always)]
    fn of<const N: u32>(state: &PipelineState<N>) -> Slot {
        Slot(state.index())
    }
}

/// Where a pipeline of `N` stages lives, as the arena carved it.
#[derive(Clone, Copy)]
struct Layout<const N: u32> {
    barriers: Handle<u64>,
    ring: Handle<u8>,
    stride: u32,
}

impl<const N: u32> Layout<N> {
    /// The barriers first, then the ring aligned to `ring_align`.
    #[inline(always)]
    fn barriers_then_ring(arena: &mut Arena, ring_align: u32) -> Self {
        let barriers = arena.alloc::<u64>(2 * N, 8);
        let stride = size_of::<Tile>() as u32;
        let ring = arena.alloc_bytes(N * stride, ring_align);
        Layout { barriers, ring, stride }
    }

    /// The ring first, then the barriers.
    #[inline(always)]
    fn ring_then_barriers(arena: &mut Arena) -> Self {
        let stride = size_of::<Tile>() as u32;
        let ring = arena.alloc_bytes(N * stride, 128);
        let barriers = arena.alloc::<u64>(2 * N, 8);
        Layout { barriers, ring, stride }
    }

    /// The barriers first, then a ring whose stages are padded by `pad` bytes, so that the
    /// stages start on different banks.
    #[inline(always)]
    fn padded(arena: &mut Arena, pad: u32) -> Self {
        let barriers = arena.alloc::<u64>(2 * N, 8);
        let stride = align_up(size_of::<Tile>() as u32 + pad, 16);
        let ring = arena.alloc_bytes(N * stride, 128);
        Layout { barriers, ring, stride }
    }

    /// Bytes of one stage.
    #[inline(always)]
    fn stage_bytes(&self) -> u32 {
        self.stride
    }

    #[inline(always)]
    fn slot_window(&self, slot: Slot) -> u32 {
        self.ring.window() + slot.0 * self.stride
    }

    #[inline(always)]
    unsafe fn slot_ptr(&self, slot: Slot) -> *const f32 {
        self.ring.ptr().add((slot.0 * self.stride) as usize) as *const f32
    }
}

/// The producer's loop over the block's tiles.
#[inline(always)]
unsafe fn produce<const N: u32>(pipe: &Pipeline<N>, layout: &Layout<N>, input: *const f32, tiles: u32) {
    let mut st = PipelineState::<N>::producer_start();
    let mut t = device::block_idx_x();
    while t < tiles {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, layout.stage_bytes());
        let slot = Slot::of(&st);
        bulk_copy_global_to_shared(
            layout.slot_window(slot),
            input.add(t as usize * TILE_FLOATS) as *const u8,
            TILE_BYTES,
            pipe.producer_barrier(&st),
        );
        st.advance();
        t += device::grid_dim_x();
    }
    pipe.producer_tail(st);
}

/// A consumer's loop: column `col` of every tile, summed.
#[inline(always)]
unsafe fn consume<const N: u32>(pipe: &Pipeline<N>, layout: &Layout<N>, col: u32, tiles: u32) -> f32 {
    let mut acc = 0.0f32;
    let mut st = PipelineState::<N>::new();
    let mut t = device::block_idx_x();
    while t < tiles {
        pipe.consumer_wait(&st);
        let tile = layout.slot_ptr(Slot::of(&st));
        for r in 0..ROWS {
            acc += *tile.add((r * COLS + col) as usize);
        }
        pipe.consumer_release(&st);
        st.advance();
        t += device::grid_dim_x();
    }
    acc
}

/// The pipeline kernels' body once the layout is carved: thread 0 sets the barriers up and
/// produces, threads 32..63 consume and write their column.
#[inline(always)]
unsafe fn run_pipeline<const N: u32>(layout: &Layout<N>, input: *const f32, tiles: u32, out: *mut f32) {
    let tid = device::thread_idx_x();
    if tid == 0 {
        Pipeline::<N>::init(layout.barriers.window(), CONSUMERS);
    }
    device::barrier();
    let pipe = Pipeline::<N>::attach(layout.barriers.window());
    if tid == 0 {
        produce(&pipe, layout, input, tiles);
    } else if tid >= BLOCK_THREADS - CONSUMERS {
        let col = tid - (BLOCK_THREADS - CONSUMERS);
        let sum = consume(&pipe, layout, col, tiles);
        *out.add((device::block_idx_x() * COLS + col) as usize) = sum;
    }
}

const RING4: u32 = 4;

/// The arena carves 4 stages' barriers (byte 0), then the ring aligned to 1 KiB (byte 1024).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_arena_bump_ring(input: *const f32, tiles: u32, out: *mut f32) {
    launch_contract();
    let mut arena = Arena::new();
    let layout = Layout::<RING4>::barriers_then_ring(&mut arena, 1024);
    run_pipeline(&layout, input, tiles, out);
}

const RING7: u32 = 7;

/// Seven stages: the ring from byte 0 (7 KiB), its barriers after it (byte 7168 to 7280).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_arena_seven_stages(input: *const f32, tiles: u32, out: *mut f32) {
    launch_contract();
    let mut arena = Arena::new();
    let layout = Layout::<RING7>::ring_then_barriers(&mut arena);
    run_pipeline(&layout, input, tiles, out);
}

/// Barriers (byte 0), the ring aligned to 128 (byte 128), then a scratch of 32 column sums
/// (byte 4224): the consumers park their sums there, and after a block barrier warp 0 writes
/// them out.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_arena_scratch_epilogue(input: *const f32, tiles: u32, out: *mut f32) {
    launch_contract();
    let mut arena = Arena::new();
    let layout = Layout::<RING4>::barriers_then_ring(&mut arena, 128);
    let sums = arena.alloc::<f32>(COLS, 16);
    let tid = device::thread_idx_x();
    if tid == 0 {
        Pipeline::<RING4>::init(layout.barriers.window(), CONSUMERS);
    }
    device::barrier();
    let pipe = Pipeline::<RING4>::attach(layout.barriers.window());
    if tid == 0 {
        produce(&pipe, &layout, input, tiles);
    } else if tid >= BLOCK_THREADS - CONSUMERS {
        let col = tid - (BLOCK_THREADS - CONSUMERS);
        *sums.at(col) = consume(&pipe, &layout, col, tiles);
    }
    device::barrier();
    if tid < COLS {
        *out.add((device::block_idx_x() * COLS + tid) as usize) = *sums.at(tid);
    }
}

/// Plain shared memory: the arena carves a tile (byte 0) and 64 partial sums (byte 1024); the
/// block stages a tile, every thread sums half a column into its partial, threads 0..31 add
/// their column's two halves; block barriers between the steps.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_arena_plain_carve(input: *const f32, tiles: u32, out: *mut f32) {
    launch_contract();
    let mut arena = Arena::new();
    let tile = arena.alloc::<f32>(TILE_FLOATS as u32, 16);
    let partials = arena.alloc::<f32>(BLOCK_THREADS, 16);
    let tid = device::thread_idx_x();
    let col = tid % COLS;
    let half = tid / COLS;
    let mut acc = 0.0f32;
    let mut t = device::block_idx_x();
    while t < tiles {
        let src = input.add(t as usize * TILE_FLOATS);
        let mut i = tid;
        while i < TILE_FLOATS as u32 {
            *tile.at(i) = *src.add(i as usize);
            i += BLOCK_THREADS;
        }
        device::barrier();
        let mut partial = 0.0f32;
        for r in 0..ROWS / 2 {
            partial += *tile.at((half * (ROWS / 2) + r) * COLS + col);
        }
        *partials.at(tid) = partial;
        device::barrier();
        if tid < COLS {
            acc += *partials.at(tid) + *partials.at(tid + COLS);
        }
        t += device::grid_dim_x();
    }
    if tid < COLS {
        *out.add((device::block_idx_x() * COLS + tid) as usize) = acc;
    }
}

/// Bytes of one mbarrier word in the arena's accounting.
const MBARRIER_BYTES: u32 = size_of::<u32>() as u32;

/// BROKEN.
/// Four-stage pipeline whose layout is carved in bytes: the barrier area, then the ring at the
/// copy engine's 16-byte alignment.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_arena_bad_barrier_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    launch_contract();
    let mut arena = Arena::new();
    let bars = arena.alloc_bytes(2 * RING4 * MBARRIER_BYTES, 8);
    let ring = arena.alloc_bytes(RING4 * TILE_BYTES, 16);
    let layout = Layout::<RING4> { barriers: bars.cast::<u64>(), ring, stride: TILE_BYTES };
    run_pipeline(&layout, input, tiles, out);
}

/// BROKEN.
/// Four-stage ring whose stages are padded by 16 bytes (`Layout::padded`) so that they start
/// on different banks.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_arena_bad_padded_stride(input: *const f32, tiles: u32, out: *mut f32) {
    launch_contract();
    let mut arena = Arena::new();
    let layout = Layout::<RING4>::padded(&mut arena, 16);
    run_pipeline(&layout, input, tiles, out);
}

/// BROKEN.
/// Each role carves its own arena, in the order it needs its regions: the producer its
/// pipeline, the consumers their column-sum scratch and then the pipeline.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_arena_bad_role_arenas(input: *const f32, tiles: u32, out: *mut f32) {
    launch_contract();
    let tid = device::thread_idx_x();
    if tid == 0 {
        let mut arena = Arena::new();
        let layout = Layout::<RING4>::barriers_then_ring(&mut arena, 1024);
        Pipeline::<RING4>::init(layout.barriers.window(), CONSUMERS);
    }
    device::barrier();
    if tid == 0 {
        let mut arena = Arena::new();
        let layout = Layout::<RING4>::barriers_then_ring(&mut arena, 1024);
        let pipe = Pipeline::<RING4>::attach(layout.barriers.window());
        produce(&pipe, &layout, input, tiles);
    } else if tid >= BLOCK_THREADS - CONSUMERS {
        let mut arena = Arena::new();
        let sums = arena.alloc::<f32>(COLS, 16);
        let layout = Layout::<RING4>::barriers_then_ring(&mut arena, 1024);
        let pipe = Pipeline::<RING4>::attach(layout.barriers.window());
        let col = tid - (BLOCK_THREADS - CONSUMERS);
        *sums.at(col) = consume(&pipe, &layout, col, tiles);
        *out.add((device::block_idx_x() * COLS + col) as usize) = *sums.at(col);
    }
}

/// BROKEN.
/// Plain shared memory carved at run time: a tile and 64 partial sums; staged, half-column
/// sums, pairwise combine.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_arena_bad_bytes_for_floats(input: *const f32, tiles: u32, out: *mut f32) {
    launch_contract();
    let mut arena = Arena::new();
    let tile = arena.alloc_bytes(TILE_FLOATS as u32, 16).cast::<f32>();
    let partials = arena.alloc::<f32>(BLOCK_THREADS, 16);
    let tid = device::thread_idx_x();
    let col = tid % COLS;
    let half = tid / COLS;
    let mut acc = 0.0f32;
    let mut t = device::block_idx_x();
    while t < tiles {
        let src = input.add(t as usize * TILE_FLOATS);
        let mut i = tid;
        while i < TILE_FLOATS as u32 {
            *tile.at(i) = *src.add(i as usize);
            i += BLOCK_THREADS;
        }
        device::barrier();
        let mut partial = 0.0f32;
        for r in 0..ROWS / 2 {
            partial += *tile.at((half * (ROWS / 2) + r) * COLS + col);
        }
        *partials.at(tid) = partial;
        device::barrier();
        if tid < COLS {
            acc += *partials.at(tid) + *partials.at(tid + COLS);
        }
        t += device::grid_dim_x();
    }
    if tid < COLS {
        *out.add((device::block_idx_x() * COLS + tid) as usize) = acc;
    }
}
