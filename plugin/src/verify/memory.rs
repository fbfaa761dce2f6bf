//! What memory an operation touches, as the rules see it: the values stored into each local
//! (and each field of one), constants, the standard library's views and readers of memory, and
//! the walk from an access's pointer back to the pipeline stage it addresses.

use rustc_hash::FxHashSet;

use pliron::{
    context::{Context, Ptr},
    operation::Operation,
    r#type::{TypeHandle, Typed},
    value::{DefiningEntity, Value},
};

use super::{
    dataflow::returned_at,
    facts::{Fact, FactStore, StateId, is_tracked},
    flow::Flow,
    index::{OpClass, ScopeIndex},
};
use crate::ir::{
    mir::{
        arith::{AddrSpaceCastOp, BinOp, CastKind, CastOp},
        control::CallOp,
        may_carry_address,
        memory::{FieldAddrOp, IndexAddrOp, LoadOp},
        pointer_type_of,
    },
    types::AddressSpace,
};

pub(crate) use super::constants::{constant_value, core_bit_count};
pub(crate) use super::locals::LocalStores;

/// Standard-library functions that make a view of memory (a slice, an iterator, an element's
/// address) without reading it: a stage pointer handed to them is followed into their result,
/// and the call is no access. Any other call handed a stage pointer or view accesses the stage
/// (a helper, `Iterator::sum`, `ptr::copy_nonoverlapping`).
const MEMORY_VIEWS: &[&str] = &[
    "from_raw_parts",
    "from_raw_parts_mut",
    "as_ptr",
    "as_mut_ptr",
    "as_slice",
    "as_mut_slice",
    "iter",
    "iter_mut",
    "into_iter",
    "get_unchecked",
    "get_unchecked_mut",
    "index",
    "index_mut",
    "skip",
    "step_by",
    "take",
    "len",
    // `Iterator::by_ref`: the iterator itself, borrowed; nothing read.
    "by_ref",
    // Pointer arithmetic: a pointer into the same memory, nothing read.
    "wrapping_add",
    "wrapping_sub",
    "wrapping_offset",
    "wrapping_byte_add",
];

/// Whether `callee` (an IR symbol: a path without generic arguments, segments joined by `__`)
/// is a standard-library view: a function of `core` whose own name, the last segment, is one
/// of [`MEMORY_VIEWS`]. Only the last segment counts: `core::iter::Iterator::sum` lives in a
/// module named `iter` but reads memory.
pub fn is_memory_view(callee: &str) -> bool {
    let mut segments = callee.split("__").map(|segment| segment.trim_matches('_'));
    let from_core = segments.next().is_some_and(|first| first == "core");
    from_core && segments.last().is_some_and(|name| MEMORY_VIEWS.contains(&name))
}

/// Whether `callee` makes a slice from a pointer and a length (`core::slice::from_raw_parts`,
/// `from_raw_parts_mut`): its `len` elements are what the slice's iterators and readers read.
pub fn is_slice_from_parts(callee: &str) -> bool {
    is_memory_view(callee)
        && callee
            .rsplit("__")
            .next()
            .is_some_and(|name| matches!(name.trim_matches('_'), "from_raw_parts" | "from_raw_parts_mut"))
}

/// Whether `callee` is a slice's unchecked element access (`get_unchecked(i)`,
/// `get_unchecked_mut(i)`): handed an integer index, it returns the address of element `i`.
pub fn is_slice_element(callee: &str) -> bool {
    is_memory_view(callee)
        && callee
            .rsplit("__")
            .next()
            .is_some_and(|name| matches!(name.trim_matches('_'), "get_unchecked" | "get_unchecked_mut"))
}

/// The pointer and length of a call making a slice (`from_raw_parts(pointer, length)`).
pub(crate) fn slice_from_parts(ctx: &Context, op: Ptr<Operation>) -> Option<(Value, Value)> {
    let call = Operation::get_op::<CallOp>(op, ctx)?;
    if !call.callee(ctx).is_some_and(|callee| is_slice_from_parts(callee.as_ref())) {
        return None;
    }
    let operation = op.deref(ctx);
    (operation.get_num_operands() == 2).then(|| (operation.get_operand(0), operation.get_operand(1)))
}

