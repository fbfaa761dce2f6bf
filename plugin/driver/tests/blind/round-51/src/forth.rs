//! Column sums written by a Forth shop: address arithmetic done on an explicit data stack in
//! registers, small words with stack-effect comments (`( ring index -- addr )`), `BEGIN … WHILE
//! … REPEAT` and `?DO … +LOOP` loops, and a tiny inner interpreter running compiled word lists.

use crate::device::launch::{block_threads, dynamic_shared_bytes};
use crate::device::pipeline::{Pipeline, PipelineState, bulk_copy_global_to_shared};
use crate::device::{barrier, block_idx_x, dynamic_shared_base, dynamic_shared_window_address, grid_dim_x, thread_idx_x};

const BLOCK_THREADS: u32 = 64;
const SHARED_BYTES: u32 = 8192;
const COLUMNS: u32 = 32;
const ROWS: u32 = 8;
const TILE_FLOATS: u32 = 256;
const TILE_BYTES: u32 = 1024;
const STAGES: u32 = 4;
const CONSUMERS: u32 = 32;
const RING: u32 = 1024; // byte offset of the ring; the barriers sit at byte 0

/// The data stack: eight cells in registers.
struct Stack {
    cells: [u32; 8],
    depth: usize,
}

impl Stack {
    #[inline(always)]
    fn new() -> Stack {
        Stack { cells: [0; 8], depth: 0 }
    }

    /// `n` ( -- n )
    #[inline(always)]
    fn lit(&mut self, n: u32) -> &mut Stack {
        self.cells[self.depth] = n;
        self.depth += 1;
        self
    }

    /// ( n -- )
    #[inline(always)]
    fn pop(&mut self) -> u32 {
        self.depth -= 1;
        self.cells[self.depth]
    }

    /// `*` ( a b -- a*b )
    #[inline(always)]
    fn star(&mut self) -> &mut Stack {
        let b = self.pop();
        let a = self.pop();
        self.lit(a.wrapping_mul(b))
    }

    /// `+` ( a b -- a+b )
    #[inline(always)]
    fn plus(&mut self) -> &mut Stack {
        let b = self.pop();
        let a = self.pop();
        self.lit(a.wrapping_add(b))
    }

    /// `1+` ( a -- a+1 )
    #[inline(always)]
    fn one_plus(&mut self) -> &mut Stack {
        let a = self.pop();
        self.lit(a + 1)
    }

    /// `ROT` ( a b c -- b c a )
    #[inline(always)]
    fn rot(&mut self) -> &mut Stack {
        let c = self.pop();
        let b = self.pop();
        let a = self.pop();
        self.lit(b).lit(c).lit(a)
    }

    /// `<` ( a b -- flag )
    #[inline(always)]
    fn less(&mut self) -> bool {
        let b = self.pop();
        let a = self.pop();
        a < b
    }
}

/// `: stage-addr ( ring index -- addr )  TILE-BYTES * + ;`
#[inline(always)]
fn stage_addr(s: &mut Stack) {
    s.lit(TILE_BYTES).star().plus();
}

/// `: tile-offset ( tile -- floats )  TILE-FLOATS * ;`
#[inline(always)]
fn tile_offset(s: &mut Stack) {
    s.lit(TILE_FLOATS).star();
}

/// `: cell ( index row col -- floats )  ROT TILE-FLOATS *  ROT COLUMNS *  + + ;`
#[inline(always)]
fn cell(s: &mut Stack) {
    s.rot().lit(TILE_FLOATS).star().rot().lit(COLUMNS).star().plus().plus();
}

/// `: setup ( -- )  tid 0= IF window CONSUMERS init THEN  sync ;`
#[inline(always)]
fn setup() {
    if thread_idx_x() == 0 {
        Pipeline::<STAGES>::init(dynamic_shared_window_address(), CONSUMERS);
    }
    barrier();
}

