//! `bump-pin` end to end, offline, through the real `xtask` binary, on a backend the test
//! makes: `toyc`, a tiny code generator published at three versions into a registry of the
//! test's own (a cargo directory source the project's `.cargo/config.toml` puts in place of the
//! public registry). Its build writes the kernels' PTX, so "the kernels built with the backend"
//! are its product; the project carries one patch on it and has snapshots and a shapes table of
//! version 0.1.0's kernels.
//!
//! - 0.1.0: three entries (`copy`, `twice`, `same`);
//! - 0.2.0: `copy` loads through the non-coherent cache, `twice` multiplies instead of adding
//!   (one more register), `same` is unchanged;
//! - 0.3.0: upstream took the project's patch.

mod common;

use std::path::Path;

use common::git::{git, with_git_env};
use common::registry::{use_registry, write};
use common::run::Run;
use common::sandbox::Sandbox;
use regress::ptx::Module;
use regress::ptx::program::Program;
use regress::shapes::{Pin, Shape, ShapeTable};

const REFUSED: i32 = 70;

const MAIN_RS: &str = "const BANNER: &str = \"// toyc\";\nfn main() {\n    let out = std::env::args().nth(1).expect(\"an output path\");\n    let ptx = format!(\"{BANNER}\\n{}\", include_str!(\"kernels.ptx\"));\n    std::fs::write(out, ptx).expect(\"writing the PTX\");\n}\n";
const PATCHED_BANNER: &str = "// toyc, patched by the project";
const PATCH: &str = "diff --git a/src/main.rs b/src/main.rs\n--- a/src/main.rs\n+++ b/src/main.rs\n@@ -1,4 +1,4 @@\n-const BANNER: &str = \"// toyc\";\n+const BANNER: &str = \"// toyc, patched by the project\";\n fn main() {\n     let out = std::env::args().nth(1).expect(\"an output path\");\n     let ptx = format!(\"{BANNER}\\n{}\", include_str!(\"kernels.ptx\"));\n";

const HEADER: &str = ".version 8.6\n.target sm_90\n.address_size 64\n\n";
const COPY: &str = "\t// .globl\tcopy\n.visible .entry copy(\n\t.param .u64 .ptr .align 1 copy_param_0,\n\t.param .u64 .ptr .align 1 copy_param_1\n)\n{\n\t.reg .b32 \t%r<2>;\n\t.reg .b64 \t%rd<5>;\n\n\tld.param.b64 \t%rd1, [copy_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\tld.param.b64 \t%rd3, [copy_param_1];\n\tcvta.to.global.u64 \t%rd4, %rd3;\n\tld.global.b32 \t%r1, [%rd2];\n\tst.global.b32 \t[%rd4], %r1;\n\tret;\n}\n\n";
const TWICE: &str = "\t// .globl\ttwice\n.visible .entry twice(\n\t.param .u64 .ptr .align 1 twice_param_0\n)\n{\n\t.reg .b32 \t%r<3>;\n\t.reg .b64 \t%rd<3>;\n\n\tld.param.b64 \t%rd1, [twice_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\tld.global.b32 \t%r1, [%rd2];\n\tadd.s32 \t%r2, %r1, %r1;\n\tst.global.b32 \t[%rd2], %r2;\n\tret;\n}\n\n";
const SAME: &str = "\t// .globl\tsame\n.visible .entry same(\n\t.param .u64 .ptr .align 1 same_param_0\n)\n{\n\t.reg .b64 \t%rd<3>;\n\n\tld.param.b64 \t%rd1, [same_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\tst.global.b32 \t[%rd2], 0;\n\tret;\n}\n";

/// The kernels toyc emits at `version`.
fn kernels(version: &str) -> String {
    match version {
        "0.1.0" => format!("{HEADER}{COPY}{TWICE}{SAME}"),
        _ => {
            let copy = COPY.replace("ld.global.b32", "ld.global.nc.b32");
            let twice = TWICE.replace("%r<3>", "%r<4>").replace(
                "add.s32 \t%r2, %r1, %r1;\n\tst.global.b32 \t[%rd2], %r2;",
                "mul.lo.s32 \t%r3, %r1, 2;\n\tst.global.b32 \t[%rd2], %r3;",
            );
            format!("{HEADER}{copy}{twice}{SAME}")
        }
    }
}

