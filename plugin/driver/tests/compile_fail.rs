//! The driver on real Rust kernel sources: compile-fail fixtures, PTX unchanged by the driver,
//! and the project's own kernels verified.
//!
//! Data flow: the fixture workspace (small kernel crates that include the real device API) is
//! generated from `tests/fixtures/` into cargo's test scratch folder: one template kernel plus a
//! mutation per fixture, and a few whole sources (`compile_fail/generate.rs` says how). One cargo
//! run builds every crate of it through `kernels-rustc`, with
//! `--message-format=json`, so `core` is built once and each crate's rustc errors come back
//! with file and line. A crate whose source marks a line `//~ ERROR <rule>` must fail with an
//! error at each marked line naming its rule; any further error must also be the kernel
//! verifier's (a broken story often breaks it at more than one operation: an advance before
//! expect-tx also makes the next acquire and expect-tx out of order), never another compile
//! error. A crate without markers must build, and its PTX must equal (up to crate hashes in
//! mangled names) the PTX of a build of the same crate without the driver. Then the kernels
//! workspace itself is built through the driver and its verifier report read back through
//! `xtask::verify_report`: every kernel verified, skipped or opted out with a stated reason, and
//! both shared-memory helper kernels judged with an accepted adaptation.
//!
//! All builds share one target folder under cargo's test scratch folder (`CARGO_TARGET_TMPDIR`).
//! A mutation that does not apply stops the test before any build, naming its file; a trial
//! checks that it does.

#[path = "compile_fail/generate.rs"]
mod generate;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value;

/// Where the fixture workspace is generated.
fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("driver-fixture-crates")
}

fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("driver-fixtures")
}

/// An error the test expects: `//~ ERROR <rule>` on a line of a fixture's source.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Expected {
    file: String,
    line: usize,
    rule: String,
}

/// A fixture crate: its package name and expected errors.
#[derive(Debug, Clone)]
struct Fixture {
    package: String,
    expected: Vec<Expected>,
}

impl Fixture {
    /// A generated fixture crate, with the markers of its `src/lib.rs`.
    fn of(generated: &generate::Generated) -> Fixture {
        let package = generated.package.clone();
        let expected = generated
            .source
            .lines()
            .enumerate()
            .filter_map(|(index, line)| {
                let (_, rule) = line.split_once("//~ ERROR ")?;
                Some(Expected {
                    file: format!("{package}/src/lib.rs"),
                    line: index + 1,
                    rule: rule.trim().into(),
                })
            })
            .collect();
        Fixture { package, expected }
    }

    fn must_build(&self) -> bool {
        self.expected.is_empty()
    }

    /// The crate's PTX in a target folder (`<crate name>.ptx`).
    fn ptx_in(&self, target_dir: &Path) -> PathBuf {
        target_dir.join("nvptx64-nvidia-cuda/release").join(format!("{}.ptx", self.package.replace('-', "_")))
    }
}

/// What the shared builds found, per package.
#[derive(Debug, Default)]
struct Outcome {
    /// rustc errors per package: (file relative to the fixture folder, line, message with notes).
    errors: BTreeMap<String, Vec<(String, usize, String)>>,
    /// Packages cargo reported as built.
    built: Vec<String>,
    /// For each crate that must build: the normalised PTX through the driver and without it.
    ptx: BTreeMap<String, (String, String)>,
    /// Anything that kept the builds from running at all.
    setup_error: Option<String>,
}

/// Cargo in the fixture workspace with the kernels' toolchain settings, and no compiler wrapper
/// from the environment.
fn fixture_cargo(dir: &Path) -> Command {
    let mut command = xtask::kernels::kernels_cargo(dir);
    command.env_remove("RUSTC_WRAPPER").env_remove("RUSTC_WORKSPACE_WRAPPER");
    command
}

