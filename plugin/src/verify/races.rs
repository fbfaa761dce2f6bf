//! Gap kind `shared-order`: ordinary shared memory between block barriers, in a scope without a
//! pipeline, or beside a pipeline's layout (apart from every ring and barrier area, so that no
//! copy, mbarrier or stage access touches it). An access is accounted for only where no two
//! threads can reach the same bytes between the same block barriers with one of them writing
//! (a race).
//!
//! The proof has three parts, each over-approximating what the GPU can do:
//! - **Barriers are reached by the whole block together.** Every branch whose condition may
//!   differ between threads (one the thread rules cannot show uniform) must reconverge, at its
//!   immediate post-dominator, before any barrier (or call of a function holding one): a barrier
//!   under such a branch, in a loop whose trip count differs per thread, or after a thread-
//!   dependent `return`, is reached by part of the block (a hang or undefined behaviour).
//! - **Intervals.** Since every thread passes each barrier together, two accesses can run at the
//!   same time only if both are reachable from the kernel's entry or from one barrier without
//!   passing another. The intervals are walked over the scope's operations, into called scope
//!   functions and back to every caller (context-insensitively: more pairs, never fewer).
//! - **Addresses per thread.** Each access's address is evaluated as the dynamic shared base
//!   plus a byte offset per thread (through `add`, pointer casts, locals stored once and helper
//!   parameters, for each chain of calls from the kernel), with the threads that can reach its
//!   block. Two accesses of one interval, one a store, must touch disjoint bytes in any two
//!   different threads. An access whose offset depends on a value the thread rules do not know
//!   per thread (a loop counter) is compared only with loads, which cannot race with it.
//!
//! Where the kernel declares its block (`device::launch::block_threads(N)`, or
//! `block_threads_2d(X, Y)` for `X × Y` threads), the threads are its linear indices `0..N`
//! (`threadIdx.x + X · threadIdx.y`); otherwise every thread index below the hardware's 1024 is
//! enumerated and `block_dim_x()` is unknown, which covers every one-dimensional block. A scope
//! reading `thread_idx_y` or `thread_idx_z` without the declaration is not judged (its block may
//! be two-dimensional).
//!
//! Cost: the divergent blocks come with the thread model; per barrier (at most
//! [`MAX_BARRIERS`]) one walk over the scope's operations (at most [`MAX_WALK`] steps); per interval, pairs of at most
//! [`MAX_INTERVAL_ACCESSES`] accesses, each compared with the interval's stores through one
//! map of the bytes they touch, in `O(threads × bytes)`.

use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};

