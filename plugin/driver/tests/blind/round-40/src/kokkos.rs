//! Kokkos-style team kernels: a `TeamMember` (league rank and size, team rank), a
//! `ScratchPad` bump allocator over the team's dynamic shared memory (`team_scratch(0)`),
//! `team_thread_range` and `single_per_team` taking closures, `team_barrier()`, and league loops
//! `for t = league_rank; t < tiles; t += league_size`. The pipelined kernels allocate their
//! barriers and ring from the same scratch pad.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{
    Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes,
};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    thread_idx_x,
};

const TEAM_SIZE: u32 = 64;
const SCRATCH_BYTES: u32 = 8192;
const TILE: u32 = 256;
const TILE_BYTES: u32 = TILE * 4;
const COLS: u32 = 32;
const ROWS: u32 = TILE / COLS;

#[derive(Clone, Copy)]
struct TeamMember {
    league_rank: u32,
    league_size: u32,
    team_rank: u32,
}

impl TeamMember {
    #[inline(always)]
    fn new() -> Self {
        TeamMember { league_rank: block_idx_x(), league_size: grid_dim_x(), team_rank: thread_idx_x() }
    }

    #[inline(always)]
    fn team_barrier(&self) {
        barrier();
    }
}

/// Level-0 team scratch: a bump allocator handing out (generic pointer, window address) pairs.
struct ScratchPad {
    base: *mut u8,
    window: u32,
    used: u32,
}

impl ScratchPad {
    #[inline(always)]
    fn team_scratch() -> Self {
        ScratchPad { base: dynamic_shared_base::<u8>(), window: dynamic_shared_window_address(), used: 0 }
    }

    /// `bytes` more, aligned to `align` (a power of two).
    #[inline(always)]
    fn alloc<T>(&mut self, bytes: u32, align: u32) -> (*mut T, u32) {
        let start = (self.used + align - 1) & !(align - 1);
        self.used = start + bytes;
        (unsafe { self.base.add(start as usize) } as *mut T, self.window + start)
    }
}

#[inline(always)]
fn team_thread_range(member: &TeamMember, n: u32, mut f: impl FnMut(u32)) {
    let mut i = member.team_rank;
    while i < n {
        f(i);
        i += TEAM_SIZE;
    }
}

#[inline(always)]
fn single_per_team(member: &TeamMember, f: impl FnOnce()) {
    if member.team_rank == 0 {
        f();
    }
}

/// The plain team kernel: the team copies the league's tile into scratch with a
/// `team_thread_range`, barriers, the first 32 ranks sum their column, barriers again.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_kokkos_team_scratch_tile(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(TEAM_SIZE);
    dynamic_shared_bytes(SCRATCH_BYTES);
    let member = TeamMember::new();
    let mut pad = ScratchPad::team_scratch();
    let (tile, _) = pad.alloc::<f32>(TILE_BYTES, 16);
    let mut acc = 0.0f32;
    let mut league_tile = member.league_rank;
    while league_tile < tiles {
        let src = input.add((league_tile * TILE) as usize);
        team_thread_range(&member, TILE, |i| *tile.add(i as usize) = *src.add(i as usize));
        member.team_barrier();
        if member.team_rank < COLS {
            for r in 0..ROWS {
                acc += *tile.add((r * COLS + member.team_rank) as usize);
            }
        }
        member.team_barrier();
        league_tile += member.league_size;
    }
    if member.team_rank < COLS {
        *out.add((member.league_rank * COLS + member.team_rank) as usize) = acc;
    }
}

/// The pipelined league loop: barriers and a four-stage ring come out of the scratch pad,
/// rank 0 initialises through `single_per_team`, rank 0 produces, ranks 32..63 consume.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_kokkos_pipelined_league(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(TEAM_SIZE);
    dynamic_shared_bytes(SCRATCH_BYTES);
    let member = TeamMember::new();
    let mut pad = ScratchPad::team_scratch();
    let (_, bars) = pad.alloc::<u64>(pipeline_barrier_bytes(S), 8);
    let (ring, ring_window) = pad.alloc::<f32>(S * TILE_BYTES, 1024);
    single_per_team(&member, || {
        Pipeline::<S>::init(bars, COLS);
    });
    member.team_barrier();
    let pipe = Pipeline::<S>::attach(bars);

    if member.team_rank == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = member.league_rank;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                ring_window + st.index() * TILE_BYTES,
                input.add((t * TILE) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += member.league_size;
        }
        pipe.producer_tail(st);
    } else if member.team_rank >= COLS {
        let c = member.team_rank - COLS;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = member.league_rank;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add((st.index() * TILE) as usize);
            for r in 0..ROWS {
                acc += *stage.add((r * COLS + c) as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += member.league_size;
        }
        *out.add((member.league_rank * COLS + c) as usize) = acc;
    }
}

