//! Group D: structs holding the pipeline.

#[allow(unused_imports)]
use super::*;


pub(crate) struct DFeeder<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    window: u32,
    input: *const f32,
}

impl<const S: u32> DFeeder<S> {
    #[inline(never)]
    unsafe fn push(&mut self, t: u32) {
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        let dst = self.window + RING + self.state.index() * TILE_BYTES;
        bulk_copy_global_to_shared(dst, unsafe { src(self.input, t) }, TILE_BYTES, self.pipe.producer_barrier(&self.state));
        self.state.advance();
    }

    #[inline(always)]
    fn finish(self) {
        self.pipe.producer_tail(self.state);
    }
}

pub(crate) struct DReader<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    ring: *const f32,
    col: u32,
    acc: f32,
}

impl<const S: u32> DReader<S> {
    #[inline(always)]
    unsafe fn pull(&mut self) {
        self.pipe.consumer_wait(&self.state);
        let stage = unsafe { self.ring.add((self.state.index() * TILE) as usize) };
        for r in 0..ROWS {
            self.acc += unsafe { *stage.add((r * COLS + self.col) as usize) };
        }
        self.pipe.consumer_release(&self.state);
        self.state.advance();
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_struct_feeder_reader(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    const S: u32 = 4;
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<S>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<S>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            let mut f = DFeeder { pipe, state: PipelineState::producer_start(), window, input };
            let mut t = b;
            while t < tiles {
                f.push(t);
                t += g;
            }
            f.finish();
        } else if tid < 32 {
            let mut r = DReader { pipe, state: PipelineState::new(), ring: ring_base(), col: tid, acc: 0.0 };
            let mut t = b;
            while t < tiles {
                r.pull();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = r.acc;
        }
    }
}

#[derive(Clone, Copy)]
pub(crate) struct DCopyReader {
    pipe: Pipeline<4>,
    state: PipelineState<4>,
    ring: *const f32,
    col: u32,
}

impl DCopyReader {
    // BUG (used by r20_struct_bad_by_value_step): `self` by value, so the advance lands on a copy.
    #[inline(always)]
    unsafe fn step(mut self) -> f32 {
        self.pipe.consumer_wait(&self.state);
        let stage = unsafe { self.ring.add((self.state.index() * TILE) as usize) };
        let mut s = 0.0;
        for r in 0..ROWS {
            s += unsafe { *stage.add((r * COLS + self.col) as usize) };
        }
        self.pipe.consumer_release(&self.state);
        self.state.advance();
        s
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_struct_bad_by_value_step(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    unsafe {
        if tid == 32 {
            let mut f = DFeeder { pipe, state: PipelineState::producer_start(), window, input };
            let mut t = b;
            while t < tiles {
                f.push(t);
                t += g;
            }
            f.finish();
        } else if tid < 32 {
            let reader = DCopyReader { pipe, state: PipelineState::new(), ring: ring_base(), col: tid };
            let mut acc = 0.0;
            let mut t = b;
            while t < tiles {
                acc += reader.step();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

pub(crate) struct DRoles {
    producer: PipelineState<2>,
    consumer: PipelineState<2>,
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_struct_both_states(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<2>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<2>::attach(window);
    let b = block_idx_x();
    let g = grid_dim_x();
    let n = owned(tiles);
    let mut roles = DRoles { producer: PipelineState::producer_start(), consumer: PipelineState::new() };
    unsafe {
        match tid {
            32 => {
                for k in 0..n {
                    pipe.producer_acquire(&roles.producer);
                    pipe.producer_expect_tx(&roles.producer, TILE_BYTES);
                    bulk_copy_global_to_shared(window + RING + roles.producer.index() * TILE_BYTES, src(input, b + k * g), TILE_BYTES, pipe.producer_barrier(&roles.producer));
                    roles.producer.advance();
                }
                pipe.producer_tail(roles.producer);
            }
            0..=31 => {
                let ring = ring_base();
                let mut acc = 0.0f32;
                for _ in 0..n {
                    pipe.consumer_wait(&roles.consumer);
                    let stage = ring.add((roles.consumer.index() * TILE) as usize);
                    for r in 0..ROWS {
                        acc += *stage.add((r * COLS + tid) as usize);
                    }
                    pipe.consumer_release(&roles.consumer);
                    roles.consumer.advance();
                }
                *out.add((b * COLS + tid) as usize) = acc;
            }
            _ => {}
        }
    }
}
