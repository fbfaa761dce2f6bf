//! Module `dsp`: audio ring-buffer code. A tile is a block of 8 frames of 32 interleaved
//! channels; the stages are the audio ring's buffers, filled by a "DMA service" thread (the
//! audio interrupt) through bulk copies; each of 32 channel strips (threads 0..31) mixes its
//! channel of every block onto its bus with a gain, with read and write heads, one block of
//! latency, count-down block counters and tail flushing as an audio programmer writes them.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const NUM_THREADS: u32 = 64;
const SHARED_BYTES: u32 = 8192;
const CHANNELS: u32 = 32;
const FRAMES_PER_BLOCK: u32 = 8;
const BLOCK_SAMPLES: u32 = CHANNELS * FRAMES_PER_BLOCK;
const SAMPLE_BYTES: u32 = 4;
const BLOCK_BYTES: u32 = BLOCK_SAMPLES * SAMPLE_BYTES;
const DMA_THREAD: u32 = 32;
const BARRIER_OFFSET: u32 = 0;
const RING_OFFSET: u32 = 1024;
const UNITY_GAIN: f32 = 1.0;

/// One channel strip of the mixer: its channel, gain and bus accumulator.
#[derive(Clone, Copy)]
struct ChannelStrip {
    channel: u32,
    gain: f32,
    bus: f32,
}

impl ChannelStrip {
    #[inline(always)]
    fn new(channel: u32) -> Self {
        ChannelStrip { channel, gain: UNITY_GAIN, bus: 0.0 }
    }

    /// Mixes this strip's channel of the interleaved block at `block` onto the bus.
    #[inline(always)]
    unsafe fn mix_block(&mut self, block: *const f32) {
        for frame in 0..FRAMES_PER_BLOCK {
            self.bus += self.gain * *block.add((frame * CHANNELS + self.channel) as usize);
        }
    }

    #[inline(always)]
    unsafe fn write_bus(&self, out: *mut f32, stream: u32) {
        *out.add((stream * CHANNELS + self.channel) as usize) = self.bus;
    }
}

/// The audio ring in shared memory: its buffers as the DMA engine addresses them (window bytes)
/// and as the mixer reads them (samples).
#[derive(Clone, Copy)]
struct AudioRing {
    window: u32,
    samples: *const f32,
}

impl AudioRing {
    #[inline(always)]
    fn attach() -> Self {
        AudioRing {
            window: dynamic_shared_window_address(),
            samples: dynamic_shared_base::<f32>().wrapping_add((RING_OFFSET / SAMPLE_BYTES) as usize),
        }
    }

    #[inline(always)]
    fn barriers(&self) -> u32 {
        self.window + BARRIER_OFFSET
    }

    /// Where the DMA writes the buffer the write head is at.
    #[inline(always)]
    fn dma_target<const N: u32>(&self, write_head: &PipelineState<N>) -> u32 {
        self.window + RING_OFFSET + write_head.index() * BLOCK_BYTES
    }

    /// The buffer the read head is at.
    #[inline(always)]
    unsafe fn block_at<const N: u32>(&self, read_head: &PipelineState<N>) -> *const f32 {
        self.samples.add((read_head.index() * BLOCK_SAMPLES) as usize)
    }
}

/// The ring is set up by the DMA thread before anyone touches it.
#[inline(always)]
fn open_stream<const N: u32>(ring: &AudioRing) -> Pipeline<N> {
    if thread_idx_x() == DMA_THREAD {
        Pipeline::<N>::init(ring.barriers(), CHANNELS);
    }
    barrier();
    Pipeline::<N>::attach(ring.barriers())
}

