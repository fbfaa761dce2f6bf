//! The driver on cuda-oxide's kernels (the route of issue 27 item 3): a crate written on
//! cuda-device, checked for the host triple through `kernels-rustc` as `kernels/oxide` is by
//! `cargo xtask kernels-oxide`, finds its `#[kernel]` entries by cuda-oxide's reserved symbol
//! prefix and judges them by the model: a helper reading the shared tile as another type is
//! rejected, a read before the barrier is never verified, the same read after `sync_threads`
//! is, and a raw mbarrier makes its scope unverified with its reason. Then the real
//! `kernels/oxide` crate, through `xtask::kernels_oxide::verify_command` (what the xtask runs),
//! must end with each of its six kernels skipped or opted out as its source states.
//!
//! The fixture crate (`tests/fixtures/oxide/lib.rs`) is written into cargo's test scratch folder
//! with a manifest naming the vendored cuda-device and `kernels/oxide`'s lock file, and built
//! offline. Builds run in report mode (the verdicts are read from the crate reports) and once
//! enforced, to see the rejection as a rustc error naming the kernel.

use std::path::{Path, PathBuf};
use std::process::Command;

use plugin::build_report::{CrateReport, Verdict};
use xtask::kernels::KernelCompiler;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the repository root")
}

fn compiler() -> KernelCompiler {
    let sysroot = Command::new("rustc").args(["--print", "sysroot"]).output().expect("rustc runs");
    let sysroot = String::from_utf8(sysroot.stdout).expect("a UTF-8 sysroot");
    KernelCompiler {
        driver: PathBuf::from(env!("CARGO_BIN_EXE_kernels-rustc")),
        toolchain_lib: Path::new(sysroot.trim()).join("lib"),
    }
}

fn host() -> String {
    let version = Command::new("rustc").arg("-vV").output().expect("rustc runs");
    let version = String::from_utf8(version.stdout).expect("UTF-8");
    version.lines().find_map(|line| line.strip_prefix("host: ")).expect("rustc names its host").to_string()
}

/// The fixture crate, written once into the scratch folder.
fn fixture_crate() -> PathBuf {
    let root = repository();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("oxide-fixture");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = \"oxide-fixture\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[lib]\npath = \"src/lib.rs\"\n\n\
         [dependencies]\ncuda-device = {{ path = {:?}, default-features = false }}\n\n[workspace]\n",
        root.join("vendor/cuda-oxide/crates/cuda-device").display().to_string()
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::copy(root.join("kernels/oxide/Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let source =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/oxide/lib.rs"))
            .expect("the fixture source");
    std::fs::write(dir.join("src/lib.rs"), source).unwrap();
    dir
}

/// A check build of the fixture crate through the driver into `target`, its reports into
/// `target/reports`; `report` keeps rejections in the report instead of failing.
fn check_fixture(target: &str, report: bool) -> (bool, String, PathBuf) {
    let dir = fixture_crate();
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join(target);
    let reports = target.join("reports");
    let mut command = xtask::process::cargo(&repository());
    command
        .env("RUSTC_BOOTSTRAP", "1")
        .env_remove("RUSTC_WRAPPER")
        .args(["check", "--release", "--offline", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .args(["--target", &host(), "--target-dir"])
        .arg(&target);
    compiler().wrap(&mut command, &reports);
    if report {
        command.env("KERNELS_VERIFY_MODE", "report");
    } else {
        command.env_remove("KERNELS_VERIFY_MODE");
    }
    let output = command.output().expect("cargo runs");
    (output.status.success(), String::from_utf8_lossy(&output.stderr).into_owned(), reports)
}

fn report_of(dir: &Path, crate_name: &str) -> CrateReport {
    let text = std::fs::read_to_string(dir.join(format!("{crate_name}.json"))).expect("the crate report");
    serde_json::from_str(&text).expect("a crate report")
}

fn verdict(report: &CrateReport, kernel: &str) -> Verdict {
    let scope = report.scopes.iter().find(|scope| scope.kernel == kernel);
    scope.unwrap_or_else(|| panic!("no scope `{kernel}` in {:?}", report.scopes)).verdict
}

#[test]
fn cuda_oxide_kernels_are_found_by_their_symbol_and_judged_by_the_model() {
    let (built, stderr, reports) = check_fixture("oxide-fixture-report", true);
    assert!(built, "the report-mode check failed:\n{stderr}");
    let report = report_of(&reports, "oxide_fixture");
    let scope = |kernel: &str| report.scopes.iter().find(|scope| scope.kernel == kernel).unwrap();
    // Entries are named by their PTX name, the symbol without the reserved prefix.
    assert_eq!(report.scopes.len(), 4, "{:?}", report.scopes);
    assert_eq!(verdict(&report, "helper_reads_bits_as_floats"), Verdict::Rejected);
    let findings = &scope("helper_reads_bits_as_floats").findings;
    assert!(findings.iter().any(|finding| finding.rule == "pointer-adaptation"), "{findings:?}");
    assert_ne!(verdict(&report, "reads_before_the_barrier"), Verdict::Verified);
    assert_eq!(verdict(&report, "reads_after_the_barrier"), Verdict::Verified);
    assert_eq!(verdict(&report, "raw_mbarrier"), Verdict::Unverified);
    let gaps = &scope("raw_mbarrier").gaps;
    assert!(gaps.iter().any(|gap| gap.message.contains("raw mbarrier operation")), "{gaps:?}");
}

#[test]
fn an_enforced_check_fails_naming_the_rejected_kernel() {
    let (built, stderr, _) = check_fixture("oxide-fixture-enforce", false);
    assert!(!built, "the enforced check passed a rejected kernel:\n{stderr}");
    assert!(stderr.contains("helper_reads_bits_as_floats"), "{stderr}");
    assert!(stderr.contains("pointer-adaptation"), "{stderr}");
}

#[test]
fn the_six_kernels_of_kernels_oxide_are_skipped_or_opted_out_as_stated() {
    let root = repository();
    let layout = regress::layout::Layout::at(root.clone());
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("oxide-kernels-verify");
    let mut command = xtask::kernels_oxide::verify_command(&layout, &compiler(), &host(), &target);
    command.env_remove("KERNELS_VERIFY_MODE").env_remove("RUSTC_WRAPPER");
    let output = command.output().expect("cargo runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the verify build of kernels/oxide failed:\n{stderr}");
    let report = report_of(&xtask::verify_report::report_dir(&target), "kernels_oxide");
    let expected = [
        ("vector_add", Verdict::Skipped),
        ("pipeline_sum", Verdict::OptedOut),
        ("rms_norm", Verdict::OptedOut),
        ("softmax_rows", Verdict::OptedOut),
        ("shared_memory_helper_local", Verdict::OptedOut),
        ("shared_memory_helper_cross_crate", Verdict::OptedOut),
    ];
    assert_eq!(report.scopes.len(), expected.len(), "{:?}", report.scopes);
    for (kernel, wanted) in expected {
        assert_eq!(verdict(&report, kernel), wanted, "{kernel}");
    }
    // Each opt-out's reason names what the model lacks.
    let reason = |kernel: &str| {
        report.scopes.iter().find(|scope| scope.kernel == kernel).and_then(|scope| scope.opt_out.clone())
    };
    assert!(reason("pipeline_sum").is_some_and(|why| why.contains("mbarrier")));
    assert!(reason("rms_norm").is_some_and(|why| why.contains("cluster")));
}
