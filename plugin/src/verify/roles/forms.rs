//! Values read as linear forms (`super::linear`): what the tile-count rule reads a loop's start,
//! step and bound as, through the function's variables, the kernel's locals, the one value
//! memory holds where the walk through memory and calls finds it, and helper calls whose
//! results are alike in every thread. The loop around them is found by the parent module.

use rustc_hash::FxHashMap;

use pliron::{
    context::{Context, Ptr},
    operation::Operation,
    printable::Printable,
    r#type::Typed,
    value::{DefiningEntity, Value},
};

use super::{
    MAX_READS,
    linear::{Atom, Linear},
    stores::{Stores, field_value, only_value_read},
};
use crate::ir::mir::{
    arith::{BinOp, BinOpKind, CastKind, CastOp},
    constant::ConstIntOp,
    control::CallOp,
    int_width,
    memory::LoadOp,
    pointer_type_of,
};
use crate::verify::store_table::Place;
use crate::verify::{
    index::ScopeIndex,
    locals::local_slot,
    progression::counted_advance,
    thread_values::Val,
    uniform::{
        computes_from_arguments_reading, geometry_read, parameter_unread, reads_block_coordinates,
        uniform_read,
    },
};

/// Calls a helper of a bound (`Atom::Applied`) may make, nested, and still count as computing
/// from its arguments.
const HELPER_DEPTH: u32 = 4;

/// Standard-library paths whose functions compute an integer from their integer arguments
/// alone (`u32::div_ceil`, `Ord::min`).
const PURE_INTEGER_PATHS: [&str; 2] = ["core__num__", "core__cmp__"];

/// `value`, loaded from `address`, as [`Atom::Place`]: a place of the kernel's own locals
/// (reached through references to it) that one store outside every loop writes, read alike by
/// every thread.
fn written_once(ctx: &Context, stores: &Stores, value: Value, address: Value) -> Option<Linear> {
    let index = stores.index;
    let model = stores.threads.get();
    let locals = model.locals();
    let (local, path) = locals.slot(ctx, address)?;
    let (stored, block, inside) = locals.single_store_over(ctx, address)?;
    let alloca = local.defining_op()?;
    // A helper's local is read here only in the helper that owns it: what was stored reads in
    // this function's terms.
    let owner = index.function_of_op(alloca)?;
    if (owner != 0 && owner != stores.function) || index.cycles().on_cycle(block) {
        return None;
    }
    // What was stored, where it reads as a form (`block_idx_x() + grid_dim_x()` in the
    // constructor that built the struct): equal forms compare across places.
    let written = if inside.is_empty() {
        Some(stored)
    } else {
        field_value(ctx, index, stores.threads, stored, &inside)
    };
    let mut budget = MAX_READS;
    if let Some(form) = written
        .and_then(|written| linear(ctx, stores, written, &mut Induction::default(), &mut budget))
        .filter(|form| form.iv() == 0)
    {
        return Some(form);
    }
    // A field of what a helper computing from its arguments returned (`let job =
    // TileJob::of_block(tiles)`, its `count` chosen on two paths inside it): the same at every
    // call with equal arguments, in every thread.
    if !inside.is_empty()
        && let Some(call_op) = stored.defining_op()
        && let Some(call) = Operation::get_op::<CallOp>(call_op, ctx)
    {
        let operands: Vec<Value> = call_op.deref(ctx).operands().collect();
        let mut budget = MAX_READS;
        let read = (stored, operands.as_slice());
        if let Some(form) =
            applied(ctx, stores, (call, call_op), read, &inside, &mut Induction::default(), &mut budget)
        {
            return Some(form);
        }
    }
    match model.eval(value, &FxHashMap::default()) {
        Val::Const(constant) => Some(Linear { constant, ..Linear::default() }),
        Val::Uniform => {
            let local = *index.op_number.get(&alloca)?;
            Some(Linear::atom(if owner == 0 {
                Atom::Place { local, path }
            } else {
                Atom::HelperPlace { local, path }
            }))
        }
        _ => None,
    }
}

/// `value`, a load from memory this function's variables do not answer, as the form of the one
/// value stored there (`stores::only_value_read`) where that value is the kernel's: one of its
/// parameters or a value it computes outside every loop, read in the kernel's terms (a role
/// struct's `tiles` field, read through `&self` in a helper). Every read of the place reads it.
fn kernel_value_read(ctx: &Context, stores: &Stores, value: Value) -> Option<Linear> {
    let index = stores.index;
    let only = only_value_read(ctx, index, stores.threads, value)?;
    if defined_once(index, only)? != 0 {
        return None;
    }
    let mut budget = MAX_READS;
    linear(ctx, stores.kernel(ctx), only, &mut Induction::default(), &mut budget)
        .filter(|form| form.iv() == 0)
}

