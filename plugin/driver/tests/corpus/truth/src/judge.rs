//! The verifier's verdicts on the corpus against `expected.toml`, and the ratchet of known
//! misjudgments (`known-misjudged.toml`), which may only shrink.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use plugin::build_report::{CrateReport, Verdict as ScopeVerdict};
use serde::Deserialize;
use thiserror::Error;

use crate::expected::{Corpus, Expect};

/// The verifier's verdict on one kernel, from the crate report of a report-mode build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Accepted,
    /// Rejected, naming these rules (deduplicated, sorted).
    Rejected(Vec<String>),
    /// No rule rejected it, but parts are outside the model: these gap kinds (deduplicated,
    /// sorted). Not accepted: the kernels build refuses it unless the kernel opts out.
    Unverified(Vec<String>),
}

impl Verdict {
    pub fn accepted(&self) -> bool {
        matches!(self, Verdict::Accepted)
    }

    /// The verdict as the tables print it.
    pub fn name(&self) -> String {
        match self {
            Verdict::Accepted => "accepted".to_string(),
            Verdict::Rejected(rules) => format!("rejected: {}", rules.join(",")),
            Verdict::Unverified(kinds) => format!("unverified: {}", kinds.join(",")),
        }
    }
}

/// Every kernel scope's verdict in a crate report (verified and skipped scopes are accepted).
pub fn verdicts(report: &CrateReport) -> BTreeMap<String, Verdict> {
    report
        .scopes
        .iter()
        .map(|scope| {
            let names = |findings: &[plugin::build_report::Finding]| -> Vec<String> {
                let names: BTreeSet<String> = findings.iter().map(|finding| finding.rule.clone()).collect();
                names.into_iter().collect()
            };
            let verdict = match scope.verdict {
                ScopeVerdict::Verified | ScopeVerdict::Skipped => Verdict::Accepted,
                ScopeVerdict::Rejected => Verdict::Rejected(names(&scope.findings)),
                ScopeVerdict::Unverified | ScopeVerdict::OptedOut => Verdict::Unverified(names(&scope.gaps)),
            };
            (scope.kernel.clone(), verdict)
        })
        .collect()
}

/// How a verdict differs from its expectation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Misjudgment {
    /// A broken kernel was accepted (a false negative: the worst kind).
    AcceptedBroken,
    /// A correct kernel was rejected (a false positive).
    RejectedCorrect,
    /// A broken kernel was rejected, but for none of the expected rules.
    WrongRule,
    /// The build reported no verdict for the kernel.
    NoVerdict,
    /// A correct kernel was left unverified (the build refuses it unless it opts out).
    UnverifiedCorrect,
    /// A broken kernel was left unverified: refused by the build, but for no rule.
    UnverifiedBroken,
}

impl Misjudgment {
    pub fn name(self) -> &'static str {
        match self {
            Misjudgment::AcceptedBroken => "broken kernel accepted",
            Misjudgment::RejectedCorrect => "correct kernel rejected",
            Misjudgment::WrongRule => "rejected for another rule",
            Misjudgment::NoVerdict => "no verdict in the report",
            Misjudgment::UnverifiedCorrect => "correct kernel unverified",
            Misjudgment::UnverifiedBroken => "broken kernel unverified (refused, but by no rule)",
        }
    }
}

/// One kernel: its expectation, its verdict, and how they differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    pub kernel: String,
    pub expect: Expect,
    pub expected_rules: Vec<String>,
    pub verdict: Option<Verdict>,
    pub misjudgment: Option<Misjudgment>,
}

