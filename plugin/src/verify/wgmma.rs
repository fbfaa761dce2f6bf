//! Rules `wgmma-accumulator-read`, `wgmma-release-before-wait`, `wgmma-fence` and
//! `proxy-fence`: a forward analysis of each function's CFG tracking, per path joined at block
//! entries, how far the warpgroup's asynchronous multiplies are from completion, and which
//! ordinary writes no fence has yet ordered before the async proxy.
//!
//! Completion is an *age*: a multiply not yet committed is age 0 (no `wait_group` covers it);
//! one in the most recent commit group is age 1, the group before age 2, and so on; a
//! completed one is [`DONE`]. `commit_group` ages every pending multiply by one;
//! `wait_group<N>` completes every multiply of age above `N` (all but the `N` most recent
//! groups). The join of two paths keeps the younger age (the one a wait covers last), so a
//! verdict holds on every path. The state keeps one age per accumulator array (its latest
//! multiply: older ones are at least as old) and one for the latest multiply of any array.
//!
//! Accumulator arrays are named by the root of the address a wgmma operation takes (through
//! field, index and pointer casts, back to the `mir.alloca` or argument); ordinary loads,
//! stores and calls or opaque operations whose pointer operand has the same root touch them.
//!
//! The indexed verifier runs a worklist over each function's blocks; the oracle
//! ([`Schedule::Rounds`]) runs every block in full rounds until nothing changes. A second pass
//! over the fixed point reports each operation once per rule.

use std::collections::{BTreeSet, VecDeque};

use rustc_hash::{FxHashMap, FxHashSet};

use pliron::{
    context::{Context, Ptr},
    operation::Operation,
    r#type::Typed,
    value::Value,
};

use super::{
    Rule,
    index::{OpClass, ScopeIndex},
    memory::constant_value,
    rules::Reporter,
};
use crate::ir::{
    mir::{
        arith::{AddrSpaceCastOp, CastOp},
        memory::{FieldAddrOp, IndexAddrOp, LoadOp},
        pointer_type_of,
    },
    semantic::{
        memory::BulkCopyOp,
        pipeline::ConsumerReleaseOp,
        wgmma::{ProxyFenceOp, WgmmaCommitOp, WgmmaFenceOp, WgmmaMmaOp, WgmmaWaitOp},
    },
    types::AddressSpace,
};

/// The age of a completed multiply (or of none at all).
const DONE: u8 = u8::MAX;
/// Ages stop growing here: an older group is counted as this young, which only makes a
/// `wait_group` cover it later than it really is.
const OLDEST: u8 = 16;
/// The write that made a fence necessary was the caller's (a function's entry): the function
/// cannot see what its caller wrote last.
const AT_ENTRY: usize = usize::MAX;

/// How the fixed point is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Schedule {
    /// Blocks revisited only when their entry state changed.
    Worklist,
    /// Every block of the function, round after round (the oracle).
    #[cfg_attr(not(feature = "oracle"), allow(dead_code))]
    Rounds,
}

/// The abstract state at one program point.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Flow {
    /// The age of the latest multiply of each accumulator array of the function.
    accumulators: Vec<u8>,
    /// The age of the latest multiply of any array.
    latest: u8,
    /// The earliest ordinary write (operation number, or [`AT_ENTRY`]) of accumulators or
    /// shared memory that no `wgmma.fence` has ordered yet.
    unfenced: Option<usize>,
    /// The earliest ordinary shared store no `fence.proxy.async` has ordered yet.
    unproxied: Option<usize>,
    /// The earliest of those not shown apart from every ring and barrier area: a bulk copy
    /// writes only a stage of a ring (`copy-destination`), so only these may meet its bytes.
    unproxied_near_rings: Option<usize>,
}

fn join_write(a: Option<usize>, b: Option<usize>) -> Option<usize> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) | (None, x) => x,
    }
}

