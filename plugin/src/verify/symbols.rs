//! Uniform variables read as one value per interval: the stride of a tree reduction (`half /= 2`
//! between barriers), a buffer toggled by a flag (`parity ^= 1`). The thread model knows such a
//! variable only as *uniform* (the same in every thread, value unknown), which leaves an index
//! like `tid + half` unknown per thread. Between two block barriers, though, every thread starts
//! from the same value of it and runs the same stores to it (they are uniform), so an access
//! reads a value fixed by where it stands: the value at the interval's start, or the constant
//! last stored since, then the same number of updates on every path to it (its *version*). The
//! race check may then compare the interval's accesses once for each value the variable can
//! hold at the start, each access reading its own version of it.
//!
//! What makes that sound, each checked here or by the caller:
//! - the variable is a local of the kernel function (a helper's local is a new variable at every
//!   call, and two calls may run in one interval), and each load read as the value is one the
//!   thread model shows uniform;
//! - every store to it runs in every thread that reaches its block's branches alike (none under
//!   a branch on the thread index: a flag only the loader warp flips differs between warps);
//! - its stores are constants and one update of itself by a constant (`v / 2`, `v << 1`,
//!   `v ^ 1`, `v + c`, … on its own unsigned width); the values tried at the start are all it
//!   can hold: the closure of its constants under the update, at most [`MAX_VALUES`] of them;
//! - every access that reads it stands at one version on every path from the interval's start,
//!   walked through the kernel function up to the next barrier (an access in a loop that updates
//!   the variable with no barrier in between has many versions, and is not read so).
//!
//! A counter whose closure is too large (`j += 1`, every value) is tried modulo a power of two
//! `L` instead, where its update keeps the residue (`+`, `−`, `·`, `<<` and bit operations by a
//! constant on a width `L` divides, wrapping included): each value tried is a residue `r`, and
//! a load of it reads `r + L · n` for an unknown `n ≥ 0`, which is exactly what the variable
//! can hold. Only what is computed from the residue alone comes out known (`j & 1`, `(j + 1) %
//! 2`, `crate::verify::progression`); anything else keeps the unknown multiple of `L` and stays
//! unproven. `L` is the largest power of two (at most [`MAX_VALUES`]) the kernel function
//! reduces a value computed from the variable by (`% L`, `& (L − 1)`).

use pliron::builtin::types::{IntegerType, Signedness};
use pliron::{context::Context, operation::Operation, r#type::Typed, value::Value};
use rustc_hash::{FxHashMap, FxHashSet};

use super::{
    index::ScopeIndex,
    locals::{loads_place, local_slot},
    memory::{LocalStores, constant_value},
    progression::{Place, reduction_modulus},
    thread_model::{ThreadModel, Val, apply_binop, wrap_to},
};
use crate::ir::mir::{
    arith::{BinOp, BinOpKind, CastOp},
    int_width,
    memory::StoreOp,
};
use crate::ir::semantic::memory::BarrierOp;

/// Values one variable may hold, at most.
const MAX_VALUES: usize = 64;
/// Assignments of values to the variables of one interval, at most.
const MAX_COMBINATIONS: usize = 256;
/// Definitions looked through for a constant operand of an update.
const CONSTANT_DEPTH: u32 = 4;
/// Updates one path of an interval may run, at most.
const MAX_UPDATES: u32 = 8;
/// Steps (an operation at a version) the walk of one interval may take.
const MAX_STEPS: usize = 1 << 16;

/// What a store to a variable stores.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stored {
    Constant(i64),
    /// The variable's one update of itself.
    Update,
}

/// Where an access stands from the interval's start: the constant last stored since (`None`:
/// none, the value at the start), then `updates` updates.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Version {
    reset: Option<i64>,
    updates: u32,
}

/// One variable an interval's unknown accesses read.
pub(crate) struct Variable {
    pub place: Place,
    /// Every value it may hold.
    values: Vec<i64>,
    width: u32,
    /// Its one update, `v kind c` (`c kind v` when swapped).
    update: Option<(BinOpKind, i64, bool)>,
    /// Its stores in the kernel function, by operation number.
    stores: FxHashMap<usize, Stored>,
    /// Where its values are residues: their modulus (module doc).
    modulus: Option<i64>,
}

