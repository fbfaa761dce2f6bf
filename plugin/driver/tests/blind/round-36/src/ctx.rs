//! Style: a kernel-context struct with methods. `Ctx` owns the pipeline, the ring, the block's
//! share of tiles and both roles' states; `fill` runs the producer, `drain` one consumer.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{bulk_copy_global_to_shared, Pipeline, PipelineState};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_BYTES: u32 = 1024;
const TILE_FLOATS: usize = 256;

struct Ctx<const S: u32> {
    pipe: Pipeline<S>,
    window: u32,
    ring: *const f32,
    input: *const f32,
    block: u32,
    grid: u32,
    mine: u32,
    produce: PipelineState<S>,
    consume: PipelineState<S>,
}

impl<const S: u32> Ctx<S> {
    /// Every thread calls it: thread 0 initialises the barriers after the ring, then the block
    /// barrier.
    #[inline(always)]
    unsafe fn new(input: *const f32, tiles: u32, tid: u32) -> Self {
        let window = dynamic_shared_window_address();
        let bars = window + S * TILE_BYTES;
        if tid == 0 {
            Pipeline::<S>::init(bars, 32);
        }
        barrier();
        let block = block_idx_x();
        let grid = grid_dim_x();
        Ctx {
            pipe: Pipeline::<S>::attach(bars),
            window,
            ring: dynamic_shared_base::<f32>(),
            input,
            block,
            grid,
            mine: if block < tiles { (tiles - block + grid - 1) / grid } else { 0 },
            produce: PipelineState::<S>::producer_start(),
            consume: PipelineState::<S>::new(),
        }
    }

    #[inline(always)]
    unsafe fn fill(&mut self) {
        for k in 0..self.mine {
            self.pipe.producer_acquire(&self.produce);
            self.pipe.producer_expect_tx(&self.produce, TILE_BYTES);
            let t = self.block + k * self.grid;
            bulk_copy_global_to_shared(
                self.window + self.produce.index() * TILE_BYTES,
                self.input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                self.pipe.producer_barrier(&self.produce),
            );
            self.produce.advance();
        }
        self.pipe.producer_tail(self.produce);
    }

    /// Broken twin of `fill`: the copy lands in the stage after the acquired one.
    #[inline(always)]
    unsafe fn fill_next_slot(&mut self) {
        for k in 0..self.mine {
            self.pipe.producer_acquire(&self.produce);
            self.pipe.producer_expect_tx(&self.produce, TILE_BYTES);
            let t = self.block + k * self.grid;
            let slot = (self.produce.index() + 1) % S;
            bulk_copy_global_to_shared(
                self.window + slot * TILE_BYTES,
                self.input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                self.pipe.producer_barrier(&self.produce),
            );
            self.produce.advance();
        }
        self.pipe.producer_tail(self.produce);
    }

    #[inline(always)]
    unsafe fn stage(&self) -> *const f32 {
        self.ring.add(self.consume.index() as usize * TILE_FLOATS)
    }

    #[inline(always)]
    unsafe fn drain(&mut self, c: usize) -> f32 {
        let mut acc = 0.0f32;
        for _ in 0..self.mine {
            self.pipe.consumer_wait(&self.consume);
            let stage = self.stage();
            for r in 0..8 {
                acc += *stage.add(r * 32 + c);
            }
            self.pipe.consumer_release(&self.consume);
            self.consume.advance();
        }
        acc
    }

    /// Broken twin of `drain`: never advances, so every tile waits on and reads stage 0.
    #[inline(always)]
    unsafe fn drain_in_place(&mut self, c: usize) -> f32 {
        let mut acc = 0.0f32;
        for _ in 0..self.mine {
            self.pipe.consumer_wait(&self.consume);
            let stage = self.stage();
            for r in 0..8 {
                acc += *stage.add(r * 32 + c);
            }
            self.pipe.consumer_release(&self.consume);
        }
        acc
    }

    /// Broken twin of `drain`: one tile more than the producer fills.
    #[inline(always)]
    unsafe fn drain_one_more(&mut self, c: usize) -> f32 {
        let mut acc = 0.0f32;
        for _ in 0..self.mine + 1 {
            self.pipe.consumer_wait(&self.consume);
            let stage = self.stage();
            for r in 0..8 {
                acc += *stage.add(r * 32 + c);
            }
            self.pipe.consumer_release(&self.consume);
            self.consume.advance();
        }
        acc
    }

    /// Broken twin of `drain`: hands the stage to a reader of `u32` words.
    #[inline(always)]
    unsafe fn drain_as_words(&mut self, c: usize) -> f32 {
        let mut acc = 0.0f32;
        for _ in 0..self.mine {
            self.pipe.consumer_wait(&self.consume);
            acc += word_column(self.stage() as *const u32, c);
            self.pipe.consumer_release(&self.consume);
            self.consume.advance();
        }
        acc
    }

    #[inline(always)]
    unsafe fn store(&self, out: *mut f32, c: usize, value: f32) {
        *out.add(self.block as usize * 32 + c) = value;
    }
}

#[inline(never)]
unsafe fn word_column(stage: *const u32, c: usize) -> f32 {
    let mut s = 0.0f32;
    for r in 0..8 {
        s += *stage.add(r * 32 + c) as f32;
    }
    s
}

// ---- correct ----

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r36_ctx_two_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let mut cx = Ctx::<2>::new(input, tiles, tid);
    if tid == 32 {
        cx.fill();
    } else if tid < 32 {
        let v = cx.drain(tid as usize);
        cx.store(out, tid as usize, v);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r36_ctx_four_stages_warp1(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let mut cx = Ctx::<4>::new(input, tiles, tid);
    if tid == 0 {
        cx.fill();
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let v = cx.drain(c);
        cx.store(out, c, v);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r36_ctx_one_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let mut cx = Ctx::<1>::new(input, tiles, tid);
    if tid == 63 {
        cx.fill();
    } else if tid < 32 {
        let v = cx.drain(tid as usize);
        cx.store(out, tid as usize, v);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r36_ctx_three_stages_match(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let mut cx = Ctx::<3>::new(input, tiles, tid);
    match tid {
        0..=31 => {
            let v = cx.drain(tid as usize);
            cx.store(out, tid as usize, v);
        }
        48 => cx.fill(),
        _ => {}
    }
}

// ---- broken ----

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r36_ctx_bad_drain_never_advances(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let mut cx = Ctx::<2>::new(input, tiles, tid);
    if tid == 32 {
        cx.fill();
    } else if tid < 32 {
        let v = cx.drain_in_place(tid as usize);
        cx.store(out, tid as usize, v);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r36_ctx_bad_fill_next_slot(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let mut cx = Ctx::<3>::new(input, tiles, tid);
    if tid == 32 {
        cx.fill_next_slot();
    } else if tid < 32 {
        let v = cx.drain(tid as usize);
        cx.store(out, tid as usize, v);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r36_ctx_bad_drain_one_more(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let mut cx = Ctx::<4>::new(input, tiles, tid);
    if tid == 0 {
        cx.fill();
    } else if tid >= 32 {
        let c = (tid - 32) as usize;
        let v = cx.drain_one_more(c);
        cx.store(out, c, v);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r36_ctx_bad_stage_read_as_words(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let mut cx = Ctx::<2>::new(input, tiles, tid);
    if tid == 32 {
        cx.fill();
    } else if tid < 32 {
        let v = cx.drain_as_words(tid as usize);
        cx.store(out, tid as usize, v);
    }
}
