//! Which helpers compute a value from their arguments alone: called with the same arguments in
//! every thread, such a helper returns the same value in every thread.
//!
//! A helper qualifies when everything it reads is its own locals (loads and stores through its
//! own `mir.alloca` places), it calls only helpers that qualify or functions outside the scope
//! handed no pointer (`usize::is_multiple_of`, `u32::min`: functions of their operands), and it
//! holds no inline assembly, no semantic operation (a barrier, a pipeline operation) and no read
//! of the thread geometry that differs between threads (a call outside the scope with no
//! operand, such as `core::arch::nvptx::_thread_idx_x`, is a read of a special register, not a
//! function of its arguments). Reads of the block's and the grid's coordinates
//! (`_block_idx_x`, `_grid_dim_x`) are the same in every thread of a block, which is all the
//! rules ask of such a helper: its threads are one block's.

use pliron::{
    context::{Context, Ptr},
    operation::Operation,
    r#type::Typed,
    value::Value,
};

use super::{
    accounting::{is_failed_assertion, is_local_value, is_register_value},
    index::ScopeIndex,
};
use crate::ir::mir::{
    arith::{AddrSpaceCastOp, CastOp},
    control::{CallOp, CondBrOp, GotoOp, ReturnOp, SwitchOp, UnreachableOp},
    memory::{AllocaOp, FieldAddrOp, IndexAddrOp, LoadOp, StoreOp},
    opaque::OpaqueOp,
    pointer_type_of,
};

/// Whether function `f` of the scope computes its result from its arguments alone (module doc);
/// helpers are followed `depth` calls deep.
pub(crate) fn computes_from_arguments(ctx: &Context, index: &ScopeIndex, f: usize, depth: u32) -> bool {
    computes_from_arguments_reading(ctx, index, f, depth, &|_| false)
}

/// [`computes_from_arguments`], where a load of memory other than the helper's own locals
/// also qualifies when `reads_alike` says every thread reads one value there (a field of a
/// struct the kernel built, read through `&self`).
pub(crate) fn computes_from_arguments_reading(
    ctx: &Context,
    index: &ScopeIndex,
    f: usize,
    depth: u32,
    reads_alike: &dyn Fn(Value) -> bool,
) -> bool {
    if depth == 0 {
        return false;
    }
    index.blocks_of[f].clone().flat_map(|b| index.ops_of_block[b].clone()).all(|n| {
        let op = index.ops[n];
        if let Some(callee) = index.callee_of.get(&n) {
            return computes_from_arguments_reading(ctx, index, *callee, depth - 1, reads_alike);
        }
        if Operation::get_op::<CallOp>(op, ctx).is_some() {
            let operands: Vec<Value> = op.deref(ctx).operands().collect();
            if operands.is_empty() {
                return reads_block_coordinates(ctx, op);
            }
            return operands.iter().all(|operand| pointer_type_of(ctx, operand.get_type(ctx)).is_none());
        }
        if Operation::get_op::<LoadOp>(op, ctx).is_some() {
            return is_own_local(ctx, op.deref(ctx).get_operand(0))
                || reads_alike(op.deref(ctx).get_result(0));
        }
        if Operation::get_op::<StoreOp>(op, ctx).is_some() {
            return is_own_local(ctx, op.deref(ctx).get_operand(1));
        }
        if let Some(opaque) = Operation::get_op::<OpaqueOp>(op, ctx) {
            let what = opaque.what(ctx);
            // A failed assertion's branch traps: it returns no value to the caller.
            return what.is_some_and(|what| {
                is_local_value(&what) || is_register_value(&what) || is_failed_assertion(&what)
            });
        }
        let name = Operation::get_opid(op, ctx).to_string();
        let control = Operation::get_op::<CondBrOp>(op, ctx).is_some()
            || Operation::get_op::<SwitchOp>(op, ctx).is_some()
            || Operation::get_op::<GotoOp>(op, ctx).is_some()
            || Operation::get_op::<ReturnOp>(op, ctx).is_some()
            || Operation::get_op::<UnreachableOp>(op, ctx).is_some();
        let address = Operation::get_op::<AllocaOp>(op, ctx).is_some()
            || Operation::get_op::<FieldAddrOp>(op, ctx).is_some()
            || Operation::get_op::<IndexAddrOp>(op, ctx).is_some()
            || Operation::get_op::<AddrSpaceCastOp>(op, ctx).is_some()
            || Operation::get_op::<CastOp>(op, ctx).is_some();
        control || address || name.starts_with("mir.const") || name == "mir.binop" || name == "mir.cmp"
    })
}

