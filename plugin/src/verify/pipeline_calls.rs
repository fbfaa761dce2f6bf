//! Calls of the device API's `Pipeline` methods, by symbol: what several rules ask of a call
//! (the init-order rule, the layout, pipeline identity, the walk through memory), kept below
//! all of them.

use pliron::{
    context::{Context, Ptr},
    operation::Operation,
};

use crate::ir::mir::control::CallOp;

/// Whether `op` calls the device API's `Pipeline::<method>` (symbol
/// `device__pipeline__Pipeline…<method>`).
pub(crate) fn calls_pipeline_method(ctx: &Context, op: Ptr<Operation>, method: &str) -> bool {
    Operation::get_op::<CallOp>(op, ctx).and_then(|call| call.callee(ctx)).is_some_and(|name| {
        let name: &str = name.as_ref();
        name.starts_with("device__pipeline__Pipeline") && name.ends_with(method)
    })
}

/// Whether a call's callee is `Pipeline::init`.
pub(crate) fn is_pipeline_init(ctx: &Context, op: Ptr<Operation>) -> bool {
    calls_pipeline_method(ctx, op, "init")
}

/// Whether a call makes a pipeline: `Pipeline::init` or `Pipeline::attach`.
pub(crate) fn makes_pipeline(ctx: &Context, op: Ptr<Operation>) -> bool {
    calls_pipeline_method(ctx, op, "init") || calls_pipeline_method(ctx, op, "attach")
}
