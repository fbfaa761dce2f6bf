//! Deny by default: every operation of a scope that the model does not account for.
//!
//! The rules judge what the import turned into semantic operations and modelled MIR. What it
//! could not model (a `mir.opaque`), a call whose body is not in the scope, and what a rule
//! could not decide would otherwise pass without a word. Each becomes a [`Gap`] with the
//! operation's position; a scope with a gap and no rejection is *unverified*, never verified
//! (`plugin/MODEL.md`, "What makes a scope unverified").

use std::fmt;

use std::cell::RefCell;

use rustc_hash::FxHashSet;

use pliron::{
    context::{Context, Ptr},
    operation::Operation,
    r#type::Typed,
    value::{DefiningEntity, Value},
};

use super::{
    facts::{FactStore, is_tracked},
    flow::Flow,
    index::{OpClass, ScopeIndex},
    memory::{LocalStores, StageWalk, is_memory_view, is_pointer_step, is_view_reader, stage_of_pointer},
};
use crate::ir::{
    builder::SourceLoc,
    mir::{
        arith::{CastKind, CastOp},
        control::CallOp,
        may_carry_address,
        memory::{AllocaOp, FieldAddrOp, IndexAddrOp, LoadOp},
        opaque::OpaqueOp,
        pointer_type_of,
    },
    semantic::pipeline::StateNewOp,
    types::AddressSpace,
};

/// Why part of a scope is outside the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GapKind {
    /// MIR the import does not model (a place it cannot address, an rvalue or statement it
    /// does not know), kept as `mir.opaque`.
    Opaque,
    /// Inline assembly outside the device API's modelled operations.
    InlineAssembly,
    /// A call through a function pointer or a trait object whose callee is not known.
    IndirectCall,
    /// A call of a function whose body is not in the scope (a standard-library function the
    /// scope does not follow, a crate built without MIR).
    CallNotFollowed,
    /// A load or store in a pipeline scope whose address is neither a stage of a ring nor
    /// provably outside shared memory.
    UnplacedAccess,
    /// An ordinary load or store that may touch shared memory in a scope without a pipeline:
    /// whether two threads reach the same address between block barriers, one of them writing
    /// (a race), is not proven.
    SharedOrder,
    /// A rule met something it cannot decide (a loop it cannot read, a count that is not a
    /// constant, a launch without a declared block size).
    Undecided,
}

impl GapKind {
    /// The stable name used in reports and messages.
    pub fn name(self) -> &'static str {
        match self {
            GapKind::Opaque => "opaque-operation",
            GapKind::InlineAssembly => "inline-assembly",
            GapKind::IndirectCall => "indirect-call",
            GapKind::CallNotFollowed => "call-not-followed",
            GapKind::UnplacedAccess => "unplaced-access",
            GapKind::SharedOrder => "shared-order",
            GapKind::Undecided => "undecided",
        }
    }
}

impl fmt::Display for GapKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One thing in a scope the verifier cannot account for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gap {
    pub kind: GapKind,
    pub message: String,
    /// The function holding the operation (empty for a scope-wide gap).
    pub function: String,
    pub location: Option<SourceLoc>,
}

impl Gap {
    /// A gap at operation `op`: its function and its source position.
    pub(crate) fn at(
        ctx: &Context,
        index: &ScopeIndex,
        op: Ptr<Operation>,
        kind: GapKind,
        message: String,
    ) -> Gap {
        let function = index.function_of_op(op).map(|f| index.function_names[f].clone()).unwrap_or_default();
        let location = SourceLoc::from_location(ctx, op.deref(ctx).loc());
        Gap { kind, message, function, location }
    }

    /// A gap a rule reports for the whole scope, with no single operation to point at.
    pub fn undecided(message: impl Into<String>) -> Gap {
        Gap { kind: GapKind::Undecided, message: message.into(), function: String::new(), location: None }
    }
}

impl fmt::Display for Gap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unverified[{}]: {}", self.kind, self.message)?;
        if let Some(location) = &self.location {
            write!(f, "\n  --> {location} (in `{}`)", self.function)?;
        }
        Ok(())
    }
}

