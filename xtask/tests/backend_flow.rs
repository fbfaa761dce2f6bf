//! The backend flow end to end, offline, through the real `xtask` binary: each test makes an
//! upstream git repository (a tiny crate with a build script), a patch series of two patches
//! and a project that declares the backend in its own `backends.toml`, then runs
//! `build-backend` and `check-backend` against a backends root of its own and reads exit
//! statuses, messages and the files left behind.

mod common;

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::git::{git, with_git_env};
use common::registry::{manifest, use_registry, write};
use common::run::Run;
use common::sandbox::Sandbox;

const REFUSED: i32 = 70;

const MAIN_RS: &str = "mod target;\n\nfn main() {\n    let greeting = \"hello\";\n    println!(\"{greeting}, {}\", \
                       target::TARGET);\n}\n";
const TARGET_RS: &str = "pub const TARGET: &str = \"world\";\n";
/// A build script that sleeps while `FIXTURE_SLOW_BUILD` says so: a build that can be killed
/// midway.
const BUILD_RS: &str = "fn main() {\n    println!(\"cargo::rerun-if-env-changed=FIXTURE_SLOW_BUILD\");\n    \
                        if let Some(s) = std::env::var(\"FIXTURE_SLOW_BUILD\").ok().and_then(|s| s.parse().ok()) \
                        {\n        std::thread::sleep(std::time::Duration::from_secs(s));\n    }\n}\n";

/// An upstream repository, a project declaring backend `up` (on that upstream) and `tool`
/// (in-tree), and a backends root, all in one temporary folder.
struct Fixture {
    sandbox: Sandbox,
    upstream: PathBuf,
    /// The commit the series is written against.
    base: String,
    /// A later commit that contains patch 0001's change.
    merged: String,
    /// A commit that changes the line patch 0001 changes, differently.
    conflicting: String,
}

impl Fixture {
    fn new() -> Fixture {
        let sandbox = Sandbox::new("backend-flow-");
        let upstream = sandbox.dir.path().join("upstream");
        write(&upstream.join("Cargo.toml"), &manifest("up", "0.1.0", ""));
        write(&upstream.join("build.rs"), BUILD_RS);
        write(&upstream.join("src/main.rs"), MAIN_RS);
        write(&upstream.join("src/target.rs"), TARGET_RS);
        write(&upstream.join(".gitignore"), "/target\n");
        git(&upstream, &["init", "-q"]);
        git(&upstream, &["add", "-A"]);
        git(&upstream, &["commit", "-qm", "base"]);
        let base = git(&upstream, &["rev-parse", "HEAD"]);

        let project = sandbox.project.clone();
        let patches = project.join("compiler-patches/up");
        write(&upstream.join("src/main.rs"), &MAIN_RS.replace("\"hello\"", "\"hello there\""));
        write(&patches.join("0001-greeting.patch"), &git(&upstream, &["diff"]));
        git(&upstream, &["checkout", "-q", "--", "."]);
        write(&upstream.join("src/target.rs"), &TARGET_RS.replace("world", "GPU world"));
        write(&patches.join("0002-target.patch"), &format!("{}\n", git(&upstream, &["diff"])));
        git(&upstream, &["checkout", "-q", "--", "."]);
        // `git diff` output lost its final newline to trim(); restore it for 0001 too.
        let first = std::fs::read_to_string(patches.join("0001-greeting.patch")).unwrap();
        write(&patches.join("0001-greeting.patch"), &format!("{first}\n"));
        write(&patches.join("series"), "# carried on `up`\n0001-greeting.patch\n0002-target.patch\n");

        write(&upstream.join("src/main.rs"), &MAIN_RS.replace("\"hello\"", "\"hello there\""));
        git(&upstream, &["commit", "-qam", "upstream merges the greeting patch"]);
        let merged = git(&upstream, &["rev-parse", "HEAD"]);
        git(&upstream, &["checkout", "-q", "-b", "other", &base]);
        write(&upstream.join("src/main.rs"), &MAIN_RS.replace("\"hello\"", "\"bonjour\""));
        git(&upstream, &["commit", "-qam", "upstream rewrites the greeting"]);
        let conflicting = git(&upstream, &["rev-parse", "HEAD"]);

        write(&project.join("tool/Cargo.toml"), &manifest("tool", "0.1.0", ""));
        write(&project.join("tool/src/main.rs"), "fn main() {\n    println!(\"tool\");\n}\n");
        write(&project.join("compiler-patches/tool/series"), "# in-tree: nothing carried\n");
        write(&project.join(".gitignore"), "/vendor/*\n/target/\n/tool/target/\n/backends/\n");
        let fixture = Fixture { sandbox, upstream, base, merged, conflicting };
        fixture.describe(&fixture.upstream.to_string_lossy(), &fixture.base[..8]);
        git(&fixture.sandbox.project, &["init", "-q"]);
        git(&fixture.sandbox.project, &["add", "-A"]);
        git(&fixture.sandbox.project, &["commit", "-qm", "project"]);
        fixture
    }