/// `command` with `kernels-rustc` as the workspace wrapper; it needs the toolchain's `lib/`.
fn through_driver(command: &mut Command) -> &mut Command {
    let sysroot = Command::new("rustc").args(["--print", "sysroot"]).output().expect("rustc runs");
    let sysroot = String::from_utf8(sysroot.stdout).expect("a UTF-8 sysroot");
    command
        .env("RUSTC_WORKSPACE_WRAPPER", env!("CARGO_BIN_EXE_kernels-rustc"))
        .env("LD_LIBRARY_PATH", Path::new(sysroot.trim()).join("lib"))
}

/// The fixtures of the generated workspace, set once by `main`.
static FIXTURES: OnceLock<Vec<Fixture>> = OnceLock::new();

fn outcome() -> &'static Outcome {
    static OUTCOME: OnceLock<Outcome> = OnceLock::new();
    OUTCOME.get_or_init(|| {
        let fixtures = FIXTURES.get().map(Vec::as_slice).unwrap_or_default();
        build_fixtures(fixtures)
            .unwrap_or_else(|error| Outcome { setup_error: Some(error), ..Outcome::default() })
    })
}

/// Removes the named packages' artifacts from the shared target folder, so that the next build
/// compiles them again: cargo does not notice that the driver binary changed, and a build
/// found fresh would neither run the driver nor tell a build with it from one without it.
fn clean_packages(workspace: &Path, packages: &[&str]) -> Result<(), String> {
    let mut clean = fixture_cargo(workspace);
    clean.args(["clean", "--release", "--target-dir"]).arg(target_dir());
    for package in packages {
        clean.args(["-p", package]);
    }
    let output = clean.output().map_err(|error| format!("could not start cargo clean: {error}"))?;
    if !output.status.success() {
        return Err(format!("cargo clean failed:\n{}", String::from_utf8_lossy(&output.stderr)));
    }
    Ok(())
}

fn build_fixtures(fixtures: &[Fixture]) -> Result<Outcome, String> {
    let target = target_dir();
    let mut outcome = Outcome::default();
    let packages: Vec<&str> = fixtures.iter().map(|fixture| fixture.package.as_str()).collect();
    if target.exists() {
        clean_packages(&fixtures_dir(), &packages)?;
    }
    eprintln!("building {} fixture crates through kernels-rustc into {}", fixtures.len(), target.display());
    let output = through_driver(fixture_cargo(&fixtures_dir()).args([
        "build",
        "--release",
        "--keep-going",
        "--workspace",
    ]))
    .args(["--message-format=json", "--target-dir"])
    .arg(&target)
    .output()
    .map_err(|error| format!("could not start cargo: {error}"))?;
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Ok(message) = serde_json::from_str::<Value>(line) else { continue };
        let package = message["target"]["name"].as_str().unwrap_or_default().replace('_', "-");
        match message["reason"].as_str() {
            Some("compiler-message") if message["message"]["level"] == "error" => {
                let diagnostic = &message["message"];
                let Some(span) = diagnostic["spans"]
                    .as_array()
                    .and_then(|spans| spans.iter().find(|span| span["is_primary"] == true))
                else {
                    // Summary lines ("aborting due to…") carry no span.
                    continue;
                };
                let file = span["file_name"].as_str().unwrap_or_default();
                let file = Path::new(file)
                    .strip_prefix(fixtures_dir())
                    .map(Path::to_path_buf)
                    .unwrap_or(file.into());
                let line = span["line_start"].as_u64().unwrap_or(0) as usize;
                let rendered = diagnostic["rendered"].as_str().unwrap_or_default().to_string();
                outcome.errors.entry(package).or_default().push((file.display().to_string(), line, rendered));
            }
            Some("compiler-artifact") => outcome.built.push(package),
            _ => {}
        }
    }
    let good: Vec<&Fixture> = fixtures.iter().filter(|fixture| fixture.must_build()).collect();
    let mut through_driver_ptx = BTreeMap::new();
    for fixture in &good {
        if let Ok(text) = std::fs::read_to_string(fixture.ptx_in(&target)) {
            through_driver_ptx.insert(fixture.package.clone(), text);
        }
    }
    // The same crates without the driver, into the same target folder: only they are rebuilt.
    let good_packages: Vec<&str> = good.iter().map(|fixture| fixture.package.as_str()).collect();
    clean_packages(&fixtures_dir(), &good_packages)?;
    let mut plain = fixture_cargo(&fixtures_dir());
    plain.args(["build", "--release", "--target-dir"]).arg(&target);
    for fixture in &good {
        plain.args(["-p", &fixture.package]);
    }
    let plain_output = plain.output().map_err(|error| format!("could not start cargo: {error}"))?;
    if !plain_output.status.success() {
        return Err(format!(
            "the good fixtures do not build without the driver:\n{}",
            String::from_utf8_lossy(&plain_output.stderr)
        ));
    }
    for fixture in &good {
        let Some(with_driver) = through_driver_ptx.remove(&fixture.package) else { continue };
        let without = std::fs::read_to_string(fixture.ptx_in(&target))
            .map_err(|error| format!("no PTX for {} without the driver: {error}", fixture.package))?;
        outcome.ptx.insert(
            fixture.package.clone(),
            (regress::snapshots::number_hashes(&with_driver), regress::snapshots::number_hashes(&without)),
        );
    }
    if outcome.built.is_empty() && outcome.errors.is_empty() {
        return Err(format!("cargo built nothing:\n{}", String::from_utf8_lossy(&output.stderr)));
    }
    Ok(outcome)
}