/// The DMA service: blocks `first, first + hop, …` of the stream into the ring, one buffer each.
#[inline(always)]
unsafe fn dma_service<const N: u32>(pipe: &Pipeline<N>, ring: &AudioRing, source: *const f32, first: u32, hop: u32, end: u32) {
    let mut write_head = PipelineState::<N>::producer_start();
    let mut position = first;
    while position < end {
        pipe.producer_acquire(&write_head);
        pipe.producer_expect_tx(&write_head, BLOCK_BYTES);
        let block = source.add((position * BLOCK_SAMPLES) as usize) as *const u8;
        bulk_copy_global_to_shared(ring.dma_target(&write_head), block, BLOCK_BYTES, pipe.producer_barrier(&write_head));
        write_head.advance();
        position += hop;
    }
    pipe.producer_tail(write_head);
}

/// How many blocks of a stream of `total` blocks fall to the stream starting at `first`.
#[inline(always)]
fn blocks_in_stream(first: u32, hop: u32, total: u32) -> u32 {
    if first < total { (total - first + hop - 1) / hop } else { 0 }
}

/// A four-buffer ring: the DMA thread fills it, each channel strip waits for its block, mixes
/// it onto the bus and hands the buffer back.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_dsp_channel_bus(input: *const f32, tiles: u32, out: *mut f32) {
    const RING_BUFFERS: u32 = 4;
    block_threads(NUM_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let ring = AudioRing::attach();
    let pipe = open_stream::<RING_BUFFERS>(&ring);
    let tid = thread_idx_x();
    let stream = block_idx_x();
    if tid == DMA_THREAD {
        dma_service(&pipe, &ring, input, stream, grid_dim_x(), tiles);
    } else if tid < CHANNELS {
        let mut strip = ChannelStrip::new(tid);
        let mut read_head = PipelineState::<RING_BUFFERS>::new();
        let mut position = stream;
        while position < tiles {
            pipe.consumer_wait(&read_head);
            strip.mix_block(ring.block_at(&read_head));
            pipe.consumer_release(&read_head);
            read_head.advance();
            position += grid_dim_x();
        }
        strip.write_bus(out, stream);
    }
}

/// One block of latency: each strip frees the previous buffer only after it has the next one
/// mixed (the first block is taken before the loop, the last buffer freed after it).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_dsp_latency_one_block(input: *const f32, tiles: u32, out: *mut f32) {
    const RING_BUFFERS: u32 = 4;
    block_threads(NUM_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let ring = AudioRing::attach();
    let pipe = open_stream::<RING_BUFFERS>(&ring);
    let tid = thread_idx_x();
    let stream = block_idx_x();
    let hop = grid_dim_x();
    if tid == DMA_THREAD {
        dma_service(&pipe, &ring, input, stream, hop, tiles);
    } else if tid < CHANNELS {
        let mut strip = ChannelStrip::new(tid);
        let mut read_head = PipelineState::<RING_BUFFERS>::new();
        let mut position = stream;
        if position < tiles {
            pipe.consumer_wait(&read_head);
            strip.mix_block(ring.block_at(&read_head));
            let mut held = read_head;
            read_head.advance();
            position += hop;
            while position < tiles {
                pipe.consumer_wait(&read_head);
                strip.mix_block(ring.block_at(&read_head));
                pipe.consumer_release(&held);
                held = read_head;
                read_head.advance();
                position += hop;
            }
            pipe.consumer_release(&held);
        }
        strip.write_bus(out, stream);
    }
}

/// Ping-pong (two-buffer) ring with count-down block counters on both sides: each side counts
/// the blocks left in its stream down to zero.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_dsp_ping_pong_countdown(input: *const f32, tiles: u32, out: *mut f32) {
    const PING_PONG: u32 = 2;
    block_threads(NUM_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let ring = AudioRing::attach();
    let pipe = open_stream::<PING_PONG>(&ring);
    let tid = thread_idx_x();
    let stream = block_idx_x();
    let hop = grid_dim_x();
    if tid == DMA_THREAD {
        let mut write_head = PipelineState::<PING_PONG>::producer_start();
        let mut remaining = blocks_in_stream(stream, hop, tiles);
        let mut position = stream;
        while remaining > 0 {
            pipe.producer_acquire(&write_head);
            pipe.producer_expect_tx(&write_head, BLOCK_BYTES);
            let block = input.add((position * BLOCK_SAMPLES) as usize) as *const u8;
            bulk_copy_global_to_shared(ring.dma_target(&write_head), block, BLOCK_BYTES, pipe.producer_barrier(&write_head));
            write_head.advance();
            position += hop;
            remaining -= 1;
        }
        pipe.producer_tail(write_head);
    } else if tid < CHANNELS {
        let mut strip = ChannelStrip::new(tid);
        let mut read_head = PipelineState::<PING_PONG>::new();
        let mut remaining = blocks_in_stream(stream, hop, tiles);
        while remaining > 0 {
            pipe.consumer_wait(&read_head);
            strip.mix_block(ring.block_at(&read_head));
            pipe.consumer_release(&read_head);
            read_head.advance();
            remaining -= 1;
        }
        strip.write_bus(out, stream);
    }
}