/// `parallel_reduce` over the league's tiles read from global memory (each rank: its column,
/// half of the rows), then a team reduction of the two halves through 64 floats of scratch.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_kokkos_team_reduce_halves(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(TEAM_SIZE);
    dynamic_shared_bytes(SCRATCH_BYTES);
    let member = TeamMember::new();
    let mut pad = ScratchPad::team_scratch();
    let (scratch, _) = pad.alloc::<f32>(TEAM_SIZE * 4, 16);
    let col = member.team_rank % COLS;
    let half = member.team_rank / COLS;
    let mut partial = 0.0f32;
    let mut t = member.league_rank;
    while t < tiles {
        let src = input.add((t * TILE) as usize);
        partial += (0..ROWS / 2).map(|r| *src.add(((half * ROWS / 2 + r) * COLS + col) as usize)).sum::<f32>();
        t += member.league_size;
    }
    *scratch.add(member.team_rank as usize) = partial;
    member.team_barrier();
    if member.team_rank < COLS {
        let total = *scratch.add(member.team_rank as usize) + *scratch.add((member.team_rank + COLS) as usize);
        *out.add((member.league_rank * COLS + member.team_rank) as usize) = total;
    }
}

/// The last rank of the team is the producer and ranks 0..31 consume (ranks 32..62 idle);
/// the ring is allocated first in the pad and the barriers after it.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_kokkos_last_rank_producer(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 3;
    block_threads(TEAM_SIZE);
    dynamic_shared_bytes(SCRATCH_BYTES);
    let member = TeamMember::new();
    let mut pad = ScratchPad::team_scratch();
    let (ring, ring_window) = pad.alloc::<f32>(S * TILE_BYTES, 1024);
    let (_, bars) = pad.alloc::<u64>(pipeline_barrier_bytes(S), 8);
    if member.team_rank == TEAM_SIZE - 1 {
        Pipeline::<S>::init(bars, COLS);
    }
    member.team_barrier();
    let pipe = Pipeline::<S>::attach(bars);

    if member.team_rank == TEAM_SIZE - 1 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = member.league_rank;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                ring_window + st.index() * TILE_BYTES,
                input.add((t * TILE) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += member.league_size;
        }
        pipe.producer_tail(st);
    } else if member.team_rank < COLS {
        let c = member.team_rank;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = member.league_rank;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add((st.index() * TILE) as usize);
            acc += (0..ROWS).map(|r| *stage.add((r * COLS + c) as usize)).sum::<f32>();
            pipe.consumer_release(&st);
            st.advance();
            t += member.league_size;
        }
        *out.add((member.league_rank * COLS + c) as usize) = acc;
    }
}

/// BROKEN: the tile is allocated with its element count where the pad takes bytes
/// (`alloc::<f32>(TILE, ..)`: 256 bytes for 1 KiB of floats), so the partials allocated next
/// start at float 64 of the tile: ranks store their partial over rows 2 and 3 in the same
/// barrier interval in which warp 0 still reads those rows.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_kokkos_bad_alloc_elems_as_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(TEAM_SIZE);
    dynamic_shared_bytes(SCRATCH_BYTES);
    let member = TeamMember::new();
    let mut pad = ScratchPad::team_scratch();
    let (tile, _) = pad.alloc::<f32>(TILE, 16);
    let (partials, _) = pad.alloc::<f32>(TEAM_SIZE * 4, 16);
    let col = member.team_rank % COLS;
    let half = member.team_rank / COLS;
    let mut acc = 0.0f32;
    let mut t = member.league_rank;
    while t < tiles {
        let src = input.add((t * TILE) as usize);
        team_thread_range(&member, TILE, |i| *tile.add(i as usize) = *src.add(i as usize));
        member.team_barrier();
        let mut p = 0.0f32;
        for r in 0..ROWS / 2 {
            p += *tile.add(((half * ROWS / 2 + r) * COLS + col) as usize);
        }
        *partials.add(member.team_rank as usize) = p;
        member.team_barrier();
        if member.team_rank < COLS {
            acc += *partials.add(col as usize) + *partials.add((col + COLS) as usize);
        }
        member.team_barrier();
        t += member.league_size;
    }
    if member.team_rank < COLS {
        *out.add((member.league_rank * COLS + col) as usize) = acc;
    }
}

