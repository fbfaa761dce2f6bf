//! The `semantic` dialect: the operations of the kernels' device API that carry protocol
//! meaning, recognised by the importer from calls to `kernels::device::…`.
//!
//! [`pipeline`] models `PipelineState` and `Pipeline` (kernels/src/device/pipeline.rs): a
//! pipeline state is the pair (stage index, phase bit) of `u32` values, created by
//! `semantic.state_new` and replaced by `semantic.state_advance`; every other pipeline
//! operation takes the stage index (and the phase, where it waits) as operands, so the verifier
//! can check that they flow from a state. [`memory`] models the shared-memory base, the block
//! barrier and the bulk async copy. [`wgmma`] models the warpgroup MMA protocol (fence, mma_async,
//! commit, wait) and the async-proxy fence.
//!
//! Every op verifies locally (operand and result types); the *story* (ordering on the CFG,
//! provenance, the producer tail) is checked by [`crate::verify`], not by the ops.

pub mod memory;
pub mod pipeline;
pub mod wgmma;

use pliron::{context::Context, op::Op, result::Result, r#type::Typed, verify_err};

use crate::ir::mir::int_width;

/// Every operand of `op` must be a 32-bit integer (a stage index, a phase bit or a byte count).
pub(crate) fn operands_are_u32(ctx: &Context, op: &dyn Op, name: &str) -> Result<()> {
    let operation = op.get_operation().deref(ctx);
    for (i, operand) in operation.operands().enumerate() {
        if int_width(ctx, operand.get_type(ctx)) != Some(32) {
            return verify_err!(op.loc(ctx), "{}: operand {} must be a 32-bit integer", name, i);
        }
    }
    Ok(())
}

/// Every result of `op` must be a 32-bit integer.
pub(crate) fn results_are_u32(ctx: &Context, op: &dyn Op, name: &str) -> Result<()> {
    let operation = op.get_operation().deref(ctx);
    for (i, result) in operation.results().enumerate() {
        if int_width(ctx, result.get_type(ctx)) != Some(32) {
            return verify_err!(op.loc(ctx), "{}: result {} must be a 32-bit integer", name, i);
        }
    }
    Ok(())
}
