//! One step's effect on a state's typestate on one path: the transition the protocol table
//! allows (`protocol::transition`), the bytes a producer owes its barrier, stale copies of the
//! state, and the consumer's held previous stage (`copies`): the part of the typestate that runs
//! once per operation, per path.

use super::super::{
    Rule,
    facts::{StateId, Versions},
    protocol::{
        Bytes, EXPECTING, HOLDS_NONE, HOLDS_PREVIOUS, NOT_CREATED, READY, RELEASED, Step, TAILED, Typestate,
        WAITING, describe_states, stale_versions, transition,
    },
    rules::{PipelineKind, Reporter, stages_of},
};
use super::copies::{Which, advance_copies};
use super::{FunctionRun, UNCREATED_PATH};

/// What [`FunctionRun::previous_stage`] made of a step.
enum HeldStage {
    /// Not a step on a held stage: judged as any other.
    NotConcerned,
    /// Judged: the violation, if any.
    Done(Option<(Rule, String)>),
    /// An advance that leaves the state holding its previous stage (these possibilities).
    Advanced(u8),
}

impl FunctionRun<'_> {
    /// Applies the step of operation `n` to a state's typestate; returns the violation, if any.
    pub(super) fn step(
        &self,
        reporter: &Reporter,
        n: usize,
        step: &Step,
        producer: bool,
        typestate: &mut Typestate,
        passes: i64,
    ) -> Option<(Rule, String)> {
        let ctx = reporter.ctx;
        let op = reporter.index.ops[n];
        let live = typestate.bits;
        let transition = transition(step, producer);
        let (allowed, rule, what) = (transition.allowed(), transition.rule, transition.what);
        let which = self.copies.source(n).which(typestate);
        let (mut holds, mut allowed, mut advances_holding) = (typestate.holds, allowed, false);
        if !producer && live != 0 {
            match self.previous_stage(reporter, n, step, which, typestate) {
                HeldStage::NotConcerned => {}
                HeldStage::Done(violation) => return violation,
                HeldStage::Advanced(after) => {
                    // The advance keeps the stage waited on held: the state may be waiting.
                    holds = after;
                    allowed |= WAITING;
                    advances_holding = true;
                }
            }
        }
        let producer_advance = producer && matches!(step, Step::Pipeline(PipelineKind::Advance));
        let excused = |state: &Option<(StateId, Step)>| {
            state.as_ref().is_some_and(|(s, _)| self.copy_loops.excuses(*s))
        };
        let mut bad = live & !allowed;
        if producer_advance && bad == EXPECTING && excused(&self.steps[n]) {
            bad = 0;
        }
        // A state "not created" on some path to its use: Rust initialises every value before it
        // is used, so the path is one the typestate joined without the launch running it (a
        // state a helper creates on one of its paths and returns inside an enum variant the
        // caller matches), not a defect of the kernel. Alone, it leaves the operation unjudged
        // where the kernel's run reports it (`UNCREATED_PATH`); beside another it is left out.
        if bad & NOT_CREATED != 0 && bad != NOT_CREATED {
            bad &= !NOT_CREATED;
        }
        let mut violation = None;
        if bad != 0 {
            let name = reporter.op_name(op);
            let after_tail = producer && bad & TAILED != 0;
            let message = if after_tail && !matches!(step, Step::Pipeline(PipelineKind::Tail)) {
                format!(
                    "`{name}` is reachable after `semantic.producer_tail`: the tail must come after the \
                     producer loop, not inside it"
                )
            } else if bad == NOT_CREATED {
                UNCREATED_PATH.to_string()
            } else {
                format!("{what}; on some path the state here is {}", describe_states(bad))
            };
            violation = Some((if after_tail { Rule::ProducerTail } else { rule }, message));
        }
        let stale = live & allowed != 0 && self.stale(reporter, n, step, typestate.current);
        if stale {
            let name = reporter.op_name(op);
            let message = format!(
                "`{name}` works on a stale copy of the state: on some path the state was advanced after \
                 this copy was taken (two copies of a state are two values; advancing one leaves the \
                 other at its old stage and phase)"
            );
            let rule = if producer { Rule::ProducerOrder } else { Rule::ConsumerOrder };
            *typestate = Typestate { bits: 0, ..*typestate };
            return Some((rule, message));
        }
        // A copy into a stage its state no longer names breaks no order: the path goes on.
        if violation.is_none()
            && live & allowed != 0
            && matches!(step, Step::Pipeline(PipelineKind::BulkCopy))
            && self.stale_destination(n, typestate.current)
        {
            let name = reporter.op_name(op);
            let message = format!(
                "`{name}`: its destination was computed from a stale copy of the state's stage index: on some \
                 path the state was advanced after the index was read, so the copy lands in a stage its \
                 barrier's state no longer names (consumers may still be reading it, and the acquired stage \
                 stays stale)"
            );
            violation = Some((Rule::CopyDestination, message));
        }
        let mut bytes = typestate.bytes;
        if live & allowed != 0 {
            match step {
                Step::New => bytes = Bytes::Unset,
                Step::Pipeline(PipelineKind::ExpectTx) => {
                    bytes = bytes.plus_announced(self.byte_counts.get(&n).copied());
                }
                Step::Pipeline(PipelineKind::BulkCopy) => {
                    bytes = bytes.minus(self.byte_counts.get(&n).map(|bytes| bytes * passes));
                }
                Step::Pipeline(PipelineKind::Advance) if producer && violation.is_none() => {
                    let problem = match bytes {
                        Bytes::Known(0) | Bytes::Unset | Bytes::Unknown => None,
                        Bytes::Known(left) if left > 0 => Some(format!(
                            "the stage's `semantic.producer_expect_tx` announced {left} bytes more than the \
                             copies before this advance deliver: the stage's full barrier never completes"
                        )),
                        Bytes::Known(left) => Some(format!(
                            "the copies before this advance deliver {} bytes more than the stage's \
                             `semantic.producer_expect_tx` announced: the full barrier completes early",
                            -left
                        )),
                        Bytes::Mismatch if excused(&self.steps[n]) => None,
                        Bytes::Mismatch => Some(
                            "the bytes the copies deliver match the stage's `semantic.producer_expect_tx` on \
                             some paths only"
                                .to_string(),
                        ),
                    };
                    if let Some(message) = problem {
                        violation = Some((Rule::ExpectTxBytes, message));
                    }
                    bytes = Bytes::Unset;
                }
                Step::Pipeline(PipelineKind::Advance) => bytes = Bytes::Unset,
                _ => {}
            }
        }
        // The paths that broke the rule end here; the others go on.
        // An advance of a state still waiting leaves it advanced, holding that stage.
        let held_advanced = if advances_holding && live & WAITING != 0 { READY } else { 0 };
        let bits = transition.after(live & allowed) | held_advanced;
        let current = match step {
            Step::New | Step::Pipeline(PipelineKind::Advance) => {
                self.facts.versions(op.deref(ctx).get_result(0))
            }
            _ => typestate.current,
        };
        *typestate = Typestate { bits, bytes, current, holds, ..*typestate };
        if matches!(step, Step::New | Step::Pipeline(PipelineKind::Advance)) {
            advance_copies(typestate, if matches!(step, Step::New) { Which::Unknown } else { which });
        }
        violation
    }

    /// A consumer's step on the stage of its state's previous value, or an advance that may
    /// start holding the current stage (see [`HOLDS_PREVIOUS`] and the `copies` module).
    fn previous_stage(
        &self,
        reporter: &Reporter,
        n: usize,
        step: &Step,
        which: Which,
        typestate: &mut Typestate,
    ) -> HeldStage {
        let held = typestate.holds == HOLDS_PREVIOUS;
        match step {
            Step::Pipeline(PipelineKind::Release) | Step::StageAccess
                if which == Which::Unsure && self.passes_as_current(reporter, n, step, typestate) =>
            {
                // A copy loaded before a store into its place may hold the previous value: its
                // stage may be the one released already. Judged as the current value's, a read of
                // a released stage in a loop would pass (versions cannot tell the two apart);
                // where that judgement rejects it, it stands.
                self.not_followed(n);
                typestate.bits = 0;
                HeldStage::Done(None)
            }
            Step::Pipeline(PipelineKind::Release) | Step::StageAccess if which == Which::Previous => {
                if held {
                    if matches!(step, Step::Pipeline(_)) {
                        typestate.holds = HOLDS_NONE;
                    }
                    return HeldStage::Done(None);
                }
                let name = reporter.op_name(reporter.index.ops[n]);
                let message = format!(
                    "`{name}` works on the stage of the state's previous value (a copy taken before its \
                     last advance), which on some path here is no longer held: released already, or \
                     never waited on"
                );
                typestate.bits = 0;
                HeldStage::Done(Some((Rule::ConsumerOrder, message)))
            }
            Step::Pipeline(PipelineKind::Advance) if typestate.holds & HOLDS_PREVIOUS != 0 => {
                // The held stage would be two advances old: not followed.
                self.not_followed(n);
                typestate.bits = 0;
                HeldStage::Done(None)
            }
            Step::Pipeline(PipelineKind::Advance)
                if typestate.bits & WAITING != 0
                    && which == Which::Current
                    && self.stages(reporter, n).is_some_and(|stages| stages >= 2)
                    && !self.dispatches.excuses(reporter.index.op_block[n]) =>
            {
                // Advanced while waiting on the stage: the stage stays held, and its release
                // is owed through a copy of this value. Two stages at least, or the next wait
                // needs the very stage held (a deadlock). Not inside a state machine's dispatch,
                // whose paths the typestate does not follow (its findings there are undecided).
                let after =
                    if typestate.bits & RELEASED != 0 { HOLDS_NONE | HOLDS_PREVIOUS } else { HOLDS_PREVIOUS };
                HeldStage::Advanced(after)
            }
            _ => HeldStage::NotConcerned,
        }
    }

    /// Whether step `n` of a consumer state, judged as on the state's current value, breaks
    /// nothing: allowed in every typestate the state may be in, on a value not stale.
    fn passes_as_current(&self, reporter: &Reporter, n: usize, step: &Step, typestate: &Typestate) -> bool {
        typestate.bits & !transition(step, false).allowed() == 0
            && !self.stale(reporter, n, step, typestate.current)
    }

    /// The stage count of the state pipeline operation `n` works on.
    fn stages(&self, reporter: &Reporter, n: usize) -> Option<u32> {
        let (state, _) = self.steps[n].as_ref()?;
        stages_of(reporter.ctx, reporter.index, *state)
    }

    /// Whether pipeline operation `n` works on a value of its state that may not be the
    /// current one: some version the state may be at on this path is not among the versions
    /// its stage operand may hold. Not compared when either side is unknown or overflowed.
    /// A stage read through a pointer taken from an older value of the state (computed before
    /// the loop, kept from the previous tile) reads the stage that value named.
    fn stale(&self, reporter: &Reporter, n: usize, step: &Step, current: Versions) -> bool {
        super::worked_on(reporter.ctx, reporter.index, self.access_offsets, n, step)
            .is_some_and(|operand| stale_versions(current, self.facts.versions(operand)))
    }

    /// Whether bulk copy `n`'s destination was computed from a value of its state's stage index
    /// that may not be the current one (a destination kept from the pass's previous tile): the
    /// copy writes the stage that value named. `copy-destination` judges the destination's
    /// shape; this, which value of the index it was computed from.
    fn stale_destination(&self, n: usize, current: Versions) -> bool {
        self.copy_destinations
            .get(&n)
            .is_some_and(|index| stale_versions(current, self.facts.versions(*index)))
    }
}
