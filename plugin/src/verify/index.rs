//! A numbering of one scope: functions, blocks and operations in scope order, with the
//! relations the analyses need (predecessors, the callers of each function, semantic ops).
//! Built once per verifier run, in one pass over the scope.

use rustc_hash::{FxHashMap, FxHashSet};

use pliron::{
    basic_block::BasicBlock,
    builtin::{
        op_interfaces::{OneRegionInterface, SymbolOpInterface},
        ops::FuncOp,
    },
    context::{Context, Ptr},
    identifier::Identifier,
    linked_list::ContainsLinkedList,
    operation::Operation,
    value::{DefiningEntity, Value},
};

use super::{
    arena_numbers::ArenaNumbers,
    cycles::Cycles,
    facts::{StateId, ValueKey},
};
use crate::{
    ir::mir::{
        arith::AddrSpaceCastOp,
        control::{CallOp, ReturnOp, UnreachableOp},
        memory::{AllocaOp, LoadOp, StoreOp},
        opaque::OpaqueOp,
    },
    scope::{Scope, function_name},
};

/// Blocks one search for a loop's back edge may visit.
pub(crate) const MAX_LOOP_SEARCH: usize = 256;
/// Blocks looked back from a branch for its loop's header.
const MAX_HEADER_CHAIN: usize = 4;

/// The dialect of semantic operations.
const SEMANTIC_DIALECT: &str = "semantic";

/// A call of a scope function ([`ScopeIndex::call_binding`]): each of the callee's
/// parameters is the call's argument at the same position.
#[derive(Clone)]
pub(crate) struct CallBinding {
    pub callee: usize,
    pub parameters: Vec<Value>,
    pub arguments: Vec<Value>,
}

impl CallBinding {
    /// The argument the call passes for `parameter`, if it is one of the callee's parameters.
    pub(crate) fn argument_for(&self, parameter: Value) -> Option<Value> {
        let position = self.parameters.iter().position(|candidate| *candidate == parameter)?;
        Some(self.arguments[position])
    }
}

/// One scope, numbered.
pub(crate) struct ScopeIndex {
    /// Functions, kernel first.
    pub functions: Vec<Ptr<Operation>>,
    pub function_names: Vec<String>,
    /// Blocks in scope order; `blocks_of[f]` is the range of function `f`'s blocks.
    pub blocks: Vec<Ptr<BasicBlock>>,
    pub blocks_of: Vec<std::ops::Range<usize>>,
    pub block_number: ArenaNumbers<Ptr<BasicBlock>>,
    pub block_function: Vec<usize>,
    /// Operations in scope order, and each one's number.
    pub ops: Vec<Ptr<Operation>>,
    pub op_number: ArenaNumbers<Ptr<Operation>>,
    /// The block (number) of each operation (number).
    pub op_block: Vec<usize>,
    /// `ops_of_block[b]` is the range of block `b`'s operations in `ops`.
    pub ops_of_block: Vec<std::ops::Range<usize>>,
    /// Predecessor blocks of each block (within its function).
    pub preds: Vec<Vec<usize>>,
    /// Successor blocks of each block.
    pub succs: Vec<Vec<usize>>,
    /// For each function, the call operations (numbers) in the scope that call it.
    pub callers: Vec<Vec<usize>>,
    /// For each call operation (number) that calls a function of the scope, that function.
    pub callee_of: FxHashMap<usize, usize>,
    /// Number of semantic operations.
    pub semantic_ops: usize,
    /// What kind of operation each one (number) is, read once here: a pass looking for a few
    /// kinds filters on this instead of dereferencing every operation again (in a scope of tens
    /// of thousands of operations, each dereference is a cache miss, and the misses made the
    /// verifier's time grow faster than the scope).
    pub op_class: Vec<OpClass>,
    /// Each `mir.load`'s and `mir.store`'s address (operation number, address), in scope order,
    /// read while the operation is numbered: the rules ask for it again in several passes,
    /// and in a scope too large for the processor's caches each of those reads was a miss.
    accesses: Vec<(usize, Value)>,
    /// The cycles of the control-flow graph, found on first use (scopes with no loop question
    /// never pay for them).
    cycles: std::cell::OnceCell<Cycles>,
    /// Whether each block has a path to a return of its function, found on first use.
    returning: std::cell::OnceCell<Vec<bool>>,
    /// [`ScopeIndex::is_loop_condition`]'s answers: the graph alone decides them, and the thread
    /// model asks again at every pass over the blocks.
    loop_conditions: std::cell::RefCell<FxHashMap<(usize, usize, usize), bool>>,
}

