//! What arithmetic does to facts: the fact of a result computed from operands
//! ([`combine`]), and whether a narrowing cast may have lost a fact the facts followed up to a
//! widening ([`narrows_widened`]).

use pliron::{
    context::{Context, Ptr},
    operation::Operation,
};

use crate::ir::mir::{
    arith::{BinOp, CastKind, CastOp},
    constant::ConstIntOp,
};
use crate::verify::facts::{Fact, is_tracked};

/// Steps looked through from a narrowing cast down to a widened 32-bit value.
const WIDENED_DEPTH: u32 = 8;

/// Whether the cast `op` narrows a 64-bit integer (untracked) computed by arithmetic from a
/// widened value of 32 bits or less (tracked): a value the facts may have followed up to the
/// widening and lost after it.
pub(crate) fn narrows_widened(ctx: &Context, op: Ptr<Operation>) -> bool {
    let operand = op.deref(ctx).get_operand(0);
    if is_tracked(ctx, operand) {
        return false;
    }
    let mut pending = vec![(operand, WIDENED_DEPTH)];
    while let Some((value, depth)) = pending.pop() {
        let def = value.defining_op();
        let constant = def.is_some_and(|def| Operation::is_op::<ConstIntOp>(def, ctx));
        if is_tracked(ctx, value) && !constant {
            return true;
        }
        let Some(def) = def else { continue };
        let arithmetic = Operation::is_op::<BinOp>(def, ctx)
            || Operation::get_op::<CastOp>(def, ctx)
                .is_some_and(|cast| cast.kind(ctx) == Some(CastKind::IntToInt));
        if arithmetic && depth > 0 {
            pending.extend(def.deref(ctx).operands().map(|operand| (operand, depth - 1)));
        }
    }
    false
}

/// Arithmetic on facts: anything about one state becomes `Derived` of it; without a state, a
/// value computed from an `Unknown` one is `Unknown`.
pub(super) fn combine(facts: impl Iterator<Item = Option<Fact>>) -> Option<Fact> {
    let mut state = None;
    let mut contexts = false;
    let mut unknown = false;
    for fact in facts {
        match fact? {
            Fact::Conflict => return Some(Fact::Conflict),
            Fact::Contexts => contexts = true,
            Fact::Unrelated => {}
            Fact::Unknown => unknown = true,
            other => {
                let s = other.state().expect("state facts have a state");
                match state {
                    None => state = Some(s),
                    Some(existing) if existing == s => {}
                    Some(_) => return Some(Fact::Conflict),
                }
            }
        }
    }
    if contexts {
        return Some(Fact::Contexts);
    }
    Some(match state {
        Some(state) => Fact::Derived(state),
        None if unknown => Fact::Unknown,
        None => Fact::Unrelated,
    })
}
