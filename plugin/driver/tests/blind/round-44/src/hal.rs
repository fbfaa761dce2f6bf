//! Blind round 44, style `hal`: kernels written like embedded-HAL drivers.
//!
//! `Peripherals::take()` hands out the block's resources once per thread: the `DMA` controller
//! (the bulk-copy engine and its mbarriers), the `SRAM` (dynamic shared memory) and the `PINS`
//! (the thread's index, with pin masks selecting roles). A DMA channel is configured, then
//! `split()` into a `Tx` half (the producer) and an `Rx` half (the consumers). Stages are
//! typestates: `Stage<Free>` → `Tx::start` → `Stage<Busy>` → `Tx::commit` → `Stage<Free>` for the
//! producer, `Stage<Pending>` → `Rx::wait` → `Stage<Full>` → `Rx::release` → `Stage<Pending>` for
//! a consumer. Memory is reached through register blocks with `read()`, `write()` and
//! `modify()`.
//!
//! Launch of every kernel: 64 threads, 8 blocks, 8 KiB of dynamic shared memory.

#![allow(non_snake_case)]

use core::marker::PhantomData;
use core::ptr::{read_volatile, write_volatile};

use crate::device;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const COLS: usize = 32;
const ROWS: usize = 8;

/// Pins `lo..hi`: bit `t` of a pin mask stands for thread `t` of the block.
const fn pin_range(lo: u32, hi: u32) -> u64 {
    (!0u64 >> (64 - (hi - lo))) << lo
}

/// The DMA request line: thread 0.
const TX_PINS: u64 = pin_range(0, 1);
/// The receivers: threads 32 to 63.
const RX_PINS: u64 = pin_range(32, 64);
/// Receivers wired to a channel: the arrivals its *empty* barriers count.
const RX_COUNT: u32 = 32;

/// A memory-mapped register.
#[derive(Clone, Copy)]
pub struct Reg<T> {
    addr: *mut T,
}

impl<T: Copy> Reg<T> {
    #[inline(always)]
    pub unsafe fn read(&self) -> T {
        read_volatile(self.addr)
    }

    #[inline(always)]
    pub unsafe fn write(&self, value: T) {
        write_volatile(self.addr, value);
    }

    #[inline(always)]
    pub unsafe fn modify(&self, f: impl FnOnce(T) -> T) {
        self.write(f(self.read()));
    }
}

/// Consecutive registers of one width.
#[derive(Clone, Copy)]
pub struct RegisterBlock<T> {
    base: *mut T,
}

impl<T: Copy> RegisterBlock<T> {
    #[inline(always)]
    pub fn at(base: *mut T) -> Self {
        RegisterBlock { base }
    }

    #[inline(always)]
    pub fn reg(&self, i: usize) -> Reg<T> {
        Reg { addr: self.base.wrapping_add(i) }
    }
}

impl RegisterBlock<f32> {
    /// Column `c` of a tile mapped as 256 registers.
    #[inline(always)]
    pub unsafe fn column(&self, c: usize) -> f32 {
        let mut sum = 0.0f32;
        for r in 0..ROWS {
            sum += self.reg(r * COLS + c).read();
        }
        sum
    }
}

/// The peripheral's native 32-bit register file.
#[derive(Clone, Copy)]
pub struct RegisterBlock32 {
    base: *mut u32,
}

impl RegisterBlock32 {
    #[inline(always)]
    pub fn at(base: *mut u32) -> Self {
        RegisterBlock32 { base }
    }

    #[inline(always)]
    pub fn reg(&self, i: usize) -> Reg<u32> {
        Reg { addr: self.base.wrapping_add(i) }
    }

    /// Column `c` of a tile mapped as 256 registers.
    #[inline(always)]
    pub unsafe fn column(&self, c: usize) -> f32 {
        let mut sum = 0.0f32;
        for r in 0..ROWS {
            sum += self.reg(r * COLS + c).read() as f32;
        }
        sum
    }
}

pub struct Peripherals {
    pub DMA: Dma,
    pub SRAM: Sram,
    pub PINS: Pins,
}

pub struct Dma {
    _private: (),
}

#[derive(Clone, Copy)]
pub struct Sram {
    window: u32,
    base: *mut f32,
}

#[derive(Clone, Copy)]
pub struct Pins {
    id: u32,
}

