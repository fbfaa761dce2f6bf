//! The warpgroup MMA protocol (`device::wgmma`) and the async-proxy fence
//! (`device::pipeline::fence_proxy_async_shared`).
//!
//! `acc` operands are the address of the accumulator array the instruction names (`&mut
//! accumulators`); the verifier identifies an accumulator array by that address's root (the
//! `mir.alloca` or argument it is derived from) and judges the ordinary loads, stores and calls
//! that reach the same root. An `mma_async` also takes its two shared-memory descriptors (A's
//! and B's, `u64`): the verifier follows each back to the tile address it was made from.

use pliron::{
    builtin::op_interfaces::{NOpdsInterface, NResultsInterface},
    common_traits::Verify,
    context::Context,
    derive::pliron_op,
    op::Op,
    result::Result,
    r#type::Typed,
    value::Value,
    verify_err,
};

use crate::ir::mir::{int_width, pointer_type_of};

/// Operand `i` of `op` must be a `mir.ptr` (the accumulators' address).
fn operand_is_pointer(ctx: &Context, op: &dyn Op, i: usize, name: &str) -> Result<()> {
    let operation = op.get_operation().deref(ctx);
    if pointer_type_of(ctx, operation.get_operand(i).get_type(ctx)).is_none() {
        return verify_err!(op.loc(ctx), "{}: operand {} (the accumulators) must be a mir.ptr", name, i);
    }
    Ok(())
}

/// `semantic.wgmma_fence acc`: `wgmma::fence(&mut acc)`, `wgmma.fence.sync.aligned`: orders
/// this warpgroup's earlier register and shared-memory writes before the next `mma_async`.
#[pliron_op(
    name = "semantic.wgmma_fence",
    format = "operands(CharSpace(`,`))",
    interfaces = [NOpdsInterface<1>, NResultsInterface<0>]
)]
pub struct WgmmaFenceOp;

impl Verify for WgmmaFenceOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        operand_is_pointer(ctx, self, 0, "semantic.wgmma_fence")
    }
}

/// `semantic.wgmma_mma acc, a, b`: one `wgmma.mma_async` (`m64n128k16`) writing the
/// accumulators at `acc` (asynchronously: they hold its result only after a `wait_group`
/// covering it) from the shared-memory tiles the descriptors `a` (64 rows of A) and `b` (128
/// rows of B) name; it reads them until that `wait_group` too.
#[pliron_op(
    name = "semantic.wgmma_mma",
    format = "operands(CharSpace(`,`))",
    interfaces = [NOpdsInterface<3>, NResultsInterface<0>]
)]
pub struct WgmmaMmaOp;

impl WgmmaMmaOp {
    /// The accumulators' address.
    pub fn accumulators(&self, ctx: &Context) -> Value {
        self.get_operation().deref(ctx).get_operand(0)
    }

    /// The descriptors of the A and B tiles.
    pub fn descriptors(&self, ctx: &Context) -> [Value; 2] {
        let operation = self.get_operation().deref(ctx);
        [operation.get_operand(1), operation.get_operand(2)]
    }
}

impl Verify for WgmmaMmaOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        operand_is_pointer(ctx, self, 0, "semantic.wgmma_mma")
    }
}

/// `semantic.wgmma_commit`: `wgmma::commit_group()`, closing the multiplies issued since the
/// last commit into one group.
#[pliron_op(
    name = "semantic.wgmma_commit",
    format = "",
    interfaces = [NOpdsInterface<0>, NResultsInterface<0>],
    verifier = "succ"
)]
pub struct WgmmaCommitOp;

/// `semantic.wgmma_wait pending, acc`: `wgmma::wait_group::<pending>(&mut acc)`, which returns
/// once at most `pending` of the most recent commit groups are still running: every older group
/// is complete. `pending` is a `u32`; the rules count it only as a constant.
#[pliron_op(
    name = "semantic.wgmma_wait",
    format = "operands(CharSpace(`,`))",
    interfaces = [NOpdsInterface<2>, NResultsInterface<0>]
)]
pub struct WgmmaWaitOp;

impl WgmmaWaitOp {
    /// The `pending` operand.
    pub fn pending(&self, ctx: &Context) -> Value {
        self.get_operation().deref(ctx).get_operand(0)
    }
}

impl Verify for WgmmaWaitOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        let operation = self.get_operation().deref(ctx);
        if int_width(ctx, operation.get_operand(0).get_type(ctx)) != Some(32) {
            return verify_err!(
                self.loc(ctx),
                "semantic.wgmma_wait: operand 0 (pending) must be a 32-bit integer"
            );
        }
        drop(operation);
        operand_is_pointer(ctx, self, 1, "semantic.wgmma_wait")
    }
}

/// `semantic.proxy_fence`: `fence_proxy_async_shared()`, `fence.proxy.async.shared::cta`:
/// makes this thread's ordinary shared-memory writes visible to the async proxy (bulk copies,
/// the tensor cores) and the other way round.
#[pliron_op(
    name = "semantic.proxy_fence",
    format = "",
    interfaces = [NOpdsInterface<0>, NResultsInterface<0>],
    verifier = "succ"
)]
pub struct ProxyFenceOp;
