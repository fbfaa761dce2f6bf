//! Places and memory: allocas, loads, stores, field and index addresses.

use pliron::{
    builtin::{
        op_interfaces::{NOpdsInterface, NResultsInterface, OneResultInterface},
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

use super::pointer_type_of;
use crate::ir::types::Mutability;

/// The parts (`mir.field_addr` indices) of a local the import gives a counted iterator: a
/// `for` loop's `a..b`, `(a..b).step_by(s)` or `(a..b).rev()` of an unsigned integer, imported
/// as the library's arithmetic (`plugin-driver`'s `import::counted`). `next` reads `start < end`,
/// hands out `start` and adds `step` (1 for a range) when it did; a `rev()` range's `next`
/// subtracts 1 from `end` when it did and hands out the new `end`.
pub mod counted {
    /// The next value the iterator hands out.
    pub const START: u32 = 0;
    /// The end, exclusive.
    pub const END: u32 = 1;
    /// The step of a `step_by` iterator.
    pub const STEP: u32 = 2;
    /// The discriminant of an item `next` returned (0: `None`, 1: `Some`).
    pub const ITEM_DISCRIMINANT: u32 = (1 << 31) | (0xFF << 8) | 0xFF;
    /// The payload of an item: the `start` (a `rev()` range's new `end`) that `next` handed out.
    /// Rust reads it only as `(item as Some).0`, so only where `start < end` held when it was
    /// handed out.
    pub const ITEM_PAYLOAD: u32 = (1 << 31) | (1 << 8);
}

/// A Rust local's storage: `p = mir.alloca : mir.ptr <Generic, Mut, Ref, T>`.
/// The result is a mutable pointer; its pointee is the local's type.
#[pliron_op(
    name = "mir.alloca",
    format = "` : ` type($0)",
    interfaces = [NOpdsInterface<0>, OneResultInterface]
)]
pub struct AllocaOp;

impl Verify for AllocaOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        let ty = self.get_result(ctx).get_type(ctx);
        match pointer_type_of(ctx, ty) {
            Some(ptr) if ptr.mutability() == Mutability::Mut => Ok(()),
            _ => verify_err!(self.loc(ctx), "mir.alloca: the result must be a mutable mir.ptr"),
        }
    }
}

/// `v = mir.load p : T`: reads through a pointer whose pointee is `T`.
#[pliron_op(
    name = "mir.load",
    format = "$0 ` : ` type($0)",
    interfaces = [NOpdsInterface<1>, OneResultInterface]
)]
pub struct LoadOp;

impl Verify for LoadOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        let op = self.get_operation().deref(ctx);
        let Some(ptr) = pointer_type_of(ctx, op.get_operand(0).get_type(ctx)) else {
            return verify_err!(self.loc(ctx), "mir.load: the address is not a mir.ptr");
        };
        if ptr.pointee() != op.get_result(0).get_type(ctx) {
            return verify_err!(self.loc(ctx), "mir.load: the result type differs from the pointee type");
        }
        Ok(())
    }
}

/// `mir.store v -> p`: writes `v` through a mutable pointer whose pointee is `v`'s type.
#[pliron_op(
    name = "mir.store",
    format = "$0 ` -> ` $1",
    interfaces = [NOpdsInterface<2>, NResultsInterface<0>]
)]
pub struct StoreOp;

impl Verify for StoreOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        let op = self.get_operation().deref(ctx);
        let Some(ptr) = pointer_type_of(ctx, op.get_operand(1).get_type(ctx)) else {
            return verify_err!(self.loc(ctx), "mir.store: the address is not a mir.ptr");
        };
        if ptr.mutability() != Mutability::Mut {
            return verify_err!(self.loc(ctx), "mir.store: writes through a const pointer");
        }
        if ptr.pointee() != op.get_operand(0).get_type(ctx) {
            return verify_err!(self.loc(ctx), "mir.store: the value's type differs from the pointee type");
        }
        Ok(())
    }
}

/// The index of a field in a `mir.field_addr`.
#[pliron_attr(name = "mir.field", format = "$0", verifier = "succ")]
#[derive(PartialEq, Eq, Clone, Copy, Debug, Hash)]
pub struct FieldAttr(pub u32);

/// `f = mir.field_addr p [1] : mir.ptr <…, FieldType>`: the address of field `1` of the
/// aggregate `p` points at. The result stays in `p`'s address space, with `p`'s mutability.
#[pliron_op(
    name = "mir.field_addr",
    format = "$0 ` [` attr($field_index, $FieldAttr) `] : ` type($0)",
    interfaces = [NOpdsInterface<1>, OneResultInterface],
    attributes = (field_index: FieldAttr)
)]
pub struct FieldAddrOp;

impl FieldAddrOp {
    /// The field's index.
    pub fn field(&self, ctx: &Context) -> Option<u32> {
        self.get_attr_field_index(ctx).map(|field| field.0)
    }
}

impl Verify for FieldAddrOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        if self.field(ctx).is_none() {
            return verify_err!(self.loc(ctx), "mir.field_addr has no field attribute");
        }
        let op = self.get_operation().deref(ctx);
        let base = pointer_type_of(ctx, op.get_operand(0).get_type(ctx));
        let result = pointer_type_of(ctx, op.get_result(0).get_type(ctx));
        match (base, result) {
            (Some(base), Some(result))
                if base.space() == result.space() && base.mutability() == result.mutability() =>
            {
                Ok(())
            }
            _ => verify_err!(
                self.loc(ctx),
                "mir.field_addr: base and result must be mir.ptr of one address space and mutability"
            ),
        }
    }
}

/// `q = mir.index_addr p [i] : mir.ptr <…>`: pointer arithmetic (`p.add(i)`, `wrapping_add`,
/// indexing). The result has `p`'s type; `i` is an integer.
#[pliron_op(
    name = "mir.index_addr",
    format = "$0 ` [` $1 `] : ` type($0)",
    interfaces = [NOpdsInterface<2>, OneResultInterface]
)]
pub struct IndexAddrOp;

impl Verify for IndexAddrOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        let op = self.get_operation().deref(ctx);
        let base = op.get_operand(0).get_type(ctx);
        if pointer_type_of(ctx, base).is_none() || base != op.get_result(0).get_type(ctx) {
            return verify_err!(
                self.loc(ctx),
                "mir.index_addr: base and result must be the same mir.ptr type"
            );
        }
        if !op.get_operand(1).get_type(ctx).deref(ctx).is::<IntegerType>() {
            return verify_err!(self.loc(ctx), "mir.index_addr: the index must be an integer");
        }
        Ok(())
    }
}
