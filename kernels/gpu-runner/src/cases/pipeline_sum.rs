//! `pipeline_sum`: a warp-specialised producer/consumer over a 4-stage ring of bulk copies; each
//! block sums the tiles `t mod grid` and writes one partial sum.

use fastrand::Rng;
use kernels_reference::PIPELINE_TILE_FLOATS;

use super::common::{abs_all, plant_sum_specials, uniform};
use super::family::{Family, Grid, Param, Tiles};
use super::{Case, Expected, Inputs, Kernel, Launch, Roofline, Work};
use crate::compare::Tolerance;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PipelineSum {
    PipelineSum,
}

/// A producer warp and four consumer warps.
const BLOCK: u32 = 160;
/// Correctness `(tiles, grid)`: none, one, fewer and more tiles than blocks, many per block.
#[rustfmt::skip]
const CORRECTNESS: [(usize, Grid); 6] = [
    (0, Grid::Blocks(1)), (1, Grid::Blocks(1)), (3, Grid::Blocks(2)),
    (5, Grid::Blocks(2)), (4, Grid::Blocks(8)), (1000, Grid::PerSm(1)),
];
/// The special-value case `(tiles, grid)`. Bulk copies need 16-byte aligned sources: no
/// misaligned case.
const SPECIAL: (usize, usize) = (16, 8);
/// The timing shape and its grids, in blocks per multiprocessor.
const TIMING: Tiles = Tiles { tiles: 1 << 17 };
const TIMING_GRIDS_PER_SM: [usize; 4] = [1, 2, 4, 8];

impl Family for PipelineSum {
    type Shape = Tiles;

    /// Tiles are given to the peer in floats.
    fn peer_dims(self, dims: &[usize]) -> Vec<usize> {
        dims.iter().map(|tiles| tiles * PIPELINE_TILE_FLOATS).collect()
    }

    /// 160 threads whatever the block asked, and the ring's 16 576 shared bytes; a block per
    /// tile unless told.
    fn launch(self, Tiles { tiles }: Tiles, _block: u32, grid: Option<usize>) -> Launch {
        Launch::linear(grid.unwrap_or(tiles), BLOCK, 4 * 4096 + 64 + 128)
    }

    /// Whole tiles, 256-byte aligned (cudaMalloc), their count as `u32`; `gridDim.x` partials.
    fn params(self, Tiles { tiles }: Tiles) -> Vec<Param> {
        vec![Param::Input(0), Param::Count32(tiles), Param::Output]
    }

    fn correctness_cases(self, sms: usize) -> Vec<Case> {
        self.by_contract(CORRECTNESS.map(|(tiles, grid)| (Tiles { tiles }, BLOCK, Some(grid.blocks(sms)))))
    }

    fn special_cases(self) -> Vec<Case> {
        let (tiles, grid) = SPECIAL;
        self.specials_by_contract([(Tiles { tiles }, BLOCK, Some(grid), 0)])
    }

    fn timing_cases(self, sms: usize) -> Vec<Case> {
        self.by_contract(TIMING_GRIDS_PER_SM.map(|per_sm| (TIMING, BLOCK, Some(per_sm * sms))))
    }

    fn roofline(self) -> Roofline {
        Roofline::Bandwidth { target: Some(0.70) }
    }

    fn work(self, Tiles { tiles }: Tiles) -> Work {
        let floats = tiles * PIPELINE_TILE_FLOATS;
        Work::of(4 * floats, floats)
    }

    /// Inputs in `[0, 1)`, so that the error bound is relative to the sum itself.
    fn random_inputs(self, Tiles { tiles }: Tiles, rng: &mut Rng) -> Inputs {
        Inputs::plain(vec![uniform(rng, tiles * PIPELINE_TILE_FLOATS, 0.0, 1.0)])
    }

    /// One special value per block's partial sum: tile `t` belongs to block `t mod grid`.
    fn plant_specials(self, _: Tiles, _: &Launch, inputs: &mut Inputs, _: &mut Rng) {
        let tile = PIPELINE_TILE_FLOATS;
        plant_sum_specials(&mut inputs.floats[0], |unit| unit * tile, tile);
    }

    /// A partial sum per block.
    fn output_len(self, _: Tiles, launch: &Launch) -> usize {
        launch.grid.0 as usize
    }

    /// The recursive summation bound: each consumer adds 8 floats per tile of its block, then
    /// two warp-sum levels of 5.
    fn expected(self, Tiles { tiles }: Tiles, launch: &Launch, inputs: &Inputs) -> Expected {
        let (x, grid) = (&inputs.floats[0], launch.grid.0 as usize);
        Expected {
            values: kernels_reference::pipeline_partial_sums(x, grid),
            tolerance: Tolerance::SumBound { terms: tiles.div_ceil(grid) * 8 + 10 + 1 },
            magnitudes: Some(kernels_reference::pipeline_partial_sums(&abs_all(x), grid)),
        }
    }

    fn identity(self) -> (Kernel, &'static str) {
        (Kernel::PipelineSum, "pipeline_sum")
    }
}
