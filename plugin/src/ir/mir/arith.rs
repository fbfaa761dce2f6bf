//! Binary operations, comparisons, casts, and the explicit address-space adaptation.

use pliron::{
    builtin::{
        op_interfaces::{NOpdsInterface, OneResultInterface},
        types::IntegerType,
    },
    common_traits::Verify,
    context::Context,
    derive::{pliron_attr, pliron_op},
    op::Op,
    result::Result,
    r#type::Typed,
    verify_err,
};

use super::{int_width, pointer_type_of};

/// What a `mir.binop` computes. Division, remainder and shifts follow the operands' signedness.
#[pliron_attr(name = "mir.binop_kind", format, verifier = "succ")]
#[derive(PartialEq, Eq, Clone, Copy, Debug, Hash)]
pub enum BinOpKind {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

/// `r = mir.binop Add a, b : builtin.integer ui32`: both operands and the result have one type,
/// except for shifts, whose right operand may be any integer type.
#[pliron_op(
    name = "mir.binop",
    format = "attr($binop_kind, $BinOpKind) ` ` $0 `, ` $1 ` : ` type($0)",
    interfaces = [NOpdsInterface<2>, OneResultInterface],
    attributes = (binop_kind: BinOpKind)
)]
pub struct BinOp;

impl BinOp {
    /// The operation's kind.
    pub fn kind(&self, ctx: &Context) -> Option<BinOpKind> {
        self.get_attr_binop_kind(ctx).map(|kind| *kind)
    }
}

impl Verify for BinOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        let Some(kind) = self.kind(ctx) else {
            return verify_err!(self.loc(ctx), "mir.binop has no kind attribute");
        };
        let op = self.get_operation().deref(ctx);
        let (lhs, rhs) = (op.get_operand(0).get_type(ctx), op.get_operand(1).get_type(ctx));
        let result = op.get_result(0).get_type(ctx);
        if lhs != result {
            return verify_err!(
                self.loc(ctx),
                "mir.binop: the left operand's type differs from the result type"
            );
        }
        let is_shift = matches!(kind, BinOpKind::Shl | BinOpKind::Shr);
        if is_shift {
            if !rhs.deref(ctx).is::<IntegerType>() {
                return verify_err!(self.loc(ctx), "mir.binop: a shift amount must be an integer");
            }
        } else if rhs != result {
            return verify_err!(
                self.loc(ctx),
                "mir.binop: the right operand's type differs from the result type"
            );
        }
        Ok(())
    }
}

/// The predicate of a `mir.cmp`; ordering follows the operands' signedness.
#[pliron_attr(name = "mir.cmp_predicate", format, verifier = "succ")]
#[derive(PartialEq, Eq, Clone, Copy, Debug, Hash)]
pub enum CmpPredicate {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// `r = mir.cmp Lt a, b : builtin.integer ui1`: operands of one type, a `bool` result.
#[pliron_op(
    name = "mir.cmp",
    format = "attr($cmp_predicate, $CmpPredicate) ` ` $0 `, ` $1 ` : ` type($0)",
    interfaces = [NOpdsInterface<2>, OneResultInterface],
    attributes = (cmp_predicate: CmpPredicate)
)]
pub struct CmpOp;

impl Verify for CmpOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        if self.get_attr_cmp_predicate(ctx).is_none() {
            return verify_err!(self.loc(ctx), "mir.cmp has no predicate attribute");
        }
        let op = self.get_operation().deref(ctx);
        if op.get_operand(0).get_type(ctx) != op.get_operand(1).get_type(ctx) {
            return verify_err!(self.loc(ctx), "mir.cmp: the operands have different types");
        }
        let result = op.get_result(0).get_type(ctx);
        if int_width(ctx, result) != Some(1) {
            return verify_err!(self.loc(ctx), "mir.cmp: the result must be a 1-bit integer (bool)");
        }
        Ok(())
    }
}

