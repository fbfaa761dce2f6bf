//! The one trait every kernel family implements ([`Family`]), the typed shapes a family takes,
//! and the type-erased view of a family (`Catalogued`) through which [`super::Kernel`]
//! reaches it.
//!
//! A family is an enum of its kernels (one variant per kernel of [`super::Kernel`]) whose
//! [`Family::Shape`] is the one kind of problem they take, so that a family pairs its kernels
//! with shapes of that kind only: a case of another kind does not compile. The erased view is
//! where a [`Shape`] made elsewhere (a test, a hand-built [`Case`]) meets a family: a shape of
//! another kind is refused there, by name.

use std::fmt;

use fastrand::Rng;

use super::{Case, Expected, Inputs, Kernel, Launch, Roofline, Shape, Values, Work};

/// `n` elements (element-wise kernels, the block reduction, the shared-memory helpers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Elements {
    pub n: usize,
}

/// A row-major `rows × cols` matrix (RMSNorm, softmax, GEMV's weights).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Matrix {
    pub rows: usize,
    pub cols: usize,
}

/// `c (m × n) = a (m × k) · b (k × n)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gemm {
    pub m: usize,
    pub n: usize,
    pub k: usize,
}

/// Whole tiles of [`kernels_reference::PIPELINE_TILE_FLOATS`] floats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tiles {
    pub tiles: usize,
}

/// `batch` activation rows of `cols` floats against one `rows × cols` weight matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Batched {
    pub batch: usize,
    pub rows: usize,
    pub cols: usize,
}

/// The reference at sampled elements of a GEMM's C: the indices into C and their [`Expected`].
pub type Sampled = Option<(Vec<usize>, Expected)>;

/// A family's kind of shape: one variant of [`Shape`], typed.
pub trait FamilyShape: Copy + fmt::Debug + Into<Shape> {
    /// `shape` as this kind, or `None` when it is another kind.
    fn of(shape: Shape) -> Option<Self>;
}

macro_rules! family_shape {
    ($typed:ident, $variant:pat => $make:expr, $from:ident => $back:expr) => {
        impl FamilyShape for $typed {
            fn of(shape: Shape) -> Option<$typed> {
                match shape {
                    $variant => Some($make),
                    _ => None,
                }
            }
        }
        impl From<$typed> for Shape {
            fn from($from: $typed) -> Shape {
                $back
            }
        }
    };
}

family_shape!(Elements, Shape::Elements(n) => Elements { n }, s => Shape::Elements(s.n));
family_shape!(Matrix, Shape::Matrix { rows, cols } => Matrix { rows, cols },
    s => Shape::Matrix { rows: s.rows, cols: s.cols });
family_shape!(Gemm, Shape::Gemm { m, n, k } => Gemm { m, n, k }, s => Shape::Gemm { m: s.m, n: s.n, k: s.k });
family_shape!(Tiles, Shape::Tiles(tiles) => Tiles { tiles }, s => Shape::Tiles(s.tiles));
family_shape!(Batched, Shape::Batched { batch, rows, cols } => Batched { batch, rows, cols },
    s => Shape::Batched { batch: s.batch, rows: s.rows, cols: s.cols });

/// A grid as a family's tables give it: a count of blocks, or so many per multiprocessor of
/// the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grid {
    Blocks(usize),
    PerSm(usize),
}

impl Grid {
    /// The blocks on a device of `sms` multiprocessors.
    pub fn blocks(self, sms: usize) -> usize {
        match self {
            Grid::Blocks(blocks) => blocks,
            Grid::PerSm(per_sm) => per_sm * sms,
        }
    }
}

/// Which bf16 GEMM entry: what it does after the product (add an f32 bias per column of C,
/// store C as bf16, rounded to nearest even, rather than f32) and its tile (`wide`: 128×256,
/// else 128×128), or `decode`: the entry for few rows of A (`gemm_bf16_decode_bf16`,
/// `mma.sync` on 16 rows of A at a time, bf16 C, no bias). All take the same operands: bf16 A
/// and B at a 16-byte row pitch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WgmmaVariant {
    pub bias: bool,
    pub bf16_output: bool,
    pub wide: bool,
    pub decode: bool,
}

