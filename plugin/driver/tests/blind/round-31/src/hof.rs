//! Style `hof`: higher-order code. Tile loops are generic helpers that take `FnMut` closures, a
//! consumer step hands the held stage to a closure, the producer takes its tile sources from a
//! closure, roles are dispatched through a table of function pointers, and the tile source and
//! the output are reached through `&dyn` trait objects.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const RING: u32 = 128;

/// Calls `f(t)` for `t = first, first + step, …` below `end`.
#[inline(always)]
fn for_each_tile(first: u32, step: u32, end: u32, mut f: impl FnMut(u32)) {
    let mut t = first;
    while t < end {
        f(t);
        t += step;
    }
}

/// Waits for the stage `st` holds, hands its float pointer to `f`, releases it and advances.
#[inline(always)]
unsafe fn with_stage<const S: u32, R>(
    pipe: &Pipeline<S>,
    st: &mut PipelineState<S>,
    ring: *const f32,
    f: impl FnOnce(*const f32) -> R,
) -> R {
    pipe.consumer_wait(st);
    let r = f(ring.add((st.index() * TILE_FLOATS) as usize));
    pipe.consumer_release(st);
    st.advance();
    r
}

/// Acquires, announces one tile, copies `bytes` from `src` to where `dst` places the stage, advances.
#[inline(always)]
unsafe fn fill(
    pipe: &Pipeline<4>,
    st: &mut PipelineState<4>,
    dst: impl Fn(u32) -> u32,
    src: *const u8,
    bytes: u32,
) {
    pipe.producer_acquire(st);
    pipe.producer_expect_tx(st, TILE_BYTES);
    bulk_copy_global_to_shared(dst(st.index()), src, bytes, pipe.producer_barrier(st));
    st.advance();
}

/// The whole producer: one tile from `src(t)` per owned tile, then the tail.
#[inline(always)]
unsafe fn produce<S: FnMut(u32) -> *const u8>(
    pipe: &Pipeline<4>,
    window: u32,
    first: u32,
    step: u32,
    end: u32,
    mut src: S,
) {
    let mut st = PipelineState::<4>::producer_start();
    let mut t = first;
    while t < end {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, TILE_BYTES);
        bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src(t), TILE_BYTES, pipe.producer_barrier(&st));
        st.advance();
        t += step;
    }
    pipe.producer_tail(st);
}

#[inline(always)]
unsafe fn setup<const S: u32>(tid: u32, window: u32, consumers: u32) -> Pipeline<S> {
    let pipe = if tid == 0 { Pipeline::<S>::init(window, consumers) } else { Pipeline::<S>::attach(window) };
    barrier();
    pipe
}

#[inline(always)]
unsafe fn column(stage: *const f32, col: usize) -> f32 {
    let mut v = 0.0f32;
    for r in 0..8 {
        v += *stage.add(r * 32 + col);
    }
    v
}

// ---- correct ----