/// A fixture's rustc errors against its markers.
fn check_fixture(fixture: &Fixture) -> Result<(), Failed> {
    let outcome = outcome();
    if let Some(error) = &outcome.setup_error {
        return Err(error.clone().into());
    }
    let errors = outcome.errors.get(&fixture.package).cloned().unwrap_or_default();
    let built = outcome.built.contains(&fixture.package);
    if fixture.must_build() {
        if !errors.is_empty() || !built {
            let rendered: Vec<&str> = errors.iter().map(|(_, _, text)| text.as_str()).collect();
            return Err(format!(
                "{} must build through the driver, but:\n{}",
                fixture.package,
                rendered.join("\n")
            )
            .into());
        }
        return Ok(());
    }
    if built {
        return Err(
            format!("{} built, but its markers expect {:?}", fixture.package, fixture.expected).into()
        );
    }
    let mut unmatched: Vec<(String, usize, String)> = errors.clone();
    for expected in &fixture.expected {
        let position = unmatched.iter().position(|(file, line, text)| {
            *file == expected.file && *line == expected.line && text.contains(&expected.rule)
        });
        match position {
            Some(index) => {
                unmatched.remove(index);
            }
            None => {
                let rendered: Vec<&str> = errors.iter().map(|(_, _, text)| text.as_str()).collect();
                return Err(format!(
                    "expected an error naming `{}` at {}:{}; rustc said:\n{}",
                    expected.rule,
                    expected.file,
                    expected.line,
                    rendered.join("\n")
                )
                .into());
            }
        }
    }
    let foreign: Vec<&str> = unmatched
        .iter()
        .map(|(_, _, text)| text.as_str())
        .filter(|text| !text.starts_with("error: kernel verifier ["))
        .collect();
    if !foreign.is_empty() {
        return Err(format!("errors that are not the kernel verifier's:\n{}", foreign.join("\n")).into());
    }
    Ok(())
}

/// A good fixture's PTX through the driver against its PTX without it.
fn check_ptx_unchanged(package: &str) -> Result<(), Failed> {
    let outcome = outcome();
    if let Some(error) = &outcome.setup_error {
        return Err(error.clone().into());
    }
    let Some((with_driver, without)) = outcome.ptx.get(package) else {
        return Err(format!("no PTX of {package} from the driver build").into());
    };
    if with_driver != without {
        let first_difference = with_driver
            .lines()
            .zip(without.lines())
            .enumerate()
            .find(|(_, (a, b))| a != b)
            .map(|(line, (a, b))| format!("line {}: `{a}` through the driver, `{b}` without", line + 1))
            .unwrap_or_else(|| "the texts differ in length".into());
        return Err(format!("the driver changed the PTX of {package}: {first_difference}").into());
    }
    Ok(())
}

