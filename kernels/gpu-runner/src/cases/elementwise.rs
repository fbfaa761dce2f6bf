//! The element-wise kernels, `vector_add`, `saxpy` and `silu_mul`: grid-stride loops over `n`
//! elements, two inputs and one output (`saxpy` writes over `y`).

use fastrand::Rng;

use super::common::{special_elements, sprinkle_specials, uniform};
use super::family::{Elements, Family, Param};
use super::{Case, Expected, Inputs, Kernel, Launch, Roofline, Work};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elementwise {
    VectorAdd,
    Saxpy,
    SiluMul,
}

/// Correctness: empty, one element, sizes around the block of 256 and a large odd size, a block
/// per 256 elements; then a grid (3 blocks of 64) smaller than the work, `(n, block, grid)`.
const CORRECTNESS: [usize; 6] = [0, 1, 255, 256, 257, 1_000_003];
const CORRECTNESS_SHORT_GRID: (usize, u32, usize) = (100_000, 64, 3);
/// The timing shape, 2^26 floats (256 MiB per array), in blocks of 256, so many per
/// multiprocessor (then a block per 256 elements); then fewer, larger blocks with the same
/// threads per multiprocessor, `(block, blocks per multiprocessor)`.
const TIMING: Elements = Elements { n: 1 << 26 };
const TIMING_GRIDS_PER_SM: [usize; 3] = [4, 8, 16];
const TIMING_LARGE_BLOCKS: [(u32, usize); 3] = [(512, 2), (1024, 1), (1024, 2)];

impl Family for Elementwise {
    type Shape = Elements;

    fn roofline(self) -> Roofline {
        Roofline::Bandwidth { target: Some(0.96) }
    }

    /// silu_mul as fast as PyTorch's.
    fn peer_ratio_target(self) -> Option<f64> {
        (self == Elementwise::SiluMul).then_some(1.0)
    }

    /// SAXPY works in place on `y`, its second input.
    fn writes_in_place(self) -> bool {
        self == Elementwise::Saxpy
    }

    fn launch(self, Elements { n }: Elements, block: u32, grid: Option<usize>) -> Launch {
        Launch::linear(grid.unwrap_or(n.div_ceil(block as usize)), block, 0)
    }

    /// `n` floats in each buffer; SAXPY's `y` is the output buffer.
    fn params(self, Elements { n }: Elements) -> Vec<Param> {
        match self {
            Elementwise::VectorAdd | Elementwise::SiluMul => {
                vec![Param::Input(0), Param::Input(1), Param::Output, Param::Count(n)]
            }
            Elementwise::Saxpy => vec![Param::Scalar, Param::Input(0), Param::Output, Param::Count(n)],
        }
    }

    fn correctness_cases(self, _sms: usize) -> Vec<Case> {
        let (n, block, grid) = CORRECTNESS_SHORT_GRID;
        let sizes = CORRECTNESS.map(|n| (Elements { n }, 256, None));
        self.by_contract(sizes.into_iter().chain([(Elements { n }, block, Some(grid))]))
    }

    fn special_cases(self) -> Vec<Case> {
        special_elements(self)
    }

    fn timing_cases(self, sms: usize) -> Vec<Case> {
        let grids = TIMING_GRIDS_PER_SM.iter().map(|k| Some(k * sms)).chain([None]);
        let large_blocks =
            TIMING_LARGE_BLOCKS.iter().map(|&(block, per_sm)| (TIMING, block, Some(per_sm * sms)));
        self.by_contract(grids.map(|grid| (TIMING, 256, grid)).chain(large_blocks))
    }

    fn work(self, Elements { n }: Elements) -> Work {
        let flops = match self {
            Elementwise::VectorAdd => n,
            Elementwise::Saxpy => 2 * n,
            Elementwise::SiluMul => 5 * n,
        };
        Work::of(3 * 4 * n, flops)
    }

    fn random_inputs(self, Elements { n }: Elements, rng: &mut Rng) -> Inputs {
        match self {
            Elementwise::VectorAdd => {
                Inputs::plain(vec![uniform(rng, n, -4.0, 4.0), uniform(rng, n, -4.0, 4.0)])
            }
            Elementwise::Saxpy => Inputs {
                floats: vec![uniform(rng, n, -4.0, 4.0), uniform(rng, n, -4.0, 4.0)],
                halves: None,
                scalar: 0.5 + 1.5 * rng.f32(),
            },
            Elementwise::SiluMul => {
                Inputs::plain(vec![uniform(rng, n, -8.0, 8.0), uniform(rng, n, -4.0, 4.0)])
            }
        }
    }

    /// About a third of each input's elements.
    fn plant_specials(self, _: Elements, _: &Launch, inputs: &mut Inputs, rng: &mut Rng) {
        inputs.floats.iter_mut().for_each(|values| sprinkle_specials(values, rng));
    }

    fn output_len(self, Elements { n }: Elements, _: &Launch) -> usize {
        n
    }

    /// `vector_add`, `saxpy`: exact. The kernel does the same IEEE operations in the same order
    /// as the reference (an add; one fused multiply-add). `silu_mul`: relative 2e-6.
    /// `ex2.approx` is off by about 2^-22, and rounding `-g·log2 e` (|g| ≤ 8) moves the
    /// exponential by up to 2^-21·ln 2 relative; `rcp.approx` adds about 2^-23 and a few
    /// roundings follow (the H200 measured at most 6.3e-7).
    fn expected(self, _: Elements, _: &Launch, inputs: &Inputs) -> Expected {
        use kernels_reference as reference;
        let f = &inputs.floats;
        match self {
            Elementwise::VectorAdd => Expected::exact(reference::vector_add(&f[0], &f[1])),
            Elementwise::Saxpy => Expected::exact(reference::saxpy(inputs.scalar, &f[0], &f[1])),
            Elementwise::SiluMul => Expected::relative(reference::silu_mul(&f[0], &f[1]), 2e-6),
        }
    }

    fn identity(self) -> (Kernel, &'static str) {
        match self {
            Elementwise::VectorAdd => (Kernel::VectorAdd, "vector_add"),
            Elementwise::Saxpy => (Kernel::Saxpy, "saxpy"),
            Elementwise::SiluMul => (Kernel::SiluMul, "silu_mul"),
        }
    }
}
