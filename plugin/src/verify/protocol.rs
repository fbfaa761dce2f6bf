//! The pipeline protocol as typestates: what a state may be (bit sets of possibilities), the
//! bytes a producer owes its barrier, and for each step the typestates it is allowed in and the
//! one it leaves, with the rule a wrong order breaks. The typestate analysis applies them.

use super::{
    Rule,
    facts::{KEEP, VERSIONS_OVERFLOW, Versions},
    rules::PipelineKind,
};

// Typestates, as bits of a set of possibilities.
pub(super) const NOT_CREATED: u16 = 1;
pub(super) const READY: u16 = 2;
pub(super) const ACQUIRED: u16 = 4;
pub(super) const EXPECTING: u16 = 8;
pub(super) const COPYING: u16 = 16;
pub(super) const TAILED: u16 = 32;
pub(super) const WAITING: u16 = 64;
pub(super) const RELEASED: u16 = 128;
/// Created and not used yet: a producer state a thread never acquired with owes no tail (no
/// copy of it is in flight), a consumer state never waited on holds nothing.
pub(super) const FRESH: u16 = 256;
/// Acquired, with copies issued before the stage's `expect_tx`: legal, since a copy's bytes
/// landing first only take the barrier's transaction count below zero, and the phase cannot
/// complete before the producer's arrival (the `expect_tx` itself) brings it back.
pub(super) const COPIED_EARLY: u16 = 512;

pub(super) fn describe_states(bits: u16) -> String {
    let names = [
        (NOT_CREATED, "not created"),
        (READY, "advanced"),
        (ACQUIRED, "acquired"),
        (EXPECTING, "expecting bytes no copy delivered yet"),
        (COPYING, "receiving its copies"),
        (TAILED, "after its tail"),
        (WAITING, "waiting on a stage"),
        (RELEASED, "released"),
        (FRESH, "new, never used"),
        (COPIED_EARLY, "receiving copies before its `expect_tx`"),
    ];
    names.iter().filter(|(bit, _)| bits & bit != 0).map(|(_, name)| *name).collect::<Vec<_>>().join(" or ")
}

/// Bytes announced by a stage's `expect_tx` that the copies so far have not delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Bytes {
    /// No `expect_tx` on this path yet.
    Unset,
    /// This many bytes, on every path.
    Known(i64),
    /// Different constants on different paths: some path's copies do not match.
    Mismatch,
    /// A byte count that is not a constant: not checked.
    Unknown,
}

impl Bytes {
    /// The bytes owed after an `expect_tx` announcing `announced` (`None`: not a constant), on
    /// top of what copies issued before it delivered.
    pub(super) fn plus_announced(self, announced: Option<i64>) -> Bytes {
        match (self, announced) {
            (Bytes::Unset, Some(announced)) => Bytes::Known(announced),
            (Bytes::Known(early), Some(announced)) => Bytes::Known(early + announced),
            (Bytes::Mismatch, _) => Bytes::Mismatch,
            _ => Bytes::Unknown,
        }
    }

    pub(super) fn join(self, other: Bytes) -> Bytes {
        match (self, other) {
            (Bytes::Unset, x) | (x, Bytes::Unset) => x,
            (Bytes::Unknown, _) | (_, Bytes::Unknown) => Bytes::Unknown,
            (Bytes::Known(a), Bytes::Known(b)) if a == b => Bytes::Known(a),
            _ => Bytes::Mismatch,
        }
    }

    pub(super) fn minus(self, delivered: Option<i64>) -> Bytes {
        match (self, delivered) {
            (Bytes::Known(left), Some(bytes)) => Bytes::Known(left - bytes),
            // A copy before the `expect_tx`: owed once it announces.
            (Bytes::Unset, Some(bytes)) => Bytes::Known(-bytes),
            (Bytes::Mismatch, _) => Bytes::Mismatch,
            _ => Bytes::Unknown,
        }
    }
}

