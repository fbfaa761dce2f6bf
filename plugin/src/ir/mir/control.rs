//! Calls and terminators: `mir.call`, `mir.goto`, `mir.cond_br`, `mir.switch`, `mir.return`.
//!
//! As in MIR, only `mir.goto` passes values to its target's block arguments; the conditional
//! terminators branch to blocks without arguments.

use pliron::{
    builtin::{
        attributes::{IdentifierAttr, TypeAttr},
        op_interfaces::{IsTerminatorInterface, NOpdsInterface, NResultsInterface},
        type_interfaces::FunctionTypeInterface,
        types::{FunctionType, IntegerType},
    },
    common_traits::Verify,
    context::Context,
    derive::{pliron_attr, pliron_op},
    identifier::Identifier,
    op::Op,
    result::Result,
    r#type::{TypeHandle, Typed},
    verify_err,
};

use super::int_width;

/// `r = mir.call @callee (a, b) callee_type builtin.function <(…) -> (…)> : (…) -> (…)`.
///
/// `callee` is the symbol of the called function (a `builtin.func` of the module, or a function
/// outside it). `callee_type` is the callee's *declared* signature, so that argument types can be
/// compared with parameter types even for a callee the module does not contain (a helper in
/// another crate). The operands are the arguments; their count and the result types must match
/// `callee_type`. Argument and parameter types may differ: that is for the verifier's
/// `pointer-adaptation` rule to judge, with a message that names both.
#[pliron_op(
    name = "mir.call",
    format = "`@` attr($callee, $IdentifierAttr) ` (` operands(CharSpace(`,`)) `) callee_type ` attr($callee_type, $TypeAttr) ` : ` typesig",
    interfaces = [],
    attributes = (callee: IdentifierAttr, callee_type: TypeAttr)
)]
pub struct CallOp;

impl CallOp {
    /// The called symbol.
    pub fn callee(&self, ctx: &Context) -> Option<Identifier> {
        self.get_attr_callee(ctx).map(|callee| callee.clone().into())
    }

    /// The callee's declared parameter and result types.
    pub fn callee_signature(&self, ctx: &Context) -> Option<(Vec<TypeHandle>, Vec<TypeHandle>)> {
        let ty = self.get_attr_callee_type(ctx)?.get_type(ctx);
        let ty = ty.deref(ctx);
        let func = ty.downcast_ref::<FunctionType>()?;
        Some((func.arg_types(), func.res_types()))
    }
}

impl Verify for CallOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        if self.callee(ctx).is_none() {
            return verify_err!(self.loc(ctx), "mir.call has no callee attribute");
        }
        let Some((params, results)) = self.callee_signature(ctx) else {
            return verify_err!(self.loc(ctx), "mir.call: callee_type is missing or not a builtin.function");
        };
        let op = self.get_operation().deref(ctx);
        if op.get_num_operands() != params.len() {
            return verify_err!(
                self.loc(ctx),
                "mir.call: {} arguments for a callee of {} parameters",
                op.get_num_operands(),
                params.len()
            );
        }
        let actual: Vec<TypeHandle> = op.results().map(|r| r.get_type(ctx)).collect();
        if actual != results {
            return verify_err!(
                self.loc(ctx),
                "mir.call: the result types differ from callee_type's results"
            );
        }
        Ok(())
    }
}

/// `mir.goto ^bb(a, b)`: jumps, passing every operand to the target's block arguments.
#[pliron_op(
    name = "mir.goto",
    format = "succ($0) `(` operands(CharSpace(`,`)) `)`",
    interfaces = [IsTerminatorInterface, NResultsInterface<0>]
)]
pub struct GotoOp;

impl Verify for GotoOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        let op = self.get_operation().deref(ctx);
        if op.get_num_successors() != 1 {
            return verify_err!(self.loc(ctx), "mir.goto must have exactly one target");
        }
        let target = op.get_successor(0);
        let params: Vec<TypeHandle> = target.deref(ctx).arguments().map(|a| a.get_type(ctx)).collect();
        let args: Vec<TypeHandle> = op.operands().map(|a| a.get_type(ctx)).collect();
        if params != args {
            return verify_err!(
                self.loc(ctx),
                "mir.goto: passes {} values to a block of {} arguments, or their types differ",
                args.len(),
                params.len()
            );
        }
        Ok(())
    }
}

