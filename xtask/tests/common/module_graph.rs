//! The module graph of a crate, read from its sources with `syn`: which module names which other
//! module of the same crate (through `use`, or a path in code), outside `#[cfg(test)]` items.
//!
//! Modules are found the way rustc finds them, from the crate root through `mod` items (inline
//! or in `name.rs` / `name/mod.rs`, or a `#[path]`), so a file no root declares is not in any
//! graph. A path is attributed to the longest module of the crate it names (`crate::a::b::Item`
//! is module `a::b`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// A module's path from the crate root (empty for the root).
pub type Module = Vec<String>;

/// One crate's modules and what each names.
#[derive(Debug, Default)]
pub struct ModuleGraph {
    /// Each module and the file it is written in.
    pub files: BTreeMap<Module, PathBuf>,
    /// Each module's references to other modules of the crate (ancestors included).
    pub uses: BTreeMap<Module, BTreeSet<Module>>,
}

impl ModuleGraph {
    /// The graph of the crate whose root file is `root`.
    pub fn of_crate(root: &Path) -> ModuleGraph {
        let mut graph = ModuleGraph::default();
        let mut raw: Vec<(Module, Vec<Reference>)> = Vec::new();
        graph.read_file(root, Vec::new(), true, &mut raw);
        for (module, references) in raw {
            let resolved: BTreeSet<Module> = references
                .iter()
                .filter_map(|r| graph.resolve(&module, r))
                .filter(|m| *m != module)
                .collect();
            graph.uses.entry(module).or_default().extend(resolved);
        }
        graph
    }

    /// The first import circle between modules, if any: a module naming a module that names it
    /// back, directly or through others. A module naming one of its ancestors is not an edge (its
    /// ancestor declares it, so their items are its enclosing scope).
    pub fn circle(&self) -> Option<Vec<Module>> {
        fn visit(
            module: &Module,
            graph: &ModuleGraph,
            path: &mut Vec<Module>,
            done: &mut BTreeSet<Module>,
        ) -> Option<Vec<Module>> {
            if done.contains(module) {
                return None;
            }
            if let Some(start) = path.iter().position(|m| m == module) {
                let mut circle = path[start..].to_vec();
                circle.push(module.clone());
                return Some(circle);
            }
            path.push(module.clone());
            for next in graph.uses.get(module).into_iter().flatten() {
                if module.starts_with(next) {
                    continue;
                }
                if let Some(circle) = visit(next, graph, path, done) {
                    return Some(circle);
                }
            }
            path.pop();
            done.insert(module.clone());
            None
        }
        let mut done = BTreeSet::new();
        self.files.keys().find_map(|module| visit(module, self, &mut Vec::new(), &mut done))
    }

    fn read_file(
        &mut self,
        file: &Path,
        module: Module,
        owns_directory: bool,
        raw: &mut Vec<(Module, Vec<Reference>)>,
    ) {
        let source = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let parsed =
            syn::parse_file(&source).unwrap_or_else(|e| panic!("{}: does not parse: {e}", file.display()));
        // Where `mod name;` looks for its file: beside a root or `mod.rs`, else in a folder named
        // after this file.
        let parent = file.parent().unwrap_or(Path::new("."));
        let directory = if owns_directory {
            parent.to_path_buf()
        } else {
            parent.join(file.file_stem().unwrap_or_default())
        };
        self.read_items(&parsed.items, file, module, &directory, raw);
    }

    fn read_items(
        &mut self,
        items: &[syn::Item],
        file: &Path,
        module: Module,
        directory: &Path,
        raw: &mut Vec<(Module, Vec<Reference>)>,
    ) {
        self.files.insert(module.clone(), file.to_path_buf());
        let mut collector = Collector::default();
        for item in items {
            if is_test_only(item_attributes(item)) {
                continue;
            }
            let syn::Item::Mod(declared) = item else {
                collector.visit_item(item);
                continue;
            };
            let mut child = module.clone();
            child.push(declared.ident.to_string());
            match &declared.content {
                Some((_, inner)) => {
                    let inner_directory = directory.join(declared.ident.to_string());
                    self.read_items(inner, file, child, &inner_directory, raw);
                }
                None => {
                    let Some((child_file, owns)) = module_file(declared, file, directory) else { continue };
                    self.read_file(&child_file, child, owns, raw);
                }
            }
        }
        raw.push((module, collector.references));
    }

    /// The module of this crate `reference`, made in `module`, names.
    fn resolve(&self, module: &Module, reference: &Reference) -> Option<Module> {
        let mut target: Module = match reference.anchor {
            Anchor::Crate => Vec::new(),
            Anchor::Super(levels) => module[..module.len().checked_sub(levels)?].to_vec(),
            Anchor::Relative => module.clone(),
        };
        let mut found = None;
        if reference.anchor != Anchor::Relative {
            found = Some(target.clone());
        }
        for segment in &reference.segments {
            target.push(segment.clone());
            if self.files.contains_key(&target) {
                found = Some(target.clone());
            } else {
                break;
            }
        }
        found
    }
}

