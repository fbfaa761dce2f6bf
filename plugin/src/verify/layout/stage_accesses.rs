//! Stage accesses of rule `shared-layout`: every read or write of a stage, and every call handed
//! one, starts from a stage of a ring the copies fill, an offset added inside the stage that the
//! intervals read stays inside it, and a slice made over a stage ends inside it.

use super::*;
use crate::verify::memory::is_pointer_step;
use rustc_hash::FxHashSet;

/// Whether every byte the access at `address` touches, for every thread reaching it and every
/// loop iteration, lies inside the stage its state's index names: its address is `window +
/// stride·index + [lo, hi]`, and for a ring of that stride (a consumer's state indexes the ring
/// its producer's copies fill) `[lo, hi + size)` lies within the bytes the copies fill without a
/// hole from the first stage's start. A stage read indexed by a row counter and the thread's
/// column (`ring[index·TILE + r·32 + c]`) is placed so. An interval over-approximates, so an
/// access it does not show inside is left to the exact rule (a gap at worst, never a rejection).
/// `None` when the intervals cannot read the address at all; `Some(false)` when they read it but
/// do not show it inside a stage.
fn inside_first_stage(
    intervals: &Evaluator<'_, '_>,
    rings: &[(Extent, Option<(StateId, i64)>)],
    address: Value,
) -> Option<bool> {
    let ctx = intervals.ctx;
    let form = intervals.place(address)?;
    let Some(size) = pointee_bytes(ctx, address.get_type(ctx)) else { return Some(false) };
    let Affine { window: 1, index: Some((_, stride)), lo, hi, .. } = form else {
        return Some(false);
    };
    // A consumer's state indexes the ring its producer's copies fill: any ring of that stride.
    let inside = inside_a_part(rings, stride, lo, hi + size);
    Some(inside)
}

