//! `pipeline_sum`: a warp-specialised producer/consumer over a 4-stage ring of bulk copies; each
//! block sums the tiles `t mod grid` and writes one partial sum.

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
/// Correctness `(tiles, grid)`.
const CORRECTNESS: [(usize, Grid); 6] = [
    (0, Grid::Blocks(1)),
    (1, Grid::Blocks(1)),
    (3, Grid::Blocks(2)),
    (5, Grid::Blocks(2)),
    (4, Grid::Blocks(8)),
    (1000, Grid::PerSm(1)),
];
/// The special-value case (bulk copies need 16-byte aligned sources: no misaligned case).
const SPECIAL: (usize, usize) = (16, 8);
/// The timing shape and its grids, in blocks per multiprocessor.
const TIMING: usize = 1 << 17;
const TIMING_GRIDS_PER_SM: [usize; 4] = [1, 2, 4, 8];

impl Family for PipelineSum {
    type Shape = Tiles;

    fn kernel(self) -> Kernel {
        Kernel::PipelineSum
    }

    fn entry(self) -> &'static str {
        "pipeline_sum"
    }

    fn roofline(self) -> Roofline {
        Roofline::Bandwidth { target: Some(0.70) }
    }

    /// 160 threads and the ring's 16 576 shared bytes, a block per tile unless told.
    fn launch(self, Tiles { tiles }: Tiles, _block: u32, grid: Option<usize>) -> Launch {
        Launch::linear(grid.unwrap_or(tiles), BLOCK, 4 * 4096 + 64 + 128)
    }

    /// Whole tiles, 256-byte aligned (cudaMalloc), `gridDim.x` partials.
    fn params(self, Tiles { tiles }: Tiles) -> Vec<Param> {
        vec![Param::Input(0), Param::Count32(tiles), Param::Output]
    }

    fn correctness_cases(self, sms: usize) -> Vec<Case> {
        let mut cases = Vec::new();
        for (tiles, grid) in CORRECTNESS {
            let shape = Tiles { tiles };
            cases.push(self.case(shape, self.launch(shape, BLOCK, Some(grid.blocks(sms)))));
        }
        cases
    }

    fn special_cases(self) -> Vec<Case> {
        let (tiles, grid) = SPECIAL;
        let shape = Tiles { tiles };
        vec![self.special(shape, self.launch(shape, BLOCK, Some(grid)), 0)]
    }

    fn timing_cases(self, sms: usize) -> Vec<Case> {
        let shape = Tiles { tiles: TIMING };
        TIMING_GRIDS_PER_SM
            .iter()
            .map(|k| self.case(shape, self.launch(shape, BLOCK, Some(k * sms))))
            .collect()
    }

    fn work(self, Tiles { tiles }: Tiles) -> Work {
        let floats = tiles * PIPELINE_TILE_FLOATS;
        Work::of(4 * floats, floats)
    }

    /// Inputs in `[0, 1)`, so that the error bound is relative to the sum itself.
    fn random_inputs(self, Tiles { tiles }: Tiles, rng: &mut fastrand::Rng) -> Inputs {
        Inputs::plain(vec![uniform(rng, tiles * PIPELINE_TILE_FLOATS, 0.0, 1.0)])
    }

    /// Tile `t` belongs to block `t mod grid`.
    fn plant_specials(self, _: Tiles, _: &Launch, inputs: &mut Inputs, _: &mut fastrand::Rng) {
        let tile = PIPELINE_TILE_FLOATS;
        plant_sum_specials(&mut inputs.floats[0], |unit| unit * tile, tile);
    }

    fn output_len(self, _: Tiles, launch: &Launch) -> usize {
        launch.grid.0 as usize
    }

    /// The recursive summation bound: each consumer adds 8 floats per tile of its block, then
    /// two warp-sum levels of 5.
    fn expected(self, Tiles { tiles }: Tiles, launch: &Launch, inputs: &Inputs) -> Expected {
        let f = &inputs.floats;
        let grid = launch.grid.0 as usize;
        Expected {
            values: kernels_reference::pipeline_partial_sums(&f[0], grid),
            tolerance: Tolerance::SumBound { terms: tiles.div_ceil(grid) * 8 + 10 + 1 },
            magnitudes: Some(kernels_reference::pipeline_partial_sums(&abs_all(&f[0]), grid)),
        }
    }

    /// Tiles are given in floats.
    fn peer_dims(self, dims: &[usize]) -> Vec<usize> {
        dims.iter().map(|tiles| tiles * PIPELINE_TILE_FLOATS).collect()
    }
}
