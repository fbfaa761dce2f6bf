//! Tile counts proven by walking a producer and a consumer side by side, where the counted-loop
//! reading of the parent module finds no loop it can read (a loop unrolled by two with an
//! epilogue, a peeled first tile, a `do … while`, a count-down, a `while let` over a cursor).
//!
//! Each role's threads are walked through the kernel from its entry as symbolic execution,
//! entering the calls of helpers that hold one of the role's advances (or call one that does:
//! the parameters take the arguments' terms, the results the returned ones, and a meeting point
//! is a pair of blocks inside the same calls): every value and every variable (a local only ever
//! written by the stores the table of locals places) holds a term built from constants, the
//! kernel's parameters, values the thread model shows are the same in every thread, and
//! operators. The two walks meet at *sync points*: a block running one of the role's advances,
//! or a branch that can lead to one whose condition is not decided for all of the role's threads
//! (by the thread model or a constant). At a sync point both walks must run the same number of
//! advances, and where they branch their conditions must be the same term, so that they take
//! the same way: every pair of paths the walks can take runs equally many advances, whatever
//! the launch's parameters. A branch that leads to no advance before its post-dominator is
//! stepped over (the variables its arms store become unknown), and a way into a panic traps the
//! launch and is not walked.
//!
//! Loops are where the walks meet again at the same pair of blocks: the state there is
//! generalised by anti-unification (each pair of differing terms becomes one variable, the same
//! variable on both sides where both sides differ alike, so `k_producer = k_consumer` survives
//! as one variable), and the loop is walked again until the state at its head covers what comes
//! back (at most [`MAX_VISITS`] generalisations). Until the roles part (a branch that sends them
//! different ways), both walk the same blocks and every block is a meeting point, so values
//! computed before the split under a uniform condition (`mine = if b < tiles { … } else { 0 }`)
//! meet as one variable.
//!
//! Cost: per pair of states, at most [`MAX_STEPS`] blocks executed in all; a walk that runs out
//! proves nothing.

use rustc_hash::{FxHashMap, FxHashSet};

use pliron::{
    context::{Context, Ptr},
    operation::Operation,
    r#type::Typed,
    value::{DefiningEntity, Value},
};

mod state;
mod terms;

use state::{Key, Node, RoleState, Slot};
use terms::{Term, TermId, Terms};

use crate::ir::mir::{
    arith::{BinOp, CastOp, CmpOp},
    control::{CallOp, CondBrOp, GotoOp, ReturnOp, SwitchOp},
    memory::{LoadOp, StoreOp},
};
use crate::verify::{
    divergence::post_dominators,
    index::ScopeIndex,
    thread_model::{ThreadModel, Val},
    uniform::{computes_from_arguments, reads_block_coordinates},
};

/// Generalisations of the state at one meeting point before the walk gives up.
const MAX_VISITS: u32 = 6;
/// Blocks executed in all, for one pair of states.
const MAX_STEPS: usize = 20_000;
/// Calls the walk enters, nested.
const MAX_DEPTH: usize = 6;
/// Calls deep a function is followed to show its result is computed from its arguments.
const PURE_DEPTH: u32 = 4;

/// Both roles' states at one meeting point: producer first.
type Pair = [RoleState; 2];

/// Where a role goes after a block.
enum Next {
    To(usize),
    /// A branch on `condition` not decided for the role's threads, to `targets` (in the
    /// terminator's order; `cases` for a `mir.switch`).
    Branch {
        condition: TermId,
        targets: Vec<usize>,
        cases: Option<Vec<u64>>,
    },
    /// The role runs no more advances (it returns, or no advance is reachable).
    Done,
    /// A panic: the launch traps.
    Trap,
    Fail,
}

/// What a meeting point does with a state arriving there.
enum Admitted {
    /// What was walked from there already covers it.
    Covered,
    /// Walk on from there in this (generalised) state.
    Walk(Pair),
    /// The state there was generalised [`MAX_VISITS`] times and still does not cover it.
    GiveUp,
}

