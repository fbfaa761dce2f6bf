//! Style `rec`: pipeline states kept in records. Plain structs holding a state, a tile counter
//! and an accumulator are handed by `&mut` to free functions; steps take a state by value and
//! hand it back in a tuple; two pipelines and their states sit in arrays indexed by the tile's
//! parity at run time; a producer state lives in an `Option`; a reader record exposes a chain of
//! `&mut self` calls (`r.wait().column(c)`).

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const RING: u32 = 128;

#[inline(always)]
unsafe fn setup(tid: u32, window: u32) -> Pipeline<4> {
    let pipe = if tid == 0 { Pipeline::<4>::init(window, 32) } else { Pipeline::<4>::attach(window) };
    barrier();
    pipe
}

#[inline(always)]
fn ring() -> *const f32 {
    dynamic_shared_base::<f32>().wrapping_add((RING / 4) as usize) as *const f32
}

#[inline(always)]
unsafe fn column(stage: *const f32, col: usize) -> f32 {
    let mut v = 0.0f32;
    for r in 0..8usize {
        v += *stage.add(r * 32 + col);
    }
    v
}

/// The producer's record.
struct Feed {
    st: PipelineState<4>,
    t: u32,
    step: u32,
}

/// A consumer's record.
struct Lane {
    st: PipelineState<4>,
    t: u32,
    acc: f32,
}

#[inline(always)]
unsafe fn feed_one(pipe: &Pipeline<4>, window: u32, input: *const f32, f: &mut Feed) {
    pipe.producer_acquire(&f.st);
    pipe.producer_expect_tx(&f.st, TILE_BYTES);
    bulk_copy_global_to_shared(
        window + RING + f.st.index() * TILE_BYTES,
        input.add((f.t * TILE_FLOATS) as usize) as *const u8,
        TILE_BYTES,
        pipe.producer_barrier(&f.st),
    );
    f.st.advance();
    f.t += f.step;
}

#[inline(always)]
unsafe fn eat_one(pipe: &Pipeline<4>, lane: &mut Lane, col: usize, step: u32) {
    pipe.consumer_wait(&lane.st);
    lane.acc += column(ring().add((lane.st.index() * TILE_FLOATS) as usize), col);
    pipe.consumer_release(&lane.st);
    lane.st.advance();
    lane.t += step;
}

/// A producer step on a state taken by value; the advanced state is handed back.
#[inline(always)]
unsafe fn put(pipe: &Pipeline<4>, mut st: PipelineState<4>, window: u32, src: *const u8) -> PipelineState<4> {
    pipe.producer_acquire(&st);
    pipe.producer_expect_tx(&st, TILE_BYTES);
    bulk_copy_global_to_shared(window + RING + st.index() * TILE_BYTES, src, TILE_BYTES, pipe.producer_barrier(&st));
    st.advance();
    st
}

/// A consumer step on a state taken by value: the advanced state and the column's sum.
#[inline(always)]
unsafe fn eat(pipe: &Pipeline<4>, mut st: PipelineState<4>, col: usize) -> (PipelineState<4>, f32) {
    pipe.consumer_wait(&st);
    let v = column(ring().add((st.index() * TILE_FLOATS) as usize), col);
    pipe.consumer_release(&st);
    st.advance();
    (st, v)
}

// ---- correct ----

/// Both roles keep a record and hand it by `&mut` to a one-tile step.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_rec_lane_records(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let pipe = setup(tid, window);
    if tid == 32 {
        let mut f = Feed { st: PipelineState::producer_start(), t: b, step: g };
        while f.t < tiles {
            feed_one(&pipe, window, input, &mut f);
        }
        pipe.producer_tail(f.st);
    } else if tid < 32 {
        let mut lane = Lane { st: PipelineState::new(), t: b, acc: 0.0 };
        while lane.t < tiles {
            eat_one(&pipe, &mut lane, tid as usize, g);
        }
        *out.add((b * 32 + tid) as usize) = lane.acc;
    }
}

