//! CUTLASS 3.x collective idioms in Rust: a warp-specialized kernel with a `WarpRole` picked
//! from the warp index, an elected producer lane, `PipelineParams` built like
//! `PipelineTmaAsync::Params` (role, transaction bytes, consumer arrival count), a
//! `SharedStorage` layout computed by `const fn`s, a `CollectiveMainloop` with `load`,
//! `load_tail` and `mma` methods, and k-tile loops that count `k_tile_count` down to zero.
//! `smem_pipe_write` and `smem_pipe_read` are the producer's and the consumers' states.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{
    Pipeline, PipelineState, bulk_copy_global_to_shared, pipeline_barrier_bytes,
};
use crate::device::{
    barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x,
    lane_id, thread_idx_x, warp_id,
};

const STAGES: u32 = 4;
const TILE_M: usize = 8;
const TILE_N: usize = 32;
const TILE_FLOATS: usize = TILE_M * TILE_N;
const TILE_BYTES: u32 = (TILE_FLOATS * 4) as u32;
const NUM_THREADS: u32 = 64;
const SMEM_SIZE: u32 = 8192;
const NUM_CONSUMER_THREADS: u32 = 32;

const fn round_up(x: u32, a: u32) -> u32 {
    (x + a - 1) / a * a
}

/// `struct SharedStorage { MainloopTensorStorage tensors; PipelineStorage pipeline; }`, laid
/// out by hand: the tensors first (1 KiB aligned), the pipeline's barriers after them.
const fn smem_tensors_offset() -> u32 {
    0
}

const fn smem_pipeline_offset(stages: u32) -> u32 {
    round_up(smem_tensors_offset() + stages * TILE_BYTES, 128)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum WarpRole {
    Producer,
    Consumer,
}

#[inline(always)]
fn warp_role(warp_idx: u32) -> WarpRole {
    if warp_idx == 0 { WarpRole::Producer } else { WarpRole::Consumer }
}

/// `cute::elect_one_sync()` without the vote: lane 0 of the warp.
#[inline(always)]
fn elect_one() -> bool {
    lane_id() == 0
}

/// How many k-tiles this CTA owns: `ceil((tiles - blockIdx.x) / gridDim.x)`.
#[inline(always)]
fn k_tile_count(tiles: u32) -> u32 {
    let b = block_idx_x();
    let g = grid_dim_x();
    if b < tiles { (tiles - b + g - 1) / g } else { 0 }
}

#[derive(Clone, Copy)]
struct PipelineParams {
    transaction_bytes: u32,
    num_consumers: u32,
}

#[derive(Clone, Copy)]
struct CollectiveMainloop {
    input: *const f32,
    smem: u32,
}

impl CollectiveMainloop {
    #[inline(always)]
    unsafe fn load(
        &self,
        pipeline: &Pipeline<STAGES>,
        params: PipelineParams,
        mut smem_pipe_write: PipelineState<STAGES>,
        mut k_tile_count: u32,
    ) -> PipelineState<STAGES> {
        let mut k_tile = block_idx_x();
        while k_tile_count > 0 {
            pipeline.producer_acquire(&smem_pipe_write);
            pipeline.producer_expect_tx(&smem_pipe_write, params.transaction_bytes);
            bulk_copy_global_to_shared(
                self.smem + smem_tensors_offset() + smem_pipe_write.index() * TILE_BYTES,
                self.input.add(k_tile as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipeline.producer_barrier(&smem_pipe_write),
            );
            smem_pipe_write.advance();
            k_tile += grid_dim_x();
            k_tile_count -= 1;
        }
        smem_pipe_write
    }

    #[inline(always)]
    fn load_tail(&self, pipeline: &Pipeline<STAGES>, smem_pipe_write: PipelineState<STAGES>) {
        pipeline.producer_tail(smem_pipe_write);
    }

    #[inline(always)]
    unsafe fn mma(&self, pipeline: &Pipeline<STAGES>, mut smem_pipe_read: PipelineState<STAGES>, mut k_tile_count: u32, col: usize) -> f32 {
        let tensors = dynamic_shared_base::<f32>().add(smem_tensors_offset() as usize / 4);
        let mut accum = 0.0f32;
        while k_tile_count > 0 {
            pipeline.consumer_wait(&smem_pipe_read);
            let s = tensors.add(smem_pipe_read.index() as usize * TILE_FLOATS);
            for m in 0..TILE_M {
                accum += *s.add(m * TILE_N + col);
            }
            pipeline.consumer_release(&smem_pipe_read);
            smem_pipe_read.advance();
            k_tile_count -= 1;
        }
        accum
    }
}

/// The warp-specialized kernel: warp 0 is the producer warp (one elected lane issues the
/// TMA loads), warp 1 the consumer warp; `load`/`load_tail` and `mma` are the collective's.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_cutlass_ws_mainloop(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NUM_THREADS);
    dynamic_shared_bytes(SMEM_SIZE);
    let smem = dynamic_shared_window_address();
    let params = PipelineParams { transaction_bytes: TILE_BYTES, num_consumers: NUM_CONSUMER_THREADS };
    let bars = smem + smem_pipeline_offset(STAGES);
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(bars, params.num_consumers);
    }
    barrier();
    let pipeline = Pipeline::<STAGES>::attach(bars);
    let mainloop = CollectiveMainloop { input, smem };
    let k_tiles = k_tile_count(tiles);

    match warp_role(warp_id()) {
        WarpRole::Producer => {
            if elect_one() {
                let write = PipelineState::<STAGES>::producer_start();
                let write = mainloop.load(&pipeline, params, write, k_tiles);
                mainloop.load_tail(&pipeline, write);
            }
        }
        WarpRole::Consumer => {
            let col = lane_id() as usize;
            let accum = mainloop.mma(&pipeline, PipelineState::<STAGES>::new(), k_tiles, col);
            *out.add(block_idx_x() as usize * TILE_N + col) = accum;
        }
    }
}

