//! Affine forms of shared-window addresses and their arithmetic: what the layout evaluator
//! reads every address as (see the parent module's doc).

use pliron::{context::Context, r#type::Typed, value::Value};

use super::super::{
    StateId,
    thread_values::{apply_binop, wrap_to},
};
use crate::ir::mir::{arith::BinOpKind, int_width};
use crate::verify::constants::mask_keeps_every_index;

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

/// `index & m` (the mask on either side) where `m` keeps every bit of every stage index below
/// the state's stage count (`index & (STAGES - 1)` on a ring of a power of two): the index.
pub(super) fn masked_index(a: Affine, b: Affine, stages: impl Fn(StateId) -> Option<i64>) -> Option<Affine> {
    let (index, mask) = if b.is_constant() { (a, b) } else { (b, a) };
    let m = (mask.is_constant() && mask.lo == mask.hi).then_some(mask.lo)?;
    let (state, coefficient) = index.index?;
    if coefficient != 1 || index.window != 0 || index.lo != 0 || index.hi != 0 {
        return None;
    }
    mask_keeps_every_index(m, stages(state)?).then_some(index)
}

/// Value pairs [`disjoint_sum`] compares for one stage index at most.
const DISJOINT_PAIRS: i64 = 4096;

/// `a | b` or `a ^ b` as `a + b`, where the two share no set bit whatever the stage index
/// (`RING | index << 10`, `window | 0`): then OR and XOR add. `stages` is the stage count of
/// the state an index term follows; `window_align` the alignment the window's address has
/// (its low bits are zero, so a constant below it ORs in as an addition).
pub(super) fn disjoint_sum(
    kind: BinOpKind,
    a: Affine,
    b: Affine,
    stages: impl Fn(StateId) -> Option<i64>,
    window_align: i64,
) -> Option<Affine> {
    if !matches!(kind, BinOpKind::BitOr | BinOpKind::BitXor) {
        return None;
    }
    let pure_window = |form: Affine| form.window == 1 && form.index.is_none() && form.lo == 0 && form.hi == 0;
    let below = |form: Affine, bound: i64| form.is_constant() && form.lo >= 0 && form.hi < bound;
    if a.window != 0 || b.window != 0 {
        let (window, other) = if a.window != 0 { (a, b) } else { (b, a) };
        let align = window.rounding.max(window_align);
        return (pure_window(window) && below(other, align)).then(|| add(a, b)).flatten();
    }
    let state = match (a.index, b.index) {
        (Some((s, _)), Some((t, _))) if s != t => return None,
        (Some((s, _)), _) | (_, Some((s, _))) => Some(s),
        (None, None) => None,
    };
    let indices = match state {
        Some(state) => stages(state).filter(|n| *n > 0)?,
        None => 1,
    };
    let at = |form: Affine, i: i64| {
        let shift = form.index.map_or(Some(0), |(_, k)| k.checked_mul(i))?;
        Some((form.lo.checked_add(shift)?, form.hi.checked_add(shift)?))
    };
    for i in 0..indices {
        let ((a_lo, a_hi), (b_lo, b_hi)) = (at(a, i)?, at(b, i)?);
        let pairs = (a_hi - a_lo + 1).checked_mul(b_hi - b_lo + 1)?;
        if a_lo < 0 || b_lo < 0 || pairs > DISJOINT_PAIRS {
            return None;
        }
        if (a_lo..=a_hi).any(|x| (b_lo..=b_hi).any(|y| x & y != 0)) {
            return None;
        }
    }
    add(a, b)
}

#[cfg(test)]
mod tests {
    use super::{Affine, disjoint_sum};
    use crate::ir::mir::arith::BinOpKind;
    use crate::verify::StateId;

    const FOUR_STAGES: fn(StateId) -> Option<i64> = |_| Some(4);

    fn scaled_index(coefficient: i64) -> Affine {
        Affine { index: Some((StateId(7), coefficient)), ..Affine::constant(0) }
    }

    #[test]
    fn an_or_of_fields_that_share_no_bit_is_their_sum() {
        // `RING | index << 10` with the ring at bit 12 and four stages: 4096 + 1024·index.
        let sum = disjoint_sum(BinOpKind::BitOr, Affine::constant(4096), scaled_index(1024), FOUR_STAGES, 16);
        assert_eq!(sum, Some(Affine { lo: 4096, hi: 4096, ..scaled_index(1024) }));
        // `window | c` with `c` below the window's alignment.
        let window = disjoint_sum(BinOpKind::BitOr, Affine::window(1), Affine::constant(8), FOUR_STAGES, 16);
        assert_eq!(window, Some(Affine { lo: 8, hi: 8, ..Affine::window(1) }));
    }

    #[test]
    fn an_or_whose_sides_may_share_a_bit_is_not_a_sum() {
        // `3072 | index << 10` is 3072 for every stage, not 3072 + 1024·index.
        assert_eq!(
            disjoint_sum(BinOpKind::BitOr, Affine::constant(3072), scaled_index(1024), FOUR_STAGES, 16),
            None
        );
        // The window's address has no known bits above its alignment.
        assert_eq!(
            disjoint_sum(BinOpKind::BitOr, Affine::window(1), Affine::constant(16), FOUR_STAGES, 16),
            None
        );
        // An AND is never a sum.
        assert_eq!(
            disjoint_sum(BinOpKind::BitAnd, Affine::constant(4096), scaled_index(1024), FOUR_STAGES, 16),
            None
        );
    }
}
