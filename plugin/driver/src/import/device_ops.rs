//! Calls of the device API's protocol functions as the semantic operations, each naming the
//! pipeline it acts on; and cuda-device's calls that are neither those nor ordinary calls
//! (inline PTX, the shared-window address, operations outside the model) as opaque operations
//! whose descriptions the verifier's accounting reads.

use super::barrier_params::barrier_pipeline;
use pliron::context::Ptr;
use pliron::operation::Operation;
use pliron::r#type::TypeHandle;
use pliron::value::Value;
use plugin::ir::builder::{FunctionBuilder, SourceLoc};
use plugin::ir::semantic::pipeline::PipelineRole;
use plugin::ir::types::shorthand;
use rustc_middle::mir::{Operand, Place};
use rustc_middle::ty::Instance;
use rustc_span::Spanned;

use crate::device_api::{CudaDeviceCall, DeviceOp};
use crate::naming::crate_qualified_path;
use plugin::verify::accounting;

use super::state_abi::stage_count;
use super::types::pointer_pointee;
use super::{FunctionImport, Importer};

impl<'tcx> Importer<'_, 'tcx> {
    /// Emits the semantic operation of a device-API call; `false` when the call's arguments
    /// are not in a form the operation takes (it is then imported as an ordinary call).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn device_op(
        &mut self,
        function: &mut FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        op: DeviceOp,
        callee: Instance<'tcx>,
        args: &[Spanned<Operand<'tcx>>],
        destination: Place<'tcx>,
        at: &SourceLoc,
    ) -> bool {
        match op {
            DeviceOp::ConsumerStateNew | DeviceOp::ProducerStateNew => {
                let Some((index_slot, phase_slot)) =
                    function.state_of(destination).and_then(|path| function.state_slots(&path))
                else {
                    return false;
                };
                let role = if op == DeviceOp::ProducerStateNew {
                    PipelineRole::Producer
                } else {
                    PipelineRole::Consumer
                };
                let stages = stage_count(destination.ty(function.body, self.tcx).ty);
                let (index, phase) = builder.state_new(self.ctx, role, stages, at);
                builder.store(self.ctx, index, index_slot, at);
                builder.store(self.ctx, phase, phase_slot, at);
            }
            DeviceOp::StateAdvance => {
                let (index, phase) = self.state_operands(function, builder, args, 0, at);
                let (index, phase) = builder.state_advance(self.ctx, index, phase, at);
                if let Some((index_slot, phase_slot)) = function.state_arg(args, 0) {
                    builder.store(self.ctx, index, index_slot, at);
                    builder.store(self.ctx, phase, phase_slot, at);
                }
            }
            DeviceOp::StateIndex | DeviceOp::ProducerBarrier => {
                // `state.index()` is the stage index; `producer_barrier(&state)` selects the
                // stage's *full* barrier, which the import represents by the stage index. A state
                // the import cannot follow (`slot.as_mut()`, `&mut states[p]`) gives the same
                // stand-in as the pipeline operations on it: an index the facts leave undecided,
                // not an unrelated call result that would make the copy on that barrier rejected.
                let position = if op == DeviceOp::StateIndex { 0 } else { 1 };
                let (index, _) = self.state_operands(function, builder, args, position, at);
                if op == DeviceOp::ProducerBarrier
                    && destination.projection.is_empty()
                    && let Some(pipeline) = self.pipeline_arg(function, builder, args, at)
                {
                    function.barrier_pipelines.insert(destination.local, pipeline);
                }
                self.write_place(function, builder, destination, index, at);
            }
            DeviceOp::ProducerAcquire | DeviceOp::ProducerTail | DeviceOp::ConsumerWait => {
                let (index, phase) = self.state_operands(function, builder, args, 1, at);
                let pipeline = self.pipeline_arg(function, builder, args, at);
                let semantic = match op {
                    DeviceOp::ProducerAcquire => builder.producer_acquire(self.ctx, index, phase, at),
                    DeviceOp::ProducerTail => builder.producer_tail(self.ctx, index, phase, at),
                    _ => builder.consumer_wait(self.ctx, index, phase, at),
                };
                self.name_pipeline(semantic, pipeline);
            }
            DeviceOp::ConsumerRelease => {
                let (index, _) = self.state_operands(function, builder, args, 1, at);
                let pipeline = self.pipeline_arg(function, builder, args, at);
                let semantic = builder.consumer_release(self.ctx, index, at);
                self.name_pipeline(semantic, pipeline);
            }
            DeviceOp::ProducerExpectTx => {
                let Some(bytes) = args.get(2).and_then(|arg| self.operand(function, builder, &arg.node, at))
                else {
                    return false;
                };
                let (index, _) = self.state_operands(function, builder, args, 1, at);
                let pipeline = self.pipeline_arg(function, builder, args, at);
                let semantic = builder.producer_expect_tx(self.ctx, index, bytes, at);
                self.name_pipeline(semantic, pipeline);
            }
            DeviceOp::BulkCopy | DeviceOp::TensorCopy2d => {
                let values: Vec<Option<Value>> =
                    args.iter().map(|arg| self.operand(function, builder, &arg.node, at)).collect();
                // A tensor copy's (column, row) pick the box inside the tensor; the model only
                // needs its destination, source, bytes and barrier.
                let (operands, barrier_arg) = match (op, &values[..]) {
                    (DeviceOp::BulkCopy, [Some(to), Some(from), Some(bytes), Some(barrier)]) => {
                        ((*to, *from, *bytes, *barrier), 3)
                    }
                    (DeviceOp::TensorCopy2d, [Some(to), Some(map), _, _, Some(bytes), Some(barrier)]) => {
                        ((*to, *map, *bytes, *barrier), 5)
                    }
                    _ => return false,
                };
                let (copy_to, source, bytes, barrier) = operands;
                // The barrier is often a temporary copy of the local `producer_barrier` wrote, or
                // a parameter of a helper handed the barrier (`barrier_params`).
                let pipeline = args.get(barrier_arg).and_then(|arg| barrier_pipeline(function, &arg.node));
                let semantic = builder.bulk_copy(self.ctx, copy_to, source, bytes, barrier, at);
                self.name_pipeline(semantic, pipeline);
            }
            DeviceOp::DynamicSharedBase => {
                let pointee = self.ir_type(callee.args.type_at(0), None);
                let base = builder.dynamic_shared_base(self.ctx, pointee, at);
                self.write_place(function, builder, destination, base, at);
            }
            DeviceOp::DynamicSharedWindow => {
                // The 32-bit shared-window address: an integer the IR does not follow.
                let u32_ty: TypeHandle = shorthand::u32_type(self.ctx).into();
                let address = self.opaque(builder, "dynamic_shared_window_address()", &[], &[u32_ty], at)[0];
                self.write_place(function, builder, destination, address, at);
            }
            DeviceOp::Barrier => {
                builder.barrier(self.ctx, at);
            }
            DeviceOp::WgmmaFence | DeviceOp::WgmmaMma | DeviceOp::WgmmaWait => {
                // The accumulators' address comes first, then an mma's two descriptors; its
                // scale is not modelled (see `plugin::ir::semantic::wgmma`).
                let operands: Vec<Option<Value>> =
                    args.iter().map(|arg| self.operand(function, builder, &arg.node, at)).collect();
                let Some(&Some(accumulators)) = operands.first() else {
                    return false;
                };
                if pointer_pointee(self.ctx, accumulators).is_none() {
                    return false;
                }
                match op {
                    DeviceOp::WgmmaFence => builder.wgmma_fence(self.ctx, accumulators, at),
                    DeviceOp::WgmmaMma => {
                        let (Some(&Some(a)), Some(&Some(b))) = (operands.get(1), operands.get(2)) else {
                            return false;
                        };
                        builder.wgmma_mma(self.ctx, accumulators, [a, b], at)
                    }
                    _ => {
                        // `PENDING` is the callee's const argument; without one the wait is
                        // imported with an opaque count, which completes nothing.
                        let u32_ty = shorthand::u32_type(self.ctx);
                        let pending = match callee.args.consts().next().and_then(|c| c.try_to_leaf()) {
                            Some(leaf) => builder.const_int(self.ctx, u32_ty, i128::from(leaf.to_u32()), at),
                            None => {
                                self.opaque(builder, "wait_group's pending count", &[], &[u32_ty.into()], at)
                                    [0]
                            }
                        };
                        builder.wgmma_wait(self.ctx, pending, accumulators, at)
                    }
                };
            }
            DeviceOp::WgmmaCommit => {
                builder.wgmma_commit(self.ctx, at);
            }
            DeviceOp::ProxyFence => {
                builder.proxy_fence(self.ctx, at);
            }
        }
        true
    }

    /// Imports a call of cuda-device that is not an ordinary call: a `ptx_asm!` marker as inline
    /// assembly (register-only or not, as the macro's options say), the shared-window address
    /// as the number the default device API's is, and an operation outside the model as an
    /// opaque operation whose description gives the reason, so its scope is unverified. The
    /// operands that are values go along, the result is the call's. `false` for the calls that
    /// are imported otherwise (protocol operations, geometry reads, value functions).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn cuda_device_call(
        &mut self,
        function: &mut FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        call: CudaDeviceCall,
        callee: Instance<'tcx>,
        args: &[Spanned<Operand<'tcx>>],
        destination: Place<'tcx>,
        at: &SourceLoc,
    ) -> bool {
        let (what, operands) = match call {
            CudaDeviceCall::Op(_) | CudaDeviceCall::Geometry(_) | CudaDeviceCall::Value => return false,
            // A number only assembly reads: like `dynamic_shared_window_address()`, no access.
            CudaDeviceCall::WindowAddress => ("dynamic_shared_window_address()".to_string(), &args[..0]),
            // The template, constraints and options come first: constants, not operands.
            CudaDeviceCall::InlinePtx => {
                let what = if CudaDeviceCall::register_only_ptx(callee) {
                    accounting::REGISTER_ONLY_ASSEMBLY
                } else {
                    "inline assembly"
                };
                (what.to_string(), args.get(3..).unwrap_or_default())
            }
            CudaDeviceCall::Unmodelled(reason) => {
                let path = crate_qualified_path(self.tcx, callee.def_id());
                (format!("{}{reason}: `{path}`", accounting::UNMODELLED_DEVICE_OPERATION), args)
            }
        };
        let values: Vec<Value> =
            operands.iter().filter_map(|arg| self.operand(function, builder, &arg.node, at)).collect();
        let results = self.results_of(destination.ty(function.body, self.tcx).ty, None);
        if let Some(value) = self.opaque(builder, &what, &values, &results, at).first() {
            self.write_place(function, builder, destination, *value, at);
        }
        true
    }

    /// The `Pipeline` a device-API method is called on (argument 0, `&pipeline`): its address,
    /// which names the pipeline for the pipeline-identity rule. `None` when the argument is
    /// not a pointer.
    pub(super) fn pipeline_arg(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        args: &[Spanned<Operand<'tcx>>],
        at: &SourceLoc,
    ) -> Option<Value> {
        let value = self.operand(function, builder, &args.first()?.node, at)?;
        pointer_pointee(self.ctx, value).map(|_| value)
    }

    /// Appends the pipeline operand to a semantic operation (see
    /// `plugin::ir::semantic::pipeline::pipeline_operand`).
    pub(super) fn name_pipeline(&mut self, semantic: Ptr<Operation>, pipeline: Option<Value>) {
        if let Some(pipeline) = pipeline {
            Operation::push_operand(semantic, self.ctx, pipeline);
        }
    }
}
