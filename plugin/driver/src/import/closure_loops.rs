//! Closure loops: a counted range (`a..b`, its `step_by` or `rev`, see `counted`) consumed by
//! one of `core`'s iterator methods that run a closure of the scope once per item,
//!
//! - `range.map(f).sum()`, `range.sum()`,
//! - `range.map(f).fold(init, g)`, `range.fold(init, g)`,
//! - `range.map(f).for_each(g)`, `range.for_each(g)`,
//!
//! imported as the loop the library runs: the range's `next` written out as for a `for` loop,
//! and each item handed to the closure's own body (a function of the scope) by a direct call.
//! Left to `core`, the item reaches the closure through the library's generic `fold` over a
//! range passed by value, which the verifier does not follow: the closure's reads of a stage
//! (`(0..8).map(|r| stage[r * 32 + c]).sum()`) are then at an index nothing bounds. Written
//! out, the item is a counter the verifier reads like a `for` loop's, and the closure a helper
//! called with it.
//!
//! Only closures without pipeline states in their captures are called so (a state crosses a
//! call as its index and phase, which the closure's captures cannot carry); a `map` result is
//! modelled only when its one use is the consumer. Every other iterator keeps the library's
//! calls.

use pliron::value::Value;
use plugin::ir::builder::{BuildError, FunctionBuilder, SourceLoc};
use plugin::ir::mir::arith::BinOpKind;
use rustc_middle::mir::{Operand, Place, RETURN_PLACE, Rvalue};
use rustc_middle::ty::Ty;
use rustc_span::Spanned;

use super::iterators::{Consumer, closure_body, element};
use super::types::int_type;
use super::{FunctionImport, Importer};
use plugin::ir::mir::memory::counted::{ITEM_DISCRIMINANT, ITEM_PAYLOAD};

