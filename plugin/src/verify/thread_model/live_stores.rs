//! The stores a load of a variable may read ([`Roles::live_stores`]), found once per variable
//! while the blocks no thread reaches stay the same. Every evaluation of a load asks, and a
//! variable stored in every round of a kernel (an accumulator, a counter written out per round)
//! has as many stores as the kernel has rounds: finding and copying them at each of its loads
//! made the thread model quadratic in the kernel's size.

use std::cell::RefCell;
use std::rc::Rc;

use pliron::{operation::Operation, r#type::Typed, value::Value};
use rustc_hash::FxHashMap;

use super::{FLOW_BUDGET, Roles};
use crate::ir::mir::{memory::AllocaOp, pointer_type_of};
use crate::verify::flow::Flow;

/// The values stored into a variable, each with its block.
pub(super) type Stored = Rc<[(Value, usize)]>;

/// Each variable's live stores, by the address its loads read.
#[derive(Default)]
pub(super) struct LiveStores(RefCell<FxHashMap<Value, Option<Stored>>>);

impl LiveStores {
    /// Drops every answer: the blocks no thread reaches changed.
    pub(super) fn forget(&self) {
        self.0.borrow_mut().clear();
    }
}

impl Roles<'_> {
    /// The stores a load from `slot` may read, each with its block, leaving out those in blocks
    /// no thread reaches: a variable's (`mir.alloca`) stores, or those into exactly one field of
    /// a local aggregate (`pass.count`); `None` for any other memory.
    pub(super) fn live_stores(&self, slot: Value) -> Option<Stored> {
        if let Some(known) = self.live.0.borrow().get(&slot) {
            return known.clone();
        }
        let found = self.find_live_stores(slot).map(Rc::from);
        self.live.0.borrow_mut().insert(slot, found.clone());
        found
    }

    fn find_live_stores(&self, slot: Value) -> Option<Vec<(Value, usize)>> {
        let ctx = self.ctx;
        let is_variable =
            slot.defining_op().is_some_and(|alloca| Operation::get_op::<AllocaOp>(alloca, ctx).is_some());
        let stored: Vec<(Value, usize)> = if is_variable {
            self.locals.stores_into(ctx, slot)?
        } else if let Some(stored) = self.locals.stores_into(ctx, slot) {
            stored
        } else {
            // Memory reached through a pointer (`(*self).rows` in a method): the one value
            // stored there, as far as the walk through memory and calls can tell.
            let leaf = pointer_type_of(ctx, slot.get_type(ctx)).map(|pointer| pointer.pointee());
            let flow = Flow { ctx, index: self.index, locals: self.locals, leaf };
            let mut budget = FLOW_BUDGET;
            match flow.pointees(slot, &[], &mut budget)?.as_slice() {
                [only] => vec![(*only, usize::MAX)],
                _ => return None,
            }
        };
        Some(stored.into_iter().filter(|(_, b)| !self.dead.contains(b)).collect())
    }
}
