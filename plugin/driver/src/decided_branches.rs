//! Branches an instance decides. Once a body is instantiated with its generic arguments, a
//! `switchInt` on a value computed from constants alone always takes one arm: `device::unrolled!`
//! writes `if R < ROWS` sixteen times, `R` a constant item and `ROWS` a const parameter, so a
//! `gemv_f16_batched_1` body holds fifteen copies of its slot code that can never run. Code
//! generation folds them away; the scope does too, before anything reads the body: the switch
//! becomes a `goto` and every block no path reaches any more is emptied (no statements, an
//! `unreachable` terminator). Neither the callees it named, nor the shared-memory inference, nor
//! the import, nor the verifier then pay for code that cannot run, and nothing they prove is
//! weakened: what they no longer see is exactly what no execution reaches.
//!
//! Only values the body computes from constants are folded: a constant operand, or a local
//! assigned once (never borrowed, never a parameter) from constants by a copy, a comparison, a
//! bitwise or wrapping arithmetic operation, a negation or an integer cast, or the
//! discriminant of a local assigned once from a constant of an enum (a `match` on a `const`
//! item selecting a variant of the code), or a field of a tuple or struct built once and never
//! borrowed or changed in part (`let (rows, lanes) = if SPLIT { (1, warps) } else { (warps, 1) }`
//! once the constant has cut one arm off). Anything else keeps its branch.

use std::rc::Rc;

use rustc_data_structures::fx::FxHashMap;
use rustc_index::{IndexSlice, IndexVec};
use rustc_middle::mir::{
    AggregateKind, BasicBlock, BinOp, Body, CastKind, Local, Operand, ProjectionElem, Rvalue, START_BLOCK,
    StatementKind, TerminatorKind, UnOp,
};
use rustc_middle::ty::{self, EarlyBinder, Instance, Ty, TyCtxt, TypeFoldable, TypeVisitableExt, TypingEnv};

use crate::single_assignment::LocalUses;

/// Folds the switches `body` decides and empties the blocks they cut off; returns how many
/// blocks were emptied.
pub fn prune_decided_branches<'tcx>(tcx: TyCtxt<'tcx>, body: &mut Body<'tcx>) -> usize {
    let mut emptied = 0;
    // Again while a round decides something: emptying a cut-off arm can leave a local assigned
    // once that was assigned on two arms (`if matches!(BUG, Bug::Stale)`: the flag the match
    // sets, then the `if` on it).
    loop {
        let decided = decided_switches(tcx, body, &FxHashMap::default());
        if decided.is_empty() {
            return emptied;
        }
        emptied += empty_cut_off_blocks(body, decided);
    }
}

/// [`prune_decided_branches`], with the values of some parameters known (`arguments`: those
/// every call of the function passes alike, `crate::constant_arguments`; a parameter the body
/// assigns or borrows is not read from them), on a body other scopes of the crate may share
/// (`crate::scope::PreparedBodies`): it is copied only when a switch is decided, so a scope
/// whose arguments decide nothing reads the shared body.
pub fn prune_shared_with_arguments<'tcx>(
    tcx: TyCtxt<'tcx>,
    body: &mut Rc<Body<'tcx>>,
    arguments: &FxHashMap<Local, Scalar>,
) -> usize {
    let mut emptied = 0;
    loop {
        let decided = decided_switches(tcx, body, arguments);
        if decided.is_empty() {
            return emptied;
        }
        emptied += empty_cut_off_blocks(Rc::make_mut(body), decided);
    }
}

/// Each switch `body` decides, with the arm it takes.
fn decided_switches<'tcx>(
    tcx: TyCtxt<'tcx>,
    body: &Body<'tcx>,
    arguments: &FxHashMap<Local, Scalar>,
) -> Vec<(BasicBlock, BasicBlock)> {
    switches_decided_by(&mut Evaluator::new(tcx, body, arguments), body)
}

/// Each switch of `body` whose discriminant `evaluator` evaluates, with the arm it takes.
fn switches_decided_by<'tcx>(
    evaluator: &mut Evaluator<'_, 'tcx>,
    body: &Body<'tcx>,
) -> Vec<(BasicBlock, BasicBlock)> {
    body.basic_blocks
        .iter_enumerated()
        .filter_map(|(block, data)| {
            let TerminatorKind::SwitchInt { discr, targets } = &data.terminator().kind else {
                return None;
            };
            let value = evaluator.operand(discr)?;
            Some((block, targets.target_for_value(value.bits)))
        })
        .collect()
}

/// Turns each decided switch into a `goto` and empties the blocks no path reaches any more;
/// returns how many were emptied.
fn empty_cut_off_blocks(body: &mut Body<'_>, decided: Vec<(BasicBlock, BasicBlock)>) -> usize {
    if decided.is_empty() {
        return 0;
    }
    let blocks = body.basic_blocks_mut();
    for (block, target) in decided {
        blocks[block].terminator_mut().kind = TerminatorKind::Goto { target };
    }
    empty_unreached_blocks(blocks)
}

