//! Shared memory, the block barrier and the bulk async copy.

use pliron::{
    builtin::op_interfaces::{NOpdsInterface, NResultsInterface, OneResultInterface},
    common_traits::Verify,
    context::Context,
    derive::pliron_op,
    op::Op,
    result::Result,
    r#type::Typed,
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

/// `semantic.bulk_copy destination, source, bytes, index`:
/// `bulk_copy_global_to_shared(destination, source, bytes, pipeline.producer_barrier(&state))`.
///
/// `destination` and `bytes` are `u32` (a shared-window address and a byte count), `source` is
/// a pointer outside shared memory, and `index` is the stage index of the state whose *full*
/// barrier the copy completes (the importer passes the `state.index` it loaded for
/// `producer_barrier(&state)`).
#[pliron_op(
    name = "semantic.bulk_copy",
    format = "$0 `, ` $1 `, ` $2 `, ` $3",
    interfaces = [NOpdsInterface<4>, NResultsInterface<0>]
)]
pub struct BulkCopyOp;

impl Verify for BulkCopyOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        let op = self.get_operation().deref(ctx);
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
        Ok(())
    }
}
