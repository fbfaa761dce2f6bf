//! One insta snapshot per kernel entry: the entry with everything it reaches, as PTX text.
//!
//! The cases come from the built PTX, never from a list: every `.entry` is a case, and every
//! `.snap` file in the snapshot folder must belong to one. A case's text is the module's
//! `.version`/`.target`/`.address_size` lines, then each item the entry reaches (shared
//! arrays, function prototypes, called functions, transitively) and the entry itself, in module
//! order, verbatim. Only the hashes inside mangled symbol names are normalised (the v0 crate
//! disambiguator `Cs<hash>_` and the legacy suffix `17h<hash>E`: they change with the toolchain
//! and crate metadata, not with the code), by [`number_hashes`]: each crate's hashes are
//! numbered by first appearance, so a consistent renaming of every hash changes nothing while
//! two functions whose names differ only in their hash stay two names. The generator banner is
//! a top-level comment, which is not part of any item.

use std::collections::HashMap;
use std::fs;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use crate::freshness::{self, StalePtx};
use crate::layout::Layout;
use crate::ptx::{Module, PtxError};

/// Why the suite could not even list its cases.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    #[error(
        "no PTX at {path}: build the kernels first (`just kernels`, and `just kernels-oxide` for the cuda-oxide ones; `just test` builds both), or point ${var} at a PTX file"
    )]
    MissingPtx { path: PathBuf, var: &'static str },
    #[error("reading {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{source}")]
    MalformedPtx {
        path: PathBuf,
        #[source]
        source: PtxError,
    },
    #[error(transparent)]
    Stale(#[from] StalePtx),
    #[error("{path} has no `.entry`: a suite without kernels would pass without checking anything")]
    NoEntries { path: PathBuf },
}

/// One kernel entry to check against its snapshot.
#[derive(Debug, Clone)]
pub struct EntryCase {
    /// The entry's name in the PTX (kernels are `#[no_mangle]`, so this is the Rust name).
    pub entry: String,
    /// The Rust file that defines the kernel, relative to the repository root, if found.
    pub source_file: Option<PathBuf>,
    /// The snapshot text, hashes numbered ([`number_hashes`]).
    pub text: String,
}

/// Every case of one PTX file, and the snapshot files that belong to no case.
#[derive(Debug)]
pub struct SnapshotSuite {
    pub ptx: PathBuf,
    pub snapshot_dir: PathBuf,
    pub cases: Vec<EntryCase>,
    /// `.snap` files whose entry is not in the PTX (a removed or renamed kernel).
    pub orphans: Vec<PathBuf>,
}

impl SnapshotSuite {
    /// The suite for `ptx`, with snapshots in `snapshot_dir` and kernel sources below
    /// `layout.kernels_workspace()`.
    pub fn discover(layout: &Layout, ptx: &Path, snapshot_dir: &Path) -> Result<SnapshotSuite, SuiteError> {
        if !ptx.is_file() {
            return Err(SuiteError::MissingPtx {
                path: ptx.to_path_buf(),
                var: crate::layout::KERNELS_PTX_ENV,
            });
        }
        freshness::check(ptx)?;
        let text =
            fs::read_to_string(ptx).map_err(|source| SuiteError::Read { path: ptx.to_path_buf(), source })?;
        let module = Module::parse(&text)
            .map_err(|source| SuiteError::MalformedPtx { path: ptx.to_path_buf(), source })?;
        let sources = kernel_source_files(layout, ptx);
        let cases: Vec<EntryCase> = module
            .entries()
            .map(|entry| {
                let name = entry.name.clone().unwrap_or_default();
                EntryCase {
                    source_file: sources.get(&name).cloned(),
                    text: render(&module, entry),
                    entry: name,
                }
            })
            .collect();
        if cases.is_empty() {
            return Err(SuiteError::NoEntries { path: ptx.to_path_buf() });
        }
        let orphans = orphan_snapshots(snapshot_dir, &cases)
            .map_err(|source| SuiteError::Read { path: snapshot_dir.to_path_buf(), source })?;
        Ok(SnapshotSuite { ptx: ptx.to_path_buf(), snapshot_dir: snapshot_dir.to_path_buf(), cases, orphans })
    }
}

impl EntryCase {
    /// Compares the case with `snapshot_dir/<entry>.snap` through insta. On a difference (or a
    /// missing snapshot) insta prints the diff, records a pending `.snap.new` unless told not
    /// to (`INSTA_UPDATE`, CI), and this returns the message to show.
    pub fn check(&self, snapshot_dir: &Path) -> Result<(), String> {
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(snapshot_dir);
        settings.set_prepend_module_to_snapshot(false);
        settings.set_omit_expression(true);
        settings.set_description(format!(
            "PTX of kernel entry `{}` with every function and shared array it reaches",
            self.entry
        ));
        if let Some(source) = &self.source_file {
            settings.set_input_file(source);
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            settings.bind(|| insta::assert_snapshot!(self.entry.as_str(), self.text.as_str()));
        }));
        let snapshot = snapshot_dir.join(format!("{}.snap", self.entry));
        outcome.map_err(|_| {
            if snapshot.exists() {
                format!(
                    "the PTX of kernel entry `{}` differs from {} (diff above); \
                     if the change is intended, accept it with `cargo insta review`",
                    self.entry,
                    snapshot.display()
                )
            } else {
                format!(
                    "kernel entry `{}` has no snapshot yet ({}); \
                     review and accept its first snapshot with `cargo insta review`",
                    self.entry,
                    snapshot.display()
                )
            }
        })
    }
}

