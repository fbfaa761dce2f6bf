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
    control::{CallOp, CondBrOp},
    memory::{LoadOp, StoreOp, counted},
};
use crate::verify::locals::{loads_place, local_slot};

pub(crate) use super::store_table::Place;

mod carry_free;
pub(crate) use carry_free::reduction_modulus;
use carry_free::{disjoint_bits_sum, divided};

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
}

/// A value per thread: `base + Σ kᵢ · strideᵢ`.
#[derive(Clone, Debug)]
pub(crate) struct Progression {
    /// A constant or one value per thread.
    pub base: Val,
    pub terms: Vec<Term>,
}

impl Progression {
    /// A value known per thread (a constant or one value per thread), with no counter.
    pub(crate) fn known(base: Val) -> Option<Progression> {
        matches!(base, Val::Const(_) | Val::Threads(_)).then_some(Progression { base, terms: Vec::new() })
    }

    /// `self + other`.
    pub(crate) fn plus(self, other: Progression) -> Option<Progression> {
        let base = map2(self.base, other.base, |a, b| a.checked_add(b));
        let mut sum = Progression::known(base)?;
        sum.terms = self.terms;
        sum.terms.extend(other.terms);
        Some(sum)
    }

    pub(crate) fn scaled(self, factor: i64) -> Option<Progression> {
        let base = map2(self.base, Val::Const(factor), |a, b| a.checked_mul(b));
        let mut product = Progression::known(base)?;
        for term in self.terms {
            product.terms.push(Term { stride: term.stride.checked_mul(factor)?, count: term.count });
        }
        Some(product)
    }

    /// The value, if it is one constant.
    pub(crate) fn constant(&self) -> Option<i64> {
        match self.base {
            Val::Const(c) if self.terms.is_empty() => Some(c),
            _ => None,
        }
    }

    /// Whether every counter's count is known (per thread): the values are exactly the
    /// enumerated ones, not cut at a limit.
    pub(crate) fn bounded(&self) -> bool {
        self.terms.iter().all(|term| matches!(term.count, Count::Threads(_)))
    }

