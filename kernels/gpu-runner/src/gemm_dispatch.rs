//! Which wgmma GEMM entry runs a product (issue 29, item 3): one call for any `m`, `n`, `k`
//! and epilogue, [`wgmma_entry`], picks the entry's tile from the shape and the GPU's
//! multiprocessor count. GPU-free; the sweep ([`crate::gemm_sweep`]) times both tiles on every
//! shape and reports the dispatcher's pick beside them, so a wrong pick shows in the run.
//!
//! Both tiles run one block per multiprocessor (their rings take 129 KiB and 193 KiB of the
//! 227 KiB one has), so a launch runs in waves of `multiprocessors` blocks, each as long as one
//! tile's mainloop. A wide block (128×256) does twice a narrow block's (128×128) multiplies, in
//! [`WIDE_BLOCK_TIME`] times a narrow block's time, since its A tile serves twice the columns;
//! but it has half as many blocks, so on a product with few tiles the narrow launch keeps more
//! multiprocessors busy. The pick is the launch with fewer narrow-block times: `⌈tiles /
//! multiprocessors⌉` waves of each, the wide ones weighted by [`WIDE_BLOCK_TIME`].
//!
//! Before either: a product of at most [`DECODE_MAX_ROWS`] rows of A with a bf16 C and no bias
//! goes to the decode entry (`gemm_bf16_decode_bf16`), which reads B once at close to the
//! memory rate where the wgmma tiles are mostly the copy engine's zero fill.

use crate::cases::{Kernel, WgmmaVariant};
use crate::gemm_wgmma::{GemmShape, TILE_N, WIDE_TILE_N};

/// A wide block's time in narrow blocks' times, on one multiprocessor, as the H200 sweep of
/// 2026-12-05 measured it (`results/h200-gemm-sweep.txt`): 4096³ took 0.2175 ms in 4 waves of
/// wide blocks and 0.2384 ms in 8 waves of narrow ones, 1.82 narrow blocks' time a wide block.
/// With it the dispatcher picked the faster tile on 13 of the sweep's 18 shapes; the five it
/// missed are decode batches of 1 to 64 rows against n = 14336, where the wide tile was 1.0 to
/// 1.3 times faster: there each narrow block's A copy is mostly the copy engine's zero fill of
/// rows past m, which waves do not count. A decode path of its own (issue 29, item 2) is what
/// those shapes need; the dispatcher will pick it first.
pub const WIDE_BLOCK_TIME: f64 = 1.82;

/// The most rows of A the decode entry is picked for: one block row of it (16 rows of A) reads
/// B once; 32 rows read it twice, and there both wgmma tiles were faster on an H100
/// (32 × 14336 × 4096: 0.0559 ms on 128×128, 0.0500 ms on 128×256, 0.0877 ms decode, one run,
/// `results/h100-gemm-decode.txt`), and on an H200 (0.0539 ms on 128×128, 0.0447 ms on 128×256,
/// 0.0710 ms decode, `results/h200-gemm-decode.txt`). Past 16 rows the tile is picked by waves as below, which
/// takes the narrow tile at 32 rows, where the wide one was faster.
pub const DECODE_MAX_ROWS: usize = 16;

/// The bf16 GEMM entry for a product of `shape` with `epilogue`'s bias and C type (its `wide`
/// and `decode` are ignored: that is what this chooses), on a GPU of `multiprocessors`
/// multiprocessors.
pub fn wgmma_entry(shape: GemmShape, multiprocessors: usize, epilogue: WgmmaVariant) -> Kernel {
    if takes_decode(shape, epilogue) {
        return Kernel::GemmBf16DecodeBf16;
    }
    let wide = prefers_wide(shape, multiprocessors);
    let variant = WgmmaVariant { wide, decode: false, ..epilogue };
    Kernel::ALL
        .into_iter()
        .find(|kernel| kernel.wgmma_variant() == Some(variant))
        .expect("every bias, C type and tile has a wgmma entry")
}

