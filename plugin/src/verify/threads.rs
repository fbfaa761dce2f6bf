//! Rules `producer-threads` and `release-count`: which threads of a block reach each pipeline
//! operation, where the kernel declares its block size (its launch contract).
//!
//! The block size comes from a call of the device API's `device::launch::block_threads(N)`
//! (symbol `device__launch__block_threads`) with a constant `N` in the kernel; without one the
//! roles are not checked. The threads are then enumerated: each block of the kernel gets the
//! set of thread indices `0..N` that can reach it (a bit set), starting from every thread at
//! the entry and narrowed at each branch whose condition is a function of `thread_idx_x()` the
//! rule can evaluate for every thread (comparisons, arithmetic, `match` arms, locals stored
//! once, and small helpers such as `warp_id()`, `lane_id()` or a kernel's own `is_producer`
//! evaluated with their arguments). A branch on a value that is the same for every thread (a
//! parameter, `block_idx_x()`, a loop counter built from them) sends the whole set both ways; a
//! branch the rule cannot evaluate makes the sets below it inexact, and what is judged on an
//! inexact set is counted as not checked.
//!
//! - `producer-threads`: the threads reaching the producer operations (acquire, expect-tx,
//!   copy, tail) of one pipeline number exactly one. More arrive on a *full* barrier
//!   initialised for one arrival and copy every tile again: an invalid barrier (fault) or a
//!   deadlock.
//! - `release-count`: the threads reaching the `consumer_release` of one pipeline number the
//!   `consumer_threads` given to `Pipeline::init` (a constant; symbol
//!   `device__pipeline__Pipeline…init`). Fewer never complete the *empty* barrier (the producer
//!   hangs); more complete it while some consumers still read (race, fault).
//!
//! Cost: one pass over the scope for the variables' stores; per function one worklist over its
//! blocks whose sets only grow (each block changes at most `N` times, `N ≤ 1024` a constant);
//! each condition is evaluated once, through at most [`MAX_EVAL`] operations, as `N` values.

use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};

use rustc_hash::{FxHashMap, FxHashSet};
use std::rc::Rc;

use pliron::{
    context::{Context, Ptr},
    operation::Operation,
    r#type::Typed,
    value::{DefiningEntity, Value},
};

use super::{
    Rule,
    facts::StateId,
    index::ScopeIndex,
    init_order::is_pipeline_init,
    memory::{constant_value, declared_constant},
    rules::{PipelineKind, Provenance, Reporter, role_of, state_created},
    thread_set::Threads,
};
use crate::ir::{
    mir::{
        arith::{BinOp, BinOpKind, CastKind, CastOp, CmpOp, CmpPredicate},
        constant::ConstIntOp,
        control::{CallOp, CondBrOp, ReturnOp, SwitchOp, UnreachableOp},
        int_width,
        memory::{AllocaOp, LoadOp, StoreOp},
    },
    semantic::pipeline::PipelineRole,
};

/// The largest block the rule enumerates (the hardware's limit).
const MAX_BLOCK_THREADS: i64 = 1024;
/// Operations one condition's evaluation may look through, helpers included.
const MAX_EVAL: u32 = 256;
/// Blocks one search for a loop's back edge may visit.
const MAX_LOOP_SEARCH: usize = 256;
/// Blocks looked back from a branch for its loop's header.
const MAX_HEADER_CHAIN: usize = 4;
/// How deep helper calls are evaluated.
const MAX_CALL_DEPTH: u32 = 4;
/// The most stores of one variable whose per-thread value is worked out.
const MAX_CHOICES: usize = 4;
/// Argument-less reads of the thread geometry that every thread of a block sees alike.
const UNIFORM_READS: [&str; 6] =
    ["block_idx_x", "block_idx_y", "block_idx_z", "grid_dim_x", "grid_dim_y", "grid_dim_z"];
/// The symbol of the launch-contract declaration.
const BLOCK_THREADS_SYMBOL: &str = "device__launch__block_threads";

/// A value as seen by the threads of a block.
#[derive(Clone, Debug)]
enum Val {
    /// The same known integer in every thread.
    Const(i64),
    /// One integer per thread index.
    Threads(Rc<Vec<i64>>),
    /// The same (unknown) value in every thread.
    Uniform,
    /// Not known, and possibly different per thread.
    Unknown,
}