/// Both roles run their step in a closure handed to `for_each_tile`; the closures borrow the states.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_hof_closure_tiles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add((RING / 4) as usize) as *const f32;
    let pipe = setup::<4>(tid, window, 32);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        for_each_tile(b, g, tiles, |t| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        for_each_tile(b, g, tiles, |_| {
            pipe.consumer_wait(&st);
            let stage = ring.add((st.index() * TILE_FLOATS) as usize);
            acc += column(stage, tid as usize);
            pipe.consumer_release(&st);
            st.advance();
        });
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// The consumers' step is `with_stage`, the producer's `fill` with its destination as a closure.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_hof_with_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add((RING / 4) as usize) as *const f32;
    let pipe = setup::<4>(tid, window, 32);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            fill(&pipe, &mut st, |i| window + RING + i * TILE_BYTES, input.add((t * TILE_FLOATS) as usize) as *const u8, TILE_BYTES);
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let col = tid as usize;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            acc += with_stage(&pipe, &mut st, ring, |s| column(s, col));
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// What every role function is handed.
struct Ctx {
    pipe: Pipeline<4>,
    window: u32,
    ring: *const f32,
    input: *const f32,
    out: *mut f32,
    tiles: u32,
    b: u32,
    g: u32,
    tid: u32,
}

unsafe fn consume_role(cx: &Ctx) {
    let col = (cx.tid % 32) as usize;
    let mut st = PipelineState::<4>::new();
    let mut acc = 0.0f32;
    let mut t = cx.b;
    while t < cx.tiles {
        cx.pipe.consumer_wait(&st);
        acc += column(cx.ring.add((st.index() * TILE_FLOATS) as usize), col);
        cx.pipe.consumer_release(&st);
        st.advance();
        t += cx.g;
    }
    *cx.out.add(cx.b as usize * 32 + col) = acc;
}

/// The producer role: lane 0 of its warp copies, the other lanes have nothing to do.
unsafe fn produce_role(cx: &Ctx) {
    if cx.tid % 32 != 0 {
        return;
    }
    let mut st = PipelineState::<4>::producer_start();
    let mut t = cx.b;
    while t < cx.tiles {
        cx.pipe.producer_acquire(&st);
        cx.pipe.producer_expect_tx(&st, TILE_BYTES);
        bulk_copy_global_to_shared(
            cx.window + RING + st.index() * TILE_BYTES,
            cx.input.add((t * TILE_FLOATS) as usize) as *const u8,
            TILE_BYTES,
            cx.pipe.producer_barrier(&st),
        );
        st.advance();
        t += cx.g;
    }
    cx.pipe.producer_tail(st);
}

/// The producer role as first written: every thread of the warp it is given copies.
unsafe fn produce_role_warp(cx: &Ctx) {
    let mut st = PipelineState::<4>::producer_start();
    let mut t = cx.b;
    while t < cx.tiles {
        cx.pipe.producer_acquire(&st);
        cx.pipe.producer_expect_tx(&st, TILE_BYTES);
        bulk_copy_global_to_shared(
            cx.window + RING + st.index() * TILE_BYTES,
            cx.input.add((t * TILE_FLOATS) as usize) as *const u8,
            TILE_BYTES,
            cx.pipe.producer_barrier(&st),
        );
        st.advance();
        t += cx.g;
    }
    cx.pipe.producer_tail(st);
}

type Role = unsafe fn(&Ctx);

const ROLES: [Role; 2] = [consume_role, produce_role];
const ROLES_BY_WARP: [Role; 2] = [consume_role, produce_role_warp];

#[inline(always)]
unsafe fn context(input: *const f32, tiles: u32, out: *mut f32) -> Ctx {
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    let pipe = setup::<4>(tid, window, 32);
    Ctx {
        pipe,
        window,
        ring: dynamic_shared_base::<f32>().add((RING / 4) as usize) as *const f32,
        input,
        out,
        tiles,
        b: block_idx_x(),
        g: grid_dim_x(),
        tid,
    }
}

/// Warp 0 consumes, warp 1 produces: the role is a function pointer picked by the warp.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_hof_role_table(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let cx = context(input, tiles, out);
    let role: Role = ROLES[(cx.tid / 32) as usize];
    role(&cx);
}

trait Source {
    fn tile(&self, t: u32) -> *const u8;
}

trait Sink {
    fn put(&self, col: u32, v: f32);
}

struct Tiles {
    input: *const f32,
}

impl Source for Tiles {
    fn tile(&self, t: u32) -> *const u8 {
        self.input.wrapping_add((t * TILE_FLOATS) as usize) as *const u8
    }
}

struct BlockRow {
    at: *mut f32,
}

impl Sink for BlockRow {
    fn put(&self, col: u32, v: f32) {
        // SAFETY: `at` is this block's 32 outputs.
        unsafe { *self.at.add(col as usize) = v }
    }
}

/// The producer asks a `&dyn Source` for each tile, the consumers hand their sums to a `&dyn Sink`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_hof_dyn_ends(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add((RING / 4) as usize) as *const f32;
    let pipe = setup::<4>(tid, window, 32);
    let source: &dyn Source = &Tiles { input };
    let sink: &dyn Sink = &BlockRow { at: out.add(b as usize * 32) };
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, source.tile(t), TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            acc += column(ring.add((st.index() * TILE_FLOATS) as usize), tid as usize);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        sink.put(tid, acc);
    }
}

