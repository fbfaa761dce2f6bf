//! Dataflow-graph style: each kernel builds a small array-based graph of nodes (`Load`, `Copy`,
//! `Reduce`, `Store`) with edges, sorts it topologically once, and every thread walks the sorted
//! nodes of its role, executing each node per tile.
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE: u32 = 256;
const TILE_BYTES: u32 = 1024;
const COLS: u32 = 32;

#[derive(Clone, Copy, PartialEq)]
enum Op { Acquire, Copy, Wait, Reduce, Release, Advance }

/// A chain-shaped graph of at most 8 nodes; `deps[i]` is the node `i` waits for (or `NONE`).
#[derive(Clone, Copy)]
struct Graph { ops: [Op; 8], deps: [u8; 8], len: usize }
const NONE: u8 = 0xff;

impl Graph {
    #[inline(always)]
    fn new() -> Graph { Graph { ops: [Op::Advance; 8], deps: [NONE; 8], len: 0 } }
    #[inline(always)]
    fn node(&mut self, op: Op, dep: u8) -> u8 { self.ops[self.len] = op; self.deps[self.len] = dep; self.len += 1; (self.len - 1) as u8 }
    /// Kahn's order for a chain: repeatedly emit the node whose dependency was emitted.
    #[inline(always)]
    fn topo(&self) -> Graph {
        let mut out = Graph::new();
        let mut done = [false; 8];
        let mut emitted = 0;
        while emitted < self.len {
            for i in 0..self.len {
                let d = self.deps[i];
                if !done[i] && (d == NONE || done[d as usize]) {
                    done[i] = true;
                    out.node(self.ops[i], NONE);
                    emitted += 1;
                }
            }
        }
        out
    }
}

#[inline(always)]
fn producer_graph() -> Graph {
    let mut g = Graph::new();
    let a = g.node(Op::Acquire, NONE);
    let c = g.node(Op::Copy, a);
    g.node(Op::Advance, c);
    g.topo()
}

#[inline(always)]
fn consumer_graph() -> Graph {
    let mut g = Graph::new();
    let w = g.node(Op::Wait, NONE);
    let r = g.node(Op::Reduce, w);
    let rel = g.node(Op::Release, r);
    g.node(Op::Advance, rel);
    g.topo()
}

/// The consumer graph with the release hung on the wait (both only need the stage to be full).
#[inline(always)]
fn consumer_graph_fanout() -> Graph {
    let mut g = Graph::new();
    let w = g.node(Op::Wait, NONE);
    let rel = g.node(Op::Release, w);
    g.node(Op::Reduce, w);
    g.node(Op::Advance, rel);
    g.topo()
}

struct Ctx<const S: u32> { pipe: Pipeline<S>, win: u32, ring: *const f32, input: *const f32, tiles: u32 }

impl<const S: u32> Ctx<S> {
    #[inline(always)]
    unsafe fn run_producer(&self, g: &Graph, ring_at: u32) {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < self.tiles {
            for i in 0..g.len {
                match g.ops[i] {
                    Op::Acquire => self.pipe.producer_acquire(&st),
                    Op::Copy => {
                        self.pipe.producer_expect_tx(&st, TILE_BYTES);
                        bulk_copy_global_to_shared(ring_at + st.index() * TILE_BYTES, self.input.add((t * TILE) as usize) as *const u8, TILE_BYTES, self.pipe.producer_barrier(&st));
                    }
                    Op::Advance => st.advance(),
                    _ => {}
                }
            }
            t += grid_dim_x();
        }
        self.pipe.producer_tail(st);
    }

    #[inline(always)]
    unsafe fn run_consumer(&self, g: &Graph, c: u32) -> f32 {
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < self.tiles {
            for i in 0..g.len {
                match g.ops[i] {
                    Op::Wait => self.pipe.consumer_wait(&st),
                    Op::Reduce => {
                        let stage = self.ring.add((st.index() * TILE) as usize);
                        for r in 0..8u32 { acc += *stage.add((r * COLS + c) as usize); }
                    }
                    Op::Release => self.pipe.consumer_release(&st),
                    Op::Advance => st.advance(),
                    _ => {}
                }
            }
            t += grid_dim_x();
        }
        acc
    }
}

#[inline(always)]
unsafe fn build<const S: u32>(input: *const f32, tiles: u32, bars: u32) -> Ctx<S> {
    if thread_idx_x() == 0 { Pipeline::<S>::init(bars, COLS); }
    barrier();
    Ctx { pipe: Pipeline::<S>::attach(bars), win: dynamic_shared_window_address(), ring: dynamic_shared_base::<f32>(), input, tiles }
}

#[inline(always)]
unsafe fn store_node(out: *mut f32, c: u32, v: f32) { *out.add((block_idx_x() * COLS + c) as usize) = v; }

// Producer and consumer graphs walked in topological order, four stages.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_graph_topo_walk(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let cx = build::<4>(input, tiles, dynamic_shared_window_address() + 4 * TILE_BYTES);
    let tid = thread_idx_x();
    if tid == 32 {
        cx.run_producer(&producer_graph(), cx.win);
    } else if tid < COLS {
        let v = cx.run_consumer(&consumer_graph(), tid);
        store_node(out, tid, v);
    }
}

// No pipeline: Load (all threads) -> Sync -> Reduce (warp 0) -> Sync, per tile.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_graph_plain_dag(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        for k in 0..4u32 { *s.add((tid + 64 * k) as usize) = *input.add((t * TILE + tid + 64 * k) as usize); }
        barrier();
        if tid < COLS { for r in 0..8u32 { acc += *s.add((r * COLS + tid) as usize); } }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS { store_node(out, tid, acc); }
}

