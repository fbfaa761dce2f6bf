//! Group F: const generics and traits.

#[allow(unused_imports)]
use super::*;


#[inline(always)]
pub(crate) unsafe fn f_ring_kernel<const S: u32>(input: *const f32, tiles: u32, out: *mut f32, ring_at: u32) {
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
            let mut st = PipelineState::<S>::producer_start();
            let mut t = b;
            while t < tiles {
                pipe.producer_acquire(&st);
                pipe.producer_expect_tx(&st, TILE_BYTES);
                bulk_copy_global_to_shared(window + ring_at + st.index() * TILE_BYTES, src(input, t), TILE_BYTES, pipe.producer_barrier(&st));
                st.advance();
                t += g;
            }
            pipe.producer_tail(st);
        } else if tid < 32 {
            let ring = dynamic_shared_base::<f32>().add((ring_at / 4) as usize);
            let mut st = PipelineState::<S>::new();
            let mut acc = 0.0f32;
            let mut t = b;
            while t < tiles {
                pipe.consumer_wait(&st);
                let stage = ring.add((st.index() * TILE) as usize);
                for r in 0..ROWS {
                    acc += *stage.add((r * COLS + tid) as usize);
                }
                pipe.consumer_release(&st);
                st.advance();
                t += g;
            }
            *out.add((b * COLS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_generic_three_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    unsafe { f_ring_kernel::<3>(input, tiles, out, RING) }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_generic_seven_stages_low_ring(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    // 7 stages of barriers (112 bytes) then the ring at 128: 128 + 7 KiB = 7296 bytes.
    unsafe { f_ring_kernel::<7>(input, tiles, out, 128) }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_generic_bad_eight_stages(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    // BUG: 8 stages at byte 1024 end at 9216: the last stage lies past the 8 KiB window.
    unsafe { f_ring_kernel::<8>(input, tiles, out, RING) }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_generic_bad_ring_on_barriers(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    // BUG: the ring starts at byte 32, inside the 4-stage barrier block (bytes 0..64).
    unsafe { f_ring_kernel::<4>(input, tiles, out, 32) }
}

pub(crate) trait FPart {
    unsafe fn play(&mut self, tiles: u32);
}

pub(crate) struct FProd<const S: u32> {
    pipe: Pipeline<S>,
    window: u32,
    input: *const f32,
}

pub(crate) struct FCons<const S: u32> {
    pipe: Pipeline<S>,
    col: u32,
    out: *mut f32,
}

impl<const S: u32> FPart for FProd<S> {
    unsafe fn play(&mut self, tiles: u32) {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            self.pipe.producer_acquire(&st);
            self.pipe.producer_expect_tx(&st, TILE_BYTES);
            bulk_copy_global_to_shared(self.window + RING + st.index() * TILE_BYTES, unsafe { src(self.input, t) }, TILE_BYTES, self.pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        self.pipe.producer_tail(st);
    }
}

impl<const S: u32> FPart for FCons<S> {
    unsafe fn play(&mut self, tiles: u32) {
        let ring = unsafe { ring_base() };
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            self.pipe.consumer_wait(&st);
            let stage = unsafe { ring.add((st.index() * TILE) as usize) };
            for r in 0..ROWS {
                acc += unsafe { *stage.add((r * COLS + self.col) as usize) };
            }
            self.pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        unsafe { *self.out.add((block_idx_x() * COLS + self.col) as usize) = acc };
    }
}

#[inline(always)]
pub(crate) unsafe fn f_drive<P: FPart>(mut part: P, tiles: u32) {
    unsafe { part.play(tiles) }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_trait_static_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    unsafe {
        if tid == 32 {
            f_drive(FProd { pipe, window, input }, tiles);
        } else if tid < 32 {
            f_drive(FCons { pipe, col: tid, out }, tiles);
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_trait_dyn_roles(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let mut prod = FProd { pipe, window, input };
    let mut cons = FCons { pipe, col: tid, out };
    if tid <= 32 {
        let part: &mut dyn FPart = if tid == 32 { &mut prod } else { &mut cons };
        unsafe { part.play(tiles) };
    }
}

pub(crate) struct FGreedyProd {
    pipe: Pipeline<4>,
    window: u32,
    input: *const f32,
}

impl FPart for FGreedyProd {
    unsafe fn play(&mut self, tiles: u32) {
        let mut st = PipelineState::<4>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            self.pipe.producer_acquire(&st);
            // BUG: 16 bytes of "header" announced that no copy delivers.
            self.pipe.producer_expect_tx(&st, TILE_BYTES + 16);
            bulk_copy_global_to_shared(self.window + RING + st.index() * TILE_BYTES, unsafe { src(self.input, t) }, TILE_BYTES, self.pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        self.pipe.producer_tail(st);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r20_trait_dyn_bad_tx_header(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let tid = thread_idx_x();
    let window = dynamic_shared_window_address();
    if tid == 0 {
        Pipeline::<4>::init(window, CONSUMERS);
    }
    barrier();
    let pipe = Pipeline::<4>::attach(window);
    let mut prod = FGreedyProd { pipe, window, input };
    let mut cons = FCons { pipe, col: tid, out };
    if tid <= 32 {
        let part: &mut dyn FPart = if tid == 32 { &mut prod } else { &mut cons };
        unsafe { part.play(tiles) };
    }
}
