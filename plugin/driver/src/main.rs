//! `kernels-rustc`: the rustc driver of the project's `default` backend.
//!
//! Cargo runs it as `RUSTC_WORKSPACE_WRAPPER` for the kernels workspace, so it is invoked as
//! `kernels-rustc <path-to-rustc> <rustc args…>` for the workspace's own crates only (the
//! build-std `core` goes to the plain rustc). It drops the rustc path and runs the compiler
//! in-process through `rustc_driver`, linked against the pinned toolchain's `rustc-dev`, so code
//! generation is exactly the toolchain's NVPTX backend. Cargo also asks the wrapper for
//! `-vV` and `--print` queries; those go through the same entry point unchanged.
//!
//! Data flow: after analysis, [`scope`] collects each kernel's scope (the kernel and every
//! function it reaches) with its MIR from before MIR inlining; [`spaces`] infers which values
//! point into shared memory; [`import`] turns the scope into the verifier library's IR
//! (recognising the device API's protocol calls through [`device_api`]); [`pass`] runs
//! `plugin::verify` on it and reports rejections as rustc errors ([`diagnostics`]), which stop
//! the build before code generation. Otherwise code generation continues untouched. In report
//! mode (`KERNELS_VERIFY_MODE=report`, [`settings`]) rejections go only into the crate report,
//! with their rules and lines, and code generation continues. After the
//! compile, the crate's report goes to `KERNELS_VERIFY_REPORT_DIR` ([`plugin::build_report`]) and, on
//! request, each scope's IR to `KERNELS_VERIFY_DUMP` ([`settings`]).
//!
//! Every workspace crate is compiled with `-Zalways-encode-mir`, so that the kernels crate can
//! read the MIR of the helper crate's non-generic, `#[inline(never)]` functions (rustc encodes
//! MIR only for generic or inlinable functions otherwise). The flag changes metadata only, not
//! code generation, and cross-crate inlining is still decided by the same rules.

#![feature(rustc_private)]

extern crate rustc_abi;
extern crate rustc_ast;
extern crate rustc_data_structures;
extern crate rustc_driver;
extern crate rustc_hir;
extern crate rustc_index;
extern crate rustc_interface;
extern crate rustc_middle;
extern crate rustc_span;

mod constant_arguments;
mod counted_types;
mod decided_branches;
mod device_api;
mod diagnostics;
mod guard;
mod import;
mod inlined_helpers;
mod naming;
mod opt_out;
mod pass;
mod scope;
mod settings;
mod single_assignment;
mod spaces;
mod threaded_dispatch;
mod unused_device_reads;

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use rustc_driver::Compilation;
use rustc_interface::interface;
use rustc_middle::ty::TyCtxt;

use crate::settings::Settings;
use plugin::build_report::CrateReport;

/// The callbacks the compiler runs with: the verifier pass runs after analysis.
struct KernelsCallbacks {
    settings: Settings,
    /// The report of the crate, once the pass has run.
    report: Option<CrateReport>,
}

impl rustc_driver::Callbacks for KernelsCallbacks {
    fn after_analysis<'tcx>(&mut self, _compiler: &interface::Compiler, tcx: TyCtxt<'tcx>) -> Compilation {
        let outcome = pass::verify_crate(
            tcx,
            self.settings.dump_dir.as_deref(),
            self.settings.mode,
            self.settings.structure,
        );
        self.report = Some(outcome.report);
        if outcome.stop { Compilation::Stop } else { Compilation::Continue }
    }
}

fn main() -> ExitCode {
    let started = Instant::now();
    let args = compiler_args(std::env::args().collect());
    let settings = match Settings::from_env() {
        Ok(settings) => settings,
        Err(error) => {
            eprintln!("error: kernels-rustc: {error}");
            return ExitCode::FAILURE;
        }
    };
    let mut callbacks = KernelsCallbacks { settings, report: None };
    let status = rustc_driver::catch_with_exit_code(|| {
        rustc_driver::run_compiler(&args, &mut callbacks);
    });
    if let (Some(mut report), Some(dir)) = (callbacks.report.take(), callbacks.settings.report_dir.as_deref())
    {
        report.compile_seconds = started.elapsed().as_secs_f64();
        if let Err(error) = report.write_into(dir) {
            eprintln!(
                "error: kernels-rustc: could not write the verifier report into {}: {error}",
                dir.display()
            );
            return ExitCode::FAILURE;
        }
    }
    status
}

/// Turns the wrapper's command line into rustc's: as `RUSTC_WORKSPACE_WRAPPER` the first
/// argument is the path of the rustc cargo would have run, which `run_compiler` must not see
/// as an input file. Run directly (`kernels-rustc file.rs`), the arguments are rustc's already.
fn compiler_args(mut args: Vec<String>) -> Vec<String> {
    let wrapped_rustc =
        args.get(1).is_some_and(|first| Path::new(first).file_stem().is_some_and(|stem| stem == "rustc"));
    if wrapped_rustc {
        args.remove(1);
    }
    // A real compilation (not a `-vV` or `--print` query): keep every function's MIR in the
    // crate metadata, so that crates compiled later can import it.
    if args.iter().any(|arg| arg == "--crate-name") {
        args.push("-Zalways-encode-mir".to_string());
    }
    args
}

#[cfg(test)]
mod tests {
    use super::compiler_args;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|arg| arg.to_string()).collect()
    }

    #[test]
    fn drops_the_rustc_path_cargo_passes_to_a_wrapper() {
        let args = strings(&["kernels-rustc", "/toolchains/1.99.1/bin/rustc", "-vV"]);
        assert_eq!(compiler_args(args), strings(&["kernels-rustc", "-vV"]));
    }

    #[test]
    fn keeps_arguments_that_are_already_rustc_arguments() {
        let args = strings(&["kernels-rustc", "src/lib.rs", "--crate-type", "cdylib"]);
        assert_eq!(compiler_args(args.clone()), args);
    }

    #[test]
    fn a_crate_compilation_keeps_all_mir_in_its_metadata() {
        let args = strings(&["kernels-rustc", "/bin/rustc", "--crate-name", "kernel_helpers", "src/lib.rs"]);
        assert_eq!(
            compiler_args(args),
            strings(&[
                "kernels-rustc",
                "--crate-name",
                "kernel_helpers",
                "src/lib.rs",
                "-Zalways-encode-mir"
            ])
        );
    }
}