    /// Writes the project's `backends.toml` with backend `up` at `url` and `pin`.
    fn describe(&self, url: &str, pin: &str) {
        self.describe_upstream(&format!("{{ git = {url:?}, pin = \"{pin}\", vendor = \"vendor/up\" }}"));
    }

    /// Writes the project's `backends.toml` with backend `up` as package `up` at `version`.
    fn describe_package(&self, version: &str) {
        self.describe_upstream(&format!(
            "{{ package = \"up\", version = \"{version}\", vendor = \"vendor/up\" }}"
        ));
    }

    /// Writes the project's `backends.toml` with backend `up` on `upstream` (a TOML inline table).
    fn describe_upstream(&self, upstream: &str) {
        let text = format!(
            "[backend.up]\nsummary = \"a tiny upstream made by the test\"\npatches = \"compiler-patches/up\"\n\
             upstream = {upstream}\n\
             build = {{ command = [\"cargo\", \"build\", \"--release\", \"--offline\", \"--quiet\"], produces = \
             [\"target/release/up\"] }}\n\n\
             [backend.tool]\nsummary = \"built from the project's own sources\"\npatches = \
             \"compiler-patches/tool\"\nupstream = {{ in-tree = [\"tool\"] }}\n\
             build = {{ command = [\"cargo\", \"build\", \"--release\", \"--offline\", \"--quiet\", \
             \"--manifest-path\", \"tool/Cargo.toml\"], produces = [\"tool/target/release/tool\"] }}\n"
        );
        write(&self.sandbox.project.join("backends.toml"), &text);
    }

    /// Publishes the upstream's base sources as package `up` at `version` into a registry of
    /// the test's own (a cargo directory source), which the project's `.cargo/config.toml`
    /// puts in place of the public registry, the way a team configures a mirror.
    fn publish(&self, version: &str) {
        let registry = self.sandbox.registry();
        let files = [
            ("build.rs".to_owned(), BUILD_RS.to_owned()),
            ("src/main.rs".to_owned(), MAIN_RS.to_owned()),
            ("src/target.rs".to_owned(), TARGET_RS.to_owned()),
        ];
        common::registry::publish(&registry, "up", version, &files);
        use_registry(&self.sandbox.project, &registry);
    }

    fn command(&self, verb: &str, backend: &str) -> Command {
        let mut command = self.sandbox.xtask(&[verb, backend]);
        with_git_env(&mut command).env_remove("FIXTURE_SLOW_BUILD");
        command
    }

    fn run(&self, verb: &str, backend: &str) -> Run {
        Run::from(self.command(verb, backend).output().unwrap())
    }

    /// Runs `verb` on `backend` and expects it refused (exit 70) with each of `needles` in its
    /// standard error.
    fn refused(&self, verb: &str, backend: &str, needles: &[&str]) -> Run {
        let run = self.run(verb, backend);
        run.expect_stderr(REFUSED, needles);
        run
    }

    fn patches(&self) -> PathBuf {
        self.sandbox.project.join("compiler-patches/up")
    }

    /// Damages the install of `up` with `damage`, expects `check-backend` to refuse it saying
    /// `refusal`, then builds it again, through all six steps, and expects the guard to accept
    /// it.
    fn refuses_damaged_install(&self, damage: impl FnOnce(&Path), refusal: &str) {
        damage(&self.installs("up").remove(0));
        self.refused("check-backend", "up", &[refusal]);
        self.run("build-backend", "up").expect_stderr(0, &["[6/6]"]);
        self.run("check-backend", "up").expect_stderr(0, &[]);
    }