/// The project's kernels through the driver: every scope verified, skipped, or opted out with a
/// stated reason; the element-wise kernels and the batched GEMV entries without the column
/// split skipped before the import; both shared-memory helper kernels judged as explicit
/// adaptations.
fn check_project_kernels() -> Result<(), Failed> {
    let reports = tempfile_dir("kernels-reports")?;
    let kernels = regress::layout::Layout::from_build().kernels_workspace();
    if target_dir().exists() {
        clean_packages(&kernels, &["kernels", "kernel-helpers"])?;
    }
    let output = through_driver(&mut fixture_cargo(&kernels))
        .args(["build", "--release", "--target-dir"])
        .arg(target_dir())
        .env(plugin::build_report::REPORT_DIR_VAR, &reports)
        // Checked structure: the driver also imports every scope its guard on MIR skips and
        // fails the build unless the verifier's own guard skips it too.
        .env(plugin::build_report::STRUCTURE_VAR, "check")
        .output()
        .map_err(|error| format!("could not start cargo: {error}"))?;
    if !output.status.success() {
        return Err(format!(
            "the kernels do not build through the driver:\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    let crates = xtask::verify_report::read_reports(&reports).map_err(|error| format!("{error:#}"))?;
    let kernels = crates
        .iter()
        .find(|report| report.crate_name == "kernels")
        .ok_or("no report for the kernels crate (cargo may have found it fresh: the test cleans it first)")?;
    let scope = |name: &str| kernels.scopes.iter().find(|scope| scope.kernel == name);
    use xtask::verify_report::Verdict;
    // Nothing passes silently: every scope is proven, irrelevant, or opted out with a reason.
    for scope in &kernels.scopes {
        let accepted = match scope.verdict {
            Verdict::Verified | Verdict::Skipped => true,
            Verdict::OptedOut => scope.opt_out.as_deref().is_some_and(|reason| !reason.is_empty()),
            Verdict::Rejected | Verdict::Unverified => false,
        };
        if !accepted {
            return Err(
                format!("{} was {:?} (opt-out: {:?})", scope.kernel, scope.verdict, scope.opt_out).into()
            );
        }
    }
    // The element-wise kernels hold nothing the protocol can reach: the guard on MIR skips
    // them before anything is imported (no operation built).
    for name in ["vector_add", "saxpy", "silu_mul"] {
        let scope = scope(name).ok_or(format!("no scope for kernel {name}"))?;
        if scope.verdict != Verdict::Skipped || scope.operations != 0 || scope.blocks == 0 {
            return Err(format!(
                "{name} was {:?} with {} operations imported over {} blocks: the guard on MIR should skip it \
                 before the import",
                scope.verdict, scope.operations, scope.blocks
            )
            .into());
        }
    }
    // The batched GEMV entries without the column split touch shared memory only on branches
    // their const generics cut off (`column_warps > 1` with `column_warps` a tuple's constant
    // field): once those are folded on MIR, nothing is left for the protocol, and the guard
    // skips them before the import (they were the build's largest imported scopes).
    for name in [
        "gemv_f16_batched",
        "gemv_f16_batched_1",
        "gemv_f16_batched_2",
        "gemv_f16_batched_4",
        "gemv_f16_batched_8",
    ] {
        let scope = scope(name).ok_or(format!("no scope for kernel {name}"))?;
        if scope.verdict != Verdict::Skipped || scope.operations != 0 {
            return Err(format!(
                "{name} was {:?} with {} operations imported: its shared memory sits on branches its \
                 constants cut off, so the guard on MIR should skip it before the import",
                scope.verdict, scope.operations
            )
            .into());
        }
    }
    // Their reads of the tile are not shown inside the window (the index comes through an
    // `Option` and `saturating_sub`), so they opt out; the adaptation is still judged.
    for name in ["shared_memory_helper_local", "shared_memory_helper_cross_crate"] {
        let scope = scope(name).ok_or(format!("no scope for kernel {name}"))?;
        if scope.verdict != Verdict::OptedOut {
            return Err(format!("{name} was {:?}, not opted out", scope.verdict).into());
        }
    }
    for name in ["shared_memory_helper_local", "shared_memory_helper_cross_crate"] {
        if scope(name).is_some_and(|scope| scope.adaptations == 0) {
            return Err(
                format!("{name} passes its shared tile to a helper, but no adaptation was recorded").into()
            );
        }
    }
    // The cross-crate helper's body is part of the scope (its MIR comes through the metadata).
    if scope("shared_memory_helper_cross_crate").map(|s| s.functions)
        <= scope("shared_memory_helper_local").map(|s| s.functions).map(|n| n - 1)
    {
        return Err("the cross-crate helper's body was not imported".into());
    }
    let summary = xtask::verify_report::Summary::of(&crates);
    for line in summary.lines() {
        eprintln!("{line}");
    }
    Ok(())
}

/// A fresh folder under cargo's test scratch folder.
fn tempfile_dir(name: &str) -> Result<PathBuf, Failed> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|error| format!("creating {}: {error}", dir.display()))?;
    Ok(dir)
}

/// Mutations that do not apply (a hunk whose lines are not in the base, a hunk whose lines stand
/// twice, an unknown key) are refused with an error naming the mutation file and its line.
fn mutations_that_do_not_apply_are_refused() -> Result<(), Failed> {
    let dir = tempfile_dir("refused-mutations")?;
    let cases = [
        ("absent", "doc: d\n@@\n-            pipeline.consumer_wait(&status);\n", ":2:", "not in the text"),
        (
            "twice",
            "doc: d\n\n@@ which loop?\n         while tile < tiles {\n+            x();\n",
            ":3:",
            "2 times",
        ),
        ("unknown-key", "doc: d\nstages: 3\n", ":2:", "unknown key `stages`"),
        ("hole-of-another-base", "base: helper-good\ncopy-bytes: 4\n", ":2:", "fills a hole"),
    ];
    for (name, text, line, why) in cases {
        let path = dir.join(format!("{name}.mutation"));
        std::fs::write(&path, text).map_err(|error| format!("writing {}: {error}", path.display()))?;
        let error = match generate::apply_mutation(&generate::sources_dir(), &path) {
            Ok(_) => return Err(format!("{name}: the mutation applied").into()),
            Err(error) => error,
        };
        let named = format!("{}{line}", path.display());
        if !error.starts_with(&named) || !error.contains(why) {
            return Err(format!(
                "{name}: expected an error naming `{named}` and saying `{why}`, got: {error}"
            )
            .into());
        }
    }
    Ok(())
}

fn main() {
    let arguments = Arguments::from_args();
    let mut trials = Vec::new();
    trials.push(Trial::test(
        "mutations_that_do_not_apply_are_refused",
        mutations_that_do_not_apply_are_refused,
    ));
    let fixtures = match generate::generate(&generate::sources_dir(), &fixtures_dir()) {
        Ok(generated) => generated.iter().map(Fixture::of).collect(),
        Err(error) => {
            trials.push(Trial::test("generate_fixtures", move || Err(error.into())));
            Vec::new()
        }
    };
    FIXTURES.set(fixtures.clone()).expect("main sets the fixtures once");
    for fixture in fixtures {
        let name = format!("compile_fail::{}", fixture.package);
        let must_build = fixture.must_build();
        let package = fixture.package.clone();
        trials.push(Trial::test(name, move || check_fixture(&fixture)));
        if must_build {
            trials.push(Trial::test(format!("ptx_unchanged::{package}"), move || {
                check_ptx_unchanged(&package)
            }));
        }
    }
    trials.push(Trial::test("project_kernels_verify", check_project_kernels));
    libtest_mimic::run(&arguments, trials).exit();
}
