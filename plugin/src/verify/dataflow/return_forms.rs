//! What a helper's results are made of, so that each call's results get the facts of that
//! call's own arguments. Facts are kept per value, so a helper called with two states (the
//! producer's `stage_byte(&state)` and the consumers') sees `Contexts` in its parameters, and
//! before this every call's result was that `Contexts`: each copy whose destination came from
//! such a helper lost its state (blind round 30 had sixteen correct kernels so refused).
//!
//! A result has a *form* when, at every `return` of its function, it is arithmetic (binary
//! operations, comparisons, integer casts) over constants, the function's parameters, locals
//! stored once from such values (a parameter spilled to its slot), and the results of helpers
//! that have a form themselves. Its fact at a call is then what the same arithmetic makes of
//! the call's arguments' facts: `Derived` of their one state (or `Unrelated`), or, where the
//! result is one parameter handed back unchanged, that argument's fact itself. Anything else
//! (a load through a pointer, a state advanced in the helper, a call of a helper with no form)
//! leaves the result to the joined facts of the helper's returns, as before.
//!
//! Cost: one walk over each function's returned values, callee-first, before the fixpoint.

use std::collections::BTreeSet;

use pliron::{context::Context, operation::Operation, value::Value};

use super::arithmetic::narrows_widened;
use crate::ir::mir::{
    arith::{BinOp, CastKind, CastOp, CmpOp},
    constant::ConstIntOp,
    control::CallOp,
    memory::{AllocaOp, LoadOp, StoreOp},
};
use crate::verify::{call_order::callee_first, index::ScopeIndex};

/// Definitions a result's walk may look through.
const MAX_DEPTH: u32 = 32;

/// The parameters a result is computed from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Form {
    /// The parameters' positions, in order.
    pub params: Vec<usize>,
    /// The result is the one parameter in `params` itself, at every return (casts aside).
    pub identity: bool,
}

/// Per function, per result position, its form, if it has one.
pub(crate) struct ReturnForms(Vec<Vec<Option<Form>>>);

impl ReturnForms {
    pub(crate) fn new(ctx: &Context, index: &ScopeIndex, returns_of: &[Vec<usize>]) -> ReturnForms {
        let mut forms = ReturnForms(vec![Vec::new(); index.functions.len()]);
        let (order, _) = callee_first(index);
        for f in order {
            let Some(parameters) = index.parameters(ctx, f) else { continue };
            let Some(results) = returns_of[f].first().map(|r| index.ops[*r].deref(ctx).get_num_operands())
            else {
                continue;
            };
            let walk = Walk { ctx, index, forms: &forms, parameters: &parameters };
            let of_result = |k: usize| -> Option<Form> {
                let mut params = BTreeSet::new();
                let mut identities = BTreeSet::new();
                for r in &returns_of[f] {
                    let returned = index.ops[*r].deref(ctx);
                    if returned.get_num_operands() != results {
                        return None;
                    }
                    let (found, identity) = walk.value(returned.get_operand(k), MAX_DEPTH)?;
                    params.extend(found);
                    identities.insert(identity);
                }
                let identity = match identities.into_iter().collect::<Vec<_>>()[..] {
                    [Some(parameter)] => params.len() == 1 && params.contains(&parameter),
                    _ => false,
                };
                Some(Form { params: params.into_iter().collect(), identity })
            };
            let found: Vec<Option<Form>> = (0..results).map(of_result).collect();
            forms.0[f] = found;
        }
        forms
    }

    /// The form of result `k` of function `f`, if it has one.
    pub(crate) fn of(&self, f: usize, k: usize) -> Option<&Form> {
        self.0.get(f)?.get(k)?.as_ref()
    }
}

/// One function's walk from a returned value to what it is made of.
struct Walk<'a> {
    ctx: &'a Context,
    index: &'a ScopeIndex,
    forms: &'a ReturnForms,
    parameters: &'a [Value],
}

impl Walk<'_> {
    /// The parameters `value` is computed from, and the one it is unchanged, if it is one;
    /// `None` where it is not arithmetic over the parts the module doc names.
    fn value(&self, value: Value, depth: u32) -> Option<(BTreeSet<usize>, Option<usize>)> {
        let ctx = self.ctx;
        if let Some(position) = self.parameters.iter().position(|parameter| *parameter == value) {
            return Some((BTreeSet::from([position]), Some(position)));
        }
        let depth = depth.checked_sub(1)?;
        let def = value.defining_op()?;
        let operands: Vec<Value> = def.deref(ctx).operands().collect();
        if Operation::get_op::<ConstIntOp>(def, ctx).is_some() {
            return Some((BTreeSet::new(), None));
        }
        if Operation::get_op::<BinOp>(def, ctx).is_some() || Operation::get_op::<CmpOp>(def, ctx).is_some() {
            let mut params = BTreeSet::new();
            for operand in operands {
                params.extend(self.value(operand, depth)?.0);
            }
            return Some((params, None));
        }
        if let Some(cast) = Operation::get_op::<CastOp>(def, ctx) {
            // As the fixpoint's cast: a narrowing of a widened value is not followed.
            return (cast.kind(ctx) == Some(CastKind::IntToInt) && !narrows_widened(ctx, def))
                .then(|| self.value(operands[0], depth))
                .flatten();
        }
        if Operation::get_op::<LoadOp>(def, ctx).is_some() {
            return self.value(stored_once(ctx, operands[0])?, depth);
        }
        if Operation::get_op::<CallOp>(def, ctx).is_some() {
            let n = self.index.op_number.get(&def)?;
            let callee = *self.index.callee_of.get(n)?;
            let k = def.deref(ctx).results().position(|result| result == value)?;
            let form = self.forms.of(callee, k)?;
            let mut params = BTreeSet::new();
            let mut identity = None;
            for position in &form.params {
                let (found, same) = self.value(*operands.get(*position)?, depth)?;
                params.extend(found);
                identity = same.filter(|_| form.identity);
            }
            return Some((params, identity));
        }
        None
    }
}

/// The value stored into the local `slot` (a whole `mir.alloca`) by its one store, where every
/// other use of the slot is a load: nothing else can have written it.
fn stored_once(ctx: &Context, slot: Value) -> Option<Value> {
    Operation::get_op::<AllocaOp>(slot.defining_op()?, ctx)?;
    let mut stored = None;
    for slot_use in slot.uses(ctx) {
        let user = slot_use.user_op();
        let operation = user.deref(ctx);
        if Operation::get_op::<LoadOp>(user, ctx).is_some() {
            continue;
        }
        let stores_into = Operation::get_op::<StoreOp>(user, ctx).is_some()
            && operation.get_operand(1) == slot
            && operation.get_operand(0) != slot;
        if !stores_into || stored.is_some() {
            return None;
        }
        stored = Some(operation.get_operand(0));
    }
    stored
}
