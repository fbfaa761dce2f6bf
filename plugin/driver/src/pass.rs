//! The verifier pass: for each kernel of the crate, collect its scope, skip it when the guard on
//! MIR finds nothing that can take part in the protocol (`guard`), else import it, verify it,
//! and turn the outcome into the crate report, rustc errors and (on request) IR dumps. In report
//! mode ([`VerifyMode::Report`]) rejections go only into the report, and the crate compiles on.

use std::path::{Path, PathBuf};
use std::time::Instant;

use pliron::printable::Printable;
use plugin::verify::{Gap, ScopeStatus, Structure, verify_module_with};
use rustc_middle::ty::TyCtxt;

use crate::import::import_scope;
use crate::settings::VerifyMode;
use crate::spaces::SharedPaths;
use crate::{diagnostics, guard, opt_out, scope};
use plugin::build_report::{CrateReport, Finding, ScopeReport, Verdict, write_atomically};

/// What verifying a crate gave: its report, and whether the compile must stop (a scope was
/// rejected, in enforce mode).
pub struct CrateOutcome {
    pub report: CrateReport,
    pub stop: bool,
}

/// Verifies every kernel scope of the crate being compiled.
pub fn verify_crate(
    tcx: TyCtxt<'_>,
    dump_dir: Option<&Path>,
    mode: VerifyMode,
    structure: Structure,
) -> CrateOutcome {
    let enforce = mode == VerifyMode::Enforce;
    let crate_name = tcx.crate_name(rustc_hir::def_id::LOCAL_CRATE).to_string();
    let mut report = CrateReport::new(crate_name.clone());
    let mut rejected = false;
    let mut dump = dump_dir.map(|dir| Dump::new(dir, &crate_name));
    let mut prepared = scope::PreparedBodies::default();
    let mut prescanned = guard::PrescannedBodies::default();
    for kernel in scope::kernel_entries(tcx) {
        let started = Instant::now();
        let prescan = guard::prescan(tcx, kernel, &mut prescanned);
        // Where the structure is checked (debug builds, the corpus builds), a scope the prescan
        // skips is collected anyway, so that the guard on the collected scope, and the
        // verifier's own, are asked too.
        if !prescan.needs_import && structure != Structure::Check {
            warn_without_mir(tcx, &prescan.without_mir, &prescan.name);
            report.push(skipped_before_import(
                &prescan.name,
                (prescan.functions, prescan.blocks),
                started.elapsed().as_secs_f64(),
            ));
            continue;
        }
        let collected = scope::collect(tcx, kernel, &mut prepared);
        warn_without_mir(tcx, &collected.without_mir, &collected.name);
        let shared = SharedPaths::infer(tcx, &collected);
        if !guard::needs_import(tcx, &collected, &shared) {
            report.push(skipped_before_import(
                &collected.name,
                (collected.functions.len(), guard::mir_blocks(&collected)),
                started.elapsed().as_secs_f64(),
            ));
            // Where the structure is checked, the guard on MIR is held to the verifier's own
            // guard: the scope is imported anyway and must be skipped there too.
            if structure == Structure::Check {
                rejected |= !skipped_by_verifier(tcx, kernel, &collected, &shared);
            }
            continue;
        }
        if !prescan.needs_import {
            // Only in checked builds: folding removes calls, never adds them.
            tcx.dcx().span_err(
                tcx.def_span(kernel),
                format!(
                    "kernel verifier: the prescan on MIR as written skipped the scope of `{}`, but the guard on \
                     its collected bodies does not: a bug of the verifier (plugin/driver/src/guard.rs), please \
                     report it",
                    collected.name
                ),
            );
            rejected = true;
        }
        let imported = match import_scope(tcx, &collected, &shared) {
            Ok(imported) => imported,
            Err(error) => {
                let message =
                    format!("kernel verifier: could not import the scope of `{}`: {error}", collected.name);
                if enforce {
                    tcx.dcx().span_err(tcx.def_span(kernel), message);
                    rejected = true;
                } else {
                    report.push(unimported_scope(
                        tcx,
                        kernel,
                        &collected,
                        message,
                        started.elapsed().as_secs_f64(),
                    ));
                }
                continue;
            }
        };
        let import_seconds = started.elapsed().as_secs_f64();
        let verifying = Instant::now();
        let outcome = verify_module_with(&imported.ctx, imported.module, structure);
        let verify_seconds = verifying.elapsed().as_secs_f64();
        let gaps = gaps_of(&outcome, imported.stats.hidden_shared);
        let opt_out = opt_out::reason(tcx, kernel);
        let (verdict, rejections) = match &outcome {
            Err(rejections) => (Verdict::Rejected, rejections.len()),
            Ok(_) if !gaps.is_empty() && opt_out.is_some() => (Verdict::OptedOut, 0),
            Ok(_) if !gaps.is_empty() => (Verdict::Unverified, 0),
            Ok(reports) if reports.iter().all(|report| report.status == ScopeStatus::Skipped) => {
                (Verdict::Skipped, 0)
            }
            Ok(_) => (Verdict::Verified, 0),
        };
        let mut findings = Vec::new();
        if let Err(rejections) = &outcome {
            for rejection in rejections {
                if enforce {
                    rejected = true;
                    diagnostics::emit(tcx, &collected.name, rejection, &imported.locations);
                }
                findings.push(finding(
                    rejection.rule.name(),
                    &rejection.message,
                    rejection.location.as_ref(),
                ));
            }
        }
        if verdict == Verdict::Unverified && enforce {
            rejected = true;
            diagnostics::emit_unverified(
                tcx,
                tcx.def_span(kernel),
                &collected.name,
                &gaps,
                &imported.locations,
            );
        }
        let scope_report = ScopeReport {
            kernel: collected.name.clone(),
            functions: collected.functions.len(),
            blocks: imported.stats.blocks,
            operations: imported.stats.operations,
            opaque_operations: imported.stats.opaque,
            verdict,
            adaptations: imported.stats.adaptations,
            rejections,
            findings,
            import_seconds,
            verify_seconds,
            gaps: gaps
                .iter()
                .map(|gap| finding(gap.kind.name(), &gap.message, gap.location.as_ref()))
                .collect(),
            opt_out,
        };
        if let Some(dump) = dump.as_mut() {
            let text = imported.module.disp(&imported.ctx).to_string();
            if let Err(error) = dump.write(&scope_report, &text) {
                tcx.dcx()
                    .warn(format!("kernel verifier: could not dump the IR of `{}`: {error}", collected.name));
            }
        }
        report.push(scope_report);
    }
    CrateOutcome { report, stop: rejected }
}

