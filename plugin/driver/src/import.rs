//! The import: one kernel scope's MIR into the verifier library's IR (`plugin::ir`), one
//! pliron module per scope.
//!
//! Each scope function becomes a `builtin.func` named by its readable path (the kernel by its
//! entry name). Its entry block gets one `mir.alloca` per MIR local (a pipeline state gets two,
//! its stage index and its phase, so the verifier follows them through plain loads and
//! stores), stores the parameters and jumps to the first MIR block; every MIR block becomes an
//! IR block, imported in reverse postorder. A local that MIR assigns exactly once, as a whole,
//! and never borrows or projects into is kept as the SSA value of its definition instead of a
//! slot (its definition dominates every use, as borrowck guarantees): so an address computed
//! in one statement and used in another stays one def-use chain, which is how the verifier
//! recognises a read of a pipeline stage. Statements become loads, stores, field addresses, constants, arithmetic,
//! comparisons and casts; terminators become `mir.goto`, `mir.cond_br`, `mir.switch`,
//! `mir.call`, `mir.return` and `mir.unreachable`. A pipeline state crosses a call of a scope
//! function (not a closure) as its index and phase: a `PipelineState` or `&PipelineState`
//! parameter is two `u32` parameters stored into the callee's state slots, a returned state
//! two results, and a `&mut PipelineState` parameter is handed back as two more results that
//! the caller stores into its state (so the verifier follows states into helpers and back,
//! without inlining). Calls to the device API's protocol
//! functions become the semantic operations (see [`crate::device_api`]); a shared pointer
//! passed to a generic pointer parameter becomes an explicit `mir.addrspace_cast` (the
//! adaptation the verifier judges). What the IR does not model becomes `mir.opaque` with the
//! MIR text: never a crash, never a silent drop.
//!
//! Every operation carries the file, line and column of its MIR statement; [`Locations`]
//! maps them back to rustc spans for the diagnostics.

use std::collections::HashMap;

use pliron::basic_block::BasicBlock;
use pliron::builtin::types::{FP16Type, FP32Type, FP64Type, IntegerType};
use pliron::context::{Context, Ptr};
use pliron::operation::Operation;
use pliron::r#type::{TypeHandle, Typed, TypedHandle};
use pliron::value::Value;
use plugin::ir::builder::{BuildError, FnKind, FunctionBuilder, ModuleBuilder, SourceLoc};
use plugin::ir::mir::arith::{BinOpKind, CastKind as IrCast, CmpPredicate};
use plugin::ir::semantic::pipeline::PipelineRole;
use plugin::ir::types::{
    AddressSpace, AdtType, Mutability as IrMutability, PointerKind, PointerType, shorthand,
};
use rustc_index::IndexVec;
use rustc_middle::mir::{
    self, BasicBlock as MirBlock, BinOp, Body, CastKind, Local, Operand, Place, ProjectionElem, Rvalue,
    StatementKind, TerminatorKind, UnOp,
};
use rustc_middle::ty::{self, Instance, Ty, TyCtxt, TypingEnv};
use rustc_span::Span;
use rustc_span::Spanned;

use crate::device_api::{DeviceOp, path_below_crate_root};
use crate::scope::{KernelScope, resolve_callee};
use crate::spaces::{SharedPaths, field_path};

/// The IR's source positions and the rustc spans they came from.
#[derive(Debug, Default)]
pub struct Locations {
    spans: HashMap<SourceLoc, Span>,
}

impl Locations {
    /// The span an IR location was made from.
    pub fn span(&self, location: &SourceLoc) -> Option<Span> {
        self.spans.get(location).copied()
    }
}

/// Counts of what the import produced.
#[derive(Debug, Default, Clone, Copy)]
pub struct ImportStats {
    pub blocks: usize,
    pub operations: usize,
    pub opaque: usize,
    pub adaptations: usize,
    /// Shared pointers that cross a call inside a struct or tuple, or through a call the import
    /// cannot resolve (a function pointer): the adaptation rule does not see them.
    pub hidden_shared: usize,
}

/// One imported scope.
pub struct ImportedScope {
    pub ctx: Context,
    pub module: Ptr<Operation>,
    pub locations: Locations,
    pub stats: ImportStats,
}

/// Imports a kernel scope into a fresh pliron context.
pub fn import_scope<'tcx>(tcx: TyCtxt<'tcx>, scope: &KernelScope<'tcx>) -> Result<ImportedScope, BuildError> {
    let mut ctx = plugin::new_context();
    let shared = SharedPaths::infer(tcx, scope);
    let module = ModuleBuilder::new(&mut ctx, &symbol(&scope.name))?;
    let mut names = HashMap::new();
    let mut taken = std::collections::HashSet::new();
    for (index, function) in scope.functions.iter().enumerate() {
        let base =
            if index == 0 { symbol(&scope.name) } else { symbol(&readable_path(tcx, function.instance)) };
        // Two instances whose paths differ only in characters a symbol cannot hold.
        let mut name = base.clone();
        let mut suffix = 1;
        while !taken.insert(name.clone()) {
            suffix += 1;
            name = format!("{base}_{suffix}");
        }
        names.insert(function.instance, name);
    }
    let mut importer = Importer {
        tcx,
        ctx: &mut ctx,
        shared: &shared,
        names: &names,
        locations: Locations::default(),
        stats: ImportStats::default(),
    };
    for (index, function) in scope.functions.iter().enumerate() {
        let kind = if index == 0 { FnKind::Kernel } else { FnKind::Device };
        importer.function(&module, kind, function.instance, &function.body)?;
    }
    let Importer { locations, stats, .. } = importer;
    Ok(ImportedScope { module: module.op(), ctx, locations, stats })
}

/// A path as a pliron symbol: `device::reduce::block_sum` → `device__reduce__block_sum`.
fn symbol(path: &str) -> String {
    let mut name = String::with_capacity(path.len());
    for c in path.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            name.push(c);
        } else if c == ':' {
            if !name.ends_with("__") {
                name.push_str("__");
            }
        } else if !name.ends_with('_') {
            name.push('_');
        }
    }
    let name = name.trim_end_matches('_').to_string();
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) { format!("f_{name}") } else { name }
}

#[cfg(test)]
mod tests {
    use super::symbol;

    #[test]
    fn paths_become_pliron_symbols() {
        assert_eq!(symbol("device::reduce::block_sum"), "device__reduce__block_sum");
        assert_eq!(symbol("device::pipeline::Pipeline::<4>::init"), "device__pipeline__Pipeline__4___init");
        assert_eq!(symbol("<u32 as core::ops::Add>::add"), "_u32_as_core__ops__Add___add");
        assert_eq!(symbol("4stages"), "f_4stages");
    }
}

/// A readable name of a function instance, generic arguments included.
pub fn readable_path<'tcx>(tcx: TyCtxt<'tcx>, instance: Instance<'tcx>) -> String {
    tcx.def_path_str_with_args(instance.def_id(), instance.args)
}

