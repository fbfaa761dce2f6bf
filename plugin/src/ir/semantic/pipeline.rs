//! The pipeline protocol: state creation and advance, producer acquire / expect-tx / tail,
//! consumer wait / release.
//!
//! Operand order everywhere: the stage index first, then the phase bit or the byte count.

use pliron::{
    builtin::op_interfaces::{NOpdsInterface, NResultsInterface},
    common_traits::Verify,
    context::Context,
    derive::{pliron_attr, pliron_op},
    op::Op,
    result::Result,
    verify_err,
};

use super::{operands_are_u32, results_are_u32};

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

/// Declares a pipeline op with the given operands (all `u32`) and no results.
macro_rules! pipeline_op {
    ($(#[$doc:meta])* $name:literal, $op:ident, $n:literal, $format:literal) => {
        $(#[$doc])*
        #[pliron_op(
            name = $name,
            format = $format,
            interfaces = [NOpdsInterface<$n>, NResultsInterface<0>]
        )]
        pub struct $op;

        impl Verify for $op {
            fn verify(&self, ctx: &Context) -> Result<()> {
                operands_are_u32(ctx, self, $name)
            }
        }
    };
}

pipeline_op!(
    /// `semantic.producer_acquire index, phase`: waits until consumers released the stage.
    "semantic.producer_acquire", ProducerAcquireOp, 2, "$0 `, ` $1"
);
pipeline_op!(
    /// `semantic.producer_expect_tx index, bytes`: arrives on the stage's *full* barrier,
    /// announcing `bytes` of incoming copies.
    "semantic.producer_expect_tx", ProducerExpectTxOp, 2, "$0 `, ` $1"
);
pipeline_op!(
    /// `semantic.producer_tail index, phase`: after the producer loop, waits until every stage
    /// has been released once more.
    "semantic.producer_tail", ProducerTailOp, 2, "$0 `, ` $1"
);
pipeline_op!(
    /// `semantic.consumer_wait index, phase`: waits until the stage holds its data.
    "semantic.consumer_wait", ConsumerWaitOp, 2, "$0 `, ` $1"
);
pipeline_op!(
    /// `semantic.consumer_release index`: this thread is done reading the stage.
    "semantic.consumer_release", ConsumerReleaseOp, 1, "$0"
);
