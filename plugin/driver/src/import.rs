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
//! `mir.call`, `mir.return` and `mir.unreachable`. A state inside a struct, tuple or short array
//! local has slots of its own, keyed by its path of fields and constant indices. A pipeline
//! state crosses a call of a scope function or closure (its argument tuple spread at the call)
//! as its index and phase: a `PipelineState` or `&PipelineState` parameter is two `u32`
//! parameters stored into the callee's state slots, a returned state two results, and a
//! `&mut PipelineState` parameter is handed back as two more results that the caller stores
//! into its state (so the verifier follows states into helpers and back, without inlining); a
//! parameter or result holding states carries each of them the same way after itself. Calls
//! to the device API's protocol
//! functions become the semantic operations (see [`crate::device_api`]); a shared pointer
//! passed to a generic pointer parameter becomes an explicit `mir.addrspace_cast` (the
//! adaptation the verifier judges). What the IR does not model becomes `mir.opaque` with the
//! MIR text: never a crash, never a silent drop.
//!
//! Every operation carries the file, line and column of its MIR statement; [`Locations`]
//! maps them back to rustc spans for the diagnostics.

use std::collections::{BTreeMap, HashMap};

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
use plugin::verify::accounting;
use rustc_abi::{FieldIdx, Size};
use rustc_hir::attrs::lang_items::LangItem;
use rustc_index::IndexVec;
use rustc_middle::mir::interpret::{GlobalAlloc, Scalar, alloc_range};
use rustc_middle::mir::{
    self, AggregateKind, BasicBlock as MirBlock, BinOp, Body, BorrowKind, CastKind, ConstValue, Local,
    Operand, Place, ProjectionElem, Rvalue, StatementKind, TerminatorKind, UnOp,
};
use rustc_middle::ty::{self, Instance, Ty, TyCtxt, TypingEnv};
use rustc_span::Span;
use rustc_span::Spanned;

use crate::device_api::{DeviceOp, path_below_crate_root};
use crate::scope::{KernelScope, resolve_callee};
use crate::spaces::{PlacePath, SharedPaths, field_path};

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
    /// Shared pointers that cross a call in a field the import cannot read out (of an enum,
    /// of a closure's captures): the adaptation rule does not see them.
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
    /// The index and phase slots of every pipeline state of the function, by where it lives:
    /// a state local, or a state inside a struct, tuple or array local (see [`StatePath`]).
    states: BTreeMap<StatePath, (Value, Value)>,
    /// Locals holding a reference to a pipeline state, or to an aggregate holding states.
    references: HashMap<Local, StatePath>,
    /// Locals assigned one integer constant, once: the array indices the import can read.
    constants: HashMap<Local, u32>,
    /// How MIR assigns each local. Only a reference assigned once as a whole is followed (one
    /// assigned on two paths may name either state).
    assignments: IndexVec<Local, Assignments<'b, 'tcx>>,
    /// States a closure local captured by reference: (closure local, capture) → the state it
    /// refers to. The capture's slots hold a copy of the state's, copied back after each call
    /// of the closure (borrowck keeps the state itself unused while the closure lives).
    write_back: HashMap<(Local, u32), StatePath>,
    /// Tuple locals built once from operands: the argument tuples of closure calls.
    tuples: HashMap<Local, Option<Vec<Operand<'tcx>>>>,
    /// Locals holding a `producer_barrier` result, with the pipeline it was asked of: the
    /// bulk copy that completes on that barrier names the same pipeline.
    barrier_pipelines: HashMap<Local, Value>,
    /// Whether the function has an IR result (its `Return`s return the return place).
    returns_value: bool,
    /// Whether it returns a pipeline state, as its index and phase.
    returns_state: bool,
    /// The paths of the states inside the aggregate it returns, each returned as its index
    /// and phase after the declared result.
    returned_states: Vec<Vec<u32>>,
    /// The states its `&mut` parameters reach (a `&mut PipelineState`, or a `&mut` struct,
    /// tuple or array holding states): each is handed back, index and phase, after the
    /// declared result (the caller stores them into its state: how a helper's advance reaches
    /// the caller).
    handed_back: Vec<StatePath>,
    /// The value written into each field of a single-assignment struct or tuple local (built
    /// once by its aggregate): a read of the field is that value (a stage pointer kept in a
    /// struct field stays the stage pointer).
    aggregate_fields: HashMap<PlacePath, Value>,
}

/// Where a pipeline state lives: a local and the path to the state inside it (field indices
/// of structs and tuples, constant element indices of arrays; empty for a state local).
type StatePath = (Local, Vec<u32>);

/// A field of one variant of an enum, as one element of a [`StatePath`]: the high bit marks
/// it, then the variant, then the field, so the same field index of two variants (or of a
/// struct) names different states.
fn enum_field(variant: u32, field: u32) -> u32 {
    ENUM_FIELD | (variant << 8) | field
}

const ENUM_FIELD: u32 = 1 << 31;
/// Enums with more variants or fields than this are not looked into: their states are not followed.
const MAX_ENUM_VARIANTS: usize = 8;
const MAX_ENUM_FIELDS: usize = 8;

