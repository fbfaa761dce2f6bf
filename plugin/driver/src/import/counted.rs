//! Counted iterators: a `for` loop over `a..b`, `(a..b).step_by(s)` or `(a..b).rev()` of an
//! unsigned integer, imported as what the standard library computes rather than as opaque calls.
//!
//! The driver imports pre-inlining MIR and does not follow `core`, so `for i in 0..n` reaches
//! it as `into_iter(range)`, a loop of `Iterator::next(&mut iter)`, a switch on the result's
//! discriminant and a read of `(item as Some).0`. Left opaque, the loop variable is unknown to
//! every rule: the race check cannot place `tile[tid + 64 * i]`, and a barrier inside the loop
//! sits under a branch nobody can show uniform. So an iterator local of one of these types
//! gets a slot with parts (its next value, its end, and for `step_by` its step) and an `Option`
//! the loop reads gets two (its discriminant and its payload); the calls become loads, stores
//! and arithmetic with the library's exact meaning:
//!
//! - `a..b` (an aggregate or field writes): `start = a`, `end = b`;
//! - a helper that builds and returns one of these (`0.until(ROWS)`, `(b..n).step_by(g)` in a
//!   `my_tiles(n)`): written into its caller before the import (`crate::inlined_helpers`), so
//!   its range and adapters are counted where it is called;
//! - `a..=b` (`RangeInclusive::new(a, b)`): `start = a`, `end = b + 1`, the parts in 64 bits so
//!   that `b + 1` cannot wrap (a 64-bit `b` only where it is a constant below the largest value);
//!   `next` hands out its items cast back to the element type;
//! - `into_iter(it)` and a move of one iterator local into another: the parts copied;
//! - `range.step_by(s)`: the range's parts and `step = s`; `range.rev()`: the range's parts;
//! - `next(&mut it)`: `more = start < end`, the item is `(more, start)`, and `start` becomes
//!   `start + more · step` (`step` is 1 for a range). The library's `StepBy` counts the items
//!   left instead, which yields the same items until `start + step` would overflow; the verifier
//!   only relies on the items of a loop whose bounds it can bound (module doc of `races`). A
//!   `rev()` range's `next` is the library's `next_back`: `end` becomes `end − more`, the item;
//! - `range.map(f)` whose result only a consumer reads, and a consumer (`sum`, `fold`,
//!   `for_each`) of the range or of that result: a closure loop (`closure_loops`).
//!
//! Only locals all of whose uses are of these forms are modelled ([`CountedLocals::of`]); an
//! iterator handed to anything else (`zip`, `enumerate`, a helper) keeps the opaque import. The
//! `&mut it` a `next` call is given is not imported as a pointer: the call reads the iterator's
//! parts directly, so the iterator's address never escapes to where a store could change it.

use rustc_data_structures::fx::{FxHashMap, FxHashSet};

use pliron::r#type::{TypeHandle, Typed};
use pliron::value::Value;
use plugin::ir::builder::{FunctionBuilder, SourceLoc};
use plugin::ir::mir::arith::{BinOpKind, CastKind as IrCast, CmpPredicate};
use rustc_hir::attrs::lang_items::LangItem;
use rustc_index::IndexVec;
use rustc_middle::mir::visit::{PlaceContext, Visitor};
use rustc_middle::mir::{
    AggregateKind, Body, Local, Location, Operand, Place, ProjectionElem, Rvalue, StatementKind,
    TerminatorKind,
};
use rustc_middle::ty::{self, Instance, Ty, TyCtxt};
use rustc_span::{Spanned, Symbol};

use crate::scope::resolve_callee;

use super::analysis::{Assignments, ReferenceOrigin, core_item_name, reference_chain};
use super::iterators::{Consumer, Counted, consumer_of, counted_kind, element, is_inclusive, mapped_range};
use super::types::int_type;
use super::{FunctionImport, Importer, Slot};

use plugin::ir::mir::memory::counted::{
    END, ITEM_DISCRIMINANT as DISCRIMINANT, ITEM_PAYLOAD as PAYLOAD, START, STEP,
};