impl Flow {
    fn entry(arrays: usize) -> Flow {
        Flow {
            accumulators: vec![DONE; arrays],
            latest: DONE,
            unfenced: Some(AT_ENTRY),
            unproxied: None,
            unproxied_near_rings: None,
        }
    }

    /// Joins `other` into `self`; true when `self` changed.
    fn join(&mut self, other: &Flow) -> bool {
        let before = self.clone();
        for (mine, theirs) in self.accumulators.iter_mut().zip(&other.accumulators) {
            *mine = (*mine).min(*theirs);
        }
        self.latest = self.latest.min(other.latest);
        self.unfenced = join_write(self.unfenced, other.unfenced);
        self.unproxied = join_write(self.unproxied, other.unproxied);
        self.unproxied_near_rings = join_write(self.unproxied_near_rings, other.unproxied_near_rings);
        *self != before
    }
}

fn commit(age: &mut u8) {
    if *age != DONE {
        *age = (*age + 1).min(OLDEST);
    }
}

fn wait(age: &mut u8, pending: Option<i64>) {
    // A multiply of age `a` is in the `a`-th most recent group (uncommitted when 0): a wait
    // leaving `pending` groups running completes it when `a > pending`.
    if let Some(pending) = pending
        && *age != DONE
        && *age != 0
        && i64::from(*age) > pending
    {
        *age = DONE;
    }
}

/// The value an address is derived from: back through field and index offsets, pointer casts,
/// and loads of a local that holds one address only (`let r = &mut accumulators;` kept in a
/// slot), to the allocation, argument or other operation that made it.
fn root_of(ctx: &Context, slots: &FxHashMap<Value, Option<Value>>, mut value: Value) -> Value {
    for _ in 0..64 {
        let Some(def) = value.defining_op() else { return value };
        let derived = Operation::get_op::<FieldAddrOp>(def, ctx).is_some()
            || Operation::get_op::<IndexAddrOp>(def, ctx).is_some()
            || Operation::get_op::<AddrSpaceCastOp>(def, ctx).is_some()
            || Operation::get_op::<CastOp>(def, ctx).is_some();
        if derived {
            value = def.deref(ctx).get_operand(0);
            continue;
        }
        if Operation::get_op::<LoadOp>(def, ctx).is_some()
            && let Some(Some(stored)) = slots.get(&def.deref(ctx).get_operand(0))
        {
            value = *stored;
            continue;
        }
        return value;
    }
    value
}

/// The pointer values stored into each slot of a function: `Some` where every store stores
/// the same one.
fn pointer_slots(ctx: &Context, index: &ScopeIndex, f: usize) -> FxHashMap<Value, Option<Value>> {
    let mut slots: FxHashMap<Value, Option<Value>> = FxHashMap::default();
    for n in index.blocks_of[f].clone().flat_map(|b| index.ops_of_block[b].clone()) {
        if index.op_class[n] != OpClass::Store {
            continue;
        }
        let op = index.ops[n];
        let (stored, slot) = (op.deref(ctx).get_operand(0), op.deref(ctx).get_operand(1));
        if pointer_type_of(ctx, stored.get_type(ctx)).is_none() {
            continue;
        }
        slots
            .entry(slot)
            .and_modify(|known| {
                if *known != Some(stored) {
                    *known = None;
                }
            })
            .or_insert(Some(stored));
    }
    slots
}

fn is_shared_pointer(ctx: &Context, value: Value) -> bool {
    pointer_type_of(ctx, value.get_type(ctx)).is_some_and(|ptr| ptr.space() == AddressSpace::Shared)
}

/// What one operation means to the analysis.
enum Effect {
    Fence,
    Mma(usize),
    Commit,
    Wait(Option<i64>),
    ProxyFence,
    BulkCopy,
    Release,
    /// An ordinary store: the arrays it writes, whether it writes shared memory, and whether
    /// the race check showed it apart from every ring and barrier area.
    Store(Option<usize>, bool, bool),
    /// An ordinary load of an array.
    Load(usize),
    /// A call or opaque operation taking the addresses of these arrays.
    Escape(Vec<usize>),
    Return,
    Other,
}

