//! `gemm_bf16_wgmma`'s launch contract on the host (GPU-free): its tile, the box of its tensor
//! maps, its block and shared memory, and the shapes its tensor maps can describe. Its cases,
//! inputs, reference and tolerance are in [`crate::cases`] with every other kernel's; the
//! tensor maps are encoded in [`crate::gemm_wgmma_gpu`].
//!
//! The kernel computes `C = A·Bᵀ` with A `m × k` and B `n × k`, both bf16 row-major (B is
//! K-major, as a linear layer stores its weights), C `m × n` f32.

/// Rows of C per block and columns of C per block (the kernel's tile).
pub const TILE_M: usize = 128;
pub const TILE_N: usize = 128;
/// The box of both tensor maps: 64 values of K (128 bytes, the swizzle's row) by 128 rows.
pub const BOX_K: u32 = 64;
pub const BOX_ROWS: u32 = 128;
/// Threads per block: two consumer warpgroups and the producer warp.
pub const BLOCK_THREADS: u32 = 288;
/// Dynamic shared memory per block: 1024 bytes of alignment slack, 4 stages of A and B tiles
/// (16 KiB each), the 8 mbarriers.
pub const SHARED_BYTES: u32 = 1024 + 4 * 2 * 16384 + 64;

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

    /// The launch grid: one block per 128×128 tile of C (x over columns, y over rows).
    pub fn grid(&self) -> (u32, u32) {
        (self.n.div_ceil(TILE_N) as u32, self.m.div_ceil(TILE_M) as u32)
    }

    /// Why the kernel cannot take this shape, if it cannot: the tensor maps' row strides
    /// (`k` bf16 values) must be multiples of 16 bytes.
    pub fn unsupported(&self) -> Option<String> {
        if self.m == 0 || self.n == 0 || self.k == 0 {
            return Some(format!("{self}: every dimension must be positive"));
        }
        if !self.k.is_multiple_of(8) {
            return Some(format!(
                "{self}: k must be a multiple of 8 (rows of bf16 start on 16-byte boundaries)"
            ));
        }
        None
    }
}

impl std::fmt::Display for GemmShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}x{}", self.m, self.n, self.k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_the_tensor_maps_cannot_describe_are_refused_by_name() {
        assert!(GemmShape::new(4, 4, 12).unsupported().unwrap().contains("4x4x12"));
        assert!(GemmShape::new(0, 4, 8).unsupported().unwrap().contains("positive"));
        assert_eq!(GemmShape::new(1, 14336, 4096).unsupported(), None);
        assert_eq!(GemmShape::new(130, 200, 72).grid(), (2, 2));
    }
}
