//! Rule `tile-count`: the producer and the consumers of a kernel loop over the same number of
//! tiles. The other role and count questions (one producer thread per pipeline, as many
//! releasing threads as `init` announced) need the thread indices a branch selects and the
//! launch's block size, which the IR does not carry: they are reported as not checked.
//!
//! An advance in a helper that runs it exactly once per call (on no cycle of the helper, on
//! every path to its returns) and that the scope calls once counts at that call, up through
//! [`MAX_LIFTS`] helpers: a producer step written as a helper is counted by the loop calling it.
//! For each state of a function that holds both a producer and a consumer state, the loop
//! around its `semantic.state_advance` is found (the first conditional branch after the
//! advance with exactly one successor leading back to it), and its condition is read as
//! `iv < bound` with linear forms over the function's parameters, constants and the results
//! of argument-less calls the thread model shows are the same in every thread (`block_idx_x()`,
//! `grid_dim_x()`; never `thread_idx_x()`), through loads of variables stored once; the
//! induction variable is the variable stored twice, once before the loop (its start) and once
//! as itself plus a step. The loop is read only if every pass through it runs the advance (no
//! path leaves the condition and comes back to it around the advance's block) and the
//! condition is its one way out (no `break` or `return` elsewhere in its cycle). When a producer
//! loop and a consumer loop start alike and step alike, and their bounds differ by a whole number
//! `k` of steps, one side runs `k` tiles more than the other on every launch where the producer has tiles:
//! the consumers stop early (the producer's tail waits for releases forever) or wait for a
//! tile nobody copies. Any loop the rule cannot read this way is counted as not checked.
//!
//! Cost: per function with both roles, one pass over its operations for the variables' stores,
//! then per state (at most [`MAX_STATES`]) a bounded number of forward searches over its
//! blocks: linear in the function's size.

mod counters;
mod entered;
mod forms;
mod guarded;
mod linear;
mod lockstep;
mod peeled;
mod stores;

use std::collections::{BTreeMap, VecDeque};

use rustc_hash::FxHashSet;

use pliron::{
    basic_block::BasicBlock,
    context::{Context, Ptr},
    operation::Operation,
    value::Value,
};

use super::store_table::Place;
use super::{
    Rule,
    facts::StateId,
    index::ScopeIndex,
    locals::local_slot,
    operands::PipelinePlace,
    rules::{PipelineKind, Provenance, Reporter, role_of, state_created},
    thread_model::SharedThreadModel,
};
pub(crate) use counters::CounterReader;
use forms::{Induction, linear};
use linear::{Atom, Linear};
use stores::{Stores, stores_of};

use crate::ir::{
    mir::{
        arith::{CastOp, CmpOp, CmpPredicate},
        control::{CondBrOp, ReturnOp, SwitchOp},
        memory::{LoadOp, counted},
    },
    semantic::pipeline::PipelineRole,
};

/// States per function the rule reads loops for; beyond it the function is not checked.
const MAX_STATES: usize = 8;
/// Conditional branches after an advance the rule tries as the loop's header (bounds checks in
/// the body count too).
const MAX_HEADERS: usize = 8;
/// How many operations reading one condition may look through, in all.
const MAX_READS: u32 = 64;
/// Blocks one search for whether a store is inside a loop, or reaches it, may visit.
const MAX_LOOP_BLOCKS: usize = 512;
/// Helper calls an advance is followed up through to the loop that counts it.
const MAX_LIFTS: usize = 4;

/// A loop read as `for (iv = start; iv < bound; iv += step)`, with its condition.
#[derive(Clone, Debug)]
struct TileLoop {
    /// The induction variable.
    counter: Option<Place>,
    start: Linear,
    step: Linear,
    bound: Linear,
    condition: Ptr<Operation>,
    /// The block the loop's condition ends (for a peeled loop, the block of the test in front of
    /// the peeled pass).
    header: usize,
    /// Whether the condition runs before the first pass (a `while`), not after it (a `loop`
    /// ending in `if … { break }` makes one pass more where the span is empty).
    tested_first: bool,
    /// Where the advance runs only in the passes a test on the counter lets through (a second
    /// ring fed every other tile under `if t + step < tiles`, a block's own tiles under `if t %
    /// g != b { continue }`): that test. Two loops with the same start, step, bound and guard
    /// advance equally often.
    guard: Option<Guard>,
}

