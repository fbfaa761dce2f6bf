//! The multi-stage producer/consumer pipeline protocol on `mbarrier`s and bulk async copies
//! (sm_90), in the manner of CuTe's TMA pipeline.
//!
//! A pipeline has `STAGES` buffers in shared memory and two mbarriers per stage:
//! - *full[s]* completes when stage `s` holds data: the producer arrives once, announcing the
//!   bytes it expects (`expect_tx`), and the bulk copy's completion delivers those bytes;
//! - *empty[s]* completes when every consumer thread has released stage `s`.
//!
//! The protocol, which the compiler-pass plugin checks on every kernel that uses it:
//! - producer, per tile: [`Pipeline::producer_acquire`] (wait until the stage is empty) →
//!   [`Pipeline::producer_expect_tx`] → [`bulk_copy_global_to_shared`] → [`PipelineState::advance`];
//!   after its loop, [`Pipeline::producer_tail`] so that the block cannot exit while consumers
//!   still read;
//! - consumer, per tile: [`Pipeline::consumer_wait`] → read the stage →
//!   [`Pipeline::consumer_release`] → [`PipelineState::advance`].
//!
//! Stage indices and phase bits come only from a [`PipelineState`]; the phase flips each time
//! the index wraps around.

use core::arch::asm;

/// Where a thread is in the ring of stages: the stage index and the phase parity to wait for.
#[derive(Clone, Copy)]
pub struct PipelineState<const STAGES: u32> {
    index: u32,
    phase: u32,
}

impl<const STAGES: u32> PipelineState<STAGES> {
    /// The consumer's start: stage 0, waiting for the first completion (parity 0) of *full*.
    #[inline(always)]
    pub fn new() -> Self {
        PipelineState { index: 0, phase: 0 }
    }

    /// The producer's start: stage 0, parity 1. Waiting on parity 1 of a freshly initialised
    /// mbarrier returns at once, so the producer fills every stage once before it waits.
    #[inline(always)]
    pub fn producer_start() -> Self {
        PipelineState { index: 0, phase: 1 }
    }

    /// Stage this state points at.
    #[inline(always)]
    pub fn index(&self) -> u32 {
        self.index
    }

    /// Moves to the next stage, flipping the phase when the ring wraps.
    #[inline(always)]
    pub fn advance(&mut self) {
        self.index += 1;
        if self.index == STAGES {
            self.index = 0;
            self.phase ^= 1;
        }
    }
}

impl<const STAGES: u32> Default for PipelineState<STAGES> {
    fn default() -> Self {
        Self::new()
    }
}

/// The barriers of one pipeline, by their 32-bit shared-window addresses.
#[derive(Clone, Copy)]
pub struct Pipeline<const STAGES: u32> {
    /// Address of `full[0]`; `full[s]` is 8 bytes further per stage, then `empty[0..STAGES]`.
    barriers: u32,
}

/// Bytes of shared memory that a pipeline's barriers occupy (8-byte aligned).
pub const fn pipeline_barrier_bytes(stages: u32) -> u32 {
    2 * 8 * stages
}

impl<const STAGES: u32> Pipeline<STAGES> {
    /// Initialises the barriers at shared-window address `barriers` (8-byte aligned,
    /// [`pipeline_barrier_bytes`] long) for `consumer_threads` releasing threads.
    ///
    /// Must be called by exactly one thread, followed by a block barrier before any use
    /// (the `fence.proxy.async` here makes the initialisation visible to the copy engine).
    #[inline(always)]
    pub fn init(barriers: u32, consumer_threads: u32) -> Self {
        let pipeline = Pipeline { barriers };
        for stage in 0..STAGES {
            mbarrier_init(pipeline.full(stage), 1);
            mbarrier_init(pipeline.empty(stage), consumer_threads);
        }
        // SAFETY: a fence; no operands.
        unsafe { asm!("fence.proxy.async.shared::cta;", options(nostack)) };
        pipeline
    }

    /// The same pipeline as seen by a thread that did not initialise it.
    #[inline(always)]
    pub fn attach(barriers: u32) -> Self {
        Pipeline { barriers }
    }

    #[inline(always)]
    fn full(&self, stage: u32) -> u32 {
        self.barriers + 8 * stage
    }

    #[inline(always)]
    fn empty(&self, stage: u32) -> u32 {
        self.barriers + 8 * (STAGES + stage)
    }

    /// Producer: waits until the consumers have released the stage `state` points at.
    #[inline(always)]
    pub fn producer_acquire(&self, state: &PipelineState<STAGES>) {
        mbarrier_wait_parity(self.empty(state.index), state.phase);
    }

    /// Producer: arrives on the stage's *full* barrier, announcing `bytes` of incoming copies.
    #[inline(always)]
    pub fn producer_expect_tx(&self, state: &PipelineState<STAGES>, bytes: u32) {
        let barrier = self.full(state.index);
        // SAFETY: `barrier` is an initialised mbarrier in shared memory.
        unsafe {
            asm!(
                "mbarrier.arrive.expect_tx.shared::cta.b64 _, [{barrier}], {bytes};",
                barrier = in(reg32) barrier,
                bytes = in(reg32) bytes,
                options(nostack),
            );
        }
    }

    /// Shared-window address of the *full* barrier a copy into the current stage signals.
    #[inline(always)]
    pub fn producer_barrier(&self, state: &PipelineState<STAGES>) -> u32 {
        self.full(state.index)
    }