/// What running one block did.
struct Ran {
    /// The role's advances the block holds.
    advances: usize,
    /// The entry of the function the block's last call enters, if it enters one.
    entered: Option<usize>,
}

/// Where an independent walk stopped.
enum Stop {
    /// At the entry of this block, in this state: a meeting point.
    Meet(usize, RoleState),
    Done,
    Trap,
    Fail,
}

/// One role of the pair.
struct Role {
    /// The operations that count as its advances.
    sites: FxHashSet<Ptr<Operation>>,
    /// The thread indices that hold the state.
    threads: Vec<usize>,
    /// Per block of the scope: whether an advance, or a call into a function holding one, is
    /// reachable in its function.
    reaches: Vec<bool>,
    /// The functions holding an advance, or calling one that does: the walk enters their calls.
    holding: FxHashSet<usize>,
    /// Per branch block: the blocks between it and its post-dominator, if no advance is there.
    stepped_over: FxHashMap<usize, Option<Vec<usize>>>,
}

/// Whether the producer state with advance operations `producer` and the consumer state with
/// `consumer`, both in the kernel function, advance equally often on every launch.
pub(super) fn advance_equally(
    ctx: &Context,
    index: &ScopeIndex,
    model: &ThreadModel,
    producer: &[Ptr<Operation>],
    consumer: &[Ptr<Operation>],
) -> bool {
    let Some(entry) = index.entry_block(0) else { return false };
    let Some(producer) = Role::new(index, model, producer) else { return false };
    let Some(consumer) = Role::new(index, model, consumer) else { return false };
    let parameters = index.parameters(ctx, 0).unwrap_or_default();
    let mut walk = Walk {
        ctx,
        index,
        model,
        terms: Terms::default(),
        ipdoms: FxHashMap::default(),
        carried: carried_values(ctx, index),
        parameters: parameters.into_iter().enumerate().map(|(i, p)| (p, i as u32)).collect(),
        roles: [producer, consumer],
        steps: 0,
        met: FxHashMap::default(),
        queue: Vec::new(),
    };
    walk.queue.push((Node::at(entry, &[], entry, &[]), Pair::default()));
    walk.run_to_end()
}

impl Role {
    fn new(index: &ScopeIndex, model: &ThreadModel, sites: &[Ptr<Operation>]) -> Option<Role> {
        let mut threads = FxHashSet::default();
        let mut holding = FxHashSet::default();
        let mut site_blocks = Vec::new();
        for site in sites {
            let b = index.block_of_op(*site)?;
            let reach = model.reach.get(b)?.as_ref()?;
            threads.extend(reach.threads.members());
            site_blocks.push(b);
            holding.insert(index.block_function[b]);
        }
        // The functions calling a holding function hold one too.
        let mut pending: Vec<usize> = holding.iter().copied().collect();
        while let Some(g) = pending.pop() {
            for call in &index.callers[g] {
                let f = index.block_function[index.op_block[*call]];
                if holding.insert(f) {
                    pending.push(f);
                }
            }
        }
        let mut reaches = vec![false; index.blocks.len()];
        let mut stack = site_blocks;
        stack.extend((0..index.blocks.len()).filter(|b| {
            index.ops_of_block[*b]
                .clone()
                .any(|n| index.callee_of.get(&n).is_some_and(|g| holding.contains(g)))
        }));
        for b in &stack {
            reaches[*b] = true;
        }
        while let Some(b) = stack.pop() {
            for pred in &index.preds[b] {
                if !reaches[*pred] {
                    reaches[*pred] = true;
                    stack.push(*pred);
                }
            }
        }
        let mut threads: Vec<usize> = threads.into_iter().collect();
        threads.sort_unstable();
        (!threads.is_empty()).then(|| Role {
            sites: sites.iter().copied().collect(),
            threads,
            reaches,
            holding,
            stepped_over: FxHashMap::default(),
        })
    }

