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
//!   `consumer_threads` given to `Pipeline::init` (a constant, or the one constant every chain
//!   of calls from the kernel hands a setup helper's parameter; symbol
//!   `device__pipeline__Pipeline…init`). Fewer never complete the *empty* barrier (the producer
//!   hangs); more complete it while some consumers still read (race, fault).
//!
//! Cost: one pass over the scope for the variables' stores; per function one worklist over its
//! blocks whose sets only grow (each block changes at most `N` times, `N ≤ 1024` a constant);
//! each condition is evaluated once, through at most [`MAX_EVAL`] operations, as `N` values.
//!
//! The threads and the values per thread come from [`super::thread_model`].

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use pliron::{
    context::{Context, Ptr},
    operation::Operation,
    value::Value,
};

use super::{
    Rule,
    block_shape::{declared_block_bound, declared_block_threads},
    call_chains::integer_bindings,
    facts::StateId,
    index::ScopeIndex,
    memory::constant_value,
    operands::PipelinePlace,
    pipeline_calls::is_pipeline_init,
    rules::{PipelineKind, Provenance, Reporter, role_of, state_created},
    thread_model::{SharedThreadModel, ThreadModel, Val},
    thread_set::Threads,
};
use crate::ir::{mir::memory::StoreOp, semantic::pipeline::PipelineRole};

/// One side of one pipeline: the threads reaching its operations (`exact` when every set was).
#[derive(Default)]
struct Side {
    threads: Option<Threads>,
    exact: bool,
    first_op: Option<Ptr<Operation>>,
    state: Option<StateId>,
}

/// A pipeline: its variable, or the state itself where none was named.
type Key = (Option<PipelinePlace>, Option<StateId>);

