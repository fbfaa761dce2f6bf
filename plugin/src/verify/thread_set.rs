//! A set of thread indices below a block's size, one bit each: what reaches a block of the
//! kernel, as the thread-role rules count it.

use super::block_shape::MAX_BLOCK_THREADS;

/// Words of the largest block the rules enumerate.
const WORDS: usize = MAX_BLOCK_THREADS as usize / 64;

/// A set of thread indices below the block size. Held inline, not on the heap: the thread
/// model copies one per edge of every block it walks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Threads {
    words: [u64; WORDS],
    /// The words the block's size spans (the rest stay zero).
    used: usize,
}

impl Threads {
    pub(crate) fn all(n: usize) -> Threads {
        let mut set = Threads::none(n);
        set.words[..n / 64].fill(u64::MAX);
        if !n.is_multiple_of(64) {
            set.words[n / 64] = (1u64 << (n % 64)) - 1;
        }
        set
    }

    pub(crate) fn none(n: usize) -> Threads {
        assert!(n <= MAX_BLOCK_THREADS as usize, "a block of {n} threads, more than the hardware's limit");
        Threads { words: [0; WORDS], used: n.div_ceil(64) }
    }

    pub(crate) fn of(values: &[i64], keep: impl Fn(i64) -> bool) -> Threads {
        let mut set = Threads::none(values.len());
        for (t, v) in values.iter().enumerate() {
            if keep(*v) {
                set.words[t / 64] |= 1 << (t % 64);
            }
        }
        set
    }

    fn zip_with(&self, other: &Threads, f: impl Fn(u64, u64) -> u64) -> Threads {
        let mut set = self.clone();
        for (a, b) in set.words.iter_mut().zip(&other.words).take(self.used) {
            *a = f(*a, *b);
        }
        set
    }

    pub(crate) fn and(&self, other: &Threads) -> Threads {
        self.zip_with(other, |a, b| a & b)
    }

    pub(crate) fn and_not(&self, other: &Threads) -> Threads {
        self.zip_with(other, |a, b| a & !b)
    }

    pub(crate) fn union(&mut self, other: &Threads) {
        for (a, b) in self.words.iter_mut().zip(&other.words).take(self.used) {
            *a |= b;
        }
    }

    pub(crate) fn count(&self) -> u32 {
        self.words.iter().map(|w| w.count_ones()).sum()
    }

    /// Every member, in increasing order.
    pub(crate) fn members(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.used * 64).filter(|t| self.words[t / 64] >> (t % 64) & 1 == 1)
    }

    /// The first few members, for messages.
    pub(crate) fn first(&self, k: usize) -> Vec<usize> {
        self.members().take(k).collect()
    }
}
