//! Floating-point helpers that `core` does not provide on nvptx.
//!
//! `core` has no `exp` without a math library, so the exponential goes through the hardware
//! `ex2.approx` unit (as CUDA's `__expf` does): relative error about 2^-22 of `2^(x·log2 e)`,
//! plus the rounding of `x·log2 e`, which grows with |x|.
//!
//! The approximate instructions are the variants without `.ftz`: subnormal inputs and results
//! are kept rather than flushed to zero, as PyTorch's (non-fast-math) kernels keep them, so
//! that `silu(-88)` is a tiny negative number and not 0. Special values follow IEEE:
//! `exp(-inf) = 0`, `exp(+inf) = +inf`, `rsqrt(+inf) = 0`, `rsqrt(0) = +inf`,
//! `1/inf = 0`, and NaN in gives NaN out.

/// One pure PTX instruction `OP {result}, {input};` as an expression of type `$result`.
macro_rules! pure_instruction {
    ($template:literal, $input:expr, $class:ident => $result:ty) => {{
        let result: $result;
        // SAFETY: a pure arithmetic or conversion instruction: no memory, no side effects.
        unsafe {
            core::arch::asm!(
                $template,
                result = out(reg32) result,
                input = in($class) $input,
                options(pure, nomem, nostack),
            );
        }
        result
    }};
}

/// `e^x`, approximately; `exp(-inf) = 0`.
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    pure_instruction!("ex2.approx.f32 {result}, {input};", x * core::f32::consts::LOG2_E, reg32 => f32)
}

/// What turns a sum of exponentials taken relative to `max` into one relative to `new_max`
/// (online softmax): `e^(max - new_max)`, and 0 where `max` is `-inf` (no finite element, so
/// the sum is 0, or NaN, which stays NaN), where `e^(-inf - -inf)` would be NaN.
#[inline(always)]
pub fn rescale_factor(max: f32, new_max: f32) -> f32 {
    if max == f32::NEG_INFINITY { 0.0 } else { exp(max - new_max) }
}

/// `1/sqrt(x)`, approximately (`rsqrt.approx`, relative error about 2^-23).
#[inline(always)]
pub fn rsqrt(x: f32) -> f32 {
    pure_instruction!("rsqrt.approx.f32 {result}, {input};", x, reg32 => f32)
}

/// `1/x`, approximately (`rcp.approx`, relative error about 2^-23), instead of the dozen
/// instructions of a correctly rounded division.
#[inline(always)]
pub fn reciprocal(x: f32) -> f32 {
    pure_instruction!("rcp.approx.f32 {result}, {input};", x, reg32 => f32)
}

/// `a * b + c` with one rounding (`fma.rn.f32`).
#[inline(always)]
pub fn fma(a: f32, b: f32, c: f32) -> f32 {
    core::f32::math::mul_add(a, b, c)
}

/// Widens IEEE binary16 bits to `f32` exactly (`cvt.f32.f16`).
#[inline(always)]
pub fn f16_bits_to_f32(bits: u16) -> f32 {
    pure_instruction!("cvt.f32.f16 {result}, {input};", bits, reg16 => f32)
}

/// Rounds `x` to bfloat16, to nearest even, and returns its bits (`cvt.rn.bf16.f32`): NaN
/// stays NaN, values past bf16's largest round to infinity, as PyTorch's `.to(bfloat16)`.
#[inline(always)]
pub fn f32_to_bf16_bits(x: f32) -> u16 {
    let bits: u16;
    // SAFETY: a pure conversion instruction: no memory, no side effects.
    unsafe {
        core::arch::asm!(
            "cvt.rn.bf16.f32 {bits}, {x};",
            bits = out(reg16) bits,
            x = in(reg32) x,
            options(pure, nomem, nostack),
        );
    }
    bits
}
