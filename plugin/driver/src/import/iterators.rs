//! What the import knows of `core`'s iterator types by their names: the counted ranges
//! (`a..b`, `step_by`, `rev` of an unsigned integer) `counted` writes out as arithmetic, and the
//! consumers and `map` adaptors over them whose closures `closure_loops` calls directly. Both
//! import modules read these; neither reads the other.

use rustc_hir::attrs::lang_items::LangItem;
use rustc_middle::mir::{Body, Operand, Place};
use rustc_middle::ty::{self, Instance, Ty, TyCtxt};
use rustc_span::Spanned;

use super::analysis::core_item_name;
use super::state_abi::{is_pipeline_state, nested_states, param_states};
pub(super) use crate::counted_types::{Counted, counted_kind};

/// Whether the range a counted iterator type counts over is inclusive (`a..=b`).
pub(super) fn is_inclusive<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> bool {
    match (counted_kind(tcx, ty), ty.kind()) {
        (Some(Counted::Range), ty::Adt(adt, _)) => {
            tcx.is_lang_item(adt.did(), LangItem::RangeInclusiveStruct)
        }
        (Some(Counted::StepBy | Counted::Rev), ty::Adt(_, args)) => is_inclusive(tcx, args.type_at(0)),
        _ => false,
    }
}

/// The element type of a counted iterator type.
pub(super) fn element<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> Option<Ty<'tcx>> {
    match (counted_kind(tcx, ty)?, ty.kind()) {
        (Counted::Range, ty::Adt(_, args)) => Some(args.type_at(0)),
        (Counted::StepBy | Counted::Rev, ty::Adt(_, args)) => element(tcx, args.type_at(0)),
        _ => None,
    }
}

/// What a consumer does with each item.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Consumer {
    /// `sum()`: the items (or what `map`'s closure makes of them) added up from zero.
    Sum,
    /// `fold(init, g)`: `acc = g(acc, item)` from `init`.
    Fold,
    /// `for_each(g)`: `g(item)`.
    ForEach,
}

impl Consumer {
    /// Whether the consumer's result can be written out for a receiver of type `receiver`
    /// and a destination of type `destination`: a sum of numbers of the destination's type.
    pub(super) fn fits<'tcx>(
        self,
        tcx: TyCtxt<'tcx>,
        receiver: Ty<'tcx>,
        destination: Ty<'tcx>,
        in_scope: &dyn Fn(Instance<'tcx>) -> bool,
    ) -> bool {
        match self {
            Consumer::Sum => {
                let item = mapped_range(tcx, receiver, in_scope).or_else(|| element(tcx, receiver));
                item == Some(destination) && (destination.is_floating_point() || destination.is_integral())
            }
            Consumer::Fold | Consumer::ForEach => true,
        }
    }
}

/// The body instance a closure of type `ty` runs when called through `FnMut` (how `core`'s
/// `map`, `fold` and `for_each` call it), if it is a function of the scope whose captures hold
/// no pipeline state.
pub(super) fn closure_body<'tcx>(
    tcx: TyCtxt<'tcx>,
    ty: Ty<'tcx>,
    in_scope: &dyn Fn(Instance<'tcx>) -> bool,
) -> Option<Instance<'tcx>> {
    let ty::Closure(def_id, args) = *ty.kind() else { return None };
    if !nested_states(tcx, ty).is_empty() || param_states(tcx, ty).is_some() {
        return None;
    }
    let instance = Instance::resolve_closure(tcx, def_id, args, ty::ClosureKind::FnMut);
    in_scope(instance).then_some(instance)
}

/// For `Map<R, F>` over a counted range `R` with a closure `F` [`closure_body`] calls: the
/// type `F` returns.
pub(super) fn mapped_range<'tcx>(
    tcx: TyCtxt<'tcx>,
    ty: Ty<'tcx>,
    in_scope: &dyn Fn(Instance<'tcx>) -> bool,
) -> Option<Ty<'tcx>> {
    let ty::Adt(adt, args) = ty.kind() else { return None };
    if core_item_name(tcx, adt.did())?.as_str() != "Map" {
        return None;
    }
    let mut types = args.types();
    let (range, closure) = (types.next()?, types.next()?);
    counted_kind(tcx, range)?;
    closure_body(tcx, closure, in_scope)?;
    let ty::Closure(_, closure_args) = closure.kind() else { return None };
    let output = closure_args.as_closure().sig().skip_binder().output();
    (!is_pipeline_state(tcx, output)).then_some(output)
}

/// The consumer a call of `core`'s `name` with `args` is, where its closure is one
/// [`closure_body`] calls.
pub(super) fn consumer_of<'tcx>(
    tcx: TyCtxt<'tcx>,
    body: &Body<'tcx>,
    (name, args): (&str, &[Spanned<Operand<'tcx>>]),
    destination: Place<'tcx>,
    in_scope: &dyn Fn(Instance<'tcx>) -> bool,
) -> Option<Consumer> {
    let callable = |operand: &Spanned<Operand<'tcx>>| closure_body(tcx, operand.node.ty(body, tcx), in_scope);
    let consumer = match (name, args) {
        ("sum", [_]) => Consumer::Sum,
        ("fold", [_, _, g]) => {
            callable(g)?;
            Consumer::Fold
        }
        ("for_each", [_, g]) => {
            callable(g)?;
            Consumer::ForEach
        }
        _ => return None,
    };
    (!is_pipeline_state(tcx, destination.ty(body, tcx).ty)).then_some(consumer)
}
