//! Plain shared-memory kernels organised around types: a staging struct with methods, a
//! reducer trait with a generic driver, an enum for each warp's half of the rows, macros
//! (`unrolled!` and the kernel's own), `#[repr(C)]` tiles staged as 16-byte quads, and a
//! double-buffer struct.
#![allow(unsafe_op_in_unsafe_fn)]

use core::ops::Range;

use crate::device::unrolled::unrolled;
use crate::device::{barrier, block_idx_x, dynamic_shared_base, grid_dim_x, lane_id, launch, thread_idx_x};
use crate::{COLS, ROWS, TILE};

#[inline(always)]
fn owned(tiles: u32, block: u32, grid: u32) -> u32 {
    if block < tiles { (tiles - block).div_ceil(grid) } else { 0 }
}

/// A staged tile and the thread that fills and reads it.
struct TileStage {
    base: *mut f32,
    tid: usize,
}

impl TileStage {
    unsafe fn fill(&self, src: *const f32) {
        for k in 0..4 {
            *self.base.add(self.tid + 64 * k) = *src.add(self.tid + 64 * k);
        }
    }
    unsafe fn column(&self, c: usize, rows: Range<usize>) -> f32 {
        let mut acc = 0.0f32;
        for r in rows {
            acc += *self.base.add(r * COLS + c);
        }
        acc
    }
}

// ------------------------------------------------------------------------------------------
// Correct
// ------------------------------------------------------------------------------------------

/// A `TileStage` struct's methods stage the tile and sum warp 0's columns.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pt_stager_struct(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let stage = TileStage { base: dynamic_shared_base::<f32>(), tid: thread_idx_x() as usize };
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        stage.fill(input.add(t as usize * TILE));
        barrier();
        if stage.tid < 32 {
            acc += stage.column(stage.tid, 0..ROWS);
        }
        barrier();
        t += grid;
    }
    if stage.tid < 32 {
        *out.add(block as usize * COLS + stage.tid) = acc;
    }
}

/// What a thread accumulates, how it publishes it and how the block's result is formed.
trait Reducer {
    unsafe fn absorb(&mut self, tile: *const f32);
    unsafe fn publish(&self, scratch: *mut f32);
    unsafe fn result(&self, scratch: *const f32) -> Option<f32>;
}

/// Half the rows of one column; the lower half publishes, the upper half adds it.
struct HalfColumn {
    col: usize,
    upper: bool,
    acc: f32,
}

impl Reducer for HalfColumn {
    unsafe fn absorb(&mut self, tile: *const f32) {
        let first = if self.upper { 0 } else { ROWS / 2 };
        for r in first..first + ROWS / 2 {
            self.acc += *tile.add(r * COLS + self.col);
        }
    }
    unsafe fn publish(&self, scratch: *mut f32) {
        if !self.upper {
            *scratch.add(self.col) = self.acc;
        }
    }
    unsafe fn result(&self, scratch: *const f32) -> Option<f32> {
        if self.upper { Some(self.acc + *scratch.add(self.col)) } else { None }
    }
}

/// Runs a reducer over the block's tiles with every barrier in the driver, reached by all.
unsafe fn run<R: Reducer>(mut red: R, input: *const f32, tiles: u32, tile: *mut f32, scratch: *mut f32) -> Option<f32> {
    let tid = thread_idx_x() as usize;
    let grid = grid_dim_x();
    let mut t = block_idx_x();
    while t < tiles {
        let src = input.add(t as usize * TILE);
        for k in 0..4 {
            *tile.add(tid + 64 * k) = *src.add(tid + 64 * k);
        }
        barrier();
        red.absorb(tile);
        barrier();
        t += grid;
    }
    red.publish(scratch);
    barrier();
    red.result(scratch)
}

/// Both warps run one generic driver over a `Reducer` impl (`HalfColumn`).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pt_reducer_trait(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let smem = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let red = HalfColumn { col: tid % COLS, upper: tid < 32, acc: 0.0 };
    if let Some(v) = run(red, input, tiles, smem, smem.add(TILE)) {
        *out.add(block_idx_x() as usize * COLS + tid) = v;
    }
}

/// Which half of the rows a warp sums.
#[derive(Clone, Copy, PartialEq)]
enum Half {
    Upper,
    Lower,
}

impl Half {
    fn of(tid: usize) -> Half {
        if tid < 32 { Half::Upper } else { Half::Lower }
    }
    fn rows(self) -> Range<usize> {
        match self {
            Half::Upper => 0..ROWS / 2,
            Half::Lower => ROWS / 2..ROWS,
        }
    }
    fn slot(self, col: usize) -> usize {
        match self {
            Half::Upper => col,
            Half::Lower => COLS + col,
        }
    }
}