/// Every read or write of a stage starts from the stage's own address: the pointer the access
/// derives from (`base + k·index + c`) must be a stage of a ring the copies fill, the same
/// stride `k` and the same first stage `c`, wherever its stages (`index` below the state's stage
/// count) touch a ring or the barriers. A stage pointer in other units (`index * TILE_BYTES`
/// elements of `f32`) or with another stride reads another stage, or past the window. One that
/// touches neither is a table of its own indexed by stage (a tag per stage), ordered by the
/// same waits and releases. An offset the access adds inside its stage (a column, a row) that
/// the intervals read must lie inside the stage ([`inside_first_stage`]), else the access is a
/// gap; one they cannot read is not bounded. A stage pointer the evaluator cannot place is a
/// gap.
pub(super) fn check_stage_accesses(
    reporter: &mut Reporter,
    (evaluator, intervals): (&Evaluator<'_, '_>, &Evaluator<'_, '_>),
    rings: &[(Extent, Option<(StateId, i64)>)],
    occupied: &[Extent],
    gaps: &mut Vec<Gap>,
    own_tables: &mut bool,
) {
    let (ctx, index) = (reporter.ctx, reporter.index);
    // Each ring's first stage and stride, from the copies that fill it.
    let mut starts: Vec<(i64, i64)> = Vec::new();
    for (_, ring_index) in rings {
        let Some((state, stride)) = ring_index else { continue };
        for part in stage_parts(rings, *state).into_iter().filter(|part| part.stride == *stride) {
            if !starts.contains(&(part.first, *stride)) {
                starts.push((part.first, *stride));
            }
        }
    }
    if starts.is_empty() {
        return;
    }
    let walk = evaluator.walk();
    for (n, op) in index.ops_where(|class| class.accesses_memory() || class == OpClass::Call) {
        // A load or store, or a call handed a stage: the helper's own accesses are through its
        // parameter, so the pointer handed over must at least start at a stage of the ring
        // (what the helper adds to it is not bounded: the documented hole of `shared-layout`).
        if let Some((pointer, length)) = slice_from_parts(ctx, op)
            && let Some((state, stage)) = stage_pointer(ctx, &walk, pointer)
        {
            match stage {
                StageSource::Pointer(stage) => {
                    if let Some(why) = stage_view_unproven(evaluator, &starts, pointer, stage, length) {
                        gaps.push(Gap::at(ctx, index, op, GapKind::Undecided, why));
                    }
                }
                StageSource::Table(table, _) => {
                    judge_table(reporter, gaps, evaluator, (&starts, occupied), (state, table), op)
                }
            }
            continue;
        }
        let found = match index.accessed_address(n) {
            Some(address) => {
                stage_pointer(ctx, &walk, address).map(|(state, stage)| (state, address, stage, false))
            }
            None => stage_handed_to_call(ctx, &walk, op)
                .map(|(state, operand, stage)| (state, operand, stage, true)),
        };
        let (address, stage, handed) = match found {
            Some((_, address, StageSource::Pointer(stage), handed)) => (address, stage, handed),
            // A stage pointer read from a table at the stage index: every entry the index can
            // select must be its stage's pointer (the offset added to the entry is not bounded,
            // as for a call handed a stage).
            Some((state, _, StageSource::Table(table, _), _)) => {
                judge_table(reporter, gaps, evaluator, (&starts, occupied), (state, table), op);
                continue;
            }
            None => {
                // An access inside a helper through a stage pointer a call handed it (a reader
                // summing a column): its whole address, read from the call's stage, must be shown
                // inside the stage, or the offsets the helper adds are not bounded.
                if let Some(address) = index.accessed_address(n)
                    && reaches_stage_through_parameters(ctx, &walk, address)
                {
                    intervals.access_block.set(Some(index.op_block[n]));
                    if inside_first_stage(intervals, rings, address) != Some(true) {
                        gaps.push(Gap::at(
                            ctx,
                            index,
                            op,
                            GapKind::Undecided,
                            "the shared-memory layout: an access through a stage pointer a helper was handed, at an \
                             offset the intervals of its threads and loop counters do not show inside the stage"
                                .to_string(),
                        ));
                    }
                }
                continue;
            }
        };
        let mut form = evaluator.stage_form(address, stage);
        if handed && !form.is_some_and(|form| form.lo == form.hi) {
            // A column or row added before the call: the stage pointer itself must start a stage.
            form = evaluator.place(stage);
        }
        intervals.access_block.set(Some(index.op_block[n]));
        if !handed
            && !form.is_some_and(|form| form.lo == form.hi)
            && inside_first_stage(intervals, rings, address) == Some(true)
        {
            continue;
        }
        match form {
            Some(Affine { window: 1, index: Some((state, stride)), lo, hi, .. }) if lo == hi => {
                let last = lo + stride * (evaluator.stages(state).unwrap_or(1) - 1);
                let span = Extent { op, lo: lo.min(last), hi: lo.max(last) + 1 };
                let touches = occupied.iter().any(|extent| overlaps(extent, &span));
                // A table of its own: ordinary shared memory beside the layout may not be shown
                // apart from it.
                *own_tables |= !touches;
                // A pointer to a part of a stage (the second tile of a two-tile stage, `stage +
                // slot·TILE`) starts at no stage, but an access the intervals show wholly inside
                // a stage of a ring of its stride reads that stage.
                let inside_a_stage = || !handed && inside_first_stage(intervals, rings, address) == Some(true);
                if touches && !starts.contains(&(lo, stride)) && !inside_a_stage() {
                    let rings = starts
                        .iter()
                        .map(|(first, stride)| format!("{first} + {stride}·index"))
                        .collect::<Vec<_>>()
                        .join(", ");
                    reporter.reject(
                        Rule::SharedLayout,
                        op,
                        format!(
                            "this access's stage pointer is at window byte {lo} + {stride}·index, but the copies fill \
                             stages at {rings}: it reads another stage, or past the ring"
                        ),
                        vec![],
                    );
                } else if touches && !handed && inside_first_stage(intervals, rings, address) != Some(true) {
                    // The stage pointer is a ring's, and the row or column added to it may reach
                    // past the stage: the intervals show it outside, or cannot read it at all.
                    gaps.push(Gap::at(
                        ctx,
                        index,
                        op,
                        GapKind::Undecided,
                        "the shared-memory layout: a stage access at an offset from its stage pointer that the \
                         intervals of its threads and loop counters do not show inside the stage"
                            .to_string(),
                    ));
                }
            }
            _ => gaps.push(Gap::at(
                ctx,
                index,
                op,
                GapKind::Undecided,
                "the shared-memory layout: a stage access whose stage pointer is not a constant offset plus a \
                 multiple of the stage index from the dynamic shared base"
                    .to_string(),
            )),
        }
    }
}

