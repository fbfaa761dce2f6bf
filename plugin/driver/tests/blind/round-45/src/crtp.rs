//! C++-template-port style: a `Kernel` trait with associated consts and default `produce` /
//! `consume` methods (the CRTP base), role policies as zero-sized types, and static dispatch
//! through a generic `launch::<K>()`, the way a CUTLASS-like collective reads when ported.
use core::marker::PhantomData;

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const COLUMNS: u32 = 32;

/// Which thread produces (a policy, zero-sized).
trait RolePolicy { const PRODUCER: u32; }
struct WarpSpecialized;
impl RolePolicy for WarpSpecialized { const PRODUCER: u32 = 32; }
struct LastThreadProducer;
impl RolePolicy for LastThreadProducer { const PRODUCER: u32 = 63; }

/// The CRTP base: every kernel fixes its ring depth and role policy; the steps have defaults.
trait Kernel {
    const STAGES: u32;
    const RING_BYTES: u32 = Self::STAGES * TILE_BYTES;
    const TX_BYTES: u32 = TILE_BYTES;
    type Roles: RolePolicy;

    #[inline(always)]
    unsafe fn produce<const S: u32>(pipe: &Pipeline<S>, win: u32, input: *const f32, tiles: u32) {
        let mut st = PipelineState::<S>::producer_start();
        let mut t = block_idx_x();
        while t < tiles {
            Self::acquire(pipe, &st, t);
            pipe.producer_expect_tx(&st, Self::TX_BYTES);
            bulk_copy_global_to_shared(win + st.index() * TILE_BYTES, input.add((t * TILE_FLOATS) as usize) as *const u8, TILE_BYTES, pipe.producer_barrier(&st));
            st.advance();
            t += grid_dim_x();
        }
        pipe.producer_tail(st);
    }

    #[inline(always)]
    unsafe fn acquire<const S: u32>(pipe: &Pipeline<S>, st: &PipelineState<S>, _tile: u32) {
        pipe.producer_acquire(st);
    }

    #[inline(always)]
    unsafe fn consume<const S: u32>(pipe: &Pipeline<S>, ring: *const f32, tiles: u32, col: u32) -> f32 {
        let mut st = PipelineState::<S>::new();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            pipe.consumer_wait(&st);
            let stage = ring.add((st.index() * TILE_FLOATS) as usize);
            for r in 0..8u32 { acc += *stage.add((r * COLUMNS + col) as usize); }
            pipe.consumer_release(&st);
            st.advance();
            t += grid_dim_x();
        }
        acc
    }
}

/// The generic driver every entry instantiates: `Launch<K, S>` with `S == K::STAGES`.
struct Launch<K: Kernel, const S: u32>(PhantomData<K>);

impl<K: Kernel, const S: u32> Launch<K, S> {
    #[inline(always)]
    unsafe fn run(input: *const f32, tiles: u32, out: *mut f32) {
        block_threads(64);
        dynamic_shared_bytes(8192);
        let win = dynamic_shared_window_address();
        let bars = win + K::RING_BYTES;
        if thread_idx_x() == 0 { Pipeline::<S>::init(bars, COLUMNS); }
        barrier();
        let pipe = Pipeline::<S>::attach(bars);
        let tid = thread_idx_x();
        if tid == K::Roles::PRODUCER {
            K::produce(&pipe, win, input, tiles);
        } else if tid < COLUMNS {
            let acc = K::consume(&pipe, dynamic_shared_base::<f32>(), tiles, tid);
            *out.add((block_idx_x() * COLUMNS + tid) as usize) = acc;
        }
    }
}

struct Default4;
impl Kernel for Default4 { const STAGES: u32 = 4; type Roles = WarpSpecialized; }

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_crtp_default_kernel(input: *const f32, tiles: u32, out: *mut f32) {
    Launch::<Default4, { Default4::STAGES }>::run(input, tiles, out);
}

struct Deep7;
impl Kernel for Deep7 { const STAGES: u32 = 7; type Roles = LastThreadProducer; }

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_crtp_deep_ring(input: *const f32, tiles: u32, out: *mut f32) {
    Launch::<Deep7, { Deep7::STAGES }>::run(input, tiles, out);
}

