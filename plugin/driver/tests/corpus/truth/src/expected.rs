//! `expected.toml`: the corpus's launch contract and each kernel's expected verdict and hazard.

use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;

use serde::Deserialize;
use thiserror::Error;

/// The whole file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Corpus {
    pub contract: Contract,
    #[serde(rename = "kernel")]
    pub kernels: Vec<Expectation>,
}

/// The launch contract every corpus kernel shares (see the corpus's `src/lib.rs`).
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Contract {
    pub block_threads: u32,
    pub grid_blocks: u32,
    pub tiles: u32,
    pub shared_bytes: u32,
    pub tile_floats: u32,
    pub consumers: u32,
}

/// What the verifier should say.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Expect {
    Accept,
    Reject,
}

/// What a kernel does on the GPU: the expected hazard in `expected.toml` (`none` for a correct
/// kernel), or an observed outcome.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum Hazard {
    None,
    Hang,
    Fault,
    WrongResult,
    Race,
    Clean,
}

impl Hazard {
    pub fn name(self) -> &'static str {
        match self {
            Hazard::None => "none",
            Hazard::Clean => "clean",
            other => other.outcome().name(),
        }
    }

    /// The outcome a GPU run of a kernel with this hazard should show.
    pub fn outcome(self) -> Outcome {
        match self {
            Hazard::None | Hazard::Clean => Outcome::Clean,
            Hazard::Hang => Outcome::Hang,
            Hazard::Fault => Outcome::Fault,
            Hazard::WrongResult => Outcome::WrongResult,
            Hazard::Race => Outcome::Race,
        }
    }
}

/// What one GPU run of a kernel showed, worst first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Outcome {
    Hang,
    Fault,
    WrongResult,
    Race,
    Clean,
}

impl Outcome {
    pub const ALL: [Outcome; 5] =
        [Outcome::Hang, Outcome::Fault, Outcome::WrongResult, Outcome::Race, Outcome::Clean];

    pub fn name(self) -> &'static str {
        match self {
            Outcome::Hang => "hang",
            Outcome::Fault => "fault",
            Outcome::WrongResult => "wrong-result",
            Outcome::Race => "race",
            Outcome::Clean => "clean",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One kernel's entry.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Expectation {
    pub name: String,
    pub class: String,
    pub expect: Expect,
    /// For `reject`: the rejection must name one of these rules; empty where the author names
    /// none (a blind round's kernel whose bug no rule of the model describes): any rejection.
    #[serde(default)]
    pub rules: Vec<String>,
    pub hazard: Hazard,
    pub why: String,
    /// Where the hardware changed the expected hazard: what was expected before.
    #[serde(default)]
    pub note: Option<String>,
    /// For a broken kernel whose defect is outside the model (arithmetic on values it reads in
    /// the right order, global memory indexed by the kernel: the protocol it runs is right), why,
    /// as reviewed after its measurement. A verdict proves the protocol, not the arithmetic, so
    /// every verdict is right for such a kernel; only a kernel whose author named no rule may
    /// carry it.
    #[serde(default)]
    pub outside_model: Option<String>,
}

#[derive(Debug, Error)]
pub enum CorpusError {
    #[error("cannot read {path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("{path} is not a valid corpus expectation file: {source}")]
    Parse { path: String, source: toml::de::Error },
    #[error("{path}: kernel `{kernel}` {problem}")]
    Entry { path: String, kernel: String, problem: &'static str },
}

impl Corpus {
    /// Reads and checks `expected.toml`.
    pub fn read(path: &Path) -> Result<Corpus, CorpusError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|source| CorpusError::Read { path: shown.clone(), source })?;
        Corpus::parse(&text, &shown)
    }

    /// Parses the text of an expectation file; `path` names it in errors.
    pub fn parse(text: &str, path: &str) -> Result<Corpus, CorpusError> {
        let corpus: Corpus =
            toml::from_str(text).map_err(|source| CorpusError::Parse { path: path.into(), source })?;
        let mut seen = BTreeSet::new();
        for kernel in &corpus.kernels {
            let problem = if !seen.insert(kernel.name.as_str()) {
                Some("is listed twice; keep one entry")
            } else if kernel.expect == Expect::Accept && !kernel.rules.is_empty() {
                Some("is expected to be accepted but names rules; remove `rules`")
            } else if kernel.expect == Expect::Accept && kernel.hazard != Hazard::None {
                Some("is expected to be accepted, so its hazard must be `none`")
            } else if kernel.outside_model.is_some()
                && (kernel.expect != Expect::Reject || !kernel.rules.is_empty())
            {
                Some(
                    "is marked outside the model, so it must be a broken kernel (`reject`) whose author named no \
                     rule; remove `outside_model` or the rules",
                )
            } else if kernel.expect == Expect::Reject && kernel.hazard == Hazard::None {
                Some(
                    "is expected to be rejected, so it needs a hazard (hang, fault, wrong-result, race or clean)",
                )
            } else {
                None
            };
            if let Some(problem) = problem {
                return Err(CorpusError::Entry { path: path.into(), kernel: kernel.name.clone(), problem });
            }
        }
        Ok(corpus)
    }

