//! An ergonomic way to build kernel IR: [`ModuleBuilder`] creates the module and its
//! functions, [`FunctionBuilder`] appends operations to the block it points at and hands back
//! the values they define. Every operation gets a [`SourceLoc`], which is what a verifier
//! rejection later reports.
//!
//! ```
//! use plugin::ir::builder::{FnKind, ModuleBuilder, SourceLoc};
//! use plugin::ir::semantic::pipeline::PipelineRole;
//! use plugin::ir::types::{AddressSpace, Mutability, PointerKind, shorthand::{ptr_type, u32_type}};
//!
//! let mut ctx = plugin::new_context();
//! let ctx = &mut ctx;
//! let module = ModuleBuilder::new(ctx, "kernels").unwrap();
//! let at = SourceLoc::new("kernels/src/pipeline_sum.rs", 46, 9);
//! let input = ptr_type(ctx, AddressSpace::Global, Mutability::Const, PointerKind::Raw, u32_type(ctx).into());
//! let mut f = module.function(ctx, "pipeline_sum", FnKind::Kernel, &[input.into()], &[], &at).unwrap();
//! let source = f.params(ctx)[0];
//! let (index, phase) = f.state_new(ctx, PipelineRole::Producer, 4, &at);
//! f.producer_acquire(ctx, index, phase, &at);
//! let bytes = f.const_int(ctx, u32_type(ctx), 4096, &at);
//! f.producer_expect_tx(ctx, index, bytes, &at);
//! f.bulk_copy(ctx, index, source, bytes, index, &at);
//! let (index, phase) = f.state_advance(ctx, index, phase, &at);
//! f.producer_tail(ctx, index, phase, &at);
//! f.ret(ctx, &[], &at);
//! assert!(plugin::verify::verify_module(ctx, module.op()).is_ok());
//! ```

use std::path::PathBuf;

use pliron::{
    basic_block::BasicBlock,
    builtin::{
        attributes::{FPDoubleAttr, IdentifierAttr, IntegerAttr, StringAttr, TypeAttr, UnitAttr},
        op_interfaces::OneRegionInterface,
        ops::{FuncOp, ModuleOp},
        types::{FunctionType, IntegerType},
    },
    combine::stream::position::SourcePosition,
    context::{Context, Ptr},
    identifier::Identifier,
    linked_list::ContainsLinkedList,
    location::{Location, Source},
    op::Op,
    operation::Operation,
    r#type::{TypeHandle, Typed, TypedHandle},
    utils::apint::APInt,
    value::Value,
};

use crate::ir::{
    mir::{
        KERNEL_ATTR,
        arith::{AddrSpaceCastOp, BinOp, BinOpKind, CastKind, CastOp, CmpOp, CmpPredicate},
        constant::{ConstFloatOp, ConstIntOp},
        control::{CallOp, CondBrOp, GotoOp, ReturnOp, SwitchCasesAttr, SwitchOp, UnreachableOp},
        memory::{AllocaOp, FieldAddrOp, FieldAttr, IndexAddrOp, LoadOp, StoreOp},
        opaque::OpaqueOp,
        pointer_type_of,
    },
    semantic::{
        memory::{BarrierOp, BulkCopyOp, DynamicSharedBaseOp},
        pipeline::{
            ConsumerReleaseOp, ConsumerWaitOp, PipelineRole, ProducerAcquireOp, ProducerExpectTxOp,
            ProducerTailOp, StagesAttr, StateAdvanceOp, StateNewOp,
        },
        wgmma::{ProxyFenceOp, WgmmaCommitOp, WgmmaFenceOp, WgmmaMmaOp, WgmmaWaitOp},
    },
    types::{AddressSpace, Mutability, PointerKind, PointerType},
};

/// A position in a source file: what every operation carries and every rejection reports.
/// Lines and columns count from 1.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourceLoc {
    pub file: PathBuf,
    pub line: u32,
    pub column: u32,
}

impl SourceLoc {
    /// A location in `file` at `line`, `column`.
    pub fn new(file: impl Into<PathBuf>, line: u32, column: u32) -> Self {
        SourceLoc { file: file.into(), line, column }
    }

    /// The pliron location for this position.
    pub fn to_location(&self, ctx: &Context) -> Location {
        Location::SrcPos {
            src: Source::new_from_file(ctx, self.file.clone()),
            pos: SourcePosition { line: self.line as i32, column: self.column as i32 },
        }
    }

