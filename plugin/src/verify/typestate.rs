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

mod call_poisons;
mod copies;
mod copy_loops;
mod dispatch;
mod dominators;
mod exits;
mod foreign;
mod paths;
mod step;

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

use rustc_hash::{FxHashMap, FxHashSet};

use pliron::{
    context::{Context, Ptr},
    operation::Operation,
    r#type::Typed,
    value::Value,
};

use super::call_order::{callee_first, calls_in, gather_from_callees};
use super::{
    Rule,
    descriptors::multiply_stage,
    facts::{Fact, FactStore, KEEP, StateId},
    flow::Flow,
    guards::{BranchGuards, branch_guards},
    index::{OpClass, ScopeIndex},
    memory::{LocalStores, StageWalk, offset_index, stage_handed_to_call, stage_pointer},
    protocol::{ALL_BITS, Bytes, HOLDS_PREVIOUS, Step, Typestate, entry_bytes, stale_versions},
    rules::{PipelineKind, Provenance, Reporter, role_of, state_created},
    thread_model::SharedThreadModel,
};
use call_poisons::CallPoisons;
use copies::{Copies, store_copy};
use copy_loops::CopyLoops;
use dispatch::Dispatches;
use foreign::{ForeignAccess, foreign_accesses};
use paths::{Path, merge_path};

use crate::ir::{
    mir::control::CondBrOp,
    semantic::{
        memory::BulkCopyOp,
        pipeline::{PipelineRole, ProducerExpectTxOp, StateNewOp},
    },
};

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
    /// Each operation's step (by number), if it is one: a dense table, read in scope order.
    steps: &'a [Option<(StateId, Step)>],
    /// For each load or store of a stage, the value of the state's index its stage pointer's
    /// offset derives from: its versions say which value of the state it was taken from.
    access_offsets: &'a FxHashMap<usize, Value>,
    /// For each bulk copy whose destination's stage index was traced, the value of the state's
    /// index it derives from (see `access_offsets`).
    copy_destinations: &'a FxHashMap<usize, Value>,
    /// Operations after which states are poisoned (see [`Provenance::failed`]).
    poisons: &'a Poisons,
    /// The same, reached through each function's calls.
    call_poisons: &'a CallPoisons,
    /// The summaries of the functions done so far (callees come first).
    summaries: &'a [Option<Summary>],
    /// Calls closing a cycle of calls: not followed (the states they touch end there).
    cyclic: &'a FxHashSet<usize>,
    slots: Slots,
    /// The counted loops of copies, each taken whole where its loop is entered.
    copy_loops: &'a CopyLoops,
    /// The loops dispatching by a `match` the paths do not follow: their findings are undecided.
    dispatches: &'a Dispatches,
    /// Each function's stage accesses (its own and its callees') through a pointer computed
    /// outside it, checked at the calls made where the pointer was computed.
    foreign: &'a [Vec<ForeignAccess>],
    /// The byte count of each `expect_tx` and bulk copy (by number) that is a constant, read
    /// through memory and calls ([`Flow::constant`]).
    byte_counts: &'a FxHashMap<usize, i64>,
    /// The function this run is of.
    function: usize,
    /// The function's branch conditions: which are one guard, which are tested more than once.
    guards: BranchGuards,
    /// Which value of a state each step is handed, and the stores into the states' copies.
    copies: &'a Copies,
    /// Operations where a path ended because a consumer held its previous stage in a way the
    /// typestate does not follow (a second advance, a helper advancing the state): undecided.
    unfollowed: &'a RefCell<BTreeSet<usize>>,
    /// Operations the kernel's run reaches with a state on some path not created
    /// (`UNCREATED_PATH`): undecided.
    uncreated: &'a RefCell<BTreeSet<usize>>,
    /// Whether the blocks run now report (not the fixed point's runs, whose intermediate
    /// states may hold a stage no final one does).
    recording: Cell<bool>,
}

