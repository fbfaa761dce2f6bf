//! Progressions through operations that are not linear in general but are on the values at hand,
//! because no counter carries into the bits the operation cuts:
//! - `high | low` and `high ^ low` of bits that cannot overlap (`(row << 5) | lane`): the sum;
//! - a quotient or remainder by a constant `m` (`/`, `%`, `>>`, a low-bit mask `&`) where each
//!   counter either steps by a multiple of `m` (it moves only the quotient) or stays inside the
//!   remainder's room in every thread (it moves only the remainder). A staging loop that writes
//!   a tile transposed, `s[(e % 32) * 8 + e / 32]` for `e = tid + 64 · k`, is then `(tid % 32) ·
//!   8 + tid / 32 + 2 · k`, exact in every thread; and a uniform counter known only modulo `L`
//!   (`r + L · n`, see `crate::verify::symbols`) gives `(j + 1) % 2` as the constant it is.
//!
//! Each result holds for the `relevant` threads (those whose values the caller reads); in the
//! others it may differ from what the operation computes.

use super::{Count, Progression, Term};
use crate::ir::mir::arith::BinOpKind;
use crate::verify::{
    thread_model::{Val, map2},
    thread_set::Threads,
};

/// The values `base` takes in the `relevant` threads (every thread's where `None`).
fn taken(base: &Val, relevant: Option<&Threads>) -> Option<Vec<(usize, i64)>> {
    match base {
        Val::Const(c) => Some(vec![(0, *c)]),
        Val::Threads(values) => match relevant {
            Some(threads) => threads.members().map(|t| Some((t, *values.get(t)?))).collect(),
            None => Some(values.iter().copied().enumerate().collect()),
        },
        _ => None,
    }
}

/// The modulus `x kind c` reduces `x` by, for a constant `c`: `c` for a remainder (`c > 0`),
/// `c + 1` for a mask of the low bits (`c + 1` a power of two); `None` for anything else.
pub(crate) fn reduction_modulus(kind: BinOpKind, c: i64) -> Option<i64> {
    match kind {
        BinOpKind::Rem => (c > 0).then_some(c),
        BinOpKind::BitAnd => c.checked_add(1).filter(|m| u64::try_from(*m).is_ok_and(u64::is_power_of_two)),
        _ => None,
    }
}

/// `high | low` (or `high ^ low`) as the sum it is when no bit is set in both: every value
/// `low` takes in the `relevant` threads lies in `0..2ᵐ`, and every value `high` takes there is
/// a multiple of `2ᵐ` (its base in each of those threads and each counter's stride are), so the
/// low `m` bits of `high` are clear and `low` sets only those. `None` when that is not shown.
pub(super) fn disjoint_bits_sum(
    high: &Progression,
    low: &Progression,
    relevant: Option<&Threads>,
) -> Option<Progression> {
    if !low.per_thread() || high.table.is_some() {
        return None;
    }
    let lows = taken(&low.base, relevant)?;
    if lows.iter().any(|(_, v)| *v < 0) {
        return None;
    }
    let largest = u64::try_from(lows.iter().map(|(_, v)| *v).max().unwrap_or(0)).ok()?;
    let unit = i64::try_from(largest.checked_add(1)?.checked_next_power_of_two()?).ok()?;
    let aligned = |v: i64| v.rem_euclid(unit) == 0;
    let base_aligned = taken(&high.base, relevant)?.into_iter().all(|(_, v)| aligned(v));
    (base_aligned && high.terms.iter().all(|term| aligned(term.stride)))
        .then(|| high.clone().plus(low.clone()))
        .flatten()
}