    /// The install folders of `backend`, by key.
    fn installs(&self, backend: &str) -> Vec<PathBuf> {
        entries(&self.sandbox.root.join(backend)).into_iter().filter(|p| p.is_dir()).collect()
    }
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> =
        std::fs::read_dir(dir).map(|e| e.map(|e| e.unwrap().path()).collect()).unwrap_or_default();
    paths.sort();
    paths
}

fn provenance(install: &Path) -> toml::Table {
    toml::from_str(&std::fs::read_to_string(install.join("PROVENANCE")).unwrap()).unwrap()
}

#[test]
fn a_clean_build_installs_the_patched_backend_with_its_provenance_and_a_rerun_does_nothing() {
    let fixture = Fixture::new();
    let built = fixture.run("build-backend", "up");
    built.expect_stderr(0, &["[1/6]", "[6/6] write PROVENANCE", "patch 2/2: 0002-target.patch"]);
    let [install] = &fixture.installs("up")[..] else { panic!("one install: {:?}", fixture.installs("up")) };
    let output = Command::new(install.join("up")).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout), "hello there, GPU world\n", "both patches applied");

    let record = provenance(install);
    assert_eq!(record["backend"].as_str(), Some("up"));
    assert_eq!(record["upstream"].as_str(), Some(fixture.upstream.to_str().unwrap()));
    assert_eq!(record["pin"].as_str(), Some(&fixture.base[..8]));
    assert_eq!(record["revision"].as_str(), Some(fixture.base.as_str()), "the full revision behind the pin");
    let patches = record["patches"].as_array().unwrap();
    let names: Vec<&str> = patches.iter().map(|p| p["path"].as_str().unwrap()).collect();
    assert_eq!(names, ["0001-greeting.patch", "0002-target.patch"]);
    let on_disk = format!(
        "{:x}",
        <sha2::Sha256 as sha2::Digest>::digest(
            std::fs::read(fixture.patches().join("0002-target.patch")).unwrap()
        )
    );
    assert_eq!(patches[1]["sha256"].as_str(), Some(on_disk.as_str()));
    for field in ["series_sha256", "toolchain", "llvm_version", "build_command", "built_at"] {
        assert!(record.contains_key(field), "PROVENANCE has {field}");
    }

    // The vendor tree is pristine at the pin, and recorded as a submodule at the full revision.
    let vendor = fixture.sandbox.project.join("vendor/up");
    assert_eq!(git(&vendor, &["rev-parse", "HEAD"]), fixture.base);
    assert_eq!(
        git(&vendor, &["status", "--porcelain"]),
        "",
        "the series is never applied to the vendor tree"
    );
    let staged = git(&fixture.sandbox.project, &["ls-files", "--stage", "--", "vendor/up"]);
    assert!(staged.starts_with(&format!("160000 {}", fixture.base)), "submodule entry: {staged}");

    fixture.run("check-backend", "up").expect_stderr(0, &[]);
    let before = std::fs::read(install.join("PROVENANCE")).unwrap();
    fixture.run("build-backend", "up").expect_stderr(0, &["is up to date", "nothing to do"]);
    assert_eq!(std::fs::read(install.join("PROVENANCE")).unwrap(), before, "a no-op rewrites nothing");
    assert!(!fixture.run("build-backend", "up").stderr.contains("[2/6]"), "a no-op does not build");
}

#[test]
fn a_patch_that_no_longer_applies_is_named_with_its_hunk() {
    let fixture = Fixture::new();
    fixture.describe(&fixture.upstream.to_string_lossy(), &fixture.conflicting[..10]);
    fixture.refused(
        "build-backend",
        "up",
        &[
            "patch `0001-greeting.patch` no longer applies",
            "hunk #1 of src/main.rs (@@ -1,6 +1,6 @@)",
            &fixture.conflicting,
        ],
    );
    assert!(fixture.installs("up").is_empty(), "nothing is installed");
}

#[test]
fn a_patch_that_is_already_upstream_is_to_be_dropped() {
    let fixture = Fixture::new();
    fixture.describe(&fixture.upstream.to_string_lossy(), &fixture.merged);
    fixture.refused(
        "build-backend",
        "up",
        &["patch `0001-greeting.patch` is already upstream", "drop this patch from"],
    );
}

