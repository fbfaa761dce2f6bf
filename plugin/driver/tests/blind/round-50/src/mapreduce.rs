//! Style `mapreduce`: the block runs a small Hadoop-style job. A tile is an `InputSplit` of 256
//! records; record `r` has key `r % 32` (its column). A record reader (the producer thread)
//! streams the task's splits into shared memory, mappers (one per key) `map` each split and
//! `emit` into a local `Combiner`, and a shuffle/reduce phase gathers the combined values per
//! key. Job parameters live in a `JobConf` constant; mapper logic behind a `Mapper` trait.

use crate::device::geometry::{block_idx_x, grid_dim_x, thread_idx_x};
use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::shared::{barrier, dynamic_shared_base, dynamic_shared_window_address};

/// Job configuration: the shared-memory plan and the split geometry.
#[derive(Clone, Copy)]
struct JobConf {
    task_threads: u32,
    shared_bytes: u32,
    split_records: u32,
    keys: u32,
    barrier_offset: u32,
    ring_offset: u32,
}

impl JobConf {
    const fn split_bytes(&self) -> u32 {
        self.split_records * 4
    }
    const fn records_per_key(&self) -> u32 {
        self.split_records / self.keys
    }
}

const JOB: JobConf = JobConf {
    task_threads: 64,
    shared_bytes: 8192,
    split_records: 256,
    keys: 32,
    barrier_offset: 0,
    ring_offset: 1024,
};

/// The splits of this task (block): `first, first + stride, …` below `end`.
#[derive(Clone, Copy)]
struct TaskSplits {
    first: u32,
    stride: u32,
    end: u32,
}

impl TaskSplits {
    #[inline(always)]
    fn of_this_task(total_splits: u32) -> TaskSplits {
        TaskSplits { first: block_idx_x(), stride: grid_dim_x(), end: total_splits }
    }
}

/// Local aggregation of one key's emitted values.
#[derive(Clone, Copy, Default)]
struct Combiner {
    sum: f32,
}

impl Combiner {
    #[inline(always)]
    fn emit(&mut self, value: f32) {
        self.sum += value;
    }
}

trait Mapper {
    /// Maps the records of `split` (in shared memory) that carry `key` into `out`.
    unsafe fn map(&self, split: *const f32, key: u32, out: &mut Combiner);
}

/// The job's mapper: every record of a key is emitted as is (a column sum).
struct ColumnSumMapper;

impl Mapper for ColumnSumMapper {
    #[inline(always)]
    unsafe fn map(&self, split: *const f32, key: u32, out: &mut Combiner) {
        for r in 0..JOB.records_per_key() {
            out.emit(*split.add((r * JOB.keys + key) as usize));
        }
    }
}

/// The output record of key `key` of this task.
#[inline(always)]
unsafe fn write_output(out: *mut f32, key: u32, value: f32) {
    *out.add((block_idx_x() * JOB.keys + key) as usize) = value;
}

/// Record reader on thread 0 into a four-split ring; mappers on threads 32..64, key
/// `tid - 32`, each with its own combiner, writing the task's output directly.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_mapreduce_record_reader(input: *const f32, tiles: u32, out: *mut f32) {
    const DEPTH: u32 = 4;
    block_threads(JOB.task_threads);
    dynamic_shared_bytes(JOB.shared_bytes);

    let tid = thread_idx_x();
    let smem = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add((JOB.ring_offset / 4) as usize);
    if tid == 0 {
        Pipeline::<DEPTH>::init(smem + JOB.barrier_offset, JOB.keys);
    }
    barrier();
    let pipe = Pipeline::<DEPTH>::attach(smem + JOB.barrier_offset);
    let splits = TaskSplits::of_this_task(tiles);

    if tid == 0 {
        let mut reader = PipelineState::<DEPTH>::producer_start();
        let mut s = splits.first;
        while s < splits.end {
            pipe.producer_acquire(&reader);
            pipe.producer_expect_tx(&reader, JOB.split_bytes());
            bulk_copy_global_to_shared(
                smem + JOB.ring_offset + reader.index() * JOB.split_bytes(),
                input.add((s * JOB.split_records) as usize) as *const u8,
                JOB.split_bytes(),
                pipe.producer_barrier(&reader),
            );
            reader.advance();
            s += splits.stride;
        }
        pipe.producer_tail(reader);
    } else if tid >= 32 {
        let key = tid - 32;
        let mapper = ColumnSumMapper;
        let mut combiner = Combiner::default();
        let mut cursor = PipelineState::<DEPTH>::new();
        let mut s = splits.first;
        while s < splits.end {
            pipe.consumer_wait(&cursor);
            let split = ring.add((cursor.index() * JOB.split_records) as usize);
            mapper.map(split, key, &mut combiner);
            pipe.consumer_release(&cursor);
            cursor.advance();
            s += splits.stride;
        }
        write_output(out, key, combiner.sum);
    }
}