/// Empties every block no path from the entry reaches (no statements, an `unreachable`
/// terminator); returns how many it emptied.
pub(crate) fn empty_unreached_blocks(
    blocks: &mut IndexVec<BasicBlock, rustc_middle::mir::BasicBlockData<'_>>,
) -> usize {
    let reached = reached_blocks(blocks);
    let mut emptied = 0;
    for (block, data) in blocks.iter_enumerated_mut() {
        if !reached[block] && !matches!(data.terminator().kind, TerminatorKind::Unreachable) {
            data.statements.clear();
            data.terminator_mut().kind = TerminatorKind::Unreachable;
            emptied += 1;
        }
    }
    emptied
}

/// The blocks a path from the entry reaches.
fn reached_blocks(
    blocks: &IndexSlice<BasicBlock, rustc_middle::mir::BasicBlockData<'_>>,
) -> IndexVec<BasicBlock, bool> {
    reached_taking(blocks, &FxHashMap::default())
}

/// The blocks of `instance`'s body as written (uninstantiated) that a path from the entry
/// reaches once each switch the instance decides takes its arm: what [`prune_decided_branches`]
/// on the instantiated body leaves (round by round, each reading only the blocks the last one
/// left), without copying the body. A body with no switch is not evaluated at all.
pub fn reached_as_instantiated<'tcx>(
    tcx: TyCtxt<'tcx>,
    body: &Body<'tcx>,
    instance: Instance<'tcx>,
) -> IndexVec<BasicBlock, bool> {
    let mut reached = reached_blocks(&body.basic_blocks);
    let has_switch = body
        .basic_blocks
        .iter()
        .any(|data| matches!(data.terminator().kind, TerminatorKind::SwitchInt { .. }));
    if !has_switch {
        return reached;
    }
    loop {
        let mut evaluator = Evaluator::of_blocks(tcx, body, Some(&reached), &FxHashMap::default());
        evaluator.instance = Some(instance);
        let decided: FxHashMap<BasicBlock, BasicBlock> =
            switches_decided_by(&mut evaluator, body).into_iter().collect();
        let next = reached_taking(&body.basic_blocks, &decided);
        if next == reached {
            return reached;
        }
        reached = next;
    }
}

/// The blocks a path from the entry reaches, where each switch in `decided` goes only to its
/// arm there.
fn reached_taking(
    blocks: &IndexSlice<BasicBlock, rustc_middle::mir::BasicBlockData<'_>>,
    decided: &FxHashMap<BasicBlock, BasicBlock>,
) -> IndexVec<BasicBlock, bool> {
    let mut reached = IndexVec::from_elem(false, blocks);
    let mut stack = vec![START_BLOCK];
    reached[START_BLOCK] = true;
    while let Some(block) = stack.pop() {
        let mut reach = |successor: BasicBlock| {
            if !reached[successor] {
                reached[successor] = true;
                stack.push(successor);
            }
        };
        match decided.get(&block) {
            Some(&arm) => reach(arm),
            None => blocks[block].terminator().successors().for_each(reach),
        }
    }
    reached
}

/// An integer or boolean value: its bits, zero-extended to the type's width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scalar {
    bits: u128,
    width: u32,
    signed: bool,
}

impl Scalar {
    fn of(bits: u128, width: u32, signed: bool) -> Scalar {
        let mask = if width >= 128 { u128::MAX } else { (1u128 << width) - 1 };
        Scalar { bits: bits & mask, width, signed }
    }

    fn boolean(value: bool) -> Scalar {
        Scalar { bits: value as u128, width: 1, signed: false }
    }

    /// The value as a mathematical integer (signed types sign-extended).
    fn integer(self) -> i128 {
        if self.signed && self.width < 128 {
            let shift = 128 - self.width;
            ((self.bits << shift) as i128) >> shift
        } else {
            self.bits as i128
        }
    }
}

/// Evaluates operands of one body from its constants, its single-assignment locals and the
/// parameters whose argument is known.
pub(crate) struct Evaluator<'a, 'tcx> {
    tcx: TyCtxt<'tcx>,
    definitions: IndexVec<Local, Option<&'a Rvalue<'tcx>>>,
    /// The fields of the tuples and structs assigned once as a whole, never borrowed or changed
    /// in part: what that assignment put in each.
    aggregates: FxHashMap<Local, &'a IndexVec<rustc_abi::FieldIdx, Operand<'tcx>>>,
    /// Locals evaluated so far; `None` also marks one being evaluated (a cycle gives up).
    values: FxHashMap<Local, Option<Scalar>>,
    /// The instance whose generic arguments a body as written is read with (`None`: the body
    /// is already instantiated).
    instance: Option<Instance<'tcx>>,
}

