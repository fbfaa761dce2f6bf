//! Integers as the threads of a block see them ([`Val`]: one constant, one value per thread
//! index, or the same unknown value everywhere) and the arithmetic of the IR on them, wrapping
//! at the value's width as the IR's integers do.

use std::rc::Rc;

use crate::ir::mir::arith::BinOpKind;

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
        (Val::Unknown, _) | (_, Val::Unknown) => Val::Unknown,
        (Val::Threads(_), Val::Uniform) | (Val::Uniform, Val::Threads(_)) => Val::Unknown,
        (Val::Uniform, _) | (_, Val::Uniform) => Val::Uniform,
        (Val::Const(x), Val::Const(y)) => f(x, y).map_or(Val::Unknown, Val::Const),
        (Val::Threads(xs), Val::Const(y)) => collect(xs.iter().map(|x| f(*x, y))),
        (Val::Const(x), Val::Threads(ys)) => collect(ys.iter().map(|y| f(x, *y))),
        (Val::Threads(xs), Val::Threads(ys)) => collect(xs.iter().zip(ys.iter()).map(|(x, y)| f(*x, *y))),
    }
}

fn collect(values: impl Iterator<Item = Option<i64>>) -> Val {
    values.collect::<Option<Vec<i64>>>().map_or(Val::Unknown, |v| Val::Threads(Rc::new(v)))
}