/// Each warp's half of the rows is an enum; both halves publish into their own slots and the
/// upper half adds the two after a barrier.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pt_enum_half(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let smem = dynamic_shared_base::<f32>();
    let stage = TileStage { base: smem, tid: thread_idx_x() as usize };
    let parts = smem.add(TILE);
    let half = Half::of(stage.tid);
    let col = stage.tid % COLS;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        stage.fill(input.add(t as usize * TILE));
        barrier();
        acc += stage.column(col, half.rows());
        barrier();
        t += grid;
    }
    *parts.add(half.slot(col)) = acc;
    barrier();
    if half == Half::Upper {
        *out.add(block as usize * COLS + col) = *parts.add(Half::Upper.slot(col)) + *parts.add(Half::Lower.slot(col));
    }
}

/// Copies four floats, 64 apart, of one thread's share of a tile.
macro_rules! stage_share {
    ($dst:expr, $src:expr, $tid:expr) => {{
        let (d, s, i) = ($dst, $src, $tid);
        *d.add(i) = *s.add(i);
        *d.add(i + 64) = *s.add(i + 64);
        *d.add(i + 128) = *s.add(i + 128);
        *d.add(i + 192) = *s.add(i + 192);
    }};
}

/// The staging is the kernel's own macro and the row loop the device API's `unrolled!`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pt_unrolled_macro(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let s = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        stage_share!(s, input.add(t as usize * TILE), tid);
        barrier();
        if tid < 32 {
            unrolled!(R < ROWS => {
                acc += *s.add(R * COLS + tid);
            });
        }
        barrier();
        t += grid;
    }
    if tid < 32 {
        *out.add(block as usize * COLS + tid) = acc;
    }
}

/// Four floats moved by one 16-byte load or store.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct Quad([f32; 4]);

/// A tile as eight rows of 32 floats.
#[repr(C)]
struct Tile {
    rows: [[f32; COLS]; ROWS],
}

/// The tile is staged as 64 quads (one per thread) and read as a `#[repr(C)]` `Tile`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pt_repr_c_tile(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let tile = dynamic_shared_base::<Tile>();
    let quads = tile as *mut Quad;
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        let src = input.add(t as usize * TILE) as *const Quad;
        *quads.add(tid) = *src.add(tid);
        barrier();
        if tid < COLS {
            for r in 0..ROWS {
                acc += (*tile).rows[r][tid];
            }
        }
        barrier();
        t += grid;
    }
    if tid < COLS {
        *out.add(block as usize * COLS + tid) = acc;
    }
}

// ------------------------------------------------------------------------------------------
// Broken
// ------------------------------------------------------------------------------------------

/// A faster driver that skips "the barrier after publishing, since publish is one store".
unsafe fn run_fast<R: Reducer>(mut red: R, input: *const f32, tiles: u32, tile: *mut f32, scratch: *mut f32) -> Option<f32> {
    let tid = thread_idx_x() as usize;
    let grid = grid_dim_x();
    let mut t = block_idx_x();
    while t < tiles {
        let src = input.add(t as usize * TILE);
        for k in 0..4 {
            *tile.add(tid + 64 * k) = *src.add(tid + 64 * k);
        }
        barrier();
        red.absorb(tile);
        barrier();
        t += grid;
    }
    red.publish(scratch);
    red.result(scratch)
}

/// The reducer driver publishes the lower half's partials and reads them in the upper half with
/// no barrier in between.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pt_bad_trait_publish_unsynced(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let smem = dynamic_shared_base::<f32>();
    let tid = thread_idx_x() as usize;
    let red = HalfColumn { col: tid % COLS, upper: tid < 32, acc: 0.0 };
    if let Some(v) = run_fast(red, input, tiles, smem, smem.add(TILE)) {
        *out.add(block_idx_x() as usize * COLS + tid) = v;
    }
}

/// `Half` whose publishing slot forgot the half's offset.
#[derive(Clone, Copy, PartialEq)]
enum Side {
    Upper,
    Lower,
}

impl Side {
    fn of(tid: usize) -> Side {
        if tid < 32 { Side::Upper } else { Side::Lower }
    }
    fn rows(self) -> Range<usize> {
        match self {
            Side::Upper => 0..ROWS / 2,
            Side::Lower => ROWS / 2..ROWS,
        }
    }
    fn slot(self, col: usize) -> usize {
        match self {
            Side::Upper | Side::Lower => col,
        }
    }
}