/// Map → shuffle → reduce: mappers (threads 0..32) combine per key over a three-split ring,
/// then spill their combined value to the shuffle area after the ring; after a block barrier
/// the reducers (threads 32..64) read the shuffle and write the output. Reader on thread 32.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_mapreduce_shuffle_after_ring(input: *const f32, tiles: u32, out: *mut f32) {
    const DEPTH: u32 = 3;
    const SHUFFLE_OFFSET: u32 = 6144;
    block_threads(JOB.task_threads);
    dynamic_shared_bytes(JOB.shared_bytes);

    let tid = thread_idx_x();
    let smem = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add((JOB.ring_offset / 4) as usize);
    let shuffle = dynamic_shared_base::<f32>().add((SHUFFLE_OFFSET / 4) as usize);
    if tid == 32 {
        Pipeline::<DEPTH>::init(smem + JOB.barrier_offset, JOB.keys);
    }
    barrier();
    let pipe = Pipeline::<DEPTH>::attach(smem + JOB.barrier_offset);
    let splits = TaskSplits::of_this_task(tiles);

    if tid == 32 {
        let mut reader = PipelineState::<DEPTH>::producer_start();
        let mut s = splits.first;
        while s < splits.end {
            pipe.producer_acquire(&reader);
            pipe.producer_expect_tx(&reader, JOB.split_bytes());
            bulk_copy_global_to_shared(
                smem + JOB.ring_offset + reader.index() * JOB.split_bytes(),
                input.add((s * JOB.split_records) as usize) as *const u8,
                JOB.split_bytes(),
                pipe.producer_barrier(&reader),
            );
            reader.advance();
            s += splits.stride;
        }
        pipe.producer_tail(reader);
    } else if tid < 32 {
        let key = tid;
        let mut combiner = Combiner::default();
        let mut cursor = PipelineState::<DEPTH>::new();
        let mut s = splits.first;
        while s < splits.end {
            pipe.consumer_wait(&cursor);
            ColumnSumMapper.map(ring.add((cursor.index() * JOB.split_records) as usize), key, &mut combiner);
            pipe.consumer_release(&cursor);
            cursor.advance();
            s += splits.stride;
        }
        // spill
        *shuffle.add(key as usize) = combiner.sum;
    }
    barrier();
    if tid >= 32 {
        let key = tid - 32;
        write_output(out, key, *shuffle.add(key as usize));
    }
}