/// One function's arrays and the effect of each of its operations.
struct FunctionModel {
    /// The operations (numbers) with an effect, in scope order, and their effects: the
    /// analysis visits only these (most operations of a large scope have none).
    effects: Vec<(usize, Effect)>,
    /// `effects[block_effects[b - first block]..]`: block `b`'s share, up to the next block's.
    block_effects: Vec<usize>,
    /// The function's first block (number).
    first_block: usize,
    arrays: usize,
    /// The multiply that names each array first (for notes).
    first_mma: Vec<Ptr<Operation>>,
}

fn model_function(
    ctx: &Context,
    index: &ScopeIndex,
    f: usize,
    beside_layout: &FxHashSet<usize>,
) -> FunctionModel {
    // Every effect below is a semantic operation, a memory access, a call or a return.
    let ops = || {
        index.blocks_of[f].clone().flat_map(|b| index.ops_of_block[b].clone()).filter(|n| {
            !matches!(index.op_class[*n], OpClass::Other | OpClass::Alloca | OpClass::AddrSpaceCast)
        })
    };
    let accumulator_operand = |op: Ptr<Operation>| {
        if Operation::get_op::<WgmmaMmaOp>(op, ctx).is_some()
            || Operation::get_op::<WgmmaFenceOp>(op, ctx).is_some()
        {
            Some(op.deref(ctx).get_operand(0))
        } else if Operation::get_op::<WgmmaWaitOp>(op, ctx).is_some() {
            Some(op.deref(ctx).get_operand(1))
        } else {
            None
        }
    };
    let slots = pointer_slots(ctx, index, f);
    let mut roots: Vec<Value> = Vec::new();
    let mut first_mma = Vec::new();
    for n in ops().filter(|n| index.op_class[*n] == OpClass::Semantic) {
        let op = index.ops[n];
        if let Some(address) = accumulator_operand(op) {
            let root = root_of(ctx, &slots, address);
            if !roots.contains(&root) {
                roots.push(root);
                first_mma.push(op);
            }
        }
    }
    let array_of = |value: Value| {
        let root = root_of(ctx, &slots, value);
        let array = roots.iter().position(|known| *known == root)?;
        // Asked last: reading a value's type finds the value among its definition's results.
        pointer_type_of(ctx, value.get_type(ctx))?;
        Some(array)
    };
    let mut effects = Vec::new();
    let mut block_effects = Vec::with_capacity(index.blocks_of[f].len() + 1);
    let mut current_block = index.blocks_of[f].start;
    block_effects.push(0);
    for n in ops() {
        while index.op_block[n] > current_block {
            block_effects.push(effects.len());
            current_block += 1;
        }
        let op = index.ops[n];
        // The class first: it is known without reading the operation.
        let effect = match index.op_class[n] {
            OpClass::Semantic => semantic_effect(ctx, op, &array_of),
            OpClass::Store => {
                let pointer = index.accessed_address(n).expect("a store has an address");
                Effect::Store(array_of(pointer), is_shared_pointer(ctx, pointer), beside_layout.contains(&n))
            }
            OpClass::Load => match array_of(index.accessed_address(n).expect("a load has an address")) {
                Some(array) => Effect::Load(array),
                None => Effect::Other,
            },
            OpClass::Call | OpClass::Opaque => {
                let mut arrays: Vec<usize> = op.deref(ctx).operands().filter_map(array_of).collect();
                arrays.sort_unstable();
                arrays.dedup();
                if arrays.is_empty() { Effect::Other } else { Effect::Escape(arrays) }
            }
            OpClass::Return => Effect::Return,
            OpClass::Alloca | OpClass::AddrSpaceCast | OpClass::Other => Effect::Other,
        };
        if !matches!(effect, Effect::Other) {
            effects.push((n, effect));
        }
    }
    while block_effects.len() <= index.blocks_of[f].len() {
        block_effects.push(effects.len());
    }
    FunctionModel {
        effects,
        block_effects,
        first_block: index.blocks_of[f].start,
        arrays: roots.len(),
        first_mma,
    }
}

