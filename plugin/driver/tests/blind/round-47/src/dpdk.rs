//! Module `dpdk`: DPDK-style packet processing. A tile is a packet on the wire of an rx queue (a
//! block), the stages are the rx descriptor ring's mbufs in a pool in shared memory, the
//! pipeline's barriers are the ring's descriptor area. One rx lcore (a thread) posts each packet
//! to a descriptor (a bulk copy, the NIC's DMA), and 32 worker lcores poll the ring, process
//! each mbuf (add up one 32-float lane of it) and free it back. `rte_`-named helpers, an
//! `rte_eth_rxconf`-like port configuration, packets split into segments.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const NB_LCORES: u32 = 64;
const SHM_SIZE: u32 = 8192;
const NB_RX_DESC: u32 = 4;
const NB_WORKERS: u32 = 32;
const RX_LCORE_ID: u32 = 0;
const FIRST_WORKER_LCORE: u32 = 32;
const PKT_FLOATS: u32 = 256;
const PKT_ROWS: u32 = 8;
const PKT_LANES: u32 = 32;
const MBUF_DATA_ROOM: u32 = PKT_FLOATS * 4;
const DESC_AREA_OFFSET: u32 = 0;
const MBUF_POOL_OFFSET: u32 = 1024;
/// A packet arrives in two chained segments (`m->next`), each its own DMA.
const NB_SEGS: u32 = 2;
const SEG_LEN: u32 = MBUF_DATA_ROOM / NB_SEGS;

/// `struct rte_eth_rxconf`, as far as this port needs it: where the descriptor area and the mbuf
/// pool sit in the shared window.
#[derive(Clone, Copy)]
struct PortConf {
    shm_window: u32,
    desc_offset: u32,
    pool_offset: u32,
}

impl PortConf {
    #[inline(always)]
    fn desc_area(&self) -> u32 {
        self.shm_window + self.desc_offset
    }

    /// `buf_iova` of the mbuf behind descriptor `slot`.
    #[inline(always)]
    fn mbuf_iova(&self, slot: u32) -> u32 {
        self.shm_window + self.pool_offset + slot * MBUF_DATA_ROOM
    }
}

#[inline(always)]
fn rte_lcore_id() -> u32 {
    thread_idx_x()
}

#[inline(always)]
fn rte_eth_rx_queue_id() -> u32 {
    block_idx_x()
}

#[inline(always)]
fn rte_eth_dev_nb_rx_queues() -> u32 {
    grid_dim_x()
}

/// The packet `pkt` on the wire.
#[inline(always)]
unsafe fn wire_pkt(wire: *const f32, pkt: u32) -> *const u8 {
    wire.add((pkt * PKT_FLOATS) as usize) as *const u8
}

/// `rte_pktmbuf_mtod`: the packet data of the mbuf behind descriptor `slot`.
#[inline(always)]
unsafe fn rte_pktmbuf_mtod(conf: &PortConf, slot: u32) -> *const f32 {
    dynamic_shared_base::<f32>().add((conf.pool_offset / 4 + slot * PKT_FLOATS) as usize)
}

/// `rte_eth_rx_queue_setup`: the rx lcore initialises the ring; everyone attaches after the
/// barrier.
#[inline(always)]
unsafe fn rte_eth_rx_queue_setup<const N: u32>(conf: &PortConf, rx_lcore: u32) -> Pipeline<N> {
    if rte_lcore_id() == rx_lcore {
        Pipeline::<N>::init(conf.desc_area(), NB_WORKERS);
    }
    barrier();
    Pipeline::<N>::attach(conf.desc_area())
}

/// The worker lcore's main loop: poll the ring, process the mbuf (sum lane `worker` over its
/// eight rows), free it, and publish the lane's statistics at the end.
#[inline(always)]
unsafe fn worker_lcore_main<const N: u32>(
    port: &Pipeline<N>,
    conf: &PortConf,
    worker: u32,
    queue: u32,
    nb_queues: u32,
    nb_pkts: u32,
    stats_out: *mut f32,
) {
    let mut rx = PipelineState::<N>::new();
    let mut lane_bytes: f32 = 0.0;
    let mut pkt = queue;
    while pkt < nb_pkts {
        port.consumer_wait(&rx);
        let mbuf = rte_pktmbuf_mtod(conf, rx.index());
        for row in 0..PKT_ROWS {
            lane_bytes += *mbuf.add((row * PKT_LANES + worker) as usize);
        }
        port.consumer_release(&rx);
        rx.advance();
        pkt += nb_queues;
    }
    *stats_out.add((queue * PKT_LANES + worker) as usize) = lane_bytes;
}