use pliron::{context::Context, operation::Operation, r#type::Typed, value::Value};

use super::{
    Gap, GapKind,
    accounting::unplaced_gap,
    block_shape::{BlockShape, declared_block_sizes},
    flow::Flow,
    index::{OpClass, ScopeIndex},
    layout::{Occupied, pointee_bytes},
    locals::loads_place,
    memory::LocalStores,
    progression::{Assumed, Place, Progression},
    rules::Reporter,
    symbols,
    thread_model::{SharedThreadModel, ThreadModel},
    thread_set::Threads,
};
use crate::ir::{
    builder::SourceLoc,
    mir::{control::CallOp, memory::StoreOp},
    semantic::memory::BarrierOp,
};

mod addresses;
mod barriers;
mod contexts;
mod guards;
mod intervals;
mod window;

use addresses::{points_elsewhere, shared_offset};
pub(crate) use barriers::divergent_barrier_gap;
use barriers::{divergent_barrier, divergent_branch, functions_holding_barriers};
use contexts::{Binding, Contexts};
use guards::guarded_threads;
use intervals::{BarrierFreeCalls, OpSet, interval_from};
use window::{declared_window, outside_window_unproven, reject_past_window};

/// Barriers a scope may hold for its intervals to be walked.
const MAX_BARRIERS: usize = 64;
/// Accesses (per call chain) one interval may hold.
const MAX_INTERVAL_ACCESSES: usize = 4096;
/// Definitions looked through for one address.
const ADDRESS_DEPTH: u32 = 32;
/// The widest access compared byte by byte.
const MAX_ACCESS_BYTES: i64 = 64;
/// The most dynamic shared memory a block can have (227 KiB on sm_90): an access past it faults
/// rather than races, so a per-thread loop counter's addresses are followed up to it.
const MAX_SHARED_BYTES: i64 = 227 * 1024;
/// Definitions the walk through memory may look at for one pointer kept in memory.
const FLOW_BUDGET: u32 = 64;
/// Steps (an operation under a chain of calls) one interval's walk may take.
const MAX_WALK: usize = 1 << 18;
/// Calls deep the interval walk follows.
const MAX_CALL_DEPTH: u32 = 16;
/// Byte offsets one access may start at, over all threads of one call chain.
const MAX_STARTS: usize = 1 << 18;

/// One access under one call chain.
#[derive(Clone)]
struct Instance {
    op: usize,
    store: bool,
    threads: Threads,
    /// Byte offset from the dynamic shared base, per thread, as a progression over the loop
    /// counters it is indexed by; `None` when not known per thread.
    offsets: Option<Progression>,
    bytes: i64,
    /// The call in the kernel function its chain starts with (`None` in the kernel itself): it
    /// runs only in the intervals that reach that call.
    site: Option<usize>,
    /// The byte offsets each thread may start the access at (indexed by thread), enumerated once
    /// where `offsets` is known: every rule of the check asks them, for every thread, often.
    starts_by_thread: Option<Rc<[Vec<i64>]>>,
    /// The uniform variables (with one load) whose values its evaluation could not read (leaving
    /// `offsets` unknown, or a counter in it unbounded), for [`symbols`] to read as one value per
    /// interval.
    blocked: Vec<(Place, Value)>,
}

impl Instance {
    /// The byte offsets thread `t` may start an access at.
    fn starts(&self, t: usize) -> &[i64] {
        self.starts_by_thread.as_ref().and_then(|table| table.get(t)).map_or(&[], Vec::as_slice)
    }

    /// Every thread's offsets, where they can be enumerated, [`MAX_STARTS`] in all at most.
    fn enumerate(offsets: &Progression, threads: &Threads) -> Option<Rc<[Vec<i64>]>> {
        let mut total = 0usize;
        let mut table: Vec<Vec<i64>> = Vec::new();
        for t in threads.members() {
            let values = offsets.values(t, MAX_SHARED_BYTES, MAX_STARTS)?;
            total += values.len();
            if total > MAX_STARTS {
                return None;
            }
            table.resize(t, Vec::new());
            table.push(values);
        }
        Some(table.into())
    }
}

/// The `shared-order` gaps of `candidates` (operation numbers: loads and stores that may touch
/// shared memory in a scope without pipeline states): none for an access proven free of races.
pub(crate) fn shared_order_gaps(
    reporter: &mut Reporter,
    locals: &LocalStores,
    candidates: &[usize],
    thread_model: &SharedThreadModel,
) -> Vec<Gap> {
    let (ctx, index) = (reporter.ctx, reporter.index);
    let Some(sizes) = declared_block_sizes(ctx, index) else {
        return order_gaps(reporter, locals, candidates, thread_model, None).0;
    };
    // Every launch the contract allows, judged on its own: a size's block dimension is a
    // constant there, so what is computed from it (a tree's first stride) has one value.
    let mut gaps: Vec<Gap> = Vec::new();
    // An access unproven in several sizes is reported once, at the smallest.
    let mut unproven = FxHashSet::default();
    let reported = reporter.rejections.len();
    for size in sizes {
        let model = SharedThreadModel::of_block(ctx, index, locals, BlockShape { x: size, y: 1 });
        for mut gap in order_gaps(reporter, locals, candidates, &model, None).0 {
            if unproven.insert((gap.kind, gap.location.clone())) {
                gap.message = format!("in a block of {size} threads, {}", gap.message);
                gaps.push(gap);
            }
        }
    }
    // A finding every size makes is one finding.
    let mut seen = FxHashSet::default();
    let mut found = reporter.rejections.split_off(reported);
    found.retain(|rejection| seen.insert((rejection.op, rejection.rule, rejection.message.clone())));
    reporter.rejections.extend(found);
    gaps
}

/// The gaps of `candidates`, the accesses of a pipeline scope that are neither stage accesses
/// nor into locals or parameters: each is ordinary shared memory (held to the race check like a
/// scope without pipelines) where its bytes, in every thread and iteration, lie apart from every
/// ring and barrier area of the layout (`occupied`), and `unplaced-access` otherwise. Apart from
/// them, no copy, barrier or stage access of the protocol touches its bytes. Also the accesses
/// so shown apart (operation numbers).
pub(crate) fn beside_layout_gaps(
    reporter: &mut Reporter,
    locals: &LocalStores,
    candidates: &[usize],
    thread_model: &SharedThreadModel,
    occupied: &Occupied,
) -> (Vec<Gap>, FxHashSet<usize>) {
    match occupied {
        Some(extents) => order_gaps(reporter, locals, candidates, thread_model, Some(extents)),
        None => {
            let gaps = candidates
                .iter()
                .map(|n| {
                    let why = ", and the layout it would have to be shown apart from is not placed whole";
                    unplaced_gap(reporter.ctx, reporter.index, *n, why)
                })
                .collect();
            (gaps, FxHashSet::default())
        }
    }
}

/// The race check of `candidates`; with `apart_from`, an access not shown apart from those
/// window bytes is left out of it as `unplaced-access`, and those shown apart are returned too.
fn order_gaps(
    reporter: &mut Reporter,
    locals: &LocalStores,
    candidates: &[usize],
    thread_model: &SharedThreadModel,
    apart_from: Option<&[(i64, i64)]>,
) -> (Vec<Gap>, FxHashSet<usize>) {
    let (ctx, index) = (reporter.ctx, reporter.index);
    if candidates.is_empty() {
        return (Vec::new(), FxHashSet::default());
    }
    let gap_all = |why: String| -> (Vec<Gap>, FxHashSet<usize>) {
        let gaps = candidates
            .iter()
            .map(|n| Gap::at(ctx, index, index.ops[*n], GapKind::SharedOrder, why.clone()))
            .collect();
        (gaps, FxHashSet::default())
    };
    let model = thread_model.get();
    if !model.declared && reads_other_dimensions(ctx, index) {
        return gap_all(
            "shared memory in a kernel that reads `thread_idx_y`/`thread_idx_z` without declaring its block \
             (`device::launch::block_threads(N)` or `block_threads_2d(X, Y)`): the race check enumerates the \
             declared block's threads, and without a declaration one-dimensional blocks only"
                .to_string(),
        );
    }
    let holds_barrier = functions_holding_barriers(ctx, index);
    if let Some(branch) = divergent_branch(ctx, index, model, &holds_barrier) {
        return gap_all(divergent_barrier(ctx, index, branch));
    }
    let barriers: Vec<usize> = (0..index.ops.len())
        .filter(|n| Operation::get_op::<BarrierOp>(index.ops[*n], ctx).is_some())
        .collect();
    if barriers.len() > MAX_BARRIERS {
        return gap_all(format!(
            "{} block barriers in the scope, more than the {MAX_BARRIERS} whose intervals the race check walks",
            barriers.len()
        ));
    }
    let barrier_set: OpSet = barriers.iter().copied().collect();
    let flow = Flow { ctx, index, locals, leaf: None };
    let unassumed = Assumed::default();
    let mut contexts = Contexts::new(&flow, model, &unassumed);
    // An access in a block no thread reaches (behind a branch on a constant) never runs.
    let mut candidates: Vec<usize> =
        candidates.iter().copied().filter(|n| model.reach[index.op_block[*n]].is_some()).collect();
    let mut instances: FxHashMap<usize, Vec<Instance>> = FxHashMap::default();
    for n in &candidates {
        let f = index.block_function[index.op_block[*n]];
        let found: Vec<Instance> = contexts
            .of(f)
            .iter()
            .filter_map(|binding| instance(&flow, model, binding, *n, &Assumed::default()))
            .collect();
        instances.insert(*n, found);
    }
    let mut gaps = Vec::new();
    if let Some(occupied) = apart_from {
        candidates.retain(|n| {
            if apart(&instances[n], occupied) {
                return true;
            }
            let why = ", nor shown apart from every ring and barrier area in every thread";
            gaps.push(unplaced_gap(ctx, index, *n, why));
            false
        });
    }
    let candidate_set: FxHashSet<usize> = candidates.iter().copied().collect();
    let shown_apart = if apart_from.is_some() { candidate_set.clone() } else { FxHashSet::default() };
    reject_past_window(reporter, &candidates, &instances);
    let mut unproven: FxHashMap<usize, String> = FxHashMap::default();
    let mut seen_in_interval: FxHashSet<usize> = FxHashSet::default();
    let calls = BarrierFreeCalls::of(index, &holds_barrier, &candidate_set);
    let entry = index.entry_block(0).map(|b| index.ops_of_block[b].start);
    // A barrier in a helper starts one interval per call of the helper: after its return, the
    // threads go on after the call that ran it, not after every call of the helper.
    let starts = entry.into_iter().map(|n| (n, None)).chain(barriers.iter().flat_map(|b| {
        let callers = &index.callers[index.block_function[index.op_block[*b]]];
        let per_call: Vec<(usize, Option<usize>)> = callers.iter().map(|call| (*b, Some(*call))).collect();
        if per_call.is_empty() { vec![(*b, None)] } else { per_call }
    }));
    for (source, entered_by) in starts {
        let Some(reached) = interval_from(index, &calls, &barrier_set, source, entered_by) else {
            return gap_all(format!(
                "the operations between two block barriers take more than {MAX_WALK} steps (or calls deeper than \
                 {MAX_CALL_DEPTH}) to walk"
            ));
        };
        let mut interval: Vec<usize> = candidates.iter().copied().filter(|n| reached.contains(*n)).collect();
        interval.sort_unstable();
        interval.dedup();
        seen_in_interval.extend(interval.iter().copied());
        // Only an interval starting in the kernel function, or in a helper the kernel's own call
        // entered, enters every helper through a call it reaches: one starting in a helper
        // entered from anywhere runs the rest of that helper's chains.
        let anchor = entered_by.unwrap_or(source);
        let reached = (index.block_function[index.op_block[anchor]] == 0).then_some(&reached);
        let members: Vec<&Instance> = interval
            .iter()
            .flat_map(|n| instances[n].iter())
            .filter(|instance| runs_in(instance.site, reached))
            .collect();
        if members.len() > MAX_INTERVAL_ACCESSES {
            for n in &interval {
                unproven.entry(*n).or_insert_with(|| {
                    format!(
                        "{} shared-memory accesses between the same barriers, more than the \
                         {MAX_INTERVAL_ACCESSES} the race check compares",
                        members.len()
                    )
                });
            }
            continue;
        }
        let (conflicts, variables_read) = match conflicts_reading_variables(
            &flow,
            model,
            &holds_barrier,
            (source, reached),
            &interval,
            &instances,
        ) {
            Some(conflicts) => (conflicts, true),
            None => (interval_conflicts(ctx, index, &members), false),
        };
        for (access, why) in conflicts.into_iter().chain(outside_window_unproven(
            (&interval, reached),
            &instances,
            variables_read,
        )) {
            unproven.entry(access).or_insert(why);
        }
    }
    for n in &candidates {
        let why = match unproven.remove(n) {
            Some(why) => why,
            None if !seen_in_interval.contains(n) => {
                "a shared-memory access the race check does not reach from \
                                                      the kernel through calls it follows"
                    .to_string()
            }
            None => continue,
        };
        gaps.push(Gap::at(ctx, index, index.ops[*n], GapKind::SharedOrder, why));
    }
    (gaps, shown_apart)
}

/// Whether every byte `instances` may touch, in every thread of every call chain, lies outside
/// every `occupied` extent (window bytes `[lo, hi)`); an instance whose offsets are not known per
/// thread, or an access with no instance, is not shown apart.
fn apart(instances: &[Instance], occupied: &[(i64, i64)]) -> bool {
    !instances.is_empty()
        && instances.iter().all(|instance| {
            // Offsets are kept only where every thread's can be enumerated ([`instance`]).
            instance.offsets.is_some()
                && instance.threads.members().all(|t| {
                    instance.starts(t).iter().all(|&start| {
                        occupied.iter().all(|(lo, hi)| start + instance.bytes <= *lo || start >= *hi)
                    })
                })
        })
}

/// ` at FILE:LINE:COLUMN` for operation `n`, where it has a source position.
fn at_source(ctx: &Context, index: &ScopeIndex, n: usize) -> String {
    SourceLoc::from_location(ctx, index.ops[n].deref(ctx).loc())
        .map(|l| format!(" at {l}"))
        .unwrap_or_default()
}

/// A thread and the store (operation number) it touches a byte with.
type StoreBy = (usize, usize);

/// The accesses of one interval that may race, each with why: for every byte some store touches,
/// the first two threads storing it; an access of that byte by another thread races. An access
/// whose address is not known per thread races with every store of the interval (a store of
/// unknown address, with every other access and with itself in another thread).
fn interval_conflicts(ctx: &Context, index: &ScopeIndex, members: &[&Instance]) -> Vec<(usize, String)> {
    let place = |op: usize| at_source(ctx, index, op);
    let mut found = Vec::new();
    let stores: Vec<&Instance> = members.iter().copied().filter(|m| m.store).collect();
    if stores.is_empty() {
        return found;
    }
    for unknown in members.iter().filter(|m| m.offsets.is_none()) {
        let other = stores.iter().find(|s| s.op != unknown.op || unknown.store).map_or(unknown.op, |s| s.op);
        let why = format!(
            "an access of shared memory at an address the race check cannot evaluate per thread, between the \
             same block barriers as a store{}: a race is not excluded",
            place(other)
        );
        found.push((unknown.op, why.clone()));
        found.push((other, why));
    }
    // Byte → the first two different threads storing it, each with its store.
    let stored_bytes: usize = stores
        .iter()
        .map(|store| {
            store.threads.members().map(|t| store.starts(t).len()).sum::<usize>() * store.bytes as usize
        })
        .sum();
    let mut stored: FxHashMap<i64, (StoreBy, Option<StoreBy>)> =
        FxHashMap::with_capacity_and_hasher(stored_bytes.min(MAX_STARTS), Default::default());
    for store in &stores {
        if store.offsets.is_none() {
            continue;
        }
        for t in store.threads.members() {
            for &start in store.starts(t) {
                for byte in start..start + store.bytes {
                    let entry = stored.entry(byte).or_insert(((t, store.op), None));
                    if entry.0.0 != t && entry.1.is_none() {
                        entry.1 = Some((t, store.op));
                    }
                }
            }
        }
    }
    for access in members {
        if access.offsets.is_none() {
            continue;
        }
        'threads: for t in access.threads.members() {
            for byte in access.starts(t).iter().flat_map(|&start| start..start + access.bytes) {
                let Some((first, second)) = stored.get(&byte) else { continue };
                let other = if first.0 != t { Some(*first) } else { *second };
                if let Some((thread, store)) = other {
                    let kind = if access.store { "store" } else { "load" };
                    let why = format!(
                        "threads {thread} and {t} may both reach byte {byte} of dynamic shared memory between the \
                         same block barriers, in a store{} and this {kind}: a race",
                        place(store)
                    );
                    found.push((access.op, why.clone()));
                    found.push((store, why));
                    break 'threads;
                }
            }
        }
    }
    found
}

