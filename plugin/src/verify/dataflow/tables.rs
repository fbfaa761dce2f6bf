//! The fixpoint's tables of one scope, built in two passes over its operations before the
//! fixpoint runs: every tracked value numbered once (its slot), each operation's operands and
//! results and each block's arguments as slots, and the blocks using each slot. The fixpoint
//! then reads arrays: it dereferences no operation, asks no value for its type, hashes no value
//! and walks no use list. At tens of thousands of blocks each of those was a cache miss (or an
//! allocation) per operation and visit, and together they were most of the fixpoint's cost.

use rustc_hash::FxHashMap;

use pliron::{context::Context, value::Value};

use crate::ir::mir::int_width;
use crate::verify::{
    facts::{Tracked, is_tracked},
    index::{OpClass, ScopeIndex},
};

/// An operand or result as the fixpoint reads it: a tracked value, or `None` for one it does
/// not track (whose fact is `Unrelated` and which carries no versions).
pub(crate) type Slotted = Option<Tracked>;

/// What [`Tables::slot_of`] maps a value the fixpoint does not track to: no slot.
pub(crate) const UNTRACKED: u32 = u32::MAX;

/// A block using a tracked value, and whether the use is a `mir.return` (whose value reaches
/// the results of every call of the function).
#[derive(Clone, Copy)]
pub(crate) struct User {
    pub block: u32,
    pub returns: bool,
}

/// The scope's values and their uses, numbered.
pub(crate) struct Tables {
    /// The slot of every value the scope defines (and of any other value an operation uses),
    /// [`UNTRACKED`] for a value the fixpoint does not track.
    pub slot_of: FxHashMap<Value, u32>,
    /// The number of slots.
    pub slots: usize,
    /// `operands[operand_start[n]..operand_start[n + 1]]` are operation `n`'s operands.
    operand_start: Vec<u32>,
    operands: Vec<Slotted>,
    /// The same for results.
    result_start: Vec<u32>,
    results: Vec<Slotted>,
    /// The same for block arguments, by block number.
    arg_start: Vec<u32>,
    args: Vec<Slotted>,
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
        let mut slot_of: FxHashMap<Value, u32> = FxHashMap::default();
        // About two values an operation: reserved, so that the map is not rebuilt as it grows.
        slot_of.reserve(2 * index.ops.len() + index.blocks.len());
        let mut slots = 0u32;
        let mut number = |slot_of: &mut FxHashMap<Value, u32>, value: Value, tracked: bool| -> Slotted {
            if !tracked {
                slot_of.insert(value, UNTRACKED);
                return None;
            }
            let slot = slots;
            slots += 1;
            slot_of.insert(value, slot);
            Some(Tracked { value, slot })
        };
        // Definitions are numbered in this pass; operands are resolved after it, since a use may
        // come before its definition in block order.
        let mut arg_start = Vec::with_capacity(index.blocks.len() + 1);
        let mut args = Vec::new();
        let mut result_start = Vec::with_capacity(index.ops.len() + 1);
        let mut results = Vec::with_capacity(index.ops.len());
        let mut operand_start = Vec::with_capacity(index.ops.len() + 1);
        let mut operand_values = Vec::with_capacity(2 * index.ops.len());
        for (b, block) in index.blocks.iter().enumerate() {
            arg_start.push(args.len() as u32);
            for arg in block.deref(ctx).arguments() {
                args.push(number(&mut slot_of, arg, is_tracked(ctx, arg)));
            }
            for n in index.ops_of_block[b].clone() {
                result_start.push(results.len() as u32);
                operand_start.push(operand_values.len() as u32);
                let reads_operands = each_op(n);
                let operation = index.ops[n].deref(ctx);
                for (result, ty) in operation.results().zip(operation.result_types()) {
                    let tracked = int_width(ctx, ty).is_some_and(|width| width <= 32);
                    results.push(number(&mut slot_of, result, tracked));
                }
                if reads_operands {
                    operand_values.extend(operation.operands());
                }
            }
        }
        arg_start.push(args.len() as u32);
        result_start.push(results.len() as u32);
        let operands: Vec<Slotted> = operand_values
            .into_iter()
            .map(|value| match slot_of.get(&value) {
                Some(&UNTRACKED) => None,
                Some(&slot) => Some(Tracked { value, slot }),
                // Defined outside the scope's blocks: numbered on first use.
                None => number(&mut slot_of, value, is_tracked(ctx, value)),
            })
            .collect();
        operand_start.push(operands.len() as u32);
        let slots = slots as usize;
        // The uses of each slot, counted, then placed.
        let mut user_start = vec![0u32; slots + 1];
        for operand in operands.iter().flatten() {
            user_start[operand.slot as usize + 1] += 1;
        }
        for s in 0..slots {
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
        Tables {
            slot_of,
            slots,
            operand_start,
            operands,
            result_start,
            results,
            arg_start,
            args,
            user_start,
            users,
        }
    }

    /// Operation `n`'s operands.
    pub(crate) fn operands(&self, n: usize) -> &[Slotted] {
        &self.operands[self.operand_start[n] as usize..self.operand_start[n + 1] as usize]
    }

    /// Operation `n`'s results.
    pub(crate) fn results(&self, n: usize) -> &[Slotted] {
        &self.results[self.result_start[n] as usize..self.result_start[n + 1] as usize]
    }

    /// Block `b`'s arguments.
    pub(crate) fn args(&self, b: usize) -> &[Slotted] {
        &self.args[self.arg_start[b] as usize..self.arg_start[b + 1] as usize]
    }

    /// The uses of slot `slot`, in scope order.
    pub(crate) fn users(&self, slot: u32) -> &[User] {
        &self.users[self.user_start[slot as usize] as usize..self.user_start[slot as usize + 1] as usize]
    }
}
