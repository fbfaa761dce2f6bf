//! What the driver reads from its environment, with relative paths resolved against the
//! repository root.
//!
//! - `KERNELS_VERIFY_REPORT_DIR=<dir>`: write one JSON report per compiled crate there (what
//!   `just kernels` sums up).
//! - `KERNELS_VERIFY_DUMP=<dir>`: write each scope's imported IR as text (`<dir>/<crate>/<kernel>.pir`,
//!   readable by `just verify-ir`) and the per-scope times (`<dir>/<crate>/times.tsv`).
//! - `KERNELS_VERIFY_MODE=report`: rejections go into the crate report (with their rules and
//!   lines) instead of failing the build, and code generation continues; `enforce` (or unset)
//!   is the default. Used to build the verifier's ground-truth corpus of broken kernels.
//! - `KERNELS_VERIFY_STRUCTURE=check`: run pliron's structural verification of the imported IR
//!   before the rules (rule `well-formed`); `trust` skips it; unset, a debug build of the driver
//!   checks and a release build trusts (`plugin::verify::Structure`). The corpus builds check.
//!
//! The repository root is the nearest folder above the crate being compiled (cargo's
//! `CARGO_MANIFEST_DIR`) that holds `rust-toolchain.toml`; the current folder is never used.

use std::path::{Path, PathBuf};

use plugin::build_report::{MODE_VAR, REPORT_DIR_VAR, STRUCTURE_VAR};
use plugin::verify::Structure;
use thiserror::Error;

pub const DUMP_DIR_VAR: &str = "KERNELS_VERIFY_DUMP";

/// Where the driver writes its outputs; `None` where the variable is unset or empty.
#[derive(Debug, Clone)]
pub struct Settings {
    pub report_dir: Option<PathBuf>,
    pub dump_dir: Option<PathBuf>,
    pub mode: VerifyMode,
    pub structure: Structure,
}

/// What a rejection does to the build.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum VerifyMode {
    /// A rejection is a rustc error and stops the compile before code generation.
    #[default]
    Enforce,
    /// A rejection is recorded in the crate report only; code generation continues.
    Report,
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum SettingsError {
    #[error(
        "{variable}={value} is a relative path, and no repository root (a folder with rust-toolchain.toml) \
         lies above {manifest_dir}; give an absolute path"
    )]
    NoRepositoryRoot { variable: &'static str, value: String, manifest_dir: String },
    #[error(
        "{MODE_VAR}={value} is not a verify mode; use `report` (record rejections, keep building) or \
         `enforce` (the default: a rejection fails the build)"
    )]
    UnknownMode { value: String },
    #[error(
        "{STRUCTURE_VAR}={value} is not a structure setting; use `check` (pliron's verifier on the imported IR \
         first) or `trust` (the rules only), or leave it unset (check in a debug build, trust in a release build)"
    )]
    UnknownStructure { value: String },
}

impl Settings {
    /// Reads the settings from the process environment.
    pub fn from_env() -> Result<Settings, SettingsError> {
        let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
        Settings::from_vars(|name| std::env::var(name).ok(), manifest_dir.as_deref())
    }

    /// Reads the settings through `var`, resolving relative paths from `manifest_dir` up.
    pub fn from_vars(
        var: impl Fn(&str) -> Option<String>,
        manifest_dir: Option<&Path>,
    ) -> Result<Settings, SettingsError> {
        let resolve = |variable: &'static str| -> Result<Option<PathBuf>, SettingsError> {
            let Some(value) = var(variable).filter(|value| !value.is_empty()) else { return Ok(None) };
            let path = PathBuf::from(&value);
            if path.is_absolute() {
                return Ok(Some(path));
            }
            match manifest_dir.and_then(repository_root) {
                Some(root) => Ok(Some(root.join(path))),
                None => Err(SettingsError::NoRepositoryRoot {
                    variable,
                    value,
                    manifest_dir: manifest_dir.map(|dir| dir.display().to_string()).unwrap_or_default(),
                }),
            }
        };
        let mode = match var(MODE_VAR).unwrap_or_default().as_str() {
            "" | "enforce" => VerifyMode::Enforce,
            "report" => VerifyMode::Report,
            other => return Err(SettingsError::UnknownMode { value: other.to_string() }),
        };
        let structure = match var(STRUCTURE_VAR).unwrap_or_default().as_str() {
            "" => Structure::default_for_build(),
            "check" => Structure::Check,
            "trust" => Structure::Trust,
            other => return Err(SettingsError::UnknownStructure { value: other.to_string() }),
        };
        Ok(Settings {
            report_dir: resolve(REPORT_DIR_VAR)?,
            dump_dir: resolve(DUMP_DIR_VAR)?,
            mode,
            structure,
        })
    }
}