/// What a call of a function does to one state that enters it in one typestate.
#[derive(Clone, Debug)]
struct Effect {
    /// The typestate on the function's returns ([`KEEP`] in `current`: some path leaves the
    /// caller's version as it was).
    out: Typestate,
    /// What the function's operations break on the way, reported where they are.
    violations: Vec<Found>,
}

impl Effect {
    /// Whether some path through the function advances the state (a version of its own in
    /// `current`, beside or instead of [`KEEP`]).
    fn advances(&self) -> bool {
        self.out.current & !KEEP != 0
    }
}

/// A function's summary: for each typestate bit a state may enter in, the effect on every
/// state the function touches (its own steps and its callees'). Computed once per function,
/// applied at each of its calls: the cost is a constant factor (8 runs) over one run.
type Summary = BTreeMap<StateId, [Option<Effect>; ALL_BITS.len()]>;

/// The pipeline operations the provenance rule rejected, by operation number: the function each
/// is in and the state it names, if any.
type Poisons = FxHashMap<usize, (usize, Option<StateId>)>;

/// Runs the typestate rules: every function's summary bottom-up, then each root (the kernel,
/// and any function no call reaches) with the states it touches, reporting. Returns the copies
/// taken whole at their counted loop's entry, each with its passes (operation number → passes),
/// for the layout rule to hold their destinations to it, and what it could not check.
pub(crate) fn check_ordering(
    reporter: &mut Reporter,
    facts: &dyn FactStore,
    locals: &LocalStores,
    returns: &[Vec<usize>],
    provenance: &Provenance,
    threads: &SharedThreadModel,
    byte_counts: &FxHashMap<usize, i64>,
) -> (FxHashMap<usize, i64>, Vec<String>) {
    let Provenance { applies_to, failed, .. } = provenance;
    let (ctx, index) = (reporter.ctx, reporter.index);
    let mut steps: Vec<Option<(StateId, Step)>> = (0..index.ops.len()).map(|_| None).collect();
    // Pipeline operations the provenance rule rejected: (function, the state named, if any).
    // Kept by operation number in maps: few operations have either, and vectors over every
    // operation of a large scope were tens of megabytes of fresh memory a run.
    let mut poisons = Poisons::default();
    let mut touched: Vec<BTreeSet<StateId>> = vec![BTreeSet::new(); index.functions.len()];
    let mut access_offsets: FxHashMap<usize, Value> = FxHashMap::default();
    let mut copy_destinations: FxHashMap<usize, Value> = FxHashMap::default();
    // Stage loads and stores whose stage pointer's index was not found: whether they read the
    // state's current stage is not known.
    let mut untraced = 0;
    // Steps are pipeline operations, stage accesses and calls handed a stage.
    let may_step =
        |class| matches!(class, OpClass::Semantic | OpClass::Load | OpClass::Store | OpClass::Call);
    for (n, op) in index.ops_where(may_step) {
        let function = index.block_function[index.op_block[n]];
        let semantic = index.op_class[n] == OpClass::Semantic;
        let step = if semantic && Operation::get_op::<StateNewOp>(op, ctx).is_some() {
            Some((StateId(n as u32), Step::New))
        } else if let Some((state, kind)) = applies_to.get(&n).filter(|_| semantic) {
            Some((*state, Step::Pipeline(*kind)))
        } else if let Some(state) = failed.get(&n).filter(|_| semantic) {
            poisons.insert(n, (function, *state));
            None
        } else if semantic && let Some((state, stage_index)) = multiply_stage(ctx, facts, locals, op) {
            // A wgmma multiply reads the stage its tiles are addressed in.
            access_offsets.insert(n, stage_index);
            Some((state, Step::StageAccess))
        } else {
            let walk = StageWalk { facts, locals, index, returns };
            // A load or store: one walk to its stage pointer gives the state and the index the
            // stage was picked with; a call handed a stage likewise.
            let found = match index.accessed_address(n) {
                Some(address) => stage_pointer(ctx, &walk, address),
                None => stage_handed_to_call(ctx, &walk, op).map(|(state, _, stage)| (state, stage)),
            };
            if let Some((_, stage)) = found {
                let picked = stage
                    .offset(ctx)
                    .and_then(|offset| offset_index(ctx, facts, offset, &mut { OFFSET_INDEX_BUDGET }));
                match picked {
                    Some(source) => {
                        access_offsets.insert(n, source);
                    }
                    None => untraced += 1,
                }
            }
            found.map(|(state, _)| (state, Step::StageAccess))
        };
        if let Some((state, step)) = step {
            // A copy's destination, traced once to the value of the stage index it was computed
            // from: which version of the state that is does not depend on the path.
            if matches!(step, Step::Pipeline(PipelineKind::BulkCopy))
                && let Some(source) =
                    offset_index(ctx, facts, op.deref(ctx).get_operand(0), &mut { OFFSET_INDEX_BUDGET })
            {
                copy_destinations.insert(n, source);
            }
            touched[function].insert(state);
            steps[n] = Some((state, step));
        }
    }
    // Functions in callee-first order; calls closing a cycle are not followed.
    let (order, cyclic) = callee_first(index);
    let foreign = foreign_accesses(index, &steps, &access_offsets, &order, &cyclic);
    let mut not_checked = Vec::new();
    if untraced > 0 {
        not_checked.push(format!(
            "whether {untraced} stage accesses read the state's current stage (the index their stage pointer \
             was computed from is not traced)"
        ));
    }
    gather_from_callees(index, &order, &mut touched, |into, from| into.extend(from.iter().copied()));
    let call_poisons = CallPoisons::of(index, &poisons, &order);
    let copy_loops = CopyLoops::of(ctx, index, threads, &steps, &poisons, &touched);
    let dispatches = Dispatches::of(ctx, index, &steps, &touched);
    let copies = Copies::of(ctx, index, facts, locals, &steps, &access_offsets, &foreign);
    let unfollowed = RefCell::new(BTreeSet::new());
    let uncreated = RefCell::new(BTreeSet::new());
    let mut summaries: Vec<Option<Summary>> = vec![None; index.functions.len()];
    // Shared by the runs: each clears the in-states it set when done.
    let mut scratch =
        Scratch { block_in: vec![Vec::new(); index.blocks.len()], queued: vec![false; index.blocks.len()] };
    for f in order {
        let states: Vec<StateId> = touched[f].iter().copied().collect();
        if states.is_empty() || index.blocks_of[f].is_empty() {
            continue;
        }
        let run = FunctionRun {
            facts,
            access_offsets: &access_offsets,
            copy_destinations: &copy_destinations,
            steps: &steps,
            poisons: &poisons,
            call_poisons: &call_poisons,
            summaries: &summaries,
            cyclic: &cyclic,
            copy_loops: &copy_loops,
            dispatches: &dispatches,
            foreign: &foreign,
            byte_counts,
            function: f,
            slots: Slots {
                of: states.iter().enumerate().map(|(i, s)| (*s, i)).collect(),
                producer: states
                    .iter()
                    .map(|s| role_of(ctx, index, *s) == Some(PipelineRole::Producer))
                    .collect(),
            },
            guards: branch_guards(ctx, index, index.blocks_of[f].clone()),
            copies: &copies,
            unfollowed: &unfollowed,
            uncreated: &uncreated,
            recording: Cell::new(false),
        };
        if index.callers[f].is_empty() {
            run.check_root(reporter, f, &mut scratch);
            if !foreign[f].is_empty() {
                not_checked.push(format!(
                    "whether {} stage accesses read the state's current stage (their stage pointer is computed in \
                     a function that does not call toward them)",
                    foreign[f].len()
                ));
            }
        } else {
            summaries[f] = Some(run.summarise(reporter, f, &mut scratch));
        }
    }
    let (passes, uncounted) = copy_loops.finish();
    not_checked.extend(uncounted);
    let unfollowed = unfollowed.into_inner().len();
    if unfollowed > 0 {
        not_checked.push(format!(
            "the order of {unfollowed} pipeline operations on a consumer state holding its previous stage \
             (advanced again before that stage's release, or handed to a helper that advances it), or \
             handed a copy of the state loaded before a store into the copy (which value it is, is not known), \
             or read through a stage pointer computed before a call that may advance the state before the read"
        ));
    }
    let uncreated = uncreated.into_inner().len();
    if uncreated > 0 {
        not_checked.push(format!(
            "the order of {uncreated} pipeline operations reached, on a path the typestate joins but no launch \
             runs, by a state not created there (a state a helper creates on one of its paths and returns in \
             an enum the caller matches)"
        ));
    }
    not_checked.extend(dispatches.finish());
    (passes, not_checked)
}