/// `value / m` (where `quotient`) or `value % m`, `m > 0`, of a progression whose values are
/// never negative, as a progression, where no counter carries across a multiple of `m` (module
/// doc): the counters stepping by multiples of `m` (any count) move the quotient alone; the
/// others, each with a count known per thread and a positive stride, must keep `base % m` plus
/// their largest contribution below `m` in every relevant thread, and move the remainder alone.
/// `None` when that is not shown.
pub(super) fn divided(
    value: &Progression,
    m: i64,
    quotient: bool,
    relevant: Option<&Threads>,
) -> Option<Progression> {
    if m <= 0 || value.terms.iter().any(|term| term.stride < 0) {
        return None;
    }
    let (whole, inside): (Vec<&Term>, Vec<&Term>) = value.terms.iter().partition(|term| term.stride % m == 0);
    let bases = taken(&value.base, relevant)?;
    for (t, base) in bases {
        let mut room = base.checked_rem(m)?;
        for term in &inside {
            let Count::Threads(counts) = &term.count else { return None };
            let count = match &value.base {
                Val::Const(_) => counts.iter().copied().max().unwrap_or(0),
                _ => *counts.get(t)?,
            };
            room = room.checked_add((count - 1).max(0).checked_mul(term.stride)?)?;
        }
        if base < 0 || room >= m {
            return None;
        }
    }
    let mut result = Progression::known(map2(value.base.clone(), Val::Const(m), |b, m| {
        if quotient { b.checked_div(m) } else { b.checked_rem(m) }
    }))?;
    let (kept, dropped) = if quotient { (whole, inside) } else { (inside, whole) };
    result.terms = kept
        .into_iter()
        .map(|term| Term {
            stride: if quotient { term.stride / m } else { term.stride },
            count: term.count.clone(),
            counter: term.counter.clone(),
        })
        .chain(dropped.into_iter().filter_map(emptiness))
        .collect();
    Some(result)
}

