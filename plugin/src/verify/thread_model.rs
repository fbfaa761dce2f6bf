//! The threads of one block as the rules see them: which thread indices can reach each block of
//! a scope (a bit set per block), and the value of an integer per thread.
//!
//! The threads are enumerated: each block of the kernel gets the set of thread indices `0..N`
//! that can reach it, starting from every thread at the entry and narrowed at each branch whose
//! condition is a function of `thread_idx_x()` the model can evaluate for every thread
//! (comparisons, arithmetic, `match` arms, locals, and small helpers such as `warp_id()`,
//! `lane_id()` or a kernel's own `is_producer` evaluated with their arguments). A branch on a
//! value that is the same for every thread (a parameter, `block_idx_x()`, a loop counter built
//! from them) sends the whole set both ways; a branch the model cannot evaluate makes the sets
//! below it inexact.
//!
//! A variable stored more than once is the same in every thread only when every value stored
//! into it is and no store is *divergent*: inside the paths of a branch whose condition may
//! differ between threads, before they meet again (`super::divergence`). Which branches are
//! divergent depends on which variables are uniform, so the two are computed together, from
//! "every variable uniform" down to the fixpoint (the standard divergence analysis: at the
//! fixpoint every uniform claim rests on uniform stores in non-divergent blocks).
//!
//! Cost: one pass over the scope for the variables' stores; per function one worklist over its
//! blocks whose sets only grow (each block changes at most `N` times, `N ≤ 1024` a constant);
//! each condition is evaluated once per round, through at most [`MAX_EVAL`] operations, as `N`
//! values; at most [`MAX_DIVERGENCE_ROUNDS`] rounds.

use std::cell::{OnceCell, RefCell};

use rustc_hash::{FxHashMap, FxHashSet};
use std::rc::Rc;

use pliron::{
    basic_block::BasicBlock,
    context::{Context, Ptr},
    operation::Operation,
    r#type::Typed,
    value::{DefiningEntity, Value},
};

use super::{
    accounting::is_failed_assertion,
    counter_sites::CounterSites,
    divergence::{self, Divergent},
    index::{MAX_LOOP_SEARCH, ScopeIndex},
    memory::{LocalStores, core_bit_count},
    store_table::StoreTable,
    thread_set::Threads,
    thread_values::{IntType, binop_per_thread, cmp_per_thread, map1},
    uniform::{computes_from_arguments, geometry_read},
};
use crate::ir::mir::{
    arith::{BinOp, CastKind, CastOp, CmpOp},
    constant::ConstIntOp,
    control::{CallOp, CondBrOp, ReturnOp, SwitchOp, UnreachableOp},
    memory::{AllocaOp, LoadOp, StoreOp},
    opaque::OpaqueOp,
    pointer_type_of,
};

use super::block_shape::{BlockShape, enumerated_block, thread_geometry};
pub(crate) use super::thread_values::{Val, apply_binop, map2, wrap_to};

mod live_stores;
mod reach;

/// Operations one condition's evaluation may look through, helpers included.
const MAX_EVAL: u32 = 256;
/// How deep helper calls are evaluated.
const MAX_CALL_DEPTH: u32 = 4;
/// The most stores of one variable whose per-thread value is worked out.
const MAX_CHOICES: usize = 4;

/// Definitions the walk through memory may look at for one load through a pointer.
const FLOW_BUDGET: u32 = 64;
/// Rounds of leaving out the stores of unreached blocks.
const DEAD_STORE_ROUNDS: usize = 3;
/// Rounds of the divergence fixpoint before every block counts as divergent.
const MAX_DIVERGENCE_ROUNDS: usize = 8;

/// The threads that can reach a block; `exact` when every branch on the way was decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Reach {
    pub threads: Threads,
    pub exact: bool,
}