/// The rx lcore's main loop: for each packet of the queue, take a free descriptor, arm it with
/// the packet's length, DMA the packet into its mbuf.
#[inline(always)]
unsafe fn rx_lcore_main(port: &Pipeline<NB_RX_DESC>, conf: &PortConf, wire: *const f32, queue: u32, nb_queues: u32, nb_pkts: u32) {
    let mut rx = PipelineState::<NB_RX_DESC>::producer_start();
    let mut pkt = queue;
    while pkt < nb_pkts {
        port.producer_acquire(&rx);
        port.producer_expect_tx(&rx, MBUF_DATA_ROOM);
        bulk_copy_global_to_shared(conf.mbuf_iova(rx.index()), wire_pkt(wire, pkt), MBUF_DATA_ROOM, port.producer_barrier(&rx));
        rx.advance();
        pkt += nb_queues;
    }
    port.producer_tail(rx);
}

/// Rx lcore 0 DMAs each packet of the queue into the next free mbuf of a four-descriptor ring;
/// worker lcores 32..63 poll the ring and add up their lane of every packet.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_dpdk_rx_worker(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NB_LCORES);
    dynamic_shared_bytes(SHM_SIZE);
    let conf = PortConf { shm_window: dynamic_shared_window_address(), desc_offset: DESC_AREA_OFFSET, pool_offset: MBUF_POOL_OFFSET };
    let port = rte_eth_rx_queue_setup::<NB_RX_DESC>(&conf, RX_LCORE_ID);
    let lcore = rte_lcore_id();
    let queue = rte_eth_rx_queue_id();
    if lcore == RX_LCORE_ID {
        rx_lcore_main(&port, &conf, input, queue, rte_eth_dev_nb_rx_queues(), tiles);
    } else if lcore >= FIRST_WORKER_LCORE {
        worker_lcore_main(&port, &conf, lcore - FIRST_WORKER_LCORE, queue, rte_eth_dev_nb_rx_queues(), tiles, out);
    }
}

/// Each packet arrives as a chain of two 512-byte segments, each DMA'd on its own into its half
/// of the mbuf, both under one descriptor armed with the whole packet's length.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_dpdk_chained_segments(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NB_LCORES);
    dynamic_shared_bytes(SHM_SIZE);
    let conf = PortConf { shm_window: dynamic_shared_window_address(), desc_offset: DESC_AREA_OFFSET, pool_offset: MBUF_POOL_OFFSET };
    let port = rte_eth_rx_queue_setup::<NB_RX_DESC>(&conf, RX_LCORE_ID);
    let lcore = rte_lcore_id();
    let queue = rte_eth_rx_queue_id();
    let nb_queues = rte_eth_dev_nb_rx_queues();
    if lcore == RX_LCORE_ID {
        let mut rx = PipelineState::<NB_RX_DESC>::producer_start();
        let mut pkt = queue;
        while pkt < tiles {
            port.producer_acquire(&rx);
            port.producer_expect_tx(&rx, MBUF_DATA_ROOM);
            let head = conf.mbuf_iova(rx.index());
            let data = wire_pkt(input, pkt);
            for seg in 0..NB_SEGS {
                bulk_copy_global_to_shared(head + seg * SEG_LEN, data.add((seg * SEG_LEN) as usize), SEG_LEN, port.producer_barrier(&rx));
            }
            rx.advance();
            pkt += nb_queues;
        }
        port.producer_tail(rx);
    } else if lcore >= FIRST_WORKER_LCORE {
        worker_lcore_main(&port, &conf, lcore - FIRST_WORKER_LCORE, queue, nb_queues, tiles, out);
    }
}

/// The rx lcore posts the DMA first and rings the doorbell after it: the descriptor's length is
/// armed (`expect_tx`) once the copy is already in flight, before the cursor moves on.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_dpdk_post_then_doorbell(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NB_LCORES);
    dynamic_shared_bytes(SHM_SIZE);
    let conf = PortConf { shm_window: dynamic_shared_window_address(), desc_offset: DESC_AREA_OFFSET, pool_offset: MBUF_POOL_OFFSET };
    let port = rte_eth_rx_queue_setup::<NB_RX_DESC>(&conf, RX_LCORE_ID);
    let lcore = rte_lcore_id();
    let queue = rte_eth_rx_queue_id();
    let nb_queues = rte_eth_dev_nb_rx_queues();
    if lcore == RX_LCORE_ID {
        let mut tail = PipelineState::<NB_RX_DESC>::producer_start();
        let mut pkt = queue;
        while pkt < tiles {
            port.producer_acquire(&tail);
            let slot = tail.index();
            bulk_copy_global_to_shared(conf.mbuf_iova(slot), wire_pkt(input, pkt), MBUF_DATA_ROOM, port.producer_barrier(&tail));
            // Doorbell: arm the descriptor with the packet length.
            port.producer_expect_tx(&tail, MBUF_DATA_ROOM);
            tail.advance();
            pkt += nb_queues;
        }
        port.producer_tail(tail);
    } else if lcore >= FIRST_WORKER_LCORE {
        worker_lcore_main(&port, &conf, lcore - FIRST_WORKER_LCORE, queue, nb_queues, tiles, out);
    }
}