    /// The file, line and column of a pliron location, when it names one position in a file
    /// (a location made by [`SourceLoc::to_location`], or one the text parser recorded).
    pub fn from_location(ctx: &Context, location: &Location) -> Option<SourceLoc> {
        match location {
            Location::SrcPos { src: Source::File(path), pos } => Some(SourceLoc {
                file: pliron::uniqued_any::get(ctx, *path).clone(),
                line: u32::try_from(pos.line).ok()?,
                column: u32::try_from(pos.column).ok()?,
            }),
            Location::Named { child_loc, .. } => SourceLoc::from_location(ctx, child_loc),
            Location::CallSite { caller, .. } => SourceLoc::from_location(ctx, caller),
            Location::Fused { locations, .. } => {
                locations.iter().find_map(|location| SourceLoc::from_location(ctx, location))
            }
            _ => None,
        }
    }
}

impl std::fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.column)
    }
}

/// Why a builder refused a request.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// Symbols are pliron identifiers: ASCII letters, digits and `_`, not starting with a digit.
    /// (v0-mangled Rust symbols qualify; paths with `::` do not.)
    #[error(
        "`{0}` is not a valid symbol name: use ASCII letters, digits and `_` (a mangled symbol \
         name, or the path with `::` replaced by `__`)"
    )]
    InvalidSymbol(String),
}

fn identifier(name: &str) -> Result<Identifier, BuildError> {
    Identifier::try_new(name.to_string()).map_err(|_| BuildError::InvalidSymbol(name.to_string()))
}

/// Whether a function is a kernel entry (a scope root) or a device function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FnKind {
    Kernel,
    Device,
}

/// Builds a `builtin.module` of functions.
#[derive(Clone, Copy)]
pub struct ModuleBuilder {
    module: ModuleOp,
}

impl ModuleBuilder {
    /// A new, empty module named `name`.
    pub fn new(ctx: &mut Context, name: &str) -> Result<Self, BuildError> {
        let module = ModuleOp::new(ctx, identifier(name)?);
        Ok(ModuleBuilder { module })
    }

    /// The module operation (what [`crate::verify::verify_module`] and [`crate::text`] take).
    pub fn op(&self) -> Ptr<Operation> {
        self.module.get_operation()
    }

    /// Adds a function with parameter and result types; returns a builder pointing at its
    /// entry block, whose arguments are the parameters. `at` is the function's location.
    pub fn function(
        &self,
        ctx: &mut Context,
        name: &str,
        kind: FnKind,
        params: &[TypeHandle],
        results: &[TypeHandle],
        at: &SourceLoc,
    ) -> Result<FunctionBuilder, BuildError> {
        let ty = FunctionType::get(ctx, params.to_vec(), results.to_vec());
        let func = FuncOp::new(ctx, identifier(name)?, ty);
        let op = func.get_operation();
        let location = at.to_location(ctx);
        op.deref_mut(ctx).set_loc(location.clone());
        if kind == FnKind::Kernel {
            op.deref_mut(ctx).attributes.set(identifier(KERNEL_ATTR)?, UnitAttr::new());
        }
        let body = self.module.get_region(ctx).deref(ctx).get_head().expect("a module has its block");
        op.insert_at_back(body, ctx);
        let entry = func.get_entry_block(ctx);
        entry.deref_mut(ctx).set_loc(location);
        Ok(FunctionBuilder { func, block: entry })
    }
}

/// Appends operations to one function, at the end of the block it points at.
///
/// Every method takes the context, the operands and the [`SourceLoc`] of the statement that
/// the operation stands for, and returns what the operation defines.
#[derive(Clone, Copy)]
pub struct FunctionBuilder {
    func: FuncOp,
    block: Ptr<BasicBlock>,
}

impl FunctionBuilder {
    /// The function operation.
    pub fn op(&self) -> Ptr<Operation> {
        self.func.get_operation()
    }

    /// The entry block.
    pub fn entry_block(&self, ctx: &Context) -> Ptr<BasicBlock> {
        self.func.get_entry_block(ctx)
    }

    /// The function's parameters (the entry block's arguments).
    pub fn params(&self, ctx: &Context) -> Vec<Value> {
        self.entry_block(ctx).deref(ctx).arguments().collect()
    }

    /// Adds an empty block with arguments of the given types at the end of the function,
    /// without moving the insertion point.
    pub fn add_block(&self, ctx: &mut Context, arg_types: &[TypeHandle], at: &SourceLoc) -> Ptr<BasicBlock> {
        let block = BasicBlock::new(ctx, None, arg_types.to_vec());
        block.deref_mut(ctx).set_loc(at.to_location(ctx));
        block.insert_at_back(self.func.get_region(ctx), ctx);
        block
    }