/// Whether parameter `position` of function `f` is never read: its only use stores it into a
/// local of `f` that nothing loads (`&self` of a method on a unit struct). What `f` computes
/// does not depend on such an argument.
pub(crate) fn parameter_unread(ctx: &Context, index: &ScopeIndex, f: usize, position: usize) -> bool {
    let Some(entry) = index.entry_block(f) else { return false };
    let Some(parameter) = index.blocks[entry].deref(ctx).arguments().nth(position) else { return false };
    parameter.uses(ctx).into_iter().all(|parameter_use| {
        let user = parameter_use.user_op();
        let operation = user.deref(ctx);
        let kept = Operation::get_op::<StoreOp>(user, ctx).is_some()
            && operation.get_operand(0) == parameter
            && operation
                .get_operand(1)
                .defining_op()
                .is_some_and(|def| Operation::get_op::<AllocaOp>(def, ctx).is_some());
        kept && operation.get_operand(1).uses(ctx).into_iter().all(|slot_use| {
            Operation::get_op::<StoreOp>(slot_use.user_op(), ctx).is_some()
                && slot_use.user_op().deref(ctx).get_operand(1) == operation.get_operand(1)
        })
    })
}

/// Argument-less reads of the thread geometry that every thread of a block sees alike.
const UNIFORM_READS: [&str; 6] =
    ["block_idx_x", "block_idx_y", "block_idx_z", "grid_dim_x", "grid_dim_y", "grid_dim_z"];

/// Whether an argument-less call of `callee` reads a value the same in every thread of a block
/// (the block's and the grid's coordinates) or one that differs between threads (the thread's
/// index, its lane), known from the name alone; `None` for any other callee (a helper: ask the
/// thread model). Lets a rule settle the thread geometry without building the model.
/// The coordinate an argument-less call of `callee` reads when it is one every thread of a
/// block sees alike, named the same whichever wrapper reads it (`device::grid_dim_x` and the
/// `core::arch::nvptx` intrinsic it calls are one value).
pub(crate) fn uniform_read(callee: &str) -> Option<&'static str> {
    UNIFORM_READS.iter().copied().find(|read| callee.ends_with(read))
}

/// Whether `op` is an argument-less call reading the block's or the grid's coordinates
/// (`block_idx_x()`, `grid_dim_x()`, or the intrinsic a device wrapper calls): the same value in
/// every thread of the block, at every call.
pub(crate) fn reads_block_coordinates(ctx: &Context, op: Ptr<Operation>) -> bool {
    Operation::get_op::<CallOp>(op, ctx).is_some_and(|call| {
        op.deref(ctx).get_num_operands() == 0
            && call.callee(ctx).is_some_and(|name| geometry_read(name.as_ref()) == Some(true))
    })
}

pub(crate) fn geometry_read(callee: &str) -> Option<bool> {
    if uniform_read(callee).is_some() {
        Some(true)
    } else if callee.ends_with("thread_idx_x") || callee.contains("lane") {
        Some(false)
    } else {
        None
    }
}

/// Whether `address` is a place of the function's own locals: a `mir.alloca`, or a field or
/// element of one.
fn is_own_local(ctx: &Context, address: Value) -> bool {
    let mut current = address;
    for _ in 0..16 {
        let Some(def) = current.defining_op() else { return false };
        if Operation::get_op::<AllocaOp>(def, ctx).is_some() {
            return true;
        }
        if Operation::get_op::<FieldAddrOp>(def, ctx).is_none()
            && Operation::get_op::<IndexAddrOp>(def, ctx).is_none()
        {
            return false;
        }
        current = def.deref(ctx).get_operand(0);
    }
    false
}
