//! A registry package carried by an in-tree backend, end to end and offline, through the real
//! `xtask` binary, with the first patch of the project's own pliron series: a test registry (a cargo directory
//! source, put in place of the public registry by the project's `.cargo/config.toml`) holds
//! trimmed stand-ins for pliron, made from `compiler-patches/pliron/0001-*.patch` itself — the
//! file the patch changes, cut down to the text around its hunks, before the patch (0.20.0) or
//! after it (0.20.1, "upstream merged it"). A tiny in-tree tool depends on pliron and prints
//! whether the copy it was built with has the patch.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::registry::{manifest, use_registry, write};
use common::run::Run;
use common::sandbox::Sandbox;

const REFUSED: i32 = 70;

/// The project's real pliron series folder.
fn real_series() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../compiler-patches/pliron")
}

/// The first patch of the real series: its file name and text.
fn first_patch() -> (String, String) {
    let series = std::fs::read_to_string(real_series().join("series")).unwrap();
    let name = series
        .lines()
        .map(|line| line.split('#').next().unwrap().trim())
        .find(|line| !line.is_empty())
        .expect("the pliron series lists a patch")
        .to_owned();
    let text = std::fs::read_to_string(real_series().join(&name)).unwrap();
    (name, text)
}

/// The one file a patch changes and the text around its hunks, before (`after == false`) or
/// after the patch: enough for `git apply` to find every hunk, forwards or in reverse.
fn trimmed_file(patch: &str, after: bool) -> (String, String) {
    let mut file = None;
    let mut text = String::new();
    let mut in_hunk = false;
    for line in patch.lines() {
        if line == "-- " {
            break; // format-patch's signature
        }
        if let Some(path) = line.strip_prefix("+++ b/") {
            assert!(file.replace(path.to_owned()).is_none(), "the fixture expects a patch of one file");
            continue;
        }
        if line.starts_with("@@ ") {
            in_hunk = true;
            continue;
        }
        if line.starts_with("diff --git") {
            in_hunk = false;
        }
        if !in_hunk {
            continue;
        }
        let kept = match line.chars().next() {
            Some(' ') | None => true,
            Some('+') => after,
            Some('-') => !after,
            _ => false,
        };
        if kept {
            text.push_str(line.get(1..).unwrap_or_default());
            text.push('\n');
        }
    }
    (file.expect("the patch names its file"), text)
}

/// A project with an in-tree backend `verifier` that carries pliron, a test registry and a
/// backends root, in one temporary folder.
struct Project {
    sandbox: Sandbox,
    patch_name: String,
}

impl Project {
    fn new() -> Project {
        let sandbox = Sandbox::new("carried-package-");
        let project = sandbox.project.clone();
        write(&project.join("Cargo.toml"), "[workspace]\nmembers = [\"verifier\"]\nresolver = \"2\"\n");
        write(
            &project.join("verifier/Cargo.toml"),
            &manifest("verifier", "0.1.0", "\n[dependencies]\npliron = \"=0.20.0\"\n"),
        );
        write(
            &project.join("verifier/src/main.rs"),
            "fn main() {\n    let patched = pliron::CHANGED_FILE.contains(\"DfsInterval\");\n    \
             println!(\"{}\", if patched { \"patched\" } else { \"pristine\" });\n}\n",
        );
        write(
            &project.join("compiler-patches/verifier/series"),
            "# in-tree: its carried packages have series\n",
        );
        // The series carries the real first patch only: the stand-ins hold just the file it
        // changes, which later patches of the real series do not find.
        let (first_name, first_text) = first_patch();
        let patches = project.join("compiler-patches/pliron");
        write(&patches.join("series"), &format!("# the real series' first patch\n{first_name}\n"));
        write(&patches.join(&first_name), &first_text);
        let registry = sandbox.registry();
        use_registry(&project, &registry);
        let fixture = Project { sandbox, patch_name: first_name };
        fixture.describe("0.20.0");
        fixture
    }

    /// Declares backend `verifier`, carrying pliron at `version`.
    fn describe(&self, version: &str) {
        let build = |locked: &str| {
            format!(
                "{{ command = [\"cargo\", \"build\", \"--release\", \"--offline\", \"--quiet\"{locked}, \"-p\", \
                 \"verifier\"], produces = [\"target/release/verifier\"] }}"
            )
        };
        write(
            &self.sandbox.project.join("backends.toml"),
            &format!(
                "[backend.verifier]\nsummary = \"a tool built on a carried pliron\"\npatches = \
                 \"compiler-patches/verifier\"\nupstream = {{ in-tree = [\"verifier\", \"Cargo.toml\"] }}\n\
                 carry = [{{ package = \"pliron\", version = \"{version}\", vendor = \"vendor/pliron\", patches = \
                 \"compiler-patches/pliron\" }}]\nbuild = {}\npristine = {}\n",
                build(""),
                build("")
            ),
        );
    }