/// The effect of a semantic operation `op`; `array_of` names the accumulator array an address
/// points into.
fn semantic_effect(ctx: &Context, op: Ptr<Operation>, array_of: &dyn Fn(Value) -> Option<usize>) -> Effect {
    if Operation::get_op::<WgmmaFenceOp>(op, ctx).is_some() {
        Effect::Fence
    } else if let Some(mma) = Operation::get_op::<WgmmaMmaOp>(op, ctx) {
        match array_of(mma.accumulators(ctx)) {
            Some(array) => Effect::Mma(array),
            None => Effect::Other,
        }
    } else if Operation::get_op::<WgmmaCommitOp>(op, ctx).is_some() {
        Effect::Commit
    } else if let Some(wait) = Operation::get_op::<WgmmaWaitOp>(op, ctx) {
        Effect::Wait(constant_value(ctx, wait.pending(ctx), 4))
    } else if Operation::get_op::<ProxyFenceOp>(op, ctx).is_some() {
        Effect::ProxyFence
    } else if Operation::get_op::<BulkCopyOp>(op, ctx).is_some() {
        Effect::BulkCopy
    } else if Operation::get_op::<ConsumerReleaseOp>(op, ctx).is_some() {
        Effect::Release
    } else {
        Effect::Other
    }
}

impl FunctionModel {
    /// Block `b`'s operations with an effect, in order.
    fn effects_of(&self, b: usize) -> &[(usize, Effect)] {
        let at = b - self.first_block;
        &self.effects[self.block_effects[at]..self.block_effects[at + 1]]
    }
}

/// A breach found at an operation: the rule, the message, and the write or multiply that
/// explains it.
type Breach = (Rule, String, Option<usize>);