// Whether a consumer holds the stage of its state's previous value (waited on, then the state
// advanced before the release: the CUTLASS order), as bits of a set of possibilities.
/// No earlier stage held.
pub(super) const HOLDS_NONE: u8 = 1;
/// The previous value's stage held: its release is still owed.
pub(super) const HOLDS_PREVIOUS: u8 = 2;

/// One state's typestate on one path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Typestate {
    pub(super) bits: u16,
    pub(super) bytes: Bytes,
    /// The versions the state may be at: the `semantic.state_new` or `semantic.state_advance`
    /// that made its current value (see [`Versions`]); zero before its creation.
    pub(super) current: Versions,
    /// [`HOLDS_NONE`], [`HOLDS_PREVIOUS`] or both (paths joined).
    pub(super) holds: u8,
    /// The state's copy places (numbered per state, see the typestate's `copies` module) that
    /// hold its current value on every path here.
    pub(super) current_copies: u32,
    /// The copy places that hold the value the last advance started from, on every path here.
    pub(super) previous_copies: u32,
}

impl Typestate {
    pub(super) const NEW: Typestate = Typestate {
        bits: NOT_CREATED,
        bytes: Bytes::Unset,
        current: 0,
        holds: HOLDS_NONE,
        current_copies: 0,
        previous_copies: 0,
    };
    /// No path: what a join starts from.
    pub(super) const NONE: Typestate = Typestate {
        bits: 0,
        bytes: Bytes::Unset,
        current: 0,
        holds: 0,
        current_copies: 0,
        previous_copies: 0,
    };

    /// Joins `other` in; true when that changed `self`. The copies known are those known on
    /// both sides; a side that is no path (no typestate bit) holds nothing and knows nothing
    /// that counts.
    pub(super) fn join(&mut self, other: Typestate) -> bool {
        let (holds, current_copies, previous_copies) = match (self.bits, other.bits) {
            (_, 0) => (self.holds, self.current_copies, self.previous_copies),
            (0, _) => (other.holds, other.current_copies, other.previous_copies),
            _ => (
                self.holds | other.holds,
                self.current_copies & other.current_copies,
                self.previous_copies & other.previous_copies,
            ),
        };
        let joined = Typestate {
            bits: self.bits | other.bits,
            bytes: self.bytes.join(other.bytes),
            current: self.current | other.current,
            holds,
            current_copies,
            previous_copies,
        };
        let changed = joined != *self;
        *self = joined;
        changed
    }

    pub(super) fn covers(&self, other: &Typestate) -> bool {
        let mut joined = *self;
        !joined.join(*other)
    }
}

/// What an operation does to a state's typestate.
pub(super) enum Step {
    New,
    Pipeline(PipelineKind),
    /// A load or store of the memory of a stage.
    StageAccess,
}

/// Whether a value holding `operand` versions may not be the current value of a state at
/// `current` versions. Not compared when either is unknown or overflowed; [`KEEP`] (the
/// caller's version, inside a summarised function) matches the versions handed in.
pub(super) fn stale_versions(current: Versions, operand: Versions) -> bool {
    let current = current & !KEEP;
    if current == 0 || operand == 0 || (current | operand) & VERSIONS_OVERFLOW != 0 {
        return false;
    }
    current & !operand != 0
}

/// The typestate bits, one at a time (the index of a summary's effects).
pub(super) const ALL_BITS: [u16; 10] =
    [NOT_CREATED, READY, ACQUIRED, EXPECTING, COPYING, TAILED, WAITING, RELEASED, FRESH, COPIED_EARLY];

/// The bytes a state entering a summarised function in typestate `bits` owes: zero while it
/// expects or receives copies, before its `expect_tx` or after (the callee's copies and
/// announcement count against the caller's), none otherwise.
pub(super) fn entry_bytes(bits: u16) -> Bytes {
    if bits & (EXPECTING | COPYING | COPIED_EARLY) != 0 { Bytes::Known(0) } else { Bytes::Unset }
}

/// What a step does to a state's typestate: the typestates it is allowed in, each with the one
/// it leaves, the rule a wrong typestate breaks, and what the rule says.
pub(super) struct Transition {
    /// `(from, to)`: a state in any typestate of `from` is in `to` after the step.
    pub(super) moves: &'static [(u16, u16)],
    pub(super) rule: Rule,
    pub(super) what: &'static str,
}

