//! Chapel-style kernels: domains are values (`Dom`, a strided range), `forall` runs a body over a
//! domain, `coforall` hands each task (locale) of the block its role, and a cyclic domain map
//! decides which tiles a block owns (tile `t` lives on locale `t % numLocales`).
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: u32 = 256;
const TILE_BYTES: u32 = TILE * 4;
const ROWS: u32 = 8;
const COLS: u32 = 32;

/// A strided domain `lo..hi by by` (exclusive high bound, as `lo..<hi` in Chapel).
#[derive(Clone, Copy)]
struct Dom { lo: u32, hi: u32, by: u32 }

impl Dom {
    /// The cyclic domain map: this locale's indices of `0..<n`.
    #[inline(always)]
    fn cyclic(n: u32) -> Dom { Dom { lo: block_idx_x(), hi: n, by: grid_dim_x() } }
    #[inline(always)]
    fn rows() -> Dom { Dom { lo: 0, hi: ROWS, by: 1 } }
}

#[inline(always)]
fn forall(d: Dom, mut body: impl FnMut(u32)) {
    let mut i = d.lo;
    while i < d.hi { body(i); i += d.by; }
}

/// `forall i in lo..hi by by` with Chapel's inclusive `..`.
#[inline(always)]
fn forall_incl(d: Dom, mut body: impl FnMut(u32)) {
    let mut i = d.lo;
    while i <= d.hi { body(i); i += d.by; }
}

#[derive(Clone, Copy, PartialEq)]
enum Task { Feeder, Reducer(u32), Idle }

#[inline(always)]
fn coforall_task(feeder: u32) -> Task {
    let t = thread_idx_x();
    if t == feeder { Task::Feeder } else if t < COLS { Task::Reducer(t) } else { Task::Idle }
}

#[inline(always)]
unsafe fn feed<const S: u32>(pipe: &Pipeline<S>, ring: u32, input: *const f32, d: Dom) {
    let mut st = PipelineState::<S>::producer_start();
    forall(d, |t| {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, TILE_BYTES);
        bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, input.add((t * TILE) as usize) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
        st.advance();
    });
    pipe.producer_tail(st);
}

#[inline(always)]
unsafe fn reduce<const S: u32>(pipe: &Pipeline<S>, ring: *const f32, c: u32, d: Dom) -> f32 {
    let mut st = PipelineState::<S>::new();
    let mut acc = 0.0f32;
    forall(d, |_t| {
        pipe.consumer_wait(&st);
        let stage = ring.add((st.index() * TILE) as usize);
        forall(Dom::rows(), |r| acc += *stage.add((r * COLS + c) as usize));
        pipe.consumer_release(&st);
        st.advance();
    });
    acc
}

#[inline(always)]
unsafe fn locale_setup<const S: u32>(bars: u32, reducers: u32) -> Pipeline<S> {
    if thread_idx_x() == 0 { Pipeline::<S>::init(bars, reducers); }
    barrier();
    Pipeline::<S>::attach(bars)
}

// forall over the cyclic domain map, four stages, locale 32 feeds.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_chapel_cyclic_forall(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let win = dynamic_shared_window_address();
    let pipe = locale_setup::<4>(win + 4 * TILE_BYTES, COLS);
    match coforall_task(32) {
        Task::Feeder => feed(&pipe, win, input, Dom::cyclic(tiles)),
        Task::Reducer(c) => {
            let acc = reduce(&pipe, dynamic_shared_base::<f32>(), c, Dom::cyclic(tiles));
            *out.add((block_idx_x() * COLS + c) as usize) = acc;
        }
        Task::Idle => {}
    }
}

// The domain written as a count of owned tiles (`0..<n` mapped to `b + k*g`), two stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_chapel_counted_domain(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let win = dynamic_shared_window_address();
    let pipe = locale_setup::<2>(win + 2 * TILE_BYTES, COLS);
    let (b, g) = (block_idx_x(), grid_dim_x());
    let n = if b < tiles { (tiles - b).div_ceil(g) } else { 0 };
    let owned = Dom { lo: 0, hi: n, by: 1 };
    match coforall_task(63) {
        Task::Feeder => {
            let mut st = PipelineState::<2>::producer_start();
            forall(owned, |k| {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(win + st.index() * TILE_BYTES, input.add(((b + k * g) * TILE) as usize) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            });
            pipe.producer_tail(st);
        }
        Task::Reducer(c) => {
            let acc = reduce(&pipe, dynamic_shared_base::<f32>(), c, owned);
            *out.add((b * COLS + c) as usize) = acc;
        }
        Task::Idle => {}
    }
}