/// States passed by value and handed back (`st = put(..)`, `(st, v) = eat(..)`).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_rec_tuple_steps(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let pipe = setup(tid, window);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            st = put(&pipe, st, window, input.add((t * TILE_FLOATS) as usize) as *const u8);
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            let (next, v) = eat(&pipe, st, tid as usize);
            st = next;
            acc += v;
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Two pipelines of two stages; tile `k` of the block goes through pipeline `k & 1`, its
/// pipeline and state picked from arrays at run time.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_rec_two_pipes_array(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING_BYTES: u32 = 2 * TILE_BYTES;
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let pipes = if tid == 0 {
        [Pipeline::<2>::init(window, 32), Pipeline::<2>::init(window + 32, 32)]
    } else {
        [Pipeline::<2>::attach(window), Pipeline::<2>::attach(window + 32)]
    };
    barrier();
    if tid == 32 {
        let mut states = [PipelineState::<2>::producer_start(), PipelineState::<2>::producer_start()];
        let mut k = 0u32;
        let mut t = b;
        while t < tiles {
            let w = (k & 1) as usize;
            pipes[w].producer_acquire(&states[w]);
            pipes[w].producer_expect_tx(&states[w], TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + w as u32 * RING_BYTES + states[w].index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipes[w].producer_barrier(&states[w]),
            );
            states[w].advance();
            k += 1;
            t += g;
        }
        pipes[0].producer_tail(states[0]);
        pipes[1].producer_tail(states[1]);
    } else if tid < 32 {
        let mut states = [PipelineState::<2>::new(), PipelineState::<2>::new()];
        let mut acc = 0.0f32;
        let mut k = 0u32;
        let mut t = b;
        while t < tiles {
            let w = (k & 1) as usize;
            pipes[w].consumer_wait(&states[w]);
            let stage = ring().add(((w as u32 * RING_BYTES + states[w].index() * TILE_BYTES) / 4) as usize);
            acc += column(stage, tid as usize);
            pipes[w].consumer_release(&states[w]);
            states[w].advance();
            k += 1;
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// A reader record whose calls chain: `r.wait().column(c)`, then `r.release()`.
struct Reader {
    pipe: Pipeline<4>,
    st: PipelineState<4>,
}

impl Reader {
    #[inline(always)]
    unsafe fn wait(&mut self) -> &mut Self {
        self.pipe.consumer_wait(&self.st);
        self
    }

    #[inline(always)]
    unsafe fn column(&mut self, col: usize) -> f32 {
        column(ring().add((self.st.index() * TILE_FLOATS) as usize), col)
    }

    /// Frees the stage and moves to the next one.
    #[inline(always)]
    unsafe fn release(&mut self) -> &mut Self {
        self.pipe.consumer_release(&self.st);
        self.st.advance();
        self
    }
}

/// The producer's state lives in an `Option`; the consumers read through a `Reader` chain.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_rec_option_and_chain(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let pipe = setup(tid, window);
    if tid == 32 {
        let mut slot = Some(PipelineState::<4>::producer_start());
        let mut t = b;
        while t < tiles {
            if let Some(st) = slot.as_mut() {
                pipe.producer_acquire(st);
                pipe.producer_expect_tx(st, TILE_BYTES);
                bulk_copy_global_to_shared(
                    window + RING + st.index() * TILE_BYTES,
                    input.add((t * TILE_FLOATS) as usize) as *const u8,
                    TILE_BYTES,
                    pipe.producer_barrier(st),
                );
                st.advance();
            }
            t += g;
        }
        if let Some(st) = slot {
            pipe.producer_tail(st);
        }
    } else if tid < 32 {
        let mut r = Reader { pipe, st: PipelineState::new() };
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            acc += r.wait().column(tid as usize);
            r.release();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// `open` waits and returns the stage's pointer, the kernel reads it, `close` releases and advances.
#[inline(always)]
unsafe fn open(pipe: &Pipeline<4>, lane: &mut Lane) -> *const f32 {
    pipe.consumer_wait(&lane.st);
    ring().add((lane.st.index() * TILE_FLOATS) as usize)
}

#[inline(always)]
unsafe fn close(pipe: &Pipeline<4>, lane: &mut Lane, step: u32) {
    pipe.consumer_release(&lane.st);
    lane.st.advance();
    lane.t += step;
}

/// The producer's work is a nested record; the consumers open and close stages around their reads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_rec_open_close(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    struct Work {
        feed: Feed,
        end: u32,
    }
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let pipe = setup(tid, window);
    if tid == 0 {
        let mut work = Work { feed: Feed { st: PipelineState::producer_start(), t: b, step: g }, end: tiles };
        while work.feed.t < work.end {
            feed_one(&pipe, window, input, &mut work.feed);
        }
        pipe.producer_tail(work.feed.st);
    } else if tid >= 32 {
        let col = (tid - 32) as usize;
        let mut lane = Lane { st: PipelineState::new(), t: b, acc: 0.0 };
        while lane.t < tiles {
            let stage = open(&pipe, &mut lane);
            for r in 0..8usize {
                lane.acc += *stage.add(r * 32 + col);
            }
            close(&pipe, &mut lane, g);
        }
        *out.add(b as usize * 32 + col) = lane.acc;
    }
}

// ---- broken ----

/// A consumer record that is `Copy`, handed by value: the step advances its copy and the
/// caller's state stays at stage 0, phase 0.
#[derive(Clone, Copy)]
struct CopyLane {
    st: PipelineState<4>,
}

#[inline(always)]
unsafe fn eat_copy(pipe: &Pipeline<4>, mut lane: CopyLane, col: usize) -> f32 {
    pipe.consumer_wait(&lane.st);
    let v = column(ring().add((lane.st.index() * TILE_FLOATS) as usize), col);
    pipe.consumer_release(&lane.st);
    lane.st.advance();
    v
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_rec_bad_lane_by_value(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let pipe = setup(tid, window);
    if tid == 32 {
        let mut f = Feed { st: PipelineState::producer_start(), t: b, step: g };
        while f.t < tiles {
            feed_one(&pipe, window, input, &mut f);
        }
        pipe.producer_tail(f.st);
    } else if tid < 32 {
        let lane = CopyLane { st: PipelineState::new() };
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            acc += eat_copy(&pipe, lane, tid as usize);
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// The producer calls `put` as if it advanced the state in place and drops the state it returns.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_rec_bad_dropped_put(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let pipe = setup(tid, window);
    if tid == 32 {
        let st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            let _ = put(&pipe, st, window, input.add((t * TILE_FLOATS) as usize) as *const u8);
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            let (next, v) = eat(&pipe, st, tid as usize);
            st = next;
            acc += v;
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Two pipelines in arrays; the producer alternates by the block's tile count `k`, the
/// consumers by the global tile number `t`, whose parity never changes with eight blocks.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_rec_bad_pipe_by_global_parity(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const RING_BYTES: u32 = 2 * TILE_BYTES;
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let pipes = if tid == 0 {
        [Pipeline::<2>::init(window, 32), Pipeline::<2>::init(window + 32, 32)]
    } else {
        [Pipeline::<2>::attach(window), Pipeline::<2>::attach(window + 32)]
    };
    barrier();
    if tid == 32 {
        let mut states = [PipelineState::<2>::producer_start(), PipelineState::<2>::producer_start()];
        let mut k = 0u32;
        let mut t = b;
        while t < tiles {
            let w = (k & 1) as usize;
            pipes[w].producer_acquire(&states[w]);
            pipes[w].producer_expect_tx(&states[w], TILE_BYTES);
            bulk_copy_global_to_shared(
                window + RING + w as u32 * RING_BYTES + states[w].index() * TILE_BYTES,
                input.add((t * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipes[w].producer_barrier(&states[w]),
            );
            states[w].advance();
            k += 1;
            t += g;
        }
        pipes[0].producer_tail(states[0]);
        pipes[1].producer_tail(states[1]);
    } else if tid < 32 {
        let mut states = [PipelineState::<2>::new(), PipelineState::<2>::new()];
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            let w = (t & 1) as usize;
            pipes[w].consumer_wait(&states[w]);
            let stage = ring().add(((w as u32 * RING_BYTES + states[w].index() * TILE_BYTES) / 4) as usize);
            acc += column(stage, tid as usize);
            pipes[w].consumer_release(&states[w]);
            states[w].advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// The chain written `r.wait().release().column(c)`: the column is read after the release,
/// from the stage the advanced state points at (the next one, not yet waited for).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_rec_bad_chain_release_first(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let pipe = setup(tid, window);
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            st = put(&pipe, st, window, input.add((t * TILE_FLOATS) as usize) as *const u8);
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut r = Reader { pipe, st: PipelineState::new() };
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            acc += r.wait().release().column(tid as usize);
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// One constructor for both roles' records, starting every state where the producer starts
/// (parity 1): the consumers' first waits return at once, before the copies land.
impl Lane {
    #[inline(always)]
    fn start(t: u32) -> Lane {
        Lane { st: PipelineState::producer_start(), t, acc: 0.0 }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r31_rec_bad_shared_start(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    let window = dynamic_shared_window_address();
    let pipe = setup(tid, window);
    if tid == 32 {
        let start = Lane::start(b);
        let mut f = Feed { st: start.st, t: start.t, step: g };
        while f.t < tiles {
            feed_one(&pipe, window, input, &mut f);
        }
        pipe.producer_tail(f.st);
    } else if tid < 32 {
        let mut lane = Lane::start(b);
        while lane.t < tiles {
            eat_one(&pipe, &mut lane, tid as usize, g);
        }
        *out.add((b * 32 + tid) as usize) = lane.acc;
    }
}
