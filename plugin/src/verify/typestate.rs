//! Rules `producer-order`, `consumer-order`, `producer-tail` and `expect-tx-bytes`: a
//! typestate analysis of every pipeline state over its function's CFG, then one pass over the
//! fixed point that reports the operations some path reaches in a wrong typestate.
//!
//! The abstract state of a block is a short list of *paths*: each path is a set of assumed
//! outcomes of correlated guards (a condition value some path branched on and that more than
//! one branch of the function tests) and, per state, the set of typestates it may be in plus
//! the bytes its `expect_tx` announced that no copy has delivered yet. Branching on a guard
//! whose outcome a path already assumed follows only the edge that outcome takes, so the same
//! immutable `active` around wait, read and release is one path, not four. A guard's
//! assumption ends where its value is defined again (a loop recomputing it).
//!
//! One error per cause: the paths on which an operation is reached in a wrong typestate end
//! there for that state (its typestate set loses them), and so do the paths through a
//! pipeline operation the provenance rule rejected; nothing more is reported about them. A path that leaves the
//! function in a wrong typestate is reported where it leaves the part of the function that
//! could still have fixed it (the `return` or `break`), not at the function's end.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

use pliron::{
    context::{Context, Ptr},
    operation::Operation,
    r#type::Typed,
    value::{DefiningEntity, Value},
};

use super::{
    Rule,
    facts::{Fact, FactStore, StateId, VERSIONS_OVERFLOW, Versions, is_tracked},
    index::ScopeIndex,
    rules::{PipelineKind, Provenance, Reporter, role_of, state_created},
};
use crate::ir::{
    mir::{
        arith::{BinOp, BinOpKind, CastKind, CastOp},
        constant::ConstIntOp,
        control::{CondBrOp, ReturnOp},
        memory::{FieldAddrOp, IndexAddrOp, LoadOp, StoreOp},
        pointer_type_of,
    },
    semantic::pipeline::{PipelineRole, StateNewOp},
    types::AddressSpace,
};

// Typestates, as bits of a set of possibilities.
const NOT_CREATED: u16 = 1;
const READY: u16 = 2;
const ACQUIRED: u16 = 4;
const EXPECTING: u16 = 8;
const COPYING: u16 = 16;
const TAILED: u16 = 32;
const WAITING: u16 = 64;
const RELEASED: u16 = 128;

/// More paths than this at one block are joined into one (no guard assumed).
const MAX_PATHS: usize = 8;

fn describe_states(bits: u16) -> String {
    let names = [
        (NOT_CREATED, "not created"),
        (READY, "new or advanced"),
        (ACQUIRED, "acquired"),
        (EXPECTING, "expecting bytes no copy delivered yet"),
        (COPYING, "receiving its copies"),
        (TAILED, "after its tail"),
        (WAITING, "waiting on a stage"),
        (RELEASED, "released"),
    ];
    names.iter().filter(|(bit, _)| bits & bit != 0).map(|(_, name)| *name).collect::<Vec<_>>().join(" or ")
}

/// Bytes announced by a stage's `expect_tx` that the copies so far have not delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bytes {
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
    fn join(self, other: Bytes) -> Bytes {
        match (self, other) {
            (Bytes::Unset, x) | (x, Bytes::Unset) => x,
            (Bytes::Unknown, _) | (_, Bytes::Unknown) => Bytes::Unknown,
            (Bytes::Known(a), Bytes::Known(b)) if a == b => Bytes::Known(a),
            _ => Bytes::Mismatch,
        }
    }

    fn minus(self, delivered: Option<i64>) -> Bytes {
        match (self, delivered) {
            (Bytes::Known(left), Some(bytes)) => Bytes::Known(left - bytes),
            (Bytes::Mismatch, _) => Bytes::Mismatch,
            _ => Bytes::Unknown,
        }
    }
}

/// One state's typestate on one path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Typestate {
    bits: u16,
    bytes: Bytes,
    /// The versions the state may be at: the `semantic.state_new` or `semantic.state_advance`
    /// that made its current value (see [`Versions`]); zero before its creation.
    current: Versions,
}

