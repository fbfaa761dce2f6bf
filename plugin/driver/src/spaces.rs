//! Which values of a scope are pointers into shared memory: the address-space inference the
//! import types its locals with.
//!
//! Rust types say nothing about address spaces: `dynamic_shared_base::<f32>()` returns a plain
//! `*mut f32`. The IR does: that pointer is `mir.ptr <Shared, …>`, and passing it to a
//! function whose parameter is a generic pointer is an explicit adaptation. So before the
//! import, this module finds every *place path* (a local and a chain of field indices, e.g.
//! the first field of a returned tuple) that holds a shared pointer, over the whole scope:
//!
//! - the destination of `dynamic_shared_base::<T>` is shared, viewed as `T`;
//! - copies, moves, coercions, `Offset`, reborrows (`&mut *p`, `&raw const *p`) and the
//!   standard library's pointer arithmetic (`add`, `wrapping_add`, `offset`, …) keep it shared
//!   with the same view;
//! - a pointer-to-pointer cast of a *byte* view (`u8`, `i8`) gives the memory the cast's
//!   pointee (this is how shared memory is carved into typed parts); a cast of a typed view to
//!   another pointee is a reinterpretation, and the result keeps the view it had, so that the
//!   verifier sees what the memory really holds when the pointer reaches a call;
//! - tuples and structs built from shared pointers hold them in the same fields;
//! - a function whose return place holds a shared pointer at some path gives its callers'
//!   destinations the same path;
//! - a shared pointer exposed as an integer (`p as usize`), offset by integer addition or
//!   subtraction, and turned back into a pointer (`as *mut T`) is still shared.
//!
//! Parameters are never inferred shared: inside a function, a pointer parameter is what its
//! Rust type says (generic), which is exactly why the call is an adaptation. The inference is
//! flow-insensitive and runs the whole scope to a fixpoint (scopes are small; the verifier, not
//! this, is what has to scale).

use std::collections::BTreeMap;

use rustc_data_structures::fx::FxHashMap;

use rustc_hir::def_id::DefId;
use rustc_middle::mir::{
    AggregateKind, BinOp, Body, CastKind, Local, Operand, Place, PlaceElem, ProjectionElem, Rvalue,
    StatementKind, TerminatorKind,
};
use rustc_middle::ty::{self, Instance, Ty, TyCtxt};

use crate::device_api::DeviceOp;
use crate::scope::{KernelScope, resolve_callee};

/// A local and the field indices below it.
pub type PlacePath = (Local, Vec<u32>);

/// The standard library's pointer methods whose result points where their receiver points.
const POINTER_ARITHMETIC: &[&str] = &[
    "add",
    "wrapping_add",
    "offset",
    "wrapping_offset",
    "sub",
    "wrapping_sub",
    "byte_add",
    "cast",
    "cast_mut",
    "cast_const",
];

/// The shared place paths of every function of a scope, each with the pointee type the
/// shared memory is viewed as.
#[derive(Debug, Default)]
pub struct SharedPaths<'tcx> {
    by_function: FxHashMap<Instance<'tcx>, Views<'tcx>>,
    /// Each closure's captures (fields of its environment) that hold a shared pointer, by
    /// value (`false`) or by reference (`true`), with its view. A closure is built at one
    /// place, so what its captures point to is known in its body (unlike a parameter).
    captures: Captures<'tcx>,
}

type Captures<'tcx> = FxHashMap<DefId, FxHashMap<u32, (Ty<'tcx>, bool)>>;

/// The shared place paths of one function, ordered so that the paths below one place (a local
/// and a field prefix) are one range: copies and field reads ask for them at every statement,
/// and a scan of the whole map there made the inference quadratic in a function's size.
type Views<'tcx> = BTreeMap<PlacePath, Ty<'tcx>>;