    /// Whether the walk enters call `n` (operation `op`): a call into a function holding an
    /// advance, itself not one of the role's advances (a helper's call counted as its advance).
    fn enters(&self, index: &ScopeIndex, n: usize, op: Ptr<Operation>) -> bool {
        !self.sites.contains(&op) && index.callee_of.get(&n).is_some_and(|g| self.holding.contains(g))
    }
}

/// The values used in another block than their own: what a meeting point's state must keep.
fn carried_values(ctx: &Context, index: &ScopeIndex) -> FxHashSet<Value> {
    let mut carried = FxHashSet::default();
    for b in 0..index.blocks.len() {
        for n in index.ops_of_block[b].clone() {
            for operand in index.ops[n].deref(ctx).operands() {
                let DefiningEntity::Op(def) = operand.defining_entity() else { continue };
                if index.block_of_op(def) != Some(b) {
                    carried.insert(operand);
                }
            }
        }
    }
    carried
}

struct Walk<'a, 't> {
    ctx: &'a Context,
    index: &'a ScopeIndex,
    model: &'a ThreadModel<'t>,
    terms: Terms,
    /// Per function entered: each block's immediate post-dominator (by the block's offset in
    /// its function).
    ipdoms: FxHashMap<usize, Vec<Option<usize>>>,
    carried: FxHashSet<Value>,
    parameters: FxHashMap<Value, u32>,
    roles: [Role; 2],
    steps: usize,
    /// The state at each meeting point so far, and how often it was generalised.
    met: FxHashMap<Node, (Pair, u32)>,
    queue: Vec<(Node, Pair)>,
}

impl Walk<'_, '_> {
    fn run_to_end(&mut self) -> bool {
        while let Some((at, pair)) = self.queue.pop() {
            match self.admit(at.clone(), pair) {
                Admitted::Covered => {}
                Admitted::Walk(pair) => {
                    if !self.meet((at.producer.0, at.consumer.0), pair) {
                        return false;
                    }
                }
                Admitted::GiveUp => return false,
            }
        }
        true
    }

    /// What to walk on from meeting point `at` when `pair` arrives there.
    fn admit(&mut self, at: Node, mut pair: Pair) -> Admitted {
        for state in &mut pair {
            state.values.retain(|value, _| self.carried.contains(value));
        }
        let Some((known, visits)) = self.met.get(&at) else {
            self.met.insert(at.clone(), (pair.clone(), 0));
            return Admitted::Walk(pair);
        };
        let (known, visits) = (known.clone(), *visits);
        if self.covers(&known, &pair) {
            return Admitted::Covered;
        }
        if visits >= MAX_VISITS {
            return Admitted::GiveUp;
        }
        let general = self.generalise(&known, &pair);
        self.met.insert(at, (general.clone(), visits + 1));
        Admitted::Walk(general)
    }

    /// Whether `pair` is an instance of `known`: every key `known` holds, `pair` holds with a
    /// matching term (one binding of the variables for both roles). A key `known` lacks is
    /// unknown there, which covers anything.
    fn covers(&self, known: &Pair, pair: &Pair) -> bool {
        let mut binding = FxHashMap::default();
        for (k, p) in known.iter().zip(pair) {
            let theirs: FxHashMap<Key, TermId> = p.entries().into_iter().collect();
            for (key, pattern) in k.entries() {
                let Some(term) = theirs.get(&key) else { return false };
                if !self.terms.matches(pattern, *term, &mut binding) {
                    return false;
                }
            }
        }
        true
    }