/// Whether the decode entry computes this product: few rows of A, bf16 C, no bias (the one
/// epilogue it has).
pub fn takes_decode(shape: GemmShape, epilogue: WgmmaVariant) -> bool {
    shape.m <= DECODE_MAX_ROWS && epilogue.bf16_output && !epilogue.bias
}

/// Whether the wide tile's launch takes less time than the narrow one's, counted in waves
/// (see the module's documentation).
pub fn prefers_wide(shape: GemmShape, multiprocessors: usize) -> bool {
    let waves = |tile_n: usize| {
        let (x, y) = shape.grid(tile_n);
        (x as usize * y as usize).div_ceil(multiprocessors.max(1)) as f64
    };
    // An empty C or one tile is one block either way: the narrow one reads less.
    if shape.m.min(shape.n) == 0 || shape.n <= TILE_N {
        return false;
    }
    waves(WIDE_TILE_N) * WIDE_BLOCK_TIME < waves(TILE_N)
}

#[cfg(test)]
mod tests {
    use super::*;

    const H200: usize = 132;
    const PLAIN_BF16: WgmmaVariant =
        WgmmaVariant { bias: false, bf16_output: true, wide: false, decode: false };

    #[test]
    fn large_products_take_the_wide_tile_and_few_tiles_the_narrow_one() {
        let pick = |m, n, k| wgmma_entry(GemmShape::new(m, n, k), H200, PLAIN_BF16);
        // 1024 narrow tiles (8 waves) against 512 wide ones (4 waves of 1.7).
        assert_eq!(pick(4096, 4096, 4096), Kernel::GemmBf16WgmmaWideBf16);
        assert_eq!(pick(8192, 8192, 1024), Kernel::GemmBf16WgmmaWideBf16);
        // Decode against a 14336-row weight: up to 16 rows the decode entry; past them 112
        // narrow tiles fit one wave, 56 wide ones would leave more than half the GPU idle.
        for m in [0, 1, 8, 16] {
            assert_eq!(pick(m, 14336, 4096), Kernel::GemmBf16DecodeBf16, "m = {m}");
        }
        for m in [17, 32, 128] {
            assert_eq!(pick(m, 14336, 4096), Kernel::GemmBf16WgmmaBf16, "m = {m}");
        }
        // 256 rows: 224 narrow tiles are two waves, 112 wide ones one.
        assert_eq!(pick(256, 14336, 4096), Kernel::GemmBf16WgmmaWideBf16);
        // An empty C with many rows, and a one-tile product.
        assert_eq!(pick(4096, 0, 64), Kernel::GemmBf16WgmmaBf16);
        assert_eq!(pick(4096, 100, 64), Kernel::GemmBf16WgmmaBf16);
    }

    #[test]
    fn the_epilogue_is_kept_and_only_the_tile_chosen() {
        let shape = GemmShape::new(4096, 4096, 4096);
        for (bias, bf16_output) in [(false, false), (true, false), (false, true), (true, true)] {
            for asked_wide in [false, true] {
                for asked_decode in [false, true] {
                    let asked = WgmmaVariant { bias, bf16_output, wide: asked_wide, decode: asked_decode };
                    let got = wgmma_entry(shape, H200, asked).wgmma_variant().unwrap();
                    assert_eq!(got, WgmmaVariant { wide: true, decode: false, ..asked });
                }
            }
        }
        // Few rows: only the bf16 C without a bias has a decode entry.
        let few = GemmShape::new(8, 4096, 4096);
        for (bias, bf16_output) in [(false, false), (true, false), (true, true)] {
            let asked = WgmmaVariant { bias, bf16_output, wide: false, decode: false };
            assert!(!wgmma_entry(few, H200, asked).wgmma_variant().unwrap().decode, "{asked:?}");
        }
        assert_eq!(wgmma_entry(few, H200, PLAIN_BF16), Kernel::GemmBf16DecodeBf16);
        // With few multiprocessors every launch is many waves, and the wide tile's cheaper
        // multiplies win even on the decode shape.
        assert!(prefers_wide(GemmShape::new(128, 14336, 4096), 8));
        assert!(!prefers_wide(GemmShape::new(128, 14336, 4096), H200));
    }
}
