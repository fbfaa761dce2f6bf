//! Where an access of the race check points: the byte offset from the dynamic shared base of a
//! pointer, per thread and per chain of calls ([`shared_offset`]), and whether a pointer points
//! outside shared memory altogether ([`points_elsewhere`]).

use rustc_hash::FxHashMap;

use pliron::{
    context::Ptr,
    operation::Operation,
    r#type::Typed,
    value::{DefiningEntity, Value},
};

use super::{Binding, FLOW_BUDGET};
use crate::ir::{
    mir::{
        arith::{AddrSpaceCastOp, CastKind, CastOp},
        control::CallOp,
        memory::{AllocaOp, FieldAddrOp, IndexAddrOp, LoadOp},
        pointer_type_of,
    },
    semantic::memory::DynamicSharedBaseOp,
    types::AddressSpace,
};
use crate::verify::{
    dataflow::{function_returns, returned_by},
    flow::Flow,
    layout::{field_at_struct_start, pointee_bytes},
    memory::slice_from_parts,
    progression::{Assumed, Progression, Progressions},
    thread_model::{ThreadModel, Val},
};

/// The byte offset from the dynamic shared base of the pointer `value`, per thread.
pub(super) fn shared_offset(
    flow: &Flow,
    model: &ThreadModel,
    binding: &Binding,
    assumed: &Assumed,
    value: Value,
    depth: u32,
) -> Option<Progression> {
    let ctx = flow.ctx;
    if depth == 0 {
        return None;
    }
    let def = match value.defining_entity() {
        DefiningEntity::Op(def) => def,
        DefiningEntity::Block(_) => {
            return binding.shared.get(&value).cloned().and_then(Progression::known);
        }
    };
    if Operation::get_op::<DynamicSharedBaseOp>(def, ctx).is_some() {
        return Progression::known(Val::Const(0));
    }
    let operands: Vec<Value> = def.deref(ctx).operands().collect();
    if Operation::get_op::<IndexAddrOp>(def, ctx).is_some() {
        let element = pointee_bytes(ctx, operands[0].get_type(ctx))?;
        let base = shared_offset(flow, model, binding, assumed, operands[0], depth - 1)?;
        let progressions = Progressions {
            ctx,
            index: flow.index,
            model,
            assumed,
            locals: flow.locals,
            params: &binding.integers,
            bound: &FxHashMap::default(),
            relevant: None,
        };
        let offset = progressions.of(operands[1])?.scaled(element)?;
        return base.plus(offset);
    }
    // A field as large as its struct (`(*quad).0[j]`) starts where the struct does.
    let whole_field = field_at_struct_start(ctx, def);
    let pointer_cast = Operation::get_op::<AddrSpaceCastOp>(def, ctx).is_some()
        || Operation::get_op::<CastOp>(def, ctx)
            .is_some_and(|cast| cast.kind(ctx) == Some(CastKind::PtrToPtr));
    if pointer_cast || whole_field {
        return shared_offset(flow, model, binding, assumed, operands[0], depth - 1);
    }
    // A slice made over shared memory (`slice::from_raw_parts(tile, n)`) starts where its
    // pointer does: its elements are addressed from it (`rows[k]`).
    if let Some((pointer, _)) = slice_from_parts(ctx, def) {
        return shared_offset(flow, model, binding, assumed, pointer, depth - 1);
    }
    if Operation::get_op::<CallOp>(def, ctx).is_some() {
        return returned_offset(flow, model, binding, assumed, (def, value), depth - 1);
    }
    if Operation::get_op::<LoadOp>(def, ctx).is_some() {
        // A helper's pointer parameter kept in its own local: the binding says what this chain
        // passed (the walk through memory would follow it to every caller's argument). Another
        // function's parameter (captured by a closure) is not this binding's.
        let index = flow.index;
        let function_of_op = |op| index.op_number.get(&op).map(|n| index.block_function[index.op_block[*n]]);
        if let Some([(parameter, _)]) = flow.locals.stores_into(ctx, operands[0]).as_deref()
            && let DefiningEntity::Block(block) = parameter.defining_entity()
            && index.block_number.get(&block).map(|b| index.block_function[*b]) == function_of_op(def)
        {
            return shared_offset(flow, model, binding, assumed, *parameter, depth - 1);
        }
        let mut budget = FLOW_BUDGET;
        let flow = Flow { leaf: Some(value.get_type(ctx)), ..*flow };
        let stored = match flow.pointees(operands[0], &[], &mut budget)?.as_slice() {
            [only] => *only,
            _ => return None,
        };
        return shared_offset(&flow, model, binding, assumed, stored, depth - 1);
    }
    None
}

