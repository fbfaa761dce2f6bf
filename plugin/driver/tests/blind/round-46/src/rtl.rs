//! Module `rtl`: the kernels written the way a hardware designer writes Verilog or
//! SystemVerilog. The block is a small chip: `localparam`-style constants, a `Ports` bundle of
//! input wires sampled once, and units (a DMA engine, a MAC unit) whose registers live in
//! `*Regs` structs with `_q` (current) fields. Each unit has a reset function and a clock
//! function that computes the next-state `d` from `q` (`let mut d = q;` as the default
//! assignment of an `always_comb`) and drives the side effects of that cycle; the kernel is
//! the testbench loop that clocks each unit until its done condition.

use crate::device;
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};

// localparam
const STAGES: u32 = 4;
const TILE_WORDS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: u32 = 8;
const LANES: u32 = 32;
const THREADS: u32 = 64;
const SMEM_BYTES: u32 = 8192;
const BAR_BASE: u32 = 0x000;
const RING_BASE: u32 = 0x400;
const DMA_TID: u32 = 32;
const MAC_UNITS: u32 = 32;

/// Input ports and hard-wired signals of the block, sampled once at reset.
#[derive(Clone, Copy)]
struct Ports {
    input: *const f32,
    out: *mut f32,
    tiles: u32,
    blk: u32,
    nblk: u32,
    tid: u32,
    win: u32,
    smem: *mut f32,
}

#[inline(always)]
fn sample_ports(input: *const f32, tiles: u32, out: *mut f32) -> Ports {
    Ports {
        input,
        out,
        tiles,
        blk: device::block_idx_x(),
        nblk: device::grid_dim_x(),
        tid: device::thread_idx_x(),
        win: device::dynamic_shared_window_address(),
        smem: device::dynamic_shared_base::<f32>(),
    }
}

/// Power-on: thread 0 programs the barriers, then the global reset release (a block barrier).
#[inline(always)]
fn power_on(p: &Ports) -> Pipeline<STAGES> {
    if p.tid == 0 {
        Pipeline::<STAGES>::init(p.win + BAR_BASE, MAC_UNITS);
    }
    device::barrier();
    Pipeline::<STAGES>::attach(p.win + BAR_BASE)
}

/// DMA engine registers.
#[derive(Clone, Copy)]
struct DmaRegs {
    tile_q: u32,
    st_q: PipelineState<STAGES>,
}

#[inline(always)]
fn dma_reset(p: &Ports) -> DmaRegs {
    DmaRegs { tile_q: p.blk, st_q: PipelineState::producer_start() }
}

/// One clock of the DMA engine: one tile into the stage `st_q` points at.
#[inline(always)]
fn dma_clock(q: DmaRegs, p: &Ports, bus: &Pipeline<STAGES>) -> DmaRegs {
    let mut d = q;
    bus.producer_acquire(&d.st_q);
    bus.producer_expect_tx(&d.st_q, TILE_BYTES);
    let dst = p.win + RING_BASE + d.st_q.index() * TILE_BYTES;
    let src = p.input.wrapping_add((q.tile_q * TILE_WORDS) as usize) as *const u8;
    bulk_copy_global_to_shared(dst, src, TILE_BYTES, bus.producer_barrier(&d.st_q));
    d.st_q.advance();
    d.tile_q = q.tile_q + p.nblk;
    d
}

/// MAC unit registers.
#[derive(Clone, Copy)]
struct MacRegs {
    tile_q: u32,
    acc_q: f32,
    st_q: PipelineState<STAGES>,
}

#[inline(always)]
fn mac_reset(p: &Ports) -> MacRegs {
    MacRegs { tile_q: p.blk, acc_q: 0.0, st_q: PipelineState::new() }
}

/// The MAC datapath: eight multiply-free accumulate steps down one column of a stage.
#[inline(always)]
unsafe fn mac_column(stage: *const f32, lane: u32) -> f32 {
    let mut acc_d = 0.0;
    let mut row = 0;
    while row < ROWS {
        acc_d += *stage.add((row * LANES + lane) as usize);
        row += 1;
    }
    acc_d
}

/// One clock of a MAC unit: wait for the stage, accumulate its column, release it.
#[inline(always)]
unsafe fn mac_clock(q: MacRegs, p: &Ports, bus: &Pipeline<STAGES>) -> MacRegs {
    let mut d = q;
    bus.consumer_wait(&d.st_q);
    let stage = p.smem.add((RING_BASE / 4 + d.st_q.index() * TILE_WORDS) as usize);
    d.acc_q = q.acc_q + mac_column(stage, p.tid % LANES);
    bus.consumer_release(&d.st_q);
    d.st_q.advance();
    d.tile_q = q.tile_q + p.nblk;
    d
}

/// Output register drive.
#[inline(always)]
unsafe fn drive_out(p: &Ports, value: f32) {
    *p.out.add((p.blk * LANES + p.tid % LANES) as usize) = value;
}

