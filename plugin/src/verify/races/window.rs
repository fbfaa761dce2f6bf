//! The race check's window rules: an access must stay inside the dynamic shared memory the
//! kernel declares. Offsets known exactly are compared with the window (`shared-layout`); an
//! access indexed by a counter nothing bounds, which the race check enumerates only up to the
//! window, is left unproven.

use pliron::context::Context;
use rustc_hash::FxHashMap;

use super::{Instance, MAX_SHARED_BYTES, MAX_STARTS, OpSet, runs_in};
use crate::verify::{
    Rule, index::ScopeIndex, layout::SHARED_BYTES_SYMBOL, memory::declared_constant, rules::Reporter,
};

/// Rejects (rule `shared-layout`) each access that some thread reaching it makes at bytes outside
/// the dynamic shared memory the kernel declares (`device::launch::dynamic_shared_bytes(N)`),
/// or outside the most a block can have where it declares none: a fault, or a write into what
/// lies beyond. Only offsets known exactly are judged: an access indexed by a counter nothing
/// bounds (`i += 64` in a `while` loop) has its progression cut at the window by the race check,
/// and is not judged here.
pub(super) fn reject_past_window(
    reporter: &mut Reporter,
    candidates: &[usize],
    instances: &FxHashMap<usize, Vec<Instance>>,
) {
    let (ctx, index) = (reporter.ctx, reporter.index);
    let window = declared_window(ctx, index);
    for n in candidates {
        let outside = instances[n].iter().find_map(|instance| {
            let offsets = instance.offsets.as_ref().filter(|offsets| offsets.bounded())?;
            instance.threads.members().find_map(|t| {
                offsets
                    .values(t, window, MAX_STARTS)?
                    .into_iter()
                    .find(|start| *start < 0 || start + instance.bytes > window)
                    .map(|start| (t, start, start + instance.bytes))
            })
        });
        if let Some((t, lo, hi)) = outside {
            reporter.reject(
                Rule::SharedLayout,
                index.ops[*n],
                format!(
                    "thread {t} reaches bytes {lo}..{hi} of dynamic shared memory here, outside the {window} bytes \
                     the kernel declares (`dynamic_shared_bytes`): past the window (fault)"
                ),
                vec![],
            );
        }
    }
}

/// The accesses of an interval not proven inside the window, each with why: those whose address
/// is not known per thread, and those indexed by a counter nothing bounds (a `while` loop's
/// `i += c` that its own test does not guard, a range whose end is not known per thread), which
/// the race check enumerates only up to the window. [`reject_past_window`] judges only offsets
/// known exactly, and an interval with no store has no race to find, so without this an access
/// that runs one row past the window (a fault) would pass unseen.
///
/// Only the chains the interval runs are judged ([`runs_in`]).
/// Where `variables_read` (the interval was compared with [`super::symbols`] reading its uniform
/// variables), the accesses left unknown or unbounded for want of a variable's value were read
/// again with each value, bounded and inside the window: they are not listed.
pub(super) fn outside_window_unproven(
    (interval, reached): (&[usize], Option<&OpSet>),
    instances: &FxHashMap<usize, Vec<Instance>>,
    variables_read: bool,
) -> Vec<(usize, String)> {
    let unproven = |instance: &Instance| match &instance.offsets {
        _ if variables_read && !instance.blocked.is_empty() => None,
        None if variables_read => None,
        None => Some(
            "an access of shared memory at an address the race check cannot evaluate per thread: that it stays \
             inside the window is not proven",
        ),
        Some(offsets) if !offsets.bounded() => Some(
            "an access of shared memory indexed by a loop counter nothing bounds (a `while` counter its loop's \
             test does not guard, a range whose end is not known per thread): that it stays inside the window \
             is not proven",
        ),
        Some(_) => None,
    };
    interval
        .iter()
        .filter_map(|n| {
            let mut running = instances[n].iter().filter(|instance| runs_in(instance.site, reached));
            running.find_map(unproven).map(|why| (*n, why.to_string()))
        })
        .collect()
}

/// The dynamic shared memory the kernel declares, or the most a block can have.
pub(super) fn declared_window(ctx: &Context, index: &ScopeIndex) -> i64 {
    declared_constant(ctx, index, SHARED_BYTES_SYMBOL).unwrap_or(MAX_SHARED_BYTES)
}