/// The value of its state step `n` works on: a pipeline operation's state operand, or the
/// state's index a stage access's stage was picked with (`None` where that was not found, and
/// for a creation).
fn worked_on(
    ctx: &Context,
    index: &ScopeIndex,
    access_offsets: &FxHashMap<usize, Value>,
    n: usize,
    step: &Step,
) -> Option<Value> {
    match step {
        Step::Pipeline(kind) => Some(index.ops[n].deref(ctx).get_operand(kind.operands().0)),
        Step::StageAccess => access_offsets.get(&n).copied(),
        Step::New => None,
    }
}

/// Arithmetic operations and casts looked through from a stage offset to its state's index.
pub(super) const OFFSET_INDEX_BUDGET: u32 = 16;

/// Per-block in-states, shared by the runs.
struct Scratch {
    block_in: Vec<Vec<Path>>,
    queued: Vec<bool>,
}

/// (rule, op, message, state, the bad bits when the violation is a path leaving the function).
type Found = (Rule, Ptr<Operation>, String, StateId, Option<u16>);

/// The message of a violation whose only bad typestate is "not created" (`typestate/step.rs`):
/// not a rejection but an operation left unjudged, where the kernel's run reports it.
pub(super) const UNCREATED_PATH: &str = "the state is not created on some path the typestate joined";

