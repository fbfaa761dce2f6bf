//! State machines threaded. A loop whose body is a `match` over a value the loop itself sets
//! (`loop { match step { Step::Wait => { wait; step = Step::Read } Step::Read => … } }`) runs one
//! arm per pass, in the order the stores into `step` dictate. The typestate's paths do not follow
//! a value through memory: from the `match` they take every arm after every other, orders no
//! launch runs, and could only leave such loops undecided. So the scope threads the jumps before
//! anything reads the body, as an optimiser's jump threading does: where a block stores a variant
//! into `step` (directly, or into a temporary moved into it) and then goes, through at most
//! [`MAX_HOPS`] short blocks ending in a plain jump, to the block that reads `step`'s discriminant
//! and switches on it, the block takes the short blocks' statements at its end and goes straight
//! to the arm that variant selects. What the body computes is unchanged (the discriminant read
//! only feeds the switch, and the statements passed still run, in order); the verifier's paths are
//! the launch's.
//!
//! Only a dispatch of this exact shape is threaded: the switch's block does nothing but read the
//! discriminant of a local (no projection, never borrowed) into a temporary nothing else uses;
//! the variant is one without fields or a constant of the enum, followed through whole-local
//! moves, and any other write of a local on the way forgets what it held. Anything else keeps its
//! jump, and its loop stays a dispatch the typestate leaves undecided.
//!
//! Cost: one pass over the body's blocks and statements to count uses, then per `goto` a walk of
//! at most [`MAX_HOPS`] short blocks.

use rustc_data_structures::fx::FxHashMap;
use rustc_middle::mir::visit::{PlaceContext, Visitor};
use rustc_middle::mir::{
    AggregateKind, BasicBlock, Body, Local, Location, Operand, Rvalue, StatementKind, TerminatorKind,
};
use rustc_middle::ty::{TyCtxt, TypingEnv};

use crate::decided_branches::empty_unreached_blocks;
use crate::single_assignment::LocalMentions;

/// Blocks passed on the way from a store to its dispatch.
const MAX_HOPS: usize = 8;
/// Statements a passed block may hold: they are copied into each block threaded through it.
const MAX_PASSED_STATEMENTS: usize = 8;

/// Threads `body`'s state-machine dispatches (module doc); returns how many jumps it threaded.
pub fn thread_dispatches<'tcx>(tcx: TyCtxt<'tcx>, body: &mut Body<'tcx>) -> usize {
    let dispatches = dispatch_blocks(body);
    if dispatches.is_empty() {
        return 0;
    }
    let mut threads: Vec<(BasicBlock, Vec<BasicBlock>, BasicBlock)> = Vec::new();
    for (block, data) in body.basic_blocks.iter_enumerated() {
        let TerminatorKind::Goto { target } = data.terminator().kind else { continue };
        let Some((passed, header)) = moves_on_to(body, target) else { continue };
        let Some(dispatch) = dispatches.get(&header) else { continue };
        if block == header || passed.contains(&header) {
            continue;
        }
        let walked = std::iter::once(block).chain(passed.iter().copied());
        let Some(value) = variant_left(tcx, body, walked, dispatch.local) else { continue };
        let TerminatorKind::SwitchInt { targets, .. } = &body.basic_blocks[header].terminator().kind else {
            continue;
        };
        threads.push((block, passed, targets.target_for_value(value)));
    }
    let threaded = threads.len();
    let blocks = body.basic_blocks_mut();
    for (block, passed, target) in threads {
        // The blocks passed on the way run their moves at the end of this one.
        let moved: Vec<_> = passed.iter().flat_map(|b| blocks[*b].statements.clone()).collect();
        blocks[block].statements.extend(moved);
        blocks[block].terminator_mut().kind = TerminatorKind::Goto { target };
    }
    if threaded > 0 {
        empty_unreached_blocks(blocks);
    }
    threaded
}

/// A block that switches on the discriminant of `local`.
struct Dispatch {
    local: Local,
}

/// The blocks of `body` whose only work is `d = discriminant(s); switchInt(d)`, `s` a local
/// never borrowed and `d` used by that switch alone.
fn dispatch_blocks(body: &Body<'_>) -> FxHashMap<BasicBlock, Dispatch> {
    let uses = LocalMentions::of(body);
    let mut found = FxHashMap::default();
    for (block, data) in body.basic_blocks.iter_enumerated() {
        let TerminatorKind::SwitchInt { discr: Operand::Copy(read) | Operand::Move(read), .. } =
            &data.terminator().kind
        else {
            continue;
        };
        let mut work = data.statements.iter().filter(|statement| !does_nothing(&statement.kind));
        let (Some(statement), None) = (work.next(), work.next()) else { continue };
        let StatementKind::Assign(assign) = &statement.kind else { continue };
        let (into, Rvalue::Discriminant(of)) = &**assign else { continue };
        let discriminant = into.as_local().filter(|d| read.as_local() == Some(*d));
        let (Some(discriminant), Some(local)) = (discriminant, of.as_local()) else { continue };
        if uses.count[discriminant] == 2 && !uses.borrowed[local] {
            found.insert(block, Dispatch { local });
        }
    }
    found
}

