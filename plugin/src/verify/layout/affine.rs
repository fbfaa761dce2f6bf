//! Affine forms of shared-window addresses and their arithmetic: what the layout evaluator
//! reads every address as (see the parent module's doc).

use pliron::{context::Context, r#type::Typed, value::Value};

use super::super::{
    StateId,
    thread_values::{apply_binop, wrap_to},
};
use crate::ir::mir::{arith::BinOpKind, int_width};

/// `window·w + coefficient·index(state) + [lo, hi]`, where `window` is the window's address
/// rounded up to a multiple of `rounding` (1: the address itself; a ring aligned for a swizzle
/// starts at `(window + 1023) & !1023`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Affine {
    pub(super) window: i64,
    pub(super) index: Option<(StateId, i64)>,
    pub(super) lo: i64,
    pub(super) hi: i64,
    pub(super) rounding: i64,
}

impl Affine {
    pub(super) fn constant(value: i64) -> Affine {
        Affine { window: 0, index: None, lo: value, hi: value, rounding: 1 }
    }

    pub(super) fn window(rounding: i64) -> Affine {
        Affine { window: 1, index: None, lo: 0, hi: 0, rounding }
    }

    pub(super) fn is_constant(&self) -> bool {
        self.window == 0 && self.index.is_none()
    }
}

/// The one form all of `forms` are, if every one is known and they agree (and there is at
/// least one).
pub(super) fn agreed(forms: impl Iterator<Item = Option<Affine>>) -> Option<Affine> {
    let mut agreed = None;
    for form in forms {
        let form = form?;
        match agreed {
            None => agreed = Some(form),
            Some(seen) if seen == form => {}
            Some(_) => return None,
        }
    }
    agreed
}

pub(super) fn add(a: Affine, b: Affine) -> Option<Affine> {
    let index = match (a.index, b.index) {
        (None, other) | (other, None) => other,
        (Some((s, k)), Some((t, l))) if s == t => Some((s, k.checked_add(l)?)),
        _ => return None,
    };
    // Offsets from two differently rounded windows do not add up to one form.
    let rounding = match (a.window, b.window) {
        (0, _) => b.rounding,
        (_, 0) => a.rounding,
        _ if a.rounding == b.rounding => a.rounding,
        _ => return None,
    };
    Some(Affine {
        window: a.window + b.window,
        index,
        lo: a.lo.checked_add(b.lo)?,
        hi: a.hi.checked_add(b.hi)?,
        rounding,
    })
}

pub(super) fn scale(a: Affine, k: i64) -> Option<Affine> {
    let (lo, hi) = (a.lo.checked_mul(k)?, a.hi.checked_mul(k)?);
    Some(Affine {
        window: a.window.checked_mul(k)?,
        index: match a.index {
            Some((state, coefficient)) => Some((state, coefficient.checked_mul(k)?)),
            None => None,
        },
        lo: lo.min(hi),
        hi: lo.max(hi),
        rounding: a.rounding,
    })
}

/// `a & b`, `a | b` or `a ^ b` of two non-negative constants on `value`'s unsigned width (a mask
/// `!(A - 1)`).
pub(super) fn bitwise_constant(
    ctx: &Context,
    value: Value,
    kind: BinOpKind,
    a: Affine,
    b: Affine,
) -> Option<i64> {
    if !matches!(kind, BinOpKind::BitAnd | BinOpKind::BitOr | BinOpKind::BitXor) {
        return None;
    }
    let exact = |form: Affine| (form.is_constant() && form.lo == form.hi && form.lo >= 0).then_some(form.lo);
    let width = int_width(ctx, value.get_type(ctx))?;
    Some(wrap_to(width, apply_binop(kind, exact(a)?, exact(b)?)?))
}

/// `a / k` when every part of `a` is a non-negative multiple of `k`, so that no rounding (and
/// no difference between signed and unsigned division) can occur.
pub(super) fn divide_exactly(a: Affine, k: i64) -> Option<Affine> {
    let divides = |v: i64| v >= 0 && v % k == 0;
    let index = match a.index {
        Some((state, coefficient)) if divides(coefficient) => Some((state, coefficient / k)),
        Some(_) => return None,
        None => None,
    };
    (a.window == 0 && divides(a.lo) && divides(a.hi)).then_some(Affine {
        index,
        lo: a.lo / k,
        hi: a.hi / k,
        ..Affine::constant(0)
    })
}