/// A pass's test on the counter, read before the pass changes it. Two loops that run the same
/// passes (equal start, step and bound) and test them alike advance in the same passes: the test
/// is a function of the counter and of values every thread holds alike, nothing else.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Guard {
    /// The pass advances where `iv + offset < bound`.
    Below { offset: Linear, bound: Linear },
    /// The pass advances where `(iv + offset) % modulus == residue` is `advance_if_equal` (the
    /// tiles of one block among `gridDim.x`: `if t % g != b { continue }`); `ty` is the
    /// remainder's integer type, since the same forms wrap differently in another width.
    Residue { offset: Linear, modulus: Linear, residue: Linear, ty: String, advance_if_equal: bool },
}

impl Guard {
    /// Its linear forms.
    fn forms(&self) -> Vec<&Linear> {
        match self {
            Guard::Below { offset, bound } => vec![offset, bound],
            Guard::Residue { offset, modulus, residue, .. } => vec![offset, modulus, residue],
        }
    }

    /// The same test with a helper's parameters replaced by a call's `arguments`.
    fn substituted(&self, arguments: &[Option<Linear>]) -> Option<Guard> {
        Some(match self {
            Guard::Below { offset, bound } => {
                Guard::Below { offset: offset.substituted(arguments)?, bound: bound.substituted(arguments)? }
            }
            Guard::Residue { offset, modulus, residue, ty, advance_if_equal } => Guard::Residue {
                offset: offset.substituted(arguments)?,
                modulus: modulus.substituted(arguments)?,
                residue: residue.substituted(arguments)?,
                ty: ty.clone(),
                advance_if_equal: *advance_if_equal,
            },
        })
    }
}

impl TileLoop {
    /// Whether its start, step or bound reads a parameter of the function it is expressed in.
    fn mentions_parameters(&self) -> bool {
        let guard = self.guard.iter().flat_map(Guard::forms);
        [&self.start, &self.step, &self.bound].into_iter().chain(guard).any(Linear::mentions_parameters)
    }
}

/// Rule `tile-count`; returns what it could not judge, as not-checked lines. `pipelines`: each
/// state's pipeline variable, where `pipeline-identity` named one (only states of one pipeline
/// are compared).
pub(crate) fn check_roles(
    reporter: &mut Reporter,
    provenance: &Provenance,
    pipelines: &BTreeMap<StateId, PipelinePlace>,
    threads: &SharedThreadModel,
) -> Vec<String> {
    let (ctx, index) = (reporter.ctx, reporter.index);
    // Per function: each state's advance operations.
    let mut advances: BTreeMap<usize, BTreeMap<StateId, Vec<Ptr<Operation>>>> = BTreeMap::new();
    for (n, (state, kind)) in &provenance.applies_to {
        if *kind != PipelineKind::Advance {
            continue;
        }
        let (f, site) = advance_site(ctx, index, index.ops[*n]);
        advances.entry(f).or_default().entry(*state).or_default().push(site);
    }
    // The states whose loop is not read, and the pairs whose loops are read but not compared.
    let mut unread_states: Vec<StateId> = Vec::new();
    let mut unread_pairs: Vec<(StateId, StateId)> = Vec::new();
    // Each state's loop, read where its advance counts and lifted through the single calls
    // of the helpers that hold it, grouped by the function it is then expressed in.
    let mut by_function: BTreeMap<usize, Vec<(StateId, PipelineRole, Option<TileLoop>)>> = BTreeMap::new();
    for (f, states) in &advances {
        let stores = stores_of(ctx, index, *f, threads);
        for (state, sites) in states {
            let Some(role) = role_of(ctx, index, *state) else { continue };
            let found = match sites.as_slice() {
                [advance] => tile_loop(ctx, index, &stores, *f, *advance).filter(|found| {
                    entered::on_every_path_of_its_role(ctx, index, threads, *f, *state, found.condition)
                }),
                _ => peeled::peeled_loop(ctx, index, &stores, *f, sites).filter(|found| {
                    entered::on_every_path_of_its_role(ctx, index, threads, *f, *state, found.condition)
                }),
            };
            let Some(found) = found else {
                unread_states.push(*state);
                by_function.entry(*f).or_default().push((*state, role, None));
                continue;
            };
            let (g, lifted) = lift(ctx, index, threads, *f, *state, found);
            // Forms over a helper's parameters compare only within one call of it: the calls
            // that run each role may pass other values (a loop left in a helper is unread).
            let lifted = Some(lifted).filter(|lifted| g == 0 || !lifted.mentions_parameters());
            if lifted.is_none() {
                unread_states.push(*state);
            }
            by_function.entry(g).or_default().push((*state, role, lifted));
        }
    }
    for loops in by_function.values() {
        let producers = loops.iter().filter(|(_, role, _)| *role == PipelineRole::Producer).count();
        if producers == 0 || producers == loops.len() || loops.len() > MAX_STATES {
            // One side only (the other is in a function not called once from here), or too
            // many states to pair.
            unread_states
                .extend(loops.iter().filter(|(_, _, found)| found.is_some()).map(|(state, _, _)| *state));
            continue;
        }
        compare(reporter, loops, pipelines, &mut unread_pairs);
    }
    // What the loops do not tell, the two roles walked side by side may prove.
    let mut walked = Lockstep { advances: &advances, pipelines, provenance, proven: BTreeMap::new() };
    unread_states.retain(|state| !walked.proven_against_all(ctx, index, threads, *state));
    unread_pairs.retain(|(producer, consumer)| !walked.proven(ctx, index, threads, *producer, *consumer));
    let unread = unread_states.len() + unread_pairs.len();
    let mut lines = Vec::new();
    if unread > 0 {
        lines.push(format!(
            "the tile counts of {unread} pipeline loops (not a counted loop the verifier reads, or no loop of \
             the other role in the same function)"
        ));
    }
    lines
}

