//! Module `golang`: the kernels written the way a Go programmer thinks about them. The ring of
//! stages is a buffered channel (`make(chan Tile, 2)`): a `Chan` with `send`, `recv`, `done`
//! (the receiver's ack) and `close`; the producer thread is the sending goroutine and the
//! consumer lanes the receiving goroutines (`go_sender`, `go_receiver`), each with its own
//! cursor; plain kernels meet at a `WaitGroup`. Errors and cleanup are explicit at the end of
//! each goroutine, as a `defer ch.close()` would put them.

use crate::device;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};

/// Channel capacity: stages in each ring.
const CAP: u32 = 2;
const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: u32 = 8;
const COLS: u32 = 32;
const THREADS: u32 = 64;
const SHARED_BYTES: u32 = 8192;
const RECEIVERS: u32 = 32;
const SENDER: u32 = 32;
/// Channel A: barriers at byte 0, slots at 1 KiB. Channel B: barriers at 64, slots at 4 KiB.
const CHAN_A_BARRIERS: u32 = 0;
const CHAN_A_SLOTS: u32 = 1024;
const CHAN_B_BARRIERS: u32 = 64;
const CHAN_B_SLOTS: u32 = 4096;

/// The goroutine's view of the launch, like the values a Go `main` reads from its flags.
#[derive(Clone, Copy)]
struct Env {
    input: *const f32,
    out: *mut f32,
    tiles: u32,
    id: u32,
    block: u32,
    blocks: u32,
}

#[inline(always)]
fn env(input: *const f32, tiles: u32, out: *mut f32) -> Env {
    Env {
        input,
        out,
        tiles,
        id: device::thread_idx_x(),
        block: device::block_idx_x(),
        blocks: device::grid_dim_x(),
    }
}

/// A buffered channel of tiles: `CAP` slots in shared memory and the barriers that guard them.
#[derive(Clone, Copy)]
struct Chan {
    pipe: Pipeline<CAP>,
    slots: u32,
    mem: *mut f32,
}

/// `make(chan Tile, CAP)`: thread 0 initialises the barriers, the caller syncs.
#[inline(always)]
fn make_chan(e: &Env, barriers: u32, slots: u32) -> Chan {
    let window = device::dynamic_shared_window_address();
    if e.id == 0 {
        Pipeline::<CAP>::init(window + barriers, RECEIVERS);
    }
    Chan {
        pipe: Pipeline::<CAP>::attach(window + barriers),
        slots: window + slots,
        mem: device::dynamic_shared_base::<f32>().wrapping_add((slots / 4) as usize),
    }
}

impl Chan {
    /// `ch <- tile`: blocks while the channel is full.
    #[inline(always)]
    fn send(&self, cur: &mut PipelineState<CAP>, tile: *const f32) {
        self.pipe.producer_acquire(cur);
        self.pipe.producer_expect_tx(cur, TILE_BYTES);
        bulk_copy_global_to_shared(
            self.slots + cur.index() * TILE_BYTES,
            tile as *const u8,
            TILE_BYTES,
            self.pipe.producer_barrier(cur),
        );
        cur.advance();
    }

    /// `tile := <-ch`: blocks until a tile is there; the slot stays the receiver's until `done`.
    #[inline(always)]
    fn recv(&self, cur: &PipelineState<CAP>) -> *const f32 {
        self.pipe.consumer_wait(cur);
        self.mem.wrapping_add((cur.index() * TILE_FLOATS) as usize)
    }

    /// The receiver is done with the slot it got from `recv`.
    #[inline(always)]
    fn done(&self, cur: &mut PipelineState<CAP>) {
        self.pipe.consumer_release(cur);
        cur.advance();
    }

    /// `close(ch)`: waits until every slot sent has been received and acknowledged.
    #[inline(always)]
    fn close(&self, cur: PipelineState<CAP>) {
        self.pipe.producer_tail(cur);
    }
}

/// A receiver's column of one tile.
#[inline(always)]
unsafe fn column_sum(tile: *const f32, col: u32) -> f32 {
    let mut sum = 0.0;
    for row in 0..ROWS {
        sum += *tile.add((row * COLS + col) as usize);
    }
    sum
}

#[inline(always)]
fn tile_ptr(e: &Env, t: u32) -> *const f32 {
    e.input.wrapping_add((t * TILE_FLOATS) as usize)
}

#[inline(always)]
unsafe fn report(e: &Env, sum: f32) {
    *e.out.add((e.block * COLS + e.id % COLS) as usize) = sum;
}

