//! Loops over a constant count, written out.
//!
//! LLVM unrolls a constant-count loop only while its body is small enough, and the threshold
//! differs between opt-levels: a loop that indexes an array of accumulators or loaded values
//! and is left rolled puts that array in local memory (and made a kernel's PTX depend on the
//! opt-level). [`unrolled!`] writes the iterations out, so the indices are constants and the
//! array stays in registers whatever the body's size.

/// Runs `$body` with `$index` bound to each constant `0..$bound`, in order; `$bound` is a
/// constant expression of at most 16 (a const generic parameter, say). The iterations at or past
/// `$bound` are written too and fold away.
///
/// Every level writes 16 copies of its body before anything folds, so nesting multiplies:
/// three levels in one function are 4,096 bodies, which took rustc minutes for the kernel crate
/// (`gemv.rs` once). Put the inner levels in an `#[inline(always)]` helper instead: each copy is
/// then a call, and the inlining happens after the copies past the bound are gone. A bound
/// that is a plain constant (not a generic parameter) also makes clippy read the copies past it
/// as out-of-bounds indexing of an array of that length.
macro_rules! unrolled {
    ($index:ident < $bound:expr => $body:block) => {{
        $crate::device::unrolled::unrolled!(@ $index $bound, $body; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    }};
    (@ $index:ident $bound:expr, $body:block; $($value:literal)*) => {
        const { assert!($bound <= 16, "unrolled! writes out at most 16 iterations") };
        $({
            const $index: usize = $value;
            if $index < $bound $body
        })*
    };
}

pub(crate) use unrolled;