/// `value`, a load of `place`, as [`Atom::Chosen`] (or, where one store reaches it, that
/// store's form): a variable of the kernel stored more than once, no store on a cycle, read as
/// one value in every thread.
fn chosen_store(
    ctx: &Context,
    stores: &Stores,
    value: Value,
    place: &Place,
    budget: &mut u32,
) -> Option<Linear> {
    let index = stores.index;
    let blocks = stores.blocks.get(place)?;
    if blocks.len() < 2 || blocks.iter().any(|b| index.cycles().on_cycle(*b)) {
        return None;
    }
    let alloca = place.0.defining_op()?;
    if index.function_of_op(alloca) != Some(0) {
        return None;
    }
    if !matches!(stores.threads.get().eval(value, &FxHashMap::default()), Val::Uniform | Val::Const(_)) {
        return None;
    }
    let load = *index.op_number.get(&value.defining_op()?)?;
    let reaching = stores.reaching(ctx, place, load)?;
    if let [only] = reaching.as_slice() {
        return stored_form(ctx, stores, *only, budget);
    }
    let local = *index.op_number.get(&alloca)?;
    Some(Linear::atom(Atom::Chosen { local, path: place.1.clone(), stores: reaching }))
}

/// `value`, a load of the induction variable's `place` outside its loop (the peeled pass's `t +=
/// g` before `while t < n`), as the one store that reaches it, read without the induction
/// variable; `None` inside the loop or where several stores reach the load.
fn before_the_loop(
    ctx: &Context,
    stores: &Stores,
    value: Value,
    place: &Place,
    iv: &Induction,
    budget: &mut u32,
) -> Option<Linear> {
    let index = stores.index;
    let load = *index.op_number.get(&value.defining_op()?)?;
    if index.cycles().together(index.op_block[load], iv.header?) {
        return None;
    }
    read_through_store(ctx, stores, value, place, budget)
}

/// `value`, a load of `place`, as the value of the one store that reaches it, read without an
/// induction variable (a counter read where it was last set outside its loop: the test `t < n`
/// in front of a peeled first pass); `None` where several stores (or none) reach the load.
pub(super) fn read_through_store(
    ctx: &Context,
    stores: &Stores,
    value: Value,
    place: &Place,
    budget: &mut u32,
) -> Option<Linear> {
    let index = stores.index;
    let load = *index.op_number.get(&value.defining_op()?)?;
    let [only] = stores.reaching(ctx, place, load)?[..] else { return None };
    stored_form(ctx, stores, only, budget)
}

/// The value store `store` (an operation number) writes, as a linear form without the
/// induction variable.
fn stored_form(ctx: &Context, stores: &Stores, store: usize, budget: &mut u32) -> Option<Linear> {
    let stored = stores.index.ops[store].deref(ctx).get_operand(0);
    linear(ctx, stores, stored, &mut Induction::default(), budget).filter(|form| form.iv() == 0)
}

/// The induction variable found while reading a condition.
#[derive(Default)]
pub(super) struct Induction {
    /// The block whose branch is the loop's condition.
    pub header: Option<usize>,
    pub slot: Option<Place>,
    pub start: Option<Linear>,
    pub step: Option<Linear>,
}

