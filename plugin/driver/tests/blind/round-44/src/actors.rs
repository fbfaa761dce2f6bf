//! Blind round 44, style `actors`: kernels written as message-passing actors.
//!
//! Every thread runs one actor, chosen by a scheduler that dispatches on the thread's `Role`.
//! An actor owns its state and reacts to `Msg`s: `handle(&mut self, msg) -> Option<Msg>` returns
//! the message it sends itself next (through its `Mailbox`), `None` when it is done. The
//! producer actor copies tiles into the ring (`Start → Fill → Start … → Drain → Stop`); a
//! consumer actor reduces one column (`Start → Wait → Sum → Release → Start … → Store`). In the
//! plain-memory kernels the actors exchange partial sums through mailbox slots in shared memory,
//! and the scheduler separates the rounds of messages with block barriers.
//!
//! Launch of every kernel: 64 threads, 8 blocks, 8 KiB of dynamic shared memory.

use crate::device;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLS: u32 = 32;
const ROWS: u32 = 8;
/// Consumer actors per pipeline: the arrivals its *empty* barriers count.
const CONSUMERS: u32 = 32;

#[derive(Clone, Copy)]
enum Msg {
    Start,
    Fill { tile: u32 },
    Copy { tile: u32 },
    Drain,
    Wait,
    Sum,
    Release,
    Store,
    Stop,
}

/// An actor's mailbox: the one message it has sent itself and not yet handled.
struct Mailbox {
    slot: Option<Msg>,
}

impl Mailbox {
    #[inline(always)]
    fn with(first: Msg) -> Self {
        Mailbox { slot: Some(first) }
    }

    #[inline(always)]
    fn post(&mut self, msg: Msg) {
        self.slot = Some(msg);
    }

    #[inline(always)]
    fn take(&mut self) -> Option<Msg> {
        self.slot.take()
    }
}

trait Actor {
    unsafe fn handle(&mut self, msg: Msg) -> Option<Msg>;
}

/// Runs an actor until it stops sending itself messages.
#[inline(always)]
unsafe fn run<A: Actor>(actor: &mut A, first: Msg) {
    let mut mailbox = Mailbox::with(first);
    while let Some(msg) = mailbox.take() {
        if let Some(reply) = actor.handle(msg) {
            mailbox.post(reply);
        }
    }
}

#[derive(Clone, Copy)]
enum Role {
    Producer,
    Consumer { col: u32 },
    Idle,
}

/// Thread 0 produces, threads 32..63 consume one column each.
#[inline(always)]
fn role_of(tid: u32) -> Role {
    match tid {
        0 => Role::Producer,
        32..=63 => Role::Consumer { col: tid - 32 },
        _ => Role::Idle,
    }
}

/// Tiles of this block: `t = blockIdx, blockIdx + gridDim, …` below `tiles`.
#[inline(always)]
fn owned_tiles(tiles: u32) -> u32 {
    let b = device::block_idx_x();
    let g = device::grid_dim_x();
    if b < tiles { (tiles - b + g - 1).checked_div(g).unwrap_or(0) } else { 0 }
}

struct Producer<'p, const N: u32> {
    pipe: &'p Pipeline<N>,
    st: PipelineState<N>,
    ring: u32,
    input: *const f32,
    next: u32,
    stride: u32,
    tiles: u32,
}

impl<'p, const N: u32> Producer<'p, N> {
    #[inline(always)]
    fn spawn(pipe: &'p Pipeline<N>, st: PipelineState<N>, ring: u32, input: *const f32, tiles: u32) -> Self {
        Producer { pipe, st, ring, input, next: device::block_idx_x(), stride: device::grid_dim_x(), tiles }
    }
}

