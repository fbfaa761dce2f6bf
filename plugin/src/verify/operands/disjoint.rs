//! Whether a bitwise OR (or XOR) in a copy destination is an addition: `RING | index << 10`
//! adds the ring's base to the scaled index when, for every stage index the state can hold, the
//! two sides share no set bit. Then the destination is the sum the rule already reads; where a
//! side is not known for some index, or the sides overlap, the combination stays "masked or
//! combined bitwise" (another stage).

use pliron::{
    operation::Operation,
    r#type::Typed,
    value::{DefiningEntity, Value},
};

use super::{Frame, Reads};
use crate::ir::mir::{
    arith::{BinOp, CastKind, CastOp},
    memory::LoadOp,
};
use crate::verify::facts::{Fact, StateId, is_tracked};
use crate::verify::memory::constant_value;
use crate::verify::thread_values::{IntType, apply_int, wrap_to};

/// Definitions one side's value is looked through, per stage index.
const DEFINITIONS: u32 = 32;

/// Whether `lhs` and `rhs` share no set bit for any stage index below `stages`.
pub(super) fn disjoint_for_every_index(
    reads: &Reads,
    (state, stages): (StateId, u32),
    (lhs, rhs): (Value, Value),
    frame: Option<&Frame>,
) -> bool {
    (0..i64::from(stages.max(1))).all(|stage| {
        let at = |side| value_at_index(reads, state, side, stage, &mut { DEFINITIONS }, frame);
        matches!((at(lhs), at(rhs)), (Some(a), Some(b)) if a & b == 0)
    })
}

/// `value` when the state's stage index is `stage`, as the bits of its integer type (wrapped
/// to its width): constants, the index itself and integer arithmetic of them; `None` for
/// anything else.
fn value_at_index(
    reads: &Reads,
    state: StateId,
    value: Value,
    stage: i64,
    budget: &mut u32,
    frame: Option<&Frame>,
) -> Option<i64> {
    let Reads { ctx, facts, locals, .. } = *reads;
    if *budget == 0 {
        return None;
    }
    *budget -= 1;
    if let Some(frame) = frame
        && let Some(argument) = frame.call.argument_for(value)
    {
        return value_at_index(reads, state, argument, stage, budget, frame.caller);
    }
    if is_tracked(ctx, value) && facts.get(value) == Some(Fact::Index(state)) {
        return Some(stage);
    }
    if let Some(constant) = constant_value(ctx, value, 4) {
        return Some(constant);
    }
    let DefiningEntity::Op(def) = value.defining_entity() else { return None };
    if let Some(cast) = Operation::get_op::<CastOp>(def, ctx) {
        if cast.kind(ctx) != Some(CastKind::IntToInt) {
            return None;
        }
        // Widening reads the source's sign; narrowing keeps the low bits.
        let source = def.deref(ctx).get_operand(0);
        let from = IntType::of(ctx, source.get_type(ctx))?;
        let to = IntType::of(ctx, value.get_type(ctx))?;
        let v = value_at_index(reads, state, source, stage, budget, frame)?;
        return Some(wrap_to(to.width, from.value_of(v)));
    }
    if Operation::get_op::<LoadOp>(def, ctx).is_some() {
        let stored = locals.only_store_into(ctx, def.deref(ctx).get_operand(0))?;
        return value_at_index(reads, state, stored, stage, budget, frame);
    }
    let binop = Operation::get_op::<BinOp>(def, ctx)?;
    let (lhs, rhs) = {
        let operation = def.deref(ctx);
        (operation.get_operand(0), operation.get_operand(1))
    };
    let a = value_at_index(reads, state, lhs, stage, budget, frame)?;
    let b = value_at_index(reads, state, rhs, stage, budget, frame)?;
    // At the result's width and signedness, as the program computes it (wrapping included).
    apply_int(binop.kind(ctx)?, IntType::of(ctx, value.get_type(ctx))?, a, b)
}
