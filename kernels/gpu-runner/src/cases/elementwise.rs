//! The element-wise kernels, `vector_add`, `saxpy` and `silu_mul`: grid-stride loops over `n`
//! elements, two inputs and one output (`saxpy` writes over `y`).

use super::common::{sprinkle_specials, uniform};
use super::family::{Elements, Family, Param};
use super::{Case, Expected, Inputs, Kernel, Launch, Roofline, Work};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elementwise {
    VectorAdd,
    Saxpy,
    SiluMul,
}

/// Correctness: empty, one element, sizes around the block of 256 and a large odd size, a block
/// per 256 elements.
const CORRECTNESS: [usize; 6] = [0, 1, 255, 256, 257, 1_000_003];
/// Correctness: a grid (3 blocks of 64) smaller than the work, `(n, block, grid)`.
const CORRECTNESS_SHORT_GRID: (usize, u32, usize) = (100_000, 64, 3);
/// Special values `(n, offset)`, blocks of 128: offset 1 misaligns every pointer.
const SPECIAL: [(usize, usize); 3] = [(1, 0), (1000, 0), (1001, 1)];
/// The timing shape: 2^26 floats, 256 MiB per array.
const TIMING: usize = 1 << 26;
/// Timing grids of 256-thread blocks, per multiprocessor (then a block per 256 elements).
const TIMING_GRIDS_PER_SM: [usize; 3] = [4, 8, 16];
/// Fewer, larger blocks: the same threads per multiprocessor, `(block, blocks per SM)`.
const TIMING_LARGE_BLOCKS: [(u32, usize); 3] = [(512, 2), (1024, 1), (1024, 2)];

impl Family for Elementwise {
    type Shape = Elements;

    fn kernel(self) -> Kernel {
        match self {
            Elementwise::VectorAdd => Kernel::VectorAdd,
            Elementwise::Saxpy => Kernel::Saxpy,
            Elementwise::SiluMul => Kernel::SiluMul,
        }
    }

    fn entry(self) -> &'static str {
        match self {
            Elementwise::VectorAdd => "vector_add",
            Elementwise::Saxpy => "saxpy",
            Elementwise::SiluMul => "silu_mul",
        }
    }

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
        let mut cases = Vec::new();
        for n in CORRECTNESS {
            let shape = Elements { n };
            cases.push(self.case(shape, self.launch(shape, 256, None)));
        }
        let (n, block, grid) = CORRECTNESS_SHORT_GRID;
        let shape = Elements { n };
        cases.push(self.case(shape, self.launch(shape, block, Some(grid))));
        cases
    }

    fn special_cases(self) -> Vec<Case> {
        let mut cases = Vec::new();
        for (n, offset) in SPECIAL {
            let shape = Elements { n };
            cases.push(self.special(shape, self.launch(shape, 128, None), offset));
        }
        cases
    }

    fn timing_cases(self, sms: usize) -> Vec<Case> {
        let mut cases = Vec::new();
        let shape = Elements { n: TIMING };
        for grid in TIMING_GRIDS_PER_SM.iter().map(|k| Some(k * sms)).chain([None]) {
            cases.push(self.case(shape, self.launch(shape, 256, grid)));
        }
        for (block, per_sm) in TIMING_LARGE_BLOCKS {
            cases.push(self.case(shape, self.launch(shape, block, Some(per_sm * sms))));
        }
        cases
    }

    fn work(self, Elements { n }: Elements) -> Work {
        let flops = match self {
            Elementwise::VectorAdd => n,
            Elementwise::Saxpy => 2 * n,
            Elementwise::SiluMul => 5 * n,
        };
        Work::of(3 * 4 * n, flops)
    }

    fn random_inputs(self, Elements { n }: Elements, rng: &mut fastrand::Rng) -> Inputs {
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

    fn plant_specials(self, _: Elements, _: &Launch, inputs: &mut Inputs, rng: &mut fastrand::Rng) {
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
}
