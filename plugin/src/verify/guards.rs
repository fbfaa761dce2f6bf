//! Branch conditions the typestate follows paths by: which conditions are one guard (the same
//! comparison of stable values, wherever it is tested) and which are tested more than once.

use rustc_hash::{FxHashMap, FxHashSet};

use pliron::{
    context::Context,
    operation::Operation,
    value::{DefiningEntity, Value},
};

use super::{index::ScopeIndex, memory::constant_value};
use crate::ir::mir::{
    arith::{CmpOp, CmpPredicate},
    control::CondBrOp,
    memory::LoadOp,
};

/// What one side of a comparison is, for telling two comparisons apart: a constant, or a value
/// computed once per call of the function (a parameter, or a result of an operation outside
/// every loop), which every comparison of it sees alike.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Side {
    Constant(i64),
    Stable(Value),
}

/// The branch conditions of one function's blocks, as the typestate follows paths by them.
pub(crate) struct BranchGuards {
    /// Each condition that compares stable sides, mapped to the first condition comparing the
    /// same sides the same way: `tid == 0` tested before the producer loop and again around the
    /// tail is one guard, so a path keeps its outcome from one to the other.
    pub(crate) canon: FxHashMap<Value, Value>,
    /// The conditions (by their representative) that more than one `mir.cond_br` tests.
    pub(crate) correlated: FxHashSet<Value>,
}

/// One pass over the `mir.cond_br`s of `blocks`.
pub(crate) fn branch_guards(
    ctx: &Context,
    index: &ScopeIndex,
    blocks: std::ops::Range<usize>,
) -> BranchGuards {
    let mut side = |value: Value| -> Option<Side> {
        if let Some(constant) = constant_value(ctx, value, 0) {
            return Some(Side::Constant(constant));
        }
        let block = match value.defining_entity() {
            DefiningEntity::Op(def) => {
                if Operation::get_op::<LoadOp>(def, ctx).is_some() {
                    return None;
                }
                index.block_of_op(def)?
            }
            DefiningEntity::Block(block) => *index.block_number.get(&block)?,
        };
        (!index.cycles().on_cycle(block)).then_some(Side::Stable(value))
    };
    let mut first: FxHashMap<(CmpPredicate, Side, Side), Value> = FxHashMap::default();
    let mut canon = FxHashMap::default();
    let mut tested = FxHashSet::default();
    let mut correlated = FxHashSet::default();
    for b in blocks {
        let Some(n) = index.ops_of_block[b].clone().last() else { continue };
        let last = index.ops[n];
        if Operation::get_op::<CondBrOp>(last, ctx).is_none() {
            continue;
        }
        let condition = last.deref(ctx).get_operand(0);
        let representative = match comparison_of_stable_sides(ctx, condition, &mut side) {
            Some(key) => {
                let representative = *first.entry(key).or_insert(condition);
                canon.insert(condition, representative);
                representative
            }
            None => condition,
        };
        if !tested.insert(representative) {
            correlated.insert(representative);
        }
    }
    BranchGuards { canon, correlated }
}

/// `condition` as (predicate, left side, right side), when it is a comparison of two stable
/// sides.
fn comparison_of_stable_sides(
    ctx: &Context,
    condition: Value,
    side: &mut impl FnMut(Value) -> Option<Side>,
) -> Option<(CmpPredicate, Side, Side)> {
    let def = condition.defining_op()?;
    let predicate = *Operation::get_op::<CmpOp>(def, ctx)?.get_attr_cmp_predicate(ctx)?;
    let (lhs, rhs) = {
        let operation = def.deref(ctx);
        (operation.get_operand(0), operation.get_operand(1))
    };
    Some((predicate, side(lhs)?, side(rhs)?))
}
