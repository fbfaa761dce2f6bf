//! `xtask/src/backend/` is drawn in layers with arrows one way: a module uses only modules of
//! its own layer or the layers above it, never one below (and `tests/module_imports.rs` holds
//! every crate, this one included, to no import circle, inside a layer too). This test reads the
//! modules' sources, so a new module must be placed in the table, and an import against the
//! layering fails here instead of growing a circle.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::module_graph::ModuleGraph;

/// The layers, from the bottom up (see `backend/mod.rs`).
const LAYERS: [(&str, &[&str]); 5] = [
    ("primitives", &["hash", "fs", "git", "lock", "error", "rustc"]),
    ("model", &["description", "series", "carried_record", "inputs", "provenance"]),
    ("fetch and apply", &["store", "upstream", "package", "snapshot", "apply"]),
    ("guard and prune", &["guard", "prune"]),
    ("flows", &["build", "carried", "upstream_tests", "snapshot_build"]),
];

fn backend_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src/backend"))
}

/// Each module's layer, by name.
fn layer_of() -> BTreeMap<&'static str, usize> {
    let mut layers = BTreeMap::new();
    for (index, (_, modules)) in LAYERS.iter().enumerate() {
        for module in *modules {
            assert!(layers.insert(*module, index).is_none(), "`{module}` is in two layers");
        }
    }
    layers
}

/// Every backend module's sibling modules it names (`"mod"` standing for `backend/mod.rs`
/// itself), outside its tests.
fn imports() -> BTreeMap<String, Vec<String>> {
    let crate_root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src/lib.rs"));
    let graph = ModuleGraph::of_crate(crate_root);
    let backend = vec!["backend".to_owned()];
    let mut siblings = BTreeMap::new();
    for (module, uses) in &graph.uses {
        let [first, name] = module.as_slice() else { continue };
        if first != "backend" {
            continue;
        }
        let used = uses
            .iter()
            .filter(|used| used.starts_with(&backend))
            .map(|used| used.get(1).cloned().unwrap_or_else(|| "mod".to_owned()))
            .collect();
        siblings.insert(name.clone(), used);
    }
    siblings
}

#[test]
fn every_backend_module_has_a_layer_and_says_what_it_owns() {
    let layers = layer_of();
    let graph = imports();
    for module in graph.keys() {
        assert!(layers.contains_key(module.as_str()), "`backend/{module}.rs` is in no layer of LAYERS");
        let source = std::fs::read_to_string(backend_dir().join(format!("{module}.rs"))).unwrap();
        let first = source.lines().next().unwrap_or_default();
        assert!(first.starts_with("//! ") && first.len() > 20, "`backend/{module}.rs` opens with `{first}`");
    }
    for module in layers.keys() {
        assert!(graph.contains_key(*module), "LAYERS names `{module}`, which is not a module of backend/");
    }
}

#[test]
fn backend_imports_point_up_the_layers_only() {
    let layers = layer_of();
    for (module, used) in imports() {
        let own = layers[module.as_str()];
        for name in used {
            let Some(&layer) = layers.get(name.as_str()) else {
                panic!("`{module}` reaches `{name}` through `backend/mod.rs`: name the module that owns it")
            };
            assert!(
                layer <= own,
                "`{module}` ({}) uses `{name}` ({}), a layer below it",
                LAYERS[own].0,
                LAYERS[layer].0
            );
        }
    }
}