    /// Publishes a trimmed pliron at `version` into the test registry: the patched file before
    /// or after `0001`, and, with `failing_test`, a test that fails.
    fn publish(&self, version: &str, after_0001: bool, failing_test: bool) {
        let (_, patch) = first_patch();
        let (changed, text) = trimmed_file(&patch, after_0001);
        let mut files = vec![
            (
                "src/lib.rs".to_owned(),
                format!(
                    "//! A trimmed stand-in for pliron made by the test: it only carries the file the\n//! \
                     patch changes, as text.\npub const CHANGED_FILE: &str = include_str!(\"../{changed}\");\n"
                ),
            ),
            (changed, text),
        ];
        if failing_test {
            files.push((
                "tests/upstream.rs".to_owned(),
                "#[test]\nfn upstream_test_that_fails() {\n    panic!(\"broken on purpose\");\n}\n"
                    .to_owned(),
            ));
        }
        common::registry::publish(&self.sandbox.registry(), "pliron", version, &files);
    }

    fn run(&self, verb: &str) -> Run {
        let output = self.sandbox.xtask(&[verb, "verifier"]).output().unwrap();
        Run::from(output)
    }

    fn installs(&self) -> Vec<PathBuf> {
        let dir = self.sandbox.root.join("verifier");
        let mut found: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        found.retain(|path| path.is_dir());
        found
    }
}

fn stdout_of(program: &Path) -> String {
    String::from_utf8_lossy(&Command::new(program).output().unwrap().stdout).trim().to_owned()
}

#[test]
fn a_carried_package_is_patched_tested_built_against_and_recorded() {
    let project = Project::new();
    project.publish("0.20.0", false, false);
    project.run("build-backend").expect_output(
        0,
        &[
            "unpacked pliron 0.20.0",
            "patch 1/1",
            "pliron: running its own test suite",
            "[6/6] write PROVENANCE",
        ],
    );
    let [install] = &project.installs()[..] else { panic!("one install: {:?}", project.installs()) };
    assert_eq!(stdout_of(&install.join("verifier")), "patched", "the backend is built against the series");
    assert_eq!(stdout_of(&install.join("verifier-pristine")), "pristine", "the pristine build is not");
    let vendored = std::fs::read_to_string(project.sandbox.project.join("vendor/pliron/src/lib.rs")).unwrap();
    assert!(vendored.contains("trimmed stand-in"), "the vendor tree holds the pristine package");

    let record: toml::Table =
        toml::from_str(&std::fs::read_to_string(install.join("PROVENANCE")).unwrap()).unwrap();
    let carried = record["carried"].as_array().unwrap();
    let pliron = carried[0].as_table().unwrap();
    assert_eq!(pliron["package"].as_str(), Some("pliron"));
    assert_eq!(pliron["version"].as_str(), Some("0.20.0"));
    let archive = format!("{:x}", <sha2::Sha256 as sha2::Digest>::digest(b"pliron 0.20.0"));
    assert_eq!(pliron["revision"].as_str(), Some(format!("pliron 0.20.0 sha256:{archive}").as_str()));
    let series_sha = format!(
        "{:x}",
        <sha2::Sha256 as sha2::Digest>::digest(
            std::fs::read(project.sandbox.project.join("compiler-patches/pliron/series")).unwrap()
        )
    );
    assert_eq!(pliron["series_sha256"].as_str(), Some(series_sha.as_str()));
    let patch = pliron["patches"].as_array().unwrap()[0].as_table().unwrap();
    assert_eq!(patch["path"].as_str(), Some(project.patch_name.as_str()));

    let checked = project.run("check-backend");
    checked.expect_output(0, &[&format!("patch {} (sha256", project.patch_name), "verified"]);
    project.run("build-backend").expect_output(0, &["is up to date"]);

    // A carried patch edited after the build: the installed backend is refused by name.
    let patch_file = project.sandbox.project.join("compiler-patches/pliron").join(&project.patch_name);
    let original = std::fs::read_to_string(&patch_file).unwrap();
    write(&patch_file, &original.replacen("Subject: [PATCH]", "Subject: [PATCH] edited:", 1));
    project.run("check-backend").expect_output(REFUSED, &["carried package: pliron's series changed"]);
    write(&patch_file, &original);
    project.run("check-backend").expect_output(0, &[]);
}

#[test]
fn a_bump_to_a_release_that_has_0001_says_drop_this_patch() {
    let project = Project::new();
    project.publish("0.20.1", true, false);
    project.describe("0.20.1");
    project.run("build-backend").expect_output(
        REFUSED,
        &[&format!("patch `{}` is already upstream at pliron 0.20.1", project.patch_name), "drop this patch"],
    );
    assert!(project.installs().is_empty(), "nothing is installed");
}

#[test]
fn a_patched_package_failing_its_own_tests_is_not_installed() {
    let project = Project::new();
    project.publish("0.20.0", false, true);
    project
        .run("build-backend")
        .expect_output(REFUSED, &["the patched pliron fails its own test suite", "upstream_test_that_fails"]);
    assert!(project.installs().is_empty(), "nothing is installed");
}
