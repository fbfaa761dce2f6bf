//! Branch conditions the typestate follows paths by: which conditions are one guard (the same
//! comparison of stable values, wherever it is tested) and which are tested more than once.

use std::collections::{HashMap, HashSet};

use pliron::{
    context::Context,
    operation::Operation,
    value::{DefiningEntity, Value},
};

use super::{index::ScopeIndex, memory::constant_value};
use crate::ir::mir::{arith::CmpOp, control::CondBrOp, memory::LoadOp};

/// What one side of a comparison is, for telling two comparisons apart: a constant, or a value
/// computed once per call of the function (a parameter, or a result of an operation outside
/// every loop), which every comparison of it sees alike.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Side {
    Constant(i64),
    Stable(Value),
}

/// Blocks searched to show a block is outside every loop.
const MAX_CYCLE_SEARCH: usize = 256;

/// Maps each branch condition of the blocks that is a comparison of stable sides to the first
/// condition comparing the same sides the same way: `tid == 0` tested before the producer loop
/// and again around the tail is one guard, so a path keeps its outcome from one to the other.
pub(crate) fn canonical_conditions(
    ctx: &Context,
    index: &ScopeIndex,
    blocks: std::ops::Range<usize>,
) -> HashMap<Value, Value> {
    let in_cycle =
        |b: usize| index.path_exists(&index.succs[b], b, MAX_CYCLE_SEARCH, |_| true) != Some(false);
    let side = |value: Value| -> Option<Side> {
        if let Some(constant) = constant_value(ctx, value, 0) {
            return Some(Side::Constant(constant));
        }
        let block = match value.defining_entity() {
            DefiningEntity::Op(def) => {
                if Operation::get_op::<LoadOp>(def, ctx).is_some() {
                    return None;
                }
                index.block_of_op(ctx, def)?
            }
            DefiningEntity::Block(block) => *index.block_number.get(&block)?,
        };
        (!in_cycle(block)).then_some(Side::Stable(value))
    };
    let mut first: HashMap<(String, Side, Side), Value> = HashMap::new();
    let mut canon = HashMap::new();
    for b in blocks {
        let Some(n) = index.ops_of_block[b].clone().last() else { continue };
        let last = index.ops[n];
        if Operation::get_op::<CondBrOp>(last, ctx).is_none() {
            continue;
        }
        let condition = last.deref(ctx).get_operand(0);
        let Some(def) = condition.defining_op() else { continue };
        let Some(cmp) = Operation::get_op::<CmpOp>(def, ctx) else { continue };
        let Some(predicate) = cmp.get_attr_cmp_predicate(ctx).map(|p| format!("{:?}", *p)) else { continue };
        let (lhs, rhs) = {
            let operation = def.deref(ctx);
            (operation.get_operand(0), operation.get_operand(1))
        };
        let (Some(lhs), Some(rhs)) = (side(lhs), side(rhs)) else { continue };
        let representative = *first.entry((predicate, lhs, rhs)).or_insert(condition);
        canon.insert(condition, representative);
    }
    canon
}

/// The conditions that more than one `mir.cond_br` of the blocks tests.
pub(crate) fn correlated_guards(
    ctx: &Context,
    index: &ScopeIndex,
    blocks: std::ops::Range<usize>,
    canon: &HashMap<Value, Value>,
) -> HashSet<Value> {
    let mut tested = HashSet::new();
    let mut guards = HashSet::new();
    for b in blocks {
        let Some(n) = index.ops_of_block[b].clone().last() else { continue };
        let last = index.ops[n];
        if Operation::get_op::<CondBrOp>(last, ctx).is_some() {
            let condition = last.deref(ctx).get_operand(0);
            let condition = canon.get(&condition).copied().unwrap_or(condition);
            if !tested.insert(condition) {
                guards.insert(condition);
            }
        }
    }
    guards
}
