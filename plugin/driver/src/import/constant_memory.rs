//! References to constants (`&JOB` where `JOB` is a `const` struct, the `self` of
//! `JOB.records_per_key()`): rustc hands them over as pointers into read-only memory the
//! program carries. Left opaque, a helper's load through such a `self` is an access the model
//! cannot place (it may be shared memory, for all the verifier sees) and its value is unknown,
//! so a loop bounded by a constant's field is not counted. The import writes the reference as a
//! local holding the constant's scalar fields, stored once where the reference is taken: what
//! is read through it is the constant, and it points into no shared memory. A constant
//! aggregate copied into a local by value (`let job = JOB;`, the copy rustc makes to read
//! `JOB.ring_offset`) is stored field by field, so each field read back is its constant. Only a pointee
//! without interior mutability (its memory cannot change) made of integers, floats, booleans
//! and structs or tuples of them is written so; anything else keeps the opaque import.

use pliron::r#type::TypeHandle;
use pliron::value::Value;
use plugin::ir::builder::{FunctionBuilder, SourceLoc};
use plugin::ir::mir::arith::CastKind as IrCast;
use rustc_abi::Size;
use rustc_middle::mir::ConstValue;
use rustc_middle::mir::interpret::{Allocation, ConstAllocation, GlobalAlloc, Scalar, alloc_range};
use rustc_middle::mir::{ConstOperand, Operand, Place, ProjectionElem, Rvalue};
use rustc_middle::ty::{self, Ty, TypingEnv};

use super::analysis::Assignment;
use super::types::int_type;
use super::{FunctionImport, Importer};

/// Scalars one constant may be written as at most: a larger one keeps the opaque import.
const MAX_SCALARS: usize = 64;

/// Whether a constant of type `ty` is one scalar the import writes as an IR constant.
fn is_scalar(ty: Ty<'_>) -> bool {
    matches!(ty.kind(), ty::Bool | ty::Uint(_) | ty::Int(_) | ty::Float(ty::FloatTy::F32 | ty::FloatTy::F64))
}

/// Whether `ty` is an aggregate whose fields the import writes one by one: a struct or a tuple.
fn is_aggregate(ty: Ty<'_>) -> bool {
    matches!(ty.kind(), ty::Tuple(_)) || matches!(ty.kind(), ty::Adt(adt, _) if adt.is_struct())
}

