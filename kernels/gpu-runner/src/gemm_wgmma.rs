//! `gemm_bf16_wgmma`'s launch contract on the host (GPU-free): its tile, the box of its tensor
//! maps, its block and shared memory, the row pitch at which its operands are uploaded (any
//! `k`), the shapes it refuses, and the special values its special-value cases plant. Its cases,
//! inputs, reference and tolerance are in [`crate::cases`] with every other kernel's; the
//! tensor maps are encoded in [`crate::gemm_wgmma_gpu`].
//!
//! The kernel computes `C = A·Bᵀ` with A `m × k` and B `n × k`, both bf16 row-major (B is
//! K-major, as a linear layer stores its weights), C `m × n` f32.

/// Rows of C per block and columns of C per block (the kernel's tile); the wide entries'
/// blocks have [`WIDE_TILE_N`] columns.
pub const TILE_M: usize = 128;
pub const TILE_N: usize = 128;
pub const WIDE_TILE_N: usize = 256;
/// The box of both tensor maps: 64 values of K (128 bytes, the swizzle's row) by a tile's rows:
/// [`TILE_M`] for A, the tile's columns for B.
pub const BOX_K: u32 = 64;
/// Threads per block: two consumer warpgroups and the producer warp.
pub const BLOCK_THREADS: u32 = 288;
/// Dynamic shared memory per block: 1024 bytes of alignment slack, 4 stages of A tiles
/// (16 KiB) and B tiles (16 KiB, or 32 KiB wide), the 8 mbarriers.
pub const SHARED_BYTES: u32 = 1024 + 4 * (16384 + 16384) + 64;
pub const WIDE_SHARED_BYTES: u32 = 1024 + 4 * (16384 + 32768) + 64;

/// The decode entry (`gemm_bf16_decode_bf16`): rows of C (rows of A) and columns of C (rows of
/// B) per block, its threads and its shared memory (the warps'
/// partial tiles): sixteen warps splitting K.
pub const DECODE_TILE_M: usize = 16;
pub const DECODE_TILE_N: usize = 16;
pub const DECODE_BLOCK_THREADS: u32 = 512;
pub const DECODE_SHARED_BYTES: u32 = 16384;

/// Columns of C per block of a narrow or a wide entry.
pub const fn tile_n(wide: bool) -> usize {
    if wide { WIDE_TILE_N } else { TILE_N }
}

/// Dynamic shared memory a narrow or a wide entry's launch provides.
pub const fn shared_bytes(wide: bool) -> u32 {
    if wide { WIDE_SHARED_BYTES } else { SHARED_BYTES }
}

/// One product's dimensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GemmShape {
    pub m: usize,
    pub n: usize,
    pub k: usize,
}

impl GemmShape {
    pub const fn new(m: usize, n: usize, k: usize) -> GemmShape {
        GemmShape { m, n, k }
    }

    /// The launch grid: one block per 128×`tile_n` tile of C (x over columns, y over rows), at
    /// least one block each way: an empty C (`m` or `n` zero) is launched as one block that
    /// stores nothing, as the kernel's contract allows.
    pub fn grid(&self, tile_n: usize) -> (u32, u32) {
        let tiles = |len: usize, tile: usize| len.div_ceil(tile).max(1) as u32;
        (tiles(self.n, tile_n), tiles(self.m, TILE_M))
    }

    /// The decode entry's grid: one block per [`DECODE_TILE_M`] × [`DECODE_TILE_N`] tile of C,
    /// at least one each way.
    pub fn decode_grid(&self) -> (u32, u32) {
        let tiles = |len: usize, tile: usize| len.div_ceil(tile).max(1) as u32;
        (tiles(self.n, DECODE_TILE_N), tiles(self.m, DECODE_TILE_M))
    }

    /// Why the kernel cannot take this shape, if it cannot: it takes `m`, `n` and `k` as `u32`
    /// (and a tensor map's dimensions stop at 2³²). Every smaller shape works, empty ones
    /// included: rows are uploaded at a pitch of [`row_pitch`] values, which the tensor maps'
    /// 16-byte strides can describe for any `k`.
    pub fn unsupported(&self) -> Option<String> {
        let too_large = [("m", self.m), ("n", self.n), ("k", self.k)]
            .into_iter()
            .find(|(_, len)| u32::try_from(*len).is_err());
        too_large
            .map(|(name, len)| format!("{self}: {name} = {len} does not fit the kernel's u32 dimensions"))
    }