/// Standard-library functions that consume an iterator or slice they are handed by reading
/// its elements, and touch no other memory: handed a view of a stage, the call is a read of the
/// stage (judged by the typestate rules like a load), and nothing the model cannot see.
const VIEW_READERS: &[&str] = &["sum", "product", "count", "max", "min", "last", "nth"];

/// Whether `callee` is one of the standard library's [`VIEW_READERS`].
pub fn is_view_reader(callee: &str) -> bool {
    let mut segments = callee.split("__").map(|segment| segment.trim_matches('_'));
    let from_core = segments.next().is_some_and(|first| first == "core");
    from_core && segments.last().is_some_and(|name| VIEW_READERS.contains(&name))
}

/// The constant the kernel declares with the launch-contract function `symbol`
/// (`device::launch::block_threads(N)`, `dynamic_shared_bytes(N)`): every call of it in the
/// scope, the kernel's own or a helper's (a generic body the kernel calls), must hand it one
/// and the same constant; `None` when there is no such call, an argument is not a constant, or
/// two disagree. The call emits no instruction; it is read here.
pub(crate) fn declared_constant(ctx: &Context, index: &ScopeIndex, symbol: &str) -> Option<i64> {
    match declared_constants(ctx, index, symbol)?[..] {
        [constant] => Some(constant),
        _ => None,
    }
}

/// The constant arguments of every call of the declaration `symbol` in the scope, where every
/// call passes the same constants; `None` where there is no call, an argument is not constant,
/// or two calls differ.
pub(crate) fn declared_constants(ctx: &Context, index: &ScopeIndex, symbol: &str) -> Option<Vec<i64>> {
    let mut declared: Option<Vec<i64>> = None;
    for (_, op) in index.ops_where(|class| class == OpClass::Call) {
        let names_symbol = Operation::get_op::<CallOp>(op, ctx)
            .and_then(|call| call.callee(ctx))
            .is_some_and(|name| AsRef::<str>::as_ref(&name) == symbol);
        if !names_symbol {
            continue;
        }
        let operation = op.deref(ctx);
        let constants = operation
            .operands()
            .map(|operand| constant_value(ctx, operand, 4))
            .collect::<Option<Vec<i64>>>()?;
        if declared.as_ref().is_some_and(|seen| *seen != constants) {
            return None;
        }
        declared = Some(constants);
    }
    declared
}

/// For a call handed a stage (a helper summing a stage through a pointer parameter, an iterator
/// over a stage), the state, the operand that hands the stage over and the stage pointer it
/// derives from (`None` for a stage pointer taken from an array of pointers): the typestate rules
/// count the call as an access of the stage, and the layout rule places that pointer in the ring
/// as it places a load's. A view (`iter`, `from_raw_parts`) only makes one.
pub(crate) fn stage_handed_to_call(
    ctx: &Context,
    walk: &StageWalk,
    op: Ptr<Operation>,
) -> Option<(StateId, Value, StageSource)> {
    let call = Operation::get_op::<CallOp>(op, ctx)?;
    if call.callee(ctx).is_some_and(|callee| is_memory_view(callee.as_ref())) {
        return None;
    }
    let operands: Vec<Value> = op.deref(ctx).operands().collect();
    // An aggregate operand (an iterator over a stage, a closure capturing a stage pointer) hands
    // the stage over as much as a pointer does.
    operands
        .into_iter()
        .filter(|operand| may_carry_address(ctx, operand.get_type(ctx)))
        .find_map(|operand| stage_pointer(ctx, walk, operand).map(|(state, stage)| (state, operand, stage)))
}

/// Where a stage access's pointer comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StageSource {
    /// The `mir.index_addr` on a shared pointer whose offset derives from the state's index,
    /// which the layout rule places in the ring.
    Pointer(Value),
    /// An element of a table of pointers read at the state's index: the table's address (its
    /// first element), whose entries the layout rule places one by one, and the element's
    /// index.
    Table(Value, Value),
}

impl StageSource {
    /// The offset the stage was picked with: the stage pointer's element offset, or the index
    /// of the table element read.
    pub(crate) fn offset(self, ctx: &Context) -> Option<Value> {
        match self {
            StageSource::Pointer(pointer) => Some(pointer.defining_op()?.deref(ctx).get_operand(1)),
            StageSource::Table(_, at) => Some(at),
        }
    }
}