/// The description of inline assembly declared `nomem`: it reads and writes registers only.
pub const REGISTER_ONLY_ASSEMBLY: &str = "register-only inline assembly";
/// The description of the device API's own assembly whose meaning the model states.
pub const MODELLED_ASSEMBLY: &str = "modelled device-API assembly";

/// The description of the placeholder the import puts in a closure's environment for a capture
/// of a pipeline state: a value of no known content (the state crosses into the closure by the
/// state calling convention, never through the environment), touching no memory.
pub const STATE_CAPTURE: &str = "a capture of a pipeline state";

/// The start of the description of a device-API operation the import knows to be outside the
/// model (cuda-device's raw mbarriers, bulk tensor copies, cluster barriers, a function it has
/// no entry for): never accounted for, whatever the rest of the description says, and reported
/// with the reason that follows.
pub const UNMODELLED_DEVICE_OPERATION: &str = "device operation outside the model: ";

/// Whether an opaque operation with this description is accounted for by the model:
/// register-only and modelled assembly (above), the 32-bit window address of dynamic shared
/// memory (a number only the device API's own assembly reads), and the failed branch of a MIR
/// assertion (a panic, which traps: the kernel stops, it does not go on with a wrong value).
fn opaque_is_accounted(what: &str) -> bool {
    if what.starts_with(UNMODELLED_DEVICE_OPERATION) {
        return false;
    }
    what == REGISTER_ONLY_ASSEMBLY
        || what == MODELLED_ASSEMBLY
        || what == "dynamic_shared_window_address()"
        || what == STATE_CAPTURE
        || is_failed_assertion(what)
        || is_local_value(what)
        || is_register_value(what)
}

/// Whether an opaque operation is the failed branch of a MIR assertion (a bounds check,
/// `assert!`): a panic, which traps; the kernel stops, it does not go on with a wrong value.
pub(crate) fn is_failed_assertion(what: &str) -> bool {
    what.starts_with("assertion failed")
}

/// Whether an opaque operation computes a value from registers alone, touching no memory:
/// whether the build checks undefined behaviour (`UbChecks`, a constant of the build), an
/// optimiser hint (`assume(..)`: no code, undefined behaviour only where the hint is false,
/// which a checked build's assertion before it traps on), a slice pointer's length
/// (`PtrMetadata(..)`, a number carried beside the address), a constant argument or a constant
/// string (a panic message). None of them may dereference a pointer: a form that reads through
/// one (`PtrMetadata(copy (*_3))`) is an access the rules must place.
pub(crate) fn is_register_value(what: &str) -> bool {
    const REGISTER_FORMS: &[&str] =
        &["UbChecks", "assume(", "PtrMetadata(", "argument const ", STRING_LITERAL];
    let dereferences = what.contains("(*") || what.contains("*_");
    REGISTER_FORMS.iter().any(|form| what.starts_with(form)) && !dereferences
}

/// Whether an opaque operation only reads or builds a value of the function's own locals: a
/// read or write of a place with no dereference (`_7.0`, `(_11 as Some).0`), an enum's
/// discriminant, a constant, an aggregate of operands (an array, a closure's environment, an
/// enum variant), the address of a local place. Locals are never shared memory, so such
/// an operation cannot touch the protocol; its result is a value the rules do not know, which
/// they treat as unknown (an address computed from it is placed by [`memory_gaps`] or is a gap).
pub(crate) fn is_local_value(what: &str) -> bool {
    // `&` covers `&mut` and `&raw` too: the address of a place, not an access to it.
    const VALUE_FORMS: &[&str] = &["read of ", "write to ", "discriminant(", "const ", "[", "{closure@", "&"];
    let dereferences = what.contains("(*") || what.contains("*_");
    let value_form = VALUE_FORMS.iter().any(|form| what.starts_with(form))
        || (what.contains("::") && !what.contains("Intrinsic(") && !what.starts_with("drop("));
    value_form && !dereferences
}