/// A six-descriptor ring whose mbuf pool fills the rest of the window (bytes 2048..8192), the
/// last lcore (63) as the rx lcore and lcores 0..31 as the workers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_dpdk_last_lcore_rx(input: *const f32, tiles: u32, out: *mut f32) {
    const DEEP_RING: u32 = 6;
    const LAST_LCORE: u32 = NB_LCORES - 1;
    block_threads(NB_LCORES);
    dynamic_shared_bytes(SHM_SIZE);
    let conf = PortConf { shm_window: dynamic_shared_window_address(), desc_offset: DESC_AREA_OFFSET, pool_offset: 2048 };
    let port = rte_eth_rx_queue_setup::<DEEP_RING>(&conf, LAST_LCORE);
    let lcore = rte_lcore_id();
    let queue = rte_eth_rx_queue_id();
    let nb_queues = rte_eth_dev_nb_rx_queues();
    if lcore == LAST_LCORE {
        let mut rx = PipelineState::<DEEP_RING>::producer_start();
        let mut pkt = queue;
        while pkt < tiles {
            port.producer_acquire(&rx);
            port.producer_expect_tx(&rx, MBUF_DATA_ROOM);
            bulk_copy_global_to_shared(conf.mbuf_iova(rx.index()), wire_pkt(input, pkt), MBUF_DATA_ROOM, port.producer_barrier(&rx));
            rx.advance();
            pkt += nb_queues;
        }
        port.producer_tail(rx);
    } else if lcore < NB_WORKERS {
        worker_lcore_main(&port, &conf, lcore, queue, nb_queues, tiles, out);
    }
}

/// BROKEN: the chained-segment rx loop starts at segment 1 ("the head segment is the mbuf
/// itself"), so only the second 512-byte half of each packet is DMA'd while the descriptor is
/// armed for 1024 bytes: the full barrier never completes and the workers wait forever.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_dpdk_bad_missing_head_segment(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NB_LCORES);
    dynamic_shared_bytes(SHM_SIZE);
    let conf = PortConf { shm_window: dynamic_shared_window_address(), desc_offset: DESC_AREA_OFFSET, pool_offset: MBUF_POOL_OFFSET };
    let port = rte_eth_rx_queue_setup::<NB_RX_DESC>(&conf, RX_LCORE_ID);
    let lcore = rte_lcore_id();
    let queue = rte_eth_rx_queue_id();
    let nb_queues = rte_eth_dev_nb_rx_queues();
    if lcore == RX_LCORE_ID {
        let mut rx = PipelineState::<NB_RX_DESC>::producer_start();
        let mut pkt = queue;
        while pkt < tiles {
            port.producer_acquire(&rx);
            port.producer_expect_tx(&rx, MBUF_DATA_ROOM);
            let head = conf.mbuf_iova(rx.index());
            let data = wire_pkt(input, pkt);
            for seg in 1..NB_SEGS {
                bulk_copy_global_to_shared(head + seg * SEG_LEN, data.add((seg * SEG_LEN) as usize), SEG_LEN, port.producer_barrier(&rx));
            }
            rx.advance();
            pkt += nb_queues;
        }
        port.producer_tail(rx);
    } else if lcore >= FIRST_WORKER_LCORE {
        worker_lcore_main(&port, &conf, lcore - FIRST_WORKER_LCORE, queue, nb_queues, tiles, out);
    }
}