impl<'p, const N: u32> Actor for Producer<'p, N> {
    #[inline(always)]
    unsafe fn handle(&mut self, msg: Msg) -> Option<Msg> {
        match msg {
            Msg::Start => Some(if self.next < self.tiles { Msg::Fill { tile: self.next } } else { Msg::Drain }),
            Msg::Fill { tile } => {
                self.pipe.producer_acquire(&self.st);
                self.pipe.producer_expect_tx(&self.st, TILE_BYTES);
                bulk_copy_global_to_shared(
                    self.ring + self.st.index() * TILE_BYTES,
                    self.input.add(tile as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    self.pipe.producer_barrier(&self.st),
                );
                self.st.advance();
                self.next = tile + self.stride;
                Some(Msg::Start)
            }
            Msg::Drain => {
                self.pipe.producer_tail(self.st);
                Some(Msg::Stop)
            }
            _ => None,
        }
    }
}

struct Consumer<'p, const N: u32> {
    pipe: &'p Pipeline<N>,
    st: PipelineState<N>,
    ring: *const f32,
    col: u32,
    acc: f32,
    t: u32,
    stride: u32,
    tiles: u32,
    out: *mut f32,
}

impl<'p, const N: u32> Consumer<'p, N> {
    #[inline(always)]
    fn spawn(pipe: &'p Pipeline<N>, st: PipelineState<N>, ring: *const f32, col: u32, tiles: u32, out: *mut f32) -> Self {
        Consumer { pipe, st, ring, col, acc: 0.0, t: device::block_idx_x(), stride: device::grid_dim_x(), tiles, out }
    }
}

/// Column `col` of the stage at `stage`.
#[inline(always)]
unsafe fn column(stage: *const f32, col: u32) -> f32 {
    let mut sum = 0.0f32;
    for r in 0..ROWS {
        sum += *stage.add((r * COLS + col) as usize);
    }
    sum
}

impl<'p, const N: u32> Actor for Consumer<'p, N> {
    #[inline(always)]
    unsafe fn handle(&mut self, msg: Msg) -> Option<Msg> {
        match msg {
            Msg::Start => Some(if self.t < self.tiles { Msg::Wait } else { Msg::Store }),
            Msg::Wait => {
                self.pipe.consumer_wait(&self.st);
                Some(Msg::Sum)
            }
            Msg::Sum => {
                let stage = self.ring.add(self.st.index() as usize * TILE_FLOATS);
                self.acc += column(stage, self.col);
                Some(Msg::Release)
            }
            Msg::Release => {
                self.pipe.consumer_release(&self.st);
                self.st.advance();
                self.t += self.stride;
                Some(Msg::Start)
            }
            Msg::Store => {
                *self.out.add((device::block_idx_x() * COLS + self.col) as usize) = self.acc;
                None
            }
            _ => None,
        }
    }
}

/// What every actor of a pipeline kernel is spawned with.
#[derive(Clone, Copy)]
struct System<'p, const N: u32> {
    pipe: &'p Pipeline<N>,
    ring: u32,
    ring_ptr: *const f32,
    input: *const f32,
    tiles: u32,
    out: *mut f32,
}

/// The scheduler: spawns this thread's actor by its role and runs it.
#[inline(always)]
unsafe fn schedule<const N: u32>(sys: System<'_, N>, role: Role) {
    match role {
        Role::Producer => {
            let mut actor = Producer::spawn(sys.pipe, PipelineState::producer_start(), sys.ring, sys.input, sys.tiles);
            run(&mut actor, Msg::Start);
        }
        Role::Consumer { col } => {
            let mut actor = Consumer::spawn(sys.pipe, PipelineState::new(), sys.ring_ptr, col, sys.tiles, sys.out);
            run(&mut actor, Msg::Start);
        }
        Role::Idle => {}
    }
}

/// Boots the actor system: the producer's thread sets the barriers up, then the block syncs.
#[inline(always)]
fn boot<const N: u32>(bars: u32, role: Role) -> Pipeline<N> {
    block_threads(64);
    dynamic_shared_bytes(8192);
    if let Role::Producer = role {
        Pipeline::<N>::init(bars, CONSUMERS);
    }
    device::barrier();
    Pipeline::<N>::attach(bars)
}

#[inline(always)]
fn shared_ptr(byte_offset: u32) -> *mut f32 {
    device::dynamic_shared_base::<f32>().wrapping_add((byte_offset / 4) as usize)
}