    /// The least general state both `known` and `pair` are instances of ([`Terms::generalise`]
    /// key by key, one table of variables for both roles); a key one of them lacks is dropped.
    fn generalise(&mut self, known: &Pair, pair: &Pair) -> Pair {
        let mut variables: FxHashMap<(TermId, TermId), TermId> = FxHashMap::default();
        let mut general = Pair::default();
        for role in 0..2 {
            general[role].stack = known[role].stack.clone();
            let theirs: FxHashMap<Key, TermId> = pair[role].entries().into_iter().collect();
            for (key, mine) in known[role].entries() {
                let Some(other) = theirs.get(&key).copied() else { continue };
                let term = self.terms.generalise(mine, other, &mut variables);
                general[role].set(&key, term);
            }
        }
        general
    }

    /// Walks both roles on from meeting point `at`; false where the counts may differ.
    fn meet(&mut self, (p, c): (usize, usize), mut pair: Pair) -> bool {
        if self.steps > MAX_STEPS {
            return false;
        }
        let [producer_state, consumer_state] = &mut pair;
        let (Some(ran_p), Some(ran_c)) =
            (self.execute(0, p, producer_state), self.execute(1, c, consumer_state))
        else {
            return false;
        };
        if ran_p.advances != ran_c.advances {
            return false;
        }
        let next = [
            match ran_p.entered {
                Some(entry) => Next::To(entry),
                None => self.resolve(0, p, &mut pair[0]),
            },
            match ran_c.entered {
                Some(entry) => Next::To(entry),
                None => self.resolve(1, c, &mut pair[1]),
            },
        ];
        let entered = ran_p.entered.is_some() || ran_c.entered.is_some();
        match next {
            [
                Next::Branch { condition: a, targets: ta, cases: ca },
                Next::Branch { condition: b, targets: tb, cases: cb },
            ] if a == b && ta.len() == tb.len() && ca == cb => {
                // One condition in both roles: they take the same way.
                for (x, y) in ta.into_iter().zip(tb) {
                    if !self.index.can_return(x) || !self.index.can_return(y) {
                        continue;
                    }
                    if !self.go_on(x, y, pair.clone()) {
                        return false;
                    }
                }
                true
            }
            [Next::To(x), Next::To(y)] if x == y => self.go_on(x, y, pair),
            _ if p == c
                && !entered
                && pair[0].stack == pair[1].stack
                && self.branches(p)
                && self.skips(0, p).is_some()
                && self.skips(1, p).is_some() =>
            {
                // The same branch, leading neither role to an advance: both step over it.
                self.step_over(0, p, &mut pair[0]);
                self.step_over(1, p, &mut pair[1]);
                match (self.ipdom(p), pair[0].stack.is_empty()) {
                    (Some(after), _) => self.go_on(after, after, pair),
                    (None, true) => true,
                    (None, false) => false,
                }
            }
            [a, b] => {
                let a = self.settle(0, p, a, &mut pair[0]);
                let b = self.settle(1, c, b, &mut pair[1]);
                match (a, b) {
                    (Next::To(x), Next::To(y)) => self.go_on(x, y, pair),
                    (Next::Trap, _) | (_, Next::Trap) => true,
                    (Next::Done, Next::Done) => true,
                    (Next::Done, Next::To(y)) => self.finishes(1, y, pair[1].clone()),
                    (Next::To(x), Next::Done) => self.finishes(0, x, pair[0].clone()),
                    _ => false,
                }
            }
        }
    }

    /// A role's undecided branch that leads to no advance is stepped over; any other stays.
    fn settle(&mut self, role: usize, b: usize, next: Next, state: &mut RoleState) -> Next {
        match next {
            Next::Branch { .. } if self.skips(role, b).is_some() => {
                self.step_over(role, b, state);
                match self.ipdom(b) {
                    Some(after) => Next::To(after),
                    None if state.stack.is_empty() => Next::Done,
                    None => Next::Fail,
                }
            }
            Next::Branch { .. } => Next::Fail,
            other => other,
        }
    }

    /// Whether role `role`, walked on alone from block `from`, runs no more advances.
    fn finishes(&mut self, role: usize, from: usize, state: RoleState) -> bool {
        matches!(self.alone(role, from, state), Stop::Done | Stop::Trap)
    }

