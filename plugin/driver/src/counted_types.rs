//! The iterator types the import counts (`crate::import`'s `counted` writes them out as
//! arithmetic): a range of an unsigned integer, `a..b` or `a..=b`, and a `step_by` or `rev` of
//! one. Read by the import and by `crate::inlined_helpers`, which writes into their callers the
//! helpers that return one; kept below both.

use rustc_hir::attrs::lang_items::LangItem;
use rustc_middle::ty::{self, Ty, TyCtxt};

use crate::naming::core_item_name;

/// The iterator types modelled.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Counted {
    /// `Range<U>`.
    Range,
    /// `StepBy<Range<U>>`.
    StepBy,
    /// `Rev<Range<U>>`: `next` takes from the end.
    Rev,
}

/// The kind of counted iterator `ty` is, if it is one: a range (`a..b`, or `a..=b`, which
/// `counted` writes as `a..b + 1` in a type wide enough to hold it), or a `step_by` or `rev` of
/// one, of an unsigned integer (the IR's comparisons do not say whether they are signed).
pub(crate) fn counted_kind<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> Option<Counted> {
    let ty::Adt(adt, args) = ty.kind() else { return None };
    if tcx.is_lang_item(adt.did(), LangItem::Range) {
        return matches!(args.type_at(0).kind(), ty::Uint(_)).then_some(Counted::Range);
    }
    if tcx.is_lang_item(adt.did(), LangItem::RangeInclusiveStruct) {
        let narrow =
            matches!(args.type_at(0).kind(), ty::Uint(ty::UintTy::U8 | ty::UintTy::U16 | ty::UintTy::U32));
        let wide = matches!(args.type_at(0).kind(), ty::Uint(ty::UintTy::U64 | ty::UintTy::Usize));
        return (narrow || wide).then_some(Counted::Range);
    }
    let adapter = match core_item_name(tcx, adt.did())?.as_str() {
        "StepBy" => Counted::StepBy,
        "Rev" => Counted::Rev,
        _ => return None,
    };
    (counted_kind(tcx, args.type_at(0)) == Some(Counted::Range)).then_some(adapter)
}

/// Whether `ty` is an iterator type the import counts (`Range`, `RangeInclusive`, a `StepBy` or
/// `Rev` of one, over unsigned integers).
pub(crate) fn is_counted_iterator<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> bool {
    counted_kind(tcx, ty).is_some()
}