/// The plain-shared-memory specialisation: no ring, the block stages and reduces.
struct PlainBlock<P: RolePolicy>(PhantomData<P>);
impl<P: RolePolicy> PlainBlock<P> {
    #[inline(always)]
    unsafe fn run(input: *const f32, tiles: u32, out: *mut f32) {
        block_threads(64);
        dynamic_shared_bytes(8192);
        let s = dynamic_shared_base::<f32>();
        let tid = thread_idx_x();
        let mut acc = 0.0f32;
        let mut t = block_idx_x();
        while t < tiles {
            let mut i = tid;
            while i < TILE_FLOATS { *s.add(i as usize) = *input.add((t * TILE_FLOATS + i) as usize); i += 64; }
            barrier();
            if tid < COLUMNS { for r in 0..8u32 { acc += *s.add((r * COLUMNS + tid) as usize); } }
            barrier();
            t += grid_dim_x();
        }
        if tid < COLUMNS { *out.add((block_idx_x() * COLUMNS + tid) as usize) = acc; }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_crtp_plain_policy(input: *const f32, tiles: u32, out: *mut f32) {
    PlainBlock::<WarpSpecialized>::run(input, tiles, out);
}

// A ring of one stage: every tile waits for the previous one to be released.
struct Single;
impl Kernel for Single { const STAGES: u32 = 1; type Roles = WarpSpecialized; }

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_crtp_single_stage(input: *const f32, tiles: u32, out: *mut f32) {
    Launch::<Single, { Single::STAGES }>::run(input, tiles, out);
}

// Eight stages of the widest configuration.
struct Wide8;
impl Kernel for Wide8 { const STAGES: u32 = 8; type Roles = WarpSpecialized; }

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_crtp_bad_wide_config(input: *const f32, tiles: u32, out: *mut f32) {
    Launch::<Wide8, { Wide8::STAGES }>::run(input, tiles, out);
}

// A prologue-specialised producer: the acquire is needed only while the ring warms up.
struct WarmOnly;
impl Kernel for WarmOnly {
    const STAGES: u32 = 4;
    type Roles = WarpSpecialized;
    #[inline(always)]
    unsafe fn acquire<const S: u32>(pipe: &Pipeline<S>, st: &PipelineState<S>, tile: u32) {
        if tile < S * grid_dim_x() { pipe.producer_acquire(st); }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_crtp_bad_warm_acquire(input: *const f32, tiles: u32, out: *mut f32) {
    Launch::<WarmOnly, { WarmOnly::STAGES }>::run(input, tiles, out);
}

/// A consumer-side collective with its own depth, attached to the producer's barriers.
struct SplitDepth<const P: u32, const C: u32>;
impl<const P: u32, const C: u32> SplitDepth<P, C> {
    #[inline(always)]
    unsafe fn run(input: *const f32, tiles: u32, out: *mut f32) {
        block_threads(64);
        dynamic_shared_bytes(8192);
        let win = dynamic_shared_window_address();
        let bars = win + P * TILE_BYTES;
        if thread_idx_x() == 0 { Pipeline::<P>::init(bars, COLUMNS); }
        barrier();
        let tid = thread_idx_x();
        if tid == 32 {
            Default4::produce(&Pipeline::<P>::attach(bars), win, input, tiles);
        } else if tid < COLUMNS {
            let acc = Default4::consume(&Pipeline::<C>::attach(bars), dynamic_shared_base::<f32>(), tiles, tid);
            *out.add((block_idx_x() * COLUMNS + tid) as usize) = acc;
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_crtp_bad_consumer_depth(input: *const f32, tiles: u32, out: *mut f32) {
    SplitDepth::<4, 3>::run(input, tiles, out);
}

// Transaction bytes taken from the half-tile configuration.
struct HalfTx;
impl Kernel for HalfTx { const STAGES: u32 = 4; const TX_BYTES: u32 = TILE_BYTES / 2; type Roles = WarpSpecialized; }

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r45_crtp_bad_tx_override(input: *const f32, tiles: u32, out: *mut f32) {
    Launch::<HalfTx, { HalfTx::STAGES }>::run(input, tiles, out);
}