impl Typestate {
    const NEW: Typestate = Typestate { bits: NOT_CREATED, bytes: Bytes::Unset, current: 0 };

    /// Joins `other` in; true when that changed `self`.
    fn join(&mut self, other: Typestate) -> bool {
        let joined = Typestate {
            bits: self.bits | other.bits,
            bytes: self.bytes.join(other.bytes),
            current: self.current | other.current,
        };
        let changed = joined != *self;
        *self = joined;
        changed
    }

    fn covers(&self, other: &Typestate) -> bool {
        let mut joined = *self;
        !joined.join(*other)
    }
}

/// Assumed outcomes of guards: (condition, outcome), each condition once, in no set order.
type Guards = Vec<(Value, bool)>;

/// One path into a block: what it assumes and each state's typestate.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Path {
    guards: Guards,
    row: Vec<Typestate>,
}

/// What an operation does to a state's typestate.
enum Step {
    New,
    Pipeline(PipelineKind),
    /// A load or store of the memory of a stage.
    StageAccess,
}

/// The states of one function, each with its slot in a typestate row.
struct Slots {
    /// State → slot.
    of: BTreeMap<StateId, usize>,
    /// Whether the state in each slot is a producer state.
    producer: Vec<bool>,
}

/// The analysis of one function: its steps, guards and slots.
struct FunctionRun<'a> {
    facts: &'a dyn FactStore,
    steps: &'a BTreeMap<usize, (StateId, Step)>,
    /// Operations after which states are poisoned (see [`Provenance::failed`]).
    poisons: &'a BTreeMap<usize, (usize, Option<StateId>)>,
    slots: Slots,
    /// Conditions of more than one `mir.cond_br` of the function.
    guards: HashSet<Value>,
}