/// Whether a statement has no effect on what the body computes: storage markers, `Nop`, and
/// what borrow checking left behind (`PlaceMention` of a `match`'s scrutinee, `FakeRead`, type
/// ascriptions, coverage counters).
fn does_nothing(kind: &StatementKind<'_>) -> bool {
    matches!(
        kind,
        StatementKind::StorageLive(_)
            | StatementKind::StorageDead(_)
            | StatementKind::Nop
            | StatementKind::PlaceMention(_)
            | StatementKind::FakeRead(_)
            | StatementKind::AscribeUserType(..)
            | StatementKind::Coverage(_)
            | StatementKind::ConstEvalCounter
    )
}

/// The block a jump to `target` ends at, and the blocks passed on the way there: short blocks
/// (at most [`MAX_PASSED_STATEMENTS`] statements that do something) that jump on unconditionally,
/// such as the join of `step = if … { A } else { B }` (`_8 = move _47; _12 = const ()`).
fn moves_on_to(body: &Body<'_>, mut target: BasicBlock) -> Option<(Vec<BasicBlock>, BasicBlock)> {
    let mut passed = Vec::new();
    for _ in 0..MAX_HOPS {
        let data = &body.basic_blocks[target];
        let short = data.statements.iter().filter(|statement| !does_nothing(&statement.kind)).count()
            <= MAX_PASSED_STATEMENTS;
        match data.terminator().kind {
            TerminatorKind::Goto { target: next } if short => {
                passed.push(target);
                target = next;
            }
            _ => return Some((passed, target)),
        }
    }
    None
}

/// The discriminant of the variant `local` holds after `blocks` run one after the other, where
/// their statements say it: a variant without fields or a constant of the enum stored into a
/// local, moved whole from local to local. Any other write of a local forgets what it held.
fn variant_left<'tcx>(
    tcx: TyCtxt<'tcx>,
    body: &Body<'tcx>,
    blocks: impl Iterator<Item = BasicBlock>,
    local: Local,
) -> Option<u128> {
    let ty = body.local_decls[local].ty;
    if !ty.is_enum() {
        return None;
    }
    let mut held: FxHashMap<Local, u128> = FxHashMap::default();
    for block in blocks {
        for statement in &body.basic_blocks[block].statements {
            if does_nothing(&statement.kind) {
                continue;
            }
            let mut writes = WrittenLocals::default();
            writes.visit_statement(statement, Location::START);
            let known = match &statement.kind {
                StatementKind::Assign(assign) => match (assign.0.as_local(), &assign.1) {
                    (Some(_), Rvalue::Use(Operand::Copy(from) | Operand::Move(from), ..)) => {
                        from.as_local().and_then(|from| held.get(&from).copied())
                    }
                    (Some(into), value) => variant_of(tcx, body.local_decls[into].ty, value),
                    _ => None,
                },
                _ => None,
            };
            for written in writes.0 {
                held.remove(&written);
            }
            if let (Some(value), StatementKind::Assign(assign)) = (known, &statement.kind)
                && let Some(into) = assign.0.as_local()
            {
                held.insert(into, value);
            }
        }
    }
    held.get(&local).copied()
}

/// The discriminant of the enum variant `value` builds, as the bits a switch compares: a variant
/// without fields, or a constant of the enum.
fn variant_of<'tcx>(tcx: TyCtxt<'tcx>, ty: rustc_middle::ty::Ty<'tcx>, value: &Rvalue<'tcx>) -> Option<u128> {
    if !ty.is_enum() {
        return None;
    }
    let variant = match value {
        Rvalue::Aggregate(kind, operands) if operands.is_empty() => match **kind {
            AggregateKind::Adt(_, variant, ..) => variant,
            _ => return None,
        },
        Rvalue::Use(Operand::Constant(constant), ..) => {
            let value = constant.const_.eval(tcx, TypingEnv::fully_monomorphized(), constant.span).ok()?;
            tcx.try_destructure_mir_constant_for_user_output(value, ty)?.variant?
        }
        _ => return None,
    };
    ty.discriminant_for_variant(tcx, variant).map(|discriminant| discriminant.val)
}

/// The locals a statement writes (any part of them).
#[derive(Default)]
struct WrittenLocals(Vec<Local>);

impl<'tcx> Visitor<'tcx> for WrittenLocals {
    fn visit_local(&mut self, local: Local, context: PlaceContext, _: Location) {
        if context.is_mutating_use() && !context.is_storage_marker() {
            self.0.push(local);
        }
    }
}
