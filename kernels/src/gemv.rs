//! Decode-style matrix-vector product over half-precision weights.

use crate::device::math::{f16_bits_to_f32, fma};
use crate::device::reduce::warp_sum;
use crate::device::strided::strided;
use crate::device::{WARP_SIZE, block_dim_x, block_idx_x, grid_dim_x, lane_id, warp_id};

/// Eight IEEE binary16 values, aligned so that one 16-byte load fetches them.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct EightHalves([u16; 8]);

/// Four floats, aligned so that one 16-byte load fetches them.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct FourFloats([f32; 4]);

/// `y[r] = sum_c f16(weights[r][c]) * x[c]` for `r < rows`: the projection a transformer runs
/// once per generated token. `weights` is row-major IEEE binary16 (`rows × cols`, as raw
/// bits); products are accumulated in `f32` with fused multiply-adds.
///
/// Launch: one-dimensional; a warp per row (`blockDim.x` a multiple of 32; grid-stride over
/// rows, so any grid works); no shared memory. When `cols` is a multiple of 8 and `weights` and
/// `x` are 16-byte aligned, each lane loads eight weights and eight `x` values at a time (three
/// 16-byte loads), several chunks in flight ([`strided`]); otherwise one weight at a time.
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
    let vectorised =
        cols.is_multiple_of(8) && (weights as usize).is_multiple_of(16) && (x as usize).is_multiple_of(16);

    let mut row = block_idx_x() as usize * warps_per_block + warp_id() as usize;
    let row_step = grid_dim_x() as usize * warps_per_block;
    while row < rows {
        let w_row = weights.wrapping_add(row * cols);
        let mut acc = 0.0f32;
        if vectorised {
            let chunks = w_row as *const EightHalves;
            let x_quads = x as *const FourFloats;
            strided(
                lane,
                cols / 8,
                lanes,
                // SAFETY: `chunk * 8 + 7 < cols`; the row start is 16-byte aligned because the
                // matrix is and `cols` is a multiple of 8; `x` is 16-byte aligned.
                |chunk| unsafe {
                    let (low, high) = (*x_quads.add(2 * chunk), *x_quads.add(2 * chunk + 1));
                    ((*chunks.add(chunk)).0, low.0, high.0)
                },
                |_, (halves, low, high): ([u16; 8], [f32; 4], [f32; 4])| {
                    for k in 0..4 {
                        acc = fma(f16_bits_to_f32(halves[k]), low[k], acc);
                    }
                    for k in 0..4 {
                        acc = fma(f16_bits_to_f32(halves[k + 4]), high[k], acc);
                    }
                },
            );
        } else {
            strided(
                lane,
                cols,
                lanes,
                // SAFETY: `row < rows`, and `strided` passes columns below `cols`.
                |c| unsafe { (*w_row.add(c), *x.add(c)) },
                |_, (bits, x_c)| acc = fma(f16_bits_to_f32(bits), x_c, acc),
            );
        }
        let total = warp_sum(acc);
        if lane == 0 {
            // SAFETY: `row < rows`.
            unsafe { *y.add(row) = total };
        }
        row += row_step;
    }
}
