//! Module `apl`: the kernels written the way an APL (or J, BQN) programmer writes Rust for the
//! GPU. A tile is the array `8 32⍴tile`; the work is a composition of small primitives named
//! after the glyphs they stand for (`rho_index` for the ravel position of `A[r;c]`, `pick`
//! for `i⊃ring`, `column` for `A[;c]`, `plus_reduce` for `+/`, `transpose_index` for `⍉`), each
//! a tiny pure function over fixed-size arrays, so that a kernel's body reads as one line of
//! APL per step (written above it as a comment). `⎕IO←0` throughout.

use crate::device;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};

const STAGES: u32 = 4;
/// `⍴tile ←→ 8 32`
const R: u32 = 8;
const C: u32 = 32;
const N: u32 = R * C;
const NBYTES: u32 = N * 4;
const THREADS: u32 = 64;
const WINDOW: u32 = 8192;
const BARS: u32 = 0;
const RING: u32 = 1024;
const PRODUCER: u32 = 32;

/// `A[r;c]` of an `8 32` array: its ravel position.
#[inline(always)]
fn rho_index(r: u32, c: u32) -> u32 {
    r * C + c
}

/// `i⊃ring`: the first element of stage `i` of a ring of `N`-element stages.
#[inline(always)]
fn pick(ring: *const f32, i: u32) -> *const f32 {
    ring.wrapping_add((i * N) as usize)
}

/// `A[;c]`: the column `c` of an `8 32` array.
#[inline(always)]
unsafe fn column(a: *const f32, c: u32) -> [f32; 8] {
    let mut v = [0.0f32; 8];
    for r in 0..R {
        v[r as usize] = *a.add(rho_index(r, c) as usize);
    }
    v
}

/// `+/v`
#[inline(always)]
fn plus_reduce(v: [f32; 8]) -> f32 {
    let mut s = 0.0;
    for k in 0..8 {
        s += v[k];
    }
    s
}

/// Position of element `e` of the ravel in `⍉8 32⍴tile`, a `32 8` array.
#[inline(always)]
fn transpose_index(e: u32) -> u32 {
    (e % C) * R + e / C
}

/// The ring of the pipeline kernels, `4 8 32⍴` shared memory from byte `RING`.
#[inline(always)]
fn ring() -> *const f32 {
    device::dynamic_shared_base::<f32>().wrapping_add((RING / 4) as usize) as *const f32
}

/// `⍳tiles` filtered to this block: `b + g×⍳⌈(tiles-b)÷g`, given as `(b, g)`.
#[inline(always)]
fn own() -> (u32, u32) {
    (device::block_idx_x(), device::grid_dim_x())
}

/// Thread 0 sets up the barriers; everyone meets; everyone attaches.
#[inline(always)]
fn setup(tid: u32) -> Pipeline<STAGES> {
    let window = device::dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<STAGES>::init(window + BARS, C);
    }
    device::barrier();
    Pipeline::<STAGES>::attach(window + BARS)
}

/// The producer: `ring[s] ← tile[t]` for each own tile, in ring order.
#[inline(always)]
fn produce(pipe: &Pipeline<STAGES>, input: *const f32, tiles: u32) {
    let window = device::dynamic_shared_window_address();
    let (b, g) = own();
    let mut st = PipelineState::<STAGES>::producer_start();
    let mut t = b;
    while t < tiles {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, NBYTES);
        let src = input.wrapping_add((t * N) as usize) as *const u8;
        bulk_copy_global_to_shared(window + RING + st.index() * NBYTES, src, NBYTES, pipe.producer_barrier(&st));
        st.advance();
        t += g;
    }
    pipe.producer_tail(st);
}

/// `+⌿` over this block's tiles, column `c` of each: warp 0 of the pipeline kernels.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_apl_plus_reduce_first_axis(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW);
    let tid = device::thread_idx_x();
    let pipe = setup(tid);
    if tid == PRODUCER {
        produce(&pipe, input, tiles);
    } else if tid < C {
        let (b, g) = own();
        let mut st = PipelineState::<STAGES>::new();
        let mut z = 0.0;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            // z ← z + +/(st⊃ring)[;c]
            z += plus_reduce(column(pick(ring(), st.index()), tid));
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * C + tid) as usize) = z;
    }
}

/// `(⊃tiles) , 1↓tiles`: the consumers take the first own tile before the loop (it starts the
/// running sum) and the rest in the loop, the peeled first pass of MODEL.md's `tile-count`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_apl_first_then_drop(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW);
    let tid = device::thread_idx_x();
    let pipe = setup(tid);
    if tid == PRODUCER {
        produce(&pipe, input, tiles);
    } else if tid < C {
        let (b, g) = own();
        let mut st = PipelineState::<STAGES>::new();
        let mut z = 0.0;
        let mut t = b;
        if t < tiles {
            // z ← +/(⊃ring)[;c]
            pipe.consumer_wait(&st);
            z = plus_reduce(column(pick(ring(), st.index()), tid));
            pipe.consumer_release(&st);
            st.advance();
            t += g;
            // z ← z + +/¨ (1↓ring)[;c]
            while t < tiles {
                pipe.consumer_wait(&st);
                z += plus_reduce(column(pick(ring(), st.index()), tid));
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
        }
        *out.add((b * C + tid) as usize) = z;
    }
}