impl Peripherals {
    /// The block's peripherals, as this thread sees them (the launch contract is stated here).
    #[inline(always)]
    pub fn take() -> Peripherals {
        block_threads(64);
        dynamic_shared_bytes(8192);
        Peripherals {
            DMA: Dma { _private: () },
            SRAM: Sram {
                window: device::dynamic_shared_window_address(),
                base: device::dynamic_shared_base::<f32>(),
            },
            PINS: Pins { id: device::thread_idx_x() },
        }
    }
}

impl Pins {
    #[inline(always)]
    pub fn id(&self) -> u32 {
        self.id
    }

    #[inline(always)]
    pub fn is_set(&self, mask: u64) -> bool {
        (mask >> self.id) & 1 != 0
    }
}

impl Sram {
    /// The SRAM word at byte `offset`, as a pointer.
    #[inline(always)]
    pub fn at(&self, offset: u32) -> *mut f32 {
        self.base.wrapping_add((offset / 4) as usize)
    }

    /// Waits until every thread's SRAM accesses before it are done (the block barrier).
    #[inline(always)]
    pub fn sync(&self) {
        device::barrier();
    }
}

/// A configured DMA channel: `N` stages of one tile at `ring`, their barriers at `pipe`.
pub struct Channel<const N: u32> {
    pipe: Pipeline<N>,
    ring: u32,
    ring_ptr: *mut f32,
}

impl Dma {
    /// Configures a channel of `N` stages: its barriers at byte `bars` of the SRAM, its ring at
    /// byte `ring`. The TX pin's thread sets the barriers up.
    #[inline(always)]
    pub fn channel<const N: u32>(&self, sram: &Sram, pins: &Pins, bars: u32, ring: u32) -> Channel<N> {
        let bars = sram.window + bars;
        if pins.is_set(TX_PINS) {
            Pipeline::<N>::init(bars, RX_COUNT);
        }
        Channel { pipe: Pipeline::<N>::attach(bars), ring: sram.window + ring, ring_ptr: sram.at(ring) }
    }

    /// Enables the controller once every channel is configured (the block barrier).
    #[inline(always)]
    pub fn enable(&self) {
        device::barrier();
    }
}

/// Stage typestates.
pub struct Free;
pub struct Busy;
pub struct Pending;
pub struct Full;

pub struct Stage<S, const N: u32> {
    st: PipelineState<N>,
    _s: PhantomData<S>,
}

impl<S, const N: u32> Stage<S, N> {
    #[inline(always)]
    fn retype<T>(self) -> Stage<T, N> {
        Stage { st: self.st, _s: PhantomData }
    }

    #[inline(always)]
    fn advanced<T>(self) -> Stage<T, N> {
        let mut st = self.st;
        st.advance();
        Stage { st, _s: PhantomData }
    }
}

pub struct Tx<'c, const N: u32> {
    ch: &'c Channel<N>,
}

pub struct Rx<'c, const N: u32> {
    ch: &'c Channel<N>,
}

impl<const N: u32> Channel<N> {
    #[inline(always)]
    pub fn split(&self) -> (Tx<'_, N>, Rx<'_, N>) {
        (Tx { ch: self }, Rx { ch: self })
    }
}

impl<'c, const N: u32> Tx<'c, N> {
    #[inline(always)]
    pub fn first(&self) -> Stage<Free, N> {
        Stage { st: PipelineState::producer_start(), _s: PhantomData }
    }

    /// Starts the transfer of the tile at `src` into the stage.
    #[inline(always)]
    pub unsafe fn start(&self, stage: Stage<Free, N>, src: *const f32) -> Stage<Busy, N> {
        let pipe = &self.ch.pipe;
        pipe.producer_acquire(&stage.st);
        pipe.producer_expect_tx(&stage.st, TILE_BYTES);
        bulk_copy_global_to_shared(
            self.ch.ring + stage.st.index() * TILE_BYTES,
            src as *const u8,
            TILE_BYTES,
            pipe.producer_barrier(&stage.st),
        );
        stage.retype()
    }

    #[inline(always)]
    pub fn commit(&self, stage: Stage<Busy, N>) -> Stage<Free, N> {
        stage.advanced()
    }

    /// Waits until the receivers are done with every stage.
    #[inline(always)]
    pub fn finish(&self, stage: Stage<Free, N>) {
        self.ch.pipe.producer_tail(stage.st);
    }
}