/// Calls a pointer is followed up through to the stage pointer a call hands a helper.
const HANDED_STAGE_DEPTH: u32 = 4;
/// Definitions looked at to find that a helper's pointer came from a stage pointer.
const HANDED_STAGE_BUDGET: u32 = 64;

/// Whether `address` (in a helper) may derive from a stage pointer some call hands the helper:
/// through offsets, casts and locals back to a parameter, and from there to the arguments of the
/// helper's calls (any one that is a stage pointer, or derives from one).
fn reaches_stage_through_parameters(ctx: &Context, walk: &StageWalk, address: Value) -> bool {
    let mut pending = vec![(address, HANDED_STAGE_DEPTH)];
    let mut seen: FxHashSet<Value> = FxHashSet::default();
    let mut budget = HANDED_STAGE_BUDGET;
    while let Some((at, depth)) = pending.pop() {
        if budget == 0 {
            return false;
        }
        budget -= 1;
        if !seen.insert(at) {
            continue;
        }
        match at.defining_entity() {
            DefiningEntity::Block(_) if depth > 0 => {
                for argument in walk.index.call_arguments(ctx, at).unwrap_or_default() {
                    if stage_pointer(ctx, walk, argument).is_some() {
                        return true;
                    }
                    pending.push((argument, depth - 1));
                }
            }
            DefiningEntity::Op(def) => {
                let operands: Vec<Value> = def.deref(ctx).operands().collect();
                if is_pointer_step(ctx, def) {
                    pending.push((operands[0], depth));
                } else if Operation::get_op::<LoadOp>(def, ctx).is_some() {
                    let stored = walk
                        .locals
                        .stored_over(ctx, operands[0])
                        .or_else(|| walk.stored_through_memory(ctx, operands[0], at.get_type(ctx)));
                    pending.extend(stored.unwrap_or_default().into_iter().map(|value| (value, depth)));
                }
            }
            DefiningEntity::Block(_) => {}
        }
    }
    false
}

/// Entries of a table of stage pointers the layout places (a ring has at most this many stages).
const MAX_TABLE_ENTRIES: i64 = 32;
/// Definitions the walk through memory may look at for one entry of a table.
const TABLE_FLOW_BUDGET: u32 = 64;

/// What the entries of a table of stage pointers are.
enum TablePlacement {
    /// Entry `k` is stage `k` of a ring, for every stage `k` of the state.
    Stages,
    /// Some entry is not read (why).
    Unproven(String),
    /// Every entry is read, and some entry points at another stage or the barriers (why).
    OtherStages(String),
}

/// Judges access `op` through the table of stage pointers at `table`, read at `state`'s index
/// ([`placed_table`]): a table of the ring's stages passes, one pointing at other stages is
/// rejected, one not read is a gap.
fn judge_table(
    reporter: &mut Reporter,
    gaps: &mut Vec<Gap>,
    evaluator: &Evaluator<'_, '_>,
    (starts, occupied): (&[(i64, i64)], &[Extent]),
    (state, table): (StateId, Value),
    op: Ptr<Operation>,
) {
    match placed_table(evaluator, starts, occupied, state, table) {
        TablePlacement::Stages => {}
        TablePlacement::Unproven(why) => {
            gaps.push(Gap::at(reporter.ctx, reporter.index, op, GapKind::Undecided, why))
        }
        TablePlacement::OtherStages(why) => reporter.reject(Rule::SharedLayout, op, why, vec![]),
    }
}