/// One parameter of a kernel entry, in the entry's order: what [`crate::gpu`] passes for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Param {
    /// The device pointer to float input `i` ([`Inputs::floats`]), from the case's offset on.
    Input(usize),
    /// The device pointer to the half-precision weights ([`Inputs::halves`]), likewise.
    Halves,
    /// The device pointer to the output (an entry's bf16 C where it has one), likewise.
    Output,
    /// The case's scalar ([`Inputs::scalar`]), an `f32`.
    Scalar,
    /// A count, passed as `usize`.
    Count(usize),
    /// A count, passed as `u32`.
    Count32(usize),
    /// The wgmma GEMM's tensor maps of A and B, and its bias (device pointers).
    TensorMapA,
    TensorMapB,
    Bias,
    /// The bf16 GEMM's A and B themselves (device pointers to rows at a 16-byte pitch).
    MatrixA,
    MatrixB,
}

/// A family of kernels: their entries, the shapes their cases take (as `const` tables in each
/// family's module), their launch contract and parameters, their inputs, host reference and
/// tolerance, how they are judged, and their PyTorch peer.
pub trait Family: Copy + fmt::Debug + Send + Sync + 'static {
    /// The one kind of problem the family's kernels take.
    type Shape: FamilyShape;

    /// The kernel of the runner's list this one is, and its entry's name in the PTX (the
    /// kernels are `#[no_mangle]`).
    fn identity(self) -> (Kernel, &'static str);

    /// The kernel of the runner's list this one is.
    fn kernel(self) -> Kernel {
        self.identity().0
    }

    /// The entry's name in the PTX.
    fn entry(self) -> &'static str {
        self.identity().1
    }

    /// Every PTX entry the kernel's cases launch.
    fn entries(self) -> Vec<&'static str> {
        vec![self.entry()]
    }

    /// The PTX entry a case of `shape` launched as `launch` runs.
    fn case_entry(self, _shape: Self::Shape, _launch: &Launch) -> &'static str {
        self.entry()
    }

    /// How the kernel's time is judged, with the targets on the large shapes.
    fn roofline(self) -> Roofline;

    /// The largest ours/PyTorch time ratio the issue allows on the large shape.
    fn peer_ratio_target(self) -> Option<f64> {
        None
    }

    /// The least fraction of the peer's speed the issue asks for on the timing shape `dims`.
    fn peer_speed_target_on(self, _dims: &[usize]) -> Option<f64> {
        None
    }

    /// The target on the decode shape `dims`, as a fraction of the copy bandwidth.
    fn decode_target(self, _dims: &[usize]) -> Option<f64> {
        None
    }

    /// For the entries of the wgmma GEMM: their tile and what they do after the product.
    fn wgmma_variant(self) -> Option<WgmmaVariant> {
        None
    }

    /// The dynamic shared memory the kernel's launches may ask beyond the default 48 KiB.
    fn dynamic_shared_limit(self) -> Option<u32> {
        None
    }

    /// Whether the kernel can split its rows across the blocks of a cluster.
    fn splits_rows_across_clusters(self) -> bool {
        false
    }

    /// Whether the kernel writes its output over its last float input (no output buffer).
    fn writes_in_place(self) -> bool {
        false
    }

    /// The launch the kernel's contract asks for on `shape`, with `block` threads per block
    /// where the contract leaves it open and `grid` blocks where any grid works (`None`: one
    /// block per unit of work).
    fn launch(self, shape: Self::Shape, block: u32, grid: Option<usize>) -> Launch;

    /// The entry's parameters on `shape`, in order.
    fn params(self, shape: Self::Shape) -> Vec<Param>;

    /// The correctness cases; `sms` is the device's multiprocessor count.
    fn correctness_cases(self, sms: usize) -> Vec<Case>;

    /// The special-value cases ([`Values::Special`]).
    fn special_cases(self) -> Vec<Case>;

    /// The large shapes the kernel is timed on, and the launches tried on each.
    fn timing_cases(self, sms: usize) -> Vec<Case>;

    /// The decode shapes (few long rows) the kernel is timed on.
    fn decode_cases(self) -> Vec<Case> {
        Vec::new()
    }

    /// The cases run as a chain of two launches.
    fn chained_cases(self) -> Vec<Case> {
        Vec::new()
    }

    /// The bytes the kernel must move and the operations it must do on `shape`.
    fn work(self, shape: Self::Shape) -> Work;

    /// Random inputs for `shape`, in the kernel's argument order.
    fn random_inputs(self, shape: Self::Shape, rng: &mut Rng) -> Inputs;

    /// Plants the special values of a case of `shape` launched as `launch` into `inputs`.
    fn plant_specials(self, shape: Self::Shape, launch: &Launch, inputs: &mut Inputs, rng: &mut Rng);

    /// The number of output elements a case writes.
    fn output_len(self, shape: Self::Shape, launch: &Launch) -> usize;

    /// The reference output of a case and the tolerance it is held to.
    fn expected(self, shape: Self::Shape, launch: &Launch, inputs: &Inputs) -> Expected;

    /// For a case too large to check in full: the reference at `samples` elements.
    fn sampled_expected(
        self,
        _shape: Self::Shape,
        _inputs: &Inputs,
        _samples: usize,
        _rng: &mut Rng,
    ) -> Sampled {
        None
    }

    /// Whether PyTorch has a counterpart the peer can time and compute.
    fn has_peer(self) -> bool {
        true
    }

    /// The dimensions the peer is asked for, given a shape's [`Shape::dims`].
    fn peer_dims(self, dims: &[usize]) -> Vec<usize> {
        dims.to_vec()
    }

    /// An ordinary case of this kernel: random values, aligned buffers.
    fn case(self, shape: Self::Shape, launch: Launch) -> Case {
        Case::new(self.kernel(), shape.into(), launch)
    }

    /// A special-value case of this kernel, its buffers moved by `offset` elements.
    fn special(self, shape: Self::Shape, launch: Launch, offset: usize) -> Case {
        Case { kernel: self.kernel(), shape: shape.into(), launch, values: Values::Special, offset }
    }

    /// Ordinary cases launched by the contract, `(shape, block, grid)` each.
    fn by_contract(self, plans: impl IntoIterator<Item = (Self::Shape, u32, Option<usize>)>) -> Vec<Case> {
        plans
            .into_iter()
            .map(|(shape, block, grid)| self.case(shape, self.launch(shape, block, grid)))
            .collect()
    }

    /// Special-value cases launched by the contract, `(shape, block, grid, offset)` each.
    fn specials_by_contract(
        self,
        plans: impl IntoIterator<Item = (Self::Shape, u32, Option<usize>, usize)>,
    ) -> Vec<Case> {
        let special =
            |(shape, block, grid, offset)| self.special(shape, self.launch(shape, block, grid), offset);
        plans.into_iter().map(special).collect()
    }
}