    /// A block's arguments.
    pub fn block_args(&self, ctx: &Context, block: Ptr<BasicBlock>) -> Vec<Value> {
        block.deref(ctx).arguments().collect()
    }

    /// Makes later operations go to the end of `block`.
    pub fn switch_to(&mut self, block: Ptr<BasicBlock>) {
        self.block = block;
    }

    /// The block operations go to.
    pub fn current_block(&self) -> Ptr<BasicBlock> {
        self.block
    }

    fn append(&self, ctx: &mut Context, op: Ptr<Operation>, at: &SourceLoc) -> Ptr<Operation> {
        // Saving a file's path in the context hashes it; the operation before is almost always
        // in the same file, and its location already holds the saved path.
        let previous = self.block.deref(ctx).get_tail().map(|previous| previous.deref(ctx).loc().clone());
        let location = match previous {
            Some(Location::SrcPos { src: src @ Source::File(path), .. })
                if *pliron::uniqued_any::get(ctx, path) == at.file =>
            {
                Location::SrcPos {
                    src,
                    pos: SourcePosition { line: at.line as i32, column: at.column as i32 },
                }
            }
            _ => at.to_location(ctx),
        };
        op.deref_mut(ctx).set_loc(location);
        op.insert_at_back(self.block, ctx);
        op
    }

    fn new_op<T: Op>(
        &self,
        ctx: &mut Context,
        results: Vec<TypeHandle>,
        operands: Vec<Value>,
        successors: Vec<Ptr<BasicBlock>>,
        at: &SourceLoc,
    ) -> Ptr<Operation> {
        let op = Operation::new(ctx, T::get_concrete_op_info(), results, operands, successors, 0);
        self.append(ctx, op, at)
    }

    fn result(ctx: &Context, op: Ptr<Operation>) -> Value {
        op.deref(ctx).get_result(0)
    }

    // ---- MIR: constants, arithmetic, casts -------------------------------------------------

    /// An integer constant of integer type `ty`; `value` is taken modulo 2^width.
    pub fn const_int(
        &self,
        ctx: &mut Context,
        int_ty: TypedHandle<IntegerType>,
        value: i128,
        at: &SourceLoc,
    ) -> Value {
        let ty: TypeHandle = int_ty.into();
        let width = int_ty.deref(ctx).width() as usize;
        let width = std::num::NonZero::new(width).expect("integer types have a width");
        let attr = IntegerAttr::new(int_ty, APInt::from_i128(value, width));
        let op = self.new_op::<ConstIntOp>(ctx, vec![ty], vec![], vec![], at);
        ConstIntOp::from_operation(op).set_attr_int_value(ctx, attr);
        Self::result(ctx, op)
    }

    /// A float constant of float type `ty`.
    pub fn const_float(&self, ctx: &mut Context, ty: TypeHandle, value: f64, at: &SourceLoc) -> Value {
        let op = self.new_op::<ConstFloatOp>(ctx, vec![ty], vec![], vec![], at);
        ConstFloatOp::from_operation(op).set_attr_float_value(ctx, FPDoubleAttr::from(value));
        Self::result(ctx, op)
    }

    /// `lhs <kind> rhs`, of `lhs`'s type.
    pub fn binop(&self, ctx: &mut Context, kind: BinOpKind, lhs: Value, rhs: Value, at: &SourceLoc) -> Value {
        let ty = lhs.get_type(ctx);
        let op = self.new_op::<BinOp>(ctx, vec![ty], vec![lhs, rhs], vec![], at);
        BinOp::from_operation(op).set_attr_binop_kind(ctx, kind);
        Self::result(ctx, op)
    }

    /// `lhs <predicate> rhs`, a `bool`.
    pub fn cmp(
        &self,
        ctx: &mut Context,
        predicate: CmpPredicate,
        lhs: Value,
        rhs: Value,
        at: &SourceLoc,
    ) -> Value {
        let ty = crate::ir::types::shorthand::bool_type(ctx).into();
        let op = self.new_op::<CmpOp>(ctx, vec![ty], vec![lhs, rhs], vec![], at);
        CmpOp::from_operation(op).set_attr_cmp_predicate(ctx, predicate);
        Self::result(ctx, op)
    }

