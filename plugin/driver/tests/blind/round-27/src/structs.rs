//! Structs with methods, cursors, `Option`/`Result`, enums, traits (static and `dyn`).

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, lane_id, thread_idx_x, warp_id};

const TILE: usize = 256;
const TILE_BYTES: u32 = 1024;

#[derive(Clone, Copy)]
struct Ring {
    addr: u32,
    base: *const f32,
}

impl Ring {
    fn at(window: u32, byte: u32) -> Ring {
        Ring { addr: window + byte, base: dynamic_shared_base::<u8>().wrapping_add(byte as usize) as *const f32 }
    }
    fn dst(&self, st: &PipelineState<4>) -> u32 {
        self.addr + st.index() * TILE_BYTES
    }
    fn stage(&self, st: &PipelineState<4>) -> *const f32 {
        self.base.wrapping_add(st.index() as usize * TILE)
    }
}

/// A `Ring` struct gives both the copy destination and the consumers' stage pointer.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_struct_ring_methods(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = Ring::at(window, 2048);
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 512, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 512);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring.dst(&st), input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let s = ring.stage(&st);
            for r in 0..8 {
                acc += *s.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

struct Consumer {
    st: PipelineState<4>,
    acc: f32,
    col: usize,
}

impl Consumer {
    fn new(col: usize) -> Self {
        Consumer { st: PipelineState::new(), acc: 0.0, col }
    }
    unsafe fn take(&mut self, pipe: &Pipeline<4>, ring: *const f32) {
        pipe.consumer_wait(&self.st);
        let s = ring.add(self.st.index() as usize * TILE + self.col);
        for r in 0..8 {
            self.acc += *s.add(r * 32);
        }
        pipe.consumer_release(&self.st);
        self.st.advance();
    }
}

struct Producer<'a> {
    pipe: &'a Pipeline<4>,
    st: PipelineState<4>,
    dst: u32,
}

impl<'a> Producer<'a> {
    fn new(pipe: &'a Pipeline<4>, dst: u32) -> Self {
        Producer { pipe, st: PipelineState::producer_start(), dst }
    }
    fn push(&mut self, src: *const f32) {
        self.pipe.producer_acquire(&self.st);
        self.pipe.producer_expect_tx(&self.st, TILE_BYTES);
        bulk_copy_global_to_shared(self.dst + self.st.index() * TILE_BYTES, src as *const u8, TILE_BYTES, self.pipe.producer_barrier(&self.st));
        self.st.advance();
    }
    fn finish(self) {
        self.pipe.producer_tail(self.st);
    }
}

/// Producer and consumer as structs with methods.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_struct_role_structs(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut p = Producer::new(&pipe, window + 1024);
        let mut t = b;
        while t < tiles {
            p.push(input.add(t as usize * TILE));
            t += g;
        }
        p.finish();
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256);
        let mut c = Consumer::new(tid as usize);
        let mut t = b;
        while t < tiles {
            c.take(&pipe, ring);
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = c.acc;
    }
}

struct TileCursor {
    next: u32,
    step: u32,
    end: u32,
}

impl TileCursor {
    fn of_block(tiles: u32) -> Self {
        TileCursor { next: block_idx_x(), step: grid_dim_x(), end: tiles }
    }
    fn next(&mut self) -> Option<u32> {
        if self.next < self.end {
            let t = self.next;
            self.next += self.step;
            Some(t)
        } else {
            None
        }
    }
}