#[test]
fn tampered_added_removed_and_unlisted_patches_are_refused_by_name() {
    let fixture = Fixture::new();
    fixture.run("build-backend", "up").expect_stderr(0, &[]);
    let patch = fixture.patches().join("0002-target.patch");
    let original = std::fs::read(&patch).unwrap();

    // One byte of a patch changed.
    let mut tampered = original.clone();
    let at = tampered.iter().position(|&b| b == b'G').unwrap();
    tampered[at] = b'g';
    std::fs::write(&patch, &tampered).unwrap();
    fixture.refused(
        "check-backend",
        "up",
        &["patch `0002-target.patch` was tampered with", "run `just build-backend up`"],
    );
    std::fs::write(&patch, &original).unwrap();
    fixture.run("check-backend", "up").expect_stderr(0, &[]);

    // A patch added to the series.
    let series = fixture.patches().join("series");
    let listed = std::fs::read_to_string(&series).unwrap();
    std::fs::write(fixture.patches().join("0003-more.patch"), &original).unwrap();
    std::fs::write(&series, format!("{listed}0003-more.patch\n")).unwrap();
    fixture.refused("check-backend", "up", &["patch `0003-more.patch` was added"]);

    // A patch file that the series does not list.
    std::fs::write(&series, &listed).unwrap();
    fixture.refused("check-backend", "up", &["patch `0003-more.patch` is in", "not in its series"]);
    std::fs::remove_file(fixture.patches().join("0003-more.patch")).unwrap();

    // A patch removed from the series.
    std::fs::write(&series, listed.replace("0002-target.patch\n", "")).unwrap();
    std::fs::remove_file(&patch).unwrap();
    fixture.refused("check-backend", "up", &["patch `0002-target.patch` was removed"]);
    std::fs::write(&patch, &original).unwrap();
    std::fs::write(&series, &listed).unwrap();

    // The installed product itself changed.
    let tamper = |install: &Path| std::fs::write(install.join("up"), "not the build").unwrap();
    fixture.refuses_damaged_install(tamper, "does not match its sha256 in PROVENANCE");
}

#[test]
fn a_relative_backends_root_is_taken_from_the_project_root_not_the_current_folder() {
    let fixture = Fixture::new();
    let elsewhere = fixture.sandbox.dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    for verb in ["build-backend", "check-backend"] {
        let output = fixture
            .command(verb, "up")
            .env("KERNEL_BACKENDS_ROOT", "rel-backends")
            .current_dir(&elsewhere)
            .output();
        Run::from(output.unwrap()).expect_stderr(0, &[]);
    }
    let installs = entries(&fixture.sandbox.project.join("rel-backends/up"));
    assert!(
        installs.iter().any(|p| p.join("PROVENANCE").is_file()),
        "installed under the project: {installs:?}"
    );
    assert!(entries(&elsewhere).is_empty(), "nothing written in the current folder");
}

#[test]
fn four_concurrent_builds_all_succeed_and_leave_one_valid_backend() {
    let fixture = Fixture::new();
    let runs: Vec<Run> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4).map(|_| scope.spawn(|| fixture.run("build-backend", "up"))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for run in &runs {
        run.expect_stderr(0, &[]);
    }
    let built = runs.iter().filter(|r| r.stdout.contains("built and installed")).count();
    let up_to_date = runs.iter().filter(|r| r.stdout.contains("up to date")).count();
    assert_eq!((built, up_to_date), (1, 3), "one build, three runs that found it installed");
    let leftovers: Vec<PathBuf> = entries(&fixture.sandbox.root.join("up"))
        .into_iter()
        .filter(|p| {
            p.file_name().unwrap().to_string_lossy().contains(".staging-")
                || p.to_string_lossy().contains(".work-")
        })
        .collect();
    assert!(leftovers.is_empty(), "temporary folders left: {leftovers:?}");
    assert_eq!(fixture.installs("up").len(), 1);
    fixture.run("check-backend", "up").expect_stderr(0, &[]);
}

