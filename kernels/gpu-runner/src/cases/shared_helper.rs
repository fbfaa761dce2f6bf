//! `shared_memory_helper_local` and `shared_memory_helper_cross_crate`: a three-point blur of
//! each block's tile of `n` floats through dynamic shared memory, by an `#[inline(never)]`
//! helper in the same crate or in `kernel-helpers`. PyTorch has no counterpart.

use fastrand::Rng;

use super::common::{special_elements, sprinkle_specials, uniform};
use super::family::{Elements, Family, Param};
use super::{Case, Expected, Inputs, Kernel, Launch, Roofline, Work};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SharedHelper {
    Local,
    CrossCrate,
}

/// Correctness `(n, block)`: empty, one, sizes around the block, a smaller block.
const CORRECTNESS: [(usize, u32); 6] =
    [(0, 256), (1, 256), (255, 256), (256, 256), (257, 256), (10_007, 128)];
/// The timing shape and its blocks.
const TIMING: Elements = Elements { n: 1 << 26 };
const TIMING_BLOCKS: [u32; 2] = [256, 512];

impl Family for SharedHelper {
    type Shape = Elements;

    /// The issue sets no target.
    fn roofline(self) -> Roofline {
        Roofline::Bandwidth { target: None }
    }

    /// The stencils have no PyTorch counterpart.
    fn has_peer(self) -> bool {
        false
    }

    /// One tile per block: the grid must cover `n`.
    fn launch(self, Elements { n }: Elements, block: u32, _grid: Option<usize>) -> Launch {
        Launch::linear(n.div_ceil(block as usize), block, block * 4)
    }

    /// `n` floats each, and the blur's scale.
    fn params(self, Elements { n }: Elements) -> Vec<Param> {
        vec![Param::Input(0), Param::Output, Param::Count(n), Param::Scalar]
    }

    fn correctness_cases(self, _sms: usize) -> Vec<Case> {
        self.by_contract(CORRECTNESS.map(|(n, block)| (Elements { n }, block, None)))
    }

    fn special_cases(self) -> Vec<Case> {
        special_elements(self)
    }

    fn timing_cases(self, _sms: usize) -> Vec<Case> {
        self.by_contract(TIMING_BLOCKS.map(|block| (TIMING, block, None)))
    }

    fn work(self, Elements { n }: Elements) -> Work {
        Work::of(2 * 4 * n, 4 * n)
    }

    fn random_inputs(self, Elements { n }: Elements, rng: &mut Rng) -> Inputs {
        Inputs { floats: vec![uniform(rng, n, -4.0, 4.0)], halves: None, scalar: 0.5 + 1.5 * rng.f32() }
    }

    /// About a third of the input's elements.
    fn plant_specials(self, _: Elements, _: &Launch, inputs: &mut Inputs, rng: &mut Rng) {
        sprinkle_specials(&mut inputs.floats[0], rng);
    }

    fn output_len(self, Elements { n }: Elements, _: &Launch) -> usize {
        n
    }

    /// Exact: two adds and two multiplies, in the reference's order, with no contraction in
    /// Rust.
    fn expected(self, _: Elements, launch: &Launch, inputs: &Inputs) -> Expected {
        let block = launch.block.0 as usize;
        Expected::exact(kernels_reference::blur3_tiles(&inputs.floats[0], block, inputs.scalar))
    }

    fn identity(self) -> (Kernel, &'static str) {
        match self {
            SharedHelper::Local => (Kernel::SharedHelperLocal, "shared_memory_helper_local"),
            SharedHelper::CrossCrate => (Kernel::SharedHelperCrossCrate, "shared_memory_helper_cross_crate"),
        }
    }
}