/// Judges every expected kernel; kernels in the report that `expected.toml` lacks are returned
/// apart (a kernel without an expectation is an error of the corpus, not of the verifier).
pub fn judge(corpus: &Corpus, verdicts: &BTreeMap<String, Verdict>) -> (Vec<Judgement>, Vec<String>) {
    let judgements = corpus
        .kernels
        .iter()
        .map(|expectation| {
            let verdict = verdicts.get(&expectation.name).cloned();
            let misjudgment = match (&verdict, expectation.expect) {
                (None, _) => Some(Misjudgment::NoVerdict),
                // Its defect is outside what a verdict claims: any verdict is right.
                (Some(_), _) if expectation.outside_model.is_some() => None,
                (Some(Verdict::Accepted), Expect::Accept) => None,
                (Some(Verdict::Accepted), Expect::Reject) => Some(Misjudgment::AcceptedBroken),
                (Some(Verdict::Rejected(_)), Expect::Accept) => Some(Misjudgment::RejectedCorrect),
                (Some(Verdict::Unverified(_)), Expect::Accept) => Some(Misjudgment::UnverifiedCorrect),
                (Some(Verdict::Unverified(_)), Expect::Reject) => Some(Misjudgment::UnverifiedBroken),
                (Some(Verdict::Rejected(rules)), Expect::Reject) => {
                    if expectation.rules.is_empty()
                        || rules.iter().any(|rule| expectation.rules.contains(rule))
                    {
                        None
                    } else {
                        Some(Misjudgment::WrongRule)
                    }
                }
            };
            Judgement {
                kernel: expectation.name.clone(),
                expect: expectation.expect,
                expected_rules: expectation.rules.clone(),
                verdict,
                misjudgment,
            }
        })
        .collect();
    let unexpected = verdicts.keys().filter(|name| corpus.kernel(name).is_none()).cloned().collect();
    (judgements, unexpected)
}

/// `known-misjudged.toml`: the kernels today's verifier is known to get wrong, each with why.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownMisjudged {
    #[serde(default, rename = "kernel")]
    pub kernels: Vec<KnownEntry>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownEntry {
    pub name: String,
    pub why: String,
}

#[derive(Debug, Error)]
pub enum KnownError {
    #[error("cannot read {path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("{path} is not a valid known-misjudged list: {source}")]
    Parse { path: String, source: toml::de::Error },
}

impl KnownMisjudged {
    pub fn read(path: &Path) -> Result<KnownMisjudged, KnownError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|source| KnownError::Read { path: shown.clone(), source })?;
        toml::from_str(&text).map_err(|source| KnownError::Parse { path: shown, source })
    }

    fn names(&self) -> BTreeSet<&str> {
        self.kernels.iter().map(|entry| entry.name.as_str()).collect()
    }

    /// Whether `kernel` is listed as a correct kernel left unverified (its `why` starts with
    /// the verdict, as the list is written).
    fn listed_unverified(&self, kernel: &str) -> bool {
        self.kernels.iter().any(|entry| entry.name == kernel && entry.why.starts_with("unverified"))
    }
}

/// The ratchet's findings: each list must be empty for the verdict test to pass.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Ratchet {
    /// Misjudged, and not in the known list: a regression (or a new kernel to list).
    pub new_misjudgments: Vec<(String, Misjudgment)>,
    /// In the known list, but now judged right: remove them from the list.
    pub now_right: Vec<String>,
    /// In the known list, but not a corpus kernel.
    pub unknown: Vec<String>,
    /// Kernels of the build that `expected.toml` does not list.
    pub unexpected: Vec<String>,
}

