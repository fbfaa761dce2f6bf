//! The fixpoint's tables of one scope, built in two passes over its operations before the
//! fixpoint runs: every tracked value numbered once (its slot), each operation's operands and
//! results and each block's arguments as slots, and the blocks using each slot. The fixpoint
//! then reads arrays: it dereferences no operation, asks no value for its type, hashes no value
//! and walks no use list. At tens of thousands of blocks each of those was a cache miss (or an
//! allocation) per operation and visit, and together they were most of the fixpoint's cost.
//!
//! A value's slot is found by position, not by a map from value to slot: its defining
//! operation's number (or block's), from the scope index's maps, then its place among that
//! operation's results. A map of every value of a 100,000-block scope was about 70 MB, built
//! (and its fresh pages faulted in) on every run: a third of the fixpoint at that size, and a
//! cost per block that grew with the scope as the map outgrew the processor's caches.

use rustc_hash::FxHashMap;

use pliron::{
    context::Context,
    value::{DefiningEntity, Value},
};

use crate::ir::mir::int_width;
use crate::verify::{
    facts::{Tracked, is_tracked},
    index::{OpClass, ScopeIndex},
};

/// An operand or result as the fixpoint reads it: a tracked value, or `None` for one it does
/// not track (whose fact is `Unrelated` and which carries no versions).
pub(crate) type Slotted = Option<Tracked>;

/// A block using a tracked value, and whether the use is a `mir.return` (whose value reaches
/// the results of every call of the function).
#[derive(Clone, Copy)]
pub(crate) struct User {
    pub block: u32,
    pub returns: bool,
}

/// Each value's slot, by position: what the rules ask by value once the fixpoint has run.
#[derive(Default)]
pub(crate) struct ValueSlots {
    /// The value of each slot.
    pub values: Vec<Value>,
    /// `results[result_start[n]..result_start[n + 1]]` are operation `n`'s results.
    result_start: Vec<u32>,
    results: Vec<Slotted>,
    /// The same for block arguments, by block number.
    arg_start: Vec<u32>,
    args: Vec<Slotted>,
    /// Values some operation uses that no operation or block of the scope defines.
    outside: FxHashMap<Value, Slotted>,
}

impl ValueSlots {
    /// `value`'s slot, `None` when the fixpoint does not track it.
    pub(crate) fn slot(&self, index: &ScopeIndex, value: Value) -> Slotted {
        match value.defining_entity() {
            DefiningEntity::Op(op) => match index.op_number.get(&op) {
                Some(&n) => self.result_slot(n, value),
                None => self.outside.get(&value).copied().flatten(),
            },
            DefiningEntity::Block(block) => match index.block_number.get(&block) {
                Some(&b) => self.arg_slot(b, value),
                None => self.outside.get(&value).copied().flatten(),
            },
        }
    }

    /// The slot of `value`, a result of operation `n`.
    fn result_slot(&self, n: usize, value: Value) -> Slotted {
        self.among(&self.results[range_of(&self.result_start, n, self.results.len())], value)
    }

    /// The slot of `value`, an argument of block `b`.
    fn arg_slot(&self, b: usize, value: Value) -> Slotted {
        self.among(&self.args[range_of(&self.arg_start, b, self.args.len())], value)
    }

    fn among(&self, candidates: &[Slotted], value: Value) -> Slotted {
        match candidates {
            // One result (or argument): it is the value; no need to read which one it is.
            [only] => *only,
            _ => candidates
                .iter()
                .flatten()
                .find(|tracked| self.values[tracked.slot as usize] == value)
                .copied(),
        }
    }

    fn number(&mut self, value: Value, tracked: bool) -> Slotted {
        if !tracked {
            return None;
        }
        let slot = self.values.len() as u32;
        self.values.push(value);
        Some(Tracked { slot })
    }
}

/// Entry `k`'s range of a table whose entries start at `starts` (`len`: the table's length, the
/// end of the last entry while the table is being built).
fn range_of(starts: &[u32], k: usize, len: usize) -> std::ops::Range<usize> {
    starts[k] as usize..starts.get(k + 1).map_or(len, |end| *end as usize)
}

/// The scope's values and their uses, numbered.
pub(crate) struct Tables {
    pub value_slots: ValueSlots,
    /// `operands[operand_start[n]..operand_start[n + 1]]` are operation `n`'s operands.
    operand_start: Vec<u32>,
    operands: Vec<Slotted>,
    /// `users[user_start[s]..user_start[s + 1]]` are the uses of slot `s`.
    user_start: Vec<u32>,
    users: Vec<User>,
}