/// What the rule knows of one scope.
struct Roles<'a> {
    ctx: &'a Context,
    index: &'a ScopeIndex,
    /// Whether the kernel declared its block; otherwise `shape` is one row of the hardware's
    /// limit, enumerated as an over-approximation, and `block_dim_x()` is not known.
    declared: bool,
    /// The block's shape: the declared one, or one row of the hardware's limit.
    shape: BlockShape,
    /// Variables stored on thread-dependent paths whose value each thread reads is known: one
    /// value per thread index (see [`Roles::resolve_choices`]).
    chosen: FxHashMap<Value, Rc<Vec<i64>>>,
    /// Values evaluated with no parameters bound, outside any loop counter's evaluation (so
    /// not resting on its assumption): what a fresh evaluation gives, until the dead blocks,
    /// the divergence or the chosen variables change (each clears it). A subexpression shared
    /// by many branch conditions (`tid / 32`) is evaluated once a round.
    memo: RefCell<FxHashMap<Value, Val>>,
    /// The variables whose loads are being evaluated (a loop counter reads itself).
    visiting: RefCell<FxHashSet<Value>>,
    /// The divergent blocks as far as known (module doc).
    divergent: Divergent,
    /// The stores into locals and their fields (the scope's one table, shared with the rules).
    locals: &'a LocalStores,
    /// Blocks no thread reaches (behind branches on constants): their stores are never read.
    dead: FxHashSet<usize>,
    /// [`Roles::live_stores`]'s answers since `dead` last changed.
    live: live_stores::LiveStores,
}

/// The threads of a one-dimensional block as the thread rules see them, for other rules: the
/// threads reaching each block, and values per thread.
pub(crate) struct ThreadModel<'a> {
    roles: Roles<'a>,
    /// The threads reaching each block (`None`: not reached).
    pub reach: Vec<Option<Reach>>,
    /// The block size enumerated: the declared one, or the hardware's limit.
    pub block_threads: usize,
    /// Whether the kernel declared its block size.
    pub declared: bool,
    /// [`ThreadModel::eval`]'s answers without parameter bindings.
    evaluated: RefCell<FxHashMap<Value, Val>>,
    /// Where the progressions find loop counters' stores and tests, per place.
    pub counter_sites: CounterSites,
}

/// A scope's [`ThreadModel`] (of the declared block), built on the first `get` and shared by the
/// rules of one run (threads, layout intervals, barriers, races): a scope pays for it once.
pub(crate) struct SharedThreadModel<'a> {
    ctx: &'a Context,
    index: &'a ScopeIndex,
    locals: &'a LocalStores,
    model: OnceCell<ThreadModel<'a>>,
    /// The block to model instead of the one the kernel declares (one of the sizes of
    /// `block_threads_power_of_two`, each of which the race check judges on its own).
    block: Option<BlockShape>,
    /// Each function's stores into its variables, built on the first ask: the rules that read
    /// loop counters all hold this model, so it is where they share the tables.
    store_tables: RefCell<FxHashMap<usize, Rc<StoreTable>>>,
}

impl<'a> SharedThreadModel<'a> {
    pub(crate) fn new(
        ctx: &'a Context,
        index: &'a ScopeIndex,
        locals: &'a LocalStores,
    ) -> SharedThreadModel<'a> {
        SharedThreadModel {
            ctx,
            index,
            locals,
            model: OnceCell::new(),
            block: None,
            store_tables: Default::default(),
        }
    }

    /// The model of a launch with blocks of exactly `block`, whatever the kernel declares.
    pub(crate) fn of_block(
        ctx: &'a Context,
        index: &'a ScopeIndex,
        locals: &'a LocalStores,
        block: BlockShape,
    ) -> SharedThreadModel<'a> {
        SharedThreadModel { block: Some(block), ..SharedThreadModel::new(ctx, index, locals) }
    }

    /// Function `f`'s store table, built by `build` on the first ask.
    pub(crate) fn store_table(&self, f: usize, build: impl FnOnce() -> StoreTable) -> Rc<StoreTable> {
        if let Some(table) = self.store_tables.borrow().get(&f) {
            return table.clone();
        }
        // Built outside the borrow: building reads the thread model, which may ask again.
        let table = Rc::new(build());
        self.store_tables.borrow_mut().entry(f).or_insert(table).clone()
    }

    pub(crate) fn get(&self) -> &ThreadModel<'a> {
        self.model.get_or_init(|| match self.block {
            Some(block) => ThreadModel::build(self.ctx, self.index, self.locals, block, true),
            None => ThreadModel::new(self.ctx, self.index, self.locals),
        })
    }
}