/// A registry with toyc 0.1.0, 0.2.0 and 0.3.0, a project pinned at 0.1.0 carrying one patch,
/// with snapshots and shapes of 0.1.0's kernels, committed; a backends root.
struct Fixture {
    sandbox: Sandbox,
}

impl Fixture {
    fn new() -> Fixture {
        let sandbox = Sandbox::new("bump-pin-");
        let registry = sandbox.registry();
        for version in ["0.1.0", "0.2.0", "0.3.0"] {
            let main = if version == "0.3.0" {
                MAIN_RS.replace("// toyc", PATCHED_BANNER)
            } else {
                MAIN_RS.to_owned()
            };
            publish(&registry, version, &main, &kernels(version));
        }
        let project = sandbox.project.clone();
        write(
            &project.join("backends.toml"),
            "# The project's backends.\n[backend.toyc]\nsummary = \"a code generator made by the test\"\n\
             patches = \"compiler-patches/toyc\"\n\
             # toyc, pinned.\nupstream = { package = \"toyc\", version = \"0.1.0\", vendor = \"vendor/toyc\" }\n\
             build = { command = [\"cargo\", \"run\", \"--release\", \"--offline\", \"--quiet\", \"--\", \"kernels.ptx\"], \
             produces = [\"kernels.ptx\"] }\n",
        );
        write(&project.join("compiler-patches/toyc/0001-banner.patch"), PATCH);
        write(&project.join("compiler-patches/toyc/series"), "0001-banner.patch\n");
        use_registry(&project, &registry);
        write(&project.join(".gitignore"), "/vendor/\n/target/\n*.snap.new\n");
        // The snapshots and shapes the project committed for 0.1.0's kernels.
        let ptx = kernels("0.1.0");
        let module = Module::parse(&ptx).unwrap();
        for entry in module.entries() {
            let name = entry.name.clone().unwrap();
            let text = regress::snapshots::number_hashes(&regress::snapshots::render(&module, entry));
            write(
                &project.join(format!("ptx-snapshots/{name}.snap")),
                &format!("---\nsource: regress/src/snapshots.rs\n---\n{text}\n"),
            );
        }
        let shapes = Shape::all(&Program::read(&ptx).unwrap());
        let pin = Pin { date: "2026-11-30".into(), reason: "toyc 0.1.0".into() };
        write(&project.join("regress/ptx-shapes.tsv"), &ShapeTable::empty().update(&shapes, &pin).render());
        git(&project, &["init", "-q"]);
        git(&project, &["add", "-A"]);
        git(&project, &["commit", "-qm", "project at toyc 0.1.0"]);
        Fixture { sandbox }
    }

    fn bump(&self, args: &[&str]) -> Run {
        let mut command = self.sandbox.xtask(&[&["bump-pin"], args].concat());
        with_git_env(&mut command).env("INSTA_UPDATE", "new");
        let output = command.output().unwrap();
        Run::from(output)
    }

    fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.sandbox.project.join(path)).unwrap()
    }

    fn installs(&self) -> usize {
        std::fs::read_dir(self.sandbox.root.join("toyc"))
            .map(|entries| entries.flatten().filter(|e| e.path().join("PROVENANCE").is_file()).count())
            .unwrap_or(0)
    }
}

/// Publishes toyc `version` into the directory registry.
fn publish(registry: &Path, version: &str, main: &str, ptx: &str) {
    let files = [("src/main.rs".to_owned(), main.to_owned()), ("src/kernels.ptx".to_owned(), ptx.to_owned())];
    common::registry::publish(registry, "toyc", version, &files);
}