// No pipeline: every task stages a slice of the tile with `forall`, block barrier, reducers sum.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_chapel_plain_forall(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let mut i = tid;
        while i < TILE { *s.add(i as usize) = *input.add((t * TILE + i) as usize); i += 64; }
        barrier();
        if tid < COLS {
            let mut r = 0;
            while r < ROWS { acc += *s.add((r * COLS + tid) as usize); r += 1; }
        }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS { *out.add((block_idx_x() * COLS + tid) as usize) = acc; }
}

// Three stages; the feeder issues each copy before it announces the bytes (allowed order).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_chapel_copy_then_announce(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let win = dynamic_shared_window_address();
    let pipe = locale_setup::<3>(win + 3 * TILE_BYTES, COLS);
    match coforall_task(40) {
        Task::Feeder => {
            let mut st = PipelineState::<3>::producer_start();
            forall(Dom::cyclic(tiles), |t| {
                pipe.producer_acquire(&st);
                bulk_copy_global_to_shared(win + st.index() * TILE_BYTES, input.add((t * TILE) as usize) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
                pipe.producer_expect_tx(&st, TILE_BYTES);
                st.advance();
            });
            pipe.producer_tail(st);
        }
        Task::Reducer(c) => {
            let acc = reduce(&pipe, dynamic_shared_base::<f32>(), c, Dom::cyclic(tiles));
            *out.add((block_idx_x() * COLS + c) as usize) = acc;
        }
        Task::Idle => {}
    }
}

// Feeder over `b..tiles-1 by g`, reducers over the same domain in Chapel's inclusive form.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_chapel_bad_inclusive_domain(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let win = dynamic_shared_window_address();
    let pipe = locale_setup::<4>(win + 4 * TILE_BYTES, COLS);
    let (b, g) = (block_idx_x(), grid_dim_x());
    match coforall_task(32) {
        Task::Feeder => {
            let mut st = PipelineState::<4>::producer_start();
            forall_incl(Dom { lo: b, hi: tiles - 1, by: g }, |t| {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(win + st.index() * TILE_BYTES, input.add((t * TILE) as usize) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
            });
            pipe.producer_tail(st);
        }
        Task::Reducer(c) => {
            let ring = dynamic_shared_base::<f32>();
            let mut st = PipelineState::<4>::new();
            let mut acc = 0.0f32;
            forall_incl(Dom { lo: b, hi: tiles, by: g }, |_t| {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                forall(Dom::rows(), |r| acc += *stage.add((r * COLS + c) as usize));
                pipe.consumer_release(&st);
                st.advance();
            });
            *out.add((b * COLS + c) as usize) = acc;
        }
        Task::Idle => {}
    }
}

#[inline(always)]
fn feeder_locale(t: u32) -> bool { t >= COLS && t % 16 == 0 }

// Feeders are the first task of each half-warp past the reducers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_chapel_bad_feeder_locales(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let win = dynamic_shared_window_address();
    let pipe = locale_setup::<4>(win + 4 * TILE_BYTES, COLS);
    let t = thread_idx_x();
    if feeder_locale(t) {
        feed(&pipe, win, input, Dom::cyclic(tiles));
    } else if t < COLS {
        let acc = reduce(&pipe, dynamic_shared_base::<f32>(), t, Dom::cyclic(tiles));
        *out.add((block_idx_x() * COLS + t) as usize) = acc;
    }
}

const LOCALE_TASKS: u32 = 64;

// The empty barriers count every task of the locale.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_chapel_bad_task_count(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let win = dynamic_shared_window_address();
    let pipe = locale_setup::<4>(win + 4 * TILE_BYTES, LOCALE_TASKS);
    match coforall_task(32) {
        Task::Feeder => feed(&pipe, win, input, Dom::cyclic(tiles)),
        Task::Reducer(c) => {
            let acc = reduce(&pipe, dynamic_shared_base::<f32>(), c, Dom::cyclic(tiles));
            *out.add((block_idx_x() * COLS + c) as usize) = acc;
        }
        Task::Idle => {}
    }
}

// Plain staging; one barrier per tile between the stage and the sums.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_chapel_bad_plain_one_sync(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        let mut i = tid;
        while i < TILE { *s.add(i as usize) = *input.add((t * TILE + i) as usize); i += 64; }
        barrier();
        if tid < COLS {
            let mut r = 0;
            while r < ROWS { acc += *s.add((r * COLS + tid) as usize); r += 1; }
        }
        t += grid_dim_x();
    }
    if tid < COLS { *out.add((block_idx_x() * COLS + tid) as usize) = acc; }
}