impl<'a, 'tcx> Evaluator<'a, 'tcx> {
    pub(crate) fn new(tcx: TyCtxt<'tcx>, body: &'a Body<'tcx>, arguments: &FxHashMap<Local, Scalar>) -> Self {
        Self::of_blocks(tcx, body, None, arguments)
    }

    /// An evaluator that reads only the blocks `reached` marks (every block where it is
    /// `None`): the body as it would be with every other block emptied.
    fn of_blocks(
        tcx: TyCtxt<'tcx>,
        body: &'a Body<'tcx>,
        reached: Option<&IndexSlice<BasicBlock, bool>>,
        arguments: &FxHashMap<Local, Scalar>,
    ) -> Self {
        let uses = match reached {
            Some(reached) => LocalUses::of_reached(body, reached),
            None => LocalUses::of(body),
        };
        let single = uses.single_assignment_locals();
        let whole_once = uses.single_assignment_aggregates();
        let mut definitions = IndexVec::from_elem(None, &body.local_decls);
        let mut aggregates = FxHashMap::default();
        let statements = body
            .basic_blocks
            .iter_enumerated()
            .filter(|(block, _)| reached.is_none_or(|reached| reached[*block]))
            .flat_map(|(_, data)| &data.statements);
        for statement in statements {
            let StatementKind::Assign(assign) = &statement.kind else { continue };
            let (place, rvalue) = &**assign;
            if !place.projection.is_empty() {
                continue;
            }
            if single[place.local] {
                definitions[place.local] = Some(rvalue);
            } else if whole_once[place.local]
                && let Rvalue::Aggregate(kind, fields) = rvalue
                && is_tuple_or_struct(tcx, kind)
            {
                aggregates.insert(place.local, fields);
            }
        }
        let values = uses
            .unchanged_parameters()
            .into_iter()
            .filter_map(|parameter| arguments.get(&parameter).map(|value| (parameter, Some(*value))))
            .collect();
        Evaluator { tcx, definitions, aggregates, values, instance: None }
    }

    /// `value` as the instance sees it.
    fn instantiated<T: TypeFoldable<TyCtxt<'tcx>>>(&self, value: T) -> T {
        match self.instance {
            Some(instance) => instance.instantiate_mir_and_normalize_erasing_regions(
                self.tcx,
                TypingEnv::fully_monomorphized(),
                EarlyBinder::bind(self.tcx, value),
            ),
            None => value,
        }
    }

    pub(crate) fn operand(&mut self, operand: &Operand<'tcx>) -> Option<Scalar> {
        match operand {
            Operand::Constant(constant) => {
                let constant = self.instantiated(constant.const_);
                let (width, signed) = self.shape(constant.ty())?;
                let bits = constant.try_eval_bits(self.tcx, TypingEnv::fully_monomorphized())?;
                Some(Scalar::of(bits, width, signed))
            }
            Operand::Copy(place) | Operand::Move(place) => match place.projection.as_slice() {
                [] => self.local(place.local),
                [ProjectionElem::Field(field, _)] => {
                    let fields = *self.aggregates.get(&place.local)?;
                    self.operand(fields.get(*field)?)
                }
                _ => None,
            },
            _ => None,
        }
    }

    fn local(&mut self, local: Local) -> Option<Scalar> {
        if let Some(known) = self.values.get(&local) {
            return *known;
        }
        self.values.insert(local, None);
        let value = self.definitions[local].and_then(|rvalue| self.rvalue(rvalue));
        self.values.insert(local, value);
        value
    }

    fn rvalue(&mut self, rvalue: &Rvalue<'tcx>) -> Option<Scalar> {
        match rvalue {
            Rvalue::Use(operand, ..) => self.operand(operand),
            Rvalue::UnaryOp(op, operand) => {
                let value = self.operand(operand)?;
                match op {
                    UnOp::Not if value.width == 1 => Some(Scalar::boolean(value.bits == 0)),
                    UnOp::Not => Some(Scalar::of(!value.bits, value.width, value.signed)),
                    UnOp::Neg => Some(Scalar::of(value.bits.wrapping_neg(), value.width, value.signed)),
                    UnOp::PtrMetadata => None,
                }
            }
            Rvalue::Cast(CastKind::IntToInt, operand, ty) => {
                let value = self.operand(operand)?;
                let (width, signed) = self.shape(self.instantiated(*ty))?;
                Some(Scalar::of(value.integer() as u128, width, signed))
            }
            Rvalue::BinaryOp(op, operands) => {
                let (left, right) = (self.operand(&operands.0)?, self.operand(&operands.1)?);
                binary(*op, left, right)
            }
            Rvalue::Discriminant(place) if place.projection.is_empty() => {
                self.constant_discriminant(place.local)
            }
            _ => None,
        }
    }

    /// The discriminant of a local assigned once from a constant of an enum (`const BUG: Bug =
    /// ..; if matches!(BUG, Bug::Stale) { .. }`): the variant the constant is, as the integer
    /// the switch on it compares.
    fn constant_discriminant(&mut self, local: Local) -> Option<Scalar> {
        let Some(Rvalue::Use(Operand::Constant(constant), ..)) = self.definitions[local] else { return None };
        let span = constant.span;
        let constant = self.instantiated(constant.const_);
        let ty = constant.ty();
        if !ty.is_enum() || ty.has_non_region_param() {
            return None;
        }
        let value = constant.eval(self.tcx, TypingEnv::fully_monomorphized(), span).ok()?;
        let variant = self.tcx.try_destructure_mir_constant_for_user_output(value, ty)?.variant?;
        let discriminant = ty.discriminant_for_variant(self.tcx, variant)?;
        let (width, signed) = self.shape(ty.discriminant_ty(self.tcx))?;
        Some(Scalar::of(discriminant.val, width, signed))
    }

    /// The width and signedness of an integer or boolean type; `None` for any other.
    fn shape(&self, ty: Ty<'tcx>) -> Option<(u32, bool)> {
        let pointer = self.tcx.data_layout.pointer_size().bits() as u32;
        match ty.kind() {
            ty::Bool => Some((1, false)),
            ty::Int(int) => Some((int.bit_width().map_or(pointer, |bits| bits as u32), true)),
            ty::Uint(uint) => Some((uint.bit_width().map_or(pointer, |bits| bits as u32), false)),
            _ => None,
        }
    }
}