/// `for t := block; t < tiles; t += blocks { ch <- tile(t) }; close(ch)`.
#[inline(always)]
fn go_sender(e: &Env, ch: &Chan) {
    let mut cur = PipelineState::<CAP>::producer_start();
    let mut t = e.block;
    while t < e.tiles {
        ch.send(&mut cur, tile_ptr(e, t));
        t += e.blocks;
    }
    ch.close(cur);
}

/// The receiving side of the same loop.
#[inline(always)]
unsafe fn go_receiver(e: &Env, ch: &Chan) -> f32 {
    let mut cur = PipelineState::<CAP>::new();
    let mut sum = 0.0;
    let mut t = e.block;
    while t < e.tiles {
        let tile = ch.recv(&cur);
        sum += column_sum(tile, e.id);
        ch.done(&mut cur);
        t += e.blocks;
    }
    sum
}

/// One sender goroutine (thread 32), 32 receiver goroutines (warp 0) on a channel of two.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_golang_buffered_channel(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let e = env(input, tiles, out);
    let ch = make_chan(&e, CHAN_A_BARRIERS, CHAN_A_SLOTS);
    device::barrier();
    if e.id == SENDER {
        go_sender(&e, &ch);
    } else if e.id < RECEIVERS {
        let sum = go_receiver(&e, &ch);
        report(&e, sum);
    }
}

/// Both goroutines range over every tile and `continue` past the ones another block owns
/// (`if t % blocks != block { continue }`), the residue filter of MODEL.md's `tile-count`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_golang_range_skip_foreign(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let e = env(input, tiles, out);
    let ch = make_chan(&e, CHAN_A_BARRIERS, CHAN_A_SLOTS);
    device::barrier();
    if e.id == SENDER {
        let mut cur = PipelineState::<CAP>::producer_start();
        for t in 0..e.tiles {
            if t % e.blocks != e.block {
                continue;
            }
            ch.send(&mut cur, tile_ptr(&e, t));
        }
        ch.close(cur);
    } else if e.id < RECEIVERS {
        let mut cur = PipelineState::<CAP>::new();
        let mut sum = 0.0;
        for t in 0..e.tiles {
            if t % e.blocks != e.block {
                continue;
            }
            let tile = ch.recv(&cur);
            sum += column_sum(tile, e.id);
            ch.done(&mut cur);
        }
        report(&e, sum);
    }
}

/// Fan-in over two channels: the sender alternates, tile `t` on channel A and tile `t + g` on
/// channel B (when there is one), and the receivers take them in the same order, as a
/// `select` that always finds the channel it expects ready.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_golang_fan_in_two_chans(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let e = env(input, tiles, out);
    let a = make_chan(&e, CHAN_A_BARRIERS, CHAN_A_SLOTS);
    let b = make_chan(&e, CHAN_B_BARRIERS, CHAN_B_SLOTS);
    device::barrier();
    if e.id == SENDER {
        let mut ca = PipelineState::<CAP>::producer_start();
        let mut cb = PipelineState::<CAP>::producer_start();
        let mut t = e.block;
        while t < e.tiles {
            a.send(&mut ca, tile_ptr(&e, t));
            if t + e.blocks < e.tiles {
                b.send(&mut cb, tile_ptr(&e, t + e.blocks));
            }
            t += 2 * e.blocks;
        }
        a.close(ca);
        b.close(cb);
    } else if e.id < RECEIVERS {
        let mut ca = PipelineState::<CAP>::new();
        let mut cb = PipelineState::<CAP>::new();
        let mut sum = 0.0;
        let mut t = e.block;
        while t < e.tiles {
            let tile = a.recv(&ca);
            sum += column_sum(tile, e.id);
            a.done(&mut ca);
            if t + e.blocks < e.tiles {
                let tile = b.recv(&cb);
                sum += column_sum(tile, e.id);
                b.done(&mut cb);
            }
            t += 2 * e.blocks;
        }
        report(&e, sum);
    }
}

/// A `sync.WaitGroup` for the block: `wait` returns when every goroutine of the block is there.
struct WaitGroup;

impl WaitGroup {
    #[inline(always)]
    fn wait(&self) {
        device::barrier();
    }
}