impl Variable {
    /// The variable of `place` (with one of its loads), or `None` when it is not a local of the
    /// kernel stored only constants and one update of itself (module doc).
    fn of(
        ctx: &Context,
        index: &ScopeIndex,
        locals: &LocalStores,
        model: &ThreadModel,
        place: &Place,
        load: Value,
    ) -> Option<Variable> {
        let alloca = place.0.defining_op()?;
        let in_kernel =
            index.op_number.get(&alloca).is_some_and(|n| index.block_function[index.op_block[*n]] == 0);
        // Signed division and shifts round differently from the unsigned arithmetic used here.
        let unsigned = load
            .get_type(ctx)
            .deref(ctx)
            .downcast_ref::<IntegerType>()
            .is_some_and(|int| int.signedness() == Signedness::Unsigned);
        // Every write of it is one of the stores below: none through an escaped address, none
        // of an aggregate around it.
        let slot = load.defining_op()?.deref(ctx).get_operand(0);
        let stored = locals.stores_into(ctx, slot)?;
        if !in_kernel || !unsigned {
            return None;
        }
        let width = int_width(ctx, load.get_type(ctx))?;
        let mut variable = Variable {
            place: place.clone(),
            values: Vec::new(),
            width,
            update: None,
            stores: FxHashMap::default(),
            modulus: None,
        };
        for n in index.blocks_of[0].clone().flat_map(|b| index.ops_of_block[b].clone()) {
            let op = index.ops[n];
            if Operation::get_op::<StoreOp>(op, ctx).is_none()
                || local_slot(ctx, op.deref(ctx).get_operand(1)).as_ref() != Some(place)
            {
                continue;
            }
            // A store some threads skip (under a branch on the thread index) leaves the
            // variable different between threads: no one value per interval.
            if model.divergent().branch_of(index.op_block[n]).is_some() {
                return None;
            }
            let stored = op.deref(ctx).get_operand(0);
            let kind = match model.eval(stored, &FxHashMap::default()) {
                Val::Const(c) => Stored::Constant(variable.wrap(c)),
                _ => {
                    let update = update_of(ctx, place, stored)?;
                    if variable.update.is_some_and(|known| known != update) {
                        return None;
                    }
                    variable.update = Some(update);
                    Stored::Update
                }
            };
            variable.stores.insert(n, kind);
        }
        if variable.stores.len() != stored.len() {
            return None;
        }
        variable.values = match variable.closure() {
            Some(values) => values,
            None => {
                let keeps_residue = variable.update.is_some_and(|(kind, _, swapped)| {
                    matches!(
                        kind,
                        BinOpKind::Add
                            | BinOpKind::Sub
                            | BinOpKind::Mul
                            | BinOpKind::BitAnd
                            | BinOpKind::BitOr
                            | BinOpKind::BitXor
                    ) || (!swapped && kind == BinOpKind::Shl)
                });
                let modulus =
                    reduced_by(ctx, index, place).filter(|m| keeps_residue && m.trailing_zeros() <= width)?;
                variable.modulus = Some(modulus);
                variable.closure()?
            }
        };
        Some(variable)
    }

    /// The modulus its values are residues of, if they are.
    pub(crate) fn modulus(&self) -> Option<i64> {
        self.modulus
    }

    fn wrap(&self, v: i64) -> i64 {
        let wrapped = wrap_to(self.width, v);
        self.modulus.map_or(wrapped, |m| wrapped.rem_euclid(m))
    }

    /// `v` after one update; `None` where the update has no value (a division by zero traps).
    fn updated(&self, v: i64) -> Option<i64> {
        let (kind, c, swapped) = self.update?;
        let (x, y) = if swapped { (self.wrap(c), v) } else { (v, self.wrap(c)) };
        apply_binop(kind, x, y).map(|r| self.wrap(r))
    }