    /// The values thread `t` may take, below `limit` for unbounded counters (whose strides must
    /// be positive); `None` when there are more than `cap`.
    pub(crate) fn values(&self, t: usize, limit: i64, cap: usize) -> Option<Vec<i64>> {
        let base = match &self.base {
            Val::Const(c) => *c,
            Val::Threads(values) => *values.get(t)?,
            _ => return None,
        };
        let mut values = vec![base];
        for term in &self.terms {
            let count = match &term.count {
                Count::Threads(counts) => *counts.get(t)?,
                Count::Unbounded if term.stride > 0 => {
                    let lowest = values.iter().copied().min().unwrap_or(base);
                    ((limit - lowest).max(0) + term.stride - 1) / term.stride
                }
                Count::Unbounded => return None,
            };
            if count <= 0 {
                return Some(Vec::new());
            }
            if values.len().saturating_mul(count as usize) > cap {
                return None;
            }
            let bounded = matches!(term.count, Count::Threads(_));
            let mut next = Vec::with_capacity(values.len() * count as usize);
            for value in &values {
                for k in 0..count {
                    let v = value + k * term.stride;
                    if bounded || v < limit {
                        next.push(v);
                    }
                }
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
                    _ => None,
                },
                BinOpKind::Shl => {
                    let by = u32::try_from(constant(operands[1])?).ok().filter(|by| *by < 32)?;
                    self.eval(operands[0], depth - 1)?.scaled(1 << by)
                }
                // Anything else only on values known per thread (a variable read as one value),
                // but for bits combined where they cannot overlap (`(row << 5) | lane`).
                kind => {
                    let read_before = self.assumed.unbounded.borrow().len();
                    let (a, b) = (self.eval(operands[0], depth - 1)?, self.eval(operands[1], depth - 1)?);
                    if !a.terms.is_empty() || !b.terms.is_empty() {
                        let result = self.carry_free(kind, &a, &b);
                        if result.is_none() && matches!(kind, BinOpKind::Rem | BinOpKind::BitAnd) {
                            let read = self.assumed.unbounded.borrow()[read_before..].to_vec();
                            let mut blocked = self.assumed.blocked.borrow_mut();
                            for (place, load) in read {
                                blocked.entry(place).or_insert(load);
                            }
                        }
                        return result;
                    }
                    let int = IntType::of(ctx, value.get_type(ctx)).unwrap_or(IntType::unsigned(64));
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
                read.terms.push(Term { stride: *modulus, count: Count::Unbounded });
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
            let item =
                local_slot(ctx, slot).is_some_and(|(_, path)| path.last() == Some(&counted::ITEM_PAYLOAD));
            if item && let Some(handed_out) = self.counter(*only, true) {
                return Some(handed_out);
            }
            if item && let Some(handed_out) = self.taken_from_end(*only) {
                return Some(handed_out);
            }
            return self.eval(*only, depth - 1);
        }
        let counter = self.counter(value, false);
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

    /// `value`, a load of a counter (module doc), as the progression of its values; `handed_out`
    /// when it is read as an item `next` handed out (then `start < end` held).
    fn counter(&self, value: Value, handed_out: bool) -> Option<Progression> {
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
        progression.terms.push(Term { stride: step, count });
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
    fn taken_from_end(&self, value: Value) -> Option<Progression> {
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
        let counter = self.counter(end, true)?;
        let stride = counter.terms.last()?.stride;
        counter.plus(Progression::known(Val::Const(stride))?)
    }

    /// The `end` of a loop test `counter < end` (or `end > counter`; `counter > end` for a
    /// count-down, where `down`) that guards the read `load` of a `while` counter: every path to `load` passes the test's true edge after the
    /// counter's last store (and after the last store of any variable assumed to hold one
    /// value, which `end` may read), so the value read is one the test let through.
    fn guarded_end(
        &self,
        load: pliron::context::Ptr<Operation>,
        place: &Place,
        down: bool,
    ) -> Option<LoopTest> {
        let index = self.index;
        let n = *index.op_number.get(&load)?;
        let l = index.op_block[n];
        let f = index.block_function[l];
        let sites = &self.model.counter_sites;
        let mut stores: Vec<usize> = sites.stores(self.ctx, index, f, place).to_vec();
        for assumed in &self.assumed.places {
            if assumed != place {
                stores.extend_from_slice(&sites.stores(self.ctx, index, f, assumed));
            }
        }
        let store_blocks: FxHashSet<usize> = stores.iter().map(|s| index.op_block[*s]).collect();
        let tests =
            sites.tests(self.ctx, index, (f, place, down), |t| self.loop_test(t, place, down).is_some());
        for &t in tests.iter() {
            let Some(test) = self.loop_test(t, place, down) else { continue };
            let LoopTest { taken, skipped, .. } = test;
            if t == l || store_blocks.contains(&t) {
                continue;
            }
            let starts: Vec<(usize, Option<usize>)> =
                stores.iter().map(|s| (index.op_block[*s], Some(*s))).chain([(skipped, None)]).collect();
            if taken != skipped && !reaches_avoiding(index, &starts, n, t) {
                return Some(test);
            }
        }
        None
    }

    /// If block `t` ends in a branch on `counter < end` or `counter <= end` (`>` or `>=` where
    /// `down`: a count-down's test), or on `counter != end` or `counter == end` (the loop
    /// continuing while they differ), the counter a load of `place` in `t`: the test.
    fn loop_test(&self, t: usize, place: &Place, down: bool) -> Option<LoopTest> {
        let (ctx, index) = (self.ctx, self.index);
        let branch = index.ops[index.ops_of_block[t].end.checked_sub(1)?];
        Operation::get_op::<CondBrOp>(branch, ctx)?;
        let (condition, taken, skipped) = {
            let operation = branch.deref(ctx);
            (operation.get_operand(0), operation.get_successor(0), operation.get_successor(1))
        };
        let compare = condition.defining_op()?;
        if index.op_number.get(&compare).map(|m| index.op_block[*m]) != Some(t) {
            return None;
        }
        let predicate = Operation::get_op::<CmpOp>(compare, ctx)?.get_attr_cmp_predicate(ctx).map(|p| *p)?;
        let (a, b) = {
            let operation = compare.deref(ctx);
            (operation.get_operand(0), operation.get_operand(1))
        };
        // `counter != end` continues like `counter < end` (`>` for a count-down) only for a
        // counter that meets `end` exactly (the caller checks its step and start).
        let (counter, end, inclusive) = match (predicate, down) {
            (CmpPredicate::Lt, false) | (CmpPredicate::Gt, true) => (a, b, false),
            (CmpPredicate::Gt, false) | (CmpPredicate::Lt, true) => (b, a, false),
            (CmpPredicate::Le, false) | (CmpPredicate::Ge, true) => (a, b, true),
            (CmpPredicate::Ge, false) | (CmpPredicate::Le, true) => (b, a, true),
            (CmpPredicate::Ne | CmpPredicate::Eq, _) => (a, b, false),
        };
        let exact = matches!(predicate, CmpPredicate::Eq | CmpPredicate::Ne);
        // A loop left on `counter == end` continues on the branch's false edge.
        let (taken, skipped) =
            if predicate == CmpPredicate::Eq { (skipped, taken) } else { (taken, skipped) };
        // `end == counter` is the same test as `counter == end`.
        let (counter, end) =
            if exact && !loads_place(ctx, counter, place) { (end, counter) } else { (counter, end) };
        // A loop left when the test holds (`if i >= end { break }`) goes on along the false edge,
        // where its negation holds: `i < end` (`i <= end` where it leaves on `i > end`).
        let (counter, end, inclusive, taken, skipped) =
            if !exact && !loads_place(ctx, counter, place) && loads_place(ctx, end, place) {
                (end, counter, !inclusive, skipped, taken)
            } else {
                (counter, end, inclusive, taken, skipped)
            };
        let read = *index.op_number.get(&counter.defining_op()?)?;
        // The counter is read in the test's block, or in its one predecessor with no store to it
        // after the read (a division by a constant in the bound, `step < TILE / STEP`, puts the
        // divisor's zero check between the read and the test).
        let read_block = index.op_block[read];
        let stored_after_read = || {
            (read + 1..index.ops_of_block[read_block].end).any(|m| {
                let op = index.ops[m];
                Operation::get_op::<StoreOp>(op, ctx).is_some()
                    && local_slot(ctx, op.deref(ctx).get_operand(1)).is_none_or(|p| p == *place)
            })
        };
        let in_test = read_block == t || (index.preds[t] == [read_block] && !stored_after_read());
        (in_test && loads_place(ctx, counter, place)).then(|| LoopTest {
            end,
            inclusive,
            exact,
            taken: index.block_number.number(&taken),
            skipped: index.block_number.number(&skipped),
        })
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

/// Whether operation `target` can be reached, within its function, from any of `starts` (a
/// block, entered after operation `after` of it or at its top) without entering block `avoid`.
fn reaches_avoiding(
    index: &ScopeIndex,
    starts: &[(usize, Option<usize>)],
    target: usize,
    avoid: usize,
) -> bool {
    let goal = index.op_block[target];
    let mut seen = vec![false; index.blocks.len()];
    let mut stack: Vec<usize> = Vec::new();
    for (block, after) in starts {
        match after {
            Some(after) if *block == goal && *after < target => return true,
            Some(_) => stack.extend(index.succs[*block].iter().copied()),
            None => stack.push(*block),
        }
    }
    while let Some(b) = stack.pop() {
        if b == avoid || std::mem::replace(&mut seen[b], true) {
            continue;
        }
        if b == goal {
            return true;
        }
        stack.extend(index.succs[b].iter().copied());
    }
    false
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

/// A loop test on a counter ([`Progressions::loop_test`]): `counter < end` (`<=` where
/// `inclusive`; `>`, `>=` for a count-down), or, where `exact`, `counter != end`; and the blocks
/// the branch takes when the loop continues and when it leaves.
#[derive(Clone, Copy)]
struct LoopTest {
    end: Value,
    inclusive: bool,
    exact: bool,
    taken: usize,
    skipped: usize,
}