/// Imports and verifies a scope the guard on MIR skipped; true when the verifier's guard skips
/// it too. A disagreement is a bug of the guard on MIR, reported as an error at the kernel.
fn skipped_by_verifier<'tcx>(
    tcx: TyCtxt<'tcx>,
    kernel: rustc_hir::def_id::LocalDefId,
    collected: &scope::KernelScope<'tcx>,
    shared: &SharedPaths<'tcx>,
) -> bool {
    let skipped = match import_scope(tcx, collected, shared) {
        Ok(imported) => match verify_module_with(&imported.ctx, imported.module, Structure::Check) {
            Ok(reports) => reports.iter().all(|report| report.status == ScopeStatus::Skipped),
            Err(_) => false,
        },
        Err(_) => false,
    };
    if !skipped {
        tcx.dcx().span_err(
            tcx.def_span(kernel),
            format!(
                "kernel verifier: the guard on MIR skipped the scope of `{}`, but the verifier's own guard on its \
                 imported IR does not: a bug of the verifier (plugin/driver/src/guard.rs), please report it",
                collected.name
            ),
        );
    }
    skipped
}

/// A scope the guard on MIR skipped: nothing was imported or verified, so its size (functions,
/// blocks) is its MIR's and it has no IR to dump.
fn skipped_before_import(kernel: &str, (functions, blocks): (usize, usize), seconds: f64) -> ScopeReport {
    ScopeReport {
        kernel: kernel.to_string(),
        functions,
        blocks,
        operations: 0,
        opaque_operations: 0,
        verdict: Verdict::Skipped,
        adaptations: 0,
        rejections: 0,
        findings: Vec::new(),
        import_seconds: seconds,
        verify_seconds: 0.0,
        gaps: Vec::new(),
        opt_out: None,
    }
}