/// The snapshot text of `entry`: module directives, then every reached item, hashes numbered.
pub fn render(module: &Module, entry: &crate::ptx::Item) -> String {
    let mut sections: Vec<String> = Vec::new();
    sections.push(module.directives().map(|d| d.text.as_str()).collect::<Vec<_>>().join("\n"));
    for item in module.reachable_from(entry) {
        sections.push(item.text.lines().map(str::trim_end).collect::<Vec<_>>().join("\n"));
    }
    number_labels(&number_hashes(&(sections.join("\n\n") + "\n")))
}

/// A PTX block label, `$L__BB<function>_<block>`: `<function>` is the function's position in
/// the module, which says nothing about the entry (cuda-oxide emits a module's functions in an
/// order that changes from build to build).
static BLOCK_LABEL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\$L__BB([0-9]+)_").expect("a valid regex"));

/// Replaces the function number of every block label in `text` by its number among the
/// function numbers of the text, counted by first appearance from 0 (a bijection, as
/// [`number_hashes`] is for hashes).
pub fn number_labels(text: &str) -> String {
    let mut numbers: HashMap<String, usize> = HashMap::new();
    BLOCK_LABEL
        .replace_all(text, |label: &regex::Captures| {
            let next = numbers.len();
            let n = *numbers.entry(label[1].to_string()).or_insert(next);
            format!("$L__BB{n}_")
        })
        .into_owned()
}

/// Mangled symbols: v0 (`_R…`) and legacy (`_ZN…E`) names, as whole identifiers.
static MANGLED_SYMBOL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b_(R|ZN)[0-9A-Za-z_$]+").expect("a valid regex"));
/// Inside a v0 symbol, a crate root with a disambiguator: `Cs<hash>_<length><name>`.
static V0_CRATE_ROOT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"Cs([0-9A-Za-z]*)_([0-9]+)").expect("a valid regex"));
/// A legacy symbol's first path segment and hash: `_ZN<length><crate>…17h<16 hex digits>E`,
/// perhaps with a suffix (`…E_param_0`).
static LEGACY_SYMBOL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^_ZN([0-9]+)(.*?)17h([0-9a-f]{16})E").expect("a valid regex"));

