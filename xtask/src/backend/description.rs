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
//! # or, for a git upstream carried as files in the repository (no host needed; see `snapshot.rs`):
//! upstream = { git = "URL", commit = "FULL SHA", vendor = "vendor/NAME", paths = ["Cargo.toml", "crates/a"],
//!              regenerated = ["crates/a/src/generated.rs"] }   # recorded, not vendored: the build makes them
//! # A snapshot upstream may name its own toolchain (a rustup channel, with components), other
//! # snapshots copied beside its work copy (`at` is the folder name there), commands run in the
//! # patched work copy before the build (`prepare`) and its own test suites after it (`tests`):
//! toolchain = { channel = "nightly-2026-04-03", components = ["rustc-dev"], file = "rust-toolchain.toml" }
//! beside = [{ git = "URL", commit = "FULL SHA", vendor = "vendor/dep", paths = ["src"], at = "dep" }]
//! prepare = [["cargo", "build", "-p", "generator"], ["target/debug/generator", "generate"]]
//! tests = [["cargo", "test", "-p", "core-crate"]]
//! tests-env = { TOOLKIT = "{root}/target/tools/kit" }   # `{root}`: the project root
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
    /// The rustup toolchain a snapshot upstream is built with (else the project's own).
    pub toolchain: Option<Toolchain>,
    /// Snapshots copied beside a snapshot upstream's work copy (its path dependencies).
    pub beside: Vec<Beside>,
    /// Commands run in the patched work copy before the build (a generator, say).
    pub prepare: Vec<Vec<String>>,
    /// The upstream's own test suites, run in the patched work copy after the build.
    pub tests: Vec<Vec<String>>,
    /// Environment of those tests (`{root}` in a value stands for the project root).
    pub tests_env: BTreeMap<String, String>,
}

/// A git upstream at one full commit, carried as files under `vendor` (see `snapshot.rs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    pub url: String,
    /// The full commit id: the record of every file's id is only as good as the commit it names.
    pub commit: String,
    /// Absolute: the folder holding the vendored files and their record.
    pub vendor: PathBuf,
    /// The upstream's paths (folders or files) that are vendored.
    pub paths: Vec<String>,
    /// Files under `paths` that the build regenerates instead of vendoring.
    pub regenerated: Vec<String>,
}

/// A snapshot copied beside the upstream's work copy, as the folder `at`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Beside {
    pub snapshot: Snapshot,
    pub at: String,
}

/// A rustup toolchain other than the project's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toolchain {
    pub channel: String,
    pub components: Vec<String>,
    /// The upstream's toolchain file, relative to its tree, which must name the same channel.
    pub file: Option<String>,
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
    /// A git upstream's files at one commit, vendored in the repository.
    Snapshot(Snapshot),
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
    let mut backends = read_all(root)?;
    let known = backends.keys().cloned().collect::<Vec<_>>().join(", ");
    backends.remove(name).ok_or_else(|| BackendError::UnknownBackend { name: name.to_owned(), file, known })
}

/// Reads every backend the description at `root/backends.toml` declares.
pub fn read_all(root: &Path) -> Result<BTreeMap<String, Backend>, BackendError> {
    let file = root.join(DESCRIPTION_FILE);
    let text = std::fs::read_to_string(&file).map_err(|error| BackendError::BadDescription {
        file: file.clone(),
        reason: format!("cannot be read ({error}); every project that carries a backend declares it there"),
    })?;
    parse(&text, root, &file)
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
        let upstream = upstream_of(entry.upstream, root).map_err(|reason| in_backend(&reason))?;
        let mut beside = Vec::new();
        for other in entry.beside {
            let snapshot =
                snapshot_of(other.git, other.commit, other.vendor, other.paths, other.regenerated, root)
                    .map_err(|reason| in_backend(&format!("`beside`: {reason}")))?;
            if !valid_name(&other.at) {
                return Err(in_backend("`beside.at` is a folder name: letters, digits, `-` and `_`"));
            }
            beside.push(Beside { snapshot, at: other.at });
        }
        let is_snapshot = matches!(upstream, Upstream::Snapshot(_));
        let extras = entry.toolchain.is_some()
            || !beside.is_empty()
            || !entry.prepare.is_empty()
            || !entry.tests.is_empty();
        if extras && !is_snapshot {
            return Err(in_backend(
                "`toolchain`, `beside`, `prepare` and `tests` are for snapshot upstreams",
            ));
        }
        if entry.prepare.iter().chain(&entry.tests).any(Vec::is_empty) {
            return Err(in_backend("a `prepare` or `tests` command is empty"));
        }
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
            toolchain: entry.toolchain.map(|t| Toolchain {
                channel: t.channel,
                components: t.components,
                file: t.file,
            }),
            beside,
            prepare: entry.prepare,
            tests: entry.tests,
            tests_env: entry.tests_env,
        };
        backends.insert(name, backend);
    }
    Ok(backends)
}

