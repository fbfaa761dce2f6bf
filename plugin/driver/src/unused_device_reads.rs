//! Device-API reads whose value nothing reads. `let partials = dynamic_shared_base::<f32>()`
//! stays in a body whose every access through `partials` sat on branches its instance cut off
//! (`crate::decided_branches`: `gemv_f16_batched` without the column split adds its warps' sums
//! in registers, never in shared memory). The read itself touches no memory and waits on
//! nothing, so the call is dropped: without it nothing in the body names shared memory, and a
//! scope with nothing else tied to the protocol is skipped before it is imported, as any scope
//! without shared memory is. A read whose value is used anywhere, even only stored, stays.

use rustc_middle::mir::{Body, TerminatorKind};
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
    let mut unused = Vec::new();
    for (block, data) in body.basic_blocks.iter_enumerated() {
        let TerminatorKind::Call { func, destination, target: Some(target), .. } = &data.terminator().kind
        else {
            continue;
        };
        let Some(local) = destination.as_local() else { continue };
        let is_read = resolve(func.ty(body, tcx)).is_some_and(|callee| {
            matches!(
                DeviceOp::of_callee(tcx, callee.def_id()),
                Some(DeviceOp::DynamicSharedBase | DeviceOp::DynamicSharedWindow)
            )
        });
        // The call's destination is the local's one mention that runs: nothing reads what it
        // wrote (a debugger's view of it reads nothing at run time).
        if is_read && mentions.running[local] == 1 && local.as_usize() > body.arg_count {
            unused.push((block, *target));
        }
    }
    for (block, target) in &unused {
        body.basic_blocks_mut()[*block].terminator_mut().kind = TerminatorKind::Goto { target: *target };
    }
    unused.len()
}
