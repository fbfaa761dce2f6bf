//! Style `mpi`: the block is written as an MPI communicator. Threads are ranks of
//! `MPI_COMM_WORLD`, one rank posts nonblocking receives (`irecv`: the bulk copy into a receive
//! buffer of the ring) and the other ranks `wait` on their request, consume the message and
//! `request_free` it. Tiles are messages with a tag; a block receives the tags of a cyclic
//! distribution (`tag % nblocks == block`). Plain kernels use the collective vocabulary:
//! `bcast` into shared memory, `MPI_Barrier`, a `reduce` through a shared partials array.

use crate::device::geometry::{block_idx_x, grid_dim_x, thread_idx_x};
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::shared::{barrier, dynamic_shared_base, dynamic_shared_window_address};

/// Size of `MPI_COMM_WORLD`: the ranks of one block.
const WORLD_SIZE: u32 = 64;
/// Shared memory the launch gives each communicator.
const SHMEM_BYTES: u32 = 8192;
/// Elements of one message (a tile).
const MSG_COUNT: usize = 256;
/// Bytes of one message on the wire.
const MSG_BYTES: u32 = (MSG_COUNT * core::mem::size_of::<f32>()) as u32;
/// Elements of the result each block sends back (one per column).
const RESULT_COUNT: usize = 32;
/// Rows of a message seen as `ROWS × RESULT_COUNT`.
const ROWS: usize = MSG_COUNT / RESULT_COUNT;
/// Byte offset of the request table (the mbarriers) in shared memory.
const REQUEST_TABLE: u32 = 0;
/// Byte offset of the receive buffers.
const RECV_BUFFERS: u32 = 1024;

/// `MPI_Comm_rank`.
#[inline(always)]
fn mpi_comm_rank() -> u32 {
    thread_idx_x()
}

/// The cyclic distribution of message tags over the grid: this block's first tag and stride.
#[derive(Clone, Copy)]
struct TagSchedule {
    first: u32,
    stride: u32,
    end: u32,
}

impl TagSchedule {
    #[inline(always)]
    fn cyclic(total: u32) -> TagSchedule {
        TagSchedule { first: block_idx_x(), stride: grid_dim_x(), end: total }
    }
}

/// `MPI_Irecv` into the ring: wait for a free receive buffer, post the byte count, start the
/// transfer, move to the next buffer.
#[inline(always)]
fn mpi_irecv<const N: u32>(
    pipe: &Pipeline<N>,
    request: &mut PipelineState<N>,
    recv_base: u32,
    source: *const f32,
    bytes: u32,
) {
    pipe.producer_acquire(request);
    pipe.producer_expect_tx(request, bytes);
    bulk_copy_global_to_shared(
        recv_base + request.index() * bytes,
        source as *const u8,
        bytes,
        pipe.producer_barrier(request),
    );
    request.advance();
}

/// `MPI_Wait` on the receive the request points at.
#[inline(always)]
fn mpi_wait<const N: u32>(pipe: &Pipeline<N>, request: &PipelineState<N>) {
    pipe.consumer_wait(request);
}

/// `MPI_Request_free`: hands the receive buffer back and moves to the next request.
#[inline(always)]
fn mpi_request_free<const N: u32>(pipe: &Pipeline<N>, request: &mut PipelineState<N>) {
    pipe.consumer_release(request);
    request.advance();
}

/// Column `col` of a received message, summed over its rows.
#[inline(always)]
unsafe fn column_sum(message: *const f32, col: usize) -> f32 {
    let mut sum = 0.0f32;
    for row in 0..ROWS {
        sum += *message.add(row * RESULT_COUNT + col);
    }
    sum
}