/// How a run of a function's blocks is used.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// The fixed point: nothing collected.
    Solve,
    /// A root's report: violations, and states left unfinished at its returns.
    Root,
    /// A summary's report: violations; the typestates at the returns.
    Summary,
}

impl FunctionRun<'_> {
    /// Ends the judgement of operation `n` as not followed (undecided), in the runs that report.
    fn not_followed(&self, n: usize) {
        if self.recording.get() {
            self.unfollowed.borrow_mut().insert(n);
        }
    }

    /// The fixed point of function `f`'s blocks from `entry_row` at its entry; returns the
    /// blocks it reached (their in-states are in `scratch` until cleared).
    fn solve(
        &self,
        reporter: &Reporter,
        f: usize,
        entry_row: Vec<Typestate>,
        scratch: &mut Scratch,
    ) -> Vec<usize> {
        let index = reporter.index;
        let entry = index.blocks_of[f].start;
        let mut reached = vec![entry];
        scratch.block_in[entry] = vec![Path { guards: Vec::new(), row: entry_row }];
        scratch.queued[entry] = true;
        let mut worklist = VecDeque::from([entry]);
        while let Some(b) = worklist.pop_front() {
            scratch.queued[b] = false;
            let paths = scratch.block_in[b].clone();
            for path in paths {
                for (succ, out) in self.block(reporter, b, path, Mode::Solve, &mut Vec::new(), &mut None) {
                    if scratch.block_in[succ].is_empty() {
                        reached.push(succ);
                    }
                    if merge_path(&mut scratch.block_in[succ], out) && !scratch.queued[succ] {
                        scratch.queued[succ] = true;
                        worklist.push_back(succ);
                    }
                }
            }
        }
        reached
    }

    /// A root function (the kernel, or one no call reaches): its states start not created;
    /// every violation is reported, and paths leaving it with a state unfinished.
    fn check_root(&self, reporter: &mut Reporter, f: usize, scratch: &mut Scratch) {
        let index = reporter.index;
        let reached = self.solve(reporter, f, vec![Typestate::NEW; self.slots.producer.len()], scratch);
        // Report from the fixed point; keep each block's out-rows for locating exits.
        let mut found = Vec::new();
        let mut out_rows: FxHashMap<usize, Vec<Typestate>> = FxHashMap::default();
        for b in index.blocks_of[f].clone() {
            for path in scratch.block_in[b].clone() {
                for (_, out) in self.block(reporter, b, path, Mode::Root, &mut found, &mut None) {
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
        for b in reached {
            scratch.block_in[b].clear();
        }
        let mut seen = BTreeSet::new();
        for (rule, op, message, state, exit) in found {
            let ops = match exit {
                Some(bad) => self.exit_points(index, op, state, bad, &out_rows),
                None => vec![],
            };
            let ops = if ops.is_empty() { vec![op] } else { ops };
            for op in ops {
                let number = index.op_number.get(&op).copied();
                if number.is_some_and(|n| self.dispatches.excuses_finding(index.op_block[n], state)) {
                    continue;
                }
                if message == UNCREATED_PATH {
                    if let Some(n) = number {
                        self.uncreated.borrow_mut().insert(n);
                    }
                    continue;
                }
                if seen.insert((number, rule, state)) {
                    let related = vec![state_created(reporter, state)];
                    reporter.reject(rule, op, message.clone(), related);
                }
            }
        }
    }

    /// The summary of a called function: one run per typestate a state may enter in (every
    /// state it touches entering in that typestate; the states are independent).
    fn summarise(&self, reporter: &Reporter, f: usize, scratch: &mut Scratch) -> Summary {
        let index = reporter.index;
        let mut summary: Summary = self.slots.of.keys().map(|s| (*s, Default::default())).collect();
        for (bit, effects) in ALL_BITS.iter().enumerate() {
            let start =
                Typestate { bits: *effects, bytes: entry_bytes(*effects), current: KEEP, ..Typestate::NEW };
            let reached = self.solve(reporter, f, vec![start; self.slots.producer.len()], scratch);
            let mut found = Vec::new();
            let mut returned: Option<Vec<Typestate>> = None;
            for b in index.blocks_of[f].clone() {
                for path in scratch.block_in[b].clone() {
                    self.block(reporter, b, path, Mode::Summary, &mut found, &mut returned);
                }
            }
            for b in reached {
                scratch.block_in[b].clear();
            }
            for (s, i) in &self.slots.of {
                let out = returned.as_ref().map_or(Typestate::NONE, |row| row[*i]);
                let violations = found.iter().filter(|found| found.3 == *s).cloned().collect();
                if let Some(effects) = summary.get_mut(s) {
                    effects[bit] = Some(Effect { out, violations });
                }
            }
        }
        summary
    }

    /// Applies the summary of the function called by `call` to the row; with `report`,
    /// collects what the callee breaks and stale states handed to it.
    fn apply_call(
        &self,
        reporter: &Reporter,
        call: Ptr<Operation>,
        summary: &Summary,
        row: &mut [Typestate],
        report: &mut Option<&mut Vec<Found>>,
    ) {
        let ctx = reporter.ctx;
        for (s, effects) in summary {
            let Some(&i) = self.slots.of.get(s) else { continue };
            let before = row[i];
            if before.bits == 0 {
                continue;
            }
            // The state handed in must be its current value.
            let handed = call
                .deref(ctx)
                .operands()
                .find(|v| matches!(self.facts.get(*v), Some(Fact::Index(state)) if state == *s));
            if let Some(value) = handed
                && stale_versions(before.current, self.facts.versions(value))
            {
                if let Some(report) = report.as_deref_mut() {
                    let message = format!(
                        "`{}` is handed a stale copy of the state: on some path the state was advanced \
                         after this copy was taken (two copies of a state are two values)",
                        reporter.op_name(call)
                    );
                    let rule = if self.slots.producer[i] { Rule::ProducerOrder } else { Rule::ConsumerOrder };
                    report.push((rule, call, message, *s, None));
                }
                row[i].bits = 0;
                continue;
            }
            let mut after = Typestate::NONE;
            for (bit, effect) in effects.iter().enumerate() {
                if before.bits & ALL_BITS[bit] == 0 {
                    continue;
                }
                let Some(effect) = effect else { continue };
                let bytes = match (entry_bytes(ALL_BITS[bit]), effect.out.bytes, before.bytes) {
                    // Entered owing bytes: the callee's copies are subtracted from the caller's.
                    (Bytes::Known(0), Bytes::Known(delivered), Bytes::Known(owed)) => {
                        Bytes::Known(owed + delivered)
                    }
                    (Bytes::Known(0), Bytes::Known(_) | Bytes::Unknown, _) => Bytes::Unknown,
                    (_, out, _) => out,
                };
                let current = (effect.out.current & !KEEP)
                    | if effect.out.current & KEEP != 0 { before.current } else { 0 };
                // A held previous stage is followed through a helper only where the helper
                // neither advances the state nor leaves a stage of its own held.
                let advances = effect.advances();
                if effect.out.holds & HOLDS_PREVIOUS != 0 || (before.holds & HOLDS_PREVIOUS != 0 && advances)
                {
                    if let Some(&n) = reporter.index.op_number.get(&call) {
                        self.not_followed(n);
                    }
                    continue;
                }
                let (current_copies, previous_copies) =
                    if advances { (0, 0) } else { (before.current_copies, before.previous_copies) };
                after.join(Typestate {
                    bits: effect.out.bits,
                    bytes,
                    current,
                    holds: before.holds,
                    current_copies,
                    previous_copies,
                });
                if let Some(report) = report.as_deref_mut() {
                    report.extend(effect.violations.iter().cloned());
                }
            }
            row[i] = after;
        }
    }

    /// Runs block `b` on one path; returns the path into each successor the block's
    /// terminator can take on it. Outside [`Mode::Solve`], collects violations into `found`
    /// and (for a summary) joins the typestates at a `mir.return` into `returned`.
    fn block(
        &self,
        reporter: &Reporter,
        b: usize,
        mut path: Path,
        mode: Mode,
        found: &mut Vec<Found>,
        returned: &mut Option<Vec<Typestate>>,
    ) -> Vec<(usize, Path)> {
        let mut report = if mode == Mode::Solve { None } else { Some(found) };
        self.recording.set(mode != Mode::Solve);
        let (ctx, index) = (reporter.ctx, reporter.index);
        let block = index.blocks[b];
        if !self.guards.correlated.is_empty() {
            for arg in block.deref(ctx).arguments() {
                path.guards.retain(|(guard, _)| *guard != arg);
            }
        }
        let mut last = None;
        for n in index.ops_of_block[b].clone() {
            let op = index.ops[n];
            last = Some(op);
            if !self.guards.correlated.is_empty() && !path.guards.is_empty() {
                for result in op.deref(ctx).results() {
                    // A comparison of stable sides gives the same outcome each time it runs.
                    if !self.guards.canon.contains_key(&result) {
                        path.guards.retain(|(guard, _)| *guard != result);
                    }
                }
            }
            if index.op_class[n] == OpClass::Return {
                match mode {
                    Mode::Root => {
                        if let Some(report) = report.as_deref_mut() {
                            self.unfinished(&path.row, op, report);
                        }
                    }
                    Mode::Summary => match returned {
                        Some(row) => {
                            for (into, from) in row.iter_mut().zip(&path.row) {
                                into.join(*from);
                            }
                        }
                        None => *returned = Some(path.row.clone()),
                    },
                    Mode::Solve => {}
                }
                continue;
            }
            if let Some(callee) = index.callee_of.get(&n) {
                // A stage (or a view of it) handed to a helper is accessed there: the access
                // is checked at the call, before the helper's own effect on the states.
                if let Some((s, step)) = &self.steps[n]
                    && let Some(i) = self.slots.of.get(s).copied()
                {
                    let producer = self.slots.producer[i];
                    if let Some((rule, message)) =
                        self.step(reporter, n, step, producer, &mut path.row[i], self.copy_loops.passes_at(n))
                        && let Some(report) = report.as_deref_mut()
                    {
                        report.push((rule, op, message, *s, None));
                    }
                }
                if self.cyclic.contains(&n) {
                    // Not followed: the states the call could touch end here, unreported.
                    for ts in path.row.iter_mut() {
                        ts.bits = 0;
                    }
                } else if let Some(summary) = &self.summaries[*callee] {
                    self.check_foreign(n, op, *callee, &path.row, &mut report);
                    self.apply_call(reporter, op, summary, &mut path.row, &mut report);
                }
                self.call_poisons.end_paths(*callee, &self.slots.of, &mut path.row);
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
            if let Some((s, bit, source)) = self.copies.store(n) {
                if let Some(&i) = self.slots.of.get(&s) {
                    store_copy(&mut path.row[i], bit, source);
                }
                continue;
            }
            let Some((s, step)) = &self.steps[n] else { continue };
            let Some(i) = self.slots.of.get(s).copied() else { continue };
            let producer = self.slots.producer[i];
            if let Some((rule, message)) =
                self.step(reporter, n, step, producer, &mut path.row[i], self.copy_loops.passes_at(n))
                && let Some(report) = report.as_deref_mut()
            {
                report.push((rule, op, message, *s, None));
            }
        }
        let Some(last) = last else { return Vec::new() };
        let mut outs = self.successors(reporter, b, last, path);
        for (succ, out) in &mut outs {
            // Entering a counted copy loop takes all its passes' copies at once.
            for &(n, passes) in self.copy_loops.entered(b, *succ) {
                let Some((s, step)) = &self.steps[n] else { continue };
                let Some(i) = self.slots.of.get(s).copied() else { continue };
                let producer = self.slots.producer[i];
                if let Some((rule, message)) = self.step(reporter, n, step, producer, &mut out.row[i], passes)
                    && let Some(report) = report.as_deref_mut()
                {
                    report.push((rule, index.ops[n], message, *s, None));
                }
            }
        }
        outs
    }

    /// The path into each successor of block `b` (ending in `last`) that its terminator can take
    /// on `path`: a branch on a guard the path assumed takes only that outcome's edge.
    fn successors(
        &self,
        reporter: &Reporter,
        b: usize,
        last: Ptr<Operation>,
        path: Path,
    ) -> Vec<(usize, Path)> {
        let (ctx, index) = (reporter.ctx, reporter.index);
        if let Some(cond) = Operation::get_op::<CondBrOp>(last, ctx)
            .map(|_| last.deref(ctx).get_operand(0))
            .map(|cond| self.guards.canon.get(&cond).copied().unwrap_or(cond))
            && self.guards.correlated.contains(&cond)
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
}

/// Each `expect_tx` and bulk copy of the scope (by number) whose byte count is a constant, read
/// through memory and calls: a count kept in a field of a struct handed to the producer's helper
/// is the constant the struct was built with.
pub(crate) fn byte_counts(ctx: &Context, index: &ScopeIndex, locals: &LocalStores) -> FxHashMap<usize, i64> {
    index
        .ops_of_class(OpClass::Semantic)
        .filter_map(|(n, op)| {
            let bytes = op.deref(ctx).get_operand(byte_count_operand(ctx, op)?);
            let flow = Flow { ctx, index, locals, leaf: Some(bytes.get_type(ctx)) };
            Some((n, flow.constant(bytes)?))
        })
        .collect()
}

/// Which operand of `op` is a byte count: an `expect_tx`'s second, a bulk copy's third.
pub(crate) fn byte_count_operand(ctx: &Context, op: Ptr<Operation>) -> Option<usize> {
    if Operation::get_op::<ProducerExpectTxOp>(op, ctx).is_some() {
        Some(1)
    } else if Operation::get_op::<BulkCopyOp>(op, ctx).is_some() {
        Some(2)
    } else {
        None
    }
}