/// Triple buffering; each strip views its buffer as an interleaved `&[f32]` block and indexes
/// its channel frame by frame.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_dsp_triple_buffer_slices(input: *const f32, tiles: u32, out: *mut f32) {
    const TRIPLE: u32 = 3;
    block_threads(NUM_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let ring = AudioRing::attach();
    let pipe = open_stream::<TRIPLE>(&ring);
    let tid = thread_idx_x();
    let stream = block_idx_x();
    if tid == DMA_THREAD {
        dma_service(&pipe, &ring, input, stream, grid_dim_x(), tiles);
    } else if tid < CHANNELS {
        let channel = tid as usize;
        let mut bus: f32 = 0.0;
        let mut read_head = PipelineState::<TRIPLE>::new();
        let mut position = stream;
        while position < tiles {
            pipe.consumer_wait(&read_head);
            let interleaved: &[f32] = core::slice::from_raw_parts(ring.block_at(&read_head), BLOCK_SAMPLES as usize);
            for frame in 0..FRAMES_PER_BLOCK as usize {
                bus += interleaved[frame * CHANNELS as usize + channel];
            }
            pipe.consumer_release(&read_head);
            read_head.advance();
            position += grid_dim_x();
        }
        *out.add(stream as usize * CHANNELS as usize + channel) = bus;
    }
}

/// BROKEN: "mix while the DMA finishes": each strip mixes the buffer under its read head and
/// only then waits for that buffer's DMA, so it reads blocks before they have landed (the first
/// pass reads whatever the ring held) and sums stale samples.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_dsp_bad_mix_before_sync(input: *const f32, tiles: u32, out: *mut f32) {
    const RING_BUFFERS: u32 = 4;
    block_threads(NUM_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let ring = AudioRing::attach();
    let pipe = open_stream::<RING_BUFFERS>(&ring);
    let tid = thread_idx_x();
    let stream = block_idx_x();
    if tid == DMA_THREAD {
        dma_service(&pipe, &ring, input, stream, grid_dim_x(), tiles);
    } else if tid < CHANNELS {
        let mut strip = ChannelStrip::new(tid);
        let mut read_head = PipelineState::<RING_BUFFERS>::new();
        let mut position = stream;
        while position < tiles {
            strip.mix_block(ring.block_at(&read_head));
            pipe.consumer_wait(&read_head);
            pipe.consumer_release(&read_head);
            read_head.advance();
            position += grid_dim_x();
        }
        strip.write_bus(out, stream);
    }
}

/// BROKEN: the capture side opens the ring with four buffers, the mixer side attaches it as a
/// double buffer (`Pipeline::<2>`): its empty barriers land on the capture side's full barriers
/// of buffers 2 and 3, and its heads wrap after two buffers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_dsp_bad_mixer_double_buffered(input: *const f32, tiles: u32, out: *mut f32) {
    const CAPTURE_BUFFERS: u32 = 4;
    const MIXER_BUFFERS: u32 = 2;
    block_threads(NUM_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let ring = AudioRing::attach();
    let capture = open_stream::<CAPTURE_BUFFERS>(&ring);
    let tid = thread_idx_x();
    let stream = block_idx_x();
    if tid == DMA_THREAD {
        dma_service(&capture, &ring, input, stream, grid_dim_x(), tiles);
    } else if tid < CHANNELS {
        let mixer = Pipeline::<MIXER_BUFFERS>::attach(ring.barriers());
        let mut strip = ChannelStrip::new(tid);
        let mut read_head = PipelineState::<MIXER_BUFFERS>::new();
        let mut position = stream;
        while position < tiles {
            mixer.consumer_wait(&read_head);
            strip.mix_block(ring.block_at(&read_head));
            mixer.consumer_release(&read_head);
            read_head.advance();
            position += grid_dim_x();
        }
        strip.write_bus(out, stream);
    }
}