    /// Both roles on from blocks `x` and `y`: together while they are at one block (inside the
    /// same calls), otherwise each alone to its next meeting point.
    fn go_on(&mut self, x: usize, y: usize, pair: Pair) -> bool {
        if x == y
            && pair[0].stack == pair[1].stack
            && (self.roles[0].reaches[x] || self.roles[1].reaches[x] || !pair[0].stack.is_empty())
        {
            self.queue.push((Node::at(x, &pair[0].stack, y, &pair[1].stack), pair));
            return true;
        }
        let [producer_state, consumer_state] = pair;
        let stops = [self.alone(0, x, producer_state), self.alone(1, y, consumer_state)];
        match stops {
            [Stop::Meet(a, sa), Stop::Meet(b, sb)] => {
                self.queue.push((Node::at(a, &sa.stack, b, &sb.stack), [sa, sb]));
                true
            }
            [Stop::Trap, _] | [_, Stop::Trap] => true,
            [Stop::Done, Stop::Done] => true,
            _ => false,
        }
    }

    /// Role `role` walked alone from block `b` to its next meeting point.
    fn alone(&mut self, role: usize, mut b: usize, mut state: RoleState) -> Stop {
        loop {
            self.steps += 1;
            if self.steps > MAX_STEPS {
                return Stop::Fail;
            }
            if state.stack.is_empty() && !self.roles[role].reaches[b] {
                return Stop::Done;
            }
            if self.index.ops_of_block[b].clone().any(|n| self.roles[role].sites.contains(&self.index.ops[n]))
            {
                return Stop::Meet(b, state);
            }
            let before = self.branches(b).then(|| state.clone());
            let Some(ran) = self.execute(role, b, &mut state) else { return Stop::Fail };
            if let Some(entry) = ran.entered {
                b = entry;
                continue;
            }
            match self.resolve(role, b, &mut state) {
                Next::To(next) => b = next,
                Next::Done => return Stop::Done,
                Next::Trap => return Stop::Trap,
                Next::Fail => return Stop::Fail,
                Next::Branch { .. } => {
                    if self.skips(role, b).is_none() {
                        return Stop::Meet(b, before.unwrap_or_default());
                    }
                    self.step_over(role, b, &mut state);
                    match self.ipdom(b) {
                        Some(after) => b = after,
                        None if state.stack.is_empty() => return Stop::Done,
                        None => return Stop::Fail,
                    }
                }
            }
        }
    }

    /// Block `b`'s immediate post-dominator in its function.
    fn ipdom(&mut self, b: usize) -> Option<usize> {
        let f = self.index.block_function[b];
        let blocks = self.index.blocks_of[f].clone();
        let start = blocks.start;
        let ipdoms = self.ipdoms.entry(f).or_insert_with(|| post_dominators(self.index, blocks));
        ipdoms[b - start]
    }

    fn branches(&self, b: usize) -> bool {
        self.terminator(b).is_some_and(|op| {
            Operation::get_op::<CondBrOp>(op, self.ctx).is_some()
                || Operation::get_op::<SwitchOp>(op, self.ctx).is_some()
        })
    }

    fn terminator(&self, b: usize) -> Option<Ptr<Operation>> {
        self.index.ops_of_block[b].clone().last().map(|n| self.index.ops[n])
    }