/// The threads that can reach a block; `exact` when every branch on the way was decided.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Reach {
    threads: Threads,
    exact: bool,
}

/// What the rule knows of one scope.
struct Roles<'a> {
    ctx: &'a Context,
    index: &'a ScopeIndex,
    block_threads: usize,
    /// Every variable's stored values.
    stores: FxHashMap<Value, Vec<Value>>,
    /// Variables stored on thread-dependent paths whose value each thread reads is known: one
    /// value per thread index (see [`Roles::resolve_choices`]).
    chosen: FxHashMap<Value, Rc<Vec<i64>>>,
    memo: FxHashMap<Value, Val>,
    /// The variables whose loads are being evaluated (a loop counter reads itself).
    visiting: RefCell<FxHashSet<Value>>,
}

/// Rules `producer-threads` and `release-count`; returns what they could not judge, as
/// not-checked lines.
pub(crate) fn check_threads(
    reporter: &mut Reporter,
    provenance: &Provenance,
    pipelines: &BTreeMap<StateId, Value>,
) -> Vec<String> {
    let (ctx, index) = (reporter.ctx, reporter.index);
    if provenance.applies_to.is_empty() {
        return Vec::new();
    }
    let Some(block_threads) = declared_block_threads(ctx, index) else {
        return vec![
            "thread roles and arrival counts (no launch contract: declare \
             `device::launch::block_threads(N)` in the kernel)"
                .to_string(),
        ];
    };
    let mut roles = Roles {
        ctx,
        index,
        block_threads,
        stores: stores_of(ctx, index),
        chosen: FxHashMap::default(),
        memo: FxHashMap::default(),
        visiting: RefCell::new(FxHashSet::default()),
    };
    let mut reach = roles.reach_all();
    // A variable set on thread-dependent paths (`matches!(tid, 32..=63)` stores `true` on one
    // path and `false` on the other) is read per thread once the first pass knows which
    // threads run each store; then the sets are computed again with it.
    if roles.resolve_choices(&reach) {
        roles.memo.clear();
        reach = roles.reach_all();
    }
    // Per pipeline (its variable, or the state itself where none was named): the producer
    // operations and the releases, with the threads reaching them.
    #[derive(Default)]
    struct Side {
        threads: Option<Threads>,
        exact: bool,
        first_op: Option<Ptr<Operation>>,
        state: Option<StateId>,
    }
    type Key = (Option<Value>, Option<StateId>);
    let mut producers: Vec<(Key, Side)> = Vec::new();
    let mut releases: Vec<(Key, Side)> = Vec::new();
    for (n, (state, kind)) in &provenance.applies_to {
        let role = role_of(ctx, index, *state);
        let side = match (kind, role) {
            (PipelineKind::Release, Some(PipelineRole::Consumer)) => &mut releases,
            (
                PipelineKind::Acquire | PipelineKind::ExpectTx | PipelineKind::BulkCopy | PipelineKind::Tail,
                Some(PipelineRole::Producer),
            ) => &mut producers,
            _ => continue,
        };
        let key = match pipelines.get(state) {
            Some(variable) => (Some(*variable), None),
            None => (None, Some(*state)),
        };
        let op = index.ops[*n];
        let at = match side.iter().position(|(known, _)| *known == key) {
            Some(at) => at,
            None => {
                side.push((key, Side { exact: true, ..Side::default() }));
                side.len() - 1
            }
        };
        let entry = &mut side[at].1;
        entry.first_op.get_or_insert(op);
        entry.state.get_or_insert(*state);
        match index.block_of_op(op).and_then(|b| reach[b].as_ref()) {
            Some(found) => {
                entry.exact &= found.exact;
                entry.threads.get_or_insert_with(|| Threads::none(block_threads)).union(&found.threads);
            }
            // Unreachable code, or a function the rule did not reach.
            None => entry.exact = false,
        }
    }
    let mut unjudged = 0;
    for (_, side) in &producers {
        let (Some(threads), Some(op), Some(state)) = (&side.threads, side.first_op, side.state) else {
            continue;
        };
        if !side.exact {
            unjudged += 1;
            continue;
        }
        let count = threads.count();
        if count > 1 {
            let message = format!(
                "{count} threads (thread indices {}) run the producer of this pipeline under the declared \
                 {block_threads}-thread block: a pipeline has one producer thread; each arrives on a *full* \
                 barrier initialised for one arrival and copies every tile again (invalid barrier: fault, or \
                 deadlock)",
                list(threads)
            );
            let related = vec![reporter.related("a producer operation these threads reach", op)];
            reporter.reject(Rule::ProducerThreads, index.state_op(state), message, related);
        }
    }
    let inits = init_counts(ctx, index);
    for ((variable, _), side) in &releases {
        let (Some(threads), Some(op), Some(state)) = (&side.threads, side.first_op, side.state) else {
            continue;
        };
        let init = match (variable, inits.as_slice()) {
            (Some(variable), _) => inits.iter().find(|(stored_in, _, _)| *stored_in == Some(*variable)),
            (None, [only]) => Some(only),
            _ => None,
        }
        .or(match inits.as_slice() {
            [only] => Some(only),
            _ => None,
        });
        let Some((_, init_op, Some(announced))) = init else {
            unjudged += 1;
            continue;
        };
        if !side.exact {
            unjudged += 1;
            continue;
        }
        let count = i64::from(threads.count());
        if count != *announced {
            let consequence = if count < *announced {
                "the stage's *empty* barrier never completes and the producer waits forever (deadlock)"
            } else {
                "the *empty* barrier completes while some consumers still read the stage, or gets arrivals \
                 beyond its count (race, fault)"
            };
            let message = format!(
                "{count} threads (thread indices {}) release the stages of this pipeline, but `init` announced \
                 {announced} consumer threads: {consequence}",
                list(threads)
            );
            let related = vec![
                reporter.related("the pipeline is initialised here", *init_op),
                state_created(reporter, state),
            ];
            reporter.reject(Rule::ReleaseCount, op, message, related);
        }
    }
    if unjudged > 0 {
        vec![format!(
            "thread roles and arrival counts of {unjudged} pipeline sides (a branch on the thread index the \
             verifier cannot evaluate, a role in a helper, or no constant `init` count)"
        )]
    } else {
        Vec::new()
    }
}

