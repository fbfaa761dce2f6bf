//! Integers as the threads of a block see them ([`Val`]: one constant, one value per thread
//! index, or the same unknown value everywhere) and the arithmetic of the IR on them, wrapping
//! at the value's width as the IR's integers do.

use std::rc::Rc;

use crate::ir::mir::arith::{BinOpKind, CmpPredicate};

/// A value as seen by the threads of a block.
#[derive(Clone, Debug)]
pub(crate) enum Val {
    /// The same known integer in every thread.
    Const(i64),
    /// One integer per thread index.
    Threads(Rc<Vec<i64>>),
    /// The same (unknown) value in every thread.
    Uniform,
    /// Not known, and possibly different per thread.
    Unknown,
}

/// `v` as an unsigned integer of `width` bits holds it (the IR's integers wrap).
pub(crate) fn wrap_to(width: u32, v: i64) -> i64 {
    if width >= 64 { v } else { v & ((1i64 << width) - 1) }
}

/// `x kind y` on values already wrapped to their width (the caller wraps the result); `None`
/// where the operation has no value (division by zero, a shift past 63).
pub(crate) fn apply_binop(kind: BinOpKind, x: i64, y: i64) -> Option<i64> {
    Some(match kind {
        BinOpKind::Add => x.wrapping_add(y),
        BinOpKind::Sub => x.wrapping_sub(y),
        BinOpKind::Mul => x.wrapping_mul(y),
        BinOpKind::Div => x.checked_div(y)?,
        BinOpKind::Rem => x.checked_rem(y)?,
        BinOpKind::BitAnd => x & y,
        BinOpKind::BitOr => x | y,
        BinOpKind::BitXor => x ^ y,
        BinOpKind::Shl => x.checked_shl(u32::try_from(y).ok()?)?,
        BinOpKind::Shr => x.checked_shr(u32::try_from(y).ok()?)?,
    })
}

pub(crate) fn map1(a: Val, f: impl Fn(i64) -> i64) -> Val {
    match a {
        Val::Const(x) => Val::Const(f(x)),
        Val::Threads(xs) => Val::Threads(Rc::new(xs.iter().map(|x| f(*x)).collect())),
        other => other,
    }
}

pub(crate) fn map2(a: Val, b: Val, f: impl Fn(i64, i64) -> Option<i64>) -> Val {
    match (a, b) {
        (Val::Const(x), Val::Const(y)) => f(x, y).map_or(Val::Unknown, Val::Const),
        (Val::Threads(xs), Val::Const(y)) => collect(xs.iter().map(|x| f(*x, y))),
        (Val::Const(x), Val::Threads(ys)) => collect(ys.iter().map(|y| f(x, *y))),
        (Val::Threads(xs), Val::Threads(ys)) => collect(xs.iter().zip(ys.iter()).map(|(x, y)| f(*x, *y))),
        (a, b) => without_numbers(&a, &b),
    }
}

/// Two operands combined where one of them is no number (uniform or unknown): unknown if
/// either is, or where a per-thread value meets a uniform one (which thread holds what is then
/// not known); otherwise the same, unknown value in every thread.
fn without_numbers(a: &Val, b: &Val) -> Val {
    match (a, b) {
        (Val::Unknown, _) | (_, Val::Unknown) => Val::Unknown,
        (Val::Threads(_), Val::Uniform) | (Val::Uniform, Val::Threads(_)) => Val::Unknown,
        _ => Val::Uniform,
    }
}

/// [`map2`] for an `f` defined on every pair: one plain loop over the threads, which the
/// compiler vectorises (a block of 1024 threads makes these loops the thread model's hot spot).
fn map2_total(a: Val, b: Val, f: impl Fn(i64, i64) -> i64) -> Val {
    let per_thread = |values: Vec<i64>| Val::Threads(Rc::new(values));
    match (a, b) {
        (Val::Const(x), Val::Const(y)) => Val::Const(f(x, y)),
        (Val::Threads(xs), Val::Const(y)) => per_thread(xs.iter().map(|x| f(*x, y)).collect()),
        (Val::Const(x), Val::Threads(ys)) => per_thread(ys.iter().map(|y| f(x, *y)).collect()),
        (Val::Threads(xs), Val::Threads(ys)) => {
            per_thread(xs.iter().zip(ys.iter()).map(|(x, y)| f(*x, *y)).collect())
        }
        (a, b) => without_numbers(&a, &b),
    }
}