/// The file a `mod name;` item is written in, and whether that file owns its folder (`mod.rs`).
fn module_file(declared: &syn::ItemMod, file: &Path, directory: &Path) -> Option<(PathBuf, bool)> {
    let name = declared.ident.to_string();
    if let Some(path) = path_attribute(&declared.attrs) {
        // A template's hole (`{device}`) is filled when the crate is generated.
        if path.contains('{') {
            return None;
        }
        let base = file.parent().unwrap_or(Path::new("."));
        return Some((base.join(path), true));
    }
    let beside = directory.join(format!("{name}.rs"));
    if beside.exists() {
        return Some((beside, false));
    }
    let nested = directory.join(&name).join("mod.rs");
    assert!(
        nested.exists(),
        "{}: `mod {name};` has no file ({} or {})",
        file.display(),
        beside.display(),
        nested.display()
    );
    Some((nested, true))
}

fn path_attribute(attributes: &[syn::Attribute]) -> Option<String> {
    attributes.iter().find(|a| a.path().is_ident("path")).and_then(|a| match &a.meta {
        syn::Meta::NameValue(syn::MetaNameValue { value: syn::Expr::Lit(lit), .. }) => match &lit.lit {
            syn::Lit::Str(text) => Some(text.value()),
            _ => None,
        },
        _ => None,
    })
}

fn is_test_only(attributes: &[syn::Attribute]) -> bool {
    attributes
        .iter()
        .any(|a| a.path().is_ident("cfg") && a.parse_args::<syn::Path>().is_ok_and(|p| p.is_ident("test")))
}

fn item_attributes(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

/// Where a path starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Anchor {
    Crate,
    /// `super::` this many times (`self::` is zero).
    Super(usize),
    /// A plain name: a child module of the module the path is written in, if any.
    Relative,
}

#[derive(Debug)]
struct Reference {
    anchor: Anchor,
    segments: Vec<String>,
}

fn reference(segments: &[String]) -> Option<Reference> {
    let first = segments.first()?;
    let (anchor, skipped) = match first.as_str() {
        "crate" => (Anchor::Crate, 1),
        "self" | "super" => {
            let levels = segments.iter().take_while(|s| *s == "super").count();
            let skipped = if first == "self" { 1 } else { levels };
            (Anchor::Super(levels), skipped)
        }
        "Self" => return None,
        _ => (Anchor::Relative, 0),
    };
    Some(Reference { anchor, segments: segments[skipped..].to_vec() })
}

/// The references of one module's own items (its child modules are read on their own).
#[derive(Default)]
struct Collector {
    references: Vec<Reference>,
}

impl Collector {
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => self.push_with(prefix, &n.ident),
            syn::UseTree::Rename(r) => self.push_with(prefix, &r.ident),
            syn::UseTree::Glob(_) => self.references.extend(reference(prefix)),
            syn::UseTree::Group(g) => {
                for item in &g.items {
                    self.use_tree(prefix, item);
                }
            }
        }
    }

    fn push_with(&mut self, prefix: &[String], last: &syn::Ident) {
        let mut segments = prefix.to_vec();
        if last != "self" {
            segments.push(last.to_string());
        }
        self.references.extend(reference(&segments));
    }
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &item.tree);
    }

    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {
        // A module nested in a function body: rare, and read as part of nothing.
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if segments.len() > 1 {
            self.references.extend(reference(&segments));
        }
        syn::visit::visit_path(self, path);
    }
}

/// Every crate root of the repository at `repository` (libraries, binaries, integration tests
/// and benchmarks of every package outside `vendor/` and build output).
pub fn crate_roots(repository: &Path) -> Vec<PathBuf> {
    let mut roots = Vec::new();
    let packages = super::project_files(repository).filter(|e| e.file_name() == "Cargo.toml");
    for manifest in packages {
        let package = manifest.path().parent().unwrap();
        for root in ["src/lib.rs", "src/main.rs"] {
            let file = package.join(root);
            if file.exists() {
                roots.push(file);
            }
        }
        for folder in ["src/bin", "tests", "benches"] {
            let Ok(entries) = std::fs::read_dir(package.join(folder)) else { continue };
            for entry in entries.filter_map(Result::ok) {
                let path = entry.path();
                if path.extension().is_some_and(|x| x == "rs") {
                    roots.push(path);
                }
            }
        }
    }
    roots.sort();
    roots
}