impl<'tcx> Importer<'_, 'tcx> {
    /// `&CONST` as a local holding the constant (module doc), of IR type `ir_ty` (the
    /// reference's); `None` where the constant is not of that form.
    pub(super) fn constant_in_memory(
        &mut self,
        builder: &FunctionBuilder,
        constant: &ConstOperand<'tcx>,
        ir_ty: TypeHandle,
        at: &SourceLoc,
    ) -> Option<Value> {
        let ty::Ref(_, pointee, ty::Mutability::Not) = constant.ty().kind() else { return None };
        let typing_env = TypingEnv::fully_monomorphized();
        let value = constant.const_.eval(self.tcx, typing_env, constant.span).ok()?;
        let ConstValue::Scalar(Scalar::Ptr(pointer, _)) = value else { return None };
        let (provenance, offset) = pointer.into_raw_parts();
        let GlobalAlloc::Memory(allocation) = self.tcx.global_alloc(provenance.alloc_id()) else {
            return None;
        };
        if !pointee.is_freeze(self.tcx, typing_env) {
            return None;
        }
        let pointee_ir = self.ir_type(*pointee, None);
        let slot = builder.alloca(self.ctx, pointee_ir, at);
        self.store_constant(builder, (allocation, offset, *pointee), slot, at)?;
        Some(builder.cast(self.ctx, IrCast::PtrToPtr, slot, ir_ty, at))
    }

    /// A constant aggregate copied into memory (`let job = JOB;`, or the copy rustc makes to read
    /// `JOB.barrier_offset`): its scalar fields stored into `address` one by one, so that each
    /// field read back is the constant. `None`, with nothing written, where it is not of that
    /// form.
    pub(super) fn constant_aggregate(
        &mut self,
        builder: &FunctionBuilder,
        constant: &ConstOperand<'tcx>,
        address: Value,
        at: &SourceLoc,
    ) -> Option<()> {
        let ty = constant.ty();
        if !is_aggregate(ty) {
            return None;
        }
        let (allocation, offset) = self.held_by_value(constant)?;
        self.store_constant(builder, (allocation, offset, ty), address, at)
    }

    /// The memory holding a constant aggregate passed by value, and its offset there.
    fn held_by_value(&self, constant: &ConstOperand<'tcx>) -> Option<(ConstAllocation<'tcx>, Size)> {
        let typing_env = TypingEnv::fully_monomorphized();
        let ConstValue::Indirect { alloc_id, offset } =
            constant.const_.eval(self.tcx, typing_env, constant.span).ok()?
        else {
            return None;
        };
        let GlobalAlloc::Memory(allocation) = self.tcx.global_alloc(alloc_id) else { return None };
        Some((allocation, offset))
    }

    /// Stores the scalar fields of the constant of type `ty` at `offset` of `allocation` into
    /// the memory `address` points to; `None`, with nothing stored, for a type of another form.
    fn store_constant(
        &mut self,
        builder: &FunctionBuilder,
        (allocation, offset, ty): (ConstAllocation<'tcx>, Size, Ty<'tcx>),
        address: Value,
        at: &SourceLoc,
    ) -> Option<()> {
        let mut scalars = Vec::new();
        self.scalars_of(ty, offset, Vec::new(), &mut scalars)?;
        let mut stores = Vec::with_capacity(scalars.len());
        for (path, leaf, at_offset) in scalars {
            stores.push((path, self.scalar_constant(builder, allocation, leaf, at_offset, at)?));
        }
        for (path, stored) in stores {
            let mut place = address;
            let mut inner = ty;
            for field in &path {
                inner = field_type(self.tcx, inner, *field)?;
                let field_ir = self.ir_type(inner, None);
                place = builder.field_addr(self.ctx, place, *field, field_ir, at);
            }
            builder.store(self.ctx, stored, place, at);
        }
        Some(())
    }

    /// The scalar leaves of a value of type `ty` at byte `offset`: each with its path of fields,
    /// its type and its offset; `None` for a type of another form or too many leaves.
    fn scalars_of(
        &self,
        ty: Ty<'tcx>,
        offset: Size,
        path: Vec<u32>,
        found: &mut Vec<(Vec<u32>, Ty<'tcx>, Size)>,
    ) -> Option<()> {
        if is_scalar(ty) {
            found.push((path, ty, offset));
            (found.len() <= MAX_SCALARS).then_some(())
        } else if is_aggregate(ty) {
            self.fields_of(ty, offset, path, found)
        } else {
            None
        }
    }

    fn fields_of(
        &self,
        ty: Ty<'tcx>,
        offset: Size,
        path: Vec<u32>,
        found: &mut Vec<(Vec<u32>, Ty<'tcx>, Size)>,
    ) -> Option<()> {
        let typing_env = TypingEnv::fully_monomorphized();
        let layout = self.tcx.layout_of(typing_env.as_query_input(ty)).ok()?;
        let count = match ty.kind() {
            ty::Adt(adt, _) => adt.non_enum_variant().fields.len(),
            ty::Tuple(fields) => fields.len(),
            _ => return None,
        };
        for field in 0..count {
            let inner = field_type(self.tcx, ty, field as u32)?;
            let mut inner_path = path.clone();
            inner_path.push(field as u32);
            self.scalars_of(inner, offset + layout.fields.offset(field), inner_path, found)?;
        }
        Some(())
    }

    /// The constant of type `ty` the allocation holds at `offset`, as IR.
    fn scalar_constant(
        &mut self,
        builder: &FunctionBuilder,
        allocation: ConstAllocation<'tcx>,
        ty: Ty<'tcx>,
        offset: Size,
        at: &SourceLoc,
    ) -> Option<Value> {
        let typing_env = TypingEnv::fully_monomorphized();
        let size = self.tcx.layout_of(typing_env.as_query_input(ty)).ok()?.size;
        let inner: &Allocation = allocation.inner();
        let scalar = inner.read_scalar(&self.tcx, alloc_range(offset, size), false).ok()?;
        let bits = scalar.try_to_scalar_int().ok()?.to_bits(size);
        self.scalar_of_bits(builder, ty, bits, at)
    }

    /// The IR constant of type `ty` (a boolean, a character, an integer, an `f32` or `f64`)
    /// whose bits are `bits`: shared by constants in operands and constants read from memory.
    pub(super) fn scalar_of_bits(
        &mut self,
        builder: &FunctionBuilder,
        ty: Ty<'tcx>,
        bits: u128,
        at: &SourceLoc,
    ) -> Option<Value> {
        let ir_ty = self.ir_type(ty, None);
        match ty.kind() {
            ty::Bool | ty::Char | ty::Uint(_) => {
                let int = int_type(self.ctx, ir_ty)?;
                Some(builder.const_int(self.ctx, int, bits as i128, at))
            }
            ty::Int(_) => {
                let int = int_type(self.ctx, ir_ty)?;
                let width = int.deref(self.ctx).width();
                let signed = ((bits << (128 - width)) as i128) >> (128 - width);
                Some(builder.const_int(self.ctx, int, signed, at))
            }
            ty::Float(ty::FloatTy::F32) => {
                Some(builder.const_float(self.ctx, ir_ty, f32::from_bits(bits as u32) as f64, at))
            }
            ty::Float(ty::FloatTy::F64) => {
                Some(builder.const_float(self.ctx, ir_ty, f64::from_bits(bits as u64), at))
            }
            _ => None,
        }
    }

    /// A read of a field (a path of fields) of a local assigned a constant aggregate once, never
    /// changed after (not assigned in parts, not borrowed mutably): the field's constant, as IR.
    pub(super) fn constant_field(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        place: Place<'tcx>,
        at: &SourceLoc,
    ) -> Option<Value> {
        let assignments = &function.assignments[place.local];
        if assignments.mutably_borrowed || place.projection.is_empty() {
            return None;
        }
        let Some(Assignment::Rvalue(Rvalue::Use(Operand::Constant(constant), ..))) = assignments.only()
        else {
            return None;
        };
        let (allocation, mut offset) = self.held_by_value(constant)?;
        let typing_env = TypingEnv::fully_monomorphized();
        let mut ty = constant.ty();
        for element in place.projection {
            let ProjectionElem::Field(field, _) = element else { return None };
            if !is_aggregate(ty) {
                return None;
            }
            let layout = self.tcx.layout_of(typing_env.as_query_input(ty)).ok()?;
            offset += layout.fields.offset(field.as_usize());
            ty = field_type(self.tcx, ty, field.as_u32())?;
        }
        if !is_scalar(ty) {
            return None;
        }
        self.scalar_constant(builder, allocation, ty, offset, at)
    }
}

/// The type of field `field` of the struct or tuple `ty`.
fn field_type<'tcx>(tcx: ty::TyCtxt<'tcx>, ty: Ty<'tcx>, field: u32) -> Option<Ty<'tcx>> {
    match ty.kind() {
        ty::Adt(adt, args) if adt.is_struct() => {
            let def = adt.non_enum_variant().fields.get(rustc_abi::FieldIdx::from_u32(field))?;
            Some(tcx.normalize_erasing_regions(TypingEnv::fully_monomorphized(), def.ty(tcx, args)))
        }
        ty::Tuple(fields) => fields.get(field as usize).copied(),
        _ => None,
    }
}