impl ScopeIndex {
    pub(crate) fn new(ctx: &Context, scope: &Scope) -> ScopeIndex {
        // Each function's symbol, read once: its name, and the callee it resolves calls to.
        let mut function_names = Vec::with_capacity(scope.functions.len());
        let mut by_name: FxHashMap<Identifier, usize> = FxHashMap::default();
        for (f, func) in scope.functions.iter().enumerate() {
            match Operation::get_op::<FuncOp>(*func, ctx) {
                Some(func) => {
                    let name = func.get_symbol_name(ctx);
                    function_names.push(name.to_string());
                    by_name.insert(name, f);
                }
                None => function_names.push(function_name(ctx, *func)),
            }
        }
        let mut index = ScopeIndex {
            functions: scope.functions.clone(),
            function_names,
            blocks: Vec::new(),
            blocks_of: Vec::new(),
            block_number: ArenaNumbers::of(&[]),
            block_function: Vec::new(),
            ops: Vec::new(),
            op_number: ArenaNumbers::of(&[]),
            op_block: Vec::new(),
            ops_of_block: Vec::new(),
            preds: Vec::new(),
            succs: Vec::new(),
            callers: vec![Vec::new(); scope.functions.len()],
            callee_of: FxHashMap::default(),
            semantic_ops: 0,
            op_class: Vec::new(),
            accesses: Vec::new(),
            cycles: std::cell::OnceCell::new(),
            returning: std::cell::OnceCell::new(),
            loop_conditions: Default::default(),
        };
        for (f, func) in scope.functions.iter().enumerate() {
            let start = index.blocks.len();
            if let Some(func) = Operation::get_op::<FuncOp>(*func, ctx) {
                for block in func.get_region(ctx).deref(ctx).iter(ctx) {
                    index.blocks.push(block);
                    index.block_function.push(f);
                    let first_op = index.ops.len();
                    for op in block.deref(ctx).iter(ctx) {
                        let n = index.ops.len();
                        index.ops.push(op);
                        index.op_block.push(index.blocks.len() - 1);
                        let class = OpClass::of(ctx, op);
                        if class == OpClass::Semantic {
                            index.semantic_ops += 1;
                        }
                        index.op_class.push(class);
                        match class {
                            OpClass::Load => index.accesses.push((n, op.deref(ctx).get_operand(0))),
                            OpClass::Store => index.accesses.push((n, op.deref(ctx).get_operand(1))),
                            _ => {}
                        }
                        if let Some(call) = Operation::get_op::<CallOp>(op, ctx)
                            && let Some(callee) =
                                call.callee(ctx).and_then(|name| by_name.get(&name).copied())
                        {
                            index.callers[callee].push(n);
                            index.callee_of.insert(n, callee);
                        }
                    }
                    index.ops_of_block.push(first_op..index.ops.len());
                }
            }
            index.blocks_of.push(start..index.blocks.len());
        }
        // The tables from handle to number, built once the counts are known.
        index.block_number = ArenaNumbers::of(&index.blocks);
        index.op_number = ArenaNumbers::of(&index.ops);
        index.preds = vec![Vec::new(); index.blocks.len()];
        index.succs = vec![Vec::new(); index.blocks.len()];
        for (b, block) in index.blocks.iter().enumerate() {
            let succs: Vec<usize> = block
                .deref(ctx)
                .succs(ctx)
                .into_iter()
                .filter_map(|succ| index.block_number.get(&succ).copied())
                .collect();
            // Blocks are visited in increasing `b`, so a block already holding `b` as a
            // predecessor (a terminator naming it twice) holds it last.
            for succ in &succs {
                if index.preds[*succ].last() != Some(&b) {
                    index.preds[*succ].push(b);
                }
            }
            index.succs[b] = succs;
        }
        index
    }

    /// The address operation `n` reads or writes, if it is a `mir.load` or a `mir.store` (kept
    /// when the index is built, so the operation is not read again).
    pub(crate) fn accessed_address(&self, n: usize) -> Option<Value> {
        if !matches!(self.op_class[n], OpClass::Load | OpClass::Store) {
            return None;
        }
        let at = self.accesses.binary_search_by_key(&n, |(m, _)| *m).ok()?;
        Some(self.accesses[at].1)
    }

    /// The block (number) an operation of the scope is in.
    pub(crate) fn block_of_op(&self, op: Ptr<Operation>) -> Option<usize> {
        self.op_number.get(&op).map(|n| self.op_block[*n])
    }

    /// The operations that may run right after operation `n` within its function: the next one
    /// of its block, or the first of each successor block.
    pub(crate) fn following(&self, n: usize) -> Vec<usize> {
        let block = self.op_block[n];
        if n + 1 < self.ops_of_block[block].end {
            vec![n + 1]
        } else {
            self.succs[block].iter().map(|s| self.ops_of_block[*s].start).collect()
        }
    }

    /// The entry block of function `f`, if it has one.
    pub(crate) fn entry_block(&self, f: usize) -> Option<usize> {
        let range = self.blocks_of[f].clone();
        (!range.is_empty()).then_some(range.start)
    }

