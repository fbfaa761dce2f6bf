//! Statements: assignments (rvalues as IR arithmetic, casts, comparisons, aggregates), the
//! opaque fallback, and the range and hidden-pointer shapes MIR lowers library calls to.

use pliron::r#type::{TypeHandle, Typed};
use pliron::value::Value;
use plugin::ir::builder::{FunctionBuilder, SourceLoc};
use plugin::ir::mir::arith::{BinOpKind, CastKind as IrCast, CmpPredicate};
use plugin::verify::accounting;
use rustc_abi::Size;
use rustc_hir::attrs::lang_items::LangItem;
use rustc_middle::mir::interpret::{GlobalAlloc, Scalar, alloc_range};
use rustc_middle::mir::{
    self, AggregateKind, BinOp, CastKind, ConstValue, Operand, Place, ProjectionElem, Rvalue, StatementKind,
    UnOp,
};
use rustc_middle::ty::{self, Instance, Ty, TypingEnv};
use rustc_span::Spanned;

use crate::scope::resolve_callee;
use crate::spaces::field_path;

use super::analysis::{Assignment, ReferenceOrigin, core_item_name, reference_origin};
use super::state_abi::{captures_state_mutably, is_pipeline_state};
use super::types::{int_type, is_shared_pointer, pointer_pointee};
use super::{FunctionImport, Importer, Slot, enum_field};