/// The consumer in CUTLASS's order: it waits for the next stage before it releases the one
/// it read last (`smem_pipe_release` trails `smem_pipe_read` by one), so the first k-tile is
/// peeled off and the last release comes after the loop. Written this way on purpose.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_cutlass_release_trails_read(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NUM_THREADS);
    dynamic_shared_bytes(SMEM_SIZE);
    let smem = dynamic_shared_window_address();
    let bars = smem + smem_pipeline_offset(STAGES);
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(bars, NUM_CONSUMER_THREADS);
    }
    barrier();
    let pipeline = Pipeline::<STAGES>::attach(bars);
    let mainloop = CollectiveMainloop { input, smem };
    let k_tiles = k_tile_count(tiles);

    if warp_id() == 0 {
        if elect_one() {
            let params = PipelineParams { transaction_bytes: TILE_BYTES, num_consumers: NUM_CONSUMER_THREADS };
            let write = mainloop.load(&pipeline, params, PipelineState::<STAGES>::producer_start(), k_tiles);
            mainloop.load_tail(&pipeline, write);
        }
    } else {
        let col = lane_id() as usize;
        let tensors = dynamic_shared_base::<f32>();
        let mut accum = 0.0f32;
        let mut smem_pipe_read = PipelineState::<STAGES>::new();
        let mut k = k_tiles;
        if k > 0 {
            pipeline.consumer_wait(&smem_pipe_read);
            let s = tensors.add(smem_pipe_read.index() as usize * TILE_FLOATS);
            for m in 0..TILE_M {
                accum += *s.add(m * TILE_N + col);
            }
            let mut smem_pipe_release = smem_pipe_read;
            smem_pipe_read.advance();
            k -= 1;
            while k > 0 {
                pipeline.consumer_wait(&smem_pipe_read);
                let s = tensors.add(smem_pipe_read.index() as usize * TILE_FLOATS);
                for m in 0..TILE_M {
                    accum += *s.add(m * TILE_N + col);
                }
                pipeline.consumer_release(&smem_pipe_release);
                smem_pipe_release = smem_pipe_read;
                smem_pipe_read.advance();
                k -= 1;
            }
            pipeline.consumer_release(&smem_pipe_release);
        }
        *out.add(block_idx_x() as usize * TILE_N + col) = accum;
    }
}

/// `SharedStorage` with two stages and the barriers first this time: associated constants of
/// a storage type give the offsets; roles are plain `u32` constants compared with the warp
/// index, and the stage is reached with `byte_add` from the storage's generic base.
struct SharedStorage2;

impl SharedStorage2 {
    const STAGES: u32 = 2;
    const PIPELINE: u32 = 0;
    const TENSORS: u32 = round_up(pipeline_barrier_bytes(Self::STAGES), 1024);
    const BYTES: u32 = Self::TENSORS + Self::STAGES * TILE_BYTES;
}