/// The pairs of a producer and a consumer state whose advances [`lockstep::advance_equally`]
/// proved equal in number, walking the kernel and the helpers that hold them (each pair walked
/// once).
struct Lockstep<'a> {
    /// Per function, each state's advance operations.
    advances: &'a BTreeMap<usize, BTreeMap<StateId, Vec<Ptr<Operation>>>>,
    pipelines: &'a BTreeMap<StateId, PipelinePlace>,
    provenance: &'a Provenance,
    proven: BTreeMap<(StateId, StateId), bool>,
}

impl Lockstep<'_> {
    fn proven(
        &mut self,
        ctx: &Context,
        index: &ScopeIndex,
        threads: &SharedThreadModel,
        producer: StateId,
        consumer: StateId,
    ) -> bool {
        if let Some(known) = self.proven.get(&(producer, consumer)) {
            return *known;
        }
        let sites = |state| -> Vec<Ptr<Operation>> {
            self.advances.values().filter_map(|states| states.get(&state)).flatten().copied().collect()
        };
        let (p, c) = (sites(producer), sites(consumer));
        let equal =
            !p.is_empty() && !c.is_empty() && lockstep::advance_equally(ctx, index, threads.get(), &p, &c);
        self.proven.insert((producer, consumer), equal);
        equal
    }

    /// Whether `state` advances as often as every state of the other role of its pipeline (at
    /// least one). Every state of the other role must name its pipeline, so that none that
    /// might be paired with `state` is left out.
    fn proven_against_all(
        &mut self,
        ctx: &Context,
        index: &ScopeIndex,
        threads: &SharedThreadModel,
        state: StateId,
    ) -> bool {
        let (Some(pipeline), Some(role)) = (self.pipelines.get(&state), role_of(ctx, index, state)) else {
            return false;
        };
        let mut others: Vec<StateId> = self
            .provenance
            .applies_to
            .values()
            .filter(|(_, kind)| *kind == PipelineKind::Advance)
            .map(|(other, _)| *other)
            .filter(|other| role_of(ctx, index, *other).is_some_and(|r| r != role))
            .collect();
        others.sort();
        others.dedup();
        if others.iter().any(|other| !self.pipelines.contains_key(other)) {
            return false;
        }
        let partners: Vec<StateId> =
            others.into_iter().filter(|other| self.pipelines.get(other) == Some(pipeline)).collect();
        !partners.is_empty()
            && partners.into_iter().all(|other| match role {
                PipelineRole::Producer => self.proven(ctx, index, threads, state, other),
                PipelineRole::Consumer => self.proven(ctx, index, threads, other, state),
            })
    }
}