/// No pipeline: for each split, every thread maps four records straight from global memory and
/// partitions them by key into the shuffle buffer (`shuffle[key][slot]`, eight slots per key),
/// a barrier, then reducer `key` (threads 0..32) folds its partition; a barrier before the
/// next split reuses the buffer.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_mapreduce_partitioned_shuffle(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(JOB.task_threads);
    dynamic_shared_bytes(JOB.shared_bytes);

    let tid = thread_idx_x();
    let slots = JOB.records_per_key();
    let shuffle = dynamic_shared_base::<f32>();
    let splits = TaskSplits::of_this_task(tiles);

    let mut reduced = 0.0f32;
    let mut s = splits.first;
    while s < splits.end {
        let split = input.add((s * JOB.split_records) as usize);
        // map + partition
        let mut record = tid;
        while record < JOB.split_records {
            let key = record % JOB.keys;
            let slot = record / JOB.keys;
            *shuffle.add((key * slots + slot) as usize) = *split.add(record as usize);
            record += JOB.task_threads;
        }
        barrier();
        // reduce
        if tid < JOB.keys {
            let partition = shuffle.add((tid * slots) as usize);
            for slot in 0..slots {
                reduced += *partition.add(slot as usize);
            }
        }
        barrier();
        s += splits.stride;
    }
    if tid < JOB.keys {
        write_output(out, tid, reduced);
    }
}

/// `CombineFileInputFormat`: the reader packs up to two splits into one 2 KiB stage of a
/// two-stage ring (one `expect_tx` for the stage, one copy per split); the mappers map every
/// split the stage holds. Reader on thread 0, mappers threads 32..64.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_mapreduce_combined_splits(input: *const f32, tiles: u32, out: *mut f32) {
    const DEPTH: u32 = 2;
    const SPLITS_PER_STAGE: u32 = 2;
    block_threads(JOB.task_threads);
    dynamic_shared_bytes(JOB.shared_bytes);

    let tid = thread_idx_x();
    let smem = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add((JOB.ring_offset / 4) as usize);
    let stage_bytes = SPLITS_PER_STAGE * JOB.split_bytes();
    if tid == 0 {
        Pipeline::<DEPTH>::init(smem + JOB.barrier_offset, JOB.keys);
    }
    barrier();
    let pipe = Pipeline::<DEPTH>::attach(smem + JOB.barrier_offset);
    let splits = TaskSplits::of_this_task(tiles);
    let mine = if splits.first < splits.end { (splits.end - splits.first).div_ceil(splits.stride) } else { 0 };

    if tid == 0 {
        let mut reader = PipelineState::<DEPTH>::producer_start();
        let mut k = 0;
        while k < mine {
            let n = if mine - k < SPLITS_PER_STAGE { mine - k } else { SPLITS_PER_STAGE };
            pipe.producer_acquire(&reader);
            pipe.producer_expect_tx(&reader, n * JOB.split_bytes());
            for j in 0..n {
                let s = splits.first + (k + j) * splits.stride;
                bulk_copy_global_to_shared(
                    smem + JOB.ring_offset + reader.index() * stage_bytes + j * JOB.split_bytes(),
                    input.add((s * JOB.split_records) as usize) as *const u8,
                    JOB.split_bytes(),
                    pipe.producer_barrier(&reader),
                );
            }
            reader.advance();
            k += SPLITS_PER_STAGE;
        }
        pipe.producer_tail(reader);
    } else if tid >= 32 {
        let key = tid - 32;
        let mut combiner = Combiner::default();
        let mut cursor = PipelineState::<DEPTH>::new();
        let mut k = 0;
        while k < mine {
            let n = if mine - k < SPLITS_PER_STAGE { mine - k } else { SPLITS_PER_STAGE };
            pipe.consumer_wait(&cursor);
            let stage = ring.add((cursor.index() * SPLITS_PER_STAGE * JOB.split_records) as usize);
            for j in 0..n {
                ColumnSumMapper.map(stage.add((j * JOB.split_records) as usize), key, &mut combiner);
            }
            pipe.consumer_release(&cursor);
            cursor.advance();
            k += SPLITS_PER_STAGE;
        }
        write_output(out, key, combiner.sum);
    }
}