const PRODUCER_WARP: u32 = 1;
const CONSUMER_WARP: u32 = 0;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_cutlass_storage_consts(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NUM_THREADS);
    dynamic_shared_bytes(SMEM_SIZE);
    const { assert!(SharedStorage2::BYTES <= SMEM_SIZE) };
    let smem = dynamic_shared_window_address();
    let storage = dynamic_shared_base::<u8>();
    if thread_idx_x() == 0 {
        Pipeline::<2>::init(smem + SharedStorage2::PIPELINE, NUM_CONSUMER_THREADS);
    }
    barrier();
    let pipeline = Pipeline::<2>::attach(smem + SharedStorage2::PIPELINE);
    let b = block_idx_x();
    let g = grid_dim_x();
    let warp = warp_id();

    if warp == PRODUCER_WARP && elect_one() {
        let mut smem_pipe_write = PipelineState::<2>::producer_start();
        let mut k_tile = b;
        while k_tile < tiles {
            pipeline.producer_acquire(&smem_pipe_write);
            pipeline.producer_expect_tx(&smem_pipe_write, TILE_BYTES);
            bulk_copy_global_to_shared(
                smem + SharedStorage2::TENSORS + smem_pipe_write.index() * TILE_BYTES,
                input.add(k_tile as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipeline.producer_barrier(&smem_pipe_write),
            );
            smem_pipe_write.advance();
            k_tile += g;
        }
        pipeline.producer_tail(smem_pipe_write);
    } else if warp == CONSUMER_WARP {
        let col = lane_id() as usize;
        let mut accum = 0.0f32;
        let mut smem_pipe_read = PipelineState::<2>::new();
        let mut k_tile = b;
        while k_tile < tiles {
            pipeline.consumer_wait(&smem_pipe_read);
            let stage = storage
                .byte_add((SharedStorage2::TENSORS + smem_pipe_read.index() * TILE_BYTES) as usize)
                as *const f32;
            for m in 0..TILE_M {
                accum += *stage.add(m * TILE_N + col);
            }
            pipeline.consumer_release(&smem_pipe_read);
            smem_pipe_read.advance();
            k_tile += g;
        }
        *out.add(b as usize * TILE_N + col) = accum;
    }
}

/// The DMA warp is warp 1 and the math warp is warp 0 (the order some CUTLASS kernels use so
/// that the math warps start at thread 0); the collective's `load` and `mma` are reused.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_cutlass_dma_warp_last(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NUM_THREADS);
    dynamic_shared_bytes(SMEM_SIZE);
    let smem = dynamic_shared_window_address();
    let bars = smem + smem_pipeline_offset(STAGES);
    if thread_idx_x() == 32 {
        Pipeline::<STAGES>::init(bars, NUM_CONSUMER_THREADS);
    }
    barrier();
    let pipeline = Pipeline::<STAGES>::attach(bars);
    let mainloop = CollectiveMainloop { input, smem };
    let k_tiles = k_tile_count(tiles);
    let tid = thread_idx_x();

    if tid < 32 {
        let accum = mainloop.mma(&pipeline, PipelineState::<STAGES>::new(), k_tiles, tid as usize);
        *out.add(block_idx_x() as usize * TILE_N + tid as usize) = accum;
    } else if tid == 32 {
        let params = PipelineParams { transaction_bytes: TILE_BYTES, num_consumers: NUM_CONSUMER_THREADS };
        let write = mainloop.load(&pipeline, params, PipelineState::<STAGES>::producer_start(), k_tiles);
        mainloop.load_tail(&pipeline, write);
    }
}

/// BROKEN: the consumer arrival count is taken as the size of a warpgroup's worth of threads
/// (64, the whole CTA here) while only the 32 threads of the consumer warp release: the empty
/// barriers never complete and the producer hangs when the ring wraps.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_cutlass_bad_arrive_count(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NUM_THREADS);
    dynamic_shared_bytes(SMEM_SIZE);
    let smem = dynamic_shared_window_address();
    let params = PipelineParams { transaction_bytes: TILE_BYTES, num_consumers: NUM_THREADS };
    let bars = smem + smem_pipeline_offset(STAGES);
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(bars, params.num_consumers);
    }
    barrier();
    let pipeline = Pipeline::<STAGES>::attach(bars);
    let mainloop = CollectiveMainloop { input, smem };
    let k_tiles = k_tile_count(tiles);

    match warp_role(warp_id()) {
        WarpRole::Producer => {
            if elect_one() {
                let write = mainloop.load(&pipeline, params, PipelineState::<STAGES>::producer_start(), k_tiles);
                mainloop.load_tail(&pipeline, write);
            }
        }
        WarpRole::Consumer => {
            let col = lane_id() as usize;
            let accum = mainloop.mma(&pipeline, PipelineState::<STAGES>::new(), k_tiles, col);
            *out.add(block_idx_x() as usize * TILE_N + col) = accum;
        }
    }
}

