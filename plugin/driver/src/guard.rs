//! The scope guard on MIR, before anything is imported: a scope that nothing can tie to the
//! protocol is skipped without building its IR.
//!
//! The verifier's own guard (`plugin::verify`, run on the imported IR) skips a scope with no
//! semantic operation, no shared-memory pointer, no inline assembly that may touch memory and no
//! call whose callee is unknown. Each of these comes from MIR the guard here can see: semantic
//! operations only from calls of the device API ([`DeviceOp`], and cuda-device's calls other
//! than its geometry reads and value functions, [`CudaDeviceCall`], which the import makes
//! semantic or opaque operations), shared pointers only from the
//! shared place paths ([`SharedPaths`], itself seeded by a device-API call), assembly from
//! `InlineAsm` terminators, unknown callees from calls that do not resolve to an instance. So
//! when this guard finds none of them, the verifier's guard would skip the imported scope too;
//! the import is what it saves (most of a small scope's cost). It is deliberately cruder than
//! the verifier's (any device-API call counts, even one the import would not make a semantic
//! operation), so it can only send more scopes on to the import, never fewer.

use rustc_middle::mir::TerminatorKind;
use rustc_middle::ty::TyCtxt;

use crate::device_api::{CudaDeviceCall, DeviceOp};
use crate::scope::{KernelScope, resolve_callee};
use crate::spaces::SharedPaths;

/// Whether a scope must be imported and verified: `false` only when nothing in its MIR can take
/// part in the protocol (see the module documentation).
pub fn needs_import<'tcx>(tcx: TyCtxt<'tcx>, scope: &KernelScope<'tcx>, shared: &SharedPaths<'tcx>) -> bool {
    if !shared.is_empty() {
        return true;
    }
    for function in &scope.functions {
        for block in function.body.basic_blocks.iter() {
            match &block.terminator().kind {
                TerminatorKind::Call { func, .. } => {
                    let Some(callee) = resolve_callee(tcx, func.ty(&*function.body, tcx)) else {
                        // A call through a function pointer: its callee is unknown.
                        return true;
                    };
                    if DeviceOp::of_callee(tcx, callee.def_id()).is_some() {
                        return true;
                    }
                    if let Some(call) = CudaDeviceCall::of_callee(tcx, callee)
                        && !matches!(call, CudaDeviceCall::Geometry(_) | CudaDeviceCall::Value)
                    {
                        return true;
                    }
                }
                TerminatorKind::InlineAsm { options, .. } => {
                    // Register-only assembly (`nomem`) and the device API's modelled assembly
                    // are accounted for by the model; anything else may touch memory.
                    let register_only = options.contains(rustc_ast::InlineAsmOptions::NOMEM);
                    if !register_only && !DeviceOp::is_modelled_body(tcx, function.instance.def_id()) {
                        return true;
                    }
                }
                _ => {}
            }
        }
    }
    false
}

/// Basic blocks of a scope's MIR that some path may run: the size a skipped scope is reported
/// with. The blocks the pruning of decided branches emptied (no statements, `unreachable`) are
/// not counted: no execution reaches them.
pub fn mir_blocks(scope: &KernelScope<'_>) -> usize {
    scope
        .functions
        .iter()
        .flat_map(|function| function.body.basic_blocks.iter())
        .filter(|block| {
            !(block.statements.is_empty() && matches!(block.terminator().kind, TerminatorKind::Unreachable))
        })
        .count()
}