#[test]
fn a_build_killed_midway_leaves_nothing_the_guard_accepts_and_a_rerun_recovers() {
    let fixture = Fixture::new();
    let mut command = fixture.command("build-backend", "up");
    command.env("FIXTURE_SLOW_BUILD", "120").stderr(Stdio::piped()).stdout(Stdio::null()).process_group(0);
    let mut child = command.spawn().unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    // Kill once the build step has started (cargo compiling, or the build script sleeping).
    let mut seen = Vec::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        let started = line.contains("[4/6] build");
        seen.push(line);
        if started {
            break;
        }
    }
    assert!(
        seen.last().is_some_and(|l| l.contains("[4/6] build")),
        "the build step never started:\n{}",
        seen.join("\n")
    );
    std::thread::sleep(std::time::Duration::from_secs(2));
    // The child leads its own process group (process_group(0) above), so this reaches it, the
    // cargo it runs and the build script, and nothing else.
    let group = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: getpgid and killpg only read a process table entry and send a signal.
    assert_eq!(unsafe { libc::getpgid(group) }, group, "the child leads its own process group");
    // SAFETY: as above; `group` is the group our child leads.
    let killed = unsafe { libc::killpg(group, libc::SIGKILL) };
    assert_eq!(killed, 0, "killpg failed: {}", std::io::Error::last_os_error());
    let status = child.wait().unwrap();
    assert!(status.code().is_none(), "the build was killed, not finished: {status}");

    fixture.refused("check-backend", "up", &["backend `up` is not built"]);
    fixture.run("build-backend", "up").expect_stderr(0, &["left by an earlier build that did not finish"]);
    fixture.run("check-backend", "up").expect_stderr(0, &[]);

    // Killed between the install and PROVENANCE: an install folder without one.
    let interrupt = |install: &Path| std::fs::remove_file(install.join("PROVENANCE")).unwrap();
    fixture.refuses_damaged_install(interrupt, "is incomplete: it has no PROVENANCE");
}

#[test]
fn a_missing_upstream_is_refused_by_name() {
    let fixture = Fixture::new();
    let missing = fixture.sandbox.dir.path().join("no-such-upstream");
    fixture.describe(&missing.to_string_lossy(), &fixture.base[..8]);
    let url = missing.to_string_lossy().into_owned();
    fixture.refused("build-backend", "up", &["backend `up`", "cannot be reached", &url]);
    fixture.refused("check-backend", "up", &["backend `up` is not built", "cannot be reached", &url]);
    // A pin that the upstream does not have.
    fixture.describe(&fixture.upstream.to_string_lossy(), "0123456789abcdef");
    fixture.refused("build-backend", "up", &["the pin `0123456789abcdef` is not a commit of"]);
}

#[test]
fn a_vendor_tree_with_local_changes_is_refused() {
    let fixture = Fixture::new();
    fixture.run("build-backend", "up").expect_stderr(0, &[]);
    let vendor = fixture.sandbox.project.join("vendor/up");
    write(&vendor.join("src/target.rs"), "pub const TARGET: &str = \"edited in place\";\n");
    write(&vendor.join("src/extra.rs"), "// a file of its own\n");
    // The install still matches its pin and series, but the checkout that stands for the pin
    // does not: both the guard and an otherwise up-to-date build refuse, naming the files.
    let named = [
        "backend `up`",
        "has local changes",
        "M src/target.rs",
        "?? src/extra.rs",
        "move the change into a patch",
        "clean -fd",
    ];
    fixture.refused("check-backend", "up", &named);
    let run = fixture.run("build-backend", "up");
    run.expect_stderr(REFUSED, &named);
    assert!(!run.stderr.contains("up to date"), "{}", run.stderr);
    // Another pin needs the vendor tree again.
    fixture.describe(&fixture.upstream.to_string_lossy(), &fixture.base);
    fixture.refused("build-backend", "up", &["has local changes", "src/target.rs"]);
    // Put back as the pin has it, the same install is accepted again.
    fixture.describe(&fixture.upstream.to_string_lossy(), &fixture.base[..8]);
    git(&vendor, &["checkout", "-q", "--", "."]);
    std::fs::remove_file(vendor.join("src/extra.rs")).unwrap();
    fixture.run("check-backend", "up").expect_stderr(0, &[]);
}

