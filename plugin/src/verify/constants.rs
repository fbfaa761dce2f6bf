//! Constants as the rules read them: a `mir.const_int`, arithmetic and integer casts of
//! constants, and `core`'s bit counts of one. The one evaluator of constants the rules share;
//! what a value read through memory or calls holds is [`super::flow::Flow::constant`]'s.

use pliron::{
    context::{Context, Ptr},
    operation::Operation,
    r#type::Typed,
    value::Value,
};

use crate::ir::mir::{
    arith::{BinOp, BinOpKind, CastKind, CastOp},
    constant::ConstIntOp,
    control::CallOp,
    int_width,
};
/// Whether `index & mask` is `index` for every stage index below `stages` (`index & (STAGES -
/// 1)` on a ring of a power of two): the mask keeps every bit any of them sets.
pub(crate) fn mask_keeps_every_index(mask: i64, stages: i64) -> bool {
    (0..stages.max(1)).all(|index| index & mask == index)
}

/// The value of a `mir.const_int`, or of arithmetic on constants up to `depth` operations
/// deep (`2 * TILE_BYTES` and `TILE_BYTES / 2` reach MIR as operations on two constants).
pub(crate) fn constant_value(ctx: &Context, value: Value, depth: u32) -> Option<i64> {
    evaluate_constant(ctx, value, depth, &mut |_| None)
}

/// [`constant_value`], with `leaf` answering for each value that is neither a constant nor
/// arithmetic, a cast or a bit count (a read of memory, a parameter, a call's result): the
/// constant it holds, if it is one (`rows * cols` of two fields read through `&self`).
pub(crate) fn evaluate_constant(
    ctx: &Context,
    value: Value,
    depth: u32,
    leaf: &mut dyn FnMut(Value) -> Option<i64>,
) -> Option<i64> {
    let Some(def) = value.defining_op() else { return leaf(value) };
    if let Some(constant) = Operation::get_op::<ConstIntOp>(def, ctx) {
        return Some(constant.get_attr_int_value(ctx)?.value().to_u64() as i64);
    }
    if depth == 0 {
        return None;
    }
    if let Some(cast) = Operation::get_op::<CastOp>(def, ctx) {
        return constant_cast(ctx, def, cast, depth, leaf);
    }
    if let Some(call) = Operation::get_op::<CallOp>(def, ctx) {
        return constant_bit_count(ctx, def, call, depth, leaf).or_else(|| leaf(value));
    }
    let Some(binop) = Operation::get_op::<BinOp>(def, ctx) else { return leaf(value) };
    let (lhs, rhs) = {
        let operation = def.deref(ctx);
        (operation.get_operand(0), operation.get_operand(1))
    };
    let a = evaluate_constant(ctx, lhs, depth - 1, leaf)?;
    let b = evaluate_constant(ctx, rhs, depth - 1, leaf)?;
    match binop.kind(ctx)? {
        BinOpKind::Add => a.checked_add(b),
        BinOpKind::Sub => a.checked_sub(b),
        BinOpKind::Mul => a.checked_mul(b),
        BinOpKind::Div => a.checked_div(b),
        BinOpKind::Shl => u32::try_from(b).ok().and_then(|b| a.checked_shl(b)),
        BinOpKind::Shr => u32::try_from(b).ok().and_then(|b| a.checked_shr(b)),
        _ => None,
    }
}

/// A call of one of `core`'s bit counts ([`core_bit_count`]) on a constant.
fn constant_bit_count(
    ctx: &Context,
    def: Ptr<Operation>,
    call: CallOp,
    depth: u32,
    leaf: &mut dyn FnMut(Value) -> Option<i64>,
) -> Option<i64> {
    let callee = call.callee(ctx)?;
    let operand = {
        let operation = def.deref(ctx);
        (operation.get_num_operands() == 1).then(|| operation.get_operand(0))?
    };
    // Named first: evaluating the operand of any other call would be wasted.
    core_bit_count(callee.as_ref(), 0)?;
    core_bit_count(callee.as_ref(), evaluate_constant(ctx, operand, depth - 1, leaf)?)
}

/// `core`'s bit counts of an unsigned integer (`MASK.count_ones()`, `u32::trailing_zeros`) of
/// `value`, at the receiver's width, where `callee` names one: the functions' own definitions,
/// which the scope does not import (they lower to intrinsics). Named by their full path in
/// `core`, so a function of the kernel's own with the same method name is not taken for one.
pub(crate) fn core_bit_count(callee: &str, value: i64) -> Option<i64> {
    let (receiver, method) = callee.strip_prefix("core__num__impl_")?.split_once("___")?;
    let width = match receiver {
        "u8" => 8,
        "u16" => 16,
        "u32" => 32,
        "u64" => 64,
        _ => return None,
    };
    let bits = if width == 64 { value as u64 } else { value as u64 & ((1u64 << width) - 1) };
    let counted = match method {
        "count_ones" => bits.count_ones(),
        "count_zeros" => width - bits.count_ones(),
        "trailing_zeros" => bits.trailing_zeros().min(width),
        "leading_zeros" => bits.leading_zeros() - (64 - width),
        _ => return None,
    };
    Some(i64::from(counted))
}

/// An integer cast of a constant (`BLOCK_THREADS as usize`), where the value is the same on
/// both sides: non-negative and below the sign bit of the narrower width, so that neither
/// truncation nor sign extension changes it.
fn constant_cast(
    ctx: &Context,
    def: Ptr<Operation>,
    cast: CastOp,
    depth: u32,
    leaf: &mut dyn FnMut(Value) -> Option<i64>,
) -> Option<i64> {
    if cast.kind(ctx) != Some(CastKind::IntToInt) {
        return None;
    }
    let (source, result) = {
        let operation = def.deref(ctx);
        (operation.get_operand(0), operation.get_result(0))
    };
    let from = int_width(ctx, source.get_type(ctx))?;
    let to = int_width(ctx, result.get_type(ctx))?;
    let value = evaluate_constant(ctx, source, depth - 1, leaf)?;
    let bits = from.min(to).min(64);
    (bits > 1 && (0..1i64 << (bits - 1).min(62)).contains(&value)).then_some(value)
}

#[cfg(test)]
mod tests {
    #[test]
    fn cores_bit_counts_are_computed_at_the_receivers_width() {
        use super::core_bit_count;
        assert_eq!(
            core_bit_count("core__num__impl_u64___count_ones", 0xFFFF_FFFF_0000_0000u64 as i64),
            Some(32)
        );
        assert_eq!(core_bit_count("core__num__impl_u32___leading_zeros", 1), Some(31));
        assert_eq!(core_bit_count("core__num__impl_u64___leading_zeros", 1), Some(63));
        assert_eq!(core_bit_count("core__num__impl_u8___count_zeros", 0b1010), Some(6));
        // Zero has as many trailing zeros as the receiver has bits.
        assert_eq!(core_bit_count("core__num__impl_u16___trailing_zeros", 0), Some(16));
        // A kernel's own `count_ones`, a signed receiver, another method: not one of them.
        assert_eq!(core_bit_count("kernels__mask__count_ones", 3), None);
        assert_eq!(core_bit_count("core__num__impl_i32___count_ones", 3), None);
        assert_eq!(core_bit_count("core__num__impl_u32___pow", 3), None);
    }
}
