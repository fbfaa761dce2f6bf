//! `block_reduce_sum`: each block sums its grid-stride share of `n` floats through a tree in
//! dynamic shared memory and writes one partial sum.

use fastrand::Rng;

use super::common::{abs_all, plant_sum_specials, uniform};
use super::family::{Elements, Family, Grid, Param};
use super::{Case, Expected, Inputs, Kernel, Launch, Roofline, Work};
use crate::compare::Tolerance;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockReduce {
    BlockReduceSum,
}

/// Correctness `(n, grid, block)`: empty, one element, a block's worth, sizes off the block
/// with one and two blocks per multiprocessor.
#[rustfmt::skip]
const CORRECTNESS: [(usize, Grid, u32); 5] = [
    (0, Grid::Blocks(1), 32), (1, Grid::Blocks(1), 32), (1000, Grid::Blocks(7), 64),
    (1_048_583, Grid::PerSm(1), 256), (3_000_001, Grid::PerSm(2), 1024),
];
/// Special values `(n, grid, block, offset)`.
const SPECIAL: [(usize, usize, u32, usize); 3] = [(1, 1, 32, 0), (5000, 8, 64, 0), (5001, 6, 128, 1)];
/// The timing shape, 2^27 floats, and its launches `(block, blocks per multiprocessor)`.
const TIMING: Elements = Elements { n: 1 << 27 };
const TIMING_LAUNCHES: [(u32, usize); 4] = [(256, 4), (256, 8), (512, 4), (1024, 2)];

impl Family for BlockReduce {
    type Shape = Elements;

    /// A float of shared memory per thread.
    fn launch(self, Elements { n }: Elements, block: u32, grid: Option<usize>) -> Launch {
        Launch::linear(grid.unwrap_or(n.div_ceil(block as usize)), block, block * 4)
    }

    /// `n` inputs, `gridDim.x` partials.
    fn params(self, Elements { n }: Elements) -> Vec<Param> {
        vec![Param::Input(0), Param::Output, Param::Count(n)]
    }

    fn correctness_cases(self, sms: usize) -> Vec<Case> {
        self.by_contract(CORRECTNESS.map(|(n, grid, block)| (Elements { n }, block, Some(grid.blocks(sms)))))
    }

    fn special_cases(self) -> Vec<Case> {
        self.specials_by_contract(
            SPECIAL.map(|(n, grid, block, offset)| (Elements { n }, block, Some(grid), offset)),
        )
    }

    fn timing_cases(self, sms: usize) -> Vec<Case> {
        self.by_contract(TIMING_LAUNCHES.map(|(block, per_sm)| (TIMING, block, Some(per_sm * sms))))
    }

    fn roofline(self) -> Roofline {
        Roofline::Bandwidth { target: Some(0.70) }
    }

    fn work(self, Elements { n }: Elements) -> Work {
        Work::of(4 * n, n)
    }

    /// Inputs in `[0, 1)`, so that the error bound is relative to the sum itself.
    fn random_inputs(self, Elements { n }: Elements, rng: &mut Rng) -> Inputs {
        Inputs::plain(vec![uniform(rng, n, 0.0, 1.0)])
    }

    /// One special value per block's partial sum: element `i` belongs to block
    /// `(i mod grid·block) / block`.
    fn plant_specials(self, Elements { n }: Elements, launch: &Launch, inputs: &mut Inputs, _: &mut Rng) {
        let block = launch.block.0 as usize;
        plant_sum_specials(&mut inputs.floats[0], |unit| unit * block, block.min(n));
    }

    /// A partial sum per block.
    fn output_len(self, _: Elements, launch: &Launch) -> usize {
        launch.grid.0 as usize
    }

    /// The recursive summation bound: each thread adds its grid-stride elements, then the tree
    /// adds log2(block) levels.
    fn expected(self, Elements { n }: Elements, launch: &Launch, inputs: &Inputs) -> Expected {
        let x = &inputs.floats[0];
        let (grid, block) = (launch.grid.0 as usize, launch.block.0 as usize);
        let log2 = |x: usize| x.max(1).ilog2() as usize;
        Expected {
            values: kernels_reference::block_partial_sums(x, grid, block),
            tolerance: Tolerance::SumBound { terms: n.div_ceil(grid * block) + log2(block) + 1 },
            magnitudes: Some(kernels_reference::block_partial_sums(&abs_all(x), grid, block)),
        }
    }

    fn identity(self) -> (Kernel, &'static str) {
        (Kernel::BlockReduceSum, "block_reduce_sum")
    }
}