/// A [`Family`] with its shapes erased to [`Shape`]: what [`Kernel`] dispatches to.
pub(super) trait Catalogued: Sync {
    #[cfg(test)]
    fn kernel(&self) -> Kernel;
    fn entry(&self) -> &'static str;
    fn entries(&self) -> Vec<&'static str>;
    fn case_entry(&self, shape: Shape, launch: &Launch) -> &'static str;
    fn roofline(&self) -> Roofline;
    fn peer_ratio_target(&self) -> Option<f64>;
    fn peer_speed_target_on(&self, dims: &[usize]) -> Option<f64>;
    fn decode_target(&self, dims: &[usize]) -> Option<f64>;
    fn wgmma_variant(&self) -> Option<WgmmaVariant>;
    fn dynamic_shared_limit(&self) -> Option<u32>;
    fn splits_rows_across_clusters(&self) -> bool;
    fn writes_in_place(&self) -> bool;
    fn launch(&self, shape: Shape, block: u32, grid: Option<usize>) -> Launch;
    fn params(&self, shape: Shape) -> Vec<Param>;
    fn correctness_cases(&self, sms: usize) -> Vec<Case>;
    fn special_cases(&self) -> Vec<Case>;
    fn timing_cases(&self, sms: usize) -> Vec<Case>;
    fn decode_cases(&self) -> Vec<Case>;
    fn chained_cases(&self) -> Vec<Case>;
    fn work(&self, shape: Shape) -> Work;
    fn random_inputs(&self, shape: Shape, rng: &mut Rng) -> Inputs;
    fn plant_specials(&self, case: &Case, inputs: &mut Inputs, rng: &mut Rng);
    fn output_len(&self, case: &Case) -> usize;
    fn expected(&self, case: &Case, inputs: &Inputs) -> Expected;
    fn sampled_expected(&self, case: &Case, inputs: &Inputs, samples: usize, rng: &mut Rng) -> Sampled;
    fn has_peer(&self) -> bool;
    fn peer_dims(&self, dims: &[usize]) -> Vec<usize>;
}