    /// The blocks between branch `b` and its post-dominator, if none runs an advance of `role`
    /// or enters a call holding one.
    fn skips(&mut self, role: usize, b: usize) -> Option<Vec<usize>> {
        if let Some(known) = self.roles[role].stepped_over.get(&b) {
            return known.clone();
        }
        let stop = self.ipdom(b);
        let mut seen = FxHashSet::default();
        let mut stack: Vec<usize> =
            self.index.succs[b].iter().copied().filter(|s| Some(*s) != stop).collect();
        let mut region = Vec::new();
        let mut clean = true;
        while let Some(x) = stack.pop() {
            if !seen.insert(x) {
                continue;
            }
            let advances = self.index.ops_of_block[x].clone().any(|n| {
                let op = self.index.ops[n];
                self.roles[role].sites.contains(&op) || self.roles[role].enters(self.index, n, op)
            });
            if advances {
                clean = false;
                break;
            }
            region.push(x);
            for s in &self.index.succs[x] {
                if Some(*s) != stop && !seen.contains(s) {
                    stack.push(*s);
                }
            }
        }
        let found = clean.then_some(region);
        self.roles[role].stepped_over.insert(b, found.clone());
        found
    }

    /// What stepping over branch `b` leaves: every variable its region stores is unknown.
    fn step_over(&mut self, role: usize, b: usize, state: &mut RoleState) {
        let region = self.skips(role, b).unwrap_or_default();
        for x in region {
            for n in self.index.ops_of_block[x].clone() {
                let op = self.index.ops[n];
                if Operation::get_op::<StoreOp>(op, self.ctx).is_some()
                    && let Some(slot) = self.tracked(op.deref(self.ctx).get_operand(1))
                {
                    let unknown = self.terms.unknown();
                    state.store(slot, unknown);
                }
            }
        }
    }

    /// Runs block `b` for `role`: how many of its advances it holds, and the callee's entry
    /// where it enters a call (the rest of the block runs on the call's return). `None` where
    /// the walk cannot follow the block: calls nested past [`MAX_DEPTH`].
    fn execute(&mut self, role: usize, b: usize, state: &mut RoleState) -> Option<Ran> {
        self.steps += 1;
        let first = self.index.ops_of_block[b].start;
        self.run_from(role, first, state)
    }

    /// [`Self::execute`] from operation `from` on, to the end of its block (a block resumed after
    /// the call it entered returns).
    fn run_from(&mut self, role: usize, from: usize, state: &mut RoleState) -> Option<Ran> {
        let mut advances = 0;
        let b = self.index.op_block[from];
        for n in from..self.index.ops_of_block[b].end {
            let op = self.index.ops[n];
            if self.roles[role].sites.contains(&op) {
                advances += 1;
            }
            if self.roles[role].enters(self.index, n, op) {
                let callee = *self.index.callee_of.get(&n)?;
                let entry = self.index.entry_block(callee)?;
                if state.stack.len() >= MAX_DEPTH {
                    return None;
                }
                let arguments: Vec<Value> = op.deref(self.ctx).operands().collect();
                let parameters: Vec<Value> = self.index.blocks[entry].deref(self.ctx).arguments().collect();
                if arguments.len() != parameters.len() {
                    return None;
                }
                for (parameter, argument) in parameters.into_iter().zip(arguments) {
                    let term = self.term(state, argument);
                    state.values.insert(parameter, term);
                }
                state.stack.push(n);
                return Some(Ran { advances, entered: Some(entry) });
            }
            if Operation::get_op::<StoreOp>(op, self.ctx).is_some() {
                let (value, address) = {
                    let operation = op.deref(self.ctx);
                    (operation.get_operand(0), operation.get_operand(1))
                };
                if let Some(slot) = self.tracked(address) {
                    let term = self.term(state, value);
                    state.store(slot, term);
                }
                continue;
            }
            let results: Vec<Value> = op.deref(self.ctx).results().collect();
            for result in results {
                let term = self.evaluate(role, state, op, result);
                state.values.insert(result, term);
            }
        }
        Some(Ran { advances, entered: None })
    }

    /// A local's part the walk follows: one only ever written by the stores the table places.
    fn tracked(&self, address: Value) -> Option<Slot> {
        let locals = self.model.locals();
        let (local, path) = locals.slot(self.ctx, address)?;
        locals.only_written_by_stores(local).then_some((local, path))
    }

