//! Copy barriers handed to helpers: which parameters of the scope's functions carry a bulk copy's
//! barrier (the `u32` that `Pipeline::producer_barrier` returned), so that the pipeline it was
//! asked of travels with it.
//!
//! A bulk copy names its pipeline through the local its barrier came from (`producer_barrier`
//! recorded which pipeline it was asked of, `FunctionImport::barrier_pipelines`). A copy in a
//! helper handed the barrier as a plain `u32` (`async_copy(dst, src, n, event)`) has no such
//! local, and its pipeline went unnamed. Each such parameter gets a hidden pointer parameter right
//! after it: every call passes the pipeline of the barrier it hands over (or of its own hidden
//! parameter, when it hands on a barrier it was itself handed), and the copy names that
//! parameter, which the verifier follows to the caller's `Pipeline` like any pipeline parameter.
//! Where a call hands over a barrier whose pipeline the import cannot name, it passes an opaque
//! pointer, which leaves the copy's pipeline unnamed, as before.
//!
//! The parameters are found on the MIR before any function is imported (a caller is imported
//! before its callees): a parameter carries a barrier when it reaches, through single-assignment
//! copies, the barrier argument of a bulk copy or a parameter of a callee that carries one, to a
//! fixpoint over the scope's calls. Closures are left out: the loops that run them build their
//! calls elsewhere.

use pliron::r#type::TypeHandle;
use pliron::value::Value;
use plugin::ir::builder::{FunctionBuilder, SourceLoc};
use plugin::ir::types::{AddressSpace, Mutability, PointerKind, shorthand};
use rustc_data_structures::fx::FxHashMap;
use rustc_middle::mir::{Body, Local, Operand, TerminatorKind};
use rustc_middle::ty::{Instance, TyCtxt};

use crate::device_api::DeviceOp;
use crate::scope::resolve_callee;

use super::analysis::{assignments, copy_chain};
use super::{FunctionImport, Importer};

/// The position of a copy's barrier among its arguments.
fn barrier_argument(op: DeviceOp) -> Option<usize> {
    match op {
        DeviceOp::BulkCopy => Some(3),
        DeviceOp::TensorCopy2d => Some(5),
        _ => None,
    }
}

/// An argument of a helper reaching, through copies, what a call hands a barrier to.
struct Reach<'tcx> {
    function: Instance<'tcx>,
    /// Its position among the helper's arguments.
    argument: usize,
    /// A bulk copy's barrier (`None`), or a callee's argument (by position).
    target: Option<(Instance<'tcx>, usize)>,
}

/// Per helper of the scope (not the kernel, not closures), which of its arguments (by
/// position) carry a copy barrier.
pub(super) fn barrier_parameters<'tcx>(
    tcx: TyCtxt<'tcx>,
    kernel: Instance<'tcx>,
    bodies: &FxHashMap<Instance<'tcx>, &Body<'tcx>>,
) -> FxHashMap<Instance<'tcx>, Vec<bool>> {
    // The kernel's parameters come from the host; closures' calls are built elsewhere.
    let helper = |instance: &Instance<'tcx>| *instance != kernel && !tcx.is_closure_like(instance.def_id());
    let mut reaches: Vec<Reach<'tcx>> = Vec::new();
    for (instance, body) in bodies {
        if !helper(instance) {
            continue;
        }
        let table = assignments(body);
        let argument_of =
            |local: Local| (1..=body.arg_count).contains(&local.as_usize()).then(|| local.as_usize() - 1);
        for block in body.basic_blocks.iter() {
            let TerminatorKind::Call { func, args, .. } = &block.terminator().kind else { continue };
            let Some(callee) = resolve_callee(tcx, func.ty(*body, tcx)) else { continue };
            let handed: Vec<(usize, Option<(Instance<'tcx>, usize)>)> =
                match DeviceOp::of_callee(tcx, callee.def_id()).and_then(barrier_argument) {
                    Some(position) => vec![(position, None)],
                    None if bodies.contains_key(&callee) && helper(&callee) => {
                        (0..args.len()).map(|position| (position, Some((callee, position)))).collect()
                    }
                    None => continue,
                };
            for (position, target) in handed {
                let Some(arg) = args.get(position) else { continue };
                if let Some(argument) = copy_chain(&table, &arg.node).into_iter().find_map(argument_of) {
                    reaches.push(Reach { function: *instance, argument, target });
                }
            }
        }
    }
    let mut carries: FxHashMap<Instance<'tcx>, Vec<bool>> = bodies
        .iter()
        .filter(|(instance, _)| helper(instance))
        .map(|(instance, body)| (*instance, vec![false; body.arg_count]))
        .collect();
    loop {
        let mut changed = false;
        for Reach { function, argument, target } in &reaches {
            let reached = target.is_none_or(|(callee, position)| carries_at(&carries, callee, position));
            if reached
                && let Some(flag) = carries.get_mut(function).and_then(|flags| flags.get_mut(*argument))
                && !*flag
            {
                *flag = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    carries.retain(|_, flags| flags.iter().any(|carries| *carries));
    carries
}

/// Whether argument `position` of `function` carries a copy barrier in `carries`.
fn carries_at<'tcx>(
    carries: &FxHashMap<Instance<'tcx>, Vec<bool>>,
    function: Instance<'tcx>,
    position: usize,
) -> bool {
    carries.get(&function).and_then(|flags| flags.get(position)).copied().unwrap_or(false)
}

impl<'tcx> Importer<'_, 'tcx> {
    /// Whether argument `position` of `callee` carries a copy barrier (and a hidden pipeline
    /// parameter after it).
    pub(super) fn carries_barrier(&self, callee: Instance<'tcx>, position: usize) -> bool {
        carries_at(self.barrier_params, callee, position)
    }

    /// The type of a hidden pipeline parameter: a reference to the `Pipeline` value, whose
    /// stage count the helper does not know (the rules read it at the `Pipeline` variable).
    pub(super) fn hidden_pipeline_type(&self) -> TypeHandle {
        let byte: TypeHandle = shorthand::int_type(self.ctx, 8, false).into();
        shorthand::ptr_type(self.ctx, AddressSpace::Generic, Mutability::Const, PointerKind::Ref, byte).into()
    }

    /// The pipeline of the barrier `arg` hands to a callee: the one `producer_barrier` was asked
    /// of, or the caller's own hidden parameter when it hands on a barrier it was handed; an
    /// opaque pointer (an unnamed pipeline) otherwise.
    pub(super) fn handed_pipeline(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        arg: &Operand<'tcx>,
        at: &SourceLoc,
    ) -> Value {
        if let Some(pipeline) = barrier_pipeline(function, arg) {
            return pipeline;
        }
        let ty = self.hidden_pipeline_type();
        self.opaque(builder, "the pipeline of a copy barrier handed to a helper", &[], &[ty], at)[0]
    }
}

/// The pipeline of the copy barrier `arg` holds, where the import named it: the local a
/// `producer_barrier` call wrote (through single-assignment copies), or an argument of the
/// function that carries a barrier.
pub(super) fn barrier_pipeline<'tcx>(
    function: &FunctionImport<'_, 'tcx>,
    arg: &Operand<'tcx>,
) -> Option<Value> {
    copy_chain(&function.assignments, arg).into_iter().find_map(|local| {
        function.barrier_pipelines.get(&local).or_else(|| function.barrier_params.get(&local)).copied()
    })
}
