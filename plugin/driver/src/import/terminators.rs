//! Terminators: gotos, branches, switches, returns, and call dispatch (a device API function,
//! cuda-oxide's `cuda_device` markers, a scope function, or an opaque call).

use pliron::basic_block::BasicBlock;
use pliron::context::Ptr;
use pliron::r#type::TypeHandle;
use pliron::value::Value;
use plugin::ir::builder::{BuildError, FunctionBuilder, SourceLoc};
use plugin::verify::accounting;
use rustc_middle::mir::{Local, Operand, Place, TerminatorKind};
use rustc_middle::ty::{Instance, Ty, TypingEnv};
use rustc_span::Spanned;

use crate::device_api::{CudaDeviceCall, DeviceOp};
use crate::scope::{fn_item_behind_trait_call, resolve_callee};

use super::analysis::untupled_arguments;
use super::types::{drop_is_inert, pointer_pointee};
use super::{FunctionImport, Importer};
use crate::naming::{crate_qualified_path, symbol};

impl<'tcx> Importer<'_, 'tcx> {
    pub(super) fn terminator(
        &mut self,
        function: &mut FunctionImport<'_, 'tcx>,
        builder: &mut FunctionBuilder,
        kind: &TerminatorKind<'tcx>,
        at: &SourceLoc,
    ) -> Result<(), BuildError> {
        self.stats.operations += 1;
        match kind {
            TerminatorKind::Goto { target } => {
                builder.goto(self.ctx, function.blocks[*target], &[], at);
            }
            TerminatorKind::FalseEdge { real_target: target, .. }
            | TerminatorKind::FalseUnwind { real_target: target, .. } => {
                builder.goto(self.ctx, function.blocks[*target], &[], at);
            }
            TerminatorKind::Drop { place, target, .. } => {
                // A drop of a type without drop glue does nothing, nor does glue of only the
                // standard library's destructors over plain values in a local of the function
                // (`drop_is_inert`; behind a pointer the value might be in shared memory); other
                // glue runs code the scope does not hold (a `Drop` impl may wait at a barrier):
                // outside the model.
                let ty = place.ty(function.body, self.tcx).ty;
                let inert = !place.is_indirect() && drop_is_inert(self.tcx, ty);
                if ty.needs_drop(self.tcx, TypingEnv::fully_monomorphized()) && !inert {
                    self.opaque(builder, &format!("drop({place:?})"), &[], &[], at);
                }
                builder.goto(self.ctx, function.blocks[*target], &[], at);
            }
            TerminatorKind::SwitchInt { discr, targets } => {
                let Some(value) = self.operand(function, builder, discr, at) else {
                    self.opaque(builder, &format!("switchInt on {discr:?}"), &[], &[], at);
                    builder.unreachable(self.ctx, at);
                    return Ok(());
                };
                let is_bool = discr.ty(function.body, self.tcx).is_bool();
                match targets.as_static_if() {
                    Some((0, if_false, if_true)) if is_bool => {
                        builder.cond_br(
                            self.ctx,
                            value,
                            function.blocks[if_true],
                            function.blocks[if_false],
                            at,
                        );
                    }
                    _ => {
                        let cases: Vec<(u64, Ptr<BasicBlock>)> = targets
                            .iter()
                            .map(|(case, target)| (case as u64, function.blocks[target]))
                            .collect();
                        builder.switch(self.ctx, value, &cases, function.blocks[targets.otherwise()], at);
                    }
                }
            }
            TerminatorKind::Return => {
                let mut values = Vec::new();
                if function.returns_state {
                    if let Some((index, phase)) = function.state_slots(&(Local::ZERO, Vec::new())) {
                        values.push(builder.load(self.ctx, index, at));
                        values.push(builder.load(self.ctx, phase, at));
                    }
                } else if function.returns_value {
                    values.extend(self.operand(function, builder, &Operand::Copy(Local::ZERO.into()), at));
                }
                for path in function.returned_states.clone() {
                    let (index, phase) = self.state_values(function, builder, &(Local::ZERO, path), at);
                    values.extend([index, phase]);
                }
                for path in function.handed_back.clone() {
                    if let Some((index, phase)) = function.state_slots(&path) {
                        values.push(builder.load(self.ctx, index, at));
                        values.push(builder.load(self.ctx, phase, at));
                    }
                }
                builder.ret(self.ctx, &values, at);
            }
            TerminatorKind::Assert { cond, expected, target, msg, .. } => {
                let Some(condition) = self.operand(function, builder, cond, at) else {
                    builder.goto(self.ctx, function.blocks[*target], &[], at);
                    return Ok(());
                };
                let failed = builder.add_block(self.ctx, &[], at);
                self.stats.blocks += 1;
                let (then, otherwise) = if *expected {
                    (function.blocks[*target], failed)
                } else {
                    (failed, function.blocks[*target])
                };
                builder.cond_br(self.ctx, condition, then, otherwise, at);
                let current = builder.current_block();
                builder.switch_to(failed);
                self.opaque(builder, &format!("assertion failed: {msg:?}"), &[], &[], at);
                builder.unreachable(self.ctx, at);
                builder.switch_to(current);
            }
            TerminatorKind::Call { func, args, destination, target, .. } => {
                if !self.closure_loop(function, builder, args, *destination, at)? {
                    self.call(function, builder, func, args, *destination, at)?;
                }
                match target {
                    Some(target) => builder.goto(self.ctx, function.blocks[*target], &[], at),
                    None => builder.unreachable(self.ctx, at),
                };
            }
            TerminatorKind::InlineAsm { targets, options, .. } => {
                let what = if options.contains(rustc_ast::InlineAsmOptions::NOMEM) {
                    // Declared to touch no memory (`nomem`): it reads and writes registers only
                    // (special registers, fast math, shuffles), so it cannot touch shared
                    // memory, a barrier or a copy.
                    accounting::REGISTER_ONLY_ASSEMBLY
                } else if DeviceOp::is_modelled_body(self.tcx, function.instance.def_id()) {
                    // The device API's own assembly whose meaning the model states (the
                    // mbarrier initialisation of `Pipeline::init`).
                    accounting::MODELLED_ASSEMBLY
                } else {
                    "inline assembly"
                };
                self.opaque(builder, what, &[], &[], at);
                match targets.first() {
                    Some(target) => builder.goto(self.ctx, function.blocks[*target], &[], at),
                    None => builder.unreachable(self.ctx, at),
                };
            }
            TerminatorKind::Unreachable => {
                builder.unreachable(self.ctx, at);
            }
            TerminatorKind::UnwindResume
            | TerminatorKind::UnwindTerminate(_)
            | TerminatorKind::CoroutineDrop
            | TerminatorKind::TailCall { .. }
            | TerminatorKind::Yield { .. } => {
                self.opaque(builder, &format!("{kind:?}"), &[], &[], at);
                builder.unreachable(self.ctx, at);
            }
        }
        Ok(())
    }

    /// A call: the semantic operation for the device API, `mir.index_addr` for the standard
    /// library's pointer arithmetic, else `mir.call` with the callee's declared signature. The
    /// result is stored into `destination`.
    pub(super) fn call(
        &mut self,
        function: &mut FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        func: &Operand<'tcx>,
        args: &[Spanned<Operand<'tcx>>],
        destination: Place<'tcx>,
        at: &SourceLoc,
    ) -> Result<(), BuildError> {
        let func_ty = func.ty(function.body, self.tcx);
        let resolved = resolve_callee(self.tcx, func_ty);
        self.adapt_hidden_pointers(function, builder, args, at);
        let Some(callee) = resolved else {
            // A call through a function pointer: its callee is unknown, but its signature is
            // not, so each shared pointer argument crosses it adapted to its parameter type
            // like at a direct call, and the adaptation rule judges it.
            let signature = self.tcx.normalize_erasing_late_bound_regions(
                TypingEnv::fully_monomorphized(),
                func_ty.fn_sig(self.tcx),
            );
            let params: Vec<TypeHandle> =
                signature.inputs().iter().map(|ty| self.ir_type(*ty, None)).collect();
            let mut values = Vec::new();
            for (i, arg) in args.iter().enumerate() {
                let Some(value) = self.operand(function, builder, &arg.node, at) else { continue };
                let value = match params.get(i) {
                    Some(param) if pointer_pointee(self.ctx, value).is_some() => {
                        self.coerce(builder, value, *param, at)
                    }
                    _ => value,
                };
                values.push(value);
            }
            let ty = self.ir_type(destination.ty(function.body, self.tcx).ty, None);
            let value = self.opaque(builder, &format!("call of {func:?}"), &values, &[ty], at)[0];
            self.write_place(function, builder, destination, value, at);
            return Ok(());
        };
        if let Some(op) = DeviceOp::of_callee(self.tcx, callee.def_id())
            && self.device_op(function, builder, op, callee, args, destination, at)
        {
            return Ok(());
        }
        if let Some(device) = CudaDeviceCall::of_callee(self.tcx, callee)
            && self.cuda_device_call(function, builder, device, callee, args, destination, at)
        {
            return Ok(());
        }
        if self.counted_call(function, builder, callee, args, destination, at) {
            return Ok(());
        }
        if let Some(constant) = self.type_layout_constant(function, builder, callee, destination, at) {
            self.write_place(function, builder, destination, constant, at);
            return Ok(());
        }
        if let Some(pointer) = self.pointer_arithmetic(function, builder, callee, args, at) {
            self.write_place(function, builder, destination, pointer, at);
            return Ok(());
        }
        if let Some(result) = self.wrapping_arithmetic(function, builder, callee, args, at) {
            self.write_place(function, builder, destination, result, at);
            return Ok(());
        }
        if self.pointer_write(function, builder, callee, args, at) {
            return Ok(());
        }
        let name = self.names.get(&callee).cloned().unwrap_or_else(|| symbol(&self.outside_path(callee)));
        let signature = self
            .tcx
            .normalize_erasing_late_bound_regions(TypingEnv::fully_monomorphized(), func_ty.fn_sig(self.tcx));
        // A function item called through the `Fn` traits: the call passes the item (no data)
        // and the argument tuple, the item takes the tuple's elements.
        if let Some(item) = fn_item_behind_trait_call(self.tcx, callee)
            && let Some(item_name) = self.names.get(&item).cloned()
            && let Some(untupled) = untupled_arguments(&function.tuples, args)
        {
            let item_signature = self.tcx.normalize_erasing_late_bound_regions(
                TypingEnv::fully_monomorphized(),
                item.ty(self.tcx, TypingEnv::fully_monomorphized()).fn_sig(self.tcx),
            );
            let types = (item_signature.inputs(), item_signature.output());
            return self.scope_call(
                function,
                builder,
                (item, &item_name),
                types,
                &untupled[1..],
                destination,
                at,
            );
        }
        if self.names.contains_key(&callee) && !self.tcx.is_closure_like(callee.def_id()) {
            let types = (signature.inputs(), signature.output());
            return self.scope_call(function, builder, (callee, &name), types, args, destination, at);
        }
        // A closure of the scope, called through `call`/`call_mut`/`call_once`: its arguments
        // travel as one tuple (the "rust-call" ABI), which its body receives spread out; the
        // call passes the tuple's elements, so states reach the closure like any function's.
        if self.names.contains_key(&callee)
            && let Some(untupled) = untupled_arguments(&function.tuples, args)
        {
            let inputs: Vec<Ty<'tcx>> =
                untupled.iter().map(|arg| arg.node.ty(function.body, self.tcx)).collect();
            let output = destination.ty(function.body, self.tcx).ty;
            return self.scope_call(
                function,
                builder,
                (callee, &name),
                (&inputs, output),
                &untupled,
                destination,
                at,
            );
        }
        if self.replace_state(function, builder, callee, args, destination, at)
            || self.swap_states(function, builder, callee, args, at)
        {
            return Ok(());
        }
        if self.range_contains(function, builder, callee, args, destination, at) {
            return Ok(());
        }
        // A state handed to a call (`helper(&mut state)`, `mem::swap(&mut a, &mut b)`, a struct
        // holding states) may be changed there in ways the verifier does not follow: its slots
        // escape, so what the verifier knew of them is forgotten and later pipeline operations
        // on it are rejected.
        for arg in args {
            let Some(path) = arg.node.place().and_then(|place| function.state_path(place)) else { continue };
            let slots: Vec<Value> = function
                .states_below(&path)
                .into_iter()
                .flat_map(|(_, (index, phase))| [index, phase])
                .collect();
            if !slots.is_empty() {
                let what = format!("a pipeline state passed to `{name}`, which the verifier does not follow");
                self.opaque(builder, &what, &slots, &[], at);
            }
        }
        let signature = self
            .tcx
            .normalize_erasing_late_bound_regions(TypingEnv::fully_monomorphized(), func_ty.fn_sig(self.tcx));
        let params: Vec<TypeHandle> = signature.inputs().iter().map(|ty| self.ir_type(*ty, None)).collect();
        let in_scope = self.names.contains_key(&callee).then_some(callee);
        let results = self.results_of(signature.output(), in_scope);
        let mut values = Vec::new();
        for (arg, param) in args.iter().zip(&params) {
            let value = match self.operand(function, builder, &arg.node, at) {
                Some(value) => value,
                None => self.opaque(builder, &format!("argument {:?}", arg.node), &[], &[*param], at)[0],
            };
            values.push(self.coerce(builder, value, *param, at));
        }
        // A closure of the scope whose argument tuple could not be spread is not followed.
        let returned = if self.names.contains_key(&callee) {
            let what = format!("a call of `{name}` whose argument tuple the import cannot spread");
            self.opaque(builder, &what, &values, &results, at)
        } else {
            builder.call(self.ctx, &name, &params, &results, &values, at)?
        };
        if let Some(value) = returned.first() {
            self.write_place(function, builder, destination, *value, at);
        }
        self.forget_destination_states(function, builder, destination, at);
        Ok(())
    }

    /// The name of a function outside the scope: its crate, then its path without generic
    /// arguments, so that the first segment is the crate and the last the function's own name
    /// (`core::iter::Iterator::sum`, not `…::sum::<f32>`; `core::<I as
    /// core::iter::IntoIterator>::into_iter` for a blanket impl's method). The verifier
    /// recognises the standard library's views by these two segments. A cuda-device geometry
    /// read is named by the standard library's intrinsic of the same register, which is how the
    /// rules know the thread index from the block's coordinates.
    fn outside_path(&self, callee: Instance<'tcx>) -> String {
        if let Some(CudaDeviceCall::Geometry(intrinsic)) = CudaDeviceCall::of_callee(self.tcx, callee) {
            return intrinsic.to_string();
        }
        crate_qualified_path(self.tcx, callee.def_id())
    }
}