    fn term(&mut self, state: &RoleState, value: Value) -> TermId {
        if let Some(term) = state.values.get(&value) {
            return *term;
        }
        if let Some(position) = self.parameters.get(&value) {
            return self.terms.intern(Term::Parameter(*position));
        }
        self.terms.unknown()
    }

    /// The term of `result`, a result of `op`.
    fn evaluate(&mut self, role: usize, state: &RoleState, op: Ptr<Operation>, result: Value) -> TermId {
        let ctx = self.ctx;
        let operands: Vec<Value> = op.deref(ctx).operands().collect();
        let ty = result.get_type(ctx);
        if let Some(binop) = Operation::get_op::<BinOp>(op, ctx)
            && let Some(kind) = binop.kind(ctx)
        {
            let (a, b) = (self.term(state, operands[0]), self.term(state, operands[1]));
            return self.terms.intern(Term::Binary(kind, ty, a, b));
        }
        if let Some(cmp) = Operation::get_op::<CmpOp>(op, ctx)
            && let Some(predicate) = cmp.get_attr_cmp_predicate(ctx).map(|p| *p)
        {
            let (a, b) = (self.term(state, operands[0]), self.term(state, operands[1]));
            return self.terms.intern(Term::Compare(predicate, a, b));
        }
        if let Some(cast) = Operation::get_op::<CastOp>(op, ctx)
            && let Some(kind) = cast.kind(ctx)
        {
            let a = self.term(state, operands[0]);
            return self.terms.intern(Term::Cast(kind, ty, a));
        }
        if Operation::get_op::<LoadOp>(op, ctx).is_some()
            && let Some(slot) = self.tracked(operands[0])
        {
            // A field of an aggregate stored whole (`let range = tile_range(); range.first`).
            return match (state.load(&slot), state.load_around(&slot)) {
                (Some(term), _) => term,
                (None, Some((aggregate, path))) => self.terms.intern(Term::Part(aggregate, path)),
                (None, None) => self.terms.unknown(),
            };
        }
        if let Some(callee) = self.pure_callee(op)
            && op.deref(ctx).get_num_results() == 1
        {
            let arguments = operands.iter().map(|operand| self.term(state, *operand)).collect();
            return self.terms.intern(Term::Apply(callee, arguments));
        }
        // Anything else (a constant, a call, a load of memory): what the thread model says.
        match self.model.eval(result, &FxHashMap::default()) {
            Val::Const(c) => self.terms.intern(Term::Const(c, ty)),
            Val::Threads(values) => {
                let mut held = self.roles[role].threads.iter().map(|t| values.get(*t).copied());
                match held.next().flatten() {
                    Some(first) if held.all(|v| v == Some(first)) => {
                        self.terms.intern(Term::Const(first, ty))
                    }
                    _ => self.terms.unknown(),
                }
            }
            // Computed once per thread: on no cycle of the kernel function (a helper's block runs at
            // every call of the helper).
            Val::Uniform
                if self.index.block_of_op(op).is_some_and(|b| {
                    self.index.block_function[b] == 0 && !self.index.cycles().on_cycle(b)
                }) =>
            {
                self.terms.intern(Term::Same(result))
            }
            _ => self.terms.unknown(),
        }
    }

    /// The name of the function `op` calls, where its result is computed from its arguments
    /// alone (`uniform::computes_from_arguments`; outside the scope: an argument-less read of
    /// the block's coordinates).
    fn pure_callee(&self, op: Ptr<Operation>) -> Option<String> {
        let call = Operation::get_op::<CallOp>(op, self.ctx)?;
        let name = call.callee(self.ctx)?.to_string();
        let n = *self.index.op_number.get(&op)?;
        let pure = match self.index.callee_of.get(&n) {
            Some(callee) => computes_from_arguments(self.ctx, self.index, *callee, PURE_DEPTH),
            None => reads_block_coordinates(self.ctx, op),
        };
        pure.then_some(name)
    }

