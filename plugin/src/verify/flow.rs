//! What a value read from memory may be: the values stored where a pointer points, followed
//! through the function's locals (and the parts of local aggregates), helper parameters (every
//! call's argument), pointers kept in locals, closures' environments and arrays (the captured
//! values and the elements are the operands of the opaque aggregate that builds them). A
//! question the walk cannot answer (memory it cannot name, an aggregate built by anything else,
//! a local that may be written unseen: [`LocalStores`]) answers `None`, never a guess.

use pliron::{
    context::{Context, Ptr},
    operation::Operation,
    r#type::{TypeHandle, Typed},
    value::{DefiningEntity, Value},
};

use super::{
    constants::evaluate_constant,
    dataflow::{function_returns, returned_by},
    index::ScopeIndex,
    locals::{LocalStores, captured},
    pipeline_calls::makes_pipeline,
};
use crate::ir::mir::{
    arith::{AddrSpaceCastOp, CastKind, CastOp},
    memory::{AllocaOp, FieldAddrOp, LoadOp},
    opaque::OpaqueOp,
};

/// Follows values through memory and calls (module doc).
pub(crate) struct Flow<'a> {
    pub ctx: &'a Context,
    pub index: &'a ScopeIndex,
    pub locals: &'a LocalStores,
    /// The type of the value sought (what the load that starts the walk reads), `None` when not
    /// known: an escaped local is read only where no unresolved store writes it.
    pub leaf: Option<TypeHandle>,
}

/// Definitions [`Flow::constant`] looks through.
const CONSTANT_BUDGET: u32 = 32;
/// Operations deep [`Flow::constant`] evaluates arithmetic, at each value the walk finds.
const CONSTANT_DEPTH: u32 = 4;

impl Flow<'_> {
    /// The constant `value` holds, where it is one directly (see [`super::constants::constant_value`]), or is
    /// arithmetic on such constants, or every value the walk finds it may hold is that constant:
    /// a count kept in a local, a helper's parameter, a field of a struct built once and handed
    /// over whole (`params.transaction_bytes`), a helper's result computed from the fields of a
    /// struct it reads through `&self` (`self.rows * self.cols * 4`).
    pub(crate) fn constant(&self, value: Value) -> Option<i64> {
        self.constant_within(value, &mut { CONSTANT_BUDGET })
    }

    fn constant_within(&self, value: Value, budget: &mut u32) -> Option<i64> {
        evaluate_constant(self.ctx, value, CONSTANT_DEPTH, &mut |leaf| {
            // The walk's unresolved stores are judged against the type of what it looks for.
            let flow = Flow { leaf: Some(leaf.get_type(self.ctx)), ..*self };
            let mut agreed = None;
            for found in flow.values(leaf, &[], budget)? {
                // A value the walk cannot see through is itself: not a constant.
                if found == leaf {
                    return None;
                }
                let constant = flow.constant_within(found, budget)?;
                if agreed.is_some_and(|seen| seen != constant) {
                    return None;
                }
                agreed = Some(constant);
            }
            agreed
        })
    }

    /// The values field `path` of `value` may hold (`value` itself for the empty path, when it
    /// is not itself a read of memory or a parameter).
    pub(crate) fn values(&self, value: Value, path: &[u32], budget: &mut u32) -> Option<Vec<Value>> {
        if *budget == 0 {
            return None;
        }
        *budget -= 1;
        let ctx = self.ctx;
        match value.defining_entity() {
            DefiningEntity::Block(block) => {
                let b = *self.index.block_number.get(&block)?;
                let f = self.index.block_function[b];
                if self.index.entry_block(f) != Some(b) {
                    return None;
                }
                if f == 0 {
                    // A kernel parameter: itself; an aggregate parameter's fields are not known.
                    return path.is_empty().then(|| vec![value]);
                }
                let position = block.deref(ctx).arguments().position(|argument| argument == value)?;
                let callers = &self.index.callers[f];
                if callers.is_empty() {
                    return None;
                }
                let mut found = Vec::new();
                for call in callers {
                    let operation = self.index.ops[*call].deref(ctx);
                    let argument =
                        (position < operation.get_num_operands()).then(|| operation.get_operand(position))?;
                    drop(operation);
                    found.extend(self.values(argument, path, budget)?);
                }
                Some(found)
            }
            DefiningEntity::Op(def) => {
                if Operation::get_op::<LoadOp>(def, ctx).is_some() {
                    let address = def.deref(ctx).get_operand(0);
                    return self.pointees(address, path, budget);
                }
                if let [field, inner @ ..] = path
                    && Operation::get_op::<OpaqueOp>(def, ctx).is_some()
                {
                    return self.values(captured(ctx, value, *field)?, inner, budget);
                }
                // A pipeline `Pipeline::init` or `attach` made is that call's result: where a
                // pipeline comes from is the call, not the struct its body builds.
                if path.is_empty() && makes_pipeline(ctx, def) {
                    return Some(vec![value]);
                }
                if let Some(returned) = self.returned(def, value) {
                    let mut found = Vec::new();
                    for value in returned {
                        found.extend(self.values(value, path, budget)?);
                    }
                    return Some(found);
                }
                path.is_empty().then(|| vec![value])
            }
        }
    }

    /// What a call of a scope function may return as its result `result`: the operand at that
    /// position of each of the callee's `mir.return`s (a helper returning a struct it built, a
    /// standard-library adaptor returning the iterator that holds a closure). `None` for a call
    /// of a function outside the scope, or a value no call returns.
    fn returned(&self, call: Ptr<Operation>, result: Value) -> Option<Vec<Value>> {
        let (ctx, index) = (self.ctx, self.index);
        let callee = *index.callee_of.get(index.op_number.get(&call)?)?;
        returned_by(ctx, index, &function_returns(index, callee), call, result)
    }

    /// The values stored at field `path` of the memory `pointer` points to.
    pub(crate) fn pointees(&self, pointer: Value, path: &[u32], budget: &mut u32) -> Option<Vec<Value>> {
        if *budget == 0 {
            return None;
        }
        *budget -= 1;
        let ctx = self.ctx;
        if let Some(stored) = self.locals.reads(ctx, pointer, path, self.leaf) {
            // Stores to parts of the place make its whole value unknown.
            if self.locals.written_below(ctx, pointer, path) {
                return None;
            }
            let mut found = Vec::new();
            for (value, inner) in stored {
                found.extend(self.values(value, &inner, budget)?);
            }
            return (!found.is_empty()).then_some(found);
        }
        let def = pointer.defining_op();
        if let Some(def) = def {
            if Operation::get_op::<AllocaOp>(def, ctx).is_some() {
                return None;
            }
            if let Some(field) = Operation::get_op::<FieldAddrOp>(def, ctx) {
                let mut outer = vec![field.field(ctx)?];
                outer.extend_from_slice(path);
                return self.pointees(def.deref(ctx).get_operand(0), &outer, budget);
            }
            let pointer_cast = Operation::get_op::<AddrSpaceCastOp>(def, ctx).is_some()
                || Operation::get_op::<CastOp>(def, ctx)
                    .is_some_and(|cast| cast.kind(ctx) == Some(CastKind::PtrToPtr));
            if pointer_cast {
                return self.pointees(def.deref(ctx).get_operand(0), path, budget);
            }
        }
        // A pointer value read from memory or handed in: where it may point.
        let mut found = Vec::new();
        for target in self.values(pointer, &[], budget)? {
            if target == pointer {
                return None;
            }
            found.extend(self.pointees(target, path, budget)?);
        }
        (!found.is_empty()).then_some(found)
    }
}