impl<'tcx> Importer<'_, 'tcx> {
    /// A call of a closure loop (module doc): `map(range, f)` whose result a consumer reads
    /// (nothing is imported for it but `f` kept for that consumer), or the consumer itself
    /// (the loop). False for any other call; the builder is left in the loop's exit block.
    pub(super) fn closure_loop(
        &mut self,
        function: &mut FunctionImport<'_, 'tcx>,
        builder: &mut FunctionBuilder,
        args: &[Spanned<Operand<'tcx>>],
        destination: Place<'tcx>,
        at: &SourceLoc,
    ) -> Result<bool, BuildError> {
        let Some(receiver) = args.first().and_then(|arg| arg.node.place()).and_then(|place| place.as_local())
        else {
            return Ok(false);
        };
        if let Some(mapped) = destination.as_local()
            && function.counted.maps.get(&mapped) == Some(&receiver)
            && let [_, closure] = args
        {
            let environment = self.closure_environment(function, builder, &closure.node, at);
            function.mapped.insert(mapped, (environment, closure.node.ty(function.body, self.tcx)));
            return Ok(true);
        }
        let Some(consumer) = function.counted.consumers.get(&receiver).copied() else { return Ok(false) };
        let (range, map) = match function.counted.maps.get(&receiver) {
            Some(range) => match function.mapped.get(&receiver) {
                Some(map) => (*range, Some(*map)),
                None => return Ok(false),
            },
            None => (receiver, None),
        };
        let Some(kind) = function.counted.iterators.get(&range).copied() else { return Ok(false) };
        let Some(element) = element(self.tcx, function.body.local_decls[range].ty) else {
            return Ok(false);
        };
        let body_closure = match (consumer, args) {
            (Consumer::Fold, [_, _, g]) | (Consumer::ForEach, [_, g]) => {
                let environment = self.closure_environment(function, builder, &g.node, at);
                Some((environment, g.node.ty(function.body, self.tcx)))
            }
            _ => None,
        };
        let result_ty = destination.ty(function.body, self.tcx).ty;
        let accumulator = match consumer {
            Consumer::ForEach => None,
            Consumer::Sum | Consumer::Fold => {
                let ir_ty = self.ir_type(result_ty, None);
                let slot = builder.alloca(self.ctx, ir_ty, at);
                let first = match (consumer, args) {
                    (Consumer::Fold, [_, init, _]) => self.operand(function, builder, &init.node, at),
                    _ if result_ty.is_floating_point() => Some(builder.const_float(self.ctx, ir_ty, 0.0, at)),
                    _ => int_type(self.ctx, ir_ty).map(|int| builder.const_int(self.ctx, int, 0, at)),
                };
                if let Some(first) = first {
                    builder.store(self.ctx, first, slot, at);
                }
                Some(slot)
            }
        };
        let item_ty = Ty::new_option(self.tcx, element);
        let item_ir = self.ir_type(item_ty, None);
        let item = builder.alloca(self.ctx, item_ir, at);
        let (header, body, exit) = (
            builder.add_block(self.ctx, &[], at),
            builder.add_block(self.ctx, &[], at),
            builder.add_block(self.ctx, &[], at),
        );
        self.stats.blocks += 3;
        builder.goto(self.ctx, header, &[], at);

        builder.switch_to(header);
        let next = self.counted_next(function, builder, (range, kind), (item, item_ty), at);
        let discriminant_ty = self.ir_type(item_ty.discriminant_ty(self.tcx), None);
        let discriminant_at = builder.field_addr(self.ctx, item, ITEM_DISCRIMINANT, discriminant_ty, at);
        let discriminant = builder.load(self.ctx, discriminant_at, at);
        if next.is_some() {
            builder.switch(self.ctx, discriminant, &[(1, body)], exit, at);
        } else {
            // Not expected (the analysis modelled the range): the loop is left at once, opaquely.
            self.opaque(builder, "a closure loop whose range could not be written out", &[], &[], at);
            builder.goto(self.ctx, exit, &[], at);
        }

        builder.switch_to(body);
        let element_ir = self.ir_type(element, None);
        let payload_at = builder.field_addr(self.ctx, item, ITEM_PAYLOAD, element_ir, at);
        let mut value = Some(builder.load(self.ctx, payload_at, at));
        if let (Some((environment, closure)), Some(item)) = (map, value) {
            value = self.call_closure(builder, closure, environment, &[item], at)?.first().copied();
        }
        match (consumer, accumulator, value) {
            (Consumer::Sum, Some(slot), Some(value)) => {
                let sum = builder.load(self.ctx, slot, at);
                let sum = builder.binop(self.ctx, BinOpKind::Add, sum, value, at);
                builder.store(self.ctx, sum, slot, at);
            }
            (Consumer::Fold, Some(slot), Some(value)) => {
                let acc = builder.load(self.ctx, slot, at);
                if let Some((environment, closure)) = body_closure
                    && let Some(next) =
                        self.call_closure(builder, closure, environment, &[acc, value], at)?.first().copied()
                {
                    builder.store(self.ctx, next, slot, at);
                }
            }
            (Consumer::ForEach, _, Some(value)) => {
                if let Some((environment, closure)) = body_closure {
                    self.call_closure(builder, closure, environment, &[value], at)?;
                }
            }
            _ => {
                self.opaque(builder, "a closure loop's item the import could not read", &[], &[], at);
            }
        }
        builder.goto(self.ctx, header, &[], at);

        builder.switch_to(exit);
        if let Some(slot) = accumulator {
            let result = builder.load(self.ctx, slot, at);
            self.write_place(function, builder, destination, result, at);
        }
        Ok(true)
    }

    /// `to = from` for two `map` results of closure loops: `to` maps with `from`'s closure.
    /// True when imported so (nothing is written).
    pub(super) fn mapped_move(
        &mut self,
        function: &mut FunctionImport<'_, 'tcx>,
        place: Place<'tcx>,
        rvalue: &Rvalue<'tcx>,
    ) -> bool {
        let Some(to) = place.as_local().filter(|to| function.counted.maps.contains_key(to)) else {
            return false;
        };
        let Rvalue::Use(Operand::Copy(from) | Operand::Move(from), ..) = rvalue else { return false };
        let Some(map) = from.as_local().and_then(|from| function.mapped.get(&from).copied()) else {
            return false;
        };
        function.mapped.insert(to, map);
        true
    }

    /// A slot holding the closure `operand` names: the address its body is called with.
    fn closure_environment(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        operand: &Operand<'tcx>,
        at: &SourceLoc,
    ) -> Value {
        let ty = self.ir_type(operand.ty(function.body, self.tcx), None);
        let slot = builder.alloca(self.ctx, ty, at);
        if let Some(value) = self.operand(function, builder, operand, at) {
            builder.store(self.ctx, value, slot, at);
        }
        slot
    }

    /// A direct call of the body of the closure of type `closure` (a function of the scope,
    /// [`closure_body`]) with its environment at `environment` and `args`: its results.
    fn call_closure(
        &mut self,
        builder: &FunctionBuilder,
        closure: Ty<'tcx>,
        environment: Value,
        args: &[Value],
        at: &SourceLoc,
    ) -> Result<Vec<Value>, BuildError> {
        let names = self.names;
        let bodies = self.bodies;
        let Some(instance) = closure_body(self.tcx, closure, &|instance| names.contains_key(&instance))
        else {
            return Ok(Vec::new());
        };
        let (Some(name), Some(body)) = (names.get(&instance), bodies.get(&instance)) else {
            return Ok(Vec::new());
        };
        let params: Vec<_> = body.args_iter().map(|local| self.local_type(instance, body, local)).collect();
        let results = self.results_of(body.local_decls[RETURN_PLACE].ty, Some(instance));
        if params.len() != args.len() + 1 {
            return Ok(Vec::new());
        }
        let mut values = vec![self.coerce(builder, environment, params[0], at)];
        for (arg, param) in args.iter().zip(&params[1..]) {
            values.push(self.coerce(builder, *arg, *param, at));
        }
        builder.call(self.ctx, name, &params, &results, &values, at)
    }
}
