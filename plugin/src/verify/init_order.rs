//! Rule `pipeline-init`: a pipeline's barriers are used only after one thread initialised them
//! and a block barrier made that visible to every thread.
//!
//! `Pipeline::init` writes the mbarriers (one thread); the other threads see them only after a
//! `barrier()` that follows the init. A wait, acquire, `expect_tx`, copy, release or tail that
//! can run before that on some path uses an uninitialised mbarrier: the wait may return at once
//! on garbage, an arrive may hit a barrier that `init` is about to reset (hang or a phase lost).
//!
//! Per function, a forward pass over the blocks with two bits: *an init may have run* (joined
//! with "or") and *a block barrier followed a possible init on every path* (joined with
//! "and"). Calls apply the callee's summary: its exit bits for each of the four entry bits,
//! computed callee-first. A function reached from the kernel starts from the join of the bits
//! at its call sites. Linear: each block's bits only move up or down once per bit.

use rustc_hash::FxHashMap;

use pliron::{
    context::{Context, Ptr},
    operation::Operation,
};

use super::{
    Gap, Rule,
    call_order::callee_first,
    index::{OpClass, ScopeIndex},
    pipeline_calls::is_pipeline_init,
    rules::{PipelineKind, Reporter},
    thread_model::SharedThreadModel,
};
use crate::ir::semantic::memory::BarrierOp;

/// The two bits: an init may have run; every path has since passed a block barrier after one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Bits {
    may_init: bool,
    published: bool,
}

impl Bits {
    const ENTRY: Bits = Bits { may_init: false, published: false };
    /// No path reaches here yet: the identity of the join.
    const UNREACHED: Bits = Bits { may_init: false, published: true };

    fn join(self, other: Bits) -> Bits {
        Bits { may_init: self.may_init || other.may_init, published: self.published && other.published }
    }

    const ALL: [Bits; 4] = [
        Bits { may_init: false, published: false },
        Bits { may_init: false, published: true },
        Bits { may_init: true, published: false },
        Bits { may_init: true, published: true },
    ];
}

/// What each function does to the bits, for each entry bits (computed once per function).
type Summary = FxHashMap<Bits, Bits>;

/// The rule; returns a gap when the scope uses pipelines but holds no `Pipeline::init` (IR made
/// without the device API, or barriers set up where the scope cannot see): the order cannot be
/// judged, so the scope is not proven.
pub(crate) fn check_init_order(reporter: &mut Reporter, thread_model: &SharedThreadModel) -> Option<Gap> {
    let ctx = reporter.ctx;
    let index = reporter.index;
    let uses_pipelines = index
        .ops_of_class(OpClass::Semantic)
        .any(|(_, op)| PipelineKind::of(ctx, op).is_some_and(|kind| kind != PipelineKind::Advance));
    if !uses_pipelines {
        return None;
    }
    // Without an init, or without any block barrier, there is no order to judge: not proven.
    let barriers = index
        .ops_of_class(OpClass::Semantic)
        .any(|(_, op)| Operation::get_op::<BarrierOp>(op, ctx).is_some());
    if !barriers || !index.ops_of_class(OpClass::Call).any(|(_, op)| is_pipeline_init(ctx, op)) {
        return Some(Gap::undecided(
            "the initialisation of the pipelines' barriers (no `Pipeline::init`, or no block barrier, in the scope)",
        ));
    }
    if let Some(gap) = check_init_runs(reporter, thread_model) {
        return Some(gap);
    }
    // Callee-first summaries. Every summary starts at "no path returns" and grows: where calls
    // form a cycle (a recursion), the functions are summarised again until nothing moves, the
    // least fixpoint, which is the join over every depth the recursion can end at. Without a
    // cycle, the first pass is final.
    let (order, cycles) = callee_first(index);
    let unreached: Summary = Bits::ALL.into_iter().map(|entry| (entry, Bits::UNREACHED)).collect();
    let mut summaries: Vec<Summary> = vec![unreached; index.functions.len()];
    loop {
        let mut moved = false;
        for &f in &order {
            let summary: Summary = Bits::ALL
                .into_iter()
                .map(|entry| (entry, run(ctx, index, f, entry, &summaries, None).0))
                .collect();
            moved |= summary != summaries[f];
            summaries[f] = summary;
        }
        if !moved || cycles.is_empty() {
            break;
        }
    }
    // Caller-first entry bits: the kernel, and any function no call of the scope reaches (a
    // closure run by a standard-library function), start with nothing initialised. A recursive
    // call joins into a function already walked: the walk repeats until no entry moves.
    let mut entry: Vec<Bits> = (0..index.functions.len())
        .map(|f| if f == 0 || index.callers[f].is_empty() { Bits::ENTRY } else { Bits::UNREACHED })
        .collect();
    let found = loop {
        let mut found = Vec::new();
        let before = entry.clone();
        for &f in order.iter().rev() {
            let mut at_calls = Vec::new();
            let (_, uses) = run(ctx, index, f, entry[f], &summaries, Some(&mut at_calls));
            for (callee, bits) in at_calls {
                entry[callee] = entry[callee].join(bits);
            }
            found.extend(uses);
        }
        if entry == before {
            break found;
        }
    };
    for op in found {
        reporter.reject(
            Rule::PipelineInit,
            op,
            "this pipeline operation may run before its barriers are initialised and published: on some path \
             no `Pipeline::init` followed by a block `barrier()` comes before it (an uninitialised mbarrier \
             returns at once or loses arrivals: stale reads or a hang)"
                .to_string(),
            vec![],
        );
    }
    None
}