impl<'a> ThreadModel<'a> {
    /// The model of the declared block, or of a block of the declared bound or the hardware's
    /// limit where none is declared (each thread index below it enumerated; `block_dim_x()`
    /// unknown).
    pub(crate) fn new(ctx: &'a Context, index: &'a ScopeIndex, locals: &'a LocalStores) -> ThreadModel<'a> {
        let (shape, declared) = enumerated_block(ctx, index);
        ThreadModel::build(ctx, index, locals, shape, declared)
    }

    /// The model of a block of `shape`; `declared` when the kernel declares it (then
    /// `block_dim_x()` and `block_dim_y()` are its sizes).
    pub(crate) fn build(
        ctx: &'a Context,
        index: &'a ScopeIndex,
        locals: &'a LocalStores,
        shape: BlockShape,
        declared: bool,
    ) -> ThreadModel<'a> {
        let block_threads = shape.threads();
        let mut roles = Roles {
            ctx,
            index,
            declared,
            shape,
            chosen: FxHashMap::default(),
            memo: RefCell::default(),
            visiting: RefCell::new(FxHashSet::default()),
            divergent: Divergent::default(),
            locals,
            dead: FxHashSet::default(),
            live: Default::default(),
        };
        // Stores behind branches on constants (a `const` generic's `if SPLIT`) never run: left
        // out, a variable they would write may be a constant, which decides more branches.
        let mut reach = roles.reach_all();
        for _ in 0..DEAD_STORE_ROUNDS {
            let dead: FxHashSet<usize> = (0..index.blocks.len()).filter(|b| reach[*b].is_none()).collect();
            if dead == roles.dead {
                break;
            }
            // A load reads other stores only where a block holding one died (or came back):
            // otherwise every value, and so every set, would come out as before.
            let reads_change = locals.stores_in(|b| dead.contains(&b) != roles.dead.contains(&b));
            roles.dead = dead;
            roles.live.forget();
            if !reads_change {
                break;
            }
            roles.memo.get_mut().clear();
            reach = roles.reach_all();
        }
        // The sets stand unless the divergence changes what the conditions evaluate to.
        if roles.settle_divergence() {
            reach = roles.reach_all();
        }
        // A variable set on thread-dependent paths (`matches!(tid, 32..=63)` stores `true` on
        // one path and `false` on the other) is read per thread once the first pass knows which
        // threads run each store; then the sets are computed again with it.
        if roles.resolve_choices(&reach) {
            roles.memo.get_mut().clear();
            reach = roles.reach_all();
        }
        ThreadModel {
            roles,
            reach,
            block_threads,
            declared,
            evaluated: RefCell::default(),
            counter_sites: CounterSites::default(),
        }
    }

    /// `value` per thread, a helper's parameters bound by `params`.
    pub(crate) fn eval(&self, value: Value, params: &FxHashMap<Value, Val>) -> Val {
        // Without bindings a value is the same every time it is asked (fresh budget, settled
        // model), and the layout asks for each sub-expression of an address at every depth.
        if params.is_empty()
            && let Some(known) = self.evaluated.borrow().get(&value)
        {
            return known.clone();
        }
        let mut budget = MAX_EVAL;
        let found = self.roles.eval(value, params, 0, &mut budget);
        if params.is_empty() {
            self.evaluated.borrow_mut().insert(value, found.clone());
        }
        found
    }

    /// The stores into the scope's locals the model reads values through.
    pub(crate) fn locals(&self) -> &LocalStores {
        self.roles.locals
    }

    /// The divergent blocks of the scope.
    pub(crate) fn divergent(&self) -> &Divergent {
        &self.roles.divergent
    }
}