/// BROKEN: the consumers build their stage view once, before the league loop ("scratch views
/// are created outside the parallel region"), from the fresh state: every tile is read from
/// stage 0, whatever stage its copy filled.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_kokkos_bad_view_outside_loop(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(TEAM_SIZE);
    dynamic_shared_bytes(SCRATCH_BYTES);
    let member = TeamMember::new();
    let mut pad = ScratchPad::team_scratch();
    let (_, bars) = pad.alloc::<u64>(pipeline_barrier_bytes(S), 8);
    let (ring, ring_window) = pad.alloc::<f32>(S * TILE_BYTES, 1024);
    single_per_team(&member, || {
        Pipeline::<S>::init(bars, COLS);
    });
    member.team_barrier();
    let pipe = Pipeline::<S>::attach(bars);

    if member.team_rank == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = member.league_rank;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                ring_window + st.index() * TILE_BYTES,
                input.add((t * TILE) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += member.league_size;
        }
        pipe.producer_tail(st);
    } else if member.team_rank >= COLS {
        let c = member.team_rank - COLS;
        let mut st = PipelineState::<S>::new();
        let view = ring.add((st.index() * TILE) as usize);
        let column = |r: u32| *view.add((r * COLS + c) as usize);
        let mut acc = 0.0f32;
        let mut t = member.league_rank;
        while t < tiles {
            pipe.consumer_wait(&st);
            for r in 0..ROWS {
                acc += column(r);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += member.league_size;
        }
        *out.add((member.league_rank * COLS + c) as usize) = acc;
    }
}

/// BROKEN: the producer is picked as "rank 0 of each warp" (`team_rank % 32 == 0`), so ranks 0
/// and 32 both copy every tile onto barriers initialised for one arrival, and rank 32, busy
/// producing, never releases: 31 consumers against an arrival count of 32.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_kokkos_bad_producer_per_warp(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 4;
    block_threads(TEAM_SIZE);
    dynamic_shared_bytes(SCRATCH_BYTES);
    let member = TeamMember::new();
    let mut pad = ScratchPad::team_scratch();
    let (_, bars) = pad.alloc::<u64>(pipeline_barrier_bytes(S), 8);
    let (ring, ring_window) = pad.alloc::<f32>(S * TILE_BYTES, 1024);
    single_per_team(&member, || {
        Pipeline::<S>::init(bars, COLS);
    });
    member.team_barrier();
    let pipe = Pipeline::<S>::attach(bars);

    if member.team_rank % 32 == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = member.league_rank;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                ring_window + st.index() * TILE_BYTES,
                input.add((t * TILE) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += member.league_size;
        }
        pipe.producer_tail(st);
    } else if member.team_rank >= COLS {
        let c = member.team_rank - COLS;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = member.league_rank;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add((st.index() * TILE) as usize);
            for r in 0..ROWS {
                acc += *stage.add((r * COLS + c) as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += member.league_size;
        }
        *out.add((member.league_rank * COLS + c) as usize) = acc;
    }
}

/// BROKEN: eight stages requested from a pad of 8 KiB: the barriers take the first 128 bytes,
/// the ring is aligned up to byte 1024, and its last stage, 8192..9216, lies past the team's
/// scratch; the eighth tile's copy lands outside shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_kokkos_bad_ring_past_pad(input: *const f32, tiles: u32, out: *mut f32) {
    const S: u32 = 8;
    block_threads(TEAM_SIZE);
    dynamic_shared_bytes(SCRATCH_BYTES);
    let member = TeamMember::new();
    let mut pad = ScratchPad::team_scratch();
    let (_, bars) = pad.alloc::<u64>(pipeline_barrier_bytes(S), 8);
    let (ring, ring_window) = pad.alloc::<f32>(S * TILE_BYTES, 1024);
    single_per_team(&member, || {
        Pipeline::<S>::init(bars, COLS);
    });
    member.team_barrier();
    let pipe = Pipeline::<S>::attach(bars);

    if member.team_rank == 0 {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = member.league_rank;
        while t < tiles {
            pipe.producer_acquire(&st);
            pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(
                ring_window + st.index() * TILE_BYTES,
                input.add((t * TILE) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&st),
            );
            st.advance();
            t += member.league_size;
        }
        pipe.producer_tail(st);
    } else if member.team_rank >= COLS {
        let c = member.team_rank - COLS;
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = member.league_rank;
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add((st.index() * TILE) as usize);
            for r in 0..ROWS {
                acc += *stage.add((r * COLS + c) as usize);
            }
            pipe.consumer_release(&st);
            st.advance();
            t += member.league_size;
        }
        *out.add((member.league_rank * COLS + c) as usize) = acc;
    }
}