    /// [`GemmShape::unsupported`] as the error a run reports: the entry and the shape by name.
    pub fn check(&self, entry: &str) -> Result<(), String> {
        match self.unsupported() {
            Some(reason) => Err(format!("{entry}: shape {reason}; split the product into smaller ones")),
            None => Ok(()),
        }
    }
}

/// The row pitch, in bf16 values, at which A's and B's rows of `k` values are uploaded: `k`
/// rounded up to a multiple of 8 (a tensor map's row stride is a multiple of 16 bytes), at
/// least 8. The values past `k` are never read: the maps' dimension is `k`, and the copy
/// engine fills what lies past it with zeros.
pub fn row_pitch(k: usize) -> usize {
    k.max(1).next_multiple_of(8)
}

impl std::fmt::Display for GemmShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}x{}", self.m, self.n, self.k)
    }
}

/// The largest finite bf16 value, `(2 − 2⁻⁷) · 2¹²⁷`.
pub const BF16_MAX: f32 = 3.389_531_4e38;

/// A bf16 subnormal of random magnitude and sign: a multiple of 2⁻¹³³, so that its product
/// with a bf16 value of magnitude at least 2⁻⁹ is exact in f32 (sums of them then round as
/// ordinary ones do).
fn bf16_subnormal(rng: &mut fastrand::Rng) -> f32 {
    let sign = if rng.bool() { 0x8000_0000 } else { 0 };
    f32::from_bits(sign | (rng.u32(1..0x80) << 16))
}