/// BROKEN: the producer starts from a default (consumer) state instead of
/// `make_producer_start_state`: its first acquire waits for phase 0 of an empty barrier that
/// only completes after a release, and the consumers wait for a copy that is never issued.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_cutlass_bad_default_write_state(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NUM_THREADS);
    dynamic_shared_bytes(SMEM_SIZE);
    let smem = dynamic_shared_window_address();
    let params = PipelineParams { transaction_bytes: TILE_BYTES, num_consumers: NUM_CONSUMER_THREADS };
    let bars = smem + smem_pipeline_offset(STAGES);
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(bars, params.num_consumers);
    }
    barrier();
    let pipeline = Pipeline::<STAGES>::attach(bars);
    let mainloop = CollectiveMainloop { input, smem };
    let k_tiles = k_tile_count(tiles);

    match warp_role(warp_id()) {
        WarpRole::Producer => {
            if elect_one() {
                let write: PipelineState<STAGES> = Default::default();
                let write = mainloop.load(&pipeline, params, write, k_tiles);
                mainloop.load_tail(&pipeline, write);
            }
        }
        WarpRole::Consumer => {
            let col = lane_id() as usize;
            let accum = mainloop.mma(&pipeline, PipelineState::<STAGES>::new(), k_tiles, col);
            *out.add(block_idx_x() as usize * TILE_N + col) = accum;
        }
    }
}

/// BROKEN: the TMA destination is computed from the *next* write slot, `(index + 1) % STAGES`,
/// while the copy completes on the current slot's barrier: each k-tile lands in the stage the
/// consumers read one k-tile later (and the first stage they read was never written).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_cutlass_bad_next_slot_dest(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NUM_THREADS);
    dynamic_shared_bytes(SMEM_SIZE);
    let smem = dynamic_shared_window_address();
    let bars = smem + smem_pipeline_offset(STAGES);
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(bars, NUM_CONSUMER_THREADS);
    }
    barrier();
    let pipeline = Pipeline::<STAGES>::attach(bars);
    let mainloop = CollectiveMainloop { input, smem };
    let b = block_idx_x();
    let g = grid_dim_x();

    if warp_id() == 0 {
        if elect_one() {
            let mut smem_pipe_write = PipelineState::<STAGES>::producer_start();
            let mut k_tile_count = k_tile_count(tiles);
            let mut k_tile = b;
            while k_tile_count > 0 {
                pipeline.producer_acquire(&smem_pipe_write);
                pipeline.producer_expect_tx(&smem_pipe_write, TILE_BYTES);
                let slot = (smem_pipe_write.index() + 1) % STAGES;
                bulk_copy_global_to_shared(
                    smem + smem_tensors_offset() + slot * TILE_BYTES,
                    input.add(k_tile as usize * TILE_FLOATS) as *const u8,
                    TILE_BYTES,
                    pipeline.producer_barrier(&smem_pipe_write),
                );
                smem_pipe_write.advance();
                k_tile += g;
                k_tile_count -= 1;
            }
            pipeline.producer_tail(smem_pipe_write);
        }
    } else {
        let col = lane_id() as usize;
        let accum = mainloop.mma(&pipeline, PipelineState::<STAGES>::new(), k_tile_count(tiles), col);
        *out.add(b as usize * TILE_N + col) = accum;
    }
}

/// BROKEN: `SharedStorage` puts the pipeline storage "at the end of the tensors" but computes
/// that end as the ring's size minus the barriers' bytes: the barriers sit inside the last
/// stage, and the fourth TMA load overwrites them.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r40_cutlass_bad_barriers_in_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(NUM_THREADS);
    dynamic_shared_bytes(SMEM_SIZE);
    let smem = dynamic_shared_window_address();
    let bars = smem + smem_tensors_offset() + STAGES * TILE_BYTES - pipeline_barrier_bytes(STAGES);
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(bars, NUM_CONSUMER_THREADS);
    }
    barrier();
    let pipeline = Pipeline::<STAGES>::attach(bars);
    let mainloop = CollectiveMainloop { input, smem };
    let k_tiles = k_tile_count(tiles);
    let params = PipelineParams { transaction_bytes: TILE_BYTES, num_consumers: NUM_CONSUMER_THREADS };

    match warp_role(warp_id()) {
        WarpRole::Producer => {
            if elect_one() {
                let write = mainloop.load(&pipeline, params, PipelineState::<STAGES>::producer_start(), k_tiles);
                mainloop.load_tail(&pipeline, write);
            }
        }
        WarpRole::Consumer => {
            let col = lane_id() as usize;
            let accum = mainloop.mma(&pipeline, PipelineState::<STAGES>::new(), k_tiles, col);
            *out.add(block_idx_x() as usize * TILE_N + col) = accum;
        }
    }
}
