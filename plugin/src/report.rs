//! Verifying IR files and rendering the outcome for people: what `just verify-ir FILE…`
//! prints, and what the driver can share.

use std::{fmt::Write as _, path::Path};

use crate::{
    text::{self, ParseError},
    verify::{Rejection, ScopeReport, ScopeStatus, verify_module},
};

/// The outcome of verifying one file.
#[derive(Debug)]
pub enum FileVerdict {
    /// Every scope verified or was skipped.
    Verified(Vec<ScopeReport>),
    /// At least one rejection.
    Rejected(Vec<Rejection>),
    /// The file could not be read or parsed.
    Unparsable(ParseError),
}

/// Reads, parses and verifies one textual-IR file. `shown_as` is the path that locations
/// name (e.g. relative to the repository root).
pub fn verify_file(path: &Path, shown_as: &Path) -> FileVerdict {
    let text = match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => {
                return FileVerdict::Unparsable(ParseError {
                    file: shown_as.to_path_buf(),
                    line: 0,
                    column: 0,
                    message: format!("not UTF-8 text: {e}"),
                });
            }
        },
        Err(e) => {
            return FileVerdict::Unparsable(ParseError {
                file: shown_as.to_path_buf(),
                line: 0,
                column: 0,
                message: format!("cannot read the file: {e}"),
            });
        }
    };
    verify_text(&text, shown_as)
}

/// Parses and verifies IR text that came from `file`.
pub fn verify_text(text: &str, file: &Path) -> FileVerdict {
    let mut ctx = crate::new_context();
    match text::parse_module(&mut ctx, text, file) {
        Err(error) => FileVerdict::Unparsable(error),
        Ok(module) => match verify_module(&ctx, module) {
            Ok(reports) => FileVerdict::Verified(reports),
            Err(rejections) => FileVerdict::Rejected(rejections),
        },
    }
}

/// A human-readable account of a file's verdict.
pub fn render(file: &Path, verdict: &FileVerdict) -> String {
    let mut out = String::new();
    match verdict {
        FileVerdict::Verified(reports) => {
            let proven =
                reports.iter().all(|report| report.status == ScopeStatus::Skipped || report.is_proven());
            let _ = writeln!(
                out,
                "{}: {}",
                file.display(),
                if proven {
                    "verified"
                } else {
                    "unverified (no rule rejects it, but parts are outside the model)"
                }
            );
            for report in reports {
                let status = match report.status {
                    ScopeStatus::Verified if report.gaps.is_empty() => "verified",
                    ScopeStatus::Verified => "unverified",
                    ScopeStatus::Skipped => "skipped (no semantic operation, no shared pointer, no assembly)",
                };
                let _ = writeln!(
                    out,
                    "  kernel `{}`: {status}; {} functions, {} blocks, {} semantic ops, {} facts",
                    report.kernel, report.functions, report.blocks, report.semantic_ops, report.facts
                );
                for gap in &report.gaps {
                    let _ = writeln!(out, "  {gap}");
                }
            }
        }
        FileVerdict::Rejected(rejections) => {
            let _ = writeln!(out, "{}: rejected ({} rejections)", file.display(), rejections.len());
            for rejection in rejections {
                let _ = writeln!(out, "{rejection}");
            }
        }
        FileVerdict::Unparsable(error) => {
            let _ =
                writeln!(out, "{error}\n  the file is not valid kernel IR; fix the text at that position");
        }
    }
    out
}
