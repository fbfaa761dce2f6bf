//! Progressions through operations that are not sums of steps at all: a swizzle `c ^ r`, a
//! Gray code `i ^ (i >> 1)`, a skewed row `(c / 4 + j) % 8`, a product of two counters. Where
//! every counter an operand reads takes a number of values known per thread, the result is
//! *tabulated*: for each thread, its value at every joint value of those counters, the
//! counters read by both operands taken at the same value (one counter is one value in one
//! iteration, [`CounterId`]), so `r * 32 + (c ^ r)` is a permutation of a row, not every pair
//! of rows. A table is exact for the threads it was computed for, like the carry-free forms.

use std::rc::Rc;
use std::sync::atomic::{AtomicU32, Ordering};

use pliron::value::Value;

use super::{Count, Place, Progression};
use crate::ir::mir::arith::BinOpKind;
use crate::verify::{
    thread_model::Val,
    thread_values::{IntType, apply_int},
};

/// Joint values one thread's table may hold.
const MAX_JOINT: usize = 4096;
/// Entries one table may hold over all its threads.
const MAX_ENTRIES: usize = 1 << 18;

/// Which counter a term steps: terms of one identity take the same value wherever one
/// evaluation reads them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum CounterId {
    /// A counted iterator's item: the variable `next` stores once per iteration, so every load
    /// of it in the iteration reads one value.
    Item(Place),
    /// One load of a counter stored twice (its start and its advance): a second load may read
    /// it after the advance.
    Read(Value),
    /// A term of no counter another term shares.
    Fresh(u32),
}

