//! Element-wise kernels over `n` elements, grid-stride: any grid and block size works.
//!
//! Each thread visits `i = global index, + grid size, …` and batches its loads
//! ([`strided`]), so that several loads per thread are in flight.

use crate::device::math::{exp, fma, reciprocal};
use crate::device::strided::strided;
use crate::device::{global_thread_index, grid_thread_count};

/// `out[i] = a[i] + b[i]` for `i < n`.
///
/// Special values: IEEE addition, as PyTorch's `torch.add`: `inf + -inf` and anything with a
/// NaN give NaN, sums beyond `f32::MAX` give ±inf, subnormals are added exactly. Any `n`
/// (0 included) and any `f32`-aligned pointers.
///
/// # Safety
/// `a`, `b` and `out` point to `n` floats of device memory; `out` may alias neither input.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn vector_add(a: *const f32, b: *const f32, out: *mut f32, n: usize) {
    strided(
        global_thread_index(),
        n,
        grid_thread_count(),
        // SAFETY: `strided` passes indices below `n`; the contract above.
        |i| unsafe { (*a.add(i), *b.add(i)) },
        |i, (a, b)| unsafe { *out.add(i) = a + b },
    );
}

/// SAXPY in place: `y[i] = alpha * x[i] + y[i]` for `i < n`, with one rounding (fused).
///
/// Special values: IEEE fused multiply-add, as PyTorch's `y.add_(x, alpha=)`: NaN in, NaN out;
/// `alpha · inf + -inf` is NaN; a product beyond `f32::MAX` gives ±inf (unless `y` brings the
/// exact sum back into range: fused, there is no intermediate overflow). Any `n` and any
/// `f32`-aligned pointers.
///
/// # Safety
/// `x` and `y` point to `n` floats of device memory and do not overlap.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn saxpy(alpha: f32, x: *const f32, y: *mut f32, n: usize) {
    strided(
        global_thread_index(),
        n,
        grid_thread_count(),
        // SAFETY: `strided` passes indices below `n`; the contract above.
        |i| unsafe { (*x.add(i), *y.add(i)) },
        |i, (x, y_i)| unsafe { *y.add(i) = fma(alpha, x, y_i) },
    );
}

/// The gated up-projection of a SwiGLU feed-forward layer:
/// `out[i] = silu(gate[i]) * up[i]` with `silu(g) = g / (1 + e^-g)`, for `i < n`.
/// The division is an approximate reciprocal (`rcp.approx`) times `g`.
///
/// Special values, as PyTorch's `F.silu(gate) * up`: `silu(-inf) = -inf · 0` is NaN (PyTorch:
/// `-inf / inf`), `silu(+inf) = +inf`; large negative gates give -0 or tiny negative numbers
/// (subnormal results are kept), never NaN; NaN in either input gives NaN. Any `n` and any
/// `f32`-aligned pointers.
///
/// # Safety
/// `gate`, `up` and `out` point to `n` floats of device memory; `out` may alias neither input.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn silu_mul(gate: *const f32, up: *const f32, out: *mut f32, n: usize) {
    strided(
        global_thread_index(),
        n,
        grid_thread_count(),
        // SAFETY: `strided` passes indices below `n`; the contract above.
        |i| unsafe { (*gate.add(i), *up.add(i)) },
        |i, (g, u)| unsafe { *out.add(i) = g * reciprocal(1.0 + exp(-g)) * u },
    );
}
