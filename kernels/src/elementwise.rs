//! Element-wise kernels over `n` elements, grid-stride: any grid and block size works.

use crate::device::math::{exp, fma};
use crate::device::{global_thread_index, grid_thread_count};

/// `out[i] = a[i] + b[i]` for `i < n`.
///
/// # Safety
/// `a`, `b` and `out` point to `n` floats of device memory; `out` may alias neither input.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn vector_add(a: *const f32, b: *const f32, out: *mut f32, n: usize) {
    let mut i = global_thread_index();
    while i < n {
        // SAFETY: `i < n` and the contract above.
        unsafe { *out.add(i) = *a.add(i) + *b.add(i) };
        i += grid_thread_count();
    }
}

/// SAXPY in place: `y[i] = alpha * x[i] + y[i]` for `i < n`, with one rounding (fused).
///
/// # Safety
/// `x` and `y` point to `n` floats of device memory and do not overlap.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn saxpy(alpha: f32, x: *const f32, y: *mut f32, n: usize) {
    let mut i = global_thread_index();
    while i < n {
        // SAFETY: `i < n` and the contract above.
        unsafe { *y.add(i) = fma(alpha, *x.add(i), *y.add(i)) };
        i += grid_thread_count();
    }
}

/// The gated up-projection of a SwiGLU feed-forward layer:
/// `out[i] = silu(gate[i]) * up[i]` with `silu(g) = g / (1 + e^-g)`, for `i < n`.
///
/// # Safety
/// `gate`, `up` and `out` point to `n` floats of device memory; `out` may alias neither input.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn silu_mul(gate: *const f32, up: *const f32, out: *mut f32, n: usize) {
    let mut i = global_thread_index();
    while i < n {
        // SAFETY: `i < n` and the contract above.
        unsafe {
            let g = *gate.add(i);
            *out.add(i) = g / (1.0 + exp(-g)) * *up.add(i);
        }
        i += grid_thread_count();
    }
}
