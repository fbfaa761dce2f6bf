//! Tiled matrix multiplication through shared memory.

use crate::device::launch::{block_threads_2d, dynamic_shared_bytes};
use crate::device::math::fma;
use crate::device::{barrier, block_idx_x, block_idx_y, dynamic_shared_base, thread_idx_x, thread_idx_y};

/// Edge of the square tiles; the block is `TILE × TILE` threads.
const TILE: usize = 16;

/// `c = a · b` for row-major `a` (`m × k`), `b` (`k × n`) and `c` (`m × n`), in `f32`.
///
/// Each block computes one `TILE × TILE` tile of `c`, walking `k` in steps of `TILE`: the
/// threads stage one tile of `a` and one of `b` in shared memory (zero outside the matrices),
/// synchronise, and accumulate with fused multiply-adds in increasing `k`.
///
/// Special values, as `torch.matmul` in `f32`: `c[i][j]` is NaN when a product is NaN (a NaN
/// input, `inf · 0`) or the products hold both infinities, ±inf when they hold one; subnormals
/// count at their value. `k = 0` gives zeros.
///
/// Launch: `blockDim = (16, 16)`, `gridDim = (ceil(n / 16), ceil(m / 16))`; dynamic shared
/// memory `2 * 16 * 16 * 4 = 2048` bytes.
///
/// # Safety
/// `a`, `b` and `c` point to `m * k`, `k * n` and `m * n` floats of device memory; `c`
/// overlaps neither input.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn gemm_tiled(
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    m: usize,
    n: usize,
    k: usize,
) {
    block_threads_2d(TILE as u32, TILE as u32);
    dynamic_shared_bytes((2 * TILE * TILE * size_of::<f32>()) as u32);
    let tx = thread_idx_x() as usize;
    let ty = thread_idx_y() as usize;
    let row = block_idx_y() as usize * TILE + ty;
    let col = block_idx_x() as usize * TILE + tx;
    let a_tile = dynamic_shared_base::<f32>();
    let b_tile = a_tile.wrapping_add(TILE * TILE);

    let mut acc = 0.0f32;
    let mut k0 = 0;
    while k0 < k {
        // SAFETY: shared indices are below TILE * TILE; global reads are guarded by the
        // matrix bounds.
        unsafe {
            let a_col = k0 + tx;
            *a_tile.add(ty * TILE + tx) = if row < m && a_col < k { *a.add(row * k + a_col) } else { 0.0 };
            let b_row = k0 + ty;
            *b_tile.add(ty * TILE + tx) = if b_row < k && col < n { *b.add(b_row * n + col) } else { 0.0 };
            barrier();
            for kk in 0..TILE {
                acc = fma(*a_tile.add(ty * TILE + kk), *b_tile.add(kk * TILE + tx), acc);
            }
            // Everyone is done with these tiles before the next step overwrites them.
            barrier();
        }
        k0 += TILE;
    }
    if row < m && col < n {
        // SAFETY: bounds checked just above.
        unsafe { *c.add(row * n + col) = acc };
    }
}
