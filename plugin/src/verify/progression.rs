//! Addresses indexed by loop counters, per thread: `tile[tid + 64 * k]` for `k in 0..4`, or
//! `s[i]` for `let mut i = tid; … i += 64`. The thread model knows a value per thread only when
//! it is one value in every iteration; a loop counter is a set of values, so an index built from
//! one is read here as a *progression*: a base per thread plus multiples of counters' steps,
//! each counter taking a known number of values per thread (or any number, bounded only by the
//! shared memory's size).
//!
//! A counter is a variable (a local or a part of one) stored once before its loop with a value
//! known per thread (its *start*) and once as itself plus a step, either
//! - a positive constant (`i += 64`, a `while` loop's counter): every `start + k · step`, `k ≥ 0`;
//!   nothing bounds `k` but the loop's own test `i < end` where it guards the read;
//! - a negative constant (`i -= 1`, a count-down): every `start − k · |step|`, bounded only where
//!   the loop's own test `i > end` guards the read (otherwise the values are not enumerated); or
//! - `(self < end) · step`: the `next` of a counted iterator as the import writes it (`for k in
//!   a..b`, `(a..b).step_by(s)`, see `crate::ir::mir::memory::counted`). An item `next` handed
//!   out is read only as `Some`'s payload, so only where `start < end` held: the item is one of
//!   `start + k · step < end`, a bounded number per thread when `end` is known per thread;
//! - `− (start < self) · 1`: a `rev()` range's `next`, which hands out the decremented `end`:
//!   the counter takes `end₀ − k` for `k < end₀ − start` where the item is read, and the item is
//!   one less.
//!
//! The rest of an index is what the thread model evaluates per thread, through sums, constant
//! products and shifts, integer casts and locals stored once; a helper's result is its returned
//! value read the same way, the helper's parameters bound to the arguments' progressions.

use std::cell::RefCell;
use std::rc::Rc;

use pliron::{
    context::{Context, Ptr},
    operation::Operation,
    r#type::Typed,
    value::Value,
};
use rustc_hash::{FxHashMap, FxHashSet};

use super::{
    dataflow::{function_returns, returned_by},
    index::ScopeIndex,
    memory::{LocalStores, constant_value},
    thread_model::{ThreadModel, Val, map2},
    thread_set::Threads,
    thread_values::{IntType, apply_int},
};
use crate::ir::mir::{
    arith::{BinOp, BinOpKind, CastKind, CastOp, CmpOp, CmpPredicate},
    control::CallOp,
    memory::{LoadOp, StoreOp, counted},
};
use crate::verify::locals::{loads_place, local_slot};

pub(crate) use super::store_table::Place;

mod carry_free;
mod loop_tests;
mod table;
pub(crate) use carry_free::reduction_modulus;
use carry_free::{disjoint_bits_sum, divided};
pub(crate) use table::CounterId;
use table::{Table, summed_tables, tabulated};

/// Uniform variables read as given values (`crate::verify::symbols`): the value each of their
/// loads reads (for a variable known only modulo a power of two, the residue, with the modulus
/// in `moduli`: the load reads `residue + modulus · n`); and what an evaluation met: the loads
/// it read so, and the uniform variables whose loads it could not read (each with one such
/// load).
#[derive(Default)]
pub(crate) struct Assumed {
    pub places: FxHashSet<Place>,
    pub loads: FxHashMap<Value, i64>,
    pub moduli: FxHashMap<Value, i64>,
    pub used: RefCell<FxHashSet<Value>>,
    pub blocked: RefCell<FxHashMap<Place, Value>>,
    /// The unbounded counters alike in every thread the evaluations read, each time one is read
    /// (with the load): where a remainder of a value computed from them cannot be read, those
    /// read for it are `blocked` too, since each may be known modulo a power of two in an
    /// interval (`crate::verify::symbols`).
    pub unbounded: RefCell<Vec<(Place, Value)>>,
}

/// Definitions looked through for one index.
const DEPTH: u32 = 24;

/// How many values a counter takes in one thread.
#[derive(Clone, Debug)]
pub(crate) enum Count {
    /// Per thread (by thread index).
    Threads(Rc<Vec<i64>>),
    /// Any number: bounded only by what an access can reach.
    Unbounded,
}