impl<'tcx> Importer<'_, 'tcx> {
    pub(super) fn opaque(
        &mut self,
        builder: &FunctionBuilder,
        what: &str,
        args: &[Value],
        results: &[TypeHandle],
        at: &SourceLoc,
    ) -> Vec<Value> {
        self.stats.opaque += 1;
        builder.opaque(self.ctx, what, args, results, at)
    }

    /// The values an aggregate the import keeps opaque is built from (a closure's captures in
    /// the order of its environment's fields, an array's elements), as the operands of the
    /// opaque operation (so that what a capture holds can be followed into the closure's body);
    /// none when one cannot be read as a value. A capture that names a pipeline state is an
    /// opaque placeholder of its type: the state's slots cross into the closure by the state
    /// calling convention, never through the environment, and the placeholder keeps the other
    /// captures at their fields' positions (a closure capturing `&mut state` and `&ring`).
    fn closure_captures(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        operands: &[Operand<'tcx>],
        at: &SourceLoc,
    ) -> Vec<Value> {
        let names_state = |operand: &Operand<'tcx>| {
            operand.place().is_some_and(|place| {
                function.state_of(place).is_some()
                    || function.references.contains_key(&place.local)
                    || function.state_path(place).is_some_and(|path| !function.states_below(&path).is_empty())
            })
        };
        let mut captures = Vec::with_capacity(operands.len());
        for operand in operands.iter() {
            let value = if names_state(operand) {
                let ty = self.ir_type(operand.ty(function.body, self.tcx), None);
                Some(self.opaque(builder, accounting::STATE_CAPTURE, &[], &[ty], at)[0])
            } else {
                self.operand(function, builder, operand, at)
            };
            match value {
                Some(value) => captures.push(value),
                None => return Vec::new(),
            }
        }
        captures
    }

    pub(super) fn statement(
        &mut self,
        function: &mut FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        kind: &StatementKind<'tcx>,
        at: &SourceLoc,
    ) {
        match kind {
            StatementKind::Assign(assign) => {
                self.stats.operations += 1;
                let (place, rvalue) = &**assign;
                self.assign(function, builder, *place, rvalue, at);
            }
            StatementKind::StorageLive(_)
            | StatementKind::StorageDead(_)
            | StatementKind::Nop
            | StatementKind::FakeRead(_)
            | StatementKind::PlaceMention(_)
            | StatementKind::AscribeUserType(..)
            | StatementKind::Coverage(_)
            | StatementKind::ConstEvalCounter
            | StatementKind::BackwardIncompatibleDropHint { .. } => {}
            other => {
                self.stats.operations += 1;
                self.opaque(builder, &format!("{other:?}"), &[], &[], at);
            }
        }
    }

    pub(super) fn assign(
        &mut self,
        function: &mut FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        place: Place<'tcx>,
        rvalue: &Rvalue<'tcx>,
        at: &SourceLoc,
    ) {
        // `&mut iterator` for a modelled `next`, which reads the iterator's parts itself; and a
        // modelled iterator moved whole, part by part.
        if place.as_local().is_some_and(|local| function.counted.references.contains_key(&local))
            || self.counted_copy(function, builder, place, rvalue, at)
            || self.mapped_move(function, place, rvalue)
        {
            return;
        }
        // A constant aggregate copied into memory, field by field (`constant_memory`).
        if let Rvalue::Use(Operand::Constant(constant), ..) = rvalue
            && matches!(function.slots[place.local], Slot::Whole(_))
            && let Some(address) = self.address(function, builder, place, at)
            && self.constant_aggregate(builder, constant, address, at).is_some()
        {
            return;
        }
        // A reference to a pipeline state is followed statically: after `_7 = &mut _5`, `_7`
        // names `_5`'s index and phase; a reference to an aggregate holding states names them
        // below it (`(*_7).0`), and is imported as a pointer too.
        if let Rvalue::Ref(_, _, borrowed) | Rvalue::RawPtr(_, borrowed) = rvalue
            && place.projection.is_empty()
            && function.assignments[place.local].once()
            && let Some(target) = function.state_path(*borrowed)
            && !function.states_below(&target).is_empty()
        {
            let exact = function.states.contains_key(&target);
            function.references.insert(place.local, target);
            if exact {
                return;
            }
        }
        // A reference to a state copied (`_7 = copy ((*_1).1)`, a closure's capture by
        // reference, or `let r2 = r1`): the copy names the same state.
        if let Rvalue::Use(Operand::Copy(source) | Operand::Move(source), ..) = rvalue
            && place.projection.is_empty()
            && function.assignments[place.local].once()
            && source.ty(function.body, self.tcx).ty.is_ref()
            && let Some(target) = function.state_of(*source)
        {
            function.references.insert(place.local, target);
            return;
        }
        // A state, or an aggregate holding states, copied or moved: each state's both halves.
        let writes_reference = function.references.contains_key(&place.local)
            && place.projection.first() != Some(&ProjectionElem::Deref);
        let to = function
            .state_path(place)
            .filter(|to| !writes_reference && !function.states_below(to).is_empty());
        if let Some(to) = &to {
            let copied = match rvalue {
                Rvalue::Use(Operand::Copy(source) | Operand::Move(source), ..) => {
                    let copied = self.copy_states(function, builder, *source, to, at);
                    if copied && to.1.is_empty() && matches!(rvalue, Rvalue::Use(Operand::Move(_), ..)) {
                        self.write_back_moved_closure(function, *source, to.0);
                    }
                    copied
                }
                Rvalue::Aggregate(kind, operands) => {
                    if let mir::AggregateKind::Closure(..) = **kind
                        && to.1.is_empty()
                    {
                        for (k, operand) in operands.iter().enumerate() {
                            let ty = operand.ty(function.body, self.tcx);
                            // What the capture stands for, written back after each call: the
                            // state a capture by reference names, or the closure a closure
                            // moved into this one came from, where it captured a state by
                            // `&mut` (the standard library wrapping a `for_each` closure: its
                            // copy here takes the advances).
                            let source = operand.place().and_then(|p| {
                                if ty.is_ref() {
                                    function.state_of(p)
                                } else if captures_state_mutably(self.tcx, ty, 0) {
                                    function.state_path(p)
                                } else {
                                    None
                                }
                            });
                            if let Some(source) = source {
                                function.write_back.insert((to.0, k as u32), source);
                            }
                        }
                    }
                    let variant = match **kind {
                        mir::AggregateKind::Adt(def, variant, ..) if self.tcx.adt_def(def).is_enum() => {
                            Some(variant.as_u32())
                        }
                        _ => None,
                    };
                    let mut copied = true;
                    for (k, operand) in operands.iter().enumerate() {
                        let element = variant.map_or(k as u32, |variant| enum_field(variant, k as u32));
                        let field = (to.0, [to.1.clone(), vec![element]].concat());
                        if function.states_below(&field).is_empty() {
                            continue;
                        }
                        copied &= operand
                            .place()
                            .is_some_and(|source| self.copy_states(function, builder, source, &field, at));
                    }
                    copied
                }
                _ => false,
            };
            if !copied {
                self.forget_states(function, builder, to, at);
            }
            if function.states.contains_key(to) {
                return;
            }
        }
        let result_ty = place.ty(function.body, self.tcx).ty;
        let view = field_path(&place).and_then(|path| self.shared.view(function.instance, &path));
        let ir_result = self.ir_type(result_ty, view);
        let value = match rvalue {
            Rvalue::Use(operand, ..) => self.operand(function, builder, operand, at),
            Rvalue::Discriminant(_) => self.counted_discriminant(function, builder, rvalue, at),
            Rvalue::BinaryOp(op, operands) => {
                let lhs = self.operand(function, builder, &operands.0, at);
                let rhs = self.operand(function, builder, &operands.1, at);
                match (lhs, rhs) {
                    (Some(lhs), Some(rhs)) if *op == BinOp::Offset => {
                        let element = operands.0.ty(function.body, self.tcx).builtin_deref(true);
                        element.map(|element| {
                            let pointer = self.element_address(builder, lhs, element, rhs, at);
                            self.coerce(builder, pointer, ir_result, at)
                        })
                    }
                    (Some(lhs), Some(rhs)) => self.binary(builder, *op, lhs, rhs, at),
                    _ => None,
                }
            }
            Rvalue::UnaryOp(UnOp::Not, operand) => {
                let value = self.operand(function, builder, operand, at);
                value.and_then(|value| {
                    let int = int_type(self.ctx, value.get_type(self.ctx))?;
                    let ones = builder.const_int(self.ctx, int, -1, at);
                    Some(builder.binop(self.ctx, BinOpKind::BitXor, value, ones, at))
                })
            }
            Rvalue::UnaryOp(UnOp::Neg, operand) => {
                let value = self.operand(function, builder, operand, at);
                value.map(|value| {
                    let ty = value.get_type(self.ctx);
                    let zero = match int_type(self.ctx, ty) {
                        Some(int) => builder.const_int(self.ctx, int, 0, at),
                        None => builder.const_float(self.ctx, ty, 0.0, at),
                    };
                    builder.binop(self.ctx, BinOpKind::Sub, zero, value, at)
                })
            }
            Rvalue::Cast(kind, operand, _) => {
                let value = self.operand(function, builder, operand, at);
                let kind = match kind {
                    CastKind::IntToInt => Some(IrCast::IntToInt),
                    CastKind::IntToFloat => Some(IrCast::IntToFloat),
                    CastKind::FloatToInt => Some(IrCast::FloatToInt),
                    CastKind::FloatToFloat => Some(IrCast::FloatToFloat),
                    CastKind::PtrToPtr | CastKind::PointerCoercion(..) => Some(IrCast::PtrToPtr),
                    CastKind::PointerExposeProvenance => Some(IrCast::PtrToInt),
                    CastKind::PointerWithExposedProvenance => Some(IrCast::IntToPtr),
                    CastKind::Transmute => Some(IrCast::Transmute),
                    _ => None,
                };
                // The destination's type comes from the inference: a typed shared view cast to
                // another pointee keeps its view (see `spaces`), so such a cast may change
                // nothing but the mutability, or nothing at all.
                match (value, kind) {
                    (Some(value), Some(_)) if value.get_type(self.ctx) == ir_result => Some(value),
                    (Some(value), Some(kind)) => Some(builder.cast(self.ctx, kind, value, ir_result, at)),
                    _ => None,
                }
            }
            Rvalue::Ref(_, _, borrowed) | Rvalue::RawPtr(_, borrowed) => {
                self.address(function, builder, *borrowed, at).map(|address| {
                    if address.get_type(self.ctx) == ir_result {
                        address
                    } else {
                        builder.cast(self.ctx, IrCast::PtrToPtr, address, ir_result, at)
                    }
                })
            }
            // `ptr::from_raw_parts(data, ())` (the tail of `byte_add`, `cast`): a thin pointer is
            // its data pointer at another pointee.
            Rvalue::Aggregate(kind, operands)
                if matches!(**kind, mir::AggregateKind::RawPtr(..))
                    && matches!(&operands.raw[..], [_, meta] if meta.ty(function.body, self.tcx).is_unit()) =>
            {
                let data = self.operand(function, builder, &operands.raw[0], at);
                data.filter(|data| pointer_pointee(self.ctx, *data).is_some())
                    .map(|data| self.coerce(builder, data, ir_result, at))
            }
            Rvalue::Aggregate(kind, operands)
                if matches!(
                    **kind,
                    mir::AggregateKind::Tuple | mir::AggregateKind::Adt(_, _, _, _, None)
                ) && !matches!(result_ty.kind(), ty::Adt(adt, _) if adt.is_enum()) =>
            {
                for (index, operand) in operands.iter_enumerated() {
                    let field_ty = operand.ty(function.body, self.tcx);
                    if is_pipeline_state(self.tcx, field_ty) {
                        // Its index and phase were copied into the field's state slots above.
                        continue;
                    }
                    if let Some(value) = self.operand(function, builder, operand, at) {
                        let field = self.tcx.mk_place_field(place, index, field_ty);
                        self.write_place(function, builder, field, value, at);
                    }
                }
                return;
            }
            _ => None,
        };
        let value = match value {
            Some(value) => value,
            None => {
                // What the opaque aggregate is built from, where the walk through memory can
                // follow it: a closure's captures, an array's elements, a repeated element.
                let captures = match rvalue {
                    Rvalue::Aggregate(kind, operands)
                        if matches!(
                            **kind,
                            mir::AggregateKind::Closure(..) | mir::AggregateKind::Array(..)
                        ) =>
                    {
                        self.closure_captures(function, builder, &operands.raw, at)
                    }
                    Rvalue::Repeat(operand, _) => {
                        self.closure_captures(function, builder, std::slice::from_ref(operand), at)
                    }
                    _ => Vec::new(),
                };
                self.opaque(builder, &format!("{rvalue:?}"), &captures, &[ir_result], at)[0]
            }
        };
        self.write_place(function, builder, place, value, at);
    }

    pub(super) fn binary(
        &mut self,
        builder: &FunctionBuilder,
        op: BinOp,
        lhs: Value,
        rhs: Value,
        at: &SourceLoc,
    ) -> Option<Value> {
        let arithmetic = match op {
            BinOp::Add | BinOp::AddUnchecked => Some(BinOpKind::Add),
            BinOp::Sub | BinOp::SubUnchecked => Some(BinOpKind::Sub),
            BinOp::Mul | BinOp::MulUnchecked => Some(BinOpKind::Mul),
            BinOp::Div => Some(BinOpKind::Div),
            BinOp::Rem => Some(BinOpKind::Rem),
            BinOp::BitAnd => Some(BinOpKind::BitAnd),
            BinOp::BitOr => Some(BinOpKind::BitOr),
            BinOp::BitXor => Some(BinOpKind::BitXor),
            BinOp::Shl | BinOp::ShlUnchecked => Some(BinOpKind::Shl),
            BinOp::Shr | BinOp::ShrUnchecked => Some(BinOpKind::Shr),
            _ => None,
        };
        if let Some(kind) = arithmetic {
            // A shift may shift by another integer type; the IR's binop has one type.
            let lhs_ty = lhs.get_type(self.ctx);
            let rhs = if rhs.get_type(self.ctx) != lhs_ty {
                builder.cast(self.ctx, IrCast::IntToInt, rhs, lhs_ty, at)
            } else {
                rhs
            };
            return Some(builder.binop(self.ctx, kind, lhs, rhs, at));
        }
        let predicate = match op {
            BinOp::Eq => Some(CmpPredicate::Eq),
            BinOp::Ne => Some(CmpPredicate::Ne),
            BinOp::Lt => Some(CmpPredicate::Lt),
            BinOp::Le => Some(CmpPredicate::Le),
            BinOp::Gt => Some(CmpPredicate::Gt),
            BinOp::Ge => Some(CmpPredicate::Ge),
            _ => None,
        };
        if let Some(predicate) = predicate {
            return Some(builder.cmp(self.ctx, predicate, lhs, rhs, at));
        }
        None
    }

    /// `core`'s wrapping arithmetic on integers (`k.wrapping_add(1)`, `wrapping_sub`,
    /// `wrapping_mul`) as the `mir.binop` it is: MIR's own `+`, `-` and `*` wrap at the
    /// operands' width, so the call and the operation mean the same (a `u8` tile counter
    /// stepped by `wrapping_add` is read like one stepped by `+= 1`). Returns the result; `None`
    /// for any other callee, or a receiver that is not an integer.
    pub(super) fn wrapping_arithmetic(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        callee: Instance<'tcx>,
        args: &[Spanned<Operand<'tcx>>],
        at: &SourceLoc,
    ) -> Option<Value> {
        let kind = match core_item_name(self.tcx, callee.def_id())?.as_str() {
            "wrapping_add" => BinOpKind::Add,
            "wrapping_sub" => BinOpKind::Sub,
            "wrapping_mul" => BinOpKind::Mul,
            _ => return None,
        };
        let [lhs, rhs] = args else { return None };
        let ty = lhs.node.ty(function.body, self.tcx);
        if !ty.is_integral() || rhs.node.ty(function.body, self.tcx) != ty {
            return None;
        }
        let lhs = self.operand(function, builder, &lhs.node, at)?;
        let rhs = self.operand(function, builder, &rhs.node, at)?;
        Some(builder.binop(self.ctx, kind, lhs, rhs, at))
    }

    /// `Range::contains` and `RangeInclusive::contains` on a range whose bounds the import can
    /// name (a constant, promoted or not; a `start..end` built in the function; a
    /// `RangeInclusive::new(start, end)`): two comparisons joined by `&`, so that a condition
    /// such as `(32..48).contains(&tid)` is evaluable per thread like `tid >= 32 && tid < 48`.
    /// False (the call stays an opaque call) for any other callee or range.
    pub(super) fn range_contains(
        &mut self,
        function: &mut FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        callee: Instance<'tcx>,
        args: &[Spanned<Operand<'tcx>>],
        destination: Place<'tcx>,
        at: &SourceLoc,
    ) -> bool {
        let tcx = self.tcx;
        if core_item_name(tcx, callee.def_id()).is_none_or(|name| name.as_str() != "contains")
            || args.len() != 2
        {
            return false;
        }
        let range_ty = match args[0].node.ty(function.body, tcx).kind() {
            ty::Ref(_, pointee, _) => *pointee,
            _ => return false,
        };
        let ty::Adt(adt, generic_args) = range_ty.kind() else { return false };
        let inclusive = if tcx.is_lang_item(adt.did(), LangItem::Range) {
            false
        } else if tcx.is_lang_item(adt.did(), LangItem::RangeInclusiveStruct) {
            true
        } else {
            return false;
        };
        let element = generic_args.type_at(0);
        // Unsigned only: the IR's comparisons do not say whether they are signed.
        if !matches!(element.kind(), ty::Uint(_)) {
            return false;
        }
        let Some(item_place) = args[1].node.place() else { return false };
        let Some((start, end)) = self.range_bounds(function, builder, &args[0].node, element, inclusive, at)
        else {
            return false;
        };
        // The item by the place it borrows (`&tid`): the thread evaluation follows a variable,
        // not a load through a reference to it.
        let item_place = match reference_origin(&function.assignments, &Operand::Copy(item_place)) {
            Some(ReferenceOrigin::Borrow(borrowed)) => borrowed,
            _ => tcx.mk_place_deref(item_place),
        };
        let Some(item) = self.operand(function, builder, &Operand::Copy(item_place), at) else {
            return false;
        };
        let item_ty = item.get_type(self.ctx);
        let start = self.coerce(builder, start, item_ty, at);
        let end = self.coerce(builder, end, item_ty, at);
        let above = builder.cmp(self.ctx, CmpPredicate::Ge, item, start, at);
        let upper = if inclusive { CmpPredicate::Le } else { CmpPredicate::Lt };
        let below = builder.cmp(self.ctx, upper, item, end, at);
        let both = builder.binop(self.ctx, BinOpKind::BitAnd, above, below, at);
        self.write_place(function, builder, destination, both, at);
        true
    }

    /// The bounds of the range `receiver` (a `&Range` or `&RangeInclusive`) refers to, as IR
    /// values; `None` where the import cannot name them (a range passed in, or changed after
    /// it was built, or an inclusive range already iterated).
    pub(super) fn range_bounds(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        receiver: &Operand<'tcx>,
        element: Ty<'tcx>,
        inclusive: bool,
        at: &SourceLoc,
    ) -> Option<(Value, Value)> {
        let tcx = self.tcx;
        let ir_element = self.ir_type(element, None);
        let int = int_type(self.ctx, ir_element)?;
        // rustc's promoted `&(32..64)` reaches the call through temporaries and reborrows.
        let origin = reference_origin(&function.assignments, receiver);
        let promoted = match origin {
            Some(ReferenceOrigin::Constant(constant)) => Some(constant),
            _ => None,
        };
        if let Some(constant) = promoted {
            let typing_env = TypingEnv::fully_monomorphized();
            let value = constant.const_.eval(tcx, typing_env, constant.span).ok()?;
            let ConstValue::Scalar(Scalar::Ptr(pointer, _)) = value else { return None };
            let (provenance, offset) = pointer.into_raw_parts();
            let GlobalAlloc::Memory(allocation) = tcx.global_alloc(provenance.alloc_id()) else {
                return None;
            };
            let range_ty = match constant.ty().kind() {
                ty::Ref(_, pointee, _) => *pointee,
                _ => return None,
            };
            let layout = tcx.layout_of(typing_env.as_query_input(range_ty)).ok()?;
            let size = tcx.layout_of(typing_env.as_query_input(element)).ok()?.size;
            // Unsigned bounds (`range_contains` admits no other element type).
            let read = |field: usize| -> Option<i128> {
                let at = offset + layout.fields.offset(field);
                let scalar = allocation.inner().read_scalar(&tcx, alloc_range(at, size), false).ok()?;
                i128::try_from(scalar.try_to_scalar_int().ok()?.to_bits(size)).ok()
            };
            let (start, end) = (read(0)?, read(1)?);
            // An inclusive range that was iterated to its end is empty (`exhausted`).
            if inclusive {
                let exhausted_at = offset + layout.fields.offset(2);
                let byte = allocation.inner().read_scalar(
                    &tcx,
                    alloc_range(exhausted_at, Size::from_bytes(1)),
                    false,
                );
                if byte.ok()?.try_to_scalar_int().ok()?.to_bits(Size::from_bytes(1)) != 0 {
                    return None;
                }
            }
            return Some((
                builder.const_int(self.ctx, int, start, at),
                builder.const_int(self.ctx, int, end, at),
            ));
        }
        // A reference to a range local assigned once.
        let Some(ReferenceOrigin::Borrow(borrowed)) = origin else { return None };
        let range = borrowed.as_local()?;
        let assignments = &function.assignments[range];
        if assignments.mutably_borrowed {
            return None;
        }
        let bounds: Vec<Operand<'tcx>> = match assignments.only()? {
            Assignment::Rvalue(Rvalue::Aggregate(kind, operands))
                if !inclusive && matches!(**kind, AggregateKind::Adt(..)) && operands.len() == 2 =>
            {
                operands.iter().cloned().collect()
            }
            Assignment::Call(func, call_args)
                if inclusive
                    && call_args.len() == 2
                    && resolve_callee(tcx, func.ty(function.body, tcx)).is_some_and(|new| {
                        core_item_name(tcx, new.def_id()).is_some_and(|name| name.as_str() == "new")
                    }) =>
            {
                call_args.iter().map(|arg| arg.node.clone()).collect()
            }
            _ => return None,
        };
        // Each bound a constant or a local assigned once: its value where the range was built.
        let mut values = Vec::new();
        for bound in &bounds {
            let stable = match bound {
                Operand::Constant(_) => true,
                Operand::Copy(place) | Operand::Move(place) => {
                    place.as_local().is_some_and(|local| matches!(function.slots[local], Slot::Ssa(Some(_))))
                }
                _ => false,
            };
            if !stable {
                return None;
            }
            values.push(self.operand(function, builder, bound, at)?);
        }
        Some((values[0], values[1]))
    }

    /// Shared pointers inside a struct or tuple argument cross the call as the field's Rust
    /// type says (generic), exactly like a pointer argument: each is read out of its field and
    /// adapted to that type here, so that the adaptation rule judges it (a shared `f32` tile
    /// handed over as the `*const u32` field of a struct is a reinterpretation it rejects).
    /// What cannot be read out (a field of an enum or a closure) is counted as hidden.
    pub(super) fn adapt_hidden_pointers(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        args: &[Spanned<Operand<'tcx>>],
        at: &SourceLoc,
    ) {
        for arg in args {
            let Some(place) = arg.node.place() else { continue };
            let Some(path) = field_path(&place) else { continue };
            for (suffix, _) in self.shared.below(function.instance, &path) {
                let Some((field_place, field_ty)) = self.field_place(function, place, &suffix) else {
                    self.stats.hidden_shared += 1;
                    continue;
                };
                let target = self.ir_type(field_ty, None);
                match self.operand(function, builder, &Operand::Copy(field_place), at) {
                    Some(value) if is_shared_pointer(self.ctx, value) => {
                        self.coerce(builder, value, target, at);
                    }
                    _ => self.stats.hidden_shared += 1,
                }
            }
        }
    }
}
