//! Writing a new pin into the file that holds it: `rust-toolchain.toml`'s channel, or a value
//! of `backends.toml` (a git upstream's `pin`, a package upstream's `version`, a carried
//! package's `version`). Only that value changes: comments, order and spacing stay as people
//! wrote them (toml_edit), and the file is replaced through a rename.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use toml_edit::{DocumentMut, Item, Value};

use super::request::{Change, Target};
use crate::atomic::write_file;
use crate::backend::description::DESCRIPTION_FILE;

/// The toolchain file at the project root.
pub const TOOLCHAIN_FILE: &str = "rust-toolchain.toml";

/// The file that holds `change`'s pin, relative to the project root.
pub fn file_of(change: &Change) -> &'static str {
    match change.target {
        Target::Toolchain => TOOLCHAIN_FILE,
        _ => DESCRIPTION_FILE,
    }
}

/// Writes `change.new` for backend `backend` into its file under `root`; returns the file.
pub fn write(root: &Path, backend: &str, change: &Change) -> Result<PathBuf> {
    let path = root.join(file_of(change));
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let edited = edit(&text, backend, change)
        .with_context(|| format!("writing the new pin into {}", path.display()))?;
    write_file(&path, &edited)?;
    Ok(path)
}

/// The text of the file with `change` made.
pub fn edit(text: &str, backend: &str, change: &Change) -> Result<String> {
    let mut document: DocumentMut = text.parse().context("the file is not valid TOML")?;
    let slot = match &change.target {
        Target::Toolchain => {
            document.get_mut("toolchain").and_then(|t| t.get_mut("channel")).and_then(Item::as_value_mut)
        }
        Target::GitRev => upstream_field(&mut document, backend, "pin"),
        Target::UpstreamPackage { .. } => upstream_field(&mut document, backend, "version"),
        Target::CarriedPackage { package } => carried_version(&mut document, backend, package),
    };
    let Some(value) = slot else {
        bail!("it has no value for `{}` of backend `{backend}`", change.key());
    };
    if value.as_str() != Some(change.old.as_str()) {
        bail!(
            "`{}` of backend `{backend}` is {value}, not the {} the description was read with",
            change.key(),
            change.old
        );
    }
    let decor = value.decor().clone();
    *value = Value::from(change.new.as_str());
    *value.decor_mut() = decor;
    Ok(document.to_string())
}

fn upstream_field<'a>(document: &'a mut DocumentMut, backend: &str, field: &str) -> Option<&'a mut Value> {
    let upstream = document.get_mut("backend")?.get_mut(backend)?.get_mut("upstream")?;
    upstream.as_inline_table_mut()?.get_mut(field)
}

fn carried_version<'a>(document: &'a mut DocumentMut, backend: &str, package: &str) -> Option<&'a mut Value> {
    let carry = document.get_mut("backend")?.get_mut(backend)?.get_mut("carry")?.as_array_mut()?;
    carry
        .iter_mut()
        .filter_map(Value::as_inline_table_mut)
        .find(|entry| entry.get("package").and_then(Value::as_str) == Some(package))?
        .get_mut("version")
}

#[cfg(test)]
mod tests {
    use super::*;

    const BACKENDS: &str = r#"# The backends.
[backend.default]
summary = "in-tree"
# pliron, carried.
carry = [{ package = "pliron", version = "0.20.0", vendor = "vendor/pliron", patches = "p" }]

[backend.up]
upstream = { git = "https://example.org/up.git", pin = "9df9e7ce",   vendor = "vendor/up" } # the pin
"#;

    fn change(target: Target, old: &str, new: &str) -> Change {
        Change { target, old: old.into(), new: new.into() }
    }

    #[test]
    fn only_the_pinned_value_changes() {
        let toolchain = "# pinned\n[toolchain]\nchannel = \"1.99.1\" # why\ncomponents = [\"rustc-dev\"]\n";
        let edited = edit(toolchain, "default", &change(Target::Toolchain, "1.99.1", "1.99.0")).unwrap();
        assert_eq!(edited, toolchain.replace("1.99.1", "1.99.0"));
        let rev = edit(BACKENDS, "up", &change(Target::GitRev, "9df9e7ce", "abcdef12")).unwrap();
        assert_eq!(rev, BACKENDS.replace("9df9e7ce", "abcdef12"));
        let carried = change(Target::CarriedPackage { package: "pliron".into() }, "0.20.0", "0.20.1");
        assert_eq!(edit(BACKENDS, "default", &carried).unwrap(), BACKENDS.replace("0.20.0", "0.20.1"));
    }

    #[test]
    fn a_file_that_disagrees_with_the_request_is_not_written() {
        let stale = change(Target::GitRev, "0123456", "abcdef12");
        assert!(edit(BACKENDS, "up", &stale).unwrap_err().to_string().contains("not the 0123456"));
        let missing = change(Target::UpstreamPackage { package: "up".into() }, "0.1.0", "0.2.0");
        assert!(edit(BACKENDS, "up", &missing).unwrap_err().to_string().contains("no value for `up`"));
    }
}