/// Applies operation `n` to `flow`; with `breaches`, records what it breaks.
fn transfer(
    kernel: bool,
    (n, effect): &(usize, Effect),
    flow: &mut Flow,
    mut breaches: Option<&mut Vec<Breach>>,
) {
    let n = *n;
    let mut breach = |rule: Rule, message: String, cause: Option<usize>| {
        if let Some(found) = breaches.as_deref_mut() {
            found.push((rule, message, cause));
        }
    };
    let in_flight = |age: u8| {
        if age == 0 {
            "a wgmma.mma_async not yet committed (no wait_group covers it)".to_string()
        } else {
            format!(
                "a wgmma.mma_async of the commit group {} back, which only wait_group::<{}> or lower completes",
                age - 1,
                age - 1
            )
        }
    };
    match effect {
        Effect::Fence => flow.unfenced = None,
        Effect::Mma(array) => {
            if let Some(write) = flow.unfenced {
                let what = if write == AT_ENTRY {
                    "since the start of the function".to_string()
                } else {
                    "after an ordinary write to the accumulators or to shared memory".to_string()
                };
                breach(
                    Rule::WgmmaFence,
                    format!("wgmma.mma_async {what} with no wgmma::fence between them"),
                    (write != AT_ENTRY).then_some(write),
                );
            }
            if let Some(store) = flow.unproxied {
                breach(
                    Rule::ProxyFence,
                    "wgmma.mma_async reads shared memory after an ordinary shared store with no fence_proxy_async_shared between them".to_string(),
                    Some(store),
                );
            }
            flow.accumulators[*array] = 0;
            flow.latest = 0;
            // Reported once per cause: later multiplies on this path are not blamed again.
            flow.unfenced = None;
            flow.unproxied = None;
            flow.unproxied_near_rings = None;
        }
        Effect::Commit => {
            flow.accumulators.iter_mut().for_each(commit);
            commit(&mut flow.latest);
        }
        Effect::Wait(pending) => {
            flow.accumulators.iter_mut().for_each(|age| wait(age, *pending));
            wait(&mut flow.latest, *pending);
        }
        Effect::ProxyFence => {
            flow.unproxied = None;
            flow.unproxied_near_rings = None;
        }
        Effect::BulkCopy => {
            if let Some(store) = flow.unproxied_near_rings.take() {
                flow.unproxied = None;
                breach(
                    Rule::ProxyFence,
                    "bulk copy into shared memory after an ordinary shared store with no fence_proxy_async_shared between them".to_string(),
                    Some(store),
                );
            }
        }
        Effect::Release => {
            if flow.latest != DONE {
                breach(
                    Rule::WgmmaReleaseBeforeWait,
                    format!(
                        "the stage is released while {} may still read it: wait_group first",
                        in_flight(flow.latest)
                    ),
                    None,
                );
                flow.latest = DONE;
            }
        }
        Effect::Store(array, shared, beside_layout) => {
            if let Some(array) = array {
                let age = flow.accumulators[*array];
                if age != DONE {
                    breach(
                        Rule::WgmmaAccumulatorRead,
                        format!("the accumulators are written while {} writes them", in_flight(age)),
                        None,
                    );
                    flow.accumulators[*array] = DONE;
                }
            }
            if array.is_some() || *shared {
                flow.unfenced = join_write(flow.unfenced, Some(n));
            }
            if *shared {
                flow.unproxied = join_write(flow.unproxied, Some(n));
            }
            if *shared && !beside_layout {
                flow.unproxied_near_rings = join_write(flow.unproxied_near_rings, Some(n));
            }
        }
        Effect::Load(array) => {
            let age = flow.accumulators[*array];
            if age != DONE {
                breach(
                    Rule::WgmmaAccumulatorRead,
                    format!("the accumulators are read while {} writes them", in_flight(age)),
                    None,
                );
                flow.accumulators[*array] = DONE;
            }
        }
        Effect::Escape(arrays) => {
            for array in arrays {
                let age = flow.accumulators[*array];
                if age != DONE {
                    breach(
                        Rule::WgmmaAccumulatorRead,
                        format!(
                            "the accumulators' address is passed on while {} writes them",
                            in_flight(age)
                        ),
                        None,
                    );
                    flow.accumulators[*array] = DONE;
                }
            }
            // The callee may write them.
            flow.unfenced = join_write(flow.unfenced, Some(n));
        }
        Effect::Return => {
            if !kernel && flow.latest != DONE {
                breach(
                    Rule::WgmmaAccumulatorRead,
                    format!(
                        "the function returns while {} runs: its caller's reads of the accumulators would not be checked against it",
                        in_flight(flow.latest)
                    ),
                    None,
                );
            }
        }
        Effect::Other => {}
    }
}