fn list(threads: &Threads) -> String {
    let first = threads.first(4);
    let mut text = first.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ");
    if threads.count() as usize > first.len() {
        text.push_str(", …");
    }
    text
}

/// The kernel's declared block size, if it declares a constant one within the hardware limit.
fn declared_block_threads(ctx: &Context, index: &ScopeIndex) -> Option<usize> {
    let n = declared_constant(ctx, index, BLOCK_THREADS_SYMBOL)?;
    (1..=MAX_BLOCK_THREADS).contains(&n).then_some(n as usize)
}

/// Each `Pipeline::init` call of the scope: the variable its result is stored into, the call,
/// and its constant `consumer_threads`.
fn init_counts(ctx: &Context, index: &ScopeIndex) -> Vec<(Option<Value>, Ptr<Operation>, Option<i64>)> {
    let mut found = Vec::new();
    for op in &index.ops {
        if !is_pipeline_init(ctx, *op) {
            continue;
        }
        let operation = op.deref(ctx);
        if operation.get_num_operands() != 2 || operation.get_num_results() != 1 {
            continue;
        }
        let count = constant_value(ctx, operation.get_operand(1), 4);
        let result = operation.get_result(0);
        found.push((result, *op, count));
    }
    if found.is_empty() {
        return Vec::new();
    }
    let mut stored_in: FxHashMap<Value, Value> = FxHashMap::default();
    for op in &index.ops {
        if Operation::get_op::<StoreOp>(*op, ctx).is_some() {
            let operation = op.deref(ctx);
            stored_in.insert(operation.get_operand(0), operation.get_operand(1));
        }
    }
    found.into_iter().map(|(result, op, count)| (stored_in.get(&result).copied(), op, count)).collect()
}