impl FunctionImport<'_, '_> {
    /// Where a place lives, as a state path: through a reference to a state or to an
    /// aggregate holding states (`*_7`, `(*_7).0`), fields, and array elements at constant
    /// indices. `None` for anything else (a runtime index, a deref of another pointer): a
    /// state reached that way is not followed.
    fn state_path(&self, place: Place<'_>) -> Option<StatePath> {
        let mut elements = place.projection.iter().peekable();
        let (local, mut path) = match self.references.get(&place.local) {
            Some(target) => {
                if matches!(elements.peek(), Some(ProjectionElem::Deref)) {
                    elements.next();
                }
                target.clone()
            }
            None => (place.local, Vec::new()),
        };
        let mut variant = None;
        for element in elements {
            if variant.is_some() && !matches!(element, ProjectionElem::Field(..)) {
                return None;
            }
            match element {
                // A state parameter taken by reference is its own slots.
                ProjectionElem::Deref if self.states.contains_key(&(local, path.clone())) => {}
                // `(slot as Some).0`: the variant's field is one element of the path.
                ProjectionElem::Downcast(_, index) => variant = Some(index.as_u32()),
                ProjectionElem::Field(field, _) => match variant.take() {
                    Some(index) => path.push(enum_field(index, field.as_u32())),
                    None => path.push(field.as_u32()),
                },
                ProjectionElem::ConstantIndex { offset, from_end: false, .. } => {
                    path.push(u32::try_from(offset).ok()?)
                }
                ProjectionElem::Index(index) => path.push(*self.constants.get(&index)?),
                _ => return None,
            }
        }
        if variant.is_some() {
            return None;
        }
        Some((local, path))
    }

    /// The state a place names, if it is one the import follows.
    fn state_of(&self, place: Place<'_>) -> Option<StatePath> {
        self.state_path(place).filter(|path| self.states.contains_key(path))
    }

    /// The states at or below `prefix`, each with its path below it.
    fn states_below(&self, prefix: &StatePath) -> Vec<(Vec<u32>, (Value, Value))> {
        self.states
            .range((prefix.0, prefix.1.clone())..)
            .take_while(|((local, path), _)| *local == prefix.0 && path.starts_with(&prefix.1))
            .map(|((_, path), slots)| (path[prefix.1.len()..].to_vec(), *slots))
            .collect()
    }

    fn state_slots(&self, path: &StatePath) -> Option<(Value, Value)> {
        self.states.get(path).copied()
    }

