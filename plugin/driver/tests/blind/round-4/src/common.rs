//! Sizes every kernel of the round shares (plain constants, no pipeline state).

/// Floats in one tile.
pub const TILE_FLOATS: usize = 256;
/// Bytes in one tile.
pub const TILE_BYTES: u32 = 1024;
/// Output columns per block (and consumer threads of the usual shape).
pub const COLUMNS: usize = 32;
/// Rows of a tile: the elements `c, c + 32, …` one column sums.
pub const ROWS: usize = TILE_FLOATS / COLUMNS;