/// The state whose stage `pointer` points into: it is computed from a shared-memory pointer by
/// `mir.index_addr` with an offset that derives (through arithmetic and integer casts of any
/// width) from a state's stage index, then carried through further offsets, field addresses,
/// pointer and address-space casts, locals, standard-library views (slices, iterators) and
/// elements of a pointer array selected by a stage index. The walk back visits a bounded number
/// of definitions, so the cost per operation is constant.
pub(crate) fn stage_of_pointer(ctx: &Context, walk: &StageWalk, pointer: Value) -> Option<StateId> {
    stage_pointer(ctx, walk, pointer).map(|(state, _)| state)
}

/// [`stage_of_pointer`], with the pointer to the stage itself: the `mir.index_addr` on a shared
/// pointer whose offset derives from the state's index (`None` for a stage pointer taken from
/// an array of pointers), which the layout rule places in the ring.
pub(crate) fn stage_pointer(
    ctx: &Context,
    walk: &StageWalk,
    pointer: Value,
) -> Option<(StateId, StageSource)> {
    let StageWalk { facts, locals, .. } = *walk;
    // Each value with the calls whose results the walk entered to reach it, innermost last: a
    // parameter of such a callee is what that call passed (a slice of the stage handed back by
    // the helper it was handed to).
    let mut pending: Vec<(Value, Vec<Ptr<Operation>>)> = vec![(pointer, Vec::new())];
    let mut visited: FxHashSet<Value> = FxHashSet::default();
    let mut budget = 64;
    while let Some((value, entered)) = pending.pop() {
        if budget == 0 {
            return None;
        }
        budget -= 1;
        if !visited.insert(value) {
            continue;
        }
        let Some(def) = value.defining_op() else {
            if let Some((call, outer)) = entered.split_last()
                && let Some(argument) =
                    walk.index.call_binding(ctx, *call).and_then(|binding| binding.argument_for(value))
            {
                pending.push((argument, outer.to_vec()));
            }
            continue;
        };
        let operands: Vec<Value> = def.deref(ctx).operands().collect();
        if Operation::get_op::<IndexAddrOp>(def, ctx).is_some() {
            let base_shared = points_to_shared(ctx, walk, operands[0]);
            let mut offset_budget = 16;
            if base_shared && let Some(state) = offset_state(ctx, facts, operands[1], &mut offset_budget) {
                return Some((state, StageSource::Pointer(value)));
            }
            pending.push((operands[0], entered));
        } else if Operation::get_op::<FieldAddrOp>(def, ctx).is_some()
            || Operation::get_op::<AddrSpaceCastOp>(def, ctx).is_some()
            || Operation::get_op::<CastOp>(def, ctx)
                .is_some_and(|cast| cast.kind(ctx) == Some(CastKind::PtrToPtr))
        {
            pending.push((operands[0], entered));
        } else if Operation::get_op::<LoadOp>(def, ctx).is_some() {
            // A pointer loaded from an array of pointers at a stage index is that stage's
            // pointer; one loaded from a local is what was stored there.
            let address = operands[0];
            if pointer_type_of(ctx, value.get_type(ctx)).is_some()
                && let Some(element) = address.defining_op()
                && Operation::get_op::<IndexAddrOp>(element, ctx).is_some()
            {
                let mut offset_budget = 16;
                let offset = element.deref(ctx).get_operand(1);
                if let Some(state) = offset_state(ctx, facts, offset, &mut offset_budget) {
                    return Some((state, StageSource::Table(element.deref(ctx).get_operand(0), offset)));
                }
            }
            let stored = match locals.stored_over(ctx, address) {
                Some(stored) => stored,
                // Memory that is not a local of this function (a closure's environment, a
                // parameter's pointee, a field of a returned struct): what the walk through
                // memory and calls finds stored there.
                None => walk.stored_through_memory(ctx, address, value.get_type(ctx)).unwrap_or_default(),
            };
            pending.extend(stored.into_iter().map(|stored| (stored, entered.clone())));
        } else if let Some(call) = Operation::get_op::<CallOp>(def, ctx) {
            if call.callee(ctx).is_some_and(|callee| is_memory_view(callee.as_ref())) {
                pending.extend(operands.into_iter().map(|operand| (operand, entered.clone())));
            } else if let Some(returned) = walk.returned(ctx, def, value) {
                // Past the depth bound the call is entered with no frames at all: a parameter
                // met below it then ends the walk, as it did before frames were kept.
                let mut inner = entered;
                if inner.len() < MAX_PARAMETER_DEPTH as usize {
                    inner.push(def);
                } else {
                    inner.clear();
                }
                pending.push((returned, inner));
            }
        }
    }
    None
}

