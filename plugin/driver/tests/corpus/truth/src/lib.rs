//! `corpus-truth`: the ground truth of the verifier corpus (`plugin/driver/tests/corpus/`).
//!
//! Data flow: [`expected`] reads `expected.toml` (the launch contract, each kernel's expected
//! verdict and hazard). [`judge`] takes the crate report of a report-mode build of the corpus
//! (`plugin::build_report`), compares every verdict with its expectation and applies the
//! ratchet of `known-misjudged.toml`; the verdict test (`plugin/driver/tests/corpus.rs`) and
//! `cargo xtask verifier-truth` print its confusion matrix. On a GPU machine the binary runs
//! every kernel ([`truth`]): each in a process of its own ([`watchdog`]), the child launching the
//! kernel through [`gpu`] (the only module that needs CUDA) and comparing its output with the
//! contract's; [`outcome`] classifies each kernel (hang, fault, wrong result, race, clean) from
//! its process records. Everything but `gpu` is tested without a GPU.

pub mod expected;
pub mod gpu;
pub mod judge;
pub mod outcome;
pub mod truth;
pub mod watchdog;

/// How an output differs from the expected one: elements that differ (a NaN poison left in
/// place differs from everything) and the first of them as (index, got, want).
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    pub differing: usize,
    pub first: Option<(usize, f32, f32)>,
}

/// Compares exactly: the contract's sums are exact in `f32`.
pub fn compare(got: &[f32], want: &[f32]) -> Difference {
    let mut differing = got.len().abs_diff(want.len());
    let mut first = None;
    for (index, (g, w)) in got.iter().zip(want).enumerate() {
        if g != w {
            differing += 1;
            first.get_or_insert((index, *g, *w));
        }
    }
    Difference { differing, first }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_poisoned_or_changed_element_differs_and_the_first_is_named() {
        let want = [1.0, 2.0, 3.0];
        assert_eq!(compare(&want, &want).differing, 0);
        let poisoned = [1.0, f32::from_bits(gpu::POISON), 4.0];
        let difference = compare(&poisoned, &want);
        assert_eq!(difference.differing, 2);
        assert_eq!(difference.first.map(|(index, _, w)| (index, w)), Some((1, 2.0)));
        assert_eq!(compare(&want[..2], &want).differing, 1);
    }
}