    /// `value as to`.
    pub fn cast(
        &self,
        ctx: &mut Context,
        kind: CastKind,
        value: Value,
        to: TypeHandle,
        at: &SourceLoc,
    ) -> Value {
        let op = self.new_op::<CastOp>(ctx, vec![to], vec![value], vec![], at);
        CastOp::from_operation(op).set_attr_cast_kind(ctx, kind);
        Self::result(ctx, op)
    }

    /// The explicit address-space adaptation of pointer `value` to pointer type `to`: emit it
    /// where a shared-memory pointer is passed to a generic pointer parameter.
    pub fn addrspace_cast(&self, ctx: &mut Context, value: Value, to: TypeHandle, at: &SourceLoc) -> Value {
        let op = self.new_op::<AddrSpaceCastOp>(ctx, vec![to], vec![value], vec![], at);
        Self::result(ctx, op)
    }

    // ---- MIR: places and memory ------------------------------------------------------------

    /// Storage for a local of type `pointee`: a `mir.ptr <Generic, Mut, Raw, pointee>`.
    pub fn alloca(&self, ctx: &mut Context, pointee: TypeHandle, at: &SourceLoc) -> Value {
        let ty =
            PointerType::get(ctx, AddressSpace::Generic, Mutability::Mut, PointerKind::Raw, pointee).into();
        let op = self.new_op::<AllocaOp>(ctx, vec![ty], vec![], vec![], at);
        Self::result(ctx, op)
    }

    /// `*ptr`; the result has the pointee type. Panics if `ptr` is not a `mir.ptr`.
    pub fn load(&self, ctx: &mut Context, ptr: Value, at: &SourceLoc) -> Value {
        let pointee = pointer_type_of(ctx, ptr.get_type(ctx)).expect("load needs a mir.ptr").pointee();
        let op = self.new_op::<LoadOp>(ctx, vec![pointee], vec![ptr], vec![], at);
        Self::result(ctx, op)
    }

    /// `*ptr = value`.
    pub fn store(&self, ctx: &mut Context, value: Value, ptr: Value, at: &SourceLoc) -> Ptr<Operation> {
        self.new_op::<StoreOp>(ctx, vec![], vec![value, ptr], vec![], at)
    }

    /// `&(*ptr).field`, a pointer to a field of type `field_type` in `ptr`'s address space,
    /// with `ptr`'s mutability and kind. Panics if `ptr` is not a `mir.ptr`.
    pub fn field_addr(
        &self,
        ctx: &mut Context,
        ptr: Value,
        field: u32,
        field_type: TypeHandle,
        at: &SourceLoc,
    ) -> Value {
        let base = pointer_type_of(ctx, ptr.get_type(ctx)).expect("field_addr needs a mir.ptr");
        let ty = PointerType::get(ctx, base.space(), base.mutability(), base.kind(), field_type).into();
        let op = self.new_op::<FieldAddrOp>(ctx, vec![ty], vec![ptr], vec![], at);
        FieldAddrOp::from_operation(op).set_attr_field_index(ctx, FieldAttr(field));
        Self::result(ctx, op)
    }

    /// `ptr.add(index)` (or `wrapping_add`, or `&ptr[index]`), of `ptr`'s type.
    pub fn index_addr(&self, ctx: &mut Context, ptr: Value, index: Value, at: &SourceLoc) -> Value {
        let ty = ptr.get_type(ctx);
        let op = self.new_op::<IndexAddrOp>(ctx, vec![ty], vec![ptr, index], vec![], at);
        Self::result(ctx, op)
    }

    // ---- MIR: calls and terminators --------------------------------------------------------

    /// A call of `callee` whose declared signature is `params -> results`; returns the call's
    /// results. `args` may differ in type from `params` (the verifier judges pointer
    /// arguments), but not in number.
    pub fn call(
        &self,
        ctx: &mut Context,
        callee: &str,
        params: &[TypeHandle],
        results: &[TypeHandle],
        args: &[Value],
        at: &SourceLoc,
    ) -> Result<Vec<Value>, BuildError> {
        let callee = identifier(callee)?;
        let callee_type = FunctionType::get(ctx, params.to_vec(), results.to_vec());
        let op = self.new_op::<CallOp>(ctx, results.to_vec(), args.to_vec(), vec![], at);
        let call = CallOp::from_operation(op);
        call.set_attr_callee(ctx, IdentifierAttr::new(callee));
        call.set_attr_callee_type(ctx, TypeAttr::new(callee_type.into()));
        Ok(op.deref(ctx).results().collect())
    }