    /// Its constants, closed under its update.
    fn closure(&self) -> Option<Vec<i64>> {
        let mut values: Vec<i64> = Vec::new();
        let mut seen: FxHashSet<i64> = FxHashSet::default();
        for stored in self.stores.values() {
            if let Stored::Constant(c) = stored
                && seen.insert(self.wrap(*c))
            {
                values.push(self.wrap(*c));
            }
        }
        let mut next = 0;
        while next < values.len() {
            let value = values[next];
            next += 1;
            if let Some(updated) = self.updated(value)
                && seen.insert(updated)
            {
                values.push(updated);
                if values.len() > MAX_VALUES {
                    return None;
                }
            }
        }
        Some(values)
    }

    /// The value an access at `version` reads when the variable held `at_start` at the
    /// interval's start.
    pub(crate) fn value(&self, at_start: i64, version: Version) -> Option<i64> {
        let mut value = self.wrap(version.reset.unwrap_or(at_start));
        for _ in 0..version.updates {
            value = self.updated(value)?;
        }
        Some(value)
    }

    /// The version of the variable at each operation of the kernel function the interval from
    /// `source` reaches (up to a barrier, or a call of a function holding one); `None` for an
    /// operation reached at two versions. `None` in all when a path runs more than
    /// [`MAX_UPDATES`] updates or the walk passes [`MAX_STEPS`].
    pub(crate) fn versions(
        &self,
        ctx: &Context,
        index: &ScopeIndex,
        holds_barrier: &[bool],
        source: usize,
    ) -> Option<FxHashMap<usize, Option<Version>>> {
        let mut found: FxHashMap<usize, Option<Version>> = FxHashMap::default();
        let mut seen: FxHashSet<(usize, Version)> = FxHashSet::default();
        let mut stack = vec![(source, Version { reset: None, updates: 0 })];
        let mut first = true;
        while let Some((n, version)) = stack.pop() {
            let starting = std::mem::take(&mut first);
            if !seen.insert((n, version)) {
                continue;
            }
            if seen.len() > MAX_STEPS {
                return None;
            }
            found
                .entry(n)
                .and_modify(|known| {
                    if *known != Some(version) {
                        *known = None;
                    }
                })
                .or_insert(Some(version));
            let barrier = Operation::get_op::<BarrierOp>(index.ops[n], ctx).is_some()
                || index.callee_of.get(&n).is_some_and(|callee| holds_barrier[*callee]);
            // The walk starts at its source (a barrier, or the kernel's entry) and ends at the
            // next barrier, the source itself included when a loop comes back to it.
            if barrier && !starting {
                continue;
            }
            let after = match self.stores.get(&n) {
                Some(Stored::Constant(c)) => Version { reset: Some(*c), updates: 0 },
                Some(Stored::Update) if version.updates < MAX_UPDATES => {
                    Version { reset: version.reset, updates: version.updates + 1 }
                }
                Some(Stored::Update) => return None,
                None => version,
            };
            stack.extend(index.following(n).into_iter().map(|next| (next, after)));
        }
        Some(found)
    }
}

/// Operations looked through from a reduction back to a load of the variable.
const REDUCED_DEPTH: u32 = 3;