/// BROKEN: the reducers fold their partition right after the map phase, without the barrier
/// that ends the shuffle: reducer `key` reads slots other threads (the other warp) have not
/// partitioned yet.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_mapreduce_bad_reduce_during_shuffle(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(JOB.task_threads);
    dynamic_shared_bytes(JOB.shared_bytes);

    let tid = thread_idx_x();
    let slots = JOB.records_per_key();
    let shuffle = dynamic_shared_base::<f32>();
    let splits = TaskSplits::of_this_task(tiles);

    let mut reduced = 0.0f32;
    let mut s = splits.first;
    while s < splits.end {
        let split = input.add((s * JOB.split_records) as usize);
        let mut record = tid;
        while record < JOB.split_records {
            let key = record % JOB.keys;
            let slot = record / JOB.keys;
            *shuffle.add((key * slots + slot) as usize) = *split.add(record as usize);
            record += JOB.task_threads;
        }
        if tid < JOB.keys {
            let partition = shuffle.add((tid * slots) as usize);
            for slot in 0..slots {
                reduced += *partition.add(slot as usize);
            }
        }
        barrier();
        s += splits.stride;
    }
    if tid < JOB.keys {
        write_output(out, tid, reduced);
    }
}

/// BROKEN: each mapper opens a fresh `RecordReader` cursor per split (`PipelineState::new()`
/// inside the loop): every split waits on stage 0's first phase, which has long completed, so
/// the mappers reread stage 0 and only ever release stage 0; the reader waits forever for
/// stage 1 to be released.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_mapreduce_bad_reader_per_split(input: *const f32, tiles: u32, out: *mut f32) {
    const DEPTH: u32 = 4;
    block_threads(JOB.task_threads);
    dynamic_shared_bytes(JOB.shared_bytes);

    let tid = thread_idx_x();
    let smem = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add((JOB.ring_offset / 4) as usize);
    if tid == 0 {
        Pipeline::<DEPTH>::init(smem + JOB.barrier_offset, JOB.keys);
    }
    barrier();
    let pipe = Pipeline::<DEPTH>::attach(smem + JOB.barrier_offset);
    let splits = TaskSplits::of_this_task(tiles);

    if tid == 0 {
        let mut reader = PipelineState::<DEPTH>::producer_start();
        let mut s = splits.first;
        while s < splits.end {
            pipe.producer_acquire(&reader);
            pipe.producer_expect_tx(&reader, JOB.split_bytes());
            bulk_copy_global_to_shared(
                smem + JOB.ring_offset + reader.index() * JOB.split_bytes(),
                input.add((s * JOB.split_records) as usize) as *const u8,
                JOB.split_bytes(),
                pipe.producer_barrier(&reader),
            );
            reader.advance();
            s += splits.stride;
        }
        pipe.producer_tail(reader);
    } else if tid >= 32 {
        let key = tid - 32;
        let mut combiner = Combiner::default();
        let mut s = splits.first;
        while s < splits.end {
            let mut cursor = PipelineState::<DEPTH>::new();
            pipe.consumer_wait(&cursor);
            ColumnSumMapper.map(ring.add((cursor.index() * JOB.split_records) as usize), key, &mut combiner);
            pipe.consumer_release(&cursor);
            cursor.advance();
            s += splits.stride;
        }
        write_output(out, key, combiner.sum);
    }
}

/// A mapper that "commits" its split as soon as its records are read: it releases the stage
/// itself. Meant for a driver that does not release.
struct CommittingMapper<'a, const N: u32> {
    pipe: &'a Pipeline<N>,
}

impl<const N: u32> CommittingMapper<'_, N> {
    #[inline(always)]
    unsafe fn map_and_commit(&self, cursor: &PipelineState<N>, split: *const f32, key: u32, out: &mut Combiner) {
        ColumnSumMapper.map(split, key, out);
        self.pipe.consumer_release(cursor);
    }
}

