//! The pipeline-state calling convention: a state crosses a call as its stage index and phase
//! (parameters, results, and `&mut` states handed back), and which types hold states.

use pliron::r#type::{TypeHandle, Typed};
use pliron::value::Value;
use plugin::ir::builder::{BuildError, FunctionBuilder, SourceLoc};
use plugin::ir::mir::opaque::UNFOLLOWED_STATE;
use plugin::ir::types::shorthand;
use rustc_middle::mir::{Local, Operand, Place};
use rustc_middle::ty::{self, Instance, Ty, TyCtxt};
use rustc_span::Spanned;

use super::analysis::core_item_name;
use super::{FunctionImport, Importer, MAX_ENUM_FIELDS, MAX_ENUM_VARIANTS, StatePath, enum_field};

impl<'tcx> Importer<'_, 'tcx> {
    /// `core::mem::replace(&mut state, new)` on a state (or an aggregate of states) the import
    /// follows: the destination gets the old value, the state the new one. False when the call
    /// is not one.
    pub(super) fn replace_state(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        callee: Instance<'tcx>,
        args: &[Spanned<Operand<'tcx>>],
        destination: Place<'tcx>,
        at: &SourceLoc,
    ) -> bool {
        if !self.is_core_mem_function(callee, "replace") || args.len() != 2 {
            return false;
        }
        let Some(target) = args[0].node.place().and_then(|place| function.state_path(place)) else {
            return false;
        };
        let Some(to) = function.state_path(destination) else { return false };
        if function.states_below(&target).is_empty() || function.states_below(&to).is_empty() {
            return false;
        }
        if !self.copy_paths(function, builder, &target, &to, at) {
            self.forget_states(function, builder, &to, at);
        }
        let copied = args[1]
            .node
            .place()
            .and_then(|place| function.state_path(place))
            .is_some_and(|new| self.copy_paths(function, builder, &new, &target, at));
        if !copied {
            self.forget_states(function, builder, &target, at);
        }
        true
    }

    /// Whether `callee` is `core::mem::<name>`.
    fn is_core_mem_function(&self, callee: Instance<'tcx>, name: &str) -> bool {
        core_item_name(self.tcx, callee.def_id()).is_some_and(|item| item.as_str() == name)
            && self.tcx.def_path_str(callee.def_id()) == format!("core::mem::{name}")
    }

    /// `core::mem::swap(&mut a, &mut b)` on two states the import follows: both are loaded, then
    /// each stored into the other's slots. False when the call is not one (then the states
    /// count as handed to a call the verifier does not follow).
    pub(super) fn swap_states(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        callee: Instance<'tcx>,
        args: &[Spanned<Operand<'tcx>>],
        at: &SourceLoc,
    ) -> bool {
        if !self.is_core_mem_function(callee, "swap") || args.len() != 2 {
            return false;
        }
        // Only states themselves: an aggregate around a state may hold pointers too, whose swap
        // the memory walk must see as the call it is.
        let swaps_a_state = match args[0].node.ty(function.body, self.tcx).kind() {
            ty::Ref(_, pointee, _) => is_pipeline_state(self.tcx, *pointee),
            _ => false,
        };
        if !swaps_a_state {
            return false;
        }
        let path = |position: usize| args[position].node.place().and_then(|place| function.state_path(place));
        let (Some(left), Some(right)) = (path(0), path(1)) else { return false };
        let (left, right) = (function.states_below(&left), function.states_below(&right));
        let same_shape = !left.is_empty()
            && left.len() == right.len()
            && left.iter().zip(&right).all(|((left_path, _), (right_path, _))| left_path == right_path);
        if !same_shape {
            return false;
        }
        let mut load = |slots: &(Value, Value)| {
            (builder.load(self.ctx, slots.0, at), builder.load(self.ctx, slots.1, at))
        };
        let left_values: Vec<(Value, Value)> = left.iter().map(|(_, slots)| load(slots)).collect();
        let right_values: Vec<(Value, Value)> = right.iter().map(|(_, slots)| load(slots)).collect();
        for ((_, slots), (index, phase)) in left.iter().zip(right_values).chain(right.iter().zip(left_values))
        {
            builder.store(self.ctx, index, slots.0, at);
            builder.store(self.ctx, phase, slots.1, at);
        }
        true
    }

    /// The index and phase of the state at `path`, loaded from its slots; opaque values when
    /// the function has no slots there.
    pub(super) fn state_values(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        path: &StatePath,
        at: &SourceLoc,
    ) -> (Value, Value) {
        match function.state_slots(path) {
            Some((index, phase)) => (builder.load(self.ctx, index, at), builder.load(self.ctx, phase, at)),
            None => {
                let u32_ty: TypeHandle = shorthand::u32_type(self.ctx).into();
                let values = self.opaque(
                    builder,
                    "a returned pipeline state the import cannot follow",
                    &[],
                    &[u32_ty, u32_ty],
                    at,
                );
                (values[0], values[1])
            }
        }
    }

    /// Copies the index and phase of every state at or below place `source` into the same
    /// paths below `to`; false when `source` holds no state the import follows there.
    pub(super) fn copy_states(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        source: Place<'tcx>,
        to: &StatePath,
        at: &SourceLoc,
    ) -> bool {
        let Some(from) = function.state_path(source) else { return false };
        self.copy_paths(function, builder, &from, to, at)
    }

    /// Copies the states at or below `from` into the same paths below `to`; false when the two
    /// do not hold states at the same paths.
    pub(super) fn copy_paths(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        from: &StatePath,
        to: &StatePath,
        at: &SourceLoc,
    ) -> bool {
        let targets = function.states_below(to);
        let sources = function.states_below(from);
        if sources.is_empty() || sources.len() != targets.len() {
            return false;
        }
        for ((from_path, from_slots), (to_path, to_slots)) in sources.into_iter().zip(targets) {
            if from_path != to_path {
                return false;
            }
            let index = builder.load(self.ctx, from_slots.0, at);
            let phase = builder.load(self.ctx, from_slots.1, at);
            builder.store(self.ctx, index, to_slots.0, at);
            builder.store(self.ctx, phase, to_slots.1, at);
        }
        true
    }

    /// Stores values the verifier cannot follow into the states at or below `to` (written by
    /// something the import does not model): pipeline operations on them are then rejected by
    /// `state-provenance`, never passed.
    pub(super) fn forget_states(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        to: &StatePath,
        at: &SourceLoc,
    ) {
        let targets = function.states_below(to);
        if targets.is_empty() {
            return;
        }
        let u32_ty: TypeHandle = shorthand::u32_type(self.ctx).into();
        let types = vec![u32_ty; 2 * targets.len()];
        let values = self.opaque(
            builder,
            &format!("{UNFOLLOWED_STATE} written where the import cannot follow it"),
            &[],
            &types,
            at,
        );
        for (k, (_, (index, phase))) in targets.into_iter().enumerate() {
            builder.store(self.ctx, values[2 * k], index, at);
            builder.store(self.ctx, values[2 * k + 1], phase, at);
        }
    }

    /// A call of a scope function that takes or returns states as their index and phase (see
    /// [`Self::function`]): a state argument is loaded from its slots; a returned state and the
    /// states handed back (`&mut` parameters) are stored into the caller's.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn scope_call(
        &mut self,
        function: &mut FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        (callee, name): (Instance<'tcx>, &str),
        (inputs, output): (&[Ty<'tcx>], Ty<'tcx>),
        args: &[Spanned<Operand<'tcx>>],
        destination: Place<'tcx>,
        at: &SourceLoc,
    ) -> Result<(), BuildError> {
        let u32_ty: TypeHandle = shorthand::u32_type(self.ctx).into();
        let mut params = Vec::new();
        let mut values = Vec::new();
        let mut handed_back = Vec::new();
        for (position, (arg, ty)) in args.iter().zip(inputs).enumerate() {
            let states = param_states(self.tcx, *ty);
            if let Some(ParamStates { kind, whole: true, .. }) = states {
                let (index, phase) = self.state_operands(function, builder, args, position, at);
                params.extend([u32_ty, u32_ty]);
                values.extend([index, phase]);
                if kind == StateParam::Mut {
                    handed_back.push(function.state_arg(args, position));
                }
                continue;
            }
            let param = self.ir_type(*ty, None);
            let value = match self.operand(function, builder, &arg.node, at) {
                Some(value) => value,
                None => self.opaque(builder, &format!("argument {:?}", arg.node), &[], &[param], at)[0],
            };
            params.push(param);
            values.push(self.coerce(builder, value, param, at));
            // A copy barrier's pipeline, after the barrier (`barrier_params`).
            if states.is_none() && self.carries_barrier(callee, position) {
                let pipeline = self.handed_pipeline(function, builder, &arg.node, at);
                params.push(pipeline.get_type(self.ctx));
                values.push(pipeline);
            }
            // An aggregate holding states: each state's index and phase after it, in the
            // callee's order of paths; a state the import does not follow there is opaque.
            let Some(states) = states else { continue };
            let base = arg.node.place().and_then(|place| function.state_path(place));
            for path in &states.paths {
                let slots = base.as_ref().and_then(|(local, prefix)| {
                    function.state_slots(&(*local, [prefix.clone(), path.clone()].concat()))
                });
                let (index, phase) = match slots {
                    Some((index, phase)) => {
                        (builder.load(self.ctx, index, at), builder.load(self.ctx, phase, at))
                    }
                    None => {
                        let values = self.opaque(
                            builder,
                            "a pipeline state inside an argument the import cannot follow",
                            &[],
                            &[u32_ty, u32_ty],
                            at,
                        );
                        (values[0], values[1])
                    }
                };
                params.extend([u32_ty, u32_ty]);
                values.extend([index, phase]);
                if states.kind == StateParam::Mut {
                    handed_back.push(slots);
                }
            }
        }
        let returns_state = is_pipeline_state(self.tcx, output);
        let mut results =
            if returns_state { vec![u32_ty, u32_ty] } else { self.results_of(output, Some(callee)) };
        let declared = results.len();
        let returned_states = if returns_state { Vec::new() } else { nested_states(self.tcx, output) };
        results.extend(returned_states.iter().flat_map(|_| [u32_ty, u32_ty]));
        let handed_back_at = results.len();
        results.extend(handed_back.iter().flat_map(|_| [u32_ty, u32_ty]));
        let returned = builder.call(self.ctx, name, &params, &results, &values, at)?;
        if returns_state {
            match function.state_of(destination).and_then(|path| function.state_slots(&path)) {
                Some((index, phase)) => {
                    builder.store(self.ctx, returned[0], index, at);
                    builder.store(self.ctx, returned[1], phase, at);
                }
                None => {
                    self.opaque(
                        builder,
                        "a returned pipeline state stored where the import cannot follow it",
                        &returned[..2],
                        &[],
                        at,
                    );
                }
            }
        } else if let Some(value) = returned.first().filter(|_| declared > 0) {
            self.write_place(function, builder, destination, *value, at);
            // The states of a returned aggregate, into the destination's (where it has them);
            // a destination state the callee returns no state for is forgotten.
            let to = function.state_path(destination);
            let all_returned = to.as_ref().is_some_and(|to| {
                function.states_below(to).iter().all(|(path, _)| returned_states.contains(path))
            });
            if !all_returned {
                self.forget_destination_states(function, builder, destination, at);
            }
            for (k, path) in returned_states.iter().enumerate() {
                let slots = to.as_ref().and_then(|(local, prefix)| {
                    function.state_slots(&(*local, [prefix.clone(), path.clone()].concat()))
                });
                if let Some((index_slot, phase_slot)) = slots {
                    builder.store(self.ctx, returned[declared + 2 * k], index_slot, at);
                    builder.store(self.ctx, returned[declared + 2 * k + 1], phase_slot, at);
                }
            }
        }
        for (k, slots) in handed_back.into_iter().enumerate() {
            let (index, phase) = (returned[handed_back_at + 2 * k], returned[handed_back_at + 2 * k + 1]);
            if let Some((index_slot, phase_slot)) = slots {
                builder.store(self.ctx, index, index_slot, at);
                builder.store(self.ctx, phase, phase_slot, at);
            }
        }
        // A closure's captures by reference: the states they stand for take their new values.
        for arg in args {
            let Some((local, _)) = arg.node.place().and_then(|place| function.state_path(place)) else {
                continue;
            };
            let mut captured: Vec<(u32, StatePath)> = function
                .write_back
                .iter()
                .filter(|((closure, _), _)| *closure == local)
                .map(|((_, k), state)| (*k, state.clone()))
                .collect();
            captured.sort();
            for (k, state) in captured {
                self.copy_paths(function, builder, &(local, vec![k]), &state, at);
                // A closure moved here from another local writes back into that one's capture,
                // which stands for a state in turn (`forall(.., body)` handing its `body` on).
                let mut at_capture = state;
                for _ in 0..MAX_WRITE_BACK_CHAIN {
                    let (closure, [capture]) = (at_capture.0, at_capture.1.as_slice()) else { break };
                    let Some(next) = function.write_back.get(&(closure, *capture)).cloned() else { break };
                    self.copy_paths(function, builder, &at_capture, &next, at);
                    at_capture = next;
                }
            }
        }
        Ok(())
    }

    /// A closure capturing a state by `&mut`, moved from `source` into local `to`: each such
    /// capture of the copy stands for the original's, so a call handed the copy writes its
    /// states back there (the original's own capture is then written back in turn). Without
    /// it the original kept the state as it was before the call: a `forall(segment, body)`
    /// passing `body` on returned its caller's state unadvanced, and the caller's
    /// `producer_tail` read as a stale copy (blind round 42's `raja` kernels).
    pub(super) fn write_back_moved_closure(
        &mut self,
        function: &mut FunctionImport<'_, 'tcx>,
        source: Place<'tcx>,
        to: Local,
    ) {
        let ty = source.ty(function.body, self.tcx).ty;
        let ty::Closure(_, args) = ty.kind() else { return };
        let Some(from) = function.state_path(source) else { return };
        for (k, capture) in args.as_closure().upvar_tys().iter().enumerate() {
            let by_mut_reference = match capture.kind() {
                ty::Ref(_, pointee, rustc_middle::mir::Mutability::Mut) => {
                    is_pipeline_state(self.tcx, *pointee)
                }
                _ => captures_state_mutably(self.tcx, capture, 1),
            };
            if by_mut_reference {
                let original = (from.0, [from.1.clone(), vec![k as u32]].concat());
                function.write_back.insert((to, k as u32), original);
            }
        }
    }

    /// A call's result written into `destination`: the states it holds (a returned struct
    /// holding a state) are not followed, so they are forgotten.
    pub(super) fn forget_destination_states(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        destination: Place<'tcx>,
        at: &SourceLoc,
    ) {
        if let Some(to) = function.state_path(destination)
            && !function.states.contains_key(&to)
        {
            self.forget_states(function, builder, &to, at);
        }
    }

    /// The stage index and phase of the state argument `position` names, loaded from its
    /// slots. A state the import cannot follow (reached through a parameter, a field, a tuple
    /// or an array) gives opaque values instead, so the verifier rejects the operation by
    /// rule `state-provenance` rather than passing a protocol step it cannot see.
    pub(super) fn state_operands(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        args: &[Spanned<Operand<'tcx>>],
        position: usize,
        at: &SourceLoc,
    ) -> (Value, Value) {
        match function.state_arg(args, position) {
            Some((index_slot, phase_slot)) => {
                (builder.load(self.ctx, index_slot, at), builder.load(self.ctx, phase_slot, at))
            }
            None => {
                let u32_ty: TypeHandle = shorthand::u32_type(self.ctx).into();
                let values = self.opaque(
                    builder,
                    &format!("{UNFOLLOWED_STATE} the import cannot follow (a parameter, field, tuple or array element)"),
                    &[],
                    &[u32_ty, u32_ty],
                    at,
                );
                (values[0], values[1])
            }
        }
    }
}

/// `STAGES` of a `PipelineState<STAGES>` type (0 if it cannot be read).
pub(super) fn stage_count(ty: Ty<'_>) -> u32 {
    let ty::Adt(_, args) = ty.kind() else { return 0 };
    args.consts().next().and_then(|constant| constant.try_to_leaf()).map(|leaf| leaf.to_u32()).unwrap_or(0)
}

/// How a function takes a pipeline state.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum StateParam {
    /// `PipelineState` or `&PipelineState`: the caller's state does not change.
    Value,
    /// `&mut PipelineState`: handed back to the caller.
    Mut,
}

/// Whether a parameter of type `ty` is a pipeline state, and how it is passed.
pub(super) fn state_param<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> Option<StateParam> {
    match ty.kind() {
        ty::Ref(_, pointee, mutability) if is_pipeline_state(tcx, *pointee) => Some(match mutability {
            rustc_middle::mir::Mutability::Mut => StateParam::Mut,
            rustc_middle::mir::Mutability::Not => StateParam::Value,
        }),
        _ if is_pipeline_state(tcx, ty) => Some(StateParam::Value),
        _ => None,
    }
}

/// How a parameter carries pipeline states: a state itself (`whole`: the parameter is only its
/// index and phase), or a struct, tuple or array holding states at `paths` (the parameter,
/// then each state's index and phase), by value or `behind_reference`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct ParamStates {
    pub(super) kind: StateParam,
    pub(super) paths: Vec<Vec<u32>>,
    pub(super) whole: bool,
    pub(super) behind_reference: bool,
}

/// The states a parameter of type `ty` carries, if any (see [`ParamStates`]).
pub(super) fn param_states<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> Option<ParamStates> {
    if let Some(kind) = state_param(tcx, ty) {
        return Some(ParamStates { kind, paths: vec![Vec::new()], whole: true, behind_reference: false });
    }
    let (pointee, kind, behind_reference) = match ty.kind() {
        ty::Ref(_, pointee, rustc_middle::mir::Mutability::Mut) => (*pointee, StateParam::Mut, true),
        ty::Ref(_, pointee, rustc_middle::mir::Mutability::Not) => (*pointee, StateParam::Value, true),
        // A closure handed over by value that captured a state by `&mut` (`for_each(|t| { …;
        // st.advance() })`) advances the caller's state wherever it runs: handed back too.
        _ if captures_state_mutably(tcx, ty, 0) => (ty, StateParam::Mut, false),
        _ => (ty, StateParam::Value, false),
    };
    let paths = nested_states(tcx, pointee);
    (!paths.is_empty()).then_some(ParamStates { kind, paths, whole: false, behind_reference })
}

/// Whether `ty` is a closure (or a closure inside a closure's captures, as the standard library
/// wraps one) that captured a pipeline state by `&mut`.
pub(super) fn captures_state_mutably<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>, depth: usize) -> bool {
    let ty::Closure(_, args) = ty.kind() else { return false };
    depth < 4
        && args.as_closure().upvar_tys().iter().any(|capture| match capture.kind() {
            ty::Ref(_, pointee, rustc_middle::mir::Mutability::Mut) => is_pipeline_state(tcx, *pointee),
            _ => captures_state_mutably(tcx, capture, depth + 1),
        })
}

/// Moved closures a write-back is followed through, one after the other.
const MAX_WRITE_BACK_CHAIN: usize = 4;

/// Arrays longer than this are not looked into: their states are not followed.
pub(super) const MAX_STATE_ARRAY: u64 = 8;

/// The paths to the pipeline states inside a value of type `ty` (a struct, a tuple or an
/// array of a few elements, nested a few levels), not through references; empty for a state
/// itself and for a type holding none.
pub(super) fn nested_states<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> Vec<Vec<u32>> {
    fn walk<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>, path: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
        if is_pipeline_state(tcx, ty) {
            out.push(path.clone());
            return;
        }
        if path.len() >= 4 {
            return;
        }
        let mut visit = |k: usize, field: Ty<'tcx>, out: &mut Vec<Vec<u32>>| {
            path.push(k as u32);
            walk(tcx, field, path, out);
            path.pop();
        };
        match ty.kind() {
            ty::Tuple(fields) => {
                for (k, field) in fields.iter().enumerate() {
                    visit(k, field, out);
                }
            }
            ty::Adt(adt, args) if adt.is_struct() => {
                for (k, field) in adt.non_enum_variant().fields.iter().enumerate() {
                    visit(k, field.ty(tcx, args).skip_normalization(), out);
                }
            }
            // `Option<PipelineState>` and the like: each variant's fields, keyed apart.
            ty::Adt(adt, args)
                if adt.is_enum()
                    && adt.variants().len() <= MAX_ENUM_VARIANTS
                    && adt.variants().iter().all(|v| v.fields.len() <= MAX_ENUM_FIELDS) =>
            {
                for (v, variant) in adt.variants().iter().enumerate() {
                    for (k, field) in variant.fields.iter().enumerate() {
                        path.push(enum_field(v as u32, k as u32));
                        walk(tcx, field.ty(tcx, args).skip_normalization(), path, out);
                        path.pop();
                    }
                }
            }
            // A closure's environment: a state captured by value, or by reference (the
            // capture stands for the state; see `FunctionImport::write_back`).
            ty::Closure(_, args) => {
                for (k, capture) in args.as_closure().upvar_tys().iter().enumerate() {
                    match capture.kind() {
                        ty::Ref(_, pointee, _) if is_pipeline_state(tcx, *pointee) => visit(k, *pointee, out),
                        _ => visit(k, capture, out),
                    }
                }
            }
            ty::Array(element, length) => {
                if let Some(length) = length.try_to_target_usize(tcx).filter(|n| *n <= MAX_STATE_ARRAY) {
                    for k in 0..length as usize {
                        visit(k, *element, out);
                    }
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    if !is_pipeline_state(tcx, ty) {
        walk(tcx, ty, &mut Vec::new(), &mut out);
    }
    out
}

pub(super) use crate::device_api::is_pipeline_state;
