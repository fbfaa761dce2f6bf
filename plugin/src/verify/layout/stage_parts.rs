//! The parts of a ring's stages, for rule `shared-layout`: the bytes each state's copies fill,
//! part by part (an A tile and a B tile kept in two rings), that no copy spills into another
//! stage, and whether a read lies inside one part.

use super::{Extent, StateId};

/// One part of a stage a state's copies fill: `[first, end)` at stage 0, repeated every `stride`
/// bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct StagePart {
    pub(super) first: i64,
    pub(super) end: i64,
    pub(super) stride: i64,
}

/// The parts of the stages `state`'s copies fill, lowest first: the copies' extents at stage 0,
/// those of one stride that touch merged into one. A stage split into an A tile and a B tile
/// kept in two rings (`ring + index·A`, `ring + STAGES·A + index·B`) has two parts, each with
/// its own stride.
pub(super) fn stage_parts(rings: &[(Extent, Option<(StateId, i64)>)], state: StateId) -> Vec<StagePart> {
    let mut extents: Vec<(i64, i64, i64)> = rings
        .iter()
        .filter_map(|(extent, ring)| match ring {
            Some((s, stride)) if *s == state => Some((*stride, extent.lo, extent.hi)),
            _ => None,
        })
        .collect();
    extents.sort_unstable();
    let mut parts: Vec<StagePart> = Vec::new();
    for (stride, lo, hi) in extents {
        match parts.last_mut() {
            Some(part) if part.stride == stride && lo <= part.end => part.end = part.end.max(hi),
            _ => parts.push(StagePart { first: lo, end: hi, stride }),
        }
    }
    parts.sort_by_key(|part| part.first);
    parts
}

/// Whether `[lo, hi)` lies inside one part of stage 0 of a ring of stride `stride` (of any state
/// whose copies fill one: a consumer's state indexes the ring its producer's copies fill).
pub(super) fn inside_a_part(
    rings: &[(Extent, Option<(StateId, i64)>)],
    stride: i64,
    lo: i64,
    hi: i64,
) -> bool {
    let mut states: Vec<StateId> = rings
        .iter()
        .filter_map(|(_, ring)| ring.filter(|(_, k)| *k == stride).map(|(state, _)| state))
        .collect();
    states.sort();
    states.dedup();
    states.into_iter().any(|state| {
        stage_parts(rings, state)
            .iter()
            .any(|part| part.stride == stride && part.first <= lo && hi <= part.end.min(part.first + stride))
    })
}

/// Why `copy` (one of the copies whose stage parts are `parts`, `stages` stages) writes into
/// another stage: its part is longer than its stride, or, in some stage, it meets another part in
/// another stage. `None` when it stays in its own stage.
pub(super) fn spilled_stage(
    parts: &[StagePart],
    copy: &Extent,
    stride: i64,
    stages: Option<i64>,
) -> Option<String> {
    let part =
        *parts.iter().find(|part| part.stride == stride && part.first <= copy.lo && copy.hi <= part.end)?;
    let at = |part: &StagePart, k: i64| (part.first + k * part.stride, part.end + k * part.stride);
    // A part longer than the stride spills; of its copies, those that end past the stride are
    // the ones that write into the next stage (the first half of a stage filled by two copies
    // stays in its own).
    if part.end - part.first > stride.abs() && copy.hi - part.first > stride.abs() {
        return Some(format!(
            "this bulk copy writes bytes {}..{} of its stage, but stages are {} bytes apart: it spills into the \
             next stage, which consumers may still be reading",
            copy.lo - part.first,
            copy.hi - part.first,
            stride.abs()
        ));
    }
    let stages = stages.unwrap_or(1);
    for other in parts.iter().filter(|other| **other != part) {
        // Stage `i` of this part against stage `j` of the other, for every `i != j`.
        let meets = (0..stages).flat_map(|i| (0..stages).map(move |j| (i, j))).find(|&(i, j)| {
            let ((lo, hi), (other_lo, other_hi)) = (at(&part, i), at(other, j));
            i != j && lo < other_hi && other_lo < hi
        });
        if let Some((i, j)) = meets {
            return Some(format!(
                "this bulk copy fills window bytes {}..{} + {}·index, and the same state's copies fill bytes {}..{} \
                 + {}·index: stage {i} of the one meets stage {j} of the other, so a copy spills into a stage \
                 consumers may still be reading",
                part.first, part.end, part.stride, other.first, other.end, other.stride
            ));
        }
    }
    None
}
