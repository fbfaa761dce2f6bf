//! Device-API reads whose value nothing reads. `let partials = dynamic_shared_base::<f32>()`
//! stays in a body whose every access through `partials` sat on branches its instance cut off
//! (`crate::decided_branches`: `gemv_f16_batched` without the column split adds its warps' sums
//! in registers, never in shared memory). The read itself touches no memory and waits on
//! nothing, so the call is dropped: without it nothing in the body names shared memory, and a
//! scope with nothing else tied to the protocol is skipped before it is imported, as any scope
//! without shared memory is. A read whose value is used anywhere, even only stored, stays.

use rustc_middle::mir::{BasicBlock, Body, Terminator, TerminatorKind};
use rustc_middle::ty::{Instance, Ty, TyCtxt};

use crate::device_api::DeviceOp;
use crate::single_assignment::LocalMentions;

/// Replaces each call of a device-API read whose result no statement or terminator uses by a
/// jump to its return block; returns how many it dropped. `resolve` gives the instance a call
/// of a function type runs (the scope's resolution).
pub fn drop_unused_device_reads<'tcx>(
    tcx: TyCtxt<'tcx>,
    body: &mut Body<'tcx>,
    resolve: &dyn Fn(Ty<'tcx>) -> Option<Instance<'tcx>>,
) -> usize {
    let mentions = LocalMentions::of(body);
    let unused: Vec<(BasicBlock, BasicBlock)> = body
        .basic_blocks
        .iter_enumerated()
        .filter_map(|(block, data)| {
            unused_device_read(tcx, body, data.terminator(), &mentions, resolve).map(|target| (block, target))
        })
        .collect();
    for (block, target) in &unused {
        body.basic_blocks_mut()[*block].terminator_mut().kind = TerminatorKind::Goto { target: *target };
    }
    unused.len()
}

/// Where `terminator` is a call of a device-API read whose result nothing `mentions` counts
/// reads, the block it returns to. `resolve` gives the instance a call of a function type runs
/// (for a body as written, its type instantiated first: `crate::guard::prescan`).
pub fn unused_device_read<'tcx>(
    tcx: TyCtxt<'tcx>,
    body: &Body<'tcx>,
    terminator: &Terminator<'tcx>,
    mentions: &LocalMentions,
    resolve: &dyn Fn(Ty<'tcx>) -> Option<Instance<'tcx>>,
) -> Option<BasicBlock> {
    let TerminatorKind::Call { func, destination, target: Some(target), .. } = &terminator.kind else {
        return None;
    };
    let local = destination.as_local()?;
    let is_read = resolve(func.ty(body, tcx)).is_some_and(|callee| {
        matches!(
            DeviceOp::of_callee(tcx, callee.def_id()),
            Some(DeviceOp::DynamicSharedBase | DeviceOp::DynamicSharedWindow)
        )
    });
    // The call's destination is the local's one mention that runs: nothing reads what it wrote
    // (a debugger's view of it reads nothing at run time).
    (is_read && mentions.running[local] == 1 && local.as_usize() > body.arg_count).then_some(*target)
}
