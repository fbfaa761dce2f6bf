//! Integer and float constants.

use pliron::{
    builtin::{
        attributes::{FPDoubleAttr, IntegerAttr},
        op_interfaces::{NOpdsInterface, OneResultInterface},
        type_interfaces::FloatTypeInterface,
    },
    common_traits::Verify,
    context::Context,
    derive::pliron_op,
    op::Op,
    result::Result,
    r#type::{TypeHandle, Typed, type_impls},
    verify_err,
};

/// An integer constant: `c = mir.const_int <builtin.integer <3: ui32>> : builtin.integer ui32`.
/// The attribute's type and the result type must be the same integer type.
#[pliron_op(
    name = "mir.const_int",
    format = "attr($int_value, $IntegerAttr) ` : ` type($0)",
    interfaces = [NOpdsInterface<0>, OneResultInterface],
    attributes = (int_value: IntegerAttr)
)]
pub struct ConstIntOp;

impl Verify for ConstIntOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        let Some(value) = self.get_attr_int_value(ctx) else {
            return verify_err!(self.loc(ctx), "mir.const_int has no value attribute");
        };
        let attr_ty: TypeHandle = value.get_type().into();
        if attr_ty != self.get_result(ctx).get_type(ctx) {
            return verify_err!(
                self.loc(ctx),
                "mir.const_int: the value's type differs from the result type"
            );
        }
        Ok(())
    }
}

/// A float constant, held as a double: `c = mir.const_float <1.5> : builtin.fp32`.
/// The result must be a float type.
#[pliron_op(
    name = "mir.const_float",
    format = "attr($float_value, $FPDoubleAttr) ` : ` type($0)",
    interfaces = [NOpdsInterface<0>, OneResultInterface],
    attributes = (float_value: FPDoubleAttr)
)]
pub struct ConstFloatOp;

impl Verify for ConstFloatOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        if self.get_attr_float_value(ctx).is_none() {
            return verify_err!(self.loc(ctx), "mir.const_float has no value attribute");
        }
        let ty = self.get_result(ctx).get_type(ctx);
        if !type_impls::<dyn FloatTypeInterface>(&*ty.deref(ctx)) {
            return verify_err!(self.loc(ctx), "mir.const_float: the result type is not a float type");
        }
        Ok(())
    }
}