/// Where a MIR local lives in the IR.
#[derive(Clone, Copy)]
enum Slot {
    /// One alloca holding the whole local.
    Whole(Value),
    /// A pipeline state: its stage index and its phase, each a `u32` alloca.
    State { index: Value, phase: Value },
    /// A single-assignment local: the value of its definition, once imported.
    Ssa(Option<Value>),
}

/// One function's import state.
struct FunctionImport<'b, 'tcx> {
    instance: Instance<'tcx>,
    body: &'b Body<'tcx>,
    slots: IndexVec<Local, Slot>,
    blocks: IndexVec<MirBlock, Ptr<BasicBlock>>,
    /// Locals holding a reference to a pipeline state local.
    references: HashMap<Local, Local>,
    /// Locals holding a `producer_barrier` result, with the pipeline it was asked of: the
    /// bulk copy that completes on that barrier names the same pipeline.
    barrier_pipelines: HashMap<Local, Value>,
    /// Whether the function has an IR result (its `Return`s return the return place).
    returns_value: bool,
    /// Whether it returns a pipeline state, as its index and phase.
    returns_state: bool,
    /// Its `&mut PipelineState` parameters: each is handed back, index and phase, after the
    /// declared result (the caller stores them into its state: how a helper's advance reaches
    /// the caller).
    handed_back: Vec<Local>,
}

impl FunctionImport<'_, '_> {
    /// The pipeline state local a place names: the local itself, or the one a reference
    /// local points to (`*_7` or `_7`).
    fn state_of(&self, place: Place<'_>) -> Option<Local> {
        let local = self.references.get(&place.local).copied().unwrap_or(place.local);
        let only_derefs = place.projection.iter().all(|element| matches!(element, ProjectionElem::Deref));
        match self.slots[local] {
            Slot::State { .. } if only_derefs => Some(local),
            _ => None,
        }
    }

    fn state_slots(&self, local: Local) -> Option<(Value, Value)> {
        match self.slots[local] {
            Slot::State { index, phase } => Some((index, phase)),
            Slot::Whole(_) | Slot::Ssa(_) => None,
        }
    }

    /// The index and phase slots of the state an argument names.
    fn state_arg(&self, args: &[Spanned<Operand<'_>>], position: usize) -> Option<(Value, Value)> {
        let place = args.get(position)?.node.place()?;
        self.state_slots(self.state_of(place)?)
    }
}

struct Importer<'a, 'tcx> {
    tcx: TyCtxt<'tcx>,
    ctx: &'a mut Context,
    shared: &'a SharedPaths<'tcx>,
    names: &'a HashMap<Instance<'tcx>, String>,
    locations: Locations,
    stats: ImportStats,
}

impl<'tcx> Importer<'_, 'tcx> {
    fn location(&mut self, span: Span) -> SourceLoc {
        let span = span.source_callsite();
        let position = self.tcx.sess.source_map().lookup_char_pos(span.lo());
        let file = position.file.name.prefer_local_unconditionally().to_string();
        let location = SourceLoc::new(file, position.line as u32, position.col_display as u32 + 1);
        self.locations.spans.entry(location.clone()).or_insert(span);
        location
    }

