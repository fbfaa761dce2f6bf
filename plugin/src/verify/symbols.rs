//! Uniform variables read as one value per interval: the stride of a tree reduction (`half /= 2`
//! between barriers), a buffer toggled by a flag. The thread model knows such a variable only as
//! *uniform* (the same in every thread, value unknown), which leaves an index like `tid + half`
//! unknown per thread. Within one interval between block barriers, though, every thread reads
//! the same value of it, provided no store to it can run between two of the interval's reads:
//! then the race check may compare the interval's accesses once for each value the variable can
//! hold, as if it were that constant.
//!
//! What makes that sound, each checked here or by the caller:
//! - the variable is a local of the kernel function (a helper's local is a new variable at every
//!   call, and two calls may run in one interval), and each load read as the value is one the
//!   thread model shows uniform;
//! - no store to it is reachable from an access that reads it without passing a barrier (the
//!   caller walks each such access's interval): every thread has run all of the interval's
//!   stores before its first access, and they are the same stores in every thread (uniform);
//! - the values tried are all it can hold: the closure of its constant stores under its updates
//!   (`v / 2`, `v << 1`, `v ^ 1`, `v + c`, … on its own width), at most [`MAX_VALUES`] of
//!   them; a variable stored anything else (a value read from memory, a thread index) is not
//!   one of these.

use pliron::builtin::types::{IntegerType, Signedness};
use pliron::{context::Context, operation::Operation, r#type::Typed, value::Value};
use rustc_hash::{FxHashMap, FxHashSet};

use super::{
    index::ScopeIndex,
    locals::local_slot,
    memory::{LocalStores, constant_value},
    progression::Place,
    thread_model::{ThreadModel, Val, apply_binop},
};
use crate::ir::mir::{
    arith::{BinOp, BinOpKind},
    int_width,
    memory::{LoadOp, StoreOp},
};

/// Values one variable may hold, at most.
const MAX_VALUES: usize = 64;
/// Assignments of values to the variables of one interval, at most.
const MAX_COMBINATIONS: usize = 256;
/// Definitions looked through for a constant operand of an update.
const CONSTANT_DEPTH: u32 = 4;

/// The variables an interval's unknown accesses read, with the values each may hold and the
/// operations storing them.
pub(crate) struct Variables {
    values: Vec<(Place, Vec<i64>)>,
    /// Operation numbers of every store to any of them.
    pub stores: FxHashSet<usize>,
}

impl Variables {
    /// The variables of `places` (each with one of its loads), or `None` when one of them is not
    /// a local of the kernel stored only constants and updates of itself (module doc).
    pub(crate) fn of(
        ctx: &Context,
        index: &ScopeIndex,
        locals: &LocalStores,
        model: &ThreadModel,
        places: &FxHashMap<Place, Value>,
    ) -> Option<Variables> {
        let mut variables = Variables { values: Vec::new(), stores: FxHashSet::default() };
        for (place, load) in places {
            let alloca = place.0.defining_op()?;
            let in_kernel =
                index.op_number.get(&alloca).is_some_and(|n| index.block_function[index.op_block[*n]] == 0);
            if !in_kernel {
                return None;
            }
            variables.values.push((place.clone(), closure(ctx, locals, model, place, *load)?));
            variables.stores.extend(stores_to(ctx, index, place));
        }
        Some(variables)
    }

    /// Every assignment of a value to each variable; `None` past [`MAX_COMBINATIONS`].
    pub(crate) fn assignments(&self) -> Option<Vec<FxHashMap<Place, i64>>> {
        let mut assignments = vec![FxHashMap::default()];
        for (place, values) in &self.values {
            if assignments.len().saturating_mul(values.len()) > MAX_COMBINATIONS {
                return None;
            }
            assignments = assignments
                .into_iter()
                .flat_map(|assignment: FxHashMap<Place, i64>| {
                    values.iter().map(move |value| {
                        let mut next = assignment.clone();
                        next.insert(place.clone(), *value);
                        next
                    })
                })
                .collect();
        }
        Some(assignments)
    }
}

/// The values `place` may hold: its constant stores, closed under its updates of itself.
fn closure(
    ctx: &Context,
    locals: &LocalStores,
    model: &ThreadModel,
    place: &Place,
    load: Value,
) -> Option<Vec<i64>> {
    let slot = load.defining_op()?.deref(ctx).get_operand(0);
    let width = int_width(ctx, load.get_type(ctx))?;
    // Signed division and shifts round differently from the unsigned arithmetic used here.
    let unsigned = load
        .get_type(ctx)
        .deref(ctx)
        .downcast_ref::<IntegerType>()
        .is_some_and(|int| int.signedness() == Signedness::Unsigned);
    if !unsigned {
        return None;
    }
    let wrap = |v: i64| if width >= 64 { v } else { v & ((1i64 << width) - 1) };
    let reads_itself = |v: Value| {
        v.defining_op().is_some_and(|read| {
            Operation::get_op::<LoadOp>(read, ctx).is_some()
                && local_slot(ctx, read.deref(ctx).get_operand(0)).as_ref() == Some(place)
        })
    };
    let mut values: Vec<i64> = Vec::new();
    // An update: `v kind c`, or `c kind v` when `swapped`.
    let mut updates: Vec<(BinOpKind, i64, bool)> = Vec::new();
    for (stored, _) in locals.stores_into(ctx, slot)? {
        if let Val::Const(c) = model.eval(stored, &FxHashMap::default()) {
            values.push(wrap(c));
            continue;
        }
        let def = stored.defining_op()?;
        let kind = Operation::get_op::<BinOp>(def, ctx)?.kind(ctx)?;
        let (a, b) = {
            let operation = def.deref(ctx);
            (operation.get_operand(0), operation.get_operand(1))
        };
        if reads_itself(a) {
            updates.push((kind, constant_value(ctx, b, CONSTANT_DEPTH)?, false));
        } else if reads_itself(b) {
            updates.push((kind, constant_value(ctx, a, CONSTANT_DEPTH)?, true));
        } else {
            return None;
        }
    }
    let mut seen: FxHashSet<i64> = values.iter().copied().collect();
    let mut next = 0;
    while next < values.len() {
        let value = values[next];
        next += 1;
        for (kind, c, swapped) in &updates {
            let (x, y) = if *swapped { (wrap(*c), value) } else { (value, wrap(*c)) };
            // An update with no value (a division by zero) traps: no value follows it.
            let Some(updated) = apply_binop(*kind, x, y).map(wrap) else { continue };
            if seen.insert(updated) {
                values.push(updated);
                if values.len() > MAX_VALUES {
                    return None;
                }
            }
        }
    }
    Some(values)
}

/// The stores to `place` in the kernel function (operation numbers).
fn stores_to(ctx: &Context, index: &ScopeIndex, place: &Place) -> Vec<usize> {
    index.blocks_of[0]
        .clone()
        .flat_map(|b| index.ops_of_block[b].clone())
        .filter(|n| {
            let op = index.ops[*n];
            Operation::get_op::<StoreOp>(op, ctx).is_some()
                && local_slot(ctx, op.deref(ctx).get_operand(1)).as_ref() == Some(place)
        })
        .collect()
}
