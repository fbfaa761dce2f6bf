//! No import circle anywhere in the repository: in every crate (libraries, binaries, integration
//! tests, the kernels, the blind rounds), no module names a module that, directly or through
//! others, names it back. A circle means two modules can only be understood, moved or tested
//! together; the fix is to move what both need into a module below them.

mod common;

use common::module_graph::{ModuleGraph, crate_roots};
use common::repository;

fn named(module: &[String]) -> String {
    if module.is_empty() { "crate".to_owned() } else { module.join("::") }
}

#[test]
fn no_crate_of_the_repository_has_an_import_circle() {
    let roots = crate_roots(repository());
    assert!(roots.len() > 20, "found only {} crate roots: is the repository walk broken?", roots.len());
    for root in roots {
        let graph = ModuleGraph::of_crate(&root);
        if let Some(circle) = graph.circle() {
            let files: Vec<String> =
                circle.iter().map(|m| format!("{} ({})", named(m), graph.files[m].display())).collect();
            panic!(
                "import circle in the crate of {}:\n  {}\nmove what these modules share into a module below them",
                root.display(),
                files.join("\n  -> ")
            );
        }
    }
}

/// A crate written into a scratch folder, its files given as (path, source).
fn scratch_crate(files: &[(&str, &str)]) -> (tempfile::TempDir, ModuleGraph) {
    let folder = tempfile::tempdir().unwrap();
    for (path, source) in files {
        let file = folder.path().join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, source).unwrap();
    }
    let graph = ModuleGraph::of_crate(&folder.path().join("lib.rs"));
    (folder, graph)
}

fn module(path: &str) -> Vec<String> {
    path.split("::").map(str::to_owned).collect()
}

#[test]
fn two_siblings_naming_each_other_are_a_circle() {
    let (_folder, graph) = scratch_crate(&[
        ("lib.rs", "mod a;\nmod b;\n"),
        ("a.rs", "use crate::b::B;\npub struct A(B);\n"),
        ("b/mod.rs", "pub struct B;\nfn f() -> super::a::A { todo!() }\n"),
    ]);
    let circle = graph.circle().expect("a -> b -> a is a circle");
    assert_eq!(circle.first(), circle.last());
    assert_eq!(circle.len(), 3, "{circle:?}");
}

#[test]
fn a_circle_through_a_grouped_import_and_a_nested_module_is_found() {
    let (_folder, graph) = scratch_crate(&[
        ("lib.rs", "pub mod verify;\n"),
        ("verify/mod.rs", "pub mod facts;\npub mod typestate;\n"),
        ("verify/facts.rs", "use super::{typestate::{KEEP, Step}};\npub type V = u64;\n"),
        ("verify/typestate.rs", "pub const KEEP: u64 = crate::verify::facts::V::MAX;\npub struct Step;\n"),
    ]);
    let circle = graph.circle().expect("facts -> typestate -> facts");
    assert!(circle.contains(&module("verify::facts")) && circle.contains(&module("verify::typestate")));
}

#[test]
fn ancestors_and_test_modules_are_not_circles() {
    // A child uses its parent's items (the parent declares it); a test module reaches anywhere.
    let (_folder, graph) = scratch_crate(&[
        ("lib.rs", "mod a;\nmod b;\npub use a::A;\npub struct Root;\n"),
        ("a.rs", "use crate::Root;\npub struct A(Root);\n#[cfg(test)]\nmod tests { use crate::b::B; }\n"),
        ("b.rs", "use super::a::A;\npub struct B(A);\n"),
    ]);
    assert_eq!(graph.circle(), None);
    assert!(graph.uses[&module("b")].contains(&module("a")), "{:?}", graph.uses);
    assert!(
        !graph.uses[&module("a")].contains(&module("b")),
        "the test module's import counted: {:?}",
        graph.uses
    );
}
