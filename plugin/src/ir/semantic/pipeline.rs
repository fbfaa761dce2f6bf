//! The pipeline protocol: state creation and advance, producer acquire / expect-tx / tail,
//! consumer wait / release.
//!
//! Operand order everywhere: the stage index first, then the phase bit or the byte count, then
//! (optionally) the address of the `Pipeline` value the operation is called on.

use pliron::{
    builtin::op_interfaces::{NOpdsInterface, NResultsInterface},
    common_traits::Verify,
    context::{Context, Ptr},
    derive::{pliron_attr, pliron_op},
    op::Op,
    operation::Operation,
    result::Result,
    r#type::Typed,
    value::Value,
    verify_err,
};

use super::{operands_are_u32, results_are_u32};
use crate::ir::mir::{int_width, pointer_type_of};

/// Which side of the pipeline a state belongs to: `PipelineState::producer_start()` or
/// `PipelineState::new()` (the consumer's start).
#[pliron_attr(name = "semantic.role", format, verifier = "succ")]
#[derive(PartialEq, Eq, Clone, Copy, Debug, Hash)]
pub enum PipelineRole {
    Producer,
    Consumer,
}

/// The number of stages in the ring (`PipelineState<STAGES>`).
#[pliron_attr(name = "semantic.stages", format = "$0", verifier = "succ")]
#[derive(PartialEq, Eq, Clone, Copy, Debug, Hash)]
pub struct StagesAttr(pub u32);

/// `index, phase = semantic.state_new Producer stages 4 : …`: a new pipeline state. Its two
/// results are the stage index and the phase bit; they are the only legitimate sources of
/// the stage and phase operands of the other pipeline operations.
#[pliron_op(
    name = "semantic.state_new",
    format = "attr($pipeline_role, $PipelineRole) ` stages ` attr($pipeline_stages, $StagesAttr) ` : ` types(CharSpace(`,`))",
    interfaces = [NOpdsInterface<0>, NResultsInterface<2>],
    attributes = (pipeline_role: PipelineRole, pipeline_stages: StagesAttr)
)]
pub struct StateNewOp;

impl StateNewOp {
    /// The state's role.
    pub fn role(&self, ctx: &Context) -> Option<PipelineRole> {
        self.get_attr_pipeline_role(ctx).map(|role| *role)
    }

    /// The number of stages.
    pub fn stages(&self, ctx: &Context) -> Option<u32> {
        self.get_attr_pipeline_stages(ctx).map(|stages| stages.0)
    }
}

impl Verify for StateNewOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        if self.role(ctx).is_none() {
            return verify_err!(self.loc(ctx), "semantic.state_new has no role attribute");
        }
        match self.stages(ctx) {
            Some(stages) if stages > 0 => {}
            _ => return verify_err!(self.loc(ctx), "semantic.state_new needs a stage count above zero"),
        }
        results_are_u32(ctx, self, "semantic.state_new")
    }
}

/// `index2, phase2 = semantic.state_advance index, phase : …`: `PipelineState::advance`, the
/// next stage (flipping the phase when the ring wraps). The results belong to the same state.
#[pliron_op(
    name = "semantic.state_advance",
    format = "$0 `, ` $1 ` : ` types(CharSpace(`,`))",
    interfaces = [NOpdsInterface<2>, NResultsInterface<2>]
)]
pub struct StateAdvanceOp;

impl Verify for StateAdvanceOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        operands_are_u32(ctx, self, "semantic.state_advance")?;
        results_are_u32(ctx, self, "semantic.state_advance")
    }
}

/// Declares a pipeline op with the given `u32` operands, then optionally the pipeline it runs
/// on, and no results.
macro_rules! pipeline_op {
    ($(#[$doc:meta])* $name:literal, $op:ident, $n:literal) => {
        $(#[$doc])*
        #[pliron_op(
            name = $name,
            format = "operands(CharSpace(`,`))",
            interfaces = [NResultsInterface<0>]
        )]
        pub struct $op;

        impl $op {
            /// The pipeline the operation runs on (see [`pipeline_operand`]), if the import named it.
            pub fn pipeline(&self, ctx: &Context) -> Option<Value> {
                pipeline_operand(ctx, self.get_operation(), $n)
            }
        }

        impl Verify for $op {
            fn verify(&self, ctx: &Context) -> Result<()> {
                verify_with_pipeline(ctx, self, $name, $n)
            }
        }
    };
}

/// The optional operand after the `fixed` ones: the address of the `Pipeline` value the
/// operation is called on (`first.consumer_wait(&state)` names `&first`). Pipeline identity
/// is judged on it (`verify::operands`); the import leaves it out where it cannot name one.
pub fn pipeline_operand(ctx: &Context, op: Ptr<Operation>, fixed: usize) -> Option<Value> {
    let operation = op.deref(ctx);
    (operation.get_num_operands() > fixed).then(|| operation.get_operand(fixed))
}

/// `fixed` `u32` operands, then at most one pointer: the pipeline.
pub(crate) fn verify_with_pipeline(ctx: &Context, op: &dyn Op, name: &str, fixed: usize) -> Result<()> {
    let operation = op.get_operation().deref(ctx);
    let count = operation.get_num_operands();
    if count != fixed && count != fixed + 1 {
        return verify_err!(
            op.loc(ctx),
            "{}: takes {} operands, then optionally the pipeline; it has {}",
            name,
            fixed,
            count
        );
    }
    for (i, operand) in operation.operands().enumerate() {
        let ty = operand.get_type(ctx);
        if i < fixed && int_width(ctx, ty) != Some(32) {
            return verify_err!(op.loc(ctx), "{}: operand {} must be a 32-bit integer", name, i);
        }
        if i == fixed && pointer_type_of(ctx, ty).is_none() {
            return verify_err!(
                op.loc(ctx),
                "{}: operand {} (the pipeline) must be a mir.ptr to the Pipeline value",
                name,
                i
            );
        }
    }
    Ok(())
}

pipeline_op!(
    /// `semantic.producer_acquire index, phase[, pipeline]`: waits until consumers released
    /// the stage.
    "semantic.producer_acquire", ProducerAcquireOp, 2
);
pipeline_op!(
    /// `semantic.producer_expect_tx index, bytes[, pipeline]`: arrives on the stage's *full*
    /// barrier, announcing `bytes` of incoming copies.
    "semantic.producer_expect_tx", ProducerExpectTxOp, 2
);
pipeline_op!(
    /// `semantic.producer_tail index, phase[, pipeline]`: after the producer loop, waits until
    /// every stage has been released once more.
    "semantic.producer_tail", ProducerTailOp, 2
);
pipeline_op!(
    /// `semantic.consumer_wait index, phase[, pipeline]`: waits until the stage holds its data.
    "semantic.consumer_wait", ConsumerWaitOp, 2
);
pipeline_op!(
    /// `semantic.consumer_release index[, pipeline]`: this thread is done reading the stage.
    "semantic.consumer_release", ConsumerReleaseOp, 1
);