impl Tables {
    /// Numbers the scope's values and reads every operation once, calling `each_op` with each
    /// operation's number first (the fixpoint's other per-operation tables are built there,
    /// while the operation is in the processor's cache). `each_op` answers whether the fixpoint
    /// reads the operation's operands; the operands of one it does not read are not kept, and
    /// a change of their facts does not revisit its block (its transfer cannot change).
    pub(crate) fn new(ctx: &Context, index: &ScopeIndex, mut each_op: impl FnMut(usize) -> bool) -> Tables {
        let mut slots = ValueSlots {
            values: Vec::new(),
            result_start: Vec::with_capacity(index.ops.len() + 1),
            results: Vec::with_capacity(index.ops.len()),
            arg_start: Vec::with_capacity(index.blocks.len() + 1),
            args: Vec::new(),
            outside: FxHashMap::default(),
        };
        // Definitions are numbered in this pass, and operands whose definition has been met;
        // the others (a use may come before its definition in block order, or be defined outside
        // the scope's blocks) are resolved after it. Holding every operand's value until then
        // was 48 MB of fresh memory in a 100,000-block scope.
        let mut operand_start = Vec::with_capacity(index.ops.len() + 1);
        let mut operands: Vec<Slotted> = Vec::with_capacity(2 * index.ops.len());
        let mut later: Vec<(usize, Value)> = Vec::new();
        for (b, block) in index.blocks.iter().enumerate() {
            slots.arg_start.push(slots.args.len() as u32);
            for arg in block.deref(ctx).arguments() {
                let slotted = slots.number(arg, is_tracked(ctx, arg));
                slots.args.push(slotted);
            }
            for n in index.ops_of_block[b].clone() {
                slots.result_start.push(slots.results.len() as u32);
                operand_start.push(operands.len() as u32);
                let reads_operands = each_op(n);
                let operation = index.ops[n].deref(ctx);
                for (result, ty) in operation.results().zip(operation.result_types()) {
                    let tracked = int_width(ctx, ty).is_some_and(|width| width <= 32);
                    let slotted = slots.number(result, tracked);
                    slots.results.push(slotted);
                }
                if reads_operands {
                    for value in operation.operands() {
                        // Defined by an operation or block already numbered: resolved now.
                        let now = match value.defining_entity() {
                            DefiningEntity::Op(op) => match index.op_number.get(&op) {
                                Some(&m) if m <= n => Some(slots.result_slot(m, value)),
                                _ => None,
                            },
                            DefiningEntity::Block(block) => match index.block_number.get(&block) {
                                Some(&c) if c <= b => Some(slots.arg_slot(c, value)),
                                _ => None,
                            },
                        };
                        if now.is_none() {
                            later.push((operands.len(), value));
                        }
                        operands.push(now.flatten());
                    }
                }
            }
        }
        slots.arg_start.push(slots.args.len() as u32);
        slots.result_start.push(slots.results.len() as u32);
        for (position, value) in later {
            let defined_in_scope = match value.defining_entity() {
                DefiningEntity::Op(op) => index.op_number.contains_key(&op),
                DefiningEntity::Block(block) => index.block_number.contains_key(&block),
            };
            operands[position] = if defined_in_scope {
                slots.slot(index, value)
            } else if let Some(slotted) = slots.outside.get(&value) {
                *slotted
            } else {
                // Defined outside the scope's blocks: numbered on first use.
                let slotted = slots.number(value, is_tracked(ctx, value));
                slots.outside.insert(value, slotted);
                slotted
            };
        }
        operand_start.push(operands.len() as u32);
        let slot_count = slots.values.len();
        // The uses of each slot, counted, then placed.
        let mut user_start = vec![0u32; slot_count + 1];
        for operand in operands.iter().flatten() {
            user_start[operand.slot as usize + 1] += 1;
        }
        for s in 0..slot_count {
            user_start[s + 1] += user_start[s];
        }
        let mut next = user_start.clone();
        let mut users = vec![User { block: 0, returns: false }; operands.iter().flatten().count()];
        for n in 0..index.ops.len() {
            let user =
                User { block: index.op_block[n] as u32, returns: index.op_class[n] == OpClass::Return };
            for operand in operands[operand_start[n] as usize..operand_start[n + 1] as usize].iter().flatten()
            {
                let at = &mut next[operand.slot as usize];
                users[*at as usize] = user;
                *at += 1;
            }
        }
        Tables { value_slots: slots, operand_start, operands, user_start, users }
    }

    /// The number of slots.
    pub(crate) fn slots(&self) -> usize {
        self.value_slots.values.len()
    }

    /// Operation `n`'s operands.
    pub(crate) fn operands(&self, n: usize) -> &[Slotted] {
        &self.operands[self.operand_start[n] as usize..self.operand_start[n + 1] as usize]
    }

    /// Operation `n`'s results.
    pub(crate) fn results(&self, n: usize) -> &[Slotted] {
        let slots = &self.value_slots;
        &slots.results[slots.result_start[n] as usize..slots.result_start[n + 1] as usize]
    }

    /// Block `b`'s arguments.
    pub(crate) fn args(&self, b: usize) -> &[Slotted] {
        let slots = &self.value_slots;
        &slots.args[slots.arg_start[b] as usize..slots.arg_start[b + 1] as usize]
    }

    /// The uses of slot `slot`, in scope order.
    pub(crate) fn users(&self, slot: u32) -> &[User] {
        &self.users[self.user_start[slot as usize] as usize..self.user_start[slot as usize + 1] as usize]
    }
}