/// The entries of `views` at `path` or below it (its fields, their fields, …), in order.
fn at_or_below<'a, 'tcx>(
    views: &'a Views<'tcx>,
    path: &'a PlacePath,
) -> impl Iterator<Item = (&'a PlacePath, &'a Ty<'tcx>)> + 'a {
    views
        .range(path.clone()..)
        .take_while(move |((local, fields), _)| *local == path.0 && fields.starts_with(&path.1))
}

impl<'tcx> SharedPaths<'tcx> {
    /// Runs the inference over a scope.
    pub fn infer(tcx: TyCtxt<'tcx>, scope: &KernelScope<'tcx>) -> SharedPaths<'tcx> {
        let mut paths = SharedPaths::default();
        loop {
            let mut changed = false;
            for function in &scope.functions {
                let mut set = paths.by_function.get(&function.instance).cloned().unwrap_or_default();
                let mut captures = Captures::default();
                let own = paths.captures.get(&function.instance.def_id());
                infer_body(tcx, (&function.body, own), &paths, &mut set, &mut captures);
                for (closure, fields) in captures {
                    let known = paths.captures.entry(closure).or_default();
                    for (field, capture) in fields {
                        changed |= known.insert(field, capture) != Some(capture);
                    }
                }
                // A function not yet in the map started from the empty set.
                changed |=
                    paths.by_function.get(&function.instance).map_or(!set.is_empty(), |old| *old != set);
                paths.by_function.insert(function.instance, set);
            }
            if !changed {
                return paths;
            }
        }
    }

    /// Whether no place of the scope holds a shared pointer (and no closure captures one).
    pub fn is_empty(&self) -> bool {
        self.by_function.values().all(|views| views.is_empty())
            && self.captures.values().all(|fields| fields.is_empty())
    }

    /// The view of the shared memory `path` of `function` points into, if it does.
    pub fn view(&self, function: Instance<'tcx>, path: &PlacePath) -> Option<Ty<'tcx>> {
        self.by_function.get(&function).and_then(|views| views.get(path)).copied()
    }

    /// The view of capture `field` of closure `closure`, and whether it is captured by
    /// reference, when it is a shared pointer.
    pub fn capture(&self, closure: DefId, field: u32) -> Option<(Ty<'tcx>, bool)> {
        self.captures.get(&closure).and_then(|fields| fields.get(&field)).copied()
    }

    /// The shared pointers strictly below `path` (in fields of the struct or tuple it names):
    /// each field path relative to `path`, with its view, in a stable order.
    pub fn below(&self, function: Instance<'tcx>, path: &PlacePath) -> Vec<(Vec<u32>, Ty<'tcx>)> {
        self.by_function
            .get(&function)
            .map(|views| {
                at_or_below(views, path)
                    .filter(|((_, fields), _)| fields.len() > path.1.len())
                    .map(|((_, fields), view)| (fields[path.1.len()..].to_vec(), *view))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The field paths of `function`'s return place that hold shared pointers, with views.
    fn returned(&self, function: Instance<'tcx>) -> Vec<(Vec<u32>, Ty<'tcx>)> {
        self.by_function
            .get(&function)
            .map(|views| {
                at_or_below(views, &(Local::ZERO, Vec::new()))
                    .map(|((_, fields), view)| (fields.clone(), *view))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// The path of a place made only of field projections.
pub fn field_path(place: &Place<'_>) -> Option<PlacePath> {
    fields_path(place.local, place.projection)
}

/// The path of `local` and `projection`, if it is made only of field projections.
fn fields_path(local: Local, projection: &[PlaceElem<'_>]) -> Option<PlacePath> {
    let mut fields = Vec::new();
    for element in projection {
        match element {
            ProjectionElem::Field(field, _) => fields.push(field.as_u32()),
            _ => return None,
        }
    }
    Some((local, fields))
}

/// The view a borrow through a shared pointer sees: a reborrow (`&mut *p`, `&raw const *p`,
/// `*p.0`) what `p` sees; a borrow of a part of what `p` points to (`&(*p).rows`, `&(*p)[i]`)
/// the field's or the element's type. `p` is a local or a field of one.
fn borrowed_view<'tcx>(views: &Views<'tcx>, place: &Place<'tcx>) -> Option<Ty<'tcx>> {
    let deref = place.projection.iter().position(|element| element == ProjectionElem::Deref)?;
    let mut view = *views.get(&fields_path(place.local, &place.projection[..deref])?)?;
    for element in &place.projection[deref + 1..] {
        view = match element {
            ProjectionElem::Field(_, ty) => *ty,
            ProjectionElem::Index(_) | ProjectionElem::ConstantIndex { .. } => view.builtin_index()?,
            _ => return None,
        };
    }
    Some(view)
}

fn operand_path(operand: &Operand<'_>) -> Option<PlacePath> {
    match operand {
        Operand::Copy(place) | Operand::Move(place) => field_path(place),
        _ => None,
    }
}

/// Adds every shared path below `source`, re-rooted at `destination`.
fn copy_paths<'tcx>(views: &mut Views<'tcx>, source: &PlacePath, destination: &PlacePath) {
    let below: Vec<(Vec<u32>, Ty<'tcx>)> = at_or_below(views, source)
        .map(|((_, fields), view)| (fields[source.1.len()..].to_vec(), *view))
        .collect();
    for (suffix, view) in below {
        let mut fields = destination.1.clone();
        fields.extend(suffix);
        views.insert((destination.0, fields), view);
    }
}

/// The view after a cast of a pointer viewing `view` to a pointer of type `to`: a byte view
/// takes the new pointee, and so does a cast to an array of the viewed type, or an array of
/// such arrays (rows of a tile); any other typed view keeps its own.
pub fn cast_view<'tcx>(view: Ty<'tcx>, to: Ty<'tcx>) -> Ty<'tcx> {
    match (view.kind(), to.builtin_deref(true)) {
        (ty::Uint(ty::UintTy::U8) | ty::Int(ty::IntTy::I8), Some(pointee)) => pointee,
        // An array of the viewed type is the same memory, seen a tile (or a row) at a time.
        (_, Some(pointee)) if is_array_of(pointee, view) => pointee,
        _ => view,
    }
}

/// Whether `ty` is an array whose elements, through nested arrays, are `element`
/// (`[f32; 256]` and `[[f32; 32]; 8]` over `f32`).
fn is_array_of<'tcx>(ty: Ty<'tcx>, element: Ty<'tcx>) -> bool {
    let mut current = ty;
    while let ty::Array(inner, _) = current.kind() {
        if *inner == element {
            return true;
        }
        current = *inner;
    }
    false
}

/// The view through a pointer coerced to `to`: an array seen as a slice of its elements
/// (`&[T; N]` to `&[T]`) is the slice; any other coercion keeps the view.
fn unsized_view<'tcx>(view: Ty<'tcx>, to: Ty<'tcx>) -> Ty<'tcx> {
    match (view.kind(), to.builtin_deref(true).map(|pointee| pointee.kind())) {
        (ty::Array(element, _), Some(ty::Slice(target))) if element == target => {
            to.builtin_deref(true).unwrap_or(view)
        }
        _ => view,
    }
}

/// A closure's captures holding shared pointers, as [`SharedPaths::capture`] gives them.
type OwnCaptures<'tcx> = FxHashMap<u32, (Ty<'tcx>, bool)>;

/// The view of a closure's capture read in its own body: `(*_1).k` captured by value,
/// `*((*_1).k)` by reference, or `*_7` where `_7` is a copy of the reference `(*_1).k`
/// (`capture_refs`).
fn capture_view<'tcx>(
    own: Option<&OwnCaptures<'tcx>>,
    capture_refs: &FxHashMap<Local, Ty<'tcx>>,
    operand: &Operand<'tcx>,
) -> Option<Ty<'tcx>> {
    let place = operand.place()?;
    if let [ProjectionElem::Deref] = place.projection.as_slice()
        && let Some(view) = capture_refs.get(&place.local)
    {
        return Some(*view);
    }
    if place.local.as_u32() != 1 {
        return None;
    }
    let (field, by_reference) = match place.projection.as_slice() {
        [ProjectionElem::Deref, ProjectionElem::Field(field, _)] => (field.as_u32(), false),
        [ProjectionElem::Deref, ProjectionElem::Field(field, _), ProjectionElem::Deref] => {
            (field.as_u32(), true)
        }
        _ => return None,
    };
    own?.get(&field).filter(|(_, by_ref)| *by_ref == by_reference).map(|(view, _)| *view)
}

fn infer_body<'tcx>(
    tcx: TyCtxt<'tcx>,
    (body, own): (&Body<'tcx>, Option<&OwnCaptures<'tcx>>),
    paths: &SharedPaths<'tcx>,
    set: &mut Views<'tcx>,
    captures: &mut Captures<'tcx>,
) {
    // Locals holding a reference to a shared pointer (`_66 = &_5`): a closure capturing `_5`
    // by reference is built from them.
    // Locals holding a copy of a by-reference capture (`_7 = copy ((*_1).0)`) of this closure.
    let mut references: FxHashMap<Local, Ty<'tcx>> = FxHashMap::default();
    let mut capture_refs: FxHashMap<Local, Ty<'tcx>> = FxHashMap::default();
    for block in body.basic_blocks.iter() {
        for statement in &block.statements {
            let StatementKind::Assign(assign) = &statement.kind else { continue };
            let (place, rvalue) = &**assign;
            if !place.projection.is_empty() {
                continue;
            }
            match rvalue {
                Rvalue::Ref(_, _, borrowed) | Rvalue::RawPtr(_, borrowed) => {
                    if let Some(view) = field_path(borrowed).and_then(|path| set.get(&path).copied()) {
                        references.insert(place.local, view);
                    }
                }
                Rvalue::Use(Operand::Copy(source) | Operand::Move(source), ..) => {
                    if let (1, [ProjectionElem::Deref, ProjectionElem::Field(field, _)]) =
                        (source.local.as_u32(), source.projection.as_slice())
                        && let Some((view, true)) = own.and_then(|own| own.get(&field.as_u32()).copied())
                    {
                        capture_refs.insert(place.local, view);
                    }
                }
                _ => {}
            }
        }
    }
    for block in body.basic_blocks.iter() {
        for statement in &block.statements {
            let StatementKind::Assign(assign) = &statement.kind else { continue };
            let (place, rvalue) = &**assign;
            let Some(destination) = field_path(place) else { continue };
            if let Rvalue::Use(operand, ..) = rvalue
                && let Some(view) = capture_view(own, &capture_refs, operand)
            {
                set.insert(destination.clone(), view);
            }
            if let Rvalue::Aggregate(kind, operands) = rvalue
                && let AggregateKind::Closure(closure, _) = **kind
            {
                for (k, operand) in operands.iter().enumerate() {
                    let by_value = operand_path(operand).and_then(|path| set.get(&path).copied());
                    let by_reference = operand
                        .place()
                        .filter(|place| place.projection.is_empty())
                        .and_then(|place| references.get(&place.local).copied());
                    let capture =
                        by_value.map(|view| (view, false)).or(by_reference.map(|view| (view, true)));
                    if let Some(capture) = capture {
                        captures.entry(closure).or_default().insert(k as u32, capture);
                    }
                }
            }
            match rvalue {
                Rvalue::Use(operand, ..) => {
                    if let Some(source) = operand_path(operand) {
                        copy_paths(set, &source, &destination);
                    }
                }
                Rvalue::Cast(CastKind::PtrToPtr | CastKind::Transmute, operand, to) => {
                    if let Some(view) = operand_path(operand).and_then(|source| set.get(&source).copied()) {
                        set.insert(destination, cast_view(view, *to));
                    }
                }
                // Through an integer and back (`p as usize … as *mut T`): the integer carries
                // the view, so the pointer made from it is shared again.
                Rvalue::Cast(CastKind::PointerExposeProvenance, operand, _) => {
                    if let Some(view) = operand_path(operand).and_then(|source| set.get(&source).copied()) {
                        set.insert(destination, view);
                    }
                }
                Rvalue::Cast(CastKind::PointerWithExposedProvenance, operand, to) => {
                    if let Some(view) = operand_path(operand).and_then(|source| set.get(&source).copied()) {
                        set.insert(destination, cast_view(view, *to));
                    }
                }
                Rvalue::BinaryOp(
                    BinOp::Add | BinOp::Sub | BinOp::AddUnchecked | BinOp::SubUnchecked,
                    operands,
                ) if operands.0.ty(body, tcx).is_integral() => {
                    if let Some(view) = operand_path(&operands.0).and_then(|source| set.get(&source).copied())
                    {
                        set.insert(destination, view);
                    }
                }
                Rvalue::Cast(CastKind::PointerCoercion(..), operand, to) => {
                    if let Some(view) = operand_path(operand).and_then(|source| set.get(&source).copied()) {
                        set.insert(destination, unsized_view(view, *to));
                    }
                }
                Rvalue::BinaryOp(BinOp::Offset, operands) => {
                    if let Some(view) = operand_path(&operands.0).and_then(|source| set.get(&source).copied())
                    {
                        set.insert(destination, view);
                    }
                }
                Rvalue::Ref(_, _, borrowed) | Rvalue::RawPtr(_, borrowed) => {
                    if let Some(view) = borrowed_view(set, borrowed) {
                        set.insert(destination, view);
                    }
                }
                Rvalue::Aggregate(kind, operands)
                    if matches!(**kind, AggregateKind::Tuple | AggregateKind::Adt(..)) =>
                {
                    for (index, operand) in operands.iter().enumerate() {
                        if let Some(source) = operand_path(operand) {
                            let mut field = destination.clone();
                            field.1.push(index as u32);
                            copy_paths(set, &source, &field);
                        }
                    }
                }
                _ => {}
            }
        }
        let TerminatorKind::Call { func, args, destination, .. } = &block.terminator().kind else { continue };
        let Some(destination) = field_path(destination) else { continue };
        let Some(callee) = resolve_callee(tcx, func.ty(body, tcx)) else { continue };
        match DeviceOp::of_callee(tcx, callee.def_id()) {
            Some(DeviceOp::DynamicSharedBase) => {
                let returned = callee.args.type_at(0);
                set.insert(destination, returned);
            }
            Some(_) => {}
            None if tcx.crate_name(callee.def_id().krate).as_str() == "core" => {
                // A closure of `core` (followed where it is handed a pointer) has no name.
                let Some(name) = tcx.opt_item_name(callee.def_id()) else { continue };
                let receiver = args.first().and_then(|arg| {
                    operand_path(&arg.node)
                        .and_then(|path| set.get(&path).copied())
                        .or_else(|| capture_view(own, &capture_refs, &arg.node))
                });
                if let Some(view) = receiver
                    && POINTER_ARITHMETIC.contains(&name.as_str())
                {
                    let returned = body.local_decls[destination.0].ty;
                    let view = if name.as_str() == "cast" { cast_view(view, returned) } else { view };
                    set.insert(destination, view);
                }
            }
            None => {
                for (fields, view) in paths.returned(callee) {
                    let mut path = destination.clone();
                    path.1.extend(fields);
                    set.insert(path, view);
                }
            }
        }
    }
}