/// A loop of helper `f` expressed in its caller's terms, up through helpers the scope calls
/// once, from a block on no cycle of the caller (so the helper's loop runs once where the call
/// runs): the helper's parameters in its start, step and bound become the linear forms of the
/// arguments the call passes. Stops, keeping what it has, at the kernel, at a helper called
/// from several places or in a loop, or at an argument it cannot read.
fn lift(
    ctx: &Context,
    index: &ScopeIndex,
    threads: &SharedThreadModel,
    mut f: usize,
    state: StateId,
    mut found: TileLoop,
) -> (usize, TileLoop) {
    for _ in 0..MAX_LIFTS {
        let [call] = index.callers[f].as_slice() else { break };
        let Some(caller) = index.function_of_op(index.ops[*call]) else { break };
        let on_cycle = index.block_of_op(index.ops[*call]).is_none_or(|b| index.cycles().on_cycle(b));
        let entered =
            |caller| entered::on_every_path_of_its_role(ctx, index, threads, caller, state, index.ops[*call]);
        if f == 0 || on_cycle || !entered(caller) {
            break;
        }
        let stores = stores_of(ctx, index, caller, threads);
        // An argument that is not a linear form (the pipeline, a pointer) stays `None`: only the
        // arguments the forms use must be readable.
        let arguments: Vec<Option<Linear>> = index.ops[*call]
            .deref(ctx)
            .operands()
            .map(|argument| {
                let mut budget = MAX_READS;
                linear(ctx, &stores, argument, &mut Induction::default(), &mut budget)
                    .filter(|form| form.iv() == 0)
            })
            .collect();
        let substituted = (|| {
            Some(TileLoop {
                counter: found.counter.clone(),
                start: found.start.substituted(&arguments)?,
                step: found.step.substituted(&arguments)?,
                bound: found.bound.substituted(&arguments)?,
                condition: found.condition,
                header: found.header,
                tested_first: found.tested_first,
                guard: match &found.guard {
                    Some(guard) => Some(guard.substituted(&arguments)?),
                    None => None,
                },
            })
        })();
        let Some(substituted) = substituted else { break };
        found = substituted;
        f = caller;
    }
    (f, found)
}

/// Where an advance counts for its loop: the advance itself, or, when it sits in a helper that
/// runs it exactly once per call (not in a loop of the helper, on every path to its returns)
/// and that one call of the scope makes, that call (and so on up, [`MAX_LIFTS`] calls deep).
/// Returns the function and the operation.
fn advance_site(ctx: &Context, index: &ScopeIndex, advance: Ptr<Operation>) -> (usize, Ptr<Operation>) {
    let mut site = advance;
    let Some(mut f) = index.function_of_op(site) else { return (0, site) };
    for _ in 0..MAX_LIFTS {
        let ([call], Some(b)) = (index.callers[f].as_slice(), index.block_of_op(site)) else { break };
        if f == 0 || !runs_once_per_call(ctx, index, f, b) {
            break;
        }
        site = index.ops[*call];
        let Some(caller) = index.function_of_op(site) else { break };
        f = caller;
    }
    (f, site)
}

/// Whether block `b` of function `f` runs exactly once on every call of `f` that returns: it is
/// on no cycle, and no path from the entry reaches a return around it.
fn runs_once_per_call(ctx: &Context, index: &ScopeIndex, f: usize, b: usize) -> bool {
    let Some(entry) = index.entry_block(f) else { return false };
    if index.cycles().on_cycle(b) {
        return false;
    }
    if entry == b {
        return true;
    }
    index.blocks_of[f].clone().all(|block| {
        let returns = index.ops_of_block[block]
            .clone()
            .last()
            .is_some_and(|n| Operation::get_op::<ReturnOp>(index.ops[n], ctx).is_some());
        !returns || index.path_exists(&[entry], block, MAX_LOOP_BLOCKS, |next| next != b) == Some(false)
    })
}

