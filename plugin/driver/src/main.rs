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
//! function it reaches) with its MIR from before MIR inlining; [`device_api`] recognises the
//! device API's protocol calls by path. Code generation then continues untouched.

#![feature(rustc_private)]

extern crate rustc_abi;
extern crate rustc_driver;
extern crate rustc_hir;
extern crate rustc_interface;
extern crate rustc_middle;
extern crate rustc_span;

mod device_api;
mod scope;

use std::path::Path;
use std::process::ExitCode;

use rustc_driver::Compilation;
use rustc_interface::interface;
use rustc_middle::ty::TyCtxt;

/// The callbacks the compiler runs with: the verifier pass runs after analysis.
struct KernelsCallbacks;

impl rustc_driver::Callbacks for KernelsCallbacks {
    fn after_analysis<'tcx>(&mut self, _compiler: &interface::Compiler, tcx: TyCtxt<'tcx>) -> Compilation {
        for kernel in scope::kernel_entries(tcx) {
            let scope = scope::collect(tcx, kernel);
            eprintln!("scope {}: {} functions", scope.name, scope.functions.len());
            for function in &scope.functions {
                eprintln!("  {:?} {:?}", function.instance, function.phase);
            }
            for (instance, _) in &scope.without_mir {
                eprintln!("  no MIR: {instance:?}");
            }
        }
        Compilation::Continue
    }
}

fn main() -> ExitCode {
    let args = compiler_args(std::env::args().collect());
    rustc_driver::catch_with_exit_code(|| {
        rustc_driver::run_compiler(&args, &mut KernelsCallbacks);
    })
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
        let args = strings(&["kernels-rustc", "/toolchains/1.99.1/bin/rustc", "--crate-name", "kernels"]);
        assert_eq!(compiler_args(args), strings(&["kernels-rustc", "--crate-name", "kernels"]));
    }

    #[test]
    fn keeps_arguments_that_are_already_rustc_arguments() {
        let args = strings(&["kernels-rustc", "src/lib.rs", "--crate-type", "cdylib"]);
        assert_eq!(compiler_args(args.clone()), args);
    }
}