/// Definitions the walk through memory may look at for one pointer a stage walk loads.
const FLOW_BUDGET: u32 = 64;
/// Helpers a pointer is followed up through to the shared pointer every call hands it.
const MAX_PARAMETER_DEPTH: u32 = 4;
/// Definitions looked at to show that a pointer points into shared memory.
const SHARED_SOURCE_BUDGET: u32 = 32;

/// Whether `pointer` points into shared memory: every value it may come from is typed shared,
/// through pointer casts, locals it was stored in, and parameters of helpers (what every call
/// of the scope hands them: a helper taking the ring as `*const f32`, a generic pointer the
/// import cannot type shared).
fn points_to_shared(ctx: &Context, walk: &StageWalk, pointer: Value) -> bool {
    let mut pending = vec![(pointer, MAX_PARAMETER_DEPTH)];
    let mut seen: FxHashSet<Value> = FxHashSet::default();
    let mut budget = SHARED_SOURCE_BUDGET;
    while let Some((at, depth)) = pending.pop() {
        if !seen.insert(at) {
            continue;
        }
        if budget == 0 {
            return false;
        }
        budget -= 1;
        if pointer_type_of(ctx, at.get_type(ctx)).is_some_and(|ptr| ptr.space() == AddressSpace::Shared) {
            continue;
        }
        let sources = match at.defining_entity() {
            DefiningEntity::Op(def)
                if Operation::get_op::<AddrSpaceCastOp>(def, ctx).is_some()
                    || Operation::get_op::<CastOp>(def, ctx)
                        .is_some_and(|cast| cast.kind(ctx) == Some(CastKind::PtrToPtr)) =>
            {
                Some(vec![def.deref(ctx).get_operand(0)])
            }
            DefiningEntity::Op(def) if Operation::get_op::<LoadOp>(def, ctx).is_some() => {
                let address = def.deref(ctx).get_operand(0);
                // A pointer field of an aggregate stored whole (a struct a helper returned): the
                // walk through memory and calls finds the field's values.
                walk.locals
                    .stored_over(ctx, address)
                    .filter(|stored| {
                        stored.iter().all(|value| pointer_type_of(ctx, value.get_type(ctx)).is_some())
                    })
                    .or_else(|| walk.stored_through_memory(ctx, address, at.get_type(ctx)))
            }
            DefiningEntity::Block(_) if depth > 0 => walk.index.call_arguments(ctx, at),
            _ => None,
        };
        let Some(sources) = sources.filter(|sources| !sources.is_empty()) else { return false };
        let depth = if matches!(at.defining_entity(), DefiningEntity::Block(_)) { depth - 1 } else { depth };
        pending.extend(sources.into_iter().map(|source| (source, depth)));
    }
    true
}

/// Whether `op` derives a pointer from the pointer that is its first operand, pointing into the
/// same memory: an element, a field, an address-space or pointer-to-pointer cast.
pub(crate) fn is_pointer_step(ctx: &Context, op: Ptr<Operation>) -> bool {
    Operation::get_op::<IndexAddrOp>(op, ctx).is_some()
        || Operation::get_op::<FieldAddrOp>(op, ctx).is_some()
        || Operation::get_op::<AddrSpaceCastOp>(op, ctx).is_some()
        || Operation::get_op::<CastOp>(op, ctx).is_some_and(|cast| cast.kind(ctx) == Some(CastKind::PtrToPtr))
}

/// What the walk from a pointer back to its stage reads: the facts, the stores into locals,
/// and the scope's helpers (a pointer a helper returns is what its one `return` returns).
#[derive(Clone, Copy)]
pub(crate) struct StageWalk<'a> {
    pub facts: &'a dyn FactStore,
    pub locals: &'a LocalStores,
    pub index: &'a ScopeIndex,
    /// Each function's `mir.return` operations (numbers).
    pub returns: &'a [Vec<usize>],
}

