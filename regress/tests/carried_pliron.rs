//! The pliron patch series, side by side: the verifier that ships (built with the patched
//! pliron) against the same verifier built with the pristine pliron 0.20.0, on the same
//! generated scopes, in one run. Both builds are products of the default backend
//! (`verifier-probe` and `verifier-probe-pristine`, see `backends.toml`); `cargo xtask test`
//! and `cargo xtask timing` pass the installed backend's folder in `KERNELS_VERIFIER_PROBES`.
//!
//! It times pliron's structural verification (`verify_operation`: what the rule `well-formed`
//! runs, `verifier-probe timing-structure`) of the `guard` family's scopes in both builds, so
//! that the patch series' effect is not diluted by the plugin's own (linear) rules. The verifier
//! the driver ships in a release build trusts the structure of the IR its own import built
//! (`plugin::verify::Structure`); every debug build, every textual-IR file and the corpus builds
//! of the test suite check it, so its cost still matters and is still held linear here.
//!
//! What it proves: the pristine build breaks the linear limit (so removing `0001` from
//! `compiler-patches/pliron/series` fails this suite, and the breach names the family and the
//! exponent), its exponent is above [`PRISTINE_TEETH`] (else the comparison has no teeth), and
//! both builds reach the same verdict, word for word, on every textual-IR fixture and on the
//! oracle-agreement corpus (`plugin::harness::random_kernel`: a fixed draw of [`CORPUS_KERNELS`] random
//! kernels, printed as textual IR and verified by each probe in one run); a difference fails
//! the suite naming the fixture or the corpus kernel (its file keeps its number).

use std::path::{Path, PathBuf};
use std::process::Command;

use pliron::printable::Printable;
use plugin::harness::generate::Family;
use plugin::harness::timing::{Samples, parse_samples};
use regress::timing::{Limit, Series, check, exponent_field, interval_field};

/// Where the installed default backend is (set by `cargo xtask test` and `cargo xtask timing`).
pub const PROBES_VAR: &str = "KERNELS_VERIFIER_PROBES";
/// The sizes the pristine build is timed at: it is quadratic, so the sweep stops early. The
/// largest is where the speed-up is read (the patched build is timed there too).
pub const PRISTINE_SIZES: [usize; 4] = [800, 1600, 3200, 6400];
/// Where the speed-up is read: the largest size both builds are timed at.
const SPEEDUP_AT: usize = PRISTINE_SIZES[PRISTINE_SIZES.len() - 1];
/// The exponent the pristine build must exceed for the comparison to have teeth.
const PRISTINE_TEETH: f64 = 1.6;
/// Kernels of the oracle-agreement corpus both builds verify: as many as
/// `plugin/tests/agreement.rs` draws.
pub const CORPUS_KERNELS: usize = 2000;

/// One build of the verifier, as a program.
pub struct Probe {
    path: PathBuf,
}

impl Probe {
    /// Times `family` at `sizes` in the probe's process; panics (naming the probe) if it fails.
    pub fn measure(&self, family: Family, sizes: &[usize], footprint: usize, runs: usize) -> Vec<Samples> {
        self.timing(&["timing", family.name()], sizes, footprint, runs)
    }

    /// Times pliron's structural verification of `guard` scopes at `sizes` in the probe's process.
    pub fn measure_structure(&self, sizes: &[usize], footprint: usize, runs: usize) -> Vec<Samples> {
        self.timing(&["timing-structure"], sizes, footprint, runs)
    }

    fn timing(&self, command_words: &[&str], sizes: &[usize], footprint: usize, runs: usize) -> Vec<Samples> {
        let what = command_words.join(" ");
        let mut command = Command::new(&self.path);
        command.args(command_words).args([footprint.to_string(), runs.to_string()]);
        command.args(sizes.iter().map(ToString::to_string));
        let output = command.output().unwrap_or_else(|e| panic!("running {}: {e}", self.path.display()));
        let stdout = String::from_utf8_lossy(&output.stdout);
        if !output.status.success() {
            panic!(
                "{} {what} failed ({}): {}",
                self.path.display(),
                output.status,
                String::from_utf8_lossy(&output.stderr)
            );
        }
        parse_samples(&stdout)
            .unwrap_or_else(|e| panic!("{} printed unreadable samples: {e}", self.path.display()))
    }

    /// `verifier-probe verify-ir FILE…`: the exit status and what it printed.
    fn verify_ir(&self, files: &[PathBuf]) -> (Option<i32>, String) {
        let output = Command::new(&self.path)
            .arg("verify-ir")
            .args(files)
            .output()
            .unwrap_or_else(|e| panic!("running {}: {e}", self.path.display()));
        (output.status.code(), String::from_utf8_lossy(&output.stdout).into_owned())
    }
}

/// The patched and the pristine build.
pub struct Probes {
    pub patched: Probe,
    pub pristine: Probe,
}

