//! References of the kernels that produce one partial sum per block.

/// Floats per tile of the `pipeline_sum` kernel.
pub const PIPELINE_TILE_FLOATS: usize = 1024;

/// What `block_reduce_sum` writes for a launch of `grid` blocks of `block` threads: for each
/// block, the sum of the elements its threads visit in a grid-stride loop (element `i` belongs
/// to block `(i mod grid·block) / block`). Summed in `f64`, then rounded.
pub fn block_partial_sums(input: &[f32], grid: usize, block: usize) -> Vec<f32> {
    assert!(grid > 0 && block > 0, "block_partial_sums: empty launch");
    let mut sums = vec![0.0f64; grid];
    for (i, v) in input.iter().enumerate() {
        sums[(i % (grid * block)) / block] += f64::from(*v);
    }
    sums.into_iter().map(|s| s as f32).collect()
}

/// What `pipeline_sum` writes for `grid` blocks over `input` (a whole number of tiles of
/// [`PIPELINE_TILE_FLOATS`]): block `b` sums tiles `b, b + grid, …`. Summed in `f64`.
pub fn pipeline_partial_sums(input: &[f32], grid: usize) -> Vec<f32> {
    assert!(grid > 0, "pipeline_partial_sums: empty launch");
    assert_eq!(input.len() % PIPELINE_TILE_FLOATS, 0, "pipeline_sum takes whole tiles");
    let mut sums = vec![0.0f64; grid];
    for (tile, values) in input.as_chunks::<PIPELINE_TILE_FLOATS>().0.iter().enumerate() {
        sums[tile % grid] += values.iter().map(|v| f64::from(*v)).sum::<f64>();
    }
    sums.into_iter().map(|s| s as f32).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partials_follow_the_grid_stride() {
        // 2 blocks of 2 threads: elements 0,1 → block 0; 2,3 → block 1; 4,5 → block 0 again.
        let input = [1.0, 2.0, 10.0, 20.0, 100.0, 200.0, 1000.0];
        assert_eq!(block_partial_sums(&input, 2, 2), [303.0, 1030.0]);
    }

    #[test]
    fn partials_add_up_to_the_total() {
        let input: Vec<f32> = (0..1000).map(|i| i as f32).collect();
        let total: f32 = block_partial_sums(&input, 7, 32).iter().sum();
        assert_eq!(total, 499_500.0);
        // A grid larger than the input leaves the extra blocks at zero.
        assert_eq!(block_partial_sums(&[5.0], 3, 32), [5.0, 0.0, 0.0]);
    }

    #[test]
    fn pipeline_partials_take_whole_tiles_round_robin() {
        let input: Vec<f32> =
            (0..3 * PIPELINE_TILE_FLOATS).map(|i| (i / PIPELINE_TILE_FLOATS) as f32 + 1.0).collect();
        let n = PIPELINE_TILE_FLOATS as f32;
        assert_eq!(pipeline_partial_sums(&input, 2), [(1.0 + 3.0) * n, 2.0 * n]);
    }
}