impl Ratchet {
    pub fn of(judgements: &[Judgement], unexpected: Vec<String>, known: &KnownMisjudged) -> Ratchet {
        let listed = known.names();
        let mut ratchet = Ratchet { unexpected, ..Ratchet::default() };
        for judgement in judgements {
            match (judgement.misjudgment, listed.contains(judgement.kernel.as_str())) {
                // A broken kernel accepted is never tolerated, listed or not: a listed kernel
                // that was refused and is now accepted is the regression the list must not hide.
                (Some(misjudgment @ Misjudgment::AcceptedBroken), _) | (Some(misjudgment), false) => {
                    ratchet.new_misjudgments.push((judgement.kernel.clone(), misjudgment))
                }
                // A correct kernel listed as unverified and rejected now: a new false alarm.
                (Some(misjudgment @ Misjudgment::RejectedCorrect), true)
                    if known.listed_unverified(&judgement.kernel) =>
                {
                    ratchet.new_misjudgments.push((judgement.kernel.clone(), misjudgment))
                }
                (None, true) => ratchet.now_right.push(judgement.kernel.clone()),
                _ => {}
            }
        }
        let corpus: BTreeSet<&str> = judgements.iter().map(|judgement| judgement.kernel.as_str()).collect();
        ratchet.unknown =
            listed.iter().filter(|name| !corpus.contains(*name)).map(|name| name.to_string()).collect();
        ratchet
    }

    pub fn holds(&self) -> bool {
        self.new_misjudgments.is_empty()
            && self.now_right.is_empty()
            && self.unknown.is_empty()
            && self.unexpected.is_empty()
    }

    /// What to fix, one line per kernel, naming the file to edit.
    pub fn explain(&self) -> String {
        let mut text = String::new();
        for (kernel, misjudgment) in &self.new_misjudgments {
            let advice = match misjudgment {
                Misjudgment::AcceptedBroken => "never tolerated, listed or not: fix the verifier",
                Misjudgment::RejectedCorrect => {
                    "not in known-misjudged.toml, or listed as unverified: a new false alarm; fix the verifier"
                }
                _ => "not in known-misjudged.toml: fix the verifier, or list it with why",
            };
            let _ = writeln!(text, "{kernel}: {} ({advice})", misjudgment.name());
        }
        for kernel in &self.now_right {
            let _ = writeln!(text, "{kernel}: now judged right; remove it from known-misjudged.toml");
        }
        for kernel in &self.unknown {
            let _ = writeln!(text, "{kernel}: listed in known-misjudged.toml but not in expected.toml");
        }
        for kernel in &self.unexpected {
            let _ = writeln!(text, "{kernel}: a corpus kernel without an entry in expected.toml; add one");
        }
        text
    }
}

