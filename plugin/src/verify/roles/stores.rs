//! The stores of one function's variables, as the tile-count rule reads loop counters and
//! bounds from them: every value stored into each local and each field of one, with the block of
//! each store; a field also written by stores of its whole struct reads the field's value in
//! those (through memory and calls).

use std::{cell::OnceCell, rc::Rc};

use rustc_hash::{FxHashMap, FxHashSet};

use pliron::{context::Context, operation::Operation, r#type::Typed, value::Value};

use super::MAX_LOOP_BLOCKS;
use crate::ir::mir::memory::StoreOp;
use crate::verify::{
    flow::Flow,
    index::{OpClass, ScopeIndex},
    locals::local_slot,
    store_table::{Place, StoreTable},
    thread_model::SharedThreadModel,
};

/// Definitions the walk through memory looks at for one field of a struct stored whole.
const FIELD_BUDGET: u32 = 32;

/// The variables of one function (locals and their parts) and the values stored into each.
pub(super) struct Stores<'a, 't> {
    pub index: &'a ScopeIndex,
    table: Rc<StoreTable>,
    /// The function whose variables these are (0: the kernel).
    pub function: usize,
    /// The scope's thread model: an atom of a bound must be the same in every thread.
    pub threads: &'a SharedThreadModel<'t>,
    /// The kernel's variables, built on the first read of a kernel value from a helper's.
    kernel: OnceCell<Box<Stores<'a, 't>>>,
}

impl std::ops::Deref for Stores<'_, '_> {
    type Target = StoreTable;

    fn deref(&self) -> &StoreTable {
        &self.table
    }
}

impl<'a, 't> Stores<'a, 't> {
    /// The kernel's variables: these, or the kernel's, built once.
    pub(super) fn kernel(&self, ctx: &Context) -> &Stores<'a, 't> {
        if self.function == 0 {
            return self;
        }
        self.kernel.get_or_init(|| Box::new(stores_of(ctx, self.index, 0, self.threads)))
    }

    /// Every value stored into `place`, if those are all its values.
    pub(super) fn at(&self, place: &Place) -> Option<&Vec<Value>> {
        if self.overlapped.contains(place) {
            return None;
        }
        self.of.get(place)
    }

    /// The two stores of `place` that the loop headed by block `header` sees, when the variable
    /// is stored more often (a tile counter both roles' loops step): the one store inside the
    /// loop, and the one store outside it from which a path reaches the header. `None` unless
    /// there is exactly one of each (paths are taken whatever the thread, so a store that runs
    /// before the loop on another thread's path counts too, and the rule gives up).
    pub(super) fn seen_by_loop(&self, place: &Place, header: usize) -> Option<(Value, Value)> {
        let index = self.index;
        let mut inside = Vec::new();
        let mut reaching = Vec::new();
        for (value, block) in self.at(place)?.iter().zip(&self.blocks[place]) {
            if index.cycles().together(*block, header) {
                inside.push(*value);
            } else if index.path_exists(&[*block], header, MAX_LOOP_BLOCKS, |_| true)? {
                // Off the loop's cycle yet reaching its condition: the header cannot reach it.
                reaching.push(*value);
            }
        }
        if reaching.len() > 1 {
            // A peeled first pass steps the counter before the loop (`t = b; if t < n { …; t
            // += g; while t < n { … } }`): the store the loop starts from is the one that reaches
            // the header through no other store of the variable.
            let store_blocks: Vec<usize> = self.blocks[place].clone();
            reaching.retain(|value| {
                let at = self.at(place).and_then(|all| all.iter().position(|v| v == value));
                let Some(block) = at.map(|n| store_blocks[n]) else { return true };
                let others = |b: usize| b != block && store_blocks.contains(&b);
                let after: Vec<usize> = index.succs[block].iter().copied().filter(|b| !others(*b)).collect();
                store_blocks.iter().filter(|b| **b == block).count() > 1
                    || index.path_exists(&after, header, MAX_LOOP_BLOCKS, |b| !others(b)) != Some(false)
            });
        }
        match (reaching.as_slice(), inside.as_slice()) {
            ([start], [update]) => Some((*start, *update)),
            _ => None,
        }
    }

    /// The stores of `place` a load (operation `load`) may read: on every path to it, the last
    /// store before it, by operation number; `None` when a path from the function's entry
    /// reaches the load through no store, or a store is not a plain store into the place.
    pub(super) fn reaching(&self, ctx: &Context, place: &Place, load: usize) -> Option<Vec<usize>> {
        let index = self.index;
        let stores_here = |m: &usize| {
            let op = index.ops[*m];
            Operation::get_op::<StoreOp>(op, ctx).is_some()
                && local_slot(ctx, op.deref(ctx).get_operand(1)).as_ref() == Some(place)
        };
        let last_in =
            |b: usize, before: usize| index.ops_of_block[b].clone().rfind(|m| *m < before && stores_here(m));
        let block = index.op_block[load];
        if let Some(store) = last_in(block, load) {
            return Some(vec![store]);
        }
        let entry = index.blocks_of[index.block_function[block]].start;
        let mut found = std::collections::BTreeSet::new();
        let mut seen: FxHashSet<usize> = FxHashSet::default();
        let mut stack: Vec<usize> = index.preds[block].clone();
        while let Some(b) = stack.pop() {
            if !seen.insert(b) {
                continue;
            }
            match last_in(b, usize::MAX) {
                Some(store) => {
                    found.insert(store);
                }
                None if b == entry => return None,
                None => stack.extend(index.preds[b].iter().copied()),
            }
        }
        let stored = self.blocks.get(place)?;
        // Every store the place has is a plain store the search could meet.
        let plain = found.iter().all(|m| stored.contains(&index.op_block[*m]));
        (plain && !found.is_empty()).then(|| found.into_iter().collect())
    }
}

/// Every variable of function `f` with the values stored into it, and its parameters: the
/// scope's table of them, built on the first ask.
pub(super) fn stores_of<'a, 't>(
    ctx: &Context,
    index: &'a ScopeIndex,
    f: usize,
    threads: &'a SharedThreadModel<'t>,
) -> Stores<'a, 't> {
    let table = threads.store_table(f, || store_table(ctx, index, f, threads));
    Stores { index, table, function: f, threads, kernel: OnceCell::new() }
}

/// [`stores_of`]'s table, built.
fn store_table(ctx: &Context, index: &ScopeIndex, f: usize, threads: &SharedThreadModel) -> StoreTable {
    let mut of: FxHashMap<Place, Vec<Value>> = FxHashMap::default();
    let mut blocks: FxHashMap<Place, Vec<usize>> = FxHashMap::default();
    for b in index.blocks_of[f].clone() {
        for n in index.ops_of_block[b].clone() {
            // The class first: it is read without dereferencing the operation.
            if index.op_class[n] != OpClass::Store {
                continue;
            }
            let op = index.ops[n];
            if Operation::get_op::<StoreOp>(op, ctx).is_some() {
                let (value, address) = {
                    let operation = op.deref(ctx);
                    (operation.get_operand(0), operation.get_operand(1))
                };
                if let Some(place) = local_slot(ctx, address) {
                    blocks.entry(place.clone()).or_default().push(b);
                    of.entry(place).or_default().push(value);
                }
            }
        }
    }
    let mut paths: FxHashMap<Value, Vec<&Vec<u32>>> = FxHashMap::default();
    for (local, path) in of.keys() {
        paths.entry(*local).or_default().push(path);
    }
    let mut overlapped: FxHashSet<Place> = of
        .keys()
        .filter(|(local, path)| {
            paths[local]
                .iter()
                .any(|other| *other != path && (other.starts_with(path) || path.starts_with(other)))
        })
        .cloned()
        .collect();
    // A field written on its own and also by stores of the whole struct (`work.next += step`
    // after `let mut work = Tiles::of_block(tiles)`): the whole stores count as stores of the
    // field's value in them, where the walk through memory and calls finds exactly one.
    let prefix_stores: Vec<(Place, Vec<(Value, usize)>)> = overlapped
        .iter()
        .filter_map(|(local, path)| {
            let mut found = Vec::new();
            for other in &paths[local] {
                if *other == path {
                    continue;
                }
                let inside = path.strip_prefix(other.as_slice())?;
                let place = (*local, (*other).clone());
                for (value, block) in of[&place].iter().zip(&blocks[&place]) {
                    found.push((field_value(ctx, index, threads, *value, inside)?, *block));
                }
            }
            Some(((*local, path.clone()), found))
        })
        .collect();
    for (place, found) in prefix_stores {
        overlapped.remove(&place);
        for (value, block) in found {
            of.get_mut(&place).expect("a stored place").push(value);
            blocks.get_mut(&place).expect("a stored place").push(block);
        }
    }
    let params = index.parameters(ctx, f).unwrap_or_default();
    StoreTable { of, blocks, overlapped, params }
}

/// The one value field `path` of the aggregate `value` holds, through memory and calls (a struct
/// a helper built and returned).
pub(super) fn field_value(
    ctx: &Context,
    index: &ScopeIndex,
    threads: &SharedThreadModel,
    value: Value,
    path: &[u32],
) -> Option<Value> {
    let flow = Flow { ctx, index, locals: threads.get().locals(), leaf: None };
    let mut budget = FIELD_BUDGET;
    only(flow.values(value, path, &mut budget)?)
}

/// The one value among `found`, which may name it more than once (the walk met it through
/// several calls of one constructor).
fn only(found: Vec<Value>) -> Option<Value> {
    let (first, rest) = found.split_first()?;
    rest.iter().all(|value| value == first).then_some(*first)
}

/// The one value `load` (a `mir.load`'s result) may read, through memory and calls (a field of
/// a struct the kernel built, read through `&self` in a helper), when the walk finds exactly one
/// value stored there and none it cannot see.
pub(super) fn only_value_read(
    ctx: &Context,
    index: &ScopeIndex,
    threads: &SharedThreadModel,
    load: Value,
) -> Option<Value> {
    let flow = Flow { ctx, index, locals: threads.get().locals(), leaf: Some(load.get_type(ctx)) };
    let mut budget = FIELD_BUDGET;
    only(flow.values(load, &[], &mut budget)?).filter(|one| *one != load)
}