/// BROKEN: the driver loop releases each split after `map_and_commit` has already released it:
/// two arrivals per mapper per split on an empty barrier counting 32, so each stage's empty
/// barrier runs two phases per split and the reader, waiting on the parity of one, hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_mapreduce_bad_double_commit(input: *const f32, tiles: u32, out: *mut f32) {
    const DEPTH: u32 = 4;
    block_threads(JOB.task_threads);
    dynamic_shared_bytes(JOB.shared_bytes);

    let tid = thread_idx_x();
    let smem = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add((JOB.ring_offset / 4) as usize);
    if tid == 32 {
        Pipeline::<DEPTH>::init(smem + JOB.barrier_offset, JOB.keys);
    }
    barrier();
    let pipe = Pipeline::<DEPTH>::attach(smem + JOB.barrier_offset);
    let splits = TaskSplits::of_this_task(tiles);

    if tid == 32 {
        let mut reader = PipelineState::<DEPTH>::producer_start();
        let mut s = splits.first;
        while s < splits.end {
            pipe.producer_acquire(&reader);
            pipe.producer_expect_tx(&reader, JOB.split_bytes());
            bulk_copy_global_to_shared(
                smem + JOB.ring_offset + reader.index() * JOB.split_bytes(),
                input.add((s * JOB.split_records) as usize) as *const u8,
                JOB.split_bytes(),
                pipe.producer_barrier(&reader),
            );
            reader.advance();
            s += splits.stride;
        }
        pipe.producer_tail(reader);
    } else if tid < 32 {
        let key = tid;
        let mapper = CommittingMapper { pipe: &pipe };
        let mut combiner = Combiner::default();
        let mut cursor = PipelineState::<DEPTH>::new();
        let mut s = splits.first;
        while s < splits.end {
            pipe.consumer_wait(&cursor);
            mapper.map_and_commit(&cursor, ring.add((cursor.index() * JOB.split_records) as usize), key, &mut combiner);
            pipe.consumer_release(&cursor);
            cursor.advance();
            s += splits.stride;
        }
        write_output(out, key, combiner.sum);
    }
}

/// BROKEN: this job's configuration moves the barrier table ("job counters") to byte 4096,
/// "after the ring", but the ring of four 1 KiB splits starting at byte 1024 ends at 5120:
/// the copies into stage 3 overwrite the mbarriers and the pipeline hangs.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r50_mapreduce_bad_counters_in_ring(input: *const f32, tiles: u32, out: *mut f32) {
    const DEPTH: u32 = 4;
    const CONF: JobConf = JobConf { barrier_offset: 4096, ..JOB };
    block_threads(CONF.task_threads);
    dynamic_shared_bytes(CONF.shared_bytes);

    let tid = thread_idx_x();
    let smem = dynamic_shared_window_address();
    let ring = dynamic_shared_base::<f32>().add((CONF.ring_offset / 4) as usize);
    if tid == 0 {
        Pipeline::<DEPTH>::init(smem + CONF.barrier_offset, CONF.keys);
    }
    barrier();
    let pipe = Pipeline::<DEPTH>::attach(smem + CONF.barrier_offset);
    let splits = TaskSplits::of_this_task(tiles);

    if tid == 0 {
        let mut reader = PipelineState::<DEPTH>::producer_start();
        let mut s = splits.first;
        while s < splits.end {
            pipe.producer_acquire(&reader);
            pipe.producer_expect_tx(&reader, CONF.split_bytes());
            bulk_copy_global_to_shared(
                smem + CONF.ring_offset + reader.index() * CONF.split_bytes(),
                input.add((s * CONF.split_records) as usize) as *const u8,
                CONF.split_bytes(),
                pipe.producer_barrier(&reader),
            );
            reader.advance();
            s += splits.stride;
        }
        pipe.producer_tail(reader);
    } else if tid >= 32 {
        let key = tid - 32;
        let mut combiner = Combiner::default();
        let mut cursor = PipelineState::<DEPTH>::new();
        let mut s = splits.first;
        while s < splits.end {
            pipe.consumer_wait(&cursor);
            ColumnSumMapper.map(ring.add((cursor.index() * CONF.split_records) as usize), key, &mut combiner);
            pipe.consumer_release(&cursor);
            cursor.advance();
            s += splits.stride;
        }
        write_output(out, key, combiner.sum);
    }
}
