//! `backends.toml`: what each backend is built from, how, and what the build produces.
//!
//! ```toml
//! [backend.NAME]
//! summary = "one line for people"
//! patches = "compiler-patches/NAME"        # holds `series` and the .patch files it names
//! upstream = { git = "URL", pin = "9df9e7ce", vendor = "vendor/NAME" }
//! # or, for a package of the cargo registry at one exact version (fetched with `cargo vendor`,
//! # through whatever registry or mirror the project's cargo configuration names):
//! upstream = { package = "NAME", version = "1.2.3", vendor = "vendor/NAME" }
//! # or, for a backend built from this repository's own sources:
//! upstream = { in-tree = ["plugin", "Cargo.lock"] }  # files and folders whose content keys the build
//! build = { command = ["cargo", "build", "--release"], produces = ["target/release/tool"] }
//! # An in-tree backend may carry registry packages it depends on, each vendored at an exact
//! # version with its own series; the build then runs in a work copy of the workspace where
//! # each patched package replaces the registry's (`[patch]`). `pristine` builds named products
//! # again at the project root, against the unpatched packages, installed as `NAME-pristine`.
//! carry = [{ package = "NAME", version = "1.2.3", vendor = "vendor/NAME", patches = "compiler-patches/NAME",
//!            skip-tests = ["integration test that needs crates the package does not declare"] }]
//! pristine = { command = ["cargo", "build", "--release"], produces = ["target/release/probe"] }
//! ```
//!
//! Relative paths are taken from the project root (the folder holding `backends.toml`); the build
//! command runs in the patched work copy (git and package upstreams) or at the project root (in-tree), and
//! `produces` is relative to that same folder.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::error::BackendError;

/// The file name of the description at the project root.
pub const DESCRIPTION_FILE: &str = "backends.toml";

/// One declared backend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backend {
    pub name: String,
    pub summary: String,
    pub upstream: Upstream,
    /// Absolute: the folder holding `series` and the patches.
    pub patches: PathBuf,
    pub build: Build,
    /// Registry packages an in-tree backend carries patches on (empty otherwise).
    pub carried: Vec<Carried>,
    /// A build against the pristine packages, for comparing with the carried ones.
    pub pristine: Option<Build>,
}

/// A registry package an in-tree backend carries a patch series on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Carried {
    pub package: String,
    pub version: String,
    /// Absolute: where the pristine package is unpacked.
    pub vendor: PathBuf,
    /// Absolute: the folder holding its `series` and patches.
    pub patches: PathBuf,
    /// Integration tests of the package that are not run on the patched copy, because they
    /// do not build from the package alone (they need crates it does not declare).
    pub skip_tests: Vec<String>,
}

/// The suffix of the file names pristine products are installed under.
pub const PRISTINE_SUFFIX: &str = "-pristine";

/// Where a backend's source comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Upstream {
    /// A git repository at a pinned revision (short or full), materialised into `vendor`.
    Git { url: String, pin: String, vendor: PathBuf },
    /// A package of the cargo registry at an exact version, unpacked into `vendor`.
    Package { package: String, version: String, vendor: PathBuf },
    /// This repository's own sources; `inputs` (relative to the root) key the build.
    InTree { inputs: Vec<PathBuf> },
}

/// How to build a backend and what to install from the build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Build {
    /// Program and arguments, run without a shell. `cargo` means the cargo running xtask.
    pub command: Vec<String>,
    /// Files the build leaves, relative to the folder the command runs in. Each is installed
    /// under its file name.
    pub produces: Vec<PathBuf>,
}

impl Backend {
    /// The file name each product is installed under.
    pub fn product_names(&self) -> Vec<String> {
        let pristine = self.pristine.iter().flat_map(|build| &build.produces);
        let pristine = pristine.map(|p| format!("{}{PRISTINE_SUFFIX}", file_name(p)));
        self.build.produces.iter().map(|p| file_name(p)).chain(pristine).collect()
    }
}

fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// Reads the description at `root/backends.toml` and returns backend `name`.
pub fn read_backend(root: &Path, name: &str) -> Result<Backend, BackendError> {
    let file = root.join(DESCRIPTION_FILE);
    let text = std::fs::read_to_string(&file).map_err(|error| BackendError::BadDescription {
        file: file.clone(),
        reason: format!("cannot be read ({error}); every project that carries a backend declares it there"),
    })?;
    let mut backends = parse(&text, root, &file)?;
    let known = backends.keys().cloned().collect::<Vec<_>>().join(", ");
    backends.remove(name).ok_or_else(|| BackendError::UnknownBackend { name: name.to_owned(), file, known })
}

/// Parses the text of a description; relative paths are resolved against `root`.
pub fn parse(text: &str, root: &Path, file: &Path) -> Result<BTreeMap<String, Backend>, BackendError> {
    let bad = |reason: String| BackendError::BadDescription { file: file.to_owned(), reason };
    let raw: format::File = toml::from_str(text).map_err(|error| bad(error.to_string()))?;
    let mut backends = BTreeMap::new();
    for (name, entry) in raw.backend {
        let in_backend = |what: &str| bad(format!("backend `{name}`: {what}"));
        if !valid_name(&name) {
            return Err(in_backend("a name is letters, digits, `-` and `_` (it names folders)"));
        }
        let source = entry.upstream;
        let upstream =
            match (source.git, source.pin, source.package, source.version, source.vendor, source.in_tree) {
                (Some(url), Some(pin), None, None, Some(vendor), None) => {
                    if !valid_pin(&pin) {
                        return Err(in_backend("`pin` is a commit id: 7 to 40 hexadecimal digits"));
                    }
                    Upstream::Git { url, pin: pin.to_lowercase(), vendor: root.join(vendor) }
                }
                (None, None, Some(package), Some(version), Some(vendor), None) => {
                    if !valid_name(&package) {
                        return Err(in_backend("`package` is a package name: letters, digits, `-` and `_`"));
                    }
                    if !valid_version(&version) {
                        return Err(in_backend(
                            "`version` is one exact version, MAJOR.MINOR.PATCH (a pin, not a range)",
                        ));
                    }
                    Upstream::Package { package, version, vendor: root.join(vendor) }
                }
                (None, None, None, None, None, Some(inputs)) if !inputs.is_empty() => {
                    Upstream::InTree { inputs }
                }
                _ => {
                    return Err(in_backend(
                        "`upstream` is one of { git, pin, vendor }, { package, version, vendor } or \
                     { in-tree = [paths that key the build] }",
                    ));
                }
            };
        if entry.build.command.is_empty() {
            return Err(in_backend("`build.command` is empty"));
        }
        if entry.build.produces.is_empty() {
            return Err(in_backend("`build.produces` names no file to install"));
        }
        let mut names: Vec<String> = entry.build.produces.iter().map(|p| file_name(p)).collect();
        names.sort();
        if names.iter().any(String::is_empty) || names.windows(2).any(|w| w[0] == w[1]) {
            return Err(in_backend("`build.produces` must name files with distinct file names"));
        }
        let mut carried = Vec::new();
        for carry in entry.carry {
            if !valid_name(&carry.package) || !valid_version(&carry.version) {
                return Err(in_backend(
                    "each `carry` entry names a package and one exact version, MAJOR.MINOR.PATCH",
                ));
            }
            carried.push(Carried {
                package: carry.package,
                version: carry.version,
                vendor: root.join(carry.vendor),
                patches: root.join(carry.patches),
                skip_tests: carry.skip_tests,
            });
        }
        if !carried.is_empty() && !matches!(upstream, Upstream::InTree { .. }) {
            return Err(in_backend("`carry` is for in-tree backends; an upstream's own series patches it"));
        }
        if entry.pristine.is_some() && carried.is_empty() {
            return Err(in_backend("`pristine` builds against carried packages: add `carry`"));
        }
        let pristine = entry.pristine.map(|build| Build { command: build.command, produces: build.produces });
        let backend = Backend {
            name: name.clone(),
            summary: entry.summary,
            upstream,
            patches: root.join(entry.patches),
            build: Build { command: entry.build.command, produces: entry.build.produces },
            carried,
            pristine,
        };
        backends.insert(name, backend);
    }
    Ok(backends)
}