/// The largest power of two, at most [`MAX_VALUES`], by which the kernel function reduces a
/// value computed from a load of `place` (`(j + 1) % 2`, `j & 3`) through sums, differences,
/// products and integer casts; `None` where it reduces none.
fn reduced_by(ctx: &Context, index: &ScopeIndex, place: &Place) -> Option<i64> {
    fn reads(ctx: &Context, value: Value, place: &Place, depth: u32) -> bool {
        if loads_place(ctx, value, place) {
            return true;
        }
        let Some(def) = value.defining_op().filter(|_| depth > 0) else { return false };
        let through = Operation::get_op::<CastOp>(def, ctx).is_some()
            || Operation::get_op::<BinOp>(def, ctx)
                .and_then(|binop| binop.kind(ctx))
                .is_some_and(|kind| matches!(kind, BinOpKind::Add | BinOpKind::Sub | BinOpKind::Mul));
        through && def.deref(ctx).operands().any(|operand| reads(ctx, operand, place, depth - 1))
    }
    let mut largest = None;
    for n in index.blocks_of[0].clone().flat_map(|b| index.ops_of_block[b].clone()) {
        let op = index.ops[n];
        let Some(kind) = Operation::get_op::<BinOp>(op, ctx).and_then(|binop| binop.kind(ctx)) else {
            continue;
        };
        let (a, b) = (op.deref(ctx).get_operand(0), op.deref(ctx).get_operand(1));
        let Some(modulus) = constant_value(ctx, b, CONSTANT_DEPTH).and_then(|c| reduction_modulus(kind, c))
        else {
            continue;
        };
        let power_of_two = u64::try_from(modulus).is_ok_and(u64::is_power_of_two);
        if power_of_two && (2..=MAX_VALUES as i64).contains(&modulus) && reads(ctx, a, place, REDUCED_DEPTH) {
            largest = largest.max(Some(modulus));
        }
    }
    largest
}

/// If `stored` is `v kind c` or `c kind v` with `v` a load of `place` and `c` a constant: the
/// update.
fn update_of(ctx: &Context, place: &Place, stored: Value) -> Option<(BinOpKind, i64, bool)> {
    let reads_itself = |v: Value| loads_place(ctx, v, place);
    let def = stored.defining_op()?;
    let kind = Operation::get_op::<BinOp>(def, ctx)?.kind(ctx)?;
    let (a, b) = {
        let operation = def.deref(ctx);
        (operation.get_operand(0), operation.get_operand(1))
    };
    if reads_itself(a) {
        Some((kind, constant_value(ctx, b, CONSTANT_DEPTH)?, false))
    } else if reads_itself(b) {
        Some((kind, constant_value(ctx, a, CONSTANT_DEPTH)?, true))
    } else {
        None
    }
}

/// The variables of `places` (each with one of its loads); `None` when one is not such a
/// variable.
pub(crate) fn variables(
    ctx: &Context,
    index: &ScopeIndex,
    locals: &LocalStores,
    model: &ThreadModel,
    places: &FxHashMap<Place, Value>,
) -> Option<Vec<Variable>> {
    places.iter().map(|(place, load)| Variable::of(ctx, index, locals, model, place, *load)).collect()
}

/// Every assignment of a start value to each variable (in the order given); `None` past
/// [`MAX_COMBINATIONS`].
pub(crate) fn assignments(variables: &[Variable]) -> Option<Vec<Vec<i64>>> {
    let mut assignments: Vec<Vec<i64>> = vec![Vec::new()];
    for variable in variables {
        if assignments.len().saturating_mul(variable.values.len()) > MAX_COMBINATIONS {
            return None;
        }
        assignments = assignments
            .into_iter()
            .flat_map(|assignment| {
                variable.values.iter().map(move |value| {
                    let mut next = assignment.clone();
                    next.push(*value);
                    next
                })
            })
            .collect();
    }
    Some(assignments)
}

/// Whether operation `target` of the kernel function can be reached from `source` within its
/// interval (up to a barrier, or a call of a function holding one) without passing `avoid`.
pub(crate) fn reaches_avoiding(
    ctx: &Context,
    index: &ScopeIndex,
    holds_barrier: &[bool],
    source: usize,
    target: usize,
    avoid: usize,
) -> bool {
    let mut seen: FxHashSet<usize> = FxHashSet::default();
    let mut stack = vec![source];
    let mut first = true;
    while let Some(n) = stack.pop() {
        let starting = std::mem::take(&mut first);
        if n == avoid || (!seen.insert(n) && !starting) {
            continue;
        }
        if n == target {
            return true;
        }
        let barrier = Operation::get_op::<BarrierOp>(index.ops[n], ctx).is_some()
            || index.callee_of.get(&n).is_some_and(|callee| holds_barrier[*callee]);
        // Up to the next barrier, the source itself included when a loop comes back to it.
        if barrier && !starting {
            continue;
        }
        stack.extend(index.following(n));
    }
    false
}
