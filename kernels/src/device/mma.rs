//! Warp-level tensor-core multiply (`mma.sync`, sm_80 and later): one warp multiplies a 16×16
//! bf16 tile by a 16×8 one into a 16×8 f32 tile, synchronously, from registers. No shared
//! memory, no asynchronous state: unlike [`super::wgmma`] there is nothing to fence or wait for.
//!
//! Fragments of `m16n8k16` (PTX ISA, "Matrix Fragments for mma.m16n8k16"), lane `l` of the warp,
//! `g = l / 4`, `t = l % 4`; each `u32` holds two bf16 values, the lower `k` in the low half:
//! - A (16 × 16, row-major): `[0]` row `g`, k `2t, 2t+1`; `[1]` row `g + 8`, same k;
//!   `[2]` row `g`, k `2t+8, 2t+9`; `[3]` row `g + 8`, k `2t+8, 2t+9`.
//! - B (16 × 8, column `n`): `[0]` column `g`, k `2t, 2t+1`; `[1]` column `g`, k `2t+8, 2t+9`.
//! - C and D (16 × 8 f32): `[0]`, `[1]` row `g`, columns `2t`, `2t+1`; `[2]`, `[3]` row `g + 8`.
//!
//! A sum over `k` does not depend on which `k` a slot stands for, as long as A and B agree:
//! callers may fill the slots from any permutation of their `k` range applied to both.

use core::arch::asm;

/// A warp's A fragment of one `m16n8k16` multiply: eight bf16 values per lane.
pub type FragmentA = [u32; 4];
/// A warp's B fragment of one `m16n8k16` multiply: four bf16 values per lane.
pub type FragmentB = [u32; 2];
/// A warp's 16×8 f32 accumulator tile: four values per lane.
pub type Accumulators16x8 = [f32; 4];

/// `d = a·b + d` on bf16 operands with f32 accumulation, rounded to nearest (IEEE: products
/// of bf16 values are exact in f32; NaN, infinities and subnormals as the inputs give them).
///
/// Every lane of the warp calls it together (`.sync.aligned`), with converged control flow.
#[inline(always)]
pub fn mma_m16n8k16_bf16(d: &mut Accumulators16x8, a: FragmentA, b: FragmentB) {
    // SAFETY: a register-only instruction; the caller keeps the warp converged.
    unsafe {
        asm!(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {{{d0}, {d1}, {d2}, {d3}}}, {{{a0}, {a1}, {a2}, {a3}}}, {{{b0}, {b1}}}, {{{d0}, {d1}, {d2}, {d3}}};",
            d0 = inout(reg32) d[0],
            d1 = inout(reg32) d[1],
            d2 = inout(reg32) d[2],
            d3 = inout(reg32) d[3],
            a0 = in(reg32) a[0],
            a1 = in(reg32) a[1],
            a2 = in(reg32) a[2],
            a3 = in(reg32) a[3],
            b0 = in(reg32) b[0],
            b1 = in(reg32) b[1],
            options(pure, nomem, nostack),
        );
    }
}