    /// `goto target(args)`.
    pub fn goto(
        &self,
        ctx: &mut Context,
        target: Ptr<BasicBlock>,
        args: &[Value],
        at: &SourceLoc,
    ) -> Ptr<Operation> {
        self.new_op::<GotoOp>(ctx, vec![], args.to_vec(), vec![target], at)
    }

    /// `if condition { goto then } else { goto otherwise }`; both targets take no arguments.
    pub fn cond_br(
        &self,
        ctx: &mut Context,
        condition: Value,
        then: Ptr<BasicBlock>,
        otherwise: Ptr<BasicBlock>,
        at: &SourceLoc,
    ) -> Ptr<Operation> {
        self.new_op::<CondBrOp>(ctx, vec![], vec![condition], vec![then, otherwise], at)
    }

    /// MIR's `SwitchInt`: `cases[i].1` when `value == cases[i].0`, else `default`.
    pub fn switch(
        &self,
        ctx: &mut Context,
        value: Value,
        cases: &[(u64, Ptr<BasicBlock>)],
        default: Ptr<BasicBlock>,
        at: &SourceLoc,
    ) -> Ptr<Operation> {
        let mut targets: Vec<_> = cases.iter().map(|(_, target)| *target).collect();
        targets.push(default);
        let op = self.new_op::<SwitchOp>(ctx, vec![], vec![value], targets, at);
        let values = cases.iter().map(|(value, _)| *value).collect();
        SwitchOp::from_operation(op).set_attr_switch_cases(ctx, SwitchCasesAttr(values));
        op
    }

    /// `return values`.
    pub fn ret(&self, ctx: &mut Context, values: &[Value], at: &SourceLoc) -> Ptr<Operation> {
        self.new_op::<ReturnOp>(ctx, vec![], values.to_vec(), vec![], at)
    }

    /// `unreachable`: the block's end is never reached (a call that does not return, a failed
    /// assertion, MIR's `Unreachable`).
    pub fn unreachable(&self, ctx: &mut Context, at: &SourceLoc) -> Ptr<Operation> {
        self.new_op::<UnreachableOp>(ctx, vec![], vec![], vec![], at)
    }

    /// Something the importer does not model, described by `what`; returns its results.
    pub fn opaque(
        &self,
        ctx: &mut Context,
        what: &str,
        args: &[Value],
        results: &[TypeHandle],
        at: &SourceLoc,
    ) -> Vec<Value> {
        let op = self.new_op::<OpaqueOp>(ctx, results.to_vec(), args.to_vec(), vec![], at);
        OpaqueOp::from_operation(op).set_attr_opaque_what(ctx, StringAttr::new(what.to_string()));
        op.deref(ctx).results().collect()
    }

    // ---- semantic: the device API ----------------------------------------------------------

    /// `PipelineState::<stages>::producer_start()` / `::new()`: returns (stage index, phase).
    pub fn state_new(
        &self,
        ctx: &mut Context,
        role: PipelineRole,
        stages: u32,
        at: &SourceLoc,
    ) -> (Value, Value) {
        let u32_ty: TypeHandle = crate::ir::types::shorthand::u32_type(ctx).into();
        let op = self.new_op::<StateNewOp>(ctx, vec![u32_ty, u32_ty], vec![], vec![], at);
        let state = StateNewOp::from_operation(op);
        state.set_attr_pipeline_role(ctx, role);
        state.set_attr_pipeline_stages(ctx, StagesAttr(stages));
        let op = op.deref(ctx);
        (op.get_result(0), op.get_result(1))
    }

    /// `state.advance()`: returns the next (stage index, phase).
    pub fn state_advance(
        &self,
        ctx: &mut Context,
        index: Value,
        phase: Value,
        at: &SourceLoc,
    ) -> (Value, Value) {
        let u32_ty: TypeHandle = crate::ir::types::shorthand::u32_type(ctx).into();
        let op = self.new_op::<StateAdvanceOp>(ctx, vec![u32_ty, u32_ty], vec![index, phase], vec![], at);
        let op = op.deref(ctx);
        (op.get_result(0), op.get_result(1))
    }

    /// `pipeline.producer_acquire(&state)`.
    pub fn producer_acquire(
        &self,
        ctx: &mut Context,
        index: Value,
        phase: Value,
        at: &SourceLoc,
    ) -> Ptr<Operation> {
        self.new_op::<ProducerAcquireOp>(ctx, vec![], vec![index, phase], vec![], at)
    }

