//! Cursors that hand out work as `Option` or `Result`: a block's tiles, a consumer's next stage,
//! a producer's next fill, consumed with `while let`, `?`, `match` and `iter::from_fn`.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::reduce::segment_sum;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const TILE_FLOATS: usize = 256;
const TILE_BYTES: u32 = 1024;
const ROWS: usize = 8;

/// Tiles `next, next + step, …` below `end`.
#[derive(Clone, Copy)]
struct TileCursor {
    next: u32,
    end: u32,
    step: u32,
}

/// A cursor with nothing left to hand out.
struct Done;

impl TileCursor {
    fn new(next: u32, end: u32, step: u32) -> Self {
        TileCursor { next, end, step }
    }

    /// This block's tiles out of `tiles`.
    fn of_block(tiles: u32) -> Self {
        Self::new(block_idx_x(), tiles, grid_dim_x())
    }

    fn next_tile(&mut self) -> Option<u32> {
        if self.next < self.end {
            let tile = self.next;
            self.next += self.step;
            Some(tile)
        } else {
            None
        }
    }

    fn claim(&mut self) -> Result<u32, Done> {
        self.next_tile().ok_or(Done)
    }
}

/// Barriers at `bars`, initialised by thread `init_by` for 32 consumers, then the block barrier.
#[inline(always)]
unsafe fn setup<const S: u32>(bars: u32, init_by: u32) -> (Pipeline<S>, u32, *mut f32) {
    block_threads(64);
    dynamic_shared_bytes(8192);
    let window = dynamic_shared_window_address();
    if thread_idx_x() == init_by {
        Pipeline::<S>::init(window + bars, 32);
    }
    barrier();
    (Pipeline::<S>::attach(window + bars), window, dynamic_shared_base::<f32>())
}

#[inline(always)]
unsafe fn column_of(stage: *const f32, column: usize) -> f32 {
    let mut sum = 0.0;
    for row in 0..ROWS {
        sum += *stage.add(row * 32 + column);
    }
    sum
}

/// A consumer's view of the ring: `next_stage` waits for this block's next tile.
struct Reader<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    tiles: TileCursor,
    ring: *const f32,
}

impl<const S: u32> Reader<S> {
    fn new(pipe: Pipeline<S>, tiles: TileCursor, ring: *const f32) -> Self {
        Reader { pipe, state: PipelineState::new(), tiles, ring }
    }

    unsafe fn next_stage(&mut self) -> Option<*const f32> {
        self.tiles.next_tile()?;
        self.pipe.consumer_wait(&self.state);
        Some(self.ring.add(self.state.index() as usize * TILE_FLOATS))
    }

    fn done_with_stage(&mut self) {
        self.pipe.consumer_release(&self.state);
        self.state.advance();
    }
}

/// The producer's side: `fill_next` starts the copy of this block's next tile.
struct Writer<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    tiles: TileCursor,
    ring: u32,
    input: *const f32,
}

impl<const S: u32> Writer<S> {
    fn new(pipe: Pipeline<S>, tiles: TileCursor, ring: u32, input: *const f32) -> Self {
        Writer { pipe, state: PipelineState::producer_start(), tiles, ring, input }
    }

    unsafe fn fill_next(&mut self) -> Option<u32> {
        let tile = self.tiles.next_tile()?;
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        bulk_copy_global_to_shared(
            self.ring + self.state.index() * TILE_BYTES,
            self.input.add(tile as usize * TILE_FLOATS) as *const u8,
            TILE_BYTES,
            self.pipe.producer_barrier(&self.state),
        );
        self.state.advance();
        Some(tile)
    }

    fn finish(self) {
        self.pipe.producer_tail(self.state);
    }
}

// ---- correct ----

