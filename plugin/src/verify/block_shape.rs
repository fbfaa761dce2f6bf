//! The block a kernel declares in its launch contract (`device::launch::block_threads(N)` or
//! `block_threads_2d(X, Y)`, or only a bound, `block_threads_at_most(N)`, or the powers of two up to
//! a bound, `block_threads_power_of_two(N)`), and what the thread
//! geometry reads give per thread in it: the thread model enumerates the block's threads by their
//! linear index, as the hardware forms warps from it.

use std::rc::Rc;

use pliron::context::Context;

use super::{
    index::ScopeIndex,
    memory::{declared_constant, declared_constants},
    thread_values::Val,
};

/// The largest block the rule enumerates (the hardware's limit).
pub(crate) const MAX_BLOCK_THREADS: i64 = 1024;
/// The symbol of the launch-contract declaration of a one-dimensional block.
const BLOCK_THREADS_SYMBOL: &str = "device__launch__block_threads";
/// The symbol of the launch-contract declaration of a two-dimensional block.
const BLOCK_THREADS_2D_SYMBOL: &str = "device__launch__block_threads_2d";
/// The symbol of the launch-contract declaration of a bound on a one-dimensional block.
const BLOCK_THREADS_AT_MOST_SYMBOL: &str = "device__launch__block_threads_at_most";
/// The symbol of the launch-contract declaration of one-dimensional blocks of any power of two
/// up to a bound.
const BLOCK_THREADS_POWER_OF_TWO_SYMBOL: &str = "device__launch__block_threads_power_of_two";

/// The block a kernel declares: `x` threads a row, `y` rows (1 for a one-dimensional block).
/// Thread `t` of the enumeration is the hardware's linear index, `threadIdx.x + x · threadIdx.y`,
/// so warps and lanes are formed from it as on the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BlockShape {
    pub x: usize,
    pub y: usize,
}

impl BlockShape {
    pub(crate) fn threads(self) -> usize {
        self.x * self.y
    }
}

/// The kernel's declared block, if it declares one of constant sizes within the hardware limit:
/// `block_threads(N)` (one-dimensional) or `block_threads_2d(X, Y)`. Two declarations that
/// disagree declare nothing.
pub(crate) fn declared_block_shape(ctx: &Context, index: &ScopeIndex) -> Option<BlockShape> {
    let within = |size: i64| (1..=MAX_BLOCK_THREADS).contains(&size).then_some(size as usize);
    let one_dimensional =
        declared_constant(ctx, index, BLOCK_THREADS_SYMBOL).map(|n| Some(BlockShape { x: within(n)?, y: 1 }));
    let two_dimensional =
        declared_constants(ctx, index, BLOCK_THREADS_2D_SYMBOL).map(|sizes| match sizes[..] {
            [x, y] => Some(BlockShape { x: within(x)?, y: within(y)? }),
            _ => None,
        });
    let shape = match (one_dimensional, two_dimensional) {
        (Some(a), Some(b)) if a != b => return None,
        (a, b) => a.or(b)??,
    };
    (shape.threads() <= MAX_BLOCK_THREADS as usize).then_some(shape)
}

/// The block the thread model enumerates, and whether its sizes are the launch's: the declared
/// block; else, where the kernel declares only a bound `block_threads_at_most(N)`, the threads
/// `0..N` of a one-dimensional block whose size is not known (every launch within the bound runs
/// a prefix of them, so what holds for each pair of them holds for the launch's); else the
/// hardware's limit, sizes not known.
pub(crate) fn enumerated_block(ctx: &Context, index: &ScopeIndex) -> (BlockShape, bool) {
    if let Some(shape) = declared_block_shape(ctx, index) {
        return (shape, true);
    }
    let bound = declared_block_bound(ctx, index).unwrap_or(MAX_BLOCK_THREADS as usize);
    (BlockShape { x: bound, y: 1 }, false)
}

/// The bound on a one-dimensional block the kernel declares, where it is a constant within the
/// hardware's limit (a larger one bounds nothing the hardware does not): `block_threads_at_most(N)`,
/// or `block_threads_power_of_two(N)`, whose sizes are all at most `N`.
pub(crate) fn declared_block_bound(ctx: &Context, index: &ScopeIndex) -> Option<usize> {
    let at_most = declared_constant(ctx, index, BLOCK_THREADS_AT_MOST_SYMBOL)
        .filter(|bound| (1..=MAX_BLOCK_THREADS).contains(bound))
        .map(|bound| bound as usize);
    at_most.or_else(|| declared_block_sizes(ctx, index)?.last().copied())
}

/// The block sizes `block_threads_power_of_two(N)` declares: every power of two up to `N`, where
/// `N` is a constant power of two within the hardware's limit. The race check is run for each
/// (a tree reduction's first stride is half the block: one value per size).
pub(crate) fn declared_block_sizes(ctx: &Context, index: &ScopeIndex) -> Option<Vec<usize>> {
    let bound = declared_constant(ctx, index, BLOCK_THREADS_POWER_OF_TWO_SYMBOL)
        .filter(|bound| (1..=MAX_BLOCK_THREADS).contains(bound) && (*bound as u64).is_power_of_two())?;
    Some((0..=bound.trailing_zeros()).map(|k| 1usize << k).collect())
}

/// The kernel's declared count of threads a block, if it declares its block.
pub(crate) fn declared_block_threads(ctx: &Context, index: &ScopeIndex) -> Option<usize> {
    declared_block_shape(ctx, index).map(BlockShape::threads)
}

/// What an argument-less geometry read `name` gives per thread of a block of `shape` (`declared`
/// when the kernel declares it; otherwise one row of the hardware's limit, and the sizes are
/// not known); `None` for any other call. Thread `t` is the linear index: `x` threads a row.
/// Without a declaration the rules that read `y` refuse the scope.
pub(crate) fn thread_geometry(name: &str, shape: BlockShape, declared: bool) -> Option<Val> {
    let (row, threads) = (shape.x as i64, shape.threads() as i64);
    let per_thread =
        |of: fn(i64, i64) -> i64| Val::Threads(Rc::new((0..threads).map(|t| of(t, row)).collect()));
    let size = |known: i64| if declared { Val::Const(known) } else { Val::Uniform };
    Some(if name.ends_with("thread_idx_x") {
        per_thread(|t, row| t % row)
    } else if name.ends_with("thread_idx_y") {
        if shape.y == 1 { Val::Const(0) } else { per_thread(|t, row| t / row) }
    } else if name.ends_with("thread_idx_z") {
        // The launch contract has at most two dimensions.
        Val::Const(0)
    } else if name.ends_with("block_dim_x") {
        size(row)
    } else if name.ends_with("block_dim_y") {
        size(shape.y as i64)
    } else if name.ends_with("block_dim_z") {
        size(1)
    } else {
        return None;
    })
}