    /// `pipeline.producer_expect_tx(&state, bytes)`.
    pub fn producer_expect_tx(
        &self,
        ctx: &mut Context,
        index: Value,
        bytes: Value,
        at: &SourceLoc,
    ) -> Ptr<Operation> {
        self.new_op::<ProducerExpectTxOp>(ctx, vec![], vec![index, bytes], vec![], at)
    }

    /// `pipeline.producer_tail(state)`.
    pub fn producer_tail(
        &self,
        ctx: &mut Context,
        index: Value,
        phase: Value,
        at: &SourceLoc,
    ) -> Ptr<Operation> {
        self.new_op::<ProducerTailOp>(ctx, vec![], vec![index, phase], vec![], at)
    }

    /// `pipeline.consumer_wait(&state)`.
    pub fn consumer_wait(
        &self,
        ctx: &mut Context,
        index: Value,
        phase: Value,
        at: &SourceLoc,
    ) -> Ptr<Operation> {
        self.new_op::<ConsumerWaitOp>(ctx, vec![], vec![index, phase], vec![], at)
    }

    /// `pipeline.consumer_release(&state)`.
    pub fn consumer_release(&self, ctx: &mut Context, index: Value, at: &SourceLoc) -> Ptr<Operation> {
        self.new_op::<ConsumerReleaseOp>(ctx, vec![], vec![index], vec![], at)
    }

    /// `device::dynamic_shared_base::<pointee>()`: a `mir.ptr <Shared, Mut, Raw, pointee>`.
    pub fn dynamic_shared_base(&self, ctx: &mut Context, pointee: TypeHandle, at: &SourceLoc) -> Value {
        let ty =
            PointerType::get(ctx, AddressSpace::Shared, Mutability::Mut, PointerKind::Raw, pointee).into();
        let op = self.new_op::<DynamicSharedBaseOp>(ctx, vec![ty], vec![], vec![], at);
        Self::result(ctx, op)
    }

    /// `device::barrier()`.
    pub fn barrier(&self, ctx: &mut Context, at: &SourceLoc) -> Ptr<Operation> {
        self.new_op::<BarrierOp>(ctx, vec![], vec![], vec![], at)
    }

    /// `bulk_copy_global_to_shared(destination, source, bytes, pipeline.producer_barrier(&state))`,
    /// with `index` the state's stage index.
    pub fn bulk_copy(
        &self,
        ctx: &mut Context,
        destination: Value,
        source: Value,
        bytes: Value,
        index: Value,
        at: &SourceLoc,
    ) -> Ptr<Operation> {
        self.new_op::<BulkCopyOp>(ctx, vec![], vec![destination, source, bytes, index], vec![], at)
    }

    /// `wgmma::fence(accumulators)`.
    pub fn wgmma_fence(&self, ctx: &mut Context, accumulators: Value, at: &SourceLoc) -> Ptr<Operation> {
        self.new_op::<WgmmaFenceOp>(ctx, vec![], vec![accumulators], vec![], at)
    }

    /// One `wgmma.mma_async` writing `accumulators` from the tiles `descriptors` (A's, B's)
    /// name (`wgmma::mma_m64n128k16_bf16`).
    pub fn wgmma_mma(
        &self,
        ctx: &mut Context,
        accumulators: Value,
        descriptors: [Value; 2],
        at: &SourceLoc,
    ) -> Ptr<Operation> {
        let [a, b] = descriptors;
        self.new_op::<WgmmaMmaOp>(ctx, vec![], vec![accumulators, a, b], vec![], at)
    }

    /// `wgmma::commit_group()`.
    pub fn wgmma_commit(&self, ctx: &mut Context, at: &SourceLoc) -> Ptr<Operation> {
        self.new_op::<WgmmaCommitOp>(ctx, vec![], vec![], vec![], at)
    }

    /// `wgmma::wait_group::<pending>(accumulators)`, `pending` a `u32`.
    pub fn wgmma_wait(
        &self,
        ctx: &mut Context,
        pending: Value,
        accumulators: Value,
        at: &SourceLoc,
    ) -> Ptr<Operation> {
        self.new_op::<WgmmaWaitOp>(ctx, vec![], vec![pending, accumulators], vec![], at)
    }

    /// `fence_proxy_async_shared()`.
    pub fn proxy_fence(&self, ctx: &mut Context, at: &SourceLoc) -> Ptr<Operation> {
        self.new_op::<ProxyFenceOp>(ctx, vec![], vec![], vec![], at)
    }
}