/// BROKEN: the one-block-latency strip frees the buffer it has just mixed (`read_head`) instead
/// of the held one, then frees `held` once more after the loop: the first buffer is never freed
/// and the last is freed twice, so the DMA thread waits forever for buffer 0 on its fifth block.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_dsp_bad_latency_frees_current(input: *const f32, tiles: u32, out: *mut f32) {
    const RING_BUFFERS: u32 = 4;
    block_threads(NUM_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let ring = AudioRing::attach();
    let pipe = open_stream::<RING_BUFFERS>(&ring);
    let tid = thread_idx_x();
    let stream = block_idx_x();
    let hop = grid_dim_x();
    if tid == DMA_THREAD {
        dma_service(&pipe, &ring, input, stream, hop, tiles);
    } else if tid < CHANNELS {
        let mut strip = ChannelStrip::new(tid);
        let mut read_head = PipelineState::<RING_BUFFERS>::new();
        let mut position = stream;
        if position < tiles {
            pipe.consumer_wait(&read_head);
            strip.mix_block(ring.block_at(&read_head));
            let mut held = read_head;
            read_head.advance();
            position += hop;
            while position < tiles {
                pipe.consumer_wait(&read_head);
                strip.mix_block(ring.block_at(&read_head));
                pipe.consumer_release(&read_head);
                held = read_head;
                read_head.advance();
                position += hop;
            }
            pipe.consumer_release(&held);
        }
        strip.write_bus(out, stream);
    }
}

/// BROKEN: the mixer counts one block more than the stream holds ("plus one block to flush the
/// reverb tail"): after the last real block each strip waits for a buffer the DMA thread never
/// fills.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r47_dsp_bad_flush_tail_block(input: *const f32, tiles: u32, out: *mut f32) {
    const PING_PONG: u32 = 2;
    const TAIL_BLOCKS: u32 = 1;
    block_threads(NUM_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);
    let ring = AudioRing::attach();
    let pipe = open_stream::<PING_PONG>(&ring);
    let tid = thread_idx_x();
    let stream = block_idx_x();
    let hop = grid_dim_x();
    if tid == DMA_THREAD {
        let mut write_head = PipelineState::<PING_PONG>::producer_start();
        let mut remaining = blocks_in_stream(stream, hop, tiles);
        let mut position = stream;
        while remaining > 0 {
            pipe.producer_acquire(&write_head);
            pipe.producer_expect_tx(&write_head, BLOCK_BYTES);
            let block = input.add((position * BLOCK_SAMPLES) as usize) as *const u8;
            bulk_copy_global_to_shared(ring.dma_target(&write_head), block, BLOCK_BYTES, pipe.producer_barrier(&write_head));
            write_head.advance();
            position += hop;
            remaining -= 1;
        }
        pipe.producer_tail(write_head);
    } else if tid < CHANNELS {
        let mut strip = ChannelStrip::new(tid);
        let mut read_head = PipelineState::<PING_PONG>::new();
        let mut remaining = blocks_in_stream(stream, hop, tiles) + TAIL_BLOCKS;
        while remaining > 0 {
            pipe.consumer_wait(&read_head);
            strip.mix_block(ring.block_at(&read_head));
            pipe.consumer_release(&read_head);
            read_head.advance();
            remaining -= 1;
        }
        strip.write_bus(out, stream);
    }
}