/// One counter's contribution: `k · stride` for `k` below its count.
#[derive(Clone, Debug)]
pub(crate) struct Term {
    pub stride: i64,
    pub count: Count,
    /// Terms of one counter take one value together (`r · 32 + r` is `33 · r`, never `32 · r +
    /// r'`).
    pub counter: CounterId,
}

impl Term {
    /// A term of a counter no other term reads.
    pub(crate) fn fresh(stride: i64, count: Count) -> Term {
        Term { stride, count, counter: CounterId::fresh() }
    }
}

/// A value per thread: `base + Σ kᵢ · strideᵢ`, plus, where an operation was no sum of steps,
/// a table of its values at each joint value of the counters it read ([`table`]).
#[derive(Clone, Debug)]
pub(crate) struct Progression {
    /// A constant or one value per thread.
    pub base: Val,
    pub terms: Vec<Term>,
    pub table: Option<Rc<Table>>,
}

impl Progression {
    /// A value known per thread (a constant or one value per thread), with no counter.
    pub(crate) fn known(base: Val) -> Option<Progression> {
        matches!(base, Val::Const(_) | Val::Threads(_)).then_some(Progression {
            base,
            terms: Vec::new(),
            table: None,
        })
    }

    /// Whether the value is one per thread: no counter moves it.
    pub(crate) fn per_thread(&self) -> bool {
        self.terms.is_empty() && self.table.is_none()
    }

    /// `self + other`.
    pub(crate) fn plus(self, other: Progression) -> Option<Progression> {
        let table = match (&self.table, &other.table) {
            (Some(_), Some(_)) => summed_tables(&self, &other)?.table,
            (Some(table), None) | (None, Some(table)) => Some(table.clone()),
            (None, None) => None,
        };
        let base = map2(self.base, other.base, |a, b| a.checked_add(b));
        let mut sum = Progression::known(base)?;
        sum.terms = self.terms;
        sum.terms.extend(other.terms);
        sum.table = table;
        Some(sum)
    }

    pub(crate) fn scaled(self, factor: i64) -> Option<Progression> {
        let base = map2(self.base, Val::Const(factor), |a, b| a.checked_mul(b));
        let mut product = Progression::known(base)?;
        for term in self.terms {
            product.terms.push(Term { stride: term.stride.checked_mul(factor)?, ..term });
        }
        if let Some(table) = self.table {
            let values = table
                .values
                .iter()
                .map(|row| match row {
                    Some(row) => {
                        row.iter().map(|v| v.checked_mul(factor)).collect::<Option<Vec<i64>>>().map(Some)
                    }
                    None => Some(None),
                })
                .collect::<Option<Vec<_>>>()?;
            product.table = Some(Rc::new(Table { counters: table.counters.clone(), values }));
        }
        Some(product)
    }

    /// The value, if it is one constant.
    pub(crate) fn constant(&self) -> Option<i64> {
        match self.base {
            Val::Const(c) if self.per_thread() => Some(c),
            _ => None,
        }
    }

    /// Whether every counter's count is known (per thread): the values are exactly the
    /// enumerated ones, not cut at a limit.
    pub(crate) fn bounded(&self) -> bool {
        self.terms.iter().all(|term| matches!(term.count, Count::Threads(_)))
    }

    /// The values thread `t` may take, below `limit` for unbounded counters (whose strides must
    /// be positive); `None` when there are more than `cap`. Terms of one counter move together.
    pub(crate) fn values(&self, t: usize, limit: i64, cap: usize) -> Option<Vec<i64>> {
        let counters = self.own_counters()?;
        let mut values = self.joint_values(t, &counters, cap)?;
        for term in self.terms.iter().filter(|term| matches!(term.count, Count::Unbounded)) {
            if values.is_empty() {
                break;
            }
            if term.stride <= 0 {
                return None;
            }
            let lowest = values.iter().copied().min()?;
            let count = ((limit - lowest).max(0) + term.stride - 1) / term.stride;
            if count <= 0 {
                return Some(Vec::new());
            }
            if values.len().saturating_mul(count as usize) > cap {
                return None;
            }
            let mut next = Vec::with_capacity(values.len() * count as usize);
            for value in &values {
                next.extend((0..count).map(|k| value + k * term.stride).filter(|v| *v < limit));
            }
            values = next;
        }
        Some(values)
    }
}