impl CounterId {
    pub(crate) fn fresh() -> CounterId {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        CounterId::Fresh(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// Per thread, the value at every joint value of `counters` (mixed radix, the first counter
/// fastest, each counter's count that thread's); `None` for a thread it was not computed for.
#[derive(Debug)]
pub(crate) struct Table {
    pub counters: Vec<(CounterId, Rc<Vec<i64>>)>,
    pub values: Vec<Option<Vec<i64>>>,
}

/// The counters a progression's bounded terms and table read, each once, with its counts per
/// thread; `None` where one counter has two different counts (no one iteration space).
fn counters_of<'a>(
    parts: impl IntoIterator<Item = &'a Progression>,
) -> Option<Vec<(CounterId, Rc<Vec<i64>>)>> {
    let mut counters: Vec<(CounterId, Rc<Vec<i64>>)> = Vec::new();
    let mut add = |id: &CounterId, counts: &Rc<Vec<i64>>| {
        match counters.iter().find(|(known, _)| known == id) {
            Some((_, known)) => return Rc::ptr_eq(known, counts) || known == counts,
            None => counters.push((id.clone(), counts.clone())),
        }
        true
    };
    for part in parts {
        for term in &part.terms {
            if let Count::Threads(counts) = &term.count
                && !add(&term.counter, counts)
            {
                return None;
            }
        }
        if let Some(table) = &part.table {
            for (id, counts) in &table.counters {
                if !add(id, counts) {
                    return None;
                }
            }
        }
    }
    Some(counters)
}

/// Thread `t`'s count of each of `counters`, and their joint number (`None` past `cap`).
fn joint_counts(counters: &[(CounterId, Rc<Vec<i64>>)], t: usize, cap: usize) -> Option<(Vec<i64>, usize)> {
    let counts: Vec<i64> =
        counters.iter().map(|(_, counts)| counts.get(t).map(|c| (*c).max(0))).collect::<Option<_>>()?;
    let mut joint = 1usize;
    for count in &counts {
        joint = joint.checked_mul(usize::try_from(*count).ok()?)?;
        if joint > cap {
            return None;
        }
    }
    Some((counts, joint))
}

impl Progression {
    /// Thread `t`'s values at every joint value of `counters` (which hold every counter of the
    /// bounded terms and the table), in their mixed radix; the unbounded terms left out.
    pub(super) fn joint_values(
        &self,
        t: usize,
        counters: &[(CounterId, Rc<Vec<i64>>)],
        cap: usize,
    ) -> Option<Vec<i64>> {
        let base = match &self.base {
            Val::Const(c) => *c,
            Val::Threads(values) => *values.get(t)?,
            _ => return None,
        };
        let (counts, joint) = joint_counts(counters, t, cap)?;
        let position = |id: &CounterId| counters.iter().position(|(known, _)| known == id);
        // Each joint index's digit of counter `d` is `(index / radix[d]) % counts[d]`.
        let mut radix = Vec::with_capacity(counts.len());
        let mut r = 1i64;
        for count in &counts {
            radix.push(r);
            r = r.saturating_mul((*count).max(1));
        }
        let digit = |index: usize, d: usize| (index as i64 / radix[d]) % counts[d].max(1);
        let steps: Vec<(usize, i64)> = self
            .terms
            .iter()
            .filter(|term| matches!(term.count, Count::Threads(_)))
            .map(|term| Some((position(&term.counter)?, term.stride)))
            .collect::<Option<_>>()?;
        let table = match &self.table {
            Some(table) => {
                let values = table.values.get(t)?.as_ref()?;
                let digits: Vec<usize> =
                    table.counters.iter().map(|(id, _)| position(id)).collect::<Option<_>>()?;
                Some((values, digits, table))
            }
            None => None,
        };
        let mut out = Vec::with_capacity(joint);
        for index in 0..joint {
            let mut v = base;
            for (d, stride) in &steps {
                v = v.checked_add(digit(index, *d).checked_mul(*stride)?)?;
            }
            if let Some((values, digits, table)) = &table {
                // The table's own index of this joint value: its counters' digits in its radix.
                let (mut at, mut unit) = (0usize, 1usize);
                for (k, d) in digits.iter().enumerate() {
                    at += digit(index, *d) as usize * unit;
                    unit *= usize::try_from(*table.counters[k].1.get(t)?).ok()?.max(1);
                }
                v = v.checked_add(*values.get(at)?)?;
            }
            out.push(v);
        }
        Some(out)
    }

    /// The counters of the bounded terms and the table, for [`Progression::values`].
    pub(super) fn own_counters(&self) -> Option<Vec<(CounterId, Rc<Vec<i64>>)>> {
        counters_of([self])
    }
}

/// `a kind b` tabulated over the counters both read, in `threads` (of a block of
/// `block_threads`): `None` where a counter of either is unbounded, a table would be too large,
/// or the operation fails in some thread at some joint value (a division by zero, an overflow).
pub(super) fn tabulated(
    kind: BinOpKind,
    int: IntType,
    operands: (&Progression, &Progression),
    threads: impl Iterator<Item = usize>,
    block_threads: usize,
) -> Option<Progression> {
    combined(operands, threads, block_threads, |x, y| apply_int(kind, int, x, y))
}

/// `f(a, b)` tabulated, as [`tabulated`].
fn combined(
    (a, b): (&Progression, &Progression),
    threads: impl Iterator<Item = usize>,
    block_threads: usize,
    f: impl Fn(i64, i64) -> Option<i64>,
) -> Option<Progression> {
    if !a.bounded() || !b.bounded() {
        return None;
    }
    let counters = counters_of([a, b])?;
    let mut values: Vec<Option<Vec<i64>>> = vec![None; block_threads];
    let mut entries = 0usize;
    for t in threads {
        let xs = a.joint_values(t, &counters, MAX_JOINT)?;
        let ys = b.joint_values(t, &counters, MAX_JOINT)?;
        entries += xs.len();
        if entries > MAX_ENTRIES {
            return None;
        }
        let row = xs.iter().zip(&ys).map(|(x, y)| f(*x, *y)).collect::<Option<Vec<i64>>>()?;
        *values.get_mut(t)? = Some(row);
    }
    Some(Progression {
        base: Val::Const(0),
        terms: Vec::new(),
        table: Some(Rc::new(Table { counters, values })),
    })
}

/// `a + b` where a table is among them: one table over the counters of both.
pub(super) fn summed_tables(a: &Progression, b: &Progression) -> Option<Progression> {
    let (Some(left), Some(right)) = (&a.table, &b.table) else { return None };
    let block_threads = left.values.len();
    let threads = (0..block_threads).filter(|t| {
        left.values.get(*t).is_some_and(Option::is_some) && right.values.get(*t).is_some_and(Option::is_some)
    });
    let only =
        |p: &Progression| Progression { base: Val::Const(0), terms: Vec::new(), table: p.table.clone() };
    combined((&only(a), &only(b)), threads, block_threads, i64::checked_add)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::progression::Term;

    /// `tid + 64 · k` for `k` in `0..4`, in 64 threads, `k` one counter.
    fn staged(k: &CounterId) -> Progression {
        Progression {
            base: Val::Threads(Rc::new((0..64).collect())),
            terms: vec![Term { stride: 64, count: Count::Threads(Rc::new(vec![4; 64])), counter: k.clone() }],
            table: None,
        }
    }

    fn tab(kind: BinOpKind, a: &Progression, b: &Progression) -> Progression {
        tabulated(kind, IntType::unsigned(64), (a, b), 0..64, 64).expect("bounded")
    }

    fn constant(c: i64) -> Progression {
        Progression::known(Val::Const(c)).unwrap()
    }

    #[test]
    fn an_xor_swizzle_of_one_counter_is_a_permutation_of_its_row() {
        // `r * 32 + (c ^ r)` for `e = tid + 64 · k`, `r = e / 32`, `c = e % 32`: thread 33 writes
        // element 1 of rows 1, 3, 5 and 7 at column `1 ^ r`.
        let k = CounterId::fresh();
        let e = staged(&k);
        let r = tab(BinOpKind::Div, &e, &constant(32));
        let c = tab(BinOpKind::Rem, &e, &constant(32));
        let swizzled = r.clone().scaled(32).unwrap().plus(tab(BinOpKind::BitXor, &c, &r)).unwrap();
        let thread_33 = swizzled.values(33, i64::MAX, 64).unwrap();
        assert_eq!(thread_33, vec![32, 3 * 32 + 2, 5 * 32 + 4, 7 * 32 + 6]);
        // Over the block, every slot of the 256 once: no two threads write one.
        let mut all: Vec<i64> = (0..64).flat_map(|t| swizzled.values(t, i64::MAX, 64).unwrap()).collect();
        all.sort_unstable();
        assert_eq!(all, (0..256).collect::<Vec<_>>());
    }

    #[test]
    fn two_counters_are_not_one() {
        // `k ^ j` of two counters of 0..4 takes every pair's value, `k ^ k` only 0.
        let (k, j) = (CounterId::fresh(), CounterId::fresh());
        let of = |id: &CounterId| Progression {
            base: Val::Const(0),
            terms: vec![Term { stride: 1, count: Count::Threads(Rc::new(vec![4; 64])), counter: id.clone() }],
            table: None,
        };
        let same = tab(BinOpKind::BitXor, &of(&k), &of(&k));
        assert_eq!(same.values(0, i64::MAX, 64).unwrap(), vec![0; 4]);
        let mut pairs = tab(BinOpKind::BitXor, &of(&k), &of(&j)).values(0, i64::MAX, 64).unwrap();
        pairs.sort_unstable();
        pairs.dedup();
        assert_eq!(pairs, vec![0, 1, 2, 3]);
    }

    #[test]
    fn a_division_by_zero_in_any_thread_is_no_table() {
        let k = CounterId::fresh();
        let zero_in_thread_0 = Progression::known(Val::Threads(Rc::new((0..64).collect()))).unwrap();
        assert!(
            tabulated(BinOpKind::Div, IntType::unsigned(64), (&staged(&k), &zero_in_thread_0), 0..64, 64)
                .is_none()
        );
        // Only threads 1.. are read: there it divides.
        assert!(
            tabulated(BinOpKind::Div, IntType::unsigned(64), (&staged(&k), &zero_in_thread_0), 1..64, 64)
                .is_some()
        );
    }
}