impl<F: Family> Catalogued for F {
    #[cfg(test)]
    fn kernel(&self) -> Kernel {
        Family::kernel(*self)
    }
    fn entry(&self) -> &'static str {
        Family::entry(*self)
    }
    fn entries(&self) -> Vec<&'static str> {
        Family::entries(*self)
    }
    fn case_entry(&self, shape: Shape, launch: &Launch) -> &'static str {
        match F::Shape::of(shape) {
            Some(shape) => Family::case_entry(*self, shape, launch),
            None => Family::entry(*self),
        }
    }
    fn roofline(&self) -> Roofline {
        Family::roofline(*self)
    }
    fn peer_ratio_target(&self) -> Option<f64> {
        Family::peer_ratio_target(*self)
    }
    fn peer_speed_target_on(&self, dims: &[usize]) -> Option<f64> {
        Family::peer_speed_target_on(*self, dims)
    }
    fn decode_target(&self, dims: &[usize]) -> Option<f64> {
        Family::decode_target(*self, dims)
    }
    fn wgmma_variant(&self) -> Option<WgmmaVariant> {
        Family::wgmma_variant(*self)
    }
    fn dynamic_shared_limit(&self) -> Option<u32> {
        Family::dynamic_shared_limit(*self)
    }
    fn splits_rows_across_clusters(&self) -> bool {
        Family::splits_rows_across_clusters(*self)
    }
    fn writes_in_place(&self) -> bool {
        Family::writes_in_place(*self)
    }
    fn launch(&self, shape: Shape, block: u32, grid: Option<usize>) -> Launch {
        Family::launch(*self, typed(*self, shape), block, grid)
    }
    fn params(&self, shape: Shape) -> Vec<Param> {
        Family::params(*self, typed(*self, shape))
    }
    fn correctness_cases(&self, sms: usize) -> Vec<Case> {
        Family::correctness_cases(*self, sms)
    }
    fn special_cases(&self) -> Vec<Case> {
        Family::special_cases(*self)
    }
    fn timing_cases(&self, sms: usize) -> Vec<Case> {
        Family::timing_cases(*self, sms)
    }
    fn decode_cases(&self) -> Vec<Case> {
        Family::decode_cases(*self)
    }
    fn chained_cases(&self) -> Vec<Case> {
        Family::chained_cases(*self)
    }
    fn work(&self, shape: Shape) -> Work {
        Family::work(*self, typed(*self, shape))
    }
    fn random_inputs(&self, shape: Shape, rng: &mut Rng) -> Inputs {
        Family::random_inputs(*self, typed(*self, shape), rng)
    }
    fn plant_specials(&self, case: &Case, inputs: &mut Inputs, rng: &mut Rng) {
        Family::plant_specials(*self, typed(*self, case.shape), &case.launch, inputs, rng)
    }
    fn output_len(&self, case: &Case) -> usize {
        Family::output_len(*self, typed(*self, case.shape), &case.launch)
    }
    fn expected(&self, case: &Case, inputs: &Inputs) -> Expected {
        Family::expected(*self, typed(*self, case.shape), &case.launch, inputs)
    }
    fn sampled_expected(&self, case: &Case, inputs: &Inputs, samples: usize, rng: &mut Rng) -> Sampled {
        Family::sampled_expected(*self, F::Shape::of(case.shape)?, inputs, samples, rng)
    }
    fn has_peer(&self) -> bool {
        Family::has_peer(*self)
    }
    fn peer_dims(&self, dims: &[usize]) -> Vec<usize> {
        Family::peer_dims(*self, dims)
    }
}

/// `shape` as `family`'s kind; a shape of another kind is a case built by hand with the wrong
/// kernel, refused by name.
fn typed<F: Family>(family: F, shape: Shape) -> F::Shape {
    F::Shape::of(shape).unwrap_or_else(|| {
        panic!("{} takes no {shape:?}: the catalogue pairs them wrongly", Family::kernel(family))
    })
}
