//! A tile loop whose advance runs only in some passes, under a test on the loop's counter: a
//! second ring fed every other tile (`while t < tiles { …A…; if t + step < tiles { …B… };
//! t += 2 · step }`), or a block's own tiles picked out of all of them (`for t in 0..tiles {
//! if t % g != b { continue } … }`). The passes that advance are those where `iv + offset <
//! bound` holds, or where `(iv + offset) % modulus` equals (or differs from) `residue`, so two
//! such loops with equal start, step, bound and guard advance equally often; the rule compares
//! nothing else about them.

use pliron::{context::Context, operation::Operation, printable::Printable, r#type::Typed, value::Value};

use super::forms::{Induction, linear};
use super::linear::{Atom, Linear};
use super::stores::Stores;
use super::{Guard, MAX_READS, TileLoop, as_less_than};
use crate::ir::mir::{
    arith::{BinOp, BinOpKind, CmpOp, CmpPredicate},
    control::CondBrOp,
};
use crate::verify::index::ScopeIndex;

/// The guard of `found`'s advance (in block `advance`; the loop's condition ends block
/// `header`): a conditional branch inside the loop that every pass reaches, one edge of which
/// always runs the advance once before the header and the other never, whose test reads the
/// counter before the pass changes it, as `iv + offset < bound` or as a remainder of `iv +
/// offset` compared for equality. `None` where there is no such branch, or its test is not of
/// those forms.
pub(super) fn guard(
    ctx: &Context,
    index: &ScopeIndex,
    stores: &Stores,
    (header, advance): (usize, usize),
    found: &TileLoop,
) -> Option<Guard> {
    let counter = found.counter.clone()?;
    let cycles = index.cycles();
    let inside = |b: usize| cycles.together(b, header);
    let f = index.block_function[header];
    // The advance runs at most once per pass: it is on no cycle of the loop that avoids the header.
    let after_advance: Vec<usize> = index.succs[advance].iter().copied().filter(|b| inside(*b)).collect();
    if index.path_exists(&after_advance, advance, usize::MAX, |b| b != header && inside(b)) != Some(false) {
        return None;
    }
    let from_header: Vec<usize> = index.succs[header].iter().copied().filter(|b| inside(*b)).collect();
    // The blocks that store the counter (the function's store table, whole-struct stores that
    // write it included): the guard must read it before any of them runs.
    let counter_stores: &[usize] = stores.blocks.get(&counter).map_or(&[], Vec::as_slice);
    for g in index.blocks_of[f].clone().filter(|b| *b != header && *b != advance && inside(*b)) {
        let Some(n) = index.ops_of_block[g].clone().last() else { continue };
        if Operation::get_op::<CondBrOp>(index.ops[n], ctx).is_none() {
            continue;
        }
        let (condition, targets) = {
            let operation = index.ops[n].deref(ctx);
            (operation.get_operand(0), [operation.get_successor(0), operation.get_successor(1)])
        };
        let [Some(&yes), Some(&no)] = targets.map(|target| index.block_number.get(&target)) else { continue };
        if !inside(yes) || !inside(no) {
            continue;
        }
        // Every pass reaches the guard, and reads the counter there before any store to it.
        let around_guard = |b: usize| b != g && inside(b);
        if index.path_exists(&from_header, header, usize::MAX, around_guard) != Some(false) {
            continue;
        }
        let stored_before = counter_stores.iter().any(|s| {
            *s == g
                || *s == header
                || index.path_exists(&from_header, *s, usize::MAX, around_guard) != Some(false)
        });
        if stored_before {
            continue;
        }
        // One edge runs the advance on every way back to the header, the other on none.
        let runs_advance = |to: usize| {
            to == advance
                || index.path_exists(&[to], header, usize::MAX, |b| b != advance && inside(b)) == Some(false)
        };
        let skips_advance = |to: usize| {
            index.path_exists(&[to], advance, usize::MAX, |b| b != header && inside(b)) == Some(false)
        };
        let advance_when = if runs_advance(yes) && skips_advance(no) {
            true
        } else if runs_advance(no) && skips_advance(yes) {
            false
        } else {
            continue;
        };
        return read_guard(ctx, stores, condition, advance_when, header, found);
    }
    None
}

/// The test `condition` (the advance running where it is `advance_when`) as a [`Guard`], the
/// counter being `found`'s.
fn read_guard(
    ctx: &Context,
    stores: &Stores,
    condition: Value,
    advance_when: bool,
    header: usize,
    found: &TileLoop,
) -> Option<Guard> {
    let compare = condition.defining_op()?;
    let predicate = *Operation::get_op::<CmpOp>(compare, ctx)?.get_attr_cmp_predicate(ctx)?;
    let (lhs, rhs) = {
        let operation = compare.deref(ctx);
        (operation.get_operand(0), operation.get_operand(1))
    };
    let mut iv = Induction {
        header: Some(header),
        slot: found.counter.clone(),
        start: Some(found.start.clone()),
        step: Some(found.step.clone()),
    };
    let mut budget = MAX_READS;
    if matches!(predicate, CmpPredicate::Eq | CmpPredicate::Ne) {
        let advance_if_equal = (predicate == CmpPredicate::Eq) == advance_when;
        return [(lhs, rhs), (rhs, lhs)]
            .into_iter()
            .find_map(|(remainder, other)| residue(ctx, stores, (remainder, other), &mut iv, &mut budget))
            .map(|(offset, modulus, residue, ty)| Guard::Residue {
                offset,
                modulus,
                residue,
                ty,
                advance_if_equal,
            });
    }
    let x = linear(ctx, stores, lhs, &mut iv, &mut budget)?;
    let y = linear(ctx, stores, rhs, &mut iv, &mut budget)?;
    let (x, y, inclusive) = as_less_than(predicate, advance_when, x, y)?;
    if x.iv() != 1 || y.iv() != 0 {
        return None;
    }
    let offset = x.plus(&Linear::atom(Atom::Iv), -1);
    let mut bound = y;
    if inclusive {
        bound.constant += 1;
    }
    Some(Guard::Below { offset, bound })
}

/// `remainder` as `(iv + offset) % modulus` and `other` as a form without the counter: the
/// offset, the modulus, `other` and the remainder's type.
fn residue(
    ctx: &Context,
    stores: &Stores,
    (remainder, other): (Value, Value),
    iv: &mut Induction,
    budget: &mut u32,
) -> Option<(Linear, Linear, Linear, String)> {
    let operation = remainder.defining_op()?;
    if Operation::get_op::<BinOp>(operation, ctx)?.kind(ctx)? != BinOpKind::Rem {
        return None;
    }
    let (dividend, divisor) = {
        let operation = operation.deref(ctx);
        (operation.get_operand(0), operation.get_operand(1))
    };
    let x = linear(ctx, stores, dividend, iv, budget)?;
    let modulus = linear(ctx, stores, divisor, iv, budget)?;
    let other = linear(ctx, stores, other, iv, budget)?;
    if x.iv() != 1 || modulus.iv() != 0 || other.iv() != 0 {
        return None;
    }
    let ty = remainder.get_type(ctx).disp(ctx).to_string();
    Some((x.plus(&Linear::atom(Atom::Iv), -1), modulus, other, ty))
}
