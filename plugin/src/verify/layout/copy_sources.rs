//! The global side of a bulk copy's alignment (rule `shared-layout`, with the shared side): the
//! source address must be a multiple of 16 bytes, like the destination and the size. A kernel's
//! pointer parameters are taken as 16-byte aligned (the launch contract's, as its block size is
//! trusted); the source is read as its offset from one, modulo 16, through element offsets,
//! casts, sums and products, locals stored once and helpers' parameters and returns. A source
//! whose remainder is known and not zero (`input.add(2 + t * 256)` of `f32`: 8 bytes past a
//! multiple of 16) is rejected; one the remainders cannot read is not judged (a hole the module
//! doc of `layout` names).

use super::*;
use crate::ir::mir::{arith::CmpOp, memory::IndexAddrOp};
use crate::verify::memory::constant_value;

/// A bulk copy's addresses must be multiples of this many bytes.
const ALIGN: i64 = BULK_COPY_ALIGN;
/// Definitions looked through for one source.
const RESIDUE_DEPTH: u32 = 24;

/// Rejects every bulk copy of `copies` whose global source is shown not 16-byte aligned.
pub(super) fn check_copy_sources(
    reporter: &mut Reporter,
    evaluator: &Evaluator<'_, '_>,
    copies: &[Ptr<Operation>],
) {
    let ctx = evaluator.ctx;
    for op in copies {
        let source = op.deref(ctx).get_operand(1);
        let Some(remainder) = residue(evaluator, source, RESIDUE_DEPTH) else { continue };
        if remainder != 0 {
            reporter.reject(
                Rule::SharedLayout,
                *op,
                format!(
                    "this bulk copy reads global memory {remainder} bytes past a multiple of {ALIGN} from a kernel \
                     parameter (taken as {ALIGN}-byte aligned): a bulk copy's global source must be {ALIGN}-byte \
                     aligned like its shared address (a misaligned copy faults)"
                ),
                vec![],
            );
        }
    }
}

/// `value` modulo [`ALIGN`], for an integer or an address counted from a kernel parameter.
fn residue(evaluator: &Evaluator<'_, '_>, value: Value, depth: u32) -> Option<i64> {
    let (ctx, index) = (evaluator.ctx, evaluator.index);
    if depth == 0 {
        return None;
    }
    let def = match value.defining_entity() {
        DefiningEntity::Block(block) => {
            // A kernel's pointer parameter: the launch contract's alignment.
            if index.block_number.get(&block).is_some_and(|b| index.block_function[*b] == 0)
                && pointer_type_of(ctx, value.get_type(ctx)).is_some()
            {
                return Some(0);
            }
            let arguments = index.call_arguments(ctx, value)?;
            return agreed_residue(evaluator, &arguments, depth);
        }
        DefiningEntity::Op(def) => def,
    };
    if let Some(constant) = Operation::get_op::<ConstIntOp>(def, ctx) {
        let value = constant.get_attr_int_value(ctx)?.value().to_u64() as i64;
        return Some(value.rem_euclid(ALIGN));
    }
    let operands: Vec<Value> = def.deref(ctx).operands().collect();
    if Operation::get_op::<IndexAddrOp>(def, ctx).is_some() {
        let element = pointee_bytes(ctx, operands[0].get_type(ctx))?;
        let base = residue(evaluator, operands[0], depth - 1)?;
        if element % ALIGN == 0 {
            return Some(base);
        }
        let offset = residue(evaluator, operands[1], depth - 1)?;
        return Some((base + offset * element).rem_euclid(ALIGN));
    }
    if Operation::get_op::<AddrSpaceCastOp>(def, ctx).is_some()
        || Operation::get_op::<CastOp>(def, ctx)
            .is_some_and(|cast| matches!(cast.kind(ctx), Some(CastKind::IntToInt | CastKind::PtrToPtr)))
    {
        return residue(evaluator, operands[0], depth - 1);
    }
    if Operation::get_op::<CmpOp>(def, ctx).is_some() {
        return None;
    }
    if let Some(binop) = Operation::get_op::<BinOp>(def, ctx) {
        let a = residue(evaluator, operands[0], depth - 1);
        let b = residue(evaluator, operands[1], depth - 1);
        return match binop.kind(ctx)? {
            BinOpKind::Add => Some((a? + b?).rem_euclid(ALIGN)),
            BinOpKind::Sub => Some((a? - b?).rem_euclid(ALIGN)),
            // A product with a multiple of 16 is one, whatever the other factor.
            BinOpKind::Mul if a == Some(0) || b == Some(0) => Some(0),
            BinOpKind::Mul => Some((a? * b?).rem_euclid(ALIGN)),
            BinOpKind::Shl => {
                let by = constant_value(ctx, operands[1], 4)?;
                if by >= 4 { Some(0) } else { Some((a? << by).rem_euclid(ALIGN)) }
            }
            _ => None,
        };
    }
    if Operation::get_op::<LoadOp>(def, ctx).is_some() {
        let stored = evaluator.locals.only_store_into(ctx, operands[0])?;
        return residue(evaluator, stored, depth - 1);
    }
    if Operation::get_op::<CallOp>(def, ctx).is_some() {
        let returned = evaluator.returned(def, value)?;
        return agreed_residue(evaluator, &returned, depth);
    }
    None
}

/// The one remainder all of `values` have, if each is known and they agree.
fn agreed_residue(evaluator: &Evaluator<'_, '_>, values: &[Value], depth: u32) -> Option<i64> {
    let mut agreed = None;
    for value in values {
        let remainder = residue(evaluator, *value, depth - 1)?;
        if agreed.is_some_and(|seen| seen != remainder) {
            return None;
        }
        agreed = Some(remainder);
    }
    agreed
}