    pub fn kernel(&self, name: &str) -> Option<&Expectation> {
        self.kernels.iter().find(|kernel| kernel.name == name)
    }
}

impl Contract {
    /// Floats in the input: `tiles` tiles.
    pub fn input_len(&self) -> usize {
        (self.tiles * self.tile_floats) as usize
    }

    /// Floats in the output: one per consumer per block.
    pub fn output_len(&self) -> usize {
        (self.grid_blocks * self.consumers) as usize
    }

    /// The input: small integers that differ from tile to tile (a stale or foreign stage shows),
    /// so every sum is exact in `f32` whatever the order of the additions.
    pub fn input(&self) -> Vec<f32> {
        (0..self.input_len()).map(|i| (i % 8191) as f32).collect()
    }

    /// What every correct kernel writes: `out[b * consumers + c]` is the sum of elements
    /// `c, c + consumers, …` of tiles `b, b + grid_blocks, …`.
    pub fn expected_output(&self) -> Vec<f32> {
        let input = self.input();
        let mut out = vec![0.0f32; self.output_len()];
        for tile in 0..self.tiles {
            let block = tile % self.grid_blocks;
            for k in 0..self.tile_floats {
                let consumer = k % self.consumers;
                out[(block * self.consumers + consumer) as usize] +=
                    input[(tile * self.tile_floats + k) as usize];
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONTRACT: &str = "[contract]\nblock_threads = 64\ngrid_blocks = 2\ntiles = 4\nshared_bytes = 8192\n\
                            tile_floats = 4\nconsumers = 2\n";

    #[test]
    fn the_expected_output_is_the_per_consumer_sum_of_the_blocks_tiles() {
        let corpus = Corpus::parse(&format!("kernel = []\n{CONTRACT}"), "t").unwrap();
        let contract = corpus.contract;
        // Tiles 0 and 2 go to block 0; consumer 0 takes elements 0 and 2 of each.
        let input = contract.input();
        assert_eq!(contract.expected_output()[0], input[0] + input[2] + input[8] + input[10]);
        assert_eq!(contract.expected_output()[3], input[5] + input[7] + input[13] + input[15]);
        // Exact integers: the sum is the same whatever the order.
        assert_eq!(contract.expected_output().iter().sum::<f32>(), input.iter().sum::<f32>());
    }

    #[test]
    fn inconsistent_entries_are_refused_by_kernel_name() {
        let entry =
            |body: &str| format!("{CONTRACT}[[kernel]]\nname = \"k\"\nclass = \"c\"\nwhy = \"w\"\n{body}");
        assert!(Corpus::parse(&entry("expect = \"reject\"\nhazard = \"hang\"\n"), "e.toml").is_ok());
        let error = Corpus::parse(&entry("expect = \"accept\"\nhazard = \"hang\"\n"), "e.toml").unwrap_err();
        assert!(error.to_string().contains("hazard must be `none`"), "{error}");
        let error = Corpus::parse(&entry("expect = \"accept\"\nhazard = \"none\"\ncolour = 1\n"), "e.toml")
            .unwrap_err();
        assert!(error.to_string().starts_with("e.toml is not a valid"), "{error}");
        assert!(Corpus::parse(&entry("expect = \"accept\"\nhazard = \"none\"\n"), "e.toml").is_ok());
    }

    #[test]
    fn only_a_broken_kernel_with_no_rule_named_may_be_outside_the_model() {
        let entry =
            |body: &str| format!("{CONTRACT}[[kernel]]\nname = \"k\"\nclass = \"c\"\nwhy = \"w\"\n{body}");
        let outside = "outside_model = \"sums the wrong rows of the stage it waited for\"\n";
        let broken = format!("expect = \"reject\"\nhazard = \"wrong-result\"\n{outside}");
        assert!(Corpus::parse(&entry(&broken), "e.toml").is_ok());
        for refused in [
            format!("expect = \"accept\"\nhazard = \"none\"\n{outside}"),
            format!("{broken}rules = [\"consumer-order\"]\n"),
        ] {
            let error = Corpus::parse(&entry(&refused), "e.toml").unwrap_err();
            assert!(error.to_string().contains("kernel `k` is marked outside the model"), "{error}");
        }
    }

    #[test]
    fn the_committed_corpus_expectations_are_consistent() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../expected.toml");
        let corpus = Corpus::read(&path).unwrap();
        assert!(corpus.kernels.len() >= 80, "the corpus has {} kernels", corpus.kernels.len());
    }
}
