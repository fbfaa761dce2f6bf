//! The `attach`es of rules `pipeline-identity` and `shared-layout`: each names the barriers an
//! `init` of the kernel set up, read as a pipeline of the same depth.

use pliron::{
    context::{Context, Ptr},
    operation::Operation,
};

use super::Extent;
use crate::ir::mir::control::CallOp;
use crate::verify::{Rule, rules::Reporter};

/// Rejects an attach of barriers no init set up, and one that reads an init's barriers with
/// another stage count.
pub(super) fn check_attaches(reporter: &mut Reporter, inits: &[Extent], attaches: &[Extent]) {
    let ctx = reporter.ctx;
    for attach in attaches {
        let Some(init) = inits.iter().find(|init| init.lo == attach.lo) else {
            if !inits.is_empty() {
                reporter.reject(
                    Rule::SharedLayout,
                    attach.op,
                    format!(
                        "this attach names barriers at byte {} that no `Pipeline::init` of the kernel set up (inits at {})",
                        attach.lo,
                        inits.iter().map(|init| init.lo.to_string()).collect::<Vec<_>>().join(", ")
                    ),
                    vec![],
                );
            }
            continue;
        };
        // The same barriers read as a ring of another depth: the stage index wraps at another
        // count, and waits and releases land on barriers of other stages (a hang or stale data).
        if let (Some(init_stages), Some(attach_stages)) =
            (setup_stages(ctx, init.op), setup_stages(ctx, attach.op))
            && init_stages != attach_stages
        {
            reporter.reject(
                Rule::PipelineIdentity,
                attach.op,
                format!(
                    "this attach reads the barriers at window byte {} as a pipeline of {attach_stages} stages, but \
                     the `Pipeline::init` that set them up made {init_stages}: the two sides' stage indices wrap \
                     at different counts, so their waits and releases meet on different barriers",
                    attach.lo
                ),
                vec![reporter.related("the init", init.op)],
            );
        }
    }
}

/// The stage count of the device API's `Pipeline::<N>::init` or `attach` that `op` calls,
/// read from the callee's symbol (`device__pipeline__Pipeline__4___attach`).
pub(super) fn setup_stages(ctx: &Context, op: Ptr<Operation>) -> Option<i64> {
    let callee = Operation::get_op::<CallOp>(op, ctx)?.callee(ctx)?;
    let name: &str = callee.as_ref();
    let after = name.strip_prefix("device__pipeline__Pipeline__")?;
    after.split("___").next()?.parse().ok()
}