/// BROKEN: the rx lcore DMAs each packet into the mbuf of the descriptor after the tail
/// (`(tail + 1) % NB_RX_DESC`, as a NIC's write-back ring would), while it arms and signals the
/// tail's own descriptor: the workers read the tail's mbuf, which holds the previous packet (or
/// nothing yet), and the DMA lands in an mbuf a worker may still be reading.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_dpdk_bad_next_desc_slot(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NB_LCORES);
    dynamic_shared_bytes(SHM_SIZE);
    let conf = PortConf { shm_window: dynamic_shared_window_address(), desc_offset: DESC_AREA_OFFSET, pool_offset: MBUF_POOL_OFFSET };
    let port = rte_eth_rx_queue_setup::<NB_RX_DESC>(&conf, RX_LCORE_ID);
    let lcore = rte_lcore_id();
    let queue = rte_eth_rx_queue_id();
    let nb_queues = rte_eth_dev_nb_rx_queues();
    if lcore == RX_LCORE_ID {
        let mut tail = PipelineState::<NB_RX_DESC>::producer_start();
        let mut pkt = queue;
        while pkt < tiles {
            port.producer_acquire(&tail);
            port.producer_expect_tx(&tail, MBUF_DATA_ROOM);
            let next_slot = (tail.index() + 1) % NB_RX_DESC;
            bulk_copy_global_to_shared(conf.mbuf_iova(next_slot), wire_pkt(input, pkt), MBUF_DATA_ROOM, port.producer_barrier(&tail));
            tail.advance();
            pkt += nb_queues;
        }
        port.producer_tail(tail);
    } else if lcore >= FIRST_WORKER_LCORE {
        worker_lcore_main(&port, &conf, lcore - FIRST_WORKER_LCORE, queue, nb_queues, tiles, out);
    }
}

/// BROKEN: "one rx lcore per rx queue of the port": lcores 0 and 1 both run the rx loop, so every
/// packet is DMA'd twice and every descriptor armed twice, on full barriers initialised for one
/// arrival.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_dpdk_bad_rx_lcore_per_queue(input: *const f32, tiles: u32, out: *mut f32) {
    const NB_RX_LCORES: u32 = 2;
    block_threads(NB_LCORES);
    dynamic_shared_bytes(SHM_SIZE);
    let conf = PortConf { shm_window: dynamic_shared_window_address(), desc_offset: DESC_AREA_OFFSET, pool_offset: MBUF_POOL_OFFSET };
    let port = rte_eth_rx_queue_setup::<NB_RX_DESC>(&conf, RX_LCORE_ID);
    let lcore = rte_lcore_id();
    let queue = rte_eth_rx_queue_id();
    if lcore < NB_RX_LCORES {
        rx_lcore_main(&port, &conf, input, queue, rte_eth_dev_nb_rx_queues(), tiles);
    } else if lcore >= FIRST_WORKER_LCORE {
        worker_lcore_main(&port, &conf, lcore - FIRST_WORKER_LCORE, queue, rte_eth_dev_nb_rx_queues(), tiles, out);
    }
}

/// BROKEN: each mbuf keeps an 8-byte private header (`RTE_MBUF_PRIV_SIZE`) before its data, so
/// the DMA goes to `buf_iova + 8`: a bulk copy's shared destination off its 16-byte alignment
/// (and 8 bytes into the next mbuf).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_dpdk_bad_mbuf_priv_header(input: *const f32, tiles: u32, out: *mut f32) {
    const RTE_MBUF_PRIV_SIZE: u32 = 8;
    block_threads(NB_LCORES);
    dynamic_shared_bytes(SHM_SIZE);
    let conf = PortConf { shm_window: dynamic_shared_window_address(), desc_offset: DESC_AREA_OFFSET, pool_offset: MBUF_POOL_OFFSET };
    let port = rte_eth_rx_queue_setup::<NB_RX_DESC>(&conf, RX_LCORE_ID);
    let lcore = rte_lcore_id();
    let queue = rte_eth_rx_queue_id();
    let nb_queues = rte_eth_dev_nb_rx_queues();
    if lcore == RX_LCORE_ID {
        let mut rx = PipelineState::<NB_RX_DESC>::producer_start();
        let mut pkt = queue;
        while pkt < tiles {
            port.producer_acquire(&rx);
            port.producer_expect_tx(&rx, MBUF_DATA_ROOM);
            let data_iova = conf.mbuf_iova(rx.index()) + RTE_MBUF_PRIV_SIZE;
            bulk_copy_global_to_shared(data_iova, wire_pkt(input, pkt), MBUF_DATA_ROOM, port.producer_barrier(&rx));
            rx.advance();
            pkt += nb_queues;
        }
        port.producer_tail(rx);
    } else if lcore >= FIRST_WORKER_LCORE {
        let worker = lcore - FIRST_WORKER_LCORE;
        let mut rx = PipelineState::<NB_RX_DESC>::new();
        let mut lane_bytes: f32 = 0.0;
        let mut pkt = queue;
        while pkt < tiles {
            port.consumer_wait(&rx);
            let data = rte_pktmbuf_mtod(&conf, rx.index()).add((RTE_MBUF_PRIV_SIZE / 4) as usize);
            for row in 0..PKT_ROWS {
                lane_bytes += *data.add((row * PKT_LANES + worker) as usize);
            }
            port.consumer_release(&rx);
            rx.advance();
            pkt += nb_queues;
        }
        *out.add((queue * PKT_LANES + worker) as usize) = lane_bytes;
    }
}