/// Warns of each function of `kernel`'s scope whose body is not available.
fn warn_without_mir<'tcx>(
    tcx: TyCtxt<'tcx>,
    without_mir: &[(rustc_middle::ty::Instance<'tcx>, rustc_span::Span)],
    kernel: &str,
) {
    for (instance, span) in without_mir {
        tcx.dcx().span_warn(
            *span,
            format!(
                "kernel verifier: the body of `{}` is not available (its crate encoded no MIR), so the scope of \
                 `{kernel}` is verified without it; build that crate through kernels-rustc",
                crate::import::readable_path(tcx, *instance),
            ),
        );
    }
}

/// Report mode: a scope the import could not build is rejected, with the import error as its
/// one finding at the kernel's definition.
fn unimported_scope(
    tcx: TyCtxt<'_>,
    kernel: rustc_hir::def_id::LocalDefId,
    collected: &scope::KernelScope<'_>,
    message: String,
    import_seconds: f64,
) -> ScopeReport {
    let position = tcx.sess.source_map().lookup_char_pos(tcx.def_span(kernel).lo());
    ScopeReport {
        kernel: collected.name.clone(),
        functions: collected.functions.len(),
        blocks: 0,
        operations: 0,
        opaque_operations: 0,
        verdict: Verdict::Rejected,
        adaptations: 0,
        rejections: 1,
        findings: vec![Finding {
            rule: "import".into(),
            message,
            file: position.file.name.prefer_local_unconditionally().to_string(),
            line: position.line as u32,
        }],
        import_seconds,
        verify_seconds: 0.0,
        gaps: Vec::new(),
        opt_out: None,
    }
}

/// A rejection or a gap, for the crate report.
fn finding(rule: &str, message: &str, location: Option<&plugin::ir::builder::SourceLoc>) -> Finding {
    Finding {
        rule: rule.to_string(),
        message: message.to_string(),
        file: location.map(|at| at.file.display().to_string()).unwrap_or_default(),
        line: location.map_or(0, |at| at.line),
    }
}

/// What the scopes of one module hold outside the model: every gap the verifier found, each
/// once, and the shared pointers the import saw cross a call in a shape it cannot read out.
fn gaps_of(
    outcome: &Result<Vec<plugin::verify::ScopeReport>, Vec<plugin::verify::Rejection>>,
    hidden_shared: usize,
) -> Vec<Gap> {
    let mut gaps: Vec<Gap> = Vec::new();
    if hidden_shared > 0 {
        gaps.push(Gap::undecided(format!(
            "{hidden_shared} shared pointers crossing a call in a field the import cannot read out (an enum, a closure's captures)"
        )));
    }
    for report in outcome.iter().flatten() {
        for gap in &report.gaps {
            if !gaps.contains(gap) {
                gaps.push(gap.clone());
            }
        }
    }
    gaps
}

/// `KERNELS_VERIFY_DUMP`: each scope's IR as text, and a table of per-scope times.
struct Dump {
    dir: PathBuf,
    times: Vec<String>,
}

impl Dump {
    fn new(root: &Path, crate_name: &str) -> Dump {
        Dump { dir: root.join(crate_name), times: Vec::new() }
    }

    fn write(&mut self, scope: &ScopeReport, text: &str) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let pir = self.dir.join(format!("{}.pir", scope.kernel));
        write_atomically(&pir, text.as_bytes())?;
        self.times.push(format!(
            "{}\t{:?}\t{}\t{}\t{:.6}\t{:.6}",
            scope.kernel,
            scope.verdict,
            scope.blocks,
            scope.operations,
            scope.import_seconds,
            scope.verify_seconds
        ));
        let mut table = String::from("kernel\tverdict\tblocks\toperations\timport_seconds\tverify_seconds\n");
        for line in &self.times {
            table.push_str(line);
            table.push('\n');
        }
        eprintln!(
            "kernel verifier: {} {:?} in {:.6} s ({} blocks) -> {}",
            scope.kernel,
            scope.verdict,
            scope.verify_seconds,
            scope.blocks,
            pir.display()
        );
        write_atomically(&self.dir.join("times.tsv"), table.as_bytes())
    }
}