// Five stages; the producer is thread 0, the consumer nodes run on the second warp.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_graph_second_warp_sinks(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let cx = build::<5>(input, tiles, dynamic_shared_window_address() + 5 * TILE_BYTES);
    let tid = thread_idx_x();
    if tid == 0 {
        cx.run_producer(&producer_graph(), cx.win);
    } else if tid >= 32 {
        let v = cx.run_consumer(&consumer_graph(), tid - 32);
        store_node(out, tid - 32, v);
    }
}

// The Copy node is split into two edges that land in two rings (first and second half-tiles).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_graph_two_ring_edges(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const HALF: u32 = TILE_BYTES / 2;
    const HALF_F: u32 = TILE / 2;
    let win = dynamic_shared_window_address();
    let cx = build::<4>(input, tiles, win + 4 * TILE_BYTES);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            cx.pipe.producer_acquire(&st);
            cx.pipe.producer_expect_tx(&st, TILE_BYTES);
            let src = input.add((t * TILE) as usize);
            bulk_copy_global_to_shared(win + st.index() * HALF, src as *const u8, HALF, cx.pipe.producer_barrier(&st));
            bulk_copy_global_to_shared(win + 4 * HALF + st.index() * HALF, src.add(HALF_F as usize) as *const u8, HALF, cx.pipe.producer_barrier(&st));
            st.advance();
            t += g;
        }
        cx.pipe.producer_tail(st);
    } else if tid < COLS {
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            cx.pipe.consumer_wait(&st);
            let lo = cx.ring.add((st.index() * HALF_F) as usize);
            let hi = cx.ring.add((4 * HALF_F + st.index() * HALF_F) as usize);
            for r in 0..4u32 { acc += *lo.add((r * COLS + tid) as usize); }
            for r in 0..4u32 { acc += *hi.add((r * COLS + tid) as usize); }
            cx.pipe.consumer_release(&st);
            st.advance();
            t += g;
        }
        store_node(out, tid, acc);
    }
}

// The consumer graph with the release depending on the wait alone.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_graph_bad_release_edge(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let cx = build::<4>(input, tiles, dynamic_shared_window_address() + 4 * TILE_BYTES);
    let tid = thread_idx_x();
    if tid == 32 {
        cx.run_producer(&producer_graph(), cx.win);
    } else if tid < COLS {
        let v = cx.run_consumer(&consumer_graph_fanout(), tid);
        store_node(out, tid, v);
    }
}

// One barrier set per edge of the graph: the load edge and the copy edge.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_graph_bad_edge_barriers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let win = dynamic_shared_window_address();
    let bars = win + 4 * TILE_BYTES;
    if thread_idx_x() == 0 {
        Pipeline::<4>::init(bars, COLS);
        Pipeline::<4>::init(bars + 64, COLS);
    }
    barrier();
    let load_edge = Pipeline::<4>::attach(bars);
    let copy_edge = Pipeline::<4>::attach(bars + 64);
    let tid = thread_idx_x();
    let (b, g) = (block_idx_x(), grid_dim_x());
    if tid == 32 {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = b;
        while t < tiles {
            load_edge.producer_acquire(&st);
            load_edge.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(win + st.index() * TILE_BYTES, input.add((t * TILE) as usize) as *const u8, TILE_BYTES, copy_edge.producer_barrier(&st));
            st.advance();
            t += g;
        }
        load_edge.producer_tail(st);
    } else if tid < COLS {
        let ring = dynamic_shared_base::<f32>();
        let mut st = PipelineState::<4>::new();
        let mut acc = 0.0f32;
        let mut t = b;
        while t < tiles {
            load_edge.consumer_wait(&st);
            let stage = ring.add((st.index() * TILE) as usize);
            for r in 0..8u32 { acc += *stage.add((r * COLS + tid) as usize); }
            load_edge.consumer_release(&st);
            st.advance();
            t += g;
        }
        store_node(out, tid, acc);
    }
}

/// Layout of the graph's shared arena: a node-count header, then the ring, then the barriers.
const HEADER: u32 = core::mem::size_of::<u64>() as u32;
const RING_AT: u32 = HEADER;
const BARS_AT: u32 = RING_AT + 4 * TILE_BYTES;

// The ring placed after the arena header.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_graph_bad_arena_header(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let win = dynamic_shared_window_address();
    let cx = build::<4>(input, tiles, win + BARS_AT);
    let tid = thread_idx_x();
    if tid == 32 {
        cx.run_producer(&producer_graph(), win + RING_AT);
    } else if tid < COLS {
        let ring = dynamic_shared_base::<u8>().add(RING_AT as usize) as *const f32;
        let cx2 = Ctx { pipe: cx.pipe, win: cx.win, ring, input, tiles };
        let v = cx2.run_consumer(&consumer_graph(), tid);
        store_node(out, tid, v);
    }
}

// No pipeline: Reduce split over both warps (half the rows each), then a Combine node.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_graph_bad_plain_combine(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let partial = s.add(TILE as usize);
    let tid = thread_idx_x();
    let (c, half) = (tid % COLS, tid / COLS);
    let mut acc = 0.0f32;
    let mut t = block_idx_x();
    while t < tiles {
        for k in 0..4u32 { *s.add((tid + 64 * k) as usize) = *input.add((t * TILE + tid + 64 * k) as usize); }
        barrier();
        let mut p = 0.0f32;
        for r in 0..4u32 { p += *s.add(((half * 4 + r) * COLS + c) as usize); }
        *partial.add(tid as usize) = p;
        if tid < COLS { acc += *partial.add(tid as usize) + *partial.add((tid + COLS) as usize); }
        barrier();
        t += grid_dim_x();
    }
    if tid < COLS { store_node(out, tid, acc); }
}