/// Rank 32 is the root that posts every receive; ranks 0..32 wait on them, one column each.
/// Four receive buffers.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_mpi_scatter_ring(input: *const f32, tiles: u32, out: *mut f32) {
    const DEPTH: u32 = 4;
    const ROOT: u32 = 32;
    const RECEIVERS: u32 = 32;
    block_threads(WORLD_SIZE);
    dynamic_shared_bytes(SHMEM_BYTES);

    let rank = mpi_comm_rank();
    let window = dynamic_shared_window_address();
    let recv_buffers = dynamic_shared_base::<u8>().add(RECV_BUFFERS as usize) as *const f32;
    if rank == ROOT {
        Pipeline::<DEPTH>::init(window + REQUEST_TABLE, RECEIVERS);
    }
    barrier(); // MPI_Barrier(MPI_COMM_WORLD)
    let pipe = Pipeline::<DEPTH>::attach(window + REQUEST_TABLE);
    let tags = TagSchedule::cyclic(tiles);

    if rank == ROOT {
        let mut request = PipelineState::<DEPTH>::producer_start();
        let mut tag = tags.first;
        while tag < tags.end {
            mpi_irecv(&pipe, &mut request, window + RECV_BUFFERS, input.add(tag as usize * MSG_COUNT), MSG_BYTES);
            tag += tags.stride;
        }
        pipe.producer_tail(request);
    } else if rank < RECEIVERS {
        let mut request = PipelineState::<DEPTH>::new();
        let mut local = 0.0f32;
        let mut tag = tags.first;
        while tag < tags.end {
            mpi_wait(&pipe, &request);
            let message = recv_buffers.add(request.index() as usize * MSG_COUNT);
            local += column_sum(message, rank as usize);
            mpi_request_free(&pipe, &mut request);
            tag += tags.stride;
        }
        *out.add(block_idx_x() as usize * RESULT_COUNT + rank as usize) = local;
    }
}

/// A persistent receive (`MPI_Recv_init` / `MPI_Start` / `MPI_Wait`): the request object keeps
/// the pipeline, its position and the receive buffer base. Rank 0 starts, ranks 32..64 wait.
/// Two buffers: a classic double-buffered halo exchange.
struct PersistentRecv<const N: u32> {
    pipe: Pipeline<N>,
    state: PipelineState<N>,
    buffer: u32,
}

impl<const N: u32> PersistentRecv<N> {
    #[inline(always)]
    fn recv_init(table: u32, buffer: u32) -> Self {
        PersistentRecv { pipe: Pipeline::attach(table), state: PipelineState::producer_start(), buffer }
    }

    /// `MPI_Start` of the next message from `source`.
    #[inline(always)]
    fn start(&mut self, source: *const f32) {
        mpi_irecv(&self.pipe, &mut self.state, self.buffer, source, MSG_BYTES);
    }