impl Roles<'_> {
    /// The divergent blocks and the uniform variables, computed together (module doc): from no
    /// divergent block up, each round evaluating every branch condition with the variables the
    /// round before left uniform. True when it changed anything.
    fn settle_divergence(&mut self) -> bool {
        let mut changed = false;
        for _ in 0..MAX_DIVERGENCE_ROUNDS {
            // Through the memo: the sets just computed asked the same conditions, and every
            // change of what a condition evaluates to clears it.
            let (ctx, index) = (self.ctx, self.index);
            let found = divergence::divergent(ctx, index, |condition| match self.eval_top(condition) {
                Val::Const(_) | Val::Uniform => false,
                Val::Threads(values) => values.windows(2).any(|pair| pair[0] != pair[1]),
                Val::Unknown => true,
            });
            if found == self.divergent {
                return changed;
            }
            self.divergent = found;
            self.memo.get_mut().clear();
            changed = true;
        }
        // Not settled: every block counts as divergent.
        let everything =
            (0..self.index.blocks.len()).map(|b| (b, vec![self.index.ops_of_block[b].start])).collect();
        self.divergent = Divergent(everything);
        self.memo.get_mut().clear();
        true
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
        let n = self.shape.threads();
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
                // A failed check's branch (`assert!`, a bounds check) traps: a thread that takes
                // it ends the launch, so the other edge carries the threads that go on.
                Val::Unknown => {
                    let decided =
                        self.index.is_loop_condition(b, yes, no) || self.traps(yes) || self.traps(no);
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
                    let live: Vec<usize> = targets
                        .iter()
                        .copied()
                        .filter(|t| !self.index.is_only_unreachable(self.ctx, *t))
                        .collect();
                    let decided =
                        matches!(live.as_slice(), [yes, no] if self.index.is_loop_condition(b, *yes, *no));
                    targets.iter().map(|t| (*t, threads.clone(), decided)).collect()
                }
            };
        }
        all(index)
    }

    /// Whether block `b` is a failed assertion's panic: the assertion's message, then
    /// `mir.unreachable` (the panic handler traps).
    fn traps(&self, b: usize) -> bool {
        let ctx = self.ctx;
        let mut ops = self.index.ops_of_block[b].clone().map(|n| self.index.ops[n]);
        let failed_assertion = ops.next().is_some_and(|op| {
            Operation::get_op::<OpaqueOp>(op, ctx)
                .and_then(|opaque| opaque.what(ctx))
                .is_some_and(|what| is_failed_assertion(&what))
        });
        failed_assertion
            && ops.next().is_some_and(|op| Operation::get_op::<UnreachableOp>(op, ctx).is_some())
            && ops.next().is_none()
    }

    /// A condition of the kernel, evaluated once.
    fn eval_top(&mut self, value: Value) -> Val {
        if let Some(known) = self.memo.get_mut().get(&value) {
            return known.clone();
        }
        let mut budget = MAX_EVAL;
        let found = self.eval(value, &FxHashMap::default(), 0, &mut budget);
        self.memo.get_mut().insert(value, found.clone());
        found
    }

    /// `value` per thread; `params` binds a helper's parameters to its call's arguments.
    fn eval(&self, value: Value, params: &FxHashMap<Value, Val>, depth: u32, budget: &mut u32) -> Val {
        let memoized = depth == 0 && params.is_empty() && self.visiting.borrow().is_empty();
        if memoized && let Some(known) = self.memo.borrow().get(&value) {
            return known.clone();
        }
        let found = self.eval_once(value, params, depth, budget);
        // An unknown value may only have run out of budget: a fresh evaluation may know it.
        if memoized && !matches!(found, Val::Unknown) {
            self.memo.borrow_mut().insert(value, found.clone());
        }
        found
    }

    fn eval_once(&self, value: Value, params: &FxHashMap<Value, Val>, depth: u32, budget: &mut u32) -> Val {
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
                if Some(block) == kernel_entry {
                    return if depth == 0 { Val::Uniform } else { Val::Unknown };
                }
                return if depth == 0 { self.eval_parameter(block, value, budget) } else { Val::Unknown };
            }
        };
        // Asked only of the operations that wrap: reading a value's type is not free, and most
        // values evaluated are loads and calls.
        let int_type = |of: Value| IntType::of(ctx, of.get_type(ctx)).unwrap_or(IntType::unsigned(64));
        if let Some(constant) = Operation::get_op::<ConstIntOp>(def, ctx) {
            return match constant.get_attr_int_value(ctx) {
                Some(v) => Val::Const(wrap_to(int_type(value).width, v.value().to_u64() as i64)),
                None => Val::Unknown,
            };
        }
        let operands: Vec<Value> = def.deref(ctx).operands().collect();
        if let Some(cast) = Operation::get_op::<CastOp>(def, ctx) {
            let operand = self.eval(operands[0], params, depth, budget);
            return match (cast.kind(ctx), operand) {
                (Some(CastKind::IntToInt), operand) => {
                    // Widening reads the source's sign (`-1i32 as i64` is -1, `u32::MAX as
                    // u64` is not); narrowing keeps the low bits.
                    let (from, to) = (int_type(operands[0]), int_type(value));
                    map1(operand, |v| wrap_to(to.width, from.value_of(v)))
                }
                // Any other cast is a function of its operand: the same in every thread if the
                // operand is (a pointer parameter as an integer).
                (_, Val::Const(_) | Val::Uniform) => Val::Uniform,
                _ => Val::Unknown,
            };
        }
        if let Some(binop) = Operation::get_op::<BinOp>(def, ctx) {
            let a = self.eval(operands[0], params, depth, budget);
            let b = self.eval(operands[1], params, depth, budget);
            let Some(kind) = binop.kind(ctx) else { return Val::Unknown };
            return binop_per_thread(kind, int_type(value), a, b);
        }
        if let Some(cmp) = Operation::get_op::<CmpOp>(def, ctx) {
            let a = self.eval(operands[0], params, depth, budget);
            let b = self.eval(operands[1], params, depth, budget);
            let Some(predicate) = cmp.get_attr_cmp_predicate(ctx).map(|p| *p) else { return Val::Unknown };
            return cmp_per_thread(predicate, int_type(operands[0]), a, b);
        }
        if let Some(call) = Operation::get_op::<CallOp>(def, ctx) {
            return self.eval_call(call, def, &operands, params, depth, budget);
        }
        if Operation::get_op::<LoadOp>(def, ctx).is_some() {
            let slot = operands[0];
            let Some(stored) = self.live_stores(slot) else { return Val::Unknown };
            return match &stored[..] {
                [] => Val::Unknown,
                [(only, _)] => self.eval(*only, params, depth, budget),
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
                        several.iter().map(|(value, _)| self.eval(*value, params, depth, budget)).collect();
                    self.visiting.borrow_mut().remove(&slot);
                    // A store on a divergent path runs in some threads only: a read that threads
                    // reach whether or not they ran it sees different values.
                    let load_block = self.index.op_number.get(&def).map(|n| self.index.op_block[*n]);
                    let divergent_store = several.iter().any(|(_, b)| {
                        load_block.is_none_or(|load_block| !self.divergent.within(*b, load_block))
                    });
                    let uniform =
                        !divergent_store && found.iter().all(|v| matches!(v, Val::Uniform | Val::Const(_)));
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

    /// A helper's parameter where no call binds it: what its one call passes, per thread, when
    /// the scope calls it once; otherwise the same in every thread that runs one call of the
    /// helper when every call passes a value that is the same in every thread (each call's
    /// threads see one value, whatever the other calls pass).
    fn eval_parameter(&self, block: Ptr<BasicBlock>, value: Value, budget: &mut u32) -> Val {
        let (ctx, index) = (self.ctx, self.index);
        let Some(&b) = index.block_number.get(&block) else { return Val::Unknown };
        let f = index.block_function[b];
        if index.entry_block(f) != Some(b)
            || index.callers[f].is_empty()
            || !self.visiting.borrow_mut().insert(value)
        {
            return Val::Unknown;
        }
        let position = block.deref(ctx).arguments().position(|argument| argument == value);
        // A helper the scope calls once runs only under that call: in each thread its parameter
        // is what that thread passes (`setup(tid == 0, …)` deciding the thread that inits).
        if let ([call], Some(position)) = (index.callers[f].as_slice(), position) {
            let operation = index.ops[*call].deref(ctx);
            let argument = (position < operation.get_num_operands()).then(|| operation.get_operand(position));
            drop(operation);
            let passed = argument
                .map_or(Val::Unknown, |argument| self.eval(argument, &FxHashMap::default(), 0, budget));
            self.visiting.borrow_mut().remove(&value);
            return passed;
        }
        let uniform = position.is_some_and(|position| {
            index.callers[f].iter().all(|call| {
                let operation = index.ops[*call].deref(ctx);
                let argument =
                    (position < operation.get_num_operands()).then(|| operation.get_operand(position));
                drop(operation);
                argument.is_some_and(|argument| {
                    matches!(
                        self.eval(argument, &FxHashMap::default(), 0, budget),
                        Val::Const(_) | Val::Uniform
                    )
                })
            })
        });
        self.visiting.borrow_mut().remove(&value);
        if uniform { Val::Uniform } else { Val::Unknown }
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
            if let Some(read) = thread_geometry(&name, self.shape, self.declared) {
                return read;
            }
            // The block's and the grid's coordinates are the same in every thread of a block.
            if geometry_read(&name) == Some(true) {
                return Val::Uniform;
            }
        }
        let callee = index.op_number.get(&op).and_then(|n| index.callee_of.get(n)).copied();
        let Some(callee) = callee else {
            // Outside the scope: an argument-less read (`block_idx_x`, `grid_dim_x`) is the same
            // in every thread of a block; a function of operands that are the same in every
            // thread and point nowhere (`usize::is_multiple_of`) returns the same value in
            // every thread; anything else is not known.
            if operands.is_empty() {
                return if !name.contains("lane") && !name.contains("tid") {
                    Val::Uniform
                } else {
                    Val::Unknown
                };
            }
            // `core`'s bit counts (the name decides: any value counts) of a value known per
            // thread are known per thread; of a uniform one, uniform.
            if let [operand] = operands
                && core_bit_count(&name, 0).is_some()
            {
                let counted = self.eval(*operand, params, depth, budget);
                return map1(counted, |v| core_bit_count(&name, v).unwrap_or_default());
            }
            let by_value =
                operands.iter().all(|operand| pointer_type_of(ctx, operand.get_type(ctx)).is_none());
            let uniform = by_value
                && operands.iter().all(|operand| {
                    matches!(self.eval(*operand, params, depth, budget), Val::Const(_) | Val::Uniform)
                });
            return if uniform { Val::Uniform } else { Val::Unknown };
        };
        if depth >= MAX_CALL_DEPTH {
            return Val::Unknown;
        }
        let Some(arguments) = index.parameters(ctx, callee) else { return Val::Unknown };
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
        let mut several_returns = false;
        for b in index.blocks_of[callee].clone() {
            for n in index.ops_of_block[b].clone() {
                if Operation::get_op::<ReturnOp>(index.ops[n], ctx).is_some() {
                    let operation = index.ops[n].deref(ctx);
                    if operation.get_num_operands() != 1 {
                        return Val::Unknown;
                    }
                    if returned.is_some() {
                        several_returns = true;
                    }
                    returned = Some(operation.get_operand(0));
                }
            }
        }
        let found = match returned.filter(|_| !several_returns) {
            Some(returned) => self.eval(returned, &bound, depth + 1, budget),
            None => Val::Unknown,
        };
        // A helper whose value the rule cannot read per thread (several returns, a flag set on
        // paths) is still the same in every thread when every argument is and the helper
        // computes from its arguments alone; otherwise it stays unknown (never assumed uniform).
        let uniform_arguments = bound.values().all(|v| matches!(v, Val::Const(_) | Val::Uniform));
        if matches!(found, Val::Unknown)
            && uniform_arguments
            && computes_from_arguments(ctx, index, callee, MAX_CALL_DEPTH - depth)
        {
            Val::Uniform
        } else {
            found
        }
    }
}