/// The locals of one body the import models as counted iterators.
#[derive(Default)]
pub(super) struct CountedLocals {
    /// Iterator locals and their kind.
    pub(super) iterators: FxHashMap<Local, Counted>,
    /// `Option<U>` locals written only by a modelled `next`.
    pub(super) items: FxHashSet<Local>,
    /// Locals that only carry `&mut iterator` to `next`: not imported.
    pub(super) references: FxHashMap<Local, Local>,
    /// `map(range, f)` results a closure loop consumes, with the range they map
    /// (`closure_loops`).
    pub(super) maps: FxHashMap<Local, Local>,
    /// Receivers (a modelled range or a `map` result) of a consumer imported as a closure loop.
    pub(super) consumers: FxHashMap<Local, Consumer>,
}

/// Whether `ty` is `Option<U>` of an unsigned integer.
fn is_integer_option<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> bool {
    matches!(ty.kind(), ty::Adt(adt, args)
        if tcx.is_lang_item(adt.did(), LangItem::Option) && matches!(args.type_at(0).kind(), ty::Uint(_)))
}

/// The name of the `core` function a call resolves to.
fn core_call<'tcx>(tcx: TyCtxt<'tcx>, body: &Body<'tcx>, func: &Operand<'tcx>) -> Option<Symbol> {
    let callee = resolve_callee(tcx, func.ty(body, tcx))?;
    core_item_name(tcx, callee.def_id())
}

/// Whether `func` is `RangeInclusive::new` (`a..=b`).
fn inclusive_new<'tcx>(tcx: TyCtxt<'tcx>, body: &Body<'tcx>, func: &Operand<'tcx>) -> bool {
    resolve_callee(tcx, func.ty(body, tcx))
        .is_some_and(|callee| tcx.is_lang_item(callee.def_id(), LangItem::RangeInclusiveNew))
}

/// Whether `b + 1` is sure to fit the type the import counts `a..=b` in: always for an element
/// of at most 32 bits (counted in 64), and for a 64-bit element only where `b` is a constant
/// below the largest value. `0..=n` with a runtime 64-bit `n` stays unmodelled: at `n = MAX`
/// it hands out every value, which `0..n + 1` would not.
fn end_has_a_successor<'tcx>(tcx: TyCtxt<'tcx>, body: &Body<'tcx>, end: &Operand<'tcx>) -> bool {
    let ty = end.ty(body, tcx);
    if matches!(ty.kind(), ty::Uint(ty::UintTy::U8 | ty::UintTy::U16 | ty::UintTy::U32)) {
        return true;
    }
    match end {
        Operand::Constant(constant) => constant
            .const_
            .try_eval_bits(tcx, ty::TypingEnv::fully_monomorphized())
            .is_some_and(|bits| bits < u128::from(u64::MAX)),
        _ => false,
    }
}

/// What one recognised form links: the locals it accounts a use of, and the modelled locals
/// that must all be modelled for it to be imported as its meaning (a copy needs both sides).
struct Form {
    uses: Vec<Local>,
    linked: Vec<Local>,
}

