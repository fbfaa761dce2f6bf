//! Element-wise kernels over `n` elements, grid-stride: any grid and block size works.

use cuda_device::kernel;

use crate::device::{global_thread_index, grid_thread_count, strided};

/// `out[i] = a[i] + b[i]` for `i < n`: the default backend's `vector_add`.
///
/// Special values: IEEE addition, as PyTorch's `torch.add`: `inf + -inf` and anything with a
/// NaN give NaN, sums beyond `f32::MAX` give ±inf, subnormals are added exactly.
///
/// Launch: one-dimensional, any grid and block (grid-stride; each thread keeps four loads in
/// flight), no dynamic shared memory. Any `n` (0 included) and any `f32`-aligned pointers.
/// PTX: `.entry vector_add(.param .u64 a, .param .u64 b, .param .u64 out, .param .u64 n)`.
///
/// # Safety
/// `a`, `b` and `out` point to `n` floats of device memory; `out` may alias neither input.
#[kernel]
pub unsafe fn vector_add(a: *const f32, b: *const f32, out: *mut f32, n: usize) {
    strided(
        global_thread_index(),
        n,
        grid_thread_count(),
        // SAFETY: `strided` passes indices below `n`; the contract above.
        |i| unsafe { (*a.add(i), *b.add(i)) },
        |i, (x, y)| unsafe { *out.add(i) = x + y },
    );
}
