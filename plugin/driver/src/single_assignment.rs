//! The locals of a MIR body that hold one value for their whole life: the pre-pass both the
//! scope's pruning of decided branches and the import's slot choice start from.

use rustc_index::{IndexSlice, IndexVec};
use rustc_middle::mir::{self, BasicBlock, Body, Local, Place, ProjectionElem};

/// The locals MIR assigns exactly once, as a whole (a statement or a call's destination), and
/// never borrows, projects into or reads through anything but a deref; parameters and the
/// return place are not among them.
pub(crate) fn single_assignment_locals(body: &Body<'_>) -> IndexVec<Local, bool> {
    LocalUses::of(body).single_assignment_locals()
}

/// How a body uses its locals, read once for the questions below.
pub(crate) struct LocalUses<'a, 'tcx> {
    body: &'a Body<'tcx>,
    uses: Uses,
}

impl<'a, 'tcx> LocalUses<'a, 'tcx> {
    pub(crate) fn of(body: &'a Body<'tcx>) -> Self {
        LocalUses { body, uses: Uses::of(body, None) }
    }

    /// The uses in the blocks `reached` marks (and the debugger's views) only: the body as it
    /// would be with every other block emptied.
    pub(crate) fn of_reached(body: &'a Body<'tcx>, reached: &IndexSlice<BasicBlock, bool>) -> Self {
        LocalUses { body, uses: Uses::of(body, Some(reached)) }
    }

    /// See [`single_assignment_locals`].
    pub(crate) fn single_assignment_locals(&self) -> IndexVec<Local, bool> {
        let uses = &self.uses;
        self.body
            .local_decls
            .indices()
            .map(|local| self.assigned_once(local) && !uses.fields_read[local])
            .collect()
    }

    /// The locals MIR assigns exactly once, as a whole, and never borrows or changes in part,
    /// whose fields may be read (`let (a, b) = if C { (x, 1) } else { (y, 2) }`, once the
    /// constant `C` has cut one arm off): each field holds, wherever it is read, what that one
    /// assignment put there.
    pub(crate) fn single_assignment_aggregates(&self) -> IndexVec<Local, bool> {
        self.body.local_decls.indices().map(|local| self.assigned_once(local)).collect()
    }

    /// The parameters the body never assigns, borrows or projects into: each holds, wherever
    /// it is read, the argument its call handed it.
    pub(crate) fn unchanged_parameters(&self) -> Vec<Local> {
        let uses = &self.uses;
        self.body
            .args_iter()
            .filter(|local| {
                uses.assignments[*local] == 0 && !uses.disqualified[*local] && !uses.fields_read[*local]
            })
            .collect()
    }

    fn assigned_once(&self, local: Local) -> bool {
        !is_parameter_or_return(self.body, local)
            && self.uses.assignments[local] == 1
            && !self.uses.disqualified[local]
    }
}

fn is_parameter_or_return(body: &Body<'_>, local: Local) -> bool {
    local.as_usize() <= body.arg_count
}

/// How each local of a body is used: its whole assignments, whether it is ever borrowed, changed
/// in part or reached through a projection other than a deref or a field read, and whether a
/// field of it is read.
struct Uses {
    assignments: IndexVec<Local, u32>,
    disqualified: IndexVec<Local, bool>,
    fields_read: IndexVec<Local, bool>,
}

impl Uses {
    fn of(body: &Body<'_>, reached: Option<&IndexSlice<BasicBlock, bool>>) -> Uses {
        let mut uses = Uses {
            assignments: IndexVec::from_elem(0, &body.local_decls),
            disqualified: IndexVec::from_elem(false, &body.local_decls),
            fields_read: IndexVec::from_elem(false, &body.local_decls),
        };
        visit_reached(&mut uses, body, reached);
        uses
    }
}

/// Runs `visitor` over the blocks `reached` marks (every block where it is `None`) and the
/// debugger's views: everything of a body that mentions its locals.
fn visit_reached<'tcx>(
    visitor: &mut impl mir::visit::Visitor<'tcx>,
    body: &Body<'tcx>,
    reached: Option<&IndexSlice<BasicBlock, bool>>,
) {
    let Some(reached) = reached else {
        visitor.visit_body(body);
        return;
    };
    for (block, data) in body.basic_blocks.iter_enumerated() {
        if reached[block] {
            visitor.visit_basic_block_data(block, data);
        }
    }
    for info in &body.var_debug_info {
        visitor.visit_var_debug_info(info);
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
        match place.projection.first() {
            None | Some(ProjectionElem::Deref) => {}
            // A read of a field (a copy, a move or a debugger's view; not a borrow of it, nor
            // a write into it).
            Some(ProjectionElem::Field(..))
                if !context.is_mutating_use() && !context.is_borrow() && !context.is_address_of() =>
            {
                self.fields_read[local] = true;
            }
            Some(_) => self.disqualified[local] = true,
        }
        self.super_place(place, context, location);
    }
}

/// Per local: how many times the body mentions it (any use but a storage marker: a write, a
/// read, a borrow, a drop, a debugger's view), how many of those mentions run (the debugger's
/// views and drop hints aside), and whether it is ever borrowed.
pub(crate) struct LocalMentions {
    pub count: IndexVec<Local, usize>,
    pub running: IndexVec<Local, usize>,
    pub borrowed: IndexVec<Local, bool>,
}

impl LocalMentions {
    pub(crate) fn of(body: &Body<'_>) -> LocalMentions {
        Self::of_blocks(body, None)
    }

    /// The mentions in the blocks `reached` marks (every block where it is `None`) and the
    /// debugger's views.
    pub(crate) fn of_blocks(
        body: &Body<'_>,
        reached: Option<&IndexSlice<BasicBlock, bool>>,
    ) -> LocalMentions {
        let mut mentions = LocalMentions {
            count: IndexVec::from_elem(0, &body.local_decls),
            running: IndexVec::from_elem(0, &body.local_decls),
            borrowed: IndexVec::from_elem(false, &body.local_decls),
        };
        visit_reached(&mut mentions, body, reached);
        mentions
    }
}

impl<'tcx> mir::visit::Visitor<'tcx> for LocalMentions {
    fn visit_local(&mut self, local: Local, context: mir::visit::PlaceContext, _: mir::Location) {
        if context.is_storage_marker() {
            return;
        }
        self.count[local] += 1;
        if context.is_use() {
            self.running[local] += 1;
        }
        if context.is_borrow() || context.is_address_of() {
            self.borrowed[local] = true;
        }
    }
}