impl Probes {
    /// The probes of the installed backend named by [`PROBES_VAR`].
    pub fn from_env() -> Result<Probes, String> {
        let dir = std::env::var_os(PROBES_VAR).map(PathBuf::from).ok_or_else(|| {
            format!(
                "{PROBES_VAR} is not set: the timing regression times the verifier builds the default backend \
                 installs; run it through `just test` (or `cargo xtask timing`), or set {PROBES_VAR} to the \
                 install folder `just check-backend` prints"
            )
        })?;
        let probe = |name: &str| {
            let path = dir.join(name);
            if path.is_file() {
                Ok(Probe { path })
            } else {
                Err(format!("{} is missing: run `just build-backend default`", path.display()))
            }
        };
        Ok(Probes { patched: probe("verifier-probe")?, pristine: probe("verifier-probe-pristine")? })
    }
}

/// What the side-by-side run found.
pub struct Comparison {
    /// Structural verification of the `guard` family on the patched build.
    pub patched: Series,
    /// The same on the pristine build.
    pub pristine: Series,
    /// Pristine over patched median time at [`SPEEDUP_AT`] blocks.
    pub speedup: Option<f64>,
    /// Reasons the suite fails.
    pub failures: Vec<String>,
}

impl Comparison {
    /// The fields the `timing:` line gains.
    pub fn fields(&self) -> String {
        format!(
            "pristine_exp={} pristine_ci={} speedup_at_{SPEEDUP_AT}={}",
            exponent_field(self.pristine.exponent()),
            interval_field(self.pristine.growth().as_ref()),
            self.speedup.map_or_else(|| "nan".to_owned(), |x| format!("{x:.1}"))
        )
    }
}

/// Times structural verification on both builds, the patched one at `sizes` and the pristine one
/// at [`PRISTINE_SIZES`], and judges both with the verifier's own linear limit: the patched
/// build must stay within it, the pristine one must break it.
pub fn compare(probes: &Probes, sizes: &[usize], footprint: usize, runs: usize) -> Comparison {
    let series = crate::series;
    let patched = series("structure", probes.patched.measure_structure(sizes, footprint, runs));
    let pristine = series(
        "structure (pristine pliron, without 0001)",
        probes.pristine.measure_structure(&PRISTINE_SIZES, footprint, runs),
    );
    let mut failures = Vec::new();
    if let Some(breach) = check(&patched, Limit::AtMost(crate::LINEAR_LIMIT)) {
        failures.push(breach.to_string());
    }
    // What `just test` would say if 0001 were dropped from the series: it must fail, and the
    // breach names the family and the exponent.
    match check(&pristine, Limit::AtMost(crate::LINEAR_LIMIT)) {
        Some(breach) => println!("without 0001 this suite fails: {breach}"),
        None => failures.push(format!(
            "{}: N^{} is within the linear limit too: the pliron series is not load-bearing, or the \
             measurement cannot see it",
            pristine.name,
            exponent_field(pristine.exponent())
        )),
    }
    if let Some(breach) = check(&pristine, Limit::Above(PRISTINE_TEETH)) {
        failures.push(format!(
            "{}: N^{} is not above N^{PRISTINE_TEETH}: the comparison has no teeth (the pristine pliron no \
             longer looks super-linear to it)",
            breach.series,
            exponent_field(breach.growth.as_ref().map(|g| g.exponent))
        ));
    }
    let speedup = match (pristine.median_at(SPEEDUP_AT), patched.median_at(SPEEDUP_AT)) {
        (Some(pristine), Some(patched)) if !patched.is_zero() => {
            Some(pristine.as_secs_f64() / patched.as_secs_f64())
        }
        _ => None,
    };
    failures.extend(verdicts_differ(probes));
    failures.extend(corpus_verdicts_differ(probes));
    Comparison { patched, pristine, speedup, failures }
}

/// The textual-IR fixtures whose verdicts the two builds must share.
fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("plugin/tests/fixtures");
    let mut files: Vec<PathBuf> = ["good", "bad"]
        .iter()
        .flat_map(|kind| std::fs::read_dir(root.join(kind)).into_iter().flatten().flatten())
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "pir"))
        .collect();
    files.sort();
    files
}

/// Differences between the two builds' verdicts on the fixtures (none expected).
fn verdicts_differ(probes: &Probes) -> Vec<String> {
    let files = fixtures();
    if files.len() < 10 {
        return vec![format!("only {} textual-IR fixtures found under plugin/tests/fixtures", files.len())];
    }
    let mut failures = Vec::new();
    let mut rejected = 0;
    for file in &files {
        let patched = probes.patched.verify_ir(std::slice::from_ref(file));
        let pristine = probes.pristine.verify_ir(std::slice::from_ref(file));
        rejected += usize::from(patched.0 == Some(1));
        if patched != pristine {
            failures.push(format!(
                "{}: the patched and the pristine pliron reach different verdicts (exit {:?}: {}; exit {:?}: {})",
                file.display(),
                patched.0,
                patched.1.trim(),
                pristine.0,
                pristine.1.trim()
            ));
        }
    }
    println!(
        "verdicts: the patched and the pristine pliron agree on {} of {} fixtures ({rejected} rejected)",
        files.len() - failures.len(),
        files.len()
    );
    if rejected == 0 {
        failures.push("no fixture was rejected: the verdict comparison compared nothing".to_owned());
    }
    failures
}