/// The memory accesses that the model cannot place. In a scope with pipeline states, every load
/// and store must be a stage access (judged by the typestate rules), or provably outside shared
/// memory: into a local, or into a kernel parameter (global memory, by the launch contract),
/// through offsets, casts, locals, helper parameters (every call's argument must be placed) and
/// helper results. Anything else is returned in [`MemoryGaps::beside_pipelines`]: ordinary shared
/// memory only where shown apart from every ring and barrier area, else a gap
/// (`unplaced-access`). In a scope without pipeline states, an access that may touch shared
/// memory is ordinary shared memory used by the block's threads together: it is returned in
/// [`MemoryGaps::shared`], for the race check ([`super::races`]).
/// `returns` holds each function's `mir.return` operations (numbers).
pub(crate) fn memory_gaps(
    ctx: &Context,
    index: &ScopeIndex,
    facts: &dyn FactStore,
    locals: &LocalStores,
    returns: &[Vec<usize>],
) -> MemoryGaps {
    let pipeline_scope = index
        .ops_of_class(OpClass::Semantic)
        .any(|(_, op)| Operation::get_op::<StateNewOp>(op, ctx).is_some());
    let placer = Placer::new(ctx, index, facts, locals, returns, false);
    let mut found = MemoryGaps::default();
    for (number, _) in index.ops_where(OpClass::accesses_memory) {
        let Some(address) = index.accessed_address(number) else { continue };
        let mut budget = PLACEMENT_BUDGET;
        if placer.placed(address, &mut budget) {
            continue;
        }
        if pipeline_scope {
            found.beside_pipelines.push(number);
        } else {
            found.shared.push(number);
        }
    }
    found
}

/// The `unplaced-access` gap of access `number` of a pipeline scope, `why` saying what was
/// tried beyond the stages, locals and parameters.
pub(crate) fn unplaced_gap(ctx: &Context, index: &ScopeIndex, number: usize, why: &str) -> Gap {
    let op = index.ops[number];
    let what = if Operation::get_op::<LoadOp>(op, ctx).is_some() { "a load" } else { "a store" };
    let message = format!(
        "{what} through a pointer the model cannot place: not a stage of a ring (judged by the pipeline \
         rules), nor a local or a kernel parameter{why}"
    );
    gap_at(ctx, index, number, GapKind::UnplacedAccess, message)
}

/// What [`memory_gaps`] found.
#[derive(Default)]
pub(crate) struct MemoryGaps {
    /// Accesses that may touch shared memory in a scope without pipeline states (numbers).
    pub shared: Vec<usize>,
    /// Accesses of a pipeline scope outside its stages, locals and parameters (numbers): ordinary
    /// shared memory beside the layout, or `unplaced-access` ([`super::races::beside_layout_gaps`]).
    pub beside_pipelines: Vec<usize>,
}

/// Definitions looked through to place one access. Only a success is remembered, so a walk that
/// reaches a kernel parameter through many inlined copies of one helper chain pays for each copy
/// it enters before its first success: the wide GEMM's f32 epilogue (a store reached through 128
/// inlined call sites, each passing the output struct down four helpers) needs more than 1,024,
/// which left its stores unplaced (unverified) while the narrow entry, with half the call sites,
/// fit. A walk that fails costs at most this much per access.
const PLACEMENT_BUDGET: u32 = 16384;

struct Placer<'a> {
    ctx: &'a Context,
    index: &'a ScopeIndex,
    facts: &'a dyn FactStore,
    locals: &'a LocalStores,
    /// Each function's `mir.return` operations (numbers).
    returns: &'a [Vec<usize>],
    /// Pointers already placed: many accesses share the end of their walk (a pointer captured
    /// once and read in many unrolled copies), so it is walked once.
    placed: RefCell<FxHashSet<Value>>,
    /// Pointers a walk that never ran out of budget failed to place: walked once too, so that
    /// the accesses sharing a failing walk do not each pay for it.
    unplaced: RefCell<FxHashSet<Value>>,
    /// Whether a pointer to a local is placed only when what the local holds is: a reader of a
    /// view handed `&mut iterator` reads through the pointers kept in the local, whereas a load
    /// or a store through it touches the local itself.
    through_locals: bool,
}