/// The offset of the pointer a helper of the scope returns (`region::<f32>(SCRATCH_AT)`, the
/// window's byte `SCRATCH_AT`): its one returned value, read with the helper's parameters bound
/// to what `call` passes under `binding` (integers per thread, pointers into shared memory by
/// their offset). A helper called with different arguments elsewhere is read per call here.
fn returned_offset(
    flow: &Flow,
    model: &ThreadModel,
    binding: &Binding,
    assumed: &Assumed,
    (call, result): (Ptr<Operation>, Value),
    depth: u32,
) -> Option<Progression> {
    let (ctx, index) = (flow.ctx, flow.index);
    let bound = index.call_binding(ctx, call)?;
    let only = match function_returns(index, bound.callee).as_slice() {
        [only] => *only,
        _ => return None,
    };
    let [returned] = returned_by(ctx, index, &[only], call, result)?[..] else { return None };
    let mut inner =
        Binding { integers: FxHashMap::default(), shared: FxHashMap::default(), ..binding.clone() };
    inner.elsewhere.clear();
    for (parameter, argument) in bound.parameters.iter().zip(&bound.arguments) {
        if pointer_type_of(ctx, parameter.get_type(ctx)).is_some() {
            let offset = shared_offset(flow, model, binding, assumed, *argument, depth)
                .filter(Progression::per_thread);
            if let Some(offset) = offset {
                inner.shared.insert(*parameter, offset.base);
            }
        } else {
            inner.integers.insert(*parameter, model.eval(*argument, &binding.integers));
        }
    }
    shared_offset(flow, model, &inner, assumed, returned, depth)
}

/// Whether the pointer `value` points outside shared memory under `binding`: into a local, into
/// what a kernel parameter points to (the host's memory: no kernel argument points into a
/// block's shared memory), or into what a parameter the binding knows points elsewhere, through
/// offsets, fields, pointer casts and locals holding only such pointers. Anything else (a pointer
/// returned by a call, read from memory the pass does not follow) may point anywhere.
pub(super) fn points_elsewhere(flow: &Flow, binding: &Binding, value: Value, depth: u32) -> bool {
    let (ctx, index) = (flow.ctx, flow.index);
    if depth == 0 {
        return false;
    }
    if pointer_type_of(ctx, value.get_type(ctx)).is_some_and(|ptr| ptr.space() == AddressSpace::Shared) {
        return false;
    }
    match value.defining_entity() {
        DefiningEntity::Block(block) => {
            let kernel_parameter = index
                .block_number
                .get(&block)
                .is_some_and(|b| index.block_function[*b] == 0 && index.entry_block(0) == Some(*b));
            kernel_parameter || binding.elsewhere.contains(&value)
        }
        DefiningEntity::Op(def) => {
            if Operation::get_op::<AllocaOp>(def, ctx).is_some() {
                return true;
            }
            let operand = || def.deref(ctx).get_operand(0);
            if Operation::get_op::<LoadOp>(def, ctx).is_some() {
                // A pointer kept in a local: every pointer stored there points elsewhere.
                let mut budget = FLOW_BUDGET;
                let flow = Flow { leaf: Some(value.get_type(ctx)), ..*flow };
                return flow.pointees(operand(), &[], &mut budget).is_some_and(|stored| {
                    !stored.is_empty()
                        && stored.iter().all(|v| points_elsewhere(&flow, binding, *v, depth - 1))
                });
            }
            let derived = Operation::get_op::<IndexAddrOp>(def, ctx).is_some()
                || Operation::get_op::<FieldAddrOp>(def, ctx).is_some()
                || Operation::get_op::<CastOp>(def, ctx)
                    .is_some_and(|cast| cast.kind(ctx) == Some(CastKind::PtrToPtr));
            derived && points_elsewhere(flow, binding, operand(), depth - 1)
        }
    }
}