    /// `MPI_Request_free` of a persistent request: every buffer drained before the rank leaves.
    #[inline(always)]
    fn free(self) {
        self.pipe.producer_tail(self.state);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_mpi_persistent_double_buffer(input: *const f32, tiles: u32, out: *mut f32) {
    const DEPTH: u32 = 2;
    const ROOT: u32 = 0;
    const FIRST_RECEIVER: u32 = 32;
    block_threads(WORLD_SIZE);
    dynamic_shared_bytes(SHMEM_BYTES);

    let rank = mpi_comm_rank();
    let window = dynamic_shared_window_address();
    if rank == ROOT {
        Pipeline::<DEPTH>::init(window + REQUEST_TABLE, WORLD_SIZE - FIRST_RECEIVER);
    }
    barrier();

    let tags = TagSchedule::cyclic(tiles);
    if rank == ROOT {
        let mut recv = PersistentRecv::<DEPTH>::recv_init(window + REQUEST_TABLE, window + RECV_BUFFERS);
        let mut tag = tags.first;
        while tag < tags.end {
            recv.start(input.add(tag as usize * MSG_COUNT));
            tag += tags.stride;
        }
        recv.free();
    } else if rank >= FIRST_RECEIVER {
        let col = (rank - FIRST_RECEIVER) as usize;
        let pipe = Pipeline::<DEPTH>::attach(window + REQUEST_TABLE);
        let buffers = dynamic_shared_base::<f32>().add(RECV_BUFFERS as usize / 4);
        let mut request = PipelineState::<DEPTH>::new();
        let mut local = 0.0f32;
        let mut tag = tags.first;
        while tag < tags.end {
            mpi_wait(&pipe, &request);
            local += column_sum(buffers.add(request.index() as usize * MSG_COUNT), col);
            mpi_request_free(&pipe, &mut request);
            tag += tags.stride;
        }
        *out.add(block_idx_x() as usize * RESULT_COUNT + col) = local;
    }
}

/// Three receive buffers; the receivers count their messages up front (`MPI_Probe` style:
/// every rank knows how many messages its block gets) and loop over that count.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_mpi_probe_counted(input: *const f32, tiles: u32, out: *mut f32) {
    const DEPTH: u32 = 3;
    const ROOT: u32 = 63;
    const RECEIVERS: u32 = 32;
    block_threads(WORLD_SIZE);
    dynamic_shared_bytes(SHMEM_BYTES);

    let rank = mpi_comm_rank();
    let block = block_idx_x();
    let nblocks = grid_dim_x();
    let window = dynamic_shared_window_address();
    if rank == ROOT {
        Pipeline::<DEPTH>::init(window + REQUEST_TABLE, RECEIVERS);
    }
    barrier();
    let pipe = Pipeline::<DEPTH>::attach(window + REQUEST_TABLE);
    // MPI_Probe: the number of messages addressed to this block.
    let incoming = if block < tiles { (tiles - block).div_ceil(nblocks) } else { 0 };

    if rank == ROOT {
        let mut request = PipelineState::<DEPTH>::producer_start();
        for k in 0..incoming {
            let tag = block + k * nblocks;
            mpi_irecv(&pipe, &mut request, window + RECV_BUFFERS, input.add(tag as usize * MSG_COUNT), MSG_BYTES);
        }
        pipe.producer_tail(request);
    } else if rank < RECEIVERS {
        let buffers = dynamic_shared_base::<f32>().add(RECV_BUFFERS as usize / 4);
        let mut request = PipelineState::<DEPTH>::new();
        let mut local = 0.0f32;
        for _ in 0..incoming {
            mpi_wait(&pipe, &request);
            local += column_sum(buffers.add(request.index() as usize * MSG_COUNT), rank as usize);
            mpi_request_free(&pipe, &mut request);
        }
        *out.add(block as usize * RESULT_COUNT + rank as usize) = local;
    }
}

/// Collectives only: every message is broadcast into shared memory by all ranks (each copies a
/// quarter-row slice), `MPI_Barrier`, then each rank reduces half a column into `partials`,
/// `MPI_Barrier`, and ranks 0..32 combine the two halves (`MPI_Reduce` to the column's owner).
/// A last barrier before the next broadcast overwrites the message.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_mpi_bcast_reduce(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(WORLD_SIZE);
    dynamic_shared_bytes(SHMEM_BYTES);

    let rank = mpi_comm_rank() as usize;
    let world = WORLD_SIZE as usize;
    let message = dynamic_shared_base::<f32>();
    let partials = message.add(MSG_COUNT);
    let col = rank % RESULT_COUNT;
    let half = rank / RESULT_COUNT;
    let tags = TagSchedule::cyclic(tiles);

    let mut total = 0.0f32;
    let mut tag = tags.first;
    while tag < tags.end {
        // MPI_Bcast: the ranks copy the message in strides of the world size.
        let source = input.add(tag as usize * MSG_COUNT);
        let mut i = rank;
        while i < MSG_COUNT {
            *message.add(i) = *source.add(i);
            i += world;
        }
        barrier();
        let mut part = 0.0f32;
        for row in half * (ROWS / 2)..(half + 1) * (ROWS / 2) {
            part += *message.add(row * RESULT_COUNT + col);
        }
        *partials.add(rank) = part;
        barrier();
        if rank < RESULT_COUNT {
            total += *partials.add(rank) + *partials.add(rank + RESULT_COUNT);
        }
        barrier();
        tag += tags.stride;
    }
    if rank < RESULT_COUNT {
        *out.add(block_idx_x() as usize * RESULT_COUNT + rank) = total;
    }
}