/// The confusion matrix, expected × verdict, as a text table, and the broken kernels rejected
/// for none of their expected rules.
pub fn confusion_matrix(judgements: &[Judgement]) -> String {
    let mut counts = [[0usize; 4]; 2];
    for judgement in judgements {
        let row = if judgement.expect == Expect::Accept { 0 } else { 1 };
        let column = match &judgement.verdict {
            Some(Verdict::Accepted) => 0,
            Some(Verdict::Rejected(_)) => 1,
            Some(Verdict::Unverified(_)) => 2,
            None => 3,
        };
        counts[row][column] += 1;
    }
    let mut text = format!(
        "{:<20} {:>10} {:>10} {:>10} {:>10}\n",
        "expected \\ verdict", "accepted", "rejected", "unverified", "none"
    );
    for (row, name) in ["correct (accept)", "broken (reject)"].iter().enumerate() {
        let [accepted, rejected, unverified, none] = counts[row];
        let _ = writeln!(text, "{name:<20} {accepted:>10} {rejected:>10} {unverified:>10} {none:>10}");
    }
    let wrong_rule =
        judgements.iter().filter(|judgement| judgement.misjudgment == Some(Misjudgment::WrongRule)).count();
    let _ = writeln!(text, "broken kernels rejected for another rule than expected: {wrong_rule}");
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use plugin::build_report::{Finding, ScopeReport};

    fn corpus() -> Corpus {
        Corpus::parse(
            r#"
[contract]
block_threads = 64
grid_blocks = 8
tiles = 64
shared_bytes = 8192
tile_floats = 256
consumers = 32

[[kernel]]
name = "good"
class = "c"
expect = "accept"
hazard = "none"
why = "w"

[[kernel]]
name = "broken"
class = "c"
expect = "reject"
rules = ["consumer-order"]
hazard = "hang"
why = "w"

[[kernel]]
name = "broken_other"
class = "c"
expect = "reject"
rules = ["producer-order"]
hazard = "hang"
why = "w"
"#,
            "synthetic",
        )
        .unwrap()
    }

    fn scope(kernel: &str, rules: &[&str]) -> ScopeReport {
        ScopeReport {
            kernel: kernel.into(),
            functions: 1,
            blocks: 1,
            operations: 1,
            opaque_operations: 0,
            verdict: if rules.is_empty() { ScopeVerdict::Verified } else { ScopeVerdict::Rejected },
            adaptations: 0,
            rejections: rules.len(),
            findings: rules
                .iter()
                .map(|rule| Finding {
                    rule: rule.to_string(),
                    message: String::new(),
                    file: "src/lib.rs".into(),
                    line: 1,
                })
                .collect(),
            import_seconds: 0.0,
            verify_seconds: 0.0,
            gaps: Vec::new(),
            opt_out: None,
        }
    }

    fn report(scopes: Vec<ScopeReport>) -> CrateReport {
        let mut report = CrateReport::new("verifier_corpus".into());
        for scope in scopes {
            report.push(scope);
        }
        report
    }

    fn known(names: &[&str]) -> KnownMisjudged {
        KnownMisjudged {
            kernels: names
                .iter()
                .map(|name| KnownEntry { name: name.to_string(), why: "w".into() })
                .collect(),
        }
    }

    #[test]
    fn a_broken_kernel_outside_the_model_is_right_whatever_its_verdict() {
        let mut corpus = corpus();
        corpus.kernels[1].outside_model = Some("stores its sums one column block off".into());
        for scopes in [vec![scope("broken", &[])], vec![scope("broken", &["consumer-order"])]] {
            let (judgements, _) = judge(&corpus, &verdicts(&report(scopes)));
            let broken = judgements.iter().find(|judgement| judgement.kernel == "broken").unwrap();
            assert_eq!(broken.misjudgment, None);
        }
        // Without the mark the same acceptance is the worst misjudgment.
        let (judgements, _) = judge(&self::corpus(), &verdicts(&report(vec![scope("broken", &[])])));
        let broken = judgements.iter().find(|judgement| judgement.kernel == "broken").unwrap();
        assert_eq!(broken.misjudgment, Some(Misjudgment::AcceptedBroken));
    }

    #[test]
    fn every_kind_of_misjudgment_is_found() {
        let report = report(vec![
            scope("good", &["well-formed"]),
            scope("broken", &[]),
            scope("broken_other", &["consumer-order"]),
        ]);
        let (judgements, unexpected) = judge(&corpus(), &verdicts(&report));
        let kinds: Vec<Option<Misjudgment>> =
            judgements.iter().map(|judgement| judgement.misjudgment).collect();
        assert_eq!(
            kinds,
            [
                Some(Misjudgment::RejectedCorrect),
                Some(Misjudgment::AcceptedBroken),
                Some(Misjudgment::WrongRule)
            ]
        );
        assert!(unexpected.is_empty());
        let (judgements, _) = judge(&corpus(), &verdicts(&self::report(vec![])));
        assert!(judgements.iter().all(|judgement| judgement.misjudgment == Some(Misjudgment::NoVerdict)));
    }

    #[test]
    fn the_ratchet_fails_on_new_misjudgments_on_listed_kernels_now_right_and_on_worse_verdicts() {
        let right = report(vec![
            scope("good", &[]),
            scope("broken", &["consumer-order"]),
            scope("broken_other", &["producer-order"]),
        ]);
        let (judgements, unexpected) = judge(&corpus(), &verdicts(&right));
        assert!(Ratchet::of(&judgements, unexpected.clone(), &known(&[])).holds());
        // A listed kernel that is now judged right must leave the list.
        let stale = Ratchet::of(&judgements, unexpected, &known(&["broken"]));
        assert_eq!(stale.now_right, ["broken"]);
        assert!(!stale.holds());
        assert!(stale.explain().contains("broken: now judged right; remove it"));

        let wrong = report(vec![
            scope("good", &[]),
            scope("broken", &[]),
            scope("broken_other", &["producer-order"]),
        ]);
        let (judgements, unexpected) = judge(&corpus(), &verdicts(&wrong));
        let fresh = Ratchet::of(&judgements, unexpected.clone(), &known(&[]));
        assert_eq!(fresh.new_misjudgments, [("broken".to_string(), Misjudgment::AcceptedBroken)]);
        assert!(!fresh.holds());
        // Not even listed with a reason is a broken kernel accepted: a listed kernel that was
        // refused before and passes now is the worst regression.
        let listed = Ratchet::of(&judgements, unexpected.clone(), &known(&["broken"]));
        assert_eq!(listed.new_misjudgments, [("broken".to_string(), Misjudgment::AcceptedBroken)]);
        assert!(listed.explain().contains("broken: broken kernel accepted (never tolerated"));

        // A correct kernel listed as unverified and now rejected is a new false alarm; listed
        // as rejected, it is tolerated.
        let rejected = report(vec![
            scope("good", &["consumer-order"]),
            scope("broken", &["consumer-order"]),
            scope("broken_other", &["producer-order"]),
        ]);
        let (judgements, unexpected) = judge(&corpus(), &verdicts(&rejected));
        let listed_unverified = KnownMisjudged {
            kernels: vec![KnownEntry { name: "good".into(), why: "unverified: gaps".into() }],
        };
        let alarm = Ratchet::of(&judgements, unexpected.clone(), &listed_unverified);
        assert_eq!(alarm.new_misjudgments, [("good".to_string(), Misjudgment::RejectedCorrect)]);
        assert!(alarm.explain().contains("a new false alarm"));
        assert!(Ratchet::of(&judgements, unexpected, &known(&["good"])).holds());

        // Any other misjudgment, listed with a reason, is tolerated.
        let unverified = report(vec![
            scope("good", &[]),
            scope("broken", &["consumer-order"]),
            scope("broken_other", &["consumer-order"]),
        ]);
        let (judgements, unexpected) = judge(&corpus(), &verdicts(&unverified));
        assert!(!Ratchet::of(&judgements, unexpected.clone(), &known(&[])).holds());
        assert!(Ratchet::of(&judgements, unexpected, &known(&["broken_other"])).holds());
    }

    #[test]
    fn a_kernel_without_expectation_or_a_listed_stranger_fails_the_ratchet() {
        let extra = report(vec![
            scope("good", &[]),
            scope("broken", &["consumer-order"]),
            scope("broken_other", &["producer-order"]),
            scope("newcomer", &[]),
        ]);
        let (judgements, unexpected) = judge(&corpus(), &verdicts(&extra));
        let ratchet = Ratchet::of(&judgements, unexpected, &known(&["ghost"]));
        assert_eq!(ratchet.unexpected, ["newcomer"]);
        assert_eq!(ratchet.unknown, ["ghost"]);
        assert!(!ratchet.holds());
    }

    #[test]
    fn the_confusion_matrix_counts_expected_against_verdict() {
        let report = report(vec![
            scope("good", &[]),
            scope("broken", &[]),
            scope("broken_other", &["consumer-order"]),
        ]);
        let (judgements, _) = judge(&corpus(), &verdicts(&report));
        let table = confusion_matrix(&judgements);
        let rows: Vec<Vec<&str>> =
            table.lines().skip(1).map(|line| line.split_whitespace().collect()).collect();
        // Correct: 1 accepted; broken: 1 accepted, 1 rejected (for another rule).
        assert_eq!(rows[0][2..], ["1", "0", "0", "0"]);
        assert_eq!(rows[1][2..], ["1", "1", "0", "0"]);
        assert!(table.ends_with("rejected for another rule than expected: 1\n"), "{table}");
    }
}