/// A tile cursor returning `Option<u32>`, walked with `while let` in both roles.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_struct_cursor_while_let(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 7168, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 7168);
    if tid == 32 {
        let mut cur = TileCursor::of_block(tiles);
        let mut st = PipelineState::<4>::producer_start();
        while let Some(t) = cur.next() {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + 3072 + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(768);
        let mut cur = TileCursor::of_block(tiles);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0;
        while let Some(_t) = cur.next() {
            pipe.consumer_wait(&st);
            let s = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *s.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add((block_idx_x() * 32 + tid) as usize) = acc;
    }
}

#[derive(Debug)]
enum Empty {
    NoTiles,
}

unsafe fn consume_checked(pipe: &Pipeline<4>, ring: *const f32, col: usize, tiles: u32) -> Result<f32, Empty> {
    let (b, g) = (block_idx_x(), grid_dim_x());
    if b >= tiles {
        return Err(Empty::NoTiles);
    }
    let mut st = PipelineState::<4>::new();
    let mut acc = 0.0;
    let mut t = b;
    while t < tiles {
        pipe.consumer_wait(&st);
        let s = ring.add(st.index() as usize * TILE);
        for r in 0..8 {
            acc += *s.add(r * 32 + col);
        }
        pipe.consumer_release(&st);
        st.advance();
        t += g;
    }
    Ok(acc)
}

fn produce_checked(pipe: &Pipeline<4>, ring: u32, input: *const f32, tiles: u32) -> Result<(), Empty> {
    let (b, g) = (block_idx_x(), grid_dim_x());
    if b >= tiles {
        return Err(Empty::NoTiles);
    }
    let mut st = PipelineState::<4>::producer_start();
    let mut t = b;
    while t < tiles {
        pipe.producer_acquire(&st);
        pipe.producer_expect_tx(&st, TILE_BYTES);
        // SAFETY: `t < tiles`.
        let src = unsafe { input.add(t as usize * TILE) };
        bulk_copy_global_to_shared(ring + st.index() * TILE_BYTES, src as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
        st.advance();
        t += g;
    }
    pipe.producer_tail(st);
    Ok(())
}

/// Roles return `Result`; a block without tiles returns `Err` before touching the pipeline.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_struct_result_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 16, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 16);
    if tid == 32 {
        let _ = produce_checked(&pipe, window + 1024, input, tiles);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256);
        let s = consume_checked(&pipe, ring, tid as usize, tiles).unwrap_or(0.0);
        *out.add((block_idx_x() * 32 + tid) as usize) = s;
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Role {
    Producer,
    Consumer(u32),
    Idle,
}

fn role_of(tid: u32) -> Role {
    match (warp_id(), lane_id()) {
        (0, lane) => Role::Consumer(lane),
        (1, 0) => Role::Producer,
        _ => {
            let _ = tid;
            Role::Idle
        }
    }
}

/// Roles from an enum matched on `(warp, lane)`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_struct_role_enum(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 4096, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 4096);
    let (b, g) = (block_idx_x(), grid_dim_x());
    match role_of(tid) {
        Role::Producer => {
            let mut st = PipelineState::<4>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        }
        Role::Consumer(col) => {
            let ring = dynamic_shared_base::<f32>();
            let mut st = PipelineState::<4>::new();
            let mut acc = 0.0;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let s = ring.add(st.index() as usize * TILE);
                for r in 0..8 {
                    acc += *s.add(r * 32 + col as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * 32 + col) as usize) = acc;
        }
        Role::Idle => {}
    }
}

/// The consumer's state and sum live in a tuple.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_struct_state_tuple(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut p = Producer::new(&pipe, window + 4096);
        let mut t = b;
        while t < tiles {
            p.push(input.add(t as usize * TILE));
            t += g;
        }
        p.finish();
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(1024);
        let mut me = (PipelineState::<4>::new(), 0.0f32);
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&me.0);
            let s = ring.add(me.0.index() as usize * TILE);
            for r in 0..8 {
                me.1 += *s.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&me.0);
            me.0.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = me.1;
    }
}

#[derive(Clone, Copy)]
enum Step {
    Wait,
    Read,
    Release,
}

/// The consumer as an enum state machine: wait, read, release, one arm per step.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_struct_enum_machine(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 6144, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 6144);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut p = Producer::new(&pipe, window + 1024);
        let mut t = b;
        while t < tiles {
            p.push(input.add(t as usize * TILE));
            t += g;
        }
        p.finish();
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0;
        let mut step = Step::Wait;
        let mut t = b;
        while t < tiles {
            match step {
                Step::Wait => {
                    pipe.consumer_wait(&st);
                    step = Step::Read;
                }
                Step::Read => {
                    let s = ring.add(st.index() as usize * TILE);
                    for r in 0..8 {
                        acc += *s.add(r * 32 + tid as usize);
                    }
                    step = Step::Release;
                }
                Step::Release => {
                    pipe.consumer_release(&st);
                    st.advance();
                    t += g;
                    step = Step::Wait;
                }
            }
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

// ---------------------------------------------------------------- broken

#[derive(Clone, Copy)]
struct Eater {
    st: PipelineState<4>,
    col: usize,
}

impl Eater {
    unsafe fn eat(mut self, pipe: &Pipeline<4>, ring: *const f32) -> f32 {
        pipe.consumer_wait(&self.st);
        let s = ring.add(self.st.index() as usize * TILE + self.col);
        let mut v = 0.0;
        for r in 0..8 {
            v += *s.add(r * 32);
        }
        pipe.consumer_release(&self.st);
        self.st.advance();
        v
    }
}

/// Broken: `Eater::eat` takes `self` by value (the struct is `Copy`), so the caller's state never
/// advances: every tile waits on stage 0 and the producer hangs on stage 1's second fill.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_struct_bad_copy_self(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut p = Producer::new(&pipe, window + 1024);
        let mut t = b;
        while t < tiles {
            p.push(input.add(t as usize * TILE));
            t += g;
        }
        p.finish();
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256);
        let me = Eater { st: PipelineState::new(), col: tid as usize };
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            acc += me.eat(&pipe, ring);
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