impl<'c, const N: u32> Rx<'c, N> {
    #[inline(always)]
    pub fn first(&self) -> Stage<Pending, N> {
        Stage { st: PipelineState::new(), _s: PhantomData }
    }

    #[inline(always)]
    pub fn wait(&self, stage: Stage<Pending, N>) -> Stage<Full, N> {
        self.ch.pipe.consumer_wait(&stage.st);
        stage.retype()
    }

    /// The stage's tile as 256 registers.
    #[inline(always)]
    pub fn regs<S>(&self, stage: &Stage<S, N>) -> RegisterBlock<f32> {
        RegisterBlock::at(self.ch.ring_ptr.wrapping_add(stage.st.index() as usize * TILE_FLOATS))
    }

    /// Hands the stage back to the DMA and moves on to the next one.
    #[inline(always)]
    pub fn release(&self, stage: Stage<Full, N>) -> Stage<Pending, N> {
        self.ch.pipe.consumer_release(&stage.st);
        stage.advanced()
    }

    /// The stage after a full one, to wait on while the full one is still held.
    #[inline(always)]
    pub fn successor(&self, stage: &Stage<Full, N>) -> Stage<Pending, N> {
        let mut st = stage.st;
        st.advance();
        Stage { st, _s: PhantomData }
    }

    /// Hands a held stage back to the DMA.
    #[inline(always)]
    pub fn free(&self, stage: Stage<Full, N>) {
        self.ch.pipe.consumer_release(&stage.st);
    }
}

/// Tiles of this block: `t = blockIdx, blockIdx + gridDim, …` below `tiles`.
#[inline(always)]
fn owned_tiles(tiles: u32) -> u32 {
    let b = device::block_idx_x();
    let g = device::grid_dim_x();
    if b < tiles { (tiles - b + g - 1).checked_div(g).unwrap_or(0) } else { 0 }
}

/// The TX side's loop over the block's tiles.
#[inline(always)]
unsafe fn transmit<const N: u32>(tx: &Tx<'_, N>, input: *const f32, tiles: u32) {
    let mut stage = tx.first();
    let mut t = device::block_idx_x();
    while t < tiles {
        let busy = tx.start(stage, input.add(t as usize * TILE_FLOATS));
        stage = tx.commit(busy);
        t += device::grid_dim_x();
    }
    tx.finish(stage);
}

/// Writes a column sum to the output register of this block.
#[inline(always)]
unsafe fn write_out(out: *mut f32, c: usize, value: f32) {
    RegisterBlock::at(out).reg(device::block_idx_x() as usize * COLS + c).write(value);
}

const DEPTH4: u32 = 4;

/// One channel of four stages (barriers at SRAM byte 0, ring from byte 1024), split into the TX
/// half (thread 0) and the RX half (threads 32..63).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_hal_dma_split(input: *const f32, tiles: u32, out: *mut f32) {
    let dp = Peripherals::take();
    let ch = dp.DMA.channel::<DEPTH4>(&dp.SRAM, &dp.PINS, 0, 1024);
    dp.DMA.enable();
    let (tx, rx) = ch.split();
    if dp.PINS.is_set(TX_PINS) {
        transmit(&tx, input, tiles);
    } else if dp.PINS.is_set(RX_PINS) {
        let c = (dp.PINS.id() - 32) as usize;
        let mut acc = 0.0f32;
        let mut stage = rx.first();
        let mut t = device::block_idx_x();
        while t < tiles {
            let full = rx.wait(stage);
            acc += rx.regs(&full).column(c);
            stage = rx.release(full);
            t += device::grid_dim_x();
        }
        write_out(out, c, acc);
    }
}

const DEPTH3: u32 = 3;

/// Three stages; each receiver holds the stage it has read until the next one is full, then
/// frees it (the previous stage released one tile late).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_hal_hold_previous(input: *const f32, tiles: u32, out: *mut f32) {
    let dp = Peripherals::take();
    let ch = dp.DMA.channel::<DEPTH3>(&dp.SRAM, &dp.PINS, 0, 1024);
    dp.DMA.enable();
    let (tx, rx) = ch.split();
    if dp.PINS.is_set(TX_PINS) {
        transmit(&tx, input, tiles);
    } else if dp.PINS.is_set(RX_PINS) {
        let c = (dp.PINS.id() - 32) as usize;
        let mut acc = 0.0f32;
        let mine = owned_tiles(tiles);
        if mine > 0 {
            let mut held = rx.wait(rx.first());
            acc += rx.regs(&held).column(c);
            for _ in 1..mine {
                let cur = rx.wait(rx.successor(&held));
                acc += rx.regs(&cur).column(c);
                rx.free(held);
                held = cur;
            }
            rx.free(held);
        }
        write_out(out, c, acc);
    }
}