/// BROKEN: the root posts each receive with the MPI count (elements) where the transfer wants
/// bytes: the request announces `MSG_BYTES` but the transfer moves `MSG_COUNT` bytes, a quarter
/// of the message. The full barrier never sees the bytes it was promised: the receivers hang.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_mpi_bad_count_not_bytes(input: *const f32, tiles: u32, out: *mut f32) {
    const DEPTH: u32 = 4;
    const ROOT: u32 = 32;
    const RECEIVERS: u32 = 32;
    block_threads(WORLD_SIZE);
    dynamic_shared_bytes(SHMEM_BYTES);

    let rank = mpi_comm_rank();
    let window = dynamic_shared_window_address();
    if rank == ROOT {
        Pipeline::<DEPTH>::init(window + REQUEST_TABLE, RECEIVERS);
    }
    barrier();
    let pipe = Pipeline::<DEPTH>::attach(window + REQUEST_TABLE);
    let tags = TagSchedule::cyclic(tiles);

    if rank == ROOT {
        let mut request = PipelineState::<DEPTH>::producer_start();
        let mut tag = tags.first;
        while tag < tags.end {
            pipe.producer_acquire(&request);
            pipe.producer_expect_tx(&request, MSG_BYTES);
            bulk_copy_global_to_shared(
                window + RECV_BUFFERS + request.index() * MSG_BYTES,
                input.add(tag as usize * MSG_COUNT) as *const u8,
                MSG_COUNT as u32, // MPI count, not bytes
                pipe.producer_barrier(&request),
            );
            request.advance();
            tag += tags.stride;
        }
        pipe.producer_tail(request);
    } else if rank < RECEIVERS {
        let buffers = dynamic_shared_base::<f32>().add(RECV_BUFFERS as usize / 4);
        let mut request = PipelineState::<DEPTH>::new();
        let mut local = 0.0f32;
        let mut tag = tags.first;
        while tag < tags.end {
            mpi_wait(&pipe, &request);
            local += column_sum(buffers.add(request.index() as usize * MSG_COUNT), rank as usize);
            mpi_request_free(&pipe, &mut request);
            tag += tags.stride;
        }
        *out.add(block_idx_x() as usize * RESULT_COUNT + rank as usize) = local;
    }
}

/// BROKEN: every rank but the root frees its request (`rank != ROOT`: 63 ranks) while the
/// request table was set up for 32 receivers, so the empty barrier completes before half the
/// ranks have read the buffer and the root refills it under them (ranks 32..63 only help free).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_mpi_bad_all_ranks_free(input: *const f32, tiles: u32, out: *mut f32) {
    const DEPTH: u32 = 4;
    const ROOT: u32 = 0;
    const RECEIVERS: u32 = 32;
    block_threads(WORLD_SIZE);
    dynamic_shared_bytes(SHMEM_BYTES);

    let rank = mpi_comm_rank();
    let window = dynamic_shared_window_address();
    if rank == ROOT {
        Pipeline::<DEPTH>::init(window + REQUEST_TABLE, RECEIVERS);
    }
    barrier();
    let pipe = Pipeline::<DEPTH>::attach(window + REQUEST_TABLE);
    let tags = TagSchedule::cyclic(tiles);

    if rank == ROOT {
        let mut request = PipelineState::<DEPTH>::producer_start();
        let mut tag = tags.first;
        while tag < tags.end {
            mpi_irecv(&pipe, &mut request, window + RECV_BUFFERS, input.add(tag as usize * MSG_COUNT), MSG_BYTES);
            tag += tags.stride;
        }
        pipe.producer_tail(request);
    } else {
        let buffers = dynamic_shared_base::<f32>().add(RECV_BUFFERS as usize / 4);
        let col = (rank as usize) % RESULT_COUNT;
        let mut request = PipelineState::<DEPTH>::new();
        let mut local = 0.0f32;
        let mut tag = tags.first;
        while tag < tags.end {
            mpi_wait(&pipe, &request);
            local += column_sum(buffers.add(request.index() as usize * MSG_COUNT), col);
            mpi_request_free(&pipe, &mut request);
            tag += tags.stride;
        }
        if rank >= 32 {
            *out.add(block_idx_x() as usize * RESULT_COUNT + col) = local;
        }
    }
    // Rank 0 owns column 0 but is the root: its column comes from rank 32.
}

