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

use std::collections::VecDeque;

use rustc_data_structures::fx::{FxHashMap, FxHashSet};
use rustc_hir::def_id::{DefId, LocalDefId};
use rustc_middle::mir::{Body, Terminator, TerminatorKind};
use rustc_middle::ty::{self, EarlyBinder, Instance, TyCtxt, TypingEnv};
use rustc_span::Span;

use crate::decided_branches::reached_as_instantiated;
use crate::device_api::{CudaDeviceCall, DeviceOp};
use crate::scope::{KernelScope, followed_callee, resolve_callee, with_body_as_written};
use crate::single_assignment::LocalMentions;
use crate::spaces::SharedPaths;
use crate::unused_device_reads::unused_device_read;

/// Whether a scope must be imported and verified: `false` only when nothing in its MIR can take
/// part in the protocol (see the module documentation).
pub fn needs_import<'tcx>(tcx: TyCtxt<'tcx>, scope: &KernelScope<'tcx>, shared: &SharedPaths<'tcx>) -> bool {
    !shared.is_empty()
        || scope.functions.iter().any(|function| {
            function.body.basic_blocks.iter().any(|block| {
                terminator_needs_import(
                    tcx,
                    &function.body,
                    block.terminator(),
                    function.instance.def_id(),
                    &|ty| ty,
                )
            })
        })
}

/// Whether one terminator can take part in the protocol: a call of the device API (other than
/// cuda-device's geometry reads and value functions), a call whose callee is unknown, or inline
/// assembly that may touch memory. `instantiate` as in [`followed_callee`].
fn terminator_needs_import<'tcx>(
    tcx: TyCtxt<'tcx>,
    body: &Body<'tcx>,
    terminator: &Terminator<'tcx>,
    function: DefId,
    instantiate: &dyn Fn(ty::Ty<'tcx>) -> ty::Ty<'tcx>,
) -> bool {
    match &terminator.kind {
        TerminatorKind::Call { func, .. } => {
            let Some(callee) = resolve_callee(tcx, instantiate(func.ty(body, tcx))) else {
                // A call through a function pointer: its callee is unknown.
                return true;
            };
            DeviceOp::of_callee(tcx, callee.def_id()).is_some()
                || CudaDeviceCall::of_callee(tcx, callee)
                    .is_some_and(|call| !matches!(call, CudaDeviceCall::Geometry(_) | CudaDeviceCall::Value))
        }
        TerminatorKind::InlineAsm { options, .. } => {
            // Register-only assembly (`nomem`) and the device API's modelled assembly are
            // accounted for by the model; anything else may touch memory.
            let register_only = options.contains(rustc_ast::InlineAsmOptions::NOMEM);
            !register_only && !DeviceOp::is_modelled_body(tcx, function)
        }
        _ => false,
    }
}

/// What [`prescan`] read from each instance's body, kept for the scopes after: the kernels of
/// one crate call the same helpers (the eight `gemv_f16_batched*` entries, the same generic
/// bodies), and what a body holds does not depend on the scope reaching it.
#[derive(Default)]
pub struct PrescannedBodies<'tcx> {
    by_instance: FxHashMap<Instance<'tcx>, BodyScan<'tcx>>,
}