impl<'a> Placer<'a> {
    fn new(
        ctx: &'a Context,
        index: &'a ScopeIndex,
        facts: &'a dyn FactStore,
        locals: &'a LocalStores,
        returns: &'a [Vec<usize>],
        through_locals: bool,
    ) -> Placer<'a> {
        let (placed, unplaced) = (RefCell::default(), RefCell::default());
        Placer { ctx, index, facts, locals, returns, placed, unplaced, through_locals }
    }

    /// Whether every pointer `pointer` may hold is a stage pointer, a local or a kernel
    /// parameter.
    fn placed(&self, pointer: Value, budget: &mut u32) -> bool {
        if self.placed.borrow().contains(&pointer) {
            return true;
        }
        if self.unplaced.borrow().contains(&pointer) {
            return false;
        }
        let found = self.placed_inner(pointer, budget);
        if found {
            self.placed.borrow_mut().insert(pointer);
        } else if *budget > 0 {
            // The budget never ran out (it only goes down, and stops every walk at 0): the
            // failure is the pointer's own, not this walk's.
            self.unplaced.borrow_mut().insert(pointer);
        }
        found
    }

    fn placed_inner(&self, pointer: Value, budget: &mut u32) -> bool {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        let ctx = self.ctx;
        let walk =
            StageWalk { facts: self.facts, locals: self.locals, index: self.index, returns: self.returns };
        if stage_of_pointer(ctx, &walk, pointer).is_some() {
            return true;
        }
        if pointer_type_of(ctx, pointer.get_type(ctx)).is_some_and(|ptr| ptr.space() == AddressSpace::Shared)
        {
            return false;
        }
        match pointer.defining_entity() {
            DefiningEntity::Block(block) => {
                let Some(&b) = self.index.block_number.get(&block) else { return false };
                let f = self.index.block_function[b];
                if self.index.entry_block(f) != Some(b) {
                    return false;
                }
                if f == 0 {
                    return true;
                }
                self.index.call_arguments(ctx, pointer).is_some_and(|arguments| {
                    arguments.into_iter().all(|argument| self.placed(argument, budget))
                })
            }
            DefiningEntity::Op(def) => {
                if Operation::get_op::<AllocaOp>(def, ctx).is_some() {
                    return !self.through_locals
                        || everything_held_in(
                            ctx,
                            self.locals,
                            pointer,
                            &mut |held, budget| self.placed(held, budget),
                            budget,
                        );
                }
                let operands: Vec<Value> = def.deref(ctx).operands().collect();
                if is_pointer_step(ctx, def) {
                    return self.placed(operands[0], budget);
                }
                if Operation::get_op::<LoadOp>(def, ctx).is_some() {
                    let leaf = Some(def.deref(ctx).get_result(0).get_type(ctx));
                    let flow = Flow { ctx, index: self.index, locals: self.locals, leaf };
                    let Some(stored) = flow.pointees(operands[0], &[], budget) else { return false };
                    return stored.iter().all(|value| self.placed(*value, budget));
                }
                if let Some(call) = Operation::get_op::<CallOp>(def, ctx) {
                    let number = self.index.op_number.get(&def).copied();
                    if let Some(&callee) = number.and_then(|n| self.index.callee_of.get(&n)) {
                        let returned: Vec<Value> = self.returns[callee]
                            .iter()
                            .flat_map(|&ret| self.index.ops[ret].deref(ctx).operands().collect::<Vec<_>>())
                            .collect();
                        return !returned.is_empty()
                            && returned.iter().all(|value| self.placed(*value, budget));
                    }
                    let view = call.callee(ctx).is_some_and(|callee| is_memory_view(callee.as_ref()));
                    // A view of a view (`iter().skip(..)`) is built from an iterator, an
                    // aggregate that holds the pointer.
                    let pointers: Vec<Value> = operands
                        .into_iter()
                        .filter(|operand| may_carry_address(ctx, operand.get_type(ctx)))
                        .collect();
                    return view
                        && !pointers.is_empty()
                        && pointers.iter().all(|value| self.placed(*value, budget));
                }
                false
            }
        }
    }
}