/// BROKEN: the receivers loop `while tag <= tags.end` (an inclusive upper tag, as in a Fortran
/// MPI code): block 0 waits for a message with tag `tiles` that the root never posts, and hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_mpi_bad_inclusive_last_tag(input: *const f32, tiles: u32, out: *mut f32) {
    const DEPTH: u32 = 4;
    const ROOT: u32 = 32;
    const RECEIVERS: u32 = 32;
    block_threads(WORLD_SIZE);
    dynamic_shared_bytes(SHMEM_BYTES);

    let rank = mpi_comm_rank();
    let window = dynamic_shared_window_address();
    if rank == ROOT {
        Pipeline::<DEPTH>::init(window + REQUEST_TABLE, RECEIVERS);
    }
    barrier();
    let pipe = Pipeline::<DEPTH>::attach(window + REQUEST_TABLE);
    let tags = TagSchedule::cyclic(tiles);

    if rank == ROOT {
        let mut request = PipelineState::<DEPTH>::producer_start();
        let mut tag = tags.first;
        while tag < tags.end {
            mpi_irecv(&pipe, &mut request, window + RECV_BUFFERS, input.add(tag as usize * MSG_COUNT), MSG_BYTES);
            tag += tags.stride;
        }
        pipe.producer_tail(request);
    } else if rank < RECEIVERS {
        let buffers = dynamic_shared_base::<f32>().add(RECV_BUFFERS as usize / 4);
        let mut request = PipelineState::<DEPTH>::new();
        let mut local = 0.0f32;
        let mut tag = tags.first;
        while tag <= tags.end {
            mpi_wait(&pipe, &request);
            local += column_sum(buffers.add(request.index() as usize * MSG_COUNT), rank as usize);
            mpi_request_free(&pipe, &mut request);
            tag += tags.stride;
        }
        *out.add(block_idx_x() as usize * RESULT_COUNT + rank as usize) = local;
    }
}

/// BROKEN: the reduce step reads the other half's partial without the `MPI_Barrier` after the
/// partials are written: rank `r` reads `partials[r + 32]` before rank `r + 32` (another warp)
/// has stored this message's value.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_mpi_bad_reduce_before_barrier(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(WORLD_SIZE);
    dynamic_shared_bytes(SHMEM_BYTES);

    let rank = mpi_comm_rank() as usize;
    let world = WORLD_SIZE as usize;
    let message = dynamic_shared_base::<f32>();
    let partials = message.add(MSG_COUNT);
    let col = rank % RESULT_COUNT;
    let half = rank / RESULT_COUNT;
    let tags = TagSchedule::cyclic(tiles);

    let mut total = 0.0f32;
    let mut tag = tags.first;
    while tag < tags.end {
        let source = input.add(tag as usize * MSG_COUNT);
        let mut i = rank;
        while i < MSG_COUNT {
            *message.add(i) = *source.add(i);
            i += world;
        }
        barrier();
        let mut part = 0.0f32;
        for row in half * (ROWS / 2)..(half + 1) * (ROWS / 2) {
            part += *message.add(row * RESULT_COUNT + col);
        }
        *partials.add(rank) = part;
        if rank < RESULT_COUNT {
            total += *partials.add(rank) + *partials.add(rank + RESULT_COUNT);
        }
        barrier();
        tag += tags.stride;
    }
    if rank < RESULT_COUNT {
        *out.add(block_idx_x() as usize * RESULT_COUNT + rank) = total;
    }
}
