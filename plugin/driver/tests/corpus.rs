//! The verifier corpus's verdicts: every kernel of `tests/corpus/` against its expected verdict.
//!
//! Data flow: one cargo run builds the corpus crate through this build's `kernels-rustc` in
//! report mode (`KERNELS_VERIFY_MODE=report`: rejections go into the crate report and the crate
//! still compiles to PTX); `corpus_truth::judge` compares each kernel scope's verdict with
//! `tests/corpus/expected.toml` and prints the confusion matrix (expected × verdict). The
//! verifier is not yet right on every kernel, so `tests/corpus/known-misjudged.toml` lists the
//! kernels it currently misjudges, each with why; the test fails on a misjudgment that is not
//! listed and on a listed kernel that is now judged right, so the list only shrinks.
//!
//! The blind rounds (`tests/blind/round-N/`: crates of the same contract written by people who
//! had seen only `plugin/MODEL.md` and the device API) are held the same way, each with its own
//! `known-misjudged.toml`, so a fix measured on a round stays fixed. The crates share one
//! package name and one target folder, so their builds take turns.
//!
//! The last test runs the same comparison on synthetic reports of the committed corpus, to
//! show the ratchet fires both ways.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use corpus_truth::expected::{Corpus, Expect};
use corpus_truth::judge::{KnownMisjudged, Misjudgment, Ratchet, Verdict, confusion_matrix, judge};
use libtest_mimic::{Arguments, Failed, Trial};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

/// The blind rounds held by the ratchet.
const BLIND_ROUNDS: [&str; 50] = [
    "round-3", "round-4", "round-5", "round-6", "round-7", "round-8", "round-9", "round-10", "round-11",
    "round-12", "round-13", "round-14", "round-15", "round-16", "round-17", "round-18", "round-19",
    "round-20", "round-21", "round-22", "round-23", "round-24", "round-25", "round-26", "round-27",
    "round-28", "round-29", "round-30", "round-31", "round-32", "round-33", "round-34", "round-35",
    "round-36", "round-37", "round-38", "round-39", "round-40", "round-41", "round-42", "round-43",
    "round-44", "round-45", "round-46", "round-47", "round-48", "round-49", "round-50", "round-51",
    "round-52",
];

fn blind_dir(round: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/blind").join(round)
}

/// One build at a time in the shared target folder (the crates share a package name).
static BUILDS: Mutex<()> = Mutex::new(());

fn read_expectations(dir: &Path) -> Result<(Corpus, KnownMisjudged), Failed> {
    let corpus = Corpus::read(&dir.join("expected.toml")).map_err(|error| error.to_string())?;
    let known = KnownMisjudged::read(&dir.join("known-misjudged.toml")).map_err(|error| error.to_string())?;
    Ok((corpus, known))
}

/// Cargo in the crate at `dir` with this build's driver as the workspace wrapper.
fn corpus_cargo(dir: &Path) -> Command {
    let mut command = xtask::kernels::kernels_cargo(dir);
    command.env_remove("RUSTC_WRAPPER");
    let sysroot = Command::new("rustc").args(["--print", "sysroot"]).output().expect("rustc runs");
    let sysroot = String::from_utf8(sysroot.stdout).expect("a UTF-8 sysroot");
    command
        .env("RUSTC_WORKSPACE_WRAPPER", env!("CARGO_BIN_EXE_kernels-rustc"))
        .env("LD_LIBRARY_PATH", Path::new(sysroot.trim()).join("lib"));
    command
}