fn valid_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn valid_pin(pin: &str) -> bool {
    (7..=40).contains(&pin.len()) && pin.chars().all(|c| c.is_ascii_hexdigit())
}

/// An exact semantic version: three numbers, then an optional pre-release or build suffix.
fn valid_version(version: &str) -> bool {
    let core = version.split(['-', '+']).next().unwrap_or_default();
    let suffix_ok = version[core.len()..].chars().all(|c| c.is_ascii_alphanumeric() || "-+.".contains(c));
    let numbers: Vec<&str> = core.split('.').collect();
    numbers.len() == 3
        && numbers.iter().all(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        && suffix_ok
}

/// The shape of the file, for `toml`'s deserialiser.
mod format {
    use super::*;

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct File {
        pub backend: BTreeMap<String, Entry>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Entry {
        pub summary: String,
        pub patches: PathBuf,
        pub upstream: UpstreamEntry,
        pub build: BuildEntry,
        #[serde(default)]
        pub carry: Vec<CarryEntry>,
        pub pristine: Option<BuildEntry>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct CarryEntry {
        pub package: String,
        pub version: String,
        pub vendor: PathBuf,
        pub patches: PathBuf,
        #[serde(default, rename = "skip-tests")]
        pub skip_tests: Vec<String>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct UpstreamEntry {
        pub git: Option<String>,
        pub pin: Option<String>,
        pub package: Option<String>,
        pub version: Option<String>,
        pub vendor: Option<PathBuf>,
        #[serde(rename = "in-tree")]
        pub in_tree: Option<Vec<PathBuf>>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct BuildEntry {
        pub command: Vec<String>,
        pub produces: Vec<PathBuf>,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A description of backend `up` built by `cargo build` into `product`.
    fn up(summary: &str, upstream: &str, product: &str) -> String {
        format!(
            "\n[backend.up]\nsummary = \"{summary}\"\npatches = \"compiler-patches/up\"\nupstream = {upstream}\n\
             build = {{ command = [\"cargo\", \"build\"], produces = [\"{product}\"] }}\n"
        )
    }

    fn git() -> String {
        let upstream = r#"{ git = "https://example.org/up.git", pin = "9DF9E7CE", vendor = "vendor/up" }"#;
        up("a test upstream", upstream, "target/debug/up")
    }

    #[test]
    fn paths_resolve_against_the_root_and_pins_are_lowercase() {
        let backends = parse(&git(), Path::new("/repo"), Path::new("/repo/backends.toml")).unwrap();
        let up = &backends["up"];
        assert_eq!(up.patches, Path::new("/repo/compiler-patches/up"));
        assert_eq!(
            up.upstream,
            Upstream::Git {
                url: "https://example.org/up.git".into(),
                pin: "9df9e7ce".into(),
                vendor: "/repo/vendor/up".into()
            }
        );
        assert_eq!(up.product_names(), ["up"]);
    }

    fn package() -> String {
        up(
            "a test package",
            r#"{ package = "up-tool", version = "1.2.3", vendor = "vendor/up" }"#,
            "target/debug/up",
        )
    }

    #[test]
    fn a_package_upstream_is_pinned_to_one_exact_version() {
        let backends = parse(&package(), Path::new("/repo"), Path::new("/repo/backends.toml")).unwrap();
        assert_eq!(
            backends["up"].upstream,
            Upstream::Package {
                package: "up-tool".into(),
                version: "1.2.3".into(),
                vendor: "/repo/vendor/up".into()
            }
        );
        for version in ["1.2.3-beta.1", "0.0.1+build.5"] {
            assert!(valid_version(version), "{version}");
        }
        for version in ["1.2", "=1.2.3", "1.2.x", "1..3"] {
            assert!(!valid_version(version), "{version}");
        }
    }

    #[test]
    fn bad_descriptions_are_refused_naming_the_backend() {
        let (git, package, in_tree) = (git(), package(), in_tree());
        let cases = [
            (git.replace("9DF9E7CE", "main"), "`pin` is a commit id"),
            (git.replace("vendor = \"vendor/up\"", "in-tree = [\"x\"]"), "`upstream` is one of"),
            (package.replace("1.2.3", "^1.2"), "one exact version"),
            (package.replace("\"up-tool\"", "\"up tool\""), "`package` is a package name"),
            (git.replace("[\"target/debug/up\"]", "[]"), "names no file"),
            (git.replace("summary", "summery"), "unknown field"),
            (format!("{git}{CARRY}"), "`carry` is for in-tree backends"),
            (format!("{in_tree}pristine = {{ command = [\"cargo\"], produces = [\"p\"] }}\n"), "add `carry`"),
            (format!("{in_tree}{}", CARRY.replace("0.20.0", "0.20")), "one exact version"),
        ];
        for (text, expected) in cases {
            let error = parse(&text, Path::new("/r"), Path::new("/r/backends.toml")).unwrap_err().to_string();
            assert!(error.contains(expected), "{error}");
            assert!(error.contains("/r/backends.toml"), "{error}");
        }
    }

    fn in_tree() -> String {
        up("an in-tree tool", r#"{ in-tree = ["tool"] }"#, "target/debug/tool")
    }
    const CARRY: &str = "carry = [{ package = \"pliron\", version = \"0.20.0\", vendor = \"vendor/pliron\", patches = \"p/pliron\" }]\n";

    #[test]
    fn an_in_tree_backend_carries_packages_and_names_its_pristine_products() {
        let text = format!(
            "{}{CARRY}pristine = {{ command = [\"cargo\"], produces = [\"target/probe\"] }}\n",
            in_tree()
        );
        let backends = parse(&text, Path::new("/repo"), Path::new("/repo/backends.toml")).unwrap();
        let up = &backends["up"];
        assert_eq!(
            up.carried,
            [Carried {
                package: "pliron".into(),
                version: "0.20.0".into(),
                vendor: "/repo/vendor/pliron".into(),
                patches: "/repo/p/pliron".into(),
                skip_tests: vec![],
            }]
        );
        assert_eq!(up.product_names(), ["tool", "probe-pristine"]);
    }

    #[test]
    fn the_repositorys_default_backend_is_keyed_by_the_driver_sources() {
        let root = regress::layout::Layout::from_build().root().to_owned();
        let default = read_backend(&root, "default").unwrap();
        let Upstream::InTree { inputs } = &default.upstream else { panic!("default is built in-tree") };
        for needed in ["plugin/src", "plugin/driver/src", "Cargo.lock", "rust-toolchain.toml"] {
            assert!(
                inputs.iter().any(|i| i == Path::new(needed)),
                "{needed} does not key the default backend"
            );
        }
        // Tests, fixtures and the verifier corpus do not key it: the suite rewrites some of them.
        assert!(!inputs.iter().any(|i| i == Path::new("plugin") || i.starts_with("plugin/driver/tests")));
        assert!(default.product_names().contains(&"kernels-rustc".to_owned()));
        assert!(default.carried.iter().any(|c| c.package == "pliron" && c.version == "0.20.0"));
        let cuda = read_backend(&root, "cuda-rust").unwrap();
        assert!(matches!(cuda.upstream, Upstream::Git { ref pin, .. } if pin == "9df9e7ce"));
        let unknown = read_backend(&root, "nope").unwrap_err().to_string();
        assert!(unknown.contains("default") && unknown.contains("cuda-rust"), "{unknown}");
    }
}