/// What is left of a counter that moves no bit of the result: nothing where it takes a value in
/// every thread, else a step of 0 that keeps the threads where it takes none without a value
/// (a loop that does not run there).
fn emptiness(term: &Term) -> Option<Term> {
    match &term.count {
        Count::Threads(counts) if counts.iter().any(|count| *count <= 0) => Some(Term::fresh(
            0,
            Count::Threads(std::rc::Rc::new(counts.iter().map(|count| (*count).clamp(0, 1)).collect())),
        )),
        // An unbounded counter takes at least its start.
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use super::*;

    /// `r << 5` for `r` in `0..8`, in each of `threads` threads.
    fn rows(threads: usize) -> Progression {
        Progression {
            base: Val::Const(0),
            terms: vec![Term::fresh(32, Count::Threads(Rc::new(vec![8; threads])))],
            table: None,
        }
    }

    /// `tid - 32` in 64 threads: 0 to 31 in threads 32 to 63, wrapped high in the others.
    fn lanes_from_32() -> Progression {
        let values = (0..64i64).map(|tid| (tid - 32) & 0xFFFF_FFFF).collect();
        Progression::known(Val::Threads(Rc::new(values))).unwrap()
    }

    /// `tid + 64 · k` for `k` in `0..4`, in 64 threads: a staging loop's element.
    fn staged() -> Progression {
        Progression {
            base: Val::Threads(Rc::new((0..64).collect())),
            terms: vec![Term::fresh(64, Count::Threads(Rc::new(vec![4; 64])))],
            table: None,
        }
    }

    fn every_value(progression: &Progression, threads: impl Iterator<Item = usize>) -> Vec<i64> {
        let mut all: Vec<i64> =
            threads.flat_map(|t| progression.values(t, i64::MAX, 1 << 16).unwrap()).collect();
        all.sort_unstable();
        all.dedup();
        all
    }

    #[test]
    fn or_of_rows_and_lanes_below_32_is_their_sum() {
        let lanes = Progression::known(Val::Threads(Rc::new((0..64).map(|tid| tid & 31).collect()))).unwrap();
        let sum = disjoint_bits_sum(&rows(64), &lanes, None).expect("the bits do not overlap");
        // Every thread reads 8 rows of its column: the stage's 256 floats, none past them.
        assert_eq!(every_value(&sum, 0..64), (0..256).collect::<Vec<_>>());
        assert_eq!(sum.values(33, i64::MAX, 64).unwrap(), (0..8).map(|r| 32 * r + 1).collect::<Vec<_>>());
    }

    #[test]
    fn overlapping_bits_are_not_a_sum() {
        // `tid & 63` reaches 32 to 63, sharing bit 5 with `r << 5`.
        let lanes = Progression::known(Val::Threads(Rc::new((0..64).collect()))).unwrap();
        assert!(disjoint_bits_sum(&rows(64), &lanes, None).is_none());
        // A row stride of 48 is not a multiple of 32, and 20 needs five bits: `48 | 20` is 52.
        let mut odd = rows(64);
        odd.terms[0].stride = 48;
        let twenty = Progression::known(Val::Const(20)).unwrap();
        assert!(disjoint_bits_sum(&odd, &twenty, None).is_none());
        // 5 needs three bits, below every multiple of 48's factor 16: `48 · r | 5` is `48 · r + 5`.
        let five = Progression::known(Val::Const(5)).unwrap();
        assert!(disjoint_bits_sum(&odd, &five, None).is_some());
    }

    #[test]
    fn only_the_relevant_threads_decide() {
        // In every thread `tid - 32` overlaps the rows (threads below 32 wrap it high); in the
        // consumers, threads 32 to 63, it is 0 to 31.
        assert!(disjoint_bits_sum(&rows(64), &lanes_from_32(), None).is_none());
        let consumers = Threads::of(&(0..64).collect::<Vec<i64>>(), |tid| tid >= 32);
        let sum = disjoint_bits_sum(&rows(64), &lanes_from_32(), Some(&consumers)).expect("disjoint there");
        assert_eq!(every_value(&sum, consumers.members()), (0..256).collect::<Vec<_>>());
    }

    #[test]
    fn a_transposed_staging_index_is_exact() {
        // `(e % 32) * 8 + e / 32` for `e = tid + 64 · k`: each thread's four elements land on
        // four slots of one column, and the block covers the tile once.
        let column = divided(&staged(), 32, false, None).expect("64 is a multiple of 32");
        let row = divided(&staged(), 32, true, None).expect("64 is a multiple of 32");
        let index = column.scaled(8).unwrap().plus(row).unwrap();
        assert_eq!(index.values(33, i64::MAX, 64).unwrap(), vec![9, 11, 13, 15]);
        let mut all: Vec<i64> = (0..64).flat_map(|t| index.values(t, i64::MAX, 64).unwrap()).collect();
        all.sort_unstable();
        assert_eq!(all, (0..256).collect::<Vec<_>>());
    }

    #[test]
    fn a_counter_that_carries_into_the_remainder_is_not_read() {
        // `tid + 64 · k` modulo 48: 64 is no multiple of 48, and 64 · 3 passes it.
        assert!(divided(&staged(), 48, false, None).is_none());
        assert!(divided(&staged(), 48, true, None).is_none());
        // `8 · tid + k` for `k < 8`, modulo 8: every thread's eight stay inside one multiple.
        let rows = Progression {
            base: Val::Threads(Rc::new((0..64).map(|t| 8 * t).collect())),
            terms: vec![Term::fresh(1, Count::Threads(Rc::new(vec![8; 64])))],
            table: None,
        };
        assert_eq!(
            divided(&rows, 8, false, None).unwrap().values(5, i64::MAX, 64).unwrap(),
            (0..8).collect::<Vec<_>>()
        );
        assert_eq!(divided(&rows, 8, true, None).unwrap().values(5, i64::MAX, 64).unwrap(), vec![5]);
        // One more pass and the counter carries: `8 · tid + 8` is the next thread's row.
        let mut nine = rows.clone();
        nine.terms[0].count = Count::Threads(Rc::new(vec![9; 64]));
        assert!(divided(&nine, 8, false, None).is_none());
    }

    #[test]
    fn a_counter_known_modulo_two_gives_its_parity() {
        // `j = 1 + 2 · n` (a uniform counter known to be odd): `(j + 1) % 2` is 0, `j / 2`
        // is not one value.
        let odd =
            Progression { base: Val::Const(1), terms: vec![Term::fresh(2, Count::Unbounded)], table: None };
        let next = odd.clone().plus(Progression::known(Val::Const(1)).unwrap()).unwrap();
        assert_eq!(divided(&next, 2, false, None).unwrap().constant(), Some(0));
        assert_eq!(divided(&odd, 2, false, None).unwrap().constant(), Some(1));
        assert!(divided(&odd, 2, true, None).unwrap().constant().is_none());
        // Modulo 4 the counter is any of 1 and 3: not one value.
        assert!(divided(&odd, 4, false, None).is_none());
    }
}