/// What a `mir.cast` converts, as MIR's cast kinds.
#[pliron_attr(name = "mir.cast_kind", format, verifier = "succ")]
#[derive(PartialEq, Eq, Clone, Copy, Debug, Hash)]
pub enum CastKind {
    /// Integer to integer (truncation or extension by the source's signedness).
    IntToInt,
    IntToFloat,
    FloatToInt,
    FloatToFloat,
    /// Pointer to pointer in the same address space (pointee or mutability change).
    PtrToPtr,
    PtrToInt,
    IntToPtr,
    /// Any other reinterpretation of the same bits.
    Transmute,
}

/// `r = mir.cast IntToInt a : builtin.integer ui64`.
///
/// A `PtrToPtr` cast keeps the address space: changing it is the job of
/// [`AddrSpaceCastOp`], which the verifier checks.
#[pliron_op(
    name = "mir.cast",
    format = "attr($cast_kind, $CastKind) ` ` $0 ` : ` type($0)",
    interfaces = [NOpdsInterface<1>, OneResultInterface],
    attributes = (cast_kind: CastKind)
)]
pub struct CastOp;

impl CastOp {
    /// The cast's kind.
    pub fn kind(&self, ctx: &Context) -> Option<CastKind> {
        self.get_attr_cast_kind(ctx).map(|kind| *kind)
    }
}

impl Verify for CastOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        let Some(kind) = self.kind(ctx) else {
            return verify_err!(self.loc(ctx), "mir.cast has no kind attribute");
        };
        let op = self.get_operation().deref(ctx);
        let from = op.get_operand(0).get_type(ctx);
        let to = op.get_result(0).get_type(ctx);
        let (from_ptr, to_ptr) = (pointer_type_of(ctx, from), pointer_type_of(ctx, to));
        let from_int = from.deref(ctx).is::<IntegerType>();
        let to_int = to.deref(ctx).is::<IntegerType>();
        let ok = match kind {
            CastKind::IntToInt => from_int && to_int,
            CastKind::IntToFloat => from_int && !to_int && to_ptr.is_none(),
            CastKind::FloatToInt => !from_int && from_ptr.is_none() && to_int,
            CastKind::FloatToFloat => !from_int && from_ptr.is_none() && !to_int && to_ptr.is_none(),
            CastKind::PtrToPtr => match (&from_ptr, &to_ptr) {
                (Some(from), Some(to)) => from.space() == to.space(),
                _ => false,
            },
            CastKind::PtrToInt => from_ptr.is_some() && to_int,
            CastKind::IntToPtr => from_int && to_ptr.is_some(),
            CastKind::Transmute => true,
        };
        if !ok {
            return verify_err!(
                self.loc(ctx),
                "mir.cast {:?}: the operand and result types do not fit this cast kind (a pointer cast \
                 that changes the address space must be mir.addrspace_cast)",
                kind
            );
        }
        Ok(())
    }
}

/// `g = mir.addrspace_cast p : mir.ptr <Generic, Const, Raw, builtin.fp32>`: the explicit
/// adaptation of a pointer into another address space, emitted where a shared-memory pointer
/// is passed to a generic pointer parameter.
///
/// Locally, both sides must be pointers. Whether pointee, mutability and pointer kind agree is
/// a rule of the semantic verifier (`pointer-adaptation`), so that a mismatch is reported with
/// the call it serves.
#[pliron_op(
    name = "mir.addrspace_cast",
    format = "$0 ` : ` type($0)",
    interfaces = [NOpdsInterface<1>, OneResultInterface]
)]
pub struct AddrSpaceCastOp;

impl Verify for AddrSpaceCastOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        let op = self.get_operation().deref(ctx);
        let from = pointer_type_of(ctx, op.get_operand(0).get_type(ctx));
        let to = pointer_type_of(ctx, op.get_result(0).get_type(ctx));
        if from.is_none() || to.is_none() {
            return verify_err!(self.loc(ctx), "mir.addrspace_cast: operand and result must both be mir.ptr");
        }
        Ok(())
    }
}