const DEPTH2: u32 = 2;

/// Two channels of two stages (barriers at SRAM bytes 0 and 64, rings at 1024 and 3072); the
/// block's tiles alternate between them, even tiles on channel 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_hal_two_channels(input: *const f32, tiles: u32, out: *mut f32) {
    let dp = Peripherals::take();
    let ch0 = dp.DMA.channel::<DEPTH2>(&dp.SRAM, &dp.PINS, 0, 1024);
    let ch1 = dp.DMA.channel::<DEPTH2>(&dp.SRAM, &dp.PINS, 64, 3072);
    dp.DMA.enable();
    let (tx0, rx0) = ch0.split();
    let (tx1, rx1) = ch1.split();
    if dp.PINS.is_set(TX_PINS) {
        let mut s0 = tx0.first();
        let mut s1 = tx1.first();
        let mut k = 0u32;
        let mut t = device::block_idx_x();
        while t < tiles {
            let src = input.add(t as usize * TILE_FLOATS);
            if k & 1 == 0 {
                s0 = tx0.commit(tx0.start(s0, src));
            } else {
                s1 = tx1.commit(tx1.start(s1, src));
            }
            k += 1;
            t += device::grid_dim_x();
        }
        tx0.finish(s0);
        tx1.finish(s1);
    } else if dp.PINS.is_set(RX_PINS) {
        let c = (dp.PINS.id() - 32) as usize;
        let mut acc = 0.0f32;
        let mut s0 = rx0.first();
        let mut s1 = rx1.first();
        let mut k = 0u32;
        let mut t = device::block_idx_x();
        while t < tiles {
            if k & 1 == 0 {
                let full = rx0.wait(s0);
                acc += rx0.regs(&full).column(c);
                s0 = rx0.release(full);
            } else {
                let full = rx1.wait(s1);
                acc += rx1.regs(&full).column(c);
                s1 = rx1.release(full);
            }
            k += 1;
            t += device::grid_dim_x();
        }
        write_out(out, c, acc);
    }
}

/// Plain shared memory as register blocks: the tile at SRAM byte 0, a column accumulator per
/// receiver at byte 1024; every thread writes four tile registers, `SRAM.sync()`, threads 0..31
/// `modify()` their accumulator with their column, `SRAM.sync()`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_hal_regblock_plain(input: *const f32, tiles: u32, out: *mut f32) {
    let dp = Peripherals::take();
    let pin = dp.PINS.id() as usize;
    let tile = RegisterBlock::at(dp.SRAM.at(0));
    let accs = RegisterBlock::at(dp.SRAM.at(1024));
    if pin < COLS {
        accs.reg(pin).write(0.0);
    }
    let mut t = device::block_idx_x();
    while t < tiles {
        let src = input.add(t as usize * TILE_FLOATS);
        let mut i = pin;
        while i < TILE_FLOATS {
            tile.reg(i).write(*src.add(i));
            i += 64;
        }
        dp.SRAM.sync();
        if pin < COLS {
            let col = tile.column(pin);
            accs.reg(pin).modify(|v| v + col);
        }
        dp.SRAM.sync();
        t += device::grid_dim_x();
    }
    if pin < COLS {
        write_out(out, pin, accs.reg(pin).read());
    }
}

/// BROKEN.
/// Plain shared memory as register blocks: the tile in the peripheral's native 32-bit register
/// file (`RegisterBlock32`), a column accumulator per receiver.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_hal_bad_register_width(input: *const f32, tiles: u32, out: *mut f32) {
    let dp = Peripherals::take();
    let pin = dp.PINS.id() as usize;
    let tile = RegisterBlock32::at(dp.SRAM.at(0).cast::<u32>());
    let accs = RegisterBlock::at(dp.SRAM.at(1024));
    if pin < COLS {
        accs.reg(pin).write(0.0);
    }
    let mut t = device::block_idx_x();
    while t < tiles {
        let src = input.add(t as usize * TILE_FLOATS);
        let mut i = pin;
        while i < TILE_FLOATS {
            tile.reg(i).write((*src.add(i)).to_bits());
            i += 64;
        }
        dp.SRAM.sync();
        if pin < COLS {
            let col = tile.column(pin);
            accs.reg(pin).modify(|v| v + col);
        }
        dp.SRAM.sync();
        t += device::grid_dim_x();
    }
    if pin < COLS {
        write_out(out, pin, accs.reg(pin).read());
    }
}