/// What one body as written holds, for the guard.
enum BodyScan<'tcx> {
    /// Its crate encoded no MIR.
    WithoutMir,
    /// Something the protocol may reach: the scope is collected.
    NeedsImport,
    /// Nothing the protocol reaches: its live blocks, and the calls it makes that the scope
    /// follows.
    Skippable { blocks: usize, callees: Vec<(Instance<'tcx>, Span)> },
}

/// What the guard reads from a kernel's bodies as written, before any of them is instantiated,
/// folded or imported ([`prescan`]).
pub struct Prescan<'tcx> {
    /// The kernel's PTX entry name.
    pub name: String,
    /// Whether anything reached may take part in the protocol: then the scope is collected
    /// (bodies instantiated and folded) and the guard asked again on what that leaves.
    pub needs_import: bool,
    /// Functions reached that have a body.
    pub functions: usize,
    /// Their basic blocks that are not already empty and unreachable.
    pub blocks: usize,
    /// Reached functions of workspace crates whose MIR is not available, with the call that
    /// reached them.
    pub without_mir: Vec<(Instance<'tcx>, Span)>,
}

/// The guard before collecting: the scope's call graph walked over the bodies as rustc holds
/// them, each call's callee and argument types instantiated for its instance, and nothing else.
/// Collecting instantiates and folds whole bodies (about 2 µs a block: cloning, instantiating
/// and folding the `gemv_f16_batched*` bodies, whose scopes nothing in the protocol reaches, was
/// a third of the kernels build's verifier time). Folding only removes calls, so a scope in
/// which this finds nothing the protocol can reach is one the guard on the collected scope
/// skips too; where it finds something, it stops at once, and the scope is collected.
pub fn prescan<'tcx>(
    tcx: TyCtxt<'tcx>,
    kernel: LocalDefId,
    scanned: &mut PrescannedBodies<'tcx>,
) -> Prescan<'tcx> {
    let root = Instance::mono(tcx, kernel.to_def_id());
    let mut prescan = Prescan {
        name: crate::scope::kernel_name(tcx, kernel),
        needs_import: false,
        functions: 0,
        blocks: 0,
        without_mir: Vec::new(),
    };
    let mut seen: FxHashSet<Instance<'tcx>> = FxHashSet::from_iter([root]);
    let mut queue = VecDeque::from([(root, tcx.def_span(kernel))]);
    while let Some((instance, reached_at)) = queue.pop_front() {
        let instantiate = |ty: ty::Ty<'tcx>| {
            instance.instantiate_mir_and_normalize_erasing_regions(
                tcx,
                TypingEnv::fully_monomorphized(),
                EarlyBinder::bind(tcx, ty),
            )
        };
        let read = scanned.by_instance.entry(instance).or_insert_with(|| {
            let read = with_body_as_written(tcx, instance, |body| {
                let reached = reached_as_instantiated(tcx, body, instance);
                let mentions = LocalMentions::of_blocks(body, Some(&reached));
                let resolve = |ty| resolve_callee(tcx, instantiate(ty));
                let mut callees = Vec::new();
                let mut blocks = 0;
                for (block, data) in body.basic_blocks.iter_enumerated() {
                    if !reached[block] {
                        continue;
                    }
                    blocks += 1;
                    let terminator = data.terminator();
                    // A read of the shared base nothing uses is dropped when the scope is
                    // collected (`crate::unused_device_reads`).
                    if terminator_needs_import(tcx, body, terminator, instance.def_id(), &instantiate)
                        && unused_device_read(tcx, body, terminator, &mentions, &resolve).is_none()
                    {
                        return BodyScan::NeedsImport;
                    }
                    if let Some(callee) = followed_callee(tcx, body, terminator, &instantiate) {
                        callees.push((callee, terminator.source_info.span));
                    }
                }
                BodyScan::Skippable { blocks, callees }
            });
            read.unwrap_or(BodyScan::WithoutMir)
        });
        match read {
            BodyScan::WithoutMir => prescan.without_mir.push((instance, reached_at)),
            BodyScan::NeedsImport => {
                prescan.needs_import = true;
                return prescan;
            }
            BodyScan::Skippable { blocks, callees } => {
                prescan.functions += 1;
                prescan.blocks += *blocks;
                for (callee, span) in callees {
                    if seen.insert(*callee) {
                        queue.push_back((*callee, *span));
                    }
                }
            }
        }
    }
    prescan
}

/// Blocks of a body that some path may run (an emptied block, no statements and `unreachable`,
/// runs on none).
fn live_blocks(body: &Body<'_>) -> usize {
    body.basic_blocks
        .iter()
        .filter(|block| {
            !(block.statements.is_empty() && matches!(block.terminator().kind, TerminatorKind::Unreachable))
        })
        .count()
}

/// Basic blocks of a scope's MIR that some path may run: the size a skipped scope is reported
/// with. The blocks the pruning of decided branches emptied are not counted.
pub fn mir_blocks(scope: &KernelScope<'_>) -> usize {
    scope.functions.iter().map(|function| live_blocks(&function.body)).sum()
}