/// Whether an aggregate is a tuple or a struct: its operands are its fields, in order (an
/// enum's variant or a union's active field is not).
fn is_tuple_or_struct(tcx: TyCtxt<'_>, kind: &AggregateKind<'_>) -> bool {
    match kind {
        AggregateKind::Tuple => true,
        AggregateKind::Adt(def, _, _, _, active_field) => {
            active_field.is_none() && tcx.adt_def(*def).is_struct()
        }
        _ => false,
    }
}

/// A binary operation on two values of one type, as MIR means it (arithmetic wraps; the
/// checked forms, shifts and division are left undecided).
fn binary(op: BinOp, left: Scalar, right: Scalar) -> Option<Scalar> {
    if left.width != right.width || left.signed != right.signed {
        return None;
    }
    let (a, b) = (left.integer(), right.integer());
    let of = |bits: u128| Some(Scalar::of(bits, left.width, left.signed));
    match op {
        BinOp::Eq => Some(Scalar::boolean(a == b)),
        BinOp::Ne => Some(Scalar::boolean(a != b)),
        BinOp::Lt => Some(Scalar::boolean(a < b)),
        BinOp::Le => Some(Scalar::boolean(a <= b)),
        BinOp::Gt => Some(Scalar::boolean(a > b)),
        BinOp::Ge => Some(Scalar::boolean(a >= b)),
        BinOp::BitAnd => of(left.bits & right.bits),
        BinOp::BitOr => of(left.bits | right.bits),
        BinOp::BitXor => of(left.bits ^ right.bits),
        BinOp::Add => of(left.bits.wrapping_add(right.bits)),
        BinOp::Sub => of(left.bits.wrapping_sub(right.bits)),
        BinOp::Mul => of(left.bits.wrapping_mul(right.bits)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_read_signed_values_as_signed() {
        let minus_one = Scalar::of(u128::MAX, 32, true);
        let one = Scalar::of(1, 32, true);
        assert_eq!(binary(BinOp::Lt, minus_one, one), Some(Scalar::boolean(true)));
        let max = Scalar::of(u32::MAX as u128, 32, false);
        let one = Scalar::of(1, 32, false);
        assert_eq!(binary(BinOp::Lt, max, one), Some(Scalar::boolean(false)));
    }

    #[test]
    fn arithmetic_wraps_at_the_width() {
        let max = Scalar::of(u8::MAX as u128, 8, false);
        let one = Scalar::of(1, 8, false);
        assert_eq!(binary(BinOp::Add, max, one), Some(Scalar::of(0, 8, false)));
        assert_eq!(binary(BinOp::Sub, Scalar::of(0, 8, false), one), Some(max));
    }

    #[test]
    fn division_and_shifts_stay_undecided() {
        let two = Scalar::of(2, 32, false);
        assert_eq!(binary(BinOp::Div, two, two), None);
        assert_eq!(binary(BinOp::Shl, two, two), None);
    }

    #[test]
    fn mixed_types_stay_undecided() {
        assert_eq!(binary(BinOp::Eq, Scalar::of(1, 32, false), Scalar::of(1, 64, false)), None);
    }
}
