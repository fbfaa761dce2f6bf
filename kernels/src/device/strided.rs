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
    consume: impl FnMut(usize, T),
) {
    strided_by::<UNROLL, T>(first, end, step, load, consume);
}

/// [`strided`] with `IN_FLIGHT` loads issued before the first is consumed: a kernel whose
/// loaded values are large (several 16-byte chunks per index) takes fewer at a time, so that
/// they and its accumulators fit in registers. `IN_FLIGHT = 1` is a plain loop.
///
/// `step` must be non-zero; `IN_FLIGHT` at least 1.
#[inline(always)]
pub fn strided_by<const IN_FLIGHT: usize, T: Copy + Default>(
    first: usize,
    end: usize,
    step: usize,
    load: impl Fn(usize) -> T,
    mut consume: impl FnMut(usize, T),
) {
    let mut i = first;
    while i + (IN_FLIGHT - 1) * step < end {
        // Plain index loops over a constant count: LLVM unrolls them and keeps `loaded` in
        // registers (an array iterator here was left as a loop over local memory). Around a
        // large `consume` the second loop may be left rolled, `loaded` then in local memory:
        // such a kernel loads several chunks per index instead, with `IN_FLIGHT = 1`.
        let mut loaded = [T::default(); IN_FLIGHT];
        #[allow(clippy::needless_range_loop)]
        for u in 0..IN_FLIGHT {
            loaded[u] = load(i + u * step);
        }
        #[allow(clippy::needless_range_loop)]
        for u in 0..IN_FLIGHT {
            consume(i + u * step, loaded[u]);
        }
        i += IN_FLIGHT * step;
    }
    while i < end {
        consume(i, load(i));
        i += step;
    }
}