/// The upstream an entry describes, or why it describes none.
fn upstream_of(source: format::UpstreamEntry, root: &Path) -> Result<Upstream, String> {
    let format::UpstreamEntry { git, pin, commit, package, version, vendor, in_tree, paths, regenerated } =
        source;
    match (git, pin, commit, package, version, vendor, in_tree) {
        (Some(url), Some(pin), None, None, None, Some(vendor), None)
            if paths.is_none() && regenerated.is_empty() =>
        {
            if !valid_pin(&pin) {
                return Err("`pin` is a commit id: 7 to 40 hexadecimal digits".into());
            }
            Ok(Upstream::Git { url, pin: pin.to_lowercase(), vendor: root.join(vendor) })
        }
        (git @ Some(_), None, commit @ Some(_), None, None, vendor @ Some(_), None) => {
            Ok(Upstream::Snapshot(snapshot_of(git, commit, vendor, paths, regenerated, root)?))
        }
        (None, None, None, Some(package), Some(version), Some(vendor), None) if paths.is_none() => {
            if !valid_name(&package) {
                return Err("`package` is a package name: letters, digits, `-` and `_`".into());
            }
            if !valid_version(&version) {
                return Err("`version` is one exact version, MAJOR.MINOR.PATCH (a pin, not a range)".into());
            }
            Ok(Upstream::Package { package, version, vendor: root.join(vendor) })
        }
        (None, None, None, None, None, None, Some(inputs)) if !inputs.is_empty() && paths.is_none() => {
            Ok(Upstream::InTree { inputs })
        }
        _ => Err("`upstream` is one of { git, pin, vendor }, { git, commit, vendor, paths }, \
                  { package, version, vendor } or { in-tree = [paths that key the build] }"
            .into()),
    }
}