/// The DMA engine on thread 32 and 32 MAC units on warp 0, each clocked until its tile
/// register passes the tile count.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_rtl_clocked_units(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let p = sample_ports(input, tiles, out);
    let bus = power_on(&p);
    if p.tid == DMA_TID {
        let mut q = dma_reset(&p);
        while q.tile_q < p.tiles {
            q = dma_clock(q, &p, &bus);
        }
        bus.producer_tail(q.st_q);
    } else if p.tid < MAC_UNITS {
        let mut q = mac_reset(&p);
        while q.tile_q < p.tiles {
            q = mac_clock(q, &p, &bus);
        }
        drive_out(&p, q.acc_q);
    }
}

/// The MAC unit with a hold register: a stage is released one cycle late, after the next
/// stage has been waited for and summed (fill cycle, steady cycles, drain cycle), the order
/// MODEL.md calls "the previous stage held". The ring has four stages, so holding one never
/// starves the DMA engine.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_rtl_hold_register(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let p = sample_ports(input, tiles, out);
    let bus = power_on(&p);
    if p.tid == DMA_TID {
        let mut q = dma_reset(&p);
        while q.tile_q < p.tiles {
            q = dma_clock(q, &p, &bus);
        }
        bus.producer_tail(q.st_q);
    } else if p.tid < MAC_UNITS {
        let lane = p.tid % LANES;
        let mut rd_q = PipelineState::<STAGES>::new();
        let mut acc_q = 0.0;
        let mut tile_q = p.blk;
        if tile_q < p.tiles {
            // fill cycle
            bus.consumer_wait(&rd_q);
            acc_q += mac_column(p.smem.add((RING_BASE / 4 + rd_q.index() * TILE_WORDS) as usize), lane);
            let mut hold_q = rd_q;
            rd_q.advance();
            tile_q += p.nblk;
            // steady cycles
            while tile_q < p.tiles {
                bus.consumer_wait(&rd_q);
                acc_q += mac_column(p.smem.add((RING_BASE / 4 + rd_q.index() * TILE_WORDS) as usize), lane);
                bus.consumer_release(&hold_q);
                hold_q = rd_q;
                rd_q.advance();
                tile_q += p.nblk;
            }
            // drain cycle
            bus.consumer_release(&hold_q);
        }
        drive_out(&p, acc_q);
    }
}

/// No pipeline: a two-bank register file in shared memory with a bank-select flip-flop.
/// Every thread writes its four words of the tile into bank `bank_q`, one block barrier
/// (the clock edge), warp 0 reads its column from the same bank, and the flip-flop toggles,
/// so the next tile is written into the other bank while this one may still be read; a bank
/// is written again only after the next clock edge, which every reader passes after reading.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_rtl_bank_flipflop(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let p = sample_ports(input, tiles, out);
    let mut bank_q: u32 = 0;
    let mut acc_q = 0.0;
    let mut tile_q = p.blk;
    while tile_q < p.tiles {
        // write port
        let mut k = 0;
        while k < TILE_WORDS / THREADS {
            let word = p.tid + k * THREADS;
            *p.smem.add((bank_q * TILE_WORDS + word) as usize) =
                *p.input.add((tile_q * TILE_WORDS + word) as usize);
            k += 1;
        }
        device::barrier();
        // read port
        if p.tid < MAC_UNITS {
            acc_q += mac_column(p.smem.add((bank_q * TILE_WORDS) as usize), p.tid);
        }
        bank_q ^= 1;
        tile_q += p.nblk;
    }
    if p.tid < MAC_UNITS {
        drive_out(&p, acc_q);
    }
}

/// The DMA engine bursts each tile as two 512-byte beats (the bus's maximum burst), both
/// into the same stage and counted by one `expect_tx` of the whole tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_rtl_two_beat_burst(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let p = sample_ports(input, tiles, out);
    let bus = power_on(&p);
    if p.tid == DMA_TID {
        const BEAT_BYTES: u32 = 512;
        const BEAT_WORDS: u32 = 128;
        let mut q = dma_reset(&p);
        while q.tile_q < p.tiles {
            bus.producer_acquire(&q.st_q);
            bus.producer_expect_tx(&q.st_q, TILE_BYTES);
            let dst = p.win + RING_BASE + q.st_q.index() * TILE_BYTES;
            let src = p.input.wrapping_add((q.tile_q * TILE_WORDS) as usize);
            let bar = bus.producer_barrier(&q.st_q);
            bulk_copy_global_to_shared(dst, src as *const u8, BEAT_BYTES, bar);
            bulk_copy_global_to_shared(dst + BEAT_BYTES, src.wrapping_add(BEAT_WORDS as usize) as *const u8, BEAT_BYTES, bar);
            q.st_q.advance();
            q.tile_q += p.nblk;
        }
        bus.producer_tail(q.st_q);
    } else if p.tid < MAC_UNITS {
        let mut q = mac_reset(&p);
        while q.tile_q < p.tiles {
            q = mac_clock(q, &p, &bus);
        }
        drive_out(&p, q.acc_q);
    }
}