/// No channel: every goroutine copies its stripe of the tile into shared memory, `wg.wait()`,
/// the receivers sum their column, `wg.wait()` before the next tile's copies.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_golang_waitgroup_stripes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let e = env(input, tiles, out);
    let wg = WaitGroup;
    let buf = device::dynamic_shared_base::<f32>();
    let mut sum = 0.0;
    let mut t = e.block;
    while t < e.tiles {
        let src = tile_ptr(&e, t);
        for k in 0..TILE_FLOATS / THREADS {
            let i = e.id + k * THREADS;
            *buf.add(i as usize) = *src.add(i as usize);
        }
        wg.wait();
        if e.id < RECEIVERS {
            sum += column_sum(buf, e.id);
        }
        wg.wait();
        t += e.blocks;
    }
    if e.id < RECEIVERS {
        report(&e, sum);
    }
}

/// BROKEN: in the fan-in the receivers acknowledge channel B's slot on channel A
/// (`a.done(&mut cb)`, a copy-paste of the line above): channel A's slots get acks for
/// tiles they never held, channel B's are never acknowledged, and the sender blocks forever
/// on its third send to B.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_golang_bad_ack_on_other_chan(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let e = env(input, tiles, out);
    let a = make_chan(&e, CHAN_A_BARRIERS, CHAN_A_SLOTS);
    let b = make_chan(&e, CHAN_B_BARRIERS, CHAN_B_SLOTS);
    device::barrier();
    if e.id == SENDER {
        let mut ca = PipelineState::<CAP>::producer_start();
        let mut cb = PipelineState::<CAP>::producer_start();
        let mut t = e.block;
        while t < e.tiles {
            a.send(&mut ca, tile_ptr(&e, t));
            if t + e.blocks < e.tiles {
                b.send(&mut cb, tile_ptr(&e, t + e.blocks));
            }
            t += 2 * e.blocks;
        }
        a.close(ca);
        b.close(cb);
    } else if e.id < RECEIVERS {
        let mut ca = PipelineState::<CAP>::new();
        let mut cb = PipelineState::<CAP>::new();
        let mut sum = 0.0;
        let mut t = e.block;
        while t < e.tiles {
            let tile = a.recv(&ca);
            sum += column_sum(tile, e.id);
            a.done(&mut ca);
            if t + e.blocks < e.tiles {
                let tile = b.recv(&cb);
                sum += column_sum(tile, e.id);
                a.done(&mut cb);
            }
            t += 2 * e.blocks;
        }
        report(&e, sum);
    }
}

/// BROKEN: "one goroutine per lane": every lane of warp 1 runs `go_sender`, 32 senders on
/// one channel whose *full* barriers expect one arrival each; every tile is announced and
/// copied 32 times into the same slot.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_golang_bad_sender_per_lane(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let e = env(input, tiles, out);
    let ch = make_chan(&e, CHAN_A_BARRIERS, CHAN_A_SLOTS);
    device::barrier();
    if e.id >= SENDER {
        go_sender(&e, &ch);
    } else {
        let sum = go_receiver(&e, &ch);
        report(&e, sum);
    }
}

/// BROKEN: the receiver's cursor was copied from the sender's (`producer_start()`): it
/// starts on the phase a fresh barrier has already "completed", so its first `recv`s return
/// at once, before any tile landed, and from then on it reads every slot one phase early.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_golang_bad_receiver_cursor(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let e = env(input, tiles, out);
    let ch = make_chan(&e, CHAN_A_BARRIERS, CHAN_A_SLOTS);
    device::barrier();
    if e.id == SENDER {
        go_sender(&e, &ch);
    } else if e.id < RECEIVERS {
        let mut cur = PipelineState::<CAP>::producer_start();
        let mut sum = 0.0;
        let mut t = e.block;
        while t < e.tiles {
            let tile = ch.recv(&cur);
            sum += column_sum(tile, e.id);
            ch.done(&mut cur);
            t += e.blocks;
        }
        report(&e, sum);
    }
}

/// BROKEN: the receivers count their tiles as `(tiles - block) / blocks` (Go's integer
/// division truncates; the ceiling was meant): with 64 tiles on 8 blocks, blocks 1 to 7
/// receive 7 of their 8 tiles, the last slot is never acknowledged and `close` blocks forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_golang_bad_truncated_share(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let e = env(input, tiles, out);
    let ch = make_chan(&e, CHAN_A_BARRIERS, CHAN_A_SLOTS);
    device::barrier();
    if e.id == SENDER {
        go_sender(&e, &ch);
    } else if e.id < RECEIVERS {
        let share = if e.block < e.tiles { (e.tiles - e.block) / e.blocks } else { 0 };
        let mut cur = PipelineState::<CAP>::new();
        let mut sum = 0.0;
        for _ in 0..share {
            let tile = ch.recv(&cur);
            sum += column_sum(tile, e.id);
            ch.done(&mut cur);
        }
        report(&e, sum);
    }
}