/// `value` as a linear form, or `None`; looks through at most `budget` operations in all.
pub(super) fn linear(
    ctx: &Context,
    stores: &Stores,
    value: Value,
    iv: &mut Induction,
    budget: &mut u32,
) -> Option<Linear> {
    if *budget == 0 {
        return None;
    }
    *budget -= 1;
    let def = match value.defining_entity() {
        DefiningEntity::Op(def) => def,
        DefiningEntity::Block(_) => {
            if let Some(n) = stores.params.iter().position(|p| *p == value) {
                return Some(Linear::atom(if stores.function == 0 {
                    Atom::KernelParam(n)
                } else {
                    Atom::Param(n)
                }));
            }
            // A kernel parameter met in a helper's terms (the `tiles` the kernel stored in a
            // struct it handed down by value): the same value in every function.
            let n = stores.kernel(ctx).params.iter().position(|p| *p == value)?;
            return Some(Linear::atom(Atom::KernelParam(n)));
        }
    };
    if let Some(constant) = Operation::get_op::<ConstIntOp>(def, ctx) {
        return Some(Linear::constant(constant.get_attr_int_value(ctx)?.value().to_u64() as i64));
    }
    let operands: Vec<Value> = def.deref(ctx).operands().collect();
    if let Some(cast) = Operation::get_op::<CastOp>(def, ctx) {
        return match cast.kind(ctx) {
            Some(CastKind::IntToInt) => linear(ctx, stores, operands[0], iv, budget),
            _ => None,
        };
    }
    if let Some(binop) = Operation::get_op::<BinOp>(def, ctx) {
        let a = linear(ctx, stores, operands[0], iv, budget)?;
        let b = linear(ctx, stores, operands[1], iv, budget)?;
        return match binop.kind(ctx)? {
            BinOpKind::Add => Some(a.plus(&b, 1)),
            BinOpKind::Sub => Some(a.plus(&b, -1)),
            BinOpKind::Mul if a.terms.is_empty() => Some(b.scaled(a.constant)),
            BinOpKind::Mul if b.terms.is_empty() => Some(a.scaled(b.constant)),
            kind if a.iv() == 0 && b.iv() == 0 => {
                let ty = value.get_type(ctx).disp(ctx).to_string();
                Some(Linear::atom(Atom::Pure { operation: format!("{kind:?} {ty}"), operands: vec![a, b] }))
            }
            _ => None,
        };
    }
    if let Some(call) = Operation::get_op::<CallOp>(def, ctx) {
        if !operands.is_empty() {
            return applied(ctx, stores, (call, def), (value, &operands), &[], iv, budget)
                .or_else(|| opaque_result(stores, value, def));
        }
        // Both roles' loops read the atom, in different threads: equal bounds mean equal
        // counts only if it is the same in every thread (`block_idx_x()`, not `thread_idx_x()`).
        // The thread geometry is known by name; only a helper needs the (costly) thread model.
        let name = call.callee(ctx)?.to_string();
        return match geometry_read(&name) {
            Some(true) => Some(Linear::atom(Atom::Call(uniform_read(&name).unwrap_or(&name).to_string()))),
            Some(false) => None,
            None => match stores.threads.get().eval(value, &FxHashMap::default()) {
                Val::Const(constant) => Some(Linear { constant, ..Linear::default() }),
                Val::Uniform => Some(Linear::atom(Atom::Call(name))),
                _ => None,
            },
        };
    }
    if Operation::get_op::<LoadOp>(def, ctx).is_some() {
        // Memory this function's own variables do not answer: a kernel local written once, or
        // the one value the kernel stored where the pointer leads.
        let beyond_variables = || {
            written_once(ctx, stores, value, operands[0]).or_else(|| kernel_value_read(ctx, stores, value))
        };
        let Some(slot) = local_slot(ctx, operands[0]) else { return beyond_variables() };
        if iv.slot.as_ref() == Some(&slot) {
            return before_the_loop(ctx, stores, value, &slot, iv, budget).or(Some(Linear::atom(Atom::Iv)));
        }
        let Some(stored) = stores.at(&slot) else { return beyond_variables() };
        if let Some(form) = chosen_store(ctx, stores, value, &slot, budget) {
            return Some(form);
        }
        let pair = match stored.as_slice() {
            [only] => return linear(ctx, stores, *only, iv, budget),
            [first, second] => Some((*first, *second)),
            _ => iv.header.and_then(|header| stores.seen_by_loop(&slot, header)),
        };
        return match pair {
            Some((first, second)) if iv.slot.is_none() => {
                iv.slot = Some(slot);
                let read =
                    |value: Value, iv: &mut Induction, budget: &mut u32| match counted_advance(ctx, value) {
                        // `iv + (iv < end) · step`: the loop runs while `iv < end`, so each pass adds
                        // `step` (a `rev()` range's `iv − (start < iv) · step` subtracts it).
                        Some((counter, step, sign)) => {
                            let counter = linear(ctx, stores, counter, iv, budget)?;
                            let step = linear(ctx, stores, step, iv, budget)?;
                            (counter.iv() == 1 && step.iv() == 0).then(|| counter.plus(&step, sign))
                        }
                        None => linear(ctx, stores, value, iv, budget),
                    };
                let a = read(first, iv, budget)?;
                let b = read(second, iv, budget)?;
                let (start, update) = match (a.iv(), b.iv()) {
                    (0, 1) => (a, b),
                    (1, 0) => (b, a),
                    _ => return None,
                };
                let step = update.plus(&Linear::atom(Atom::Iv), -1);
                if step.terms.is_empty() && step.constant == 0 {
                    return None;
                }
                iv.start = Some(start);
                iv.step = Some(step);
                Some(Linear::atom(Atom::Iv))
            }
            _ => None,
        };
    }
    None
}

