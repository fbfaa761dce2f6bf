//! `gemm_bf16_wgmma`'s operands on the GPU: A and B as bf16, and their tiled tensor maps (the
//! driver's `cuTensorMapEncodeTiled`), copied to device memory where the kernel's bulk tensor
//! copies read them. [`crate::gpu`] uploads a case through [`WgmmaOperands::upload`] and
//! launches and times it like every other kernel.

use std::ffi::c_void;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use cudarc::driver::sys;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr};
use half::bf16;

use crate::compare::{POISON, with_guard};
use crate::gemm_wgmma::{BOX_K, GemmShape, TILE_M, row_pitch, tile_n};

/// A product's inputs on the device: A and B (bf16), their tensor maps, and the bias of an
/// entry that adds one. The maps hold the addresses of A and B, which therefore live as long as
/// they do.
pub struct WgmmaOperands {
    /// A and B as uploaded (rows at [`row_pitch`]): the maps point into them, and the decode
    /// entry reads them directly.
    pub a: CudaSlice<u16>,
    pub b: CudaSlice<u16>,
    pub a_map: CudaSlice<u8>,
    pub b_map: CudaSlice<u8>,
    /// `n` floats, then [`crate::compare::GUARD`] poisoned ones (a read past the end poisons C).
    pub bias: Option<CudaSlice<f32>>,
}

/// The bf16 bits a bf16 C is poisoned with before a launch: a NaN whose payload the kernel's
/// conversion never produces (it turns every NaN into the canonical 0x7fff).
pub const BF16_POISON: u16 = 0x7fad;

/// A bf16 C as read back, widened to the f32 values the comparison takes: exact for every
/// bf16 value, and [`BF16_POISON`] becomes [`crate::compare::POISON`], so that unwritten
/// elements and writes past the end are found as for an f32 output.
pub fn widen_bf16_output(bits: &[u16]) -> Vec<f32> {
    bits.iter()
        .map(|&b| if b == BF16_POISON { f32::from_bits(POISON) } else { bf16::from_bits(b).to_f32() })
        .collect()
}

impl WgmmaOperands {
    /// Uploads A (`m × k`) and B (`n × k`), given as f32 values that are bf16 values (the
    /// catalogue's inputs), as bf16 rows at a pitch of [`row_pitch`] values, and encodes their
    /// tensor maps (B's box as tall as a `wide` or narrow tile's columns). A value that is not a bf16 value is refused by name: rounding it here would
    /// hide a catalogue bug behind the tolerance. An empty A or B (or `k = 0`) is uploaded as
    /// one zero row and described as at least one value wide: the maps are valid, and the
    /// kernel reads nothing of them that reaches C.
    pub fn upload(
        stream: &Arc<CudaStream>,
        entry: &str,
        shape: GemmShape,
        a: &[f32],
        b: &[f32],
        bias: Option<&[f32]>,
        wide: bool,
    ) -> Result<WgmmaOperands> {
        shape.check(entry).map_err(anyhow::Error::msg)?;
        let a_dev = stream.clone_htod(&pitched(&bf16_bits(a, "A")?, shape.m, shape.k))?;
        let b_dev = stream.clone_htod(&pitched(&bf16_bits(b, "B")?, shape.n, shape.k))?;
        let a_map = tensor_map(a_dev.device_ptr(stream).0, shape.k, shape.m, TILE_M as u32)?;
        let b_map = tensor_map(b_dev.device_ptr(stream).0, shape.k, shape.n, tile_n(wide) as u32)?;
        Ok(WgmmaOperands {
            a_map: stream.clone_htod(&a_map)?,
            b_map: stream.clone_htod(&b_map)?,
            a: a_dev,
            b: b_dev,
            bias: bias.map(|bias| stream.clone_htod(&with_guard(bias))).transpose()?,
        })
    }
}