/// Replaces every mangling hash in `text` by its number among the hashes of the same crate,
/// counted by first appearance in `text`: `_RNvCs9xK2_7kernels6helper` becomes
/// `_RNvCs<crate-hash-1>_7kernels6helper`, and a second hash of crate `kernels` anywhere in the
/// text `<crate-hash-2>`; a legacy `…17h0123456789abcdefE` becomes `…17h<hash-1>E`, numbered
/// per first path segment. The numbering is a bijection: two texts come out equal exactly when
/// one is the other with each crate's hashes consistently renamed.
pub fn number_hashes(text: &str) -> String {
    let mut numbers: HashMap<(String, String), usize> = HashMap::new();
    let mut per_crate: HashMap<String, usize> = HashMap::new();
    let mut number = |krate: &str, hash: &str| -> usize {
        let key = (krate.to_string(), hash.to_string());
        if let Some(&n) = numbers.get(&key) {
            return n;
        }
        let next = per_crate.entry(krate.to_string()).or_default();
        *next += 1;
        numbers.insert(key, *next);
        *next
    };
    MANGLED_SYMBOL
        .replace_all(text, |symbol: &regex::Captures| {
            let symbol = &symbol[0];
            if let Some(legacy) = LEGACY_SYMBOL.captures(symbol) {
                let krate = crate_name(&legacy[1], &legacy[2]);
                let n = number(&format!("legacy {krate}"), &legacy[3]);
                let hash = legacy.get(3).expect("the hash is captured");
                return format!("{}<hash-{n}>{}", &symbol[..hash.start()], &symbol[hash.end()..]);
            }
            if !symbol.starts_with("_R") {
                return symbol.to_string();
            }
            let mut out = String::new();
            let mut last = 0;
            for root in V0_CRATE_ROOT.captures_iter(symbol) {
                let hash = root.get(1).expect("the hash is captured");
                let length = root.get(2).expect("the length is captured");
                let krate = crate_name(length.as_str(), &symbol[length.end()..]);
                let n = number(&format!("v0 {krate}"), hash.as_str());
                out.push_str(&symbol[last..hash.start()]);
                out.push_str(&format!("<crate-hash-{n}>"));
                last = hash.end();
            }
            out.push_str(&symbol[last..]);
            out
        })
        .into_owned()
}

/// The `length` characters of `rest` (a mangled identifier's name), or all of it if shorter.
fn crate_name<'a>(length: &str, rest: &'a str) -> &'a str {
    let length = length.parse::<usize>().unwrap_or(usize::MAX).min(rest.len());
    rest.get(..length).unwrap_or(rest)
}

