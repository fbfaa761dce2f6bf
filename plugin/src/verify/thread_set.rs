//! A set of thread indices below a block's size, one bit each: what reaches a block of the
//! kernel, as the thread-role rules count it.

/// A set of thread indices below the block size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Threads(Vec<u64>);

impl Threads {
    pub(crate) fn all(n: usize) -> Threads {
        let mut words = vec![u64::MAX; n.div_ceil(64)];
        if !n.is_multiple_of(64)
            && let Some(last) = words.last_mut()
        {
            *last = (1u64 << (n % 64)) - 1;
        }
        Threads(words)
    }

    pub(crate) fn none(n: usize) -> Threads {
        Threads(vec![0; n.div_ceil(64)])
    }

    pub(crate) fn of(values: &[i64], keep: impl Fn(i64) -> bool) -> Threads {
        let mut set = Threads::none(values.len());
        for (t, v) in values.iter().enumerate() {
            if keep(*v) {
                set.0[t / 64] |= 1 << (t % 64);
            }
        }
        set
    }

    pub(crate) fn and(&self, other: &Threads) -> Threads {
        Threads(self.0.iter().zip(&other.0).map(|(a, b)| a & b).collect())
    }

    pub(crate) fn and_not(&self, other: &Threads) -> Threads {
        Threads(self.0.iter().zip(&other.0).map(|(a, b)| a & !b).collect())
    }

    pub(crate) fn union(&mut self, other: &Threads) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }

    pub(crate) fn count(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }

    /// Every member, in increasing order.
    pub(crate) fn members(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.0.len() * 64).filter(|t| self.0[t / 64] >> (t % 64) & 1 == 1)
    }

    /// The first few members, for messages.
    pub(crate) fn first(&self, k: usize) -> Vec<usize> {
        (0..self.0.len() * 64).filter(|t| self.0[t / 64] >> (t % 64) & 1 == 1).take(k).collect()
    }
}
