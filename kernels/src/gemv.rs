//! Decode-style matrix-vector product over half-precision weights.

use crate::device::math::{f16_bits_to_f32, fma};
use crate::device::reduce::warp_sum;
use crate::device::{WARP_SIZE, block_dim_x, block_idx_x, grid_dim_x, lane_id, warp_id};

/// Eight IEEE binary16 values, aligned so that one 16-byte load fetches them.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct EightHalves([u16; 8]);

/// `y[r] = sum_c f16(weights[r][c]) * x[c]` for `r < rows`: the projection a transformer runs
/// once per generated token. `weights` is row-major IEEE binary16 (`rows × cols`, as raw
/// bits); products are accumulated in `f32` with fused multiply-adds.
///
/// Launch: one-dimensional; a warp per row (`blockDim.x` a multiple of 32; grid-stride over
/// rows, so any grid works); no shared memory. When `cols` is a multiple of 8 and `weights` is
/// 16-byte aligned, each lane loads eight weights at a time; otherwise one at a time.
///
/// # Safety
/// `weights` points to `rows * cols` halves, `x` to `cols` floats and `y` to `rows` floats of
/// device memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn gemv_f16(
    weights: *const u16,
    x: *const f32,
    y: *mut f32,
    rows: usize,
    cols: usize,
) {
    let warps_per_block = (block_dim_x() / WARP_SIZE) as usize;
    let lane = lane_id() as usize;
    let lanes = WARP_SIZE as usize;
    let vectorised = cols.is_multiple_of(8) && (weights as usize).is_multiple_of(16);

    let mut row = block_idx_x() as usize * warps_per_block + warp_id() as usize;
    let row_step = grid_dim_x() as usize * warps_per_block;
    while row < rows {
        let w_row = weights.wrapping_add(row * cols);
        let mut acc = 0.0f32;
        if vectorised {
            let chunks = w_row as *const EightHalves;
            let mut chunk = lane;
            while chunk < cols / 8 {
                // SAFETY: `chunk * 8 + 7 < cols`; the row start is 16-byte aligned because
                // the matrix is and `cols` is a multiple of 8.
                let halves = unsafe { *chunks.add(chunk) }.0;
                for (k, bits) in halves.iter().enumerate() {
                    acc = fma(f16_bits_to_f32(*bits), unsafe { *x.add(chunk * 8 + k) }, acc);
                }
                chunk += lanes;
            }
        } else {
            let mut c = lane;
            while c < cols {
                // SAFETY: `row < rows`, `c < cols`.
                acc = fma(f16_bits_to_f32(unsafe { *w_row.add(c) }), unsafe { *x.add(c) }, acc);
                c += lanes;
            }
        }
        let total = warp_sum(acc);
        if lane == 0 {
            // SAFETY: `row < rows`.
            unsafe { *y.add(row) = total };
        }
        row += row_step;
    }
}