/// The producer is `produce` with a source closure; the consumers `fold` the rows.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_hof_fold_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add((RING / 4) as usize) as *const f32;
    let pipe = setup::<4>(tid, window, 32);
    if tid == 48 {
        produce(&pipe, window, b, g, tiles, |t| input.add((t * TILE_FLOATS) as usize) as *const u8);
    } else if tid < 32 {
        let col = tid as usize;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add((st.index() * TILE_FLOATS) as usize);
            acc = (0..8usize).fold(acc, |a, r| a + *stage.add(r * 32 + col));
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

// ---- broken ----

/// `with_stage` already releases; the caller releases the stage it held once more, so every
/// *empty* barrier completes two phases per tile and the producer laps the consumers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_hof_bad_release_twice(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add((RING / 4) as usize) as *const f32;
    let pipe = setup::<2>(tid, window, 32);
    if tid == 32 {
        let mut st = PipelineState::<2>::producer_start();
        for_each_tile(b, g, tiles, |t| {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + st.index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let col = tid as usize;
        let mut st = PipelineState::<2>::new();
        let mut acc = 0.0f32;
        for_each_tile(b, g, tiles, |_| {
            let held = st;
            acc += with_stage(&pipe, &mut st, ring, |s| column(s, col));
            pipe.consumer_release(&held);
        });
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// The row reader is built once before the loop around the first stage's pointer: every tile
/// is read from stage 0 while the waits and releases walk the ring.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_hof_bad_captured_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add((RING / 4) as usize) as *const f32;
    let pipe = setup::<4>(tid, window, 32);
    if tid == 32 {
        produce(&pipe, window, b, g, tiles, |t| input.add((t * TILE_FLOATS) as usize) as *const u8);
    } else if tid < 32 {
        let col = tid as usize;
        let mut st = PipelineState::<4>::new();
        let stage = ring.add((st.index() * TILE_FLOATS) as usize);
        let read = move |r: usize| *stage.add(r * 32 + col);
        let mut acc = 0.0f32;
        for_each_tile(b, g, tiles, |_| {
            pipe.consumer_wait(&st);
            for r in 0..8 {
                acc += read(r);
            }
            pipe.consumer_release(&st);
            st.advance();
        });
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// `fill`'s last argument is the copy's bytes; it is handed the tile's float count, so each
/// stage announces 1024 bytes and receives 256.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_hof_bad_fill_floats(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add((RING / 4) as usize) as *const f32;
    let pipe = setup::<4>(tid, window, 32);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            fill(&pipe, &mut st, |i| window + RING + i * TILE_BYTES, input.add((t * TILE_FLOATS) as usize) as *const u8, TILE_FLOATS);
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let col = tid as usize;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            acc += with_stage(&pipe, &mut st, ring, |s| column(s, col));
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// The consumers' bound is written with the round-up idiom (`tiles + g - 1`): blocks 0 to 6
/// wait for a ninth tile the producer never copies.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_hof_bad_ceil_bound(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add((RING / 4) as usize) as *const f32;
    let pipe = setup::<4>(tid, window, 32);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        for_each_tile(b, g, tiles, |t| {
            fill(&pipe, &mut st, |i| window + RING + i * TILE_BYTES, input.add((t * TILE_FLOATS) as usize) as *const u8, TILE_BYTES);
        });
        pipe.producer_tail(st);
    } else if tid < 32 {
        let col = tid as usize;
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        for_each_tile(b, g, tiles + g - 1, |_| {
            acc += with_stage(&pipe, &mut st, ring, |s| column(s, col));
        });
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// The role table of `r31_hof_role_table` with the first producer role, which does not pick a
/// lane: all 32 threads of warp 1 run the producer loop on one pipeline.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_hof_bad_role_table_warp(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let cx = context(input, tiles, out);
    let role: Role = ROLES_BY_WARP[(cx.tid / 32) as usize];
    role(&cx);
}