/// Evaluates indices as progressions for one call chain (`params` binds the helper's
/// parameters, as for [`ThreadModel::eval`]).
pub(crate) struct Progressions<'a> {
    pub ctx: &'a Context,
    pub index: &'a ScopeIndex,
    pub model: &'a ThreadModel<'a>,
    pub assumed: &'a Assumed,
    pub locals: &'a LocalStores,
    pub params: &'a FxHashMap<Value, Val>,
    /// A helper's parameters bound to progressions of its arguments (a loop counter handed to
    /// `slot(row, k)`): empty outside [`Progressions::call_result`].
    pub bound: &'a FxHashMap<Value, Progression>,
    /// The threads whose values the caller reads (those reaching the access judged), where it
    /// reads no others; `None`: every thread's. A fact shown for these threads alone (bits that
    /// do not overlap) makes the progression exact for them, and only for them.
    pub relevant: Option<&'a Threads>,
}

impl Progressions<'_> {
    /// The integer `value` as a progression, if it is one.
    pub(crate) fn of(&self, value: Value) -> Option<Progression> {
        self.eval(value, DEPTH)
    }

    fn eval(&self, value: Value, depth: u32) -> Option<Progression> {
        let ctx = self.ctx;
        if let Some(bound) = self.bound.get(&value) {
            return Some(bound.clone());
        }
        if let Some(known) = Progression::known(self.model.eval(value, self.params)) {
            return Some(known);
        }
        if depth == 0 {
            return None;
        }
        let def = value.defining_op()?;
        let operands: Vec<Value> = def.deref(ctx).operands().collect();
        if Operation::get_op::<CallOp>(def, ctx).is_some() {
            return self.call_result(def, value, depth - 1);
        }
        if let Some(cast) = Operation::get_op::<CastOp>(def, ctx) {
            // A widening or narrowing of a small non-negative offset keeps it.
            return (cast.kind(ctx) == Some(CastKind::IntToInt))
                .then(|| self.eval(operands[0], depth - 1))
                .flatten();
        }
        if let Some(binop) = Operation::get_op::<BinOp>(def, ctx) {
            let constant = |v: Value| match self.model.eval(v, self.params) {
                Val::Const(c) => Some(c),
                _ => self.eval(v, depth - 1).and_then(|p| p.constant()),
            };
            let int = IntType::of(ctx, value.get_type(ctx)).unwrap_or(IntType::unsigned(64));
            let both = || Some((self.eval(operands[0], depth - 1)?, self.eval(operands[1], depth - 1)?));
            return match binop.kind(ctx)? {
                BinOpKind::Add => self.eval(operands[0], depth - 1)?.plus(self.eval(operands[1], depth - 1)?),
                BinOpKind::Sub => match constant(operands[1]) {
                    Some(c) => self
                        .eval(operands[0], depth - 1)?
                        .plus(Progression::known(Val::Const(c.checked_neg()?))?),
                    None => self
                        .eval(operands[0], depth - 1)?
                        .plus(self.eval(operands[1], depth - 1)?.scaled(-1)?),
                },
                BinOpKind::Mul => match (constant(operands[0]), constant(operands[1])) {
                    (_, Some(c)) => self.eval(operands[0], depth - 1)?.scaled(c),
                    (Some(c), _) => self.eval(operands[1], depth - 1)?.scaled(c),
                    _ => both().and_then(|(a, b)| self.tabulate(BinOpKind::Mul, int, &a, &b)),
                },
                BinOpKind::Shl => match constant(operands[1]).and_then(|by| u32::try_from(by).ok()) {
                    Some(by) if by < 32 => self.eval(operands[0], depth - 1)?.scaled(1 << by),
                    _ => both().and_then(|(a, b)| self.tabulate(BinOpKind::Shl, int, &a, &b)),
                },
                // Anything else directly on values known per thread (a variable read as one
                // value); through counters as a sum where the bits cannot overlap (`(row << 5) |
                // lane`) or no counter carries, else tabulated where every counter is bounded.
                kind => {
                    let read_before = self.assumed.unbounded.borrow().len();
                    let (a, b) = both()?;
                    if !a.per_thread() || !b.per_thread() {
                        let result =
                            self.carry_free(kind, &a, &b).or_else(|| self.tabulate(kind, int, &a, &b));
                        if result.is_none() && matches!(kind, BinOpKind::Rem | BinOpKind::BitAnd) {
                            let read = self.assumed.unbounded.borrow()[read_before..].to_vec();
                            let mut blocked = self.assumed.blocked.borrow_mut();
                            for (place, load) in read {
                                blocked.entry(place).or_insert(load);
                            }
                        }
                        return result;
                    }
                    Progression::known(map2(a.base, b.base, |x, y| apply_int(kind, int, x, y)))
                }
            };
        }
        Operation::get_op::<LoadOp>(def, ctx)?;
        let slot = operands[0];
        let place = local_slot(ctx, slot);
        let uniform = || matches!(self.model.eval(value, self.params), Val::Uniform);
        if let Some(x) = self.assumed.loads.get(&value)
            && uniform()
        {
            self.assumed.used.borrow_mut().insert(value);
            let mut read = Progression::known(Val::Const(*x))?;
            if let Some(modulus) = self.assumed.moduli.get(&value) {
                read.terms.push(Term::fresh(*modulus, Count::Unbounded));
            }
            return Some(read);
        }
        let stored = self.locals.stores_into(ctx, slot)?;
        // A read after a store in its own block reads that store (`r -= 1; s[r]`).
        if stored.len() > 1
            && let Some(forwarded) = self.stored_before_in_block(def, slot)
        {
            return self.eval(forwarded, depth - 1);
        }
        if let [(only, _)] = stored.as_slice() {
            // An item of a counted iterator: its one store is the iterator's `start`.
            let item = place.as_ref().filter(|(_, path)| path.last() == Some(&counted::ITEM_PAYLOAD));
            if let Some(item) = item {
                let id = CounterId::Item(item.clone());
                // An inclusive range counts in 64 bits and casts its items back to their type:
                // they are below its `b + 1`, so the cast keeps them.
                let counted = match only.defining_op() {
                    Some(cast)
                        if Operation::get_op::<CastOp>(cast, ctx)
                            .is_some_and(|cast| cast.kind(ctx) == Some(CastKind::IntToInt)) =>
                    {
                        cast.deref(ctx).get_operand(0)
                    }
                    _ => *only,
                };
                if let Some(handed_out) = self.counter(counted, Some(id.clone())) {
                    return Some(handed_out);
                }
                if let Some(handed_out) = self.taken_from_end(counted, id) {
                    return Some(handed_out);
                }
            }
            return self.eval(*only, depth - 1);
        }
        let counter = self.counter(value, None);
        if let Some(place) = place
            && uniform()
        {
            match &counter {
                None => {
                    self.assumed.blocked.borrow_mut().entry(place).or_insert(value);
                }
                // Known modulo a power of two in each interval, perhaps (`j & 1` of `j += 1`).
                Some(counter) if !counter.bounded() => {
                    self.assumed.unbounded.borrow_mut().push((place, value))
                }
                Some(_) => {}
            }
        }
        counter
    }

    /// `a kind b` where a counter moves one side, if no counter carries into the bits the
    /// operation cuts (`carry_free`): bits that cannot overlap, or a quotient, remainder, shift
    /// or low-bit mask by a constant.
    fn carry_free(&self, kind: BinOpKind, a: &Progression, b: &Progression) -> Option<Progression> {
        if a.table.is_some() || b.table.is_some() {
            return None;
        }
        let relevant = self.relevant;
        match kind {
            BinOpKind::BitOr | BinOpKind::BitXor => {
                disjoint_bits_sum(a, b, relevant).or_else(|| disjoint_bits_sum(b, a, relevant))
            }
            BinOpKind::Div => divided(a, b.constant()?, true, relevant),
            BinOpKind::Rem => divided(a, reduction_modulus(kind, b.constant()?)?, false, relevant),
            BinOpKind::Shr => {
                let by = u32::try_from(b.constant()?).ok().filter(|by| *by < 32)?;
                divided(a, 1 << by, true, relevant)
            }
            // `a & (2ᵐ − 1)`, the mask on either side.
            BinOpKind::BitAnd => {
                let (value, mask) = match (b.constant(), a.constant()) {
                    (Some(mask), _) if !a.terms.is_empty() => (a, mask),
                    (_, Some(mask)) => (b, mask),
                    _ => return None,
                };
                divided(value, reduction_modulus(kind, mask)?, false, relevant)
            }
            _ => None,
        }
    }

    /// `a kind b` tabulated over their counters ([`table`]) in the relevant threads.
    fn tabulate(
        &self,
        kind: BinOpKind,
        int: IntType,
        a: &Progression,
        b: &Progression,
    ) -> Option<Progression> {
        let block_threads = self.model.block_threads;
        match self.relevant {
            Some(threads) => tabulated(kind, int, (a, b), threads.members(), block_threads),
            None => tabulated(kind, int, (a, b), 0..block_threads, block_threads),
        }
    }

    /// What the scope's helper `call` returns at `result`, where it has one `return`: its
    /// returned value evaluated with the helper's parameters bound to the arguments, per thread
    /// as the thread model binds them and as progressions where an argument is one (a counter).
    /// The helper computes from its parameters as the caller's expression would, so `slot(row,
    /// k)` is read as `row · W + k` is.
    fn call_result(&self, call: Ptr<Operation>, result: Value, depth: u32) -> Option<Progression> {
        let (ctx, index) = (self.ctx, self.index);
        let binding = index.call_binding(ctx, call)?;
        let returns = function_returns(index, binding.callee);
        let [returned] = returned_by(ctx, index, &returns, call, result)?[..] else {
            return None;
        };
        let mut params = FxHashMap::default();
        let mut bound = FxHashMap::default();
        for (parameter, argument) in binding.parameters.into_iter().zip(&binding.arguments) {
            let per_thread = self.model.eval(*argument, self.params);
            if !matches!(per_thread, Val::Const(_) | Val::Threads(_))
                && let Some(progression) = self.eval(*argument, depth)
            {
                bound.insert(parameter, progression);
            }
            params.insert(parameter, per_thread);
        }
        // The helper's own variables are no uniform variables of the caller that
        // `crate::verify::symbols` could read as one value per interval: what the helper's
        // evaluation could not read is left out of `blocked`.
        let blocked = self.assumed.blocked.borrow().clone();
        let helper = Progressions { params: &params, bound: &bound, ..*self };
        let returned = helper.eval(returned, depth);
        *self.assumed.blocked.borrow_mut() = blocked;
        returned
    }

    /// `value`, a load of a counter (module doc), as the progression of its values; `item` when
    /// it is read as the item `next` handed out (then `start < end` held), the item's identity.
    fn counter(&self, value: Value, item: Option<CounterId>) -> Option<Progression> {
        let handed_out = item.is_some();
        let ctx = self.ctx;
        let def = value.defining_op()?;
        Operation::get_op::<LoadOp>(def, ctx)?;
        let slot = def.deref(ctx).get_operand(0);
        let place = local_slot(ctx, slot)?;
        let stored = self.locals.stores_into(ctx, slot)?;
        let [(first, _), (second, _)] = stored.as_slice() else { return None };
        let reads_counter = |v: Value| loads_place(ctx, v, &place);
        let (start, (step, end)) =
            match (self.advance(*first, &reads_counter), self.advance(*second, &reads_counter)) {
                (None, Some(advance)) => (*first, advance),
                (Some(advance), None) => (*second, advance),
                _ => return None,
            };
        let start = self.model.eval(start, self.params);
        let end = match end {
            Some(end) if handed_out => Some(self.model.eval(end, self.params)),
            Some(_) => None,
            // A `while` counter: bounded where the loop's own test guards the read.
            // `counter <= end` lets one value more through than `counter < end + 1` would not.
            None => self.guarded_end(def, &place, step < 0).and_then(|test| {
                let end = self.eval(test.end, DEPTH / 2).filter(|end| end.terms.is_empty())?.base;
                // `counter != end` holds the counter below `end` only where it steps by one from
                // at most `end` (it meets `end` exactly): else it passes `end` and never stops.
                if test.exact {
                    let meets = map2(start.clone(), end.clone(), |s, e| {
                        Some(i64::from(if step > 0 { s <= e } else { s >= e }))
                    });
                    let everywhere = match &meets {
                        Val::Const(c) => *c == 1,
                        Val::Threads(all) => all.iter().all(|c| *c == 1),
                        _ => false,
                    };
                    if step.abs() != 1 || !everywhere {
                        return None;
                    }
                }
                let one_past = if step < 0 { -1 } else { 1 };
                Some(if test.inclusive {
                    map2(end, Val::Const(one_past), |e, k| e.checked_add(k))
                } else {
                    end
                })
            }),
        };
        // `start + k · step < end`: `k < ⌈(end − start) / step⌉`; for a count-down, `start − k ·
        // |step| > end`: `k < ⌈(start − end) / |step|⌉` (never below `end`, so never wrapping).
        let by = step.abs();
        let span = |e: i64, s: i64| if step > 0 { e.checked_sub(s) } else { s.checked_sub(e) };
        let count = match end {
            Some(end @ (Val::Const(_) | Val::Threads(_))) => {
                match map2(end, start.clone(), |e, s| Some((span(e, s)?.max(0) + by - 1) / by)) {
                    Val::Const(c) => Count::Threads(Rc::new(vec![c; self.model.block_threads])),
                    Val::Threads(counts) => Count::Threads(counts),
                    _ => return None,
                }
            }
            _ => Count::Unbounded,
        };
        let mut progression = Progression::known(start)?;
        progression.terms.push(Term { stride: step, count, counter: item.unwrap_or(CounterId::Read(value)) });
        Some(progression)
    }

    /// The value the last store into `slot` before the load `load`, in the load's own block,
    /// wrote, if there is one and nothing else in between may write memory (a call).
    fn stored_before_in_block(&self, load: pliron::context::Ptr<Operation>, slot: Value) -> Option<Value> {
        let (ctx, index) = (self.ctx, self.index);
        let n = *index.op_number.get(&load)?;
        let place = local_slot(ctx, slot)?;
        for m in index.ops_of_block[index.op_block[n]].clone().rev().filter(|m| *m < n) {
            let op = index.ops[m];
            if Operation::get_op::<StoreOp>(op, ctx).is_some() {
                let address = op.deref(ctx).get_operand(1);
                match local_slot(ctx, address) {
                    Some(stored) if stored == place => return Some(op.deref(ctx).get_operand(0)),
                    Some(stored) if stored.0 != place.0 => continue,
                    // A store into another part of the same local, or through a pointer.
                    _ => return None,
                }
            }
            if index.op_class[m].accesses_memory() && Operation::get_op::<LoadOp>(op, ctx).is_none()
                || index.op_class[m] == super::index::OpClass::Call
            {
                return None;
            }
        }
        None
    }

    /// `value`, a `rev()` range's item (`end − (start < end) · 1`, module doc), as the
    /// progression of the items handed out: the counter's values where `start < end` held,
    /// less one.
    fn taken_from_end(&self, value: Value, item: CounterId) -> Option<Progression> {
        let ctx = self.ctx;
        let def = value.defining_op()?;
        if Operation::get_op::<BinOp>(def, ctx)?.kind(ctx)? != BinOpKind::Sub {
            return None;
        }
        let (end, delta) = {
            let operation = def.deref(ctx);
            (operation.get_operand(0), operation.get_operand(1))
        };
        let (_, compared, _) = counted_delta(ctx, delta)?;
        let place = |v: Value| local_slot(ctx, v.defining_op()?.deref(ctx).get_operand(0));
        if place(end).is_none() || place(end) != place(compared) {
            return None;
        }
        let counter = self.counter(end, Some(item))?;
        let stride = counter.terms.last()?.stride;
        counter.plus(Progression::known(Val::Const(stride))?)
    }

    /// If `value` is a counter's advance, `counter + c` (`c ≠ 0`), `counter + (counter < end) ·
    /// step` or `counter − (end < counter) · step`: its step, and its end for the last two forms
    /// (the lower end for the last, a `rev()` range's).
    fn advance(&self, value: Value, reads_counter: &dyn Fn(Value) -> bool) -> Option<(i64, Option<Value>)> {
        let ctx = self.ctx;
        let def = value.defining_op()?;
        let binop = Operation::get_op::<BinOp>(def, ctx)?;
        let (a, b) = {
            let operation = def.deref(ctx);
            (operation.get_operand(0), operation.get_operand(1))
        };
        match binop.kind(ctx)? {
            BinOpKind::Add => {}
            // A count-down `i -= c` (`c > 0`): a negative step, bounded only by a test `i > end`;
            // or a `rev()` range's `end − (start < end) · step`, bounded below by `start`.
            BinOpKind::Sub if reads_counter(a) && !reads_counter(b) => {
                if let Some(c) = constant_value(ctx, b, 4) {
                    return (c > 0).then_some((-c, None));
                }
                if let Val::Const(c) = self.model.eval(b, self.params) {
                    return (c > 0).then_some((-c, None));
                }
                let (start, counter, step) = counted_delta(ctx, b)?;
                return match self.model.eval(step, self.params) {
                    Val::Const(step) if step > 0 && reads_counter(counter) => Some((-step, Some(start))),
                    _ => None,
                };
            }
            _ => return None,
        }
        let delta = match (reads_counter(a), reads_counter(b)) {
            (true, false) => b,
            (false, true) => a,
            _ => return None,
        };
        if let Some(step) = constant_value(ctx, delta, 4) {
            return (step > 0).then_some((step, None));
        }
        // A step the thread model knows as one constant in every thread: `k += block_dim_x()`
        // under a declared block size, a helper's constant stride.
        if let Val::Const(step) = self.model.eval(delta, self.params) {
            return (step > 0).then_some((step, None));
        }
        let (counter, end, step) = counted_delta(ctx, delta)?;
        let step = match self.model.eval(step, self.params) {
            Val::Const(step) if step > 0 => step,
            _ => return None,
        };
        reads_counter(counter).then_some((step, Some(end)))
    }
}