/// The nearest folder at or above `start` that holds `rust-toolchain.toml`.
pub fn repository_root(start: &Path) -> Option<PathBuf> {
    start.ancestors().find(|dir| dir.join("rust-toolchain.toml").is_file()).map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> =
            pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |name| pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    #[test]
    fn relative_paths_resolve_against_the_repository_root_not_the_current_folder() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("rust-toolchain.toml"), "").unwrap();
        let crate_dir = root.path().join("kernels/helpers");
        std::fs::create_dir_all(&crate_dir).unwrap();
        let settings = Settings::from_vars(
            vars(&[(REPORT_DIR_VAR, "target/reports"), (DUMP_DIR_VAR, "/abs/dump")]),
            Some(&crate_dir),
        )
        .unwrap();
        assert_eq!(settings.report_dir, Some(root.path().join("target/reports")));
        assert_eq!(settings.dump_dir, Some(PathBuf::from("/abs/dump")));
    }

    #[test]
    fn unset_or_empty_variables_turn_the_output_off() {
        let settings = Settings::from_vars(vars(&[(DUMP_DIR_VAR, "")]), None).unwrap();
        assert_eq!(settings.report_dir, None);
        assert_eq!(settings.dump_dir, None);
        assert_eq!(settings.mode, VerifyMode::Enforce);
    }

    #[test]
    fn report_mode_is_read_and_an_unknown_mode_is_refused_by_name() {
        let report = Settings::from_vars(vars(&[(MODE_VAR, "report")]), None).unwrap();
        assert_eq!(report.mode, VerifyMode::Report);
        let enforce = Settings::from_vars(vars(&[(MODE_VAR, "enforce")]), None).unwrap();
        assert_eq!(enforce.mode, VerifyMode::Enforce);
        let error = Settings::from_vars(vars(&[(MODE_VAR, "lenient")]), None).unwrap_err();
        assert_eq!(error, SettingsError::UnknownMode { value: "lenient".into() });
        assert!(error.to_string().contains("KERNELS_VERIFY_MODE=lenient"));
    }

    #[test]
    fn the_structure_setting_is_read_and_an_unknown_one_is_refused_by_name() {
        let check = Settings::from_vars(vars(&[(STRUCTURE_VAR, "check")]), None).unwrap();
        assert_eq!(check.structure, Structure::Check);
        let trust = Settings::from_vars(vars(&[(STRUCTURE_VAR, "trust")]), None).unwrap();
        assert_eq!(trust.structure, Structure::Trust);
        let unset = Settings::from_vars(vars(&[]), None).unwrap();
        assert_eq!(unset.structure, Structure::default_for_build());
        let error = Settings::from_vars(vars(&[(STRUCTURE_VAR, "sometimes")]), None).unwrap_err();
        assert!(error.to_string().contains("KERNELS_VERIFY_STRUCTURE=sometimes"));
    }

    #[test]
    fn a_relative_path_without_a_repository_root_is_refused_by_name() {
        let lonely = tempfile::tempdir().unwrap();
        let error = Settings::from_vars(vars(&[(DUMP_DIR_VAR, "dumps")]), Some(lonely.path())).unwrap_err();
        assert!(matches!(error, SettingsError::NoRepositoryRoot { variable: DUMP_DIR_VAR, .. }));
        assert!(error.to_string().contains("KERNELS_VERIFY_DUMP=dumps"));
    }
}