    fn function(
        &mut self,
        module: &ModuleBuilder,
        kind: FnKind,
        instance: Instance<'tcx>,
        body: &Body<'tcx>,
    ) -> Result<(), BuildError> {
        let at = self.location(body.span);
        let expands = expands_states(self.tcx, instance);
        let u32_ty: TypeHandle = shorthand::u32_type(self.ctx).into();
        // A state parameter (by value or by reference) is its index and phase.
        let state_params: Vec<Option<StateParam>> = body
            .args_iter()
            .map(|local| if expands { state_param(self.tcx, body.local_decls[local].ty) } else { None })
            .collect();
        let mut params: Vec<TypeHandle> = Vec::new();
        for (local, state) in body.args_iter().zip(&state_params) {
            match state {
                Some(_) => params.extend([u32_ty, u32_ty]),
                None => params.push(self.local_type(instance, body, local)),
            }
        }
        let returns_state = expands && is_pipeline_state(self.tcx, body.local_decls[Local::ZERO].ty);
        let mut results = if returns_state {
            vec![u32_ty, u32_ty]
        } else {
            self.results_of(body.local_decls[Local::ZERO].ty, Some(instance))
        };
        let returns_value = !results.is_empty();
        let handed_back: Vec<Local> = body
            .args_iter()
            .zip(&state_params)
            .filter(|(_, state)| **state == Some(StateParam::Mut))
            .map(|(local, _)| local)
            .collect();
        results.extend(handed_back.iter().flat_map(|_| [u32_ty, u32_ty]));
        let name = self.names[&instance].clone();
        let mut builder = module.function(self.ctx, &name, kind, &params, &results, &at)?;
        let single = single_assignment_locals(body);
        let mut slots = IndexVec::new();
        for (local, decl) in body.local_decls.iter_enumerated() {
            let at = self.location(decl.source_info.span);
            let state_argument =
                body.args_iter().position(|arg| arg == local).is_some_and(|i| state_params[i].is_some());
            let pipeline_state = is_pipeline_state(self.tcx, decl.ty) || state_argument;
            let slot = if single[local] && !pipeline_state {
                Slot::Ssa(None)
            } else if pipeline_state {
                let u32_ty: TypeHandle = shorthand::u32_type(self.ctx).into();
                let index = builder.alloca(self.ctx, u32_ty, &at);
                let phase = builder.alloca(self.ctx, u32_ty, &at);
                Slot::State { index, phase }
            } else {
                let ty = self.local_type(instance, body, local);
                Slot::Whole(builder.alloca(self.ctx, ty, &at))
            };
            slots.push(slot);
        }
        let mut entry_params = builder.params(self.ctx).into_iter();
        for (local, state) in body.args_iter().zip(&state_params) {
            if state.is_some()
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
        }
        let blocks: IndexVec<MirBlock, Ptr<BasicBlock>> =
            body.basic_blocks.indices().map(|_| builder.add_block(self.ctx, &[], &at)).collect();
        builder.goto(self.ctx, blocks[MirBlock::ZERO], &[], &at);
        self.stats.blocks += blocks.len() + 1;
        // Blocks no path reaches (left by MIR building) are not imported; they still need a
        // terminator.
        let reachable: std::collections::HashSet<MirBlock> =
            body.basic_blocks.reverse_postorder().iter().copied().collect();
        for (block, ir_block) in blocks.iter_enumerated() {
            if !reachable.contains(&block) {
                builder.switch_to(*ir_block);
                builder.unreachable(self.ctx, &at);
            }
        }
        let mut function = FunctionImport {
            instance,
            body,
            slots,
            blocks,
            references: HashMap::new(),
            barrier_pipelines: HashMap::new(),
            returns_value,
            returns_state,
            handed_back,
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

    // ---- types ------------------------------------------------------------------------------

    /// The IR type of a Rust type; a pointer or reference into shared memory is `Shared`,
    /// viewing `view`.
    fn ir_type(&mut self, ty: Ty<'tcx>, view: Option<Ty<'tcx>>) -> TypeHandle {
        let pointer_bits = self.tcx.data_layout.pointer_size().bits() as u32;
        match ty.kind() {
            ty::Bool => shorthand::bool_type(self.ctx).into(),
            ty::Char => shorthand::u32_type(self.ctx).into(),
            ty::Int(int) => {
                let width = int.bit_width().map(|bits| bits as u32).unwrap_or(pointer_bits);
                shorthand::int_type(self.ctx, width, true).into()
            }
            ty::Uint(uint) => {
                let width = uint.bit_width().map(|bits| bits as u32).unwrap_or(pointer_bits);
                shorthand::int_type(self.ctx, width, false).into()
            }
            ty::Float(ty::FloatTy::F16) => FP16Type::get(self.ctx).into(),
            ty::Float(ty::FloatTy::F32) => FP32Type::get(self.ctx).into(),
            ty::Float(ty::FloatTy::F64) => FP64Type::get(self.ctx).into(),
            // A pointer or a reference; one with a shared view (a reference reborrowed from a
            // shared pointer, too) points into shared memory.
            ty::RawPtr(pointee, mutability) | ty::Ref(_, pointee, mutability) => {
                let kind = if ty.is_ref() { PointerKind::Ref } else { PointerKind::Raw };
                let (space, pointee) = match view {
                    Some(view) => (AddressSpace::Shared, view),
                    None => (AddressSpace::Generic, *pointee),
                };
                let pointee = self.ir_type(pointee, None);
                PointerType::get(self.ctx, space, ir_mutability(*mutability), kind, pointee).into()
            }
            _ => AdtType::get(self.ctx, ty.to_string()).into(),
        }
    }

    fn local_type(&mut self, instance: Instance<'tcx>, body: &Body<'tcx>, local: Local) -> TypeHandle {
        let view = self.shared.view(instance, &(local, Vec::new()));
        self.ir_type(body.local_decls[local].ty, view)
    }

    /// The IR results of a function returning `ty` (none for `()` and `!`); for a scope
    /// function, a returned shared pointer stays shared.
    fn results_of(&mut self, ty: Ty<'tcx>, function: Option<Instance<'tcx>>) -> Vec<TypeHandle> {
        if ty.is_unit() || ty.is_never() {
            return Vec::new();
        }
        let view = function.and_then(|instance| self.shared.view(instance, &(Local::ZERO, Vec::new())));
        vec![self.ir_type(ty, view)]
    }

    // ---- places and operands ----------------------------------------------------------------

    /// The address of a place, or `None` for projections the IR does not model (indexing,
    /// downcasts, a deref of something that is not a pointer).
    fn address(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        place: Place<'tcx>,
        at: &SourceLoc,
    ) -> Option<Value> {
        let mut projection = place.projection.iter();
        let mut through_deref = false;
        let mut address = match function.slots[place.local] {
            Slot::Whole(alloca) => alloca,
            // A single-assignment local is never projected into but through a deref.
            Slot::Ssa(Some(pointer)) if matches!(projection.next(), Some(ProjectionElem::Deref)) => {
                pointer_pointee(self.ctx, pointer)?;
                through_deref = true;
                pointer
            }
            _ => return None,
        };
        let mut fields = Vec::new();
        for element in projection {
            match element {
                ProjectionElem::Field(field, field_ty) => {
                    fields.push(field.as_u32());
                    let view = if through_deref {
                        None
                    } else {
                        self.shared.view(function.instance, &(place.local, fields.clone()))
                    };
                    let ir_field = self.ir_type(field_ty, view);
                    address = builder.field_addr(self.ctx, address, field.as_u32(), ir_field, at);
                }
                ProjectionElem::Deref => {
                    let pointer = builder.load(self.ctx, address, at);
                    pointer_pointee(self.ctx, pointer)?;
                    address = pointer;
                    through_deref = true;
                }
                _ => return None,
            }
        }
        Some(address)
    }

    /// The value of an operand; `None` for a zero-sized function item or `()`.
    fn operand(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        operand: &Operand<'tcx>,
        at: &SourceLoc,
    ) -> Option<Value> {
        match operand {
            Operand::Copy(place) | Operand::Move(place) => {
                if place.projection.is_empty()
                    && let Slot::Ssa(Some(value)) = function.slots[place.local]
                {
                    return Some(value);
                }
                if let Some(address) = self.address(function, builder, *place, at) {
                    return Some(builder.load(self.ctx, address, at));
                }
                let ty = self.ir_type(place.ty(function.body, self.tcx).ty, None);
                Some(self.opaque(builder, &format!("read of {place:?}"), &[], &[ty], at)[0])
            }
            Operand::Constant(constant) => {
                let ty = constant.ty();
                if matches!(ty.kind(), ty::FnDef(..)) || ty.is_unit() {
                    return None;
                }
                let typing_env = TypingEnv::fully_monomorphized();
                let bits = constant.const_.try_eval_bits(self.tcx, typing_env);
                let ir_ty = self.ir_type(ty, None);
                let value = match (ty.kind(), bits) {
                    (ty::Bool | ty::Char | ty::Uint(_), Some(bits)) => int_type(self.ctx, ir_ty)
                        .map(|int| builder.const_int(self.ctx, int, bits as i128, at)),
                    (ty::Int(_), Some(bits)) => int_type(self.ctx, ir_ty).map(|int| {
                        let width = int.deref(self.ctx).width();
                        let signed = ((bits << (128 - width)) as i128) >> (128 - width);
                        builder.const_int(self.ctx, int, signed, at)
                    }),
                    (ty::Float(ty::FloatTy::F32), Some(bits)) => {
                        Some(builder.const_float(self.ctx, ir_ty, f32::from_bits(bits as u32) as f64, at))
                    }
                    (ty::Float(ty::FloatTy::F64), Some(bits)) => {
                        Some(builder.const_float(self.ctx, ir_ty, f64::from_bits(bits as u64), at))
                    }
                    _ => None,
                };
                value.or_else(|| {
                    Some(self.opaque(builder, &format!("constant {constant:?}"), &[], &[ir_ty], at)[0])
                })
            }
            _ => {
                let ty = self.ir_type(operand.ty(function.body, self.tcx), None);
                Some(self.opaque(builder, &format!("{operand:?}"), &[], &[ty], at)[0])
            }
        }
    }

    /// `value` as a value of type `to`: unchanged when the types agree; a shared pointer
    /// where a generic one is expected is the explicit adaptation; anything else a cast.
    fn coerce(&mut self, builder: &FunctionBuilder, value: Value, to: TypeHandle, at: &SourceLoc) -> Value {
        let from = value.get_type(self.ctx);
        if from == to {
            return value;
        }
        let from_ptr = from.deref(self.ctx).downcast_ref::<PointerType>().cloned();
        let to_ptr = to.deref(self.ctx).downcast_ref::<PointerType>().cloned();
        match (from_ptr, to_ptr) {
            (Some(from_ptr), Some(to_ptr))
                if from_ptr.space() == AddressSpace::Shared && to_ptr.space() == AddressSpace::Generic =>
            {
                self.stats.adaptations += 1;
                builder.addrspace_cast(self.ctx, value, to, at)
            }
            (Some(_), Some(_)) => builder.cast(self.ctx, IrCast::PtrToPtr, value, to, at),
            _ => builder.cast(self.ctx, IrCast::Transmute, value, to, at),
        }
    }

    fn write_place(
        &mut self,
        function: &mut FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        place: Place<'tcx>,
        value: Value,
        at: &SourceLoc,
    ) {
        if place.projection.is_empty() && matches!(function.slots[place.local], Slot::Ssa(_)) {
            let ty = self.local_type(function.instance, function.body, place.local);
            let value = self.coerce(builder, value, ty, at);
            function.slots[place.local] = Slot::Ssa(Some(value));
            return;
        }
        match self.address(function, builder, place, at) {
            Some(address) => {
                let pointee = pointer_pointee(self.ctx, address).expect("an address is a pointer");
                let value = self.coerce(builder, value, pointee, at);
                builder.store(self.ctx, value, address, at);
            }
            None => {
                self.opaque(builder, &format!("write to {place:?}"), &[value], &[], at);
            }
        }
    }

    fn opaque(
        &mut self,
        builder: &FunctionBuilder,
        what: &str,
        args: &[Value],
        results: &[TypeHandle],
        at: &SourceLoc,
    ) -> Vec<Value> {
        self.stats.opaque += 1;
        builder.opaque(self.ctx, what, args, results, at)
    }

    // ---- statements -------------------------------------------------------------------------

    fn statement(
        &mut self,
        function: &mut FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        kind: &StatementKind<'tcx>,
        at: &SourceLoc,
    ) {
        match kind {
            StatementKind::Assign(assign) => {
                self.stats.operations += 1;
                let (place, rvalue) = &**assign;
                self.assign(function, builder, *place, rvalue, at);
            }
            StatementKind::StorageLive(_)
            | StatementKind::StorageDead(_)
            | StatementKind::Nop
            | StatementKind::FakeRead(_)
            | StatementKind::PlaceMention(_)
            | StatementKind::AscribeUserType(..)
            | StatementKind::Coverage(_)
            | StatementKind::ConstEvalCounter
            | StatementKind::BackwardIncompatibleDropHint { .. } => {}
            other => {
                self.stats.operations += 1;
                self.opaque(builder, &format!("{other:?}"), &[], &[], at);
            }
        }
    }

    fn assign(
        &mut self,
        function: &mut FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        place: Place<'tcx>,
        rvalue: &Rvalue<'tcx>,
        at: &SourceLoc,
    ) {
        // A reference to a pipeline state is followed statically: after `_7 = &mut _5`, `_7`
        // names `_5`'s index and phase.
        if let Rvalue::Ref(_, _, borrowed) | Rvalue::RawPtr(_, borrowed) = rvalue
            && place.projection.is_empty()
            && let Some(target) = function.state_of(*borrowed)
        {
            function.references.insert(place.local, target);
            return;
        }
        // A whole pipeline state copied into another one: both halves.
        if let Rvalue::Use(Operand::Copy(source) | Operand::Move(source), ..) = rvalue
            && let Some(from) = function.state_of(*source).and_then(|local| function.state_slots(local))
            && let Some(to) = function.state_of(place).and_then(|local| function.state_slots(local))
        {
            let index = builder.load(self.ctx, from.0, at);
            let phase = builder.load(self.ctx, from.1, at);
            builder.store(self.ctx, index, to.0, at);
            builder.store(self.ctx, phase, to.1, at);
            return;
        }
        let result_ty = place.ty(function.body, self.tcx).ty;
        let view = field_path(&place).and_then(|path| self.shared.view(function.instance, &path));
        let ir_result = self.ir_type(result_ty, view);
        let value = match rvalue {
            Rvalue::Use(operand, ..) => self.operand(function, builder, operand, at),
            Rvalue::BinaryOp(op, operands) => {
                let lhs = self.operand(function, builder, &operands.0, at);
                let rhs = self.operand(function, builder, &operands.1, at);
                match (lhs, rhs) {
                    (Some(lhs), Some(rhs)) => self.binary(builder, *op, lhs, rhs, ir_result, at),
                    _ => None,
                }
            }
            Rvalue::UnaryOp(UnOp::Not, operand) => {
                let value = self.operand(function, builder, operand, at);
                value.and_then(|value| {
                    let int = int_type(self.ctx, value.get_type(self.ctx))?;
                    let ones = builder.const_int(self.ctx, int, -1, at);
                    Some(builder.binop(self.ctx, BinOpKind::BitXor, value, ones, at))
                })
            }
            Rvalue::UnaryOp(UnOp::Neg, operand) => {
                let value = self.operand(function, builder, operand, at);
                value.map(|value| {
                    let ty = value.get_type(self.ctx);
                    let zero = match int_type(self.ctx, ty) {
                        Some(int) => builder.const_int(self.ctx, int, 0, at),
                        None => builder.const_float(self.ctx, ty, 0.0, at),
                    };
                    builder.binop(self.ctx, BinOpKind::Sub, zero, value, at)
                })
            }
            Rvalue::Cast(kind, operand, _) => {
                let value = self.operand(function, builder, operand, at);
                let kind = match kind {
                    CastKind::IntToInt => Some(IrCast::IntToInt),
                    CastKind::IntToFloat => Some(IrCast::IntToFloat),
                    CastKind::FloatToInt => Some(IrCast::FloatToInt),
                    CastKind::FloatToFloat => Some(IrCast::FloatToFloat),
                    CastKind::PtrToPtr | CastKind::PointerCoercion(..) => Some(IrCast::PtrToPtr),
                    CastKind::PointerExposeProvenance => Some(IrCast::PtrToInt),
                    CastKind::PointerWithExposedProvenance => Some(IrCast::IntToPtr),
                    CastKind::Transmute => Some(IrCast::Transmute),
                    _ => None,
                };
                // The destination's type comes from the inference: a typed shared view cast to
                // another pointee keeps its view (see `spaces`), so such a cast may change
                // nothing but the mutability, or nothing at all.
                match (value, kind) {
                    (Some(value), Some(_)) if value.get_type(self.ctx) == ir_result => Some(value),
                    (Some(value), Some(kind)) => Some(builder.cast(self.ctx, kind, value, ir_result, at)),
                    _ => None,
                }
            }
            Rvalue::Ref(_, _, borrowed) | Rvalue::RawPtr(_, borrowed) => {
                self.address(function, builder, *borrowed, at).map(|address| {
                    if address.get_type(self.ctx) == ir_result {
                        address
                    } else {
                        builder.cast(self.ctx, IrCast::PtrToPtr, address, ir_result, at)
                    }
                })
            }
            Rvalue::Aggregate(kind, operands)
                if matches!(
                    **kind,
                    mir::AggregateKind::Tuple | mir::AggregateKind::Adt(_, _, _, _, None)
                ) && !matches!(result_ty.kind(), ty::Adt(adt, _) if adt.is_enum()) =>
            {
                for (index, operand) in operands.iter_enumerated() {
                    let field_ty = operand.ty(function.body, self.tcx);
                    if let Some(value) = self.operand(function, builder, operand, at) {
                        let field = self.tcx.mk_place_field(place, index, field_ty);
                        self.write_place(function, builder, field, value, at);
                    }
                }
                return;
            }
            _ => None,
        };
        let value = match value {
            Some(value) => value,
            None => self.opaque(builder, &format!("{rvalue:?}"), &[], &[ir_result], at)[0],
        };
        self.write_place(function, builder, place, value, at);
    }

    fn binary(
        &mut self,
        builder: &FunctionBuilder,
        op: BinOp,
        lhs: Value,
        rhs: Value,
        ir_result: TypeHandle,
        at: &SourceLoc,
    ) -> Option<Value> {
        let arithmetic = match op {
            BinOp::Add | BinOp::AddUnchecked => Some(BinOpKind::Add),
            BinOp::Sub | BinOp::SubUnchecked => Some(BinOpKind::Sub),
            BinOp::Mul | BinOp::MulUnchecked => Some(BinOpKind::Mul),
            BinOp::Div => Some(BinOpKind::Div),
            BinOp::Rem => Some(BinOpKind::Rem),
            BinOp::BitAnd => Some(BinOpKind::BitAnd),
            BinOp::BitOr => Some(BinOpKind::BitOr),
            BinOp::BitXor => Some(BinOpKind::BitXor),
            BinOp::Shl | BinOp::ShlUnchecked => Some(BinOpKind::Shl),
            BinOp::Shr | BinOp::ShrUnchecked => Some(BinOpKind::Shr),
            _ => None,
        };
        if let Some(kind) = arithmetic {
            // A shift may shift by another integer type; the IR's binop has one type.
            let lhs_ty = lhs.get_type(self.ctx);
            let rhs = if rhs.get_type(self.ctx) != lhs_ty {
                builder.cast(self.ctx, IrCast::IntToInt, rhs, lhs_ty, at)
            } else {
                rhs
            };
            return Some(builder.binop(self.ctx, kind, lhs, rhs, at));
        }
        let predicate = match op {
            BinOp::Eq => Some(CmpPredicate::Eq),
            BinOp::Ne => Some(CmpPredicate::Ne),
            BinOp::Lt => Some(CmpPredicate::Lt),
            BinOp::Le => Some(CmpPredicate::Le),
            BinOp::Gt => Some(CmpPredicate::Gt),
            BinOp::Ge => Some(CmpPredicate::Ge),
            _ => None,
        };
        if let Some(predicate) = predicate {
            return Some(builder.cmp(self.ctx, predicate, lhs, rhs, at));
        }
        if op == BinOp::Offset && pointer_pointee(self.ctx, lhs).is_some() {
            let pointer = builder.index_addr(self.ctx, lhs, rhs, at);
            return Some(self.coerce(builder, pointer, ir_result, at));
        }
        None
    }

    // ---- terminators ------------------------------------------------------------------------

    fn terminator(
        &mut self,
        function: &mut FunctionImport<'_, 'tcx>,
        builder: &mut FunctionBuilder,
        kind: &TerminatorKind<'tcx>,
        at: &SourceLoc,
    ) -> Result<(), BuildError> {
        self.stats.operations += 1;
        match kind {
            TerminatorKind::Goto { target } => {
                builder.goto(self.ctx, function.blocks[*target], &[], at);
            }
            TerminatorKind::FalseEdge { real_target: target, .. }
            | TerminatorKind::FalseUnwind { real_target: target, .. } => {
                builder.goto(self.ctx, function.blocks[*target], &[], at);
            }
            TerminatorKind::Drop { place, target, .. } => {
                self.opaque(builder, &format!("drop({place:?})"), &[], &[], at);
                builder.goto(self.ctx, function.blocks[*target], &[], at);
            }
            TerminatorKind::SwitchInt { discr, targets } => {
                let Some(value) = self.operand(function, builder, discr, at) else {
                    self.opaque(builder, &format!("switchInt on {discr:?}"), &[], &[], at);
                    builder.unreachable(self.ctx, at);
                    return Ok(());
                };
                let is_bool = discr.ty(function.body, self.tcx).is_bool();
                match targets.as_static_if() {
                    Some((0, if_false, if_true)) if is_bool => {
                        builder.cond_br(
                            self.ctx,
                            value,
                            function.blocks[if_true],
                            function.blocks[if_false],
                            at,
                        );
                    }
                    _ => {
                        let cases: Vec<(u64, Ptr<BasicBlock>)> = targets
                            .iter()
                            .map(|(case, target)| (case as u64, function.blocks[target]))
                            .collect();
                        builder.switch(self.ctx, value, &cases, function.blocks[targets.otherwise()], at);
                    }
                }
            }
            TerminatorKind::Return => {
                let mut values = Vec::new();
                if function.returns_state {
                    if let Some((index, phase)) = function.state_slots(Local::ZERO) {
                        values.push(builder.load(self.ctx, index, at));
                        values.push(builder.load(self.ctx, phase, at));
                    }
                } else if function.returns_value {
                    values.extend(self.operand(function, builder, &Operand::Copy(Local::ZERO.into()), at));
                }
                for local in function.handed_back.clone() {
                    if let Some((index, phase)) = function.state_slots(local) {
                        values.push(builder.load(self.ctx, index, at));
                        values.push(builder.load(self.ctx, phase, at));
                    }
                }
                builder.ret(self.ctx, &values, at);
            }
            TerminatorKind::Assert { cond, expected, target, msg, .. } => {
                let Some(condition) = self.operand(function, builder, cond, at) else {
                    builder.goto(self.ctx, function.blocks[*target], &[], at);
                    return Ok(());
                };
                let failed = builder.add_block(self.ctx, &[], at);
                self.stats.blocks += 1;
                let (then, otherwise) = if *expected {
                    (function.blocks[*target], failed)
                } else {
                    (failed, function.blocks[*target])
                };
                builder.cond_br(self.ctx, condition, then, otherwise, at);
                let current = builder.current_block();
                builder.switch_to(failed);
                self.opaque(builder, &format!("assertion failed: {msg:?}"), &[], &[], at);
                builder.unreachable(self.ctx, at);
                builder.switch_to(current);
            }
            TerminatorKind::Call { func, args, destination, target, .. } => {
                self.call(function, builder, func, args, *destination, at)?;
                match target {
                    Some(target) => builder.goto(self.ctx, function.blocks[*target], &[], at),
                    None => builder.unreachable(self.ctx, at),
                };
            }
            TerminatorKind::InlineAsm { targets, .. } => {
                self.opaque(builder, "inline assembly", &[], &[], at);
                match targets.first() {
                    Some(target) => builder.goto(self.ctx, function.blocks[*target], &[], at),
                    None => builder.unreachable(self.ctx, at),
                };
            }
            TerminatorKind::Unreachable => {
                builder.unreachable(self.ctx, at);
            }
            TerminatorKind::UnwindResume
            | TerminatorKind::UnwindTerminate(_)
            | TerminatorKind::CoroutineDrop
            | TerminatorKind::TailCall { .. }
            | TerminatorKind::Yield { .. } => {
                self.opaque(builder, &format!("{kind:?}"), &[], &[], at);
                builder.unreachable(self.ctx, at);
            }
        }
        Ok(())
    }

    /// A call: the semantic operation for the device API, `mir.index_addr` for the standard
    /// library's pointer arithmetic, else `mir.call` with the callee's declared signature. The
    /// result is stored into `destination`.
    fn call(
        &mut self,
        function: &mut FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        func: &Operand<'tcx>,
        args: &[Spanned<Operand<'tcx>>],
        destination: Place<'tcx>,
        at: &SourceLoc,
    ) -> Result<(), BuildError> {
        let func_ty = func.ty(function.body, self.tcx);
        let resolved = resolve_callee(self.tcx, func_ty);
        for arg in args {
            let Some(path) = arg.node.place().and_then(|place| field_path(&place)) else { continue };
            let whole = self.shared.view(function.instance, &path).is_some();
            if self.shared.holds_below(function.instance, &path) || (whole && resolved.is_none()) {
                self.stats.hidden_shared += 1;
            }
        }
        let Some(callee) = resolved else {
            let values: Vec<Value> =
                args.iter().filter_map(|arg| self.operand(function, builder, &arg.node, at)).collect();
            let ty = self.ir_type(destination.ty(function.body, self.tcx).ty, None);
            let value = self.opaque(builder, &format!("call of {func:?}"), &values, &[ty], at)[0];
            self.write_place(function, builder, destination, value, at);
            return Ok(());
        };
        if let Some(op) = DeviceOp::of_callee(self.tcx, callee.def_id())
            && self.device_op(function, builder, op, callee, args, destination, at)
        {
            return Ok(());
        }
        if let Some(pointer) = self.pointer_arithmetic(function, builder, callee, args, at) {
            self.write_place(function, builder, destination, pointer, at);
            return Ok(());
        }
        if self.pointer_write(function, builder, callee, args, at) {
            return Ok(());
        }
        let name =
            self.names.get(&callee).cloned().unwrap_or_else(|| symbol(&readable_path(self.tcx, callee)));
        if self.names.contains_key(&callee) && expands_states(self.tcx, callee) {
            return self.scope_call(function, builder, (callee, &name), func_ty, args, destination, at);
        }
        // A state handed to a call (`helper(&mut state)`, `mem::replace(&mut state, …)`) may be
        // changed there in ways the verifier does not follow: its slots escape, so what the
        // verifier knew of them is forgotten and later pipeline operations on it are rejected.
        for position in 0..args.len() {
            if let Some((index_slot, phase_slot)) = function.state_arg(args, position) {
                let what = format!("a pipeline state passed to `{name}`, which the verifier does not follow");
                self.opaque(builder, &what, &[index_slot, phase_slot], &[], at);
            }
        }
        let signature = self
            .tcx
            .normalize_erasing_late_bound_regions(TypingEnv::fully_monomorphized(), func_ty.fn_sig(self.tcx));
        let params: Vec<TypeHandle> = signature.inputs().iter().map(|ty| self.ir_type(*ty, None)).collect();
        let in_scope = self.names.contains_key(&callee).then_some(callee);
        let results = self.results_of(signature.output(), in_scope);
        let mut values = Vec::new();
        for (arg, param) in args.iter().zip(&params) {
            let value = match self.operand(function, builder, &arg.node, at) {
                Some(value) => value,
                None => self.opaque(builder, &format!("argument {:?}", arg.node), &[], &[*param], at)[0],
            };
            values.push(self.coerce(builder, value, *param, at));
        }
        let returned = builder.call(self.ctx, &name, &params, &results, &values, at)?;
        if let Some(value) = returned.first() {
            self.write_place(function, builder, destination, *value, at);
        }
        Ok(())
    }

    /// The standard library's raw-pointer methods the IR models: `add`, `wrapping_add`,
    /// `offset`, `wrapping_offset` as `mir.index_addr`; `sub` and `wrapping_sub` as
    /// `mir.index_addr` by the negated count; `cast`, `cast_mut` and `cast_const` as the pointer
    /// itself (the destination's inferred type decides the cast, see [`Self::write_place`]);
    /// `read`, `read_volatile` and `read_unaligned` (method or `core::ptr::` function) as
    /// `mir.load`. Returns the call's value; `None` when the callee is none of these.
    fn pointer_arithmetic(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        callee: Instance<'tcx>,
        args: &[Spanned<Operand<'tcx>>],
        at: &SourceLoc,
    ) -> Option<Value> {
        if self.tcx.crate_name(callee.def_id().krate).as_str() != "core" || args.is_empty() {
            return None;
        }
        if !args[0].node.ty(function.body, self.tcx).is_raw_ptr() {
            return None;
        }
        let name = self.tcx.item_name(callee.def_id());
        match (name.as_str(), args.len()) {
            ("add" | "wrapping_add" | "offset" | "wrapping_offset", 2) => {
                let pointer = self.operand(function, builder, &args[0].node, at)?;
                let index = self.operand(function, builder, &args[1].node, at)?;
                Some(builder.index_addr(self.ctx, pointer, index, at))
            }
            ("sub" | "wrapping_sub", 2) => {
                let pointer = self.operand(function, builder, &args[0].node, at)?;
                let count = self.operand(function, builder, &args[1].node, at)?;
                let int = int_type(self.ctx, count.get_type(self.ctx))?;
                let zero = builder.const_int(self.ctx, int, 0, at);
                let back = builder.binop(self.ctx, BinOpKind::Sub, zero, count, at);
                Some(builder.index_addr(self.ctx, pointer, back, at))
            }
            ("cast" | "cast_mut" | "cast_const", 1) => self.operand(function, builder, &args[0].node, at),
            ("read" | "read_volatile" | "read_unaligned", 1) => {
                let pointer = self.operand(function, builder, &args[0].node, at)?;
                pointer_pointee(self.ctx, pointer)?;
                Some(builder.load(self.ctx, pointer, at))
            }
            _ => None,
        }
    }

    /// `ptr.write(v)`, `write_volatile` and `write_unaligned` (method or `core::ptr::`
    /// function) as `mir.store`; false when the callee is none of these.
    fn pointer_write(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        callee: Instance<'tcx>,
        args: &[Spanned<Operand<'tcx>>],
        at: &SourceLoc,
    ) -> bool {
        if self.tcx.crate_name(callee.def_id().krate).as_str() != "core"
            || args.len() != 2
            || !args[0].node.ty(function.body, self.tcx).is_raw_ptr()
        {
            return false;
        }
        let name = self.tcx.item_name(callee.def_id());
        if !matches!(name.as_str(), "write" | "write_volatile" | "write_unaligned") {
            return false;
        }
        let Some(pointer) = self.operand(function, builder, &args[0].node, at) else { return false };
        let Some(pointee) = pointer_pointee(self.ctx, pointer) else { return false };
        let Some(value) = self.operand(function, builder, &args[1].node, at) else { return false };
        let value = self.coerce(builder, value, pointee, at);
        builder.store(self.ctx, value, pointer, at);
        true
    }

    /// Emits the semantic operation of a device-API call; `false` when the call's arguments
    /// are not in a form the operation takes (it is then imported as an ordinary call).
    #[allow(clippy::too_many_arguments)]
    fn device_op(
        &mut self,
        function: &mut FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        op: DeviceOp,
        callee: Instance<'tcx>,
        args: &[Spanned<Operand<'tcx>>],
        destination: Place<'tcx>,
        at: &SourceLoc,
    ) -> bool {
        match op {
            DeviceOp::ConsumerStateNew | DeviceOp::ProducerStateNew => {
                let Some((index_slot, phase_slot)) =
                    function.state_of(destination).and_then(|local| function.state_slots(local))
                else {
                    return false;
                };
                let role = if op == DeviceOp::ProducerStateNew {
                    PipelineRole::Producer
                } else {
                    PipelineRole::Consumer
                };
                let stages = stage_count(destination.ty(function.body, self.tcx).ty);
                let (index, phase) = builder.state_new(self.ctx, role, stages, at);
                builder.store(self.ctx, index, index_slot, at);
                builder.store(self.ctx, phase, phase_slot, at);
            }
            DeviceOp::StateAdvance => {
                let (index, phase) = self.state_operands(function, builder, args, 0, at);
                let (index, phase) = builder.state_advance(self.ctx, index, phase, at);
                if let Some((index_slot, phase_slot)) = function.state_arg(args, 0) {
                    builder.store(self.ctx, index, index_slot, at);
                    builder.store(self.ctx, phase, phase_slot, at);
                }
            }
            DeviceOp::StateIndex | DeviceOp::ProducerBarrier => {
                // `state.index()` is the stage index; `producer_barrier(&state)` selects the
                // stage's *full* barrier, which the import represents by the stage index.
                let position = if op == DeviceOp::StateIndex { 0 } else { 1 };
                let Some((index_slot, _)) = function.state_arg(args, position) else { return false };
                let index = builder.load(self.ctx, index_slot, at);
                if op == DeviceOp::ProducerBarrier
                    && destination.projection.is_empty()
                    && let Some(pipeline) = self.pipeline_arg(function, builder, args, at)
                {
                    function.barrier_pipelines.insert(destination.local, pipeline);
                }
                self.write_place(function, builder, destination, index, at);
            }
            DeviceOp::ProducerAcquire | DeviceOp::ProducerTail | DeviceOp::ConsumerWait => {
                let (index, phase) = self.state_operands(function, builder, args, 1, at);
                let pipeline = self.pipeline_arg(function, builder, args, at);
                let semantic = match op {
                    DeviceOp::ProducerAcquire => builder.producer_acquire(self.ctx, index, phase, at),
                    DeviceOp::ProducerTail => builder.producer_tail(self.ctx, index, phase, at),
                    _ => builder.consumer_wait(self.ctx, index, phase, at),
                };
                self.name_pipeline(semantic, pipeline);
            }
            DeviceOp::ConsumerRelease => {
                let (index, _) = self.state_operands(function, builder, args, 1, at);
                let pipeline = self.pipeline_arg(function, builder, args, at);
                let semantic = builder.consumer_release(self.ctx, index, at);
                self.name_pipeline(semantic, pipeline);
            }
            DeviceOp::ProducerExpectTx => {
                let Some(bytes) = args.get(2).and_then(|arg| self.operand(function, builder, &arg.node, at))
                else {
                    return false;
                };
                let (index, _) = self.state_operands(function, builder, args, 1, at);
                let pipeline = self.pipeline_arg(function, builder, args, at);
                let semantic = builder.producer_expect_tx(self.ctx, index, bytes, at);
                self.name_pipeline(semantic, pipeline);
            }
            DeviceOp::BulkCopy | DeviceOp::TensorCopy2d => {
                let values: Vec<Option<Value>> =
                    args.iter().map(|arg| self.operand(function, builder, &arg.node, at)).collect();
                // A tensor copy's (column, row) pick the box inside the tensor; the model only
                // needs its destination, source, bytes and barrier.
                let (operands, barrier_arg) = match (op, &values[..]) {
                    (DeviceOp::BulkCopy, [Some(to), Some(from), Some(bytes), Some(barrier)]) => {
                        ((*to, *from, *bytes, *barrier), 3)
                    }
                    (DeviceOp::TensorCopy2d, [Some(to), Some(map), _, _, Some(bytes), Some(barrier)]) => {
                        ((*to, *map, *bytes, *barrier), 5)
                    }
                    _ => return false,
                };
                let (copy_to, source, bytes, barrier) = operands;
                let pipeline = args
                    .get(barrier_arg)
                    .and_then(|arg| arg.node.place())
                    .filter(|place| place.projection.is_empty())
                    .and_then(|place| function.barrier_pipelines.get(&place.local).copied());
                let semantic = builder.bulk_copy(self.ctx, copy_to, source, bytes, barrier, at);
                self.name_pipeline(semantic, pipeline);
            }
            DeviceOp::DynamicSharedBase => {
                let pointee = self.ir_type(callee.args.type_at(0), None);
                let base = builder.dynamic_shared_base(self.ctx, pointee, at);
                self.write_place(function, builder, destination, base, at);
            }
            DeviceOp::DynamicSharedWindow => {
                // The 32-bit shared-window address: an integer the IR does not follow.
                let u32_ty: TypeHandle = shorthand::u32_type(self.ctx).into();
                let address = self.opaque(builder, "dynamic_shared_window_address()", &[], &[u32_ty], at)[0];
                self.write_place(function, builder, destination, address, at);
            }
            DeviceOp::Barrier => {
                builder.barrier(self.ctx, at);
            }
        }
        true
    }
}

impl<'tcx> Importer<'_, 'tcx> {
    /// The `Pipeline` a device-API method is called on (argument 0, `&pipeline`): its address,
    /// which names the pipeline for the pipeline-identity rule. `None` when the argument is
    /// not a pointer.
    fn pipeline_arg(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        args: &[Spanned<Operand<'tcx>>],
        at: &SourceLoc,
    ) -> Option<Value> {
        let value = self.operand(function, builder, &args.first()?.node, at)?;
        pointer_pointee(self.ctx, value).map(|_| value)
    }

    /// Appends the pipeline operand to a semantic operation (see
    /// `plugin::ir::semantic::pipeline::pipeline_operand`).
    fn name_pipeline(&mut self, semantic: Ptr<Operation>, pipeline: Option<Value>) {
        if let Some(pipeline) = pipeline {
            Operation::push_operand(semantic, self.ctx, pipeline);
        }
    }

    /// A call of a scope function that takes or returns states as their index and phase (see
    /// [`Self::function`]): a state argument is loaded from its slots; a returned state and the
    /// states handed back (`&mut` parameters) are stored into the caller's.
    #[allow(clippy::too_many_arguments)]
    fn scope_call(
        &mut self,
        function: &mut FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        (callee, name): (Instance<'tcx>, &str),
        func_ty: Ty<'tcx>,
        args: &[Spanned<Operand<'tcx>>],
        destination: Place<'tcx>,
        at: &SourceLoc,
    ) -> Result<(), BuildError> {
        let u32_ty: TypeHandle = shorthand::u32_type(self.ctx).into();
        let signature = self
            .tcx
            .normalize_erasing_late_bound_regions(TypingEnv::fully_monomorphized(), func_ty.fn_sig(self.tcx));
        let mut params = Vec::new();
        let mut values = Vec::new();
        let mut handed_back = Vec::new();
        for (position, (arg, ty)) in args.iter().zip(signature.inputs()).enumerate() {
            if let Some(kind) = state_param(self.tcx, *ty) {
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
        }
        let returns_state = is_pipeline_state(self.tcx, signature.output());
        let mut results = if returns_state {
            vec![u32_ty, u32_ty]
        } else {
            self.results_of(signature.output(), Some(callee))
        };
        let declared = results.len();
        results.extend(handed_back.iter().flat_map(|_| [u32_ty, u32_ty]));
        let returned = builder.call(self.ctx, name, &params, &results, &values, at)?;
        if returns_state {
            match function.state_of(destination).and_then(|local| function.state_slots(local)) {
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
        }
        for (k, slots) in handed_back.into_iter().enumerate() {
            let (index, phase) = (returned[declared + 2 * k], returned[declared + 2 * k + 1]);
            if let Some((index_slot, phase_slot)) = slots {
                builder.store(self.ctx, index, index_slot, at);
                builder.store(self.ctx, phase, phase_slot, at);
            }
        }
        Ok(())
    }

    /// The stage index and phase of the state argument `position` names, loaded from its
    /// slots. A state the import cannot follow (reached through a parameter, a field, a tuple
    /// or an array) gives opaque values instead, so the verifier rejects the operation by
    /// rule `state-provenance` rather than passing a protocol step it cannot see.
    fn state_operands(
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
                    "a pipeline state the import cannot follow (a parameter, field, tuple or array element)",
                    &[],
                    &[u32_ty, u32_ty],
                    at,
                );
                (values[0], values[1])
            }
        }
    }
}

/// The locals MIR assigns exactly once, as a whole (a statement or a call's destination), and
/// never borrows, projects into or reads through anything but a deref; parameters and the
/// return place are not among them.
fn single_assignment_locals(body: &Body<'_>) -> IndexVec<Local, bool> {
    use rustc_middle::mir::visit::{PlaceContext, Visitor};

    struct Uses {
        assignments: IndexVec<Local, u32>,
        disqualified: IndexVec<Local, bool>,
    }
    impl<'tcx> Visitor<'tcx> for Uses {
        fn visit_place(&mut self, place: &Place<'tcx>, context: PlaceContext, location: mir::Location) {
            let local = place.local;
            if context.is_mutating_use()
                && place.projection.is_empty()
                && !context.is_borrow()
                && !matches!(context, PlaceContext::MutatingUse(mir::visit::MutatingUseContext::Drop))
            {
                self.assignments[local] += 1;
            }
            if context.is_borrow() || context.is_address_of() {
                self.disqualified[local] = true;
            }
            let first = place.projection.first();
            if first.is_some() && first != Some(&ProjectionElem::Deref) {
                self.disqualified[local] = true;
            }
            self.super_place(place, context, location);
        }
    }
    let mut uses = Uses {
        assignments: IndexVec::from_elem(0, &body.local_decls),
        disqualified: IndexVec::from_elem(false, &body.local_decls),
    };
    uses.visit_body(body);
    body.local_decls
        .indices()
        .map(|local| {
            let parameter_or_return = local.as_usize() <= body.arg_count;
            !parameter_or_return && uses.assignments[local] == 1 && !uses.disqualified[local]
        })
        .collect()
}

/// `STAGES` of a `PipelineState<STAGES>` type (0 if it cannot be read).
fn stage_count(ty: Ty<'_>) -> u32 {
    let ty::Adt(_, args) = ty.kind() else { return 0 };
    args.consts().next().and_then(|constant| constant.try_to_leaf()).map(|leaf| leaf.to_u32()).unwrap_or(0)
}

/// How a function takes a pipeline state.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum StateParam {
    /// `PipelineState` or `&PipelineState`: the caller's state does not change.
    Value,
    /// `&mut PipelineState`: handed back to the caller.
    Mut,
}

/// Whether a parameter of type `ty` is a pipeline state, and how it is passed.
fn state_param<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> Option<StateParam> {
    match ty.kind() {
        ty::Ref(_, pointee, mutability) if is_pipeline_state(tcx, *pointee) => Some(match mutability {
            rustc_middle::mir::Mutability::Mut => StateParam::Mut,
            rustc_middle::mir::Mutability::Not => StateParam::Value,
        }),
        _ if is_pipeline_state(tcx, ty) => Some(StateParam::Value),
        _ => None,
    }
}

/// Whether a scope function takes and returns states as their index and phase: every one but
/// closures, whose calls pass their arguments as one tuple (a state reaching a closure is not
/// followed; its pipeline operations are rejected by `state-provenance`).
fn expands_states<'tcx>(tcx: TyCtxt<'tcx>, instance: Instance<'tcx>) -> bool {
    !tcx.is_closure_like(instance.def_id())
}

fn is_pipeline_state<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> bool {
    match ty.kind() {
        ty::Adt(adt, _) => {
            path_below_crate_root(tcx, adt.did()).join("::") == "device::pipeline::PipelineState"
        }
        _ => false,
    }
}

fn ir_mutability(mutability: rustc_middle::mir::Mutability) -> IrMutability {
    match mutability {
        rustc_middle::mir::Mutability::Mut => IrMutability::Mut,
        rustc_middle::mir::Mutability::Not => IrMutability::Const,
    }
}

fn int_type(ctx: &Context, ty: TypeHandle) -> Option<TypedHandle<IntegerType>> {
    TypedHandle::<IntegerType>::from_handle(ty, ctx).ok()
}

fn pointer_pointee(ctx: &Context, pointer: Value) -> Option<TypeHandle> {
    pointer.get_type(ctx).deref(ctx).downcast_ref::<PointerType>().map(PointerType::pointee)
}