/// Kernel name → the file defining it, from `extern "ptx-kernel" fn NAME` in the kernel sources.
fn kernel_source_files(layout: &Layout, ptx: &Path) -> HashMap<String, PathBuf> {
    // The cuda-oxide kernels are `#[kernel]` functions under `kernels/oxide`; the default
    // backend's are `extern "ptx-kernel"` functions in the rest of `kernels/`.
    let oxide = layout.oxide_workspace();
    let (root, pattern) = if ptx.starts_with(&oxide) {
        (oxide.clone(), r#"#\[kernel\]\s*pub\s+(?:unsafe\s+)?fn\s+([A-Za-z_][A-Za-z0-9_]*)"#)
    } else {
        (layout.kernels_workspace(), r#"extern\s+"ptx-kernel"\s+fn\s+([A-Za-z_][A-Za-z0-9_]*)"#)
    };
    let definition = Regex::new(pattern).expect("valid regex");
    let mut files = HashMap::new();
    let sources = walkdir::WalkDir::new(&root)
        .into_iter()
        .filter_entry(|e| e.file_name() != "target" && (root == oxide || e.path() != oxide))
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"));
    for source in sources {
        let Ok(text) = fs::read_to_string(source.path()) else { continue };
        let relative = source.path().strip_prefix(layout.root()).unwrap_or(source.path()).to_path_buf();
        for capture in definition.captures_iter(&text) {
            files.insert(capture[1].to_string(), relative.clone());
        }
    }
    files
}

/// `.snap` files in `dir` whose stem names no case. A missing folder has none.
fn orphan_snapshots(dir: &Path, cases: &[EntryCase]) -> std::io::Result<Vec<PathBuf>> {
    let Ok(listing) = fs::read_dir(dir) else { return Ok(Vec::new()) };
    let mut orphans = Vec::new();
    for file in listing {
        let path = file?.path();
        let is_snapshot = path.extension().is_some_and(|x| x == "snap");
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        if is_snapshot && !cases.iter().any(|case| case.entry == stem) {
            orphans.push(path);
        }
    }
    orphans.sort();
    Ok(orphans)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_replaces_crate_hashes_only() {
        let ptx = "call.uni (retval0), _RNvNtCsjp2ULkaxRYT_7kernels13shared_helper5local, (param0);\n\
                   .func _RNvCsnXywQCMrDN_14kernel_helpers13blur3_clamped(\n\
                   .func _ZN7kernels6helper17h0123456789abcdefE()\n\
                   add.s32 %r1, %r2, 16384;";
        assert_eq!(
            number_hashes(ptx),
            "call.uni (retval0), _RNvNtCs<crate-hash-1>_7kernels13shared_helper5local, (param0);\n\
             .func _RNvCs<crate-hash-1>_14kernel_helpers13blur3_clamped(\n\
             .func _ZN7kernels6helper17h<hash-1>E()\n\
             add.s32 %r1, %r2, 16384;"
        );
    }

    #[test]
    fn hashes_are_numbered_per_crate_by_first_appearance() {
        let ptx = "call.uni (retval0), _RNvNtCsjp2ULkaxRYT_7kernels13shared_helper5local, (param0);\n\
                   .func _RNvCsnXywQCMrDN_14kernel_helpers13blur3_clamped(\n\
                   call.uni _RNvCsOTHER_7kernels6helper, ();\n\
                   call.uni _RNvNtCsjp2ULkaxRYT_7kernels13shared_helper5local, ();\n\
                   .func _ZN7kernels6helper17h0123456789abcdefE()\n\
                   .func _ZN7kernels6helper17hfedcba9876543210E()\n\
                   add.s32 %r1, %r2, 16384; // Cs12_3abc outside a symbol";
        assert_eq!(
            number_hashes(ptx),
            "call.uni (retval0), _RNvNtCs<crate-hash-1>_7kernels13shared_helper5local, (param0);\n\
             .func _RNvCs<crate-hash-1>_14kernel_helpers13blur3_clamped(\n\
             call.uni _RNvCs<crate-hash-2>_7kernels6helper, ();\n\
             call.uni _RNvNtCs<crate-hash-1>_7kernels13shared_helper5local, ();\n\
             .func _ZN7kernels6helper17h<hash-1>E()\n\
             .func _ZN7kernels6helper17h<hash-2>E()\n\
             add.s32 %r1, %r2, 16384; // Cs12_3abc outside a symbol"
        );
    }

    #[test]
    fn a_consistent_rename_changes_nothing_and_a_swap_of_twins_changes_the_text() {
        // Two call sites, then the two definitions: a swap of the call sites makes each site
        // reach the other body.
        let text = "call.uni _RNvCsAAA_7kernels6helper, (); call.uni _RNvCsBBB_7kernels6helper, ();\n\
                    .func _RNvCsAAA_7kernels6helper() { add.s32 %r1, %r1, 1; }\n\
                    .func _RNvCsBBB_7kernels6helper() { add.s32 %r1, %r1, 2; }";
        let renamed = text.replace("AAA", "x1").replace("BBB", "y2");
        let (calls, definitions) = text.split_once('\n').unwrap();
        let swapped_calls = calls.replace("AAA", "TMP").replace("BBB", "AAA").replace("TMP", "BBB");
        let swapped = format!("{swapped_calls}\n{definitions}");
        assert_eq!(number_hashes(&renamed), number_hashes(text));
        assert_ne!(number_hashes(&swapped), number_hashes(text));
    }

    #[test]
    fn block_labels_are_numbered_by_first_appearance_whatever_the_module_order() {
        let a = "\t@%p1 bra \t$L__BB3_2;\n$L__BB3_2:\n$L__BB5_1:\n";
        let b = "\t@%p1 bra \t$L__BB2_2;\n$L__BB2_2:\n$L__BB0_1:\n";
        assert_eq!(number_labels(a), "\t@%p1 bra \t$L__BB0_2;\n$L__BB0_2:\n$L__BB1_1:\n");
        assert_eq!(number_labels(a), number_labels(b));
        assert_ne!(number_labels(a), number_labels("\t@%p1 bra \t$L__BB3_1;\n$L__BB3_2:\n$L__BB5_1:\n"));
    }

    #[test]
    fn rendering_keeps_directives_and_reached_items_verbatim() {
        let module = Module::parse(
            "//\n// Generated by LLVM NVPTX Back-End\n//\n.version 8.6\n.target sm_90\n\
             .func f()\n{\n\tret;   \n}\n.visible .entry k()\n{\n\tcall.uni f, ();\n\tret;\n}\n\
             .visible .entry other()\n{\n\tret;\n}\n",
        )
        .unwrap();
        let text = render(&module, module.entry("k").unwrap());
        assert_eq!(
            text,
            ".version 8.6\n.target sm_90\n\n.func f()\n{\n\tret;\n}\n\n.visible .entry k()\n{\n\tcall.uni f, ();\n\tret;\n}\n"
        );
        assert!(!text.contains("Generated by"));
    }
}
