//! The bits an integer of an address may have set, for an OR (or XOR) that packs fields into an
//! address (`stage | row << 5 | lane`): where the two sides can share no set bit, the OR is
//! their sum, and the address has the form the sum has. A field's bits come from its
//! definition (a constant, a shift or mask of a field, the stage index below the ring's stage
//! count) or, for anything else, from the largest value its form or interval can take.

use pliron::{
    operation::Operation,
    r#type::Typed,
    value::{DefiningEntity, Value},
};

use super::Evaluator;
use crate::ir::mir::{
    arith::{BinOp, BinOpKind, CastKind, CastOp},
    int_width,
};
use crate::verify::facts::{Fact, is_tracked};

/// Every bit at or below the highest set bit of `max` (a non-negative bound).
fn bits_up_to(max: i64) -> Option<u64> {
    let max = u64::try_from(max).ok()?;
    Some(if max == 0 { 0 } else { u64::MAX >> max.leading_zeros() })
}

impl Evaluator<'_, '_> {
    /// A mask holding every bit `value` may have set, in any thread and for any stage index.
    pub(super) fn possible_bits(&self, value: Value, depth: u32) -> Option<u64> {
        if depth == 0 {
            return None;
        }
        if is_tracked(self.ctx, value)
            && let Some(Fact::Index(state)) = self.facts.get(value)
        {
            return bits_up_to(self.stages(state)?.checked_sub(1)?);
        }
        let width = int_width(self.ctx, value.get_type(self.ctx))?;
        let within_width = |bits: u64| if width >= 64 { bits } else { bits & ((1u64 << width) - 1) };
        if let DefiningEntity::Op(def) = value.defining_entity() {
            let operands: Vec<Value> = def.deref(self.ctx).operands().collect();
            if let Some(cast) = Operation::get_op::<CastOp>(def, self.ctx) {
                if cast.kind(self.ctx) == Some(CastKind::IntToInt) {
                    // A sign extension copies the sign bit upward: only a source without its
                    // top bit set widens to the same bits.
                    let source = self.possible_bits(operands[0], depth - 1)?;
                    let from = int_width(self.ctx, operands[0].get_type(self.ctx))?;
                    if from < 64 && source >> (from - 1) != 0 {
                        return None;
                    }
                    return Some(within_width(source));
                }
                return None;
            }
            if let Some(binop) = Operation::get_op::<BinOp>(def, self.ctx)
                && let Some(bits) = self.binop_bits(binop.kind(self.ctx)?, &operands, depth)
            {
                return Some(within_width(bits));
            }
        }
        // Anything else: every bit up to the largest value it takes.
        let form = self.eval(value, depth - 1)?;
        if form.window != 0 || form.lo < 0 {
            return None;
        }
        if form.is_constant() && form.lo == form.hi {
            return Some(within_width(form.lo as u64));
        }
        let top = match form.index {
            Some((state, coefficient)) if coefficient >= 0 => {
                form.hi.checked_add(coefficient.checked_mul(self.stages(state)?.checked_sub(1)?)?)?
            }
            Some(_) => return None,
            None => form.hi,
        };
        bits_up_to(top).map(within_width)
    }

    fn binop_bits(&self, kind: BinOpKind, operands: &[Value], depth: u32) -> Option<u64> {
        let bits = |operand: Value| self.possible_bits(operand, depth - 1);
        let constant = |operand: Value| {
            let form = self.eval(operand, depth - 1)?;
            (form.is_constant() && form.lo == form.hi && form.lo >= 0).then_some(form.lo)
        };
        match kind {
            BinOpKind::BitOr | BinOpKind::BitXor => Some(bits(operands[0])? | bits(operands[1])?),
            // A mask keeps at most the bits either side may have.
            BinOpKind::BitAnd => match (bits(operands[0]), bits(operands[1])) {
                (Some(a), Some(b)) => Some(a & b),
                (Some(one), None) | (None, Some(one)) => Some(one),
                (None, None) => None,
            },
            BinOpKind::Shl => {
                let (field, shift) = (bits(operands[0])?, u32::try_from(constant(operands[1])?).ok()?);
                (shift < 64 && field.leading_zeros() >= shift).then(|| field << shift)
            }
            BinOpKind::Shr => Some(bits(operands[0])? >> u32::try_from(constant(operands[1])?).ok()?.min(63)),
            BinOpKind::Add => {
                let (a, b) = (bits(operands[0])?, bits(operands[1])?);
                // No carry where no bit is set on both sides; otherwise up to the sum's top bit.
                if a & b == 0 { Some(a | b) } else { bits_up_to(i64::try_from(a.checked_add(b)?).ok()?) }
            }
            _ => None,
        }
    }
}