/// Rejects each consumer loop whose tile count differs from a producer loop's by whole steps.
fn compare(
    reporter: &mut Reporter,
    loops: &[(StateId, PipelineRole, Option<TileLoop>)],
    pipelines: &BTreeMap<StateId, PipelinePlace>,
    unread: &mut Vec<(StateId, StateId)>,
) {
    let producers: Vec<(StateId, &TileLoop)> = loops
        .iter()
        .filter(|(_, role, _)| *role == PipelineRole::Producer)
        .filter_map(|(state, _, found)| Some((*state, found.as_ref()?)))
        .collect();
    for (state, role, found) in loops {
        let (PipelineRole::Consumer, Some(consumer)) = (role, found) else { continue };
        for (producer_state, producer) in &producers {
            match (pipelines.get(producer_state), pipelines.get(state)) {
                (Some(a), Some(b)) if a == b => {}
                // Another pipeline may carry another number of tiles.
                (Some(_), Some(_)) => continue,
                _ => {
                    unread.push((*producer_state, *state));
                    continue;
                }
            }
            // A loop from `start` below `bound` by `step` runs ⌈(bound − start) / step⌉ passes:
            // equal steps and equal spans are equal counts, whatever each loop starts at.
            // A loop tested after its pass runs once where the other runs none.
            if producer.step != consumer.step
                || producer.tested_first != consumer.tested_first
                || producer.guard != consumer.guard
            {
                unread.push((*producer_state, *state));
                continue;
            }
            let span = |found: &TileLoop| found.bound.clone().plus(&found.start, -1);
            let difference = span(consumer).plus(&span(producer), -1);
            if difference == Linear::default() {
                continue;
            }
            // Guarded passes: equal loops advance equally often, and unequal ones are not
            // counted here.
            let Some(k) = difference.multiple_of(&producer.step).filter(|_| producer.guard.is_none()) else {
                unread.push((*producer_state, *state));
                continue;
            };
            let (count, consequence) = if k < 0 {
                (
                    -k,
                    "fewer than the producer copies: the producer's tail waits forever for the stages they never \
                     release (deadlock)",
                )
            } else {
                (k, "more than the producer copies: they wait forever for a stage nobody fills (deadlock)")
            };
            let message = format!(
                "the consumers' loop runs {count} tile(s) {consequence}; its bound differs from the producer \
                 loop's by {count} step(s)"
            );
            let related = vec![
                reporter.related("the producer's loop condition", producer.condition),
                state_created(reporter, *state),
            ];
            reporter.reject(Rule::TileCount, consumer.condition, message, related);
        }
    }
}

/// The counted loop around `advance`, if the rule can read it.
fn tile_loop(
    ctx: &Context,
    index: &ScopeIndex,
    stores: &Stores,
    f: usize,
    advance: Ptr<Operation>,
) -> Option<TileLoop> {
    let from = index.block_of_op(advance)?;
    let function = index.blocks_of[f].clone();
    let mut visited = FxHashSet::from_iter([from]);
    let mut queue = VecDeque::from([from]);
    let mut tried = 0;
    while let Some(b) = queue.pop_front() {
        // `from` reaches `b`, so a target reaches the advance exactly when it is on one cycle with it.
        if let Some(found) = header(ctx, index, stores, b, &|t| index.cycles().together(t, from)) {
            let found =
                found.map(|found| TileLoop { tested_first: tested_first(index, b, from), ..found })?;
            if !leaves_only_at_header(index, b) {
                return None;
            }
            if advances_every_pass(index, b, from) {
                return Some(found);
            }
            return guarded::guard(ctx, index, stores, (b, from), &found)
                .map(|guard| TileLoop { guard: Some(guard), ..found });
        }
        if let Some(n) = index.ops_of_block[b].clone().last()
            && (Operation::get_op::<CondBrOp>(index.ops[n], ctx).is_some()
                || Operation::get_op::<SwitchOp>(index.ops[n], ctx).is_some())
        {
            tried += 1;
            if tried > MAX_HEADERS {
                return None;
            }
        }
        for succ in &index.succs[b] {
            if function.contains(succ) && visited.insert(*succ) {
                queue.push_back(*succ);
            }
        }
    }
    None
}