/// No pipeline: the block stages `⍉8 32⍴tile` (element `e` at `(e mod 32)×8 + ⌊e÷32`), so
/// that a column of the tile is a contiguous row of eight in shared memory; warp 0 sums its
/// row `+/T[c;]`. Two block barriers a tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_apl_transposed_rows(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW);
    let tid = device::thread_idx_x();
    let s = device::dynamic_shared_base::<f32>();
    let (b, g) = own();
    let mut z = 0.0;
    let mut t = b;
    while t < tiles {
        // T ← ⍉8 32⍴tile[t]
        for k in 0..N / THREADS {
            let e = tid + k * THREADS;
            *s.add(transpose_index(e) as usize) = *input.add((t * N + e) as usize);
        }
        device::barrier();
        if tid < C {
            // z ← z + +/T[c;]
            let mut v = [0.0f32; 8];
            for r in 0..R {
                v[r as usize] = *s.add((tid * R + r) as usize);
            }
            z += plus_reduce(v);
        }
        device::barrier();
        t += g;
    }
    if tid < C {
        *out.add((b * C + tid) as usize) = z;
    }
}

/// No pipeline: `+⌿` as a pairwise tree over the rows of the staged tile. Level 1 folds rows
/// 4..7 onto 0..3 (each thread two elements), level 2 rows 2,3 onto 0,1 and 6,7 (already
/// folded) likewise, level 3 (warp 0) adds row 0 and row 1; a block barrier between levels.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_apl_pairwise_tree(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW);
    let tid = device::thread_idx_x();
    let s = device::dynamic_shared_base::<f32>();
    let (b, g) = own();
    let mut z = 0.0;
    let mut t = b;
    while t < tiles {
        for k in 0..N / THREADS {
            let e = tid + k * THREADS;
            *s.add(e as usize) = *input.add((t * N + e) as usize);
        }
        device::barrier();
        // 4 32⍴ (4↑A) + 4↓A
        for k in 0..2 {
            let e = tid + k * THREADS;
            *s.add(e as usize) = *s.add(e as usize) + *s.add((e + N / 2) as usize);
        }
        device::barrier();
        // 2 32⍴ (2↑A) + 2↓A
        *s.add(tid as usize) = *s.add(tid as usize) + *s.add((tid + THREADS) as usize);
        device::barrier();
        // z ← z + A[0;c] + A[1;c]
        if tid < C {
            z += *s.add(tid as usize) + *s.add((tid + C) as usize);
        }
        device::barrier();
        t += g;
    }
    if tid < C {
        *out.add((b * C + tid) as usize) = z;
    }
}

/// BROKEN: the column primitive was written with `⎕IO←1` in mind, `A[1+⍳8;c]`, so it reads
/// rows 1 to 8: row 0 of every tile is left out and "row 8" is the first row of the next
/// stage (or, for stage 3, the 32 floats after the ring).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_apl_bad_index_origin(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW);
    let tid = device::thread_idx_x();
    let pipe = setup(tid);
    if tid == PRODUCER {
        produce(&pipe, input, tiles);
    } else if tid < C {
        let (b, g) = own();
        let mut st = PipelineState::<STAGES>::new();
        let mut z = 0.0;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let a = pick(ring(), st.index());
            let mut v = [0.0f32; 8];
            for r in 1..=R {
                v[(r - 1) as usize] = *a.add(rho_index(r, tid) as usize);
            }
            z += plus_reduce(v);
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * C + tid) as usize) = z;
    }
}

/// BROKEN: `A ← st⊃ring` is bound once, before the loop, as a name for "the current stage":
/// the name keeps stage 0, so every tile after the first sums stage 0 again (whatever the
/// producer has put there by then) instead of the stage the consumer waited for.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_apl_bad_bound_stage_name(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW);
    let tid = device::thread_idx_x();
    let pipe = setup(tid);
    if tid == PRODUCER {
        produce(&pipe, input, tiles);
    } else if tid < C {
        let (b, g) = own();
        let mut st = PipelineState::<STAGES>::new();
        let a = pick(ring(), st.index());
        let mut z = 0.0;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            z += plus_reduce(column(a, tid));
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * C + tid) as usize) = z;
    }
}

/// BROKEN: the pairwise tree without the barrier between level 2 and level 3 ("level 3 only
/// reads"): lane `c` of warp 0 reads `A[1;c]`, which thread `c + 32` of warp 1 is still
/// folding, and adds a half-folded value.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_apl_bad_tree_level_unsynced(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW);
    let tid = device::thread_idx_x();
    let s = device::dynamic_shared_base::<f32>();
    let (b, g) = own();
    let mut z = 0.0;
    let mut t = b;
    while t < tiles {
        for k in 0..N / THREADS {
            let e = tid + k * THREADS;
            *s.add(e as usize) = *input.add((t * N + e) as usize);
        }
        device::barrier();
        for k in 0..2 {
            let e = tid + k * THREADS;
            *s.add(e as usize) = *s.add(e as usize) + *s.add((e + N / 2) as usize);
        }
        device::barrier();
        *s.add(tid as usize) = *s.add(tid as usize) + *s.add((tid + THREADS) as usize);
        if tid < C {
            z += *s.add(tid as usize) + *s.add((tid + C) as usize);
        }
        device::barrier();
        t += g;
    }
    if tid < C {
        *out.add((b * C + tid) as usize) = z;
    }
}

/// BROKEN: the consumers index the ring rotated by one, `(1⌽ring)[st]`, i.e. stage
/// `(st + 1) mod 4`, meaning to "look ahead": they read a stage they have not waited for,
/// which the producer may not have filled yet or may be refilling.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_apl_bad_rotated_ring(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(WINDOW);
    let tid = device::thread_idx_x();
    let pipe = setup(tid);
    if tid == PRODUCER {
        produce(&pipe, input, tiles);
    } else if tid < C {
        let (b, g) = own();
        let mut st = PipelineState::<STAGES>::new();
        let mut z = 0.0;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            z += plus_reduce(column(pick(ring(), (st.index() + 1) % STAGES), tid));
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * C + tid) as usize) = z;
    }
}
