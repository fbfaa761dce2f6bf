//! `xtask/src/backend/` is drawn in layers with arrows one way: a module uses only modules of
//! its own layer or the layers above it, never one below, and no import circle exists inside a
//! layer either. This test reads the modules' sources, so a new module must be placed in the
//! table, and an import against the layering fails here instead of growing a circle.

use std::collections::BTreeMap;
use std::path::Path;

/// The layers, from the bottom up (see `backend/mod.rs`).
const LAYERS: [(&str, &[&str]); 5] = [
    ("primitives", &["hash", "fs", "git", "lock", "error", "rustc"]),
    ("model", &["description", "series", "carried_record", "inputs", "provenance"]),
    ("fetch and apply", &["store", "upstream", "package", "apply"]),
    ("guard and prune", &["guard", "prune"]),
    ("flows", &["build", "carried", "upstream_tests"]),
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

/// The sibling names a module's code reaches through `super::` (outside its tests, where
/// `super` is the module itself) or `crate::backend::`, comments left out.
fn references(source: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut in_tests = false;
    for line in source.lines() {
        let code = line.split("//").next().unwrap_or_default();
        in_tests |= line.trim() == "#[cfg(test)]";
        let prefixes: &[&str] =
            if in_tests { &["crate::backend::"] } else { &["super::", "crate::backend::"] };
        for prefix in prefixes {
            for (at, _) in code.match_indices(prefix) {
                let rest = &code[at + prefix.len()..];
                if let Some(group) = rest.strip_prefix('{') {
                    let group = group.split('}').next().unwrap_or_default();
                    names.extend(group.split(',').map(|item| first_segment(item.trim())));
                } else {
                    names.push(first_segment(rest));
                }
            }
        }
    }
    names.retain(|name| !name.is_empty() && name != "*" && name != "self");
    names
}

fn first_segment(path: &str) -> String {
    path.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '*').collect()
}

/// Every module's sibling modules, by the table's names.
fn imports() -> BTreeMap<String, Vec<String>> {
    let mut graph = BTreeMap::new();
    for entry in std::fs::read_dir(backend_dir()).unwrap() {
        let path = entry.unwrap().path();
        let Some(module) = path.file_stem().map(|s| s.to_string_lossy().into_owned()) else { continue };
        if module == "mod" || path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let source = std::fs::read_to_string(&path).unwrap();
        let mut used = references(&source);
        used.retain(|name| name != &module);
        used.sort();
        used.dedup();
        graph.insert(module, used);
    }
    graph
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

#[test]
fn backend_modules_import_no_circle() {
    let graph = imports();
    // Depth-first, with the path so far: a module met again on it closes a circle.
    fn visit(
        module: &str,
        graph: &BTreeMap<String, Vec<String>>,
        path: &mut Vec<String>,
        done: &mut Vec<String>,
    ) {
        if done.iter().any(|m| m == module) {
            return;
        }
        if let Some(start) = path.iter().position(|m| m == module) {
            panic!("import circle: {} -> {module}", path[start..].join(" -> "));
        }
        path.push(module.to_owned());
        for next in graph.get(module).into_iter().flatten() {
            visit(next, graph, path, done);
        }
        path.pop();
        done.push(module.to_owned());
    }
    let mut done = Vec::new();
    for module in graph.keys() {
        visit(module, &graph, &mut Vec::new(), &mut done);
    }
}

#[test]
fn the_reader_sees_grouped_imports_and_skips_comments_and_test_modules() {
    let source = "//! [`super::guard`]\nuse super::{git::git, package};\nuse super::hash::FileHash;\n\
                  fn f() { crate::backend::lock::Lock::acquire(); } // super::build\n\
                  #[cfg(test)]\nmod tests {\n    use super::*;\n    use super::f;\n    use crate::backend::rustc::Rustc;\n}\n";
    assert_eq!(references(source), ["git", "package", "hash", "lock", "rustc"]);
}