/// `(counter < end) as T * step`, the delta of a counted `next`: its counter, end and step.
fn counted_delta(ctx: &Context, delta: Value) -> Option<(Value, Value, Value)> {
    let product = delta.defining_op()?;
    if Operation::get_op::<BinOp>(product, ctx)?.kind(ctx)? != BinOpKind::Mul {
        return None;
    }
    let (taken, step) = {
        let operation = product.deref(ctx);
        (operation.get_operand(0), operation.get_operand(1))
    };
    let cast = taken.defining_op()?;
    Operation::get_op::<CastOp>(cast, ctx).filter(|cast| cast.kind(ctx) == Some(CastKind::IntToInt))?;
    let compare = cast.deref(ctx).get_operand(0).defining_op()?;
    let cmp = Operation::get_op::<CmpOp>(compare, ctx)?;
    if cmp.get_attr_cmp_predicate(ctx).map(|p| *p) != Some(CmpPredicate::Lt) {
        return None;
    }
    let operation = compare.deref(ctx);
    Some((operation.get_operand(0), operation.get_operand(1), step))
}

/// If `value` is a counted `next`'s advance, `counter + (counter < end) · step` (or a `rev()`
/// range's `counter − (start < counter) · step`) with both `counter`s one load of the same
/// variable: that load, the step, and the sign the step is applied with (1 or −1).
pub(crate) fn counted_advance(ctx: &Context, value: Value) -> Option<(Value, Value, i64)> {
    let def = value.defining_op()?;
    let sign = match Operation::get_op::<BinOp>(def, ctx)?.kind(ctx)? {
        BinOpKind::Add => 1,
        BinOpKind::Sub => -1,
        _ => return None,
    };
    let (a, b) = {
        let operation = def.deref(ctx);
        (operation.get_operand(0), operation.get_operand(1))
    };
    let (below, above, step) = counted_delta(ctx, b)?;
    let compared = if sign > 0 { below } else { above };
    let place = |v: Value| {
        let load = v.defining_op()?;
        Operation::get_op::<LoadOp>(load, ctx)?;
        local_slot(ctx, load.deref(ctx).get_operand(0))
    };
    let same = place(a).is_some() && place(a) == place(compared);
    same.then_some((a, step, sign))
}
