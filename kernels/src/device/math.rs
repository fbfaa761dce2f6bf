//! Floating-point helpers that `core` does not provide on nvptx.
//!
//! `core` has no `exp` without a math library, so the exponential goes through the hardware
//! `ex2.approx` unit (as CUDA's `__expf` does): relative error about 2^-22 of `2^(x·log2 e)`,
//! plus the rounding of `x·log2 e`, which grows with |x|. Subnormal results flush to zero.

use core::arch::asm;

/// `e^x`, approximately; `exp(-inf) = 0`.
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    let scaled = x * core::f32::consts::LOG2_E;
    let result: f32;
    // SAFETY: a pure arithmetic instruction.
    unsafe {
        asm!(
            "ex2.approx.ftz.f32 {result}, {scaled};",
            result = out(reg32) result,
            scaled = in(reg32) scaled,
            options(pure, nomem, nostack),
        );
    }
    result
}

/// `1/sqrt(x)`, approximately (`rsqrt.approx`, relative error about 2^-23).
#[inline(always)]
pub fn rsqrt(x: f32) -> f32 {
    let result: f32;
    // SAFETY: a pure arithmetic instruction.
    unsafe {
        asm!(
            "rsqrt.approx.ftz.f32 {result}, {x};",
            result = out(reg32) result,
            x = in(reg32) x,
            options(pure, nomem, nostack),
        );
    }
    result
}

/// `a * b + c` with one rounding (`fma.rn.f32`).
#[inline(always)]
pub fn fma(a: f32, b: f32, c: f32) -> f32 {
    core::f32::math::mul_add(a, b, c)
}

/// Widens IEEE binary16 bits to `f32` exactly (`cvt.f32.f16`).
#[inline(always)]
pub fn f16_bits_to_f32(bits: u16) -> f32 {
    let result: f32;
    // SAFETY: a pure conversion instruction.
    unsafe {
        asm!(
            "cvt.f32.f16 {result}, {bits};",
            result = out(reg32) result,
            bits = in(reg16) bits,
            options(pure, nomem, nostack),
        );
    }
    result
}