/// `mir.cond_br c ^then ^else`: branches on a `bool`.
#[pliron_op(
    name = "mir.cond_br",
    format = "$0 ` ` succ($0) ` ` succ($1)",
    interfaces = [IsTerminatorInterface, NResultsInterface<0>, NOpdsInterface<1>]
)]
pub struct CondBrOp;

impl Verify for CondBrOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        let op = self.get_operation().deref(ctx);
        let ty = op.get_operand(0).get_type(ctx);
        if int_width(ctx, ty) != Some(1) {
            return verify_err!(self.loc(ctx), "mir.cond_br: the condition must be a 1-bit integer (bool)");
        }
        if op.get_num_successors() != 2 {
            return verify_err!(self.loc(ctx), "mir.cond_br must have exactly two targets");
        }
        no_block_arguments(ctx, self)
    }
}

/// The case values of a `mir.switch`, one per target but the last (the default).
#[pliron_attr(name = "mir.switch_cases", format = "`[` vec($0, CharSpace(`,`)) `]`", verifier = "succ")]
#[derive(PartialEq, Eq, Clone, Debug, Hash)]
pub struct SwitchCasesAttr(pub Vec<u64>);

/// `mir.switch v [0, 1] ^a, ^b, ^default`: MIR's `SwitchInt` on an integer; the last target
/// is taken when no case matches.
#[pliron_op(
    name = "mir.switch",
    format = "$0 ` ` attr($switch_cases, $SwitchCasesAttr) ` ` successors(CharSpace(`,`))",
    interfaces = [IsTerminatorInterface, NResultsInterface<0>, NOpdsInterface<1>],
    attributes = (switch_cases: SwitchCasesAttr)
)]
pub struct SwitchOp;

impl Verify for SwitchOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        let Some(cases) = self.get_attr_switch_cases(ctx).map(|cases| cases.0.len()) else {
            return verify_err!(self.loc(ctx), "mir.switch has no cases attribute");
        };
        let op = self.get_operation().deref(ctx);
        if !op.get_operand(0).get_type(ctx).deref(ctx).is::<IntegerType>() {
            return verify_err!(self.loc(ctx), "mir.switch: the discriminant must be an integer");
        }
        if op.get_num_successors() != cases + 1 {
            return verify_err!(
                self.loc(ctx),
                "mir.switch: {} cases need {} targets (the last is the default), found {}",
                cases,
                cases + 1,
                op.get_num_successors()
            );
        }
        no_block_arguments(ctx, self)
    }
}

/// `mir.return (v)`: leaves the function with its results (none for a kernel).
#[pliron_op(
    name = "mir.return",
    format = "`(` operands(CharSpace(`,`)) `)`",
    interfaces = [IsTerminatorInterface, NResultsInterface<0>],
    verifier = "succ"
)]
pub struct ReturnOp;

/// `mir.unreachable`: control never gets here (MIR's `Unreachable`, the end of a call that
/// does not return, a failed assertion). Not a return: a path that ends here leaves nothing
/// unfinished, because the kernel traps.
#[pliron_op(
    name = "mir.unreachable",
    format = "",
    interfaces = [IsTerminatorInterface, NResultsInterface<0>, NOpdsInterface<0>],
    verifier = "succ"
)]
pub struct UnreachableOp;

/// Conditional terminators branch only to blocks without arguments (as MIR's `SwitchInt`).
fn no_block_arguments(ctx: &Context, op: &dyn Op) -> Result<()> {
    let operation = op.get_operation().deref(ctx);
    for target in operation.successors() {
        if target.deref(ctx).get_num_arguments() != 0 {
            return verify_err!(
                op.loc(ctx),
                "a conditional branch targets a block with arguments; pass values through a mir.goto block"
            );
        }
    }
    Ok(())
}
