//! The locals of a MIR body that hold one value for their whole life: the pre-pass both the
//! scope's pruning of decided branches and the import's slot choice start from.

use rustc_index::IndexVec;
use rustc_middle::mir::{self, Body, Local, Place, ProjectionElem};

/// The locals MIR assigns exactly once, as a whole (a statement or a call's destination), and
/// never borrows, projects into or reads through anything but a deref; parameters and the
/// return place are not among them.
pub(crate) fn single_assignment_locals(body: &Body<'_>) -> IndexVec<Local, bool> {
    let uses = Uses::of(body);
    body.local_decls
        .indices()
        .map(|local| {
            !is_parameter_or_return(body, local) && uses.assignments[local] == 1 && !uses.disqualified[local]
        })
        .collect()
}

/// The parameters the body never assigns, borrows or projects into: each holds, wherever it is
/// read, the argument its call handed it.
pub(crate) fn unchanged_parameters(body: &Body<'_>) -> Vec<Local> {
    let uses = Uses::of(body);
    body.args_iter().filter(|local| uses.assignments[*local] == 0 && !uses.disqualified[*local]).collect()
}

fn is_parameter_or_return(body: &Body<'_>, local: Local) -> bool {
    local.as_usize() <= body.arg_count
}

/// How each local of a body is used: its whole assignments, and whether it is ever borrowed or
/// reached through a projection other than a deref.
struct Uses {
    assignments: IndexVec<Local, u32>,
    disqualified: IndexVec<Local, bool>,
}

impl Uses {
    fn of(body: &Body<'_>) -> Uses {
        use rustc_middle::mir::visit::Visitor;
        let mut uses = Uses {
            assignments: IndexVec::from_elem(0, &body.local_decls),
            disqualified: IndexVec::from_elem(false, &body.local_decls),
        };
        uses.visit_body(body);
        uses
    }
}

impl<'tcx> mir::visit::Visitor<'tcx> for Uses {
    fn visit_place(
        &mut self,
        place: &Place<'tcx>,
        context: mir::visit::PlaceContext,
        location: mir::Location,
    ) {
        use rustc_middle::mir::visit::{MutatingUseContext, PlaceContext};
        let local = place.local;
        if context.is_mutating_use()
            && place.projection.is_empty()
            && !context.is_borrow()
            && !matches!(context, PlaceContext::MutatingUse(MutatingUseContext::Drop))
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