#[test]
fn a_bump_builds_both_sides_compares_them_and_leaves_the_review_to_a_person() {
    let fixture = Fixture::new();
    let head = git(&fixture.sandbox.project, &["rev-parse", "HEAD"]);
    let run = fixture.bump(&["toyc", "toyc=0.2.0"]);
    run.expect_output(
        0,
        &[
            "tagged",
            "unpacked toyc 0.2.0",
            "canon-check: 2/3 entries differ (",
            "snapshots: 2 of 3 entries differ from their snapshot",
            "kernel `twice` moved from its pin",
            "reg_32 3 -> 4",
        ],
    );
    // The summary line names each kind of difference: `copy` only by its `.nc` load, `twice` other.
    let line = run.stdout.lines().last().unwrap();
    assert!(
        line.starts_with("canon-check: 2/3 entries differ (1 ") && line.ends_with(", 1 other)"),
        "{line}"
    );
    assert!(line.contains(".nc"), "{line}");

    // The old pin is tagged at the commit the bump started from.
    assert_eq!(git(&fixture.sandbox.project, &["rev-parse", "pin/toyc-0.1.0^{commit}"]), head);
    // The new pin is written, the rest of the file as it was.
    let described = fixture.read("backends.toml");
    assert!(
        described.contains("# toyc, pinned.\nupstream = { package = \"toyc\", version = \"0.2.0\""),
        "{described}"
    );
    assert_eq!(git(&fixture.sandbox.project, &["status", "--porcelain"]), "M backends.toml");
    // Both backends are installed; both PTX builds are kept, with the patch applied to each.
    assert_eq!(fixture.installs(), 2);
    let bump = fixture.sandbox.project.join("target/bump/toyc-0.1.0-to-0.2.0");
    let old = std::fs::read_to_string(bump.join("old/kernels.ptx")).unwrap();
    let new = std::fs::read_to_string(bump.join("new/kernels.ptx")).unwrap();
    assert!(old.starts_with(PATCHED_BANNER) && new.starts_with(PATCHED_BANNER), "the series applies to both");
    assert!(!old.contains("ld.global.nc") && new.contains("ld.global.nc.b32"));
    // Exactly the changed entries are pending for `cargo insta review`.
    let pending =
        |entry: &str| fixture.sandbox.project.join(format!("ptx-snapshots/{entry}.snap.new")).is_file();
    assert_eq!([pending("copy"), pending("twice"), pending("same")], [true, true, false]);
    // The checklist, in order.
    let order = [
        "1. read canon-check",
        "2. `cargo insta review`",
        "3. `just shapes --update",
        "4. GPU gates",
        "5. `just test`",
        "6. commit",
    ];
    let at: Vec<usize> = order
        .iter()
        .map(|item| run.stdout.find(item).unwrap_or_else(|| panic!("{item}:\n{}", run.stdout)))
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{}", run.stdout);

    // Committed and bumped back: both backends are installed already, so nothing is built.
    git(&fixture.sandbox.project, &["commit", "-qam", "bump toyc to 0.2.0"]);
    let back = fixture.bump(&["toyc", "toyc=0.1.0"]);
    back.expect_output(0, &["tagged", "is up to date", "canon-check: 2/3 entries differ"]);
    assert!(!back.stderr.contains("[4/6] build"), "switching back builds nothing:\n{}", back.stderr);
    assert_eq!(
        git(&fixture.sandbox.project, &["rev-parse", "pin/toyc-0.2.0^{commit}"]),
        git(&fixture.sandbox.project, &["rev-parse", "HEAD"])
    );
    assert_eq!(fixture.installs(), 2);
}

#[test]
fn a_dirty_tree_a_pin_that_cannot_be_had_and_a_patch_upstream_took_are_refused_by_name() {
    let fixture = Fixture::new();
    let tags = || git(&fixture.sandbox.project, &["tag", "--list"]);

    write(&fixture.sandbox.project.join("notes.txt"), "work in progress\n");
    fixture
        .bump(&["toyc", "toyc=0.2.0"])
        .expect_output(REFUSED, &["needs a clean work tree", "?? notes.txt"]);
    std::fs::remove_file(fixture.sandbox.project.join("notes.txt")).unwrap();

    fixture
        .bump(&["toyc", "toyc=0.9.0"])
        .expect_output(REFUSED, &["package `toyc` version 0.9.0 cannot be fetched"]);
    fixture
        .bump(&["toyc", "rev=abcdef12"])
        .expect_output(REFUSED, &["backend `toyc` has no pin `rev`", "toyc=<version> (now 0.1.0)"]);
    assert_eq!(tags(), "", "nothing is tagged before the new pin is known to be there");
    assert_eq!(git(&fixture.sandbox.project, &["status", "--porcelain"]), "", "nothing is written either");

    // Upstream took the carried patch: the bump stops naming it, with the way back.
    fixture.bump(&["toyc", "toyc=0.3.0"]).expect_output(
        REFUSED,
        &[
            "`bump-pin toyc toyc=0.3.0`: the new backend does not build",
            "patch `0001-banner.patch` is already upstream",
            "drop this patch",
            "`git checkout -- backends.toml` goes back to the old one, tagged `pin/toyc-0.1.0`",
        ],
    );
}