/// BROKEN: the burst length was sized for a 32-bit bus (64 words of 4 bytes = 256 bytes a
/// beat), so two beats move 512 bytes while the stage's `expect_tx` announces the whole
/// 1024-byte tile: the *full* barrier never completes and the MAC units hang on stage 0.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_rtl_bad_beat_width(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let p = sample_ports(input, tiles, out);
    let bus = power_on(&p);
    if p.tid == DMA_TID {
        const BEAT_WORDS: u32 = 64;
        const BEAT_BYTES: u32 = BEAT_WORDS * 4;
        let mut q = dma_reset(&p);
        while q.tile_q < p.tiles {
            bus.producer_acquire(&q.st_q);
            bus.producer_expect_tx(&q.st_q, TILE_BYTES);
            let dst = p.win + RING_BASE + q.st_q.index() * TILE_BYTES;
            let src = p.input.wrapping_add((q.tile_q * TILE_WORDS) as usize);
            let bar = bus.producer_barrier(&q.st_q);
            bulk_copy_global_to_shared(dst, src as *const u8, BEAT_BYTES, bar);
            bulk_copy_global_to_shared(dst + BEAT_BYTES, src.wrapping_add(BEAT_WORDS as usize) as *const u8, BEAT_BYTES, bar);
            q.st_q.advance();
            q.tile_q += p.nblk;
        }
        bus.producer_tail(q.st_q);
    } else if p.tid < MAC_UNITS {
        let mut q = mac_reset(&p);
        while q.tile_q < p.tiles {
            q = mac_clock(q, &p, &bus);
        }
        drive_out(&p, q.acc_q);
    }
}

/// BROKEN: the testbench applies the MAC's reset values as "default assignments" at the top
/// of every cycle and carries over only the accumulator and the tile register: the pipeline
/// state register is re-created every clock, so every MAC waits on stage 0 at phase 0 for
/// every tile. After the first tile the wait returns at once on stale data, stages 1 to 3
/// are never released, and the DMA engine hangs acquiring stage 1 for its sixth tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_rtl_bad_default_assignment(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let p = sample_ports(input, tiles, out);
    let bus = power_on(&p);
    if p.tid == DMA_TID {
        let mut q = dma_reset(&p);
        while q.tile_q < p.tiles {
            q = dma_clock(q, &p, &bus);
        }
        bus.producer_tail(q.st_q);
    } else if p.tid < MAC_UNITS {
        let mut q = mac_reset(&p);
        while q.tile_q < p.tiles {
            let mut d = mac_reset(&p);
            d.acc_q = q.acc_q;
            d.tile_q = q.tile_q;
            q = mac_clock(d, &p, &bus);
        }
        drive_out(&p, q.acc_q);
    }
}

/// BROKEN: the MAC units end each cycle on "the clock edge", a block barrier, but the clock
/// is only theirs: the DMA thread and the rest of warp 1 never reach it. The barrier sits
/// in the consumers' branch, the block never completes it, and the launch hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_rtl_bad_clock_edge_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    let p = sample_ports(input, tiles, out);
    let bus = power_on(&p);
    if p.tid == DMA_TID {
        let mut q = dma_reset(&p);
        while q.tile_q < p.tiles {
            q = dma_clock(q, &p, &bus);
        }
        bus.producer_tail(q.st_q);
    } else if p.tid < MAC_UNITS {
        let mut q = mac_reset(&p);
        while q.tile_q < p.tiles {
            q = mac_clock(q, &p, &bus);
            device::barrier(); // posedge clk
        }
        drive_out(&p, q.acc_q);
    }
}

/// BROKEN: the stage address is decoded as `RING_BASE | stage << 8`, the stage field placed
/// as if a stage were 256 bytes (256 *words* was meant): stages start 256 bytes apart, each
/// 1024-byte copy overwrites three quarters of the next stages, and the MAC units (which
/// decode the same way) sum tiles the DMA engine is overwriting.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r46_rtl_bad_stage_decode(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(THREADS);
    dynamic_shared_bytes(SMEM_BYTES);
    const RING_SEL: u32 = 0x1000;
    let p = sample_ports(input, tiles, out);
    let bus = power_on(&p);
    if p.tid == DMA_TID {
        let mut q = dma_reset(&p);
        while q.tile_q < p.tiles {
            bus.producer_acquire(&q.st_q);
            bus.producer_expect_tx(&q.st_q, TILE_BYTES);
            let dst = p.win + (RING_SEL | q.st_q.index() << 8);
            let src = p.input.wrapping_add((q.tile_q * TILE_WORDS) as usize) as *const u8;
            bulk_copy_global_to_shared(dst, src, TILE_BYTES, bus.producer_barrier(&q.st_q));
            q.st_q.advance();
            q.tile_q += p.nblk;
        }
        bus.producer_tail(q.st_q);
    } else if p.tid < MAC_UNITS {
        let mut q = mac_reset(&p);
        while q.tile_q < p.tiles {
            bus.consumer_wait(&q.st_q);
            let stage = p.smem.add(((RING_SEL | q.st_q.index() << 8) / 4) as usize);
            q.acc_q += mac_column(stage, p.tid % LANES);
            bus.consumer_release(&q.st_q);
            q.st_q.advance();
            q.tile_q += p.nblk;
        }
        drive_out(&p, q.acc_q);
    }
}