/// BROKEN.
/// Two channels of two stages, the block's tiles alternating between them; the receivers
/// alternate the same way.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_hal_bad_channel_mixup(input: *const f32, tiles: u32, out: *mut f32) {
    let dp = Peripherals::take();
    let ch0 = dp.DMA.channel::<DEPTH2>(&dp.SRAM, &dp.PINS, 0, 1024);
    let ch1 = dp.DMA.channel::<DEPTH2>(&dp.SRAM, &dp.PINS, 64, 3072);
    dp.DMA.enable();
    let (tx0, rx0) = ch0.split();
    let (tx1, rx1) = ch1.split();
    if dp.PINS.is_set(TX_PINS) {
        let mut s0 = tx0.first();
        let mut s1 = tx1.first();
        let mut k = 0u32;
        let mut t = device::block_idx_x();
        while t < tiles {
            let src = input.add(t as usize * TILE_FLOATS);
            if k & 1 == 0 {
                s0 = tx0.commit(tx0.start(s0, src));
            } else {
                s1 = tx1.commit(tx1.start(s1, src));
            }
            k += 1;
            t += device::grid_dim_x();
        }
        tx0.finish(s0);
        tx1.finish(s1);
    } else if dp.PINS.is_set(RX_PINS) {
        let c = (dp.PINS.id() - 32) as usize;
        let mut acc = 0.0f32;
        let mut s0 = rx0.first();
        let mut s1 = rx1.first();
        let mut k = 0u32;
        let mut t = device::block_idx_x();
        while t < tiles {
            if k & 1 == 0 {
                let full = rx0.wait(s0);
                acc += rx0.regs(&full).column(c);
                s0 = rx1.release(full);
            } else {
                let full = rx1.wait(s1);
                acc += rx1.regs(&full).column(c);
                s1 = rx1.release(full);
            }
            k += 1;
            t += device::grid_dim_x();
        }
        write_out(out, c, acc);
    }
}

/// BROKEN.
/// One four-stage channel; each receiver sums its column through a stage's register block.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_hal_bad_next_stage_regs(input: *const f32, tiles: u32, out: *mut f32) {
    let dp = Peripherals::take();
    let ch = dp.DMA.channel::<DEPTH4>(&dp.SRAM, &dp.PINS, 0, 1024);
    dp.DMA.enable();
    let (tx, rx) = ch.split();
    if dp.PINS.is_set(TX_PINS) {
        transmit(&tx, input, tiles);
    } else if dp.PINS.is_set(RX_PINS) {
        let c = (dp.PINS.id() - 32) as usize;
        let mut acc = 0.0f32;
        let mut stage = rx.first();
        let mut t = device::block_idx_x();
        while t < tiles {
            let full = rx.wait(stage);
            stage = rx.release(full);
            acc += rx.regs(&stage).column(c);
            t += device::grid_dim_x();
        }
        write_out(out, c, acc);
    }
}

/// The receivers of this board revision: PB0..=PB31, wired to threads 32..=63.
const RX_PINS_REV_B: u64 = pin_range(32, 63);

/// BROKEN.
/// One four-stage channel on board revision B, whose receivers are `RX_PINS_REV_B`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r44_hal_bad_pin_mask(input: *const f32, tiles: u32, out: *mut f32) {
    let dp = Peripherals::take();
    let ch = dp.DMA.channel::<DEPTH4>(&dp.SRAM, &dp.PINS, 0, 1024);
    dp.DMA.enable();
    let (tx, rx) = ch.split();
    if dp.PINS.is_set(TX_PINS) {
        transmit(&tx, input, tiles);
    } else if dp.PINS.is_set(RX_PINS_REV_B) {
        let c = (dp.PINS.id() - 32) as usize;
        let mut acc = 0.0f32;
        let mut stage = rx.first();
        let mut t = device::block_idx_x();
        while t < tiles {
            let full = rx.wait(stage);
            acc += rx.regs(&full).column(c);
            stage = rx.release(full);
            t += device::grid_dim_x();
        }
        write_out(out, c, acc);
    }
}