    /// Where `role` goes after block `b`.
    fn resolve(&mut self, role: usize, b: usize, state: &mut RoleState) -> Next {
        let Some(last) = self.terminator(b) else { return Next::Fail };
        let ctx = self.ctx;
        // Inside a call the role goes on after the return, whatever the callee has left.
        let inside = !state.stack.is_empty();
        let to = |index: &ScopeIndex, target: usize, roles: &[Role; 2]| {
            if !index.can_return(target) {
                Next::Trap
            } else if !inside && !roles[role].reaches[target] {
                Next::Done
            } else {
                Next::To(target)
            }
        };
        if Operation::get_op::<ReturnOp>(last, ctx).is_some() {
            let Some(call) = state.stack.pop() else { return Next::Done };
            // The call's results take the returned values; the role goes on with the jump after
            // the call.
            let returned: Vec<Value> = last.deref(ctx).operands().collect();
            let results: Vec<Value> = self.index.ops[call].deref(ctx).results().collect();
            if returned.len() != results.len() {
                return Next::Fail;
            }
            for (result, value) in results.into_iter().zip(returned) {
                let term = self.term(state, value);
                state.values.insert(result, term);
            }
            // The rest of the calling block, then its own way on (an advance there is not met).
            let caller = self.index.op_block[call];
            return match self.run_from(role, call + 1, state) {
                Some(Ran { entered: Some(entry), advances: 0 }) => Next::To(entry),
                Some(Ran { entered: None, advances: 0 }) => self.resolve(role, caller, state),
                _ => Next::Fail,
            };
        }
        let targets: Option<Vec<usize>> =
            last.deref(ctx).successors().map(|block| self.index.block_number.get(&block).copied()).collect();
        let Some(targets) = targets else { return Next::Fail };
        if Operation::get_op::<GotoOp>(last, ctx).is_some() {
            return match targets.as_slice() {
                [only] => to(self.index, *only, &self.roles),
                _ => Next::Fail,
            };
        }
        let switch = Operation::get_op::<SwitchOp>(last, ctx);
        if Operation::get_op::<CondBrOp>(last, ctx).is_none() && switch.is_none() {
            // `mir.unreachable` and anything else that ends a block without a way on.
            return if targets.is_empty() { Next::Trap } else { Next::Fail };
        }
        let cases: Option<Vec<u64>> = match switch {
            Some(switch) => match switch.get_attr_switch_cases(ctx) {
                Some(cases) => Some(cases.0.clone()),
                None => return Next::Fail,
            },
            None => None,
        };
        // A way into a panic traps the launch: a branch with one other way is no choice.
        let feasible: Vec<usize> = targets.iter().copied().filter(|t| self.index.can_return(*t)).collect();
        match feasible.as_slice() {
            [] => return Next::Trap,
            [only] => return to(self.index, *only, &self.roles),
            _ => {}
        }
        let condition = last.deref(ctx).get_operand(0);
        if let Some(value) = self.decided(role, condition) {
            let arm = match &cases {
                None => usize::from(value == 0),
                Some(cases) => cases.iter().position(|case| *case == value as u64).unwrap_or(cases.len()),
            };
            return match targets.get(arm) {
                Some(target) => to(self.index, *target, &self.roles),
                None => Next::Fail,
            };
        }
        let condition = self.term(state, condition);
        Next::Branch { condition, targets, cases }
    }

    /// The value a branch condition has in every thread of `role`, where the thread model gives
    /// one.
    fn decided(&self, role: usize, condition: Value) -> Option<i64> {
        match self.model.eval(condition, &FxHashMap::default()) {
            Val::Const(c) => Some(c),
            Val::Threads(values) => {
                let mut held = self.roles[role].threads.iter().map(|t| values.get(*t).copied());
                let first = held.next().flatten()?;
                held.all(|v| v == Some(first)).then_some(first)
            }
            _ => None,
        }
    }
}
