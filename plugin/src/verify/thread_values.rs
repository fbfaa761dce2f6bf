//! Integers as the threads of a block see them ([`Val`]: one constant, one value per thread
//! index, or the same unknown value everywhere) and the arithmetic of the IR on them, wrapping
//! at the value's width as the IR's integers do.

use std::rc::Rc;

use pliron::builtin::types::{IntegerType, Signedness};
use pliron::context::Context;
use pliron::r#type::TypeHandle;

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

/// An integer type as its arithmetic needs it: the width its values wrap at, and whether Rust
/// reads its bits as signed (`iN`) or unsigned (`uN`). Values are kept wrapped ([`wrap_to`]):
/// the bits are the same either way, but division, remainder, right shift, comparison and
/// widening differ, and those read the value through [`IntType::value_of`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IntType {
    pub width: u32,
    pub signed: bool,
}

impl IntType {
    /// The integer type `ty` is, if it is one (the import gives every integer Rust's
    /// signedness; a signless one is read as unsigned).
    pub(crate) fn of(ctx: &Context, ty: TypeHandle) -> Option<IntType> {
        let ty = ty.deref(ctx);
        let int = ty.downcast_ref::<IntegerType>()?;
        Some(IntType { width: int.width(), signed: int.signedness() == Signedness::Signed })
    }

    pub(crate) const fn unsigned(width: u32) -> IntType {
        IntType { width, signed: false }
    }

    #[cfg(test)]
    pub(crate) const fn signed(width: u32) -> IntType {
        IntType { width, signed: true }
    }

    /// The integer the wrapped bits `v` stand for: sign-extended from the width when signed.
    /// (An unsigned 64-bit value past `i64::MAX` stays negative here; [`IntType::compare`] and
    /// [`apply_int`] read those as `u64`.)
    pub(crate) fn value_of(self, v: i64) -> i64 {
        if self.signed && self.width < 64 {
            let unused = 64 - self.width;
            (v << unused) >> unused
        } else {
            v
        }
    }

    /// `x predicate y` on two wrapped values of this type, as Rust compares them.
    pub(crate) fn compare(self, predicate: CmpPredicate, x: i64, y: i64) -> bool {
        let ordering = if self.signed || self.width < 64 {
            self.value_of(x).cmp(&self.value_of(y))
        } else {
            (x as u64).cmp(&(y as u64))
        };
        match predicate {
            CmpPredicate::Eq => ordering.is_eq(),
            CmpPredicate::Ne => ordering.is_ne(),
            CmpPredicate::Lt => ordering.is_lt(),
            CmpPredicate::Le => ordering.is_le(),
            CmpPredicate::Gt => ordering.is_gt(),
            CmpPredicate::Ge => ordering.is_ge(),
        }
    }
}