/// The gaps of one scope's operations that need no facts (what the import left opaque, and
/// inline assembly), in scope order: the scope guard reads them.
pub(crate) fn operation_gaps(ctx: &Context, index: &ScopeIndex) -> Vec<Gap> {
    let mut gaps = Vec::new();
    for (number, op) in index.ops_of_class(OpClass::Opaque) {
        let Some((kind, message)) = opaque_gap(ctx, op) else { continue };
        gaps.push(gap_at(ctx, index, number, kind, message));
    }
    gaps
}

/// The gaps of the calls whose bodies are not in the scope: a call is accounted for only when
/// it cannot change what the rules see. It may not be handed a value computed from a pipeline
/// state (the rules would lose where a stage index goes), nor a pointer that may point into
/// shared memory (its accesses would be invisible); a standard-library view (`iter`,
/// `from_raw_parts`, …) is followed by the stage-access walk instead, and a reader of a view
/// (`sum`, `max`, …) may be handed a view of a ring's stage, which the typestate rules judge at
/// the call, but no other view into shared memory: the race check sees loads and stores, not
/// the reads inside a call. Pointers to the function's own locals and the kernel's parameters
/// (global memory, by the launch contract) are safe to hand over: what the call does to them
/// reaches the rules as unknown values.
pub(crate) fn call_gaps(
    ctx: &Context,
    index: &ScopeIndex,
    facts: &dyn FactStore,
    locals: &LocalStores,
    returns: &[Vec<usize>],
) -> Vec<Gap> {
    let placer = Placer::new(ctx, index, facts, locals, returns, true);
    let mut gaps = Vec::new();
    for (number, op) in index.ops_of_class(OpClass::Call) {
        if index.callee_of.contains_key(&number) {
            continue;
        }
        let Some(call) = Operation::get_op::<CallOp>(op, ctx) else { continue };
        let callee = call.callee(ctx).map(|name| name.to_string()).unwrap_or_default();
        if is_memory_view(&callee) {
            continue;
        }
        let operands: Vec<Value> = op.deref(ctx).operands().collect();
        let stateful = operands.iter().any(|operand| {
            is_tracked(ctx, *operand) && facts.get(*operand).is_some_and(|fact| fact.state().is_some())
        });
        // A reader's accesses are the elements of the view it is handed, which the typestate
        // rules judge at the call like a load of the stage (in a helper: at the helper's
        // call), when the view is one of a stage, a local or a kernel parameter.
        let reader = is_view_reader(&callee);
        // A panic (`core::panicking::panic_fmt` formatting its message) never returns: the
        // panic handler traps and the launch ends, so what it reads cannot reach a result.
        let panics = callee.starts_with(PANICKING);
        let unsafe_address = !panics
            && operands.iter().any(|operand| {
                let mut budget = ORIGIN_BUDGET;
                let mut placement_budget = PLACEMENT_BUDGET;
                !outside_shared(ctx, index, locals, *operand, &mut budget)
                    && !(reader && placer.placed(*operand, &mut placement_budget))
            });
        let why = if stateful {
            "is handed a value computed from a pipeline state, which the verifier cannot follow through it"
        } else if unsafe_address {
            "is handed a pointer, or an aggregate that may hold one (an iterator, a closure), that may point \
             into shared memory, whose accesses there the verifier cannot see"
        } else {
            continue;
        };
        let message = format!("a call of `{callee}` (its body is not in the scope) {why}");
        gaps.push(gap_at(ctx, index, number, GapKind::CallNotFollowed, message));
    }
    gaps
}

