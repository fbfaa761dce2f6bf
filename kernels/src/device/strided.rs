//! Strided loops with their loads batched, so that enough bytes are in flight.
//!
//! A GPU thread issues in order: in a plain loop `load; use; load; use`, each iteration waits
//! for its load before the next load is even issued, and a memory-bound kernel then reaches
//! only a fraction of the bandwidth (about 60 % on an H200 with one 4-byte load per thread in
//! flight). [`strided`] issues [`UNROLL`] independent loads before consuming the first, which
//! keeps the same elements on the same thread (the visiting order `first, first + step, …` is
//! unchanged), so a kernel's results do not depend on it beyond the order of its sums.

/// Loads a thread issues before it consumes the first of them.
pub const UNROLL: usize = 4;

/// Visits `first, first + step, …` below `end`: `load(i)` for [`UNROLL`] indices at a time,
/// then `consume(i, loaded)` for each of them in order; the tail one at a time.
///
/// `step` must be non-zero.
#[inline(always)]
pub fn strided<T: Copy + Default>(
    first: usize,
    end: usize,
    step: usize,
    load: impl Fn(usize) -> T,
    mut consume: impl FnMut(usize, T),
) {
    let mut i = first;
    while i + (UNROLL - 1) * step < end {
        // Plain index loops over a constant count: LLVM unrolls them and keeps `loaded` in
        // registers (an array iterator here was left as a loop over local memory).
        let mut loaded = [T::default(); UNROLL];
        #[allow(clippy::needless_range_loop)]
        for u in 0..UNROLL {
            loaded[u] = load(i + u * step);
        }
        #[allow(clippy::needless_range_loop)]
        for u in 0..UNROLL {
            consume(i + u * step, loaded[u]);
        }
        i += UNROLL * step;
    }
    while i < end {
        consume(i, load(i));
        i += step;
    }
}
