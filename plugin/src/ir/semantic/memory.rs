//! Shared memory, the block barrier and the bulk async copy.

use pliron::{
    builtin::op_interfaces::{NOpdsInterface, NResultsInterface, OneResultInterface},
    common_traits::Verify,
    context::Context,
    derive::pliron_op,
    op::Op,
    result::Result,
    r#type::Typed,
    value::Value,
    verify_err,
};

use crate::ir::{
    mir::{int_width, pointer_type_of},
    types::{AddressSpace, Mutability},
};

/// `p = semantic.dynamic_shared_base : mir.ptr <Shared, Mut, Raw, T>`:
/// `device::dynamic_shared_base::<T>()`, typed as what it is: a mutable pointer into shared
/// memory. Passing it (or anything derived from it) to a generic pointer parameter needs
/// `mir.addrspace_cast`.
#[pliron_op(
    name = "semantic.dynamic_shared_base",
    format = "` : ` type($0)",
    interfaces = [NOpdsInterface<0>, OneResultInterface]
)]
pub struct DynamicSharedBaseOp;

impl Verify for DynamicSharedBaseOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        let ty = self.get_result(ctx).get_type(ctx);
        match pointer_type_of(ctx, ty) {
            Some(ptr) if ptr.space() == AddressSpace::Shared && ptr.mutability() == Mutability::Mut => Ok(()),
            _ => verify_err!(
                self.loc(ctx),
                "semantic.dynamic_shared_base: the result must be a mutable mir.ptr in Shared space"
            ),
        }
    }
}

/// `semantic.barrier`: `device::barrier()`, the block-wide `bar.sync 0`.
#[pliron_op(
    name = "semantic.barrier",
    format = "",
    interfaces = [NOpdsInterface<0>, NResultsInterface<0>],
    verifier = "succ"
)]
pub struct BarrierOp;

/// `semantic.bulk_copy destination, source, bytes, index[, pipeline]`:
/// `bulk_copy_global_to_shared(destination, source, bytes, pipeline.producer_barrier(&state))`.
///
/// `destination` and `bytes` are `u32` (a shared-window address and a byte count), `source` is
/// a pointer outside shared memory, and `index` is the stage index of the state whose *full*
/// barrier the copy completes (the importer passes the `state.index` it loaded for
/// `producer_barrier(&state)`). The optional `pipeline` is the address of the `Pipeline` value
/// whose `producer_barrier` gave the barrier (see
/// [`super::pipeline::pipeline_operand`]).
#[pliron_op(
    name = "semantic.bulk_copy",
    format = "operands(CharSpace(`,`))",
    interfaces = [NResultsInterface<0>]
)]
pub struct BulkCopyOp;

impl BulkCopyOp {
    /// The pipeline whose barrier the copy completes, if the import named it.
    pub fn pipeline(&self, ctx: &Context) -> Option<Value> {
        super::pipeline::pipeline_operand(ctx, self.get_operation(), 4)
    }
}

impl Verify for BulkCopyOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        let op = self.get_operation().deref(ctx);
        let count = op.get_num_operands();
        if count != 4 && count != 5 {
            return verify_err!(
                self.loc(ctx),
                "semantic.bulk_copy: takes 4 operands, then optionally the pipeline; it has {}",
                count
            );
        }
        let source = pointer_type_of(ctx, op.get_operand(1).get_type(ctx));
        match source {
            Some(ptr) if ptr.space() != AddressSpace::Shared => {}
            _ => {
                return verify_err!(
                    self.loc(ctx),
                    "semantic.bulk_copy: the source must be a mir.ptr outside shared memory"
                );
            }
        }
        for i in [0, 2, 3] {
            if int_width(ctx, op.get_operand(i).get_type(ctx)) != Some(32) {
                return verify_err!(
                    self.loc(ctx),
                    "semantic.bulk_copy: operand {} must be a 32-bit integer",
                    i
                );
            }
        }
        if count == 5 && pointer_type_of(ctx, op.get_operand(4).get_type(ctx)).is_none() {
            return verify_err!(
                self.loc(ctx),
                "semantic.bulk_copy: operand 4 (the pipeline) must be a mir.ptr to the Pipeline value"
            );
        }
        Ok(())
    }
}
