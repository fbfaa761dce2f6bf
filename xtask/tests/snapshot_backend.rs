//! A snapshot upstream end to end, offline, through the real `xtask` binary: the test makes an
//! upstream git repository (a crate whose generator writes one of its sources, committed as
//! generated), vendors it with `vendor-snapshot`, builds it with a series of one patch, the
//! generator run as `prepare` and the crate's own test as `tests`, then edits the vendored
//! files, the series and the generator and reads what `check-backend` and `build-backend` say.

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::git::{git, with_git_env};
use common::registry::{manifest, write};
use common::run::Run;
use common::sandbox::Sandbox;

const REFUSED: i32 = 70;

const MAIN_RS: &str = "mod generated;\n\nfn main() {\n    println!(\"{}, world\", generated::GREETING);\n}\n\n\
                       #[test]\nfn the_greeting_is_generated() {\n    assert_eq!(generated::GREETING, \"hello\");\n}\n";
const GENERATED_RS: &str = "pub const GREETING: &str = \"hello\";\n";
const GEN_RS: &str = "fn main() {\n    std::fs::write(\"src/generated.rs\", \"pub const GREETING: &str = \\\"hello\\\";\\n\").unwrap();\n}\n";

struct Fixture {
    sandbox: Sandbox,
    upstream: PathBuf,
    commit: String,
}

impl Fixture {
    fn new() -> Fixture {
        let sandbox = Sandbox::new("snapshot-backend-");
        let upstream = sandbox.dir.path().join("upstream");
        let bins = "[[bin]]\nname = \"up\"\npath = \"src/main.rs\"\n\n[[bin]]\nname = \"gen\"\npath = \"gen/main.rs\"\n";
        write(&upstream.join("Cargo.toml"), &manifest("up", "0.1.0", bins));
        write(&upstream.join("src/main.rs"), MAIN_RS);
        write(&upstream.join("src/generated.rs"), GENERATED_RS);
        write(&upstream.join("gen/main.rs"), GEN_RS);
        write(&upstream.join("docs/book.md"), "not vendored\n");
        git(&upstream, &["init", "-q"]);
        git(&upstream, &["add", "-A"]);
        git(&upstream, &["commit", "-qm", "base"]);
        let commit = git(&upstream, &["rev-parse", "HEAD"]);

        let project = sandbox.project.clone();
        write(&upstream.join("src/main.rs"), &MAIN_RS.replace("{}, world", "{} there, world"));
        write(
            &project.join("compiler-patches/up/0001-greeting.patch"),
            &format!("{}\n", git(&upstream, &["diff"])),
        );
        git(&upstream, &["checkout", "-q", "--", "."]);
        write(&project.join("compiler-patches/up/series"), "# carried on `up`\n0001-greeting.patch\n");
        let text = format!(
            "[backend.up]\nsummary = \"a snapshot made by the test\"\npatches = \"compiler-patches/up\"\n\
             upstream = {{ git = {url:?}, commit = \"{commit}\", vendor = \"vendor/up\", paths = [\"Cargo.toml\", \"src\", \"gen\"], \
             regenerated = [\"src/generated.rs\"] }}\n\
             prepare = [[\"cargo\", \"run\", \"--offline\", \"--quiet\", \"--bin\", \"gen\"]]\n\
             build = {{ command = [\"cargo\", \"build\", \"--release\", \"--offline\", \"--quiet\", \"--bin\", \"up\"], produces = [\"target/release/up\"] }}\n\
             tests = [[\"cargo\", \"test\", \"--offline\", \"--bin\", \"up\"]]\n",
            url = upstream.to_string_lossy()
        );
        write(&project.join("backends.toml"), &text);
        Fixture { sandbox, upstream, commit }
    }

    fn run(&self, args: &[&str]) -> Run {
        let mut command: Command = self.sandbox.xtask(args);
        with_git_env(&mut command);
        Run::from(command.output().unwrap())
    }

    fn vendor(&self) -> Run {
        let git_dir = self.upstream.join(".git");
        self.run(&["vendor-snapshot", "up", "--from", git_dir.to_str().unwrap()])
    }