fn check_verdicts(dir: &Path) -> Result<(), Failed> {
    let (corpus, known) = read_expectations(dir)?;
    // The compile-fail test's target folder: the build-std `core` (same target settings) is
    // built once for all.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("driver-fixtures");
    let built = {
        let _turn = BUILDS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        xtask::verifier_truth::build_corpus(|| corpus_cargo(dir), &target)
            .map_err(|error| format!("{error:#}"))?
    };
    let (judgements, unexpected) = judge(&corpus, &corpus_truth::judge::verdicts(&built.report));
    eprintln!(
        "{}: {} kernels ({} correct, {} broken), built through the driver in report mode in {:.1} s",
        dir.display(),
        corpus.kernels.len(),
        corpus.kernels.iter().filter(|kernel| kernel.expect == Expect::Accept).count(),
        corpus.kernels.iter().filter(|kernel| kernel.expect == Expect::Reject).count(),
        built.seconds
    );
    eprint!("{}", confusion_matrix(&judgements));
    let ratchet = Ratchet::of(&judgements, unexpected, &known);
    if !ratchet.holds() {
        return Err(format!("the verdicts of {} moved:\n{}", dir.display(), ratchet.explain()).into());
    }
    Ok(())
}

/// The committed expectations, judged on synthetic reports: a verifier that is right on every
/// kernel must empty the known list, and one new misjudgment must fail.
fn check_ratchet_fires() -> Result<(), Failed> {
    let (corpus, known) = read_expectations(&corpus_dir())?;
    let perfect: BTreeMap<String, Verdict> = corpus
        .kernels
        .iter()
        .map(|kernel| {
            let verdict = match kernel.expect {
                Expect::Accept => Verdict::Accepted,
                Expect::Reject => Verdict::Rejected(vec![kernel.rules[0].clone()]),
            };
            (kernel.name.clone(), verdict)
        })
        .collect();
    let (judgements, unexpected) = judge(&corpus, &perfect);
    let ratchet = Ratchet::of(&judgements, unexpected, &known);
    let listed: Vec<String> = known.kernels.iter().map(|entry| entry.name.clone()).collect();
    // The list's order is the order entries were added in, not the corpus's.
    let mut cleared = ratchet.now_right.clone();
    cleared.sort();
    let mut listed_sorted = listed.clone();
    listed_sorted.sort();
    if cleared != listed_sorted || !ratchet.new_misjudgments.is_empty() {
        return Err(format!("a perfect verifier should clear exactly the known list: {ratchet:?}").into());
    }
    // One correct kernel rejected, one broken kernel accepted, neither listed: both are named.
    let unlisted = |expect: Expect| {
        corpus
            .kernels
            .iter()
            .find(|kernel| kernel.expect == expect && !listed.contains(&kernel.name))
            .map(|kernel| kernel.name.clone())
    };
    let mut regressed = perfect.clone();
    let mut expected = Vec::new();
    if let Some(name) = unlisted(Expect::Accept) {
        regressed.insert(name.clone(), Verdict::Rejected(vec!["consumer-order".into()]));
        expected.push((name, Misjudgment::RejectedCorrect));
    }
    if let Some(name) = unlisted(Expect::Reject) {
        regressed.insert(name.clone(), Verdict::Accepted);
        expected.push((name, Misjudgment::AcceptedBroken));
    }
    let (judgements, unexpected) = judge(&corpus, &regressed);
    let mut found = Ratchet::of(&judgements, unexpected, &KnownMisjudged::default()).new_misjudgments;
    expected.sort();
    found.sort();
    if expected.is_empty() || found != expected {
        return Err(format!("the ratchet should name {expected:?}, named {found:?}").into());
    }
    Ok(())
}

fn main() {
    let arguments = Arguments::from_args();
    let mut trials = vec![
        Trial::test(
            "corpus::verdicts_match_expectations_or_the_known_list",
            || check_verdicts(&corpus_dir()),
        ),
        Trial::test("corpus::ratchet_fires_on_synthetic_reports", check_ratchet_fires),
    ];
    for round in BLIND_ROUNDS {
        trials.push(Trial::test(
            format!("blind::{round}::verdicts_match_expectations_or_the_known_list"),
            move || check_verdicts(&blind_dir(round)),
        ));
    }
    libtest_mimic::run(&arguments, trials).exit();
}