const RING4: u32 = 4;

/// Four-stage ring (barriers at byte 0, ring from byte 1024); thread 0's producer actor, threads
/// 32..63's consumer actors.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_actors_mailbox_ring(input: *const f32, tiles: u32, out: *mut f32) {
    let window = device::dynamic_shared_window_address();
    let role = role_of(device::thread_idx_x());
    let pipe = boot::<RING4>(window, role);
    let sys = System { pipe: &pipe, ring: window + 1024, ring_ptr: shared_ptr(1024), input, tiles, out };
    schedule(sys, role);
}

/// Thread 32 produces; the consumers are the first half of warp 0 and the second half of warp
/// 1 (threads 0..15 take columns 0..15, threads 48..63 columns 16..31). Two stages.
#[inline(always)]
fn role_half_warps(tid: u32) -> Role {
    match tid {
        32 => Role::Producer,
        0..=15 => Role::Consumer { col: tid },
        48..=63 => Role::Consumer { col: tid - 32 },
        _ => Role::Idle,
    }
}

const RING2: u32 = 2;

/// Two stages; the producer is thread 32 and the consumers two half-warps (`role_half_warps`).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_actors_half_warps(input: *const f32, tiles: u32, out: *mut f32) {
    let window = device::dynamic_shared_window_address();
    let role = role_half_warps(device::thread_idx_x());
    let pipe = boot::<RING2>(window, role);
    let sys = System { pipe: &pipe, ring: window + 1024, ring_ptr: shared_ptr(1024), input, tiles, out };
    schedule(sys, role);
}

const RING3: u32 = 3;

/// Three stages at the start of shared memory, the barriers after them (byte 3072).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_actors_three_stage_ring(input: *const f32, tiles: u32, out: *mut f32) {
    let window = device::dynamic_shared_window_address();
    let role = role_of(device::thread_idx_x());
    let pipe = boot::<RING3>(window + RING3 * TILE_BYTES, role);
    let sys = System { pipe: &pipe, ring: window, ring_ptr: shared_ptr(0), input, tiles, out };
    schedule(sys, role);
}

/// Plain-memory work messages: stage a tile, reduce half a column into a mailbox slot,
/// collect the two halves of a column.
#[derive(Clone, Copy)]
enum Work {
    Post { tile: u32 },
    Reduce,
    Collect,
}

const ACTORS: u32 = 64;
const HALVES: u32 = 2;

/// A worker actor of the plain kernels: actor `id` reduces column `id % 32`, rows of half
/// `id / 32`, and posts the partial sum to the column's collector (actor `id % 32`).
struct Worker {
    id: u32,
    tile: *mut f32,
    mail: *mut f32,
    input: *const f32,
    acc: f32,
}

impl Worker {
    /// The mailbox slot that actor `from` posts to for collector `to`: one slot per half.
    #[inline(always)]
    fn slot(to: u32, from: u32) -> usize {
        ((from / (ACTORS / HALVES)) * COLS + to) as usize
    }

    #[inline(always)]
    unsafe fn handle(&mut self, msg: Work) -> Option<Work> {
        match msg {
            Work::Post { tile } => {
                let src = self.input.add(tile as usize * TILE_FLOATS);
                let mut i = self.id as usize;
                while i < TILE_FLOATS {
                    *self.tile.add(i) = *src.add(i);
                    i += ACTORS as usize;
                }
                Some(Work::Reduce)
            }
            Work::Reduce => {
                let col = self.id % COLS;
                let half = self.id / COLS;
                let rows = ROWS / HALVES;
                let mut partial = 0.0f32;
                for r in 0..rows {
                    partial += *self.tile.add(((half * rows + r) * COLS + col) as usize);
                }
                *self.mail.add(Worker::slot(col, self.id)) = partial;
                Some(Work::Collect)
            }
            Work::Collect => {
                if self.id < COLS {
                    self.acc += *self.mail.add(self.id as usize) + *self.mail.add((COLS + self.id) as usize);
                }
                None
            }
        }
    }
}