/// Addresses computed on the data stack: the producer's destination by `stage-addr`, the
/// consumer's float offsets by `cell`; both loops `BEGIN tile tiles < WHILE … REPEAT`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_forth_stack_words(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    setup();
    let window = dynamic_shared_window_address();
    let pipe = Pipeline::<STAGES>::attach(window);
    let shared = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    let mut s = Stack::new();

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = block_idx_x();
        loop {
            if !s.lit(tile).lit(tiles).less() {
                break;
            }
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            s.lit(window + RING).lit(state.index());
            stage_addr(&mut s);
            let destination = s.pop();
            s.lit(tile);
            tile_offset(&mut s);
            let source = input.add(s.pop() as usize);
            bulk_copy_global_to_shared(destination, source as *const u8, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            tile += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid - 32;
        let ring = shared.add((RING / 4) as usize);
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut tile = block_idx_x();
        loop {
            if !s.lit(tile).lit(tiles).less() {
                break;
            }
            pipe.consumer_wait(&state);
            for row in 0..ROWS {
                s.lit(state.index()).lit(row).lit(column);
                cell(&mut s);
                sum += *ring.add(s.pop() as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        s.lit(block_idx_x()).lit(COLUMNS).star().lit(column).plus();
        *out.add(s.pop() as usize) = sum;
    }
}

/// `?DO … +LOOP`: runs `body(i)` for `i = start, start + step, …` below `limit`, testing
/// before the first pass as `?DO` does.
#[inline(always)]
fn q_do_plus_loop(limit: u32, start: u32, step: u32, mut body: impl FnMut(u32)) {
    let mut i = start;
    while i < limit {
        body(i);
        i += step;
    }
}

/// Both roles' tile loops as `tiles block ?DO … grid +LOOP`; the offsets still on the stack.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_forth_do_loop(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    setup();
    let window = dynamic_shared_window_address();
    let pipe = Pipeline::<STAGES>::attach(window);
    let tid = thread_idx_x();
    let block = block_idx_x();
    let grid = grid_dim_x();

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        q_do_plus_loop(tiles, block, grid, |tile| {
            let mut s = Stack::new();
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            s.lit(tile);
            tile_offset(&mut s);
            let source = input.add(s.pop() as usize) as *const u8;
            s.lit(window + RING).lit(state.index());
            stage_addr(&mut s);
            bulk_copy_global_to_shared(s.pop(), source, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        });
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid - 32;
        let ring = dynamic_shared_base::<f32>().add((RING / 4) as usize);
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        q_do_plus_loop(tiles, block, grid, |_tile| {
            pipe.consumer_wait(&state);
            let mut s = Stack::new();
            q_do_plus_loop(ROWS, 0, 1, |row| {
                s.lit(state.index()).lit(row).lit(column);
                cell(&mut s);
                sum += *ring.add(s.pop() as usize);
            });
            pipe.consumer_release(&state);
            state.advance();
        });
        *out.add((block * COLUMNS + column) as usize) = sum;
    }
}

/// A compiled word: what the inner interpreter executes.
#[derive(Clone, Copy)]
enum Word {
    Lit(u32),
    Index,
    Row,
    Col,
    Star,
    Plus,
}

/// `: cell ( -- floats )  index TILE-FLOATS *  row COLUMNS *  +  col + ;` compiled.
const CELL_CODE: [Word; 9] = [
    Word::Index,
    Word::Lit(TILE_FLOATS),
    Word::Star,
    Word::Row,
    Word::Lit(COLUMNS),
    Word::Star,
    Word::Plus,
    Word::Col,
    Word::Plus,
];

/// `: dest ( -- addr )  ring index TILE-BYTES * + ;` compiled, the ring pushed by the caller.
const DEST_CODE: [Word; 4] = [Word::Index, Word::Lit(TILE_BYTES), Word::Star, Word::Plus];

/// The inner interpreter: runs a compiled definition with `index`, `row` and `col` bound.
#[inline(always)]
fn execute(code: &[Word], s: &mut Stack, index: u32, row: u32, col: u32) -> u32 {
    for word in code {
        match *word {
            Word::Lit(n) => {
                s.lit(n);
            }
            Word::Index => {
                s.lit(index);
            }
            Word::Row => {
                s.lit(row);
            }
            Word::Col => {
                s.lit(col);
            }
            Word::Star => {
                s.star();
            }
            Word::Plus => {
                s.plus();
            }
        }
    }
    s.pop()
}

/// Offsets from compiled word lists run by the inner interpreter.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_forth_threaded_code(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    setup();
    let window = dynamic_shared_window_address();
    let pipe = Pipeline::<STAGES>::attach(window);
    let tid = thread_idx_x();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut s = Stack::new();

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            s.lit(window + RING);
            let destination = execute(&DEST_CODE, &mut s, state.index(), 0, 0);
            bulk_copy_global_to_shared(
                destination,
                input.add((tile * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid - 32;
        let ring = dynamic_shared_base::<f32>().add((RING / 4) as usize);
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            for row in 0..ROWS {
                sum += *ring.add(execute(&CELL_CODE, &mut s, state.index(), row, column) as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add((block * COLUMNS + column) as usize) = sum;
    }
}

/// No pipeline: `: stage ( tile -- )` moves a tile into shared memory with all 64 threads
/// (offsets from the stack), `sync`, the first warp sums its column, `sync`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_forth_staged_plain(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let buffer = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    let block = block_idx_x();
    let mut s = Stack::new();
    let mut sum = 0.0f32;

    let mut tile = block;
    while tile < tiles {
        s.lit(tile);
        tile_offset(&mut s);
        let source = input.add(s.pop() as usize);
        for pass in 0..TILE_FLOATS / BLOCK_THREADS {
            s.lit(pass).lit(BLOCK_THREADS).star().lit(tid).plus();
            let i = s.pop() as usize;
            *buffer.add(i) = *source.add(i);
        }
        barrier();
        if tid < COLUMNS {
            for row in 0..ROWS {
                s.lit(row).lit(COLUMNS).star().lit(tid).plus();
                sum += *buffer.add(s.pop() as usize);
            }
        }
        barrier();
        tile += grid_dim_x();
    }
    if tid < COLUMNS {
        *out.add((block * COLUMNS + tid) as usize) = sum;
    }
}

/// `: stage-addr ( ring index -- addr )  + ;`: the `TILE-BYTES *` was lost in a refactor.
#[inline(always)]
fn stage_addr_unscaled(s: &mut Stack) {
    s.plus();
}

/// BROKEN: the producer's `stage-addr` adds the stage index to the ring without scaling it by
/// the tile's bytes: stage 1's copy goes to `ring + 1`, a misaligned bulk-copy destination
/// (and stages overlap), so the copy faults.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_forth_bad_unscaled_stage(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    setup();
    let window = dynamic_shared_window_address();
    let pipe = Pipeline::<STAGES>::attach(window);
    let tid = thread_idx_x();
    let block = block_idx_x();
    let grid = grid_dim_x();

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        q_do_plus_loop(tiles, block, grid, |tile| {
            let mut s = Stack::new();
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            s.lit(tile);
            tile_offset(&mut s);
            let source = input.add(s.pop() as usize) as *const u8;
            s.lit(window + RING).lit(state.index());
            stage_addr_unscaled(&mut s);
            bulk_copy_global_to_shared(s.pop(), source, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
        });
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid - 32;
        let ring = dynamic_shared_base::<f32>().add((RING / 4) as usize);
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        q_do_plus_loop(tiles, block, grid, |_tile| {
            pipe.consumer_wait(&state);
            let mut s = Stack::new();
            for row in 0..ROWS {
                s.lit(state.index()).lit(row).lit(column);
                cell(&mut s);
                sum += *ring.add(s.pop() as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
        });
        *out.add((block * COLUMNS + column) as usize) = sum;
    }
}

/// BROKEN: the consumers' state is made with `producer_start()` (the `PRODUCER` word pasted
/// into the consumer's definition): parity 1 of a fresh full barrier passes at once, so every
/// wait returns immediately and the consumers sum stages before their copies land.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_forth_bad_consumer_phase(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    setup();
    let window = dynamic_shared_window_address();
    let pipe = Pipeline::<STAGES>::attach(window);
    let shared = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    let mut s = Stack::new();

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = block_idx_x();
        loop {
            if !s.lit(tile).lit(tiles).less() {
                break;
            }
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            s.lit(window + RING).lit(state.index());
            stage_addr(&mut s);
            let destination = s.pop();
            s.lit(tile);
            tile_offset(&mut s);
            let source = input.add(s.pop() as usize);
            bulk_copy_global_to_shared(destination, source as *const u8, TILE_BYTES, pipe.producer_barrier(&state));
            state.advance();
            tile += grid_dim_x();
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid - 32;
        let ring = shared.add((RING / 4) as usize);
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut sum = 0.0f32;
        let mut tile = block_idx_x();
        loop {
            if !s.lit(tile).lit(tiles).less() {
                break;
            }
            pipe.consumer_wait(&state);
            for row in 0..ROWS {
                s.lit(state.index()).lit(row).lit(column);
                cell(&mut s);
                sum += *ring.add(s.pop() as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += grid_dim_x();
        }
        s.lit(block_idx_x()).lit(COLUMNS).star().lit(column).plus();
        *out.add(s.pop() as usize) = sum;
    }
}

/// `: slot-cell ( index row col -- floats )  ROT 1+ ROT ROT cell ;`: written for offsets from
/// the window, where the barriers take slot 0 and stage `i` is slot `i + 1`.
#[inline(always)]
fn slot_cell(s: &mut Stack) {
    s.rot().one_plus().rot().rot();
    cell(s);
}

/// BROKEN: the consumers use `slot-cell` (stage `i` in slot `i + 1` of the window) on the ring
/// pointer, which already starts past the barriers: each tile is summed from the stage after
/// the one waited for (a stage not yet filled, or one being refilled; stage 3 reads past the
/// ring), so the sums are wrong.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_forth_bad_slot_cell_on_ring(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    setup();
    let window = dynamic_shared_window_address();
    let pipe = Pipeline::<STAGES>::attach(window);
    let tid = thread_idx_x();
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut s = Stack::new();

    if tid == 0 {
        let mut state = PipelineState::<STAGES>::producer_start();
        let mut tile = block;
        while tile < tiles {
            pipe.producer_acquire(&state);
            pipe.producer_expect_tx(&state, TILE_BYTES);
            s.lit(window + RING).lit(state.index());
            stage_addr(&mut s);
            let destination = s.pop();
            bulk_copy_global_to_shared(
                destination,
                input.add((tile * TILE_FLOATS) as usize) as *const u8,
                TILE_BYTES,
                pipe.producer_barrier(&state),
            );
            state.advance();
            tile += grid;
        }
        pipe.producer_tail(state);
    } else if tid >= 32 {
        let column = tid - 32;
        let ring = dynamic_shared_base::<f32>().add((RING / 4) as usize);
        let mut state = PipelineState::<STAGES>::new();
        let mut sum = 0.0f32;
        let mut tile = block;
        while tile < tiles {
            pipe.consumer_wait(&state);
            for row in 0..ROWS {
                s.lit(state.index()).lit(row).lit(column);
                slot_cell(&mut s);
                sum += *ring.add(s.pop() as usize);
            }
            pipe.consumer_release(&state);
            state.advance();
            tile += grid;
        }
        *out.add((block * COLUMNS + column) as usize) = sum;
    }
}

/// BROKEN: the `sync` between staging a tile and reading it was dropped ("the loads are
/// coalesced, the warp will see them"): the first warp reads rows the second warp has not
/// stored yet, a race across warps.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r51_forth_bad_missing_sync(input: *const f32, tiles: u32, out: *mut f32) {
    block_threads(BLOCK_THREADS);
    dynamic_shared_bytes(SHARED_BYTES);

    let buffer = dynamic_shared_base::<f32>();
    let tid = thread_idx_x();
    let block = block_idx_x();
    let mut s = Stack::new();
    let mut sum = 0.0f32;

    let mut tile = block;
    while tile < tiles {
        s.lit(tile);
        tile_offset(&mut s);
        let source = input.add(s.pop() as usize);
        for pass in 0..TILE_FLOATS / BLOCK_THREADS {
            s.lit(pass).lit(BLOCK_THREADS).star().lit(tid).plus();
            let i = s.pop() as usize;
            *buffer.add(i) = *source.add(i);
        }
        if tid < COLUMNS {
            for row in 0..ROWS {
                s.lit(row).lit(COLUMNS).star().lit(tid).plus();
                sum += *buffer.add(s.pop() as usize);
            }
        }
        barrier();
        tile += grid_dim_x();
    }
    if tid < COLUMNS {
        *out.add((block * COLUMNS + tid) as usize) = sum;
    }
}