/// Whether `value` provably carries no address into shared memory: it is a number, or a pointer
/// to a local of its function (`mir.alloca`), to a string literal, or into a kernel parameter
/// (global memory, by the launch contract), through offsets, fields, pointer casts,
/// standard-library views and what was stored into a local; an aggregate likewise by what it
/// was built or stored from.
fn outside_shared(
    ctx: &Context,
    index: &ScopeIndex,
    locals: &LocalStores,
    value: Value,
    budget: &mut u32,
) -> bool {
    if !may_carry_address(ctx, value.get_type(ctx)) {
        return true;
    }
    if pointer_type_of(ctx, value.get_type(ctx)).is_some_and(|ptr| ptr.space() == AddressSpace::Shared) {
        return false;
    }
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    match value.defining_entity() {
        DefiningEntity::Block(block) => {
            let kernel_entry = index.entry_block(0).map(|b| index.blocks[b]);
            kernel_entry == Some(block)
        }
        DefiningEntity::Op(def) => {
            if Operation::get_op::<AllocaOp>(def, ctx).is_some() {
                // A local is outside shared memory, but what it holds may point into it (an
                // iterator handed over by reference: `(&mut column).sum()`).
                return everything_held_in(
                    ctx,
                    locals,
                    value,
                    &mut |held, budget| outside_shared(ctx, index, locals, held, budget),
                    budget,
                );
            }
            let operands: Vec<Value> = def.deref(ctx).operands().collect();
            let follows_first = Operation::get_op::<IndexAddrOp>(def, ctx).is_some()
                || Operation::get_op::<FieldAddrOp>(def, ctx).is_some()
                || Operation::get_op::<CastOp>(def, ctx)
                    .is_some_and(|cast| cast.kind(ctx) == Some(CastKind::PtrToPtr));
            if follows_first {
                return outside_shared(ctx, index, locals, operands[0], budget);
            }
            if Operation::get_op::<LoadOp>(def, ctx).is_some() {
                return locals.stored_over(ctx, operands[0]).is_some_and(|stored| {
                    !stored.is_empty()
                        && stored.iter().all(|value| outside_shared(ctx, index, locals, *value, budget))
                });
            }
            // A string literal (a panic message handed to `core::fmt::Arguments::from_str`) is a
            // constant allocation of the module, never shared memory.
            if Operation::get_op::<OpaqueOp>(def, ctx)
                .and_then(|opaque| opaque.what(ctx))
                .is_some_and(|what| what.starts_with(STRING_LITERAL))
            {
                return true;
            }
            let view = Operation::get_op::<CallOp>(def, ctx)
                .and_then(|call| call.callee(ctx))
                .is_some_and(|callee| is_memory_view(callee.as_ref()));
            view && operands.iter().all(|operand| outside_shared(ctx, index, locals, *operand, budget))
        }
    }
}

/// Whether every address the local `local` (a `mir.alloca`) may hold passes `judge`: trivially
/// when its type holds no address, else by every value that may be stored into it
/// ([`LocalStores::carried_in`]).
fn everything_held_in(
    ctx: &Context,
    locals: &LocalStores,
    local: Value,
    judge: &mut dyn FnMut(Value, &mut u32) -> bool,
    budget: &mut u32,
) -> bool {
    let holds_address = pointer_type_of(ctx, local.get_type(ctx))
        .is_none_or(|pointer| may_carry_address(ctx, pointer.pointee()));
    if !holds_address {
        return true;
    }
    locals.carried_in(ctx, local).is_some_and(|held| held.into_iter().all(|value| judge(value, budget)))
}

/// The path prefix of the standard library's panic entry points, as the import names callees.
const PANICKING: &str = "core__panicking__";

/// How the import describes a string literal operand (`constant const "Constraint_Error"`).
const STRING_LITERAL: &str = "constant const \"";

/// Definitions looked through for a value's origin.
const ORIGIN_BUDGET: u32 = 32;

fn gap_at(ctx: &Context, index: &ScopeIndex, number: usize, kind: GapKind, message: String) -> Gap {
    Gap::at(ctx, index, index.ops[number], kind, message)
}

pub(crate) fn opaque_gap(ctx: &Context, op: Ptr<Operation>) -> Option<(GapKind, String)> {
    let opaque = Operation::get_op::<OpaqueOp>(op, ctx)?;
    let what = opaque.what(ctx)?;
    if opaque_is_accounted(&what) {
        return None;
    }
    if let Some(reason) = what.strip_prefix(UNMODELLED_DEVICE_OPERATION) {
        return Some((GapKind::Opaque, format!("{reason}: outside the model")));
    }
    let kind = if what == "inline assembly" {
        GapKind::InlineAssembly
    } else if what.starts_with("call of ") {
        GapKind::IndirectCall
    } else {
        GapKind::Opaque
    };
    Some((kind, format!("the import does not model `{what}`")))
}