#[test]
fn a_provenance_whose_key_was_edited_is_refused_by_name() {
    let fixture = Fixture::new();
    fixture.run("build-backend", "up").expect_stderr(0, &[]);
    let install = fixture.installs("up").remove(0);
    let key = install.file_name().unwrap().to_string_lossy().into_owned();
    let record = install.join("PROVENANCE");
    let text = std::fs::read_to_string(&record).unwrap();
    std::fs::write(&record, text.replace(&format!("key = \"{key}\""), "key = \"0123456789abcdef\"")).unwrap();
    fixture.refused(
        "check-backend",
        "up",
        &[
            "backend `up` is stale",
            "records key `0123456789abcdef`",
            &format!("folder of key `{key}`"),
            "run `just build-backend up`",
        ],
    );
    fixture.run("build-backend", "up").expect_stderr(0, &["[6/6] write PROVENANCE"]);
    fixture.run("check-backend", "up").expect_stderr(0, &[]);
}

#[test]
fn prune_keeps_what_the_description_needs_and_the_newest_and_frees_the_rest() {
    let fixture = Fixture::new();
    let prune = |args: &[&str]| {
        let mut command = fixture.sandbox.xtask(&[&["prune-backends"], args].concat());
        Run::from(with_git_env(&mut command).output().unwrap())
    };
    fixture.run("build-backend", "up").expect_stderr(0, &[]);
    // The tool's first build writes its Cargo.lock (refused), the second installs it.
    fixture.refused("build-backend", "tool", &[]);
    fixture.run("build-backend", "tool").expect_stderr(0, &[]);
    // Two more configurations of the tool, each installed beside the others.
    let source = fixture.sandbox.project.join("tool/src/main.rs");
    let original = std::fs::read_to_string(&source).unwrap();
    for version in ["tool 2", "tool 3"] {
        // PROVENANCE's `built_at` has whole seconds: the builds' order must show in it.
        std::thread::sleep(std::time::Duration::from_millis(1100));
        std::fs::write(&source, original.replace("tool", version)).unwrap();
        fixture.run("build-backend", "tool").expect_stderr(0, &["[6/6]"]);
    }
    std::fs::write(&source, &original).unwrap();
    assert_eq!(fixture.installs("tool").len(), 3);
    let [first, _, newest] = {
        let mut by_time = fixture.installs("tool");
        by_time.sort_by_key(|dir| provenance(dir)["built_at"].as_str().unwrap().to_owned());
        <[PathBuf; 3]>::try_from(by_time).unwrap()
    };

    let dry = prune(&["--keep", "1", "--dry-run"]);
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert!(dry.stdout.contains("would free") && dry.stdout.contains("in 1 folder(s)"), "{}", dry.stdout);
    assert_eq!(fixture.installs("tool").len(), 3, "a dry run removes nothing");

    // The description needs the first configuration (the source is back to it); --keep 1
    // keeps the newest other one; the middle one goes.
    let run = prune(&["--keep", "1"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("freed") && run.stdout.contains("in 1 folder(s)"), "{}", run.stdout);
    assert!(run.stdout.contains("needed by the current backends.toml"), "{}", run.stdout);
    let mut left = fixture.installs("tool");
    left.sort();
    let mut expected = vec![first.clone(), newest.clone()];
    expected.sort();
    assert_eq!(left, expected);
    fixture.run("check-backend", "tool").expect_stderr(0, &[]);
    fixture.run("check-backend", "up").expect_stderr(0, &[]);

    // --keep 0: only what the description needs is left.
    prune(&["--keep", "0"]).expect_stderr(0, &[]);
    assert_eq!(fixture.installs("tool"), [first]);
    assert_eq!(fixture.installs("up").len(), 1);
    fixture.run("check-backend", "tool").expect_stderr(0, &[]);
    let nothing = prune(&["--keep", "0"]);
    assert!(nothing.stdout.contains("freed 0 B (0 bytes) in 0 folder(s)"), "{}", nothing.stdout);
}

#[test]
fn an_in_tree_backend_is_stale_when_a_source_changes_and_switching_back_costs_nothing() {
    let fixture = Fixture::new();
    // The tool has no Cargo.lock yet, so its first build writes one into its own sources.
    fixture.refused(
        "build-backend",
        "tool",
        &["its build changed its own in-tree sources (source `tool/Cargo.lock` appeared"],
    );
    assert!(fixture.installs("tool").is_empty(), "nothing is installed");
    fixture.run("build-backend", "tool").expect_stderr(0, &["built in-tree from 3 source files"]);
    let source = fixture.sandbox.project.join("tool/src/main.rs");
    let original = std::fs::read_to_string(&source).unwrap();
    std::fs::write(&source, original.replace("tool", "tool 2")).unwrap();
    fixture.refused(
        "check-backend",
        "tool",
        &["source `tool/src/main.rs` changed since the build", "run `just build-backend tool`"],
    );
    fixture.run("build-backend", "tool").expect_stderr(0, &["[6/6]"]);
    assert_eq!(fixture.installs("tool").len(), 2, "both configurations are installed");
    std::fs::write(&source, &original).unwrap();
    fixture.run("check-backend", "tool").expect_stderr(0, &[]);
    fixture.run("build-backend", "tool").expect_stderr(0, &["is up to date"]);

    // An in-tree backend has nothing to patch.
    std::fs::write(fixture.sandbox.project.join("compiler-patches/tool/series"), "0001-x.patch\n").unwrap();
    std::fs::write(fixture.sandbox.project.join("compiler-patches/tool/0001-x.patch"), "").unwrap();
    fixture.refused("build-backend", "tool", &["is built in-tree, so it has nothing to patch"]);
}

#[test]
fn a_registry_package_upstream_is_unpacked_at_its_version_patched_and_guarded() {
    let fixture = Fixture::new();
    fixture.publish("0.1.0");
    fixture.describe_package("0.1.0");
    fixture
        .run("build-backend", "up")
        .expect_stderr(0, &["unpacked up 0.1.0", "patch 2/2", "[6/6] write PROVENANCE"]);
    let [install] = &fixture.installs("up")[..] else { panic!("one install: {:?}", fixture.installs("up")) };
    let output = Command::new(install.join("up")).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout), "hello there, GPU world\n", "both patches applied");
    let record = provenance(install);
    assert_eq!(record["upstream"].as_str(), Some("package up"));
    assert_eq!(record["pin"].as_str(), Some("0.1.0"));
    let archive = format!("{:x}", <sha2::Sha256 as sha2::Digest>::digest(b"up 0.1.0"));
    assert_eq!(record["revision"].as_str(), Some(format!("up 0.1.0 sha256:{archive}").as_str()));
    let vendor = fixture.sandbox.project.join("vendor/up");
    assert_eq!(
        std::fs::read_to_string(vendor.join("src/main.rs")).unwrap(),
        MAIN_RS,
        "the vendor tree is never patched"
    );
    fixture.run("check-backend", "up").expect_stderr(0, &[]);
    fixture.run("build-backend", "up").expect_stderr(0, &["is up to date"]);

    // A version the registry does not have: refused by name, the vendor tree left as it was.
    fixture.describe_package("0.2.0");
    fixture.refused("build-backend", "up", &["package `up` version 0.2.0 cannot be fetched"]);
    fixture.refused("check-backend", "up", &["stale pin"]);
    assert!(std::fs::read_to_string(vendor.join("Cargo.toml")).unwrap().contains("0.1.0"));

    // Once published, the new version replaces the vendor tree; switching back costs nothing.
    fixture.publish("0.2.0");
    fixture
        .run("build-backend", "up")
        .expect_stderr(0, &["unpacked up 0.2.0", "(it held up 0.1.0)", "[6/6]"]);
    assert!(std::fs::read_to_string(vendor.join("Cargo.toml")).unwrap().contains("0.2.0"));
    assert_eq!(fixture.installs("up").len(), 2);
    fixture.describe_package("0.1.0");
    fixture.run("build-backend", "up").expect_stderr(0, &["is up to date", "nothing to do"]);

    // A local edit of the vendor tree is refused by the guard and by an up-to-date build, and
    // before anything is fetched for another version.
    write(&vendor.join("src/target.rs"), "pub const TARGET: &str = \"edited in place\";\n");
    fixture.refused("check-backend", "up", &["has local changes", "M src/target.rs"]);
    fixture.refused("build-backend", "up", &["has local changes", "M src/target.rs"]);
    fixture.describe_package("0.3.0");
    fixture.refused("build-backend", "up", &["has local changes", "M src/target.rs"]);
}