/// Plain shared memory: 64 worker actors; the tile at byte 0, the mailbox slots at byte 1024.
/// The scheduler delivers `Post`, `Reduce` and `Collect` to every actor in turn, a block barrier
/// after each round.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_actors_plain_mailbox(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(ACTORS);
    dynamic_shared_bytes(8192);
    let mut worker = Worker { id: device::thread_idx_x(), tile: shared_ptr(0), mail: shared_ptr(1024), input, acc: 0.0 };
    let mut t = device::block_idx_x();
    while t < tiles {
        let mut msg = Some(Work::Post { tile: t });
        while let Some(m) = msg {
            msg = worker.handle(m);
            device::barrier();
        }
        t += device::grid_dim_x();
    }
    if worker.id < COLS {
        *out.add((device::block_idx_x() * COLS + worker.id) as usize) = worker.acc;
    }
}

/// A producer actor that splits a fill into `Fill` (acquire, announce) and `Copy` (copy,
/// advance) and decides at `Fill` whether to drain after it.
struct SplitProducer<'p, const N: u32> {
    pipe: &'p Pipeline<N>,
    st: PipelineState<N>,
    ring: u32,
    input: *const f32,
    next: u32,
    stride: u32,
    tiles: u32,
}

impl<'p, const N: u32> Actor for SplitProducer<'p, N> {
    #[inline(always)]
    unsafe fn handle(&mut self, msg: Msg) -> Option<Msg> {
        match msg {
            Msg::Start => Some(if self.next < self.tiles { Msg::Fill { tile: self.next } } else { Msg::Drain }),
            Msg::Fill { tile } => {
                self.pipe.producer_acquire(&self.st);
                self.pipe.producer_expect_tx(&self.st, TILE_BYTES);
                self.next = tile + self.stride;
                Some(if self.next < self.tiles { Msg::Copy { tile } } else { Msg::Drain })
            }
            Msg::Copy { tile } => {
                bulk_copy_global_to_shared(
                    self.ring + self.st.index() * TILE_BYTES,
                    self.input.add(tile as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    self.pipe.producer_barrier(&self.st),
                );
                self.st.advance();
                Some(Msg::Start)
            }
            Msg::Drain => {
                self.pipe.producer_tail(self.st);
                Some(Msg::Stop)
            }
            _ => None,
        }
    }
}

/// BROKEN.
/// Four-stage ring whose producer actor is a `SplitProducer`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_actors_bad_skip_last_copy(input: *const f32, tiles: u32, out: *mut f32) {
    let window = device::dynamic_shared_window_address();
    let role = role_of(device::thread_idx_x());
    let pipe = boot::<RING4>(window, role);
    match role {
        Role::Producer => {
            let mut actor = SplitProducer {
                pipe: &pipe,
                st: PipelineState::producer_start(),
                ring: window + 1024,
                input,
                next: device::block_idx_x(),
                stride: device::grid_dim_x(),
                tiles,
            };
            run(&mut actor, Msg::Start);
        }
        Role::Consumer { col } => {
            let mut actor = Consumer::spawn(&pipe, PipelineState::new(), shared_ptr(1024), col, tiles, out);
            run(&mut actor, Msg::Start);
        }
        Role::Idle => {}
    }
}

/// A consumer actor that counts the tiles it has been handed against the block's tile count.
struct CountingConsumer<'p, const N: u32> {
    pipe: &'p Pipeline<N>,
    st: PipelineState<N>,
    ring: *const f32,
    col: u32,
    acc: f32,
    seen: u32,
    mine: u32,
    out: *mut f32,
}