    /// The index and phase slots of the state an argument names.
    fn state_arg(&self, args: &[Spanned<Operand<'_>>], position: usize) -> Option<(Value, Value)> {
        let place = args.get(position)?.node.place()?;
        self.state_slots(&self.state_of(place)?)
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
        let u32_ty: TypeHandle = shorthand::u32_type(self.ctx).into();
        // A state parameter (by value or by reference) is its index and phase; a parameter
        // holding states (a struct, tuple or array, by value or by reference) is itself followed
        // by each state's index and phase.
        let state_params: Vec<Option<ParamStates>> =
            body.args_iter().map(|local| param_states(self.tcx, body.local_decls[local].ty)).collect();
        let mut params: Vec<TypeHandle> = Vec::new();
        for (local, state) in body.args_iter().zip(&state_params) {
            match state {
                Some(states) if states.whole => params.extend([u32_ty, u32_ty]),
                Some(states) => {
                    params.push(self.local_type(instance, body, local));
                    params.extend(states.paths.iter().flat_map(|_| [u32_ty, u32_ty]));
                }
                None => params.push(self.local_type(instance, body, local)),
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
        let mut slots = IndexVec::new();
        let mut states = BTreeMap::new();
        let mut references = HashMap::new();
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
            let slot = if single[local] && !pipeline_state && nested.is_empty() {
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
        for (local, state) in body.args_iter().zip(&state_params) {
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
            states,
            references,
            constants: constant_locals(self.tcx, body, &single),
            assignments: assignments(body),
            tuples: built_tuples(body),
            write_back: HashMap::new(),
            barrier_pipelines: HashMap::new(),
            returns_value,
            returns_state,
            returned_states,
            handed_back,
            aggregate_fields: HashMap::new(),
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
        // A closure's environment (its first parameter): a capture holding a shared pointer,
        // or a reference to one, is typed shared (see `SharedPaths::capture`).
        let closure_env = self.tcx.is_closure_like(function.instance.def_id()) && place.local.as_u32() == 1;
        let mut fields = Vec::new();
        let skipped = place.projection.len() - projection.len();
        for (k, element) in projection.enumerate() {
            match element {
                ProjectionElem::Field(field, field_ty) => {
                    fields.push(field.as_u32());
                    let capture = (closure_env && through_deref && fields.len() == 1)
                        .then(|| self.shared.capture(function.instance.def_id(), field.as_u32()))
                        .flatten();
                    let view = if through_deref {
                        capture.filter(|(_, by_reference)| !by_reference).map(|(view, _)| view)
                    } else {
                        self.shared.view(function.instance, &(place.local, fields.clone()))
                    };
                    let ir_field = match (capture, field_ty.kind()) {
                        (Some((view, true)), ty::Ref(_, pointee, mutability)) => {
                            let inner = self.ir_type(*pointee, Some(view));
                            PointerType::get(
                                self.ctx,
                                AddressSpace::Generic,
                                ir_mutability(*mutability),
                                PointerKind::Ref,
                                inner,
                            )
                            .into()
                        }
                        _ => self.ir_type(field_ty, view),
                    };
                    address = builder.field_addr(self.ctx, address, field.as_u32(), ir_field, at);
                }
                ProjectionElem::Deref => {
                    let pointer = builder.load(self.ctx, address, at);
                    pointer_pointee(self.ctx, pointer)?;
                    address = pointer;
                    through_deref = true;
                }
                // `array[i]`: the array's address viewed as its first element's, `add(i)`
                // (so that an array of stage pointers indexed by a stage index is seen).
                ProjectionElem::Index(index) => {
                    let prefix = &place.projection[..skipped + k];
                    let array_ty = Place::ty_from(place.local, prefix, function.body, self.tcx).ty;
                    let ty::Array(element_ty, _) = array_ty.kind() else { return None };
                    let index = self.operand(function, builder, &Operand::Copy(Place::from(index)), at)?;
                    let base =
                        address.get_type(self.ctx).deref(self.ctx).downcast_ref::<PointerType>().cloned()?;
                    let element = self.ir_type(*element_ty, None);
                    let element_ptr =
                        PointerType::get(self.ctx, base.space(), base.mutability(), base.kind(), element)
                            .into();
                    let first = builder.cast(self.ctx, IrCast::PtrToPtr, address, element_ptr, at);
                    address = builder.index_addr(self.ctx, first, index, at);
                    fields.clear();
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
                if let Some(value) = field_path(place).and_then(|path| function.aggregate_fields.get(&path)) {
                    return Some(*value);
                }
                if let Some(address) = self.address(function, builder, *place, at) {
                    return Some(builder.load(self.ctx, address, at));
                }
                // What the IR cannot address still has the space the inference found for it
                // (a shared pointer in a field of an aggregate kept as a value).
                let view = field_path(place).and_then(|path| self.shared.view(function.instance, &path));
                let ty = self.ir_type(place.ty(function.body, self.tcx).ty, view);
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
            // A reference to a closure's capture of a shared pointer (`_3 = deref_copy
            // ((*_1).0)`) keeps pointing to a shared pointer.
            let value = if refers_to_shared(self.ctx, value, ty) {
                value
            } else {
                self.coerce(builder, value, ty, at)
            };
            function.slots[place.local] = Slot::Ssa(Some(value));
            return;
        }
        if matches!(function.slots[place.local], Slot::Ssa(_))
            && let Some(path) = field_path(&place)
            && !path.1.is_empty()
        {
            let view = self.shared.view(function.instance, &path);
            let read_ty = self.ir_type(place.ty(function.body, self.tcx).ty, view);
            if value.get_type(self.ctx) == read_ty {
                function.aggregate_fields.insert(path, value);
            }
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
        // names `_5`'s index and phase; a reference to an aggregate holding states names them
        // below it (`(*_7).0`), and is imported as a pointer too.
        if let Rvalue::Ref(_, _, borrowed) | Rvalue::RawPtr(_, borrowed) = rvalue
            && place.projection.is_empty()
            && function.assignments[place.local].once()
            && let Some(target) = function.state_path(*borrowed)
            && !function.states_below(&target).is_empty()
        {
            let exact = function.states.contains_key(&target);
            function.references.insert(place.local, target);
            if exact {
                return;
            }
        }
        // A reference to a state copied (`_7 = copy ((*_1).1)`, a closure's capture by
        // reference, or `let r2 = r1`): the copy names the same state.
        if let Rvalue::Use(Operand::Copy(source) | Operand::Move(source), ..) = rvalue
            && place.projection.is_empty()
            && function.assignments[place.local].once()
            && source.ty(function.body, self.tcx).ty.is_ref()
            && let Some(target) = function.state_of(*source)
        {
            function.references.insert(place.local, target);
            return;
        }
        // A state, or an aggregate holding states, copied or moved: each state's both halves.
        let writes_reference = function.references.contains_key(&place.local)
            && place.projection.first() != Some(&ProjectionElem::Deref);
        let to = function
            .state_path(place)
            .filter(|to| !writes_reference && !function.states_below(to).is_empty());
        if let Some(to) = &to {
            let copied = match rvalue {
                Rvalue::Use(Operand::Copy(source) | Operand::Move(source), ..) => {
                    self.copy_states(function, builder, *source, to, at)
                }
                Rvalue::Aggregate(kind, operands) => {
                    if let mir::AggregateKind::Closure(..) = **kind {
                        for (k, operand) in operands.iter().enumerate() {
                            let by_reference = operand.ty(function.body, self.tcx).is_ref();
                            if let Some(source) = operand.place().and_then(|p| function.state_of(p))
                                && by_reference
                                && to.1.is_empty()
                            {
                                function.write_back.insert((to.0, k as u32), source);
                            }
                        }
                    }
                    let variant = match **kind {
                        mir::AggregateKind::Adt(def, variant, ..) if self.tcx.adt_def(def).is_enum() => {
                            Some(variant.as_u32())
                        }
                        _ => None,
                    };
                    let mut copied = true;
                    for (k, operand) in operands.iter().enumerate() {
                        let element = variant.map_or(k as u32, |variant| enum_field(variant, k as u32));
                        let field = (to.0, [to.1.clone(), vec![element]].concat());
                        if function.states_below(&field).is_empty() {
                            continue;
                        }
                        copied &= operand
                            .place()
                            .is_some_and(|source| self.copy_states(function, builder, source, &field, at));
                    }
                    copied
                }
                _ => false,
            };
            if !copied {
                self.forget_states(function, builder, to, at);
            }
            if function.states.contains_key(to) {
                return;
            }
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
                    if is_pipeline_state(self.tcx, field_ty) {
                        // Its index and phase were copied into the field's state slots above.
                        continue;
                    }
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
                // A drop of a type without drop glue does nothing; one with glue runs code the
                // scope does not hold (a `Drop` impl may wait at a barrier): outside the model.
                let ty = place.ty(function.body, self.tcx).ty;
                if ty.needs_drop(self.tcx, TypingEnv::fully_monomorphized()) {
                    self.opaque(builder, &format!("drop({place:?})"), &[], &[], at);
                }
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
                    if let Some((index, phase)) = function.state_slots(&(Local::ZERO, Vec::new())) {
                        values.push(builder.load(self.ctx, index, at));
                        values.push(builder.load(self.ctx, phase, at));
                    }
                } else if function.returns_value {
                    values.extend(self.operand(function, builder, &Operand::Copy(Local::ZERO.into()), at));
                }
                for path in function.returned_states.clone() {
                    let (index, phase) = self.state_values(function, builder, &(Local::ZERO, path), at);
                    values.extend([index, phase]);
                }
                for path in function.handed_back.clone() {
                    if let Some((index, phase)) = function.state_slots(&path) {
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
            TerminatorKind::InlineAsm { targets, options, .. } => {
                let what = if options.contains(rustc_ast::InlineAsmOptions::NOMEM) {
                    // Declared to touch no memory (`nomem`): it reads and writes registers only
                    // (special registers, fast math, shuffles), so it cannot touch shared
                    // memory, a barrier or a copy.
                    accounting::REGISTER_ONLY_ASSEMBLY
                } else if DeviceOp::is_modelled_body(self.tcx, function.instance.def_id()) {
                    // The device API's own assembly whose meaning the model states (the
                    // mbarrier initialisation of `Pipeline::init`).
                    accounting::MODELLED_ASSEMBLY
                } else {
                    "inline assembly"
                };
                self.opaque(builder, what, &[], &[], at);
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
        self.adapt_hidden_pointers(function, builder, args, at);
        let Some(callee) = resolved else {
            // A call through a function pointer: its callee is unknown, but its signature is
            // not, so each shared pointer argument crosses it adapted to its parameter type
            // like at a direct call, and the adaptation rule judges it.
            let signature = self.tcx.normalize_erasing_late_bound_regions(
                TypingEnv::fully_monomorphized(),
                func_ty.fn_sig(self.tcx),
            );
            let params: Vec<TypeHandle> =
                signature.inputs().iter().map(|ty| self.ir_type(*ty, None)).collect();
            let mut values = Vec::new();
            for (i, arg) in args.iter().enumerate() {
                let Some(value) = self.operand(function, builder, &arg.node, at) else { continue };
                let value = match params.get(i) {
                    Some(param) if pointer_pointee(self.ctx, value).is_some() => {
                        self.coerce(builder, value, *param, at)
                    }
                    _ => value,
                };
                values.push(value);
            }
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
        let signature = self
            .tcx
            .normalize_erasing_late_bound_regions(TypingEnv::fully_monomorphized(), func_ty.fn_sig(self.tcx));
        if self.names.contains_key(&callee) && !self.tcx.is_closure_like(callee.def_id()) {
            let types = (signature.inputs(), signature.output());
            return self.scope_call(function, builder, (callee, &name), types, args, destination, at);
        }
        // A closure of the scope, called through `call`/`call_mut`/`call_once`: its arguments
        // travel as one tuple (the "rust-call" ABI), which its body receives spread out; the
        // call passes the tuple's elements, so states reach the closure like any function's.
        if self.names.contains_key(&callee)
            && let Some(untupled) = untupled_arguments(&function.tuples, args)
        {
            let inputs: Vec<Ty<'tcx>> =
                untupled.iter().map(|arg| arg.node.ty(function.body, self.tcx)).collect();
            let output = destination.ty(function.body, self.tcx).ty;
            return self.scope_call(
                function,
                builder,
                (callee, &name),
                (&inputs, output),
                &untupled,
                destination,
                at,
            );
        }
        if self.replace_state(function, builder, callee, args, destination, at) {
            return Ok(());
        }
        if self.range_contains(function, builder, callee, args, destination, at) {
            return Ok(());
        }
        // A state handed to a call (`helper(&mut state)`, `mem::swap(&mut a, &mut b)`, a struct
        // holding states) may be changed there in ways the verifier does not follow: its slots
        // escape, so what the verifier knew of them is forgotten and later pipeline operations
        // on it are rejected.
        for arg in args {
            let Some(path) = arg.node.place().and_then(|place| function.state_path(place)) else { continue };
            let slots: Vec<Value> = function
                .states_below(&path)
                .into_iter()
                .flat_map(|(_, (index, phase))| [index, phase])
                .collect();
            if !slots.is_empty() {
                let what = format!("a pipeline state passed to `{name}`, which the verifier does not follow");
                self.opaque(builder, &what, &slots, &[], at);
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
        // A closure of the scope whose argument tuple could not be spread is not followed.
        let returned = if self.names.contains_key(&callee) {
            let what = format!("a call of `{name}` whose argument tuple the import cannot spread");
            self.opaque(builder, &what, &values, &results, at)
        } else {
            builder.call(self.ctx, &name, &params, &results, &values, at)?
        };
        if let Some(value) = returned.first() {
            self.write_place(function, builder, destination, *value, at);
        }
        self.forget_destination_states(function, builder, destination, at);
        Ok(())
    }

    /// `core::mem::replace(&mut state, new)` on a state (or an aggregate of states) the import
    /// follows: the destination gets the old value, the state the new one. False when the call
    /// is not one.
    fn replace_state(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        callee: Instance<'tcx>,
        args: &[Spanned<Operand<'tcx>>],
        destination: Place<'tcx>,
        at: &SourceLoc,
    ) -> bool {
        if core_item_name(self.tcx, callee.def_id()).is_none_or(|name| name.as_str() != "replace")
            || self.tcx.def_path_str(callee.def_id()) != "core::mem::replace"
            || args.len() != 2
        {
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

    /// `Range::contains` and `RangeInclusive::contains` on a range whose bounds the import can
    /// name (a constant, promoted or not; a `start..end` built in the function; a
    /// `RangeInclusive::new(start, end)`): two comparisons joined by `&`, so that a condition
    /// such as `(32..48).contains(&tid)` is evaluable per thread like `tid >= 32 && tid < 48`.
    /// False (the call stays an opaque call) for any other callee or range.
    fn range_contains(
        &mut self,
        function: &mut FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        callee: Instance<'tcx>,
        args: &[Spanned<Operand<'tcx>>],
        destination: Place<'tcx>,
        at: &SourceLoc,
    ) -> bool {
        let tcx = self.tcx;
        if core_item_name(tcx, callee.def_id()).is_none_or(|name| name.as_str() != "contains")
            || args.len() != 2
        {
            return false;
        }
        let range_ty = match args[0].node.ty(function.body, tcx).kind() {
            ty::Ref(_, pointee, _) => *pointee,
            _ => return false,
        };
        let ty::Adt(adt, generic_args) = range_ty.kind() else { return false };
        let inclusive = if tcx.is_lang_item(adt.did(), LangItem::Range) {
            false
        } else if tcx.is_lang_item(adt.did(), LangItem::RangeInclusiveStruct) {
            true
        } else {
            return false;
        };
        let element = generic_args.type_at(0);
        // Unsigned only: the IR's comparisons do not say whether they are signed.
        if !matches!(element.kind(), ty::Uint(_)) {
            return false;
        }
        let Some(item_place) = args[1].node.place() else { return false };
        let Some((start, end)) = self.range_bounds(function, builder, &args[0].node, element, inclusive, at)
        else {
            return false;
        };
        // The item by the place it borrows (`&tid`): the thread evaluation follows a variable,
        // not a load through a reference to it.
        let item_place = match reference_origin(&function.assignments, &Operand::Copy(item_place)) {
            Some(ReferenceOrigin::Borrow(borrowed)) => borrowed,
            _ => tcx.mk_place_deref(item_place),
        };
        let Some(item) = self.operand(function, builder, &Operand::Copy(item_place), at) else {
            return false;
        };
        let item_ty = item.get_type(self.ctx);
        let start = self.coerce(builder, start, item_ty, at);
        let end = self.coerce(builder, end, item_ty, at);
        let above = builder.cmp(self.ctx, CmpPredicate::Ge, item, start, at);
        let upper = if inclusive { CmpPredicate::Le } else { CmpPredicate::Lt };
        let below = builder.cmp(self.ctx, upper, item, end, at);
        let both = builder.binop(self.ctx, BinOpKind::BitAnd, above, below, at);
        self.write_place(function, builder, destination, both, at);
        true
    }

    /// The bounds of the range `receiver` (a `&Range` or `&RangeInclusive`) refers to, as IR
    /// values; `None` where the import cannot name them (a range passed in, or changed after
    /// it was built, or an inclusive range already iterated).
    fn range_bounds(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        receiver: &Operand<'tcx>,
        element: Ty<'tcx>,
        inclusive: bool,
        at: &SourceLoc,
    ) -> Option<(Value, Value)> {
        let tcx = self.tcx;
        let ir_element = self.ir_type(element, None);
        let int = int_type(self.ctx, ir_element)?;
        // rustc's promoted `&(32..64)` reaches the call through temporaries and reborrows.
        let origin = reference_origin(&function.assignments, receiver);
        let promoted = match origin {
            Some(ReferenceOrigin::Constant(constant)) => Some(constant),
            _ => None,
        };
        if let Some(constant) = promoted {
            let typing_env = TypingEnv::fully_monomorphized();
            let value = constant.const_.eval(tcx, typing_env, constant.span).ok()?;
            let ConstValue::Scalar(Scalar::Ptr(pointer, _)) = value else { return None };
            let (provenance, offset) = pointer.into_raw_parts();
            let GlobalAlloc::Memory(allocation) = tcx.global_alloc(provenance.alloc_id()) else {
                return None;
            };
            let range_ty = match constant.ty().kind() {
                ty::Ref(_, pointee, _) => *pointee,
                _ => return None,
            };
            let layout = tcx.layout_of(typing_env.as_query_input(range_ty)).ok()?;
            let size = tcx.layout_of(typing_env.as_query_input(element)).ok()?.size;
            // Unsigned bounds (`range_contains` admits no other element type).
            let read = |field: usize| -> Option<i128> {
                let at = offset + layout.fields.offset(field);
                let scalar = allocation.inner().read_scalar(&tcx, alloc_range(at, size), false).ok()?;
                i128::try_from(scalar.try_to_scalar_int().ok()?.to_bits(size)).ok()
            };
            let (start, end) = (read(0)?, read(1)?);
            // An inclusive range that was iterated to its end is empty (`exhausted`).
            if inclusive {
                let exhausted_at = offset + layout.fields.offset(2);
                let byte = allocation.inner().read_scalar(
                    &tcx,
                    alloc_range(exhausted_at, Size::from_bytes(1)),
                    false,
                );
                if byte.ok()?.try_to_scalar_int().ok()?.to_bits(Size::from_bytes(1)) != 0 {
                    return None;
                }
            }
            return Some((
                builder.const_int(self.ctx, int, start, at),
                builder.const_int(self.ctx, int, end, at),
            ));
        }
        // A reference to a range local assigned once.
        let Some(ReferenceOrigin::Borrow(borrowed)) = origin else { return None };
        let range = borrowed.as_local()?;
        let assignments = &function.assignments[range];
        if assignments.mutably_borrowed {
            return None;
        }
        let bounds: Vec<Operand<'tcx>> = match assignments.only()? {
            Assignment::Rvalue(Rvalue::Aggregate(kind, operands))
                if !inclusive && matches!(**kind, AggregateKind::Adt(..)) && operands.len() == 2 =>
            {
                operands.iter().cloned().collect()
            }
            Assignment::Call(func, call_args)
                if inclusive
                    && call_args.len() == 2
                    && resolve_callee(tcx, func.ty(function.body, tcx)).is_some_and(|new| {
                        core_item_name(tcx, new.def_id()).is_some_and(|name| name.as_str() == "new")
                    }) =>
            {
                call_args.iter().map(|arg| arg.node.clone()).collect()
            }
            _ => return None,
        };
        // Each bound a constant or a local assigned once: its value where the range was built.
        let mut values = Vec::new();
        for bound in &bounds {
            let stable = match bound {
                Operand::Constant(_) => true,
                Operand::Copy(place) | Operand::Move(place) => {
                    place.as_local().is_some_and(|local| matches!(function.slots[local], Slot::Ssa(Some(_))))
                }
                _ => false,
            };
            if !stable {
                return None;
            }
            values.push(self.operand(function, builder, bound, at)?);
        }
        Some((values[0], values[1]))
    }

    /// Shared pointers inside a struct or tuple argument cross the call as the field's Rust
    /// type says (generic), exactly like a pointer argument: each is read out of its field and
    /// adapted to that type here, so that the adaptation rule judges it (a shared `f32` tile
    /// handed over as the `*const u32` field of a struct is a reinterpretation it rejects).
    /// What cannot be read out (a field of an enum or a closure) is counted as hidden.
    fn adapt_hidden_pointers(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        args: &[Spanned<Operand<'tcx>>],
        at: &SourceLoc,
    ) {
        for arg in args {
            let Some(place) = arg.node.place() else { continue };
            let Some(path) = field_path(&place) else { continue };
            for (suffix, _) in self.shared.below(function.instance, &path) {
                let Some((field_place, field_ty)) = self.field_place(function, place, &suffix) else {
                    self.stats.hidden_shared += 1;
                    continue;
                };
                let target = self.ir_type(field_ty, None);
                match self.operand(function, builder, &Operand::Copy(field_place), at) {
                    Some(value) if is_shared_pointer(self.ctx, value) => {
                        self.coerce(builder, value, target, at);
                    }
                    _ => self.stats.hidden_shared += 1,
                }
            }
        }
    }

    /// `place` projected through the struct and tuple fields `fields`, with the field's type;
    /// `None` below anything else (an enum, a closure's captures).
    fn field_place(
        &self,
        function: &FunctionImport<'_, 'tcx>,
        place: Place<'tcx>,
        fields: &[u32],
    ) -> Option<(Place<'tcx>, Ty<'tcx>)> {
        let mut place = place;
        let mut ty = place.ty(function.body, self.tcx).ty;
        for field in fields {
            let index = FieldIdx::from_u32(*field);
            ty = match ty.kind() {
                ty::Adt(def, generic_args) if def.is_struct() => {
                    def.non_enum_variant().fields.get(index)?.ty(self.tcx, generic_args).skip_normalization()
                }
                ty::Tuple(types) => *types.get(index.as_usize())?,
                _ => return None,
            };
            place = self.tcx.mk_place_field(place, index, ty);
        }
        Some((place, ty))
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
        let name = core_item_name(self.tcx, callee.def_id())?;
        if args.is_empty() || !args[0].node.ty(function.body, self.tcx).is_raw_ptr() {
            return None;
        }
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
        let Some(name) = core_item_name(self.tcx, callee.def_id()) else { return false };
        if args.len() != 2
            || !args[0].node.ty(function.body, self.tcx).is_raw_ptr()
            || !matches!(name.as_str(), "write" | "write_volatile" | "write_unaligned")
        {
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
                    function.state_of(destination).and_then(|path| function.state_slots(&path))
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
            DeviceOp::WgmmaFence | DeviceOp::WgmmaMma | DeviceOp::WgmmaWait => {
                // The accumulators' address comes first; an mma's descriptors and scale are not
                // modelled (see `plugin::ir::semantic::wgmma`).
                let Some(accumulators) =
                    args.first().and_then(|arg| self.operand(function, builder, &arg.node, at))
                else {
                    return false;
                };
                if pointer_pointee(self.ctx, accumulators).is_none() {
                    return false;
                }
                match op {
                    DeviceOp::WgmmaFence => builder.wgmma_fence(self.ctx, accumulators, at),
                    DeviceOp::WgmmaMma => builder.wgmma_mma(self.ctx, accumulators, at),
                    _ => {
                        // `PENDING` is the callee's const argument; without one the wait is
                        // imported with an opaque count, which completes nothing.
                        let u32_ty = shorthand::u32_type(self.ctx);
                        let pending = match callee.args.consts().next().and_then(|c| c.try_to_leaf()) {
                            Some(leaf) => builder.const_int(self.ctx, u32_ty, i128::from(leaf.to_u32()), at),
                            None => {
                                self.opaque(builder, "wait_group's pending count", &[], &[u32_ty.into()], at)
                                    [0]
                            }
                        };
                        builder.wgmma_wait(self.ctx, pending, accumulators, at)
                    }
                };
            }
            DeviceOp::WgmmaCommit => {
                builder.wgmma_commit(self.ctx, at);
            }
            DeviceOp::ProxyFence => {
                builder.proxy_fence(self.ctx, at);
            }
        }
        true
    }
}

impl<'tcx> Importer<'_, 'tcx> {
    /// The index and phase of the state at `path`, loaded from its slots; opaque values when
    /// the function has no slots there.
    fn state_values(
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
    fn copy_states(
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
    fn copy_paths(
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
    fn forget_states(
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
            "a pipeline state written where the import cannot follow it",
            &[],
            &types,
            at,
        );
        for (k, (_, (index, phase))) in targets.into_iter().enumerate() {
            builder.store(self.ctx, values[2 * k], index, at);
            builder.store(self.ctx, values[2 * k + 1], phase, at);
        }
    }

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
            self.forget_destination_states(function, builder, destination, at);
            // The states of a returned aggregate, into the destination's (where it has them).
            let to = function.state_path(destination);
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
            }
        }
        Ok(())
    }

    /// A call's result written into `destination`: the states it holds (a returned struct
    /// holding a state) are not followed, so they are forgotten.
    fn forget_destination_states(
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

/// The arguments of a closure call with its argument tuple spread out: the closure, then the
/// operands the tuple was built from (`_10 = (move _11, copy _12)`, see [`built_tuples`]).
/// `None` when the tuple is not built from operands in this function.
fn untupled_arguments<'tcx>(
    tuples: &HashMap<Local, Option<Vec<Operand<'tcx>>>>,
    args: &[Spanned<Operand<'tcx>>],
) -> Option<Vec<Spanned<Operand<'tcx>>>> {
    let [closure, tuple] = args else { return None };
    // A closure of no arguments is called with the unit constant.
    if let Operand::Constant(constant) = &tuple.node
        && constant.ty().is_unit()
    {
        return Some(vec![closure.clone()]);
    }
    let tuple_local = tuple.node.place().filter(|place| place.projection.is_empty())?.local;
    let built = tuples.get(&tuple_local)?.as_ref()?;
    let mut untupled = vec![closure.clone()];
    untupled.extend(built.iter().map(|operand| Spanned { node: operand.clone(), span: tuple.span }));
    Some(untupled)
}

/// The tuple locals of a body, each with the operands of its one whole assignment as a tuple
/// (`None` when it is assigned otherwise, in parts, or more than once): one pass per body, so
/// spreading the arguments of many closure calls stays linear.
fn built_tuples<'tcx>(body: &Body<'tcx>) -> HashMap<Local, Option<Vec<Operand<'tcx>>>> {
    let mut tuples: HashMap<Local, Option<Vec<Operand<'tcx>>>> = HashMap::new();
    for block in body.basic_blocks.iter() {
        for statement in &block.statements {
            let StatementKind::Assign(assign) = &statement.kind else { continue };
            let (place, rvalue) = &**assign;
            if !matches!(body.local_decls[place.local].ty.kind(), ty::Tuple(_)) {
                continue;
            }
            let built = match rvalue {
                Rvalue::Aggregate(kind, operands)
                    if place.projection.is_empty() && matches!(**kind, mir::AggregateKind::Tuple) =>
                {
                    Some(operands.iter().cloned().collect())
                }
                _ => None,
            };
            match tuples.entry(place.local) {
                std::collections::hash_map::Entry::Vacant(entry) => {
                    entry.insert(built);
                }
                // Assigned twice, or in parts: not one tuple of operands.
                std::collections::hash_map::Entry::Occupied(mut entry) => {
                    entry.insert(None);
                }
            }
        }
    }
    tuples
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

/// How a parameter carries pipeline states: a state itself (`whole`: the parameter is only its
/// index and phase), or a struct, tuple or array holding states at `paths` (the parameter,
/// then each state's index and phase), by value or `behind_reference`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct ParamStates {
    kind: StateParam,
    paths: Vec<Vec<u32>>,
    whole: bool,
    behind_reference: bool,
}

/// The states a parameter of type `ty` carries, if any (see [`ParamStates`]).
fn param_states<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> Option<ParamStates> {
    if let Some(kind) = state_param(tcx, ty) {
        return Some(ParamStates { kind, paths: vec![Vec::new()], whole: true, behind_reference: false });
    }
    let (pointee, kind, behind_reference) = match ty.kind() {
        ty::Ref(_, pointee, rustc_middle::mir::Mutability::Mut) => (*pointee, StateParam::Mut, true),
        ty::Ref(_, pointee, rustc_middle::mir::Mutability::Not) => (*pointee, StateParam::Value, true),
        _ => (ty, StateParam::Value, false),
    };
    let paths = nested_states(tcx, pointee);
    (!paths.is_empty()).then_some(ParamStates { kind, paths, whole: false, behind_reference })
}

/// Arrays longer than this are not looked into: their states are not followed.
const MAX_STATE_ARRAY: u64 = 8;

/// The paths to the pipeline states inside a value of type `ty` (a struct, a tuple or an
/// array of a few elements, nested a few levels), not through references; empty for a state
/// itself and for a type holding none.
fn nested_states<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> Vec<Vec<u32>> {
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

/// How a local got its one value.
#[derive(Clone, Copy)]
enum Assignment<'a, 'tcx> {
    Rvalue(&'a Rvalue<'tcx>),
    Call(&'a Operand<'tcx>, &'a [Spanned<Operand<'tcx>>]),
}

/// How MIR assigns one local, from one pass over the body ([`assignments`]).
#[derive(Clone, Copy, Default)]
struct Assignments<'a, 'tcx> {
    /// Assignments of the local as a whole (a statement or a call's destination).
    whole: u32,
    /// The first of them.
    first: Option<Assignment<'a, 'tcx>>,
    /// Whether a projection of it (a field, an element) is assigned too.
    partial: bool,
    /// Whether it is borrowed mutably or its address taken (so a value it was assigned may
    /// have changed since).
    mutably_borrowed: bool,
}

impl<'a, 'tcx> Assignments<'a, 'tcx> {
    /// Assigned exactly once as a whole (projections may be assigned too).
    fn once(&self) -> bool {
        self.whole == 1
    }

    /// The one assignment, if the local is assigned exactly once and nothing inside it is.
    fn only(&self) -> Option<Assignment<'a, 'tcx>> {
        if self.whole == 1 && !self.partial { self.first } else { None }
    }
}

/// Every local's [`Assignments`], in one pass over `body`.
fn assignments<'a, 'tcx>(body: &'a Body<'tcx>) -> IndexVec<Local, Assignments<'a, 'tcx>> {
    let mut table: IndexVec<Local, Assignments<'a, 'tcx>> =
        IndexVec::from_elem(Assignments::default(), &body.local_decls);
    let mut record = |place: &Place<'tcx>, assignment: Assignment<'a, 'tcx>| {
        let entry = &mut table[place.local];
        if !place.projection.is_empty() {
            entry.partial = true;
        } else {
            entry.whole += 1;
            entry.first.get_or_insert(assignment);
        }
    };
    for block in body.basic_blocks.iter() {
        for statement in &block.statements {
            if let StatementKind::Assign(assign) = &statement.kind {
                record(&assign.0, Assignment::Rvalue(&assign.1));
            }
        }
        if let TerminatorKind::Call { func, args, destination, .. } = &block.terminator().kind {
            record(destination, Assignment::Call(func, args));
        }
    }
    for statement in body.basic_blocks.iter().flat_map(|block| &block.statements) {
        if let StatementKind::Assign(assign) = &statement.kind
            && let Rvalue::Ref(_, BorrowKind::Mut { .. }, place) | Rvalue::RawPtr(_, place) = &assign.1
        {
            table[place.local].mutably_borrowed = true;
        }
    }
    table
}

/// Where a reference comes from, through single-assignment temporaries and reborrows.
enum ReferenceOrigin<'a, 'tcx> {
    /// A constant reference (rustc's promoted constants).
    Constant(&'a mir::ConstOperand<'tcx>),
    /// A borrow of this place (no dereference in it).
    Borrow(Place<'tcx>),
}

/// The origin of the reference `operand`, following at most a few `_a = _b`, `_a = &(*_b)`
/// steps; `None` when a step is not a single assignment.
fn reference_origin<'a, 'tcx>(
    assignments: &IndexVec<Local, Assignments<'a, 'tcx>>,
    operand: &'a Operand<'tcx>,
) -> Option<ReferenceOrigin<'a, 'tcx>> {
    let mut local = match operand {
        Operand::Constant(constant) => return Some(ReferenceOrigin::Constant(constant)),
        Operand::Copy(place) | Operand::Move(place) => place.as_local()?,
        _ => return None,
    };
    for _ in 0..4 {
        let Assignment::Rvalue(rvalue) = assignments[local].only()? else { return None };
        local = match rvalue {
            Rvalue::Use(Operand::Constant(constant), ..) => return Some(ReferenceOrigin::Constant(constant)),
            Rvalue::Use(Operand::Copy(place) | Operand::Move(place), ..) => place.as_local()?,
            Rvalue::Ref(_, _, borrowed) => match borrowed.projection.as_slice() {
                [] => return Some(ReferenceOrigin::Borrow(*borrowed)),
                [ProjectionElem::Deref] => borrowed.local,
                _ => return None,
            },
            _ => return None,
        };
    }
    None
}

/// The single-assignment locals whose one assignment is an integer constant (MIR's array
/// indices: `_10 = const 0_usize; … _4[_10]`).
fn constant_locals<'tcx>(
    tcx: TyCtxt<'tcx>,
    body: &Body<'tcx>,
    single: &IndexVec<Local, bool>,
) -> HashMap<Local, u32> {
    let mut constants = HashMap::new();
    for block in body.basic_blocks.iter() {
        for statement in &block.statements {
            if let StatementKind::Assign(assign) = &statement.kind
                && let (place, Rvalue::Use(Operand::Constant(constant), ..)) = &**assign
                && place.projection.is_empty()
                && single[place.local]
                && matches!(constant.ty().kind(), ty::Uint(_))
                && let Some(bits) = constant.const_.try_eval_bits(tcx, TypingEnv::fully_monomorphized())
                && let Ok(index) = u32::try_from(bits)
            {
                constants.insert(place.local, index);
            }
        }
    }
    constants
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

/// Whether `value` is a pointer to a shared pointer where type `ty` is the same pointer to a
/// generic one (a reference to a closure's capture, see `SharedPaths::capture`).
fn refers_to_shared(ctx: &Context, value: Value, ty: TypeHandle) -> bool {
    let pointer = |ty: TypeHandle| ty.deref(ctx).downcast_ref::<PointerType>().cloned();
    let (Some(from), Some(to)) = (pointer(value.get_type(ctx)), pointer(ty)) else { return false };
    let (Some(from_pointee), Some(to_pointee)) = (pointer(from.pointee()), pointer(to.pointee())) else {
        return false;
    };
    from.space() == to.space()
        && from_pointee.space() == AddressSpace::Shared
        && to_pointee.space() == AddressSpace::Generic
        && from_pointee.pointee() == to_pointee.pointee()
}

/// Whether `value` is a pointer into shared memory.
fn is_shared_pointer(ctx: &Context, value: Value) -> bool {
    value
        .get_type(ctx)
        .deref(ctx)
        .downcast_ref::<PointerType>()
        .is_some_and(|pointer| pointer.space() == AddressSpace::Shared)
}

fn pointer_pointee(ctx: &Context, pointer: Value) -> Option<TypeHandle> {
    pointer.get_type(ctx).deref(ctx).downcast_ref::<PointerType>().map(PointerType::pointee)
}

/// The name of `def_id` when it is an item of `core`, `None` for another crate's: the callees
/// the import reads by name (pointer methods, `mem::replace`, range constructors and
/// `contains`) are all `core`'s, and a user's function of the same name is an ordinary call.
fn core_item_name(tcx: TyCtxt<'_>, def_id: rustc_span::def_id::DefId) -> Option<rustc_span::Symbol> {
    (tcx.crate_name(def_id.krate).as_str() == "core").then(|| tcx.item_name(def_id))
}