/// Every `Pipeline::init` must run in some thread: one under a branch no thread of the block
/// takes (`tid == 64` in a block of 64) leaves the barriers it names uninitialised, and the
/// order of the rest of this rule (an init on the path) says nothing. In the kernel function,
/// where the thread model reads every branch, such an init is rejected; in a helper (reached
/// from call sites the model joins) it is a gap.
fn check_init_runs(reporter: &mut Reporter, thread_model: &SharedThreadModel) -> Option<Gap> {
    let (ctx, index) = (reporter.ctx, reporter.index);
    let model = thread_model.get();
    let mut gap = None;
    for (n, op) in index.ops_of_class(OpClass::Call) {
        if !is_pipeline_init(ctx, op) {
            continue;
        }
        let block = index.op_block[n];
        if model.reach[block].as_ref().is_some_and(|reach| reach.threads.count() > 0) {
            continue;
        }
        if index.block_function[block] == 0 {
            reporter.reject(
                Rule::PipelineInit,
                op,
                format!(
                    "no thread of the block ({} threads) runs this `Pipeline::init`: the branch around it excludes \
                     every thread index, so the barriers are never initialised (waits return on garbage or hang)",
                    model.block_threads
                ),
                vec![],
            );
        } else {
            gap = Some(Gap::undecided(
                "the initialisation of the pipelines' barriers: a `Pipeline::init` in a helper that the thread \
                 model shows no thread reaching",
            ));
        }
    }
    gap
}

/// Function `f` from `entry`: its exit bits (joined over returns), and the pipeline
/// operations reached without published barriers. With `at_calls`, the bits at each call of a
/// scope function are recorded there.
///
/// Two fixpoints, each monotone: first *an init may have run* (it only grows), then *published*
/// (it only shrinks from "true everywhere"), reading the first one's converged bits at each
/// barrier. One fixpoint over both would not be monotone: a barrier publishes exactly when an
/// init may have run, so a block first visited before an init's path reaches it would stay
/// unpublished.
fn run(
    ctx: &Context,
    index: &ScopeIndex,
    f: usize,
    entry: Bits,
    summaries: &[Summary],
    mut at_calls: Option<&mut Vec<(usize, Bits)>>,
) -> (Bits, Vec<Ptr<Operation>>) {
    let Some(first) = index.entry_block(f) else { return (entry, Vec::new()) };
    let blocks = index.blocks_of[f].clone();
    // Pass 1: an init may have run (or-join).
    let mut may_init: FxHashMap<usize, bool> = FxHashMap::from_iter([(first, entry.may_init)]);
    let mut worklist = vec![first];
    while let Some(b) = worklist.pop() {
        let out =
            transfer(ctx, index, b, Bits { may_init: may_init[&b], published: true }, summaries, None, None);
        for &next in &index.succs[b] {
            let joined = may_init.get(&next).is_some_and(|old| *old) || out.may_init;
            if may_init.get(&next) != Some(&joined) {
                may_init.insert(next, joined);
                worklist.push(next);
            }
        }
    }
    // Pass 2: published on every path (and-join, from true).
    let mut published: FxHashMap<usize, bool> = blocks.clone().map(|b| (b, true)).collect();
    published.insert(first, entry.published);
    let mut worklist: Vec<usize> = blocks.clone().filter(|b| may_init.contains_key(b)).collect();
    while let Some(b) = worklist.pop() {
        let bits = Bits { may_init: may_init[&b], published: published[&b] };
        let out = transfer(ctx, index, b, bits, summaries, None, None);
        for &next in &index.succs[b] {
            if published[&next] && !out.published {
                published.insert(next, false);
                worklist.push(next);
            }
        }
    }
    let mut exit = Bits::UNREACHED;
    let mut uses = Vec::new();
    for b in blocks {
        let Some(&may) = may_init.get(&b) else { continue };
        let bits = Bits { may_init: may, published: published[&b] };
        let out = transfer(ctx, index, b, bits, summaries, Some(&mut uses), at_calls.as_deref_mut());
        // Only a `mir.return` hands bits back to the caller: a block ending in `mir.unreachable`
        // (a failed bounds check's panic) traps the launch, so its bits never reach the call.
        if index.ends_in_return(b) {
            exit = exit.join(out);
        }
    }
    (exit, uses)
}

/// The bits after block `b`, from `bits` before it.
fn transfer(
    ctx: &Context,
    index: &ScopeIndex,
    b: usize,
    mut bits: Bits,
    summaries: &[Summary],
    mut uses: Option<&mut Vec<Ptr<Operation>>>,
    mut at_calls: Option<&mut Vec<(usize, Bits)>>,
) -> Bits {
    for number in index.ops_of_block[b].clone() {
        // Only calls and semantic operations move the bits.
        if !matches!(index.op_class[number], OpClass::Call | OpClass::Semantic) {
            continue;
        }
        let op = index.ops[number];
        if is_pipeline_init(ctx, op) {
            bits.may_init = true;
            bits.published = false;
        } else if Operation::get_op::<BarrierOp>(op, ctx).is_some() {
            if bits.may_init {
                bits.published = true;
            }
        } else if let Some(&callee) = index.callee_of.get(&number) {
            if let Some(calls) = at_calls.as_deref_mut() {
                calls.push((callee, bits));
            }
            bits = summaries[callee][&bits];
        } else if PipelineKind::of(ctx, op).is_some_and(|kind| kind != PipelineKind::Advance)
            && !bits.published
            && let Some(uses) = uses.as_deref_mut()
        {
            uses.push(op);
        }
    }
    bits
}
