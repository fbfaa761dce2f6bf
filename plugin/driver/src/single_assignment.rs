//! The locals of a MIR body that hold one value for their whole life: the pre-pass both the
//! scope's pruning of decided branches and the import's slot choice start from.

use rustc_index::IndexVec;
use rustc_middle::mir::{self, Body, Local, Place, ProjectionElem};

/// The locals MIR assigns exactly once, as a whole (a statement or a call's destination), and
/// never borrows, projects into or reads through anything but a deref; parameters and the
/// return place are not among them.
pub(crate) fn single_assignment_locals(body: &Body<'_>) -> IndexVec<Local, bool> {
    use rustc_middle::mir::visit::{PlaceContext, Visitor};

    struct Uses {
        assignments: IndexVec<Local, u32>,
        disqualified: IndexVec<Local, bool>,
    }
    impl<'tcx> Visitor<'tcx> for Uses {
        fn visit_place(&mut self, place: &Place<'tcx>, context: PlaceContext, location: mir::Location) {
            let local = place.local;
            if context.is_mutating_use()
                && place.projection.is_empty()
                && !context.is_borrow()
                && !matches!(context, PlaceContext::MutatingUse(mir::visit::MutatingUseContext::Drop))
            {
                self.assignments[local] += 1;
            }
            if context.is_borrow() || context.is_address_of() {
                self.disqualified[local] = true;
            }
            let first = place.projection.first();
            if first.is_some() && first != Some(&ProjectionElem::Deref) {
                self.disqualified[local] = true;
            }
            self.super_place(place, context, location);
        }
    }
    let mut uses = Uses {
        assignments: IndexVec::from_elem(0, &body.local_decls),
        disqualified: IndexVec::from_elem(false, &body.local_decls),
    };
    uses.visit_body(body);
    body.local_decls
        .indices()
        .map(|local| {
            let parameter_or_return = local.as_usize() <= body.arg_count;
            !parameter_or_return && uses.assignments[local] == 1 && !uses.disqualified[local]
        })
        .collect()
}