impl<'p, const N: u32> Actor for CountingConsumer<'p, N> {
    #[inline(always)]
    unsafe fn handle(&mut self, msg: Msg) -> Option<Msg> {
        match msg {
            Msg::Start => {
                self.seen += 1;
                Some(if self.seen < self.mine { Msg::Wait } else { Msg::Store })
            }
            Msg::Wait => {
                self.pipe.consumer_wait(&self.st);
                Some(Msg::Sum)
            }
            Msg::Sum => {
                let stage = self.ring.add(self.st.index() as usize * TILE_FLOATS);
                self.acc += column(stage, self.col);
                Some(Msg::Release)
            }
            Msg::Release => {
                self.pipe.consumer_release(&self.st);
                self.st.advance();
                Some(Msg::Start)
            }
            Msg::Store => {
                *self.out.add((device::block_idx_x() * COLS + self.col) as usize) = self.acc;
                None
            }
            _ => None,
        }
    }
}

/// BROKEN.
/// Four-stage ring whose consumer actors count their tiles (`CountingConsumer`).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_actors_bad_off_by_one_stop(input: *const f32, tiles: u32, out: *mut f32) {
    let window = device::dynamic_shared_window_address();
    let role = role_of(device::thread_idx_x());
    let pipe = boot::<RING4>(window, role);
    match role {
        Role::Producer => {
            let mut actor = Producer::spawn(&pipe, PipelineState::producer_start(), window + 1024, input, tiles);
            run(&mut actor, Msg::Start);
        }
        Role::Consumer { col } => {
            let mut actor = CountingConsumer {
                pipe: &pipe,
                st: PipelineState::new(),
                ring: shared_ptr(1024),
                col,
                acc: 0.0,
                seen: 0,
                mine: owned_tiles(tiles),
                out,
            };
            run(&mut actor, Msg::Start);
        }
        Role::Idle => {}
    }
}

/// BROKEN.
/// Four-stage ring with the scheduler written out in the kernel.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_actors_bad_cloned_spawn(input: *const f32, tiles: u32, out: *mut f32) {
    let window = device::dynamic_shared_window_address();
    let role = role_of(device::thread_idx_x());
    let pipe = boot::<RING4>(window, role);
    let start = PipelineState::<RING4>::producer_start();
    match role {
        Role::Producer => {
            let mut actor = Producer::spawn(&pipe, start, window + 1024, input, tiles);
            run(&mut actor, Msg::Start);
        }
        Role::Consumer { col } => {
            let mut actor = Consumer::spawn(&pipe, start, shared_ptr(1024), col, tiles, out);
            run(&mut actor, Msg::Start);
        }
        Role::Idle => {}
    }
}

/// The mailbox slot that actor `from` posts to for collector `to`: one slot per half.
#[inline(always)]
fn mailbox_slot(to: u32, from: u32) -> usize {
    ((from / ACTORS) * COLS + to) as usize
}

/// BROKEN.
/// Plain shared memory: 64 worker actors, each round's message handled inline in the
/// scheduler's loop.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_actors_bad_shared_slot(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(ACTORS);
    dynamic_shared_bytes(8192);
    let id = device::thread_idx_x();
    let tile = shared_ptr(0);
    let mail = shared_ptr(1024);
    let mut acc = 0.0f32;
    let mut t = device::block_idx_x();
    while t < tiles {
        let mut msg = Some(Work::Post { tile: t });
        while let Some(m) = msg {
            msg = match m {
                Work::Post { tile: k } => {
                    let src = input.add(k as usize * TILE_FLOATS);
                    let mut i = id as usize;
                    while i < TILE_FLOATS {
                        *tile.add(i) = *src.add(i);
                        i += ACTORS as usize;
                    }
                    Some(Work::Reduce)
                }
                Work::Reduce => {
                    let col = id % COLS;
                    let half = id / COLS;
                    let rows = ROWS / HALVES;
                    let mut partial = 0.0f32;
                    for r in 0..rows {
                        partial += *tile.add(((half * rows + r) * COLS + col) as usize);
                    }
                    *mail.add(mailbox_slot(col, id)) = partial;
                    Some(Work::Collect)
                }
                Work::Collect => {
                    if id < COLS {
                        acc += *mail.add(id as usize) + *mail.add((COLS + id) as usize);
                    }
                    None
                }
            };
            device::barrier();
        }
        t += device::grid_dim_x();
    }
    if id < COLS {
        *out.add((device::block_idx_x() * COLS + id) as usize) = acc;
    }
}