/// The result `value` of call `call` (operation `def`) with `operands`, as [`Atom::Applied`] (a
/// helper computing from its arguments; `field`, the fields read out of its aggregate result)
/// or [`Atom::Pure`] (a standard-library integer method, whose result is an integer). No
/// argument may hold the induction variable.
fn applied(
    ctx: &Context,
    stores: &Stores,
    (call, def): (CallOp, Ptr<Operation>),
    (value, operands): (Value, &[Value]),
    field: &[u32],
    iv: &mut Induction,
    budget: &mut u32,
) -> Option<Linear> {
    let index = stores.index;
    let function = index.callee_of.get(index.op_number.get(&def)?).copied();
    let name = call.callee(ctx)?.to_string();
    let pure_integer = function.is_none()
        && PURE_INTEGER_PATHS.iter().any(|path| name.starts_with(path))
        && int_width(ctx, value.get_type(ctx)).is_some()
        && operands.iter().all(|operand| int_width(ctx, operand.get_type(ctx)).is_some());
    if function.is_none() && !pure_integer {
        return None;
    }
    // A helper that reads, through the references it is handed, only memory holding one value
    // the kernel computed (`source.end()` reading `self.tiles`) returns the same at every call
    // with equal other arguments, whichever reference it is handed.
    let reads_fixed = |load: Value| fixed_read(ctx, stores, load);
    let computes = function.is_some_and(|function| {
        computes_from_arguments_reading(ctx, index, function, HELPER_DEPTH, &reads_fixed)
    });
    let mut arguments = Vec::with_capacity(operands.len());
    for (position, operand) in operands.iter().enumerate() {
        // A `&self` the helper never reads (a method of a unit struct) takes no part, nor does
        // one it reads only fixed values through.
        if let Some(function) = function
            && pointer_type_of(ctx, operand.get_type(ctx)).is_some()
            && (computes || parameter_unread(ctx, index, function, position))
        {
            arguments.push(Linear::default());
            continue;
        }
        let argument = linear(ctx, stores, *operand, iv, budget)?;
        if argument.iv() != 0 {
            return None;
        }
        arguments.push(argument);
    }
    match function {
        Some(function) => {
            computes.then(|| Linear::atom(Atom::Applied { function, arguments, field: field.to_vec() }))
        }
        None => field.is_empty().then(|| Linear::atom(Atom::Pure { operation: name, operands: arguments })),
    }
}

/// `value`, the result of operation `def` that the forms cannot read further, as
/// [`Atom::Result`]: computed on no cycle of its function, and alike in every thread.
fn opaque_result(stores: &Stores, value: Value, def: Ptr<Operation>) -> Option<Linear> {
    let index = stores.index;
    let block = index.block_of_op(def)?;
    if index.cycles().on_cycle(block) {
        return None;
    }
    let operation = *index.op_number.get(&def)?;
    match stores.threads.get().eval(value, &FxHashMap::default()) {
        Val::Const(constant) => Some(Linear::constant(constant)),
        Val::Uniform => {
            Some(Linear::atom(Atom::Result { operation, in_helper: index.block_function[block] != 0 }))
        }
        _ => None,
    }
}

/// Whether `load` (a `mir.load`'s result) reads one fixed value in every thread: the walk
/// through memory and calls finds one value stored there, which the kernel computes on no cycle
/// and the thread model shows alike in every thread (a role struct's `tiles` field), or a read
/// of the block's or the grid's coordinates (`first: block_idx_x()`, which the walk follows into
/// the device wrapper). A helper's value is not fixed: each call may compute another.
fn fixed_read(ctx: &Context, stores: &Stores, load: Value) -> bool {
    only_value_read(ctx, stores.index, stores.threads, load).is_some_and(|only| {
        let coordinates = only.defining_op().is_some_and(|def| reads_block_coordinates(ctx, def));
        let kernel_value = defined_once(stores.index, only) == Some(0)
            && matches!(stores.threads.get().eval(only, &FxHashMap::default()), Val::Const(_) | Val::Uniform);
        coordinates || kernel_value
    })
}

/// The function that defines `value` on no cycle of its own (one value per call of it, so a
/// value read after a loop is not one a thread may have left at another pass), or whose
/// parameter it is.
fn defined_once(index: &ScopeIndex, value: Value) -> Option<usize> {
    let block = match value.defining_entity() {
        DefiningEntity::Op(def) => index.block_of_op(def)?,
        DefiningEntity::Block(block) => *index.block_number.get(&block)?,
    };
    (!index.cycles().on_cycle(block)).then_some(index.block_function[block])
}
