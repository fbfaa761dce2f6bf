//! Verifier rejections as rustc errors: at the span of the offending operation's MIR statement
//! (for a call, the call expression), with notes naming the story, the rule and the related
//! operations at their own spans ("the state was created here").

use plugin::verify::{Gap, Rejection, Rule};
use rustc_middle::ty::TyCtxt;
use rustc_span::DUMMY_SP;

use crate::import::Locations;

/// The story a rule belongs to, as the device API's documentation tells it.
pub fn story(rule: Rule) -> &'static str {
    match rule {
        Rule::WellFormed => "the imported IR is well-formed",
        Rule::StateProvenance => "the pipeline story: stage indices and phases come from a pipeline state",
        Rule::ProducerOrder => {
            "the pipeline story: a producer acquires, expects the bytes, copies, then advances"
        }
        Rule::ConsumerOrder => {
            "the pipeline story: a consumer waits, reads the stage, releases it, then advances"
        }
        Rule::ProducerTail => "the pipeline story: the producer tail comes once, after the producer loop",
        Rule::PointerAdaptation => {
            "pointer provenance: a shared-memory pointer crosses a call only as an explicit adaptation"
        }
        Rule::ExpectTxBytes => {
            "the pipeline story: the copies into a stage deliver exactly the bytes its expect_tx announced"
        }
        Rule::PipelineIdentity => {
            "the pipeline story: every operation on a state uses the barriers of the one pipeline it belongs to"
        }
        Rule::CopyDestination => {
            "the pipeline story: a bulk copy writes into the stage whose barrier it completes"
        }
        Rule::TileCount => "the pipeline story: producer and consumers loop over the same number of tiles",
        Rule::ProducerThreads => {
            "thread roles: exactly one thread of the declared block runs a pipeline's producer"
        }
        Rule::ReleaseCount => {
            "thread roles: as many threads release a pipeline's stages as its init announced"
        }
        Rule::WgmmaAccumulatorRead => {
            "the wgmma story: accumulators are touched only after a wait_group covering the mma_async writing them"
        }
        Rule::WgmmaReleaseBeforeWait => {
            "the wgmma story: a stage is released only after a wait_group covering the mma_async reading it"
        }
        Rule::WgmmaFence => {
            "the wgmma story: a wgmma fence separates ordinary writes from the next mma_async"
        }
        Rule::PipelineInit => {
            "the pipeline story: one thread initialises the barriers, and a block barrier publishes them before any use"
        }
        Rule::SharedLayout => {
            "the pipeline story: each pipeline's barriers and ring have shared memory of their own, and a copy fills one stage"
        }
        Rule::ProxyFence => {
            "the async proxy: fence.proxy.async separates ordinary shared stores from copies and mma_async"
        }
    }
}

/// Emits one rejection of kernel `kernel`'s scope as a rustc error.
pub fn emit(tcx: TyCtxt<'_>, kernel: &str, rejection: &Rejection, locations: &Locations) {
    let span = rejection.location.as_ref().and_then(|location| locations.span(location)).unwrap_or(DUMMY_SP);
    let mut diagnostic = tcx
        .dcx()
        .struct_span_err(span, format!("kernel verifier [{}]: {}", rejection.rule.name(), rejection.message));
    diagnostic.span_label(span, format!("breaks rule `{}`", rejection.rule.name()));
    diagnostic.note(format!("story: {}", story(rejection.rule)));
    diagnostic.note(format!(
        "rule `{}`, in `{}`, in the scope of kernel `{kernel}`",
        rejection.rule.name(),
        rejection.function
    ));
    for related in &rejection.related {
        match related.location.as_ref().and_then(|location| locations.span(location)) {
            Some(related_span) => {
                diagnostic.span_note(related_span, related.note.clone());
            }
            None => {
                diagnostic.note(related.note.clone());
            }
        }
    }
    diagnostic.emit();
}

/// Emits an unverified scope as one rustc error at the kernel, with a note per gap at its own
/// span: the build stops on it unless the kernel opts out (`plugin/MODEL.md`).
pub fn emit_unverified(
    tcx: TyCtxt<'_>,
    kernel: rustc_span::Span,
    name: &str,
    gaps: &[Gap],
    locations: &Locations,
) {
    let mut diagnostic = tcx.dcx().struct_span_err(
        kernel,
        format!(
            "kernel verifier [unverified]: the scope of `{name}` is not proven: {} part{} outside the model",
            gaps.len(),
            if gaps.len() == 1 { " is" } else { "s are" }
        ),
    );
    for gap in gaps.iter().take(MAX_GAP_NOTES) {
        let message = format!("unverified [{}]: {}", gap.kind, gap.message);
        match gap.location.as_ref().and_then(|location| locations.span(location)) {
            Some(span) => {
                diagnostic.span_note(span, message);
            }
            None => {
                diagnostic.note(message);
            }
        }
    }
    if gaps.len() > MAX_GAP_NOTES {
        diagnostic
            .note(format!("and {} more (the crate report lists every one)", gaps.len() - MAX_GAP_NOTES));
    }
    diagnostic.help(
        "rewrite the part in terms the model accounts for (plugin/MODEL.md), or accept an unproven kernel \
         with `#[kernel_verifier::unverified(reason = \"why\")]` on it",
    );
    diagnostic.emit();
}

/// Gaps shown one by one in an error; the crate report holds all of them.
const MAX_GAP_NOTES: usize = 12;