struct FloatRing {
    addr: u32,
}

impl FloatRing {
    fn dst(&self, st: &PipelineState<4>) -> u32 {
        // the stage size in floats, not bytes
        self.addr + st.index() * TILE as u32
    }
}

/// Broken: the ring struct's destination scales the stage index by the tile's floats (256)
/// instead of its bytes; the 1 KiB copies overlap each other and the consumers' stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_struct_bad_dst_in_floats(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let ring = FloatRing { addr: window + 1808 };
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 512, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 512);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(ring.dst(&st), input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let base = dynamic_shared_base::<f32>().add(452);
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0;
        let mut t = b;
        while t < tiles {
            pipe.consumer_wait(&st);
            let s = base.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *s.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Broken: the producer test `lane_id() <= 1` in warp 1 picks two threads; both run the whole
/// producer loop on one pipeline (two arrivals on barriers set up for one, every tile copied twice).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_struct_bad_two_producer_lanes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if warp_id() == 1 && lane_id() <= 1 {
        let mut p = Producer::new(&pipe, window + 1024);
        let mut t = b;
        while t < tiles {
            p.push(input.add(t as usize * TILE));
            t += g;
        }
        p.finish();
    } else if warp_id() == 0 {
        let ring = dynamic_shared_base::<f32>().add(256);
        let mut c = Consumer::new(lane_id() as usize);
        let mut t = b;
        while t < tiles {
            c.take(&pipe, ring);
            t += g;
        }
        *out.add((b * 32 + tid) as usize) = c.acc;
    }
}

/// Broken: the consumers build their cursor with `end = tiles - b`, a count mistaken for a bound;
/// blocks 4 to 7 stop one tile early and their producers' tails hang.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_struct_bad_cursor_end_as_count(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 7168, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 7168);
    let b = block_idx_x();
    if tid == 32 {
        let mut cur = TileCursor::of_block(tiles);
        let mut st = PipelineState::<4>::producer_start();
        while let Some(t) = cur.next() {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(window + 3072 + st.index() * TILE_BYTES, input.add(t as usize * TILE) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
        }
        pipe.producer_tail(st);
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(768);
        let mut cur = TileCursor { next: b, step: grid_dim_x(), end: tiles - b };
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0;
        while let Some(_t) = cur.next() {
            pipe.consumer_wait(&st);
            let s = ring.add(st.index() as usize * TILE);
            for r in 0..8 {
                acc += *s.add(r * 32 + tid as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}

/// Broken: the state machine's release arm forgets to advance the state; the consumer waits on
/// stage 0 again (its phase already complete) and releases it again, never stage 1.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r27_struct_bad_machine_no_advance(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    let tid = thread_idx_x();
    if tid == 0 {
        Pipeline::<4>::init(window + 6144, 32);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window + 6144);
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut p = Producer::new(&pipe, window + 1024);
        let mut t = b;
        while t < tiles {
            p.push(input.add(t as usize * TILE));
            t += g;
        }
        p.finish();
    } else if tid < 32 {
        let ring = dynamic_shared_base::<f32>().add(256);
        let st = PipelineState::<4>::new();
        let mut acc = 0.0;
        let mut step = Step::Wait;
        let mut t = b;
        while t < tiles {
            match step {
                Step::Wait => {
                    pipe.consumer_wait(&st);
                    step = Step::Read;
                }
                Step::Read => {
                    let s = ring.add(st.index() as usize * TILE);
                    for r in 0..8 {
                        acc += *s.add(r * 32 + tid as usize);
                    }
                    step = Step::Release;
                }
                Step::Release => {
                    pipe.consumer_release(&st);
                    t += g;
                    step = Step::Wait;
                }
            }
        }
        *out.add((b * 32 + tid) as usize) = acc;
    }
}