/// `rows × k` bf16 values laid out at a pitch of [`row_pitch`]`(k)`, zeros between the rows
/// and at least one row (all zeros when `rows` or `k` is 0).
pub fn pitched(bits: &[u16], rows: usize, k: usize) -> Vec<u16> {
    let pitch = row_pitch(k);
    let mut out = vec![0u16; rows.max(1) * pitch];
    for (row, values) in bits.chunks(k.max(1)).take(rows).enumerate() {
        out[row * pitch..row * pitch + values.len()].copy_from_slice(values);
    }
    out
}

/// The bf16 bits of `values`, each of which must be a bf16 value widened to f32.
pub fn bf16_bits(values: &[f32], name: &str) -> Result<Vec<u16>> {
    values
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let bits = bf16::from_f32(v);
            if bits.to_f32().to_bits() != v.to_bits() && !v.is_nan() {
                bail!(
                    "gemm_bf16_wgmma: {name}[{i}] = {v} is not a bf16 value (the catalogue rounds its inputs)"
                );
            }
            Ok(bits.to_bits())
        })
        .collect()
}

/// Encodes the tiled tensor map of a row-major bf16 matrix of `rows` rows of `columns` values
/// at `address`, rows [`row_pitch`]`(columns)` values apart: box 64 × `box_rows`, 128-byte swizzle
/// (what the kernel's wgmma descriptors read), zeros past the edges. An empty dimension is
/// described as one long (a map's dimensions are positive; [`pitched`] allocates that much).
/// Returns the map's 128 bytes.
fn tensor_map(address: sys::CUdeviceptr, columns: usize, rows: usize, box_rows: u32) -> Result<Vec<u8>> {
    let mut map = std::mem::MaybeUninit::<sys::CUtensorMap>::zeroed();
    let dims = [columns.max(1) as u64, rows.max(1) as u64];
    let strides = [(row_pitch(columns) * 2) as u64];
    let boxes = [BOX_K, box_rows];
    let element_strides = [1u32, 1];
    // SAFETY: the arrays hold rank (2) entries, rank − 1 for the strides; `address` is a device
    // allocation of rows × columns bf16 values that outlives every launch using the map.
    unsafe {
        sys::cuTensorMapEncodeTiled(
            map.as_mut_ptr(),
            sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
            2,
            address as *mut c_void,
            dims.as_ptr(),
            strides.as_ptr(),
            boxes.as_ptr(),
            element_strides.as_ptr(),
            sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
            sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
    }
    .result()
    .with_context(|| format!("encoding the tensor map of a {rows} × {columns} bf16 matrix"))?;
    // SAFETY: the encode call initialised the map.
    let map = unsafe { map.assume_init() };
    // SAFETY: CUtensorMap is 128 plain bytes.
    let bytes = unsafe { std::slice::from_raw_parts((&map as *const sys::CUtensorMap).cast::<u8>(), 128) };
    Ok(bytes.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_bf16_values_are_uploaded() {
        assert_eq!(bf16_bits(&[1.0, -0.5], "A").unwrap(), [0x3f80, 0xbf00]);
        let error = bf16_bits(&[1.0, 1.0 + f32::EPSILON], "B").unwrap_err().to_string();
        assert!(error.contains("B[1]") && error.contains("not a bf16 value"), "{error}");
    }

    #[test]
    fn rows_are_uploaded_at_a_16_byte_pitch_and_empty_matrices_as_one_zero_row() {
        assert_eq!(pitched(&[1, 2, 3, 4, 5, 6], 2, 3), [1, 2, 3, 0, 0, 0, 0, 0, 4, 5, 6, 0, 0, 0, 0, 0]);
        assert_eq!(pitched(&[7; 16], 2, 8), [7; 16]);
        assert_eq!(pitched(&[], 0, 64), [0; 64]);
        assert_eq!(pitched(&[], 5, 0), [0; 40]);
    }

    #[test]
    fn a_bf16_output_reads_back_exactly_with_its_poison_kept() {
        let widened = widen_bf16_output(&[0x3f80, 0xc040, BF16_POISON, 0x7fff]);
        assert_eq!(&widened[..2], [1.0, -3.0]);
        assert_eq!(widened[2].to_bits(), POISON);
        assert!(widened[3].is_nan() && widened[3].to_bits() != POISON, "a NaN result is not unwritten");
    }
}