impl CountedLocals {
    /// The body's counted locals: every candidate (by type) each of whose uses is one of the
    /// forms of the module doc, and whose partners in those forms are modelled too.
    pub(super) fn of<'tcx>(
        tcx: TyCtxt<'tcx>,
        body: &Body<'tcx>,
        assignments: &IndexVec<Local, Assignments<'_, 'tcx>>,
        in_scope: &dyn Fn(Instance<'tcx>) -> bool,
    ) -> CountedLocals {
        let kind_of = |local: Local| counted_kind(tcx, body.local_decls[local].ty);
        // `RangeInclusive` is built by `new` alone: its fields are the library's.
        let exclusive_range = |local: Local| {
            kind_of(local) == Some(Counted::Range) && !is_inclusive(tcx, body.local_decls[local].ty)
        };
        let is_map = |local: Local| mapped_range(tcx, body.local_decls[local].ty, in_scope).is_some();
        let candidates: FxHashSet<Local> = body
            .local_decls
            .indices()
            .filter(|local| {
                local.as_usize() > body.arg_count
                    && (kind_of(*local).is_some()
                        || is_integer_option(tcx, body.local_decls[*local].ty)
                        || is_map(*local))
            })
            .collect();
        if candidates.is_empty() {
            return CountedLocals::default();
        }
        let mut forms: Vec<Form> = Vec::new();
        let mut references: FxHashMap<Local, Local> = FxHashMap::default();
        let mut maps: FxHashMap<Local, Local> = FxHashMap::default();
        let mut consumers: FxHashMap<Local, Consumer> = FxHashMap::default();
        let mut map_moves: Vec<(Local, Local)> = Vec::new();
        let whole = |place: &Place<'tcx>| place.as_local().filter(|local| candidates.contains(local));
        for block in body.basic_blocks.iter() {
            for statement in &block.statements {
                let StatementKind::Assign(assign) = &statement.kind else { continue };
                let (place, rvalue) = &**assign;
                if let Some(to) = whole(place) {
                    match rvalue {
                        Rvalue::Aggregate(kind, _)
                            if exclusive_range(to) && matches!(**kind, AggregateKind::Adt(..)) =>
                        {
                            forms.push(Form { uses: vec![to], linked: vec![to] });
                        }
                        Rvalue::Use(Operand::Copy(from) | Operand::Move(from), ..)
                            if whole(from).is_some_and(|from| kind_of(from) == kind_of(to))
                                && kind_of(to).is_some() =>
                        {
                            let from = from.local;
                            forms.push(Form { uses: vec![to, from], linked: vec![to, from] });
                        }
                        // A `map` result moved into another local before its consumer.
                        Rvalue::Use(Operand::Copy(from) | Operand::Move(from), ..)
                            if whole(from).is_some_and(is_map) && is_map(to) =>
                        {
                            let from = from.local;
                            forms.push(Form { uses: vec![to, from], linked: vec![to, from] });
                            map_moves.push((to, from));
                        }
                        _ => {}
                    }
                    continue;
                }
                // `range.0 = a`, `range.1 = b`.
                if let [ProjectionElem::Field(field, _)] = place.projection.as_slice()
                    && candidates.contains(&place.local)
                    && exclusive_range(place.local)
                    && field.as_u32() <= END
                {
                    forms.push(Form { uses: vec![place.local], linked: vec![place.local] });
                    continue;
                }
                match rvalue {
                    Rvalue::Discriminant(item) if whole(item).is_some() => {
                        forms.push(Form { uses: vec![item.local], linked: vec![item.local] });
                    }
                    Rvalue::Use(Operand::Copy(item) | Operand::Move(item), ..)
                        if candidates.contains(&item.local)
                            && is_integer_option(tcx, body.local_decls[item.local].ty)
                            && matches!(
                                item.projection.as_slice(),
                                [ProjectionElem::Downcast(_, variant), ProjectionElem::Field(field, _)]
                                    if variant.as_u32() == 1 && field.as_u32() == 0
                            ) =>
                    {
                        forms.push(Form { uses: vec![item.local], linked: vec![item.local] });
                    }
                    // A range's bound read back (`range.end`).
                    Rvalue::Use(Operand::Copy(range) | Operand::Move(range), ..)
                        if candidates.contains(&range.local)
                            && exclusive_range(range.local)
                            && matches!(range.projection.as_slice(), [ProjectionElem::Field(field, _)]
                                if field.as_u32() <= END) =>
                    {
                        forms.push(Form { uses: vec![range.local], linked: vec![range.local] });
                    }
                    _ => {}
                }
            }
            let TerminatorKind::Call { func, args, destination, .. } = &block.terminator().kind else {
                continue;
            };
            if inclusive_new(tcx, body, func) {
                if let Some(to) = whole(destination)
                    && kind_of(to) == Some(Counted::Range)
                    && args.get(1).is_some_and(|end| end_has_a_successor(tcx, body, &end.node))
                {
                    forms.push(Form { uses: vec![to], linked: vec![to] });
                }
                continue;
            }
            let Some(name) = core_call(tcx, body, func) else { continue };
            let receiver = args.first().and_then(|arg| arg.node.place()).as_ref().and_then(whole);
            if let Some(receiver) = receiver
                && let Some(consumer) = consumer_of(tcx, body, (name.as_str(), args), *destination, in_scope)
                && (kind_of(receiver).is_some() || is_map(receiver))
                && consumer.fits(tcx, body.local_decls[receiver].ty, destination.ty(body, tcx).ty, in_scope)
            {
                forms.push(Form { uses: vec![receiver], linked: vec![receiver] });
                consumers.insert(receiver, consumer);
                continue;
            }
            let Some(to) = whole(destination) else { continue };
            match (name.as_str(), args.as_ref()) {
                ("into_iter", [from]) => {
                    if let Some(from) = from.node.place().as_ref().and_then(whole)
                        && kind_of(from).is_some()
                        && kind_of(from) == kind_of(to)
                    {
                        forms.push(Form { uses: vec![to, from], linked: vec![to, from] });
                    }
                }
                ("step_by", [from, _]) | ("rev", [from]) => {
                    let adapter = if name.as_str() == "rev" { Counted::Rev } else { Counted::StepBy };
                    if let Some(from) = from.node.place().as_ref().and_then(whole)
                        && kind_of(from) == Some(Counted::Range)
                        && kind_of(to) == Some(adapter)
                    {
                        forms.push(Form { uses: vec![to, from], linked: vec![to, from] });
                    }
                }
                ("map", [from, _]) if is_map(to) => {
                    if let Some(from) = from.node.place().as_ref().and_then(whole)
                        && kind_of(from).is_some()
                    {
                        forms.push(Form { uses: vec![to, from], linked: vec![to, from] });
                        maps.insert(to, from);
                    }
                }
                ("next", [iterator]) if is_integer_option(tcx, body.local_decls[to].ty) => {
                    // `&mut it` through single-assignment temporaries and reborrows.
                    let Some((carriers, ReferenceOrigin::Borrow(borrowed))) =
                        reference_chain(assignments, &iterator.node)
                    else {
                        continue;
                    };
                    let Some(target) = borrowed.as_local() else { continue };
                    if !candidates.contains(&target) || kind_of(target).is_none() {
                        continue;
                    }
                    for carrier in &carriers {
                        references.insert(*carrier, target);
                    }
                    let mut uses = vec![to, target];
                    // Each carrier is assigned once and read once.
                    uses.extend(carriers.iter().flat_map(|carrier| [*carrier, *carrier]));
                    let mut linked = vec![to, target];
                    linked.extend(carriers);
                    forms.push(Form { uses, linked });
                }
                _ => {}
            }
        }
        let mut counted_uses: FxHashMap<Local, u32> = FxHashMap::default();
        for form in &forms {
            for local in &form.uses {
                *counted_uses.entry(*local).or_default() += 1;
            }
        }
        let all_uses = uses_of(body, &candidates, &references);
        let mut modelled: FxHashSet<Local> = candidates
            .iter()
            .chain(references.keys())
            .copied()
            .filter(|local| {
                all_uses.get(local).copied().unwrap_or(0) == counted_uses.get(local).copied().unwrap_or(0)
            })
            .collect();
        // A form is imported as its meaning only when all its locals are modelled.
        loop {
            let before = modelled.len();
            for form in &forms {
                if form.linked.iter().any(|local| !modelled.contains(local)) {
                    for local in &form.linked {
                        modelled.remove(local);
                    }
                }
            }
            if modelled.len() == before {
                break;
            }
        }
        references.retain(|carrier, target| modelled.contains(carrier) && modelled.contains(target));
        // A moved `map` result maps the same range (MIR moves forward, so one pass in order
        // of the moves reaches every copy of a copy).
        for (to, from) in map_moves {
            if let Some(range) = maps.get(&from).copied() {
                maps.insert(to, range);
            }
        }
        maps.retain(|map, _| modelled.contains(map));
        consumers.retain(|receiver, _| modelled.contains(receiver));
        CountedLocals {
            maps,
            consumers,
            iterators: modelled.iter().filter_map(|local| Some((*local, kind_of(*local)?))).collect(),
            items: modelled
                .iter()
                .copied()
                .filter(|local| is_integer_option(tcx, body.local_decls[*local].ty))
                .collect(),
            references,
        }
    }
}

