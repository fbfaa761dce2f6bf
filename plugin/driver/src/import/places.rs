//! Places and operands: addresses of locals, fields, derefs and indices, loads and stores of
//! them, and the pointer arithmetic of `add`/`offset`/`write`.

use pliron::context::Context;
use pliron::r#type::{TypeHandle, Typed};
use pliron::value::Value;
use plugin::ir::builder::{FunctionBuilder, SourceLoc};
use plugin::ir::mir::arith::{BinOpKind, CastKind as IrCast};
use plugin::ir::types::{AddressSpace, PointerKind, PointerType};
use rustc_abi::FieldIdx;
use rustc_middle::mir::{Operand, Place, ProjectionElem};
use rustc_middle::ty::{self, Instance, Ty, TypingEnv};
use rustc_span::Spanned;

use crate::spaces::field_path;

use super::analysis::core_item_name;
use super::types::{int_type, ir_mutability, pointer_pointee, refers_to_shared};
use super::{FunctionImport, Importer, Slot};

impl<'tcx> Importer<'_, 'tcx> {
    /// The address of a place, or `None` for projections the IR does not model (indexing,
    /// downcasts, a deref of something that is not a pointer).
    pub(super) fn address(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        place: Place<'tcx>,
        at: &SourceLoc,
    ) -> Option<Value> {
        if let Some(payload) = self.counted_payload(function, builder, place, at) {
            return Some(payload);
        }
        let mut projection = place.projection.iter();
        let mut through_deref = false;
        let mut address = match function.slots[place.local] {
            Slot::Whole(alloca) => alloca,
            // A single-assignment local is never projected into but through a deref.
            Slot::Ssa(Some(pointer)) if matches!(projection.next(), Some(ProjectionElem::Deref)) => {
                pointer_pointee(self.ctx, pointer)?;
                through_deref = true;
                pointer
            }
            _ => return None,
        };
        // A closure's environment (its first parameter): a capture holding a shared pointer,
        // or a reference to one, is typed shared (see `SharedPaths::capture`).
        let closure_env = self.tcx.is_closure_like(function.instance.def_id()) && place.local.as_u32() == 1;
        let mut fields = Vec::new();
        let skipped = place.projection.len() - projection.len();
        for (k, element) in projection.enumerate() {
            match element {
                ProjectionElem::Field(field, field_ty) => {
                    fields.push(field.as_u32());
                    let capture = (closure_env && through_deref && fields.len() == 1)
                        .then(|| self.shared.capture(function.instance.def_id(), field.as_u32()))
                        .flatten();
                    let view = if through_deref {
                        capture.filter(|(_, by_reference)| !by_reference).map(|(view, _)| view)
                    } else {
                        self.shared.view(function.instance, &(place.local, fields.clone()))
                    };
                    let ir_field = match (capture, field_ty.kind()) {
                        (Some((view, true)), ty::Ref(_, pointee, mutability)) => {
                            let inner = self.ir_type(*pointee, Some(view));
                            PointerType::get(
                                self.ctx,
                                AddressSpace::Generic,
                                ir_mutability(*mutability),
                                PointerKind::Ref,
                                inner,
                            )
                            .into()
                        }
                        _ => self.ir_type(field_ty, view),
                    };
                    address = builder.field_addr(self.ctx, address, field.as_u32(), ir_field, at);
                }
                ProjectionElem::Deref => {
                    let pointer = builder.load(self.ctx, address, at);
                    pointer_pointee(self.ctx, pointer)?;
                    address = pointer;
                    through_deref = true;
                }
                // `array[i]`: the array's address viewed as its first element's, `add(i)`
                // (so that an array of stage pointers indexed by a stage index is seen). A slice
                // behind a reference (`(*rows)[i]`) is its elements' address, `add(i)` likewise;
                // the bounds check before it traps on an index past its length.
                ProjectionElem::Index(index) => {
                    let prefix = &place.projection[..skipped + k];
                    let array_ty = Place::ty_from(place.local, prefix, function.body, self.tcx).ty;
                    let (element_ty, is_slice) = match array_ty.kind() {
                        ty::Array(element_ty, _) => (element_ty, false),
                        ty::Slice(element_ty) if prefix.last() == Some(&ProjectionElem::Deref) => {
                            (element_ty, true)
                        }
                        _ => return None,
                    };
                    let constant = function.constants.get(&index).copied().filter(|_| !is_slice);
                    let index = self.operand(function, builder, &Operand::Copy(Place::from(index)), at)?;
                    let base =
                        address.get_type(self.ctx).deref(self.ctx).downcast_ref::<PointerType>().cloned()?;
                    let element = self.ir_type(*element_ty, None);
                    address = match constant {
                        // An element at a constant index is a part of the array, as a field is of a
                        // struct: the walk through memory follows stores into it (`rows[3] = p`).
                        Some(k) => builder.field_addr(self.ctx, address, k, element, at),
                        None => {
                            let element_ptr = PointerType::get(
                                self.ctx,
                                base.space(),
                                base.mutability(),
                                base.kind(),
                                element,
                            )
                            .into();
                            let first = builder.cast(self.ctx, IrCast::PtrToPtr, address, element_ptr, at);
                            builder.index_addr(self.ctx, first, index, at)
                        }
                    };
                    fields.clear();
                    through_deref = true;
                }
                _ => return None,
            }
        }
        Some(address)
    }

    /// The value of an operand; `None` for a zero-sized function item or `()`.
    pub(super) fn operand(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        operand: &Operand<'tcx>,
        at: &SourceLoc,
    ) -> Option<Value> {
        match operand {
            Operand::Copy(place) | Operand::Move(place) => {
                if place.projection.is_empty()
                    && let Slot::Ssa(Some(value)) = function.slots[place.local]
                {
                    return Some(value);
                }
                if let Some(value) = field_path(place).and_then(|path| function.aggregate_fields.get(&path)) {
                    return Some(*value);
                }
                if let Some(constant) = self.constant_field(function, builder, *place, at) {
                    return Some(constant);
                }
                if let Some(address) = self.address(function, builder, *place, at) {
                    return Some(builder.load(self.ctx, address, at));
                }
                // What the IR cannot address still has the space the inference found for it
                // (a shared pointer in a field of an aggregate kept as a value).
                let view = field_path(place).and_then(|path| self.shared.view(function.instance, &path));
                let ty = self.ir_type(place.ty(function.body, self.tcx).ty, view);
                // A struct built once and read whole (moved into a helper's `self`) carries its
                // fields as operands, so the walk through memory reads them inside the helper.
                let fields = self.built_fields(function, place).unwrap_or_default();
                Some(self.opaque(builder, &format!("read of {place:?}"), &fields, &[ty], at)[0])
            }
            Operand::Constant(constant) => {
                let ty = constant.ty();
                if matches!(ty.kind(), ty::FnDef(..)) || ty.is_unit() {
                    return None;
                }
                let typing_env = TypingEnv::fully_monomorphized();
                let ir_ty = self.ir_type(ty, None);
                let value = constant
                    .const_
                    .try_eval_bits(self.tcx, typing_env)
                    .and_then(|bits| self.scalar_of_bits(builder, ty, bits, at));
                value.or_else(|| self.constant_in_memory(builder, constant, ir_ty, at)).or_else(|| {
                    Some(self.opaque(builder, &format!("constant {constant:?}"), &[], &[ir_ty], at)[0])
                })
            }
            _ => {
                let ty = self.ir_type(operand.ty(function.body, self.tcx), None);
                Some(self.opaque(builder, &format!("{operand:?}"), &[], &[ty], at)[0])
            }
        }
    }

    /// `value` as a value of type `to`: unchanged when the types agree; a shared pointer
    /// where a generic one is expected is the explicit adaptation; anything else a cast.
    pub(super) fn coerce(
        &mut self,
        builder: &FunctionBuilder,
        value: Value,
        to: TypeHandle,
        at: &SourceLoc,
    ) -> Value {
        let from = value.get_type(self.ctx);
        if from == to {
            return value;
        }
        let from_ptr = from.deref(self.ctx).downcast_ref::<PointerType>().cloned();
        let to_ptr = to.deref(self.ctx).downcast_ref::<PointerType>().cloned();
        match (from_ptr, to_ptr) {
            (Some(from_ptr), Some(to_ptr))
                if from_ptr.space() == AddressSpace::Shared && to_ptr.space() == AddressSpace::Generic =>
            {
                self.stats.adaptations += 1;
                builder.addrspace_cast(self.ctx, value, to, at)
            }
            (Some(_), Some(_)) => builder.cast(self.ctx, IrCast::PtrToPtr, value, to, at),
            _ => builder.cast(self.ctx, IrCast::Transmute, value, to, at),
        }
    }

    pub(super) fn write_place(
        &mut self,
        function: &mut FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        place: Place<'tcx>,
        value: Value,
        at: &SourceLoc,
    ) {
        if place.projection.is_empty() && matches!(function.slots[place.local], Slot::Ssa(_)) {
            let ty = self.local_type(function.instance, function.body, place.local);
            // A reference to a closure's capture of a shared pointer (`_3 = deref_copy
            // ((*_1).0)`) keeps pointing to a shared pointer.
            // A generic pointer a library function returns from a shared pointer it was handed
            // (`byte_add`) stays generic: no cast makes a generic pointer shared.
            let value = if refers_to_shared(self.ctx, value, ty) || generic_for_shared(self.ctx, value, ty) {
                value
            } else {
                self.coerce(builder, value, ty, at)
            };
            function.slots[place.local] = Slot::Ssa(Some(value));
            return;
        }
        if matches!(function.slots[place.local], Slot::Ssa(_))
            && let Some(path) = field_path(&place)
            && !path.1.is_empty()
        {
            let view = self.shared.view(function.instance, &path);
            let read_ty = self.ir_type(place.ty(function.body, self.tcx).ty, view);
            if value.get_type(self.ctx) == read_ty {
                function.aggregate_fields.insert(path, value);
            }
        }
        match self.address(function, builder, place, at) {
            Some(address) => {
                let pointee = pointer_pointee(self.ctx, address).expect("an address is a pointer");
                let value = self.coerce(builder, value, pointee, at);
                builder.store(self.ctx, value, address, at);
            }
            None => {
                self.opaque(builder, &format!("write to {place:?}"), &[value], &[], at);
            }
        }
    }

    /// The value written into each field of `place`, a whole single-assignment struct or tuple
    /// local built by its aggregate, in field order; `None` unless every field's is known.
    fn built_fields(&self, function: &FunctionImport<'_, 'tcx>, place: &Place<'tcx>) -> Option<Vec<Value>> {
        if !place.projection.is_empty() || !matches!(function.slots[place.local], Slot::Ssa(None)) {
            return None;
        }
        let count = match place.ty(function.body, self.tcx).ty.kind() {
            ty::Adt(def, _) if def.is_struct() => def.non_enum_variant().fields.len(),
            ty::Tuple(types) => types.len(),
            _ => return None,
        };
        (0..count as u32)
            .map(|field| function.aggregate_fields.get(&(place.local, vec![field])).copied())
            .collect()
    }

    /// `place` projected through the struct and tuple fields `fields`, with the field's type;
    /// `None` below anything else (an enum, a closure's captures).
    pub(super) fn field_place(
        &self,
        function: &FunctionImport<'_, 'tcx>,
        place: Place<'tcx>,
        fields: &[u32],
    ) -> Option<(Place<'tcx>, Ty<'tcx>)> {
        let mut place = place;
        let mut ty = place.ty(function.body, self.tcx).ty;
        for field in fields {
            let index = FieldIdx::from_u32(*field);
            ty = match ty.kind() {
                ty::Adt(def, generic_args) if def.is_struct() => {
                    def.non_enum_variant().fields.get(index)?.ty(self.tcx, generic_args).skip_normalization()
                }
                ty::Tuple(types) => *types.get(index.as_usize())?,
                _ => return None,
            };
            place = self.tcx.mk_place_field(place, index, ty);
        }
        Some((place, ty))
    }

    /// The standard library's raw-pointer methods the IR models: `add`, `wrapping_add`,
    /// `offset`, `wrapping_offset` as `mir.index_addr` (their `byte_` forms on a sized pointee
    /// as `mir.index_addr` of its bytes); `sub` and `wrapping_sub` as
    /// `mir.index_addr` by the negated count; `cast`, `cast_mut` and `cast_const` as the pointer
    /// itself (the destination's inferred type decides the cast, see [`Self::write_place`]);
    /// `read`, `read_volatile` and `read_unaligned` (method or `core::ptr::` function) as
    /// `mir.load`. Returns the call's value; `None` when the callee is none of these.
    pub(super) fn pointer_arithmetic(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        callee: Instance<'tcx>,
        args: &[Spanned<Operand<'tcx>>],
        at: &SourceLoc,
    ) -> Option<Value> {
        let name = core_item_name(self.tcx, callee.def_id())?;
        if args.is_empty() || !args[0].node.ty(function.body, self.tcx).is_raw_ptr() {
            return None;
        }
        match (name.as_str(), args.len()) {
            ("add" | "wrapping_add" | "offset" | "wrapping_offset", 2) => {
                let pointer = self.operand(function, builder, &args[0].node, at)?;
                let index = self.operand(function, builder, &args[1].node, at)?;
                let element = args[0].node.ty(function.body, self.tcx).builtin_deref(true)?;
                Some(self.element_address(builder, pointer, element, index, at))
            }
            ("sub" | "wrapping_sub", 2) => {
                let pointer = self.operand(function, builder, &args[0].node, at)?;
                let count = self.operand(function, builder, &args[1].node, at)?;
                let int = int_type(self.ctx, count.get_type(self.ctx))?;
                let zero = builder.const_int(self.ctx, int, 0, at);
                let back = builder.binop(self.ctx, BinOpKind::Sub, zero, count, at);
                let element = args[0].node.ty(function.body, self.tcx).builtin_deref(true)?;
                Some(self.element_address(builder, pointer, element, back, at))
            }
            // Bytes, not elements: the element address of a byte pointer over the same memory.
            ("byte_add" | "wrapping_byte_add" | "byte_offset" | "wrapping_byte_offset", 2) => {
                let pointee = args[0].node.ty(function.body, self.tcx).builtin_deref(true)?;
                if pointee.is_slice() || pointee.is_str() || pointee.is_trait() {
                    return None;
                }
                let pointer = self.operand(function, builder, &args[0].node, at)?;
                let count = self.operand(function, builder, &args[1].node, at)?;
                Some(self.element_address(builder, pointer, self.tcx.types.u8, count, at))
            }
            ("cast" | "cast_mut" | "cast_const", 1) => self.operand(function, builder, &args[0].node, at),
            ("read" | "read_volatile" | "read_unaligned", 1) => {
                let pointer = self.operand(function, builder, &args[0].node, at)?;
                pointer_pointee(self.ctx, pointer)?;
                Some(builder.load(self.ctx, pointer, at))
            }
            _ => None,
        }
    }

    /// `core::mem::size_of::<T>()` and `align_of::<T>()` as the constant rustc lays `T` out
    /// with for the target (`4 * size_of::<Tile>()` is a layout offset the rules read as such);
    /// `None` for any other callee, or a type without a known layout.
    pub(super) fn type_layout_constant(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        callee: Instance<'tcx>,
        destination: Place<'tcx>,
        at: &SourceLoc,
    ) -> Option<Value> {
        let name = core_item_name(self.tcx, callee.def_id())?;
        let measured = *callee.args.types().collect::<Vec<_>>().first()?;
        let layout = self.tcx.layout_of(TypingEnv::fully_monomorphized().as_query_input(measured)).ok()?;
        let bytes = match name.as_str() {
            "size_of" if layout.is_sized() => layout.size.bytes(),
            "align_of" => layout.align.abi.bytes(),
            _ => return None,
        };
        let result = self.ir_type(destination.ty(function.body, self.tcx).ty, None);
        let int = int_type(self.ctx, result)?;
        Some(builder.const_int(self.ctx, int, i128::from(bytes), at))
    }

    /// The address `index` elements of Rust type `element` past `pointer`. A shared pointer
    /// cast to another pointee keeps the view it had (`crate::spaces`), so its IR pointee may
    /// not be `element`: `(base as *mut u8).wrapping_add(256)` on a base viewed as `f32` moves
    /// 256 bytes, not 256 floats. There the index is applied to the pointer cast to `element`,
    /// and the result cast back to the view.
    pub(super) fn element_address(
        &mut self,
        builder: &FunctionBuilder,
        pointer: Value,
        element: Ty<'tcx>,
        index: Value,
        at: &SourceLoc,
    ) -> Value {
        let element = self.ir_type(element, None);
        let viewed = pointer.get_type(self.ctx);
        let Some(view) = viewed.deref(self.ctx).downcast_ref::<PointerType>().cloned() else {
            return builder.index_addr(self.ctx, pointer, index, at);
        };
        if view.pointee() == element {
            return builder.index_addr(self.ctx, pointer, index, at);
        }
        let in_units: TypeHandle =
            PointerType::get(self.ctx, view.space(), view.mutability(), view.kind(), element).into();
        let cast = builder.cast(self.ctx, IrCast::PtrToPtr, pointer, in_units, at);
        let moved = builder.index_addr(self.ctx, cast, index, at);
        builder.cast(self.ctx, IrCast::PtrToPtr, moved, viewed, at)
    }

    /// `ptr.write(v)`, `write_volatile` and `write_unaligned` (method or `core::ptr::`
    /// function) as `mir.store`; false when the callee is none of these.
    pub(super) fn pointer_write(
        &mut self,
        function: &FunctionImport<'_, 'tcx>,
        builder: &FunctionBuilder,
        callee: Instance<'tcx>,
        args: &[Spanned<Operand<'tcx>>],
        at: &SourceLoc,
    ) -> bool {
        let Some(name) = core_item_name(self.tcx, callee.def_id()) else { return false };
        if args.len() != 2
            || !args[0].node.ty(function.body, self.tcx).is_raw_ptr()
            || !matches!(name.as_str(), "write" | "write_volatile" | "write_unaligned")
        {
            return false;
        }
        let Some(pointer) = self.operand(function, builder, &args[0].node, at) else { return false };
        let Some(pointee) = pointer_pointee(self.ctx, pointer) else { return false };
        let Some(value) = self.operand(function, builder, &args[1].node, at) else { return false };
        let value = self.coerce(builder, value, pointee, at);
        builder.store(self.ctx, value, pointer, at);
        true
    }
}

/// Whether `value` is a generic pointer and `ty` the same pointer in shared memory.
fn generic_for_shared(ctx: &Context, value: Value, ty: TypeHandle) -> bool {
    let from = value.get_type(ctx).deref(ctx).downcast_ref::<PointerType>().cloned();
    let to = ty.deref(ctx).downcast_ref::<PointerType>().cloned();
    matches!((from, to), (Some(from), Some(to))
        if from.space() == AddressSpace::Generic && to.space() == AddressSpace::Shared)
}