    /// Producer, after its last tile: waits until every stage has been released once more, so
    /// that no copy or read is in flight when the block exits.
    #[inline(always)]
    pub fn producer_tail(&self, mut state: PipelineState<STAGES>) {
        for _ in 0..STAGES {
            self.producer_acquire(&state);
            state.advance();
        }
    }

    /// Consumer: waits until the stage `state` points at holds its data.
    #[inline(always)]
    pub fn consumer_wait(&self, state: &PipelineState<STAGES>) {
        mbarrier_wait_parity(self.full(state.index), state.phase);
    }

    /// Consumer: this thread is done reading the stage.
    #[inline(always)]
    pub fn consumer_release(&self, state: &PipelineState<STAGES>) {
        let barrier = self.empty(state.index);
        // SAFETY: `barrier` is an initialised mbarrier in shared memory.
        unsafe {
            asm!(
                "mbarrier.arrive.shared::cta.b64 _, [{barrier}];",
                barrier = in(reg32) barrier,
                options(nostack),
            );
        }
    }
}

/// Starts a bulk async copy of `bytes` from global `source` to shared-window address
/// `destination`, completing `bytes` transactions on the mbarrier at `barrier`.
///
/// Contract: both addresses 16-byte aligned, `bytes` a multiple of 16, and the barrier told to
/// expect them (see [`Pipeline::producer_expect_tx`]).
#[inline(always)]
pub fn bulk_copy_global_to_shared(destination: u32, source: *const u8, bytes: u32, barrier: u32) {
    // SAFETY: the contract above; the copy engine writes only `destination..+bytes`.
    unsafe {
        asm!(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [{destination}], [{source}], {bytes}, [{barrier}];",
            destination = in(reg32) destination,
            source = in(reg64) source,
            bytes = in(reg32) bytes,
            barrier = in(reg32) barrier,
            options(nostack),
        );
    }
}

#[inline(always)]
fn mbarrier_init(barrier: u32, expected_arrivals: u32) {
    // SAFETY: `barrier` is 8 bytes of shared memory reserved for this mbarrier.
    unsafe {
        asm!(
            "mbarrier.init.shared::cta.b64 [{barrier}], {count};",
            barrier = in(reg32) barrier,
            count = in(reg32) expected_arrivals,
            options(nostack),
        );
    }
}

/// Spins until the phase with parity `phase` of the mbarrier at `barrier` has completed.
#[inline(always)]
fn mbarrier_wait_parity(barrier: u32, phase: u32) {
    loop {
        let done: u32;
        // SAFETY: `barrier` is an initialised mbarrier. The predicate becomes a register
        // through `selp` because named labels inside `asm!` are denied by a lint.
        unsafe {
            asm!(
                "{{",
                ".reg .pred complete;",
                "mbarrier.try_wait.parity.shared::cta.b64 complete, [{barrier}], {phase};",
                "selp.u32 {done}, 1, 0, complete;",
                "}}",
                barrier = in(reg32) barrier,
                phase = in(reg32) phase,
                done = out(reg32) done,
                options(nostack),
            );
        }
        if done != 0 {
            return;
        }
    }
}

/// A tiled tensor map (the driver's `CUtensorMap`, 128 opaque bytes) that the host encoded and
/// copied to device memory before the launch; bulk tensor copies read the tensor's address,
/// shape, strides, box and swizzle from it.
#[repr(C, align(64))]
pub struct TensorMap {
    _opaque: [u64; 16],
}

/// Bytes one bulk tensor copy of a `columns × rows` box of `element_bytes`-byte values delivers
/// to its mbarrier: the whole box, even where it reaches past the tensor (the copy engine fills
/// those elements with zeros). This is the count a stage's [`Pipeline::producer_expect_tx`]
/// announces for each copy.
pub const fn tensor_box_bytes(columns: u32, rows: u32, element_bytes: u32) -> u32 {
    columns * rows * element_bytes
}

/// Starts a bulk tensor copy of the 2D box at element coordinates (`column`, `row`) of the
/// tensor `map` describes into shared-window address `destination`, completing the box's bytes
/// on the mbarrier at `barrier`.
///
/// `box_bytes` is what the box the map was encoded with delivers ([`tensor_box_bytes`]); the
/// instruction takes it from the map, and the argument states it where the compiler-pass
/// plugin can match it against the stage's `expect_tx` (as for [`bulk_copy_global_to_shared`]).
///
/// Contract: `map` points to an encoded tensor map in device memory that stays unchanged during
/// the kernel, with a box of `box_bytes`; `destination` is aligned as the map's swizzle
/// requires (1024 bytes for the 128-byte swizzle, else 128); the barrier was told to expect the
/// box's bytes.
#[inline(always)]
pub fn tensor_copy_2d_global_to_shared(
    destination: u32,
    map: *const TensorMap,
    column: i32,
    row: i32,
    box_bytes: u32,
    barrier: u32,
) {
    let _ = box_bytes;
    // SAFETY: the contract above; the copy engine writes only the box at `destination`.
    unsafe {
        asm!(
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{destination}], [{map}, {{{column}, {row}}}], [{barrier}];",
            destination = in(reg32) destination,
            map = in(reg64) map,
            column = in(reg32) column,
            row = in(reg32) row,
            barrier = in(reg32) barrier,
            options(nostack),
        );
    }
}

/// Orders this thread's ordinary shared-memory accesses before later accesses by the async
/// proxy (bulk copies, the tensor cores) and vice versa (`fence.proxy.async.shared::cta`).
#[inline(always)]
pub fn fence_proxy_async_shared() {
    // SAFETY: a fence; no operands.
    unsafe { asm!("fence.proxy.async.shared::cta;", options(nostack)) };
}