/// A snapshot from its fields, or why they make none.
fn snapshot_of(
    git: Option<String>,
    commit: Option<String>,
    vendor: Option<PathBuf>,
    paths: Option<Vec<String>>,
    regenerated: Vec<String>,
    root: &Path,
) -> Result<Snapshot, String> {
    let (Some(url), Some(commit), Some(vendor)) = (git, commit, vendor) else {
        return Err("a snapshot is { git, commit, vendor, paths }".into());
    };
    if commit.len() != 40 || !commit.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err("`commit` is a full commit id, 40 hexadecimal digits".into());
    }
    let paths = paths.unwrap_or_default();
    if paths.is_empty() {
        return Err("`paths` names the upstream's folders and files to vendor".into());
    }
    if let Some(outside) = regenerated.iter().find(|r| !paths.iter().any(|p| r.starts_with(&format!("{p}/"))))
    {
        return Err(format!("`regenerated` names {outside}, which is under no vendored path"));
    }
    Ok(Snapshot { url, commit: commit.to_lowercase(), vendor: root.join(vendor), paths, regenerated })
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
        pub toolchain: Option<ToolchainEntry>,
        #[serde(default)]
        pub beside: Vec<BesideEntry>,
        #[serde(default)]
        pub prepare: Vec<Vec<String>>,
        #[serde(default)]
        pub tests: Vec<Vec<String>>,
        #[serde(default, rename = "tests-env")]
        pub tests_env: BTreeMap<String, String>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ToolchainEntry {
        pub channel: String,
        #[serde(default)]
        pub components: Vec<String>,
        pub file: Option<String>,
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct BesideEntry {
        pub git: Option<String>,
        pub commit: Option<String>,
        pub vendor: Option<PathBuf>,
        pub paths: Option<Vec<String>>,
        #[serde(default)]
        pub regenerated: Vec<String>,
        pub at: String,
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
        pub commit: Option<String>,
        pub package: Option<String>,
        pub version: Option<String>,
        pub vendor: Option<PathBuf>,
        #[serde(rename = "in-tree")]
        pub in_tree: Option<Vec<PathBuf>>,
        pub paths: Option<Vec<String>>,
        #[serde(default)]
        pub regenerated: Vec<String>,
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

    const COMMIT: &str = "a105afd522b73a6712a802e30bd900cd04cc8019";

    fn snapshot() -> String {
        let upstream = format!(
            "{{ git = \"https://example.org/up\", commit = \"{COMMIT}\", vendor = \"vendor/up\", paths = [\"crates/a\"], \
             regenerated = [\"crates/a/gen.rs\"] }}"
        );
        up("a snapshot", &upstream, "target/release/libup.so")
    }

    #[test]
    fn a_snapshot_upstream_names_its_commit_paths_toolchain_and_neighbours() {
        let text = format!(
            "{}toolchain = {{ channel = \"nightly-2026-04-03\", components = [\"rustc-dev\"] }}\n\
             beside = [{{ git = \"https://example.org/dep\", commit = \"{COMMIT}\", vendor = \"vendor/dep\", paths = [\"src\"], at = \"dep\" }}]\n\
             prepare = [[\"cargo\", \"run\"]]\ntests = [[\"cargo\", \"test\"]]\n",
            snapshot()
        );
        let backends = parse(&text, Path::new("/repo"), Path::new("/repo/backends.toml")).unwrap();
        let up = &backends["up"];
        let Upstream::Snapshot(snapshot) = &up.upstream else { panic!("a snapshot upstream") };
        assert_eq!(snapshot.commit, COMMIT);
        assert_eq!(snapshot.vendor, Path::new("/repo/vendor/up"));
        assert_eq!(snapshot.regenerated, ["crates/a/gen.rs"]);
        assert_eq!(up.toolchain.as_ref().unwrap().channel, "nightly-2026-04-03");
        assert_eq!(up.beside[0].at, "dep");
        assert_eq!(up.beside[0].snapshot.vendor, Path::new("/repo/vendor/dep"));
        assert_eq!((up.prepare.len(), up.tests.len()), (1, 1));
    }

    #[test]
    fn bad_snapshots_are_refused_naming_the_field() {
        let snapshot = snapshot();
        let cases = [
            (snapshot.replace(COMMIT, "a105afd5"), "full commit id"),
            (snapshot.replace("paths = [\"crates/a\"]", "paths = []"), "`paths` names"),
            (snapshot.replace("crates/a/gen.rs", "other/gen.rs"), "under no vendored path"),
            (format!("{}prepare = [[\"x\"]]\n", git()), "for snapshot upstreams"),
            (format!("{snapshot}tests = [[]]\n"), "command is empty"),
        ];
        for (text, expected) in cases {
            let error = parse(&text, Path::new("/r"), Path::new("/r/backends.toml")).unwrap_err().to_string();
            assert!(error.contains(expected), "{expected}: {error}");
        }
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
        let oxide = read_backend(&root, crate::backend::OXIDE_BACKEND).unwrap();
        let cuda_home = format!("{{root}}/target/tools/{}/nvidia/cu13", regress::layout::CUDA_TOOLS_DIR);
        assert_eq!(
            oxide.tests_env.get("CUDA_HOME"),
            Some(&cuda_home),
            "its tests use the CUDA tools setup installs"
        );
        let unknown = read_backend(&root, "nope").unwrap_err().to_string();
        assert!(unknown.contains("default") && unknown.contains("cuda-rust"), "{unknown}");
    }
}
