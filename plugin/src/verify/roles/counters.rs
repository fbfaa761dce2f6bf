//! Counted loops read outside the tile-count rule: how many passes a loop makes, for the
//! typestate's copy loops (`super::super::typestate`).

use pliron::context::Context;

use super::{Linear, SharedThreadModel, Stores, header, stores_of};
use crate::verify::index::ScopeIndex;

/// Reads loops' counters in one function (its variables' stores gathered once).
pub(crate) struct CounterReader<'a, 't>(Stores<'a, 't>);

impl<'a, 't> CounterReader<'a, 't> {
    pub(crate) fn new(
        ctx: &Context,
        index: &'a ScopeIndex,
        f: usize,
        threads: &'a SharedThreadModel<'t>,
    ) -> Self {
        CounterReader(stores_of(ctx, index, f, threads))
    }

    /// The passes (at least one) of the loop whose condition ends block `head` (`inside(b)`: block
    /// `b` is in the loop) when its counter's start, step and bound are constants, with the blocks
    /// outside the loop that store the counter.
    pub(crate) fn constant_passes(
        &self,
        ctx: &Context,
        head: usize,
        inside: &dyn Fn(usize) -> bool,
    ) -> Option<(i64, Vec<usize>)> {
        let found = header(ctx, self.0.index, &self.0, head, inside)??;
        let constant = |form: &Linear| form.terms.is_empty().then_some(form.constant);
        let (start, step, bound) = (constant(&found.start)?, constant(&found.step)?, constant(&found.bound)?);
        let starts = self.0.blocks.get(found.counter.as_ref()?)?.iter().copied().filter(|b| !inside(*b));
        (step > 0 && start < bound).then(|| ((bound - start + step - 1) / step, starts.collect()))
    }
}