impl StageWalk<'_> {
    /// What the walk through memory and calls finds stored where `address` points, read at
    /// type `leaf`: memory that is not a local of the function (a closure's environment, a
    /// parameter's pointee, a field of a returned struct).
    pub(crate) fn stored_through_memory(
        &self,
        ctx: &Context,
        address: Value,
        leaf: TypeHandle,
    ) -> Option<Vec<Value>> {
        let flow = Flow { ctx, index: self.index, locals: self.locals, leaf: Some(leaf) };
        let mut budget = FLOW_BUDGET;
        flow.pointees(address, &[], &mut budget)
    }

    /// What the helper `call` calls returns at `result`'s position, when it has one `return`
    /// (several may return different pointers).
    fn returned(&self, ctx: &Context, call: Ptr<Operation>, result: Value) -> Option<Value> {
        match returned_at(ctx, self.index, self.returns, call, result)?.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }
}

/// The state an offset derives from, looking through at most `budget` arithmetic operations
/// and integer casts.
fn offset_state(ctx: &Context, facts: &dyn FactStore, offset: Value, budget: &mut u32) -> Option<StateId> {
    if is_tracked(ctx, offset)
        && let Some(Fact::Index(state) | Fact::Derived(state)) = facts.get(offset)
    {
        return Some(state);
    }
    let operands = offset_operands(ctx, facts, offset, budget)?;
    operands.into_iter().find_map(|operand| offset_state(ctx, facts, operand, budget))
}

/// The state's index an offset is computed from: the value, looking back through at most
/// `budget` arithmetic operations, integer casts and calls whose result the facts derive from a
/// state (a helper's `RING + index * STRIDE`: the call's own arguments), that the facts name as
/// a state's stage index itself (not arithmetic on one). Its versions name the values of the
/// state it was read from.
pub(crate) fn offset_index(
    ctx: &Context,
    facts: &dyn FactStore,
    offset: Value,
    budget: &mut u32,
) -> Option<Value> {
    if is_tracked(ctx, offset)
        && let Some(Fact::Index(_)) = facts.get(offset)
    {
        return Some(offset);
    }
    let operands = offset_operands(ctx, facts, offset, budget)?;
    operands.into_iter().find_map(|operand| offset_index(ctx, facts, operand, budget))
}

/// The operands an offset is computed from, when it is arithmetic, an integer cast or a call
/// whose result derives from a state, and the `budget` of such steps is not spent.
fn offset_operands(
    ctx: &Context,
    facts: &dyn FactStore,
    offset: Value,
    budget: &mut u32,
) -> Option<Vec<Value>> {
    if *budget == 0 {
        return None;
    }
    *budget -= 1;
    let DefiningEntity::Op(def) = offset.defining_entity() else { return None };
    let walk = Operation::get_op::<BinOp>(def, ctx).is_some()
        || Operation::get_op::<CastOp>(def, ctx)
            .is_some_and(|cast| cast.kind(ctx) == Some(CastKind::IntToInt))
        || (Operation::get_op::<CallOp>(def, ctx).is_some()
            && matches!(facts.get(offset), Some(Fact::Derived(_) | Fact::Index(_))));
    walk.then(|| def.deref(ctx).operands().collect())
}

#[cfg(test)]
mod tests {
    use super::{is_memory_view, is_slice_from_parts};

    #[test]
    fn a_view_is_recognised_by_its_own_name_not_by_its_module() {
        assert!(is_memory_view("core__slice__from_raw_parts"));
        assert!(is_slice_from_parts("core__slice__raw__from_raw_parts_mut"));
        assert!(!is_slice_from_parts("core__slice__impl_T___iter"));
        assert!(is_memory_view("core__slice___impl__T____iter"));
        assert!(is_memory_view("core__iter__Iterator__step_by"));
        // `Iterator::sum` lives in `core::iter` but reads every element.
        assert!(!is_memory_view("core__iter__Iterator__sum"));
        assert!(!is_memory_view("core__iter__traits__iterator__Iterator__fold"));
        // Only the standard library's functions: a kernel's own `iter` may do anything.
        assert!(!is_memory_view("kernels__ring__iter"));
    }

    #[test]
    fn a_reader_of_a_view_is_a_function_of_core_that_reads_its_elements() {
        use super::is_view_reader;
        assert!(is_view_reader("core__iter__Iterator__sum"));
        assert!(!is_view_reader("core__iter__Iterator__for_each"));
        assert!(!is_view_reader("kernels__tile__sum"));
    }
}