    fn install(&self) -> PathBuf {
        let installs: Vec<PathBuf> = std::fs::read_dir(self.sandbox.root.join("up"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir())
            .collect();
        let [install] = &installs[..] else { panic!("one install: {installs:?}") };
        install.clone()
    }
}

#[test]
fn a_snapshot_is_vendored_with_gits_ids_built_regenerated_tested_and_guarded() {
    let fixture = Fixture::new();
    fixture.vendor().expect_output(0, &["3 files, 1 regenerated"]);
    let vendor = fixture.sandbox.project.join("vendor/up");
    assert!(
        vendor.join("src/main.rs").is_file() && !vendor.join("docs").exists(),
        "only `paths` are vendored"
    );
    assert!(!vendor.join("src/generated.rs").exists(), "a regenerated file is recorded, not vendored");

    let built = fixture.run(&["build-backend", "up"]);
    built.expect_stderr(0, &["[8/8] write PROVENANCE", "regenerated src/generated.rs", "1 passed"]);
    let install = fixture.install();
    let output = Command::new(install.join("up")).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout), "hello there, world\n", "the series is applied");

    let record: toml::Table =
        toml::from_str(&std::fs::read_to_string(install.join("PROVENANCE")).unwrap()).unwrap();
    assert_eq!(record["pin"].as_str(), Some(fixture.commit.as_str()));
    let snapshot = &record["snapshots"].as_array().unwrap()[0];
    let ids: Vec<(String, String)> = snapshot["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["path"].as_str().unwrap().to_owned(), p["id"].as_str().unwrap().to_owned()))
        .collect();
    for (path, id) in &ids {
        assert_eq!(
            id,
            &git(&fixture.upstream, &["rev-parse", &format!("HEAD:{path}")]),
            "{path}: git's own id"
        );
    }
    let regenerated = &snapshot["regenerated"].as_array().unwrap()[0];
    assert_eq!(
        regenerated["id"].as_str().unwrap(),
        git(&fixture.upstream, &["rev-parse", "HEAD:src/generated.rs"])
    );
    fixture.run(&["check-backend", "up"]).expect_stderr(0, &[]);

    // A hand edit of a vendored file is refused by name, before anything is built.
    let main_rs = vendor.join("src/main.rs");
    std::fs::write(&main_rs, MAIN_RS.replace("world", "GPU")).unwrap();
    fixture.run(&["check-backend", "up"]).expect_stderr(REFUSED, &["local changes", "M src/main.rs"]);
    fixture.run(&["build-backend", "up"]).expect_stderr(REFUSED, &["M src/main.rs"]);
    fixture.vendor().expect_output(0, &[]);
    fixture.run(&["check-backend", "up"]).expect_stderr(0, &[]);

    // A patch added after the build makes the install stale.
    let patches = fixture.sandbox.project.join("compiler-patches/up");
    let series = std::fs::read_to_string(patches.join("series")).unwrap();
    std::fs::write(patches.join("0002-generator.patch"), generator_patch(&fixture)).unwrap();
    std::fs::write(patches.join("series"), format!("{series}0002-generator.patch\n")).unwrap();
    fixture.run(&["check-backend", "up"]).expect_stderr(REFUSED, &["0002-generator.patch"]);

    // That patch changes what the generator writes: the build refuses the regenerated file.
    fixture.run(&["build-backend", "up"]).expect_stderr(
        REFUSED,
        &[
            "regenerated src/generated.rs as",
            &git(&fixture.upstream, &["rev-parse", "HEAD:src/generated.rs"]),
        ],
    );
}

/// A patch that makes the generator write another greeting.
fn generator_patch(fixture: &Fixture) -> String {
    let file = fixture.upstream.join("gen/main.rs");
    write(&file, &GEN_RS.replace("hello", "bonjour"));
    let patch = git(&fixture.upstream, &["diff"]);
    git(&fixture.upstream, &["checkout", "-q", "--", "."]);
    format!("{patch}\n")
}

#[test]
fn a_patch_that_breaks_the_upstreams_own_test_is_refused_naming_the_test() {
    let fixture = Fixture::new();
    fixture.vendor().expect_output(0, &[]);
    let main_rs = fixture.upstream.join("src/main.rs");
    write(&main_rs, &MAIN_RS.replace("GREETING, \"hello\")", "GREETING, \"hi\")"));
    let patch = format!("{}\n", git(&fixture.upstream, &["diff"]));
    git(&fixture.upstream, &["checkout", "-q", "--", "."]);
    let patches = fixture.sandbox.project.join("compiler-patches/up");
    std::fs::write(patches.join("0002-test.patch"), patch).unwrap();
    std::fs::write(patches.join("series"), "0001-greeting.patch\n0002-test.patch\n").unwrap();
    let refused = fixture.run(&["build-backend", "up"]);
    refused
        .expect_stderr(REFUSED, &["fails its own test suite", "the_greeting_is_generated", "up-tests.log"]);
    let log = fixture.sandbox.project.join("target/backend-build/up-tests.log");
    assert!(
        std::fs::read_to_string(log).unwrap().contains("the_greeting_is_generated"),
        "the report is kept"
    );
    assert!(
        !fixture.sandbox.root.join("up").exists()
            || fixture
                .sandbox
                .root
                .join("up")
                .read_dir()
                .unwrap()
                .all(|e| { !e.unwrap().path().join("PROVENANCE").exists() }),
        "nothing is installed"
    );
}

#[test]
fn a_missing_snapshot_and_a_missing_generated_file_are_refused() {
    let fixture = Fixture::new();
    fixture
        .run(&["check-backend", "up"])
        .expect_stderr(REFUSED, &["vendor/up", "does not hold its upstream"]);
    // A `prepare` that builds the generator but never runs it leaves the regenerated file missing.
    fixture.vendor().expect_output(0, &[]);
    let backends = fixture.sandbox.project.join("backends.toml");
    let text = std::fs::read_to_string(&backends)
        .unwrap()
        .replace("\"run\", \"--offline\"", "\"build\", \"--offline\"");
    std::fs::write(&backends, text).unwrap();
    fixture
        .run(&["build-backend", "up"])
        .expect_stderr(REFUSED, &["regenerated src/generated.rs as nothing"]);
}