/// Differences between the two builds' verdicts on the oracle-agreement corpus (none
/// expected). Each kernel is printed to its own file, `kernel-NNNN.pir` (NNNN its place in the
/// draw), and each probe verifies all of them in one process.
fn corpus_verdicts_differ(probes: &Probes) -> Vec<String> {
    let started = std::time::Instant::now();
    let dir = tempfile::tempdir().expect("a temporary folder for the corpus");
    let files: Vec<PathBuf> = plugin::harness::random_kernel::corpus(CORPUS_KERNELS)
        .iter()
        .enumerate()
        .map(|(n, kernel)| {
            let mut ctx = plugin::new_context();
            let module = plugin::harness::random_kernel::build(&mut ctx, kernel);
            let file = dir.path().join(format!("kernel-{n:04}.pir"));
            std::fs::write(&file, module.disp(&ctx).to_string())
                .unwrap_or_else(|e| panic!("writing {}: {e}", file.display()));
            file
        })
        .collect();
    let patched = probes.patched.verify_ir(&files);
    let pristine = probes.pristine.verify_ir(&files);
    let (patched_verdicts, pristine_verdicts) =
        (per_file(dir.path(), &patched.1), per_file(dir.path(), &pristine.1));
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default())
        .collect();
    let mut failures = differing_verdicts(&names, &patched_verdicts, &pristine_verdicts);
    let agreeing = files.len() - failures.len();
    // The comparison's teeth, on every run: one verdict changed must be caught, by name.
    let mut tampered = pristine_verdicts.clone();
    if let Some(verdict) = tampered.get_mut(&names[0]) {
        verdict.push_str("(changed by the self-check)\n");
    }
    let caught = differing_verdicts(&names, &patched_verdicts, &tampered);
    if !(caught.len() == failures.len() + 1 && caught.iter().any(|f| f.contains(&names[0]))) {
        failures.push(format!(
            "oracle-agreement corpus: a verdict changed on purpose in {} was not caught: the comparison \
             cannot see differences",
            names[0]
        ));
    }
    let count = |word: &str| patched_verdicts.values().filter(|v| v.contains(word)).count();
    let (verified, rejected, unverified) = (count(": verified"), count(": rejected"), count(": unverified"));
    println!(
        "verdicts: the patched and the pristine pliron agree on {} of {} oracle-agreement corpus kernels \
         ({verified} verified, {unverified} unverified, {rejected} rejected; {:.1} s)",
        agreeing,
        files.len(),
        started.elapsed().as_secs_f64()
    );
    if patched.0 != pristine.0 {
        failures.push(format!(
            "oracle-agreement corpus: the patched probe exits {:?}, the pristine one {:?}",
            patched.0, pristine.0
        ));
    }
    // Every kernel must have been read and judged (verified, unverified or rejected), and
    // both a verified and a rejected verdict must occur, or the comparison compared nothing.
    if verified + unverified + rejected != files.len() || verified == 0 || rejected == 0 {
        failures.push(format!(
            "oracle-agreement corpus: of {} kernels the patched probe verified {verified}, left \
             {unverified} unverified and rejected {rejected}: the comparison needs every kernel judged \
             and both verified and rejected verdicts present",
            files.len()
        ));
    }
    failures
}

/// The corpus kernels (file names, in draw order) whose two verdicts differ, each named with
/// its place in the draw and both verdicts.
fn differing_verdicts(
    names: &[String],
    patched: &std::collections::BTreeMap<String, String>,
    pristine: &std::collections::BTreeMap<String, String>,
) -> Vec<String> {
    let mut failures = Vec::new();
    for name in names {
        let (a, b) = (patched.get(name), pristine.get(name));
        if a != b {
            failures.push(format!(
                "oracle-agreement corpus kernel {name} (plugin::harness::random_kernel::corpus({CORPUS_KERNELS})[{}]): the \
                 patched and the pristine pliron reach different verdicts:\n{}\n{}",
                name.trim_start_matches("kernel-").trim_end_matches(".pir"),
                a.map_or("(no verdict)", String::as_str).trim(),
                b.map_or("(no verdict)", String::as_str).trim()
            ));
        }
    }
    failures
}

/// `verify-ir`'s report of many files, cut into each file's part (keyed by file name): a part
/// starts at a line that names a file of `dir`.
fn per_file(dir: &Path, report: &str) -> std::collections::BTreeMap<String, String> {
    let prefix = format!("{}/", dir.display());
    let mut parts = std::collections::BTreeMap::new();
    let mut current: Option<(String, String)> = None;
    for line in report.lines() {
        if let Some(rest) = line.strip_prefix(&prefix) {
            let name = rest.split(':').next().unwrap_or(rest).to_owned();
            parts.extend(current.take());
            current = Some((name, String::new()));
        }
        if let Some((_, text)) = current.as_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    parts.extend(current);
    parts
}
