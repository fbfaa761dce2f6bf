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
//! parameter or result holding states carries each of them the same way after itself. A helper
//! parameter that carries a bulk copy's barrier is followed by a hidden pointer parameter, the
//! pipeline the barrier was asked of (`barrier_params`). Calls
//! to the device API's protocol
//! functions become the semantic operations (see [`crate::device_api`]); a shared pointer
//! passed to a generic pointer parameter becomes an explicit `mir.addrspace_cast` (the
//! adaptation the verifier judges). What the IR does not model becomes `mir.opaque` with the
//! MIR text: never a crash, never a silent drop.
//!
//! Every operation carries the file, line and column of its MIR statement; [`Locations`]
//! maps them back to rustc spans for the diagnostics.
//!
//! The modules, in the order a function goes through them: `analysis` (pre-passes over the MIR
//! body: single-assignment locals, how each local is assigned, constants, closure argument
//! tuples), `function` (entry block, slots, blocks in reverse postorder), `statements` and
//! `places` (rvalues, addresses, loads and stores), `terminators` (control flow and call
//! dispatch), `device_ops` (the device API's protocol calls as semantic operations),
//! `state_abi` (how a pipeline state crosses a call), `barrier_params` (how a copy barrier's
//! pipeline crosses one), `counted` and `closure_loops` (ranges and
//! the `core` methods that loop over them, written out as the library's arithmetic) and `types`
//! (MIR types as IR types). This
//! file holds what they share: the per-function import state and the scope-level entry point.

use std::collections::BTreeMap;

use rustc_data_structures::fx::{FxHashMap, FxHashSet};

use pliron::basic_block::BasicBlock;
use pliron::context::{Context, Ptr};
use pliron::operation::Operation;
use pliron::value::Value;
use plugin::ir::builder::{BuildError, FnKind, ModuleBuilder, SourceLoc};

use crate::naming::symbol;
use rustc_index::IndexVec;
use rustc_middle::mir::{BasicBlock as MirBlock, Body, Local, Operand, Place, ProjectionElem};
use rustc_middle::ty::{Instance, Ty, TyCtxt};
use rustc_span::Span;
use rustc_span::Spanned;

use crate::scope::KernelScope;
use crate::spaces::{PlacePath, SharedPaths};

mod analysis;
mod barrier_params;
mod closure_loops;
mod constant_memory;
mod counted;
mod device_ops;
mod function;
mod iterators;
mod places;
mod state_abi;
mod statements;
mod terminators;
mod types;

use analysis::Assignments;

/// The IR's source positions and the rustc spans they came from.
#[derive(Debug, Default)]
pub struct Locations {
    spans: FxHashMap<SourceLoc, Span>,
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

/// Imports a kernel scope into a fresh pliron context; `shared` is the scope's shared place
/// paths ([`SharedPaths::infer`]).
pub fn import_scope<'tcx>(
    tcx: TyCtxt<'tcx>,
    scope: &KernelScope<'tcx>,
    shared: &SharedPaths<'tcx>,
) -> Result<ImportedScope, BuildError> {
    let mut ctx = plugin::new_context();
    let module = ModuleBuilder::new(&mut ctx, &symbol(&scope.name))?;
    let mut names = FxHashMap::default();
    let mut taken = FxHashSet::default();
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
    let bodies: FxHashMap<Instance<'tcx>, &Body<'tcx>> =
        scope.functions.iter().map(|function| (function.instance, &*function.body)).collect();
    let barrier_params = match scope.functions.first() {
        Some(kernel) => barrier_params::barrier_parameters(tcx, kernel.instance, &bodies),
        None => FxHashMap::default(),
    };
    let mut importer = Importer {
        tcx,
        ctx: &mut ctx,
        shared,
        names: &names,
        bodies: &bodies,
        barrier_params: &barrier_params,
        locations: Locations::default(),
        positions: FxHashMap::default(),
        types: FxHashMap::default(),
        stats: ImportStats::default(),
    };
    for (index, function) in scope.functions.iter().enumerate() {
        let kind = if index == 0 { FnKind::Kernel } else { FnKind::Device };
        importer.function(&module, kind, function.instance, &function.body)?;
    }
    let Importer { locations, stats, .. } = importer;
    Ok(ImportedScope { module: module.op(), ctx, locations, stats })
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
    references: FxHashMap<Local, StatePath>,
    /// Locals assigned one integer constant, once: the array indices the import can read.
    constants: FxHashMap<Local, u32>,
    /// How MIR assigns each local. Only a reference assigned once as a whole is followed (one
    /// assigned on two paths may name either state).
    assignments: IndexVec<Local, Assignments<'b, 'tcx>>,
    /// States a closure local captured by reference: (closure local, capture) → the state it
    /// refers to. The capture's slots hold a copy of the state's, copied back after each call
    /// of the closure (borrowck keeps the state itself unused while the closure lives).
    write_back: FxHashMap<(Local, u32), StatePath>,
    /// Tuple locals built once from operands: the argument tuples of closure calls.
    tuples: FxHashMap<Local, Option<Vec<Operand<'tcx>>>>,
    /// Locals holding a `producer_barrier` result, with the pipeline it was asked of: the
    /// bulk copy that completes on that barrier names the same pipeline.
    barrier_pipelines: FxHashMap<Local, Value>,
    /// Arguments carrying a copy barrier, with the hidden parameter naming its pipeline.
    barrier_params: FxHashMap<Local, Value>,
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
    aggregate_fields: FxHashMap<PlacePath, Value>,
    /// The ranges and `step_by` ranges a `for` loop iterates, and their items, imported as the
    /// library's arithmetic (see `counted`).
    counted: counted::CountedLocals,
    /// `map` results of closure loops: the slot holding the mapping closure, and its type
    /// (see `closure_loops`).
    mapped: FxHashMap<Local, (Value, Ty<'tcx>)>,
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
    names: &'a FxHashMap<Instance<'tcx>, String>,
    /// Each scope function's body, by instance (a closure loop calls a closure's body).
    bodies: &'a FxHashMap<Instance<'tcx>, &'a Body<'tcx>>,
    /// Which arguments of each helper carry a copy barrier, each followed by a hidden parameter
    /// naming its pipeline (`barrier_params`).
    barrier_params: &'a FxHashMap<Instance<'tcx>, Vec<bool>>,
    locations: Locations,
    /// The source position of each span met so far: MIR repeats a statement's span on every
    /// statement a macro or an unrolled loop wrote, and looking a position up in the source map
    /// costs more than building the operation.
    positions: FxHashMap<Span, SourceLoc>,
    /// The IR type of each type met so far, with its shared view: a struct's type is named by
    /// printing its path and sized by a layout query, once per local and place otherwise.
    types: FxHashMap<(Ty<'tcx>, Option<Ty<'tcx>>), pliron::r#type::TypeHandle>,
    stats: ImportStats,
}