/// How often each of `locals` (and each reference carrier) is used in `body`, storage markers
/// and debug info left out.
fn uses_of(
    body: &Body<'_>,
    candidates: &FxHashSet<Local>,
    references: &FxHashMap<Local, Local>,
) -> FxHashMap<Local, u32> {
    struct Uses<'a> {
        candidates: &'a FxHashSet<Local>,
        references: &'a FxHashMap<Local, Local>,
        found: FxHashMap<Local, u32>,
    }
    impl<'tcx> Visitor<'tcx> for Uses<'_> {
        fn visit_local(&mut self, local: Local, context: PlaceContext, _: Location) {
            if matches!(context, PlaceContext::NonUse(_)) {
                return;
            }
            if self.candidates.contains(&local) || self.references.contains_key(&local) {
                *self.found.entry(local).or_default() += 1;
            }
        }
    }
    let mut uses = Uses { candidates, references, found: FxHashMap::default() };
    uses.visit_body(body);
    uses.found
}

impl<'tcx> Importer<'_, 'tcx> {
    /// The address of part `part` (of IR type `ty`) of the counted local `local`.
    fn part(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        local: Local,
        part: u32,
        ty: TypeHandle,
        at: &SourceLoc,
    ) -> Option<Value> {
        let Slot::Whole(slot) = function.slots[local] else { return None };
        Some(builder.field_addr(self.ctx, slot, part, ty, at))
    }

    /// The IR type of the elements of the counted iterator `local`.
    fn element_type(&mut self, function: &FunctionImport<'_, 'tcx>, local: Local) -> Option<TypeHandle> {
        let element = element(self.tcx, function.body.local_decls[local].ty)?;
        Some(self.ir_type(element, None))
    }

    /// The IR type of the parts of the counted iterator `local`: its element type, or, for an
    /// inclusive range (counted as `a..b + 1`), 64 bits, where `b + 1` always fits (see
    /// [`end_has_a_successor`]).
    fn part_type(&mut self, function: &FunctionImport<'_, 'tcx>, local: Local) -> Option<TypeHandle> {
        if is_inclusive(self.tcx, function.body.local_decls[local].ty) {
            Some(self.ir_type(self.tcx.types.u64, None))
        } else {
            self.element_type(function, local)
        }
    }

    /// `to = RangeInclusive::new(a, b)`: `start = a`, `end = b + 1`, both widened to the parts'
    /// type.
    fn inclusive_range(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        to: Local,
        args: &[Spanned<Operand<'tcx>>],
        at: &SourceLoc,
    ) -> Option<()> {
        let ty = self.part_type(function, to)?;
        let int = int_type(self.ctx, ty)?;
        let [start, end] = args else { return None };
        let start = self.operand(function, builder, &start.node, at)?;
        let end = self.operand(function, builder, &end.node, at)?;
        let widen = |importer: &mut Self, v: Value| {
            if v.get_type(importer.ctx) == ty {
                v
            } else {
                builder.cast(importer.ctx, IrCast::IntToInt, v, ty, at)
            }
        };
        let (start, end) = (widen(self, start), widen(self, end));
        let one = builder.const_int(self.ctx, int, 1, at);
        let past = builder.binop(self.ctx, BinOpKind::Add, end, one, at);
        self.set_bounds(function, builder, to, [start, past], at)
    }

    /// Stores `start` and `end` (of the parts' type) into the counted range `to`.
    fn set_bounds(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        to: Local,
        bounds: [Value; 2],
        at: &SourceLoc,
    ) -> Option<()> {
        let ty = self.part_type(function, to)?;
        for (part, value) in [START, END].into_iter().zip(bounds) {
            let address = self.part(function, builder, to, part, ty, at)?;
            builder.store(self.ctx, value, address, at);
        }
        Some(())
    }

    /// The parts a counted iterator of this kind has.
    fn parts(kind: Counted) -> &'static [u32] {
        match kind {
            Counted::Range | Counted::Rev => &[START, END],
            Counted::StepBy => &[START, END, STEP],
        }
    }

    /// Copies every part of iterator `from` into iterator `to` (`parts` of them).
    fn copy_parts(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        (to, from): (Local, Local),
        parts: &[u32],
        at: &SourceLoc,
    ) -> Option<()> {
        let ty = self.part_type(function, to)?;
        for part in parts {
            let source = self.part(function, builder, from, *part, ty, at)?;
            let value = builder.load(self.ctx, source, at);
            let target = self.part(function, builder, to, *part, ty, at)?;
            builder.store(self.ctx, value, target, at);
        }
        Some(())
    }

    /// `to = from` for two counted iterators of one kind: true when imported so.
    pub(super) fn counted_copy(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        place: Place<'tcx>,
        rvalue: &Rvalue<'tcx>,
        at: &SourceLoc,
    ) -> bool {
        let Some(to) = place.as_local() else { return false };
        let Some(kind) = function.counted.iterators.get(&to).copied() else { return false };
        let Rvalue::Use(Operand::Copy(from) | Operand::Move(from), ..) = rvalue else { return false };
        let Some(from) = from.as_local().filter(|from| function.counted.iterators.contains_key(from)) else {
            return false;
        };
        self.copy_parts(function, builder, (to, from), Self::parts(kind), at).is_some()
    }

    /// `discriminant(item)` of a modelled item: the load of its discriminant part.
    pub(super) fn counted_discriminant(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        rvalue: &Rvalue<'tcx>,
        at: &SourceLoc,
    ) -> Option<Value> {
        let Rvalue::Discriminant(item) = rvalue else { return None };
        let item = item.as_local().filter(|item| function.counted.items.contains(item))?;
        let ty = function.body.local_decls[item].ty.discriminant_ty(self.tcx);
        let ty = self.ir_type(ty, None);
        let address = self.part(function, builder, item, DISCRIMINANT, ty, at)?;
        Some(builder.load(self.ctx, address, at))
    }

    /// The address of `(item as Some).0` of a modelled item.
    pub(super) fn counted_payload(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        place: Place<'tcx>,
        at: &SourceLoc,
    ) -> Option<Value> {
        if !function.counted.items.contains(&place.local) {
            return None;
        }
        let [ProjectionElem::Downcast(_, variant), ProjectionElem::Field(field, payload)] =
            place.projection.as_slice()
        else {
            return None;
        };
        if variant.as_u32() != 1 || field.as_u32() != 0 {
            return None;
        }
        let ty = self.ir_type(*payload, None);
        self.part(function, builder, place.local, PAYLOAD, ty, at)
    }

    /// `into_iter`, `step_by` and `next` on modelled locals as their meaning (module doc);
    /// false for any other call.
    pub(super) fn counted_call(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        callee: Instance<'tcx>,
        args: &[Spanned<Operand<'tcx>>],
        destination: Place<'tcx>,
        at: &SourceLoc,
    ) -> bool {
        let Some(to) = destination.as_local() else { return false };
        let counted = &function.counted;
        if self.tcx.is_lang_item(callee.def_id(), LangItem::RangeInclusiveNew) {
            return counted.iterators.contains_key(&to)
                && self.inclusive_range(function, builder, to, args, at).is_some();
        }
        let Some(name) = core_item_name(self.tcx, callee.def_id()) else { return false };
        let from = |arg: Option<&Spanned<Operand<'tcx>>>| {
            arg.and_then(|arg| arg.node.place()).and_then(|place| place.as_local())
        };
        match (name.as_str(), args) {
            ("into_iter", [_]) => {
                let (Some(kind), Some(from)) = (counted.iterators.get(&to).copied(), from(args.first()))
                else {
                    return false;
                };
                counted.iterators.contains_key(&from)
                    && self.copy_parts(function, builder, (to, from), Self::parts(kind), at).is_some()
            }
            ("step_by", [_, step]) => {
                let Some(from) = from(args.first()).filter(|from| counted.iterators.contains_key(from))
                else {
                    return false;
                };
                if counted.iterators.get(&to) != Some(&Counted::StepBy) {
                    return false;
                }
                let copied = self.copy_parts(function, builder, (to, from), &[START, END], at);
                let Some(ty) = self.part_type(function, to) else { return false };
                let Some(step) = self.operand(function, builder, &step.node, at) else { return false };
                // `step_by` takes a `usize`; the library converts it to the element type (saturating,
                // which differs from this truncation only for a step the element type cannot hold).
                let step = if step.get_type(self.ctx) == ty {
                    step
                } else {
                    builder.cast(self.ctx, IrCast::IntToInt, step, ty, at)
                };
                match (copied, self.part(function, builder, to, STEP, ty, at)) {
                    (Some(()), Some(target)) => {
                        builder.store(self.ctx, step, target, at);
                        true
                    }
                    _ => false,
                }
            }
            ("rev", [_]) => {
                let Some(from) = from(args.first()).filter(|from| counted.iterators.contains_key(from))
                else {
                    return false;
                };
                counted.iterators.get(&to) == Some(&Counted::Rev)
                    && self.copy_parts(function, builder, (to, from), &[START, END], at).is_some()
            }
            ("next", [iterator]) => {
                let Some(target) = from(Some(iterator)).and_then(|carrier| counted.references.get(&carrier))
                else {
                    return false;
                };
                let Some(kind) = counted.iterators.get(target).copied() else { return false };
                if !counted.items.contains(&to) {
                    return false;
                }
                let Slot::Whole(item) = function.slots[to] else { return false };
                let item_ty = function.body.local_decls[to].ty;
                self.counted_next(function, builder, (*target, kind), (item, item_ty), at).is_some()
            }
            _ => false,
        }
    }

    /// `to = next(&mut iterator)`: `more = start < end`; `to = (more, start)`; `start += more ·
    /// step`. For a `rev()` range: `end −= more`; `to = (more, end)` (the decremented end).
    pub(super) fn counted_next(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        (iterator, kind): (Local, Counted),
        (item, item_ty): (Value, Ty<'tcx>),
        at: &SourceLoc,
    ) -> Option<()> {
        let ty = self.part_type(function, iterator)?;
        let int = int_type(self.ctx, ty)?;
        let start_at = self.part(function, builder, iterator, START, ty, at)?;
        let end_at = self.part(function, builder, iterator, END, ty, at)?;
        let start = builder.load(self.ctx, start_at, at);
        let end = builder.load(self.ctx, end_at, at);
        let more = builder.cmp(self.ctx, CmpPredicate::Lt, start, end, at);
        let step = match kind {
            Counted::Range | Counted::Rev => builder.const_int(self.ctx, int, 1, at),
            Counted::StepBy => {
                let step_at = self.part(function, builder, iterator, STEP, ty, at)?;
                builder.load(self.ctx, step_at, at)
            }
        };
        let taken = builder.cast(self.ctx, IrCast::IntToInt, more, ty, at);
        let advance = builder.binop(self.ctx, BinOpKind::Mul, taken, step, at);
        let handed_out = if kind == Counted::Rev {
            let retreated = builder.binop(self.ctx, BinOpKind::Sub, end, advance, at);
            builder.store(self.ctx, retreated, end_at, at);
            retreated
        } else {
            let next = builder.binop(self.ctx, BinOpKind::Add, start, advance, at);
            builder.store(self.ctx, next, start_at, at);
            start
        };
        let discriminant_ty = item_ty.discriminant_ty(self.tcx);
        let discriminant_ty = self.ir_type(discriminant_ty, None);
        let discriminant = builder.cast(self.ctx, IrCast::IntToInt, more, discriminant_ty, at);
        let discriminant_at = builder.field_addr(self.ctx, item, DISCRIMINANT, discriminant_ty, at);
        builder.store(self.ctx, discriminant, discriminant_at, at);
        // An inclusive range's item, counted in 64 bits, is below `b + 1`: it fits its type.
        let element = self.element_type(function, iterator)?;
        let handed_out = if element == ty {
            handed_out
        } else {
            builder.cast(self.ctx, IrCast::IntToInt, handed_out, element, at)
        };
        let payload_at = builder.field_addr(self.ctx, item, PAYLOAD, element, at);
        builder.store(self.ctx, handed_out, payload_at, at);
        Some(())
    }
}