/// Runs the typestate rules on every function that creates a state.
pub(crate) fn check_ordering(reporter: &mut Reporter, facts: &dyn FactStore, provenance: &Provenance) {
    let Provenance { applies_to, failed } = provenance;
    let (ctx, index) = (reporter.ctx, reporter.index);
    let mut steps: BTreeMap<usize, (StateId, Step)> = BTreeMap::new();
    // Pipeline operations the provenance rule rejected: (function, the state named, if any).
    let mut poisons: BTreeMap<usize, (usize, Option<StateId>)> = BTreeMap::new();
    let mut states_of: Vec<Vec<StateId>> = vec![Vec::new(); index.functions.len()];
    for (n, op) in index.ops.iter().enumerate() {
        if Operation::get_op::<StateNewOp>(*op, ctx).is_some() {
            let state = StateId(n as u32);
            steps.insert(n, (state, Step::New));
            if let Some(f) = index.function_of_op(ctx, *op) {
                states_of[f].push(state);
            }
        } else if let Some((state, kind)) = applies_to.get(&n) {
            steps.insert(n, (*state, Step::Pipeline(*kind)));
        } else if let Some(state) = failed.get(&n) {
            if let Some(f) = index.function_of_op(ctx, *op) {
                poisons.insert(n, (f, *state));
            }
        } else if let Some(state) = stage_access(ctx, facts, *op)
            && index.function_of_op(ctx, index.state_op(state)) == index.function_of_op(ctx, *op)
        {
            steps.insert(n, (state, Step::StageAccess));
        }
    }
    // Shared by the functions: each clears the in-states it set (`reached`) when done.
    let mut block_in: Vec<Vec<Path>> = vec![Vec::new(); index.blocks.len()];
    let mut queued = vec![false; index.blocks.len()];
    let mut reached = Vec::new();
    for (f, states) in states_of.iter().enumerate() {
        let blocks = index.blocks_of[f].clone();
        if states.is_empty() || blocks.is_empty() {
            continue;
        }
        let run = FunctionRun {
            facts,
            steps: &steps,
            poisons: &poisons,
            slots: Slots {
                of: states.iter().enumerate().map(|(i, s)| (*s, i)).collect(),
                producer: states
                    .iter()
                    .map(|s| role_of(ctx, index, *s) == Some(PipelineRole::Producer))
                    .collect(),
            },
            guards: correlated_guards(ctx, index, blocks.clone()),
        };
        let entry = blocks.start;
        block_in[entry] = vec![Path { guards: Vec::new(), row: vec![Typestate::NEW; states.len()] }];
        reached.push(entry);
        queued[entry] = true;
        let mut worklist = VecDeque::from([entry]);
        while let Some(b) = worklist.pop_front() {
            queued[b] = false;
            let paths = block_in[b].clone();
            for path in paths {
                for (succ, out) in run.block(reporter, b, path, None) {
                    if block_in[succ].is_empty() {
                        reached.push(succ);
                    }
                    if merge_path(&mut block_in[succ], out) && !queued[succ] {
                        queued[succ] = true;
                        worklist.push_back(succ);
                    }
                }
            }
        }
        // Report from the fixed point; keep each block's out-rows for locating exits.
        let mut found = Vec::new();
        let mut out_rows: HashMap<usize, Vec<Typestate>> = HashMap::new();
        for b in blocks.clone() {
            for path in block_in[b].clone() {
                for (_, out) in run.block(reporter, b, path, Some(&mut found)) {
                    match out_rows.get_mut(&b) {
                        Some(row) => {
                            for (into, from) in row.iter_mut().zip(&out.row) {
                                into.join(*from);
                            }
                        }
                        None => {
                            out_rows.insert(b, out.row);
                        }
                    }
                }
            }
        }
        let mut seen = BTreeSet::new();
        for (rule, op, message, state, exit) in found {
            let ops = match exit {
                Some(bad) => run.exit_points(ctx, index, op, state, bad, &out_rows),
                None => vec![],
            };
            let ops = if ops.is_empty() { vec![op] } else { ops };
            for op in ops {
                let number = index.op_number.get(&op).copied();
                if seen.insert((number, rule, state)) {
                    let related = vec![state_created(reporter, state)];
                    reporter.reject(rule, op, message.clone(), related);
                }
            }
        }
        for b in reached.drain(..) {
            block_in[b].clear();
        }
    }
}

/// Adds `incoming` to a block's paths; true when that changed them.
fn merge_path(paths: &mut Vec<Path>, incoming: Path) -> bool {
    let same_guards = |p: &Path| {
        p.guards.len() == incoming.guards.len() && p.guards.iter().all(|g| incoming.guards.contains(g))
    };
    if let Some(same) = paths.iter_mut().find(|p| same_guards(p)) {
        let mut changed = false;
        for (into, from) in same.row.iter_mut().zip(&incoming.row) {
            changed |= into.join(*from);
        }
        return changed;
    }
    // A path assuming less that already covers this one's typestates makes it redundant.
    let covered = paths.iter().any(|p| {
        p.guards.iter().all(|g| incoming.guards.contains(g))
            && p.row.iter().zip(&incoming.row).all(|(have, new)| have.covers(new))
    });
    if covered {
        return false;
    }
    paths.push(incoming);
    if paths.len() > MAX_PATHS {
        let mut row = paths[0].row.clone();
        for path in &paths[1..] {
            for (into, from) in row.iter_mut().zip(&path.row) {
                into.join(*from);
            }
        }
        *paths = vec![Path { guards: Vec::new(), row }];
    }
    true
}

/// The conditions that more than one `mir.cond_br` of the blocks tests.
fn correlated_guards(ctx: &Context, index: &ScopeIndex, blocks: std::ops::Range<usize>) -> HashSet<Value> {
    let mut tested = HashSet::new();
    let mut guards = HashSet::new();
    for b in blocks {
        let Some(n) = index.ops_of_block[b].clone().last() else { continue };
        let last = index.ops[n];
        if Operation::get_op::<CondBrOp>(last, ctx).is_some() {
            let condition = last.deref(ctx).get_operand(0);
            if !tested.insert(condition) {
                guards.insert(condition);
            }
        }
    }
    guards
}