/// Every variable (`mir.alloca`) of the scope with the values stored into it.
fn stores_of(ctx: &Context, index: &ScopeIndex) -> FxHashMap<Value, Vec<Value>> {
    let mut of: FxHashMap<Value, Vec<Value>> = FxHashMap::default();
    for op in &index.ops {
        if Operation::get_op::<StoreOp>(*op, ctx).is_some() {
            let operation = op.deref(ctx);
            of.entry(operation.get_operand(1)).or_default().push(operation.get_operand(0));
        }
    }
    of
}

impl Roles<'_> {
    /// The threads reaching each block of the scope: the kernel from its entry, each other
    /// function from the blocks of its calls (`None`: not reached).
    fn reach_all(&mut self) -> Vec<Option<Reach>> {
        let index = self.index;
        let mut reach: Vec<Option<Reach>> = vec![None; index.blocks.len()];
        for f in 0..index.blocks_of.len() {
            let Some(entry) = index.entry_block(f) else { continue };
            let start = if f == 0 {
                Reach { threads: Threads::all(self.block_threads), exact: true }
            } else {
                // Callers of later functions are not yet known: inexact.
                let mut start = Reach { threads: Threads::none(self.block_threads), exact: true };
                for call in &index.callers[f] {
                    let caller_block = index.block_of_op(index.ops[*call]);
                    let caller = caller_block.map(|b| index.block_function[b]);
                    match caller_block.and_then(|b| reach[b].as_ref()) {
                        Some(found) if caller.is_some_and(|c| c < f) => {
                            start.threads.union(&found.threads);
                            start.exact &= found.exact;
                        }
                        _ => start.exact = false,
                    }
                }
                if !start.exact {
                    start.threads = Threads::all(self.block_threads);
                }
                start
            };
            self.reach_function(f, entry, start, &mut reach);
        }
        reach
    }

    /// Finds the variables whose every store runs on a set of threads the first pass decided
    /// exactly, the sets disjoint (a thread runs at most one store), no store in a loop, every
    /// load of the variable after its stores and reached only by threads that ran one of them,
    /// and each stored value known per thread: such a variable holds, in each thread, the value
    /// its thread's store wrote. Records them in `chosen`; true when it found any. Each
    /// search is bounded by [`MAX_LOOP_SEARCH`] blocks and a variable by [`MAX_CHOICES`] stores.
    fn resolve_choices(&mut self, reach: &[Option<Reach>]) -> bool {
        let (ctx, index) = (self.ctx, self.index);
        let mut stores: FxHashMap<Value, Vec<(Value, usize)>> = FxHashMap::default();
        let mut loads: FxHashMap<Value, Vec<usize>> = FxHashMap::default();
        for op in &index.ops {
            let Some(block) = index.block_of_op(*op) else { continue };
            if Operation::get_op::<StoreOp>(*op, ctx).is_some() {
                let operation = op.deref(ctx);
                stores.entry(operation.get_operand(1)).or_default().push((operation.get_operand(0), block));
            } else if Operation::get_op::<LoadOp>(*op, ctx).is_some() {
                loads.entry(op.deref(ctx).get_operand(0)).or_default().push(block);
            }
        }
        let n = self.block_threads;
        for (slot, sites) in stores {
            if !(2..=MAX_CHOICES).contains(&sites.len()) {
                continue;
            }
            let is_variable =
                slot.defining_op().is_some_and(|alloca| Operation::get_op::<AllocaOp>(alloca, ctx).is_some());
            if !is_variable {
                continue;
            }
            let mut values = vec![0i64; n];
            let mut covered = Threads::none(n);
            let resolved = sites.iter().all(|(value, b)| {
                let Some(Reach { threads, exact: true }) = &reach[*b] else { return false };
                if self.reaches(*b, *b) != Some(false) || threads.and(&covered).count() != 0 {
                    return false;
                }
                let mut budget = MAX_EVAL;
                let per_thread: Box<dyn Fn(usize) -> i64> =
                    match self.eval(*value, &FxHashMap::default(), 0, &mut budget) {
                        Val::Const(c) => Box::new(move |_| c),
                        Val::Threads(vs) => Box::new(move |t| vs[t]),
                        _ => return false,
                    };
                for t in threads.first(n) {
                    values[t] = per_thread(t);
                }
                covered.union(threads);
                true
            });
            let loads_after = loads.get(&slot).is_some_and(|blocks| {
                blocks.iter().all(|l| {
                    let Some(Reach { threads, exact: true }) = &reach[*l] else { return false };
                    threads.and_not(&covered).count() == 0
                        && sites.iter().all(|(_, b)| self.reaches(*l, *b) == Some(false))
                })
            });
            if resolved && loads_after {
                self.chosen.insert(slot, Rc::new(values));
            }
        }
        !self.chosen.is_empty()
    }

    /// Whether some path of at least one edge leads from block `from` to block `to`; `None`
    /// when the search passes [`MAX_LOOP_SEARCH`] blocks.
    fn reaches(&self, from: usize, to: usize) -> Option<bool> {
        self.index.path_exists(&self.index.succs[from], to, MAX_LOOP_SEARCH, |_| true)
    }

    /// The worklist over one function's blocks.
    fn reach_function(&mut self, f: usize, entry: usize, start: Reach, reach: &mut [Option<Reach>]) {
        let index = self.index;
        reach[entry] = Some(start);
        let mut queue = VecDeque::from([entry]);
        while let Some(b) = queue.pop_front() {
            let Some(here) = reach[b].clone() else { continue };
            for (succ, threads, decided) in self.edges(b, &here.threads) {
                if index.block_function.get(succ) != Some(&f) {
                    continue;
                }
                let incoming = Reach { threads, exact: here.exact && decided };
                let changed = match &mut reach[succ] {
                    slot @ None => {
                        *slot = Some(incoming);
                        true
                    }
                    Some(old) => {
                        let mut merged = old.clone();
                        merged.threads.union(&incoming.threads);
                        merged.exact &= incoming.exact;
                        let changed = merged != *old;
                        *old = merged;
                        changed
                    }
                };
                if changed {
                    queue.push_back(succ);
                }
            }
        }
    }

    /// The successors of block `b` with the threads each edge carries, and whether the branch
    /// was decided (evaluated per thread, or the same for every thread).
    fn edges(&mut self, b: usize, threads: &Threads) -> Vec<(usize, Threads, bool)> {
        let (ctx, index) = (self.ctx, self.index);
        let all = |index: &ScopeIndex| index.succs[b].iter().map(|s| (*s, threads.clone(), true)).collect();
        let Some(n) = index.ops_of_block[b].clone().last() else { return all(index) };
        let op = index.ops[n];
        let number = |block| index.block_number.get(&block).copied();
        if Operation::get_op::<CondBrOp>(op, ctx).is_some() {
            let (condition, targets) = {
                let operation = op.deref(ctx);
                (operation.get_operand(0), [operation.get_successor(0), operation.get_successor(1)])
            };
            let (Some(yes), Some(no)) = (number(targets[0]), number(targets[1])) else { return all(index) };
            return match self.eval_top(condition) {
                Val::Const(c) => vec![(if c != 0 { yes } else { no }, threads.clone(), true)],
                Val::Threads(values) => {
                    let taken = Threads::of(&values, |v| v != 0);
                    vec![(yes, threads.and(&taken), true), (no, threads.and_not(&taken), true)]
                }
                Val::Uniform => vec![(yes, threads.clone(), true), (no, threads.clone(), true)],
                // A loop's condition (one side leads back to it): threads may iterate a different
                // number of times, but every thread that enters the loop leaves it.
                Val::Unknown => {
                    let decided = self.is_loop_branch(b, yes, no);
                    vec![(yes, threads.clone(), decided), (no, threads.clone(), decided)]
                }
            };
        }
        if let Some(switch) = Operation::get_op::<SwitchOp>(op, ctx) {
            let cases: Vec<u64> = switch.get_attr_switch_cases(ctx).map(|c| c.0.clone()).unwrap_or_default();
            let (discriminant, targets) = {
                let operation = op.deref(ctx);
                (operation.get_operand(0), operation.successors().collect::<Vec<_>>())
            };
            let Some(targets) = targets.into_iter().map(number).collect::<Option<Vec<usize>>>() else {
                return all(index);
            };
            if targets.len() != cases.len() + 1 {
                return all(index);
            }
            return match self.eval_top(discriminant) {
                Val::Const(c) => {
                    let at = cases.iter().position(|k| *k as i64 == c).unwrap_or(cases.len());
                    vec![(targets[at], threads.clone(), true)]
                }
                Val::Threads(values) => {
                    let mut rest = threads.clone();
                    let mut edges = Vec::new();
                    for (k, target) in cases.iter().zip(&targets) {
                        let taken = Threads::of(&values, |v| v == *k as i64);
                        edges.push((*target, threads.and(&taken), true));
                        rest = rest.and_not(&taken);
                    }
                    edges.push((targets[cases.len()], rest, true));
                    edges
                }
                Val::Uniform => targets.iter().map(|t| (*t, threads.clone(), true)).collect(),
                // A `for` loop's exit test (a switch on `next()`'s discriminant, one target
                // leading back): decided the way a loop's condition is (see above).
                Val::Unknown => {
                    let live: Vec<usize> =
                        targets.iter().copied().filter(|t| !self.is_unreachable(*t)).collect();
                    let decided = matches!(live.as_slice(), [yes, no] if self.is_loop_branch(b, *yes, *no));
                    targets.iter().map(|t| (*t, threads.clone(), decided)).collect()
                }
            };
        }
        all(index)
    }

    /// Whether block `b` is only `mir.unreachable` (the impossible arm of a `match`).
    fn is_unreachable(&self, b: usize) -> bool {
        let mut ops = self.index.ops_of_block[b].clone();
        ops.next().is_some_and(|n| Operation::get_op::<UnreachableOp>(self.index.ops[n], self.ctx).is_some())
    }

    /// Whether `b` is a loop's header and its branch the loop's condition: exactly one of `yes`
    /// and `no` leads back to `b` through blocks after it (within [`MAX_LOOP_SEARCH`] blocks; a
    /// longer search answers no).
    fn is_loop_branch(&self, b: usize, yes: usize, no: usize) -> bool {
        // Only forward in block order, or back to `b`: the import lays blocks out in reverse
        // postorder, so a path to `b` through a block before it leaves `b`'s loop by an
        // enclosing loop.
        // The loop's header may be a few blocks before the branch, each the only successor of
        // the one before and the only predecessor of the next (a `for` loop calls `next()` in
        // its header and branches on the result in the block after).
        let index = self.index;
        let mut header = b;
        for _ in 0..MAX_HEADER_CHAIN {
            match index.preds[header].as_slice() {
                [pred] if index.succs[*pred].as_slice() == [header] => header = *pred,
                _ => break,
            }
        }
        let back = |from: usize| index.path_exists(&[from], header, MAX_LOOP_SEARCH, |succ| succ >= header);
        matches!((back(yes), back(no)), (Some(true), Some(false)) | (Some(false), Some(true)))
    }

    /// A condition of the kernel, evaluated once.
    fn eval_top(&mut self, value: Value) -> Val {
        if let Some(known) = self.memo.get(&value) {
            return known.clone();
        }
        let mut budget = MAX_EVAL;
        let found = self.eval(value, &FxHashMap::default(), 0, &mut budget);
        self.memo.insert(value, found.clone());
        found
    }

    /// `value` per thread; `params` binds a helper's parameters to its call's arguments.
    fn eval(&self, value: Value, params: &FxHashMap<Value, Val>, depth: u32, budget: &mut u32) -> Val {
        let ctx = self.ctx;
        if *budget == 0 {
            return Val::Unknown;
        }
        *budget -= 1;
        let def = match value.defining_entity() {
            DefiningEntity::Op(def) => def,
            DefiningEntity::Block(block) => {
                if let Some(bound) = params.get(&value) {
                    return bound.clone();
                }
                // The kernel's parameters are the same in every thread; other block arguments
                // (values joined over paths) are not followed.
                let kernel_entry = self.index.entry_block(0).map(|b| self.index.blocks[b]);
                return if depth == 0 && Some(block) == kernel_entry { Val::Uniform } else { Val::Unknown };
            }
        };
        let width = int_width(ctx, value.get_type(ctx)).unwrap_or(64);
        let wrap = |v: i64| if width >= 64 { v } else { v & ((1i64 << width) - 1) };
        if let Some(constant) = Operation::get_op::<ConstIntOp>(def, ctx) {
            return match constant.get_attr_int_value(ctx) {
                Some(v) => Val::Const(wrap(v.value().to_u64() as i64)),
                None => Val::Unknown,
            };
        }
        let operands: Vec<Value> = def.deref(ctx).operands().collect();
        if let Some(cast) = Operation::get_op::<CastOp>(def, ctx) {
            return match cast.kind(ctx) {
                Some(CastKind::IntToInt) => map1(self.eval(operands[0], params, depth, budget), wrap),
                _ => Val::Unknown,
            };
        }
        if let Some(binop) = Operation::get_op::<BinOp>(def, ctx) {
            let a = self.eval(operands[0], params, depth, budget);
            let b = self.eval(operands[1], params, depth, budget);
            let Some(kind) = binop.kind(ctx) else { return Val::Unknown };
            return map2(a, b, |x, y| {
                Some(wrap(match kind {
                    BinOpKind::Add => x.wrapping_add(y),
                    BinOpKind::Sub => x.wrapping_sub(y),
                    BinOpKind::Mul => x.wrapping_mul(y),
                    BinOpKind::Div => x.checked_div(y)?,
                    BinOpKind::Rem => x.checked_rem(y)?,
                    BinOpKind::BitAnd => x & y,
                    BinOpKind::BitOr => x | y,
                    BinOpKind::BitXor => x ^ y,
                    BinOpKind::Shl => x.checked_shl(u32::try_from(y).ok()?)?,
                    BinOpKind::Shr => x.checked_shr(u32::try_from(y).ok()?)?,
                }))
            });
        }
        if let Some(cmp) = Operation::get_op::<CmpOp>(def, ctx) {
            let a = self.eval(operands[0], params, depth, budget);
            let b = self.eval(operands[1], params, depth, budget);
            let Some(predicate) = cmp.get_attr_cmp_predicate(ctx).map(|p| *p) else { return Val::Unknown };
            return map2(a, b, |x, y| {
                Some(i64::from(match predicate {
                    CmpPredicate::Eq => x == y,
                    CmpPredicate::Ne => x != y,
                    CmpPredicate::Lt => x < y,
                    CmpPredicate::Le => x <= y,
                    CmpPredicate::Gt => x > y,
                    CmpPredicate::Ge => x >= y,
                }))
            });
        }
        if let Some(call) = Operation::get_op::<CallOp>(def, ctx) {
            return self.eval_call(call, def, &operands, params, depth, budget);
        }
        if Operation::get_op::<LoadOp>(def, ctx).is_some() {
            let slot = operands[0];
            let is_variable =
                slot.defining_op().is_some_and(|alloca| Operation::get_op::<AllocaOp>(alloca, ctx).is_some());
            if !is_variable {
                return Val::Unknown;
            }
            let stored = self.stores.get(&slot).cloned().unwrap_or_default();
            return match stored.as_slice() {
                [] => Val::Unknown,
                [only] => self.eval(*only, params, depth, budget),
                // A variable stored more than once (a loop counter) is the same in every thread
                // when every value stored into it is; reading itself while it is evaluated
                // adds nothing (the counter's `tile + step`).
                several => {
                    if let Some(values) = self.chosen.get(&slot) {
                        return Val::Threads(values.clone());
                    }
                    if !self.visiting.borrow_mut().insert(slot) {
                        return Val::Uniform;
                    }
                    let found: Vec<Val> =
                        several.iter().map(|value| self.eval(*value, params, depth, budget)).collect();
                    self.visiting.borrow_mut().remove(&slot);
                    let uniform = found.iter().all(|v| matches!(v, Val::Uniform | Val::Const(_)));
                    // Only constants, and different ones: which one a thread reads depends on
                    // the path it took (a flag set under a branch), not known to be uniform.
                    let constants: FxHashSet<i64> = found
                        .iter()
                        .filter_map(|v| if let Val::Const(c) = v { Some(*c) } else { None })
                        .collect();
                    let chosen_by_path =
                        constants.len() > 1 && found.iter().all(|v| matches!(v, Val::Const(_)));
                    if uniform && !chosen_by_path { Val::Uniform } else { Val::Unknown }
                }
            };
        }
        Val::Unknown
    }

    /// A call: the thread index, another argument-less geometry read (the same in every thread),
    /// or a helper of the scope evaluated with its arguments.
    fn eval_call(
        &self,
        call: CallOp,
        op: Ptr<Operation>,
        operands: &[Value],
        params: &FxHashMap<Value, Val>,
        depth: u32,
        budget: &mut u32,
    ) -> Val {
        let (ctx, index) = (self.ctx, self.index);
        let name = call.callee(ctx).map(|name| name.to_string()).unwrap_or_default();
        if operands.is_empty() {
            if name.ends_with("thread_idx_x") {
                return Val::Threads(Rc::new((0..self.block_threads as i64).collect()));
            }
            // The launch contract is one-dimensional.
            if name.ends_with("thread_idx_y") || name.ends_with("thread_idx_z") {
                return Val::Const(0);
            }
            if name.ends_with("block_dim_x") {
                return Val::Const(self.block_threads as i64);
            }
            // The block's and the grid's coordinates are the same in every thread of a block.
            if UNIFORM_READS.iter().any(|read| name.ends_with(read)) {
                return Val::Uniform;
            }
        }
        let callee = index.op_number.get(&op).and_then(|n| index.callee_of.get(n)).copied();
        let Some(callee) = callee else {
            // Outside the scope: an argument-less read (`block_idx_x`, `grid_dim_x`) is the same
            // in every thread of a block; anything else is not known.
            return if operands.is_empty() && !name.contains("lane") && !name.contains("tid") {
                Val::Uniform
            } else {
                Val::Unknown
            };
        };
        if depth >= MAX_CALL_DEPTH {
            return Val::Unknown;
        }
        let Some(entry) = index.entry_block(callee) else { return Val::Unknown };
        let arguments: Vec<Value> = index.blocks[entry].deref(ctx).arguments().collect();
        if arguments.len() != operands.len() {
            return Val::Unknown;
        }
        let bound: FxHashMap<Value, Val> = arguments
            .into_iter()
            .zip(operands)
            .map(|(parameter, argument)| (parameter, self.eval(*argument, params, depth, budget)))
            .collect();
        // The helper's one returned value.
        let mut returned = None;
        for b in index.blocks_of[callee].clone() {
            for n in index.ops_of_block[b].clone() {
                if Operation::get_op::<ReturnOp>(index.ops[n], ctx).is_some() {
                    let operation = index.ops[n].deref(ctx);
                    if returned.is_some() || operation.get_num_operands() != 1 {
                        return Val::Unknown;
                    }
                    returned = Some(operation.get_operand(0));
                }
            }
        }
        let Some(returned) = returned else { return Val::Unknown };
        // A helper whose value the rule cannot read stays unknown (never assumed uniform).
        self.eval(returned, &bound, depth + 1, budget)
    }
}