/// Both roles walk their tiles with `while let Some(t) = cursor.next_tile()`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_cur_while_let(input: *const f32, tiles: u32, out: *mut f32) {
    let (pipe, window, smem) = setup::<4>(4096, 0);
    let tid = thread_idx_x();
    if tid == 32 {
        let mut cursor = TileCursor::of_block(tiles);
        let mut state = PipelineState::<4>::producer_start();
        while let Some(t) = cursor.next_tile() {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            let source = input.add(t as usize * TILE_FLOATS) as *const u8;
            bulk_copy_global_to_shared(window + state.index() * TILE_BYTES, source, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut cursor = TileCursor::of_block(tiles);
        let mut state = PipelineState::<4>::new();
        let mut sum = 0.0f32;
        while let Some(_) = cursor.next_tile() {
            pipe.consumer_wait(&state);
            sum += column_of(smem.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block_idx_x() as usize * 32 + tid as usize) = sum;
    }
}

/// The consumers use a `Reader` whose `next_stage` returns the stage to sum, or `None`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_cur_reader_option(input: *const f32, tiles: u32, out: *mut f32) {
    let (pipe, window, smem) = setup::<3>(0, 0);
    let tid = thread_idx_x();
    if tid == 0 {
        let mut writer = Writer::new(pipe, TileCursor::of_block(tiles), window + 1024, input);
        while writer.fill_next().is_some() {}
        writer.finish();
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut reader = Reader::new(pipe, TileCursor::of_block(tiles), smem.add(256));
        let mut sum = 0.0f32;
        while let Some(stage) = reader.next_stage() {
            sum += column_of(stage, column);
            reader.done_with_stage();
        }
        *out.add(block_idx_x() as usize * 32 + column) = sum;
    }
}

/// Tiles claimed as `Result<u32, Done>` and matched in a `loop`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_cur_result_claim(input: *const f32, tiles: u32, out: *mut f32) {
    let (pipe, window, smem) = setup::<5>(5120, 63);
    let tid = thread_idx_x();
    let mut cursor = TileCursor::of_block(tiles);
    if tid == 63 {
        let mut state = PipelineState::<5>::producer_start();
        loop {
            let t = match cursor.claim() {
                Ok(t) => t,
                Err(Done) => break,
            };
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut state = PipelineState::<5>::new();
        let mut sum = 0.0f32;
        loop {
            match cursor.claim() {
                Ok(_) => {}
                Err(Done) => break,
            }
            pipe.consumer_wait(&state);
            sum += column_of(smem.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block_idx_x() as usize * 32 + tid as usize) = sum;
    }
}

/// Producer and consumers both as cursor objects over a two-stage ring at byte 4096.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_cur_writer_reader(input: *const f32, tiles: u32, out: *mut f32) {
    let (pipe, window, smem) = setup::<2>(6144, 5);
    let tid = thread_idx_x();
    if tid == 5 {
        let mut writer = Writer::new(pipe, TileCursor::of_block(tiles), window + 4096, input);
        while let Some(_) = writer.fill_next() {}
        writer.finish();
    } else if tid >= 32 {
        let column = (tid % 32) as usize;
        let mut reader = Reader::new(pipe, TileCursor::of_block(tiles), smem.add(1024));
        let mut sum = 0.0f32;
        while let Some(stage) = reader.next_stage() {
            sum += column_of(stage, column);
            reader.done_with_stage();
        }
        *out.add(block_idx_x() as usize * 32 + column) = sum;
    }
}

/// A count-down cursor: `take` fails through `checked_sub(1)?` once the block's share is done.
struct Countdown {
    left: u32,
    tile: u32,
    step: u32,
}

impl Countdown {
    fn of_block(tiles: u32) -> Self {
        let (block, grid) = (block_idx_x(), grid_dim_x());
        let left = if block < tiles { (tiles - block - 1) / grid + 1 } else { 0 };
        Countdown { left, tile: block, step: grid }
    }

    fn take(&mut self) -> Option<u32> {
        self.left = self.left.checked_sub(1)?;
        let tile = self.tile;
        self.tile += self.step;
        Some(tile)
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_cur_countdown(input: *const f32, tiles: u32, out: *mut f32) {
    let (pipe, window, smem) = setup::<6>(0, 0);
    let ring = window + 2048;
    let tid = thread_idx_x();
    let mut work = Countdown::of_block(tiles);
    if tid == 0 {
        let mut state = PipelineState::<6>::producer_start();
        while let Some(t) = work.take() {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                ring + state.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut state = PipelineState::<6>::new();
        let mut sum = 0.0f32;
        while work.take().is_some() {
            pipe.consumer_wait(&state);
            sum += column_of(smem.add(512 + state.index() as usize * TILE_FLOATS), column);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block_idx_x() as usize * 32 + column) = sum;
    }
}

/// Warp 0 reads each stage cooperatively (eight lanes per group of eight columns, one row each)
/// and folds its per-column partials with `segment_sum` at the end; tiles come from
/// `iter::from_fn` over the cursor.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_cur_from_fn_segments(input: *const f32, tiles: u32, out: *mut f32) {
    let (pipe, window, smem) = setup::<4>(7168, 32);
    let tid = thread_idx_x();
    let mut cursor = TileCursor::of_block(tiles);
    if tid == 32 {
        let mut state = PipelineState::<4>::producer_start();
        for t in core::iter::from_fn(|| cursor.next_tile()) {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let lane = tid as usize;
        let (group, row) = (lane / 8, lane % 8);
        let mut partial = [0.0f32; 8];
        let mut state = PipelineState::<4>::new();
        for _ in core::iter::from_fn(|| cursor.next_tile()) {
            pipe.consumer_wait(&state);
            let at = smem.add(state.index() as usize * TILE_FLOATS + row * 32 + group * 8);
            let low = *(at as *const [f32; 4]);
            let high = *(at.add(4) as *const [f32; 4]);
            for k in 0..4 {
                partial[k] += low[k];
                partial[k + 4] += high[k];
            }
            pipe.consumer_release(&state);
            state.advance();
        }
        let mut mine = 0.0f32;
        for (j, value) in partial.into_iter().enumerate() {
            let column_total = segment_sum(value, 8);
            if j == row {
                mine = column_total;
            }
        }
        *out.add(block_idx_x() as usize * 32 + group * 8 + row) = mine;
    }
}

// ---- broken ----

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_cur_bad_last_tile_end(input: *const f32, tiles: u32, out: *mut f32) {
    let (pipe, window, smem) = setup::<4>(4096, 0);
    let tid = thread_idx_x();
    if tid == 0 {
        let mut writer = Writer::new(pipe, TileCursor::new(block_idx_x(), tiles - 1, grid_dim_x()), window, input);
        while writer.fill_next().is_some() {}
        writer.finish();
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut reader = Reader::new(pipe, TileCursor::of_block(tiles), smem);
        let mut sum = 0.0f32;
        while let Some(stage) = reader.next_stage() {
            sum += column_of(stage, column);
            reader.done_with_stage();
        }
        *out.add(block_idx_x() as usize * 32 + column) = sum;
    }
}

/// A variant of `Reader` with its own stepping.
struct EagerReader<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    tiles: TileCursor,
    ring: *const f32,
}

impl<const S: u32> EagerReader<S> {
    unsafe fn next_stage(&mut self) -> Option<*const f32> {
        self.tiles.next_tile()?;
        self.pipe.consumer_wait(&self.state);
        let stage = self.ring.add(self.state.index() as usize * TILE_FLOATS);
        self.state.advance();
        Some(stage)
    }

    fn done_with_stage(&mut self) {
        self.pipe.consumer_release(&self.state);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_cur_bad_reader_advance_early(input: *const f32, tiles: u32, out: *mut f32) {
    let (pipe, window, smem) = setup::<4>(4096, 0);
    let tid = thread_idx_x();
    if tid == 0 {
        let mut writer = Writer::new(pipe, TileCursor::of_block(tiles), window, input);
        while writer.fill_next().is_some() {}
        writer.finish();
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut reader = EagerReader { pipe, state: PipelineState::new(), tiles: TileCursor::of_block(tiles), ring: smem };
        let mut sum = 0.0f32;
        while let Some(stage) = reader.next_stage() {
            sum += column_of(stage, column);
            reader.done_with_stage();
        }
        *out.add(block_idx_x() as usize * 32 + column) = sum;
    }
}

/// Tile claims for the consumers.
struct Claims {
    next: u32,
    end: u32,
    step: u32,
}

impl Claims {
    fn claim(&mut self) -> Result<u32, Done> {
        if self.next + self.step >= self.end {
            return Err(Done);
        }
        let tile = self.next;
        self.next += self.step;
        Ok(tile)
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_cur_bad_claim_short(input: *const f32, tiles: u32, out: *mut f32) {
    let (pipe, window, smem) = setup::<5>(5120, 63);
    let tid = thread_idx_x();
    if tid == 63 {
        let mut cursor = TileCursor::of_block(tiles);
        let mut state = PipelineState::<5>::producer_start();
        while let Ok(t) = cursor.claim() {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            bulk_copy_global_to_shared(
                window + state.index() * TILE_BYTES,
                input.add(t as usize * TILE_FLOATS) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
        }
        pipe.producer_tail(state);
    } else if tid < 32 {
        let mut claims = Claims { next: block_idx_x(), end: tiles, step: grid_dim_x() };
        let mut state = PipelineState::<5>::new();
        let mut sum = 0.0f32;
        while let Ok(_) = claims.claim() {
            pipe.consumer_wait(&state);
            sum += column_of(smem.add(state.index() as usize * TILE_FLOATS), tid as usize);
            pipe.consumer_release(&state);
            state.advance();
        }
        *out.add(block_idx_x() as usize * 32 + tid as usize) = sum;
    }
}

/// A variant of `Writer` that works out the destination first.
struct QuickWriter<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    tiles: TileCursor,
    ring: u32,
    input: *const f32,
}

impl<const S: u32> QuickWriter<S> {
    unsafe fn fill_next(&mut self) -> Option<u32> {
        let tile = self.tiles.next_tile()?;
        self.pipe.producer_acquire(&self.state);
        self.pipe.producer_expect_tx(&self.state, TILE_BYTES);
        let destination = self.ring + self.state.index() * TILE_BYTES;
        self.state.advance();
        bulk_copy_global_to_shared(
            destination,
            self.input.add(tile as usize * TILE_FLOATS) as *const u8,
            TILE_BYTES,
            self.pipe.producer_barrier(&self.state),
        );
        Some(tile)
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_cur_bad_writer_advance_first(input: *const f32, tiles: u32, out: *mut f32) {
    let (pipe, window, smem) = setup::<3>(3072, 0);
    let tid = thread_idx_x();
    if tid == 0 {
        let mut writer = QuickWriter {
            pipe,
            state: PipelineState::<3>::producer_start(),
            tiles: TileCursor::of_block(tiles),
            ring: window,
            input,
        };
        while writer.fill_next().is_some() {}
        pipe.producer_tail(writer.state);
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut reader = Reader::new(pipe, TileCursor::of_block(tiles), smem);
        let mut sum = 0.0f32;
        while let Some(stage) = reader.next_stage() {
            sum += column_of(stage, column);
            reader.done_with_stage();
        }
        *out.add(block_idx_x() as usize * 32 + column) = sum;
    }
}

/// A reader that caches its stage pointer.
struct PinnedReader<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    tiles: TileCursor,
    stage: *const f32,
}

impl<const S: u32> PinnedReader<S> {
    unsafe fn new(pipe: Pipeline<S>, tiles: TileCursor, ring: *const f32) -> Self {
        let state = PipelineState::<S>::new();
        let stage = ring.add(state.index() as usize * TILE_FLOATS);
        PinnedReader { pipe, state, tiles, stage }
    }

    unsafe fn next_stage(&mut self) -> Option<*const f32> {
        self.tiles.next_tile()?;
        self.pipe.consumer_wait(&self.state);
        Some(self.stage)
    }

    fn done_with_stage(&mut self) {
        self.pipe.consumer_release(&self.state);
        self.state.advance();
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_cur_bad_pinned_stage(input: *const f32, tiles: u32, out: *mut f32) {
    let (pipe, window, smem) = setup::<4>(4096, 32);
    let tid = thread_idx_x();
    if tid == 32 {
        let mut writer = Writer::new(pipe, TileCursor::of_block(tiles), window, input);
        while writer.fill_next().is_some() {}
        writer.finish();
    } else if tid < 32 {
        let mut reader = PinnedReader::new(pipe, TileCursor::of_block(tiles), smem);
        let mut sum = 0.0f32;
        while let Some(stage) = reader.next_stage() {
            sum += column_of(stage, tid as usize);
            reader.done_with_stage();
        }
        *out.add(block_idx_x() as usize * 32 + tid as usize) = sum;
    }
}

/// A variant of `Reader`.
struct WaitingReader<const S: u32> {
    pipe: Pipeline<S>,
    state: PipelineState<S>,
    tiles: TileCursor,
    ring: *const f32,
}

impl<const S: u32> WaitingReader<S> {
    unsafe fn next_stage(&mut self) -> Option<*const f32> {
        self.pipe.consumer_wait(&self.state);
        self.tiles.next_tile()?;
        Some(self.ring.add(self.state.index() as usize * TILE_FLOATS))
    }

    fn done_with_stage(&mut self) {
        self.pipe.consumer_release(&self.state);
        self.state.advance();
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r30_cur_bad_wait_then_next(input: *const f32, tiles: u32, out: *mut f32) {
    let (pipe, window, smem) = setup::<4>(0, 0);
    let tid = thread_idx_x();
    if tid == 0 {
        let mut writer = Writer::new(pipe, TileCursor::of_block(tiles), window + 1024, input);
        while writer.fill_next().is_some() {}
        writer.finish();
    } else if tid >= 32 {
        let column = (tid - 32) as usize;
        let mut reader =
            WaitingReader { pipe, state: PipelineState::new(), tiles: TileCursor::of_block(tiles), ring: smem.add(256) };
        let mut sum = 0.0f32;
        while let Some(stage) = reader.next_stage() {
            sum += column_of(stage, column);
            reader.done_with_stage();
        }
        *out.add(block_idx_x() as usize * 32 + column) = sum;
    }
}
