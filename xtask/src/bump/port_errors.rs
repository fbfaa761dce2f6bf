//! The porting work a new toolchain asks for, at a glance: rustc's errors from a failed build,
//! grouped by the compiler crate and item they concern (`rustc_middle` / `ty::TyCtxt`), read
//! from rustc's human-readable report.
//!
//! An error concerns the first `rustc_*` path its report names (headline, labels and notes);
//! the item is the rest of that path, or the first name the headline quotes when the path is
//! the crate alone. An error that names no compiler crate is grouped under the file it points
//! at.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

/// One compiler error: its headline and where it points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompilerError {
    /// `error[E0432]: unresolved import `rustc_middle::mir::Foo``
    pub headline: String,
    /// `plugin/driver/src/import.rs:12:5`
    pub at: String,
}

/// Errors grouped by (crate, item), in order of crate then item.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PortErrors {
    pub groups: BTreeMap<(String, String), Vec<CompilerError>>,
}

static RUSTC_PATH: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(rustc_[a-z_]+)((?:::[A-Za-z_][A-Za-z0-9_]*)*)").expect("valid regex"));
static QUOTED: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"`([^`]+)`").expect("valid regex"));

/// Crate name used for errors that name no compiler crate.
pub const NO_COMPILER_CRATE: &str = "(no rustc crate named)";

impl PortErrors {
    /// Reads every `error…:` block of `report` (cargo's and rustc's stderr). Cargo's closing
    /// lines (`could not compile`, `aborting due to`) are not errors of their own.
    pub fn read(report: &str) -> PortErrors {
        let mut groups: BTreeMap<(String, String), Vec<CompilerError>> = BTreeMap::new();
        for block in blocks(report) {
            let headline = block[0].trim().to_owned();
            let at = block
                .iter()
                .find_map(|line| line.trim_start().strip_prefix("--> "))
                .map(|at| at.trim().to_owned())
                .unwrap_or_default();
            // xtask's own closing lines (`error: step 4/6 (build)`) point nowhere: not rustc's.
            if at.is_empty() && !headline.starts_with("error[") {
                continue;
            }
            let text = block.join("\n");
            let key = match RUSTC_PATH.captures(&text) {
                Some(path) => {
                    let krate = path[1].to_owned();
                    let item = path[2].trim_start_matches("::").to_owned();
                    let item =
                        if item.is_empty() { first_quoted(&headline).unwrap_or_default() } else { item };
                    (krate, item)
                }
                None => {
                    let file = at.split(':').next().unwrap_or_default().to_owned();
                    (NO_COMPILER_CRATE.to_owned(), file)
                }
            };
            groups.entry(key).or_default().push(CompilerError { headline, at });
        }
        PortErrors { groups }
    }

    pub fn count(&self) -> usize {
        self.groups.values().map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// One line per crate and item with its count, then each error's headline and place.
    pub fn render(&self) -> String {
        let mut text = String::new();
        let mut current = "";
        for ((krate, item), errors) in &self.groups {
            if krate != current {
                let in_crate: usize =
                    self.groups.iter().filter(|((k, _), _)| k == krate).map(|(_, e)| e.len()).sum();
                text.push_str(&format!("  {krate} ({in_crate} error(s))\n"));
                current = krate;
            }
            text.push_str(&format!(
                "    {} ({}):\n",
                if item.is_empty() { "(crate)" } else { item },
                errors.len()
            ));
            for error in errors {
                text.push_str(&format!("      {} at {}\n", error.headline, error.at));
            }
        }
        text
    }
}

/// The lines of each `error:`/`error[E…]:` block, up to the next headline or a blank line
/// followed by something unindented.
fn blocks(report: &str) -> Vec<Vec<&str>> {
    let mut blocks: Vec<Vec<&str>> = Vec::new();
    let mut open = false;
    for line in report.lines() {
        let headline = line.starts_with("error[") || line.starts_with("error:");
        let closing = line.contains("could not compile") || line.starts_with("error: aborting due to");
        if headline && !closing {
            blocks.push(vec![line]);
            open = true;
        } else if headline || line.starts_with("warning") || line.starts_with("==>") {
            open = false;
        } else if open && let Some(block) = blocks.last_mut() {
            block.push(line);
        }
    }
    blocks
}

fn first_quoted(headline: &str) -> Option<String> {
    QUOTED.captures(headline).map(|c| c[1].to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = "\
   Compiling plugin-driver v0.1.0
error[E0432]: unresolved import `rustc_middle::mir::MirPhase`
  --> plugin/driver/src/import.rs:12:5
   |
12 | use rustc_middle::mir::MirPhase;
   |     ^^^^^^^^^^^^^^^^^^^^^^^^^^^ no `MirPhase` in `mir`

error[E0599]: no method named `mir_drops_elaborated_and_const_checked` found for struct `TyCtxt<'tcx>` in the current scope
  --> plugin/driver/src/scope.rs:40:18
   |
40 |     let body = tcx.mir_drops_elaborated_and_const_checked(def);
   |                    ^^^^^^^^^ method not found in `rustc_middle::ty::TyCtxt<'tcx>`

error[E0432]: unresolved import `rustc_middle::mir::MirPhase`
  --> plugin/driver/src/spaces.rs:3:5

error[E0308]: mismatched types
  --> plugin/driver/src/pass.rs:7:9

warning: unused variable: `x`
error: aborting due to 4 previous errors
error: could not compile `plugin-driver` (bin \"kernels-rustc\") due to 4 previous errors
error: step 4/6 (build)
  because: the build of backend `default` failed (exit status: 101)
";

    #[test]
    fn errors_are_grouped_by_the_compiler_crate_and_item_they_name() {
        let errors = PortErrors::read(REPORT);
        assert_eq!(errors.count(), 4);
        let keys: Vec<(&str, &str)> = errors.groups.keys().map(|(k, i)| (k.as_str(), i.as_str())).collect();
        assert_eq!(
            keys,
            [
                (NO_COMPILER_CRATE, "plugin/driver/src/pass.rs"),
                ("rustc_middle", "mir::MirPhase"),
                ("rustc_middle", "ty::TyCtxt")
            ]
        );
        let import = &errors.groups[&("rustc_middle".to_owned(), "mir::MirPhase".to_owned())];
        assert_eq!(import[1].at, "plugin/driver/src/spaces.rs:3:5");
        let text = errors.render();
        assert!(text.contains("  rustc_middle (3 error(s))\n    mir::MirPhase (2):\n"), "{text}");
        assert!(PortErrors::read("   Compiling x\nerror: could not compile `x`\n").is_empty());
    }
}