/// The conflicts of an interval whose unknown accesses are unknown only for uniform variables
/// they read, compared once for each value those may hold at the interval's start, each load of
/// them reading its own version (`symbols`); `None` where that does not apply (then the unknown
/// accesses stay unproven).
fn conflicts_reading_variables(
    flow: &Flow,
    model: &ThreadModel,
    holds_barrier: &[bool],
    (source, reached): (usize, Option<&OpSet>),
    interval: &[usize],
    instances: &FxHashMap<usize, Vec<Instance>>,
) -> Option<Vec<(usize, String)>> {
    let (ctx, index) = (flow.ctx, flow.index);
    // Accesses unknown per thread, and those known only loosely for want of a variable's value
    // (a `while` counter whose bound the variable is).
    let unknown: Vec<usize> = interval
        .iter()
        .copied()
        .filter(|n| {
            instances[n]
                .iter()
                .any(|i| runs_in(i.site, reached) && (i.offsets.is_none() || !i.blocked.is_empty()))
        })
        .collect();
    if unknown.is_empty() || index.block_function[index.op_block[source]] != 0 {
        return None;
    }
    let mut places: FxHashMap<Place, Value> = FxHashMap::default();
    for instance in
        unknown.iter().flat_map(|n| &instances[n]).filter(|i| runs_in(i.site, reached) && i.offsets.is_none())
    {
        if instance.blocked.is_empty() {
            return None;
        }
        places.extend(instance.blocked.iter().cloned());
    }
    let variables = symbols::variables(ctx, index, flow.locals, model, &places)?;
    // Each variable's loads the interval reaches at one version.
    let mut loads: Vec<Vec<(Value, usize, symbols::Version)>> = Vec::new();
    for variable in &variables {
        let versions = variable.versions(ctx, index, holds_barrier, source)?;
        let reads = versions.iter().filter_map(|(n, version)| {
            let op = index.ops[*n];
            let result = (op.deref(ctx).get_num_results() == 1).then(|| op.deref(ctx).get_result(0))?;
            loads_place(ctx, result, &variable.place).then_some((result, *n, (*version)?))
        });
        loads.push(reads.collect());
    }
    let load_ops: FxHashMap<Value, usize> = loads.iter().flatten().map(|(load, n, _)| (*load, *n)).collect();
    let window = declared_window(ctx, index);
    let known: Vec<&Instance> = interval
        .iter()
        .filter(|n| !unknown.contains(n))
        .flat_map(|n| instances[n].iter())
        .filter(|instance| runs_in(instance.site, reached))
        .collect();
    let mut same_interval: FxHashMap<(usize, usize), bool> = FxHashMap::default();
    for start in symbols::assignments(&variables)? {
        let mut assumed = Assumed::default();
        for (i, variable) in variables.iter().enumerate() {
            assumed.places.insert(variable.place.clone());
            for (load, _, version) in &loads[i] {
                if let Some(value) = variable.value(start[i], *version) {
                    assumed.loads.insert(*load, value);
                    if let Some(modulus) = variable.modulus() {
                        assumed.moduli.insert(*load, modulus);
                    }
                }
            }
        }
        let mut read: Vec<Instance> = Vec::new();
        // Helpers' parameters bound again, reading the variables at these values.
        let mut contexts = Contexts::new(flow, model, &assumed);
        let kernel_bindings = contexts.of(0);
        let kernel_binding = kernel_bindings.iter().find(|binding| binding.site.is_none())?;
        // A load read at its version must have run in this interval: every path from the
        // interval's start to the access passes it.
        let mut fresh = |loads: &[Value], at: usize| {
            loads.iter().all(|load| {
                let load = load_ops[load];
                *same_interval.entry((load, at)).or_insert_with(|| {
                    !symbols::reaches_avoiding(ctx, index, holds_barrier, source, at, load)
                })
            })
        };
        // The kernel's own accesses run only in the threads its branches let through at these
        // values (a tree reduction's `tid < active`), where those branches ran in this interval.
        let narrow = |instance: &Instance, fresh: &mut dyn FnMut(&[Value], usize) -> bool| {
            if instance.site.is_some() || index.block_function[index.op_block[instance.op]] != 0 {
                return None;
            }
            let (threads, used) = guarded_threads(
                flow,
                model,
                kernel_binding,
                holds_barrier,
                &assumed,
                instance.op,
                &instance.threads,
            );
            (threads != instance.threads && fresh(&used, instance.op))
                .then(|| Instance { threads, ..instance.clone() })
        };
        let mut narrowed_known: Vec<Instance> = Vec::new();
        let mut unchanged_known: Vec<&Instance> = Vec::new();
        for instance in &known {
            match narrow(instance, &mut fresh) {
                Some(narrowed) => narrowed_known.push(narrowed),
                None => unchanged_known.push(instance),
            }
        }
        for n in &unknown {
            let f = index.block_function[index.op_block[*n]];
            for binding in contexts.of(f).iter().filter(|binding| runs_in(binding.site, reached)) {
                assumed.used.borrow_mut().clear();
                let Some(instance) = instance(flow, model, binding, *n, &assumed) else { continue };
                // In a helper, the access runs where the chain's call in the kernel does.
                let at = if f == 0 { Some(*n) } else { binding.site }?;
                let inside = instance.offsets.as_ref().is_some_and(Progression::bounded)
                    && instance.threads.members().all(|t| {
                        instance.starts(t).iter().all(|start| *start >= 0 && start + instance.bytes <= window)
                    });
                let used: Vec<Value> = assumed.used.borrow().iter().chain(&binding.used).copied().collect();
                if !inside || !fresh(&used, at) {
                    return None;
                }
                read.push(narrow(&instance, &mut fresh).unwrap_or(instance));
            }
        }
        let members: Vec<&Instance> =
            unchanged_known.iter().copied().chain(narrowed_known.iter()).chain(read.iter()).collect();
        let conflicts = interval_conflicts(ctx, index, &members);
        if !conflicts.is_empty() {
            return Some(conflicts);
        }
    }
    Some(Vec::new())
}

