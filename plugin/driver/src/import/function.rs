//! One function's import: its entry block with a slot per MIR local (two for a pipeline state),
//! its parameters stored, and its MIR blocks imported in reverse postorder.

use std::collections::BTreeMap;

use rustc_data_structures::fx::{FxHashMap, FxHashSet};

use pliron::basic_block::BasicBlock;
use pliron::context::Ptr;
use pliron::r#type::TypeHandle;
use plugin::ir::builder::{BuildError, FnKind, ModuleBuilder, SourceLoc};
use plugin::ir::types::shorthand;
use rustc_index::IndexVec;
use rustc_middle::mir::{BasicBlock as MirBlock, Body, Local, RETURN_PLACE};
use rustc_middle::ty::Instance;
use rustc_span::Span;

use super::analysis::{assignments, built_tuples, constant_locals};
use super::counted::CountedLocals;
use super::state_abi::{ParamStates, StateParam, is_pipeline_state, nested_states, param_states};
use super::{FunctionImport, Importer, Slot, StatePath};
use crate::single_assignment::{LocalMentions, single_assignment_locals};

impl<'tcx> Importer<'_, 'tcx> {
    pub(super) fn location(&mut self, span: Span) -> SourceLoc {
        if let Some(location) = self.positions.get(&span) {
            return location.clone();
        }
        let original = span;
        let span = span.source_callsite();
        let position = self.tcx.sess.source_map().lookup_char_pos(span.lo());
        let file = position.file.name.prefer_local_unconditionally().to_string();
        let location = SourceLoc::new(file, position.line as u32, position.col_display as u32 + 1);
        self.locations.spans.entry(location.clone()).or_insert(span);
        self.positions.insert(original, location.clone());
        location
    }

    pub(super) fn function(
        &mut self,
        module: &ModuleBuilder,
        kind: FnKind,
        instance: Instance<'tcx>,
        body: &Body<'tcx>,
    ) -> Result<(), BuildError> {
        let at = self.location(body.span);
        let u32_ty: TypeHandle = shorthand::u32_type(self.ctx).into();
        // A state parameter (by value or by reference) is its index and phase; a parameter
        // holding states (a struct, tuple or array, by value or by reference) is itself followed
        // by each state's index and phase.
        let state_params: Vec<Option<ParamStates>> =
            body.args_iter().map(|local| param_states(self.tcx, body.local_decls[local].ty)).collect();
        let mut params: Vec<TypeHandle> = Vec::new();
        for (position, (local, state)) in body.args_iter().zip(&state_params).enumerate() {
            match state {
                Some(states) if states.whole => params.extend([u32_ty, u32_ty]),
                Some(states) => {
                    params.push(self.local_type(instance, body, local));
                    params.extend(states.paths.iter().flat_map(|_| [u32_ty, u32_ty]));
                }
                None => {
                    params.push(self.local_type(instance, body, local));
                    // A copy barrier's pipeline, after the barrier (`barrier_params`).
                    if self.carries_barrier(instance, position) {
                        params.push(self.hidden_pipeline_type());
                    }
                }
            }
        }
        let returns_state = is_pipeline_state(self.tcx, body.local_decls[Local::ZERO].ty);
        let mut results = if returns_state {
            vec![u32_ty, u32_ty]
        } else {
            self.results_of(body.local_decls[Local::ZERO].ty, Some(instance))
        };
        let returns_value = !results.is_empty();
        // A returned struct, tuple or array holding states: each state's index and phase after
        // the declared result.
        let returned_states = if !returns_state {
            nested_states(self.tcx, body.local_decls[Local::ZERO].ty)
        } else {
            Vec::new()
        };
        results.extend(returned_states.iter().flat_map(|_| [u32_ty, u32_ty]));
        let handed_back: Vec<StatePath> = body
            .args_iter()
            .zip(&state_params)
            .filter_map(|(local, state)| {
                state.as_ref().filter(|s| s.kind == StateParam::Mut).map(|s| (local, s))
            })
            .flat_map(|(local, states)| states.paths.iter().map(move |path| (local, path.clone())))
            .collect();
        results.extend(handed_back.iter().flat_map(|_| [u32_ty, u32_ty]));
        let name = self.names[&instance].clone();
        let mut builder = module.function(self.ctx, &name, kind, &params, &results, &at)?;
        let single = single_assignment_locals(body);
        // A local no statement or terminator mentions needs no slot: after folding decided
        // branches, most locals of an unrolled or const-generic body are such (in the largest
        // scope of the kernels crate, 36 thousand of its 57 thousand operations were their
        // slots).
        let mentions = LocalMentions::of(body);
        let local_assignments = assignments(body);
        let names = self.names;
        let counted =
            CountedLocals::of(self.tcx, body, &local_assignments, &|callee| names.contains_key(&callee));
        let mut slots = IndexVec::new();
        let mut states = BTreeMap::new();
        let mut references = FxHashMap::default();
        for (local, decl) in body.local_decls.iter_enumerated() {
            let at = self.location(decl.source_info.span);
            let argument =
                body.args_iter().position(|arg| arg == local).and_then(|i| state_params[i].as_ref());
            let state_argument = argument.is_some_and(|states| states.whole);
            let pipeline_state = is_pipeline_state(self.tcx, decl.ty) || state_argument;
            // The states inside the local (or, for a parameter, behind its reference).
            let nested = match argument {
                Some(states) if !states.whole => states.paths.clone(),
                Some(_) => Vec::new(),
                None if pipeline_state => Vec::new(),
                None => nested_states(self.tcx, decl.ty),
            };
            let u32_ty: TypeHandle = shorthand::u32_type(self.ctx).into();
            let counted_parts = counted.iterators.contains_key(&local) || counted.items.contains(&local);
            let unmentioned = local != RETURN_PLACE
                && !body.args_iter().any(|arg| arg == local)
                && mentions.running[local] == 0;
            let simple = !pipeline_state && nested.is_empty() && !counted_parts;
            let slot = if simple && (single[local] || unmentioned) {
                Slot::Ssa(None)
            } else if pipeline_state {
                let index = builder.alloca(self.ctx, u32_ty, &at);
                let phase = builder.alloca(self.ctx, u32_ty, &at);
                states.insert((local, Vec::new()), (index, phase));
                Slot::State { index, phase }
            } else {
                let ty = self.local_type(instance, body, local);
                Slot::Whole(builder.alloca(self.ctx, ty, &at))
            };
            if !matches!(slot, Slot::State { .. }) {
                for path in nested {
                    let index = builder.alloca(self.ctx, u32_ty, &at);
                    let phase = builder.alloca(self.ctx, u32_ty, &at);
                    states.insert((local, path), (index, phase));
                }
            }
            if argument.is_some_and(|states| !states.whole && states.behind_reference) {
                references.insert(local, (local, Vec::new()));
            }
            slots.push(slot);
        }
        let mut entry_params = builder.params(self.ctx).into_iter();
        let mut barrier_params = FxHashMap::default();
        for (position, (local, state)) in body.args_iter().zip(&state_params).enumerate() {
            if let Some(ParamStates { whole: true, .. }) = state
                && let Slot::State { index, phase } = slots[local]
                && let (Some(index_param), Some(phase_param)) = (entry_params.next(), entry_params.next())
            {
                builder.store(self.ctx, index_param, index, &at);
                builder.store(self.ctx, phase_param, phase, &at);
                continue;
            }
            let Some(param) = entry_params.next() else { break };
            match slots[local] {
                Slot::Whole(alloca) => {
                    builder.store(self.ctx, param, alloca, &at);
                }
                Slot::State { .. } | Slot::Ssa(_) => {
                    self.opaque(
                        &builder,
                        "a pipeline state passed by value as a parameter",
                        &[param],
                        &[],
                        &at,
                    );
                }
            }
            for path in state.iter().flat_map(|states| states.paths.iter()) {
                if let Some((index, phase)) = states.get(&(local, path.clone())).copied()
                    && let (Some(index_param), Some(phase_param)) = (entry_params.next(), entry_params.next())
                {
                    builder.store(self.ctx, index_param, index, &at);
                    builder.store(self.ctx, phase_param, phase, &at);
                }
            }
            if state.is_none()
                && self.carries_barrier(instance, position)
                && let Some(pipeline) = entry_params.next()
            {
                barrier_params.insert(local, pipeline);
            }
        }
        // Blocks no path reaches (left by MIR building, or cut off by the instance's constants:
        // `crate::decided_branches`) are not imported: they all share one `unreachable` block.
        let reachable: FxHashSet<MirBlock> = body.basic_blocks.reverse_postorder().iter().copied().collect();
        let mut unreachable = None;
        let blocks: IndexVec<MirBlock, Ptr<BasicBlock>> = body
            .basic_blocks
            .indices()
            .map(|block| {
                if reachable.contains(&block) {
                    builder.add_block(self.ctx, &[], &at)
                } else {
                    *unreachable.get_or_insert_with(|| builder.add_block(self.ctx, &[], &at))
                }
            })
            .collect();
        builder.goto(self.ctx, blocks[MirBlock::ZERO], &[], &at);
        self.stats.blocks += reachable.len() + usize::from(unreachable.is_some()) + 1;
        if let Some(unreachable) = unreachable {
            builder.switch_to(unreachable);
            builder.unreachable(self.ctx, &at);
        }
        let mut function = FunctionImport {
            instance,
            body,
            slots,
            blocks,
            states,
            references,
            constants: constant_locals(self.tcx, body, &single),
            assignments: local_assignments,
            tuples: built_tuples(body),
            write_back: FxHashMap::default(),
            barrier_pipelines: FxHashMap::default(),
            barrier_params,
            returns_value,
            returns_state,
            returned_states,
            handed_back,
            aggregate_fields: FxHashMap::default(),
            counted,
            mapped: FxHashMap::default(),
        };
        for &block in body.basic_blocks.reverse_postorder() {
            let data = &body.basic_blocks[block];
            builder.switch_to(function.blocks[block]);
            for statement in &data.statements {
                let at = self.location(statement.source_info.span);
                self.statement(&mut function, &builder, &statement.kind, &at);
            }
            let terminator = data.terminator();
            let at = self.location(terminator.source_info.span);
            self.terminator(&mut function, &mut builder, &terminator.kind, &at)?;
        }
        Ok(())
    }
}
