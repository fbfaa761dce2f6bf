//! Where the progressions (`super::progression`) find a loop counter's stores and tests
//! ([`CounterSites`]), kept per scope run by the thread model that the rules reading counters
//! share.

use std::cell::RefCell;
use std::rc::Rc;

use pliron::{context::Context, operation::Operation, value::Value};
use rustc_hash::FxHashMap;

use crate::ir::mir::{arith::CmpOp, control::CondBrOp, memory::LoadOp};
use crate::verify::{
    index::{OpClass, ScopeIndex},
    locals::local_slot,
    store_table::Place,
};

/// Per function and local place, its stores and the blocks ending in a loop test on it, found
/// on first use and kept for the scope's run. `Progressions::guarded_end` asks for them at
/// every read of a `while` counter; finding them anew each time scanned the whole function per
/// read, which made the layout rule quadratic in the size of a kernel whose accesses each read
/// a counter (the end-to-end timing measured the verifier at N^1.43).
#[derive(Default)]
pub(crate) struct CounterSites {
    stores: RefCell<FxHashMap<(usize, Place), Sites>>,
    tests: RefCell<FxHashMap<(usize, Place, bool), Sites>>,
    /// Per function, the blocks ending in a branch on a comparison in the block that reads each
    /// place: every loop test on a place is among its candidates.
    candidates: RefCell<FxHashMap<usize, Rc<BranchesByPlace>>>,
}

/// Operation or block numbers, shared by every ask.
type Sites = Rc<[usize]>;

/// A function's branch blocks by the place their comparison reads.
type BranchesByPlace = FxHashMap<Place, Vec<usize>>;

impl CounterSites {
    /// The stores (operation numbers) into `place` in function `f`.
    pub(crate) fn stores(&self, ctx: &Context, index: &ScopeIndex, f: usize, place: &Place) -> Sites {
        cached(&self.stores, (f, place.clone()), || {
            index.blocks_of[f]
                .clone()
                .flat_map(|b| index.ops_of_block[b].clone())
                .filter(|m| {
                    index.op_class[*m] == OpClass::Store
                        && index
                            .accessed_address(*m)
                            .is_some_and(|address| local_slot(ctx, address).as_ref() == Some(place))
                })
                .collect()
        })
    }

    /// The blocks of function `f` ending in a loop test on `place` (`down`: a count-down's):
    /// those of its candidates `is_test` accepts, in block order.
    pub(crate) fn tests(
        &self,
        ctx: &Context,
        index: &ScopeIndex,
        (f, place, down): (usize, &Place, bool),
        is_test: impl Fn(usize) -> bool,
    ) -> Sites {
        cached(&self.tests, (f, place.clone(), down), || {
            let candidates = self.candidates(ctx, index, f);
            candidates
                .get(place)
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .copied()
                .filter(|t| is_test(*t))
                .collect()
        })
    }

    /// Function `f`'s branch blocks by the places their comparison reads, in block order.
    fn candidates(&self, ctx: &Context, index: &ScopeIndex, f: usize) -> Rc<BranchesByPlace> {
        cached(&self.candidates, f, || {
            let mut by_place = BranchesByPlace::default();
            for t in index.blocks_of[f].clone() {
                let Some(last) = index.ops_of_block[t].end.checked_sub(1) else { continue };
                let branch = index.ops[last];
                if Operation::get_op::<CondBrOp>(branch, ctx).is_none() {
                    continue;
                }
                let Some(compare) = branch.deref(ctx).get_operand(0).defining_op() else { continue };
                if Operation::get_op::<CmpOp>(compare, ctx).is_none() {
                    continue;
                }
                let operands: Vec<Value> = compare.deref(ctx).operands().collect();
                for operand in operands {
                    let Some(read) = operand.defining_op() else { continue };
                    if Operation::get_op::<LoadOp>(read, ctx).is_none() {
                        continue;
                    }
                    if let Some(place) = local_slot(ctx, read.deref(ctx).get_operand(0)) {
                        let blocks = by_place.entry(place).or_default();
                        if blocks.last() != Some(&t) {
                            blocks.push(t);
                        }
                    }
                }
            }
            Rc::new(by_place)
        })
    }
}

/// The answer `map` keeps for `key`, computed by `compute` on the first ask. The map is not
/// borrowed while `compute` runs (it may ask another of the maps).
fn cached<K: std::hash::Hash + Eq, V: Clone>(
    map: &RefCell<FxHashMap<K, V>>,
    key: K,
    compute: impl FnOnce() -> V,
) -> V {
    if let Some(found) = map.borrow().get(&key) {
        return found.clone();
    }
    let found = compute();
    map.borrow_mut().insert(key, found.clone());
    found
}