impl Transition {
    /// The typestates the step is allowed in.
    pub(super) fn allowed(&self) -> u16 {
        self.moves.iter().fold(0, |bits, (from, _)| bits | from)
    }

    /// The typestates after the step, of a state that may be in any of `live`.
    pub(super) fn after(&self, live: u16) -> u16 {
        self.moves.iter().filter(|(from, _)| live & from != 0).fold(0, |bits, (_, to)| bits | to)
    }
}

/// The transition of a step on a producer's or a consumer's state.
pub(super) fn transition(step: &Step, producer: bool) -> Transition {
    let order = if producer { Rule::ProducerOrder } else { Rule::ConsumerOrder };
    match step {
        Step::New => Transition {
            moves: &[(NOT_CREATED, FRESH)],
            rule: order,
            what: "a pipeline state must be created once per thread, before its loop: created again, it \
                   restarts at stage 0 while the barriers have moved on (a deadlock or a stale read)",
        },
        Step::StageAccess if producer => Transition {
            moves: &[(ACQUIRED, ACQUIRED)],
            rule: Rule::ProducerOrder,
            what: "a producer may touch a stage only between `semantic.producer_acquire` and its first \
                   `semantic.bulk_copy` or `semantic.producer_expect_tx` (before, consumers may still read \
                   it; after, a copy is in flight)",
        },
        Step::StageAccess => Transition {
            moves: &[(WAITING, WAITING)],
            rule: Rule::ConsumerOrder,
            what: "an access to a stage must come after `semantic.consumer_wait` and before `semantic.consumer_release`",
        },
        Step::Pipeline(kind) => match kind {
            PipelineKind::Acquire => Transition {
                moves: &[(READY | FRESH, ACQUIRED)],
                rule: Rule::ProducerOrder,
                what: "`semantic.producer_acquire` must follow the state's creation or `semantic.state_advance`",
            },
            // After copies issued early, the announcement finds bytes already delivered.
            PipelineKind::ExpectTx => Transition {
                moves: &[(ACQUIRED, EXPECTING), (COPIED_EARLY, COPYING)],
                rule: Rule::ProducerOrder,
                what: "`semantic.producer_expect_tx` must follow `semantic.producer_acquire`, once a stage",
            },
            PipelineKind::BulkCopy => Transition {
                moves: &[(EXPECTING | COPYING, COPYING), (ACQUIRED | COPIED_EARLY, COPIED_EARLY)],
                rule: Rule::ProducerOrder,
                what: "`semantic.bulk_copy` must come between `semantic.producer_acquire` and `semantic.state_advance`",
            },
            PipelineKind::Advance if producer => Transition {
                moves: &[(COPYING, READY)],
                rule: Rule::ProducerOrder,
                what: "a producer's `semantic.state_advance` must follow `semantic.producer_expect_tx` and the \
                       `semantic.bulk_copy` that delivers its bytes, on every path",
            },
            PipelineKind::Advance => Transition {
                moves: &[(RELEASED, READY)],
                rule: Rule::ConsumerOrder,
                what: "a consumer's `semantic.state_advance` must follow `semantic.consumer_release`",
            },
            PipelineKind::Tail => Transition {
                moves: &[(READY | FRESH, TAILED)],
                rule: Rule::ProducerTail,
                what: "`semantic.producer_tail` must come after the producer loop, with no stage acquired",
            },
            PipelineKind::Wait => Transition {
                moves: &[(READY | FRESH, WAITING)],
                rule: Rule::ConsumerOrder,
                what: "`semantic.consumer_wait` must follow the state's creation or `semantic.state_advance`",
            },
            PipelineKind::Release => Transition {
                moves: &[(WAITING, RELEASED)],
                rule: Rule::ConsumerOrder,
                what: "`semantic.consumer_release` must follow `semantic.consumer_wait`",
            },
        },
    }
}