/// Rules `producer-threads` and `release-count`; returns what they could not judge, as
/// not-checked lines.
pub(crate) fn check_threads(
    reporter: &mut Reporter,
    provenance: &Provenance,
    pipelines: &BTreeMap<StateId, PipelinePlace>,
    thread_model: &SharedThreadModel,
) -> Vec<String> {
    let (ctx, index) = (reporter.ctx, reporter.index);
    if provenance.applies_to.is_empty() {
        return Vec::new();
    }
    let Some(block_threads) = declared_block_threads(ctx, index) else {
        let declared = match declared_block_bound(ctx, index) {
            // A role such as `tid >= 32` has as many threads as the launch's block gives it.
            Some(_) => {
                "only a bound on the block (`block_threads_at_most` or `block_threads_power_of_two`), whose roles' thread counts depend on the launch"
            }
            None => "no launch contract",
        };
        return vec![format!(
            "thread roles and arrival counts ({declared}: declare `device::launch::block_threads(N)` in the kernel)"
        )];
    };
    // Declared, so the shared model is of exactly `block_threads` threads.
    let model = thread_model.get();
    let reach = &model.reach;
    // Per pipeline (its variable, or the state itself where none was named): the producer
    // operations, the releases and all consumer operations, with the threads reaching them.
    let mut producers: Vec<(Key, Side)> = Vec::new();
    let mut releases: Vec<(Key, Side)> = Vec::new();
    // Waits and releases: the threads that consume.
    let mut consumers: Vec<(Key, Side)> = Vec::new();
    let record = |side: &mut Vec<(Key, Side)>, key: Key, state: StateId, op: Ptr<Operation>| {
        let at = match side.iter().position(|(known, _)| *known == key) {
            Some(at) => at,
            None => {
                side.push((key, Side { exact: true, ..Side::default() }));
                side.len() - 1
            }
        };
        let entry = &mut side[at].1;
        entry.first_op.get_or_insert(op);
        entry.state.get_or_insert(state);
        match index.block_of_op(op).and_then(|b| reach[b].as_ref()) {
            Some(found) => {
                entry.exact &= found.exact;
                entry.threads.get_or_insert_with(|| Threads::none(block_threads)).union(&found.threads);
            }
            // Unreachable code, or a function the rule did not reach.
            None => entry.exact = false,
        }
    };
    for (n, (state, kind)) in &provenance.applies_to {
        let role = role_of(ctx, index, *state);
        let key = match pipelines.get(state) {
            Some(variable) => (Some(variable.clone()), None),
            None => (None, Some(*state)),
        };
        let op = index.ops[*n];
        match (kind, role) {
            (PipelineKind::Release, Some(PipelineRole::Consumer)) => {
                record(&mut releases, key.clone(), *state, op);
                record(&mut consumers, key, *state, op);
            }
            (PipelineKind::Wait, Some(PipelineRole::Consumer)) => record(&mut consumers, key, *state, op),
            (
                PipelineKind::Acquire | PipelineKind::ExpectTx | PipelineKind::BulkCopy | PipelineKind::Tail,
                Some(PipelineRole::Producer),
            ) => record(&mut producers, key, *state, op),
            _ => {}
        }
    }
    let inits = init_counts(ctx, index, model);
    // A side keyed by its state alone (no pipeline variable named: a helper's callers hand it
    // different pipelines, or the operand is not traced) counts the threads of every pipeline its
    // operations run on; that is one pipeline's count only where the scope sets up one pipeline.
    let judged = |variable: &Option<PipelinePlace>| variable.is_some() || one_pipeline(index, &inits);
    let mut unjudged = 0;
    for ((variable, _), side) in &producers {
        let (Some(threads), Some(op), Some(state)) = (&side.threads, side.first_op, side.state) else {
            continue;
        };
        if !side.exact || !judged(variable) {
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
    let both_roles = two_role_threads(&producers, &consumers);
    for ((variable, _), side) in &releases {
        let (Some(threads), Some(op), Some(state)) = (&side.threads, side.first_op, side.state) else {
            continue;
        };
        // The init stored into the pipeline variable the releases name; else the count every
        // init announces (the only init's, where there is one).
        let init = variable
            .as_ref()
            .and_then(|variable| inits.iter().find(|(stored_in, _, _)| stored_in.as_ref() == Some(variable)))
            .or_else(|| agreeing_init(&inits));
        let Some((_, init_op, Some(announced))) = init else {
            unjudged += 1;
            continue;
        };
        if !side.exact || !judged(variable) {
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
    let mut not_checked = Vec::new();
    if unjudged > 0 {
        not_checked.push(format!(
            "thread roles and arrival counts of {unjudged} pipeline sides (a branch on the thread index the \
             verifier cannot evaluate, a role in a helper, or no constant `init` count)"
        ));
    }
    not_checked.extend(both_roles);
    not_checked
}

/// Per pipeline whose producer threads and consumer threads (waits and releases) are both known
/// exactly and share a thread, a not-checked line: the model orders operations per role, not one
/// thread's two roles, so it cannot exclude a producer loop that runs more stages ahead than the
/// ring holds and then waits, at `producer_acquire` or `producer_tail`, for a release only it
/// would make (a deadlock).
fn two_role_threads(producers: &[(Key, Side)], consumers: &[(Key, Side)]) -> Vec<String> {
    let mut lines = Vec::new();
    for (key, producer) in producers {
        let Some((_, consumer)) = consumers.iter().find(|(other, _)| other == key) else { continue };
        let (Some(made), Some(used)) = (&producer.threads, &consumer.threads) else { continue };
        if !(producer.exact && consumer.exact) {
            continue;
        }
        let shared = made.and(used);
        if shared.count() > 0 {
            lines.push(format!(
                "the order of one thread's two roles: thread {} both produces and consumes one pipeline, and \
                 whether its producer runs more stages ahead than the ring holds before it releases them \
                 (a deadlock) is not modelled",
                list(&shared)
            ));
        }
    }
    lines
}

fn list(threads: &Threads) -> String {
    let first = threads.first(4);
    let mut text = first.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ");
    if threads.count() as usize > first.len() {
        text.push_str(", …");
    }
    text
}

/// Whether the scope sets up exactly one pipeline: one `init` call, in the kernel or in a helper
/// whose every caller up to the kernel is called once (a setup helper called for two pipelines
/// is one `init` operation run twice).
fn one_pipeline<T>(index: &ScopeIndex, inits: &[(T, Ptr<Operation>, Option<i64>)]) -> bool {
    let [(_, init, _)] = inits else { return false };
    let Some(mut f) = index.function_of_op(*init) else { return false };
    for _ in 0..index.functions.len() {
        if f == 0 {
            return true;
        }
        let [call] = index.callers[f].as_slice() else { return false };
        f = index.block_function[index.op_block[*call]];
    }
    false
}

/// The first of the scope's inits where all of them announce one constant count (two pipelines
/// set up side by side, each reached through an `attach`): rule `shared-layout` holds every attach
/// to barriers an init set up, so whichever init a pipeline's barriers come from announces it.
fn agreeing_init<T>(inits: &[(T, Ptr<Operation>, Option<i64>)]) -> Option<&(T, Ptr<Operation>, Option<i64>)> {
    let (first, rest) = inits.split_first()?;
    (first.2.is_some() && rest.iter().all(|init| init.2 == first.2)).then_some(first)
}

/// Each `Pipeline::init` call of the scope: the variable its result is stored into, the call,
/// and its constant `consumer_threads`.
fn init_counts(
    ctx: &Context,
    index: &ScopeIndex,
    model: &ThreadModel,
) -> Vec<(Option<PipelinePlace>, Ptr<Operation>, Option<i64>)> {
    let mut found = Vec::new();
    for (n, op) in index.ops.iter().enumerate() {
        if !is_pipeline_init(ctx, *op) {
            continue;
        }
        let operation = op.deref(ctx);
        if operation.get_num_operands() != 2 || operation.get_num_results() != 1 {
            continue;
        }
        let count = constant_value(ctx, operation.get_operand(1), 4).or_else(|| {
            // A count handed to a setup helper: the one constant every chain of calls from the
            // kernel passes.
            let f = index.block_function[index.op_block[n]];
            let mut agreed = None;
            for params in integer_bindings(ctx, index, model, f) {
                match (model.eval(operation.get_operand(1), &params), agreed) {
                    (Val::Const(c), None) => agreed = Some(c),
                    (Val::Const(c), Some(seen)) if c == seen => {}
                    _ => return None,
                }
            }
            agreed
        });
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
    found
        .into_iter()
        .map(|(result, op, count)| (stored_in.get(&result).map(|local| (*local, vec![])), op, count))
        .collect()
}