/// Places the stage pointers in the table at `table` (the address of its first entry, read at
/// `state`'s stage index): entry `k`, for every stage `k` of the state, must hold the pointer to
/// stage `k` of one ring the copies fill, `first + k·stride` bytes into the window. A table whose
/// entries the walk through memory cannot read (not one aggregate stored once), or one in other
/// units, or whose entries all lie off the ring and the barriers, is a gap; one rotated, or
/// reaching the ring or the barriers elsewhere than stage `k`, is rejected.
fn placed_table(
    evaluator: &Evaluator<'_, '_>,
    starts: &[(i64, i64)],
    occupied: &[Extent],
    state: StateId,
    table: Value,
) -> TablePlacement {
    let ctx = evaluator.ctx;
    let unproven = |what: String| {
        TablePlacement::Unproven(format!(
            "the shared-memory layout: a stage pointer read from a table at the stage index, whose {what}"
        ))
    };
    let Some(stages) = evaluator.stages(state).filter(|stages| (1..=MAX_TABLE_ENTRIES).contains(stages))
    else {
        return unproven("state has no known stage count".to_string());
    };
    let flow = Flow { ctx, index: evaluator.index, locals: evaluator.locals, leaf: None };
    let mut offsets = Vec::new();
    for k in 0..stages {
        let mut budget = TABLE_FLOW_BUDGET;
        let entry = match flow.pointees(table, &[k as u32], &mut budget).as_deref() {
            Some([only]) => *only,
            _ => return unproven(format!("entry {k} the walk through memory cannot read as one value")),
        };
        match evaluator.place(entry) {
            Some(Affine { window: 1, index: None, lo, hi, .. }) if lo == hi => offsets.push(lo),
            _ => return unproven(format!("entry {k} is not a constant offset from the dynamic shared base")),
        }
    }
    if starts
        .iter()
        .any(|(first, stride)| offsets.iter().enumerate().all(|(k, at)| *at == first + stride * k as i64))
    {
        return TablePlacement::Stages;
    }
    let touches = |at: i64| occupied.iter().any(|extent| extent.lo <= at && at < extent.hi);
    if !offsets.iter().any(|at| touches(*at)) {
        return unproven(format!("entries point at window bytes {offsets:?}, off the ring and the barriers"));
    }
    let rings =
        starts.iter().map(|(first, stride)| format!("{first} + {stride}·k")).collect::<Vec<_>>().join(", ");
    TablePlacement::OtherStages(format!(
        "this access's stage pointer is entry `index` of a table whose entries point at window bytes {offsets:?}, \
         but stage k of the ring the copies fill is at {rings}: it reads another stage, or the barriers"
    ))
}

/// Why a slice made over a stage is not shown inside it (`None` when it is): the iterators and
/// readers the slice is handed to read every one of its `length` elements, so all of them must
/// lie between the stage pointer and the next stage. A slice one row too long reads the next
/// stage, or the barriers, in its last elements.
fn stage_view_unproven(
    evaluator: &Evaluator<'_, '_>,
    starts: &[(i64, i64)],
    pointer: Value,
    stage: Value,
    length: Value,
) -> Option<String> {
    let ctx = evaluator.ctx;
    let unread = "the shared-memory layout: a slice over a stage whose start, length or element size are not \
                  constants the evaluator reads, so its elements are not shown inside the stage";
    let Some(element) = pointee_bytes(ctx, pointer.get_type(ctx)) else { return Some(unread.to_string()) };
    let Some(Affine { window: 1, index: Some((_, stride)), lo, hi, .. }) =
        evaluator.stage_form(pointer, stage)
    else {
        return Some(unread.to_string());
    };
    let length = evaluator.place(length).filter(|form| form.is_constant() && form.lo == form.hi);
    let (Some(length), true) = (length, lo == hi) else { return Some(unread.to_string()) };
    // The ring whose stage the pointer lies in; a pointer in none is judged by the accesses
    // through the slice (another stage, or past the ring).
    let first = starts.iter().find(|(first, s)| *s == stride && (*first..first + stride).contains(&lo))?.0;
    let end = lo + length.lo * element;
    (end > first + stride).then(|| {
        format!(
            "the shared-memory layout: a slice of {} elements of {element} bytes made at window byte {lo} + \
             {stride}·index ends {} bytes past its stage (stages are {stride} bytes apart): reading it whole reads \
             the next stage or past the ring",
            length.lo,
            end - first - stride
        )
    })
}
