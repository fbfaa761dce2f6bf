//! Reference of the shared-memory helper kernels.

/// What `shared_memory_helper_local` and `shared_memory_helper_cross_crate` write: `input` is
/// cut into tiles of `tile_len` elements (one per block; the last one may be shorter), and
/// each output is the three-point average around its element within its tile, clamped at the
/// tile's ends, times `scale`.
pub fn blur3_tiles(input: &[f32], tile_len: usize, scale: f32) -> Vec<f32> {
    assert!(tile_len > 0, "blur3_tiles: empty tiles");
    let mut out = Vec::with_capacity(input.len());
    for tile in input.chunks(tile_len) {
        for i in 0..tile.len() {
            let left = tile[i.saturating_sub(1)];
            let right = tile[(i + 1).min(tile.len() - 1)];
            out.push((left + tile[i] + right) * (1.0 / 3.0) * scale);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blur_is_clamped_at_tile_edges() {
        let out = blur3_tiles(&[3.0, 6.0, 9.0, 30.0, 60.0], 3, 1.0);
        let third = 1.0f32 / 3.0;
        assert_eq!(out[0], 12.0 * third);
        assert_eq!(out[1], 18.0 * third);
        assert_eq!(out[2], 24.0 * third);
        // The second tile does not see the first one.
        assert_eq!(out[3], 120.0 * third);
        assert_eq!(out[4], 150.0 * third);
    }

    #[test]
    fn one_element_tile_is_scaled_element() {
        assert_eq!(blur3_tiles(&[3.0], 128, 2.0), [3.0 * 3.0 * (1.0 / 3.0) * 2.0]);
    }
}