/// Whether an access under a call chain starting with the kernel's call `site` may run in an
/// interval that starts in the kernel function and whose walk `reached` these operations (`None`
/// for an interval starting in a helper): the kernel's own accesses always, a helper's only if
/// the walk passes the call that runs it.
fn runs_in(site: Option<usize>, reached: Option<&OpSet>) -> bool {
    match (site, reached) {
        (Some(site), Some(reached)) => reached.contains(site),
        _ => true,
    }
}

/// `n` (a load or store) under one call chain; `None` where its pointer points outside shared
/// memory in that chain (a helper handed a shared tile by one caller and a local by another).
fn instance(
    flow: &Flow,
    model: &ThreadModel,
    binding: &Binding,
    n: usize,
    assumed: &Assumed,
) -> Option<Instance> {
    let (ctx, index) = (flow.ctx, flow.index);
    let op = index.ops[n];
    let store = Operation::get_op::<StoreOp>(op, ctx).is_some();
    let address = op.deref(ctx).get_operand(if store { 1 } else { 0 });
    if points_elsewhere(flow, binding, address, ADDRESS_DEPTH) {
        return None;
    }
    let threads = match &model.reach[index.op_block[n]] {
        Some(reach) => reach.threads.clone(),
        None => Threads::none(model.block_threads),
    };
    let bytes = pointee_bytes(ctx, address.get_type(ctx)).filter(|b| (1..=MAX_ACCESS_BYTES).contains(b));
    let enumerated = bytes
        .and_then(|_| shared_offset(flow, model, binding, assumed, address, ADDRESS_DEPTH))
        .and_then(|offsets| Some((Instance::enumerate(&offsets, &threads)?, offsets)));
    let (starts_by_thread, offsets) =
        enumerated.map_or((None, None), |(table, offsets)| (Some(table), Some(offsets)));
    let mut blocked: Vec<(Place, Value)> = assumed.blocked.borrow().clone().into_iter().collect();
    if offsets.is_none() {
        // A parameter the chain could not bind for want of a variable's value.
        blocked.extend(binding.blocked.iter().cloned());
    }
    Some(Instance {
        op: n,
        store,
        threads,
        offsets,
        bytes: bytes.unwrap_or(0),
        site: binding.site,
        starts_by_thread,
        blocked,
    })
}

/// Whether the scope reads a thread index other than `x`.
fn reads_other_dimensions(ctx: &Context, index: &ScopeIndex) -> bool {
    index.ops_of_class(OpClass::Call).any(|(_, op)| {
        Operation::get_op::<CallOp>(op, ctx).and_then(|call| call.callee(ctx)).is_some_and(|callee| {
            let name = callee.to_string();
            name.ends_with("thread_idx_y") || name.ends_with("thread_idx_z")
        })
    })
}