fn map1(a: Val, f: impl Fn(i64) -> i64) -> Val {
    match a {
        Val::Const(x) => Val::Const(f(x)),
        Val::Threads(xs) => Val::Threads(Rc::new(xs.iter().map(|x| f(*x)).collect())),
        other => other,
    }
}

fn map2(a: Val, b: Val, f: impl Fn(i64, i64) -> Option<i64>) -> Val {
    match (a, b) {
        (Val::Unknown, _) | (_, Val::Unknown) => Val::Unknown,
        (Val::Threads(_), Val::Uniform) | (Val::Uniform, Val::Threads(_)) => Val::Unknown,
        (Val::Uniform, _) | (_, Val::Uniform) => Val::Uniform,
        (Val::Const(x), Val::Const(y)) => f(x, y).map_or(Val::Unknown, Val::Const),
        (Val::Threads(xs), Val::Const(y)) => collect(xs.iter().map(|x| f(*x, y))),
        (Val::Const(x), Val::Threads(ys)) => collect(ys.iter().map(|y| f(x, *y))),
        (Val::Threads(xs), Val::Threads(ys)) => collect(xs.iter().zip(ys.iter()).map(|(x, y)| f(*x, *y))),
    }
}

fn collect(values: impl Iterator<Item = Option<i64>>) -> Val {
    values.collect::<Option<Vec<i64>>>().map_or(Val::Unknown, |v| Val::Threads(Rc::new(v)))
}