/// `a kind b` wrapped to `width` bits, as [`apply_binop`] and [`wrap_to`] give it, in every
/// thread; the operations defined on every pair in a loop of their own.
pub(crate) fn binop_per_thread(kind: BinOpKind, width: u32, a: Val, b: Val) -> Val {
    let mask = if width >= 64 { -1 } else { (1i64 << width).wrapping_sub(1) };
    match kind {
        BinOpKind::Add => map2_total(a, b, |x, y| x.wrapping_add(y) & mask),
        BinOpKind::Sub => map2_total(a, b, |x, y| x.wrapping_sub(y) & mask),
        BinOpKind::Mul => map2_total(a, b, |x, y| x.wrapping_mul(y) & mask),
        BinOpKind::BitAnd => map2_total(a, b, |x, y| x & y & mask),
        BinOpKind::BitOr => map2_total(a, b, |x, y| (x | y) & mask),
        BinOpKind::BitXor => map2_total(a, b, |x, y| (x ^ y) & mask),
        // By a constant that cannot fail (`tid / 32`, `tid % 32`, `tid >> 5`), the checked
        // operation is the plain one for every `x`; otherwise a thread's failure makes the
        // value unknown.
        BinOpKind::Div | BinOpKind::Rem | BinOpKind::Shl | BinOpKind::Shr => match (kind, &b) {
            (BinOpKind::Div, Val::Const(y)) if *y != 0 && *y != -1 => map2_total(a, b, |x, y| (x / y) & mask),
            (BinOpKind::Rem, Val::Const(y)) if *y != 0 && *y != -1 => map2_total(a, b, |x, y| (x % y) & mask),
            (BinOpKind::Shl, Val::Const(0..=63)) => map2_total(a, b, |x, y| (x << y) & mask),
            (BinOpKind::Shr, Val::Const(0..=63)) => map2_total(a, b, |x, y| (x >> y) & mask),
            _ => map2(a, b, |x, y| Some(apply_binop(kind, x, y)? & mask)),
        },
    }
}

/// `a predicate b` (1 or 0) in every thread.
pub(crate) fn cmp_per_thread(predicate: CmpPredicate, a: Val, b: Val) -> Val {
    match predicate {
        CmpPredicate::Eq => map2_total(a, b, |x, y| i64::from(x == y)),
        CmpPredicate::Ne => map2_total(a, b, |x, y| i64::from(x != y)),
        CmpPredicate::Lt => map2_total(a, b, |x, y| i64::from(x < y)),
        CmpPredicate::Le => map2_total(a, b, |x, y| i64::from(x <= y)),
        CmpPredicate::Gt => map2_total(a, b, |x, y| i64::from(x > y)),
        CmpPredicate::Ge => map2_total(a, b, |x, y| i64::from(x >= y)),
    }
}

fn collect(values: impl Iterator<Item = Option<i64>>) -> Val {
    values.collect::<Option<Vec<i64>>>().map_or(Val::Unknown, |v| Val::Threads(Rc::new(v)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KINDS: [BinOpKind; 10] = [
        BinOpKind::Add,
        BinOpKind::Sub,
        BinOpKind::Mul,
        BinOpKind::Div,
        BinOpKind::Rem,
        BinOpKind::BitAnd,
        BinOpKind::BitOr,
        BinOpKind::BitXor,
        BinOpKind::Shl,
        BinOpKind::Shr,
    ];
    const SAMPLES: [i64; 12] = [0, 1, -1, 2, 5, 31, 32, 63, 64, 1 << 40, i64::MAX, i64::MIN];

    /// Thread `t` of a block of `SAMPLES.len()` holds `SAMPLES[t]`.
    fn per_thread(values: &[i64]) -> Val {
        Val::Threads(Rc::new(values.to_vec()))
    }

    /// What the thread rules computed before the loops of their own: the checked operation,
    /// wrapped, thread by thread, one failure making the whole value unknown.
    fn thread_by_thread(kind: BinOpKind, width: u32, xs: &[i64], y: i64) -> Option<Vec<i64>> {
        xs.iter().map(|x| Some(wrap_to(width, apply_binop(kind, *x, y)?))).collect()
    }

    #[test]
    fn every_operation_by_a_constant_gives_each_thread_what_the_checked_operation_gives_it() {
        for kind in KINDS {
            for width in [1, 8, 16, 32, 64] {
                for y in SAMPLES {
                    let got = binop_per_thread(kind, width, per_thread(&SAMPLES), Val::Const(y));
                    match (thread_by_thread(kind, width, &SAMPLES, y), got) {
                        (Some(expected), Val::Threads(values)) => {
                            assert_eq!(*values, expected, "{kind:?} by {y} at {width} bits")
                        }
                        (None, Val::Unknown) => {}
                        (expected, got) => {
                            panic!("{kind:?} by {y} at {width} bits: {expected:?}, got {got:?}")
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn comparisons_give_one_or_zero_in_each_thread_and_stay_constant_on_constants() {
        let xs = per_thread(&[3, 4, 5]);
        let Val::Threads(lt) = cmp_per_thread(CmpPredicate::Lt, xs.clone(), Val::Const(4)) else { panic!() };
        assert_eq!(*lt, vec![1, 0, 0]);
        let Val::Threads(ge) = cmp_per_thread(CmpPredicate::Ge, xs, Val::Const(4)) else { panic!() };
        assert_eq!(*ge, vec![0, 1, 1]);
        assert!(matches!(cmp_per_thread(CmpPredicate::Eq, Val::Const(2), Val::Const(2)), Val::Const(1)));
        assert!(matches!(cmp_per_thread(CmpPredicate::Ne, Val::Uniform, Val::Const(2)), Val::Uniform));
        assert!(matches!(cmp_per_thread(CmpPredicate::Ne, per_thread(&[1]), Val::Uniform), Val::Unknown));
    }
}