/// (rule, op, message, state, the bad bits when the violation is a path leaving the function).
type Found = (Rule, Ptr<Operation>, String, StateId, Option<u16>);

impl FunctionRun<'_> {
    /// Runs block `b` on one path; returns the path into each successor the block's
    /// terminator can take on it. With `report`, collects violations.
    fn block(
        &self,
        reporter: &Reporter,
        b: usize,
        mut path: Path,
        mut report: Option<&mut Vec<Found>>,
    ) -> Vec<(usize, Path)> {
        let (ctx, index) = (reporter.ctx, reporter.index);
        let block = index.blocks[b];
        if !self.guards.is_empty() {
            for arg in block.deref(ctx).arguments() {
                path.guards.retain(|(guard, _)| *guard != arg);
            }
        }
        let mut last = None;
        for n in index.ops_of_block[b].clone() {
            let op = index.ops[n];
            last = Some(op);
            if !self.guards.is_empty() && !path.guards.is_empty() {
                for result in op.deref(ctx).results() {
                    path.guards.retain(|(guard, _)| *guard != result);
                }
            }
            if Operation::get_op::<ReturnOp>(op, ctx).is_some() {
                if let Some(report) = report.as_deref_mut() {
                    self.unfinished(&path.row, op, report);
                }
                continue;
            }
            if let Some((_, named)) = self.poisons.get(&n) {
                for (s, i) in &self.slots.of {
                    if named.is_none_or(|named| named == *s) {
                        path.row[*i].bits = 0;
                    }
                }
                continue;
            }
            let Some((s, step)) = self.steps.get(&n) else { continue };
            let Some(i) = self.slots.of.get(s).copied() else { continue };
            let producer = self.slots.producer[i];
            if let Some((rule, message)) = self.step(reporter, op, step, producer, &mut path.row[i])
                && let Some(report) = report.as_deref_mut()
            {
                report.push((rule, op, message, *s, None));
            }
        }
        let Some(last) = last else { return Vec::new() };
        if let Some(cond) = Operation::get_op::<CondBrOp>(last, ctx).map(|_| last.deref(ctx).get_operand(0))
            && self.guards.contains(&cond)
        {
            let targets = {
                let op = last.deref(ctx);
                [(op.get_successor(0), true), (op.get_successor(1), false)]
            };
            let assumed = path.guards.iter().find(|(guard, _)| *guard == cond).map(|(_, v)| *v);
            return targets
                .into_iter()
                .filter(|(_, outcome)| assumed.is_none_or(|v| v == *outcome))
                .filter_map(|(target, outcome)| {
                    let succ = *index.block_number.get(&target)?;
                    let mut out = path.clone();
                    if assumed.is_none() {
                        out.guards.push((cond, outcome));
                    }
                    Some((succ, out))
                })
                .collect();
        }
        index.succs[b].iter().map(|succ| (*succ, path.clone())).collect()
    }

    /// Applies one step to a state's typestate; returns the violation, if any.
    fn step(
        &self,
        reporter: &Reporter,
        op: Ptr<Operation>,
        step: &Step,
        producer: bool,
        typestate: &mut Typestate,
    ) -> Option<(Rule, String)> {
        let ctx = reporter.ctx;
        let live = typestate.bits;
        let (allowed, next, rule, what) = transition(step, producer);
        let bad = live & !allowed;
        let mut violation = None;
        if bad != 0 {
            let name = reporter.op_name(op);
            let after_tail = producer && bad & TAILED != 0;
            let message = if after_tail && !matches!(step, Step::Pipeline(PipelineKind::Tail)) {
                format!(
                    "`{name}` is reachable after `semantic.producer_tail`: the tail must come after the \
                     producer loop, not inside it"
                )
            } else {
                format!("{what}; on some path the state here is {}", describe_states(bad))
            };
            violation = Some((if after_tail { Rule::ProducerTail } else { rule }, message));
        }
        let stale = live & allowed != 0 && self.stale(ctx, op, step, typestate.current);
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
        let mut bytes = typestate.bytes;
        if live & allowed != 0 {
            match step {
                Step::New => bytes = Bytes::Unset,
                Step::Pipeline(PipelineKind::ExpectTx) => {
                    bytes = match constant_operand(ctx, op, 1) {
                        Some(announced) => Bytes::Known(announced),
                        None => Bytes::Unknown,
                    };
                }
                Step::Pipeline(PipelineKind::BulkCopy) => {
                    bytes = bytes.minus(constant_operand(ctx, op, 2));
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
        let bits = if live & allowed != 0 { next } else { 0 };
        let current = match step {
            Step::New | Step::Pipeline(PipelineKind::Advance) => {
                self.facts.versions(op.deref(ctx).get_result(0))
            }
            _ => typestate.current,
        };
        *typestate = Typestate { bits, bytes, current };
        violation
    }

    /// Whether pipeline operation `op` works on a value of its state that may not be the
    /// current one: some version the state may be at on this path is not among the versions
    /// its stage operand may hold. Not compared when either side is unknown or overflowed.
    fn stale(&self, ctx: &Context, op: Ptr<Operation>, step: &Step, current: Versions) -> bool {
        let Step::Pipeline(kind) = step else { return false };
        let (stage, _) = kind.operands();
        let operand = self.facts.versions(op.deref(ctx).get_operand(stage));
        if current == 0 || operand == 0 || (current | operand) & VERSIONS_OVERFLOW != 0 {
            return false;
        }
        current & !operand != 0
    }

    /// At a `mir.return`: a producer must have run its tail, a consumer must not hold a stage.
    fn unfinished(&self, row: &[Typestate], op: Ptr<Operation>, report: &mut Vec<Found>) {
        for (s, i) in &self.slots.of {
            let live = row[*i].bits;
            if self.slots.producer[*i] {
                let bad = live & (READY | ACQUIRED | EXPECTING | COPYING);
                if bad != 0 {
                    let message = "a path leaves the function with a producer state that never reached \
                                   `semantic.producer_tail`"
                        .to_string();
                    report.push((Rule::ProducerTail, op, message, *s, Some(bad)));
                }
            } else if live & WAITING != 0 {
                let message =
                    "a path leaves the function while a consumer waits on a stage it never released"
                        .to_string();
                report.push((Rule::ConsumerOrder, op, message, *s, Some(WAITING)));
            }
        }
    }

    /// Where paths that reach `ret` with `state` in a `bad` typestate leave the part of the
    /// function that could still have fixed it: the first operation of each first block past
    /// the last one that can reach a step on the state (the `return` or `break`). Empty when
    /// the return itself is that point.
    fn exit_points(
        &self,
        ctx: &Context,
        index: &ScopeIndex,
        ret: Ptr<Operation>,
        state: StateId,
        bad: u16,
        out_rows: &HashMap<usize, Vec<Typestate>>,
    ) -> Vec<Ptr<Operation>> {
        let (Some(&slot), Some(ret_block)) = (self.slots.of.get(&state), index.block_of_op(ctx, ret)) else {
            return Vec::new();
        };
        let function = index.blocks_of[index.block_function[ret_block]].clone();
        // Blocks from which some path reaches a step on the state (the step's block included).
        let mut can_fix = vec![false; function.len()];
        let mut pending: Vec<usize> = self
            .steps
            .iter()
            .filter(|(_, (s, _))| *s == state)
            .filter_map(|(n, _)| index.block_of_op(ctx, index.ops[*n]))
            .collect();
        while let Some(b) = pending.pop() {
            if std::mem::replace(&mut can_fix[b - function.start], true) {
                continue;
            }
            pending.extend(index.preds[b].iter().copied());
        }
        if can_fix[ret_block - function.start] {
            return Vec::new();
        }
        let carries_bad = |b: usize| out_rows.get(&b).is_some_and(|row| row[slot].bits & bad != 0);
        let mut visited = vec![false; function.len()];
        let mut walk = vec![ret_block];
        let mut exits = Vec::new();
        while let Some(x) = walk.pop() {
            if std::mem::replace(&mut visited[x - function.start], true) {
                continue;
            }
            for &p in &index.preds[x] {
                if !carries_bad(p) {
                    continue;
                }
                if can_fix[p - function.start] {
                    exits.push(x);
                } else {
                    walk.push(p);
                }
            }
        }
        exits.sort_unstable();
        exits.dedup();
        // The block's first operation: rustc gives a `return` block's jump the function's
        // closing brace, and its first statement (`_0 = ()`) the `return` itself.
        exits.into_iter().filter_map(|x| index.ops.get(index.ops_of_block[x].start).copied()).collect()
    }
}

/// For a step: the typestates it is allowed in, the typestate after it, the rule a wrong
/// typestate breaks, and what the rule says.
fn transition(step: &Step, producer: bool) -> (u16, u16, Rule, &'static str) {
    let order = if producer { Rule::ProducerOrder } else { Rule::ConsumerOrder };
    match step {
        Step::New => (
            NOT_CREATED,
            READY,
            order,
            "a pipeline state must be created once per thread, before its loop: created again, it \
             restarts at stage 0 while the barriers have moved on (a deadlock or a stale read)",
        ),
        Step::StageAccess if producer => (
            ACQUIRED,
            ACQUIRED,
            Rule::ProducerOrder,
            "a producer may touch a stage only between `semantic.producer_acquire` and \
             `semantic.producer_expect_tx` (before, consumers may still read it; after, a copy is in flight)",
        ),
        Step::StageAccess => (
            WAITING,
            WAITING,
            Rule::ConsumerOrder,
            "an access to a stage must come after `semantic.consumer_wait` and before `semantic.consumer_release`",
        ),
        Step::Pipeline(kind) => match kind {
            PipelineKind::Acquire => (
                READY,
                ACQUIRED,
                Rule::ProducerOrder,
                "`semantic.producer_acquire` must follow the state's creation or `semantic.state_advance`",
            ),
            PipelineKind::ExpectTx => (
                ACQUIRED,
                EXPECTING,
                Rule::ProducerOrder,
                "`semantic.producer_expect_tx` must follow `semantic.producer_acquire`",
            ),
            PipelineKind::BulkCopy => (
                EXPECTING | COPYING,
                COPYING,
                Rule::ProducerOrder,
                "`semantic.bulk_copy` must come between `semantic.producer_expect_tx` and `semantic.state_advance`",
            ),
            PipelineKind::Advance if producer => (
                COPYING,
                READY,
                Rule::ProducerOrder,
                "a producer's `semantic.state_advance` must follow `semantic.producer_expect_tx` and the \
                 `semantic.bulk_copy` that delivers its bytes, on every path",
            ),
            PipelineKind::Advance => (
                RELEASED,
                READY,
                Rule::ConsumerOrder,
                "a consumer's `semantic.state_advance` must follow `semantic.consumer_release`",
            ),
            PipelineKind::Tail => (
                READY,
                TAILED,
                Rule::ProducerTail,
                "`semantic.producer_tail` must come after the producer loop, with no stage acquired",
            ),
            PipelineKind::Wait => (
                READY,
                WAITING,
                Rule::ConsumerOrder,
                "`semantic.consumer_wait` must follow the state's creation or `semantic.state_advance`",
            ),
            PipelineKind::Release => (
                WAITING,
                RELEASED,
                Rule::ConsumerOrder,
                "`semantic.consumer_release` must follow `semantic.consumer_wait`",
            ),
        },
    }
}

/// The value of operand `i` of `op` when it is a constant (see [`constant_value`]).
fn constant_operand(ctx: &Context, op: Ptr<Operation>, i: usize) -> Option<i64> {
    constant_value(ctx, op.deref(ctx).get_operand(i), 4)
}

/// The value of a `mir.const_int`, or of arithmetic on constants up to `depth` operations
/// deep (`2 * TILE_BYTES` and `TILE_BYTES / 2` reach MIR as operations on two constants).
pub(crate) fn constant_value(ctx: &Context, value: Value, depth: u32) -> Option<i64> {
    let def = value.defining_op()?;
    if let Some(constant) = Operation::get_op::<ConstIntOp>(def, ctx) {
        return Some(constant.get_attr_int_value(ctx)?.value().to_u64() as i64);
    }
    let binop = Operation::get_op::<BinOp>(def, ctx)?;
    if depth == 0 {
        return None;
    }
    let (lhs, rhs) = {
        let operation = def.deref(ctx);
        (operation.get_operand(0), operation.get_operand(1))
    };
    let (a, b) = (constant_value(ctx, lhs, depth - 1)?, constant_value(ctx, rhs, depth - 1)?);
    match binop.kind(ctx)? {
        BinOpKind::Add => a.checked_add(b),
        BinOpKind::Sub => a.checked_sub(b),
        BinOpKind::Mul => a.checked_mul(b),
        BinOpKind::Div => a.checked_div(b),
        BinOpKind::Shl => u32::try_from(b).ok().and_then(|b| a.checked_shl(b)),
        BinOpKind::Shr => u32::try_from(b).ok().and_then(|b| a.checked_shr(b)),
        _ => None,
    }
}

/// The state whose stage a `mir.load` or `mir.store` accesses: its address points into
/// shared memory and is computed (through `mir.index_addr`, `mir.field_addr` and pointer
/// casts) with an offset that derives, through arithmetic and integer casts of any width,
/// from a state's stage index.
fn stage_access(ctx: &Context, facts: &dyn FactStore, op: Ptr<Operation>) -> Option<StateId> {
    let address = if Operation::get_op::<LoadOp>(op, ctx).is_some() {
        op.deref(ctx).get_operand(0)
    } else if Operation::get_op::<StoreOp>(op, ctx).is_some() {
        op.deref(ctx).get_operand(1)
    } else {
        return None;
    };
    if pointer_type_of(ctx, address.get_type(ctx)).is_none_or(|ptr| ptr.space() != AddressSpace::Shared) {
        return None;
    }
    let mut address = address;
    for _ in 0..64 {
        let op = address.defining_op()?;
        if Operation::get_op::<IndexAddrOp>(op, ctx).is_some() {
            let mut budget = 16;
            if let Some(state) = offset_state(ctx, facts, op.deref(ctx).get_operand(1), &mut budget) {
                return Some(state);
            }
            address = op.deref(ctx).get_operand(0);
        } else if Operation::get_op::<FieldAddrOp>(op, ctx).is_some()
            || Operation::get_op::<CastOp>(op, ctx)
                .is_some_and(|cast| cast.kind(ctx) == Some(CastKind::PtrToPtr))
        {
            address = op.deref(ctx).get_operand(0);
        } else {
            return None;
        }
    }
    None
}

/// The state an offset derives from, looking through at most `budget` arithmetic operations
/// and integer casts.
fn offset_state(ctx: &Context, facts: &dyn FactStore, offset: Value, budget: &mut u32) -> Option<StateId> {
    if is_tracked(ctx, offset)
        && let Some(Fact::Index(state) | Fact::Derived(state)) = facts.get(offset)
    {
        return Some(state);
    }
    if *budget == 0 {
        return None;
    }
    *budget -= 1;
    let DefiningEntity::Op(def) = offset.defining_entity() else { return None };
    let walk = Operation::get_op::<BinOp>(def, ctx).is_some()
        || Operation::get_op::<CastOp>(def, ctx)
            .is_some_and(|cast| cast.kind(ctx) == Some(CastKind::IntToInt));
    if !walk {
        return None;
    }
    let operands: Vec<Value> = def.deref(ctx).operands().collect();
    operands.into_iter().find_map(|operand| offset_state(ctx, facts, operand, budget))
}