    /// The parameters of function `f` (its entry block's arguments), if it has a body.
    pub(crate) fn parameters(&self, ctx: &Context, f: usize) -> Option<Vec<Value>> {
        Some(self.blocks[self.entry_block(f)?].deref(ctx).arguments().collect())
    }

    /// For `call`, a call of a scope function: the callee, its parameters and the call's
    /// arguments, one for each; `None` for any other operation, or where their counts differ.
    pub(crate) fn call_binding(&self, ctx: &Context, call: Ptr<Operation>) -> Option<CallBinding> {
        let callee = *self.callee_of.get(self.op_number.get(&call)?)?;
        let parameters = self.parameters(ctx, callee)?;
        let arguments: Vec<Value> = call.deref(ctx).operands().collect();
        (parameters.len() == arguments.len()).then_some(CallBinding { callee, parameters, arguments })
    }

    /// When `value` is a parameter of a helper of the scope (an argument of its entry block, not
    /// the kernel's) that the scope calls, the argument each of those calls passes for it, in
    /// call order; `None` otherwise, or when a call passes too few operands. What every call
    /// passes alike is what the helper sees, whichever call ran it.
    pub(crate) fn call_arguments(&self, ctx: &Context, value: Value) -> Option<Vec<Value>> {
        let DefiningEntity::Block(block) = value.defining_entity() else { return None };
        let b = *self.block_number.get(&block)?;
        let f = self.block_function[b];
        if f == 0 || self.entry_block(f) != Some(b) || self.callers[f].is_empty() {
            return None;
        }
        let position = block.deref(ctx).arguments().position(|argument| argument == value)?;
        self.callers[f]
            .iter()
            .map(|&call| {
                let operation = self.ops[call].deref(ctx);
                (position < operation.get_num_operands()).then(|| operation.get_operand(position))
            })
            .collect()
    }

    /// The canonical key of a value of this scope.
    pub(crate) fn key_of(&self, ctx: &Context, value: Value) -> Option<ValueKey> {
        match value.defining_entity() {
            DefiningEntity::Op(op) => {
                let number = *self.op_number.get(&op)?;
                let index = op.deref(ctx).results().position(|result| result == value)?;
                Some(ValueKey::Result { op: number as u32, index: index as u32 })
            }
            DefiningEntity::Block(block) => {
                let number = *self.block_number.get(&block)?;
                let index = block.deref(ctx).arguments().position(|arg| arg == value)?;
                Some(ValueKey::Argument { block: number as u32, index: index as u32 })
            }
        }
    }