/// Whether the loop whose condition ends block `header` tests it before its first pass: from a
/// block the loop is entered through, the condition is reached without the advance (in block
/// `advance`). A `loop` ending in `if … { break }` runs its advance first.
fn tested_first(index: &ScopeIndex, header: usize, advance: usize) -> bool {
    let cycles = index.cycles();
    let inside = |b: usize| cycles.together(b, header);
    let entries: Vec<usize> = index.blocks_of[index.block_function[header]]
        .clone()
        .filter(|b| *b != advance && inside(*b) && index.preds[*b].iter().any(|p| !inside(*p)))
        .collect();
    advance != header
        && index.path_exists(&entries, header, MAX_LOOP_BLOCKS, |b| b != advance && inside(b)) == Some(true)
}

/// Whether the condition ending block `header` is its loop's only way out (a `break`, a
/// `return` or a second, data-dependent test elsewhere in the loop ends it before its count; a
/// way into a panic traps the launch and is no exit).
fn leaves_only_at_header(index: &ScopeIndex, header: usize) -> bool {
    // Every question stays within the header's cycle: the code after the loop is not walked.
    let cycles = index.cycles();
    let mut seen = FxHashSet::from_iter([header]);
    let mut stack = vec![header];
    while let Some(b) = stack.pop() {
        for succ in index.succs[b].iter().copied() {
            if !cycles.together(succ, header) {
                if b != header && index.can_return(succ) {
                    return false;
                }
            } else if seen.insert(succ) {
                stack.push(succ);
            }
        }
    }
    true
}

/// Whether every pass of the loop whose condition ends block `header` runs its advance (in block
/// `advance`) once: no path leaves the header and comes back to it around that block (a path
/// back through an outer loop counts too, so a tile loop nested in another is unread). A loop
/// that passes without its advance otherwise (a step under an `if`, a `continue` around it)
/// takes other tiles than it counts, unless the `if` is a guard [`guarded::guard`] reads.
fn advances_every_pass(index: &ScopeIndex, header: usize, advance: usize) -> bool {
    if header == advance {
        return true;
    }
    let cycles = index.cycles();
    let around = |b: usize| b != advance && cycles.together(b, header);
    let starts: Vec<usize> = index.succs[header].iter().copied().filter(|b| around(*b)).collect();
    index.path_exists(&starts, header, usize::MAX, around) == Some(false)
}

/// Whether block `b` ends in the loop's condition: a `mir.cond_br` on a `mir.cmp` with exactly one
/// successor `inside` the loop. `Some(None)`: it is the header, but its condition is not readable.
fn header(
    ctx: &Context,
    index: &ScopeIndex,
    stores: &Stores,
    b: usize,
    inside: &dyn Fn(usize) -> bool,
) -> Option<Option<TileLoop>> {
    let n = index.ops_of_block[b].clone().last()?;
    let branch = index.ops[n];
    let (condition_value, targets) = if Operation::get_op::<CondBrOp>(branch, ctx).is_some() {
        let operation = branch.deref(ctx);
        (operation.get_operand(0), [operation.get_successor(0), operation.get_successor(1)])
    } else {
        counted_exit_test(ctx, stores, branch)?
    };
    let within: Vec<bool> =
        targets.iter().map(|target| index.block_number.get(target).is_some_and(|t| inside(*t))).collect();
    let continue_when = match within[..] {
        [true, false] => true,
        [false, true] => false,
        _ => return None,
    };
    // A way out into a panic only (an index's bounds check in the body) traps the launch: it
    // is no exit of the loop, and its test is not the loop's condition.
    let exit = targets[usize::from(continue_when)];
    if index.block_number.get(&exit).is_some_and(|exit| !index.can_return(*exit)) {
        return None;
    }
    let condition = condition_value.defining_op()?;
    let Some(cmp) = Operation::get_op::<CmpOp>(condition, ctx) else { return Some(None) };
    let predicate = cmp.get_attr_cmp_predicate(ctx).map(|p| *p);
    let (lhs, rhs) = {
        let operation = condition.deref(ctx);
        (operation.get_operand(0), operation.get_operand(1))
    };
    let mut iv = Induction { header: Some(b), ..Induction::default() };
    let read = |iv: &mut Induction| -> Option<TileLoop> {
        let mut budget = MAX_READS;
        let x = linear(ctx, stores, lhs, iv, &mut budget)?;
        let y = linear(ctx, stores, rhs, iv, &mut budget)?;
        // Continue while `x pred y` (or its negation): as `x < y` (or `≤`).
        let (x, y, inclusive) = as_less_than(predicate?, continue_when, x, y)?;
        let (mut start, mut step) = (iv.start.clone()?, iv.step.clone()?);
        // A count-down (`while left > 0 { …; left -= 1 }`) is a count-up of `u = −iv`:
        // `x < iv + r` is `u − r < −x`, starting at `−start` and stepping by `−step`.
        let (x, y) = if x.iv() == 0 && y.iv() == 1 {
            start = start.scaled(-1);
            step = step.scaled(-1);
            (y.scaled(-1).with_iv_negated(), x.scaled(-1))
        } else {
            (x, y)
        };
        if x.iv() != 1 || y.iv() != 0 {
            return None;
        }
        // iv + rest < y  ⇔  iv < y − rest; `≤` is `< … + 1`.
        let rest = x.plus(&Linear::atom(Atom::Iv), -1);
        let mut bound = y.plus(&rest, -1);
        if inclusive {
            bound.constant += 1;
        }
        Some(TileLoop {
            counter: iv.slot.clone(),
            start,
            step,
            bound,
            condition,
            header: b,
            tested_first: true,
            guard: None,
        })
    };
    Some(read(&mut iv))
}