/// Plants the special values of a special-value case of a wgmma entry into random A (`m × k`),
/// B (`n × k`, K-major: B's row `j` is C's column `j`) and bias (`n` floats, `None` without
/// one). Each element of C meets at most a few of them, so every rule shows on its own:
///
/// - A row 0: one NaN (C's row 0 NaN);
/// - A row 1: `+inf` in column 1, met by a 0 in B's row 0 (C[1][0] = inf · 0 = NaN; the rest
///   of the row ±inf by the sign of B);
/// - A row 2: `+inf` and `-inf` in columns 0 and 1, against B's row 1 holding 1 and 1
///   (C[2][1] = inf − inf = NaN);
/// - A row 3: the bf16 maximum in columns 0 and 1, against B's row 2 holding 1 and 1 (the f32
///   sum overflows: C[3][2] = +inf);
/// - A row 4: bf16 subnormals only, against B's row 3 of ones (C[4][3] their exact sum);
/// - A row 5: `+inf` throughout (C's row 5 NaN where B's row has both signs, else ±inf);
/// - A row 6: the bf16 maximum and 0.75 · 2¹²⁰ in columns 0 and 1, against B's row 2: C[6][2]
///   = 255.75 · 2¹²⁰ is finite in f32 and rounds to `+inf` in bf16;
/// - B row 4: NaN throughout (C's column 4 NaN); B row 5: one `-inf` (and 0.5, 0.25 in
///   columns 0 and 1, so that A's row 3 does not overflow there);
/// - the bias: NaN, `+inf` and `-inf` for columns 7, 8 and 9.
///
/// Parts that do not fit the shape (rows past `m`, columns past `n`, `k < 2`) are left out.
pub fn plant_specials(
    a: &mut [f32],
    b: &mut [f32],
    bias: Option<&mut [f32]>,
    shape: GemmShape,
    rng: &mut fastrand::Rng,
) {
    let GemmShape { m, n, k } = shape;
    let mut a_row = |row: usize, plant: &mut dyn FnMut(&mut [f32])| {
        if row < m && k > 0 {
            plant(&mut a[row * k..(row + 1) * k]);
        }
    };
    let at = rng.usize(0..k.max(1));
    a_row(0, &mut |row| row[at] = f32::NAN);
    a_row(4, &mut |row| row.iter_mut().for_each(|v| *v = bf16_subnormal(rng)));
    a_row(5, &mut |row| row.fill(f32::INFINITY));
    if k >= 2 {
        a_row(1, &mut |row| row[1] = f32::INFINITY);
        a_row(2, &mut |row| (row[0], row[1]) = (f32::INFINITY, f32::NEG_INFINITY));
        a_row(3, &mut |row| (row[0], row[1]) = (BF16_MAX, BF16_MAX));
        a_row(6, &mut |row| (row[0], row[1]) = (BF16_MAX, 0.75 * 2f32.powi(120)));
    }
    let mut b_row = |row: usize, plant: &mut dyn FnMut(&mut [f32])| {
        if row < n && k > 0 {
            plant(&mut b[row * k..(row + 1) * k]);
        }
    };
    b_row(3, &mut |row| row.fill(1.0));
    b_row(4, &mut |row| row.fill(f32::NAN));
    b_row(5, &mut |row| {
        // Small against A's row 3, whose f32 sum would otherwise overflow to +inf before or
        // after it meets the -inf (NaN or -inf by the order, which neither side fixes).
        if k >= 2 {
            (row[0], row[1]) = (0.5, 0.25);
        }
        row[at] = f32::NEG_INFINITY;
    });
    if k >= 2 {
        b_row(0, &mut |row| row[1] = 0.0);
        b_row(1, &mut |row| (row[0], row[1]) = (1.0, 1.0));
        b_row(2, &mut |row| (row[0], row[1]) = (1.0, 1.0));
    }
    if let Some(bias) = bias {
        for (column, value) in [(7, f32::NAN), (8, f32::INFINITY), (9, f32::NEG_INFINITY)] {
            if let Some(slot) = bias.get_mut(column) {
                *slot = value;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_too_large_for_the_kernel_are_refused_by_entry_and_shape() {
        let error = GemmShape::new(4, 1 << 32, 8).check("gemm_bf16_wgmma_bias").unwrap_err();
        assert!(error.starts_with("gemm_bf16_wgmma_bias: shape 4x4294967296x8"), "{error}");
        assert!(error.contains("n = 4294967296"), "{error}");
        // Any k (not only multiples of 8) and empty shapes are taken.
        for (m, n, k) in [(4, 4, 12), (1, 1, 1), (0, 4, 8), (4, 0, 8), (4, 4, 0), (1, 14336, 4096)] {
            assert_eq!(GemmShape::new(m, n, k).check("gemm_bf16_wgmma"), Ok(()));
        }
    }

    #[test]
    fn grids_cover_c_and_launch_at_least_one_block() {
        assert_eq!(GemmShape::new(130, 200, 72).grid(TILE_N), (2, 2));
        assert_eq!(GemmShape::new(128, 128, 64).grid(TILE_N), (1, 1));
        assert_eq!(GemmShape::new(0, 300, 8).grid(TILE_N), (3, 1));
        assert_eq!(GemmShape::new(5, 0, 8).grid(TILE_N), (1, 1));
        assert_eq!(GemmShape::new(130, 200, 72).grid(WIDE_TILE_N), (1, 2));
        assert_eq!(GemmShape::new(4096, 14336, 64).grid(WIDE_TILE_N), (56, 32));
    }

    #[test]
    fn planted_specials_are_bf16_values_and_fit_any_shape() {
        let mut rng = fastrand::Rng::with_seed(3);
        assert_eq!(half::bf16::from_f32(BF16_MAX), half::bf16::MAX);
        for (m, n, k) in [(0, 0, 0), (1, 1, 1), (9, 17, 3), (70, 130, 0), (130, 200, 72)] {
            let (mut a, mut b, mut bias) = (vec![0.5; m * k], vec![0.5; n * k], vec![0.5; n]);
            plant_specials(&mut a, &mut b, Some(&mut bias), GemmShape::new(m, n, k), &mut rng);
            for value in a.iter().chain(&b) {
                let widened = half::bf16::from_f32(*value).to_f32();
                assert!(widened.to_bits() == value.to_bits() || value.is_nan(), "{value} is not bf16");
            }
            if m >= 7 && k >= 2 {
                assert!(
                    a[0..k].iter().any(|v| v.is_nan()) && a[5 * k..6 * k].iter().all(|v| *v == f32::INFINITY)
                );
                assert!(a[4 * k..5 * k].iter().all(|v| v.is_subnormal()));
            }
            if n >= 10 {
                assert!(bias[7].is_nan() && bias[8] == f32::INFINITY && bias[9] == f32::NEG_INFINITY);
            }
        }
    }

    #[test]
    fn rows_are_pitched_to_16_bytes() {
        assert_eq!([0, 1, 3, 8, 9, 72].map(row_pitch), [8, 8, 8, 8, 16, 72]);
    }
}