/// Runs the analysis on every function of the scope that holds wgmma, proxy-fence or bulk-copy work and
/// reports what breaks the four rules.
pub(crate) fn check_wgmma(reporter: &mut Reporter, schedule: Schedule, beside_layout: &FxHashSet<usize>) {
    let ctx = reporter.ctx;
    let index = reporter.index;
    for f in 0..index.functions.len() {
        // Most functions hold none of the work: skip them before modelling their operations.
        let holds_work = index.blocks_of[f].clone().flat_map(|b| index.ops_of_block[b].clone()).any(|n| {
            index.op_class[n] == OpClass::Semantic && {
                let op = index.ops[n];
                Operation::is_op::<WgmmaFenceOp>(op, ctx)
                    || Operation::is_op::<WgmmaMmaOp>(op, ctx)
                    || Operation::is_op::<WgmmaCommitOp>(op, ctx)
                    || Operation::is_op::<WgmmaWaitOp>(op, ctx)
                    || Operation::is_op::<ProxyFenceOp>(op, ctx)
                    || Operation::is_op::<BulkCopyOp>(op, ctx)
            }
        });
        if !holds_work {
            continue;
        }
        let model = model_function(ctx, index, f, beside_layout);
        let relevant = model.effects.iter().any(|(_, effect)| {
            matches!(
                effect,
                Effect::Fence
                    | Effect::Mma(_)
                    | Effect::Commit
                    | Effect::Wait(_)
                    | Effect::ProxyFence
                    | Effect::BulkCopy
            )
        });
        if !relevant {
            continue;
        }
        let kernel = f == 0;
        let blocks = index.blocks_of[f].clone();
        let entries = fixed_point(index, &model, kernel, blocks.clone(), schedule);
        let mut reported: BTreeSet<(usize, Rule)> = BTreeSet::new();
        for b in blocks.clone() {
            let Some(mut flow) = entries[b - blocks.start].clone() else { continue };
            for operation in model.effects_of(b) {
                let (n, effect) = (operation.0, &operation.1);
                let mut breaches = Vec::new();
                transfer(kernel, operation, &mut flow, Some(&mut breaches));
                for (rule, message, cause) in breaches {
                    // One error per cause: a write another rule already rejected (a store into
                    // a stage in flight) is not blamed again for the fence it lacks.
                    let cause_rejected = cause.is_some_and(|cause| {
                        reporter.rejections.iter().any(|rejection| rejection.op == index.ops[cause])
                    });
                    if cause_rejected || !reported.insert((n, rule)) {
                        continue;
                    }
                    let mut related = Vec::new();
                    if let Some(cause) = cause {
                        related.push(reporter.related("the ordinary write is here", index.ops[cause]));
                    }
                    if let Effect::Load(array) | Effect::Store(Some(array), _, _) = *effect {
                        related.push(
                            reporter
                                .related("the accumulators' first wgmma operation", model.first_mma[array]),
                        );
                    }
                    reporter.reject(rule, index.ops[n], message, related);
                }
            }
        }
    }
}

/// The entry state of each block of `blocks` at the fixed point (`None`: unreachable).
fn fixed_point(
    index: &ScopeIndex,
    model: &FunctionModel,
    kernel: bool,
    blocks: std::ops::Range<usize>,
    schedule: Schedule,
) -> Vec<Option<Flow>> {
    let mut entries: Vec<Option<Flow>> = vec![None; blocks.len()];
    if blocks.is_empty() {
        return entries;
    }
    entries[0] = Some(Flow::entry(model.arrays));
    // Flows the block's state to its successors; returns the successors whose entry changed.
    let step = |entries: &mut Vec<Option<Flow>>, b: usize| -> Vec<usize> {
        let Some(mut flow) = entries[b - blocks.start].clone() else { return Vec::new() };
        for operation in model.effects_of(b) {
            transfer(kernel, operation, &mut flow, None);
        }
        let mut changed = Vec::new();
        for &s in &index.succs[b] {
            let slot = &mut entries[s - blocks.start];
            let grew = match slot {
                Some(entry) => entry.join(&flow),
                None => {
                    *slot = Some(flow.clone());
                    true
                }
            };
            if grew {
                changed.push(s);
            }
        }
        changed
    };
    match schedule {
        Schedule::Worklist => {
            let mut queue: VecDeque<usize> = blocks.clone().collect();
            let mut queued = vec![true; blocks.len()];
            while let Some(b) = queue.pop_front() {
                queued[b - blocks.start] = false;
                for s in step(&mut entries, b) {
                    if !queued[s - blocks.start] {
                        queued[s - blocks.start] = true;
                        queue.push_back(s);
                    }
                }
            }
        }
        Schedule::Rounds => loop {
            let mut changed = false;
            for b in blocks.clone() {
                changed |= !step(&mut entries, b).is_empty();
            }
            if !changed {
                break;
            }
        },
    }
    entries
}