    /// The operations (number, operation) of one class, in scope order.
    pub(crate) fn ops_of_class(&self, class: OpClass) -> impl Iterator<Item = (usize, Ptr<Operation>)> + '_ {
        self.ops_where(move |c| c == class)
    }

    /// The operations (number, operation) whose class `keep` accepts, in scope order; no other
    /// operation is dereferenced.
    pub(crate) fn ops_where(
        &self,
        keep: impl Fn(OpClass) -> bool + 'static,
    ) -> impl Iterator<Item = (usize, Ptr<Operation>)> + '_ {
        self.op_class.iter().enumerate().filter(move |(_, c)| keep(**c)).map(|(n, _)| (n, self.ops[n]))
    }

    /// The `semantic.state_new` operation of a state.
    pub(crate) fn state_op(&self, state: StateId) -> Ptr<Operation> {
        self.ops[state.0 as usize]
    }

    /// The function (number) holding operation `op`.
    pub(crate) fn function_of_op(&self, op: Ptr<Operation>) -> Option<usize> {
        self.block_of_op(op).map(|b| self.block_function[b])
    }

    /// The cycles of the scope's control-flow graph.
    pub(crate) fn cycles(&self) -> &Cycles {
        self.cycles.get_or_init(|| Cycles::new(&self.succs))
    }

    /// Whether block `b` ends in `mir.return` (a block ending in `mir.unreachable`, a panic,
    /// traps the launch and returns to no caller).
    pub(crate) fn ends_in_return(&self, b: usize) -> bool {
        self.ops_of_block[b].clone().last().is_some_and(|n| self.op_class[n] == OpClass::Return)
    }

    /// Whether some path from block `b` returns from its function. A block without one only
    /// leads into a panic (`mir.unreachable`, which traps and ends the whole launch) or loops
    /// forever: no way on for a thread that goes there.
    pub(crate) fn can_return(&self, b: usize) -> bool {
        self.returning.get_or_init(|| {
            let mut returning = vec![false; self.blocks.len()];
            let mut stack: Vec<usize> = (0..self.blocks.len()).filter(|b| self.ends_in_return(*b)).collect();
            for b in &stack {
                returning[*b] = true;
            }
            while let Some(b) = stack.pop() {
                for pred in &self.preds[b] {
                    if !returning[*pred] {
                        returning[*pred] = true;
                        stack.push(*pred);
                    }
                }
            }
            returning
        })[b]
    }

    /// Whether block `b` is only `mir.unreachable`: the arm a `match` takes on a discriminant
    /// its type cannot hold. No thread reaches it, so the analyses do not count it as a way.
    pub(crate) fn is_only_unreachable(&self, ctx: &Context, b: usize) -> bool {
        let mut ops = self.ops_of_block[b].clone();
        matches!((ops.next(), ops.next()), (Some(n), None) if Operation::get_op::<UnreachableOp>(self.ops[n], ctx).is_some())
    }

    /// Whether `b` is a loop's header and its branch to `yes` or `no` the loop's condition:
    /// exactly one of them leads back to `b` through blocks after it (within
    /// [`MAX_LOOP_SEARCH`] blocks; a longer search answers no).
    pub(crate) fn is_loop_condition(&self, b: usize, yes: usize, no: usize) -> bool {
        if let Some(known) = self.loop_conditions.borrow().get(&(b, yes, no)) {
            return *known;
        }
        // Only forward in block order, or back to `b`: the import lays blocks out in reverse
        // postorder, so a path to `b` through a block before it leaves `b`'s loop by an
        // enclosing loop.
        // The loop's header may be a few blocks before the branch, each the only successor of
        // the one before and the only predecessor of the next (a `for` loop calls `next()` in
        // its header and branches on the result in the block after).
        let mut header = b;
        for _ in 0..MAX_HEADER_CHAIN {
            match self.preds[header].as_slice() {
                [pred] if self.succs[*pred].as_slice() == [header] => header = *pred,
                _ => break,
            }
        }
        let back = |from: usize| self.path_exists(&[from], header, MAX_LOOP_SEARCH, |succ| succ >= header);
        let found = matches!((back(yes), back(no)), (Some(true), Some(false)) | (Some(false), Some(true)));
        self.loop_conditions.borrow_mut().insert((b, yes, no), found);
        found
    }

    /// Whether a path of successor edges leads from one of the blocks `starts` to block `to`
    /// (a start that is `to` counts), stepping only into blocks that `follow` admits; `None`
    /// once the search has seen more than `limit` blocks. The analyses ask this of loops, and
    /// bound it so that a kernel's size cannot make one question cost the whole scope.
    pub(crate) fn path_exists(
        &self,
        starts: &[usize],
        to: usize,
        limit: usize,
        follow: impl Fn(usize) -> bool,
    ) -> Option<bool> {
        let mut seen: FxHashSet<usize> = starts.iter().copied().collect();
        let mut stack = starts.to_vec();
        while let Some(b) = stack.pop() {
            if b == to {
                return Some(true);
            }
            for succ in self.succs[b].iter().copied().filter(|succ| follow(*succ)) {
                if seen.insert(succ) {
                    if seen.len() > limit {
                        return None;
                    }
                    stack.push(succ);
                }
            }
        }
        Some(false)
    }
}

/// The kinds of operation the verifier's passes look for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OpClass {
    /// An operation of the semantic dialect (pipeline, barrier, bulk copy, wgmma, ...).
    Semantic,
    Load,
    Store,
    Alloca,
    Call,
    /// `mir.opaque`: an operation the importer could not model.
    Opaque,
    AddrSpaceCast,
    Return,
    Other,
}

impl OpClass {
    fn of(ctx: &Context, op: Ptr<Operation>) -> OpClass {
        if is_semantic(ctx, op) {
            OpClass::Semantic
        } else if Operation::is_op::<LoadOp>(op, ctx) {
            OpClass::Load
        } else if Operation::is_op::<StoreOp>(op, ctx) {
            OpClass::Store
        } else if Operation::is_op::<AllocaOp>(op, ctx) {
            OpClass::Alloca
        } else if Operation::is_op::<CallOp>(op, ctx) {
            OpClass::Call
        } else if Operation::is_op::<OpaqueOp>(op, ctx) {
            OpClass::Opaque
        } else if Operation::is_op::<AddrSpaceCastOp>(op, ctx) {
            OpClass::AddrSpaceCast
        } else if Operation::is_op::<ReturnOp>(op, ctx) {
            OpClass::Return
        } else {
            OpClass::Other
        }
    }

    /// Whether the operation reads or writes memory through an address operand.
    pub(crate) fn accesses_memory(self) -> bool {
        matches!(self, OpClass::Load | OpClass::Store)
    }
}

/// Whether `op` belongs to the semantic dialect.
pub(crate) fn is_semantic(ctx: &Context, op: Ptr<Operation>) -> bool {
    let dialect: Identifier = Operation::get_opid(op, ctx).dialect.into();
    dialect.as_ref() == SEMANTIC_DIALECT
}