/// Both halves publish their partial into `slot(col)`, which is the same float for both: two
/// threads store to one slot in the same interval and the upper half adds one partial twice.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pt_bad_enum_same_slot(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let smem = dynamic_shared_base::<f32>();
    let stage = TileStage { base: smem, tid: thread_idx_x() as usize };
    let parts = smem.add(TILE);
    let side = Side::of(stage.tid);
    let col = stage.tid % COLS;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        stage.fill(input.add(t as usize * TILE));
        barrier();
        acc += stage.column(col, side.rows());
        barrier();
        t += grid;
    }
    *parts.add(side.slot(col)) = acc;
    barrier();
    if side == Side::Upper {
        *out.add(block as usize * COLS + col) = *parts.add(Side::Upper.slot(col)) + *parts.add(Side::Lower.slot(col));
    }
}

/// The kernel's carve-outs, in floats: up to eight staged tiles, and the scratch for warp 0's
/// partials "in the last 64 floats".
macro_rules! carve {
    ($($name:ident = $at:expr;)*) => {
        $(const $name: usize = $at;)*
    };
}

carve! {
    TILES_AT = 0;
    SCRATCH_AT = 8 * TILE - 64;
}

/// Eight tiles fill the window and the partial scratch is carved from its last 64 floats, rows
/// 6 and 7 of tile 7: warp 0 publishes there while warp 1 may still be reading tile 7.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pt_bad_scratch_in_last_tile(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let smem = dynamic_shared_base::<f32>();
    let staged = smem.add(TILES_AT);
    let scratch = smem.add(SCRATCH_AT);
    let tid = thread_idx_x() as usize;
    let (c, half) = (tid % COLS, tid / COLS);
    let block = block_idx_x();
    let grid = grid_dim_x();
    let n_owned = owned(tiles, block, grid);
    let mut acc = 0.0f32;
    let mut first = 0u32;
    while first < n_owned {
        let n = (n_owned - first).min(8) as usize;
        for j in 0..n {
            let src = input.add((block + (first + j as u32) * grid) as usize * TILE);
            for k in 0..4 {
                *staged.add(j * TILE + tid + 64 * k) = *src.add(tid + 64 * k);
            }
        }
        barrier();
        for j in 4 * half..(4 * half + 4).min(n) {
            for r in 0..ROWS {
                acc += *staged.add(j * TILE + r * COLS + c);
            }
        }
        if first + 8 < n_owned {
            barrier();
        }
        first += 8;
    }
    if half == 0 {
        *scratch.add(c) = acc;
    }
    barrier();
    if half == 1 {
        *out.add(block as usize * COLS + c) = acc + *scratch.add(c);
    }
}

/// Two tile buffers and which of them is the front.
struct DoubleBuf {
    bufs: [*mut f32; 2],
    front: usize,
}

impl DoubleBuf {
    fn front(&self) -> *mut f32 {
        self.bufs[self.front & 1]
    }
    fn back(&self) -> *mut f32 {
        self.bufs[(self.front + 1) & 1]
    }
    fn flip(&mut self) {
        self.front ^= 1;
    }
}

/// The double buffer is flipped between the staging and the sum instead of after the barrier:
/// warp 0 sums the buffer the block is staging the next tile into, in the same interval.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pt_bad_double_buffer_flip_early(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let smem = dynamic_shared_base::<f32>();
    let mut db = DoubleBuf { bufs: [smem, smem.add(TILE)], front: 0 };
    let tid = thread_idx_x() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let n = owned(tiles, block, grid);
    if n > 0 {
        let src = input.add(block as usize * TILE);
        stage_share!(db.front(), src, tid);
    }
    barrier();
    let mut acc = 0.0f32;
    for k in 0..n {
        if k + 1 < n {
            stage_share!(db.back(), input.add((block + (k + 1) * grid) as usize * TILE), tid);
        }
        db.flip();
        if tid < 32 {
            let cur = db.front();
            for r in 0..ROWS {
                acc += *cur.add(r * COLS + tid);
            }
        }
        barrier();
    }
    if tid < 32 {
        *out.add(block as usize * COLS + tid) = acc;
    }
}

/// The quads are stored at the lane's index instead of the thread's: both warps store quads
/// 0..32 (with different data) and quads 32..64 are never staged.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn r19_pt_bad_quad_index_lane(input: *const f32, tiles: u32, out: *mut f32) {
    launch::block_threads(64);
    launch::dynamic_shared_bytes(8192);
    let tile = dynamic_shared_base::<Tile>();
    let quads = tile as *mut Quad;
    let tid = thread_idx_x() as usize;
    let lane = lane_id() as usize;
    let block = block_idx_x();
    let grid = grid_dim_x();
    let mut acc = 0.0f32;
    let mut t = block;
    while t < tiles {
        let src = input.add(t as usize * TILE) as *const Quad;
        *quads.add(lane) = *src.add(tid);
        barrier();
        if tid < COLS {
            for r in 0..ROWS {
                acc += (*tile).rows[r][tid];
            }
        }
        barrier();
        t += grid;
    }
    if tid < COLS {
        *out.add(block as usize * COLS + tid) = acc;
    }
}