/// `x kind y` on two wrapped values of type `int`, as Rust's MIR means it, wrapped again;
/// `None` where the operation has no value (division by zero, a shift past the width's
/// 64 bits). Signed division and remainder round toward zero, a signed right shift is
/// arithmetic; the unsigned ones read 64-bit values as `u64`.
pub(crate) fn apply_int(kind: BinOpKind, int: IntType, x: i64, y: i64) -> Option<i64> {
    let result = match kind {
        BinOpKind::Div | BinOpKind::Rem | BinOpKind::Shr if !int.signed && int.width >= 64 => {
            let (x, y) = (x as u64, y as u64);
            (match kind {
                BinOpKind::Div => x.checked_div(y)?,
                BinOpKind::Rem => x.checked_rem(y)?,
                _ => x.checked_shr(u32::try_from(y).ok()?)?,
            }) as i64
        }
        BinOpKind::Div | BinOpKind::Rem | BinOpKind::Shr => {
            apply_binop(kind, int.value_of(x), int.value_of(y))?
        }
        _ => apply_binop(kind, x, y)?,
    };
    Some(wrap_to(int.width, result))
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

/// `a kind b` on values of type `int`, as [`apply_int`] gives it, in every thread; the
/// operations defined on every pair in a loop of their own.
pub(crate) fn binop_per_thread(kind: BinOpKind, int: IntType, a: Val, b: Val) -> Val {
    let width = int.width;
    let mask = if width >= 64 { -1 } else { (1i64 << width).wrapping_sub(1) };
    // Division, remainder and right shift read the operands' sign: the loops below are the
    // unsigned ones, valid where the type is unsigned and narrower than 64 bits.
    if matches!(kind, BinOpKind::Div | BinOpKind::Rem | BinOpKind::Shr) && (int.signed || width >= 64) {
        return map2(a, b, |x, y| apply_int(kind, int, x, y));
    }
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

/// `a predicate b` (1 or 0) in every thread, on values of type `int` (the operands').
pub(crate) fn cmp_per_thread(predicate: CmpPredicate, int: IntType, a: Val, b: Val) -> Val {
    // Equality reads no sign; the orderings of an unsigned type narrower than 64 bits are those
    // of its wrapped values, which are never negative.
    let plain = matches!(predicate, CmpPredicate::Eq | CmpPredicate::Ne) || (!int.signed && int.width < 64);
    if !plain {
        return map2_total(a, b, |x, y| i64::from(int.compare(predicate, x, y)));
    }
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

    /// The operation applied thread by thread, one failure making the whole value unknown.
    fn thread_by_thread(kind: BinOpKind, int: IntType, xs: &[i64], y: i64) -> Option<Vec<i64>> {
        xs.iter().map(|x| apply_int(kind, int, *x, y)).collect()
    }

    #[test]
    fn every_operation_by_a_constant_gives_each_thread_what_the_checked_operation_gives_it() {
        let types = [1, 8, 16, 32, 64].into_iter().flat_map(|w| [IntType::unsigned(w), IntType::signed(w)]);
        for kind in KINDS {
            for int in types.clone() {
                let width = int.width;
                let wrapped: Vec<i64> = SAMPLES.iter().map(|x| wrap_to(width, *x)).collect();
                for y in SAMPLES.map(|y| wrap_to(width, y)) {
                    let got = binop_per_thread(kind, int, per_thread(&wrapped), Val::Const(y));
                    match (thread_by_thread(kind, int, &wrapped, y), got) {
                        (Some(expected), Val::Threads(values)) => {
                            assert_eq!(*values, expected, "{kind:?} by {y} on {int:?}")
                        }
                        (None, Val::Unknown) => {}
                        (expected, got) => {
                            panic!("{kind:?} by {y} on {int:?}: {expected:?}, got {got:?}")
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn comparisons_give_one_or_zero_in_each_thread_and_stay_constant_on_constants() {
        let xs = per_thread(&[3, 4, 5]);
        let u32_ = IntType::unsigned(32);
        let Val::Threads(lt) = cmp_per_thread(CmpPredicate::Lt, u32_, xs.clone(), Val::Const(4)) else {
            panic!()
        };
        assert_eq!(*lt, vec![1, 0, 0]);
        let Val::Threads(ge) = cmp_per_thread(CmpPredicate::Ge, u32_, xs, Val::Const(4)) else { panic!() };
        assert_eq!(*ge, vec![0, 1, 1]);
        assert!(matches!(
            cmp_per_thread(CmpPredicate::Eq, u32_, Val::Const(2), Val::Const(2)),
            Val::Const(1)
        ));
        assert!(matches!(cmp_per_thread(CmpPredicate::Ne, u32_, Val::Uniform, Val::Const(2)), Val::Uniform));
        assert!(matches!(
            cmp_per_thread(CmpPredicate::Ne, u32_, per_thread(&[1]), Val::Uniform),
            Val::Unknown
        ));
    }

    /// `tid as i32 - 32` in threads 0, 31, 32 and 63 of a block, as the IR holds it (wrapped).
    fn signed_lanes() -> Val {
        per_thread(&[-32, -1, 0, 31].map(|v| wrap_to(32, v)))
    }

    #[test]
    fn signed_comparisons_read_the_sign_and_unsigned_ones_do_not() {
        let Val::Threads(nonnegative) =
            cmp_per_thread(CmpPredicate::Ge, IntType::signed(32), signed_lanes(), Val::Const(0))
        else {
            panic!()
        };
        assert_eq!(*nonnegative, vec![0, 0, 1, 1], "lane >= 0 on i32");
        let Val::Threads(below) =
            cmp_per_thread(CmpPredicate::Lt, IntType::signed(32), signed_lanes(), Val::Const(1))
        else {
            panic!()
        };
        assert_eq!(*below, vec![1, 1, 1, 0], "lane < 1 on i32");
        // The same bits as u32: every lane is at least 0, and only lane 0 is below 1.
        let Val::Threads(unsigned) =
            cmp_per_thread(CmpPredicate::Lt, IntType::unsigned(32), signed_lanes(), Val::Const(1))
        else {
            panic!()
        };
        assert_eq!(*unsigned, vec![0, 0, 1, 0]);
        // u64 past i64::MAX is large, not negative.
        assert!(IntType::unsigned(64).compare(CmpPredicate::Gt, u64::MAX as i64, 1));
        assert!(IntType::signed(64).compare(CmpPredicate::Lt, -1, 1));
    }

    #[test]
    fn signed_division_remainder_and_shift_round_as_rust_does() {
        let i32_ = IntType::signed(32);
        let at = |kind, x: i64, y: i64| {
            apply_int(kind, i32_, wrap_to(32, x), wrap_to(32, y)).map(|r| i32_.value_of(r))
        };
        assert_eq!(at(BinOpKind::Div, -7, 2), Some(-3), "toward zero");
        assert_eq!(at(BinOpKind::Rem, -7, 2), Some(-1));
        assert_eq!(at(BinOpKind::Shr, -8, 1), Some(-4), "arithmetic shift");
        assert_eq!(at(BinOpKind::Div, 7, 0), None);
        let u32_ = IntType::unsigned(32);
        assert_eq!(apply_int(BinOpKind::Div, u32_, wrap_to(32, -7), 2), Some(0x7fff_fffc));
        assert_eq!(apply_int(BinOpKind::Shr, IntType::unsigned(64), -8, 1), Some(0x7fff_ffff_ffff_fffc));
        // Per thread: (tid - 32) / 8 on i32.
        let Val::Threads(quotients) = binop_per_thread(BinOpKind::Div, i32_, signed_lanes(), Val::Const(8))
        else {
            panic!()
        };
        let quotients: Vec<i64> = quotients.iter().map(|q| i32_.value_of(*q)).collect();
        assert_eq!(quotients, vec![-4, 0, 0, 3]);
    }
}