/// The comparison `x predicate y`, taken where it holds (`holds`) or where it fails, as `lhs <
/// rhs`, or `lhs ≤ rhs` where the last is true: `(lhs, rhs, inclusive)`. `None` for an
/// equality test.
fn as_less_than<T>(predicate: CmpPredicate, holds: bool, x: T, y: T) -> Option<(T, T, bool)> {
    let predicate = match (predicate, holds) {
        (p, true) => p,
        (CmpPredicate::Lt, false) => CmpPredicate::Ge,
        (CmpPredicate::Le, false) => CmpPredicate::Gt,
        (CmpPredicate::Gt, false) => CmpPredicate::Le,
        (CmpPredicate::Ge, false) => CmpPredicate::Lt,
        _ => return None,
    };
    match predicate {
        CmpPredicate::Lt => Some((x, y, false)),
        CmpPredicate::Le => Some((x, y, true)),
        CmpPredicate::Gt => Some((y, x, false)),
        CmpPredicate::Ge => Some((y, x, true)),
        _ => None,
    }
}

/// A `for` loop's exit test over a counted iterator (`crate::ir::mir::memory::counted`): a
/// `mir.switch` on the discriminant of the item `next` handed out, whose `Some` (1) target runs
/// the body. Returns the `start < end` comparison `next` stored that discriminant from, and the
/// targets as a `mir.cond_br` on it would have them (body first).
fn counted_exit_test(
    ctx: &Context,
    stores: &Stores,
    branch: Ptr<Operation>,
) -> Option<(Value, [Ptr<BasicBlock>; 2])> {
    let switch = Operation::get_op::<SwitchOp>(branch, ctx)?;
    let cases: Vec<u64> = switch.get_attr_switch_cases(ctx)?.0.clone();
    let (discriminant, successors) = {
        let operation = branch.deref(ctx);
        (operation.get_operand(0), operation.successors().collect::<Vec<_>>())
    };
    // The discriminant is 0 or 1: a `while let Some(..)` names one case and leaves the other
    // to the switch's last target.
    let (none, some) = match (cases.as_slice(), successors.as_slice()) {
        ([0, 1], [none, some, ..]) | ([1, 0], [some, none, ..]) => (*none, *some),
        ([1], [some, otherwise]) => (*otherwise, *some),
        ([0], [none, otherwise]) => (*none, *otherwise),
        _ => return None,
    };
    let load = discriminant.defining_op()?;
    Operation::get_op::<LoadOp>(load, ctx)?;
    let place = local_slot(ctx, load.deref(ctx).get_operand(0))?;
    if place.1.last() != Some(&counted::ITEM_DISCRIMINANT) {
        return None;
    }
    let [stored] = stores.at(&place)?.as_slice() else { return None };
    let cast = stored.defining_op()?;
    Operation::get_op::<CastOp>(cast, ctx)?;
    let compare = cast.deref(ctx).get_operand(0);
    Operation::get_op::<CmpOp>(compare.defining_op()?, ctx)?;
    Some((compare, [some, none]))
}
