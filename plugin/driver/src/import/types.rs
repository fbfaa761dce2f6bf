//! MIR types as IR types: scalars, pointers with their address space, ADTs by name; and the
//! small type queries the other import modules share.

use pliron::builtin::types::{FP16Type, FP32Type, FP64Type, IntegerType};
use pliron::context::Context;
use pliron::r#type::{TypeHandle, Typed, TypedHandle};
use pliron::value::Value;
use plugin::ir::types::{
    AddressSpace, AdtType, Mutability as IrMutability, PointerKind, PointerType, shorthand,
};
use rustc_middle::mir::{Body, Local};
use rustc_middle::ty::{self, Instance, Ty, TypingEnv};

use super::Importer;

impl<'tcx> Importer<'_, 'tcx> {
    /// The IR type of a Rust type; a pointer or reference into shared memory is `Shared`,
    /// viewing `view`.
    pub(super) fn ir_type(&mut self, ty: Ty<'tcx>, view: Option<Ty<'tcx>>) -> TypeHandle {
        if let Some(known) = self.types.get(&(ty, view)) {
            return *known;
        }
        let found = self.build_ir_type(ty, view);
        self.types.insert((ty, view), found);
        found
    }

    fn build_ir_type(&mut self, ty: Ty<'tcx>, view: Option<Ty<'tcx>>) -> TypeHandle {
        let pointer_bits = self.tcx.data_layout.pointer_size().bits() as u32;
        match ty.kind() {
            ty::Bool => shorthand::bool_type(self.ctx).into(),
            ty::Char => shorthand::u32_type(self.ctx).into(),
            ty::Int(int) => {
                let width = int.bit_width().map(|bits| bits as u32).unwrap_or(pointer_bits);
                shorthand::int_type(self.ctx, width, true).into()
            }
            ty::Uint(uint) => {
                let width = uint.bit_width().map(|bits| bits as u32).unwrap_or(pointer_bits);
                shorthand::int_type(self.ctx, width, false).into()
            }
            ty::Float(ty::FloatTy::F16) => FP16Type::get(self.ctx).into(),
            ty::Float(ty::FloatTy::F32) => FP32Type::get(self.ctx).into(),
            ty::Float(ty::FloatTy::F64) => FP64Type::get(self.ctx).into(),
            // A pointer or a reference; one with a shared view (a reference reborrowed from a
            // shared pointer, too) points into shared memory.
            ty::RawPtr(pointee, mutability) | ty::Ref(_, pointee, mutability) => {
                let kind = if ty.is_ref() { PointerKind::Ref } else { PointerKind::Raw };
                let (space, pointee) = match view {
                    Some(view) => (AddressSpace::Shared, view),
                    None => (AddressSpace::Generic, *pointee),
                };
                let pointee = self.ir_type(pointee, None);
                PointerType::get(self.ctx, space, ir_mutability(*mutability), kind, pointee).into()
            }
            _ => AdtType::get(self.ctx, ty.to_string(), self.size_of(ty)).into(),
        }
    }

    /// The size in bytes of a sized type, as rustc lays it out for the target.
    fn size_of(&self, ty: Ty<'tcx>) -> Option<u64> {
        let layout = self.tcx.layout_of(TypingEnv::fully_monomorphized().as_query_input(ty)).ok()?;
        layout.is_sized().then(|| layout.size.bytes())
    }

    pub(super) fn local_type(
        &mut self,
        instance: Instance<'tcx>,
        body: &Body<'tcx>,
        local: Local,
    ) -> TypeHandle {
        let view = self.shared.view(instance, &(local, Vec::new()));
        self.ir_type(body.local_decls[local].ty, view)
    }

    /// The IR results of a function returning `ty` (none for `()` and `!`); for a scope
    /// function, a returned shared pointer stays shared.
    pub(super) fn results_of(&mut self, ty: Ty<'tcx>, function: Option<Instance<'tcx>>) -> Vec<TypeHandle> {
        if ty.is_unit() || ty.is_never() {
            return Vec::new();
        }
        let view = function.and_then(|instance| self.shared.view(instance, &(Local::ZERO, Vec::new())));
        vec![self.ir_type(ty, view)]
    }
}

pub(super) fn ir_mutability(mutability: rustc_middle::mir::Mutability) -> IrMutability {
    match mutability {
        rustc_middle::mir::Mutability::Mut => IrMutability::Mut,
        rustc_middle::mir::Mutability::Not => IrMutability::Const,
    }
}

pub(super) fn int_type(ctx: &Context, ty: TypeHandle) -> Option<TypedHandle<IntegerType>> {
    TypedHandle::<IntegerType>::from_handle(ty, ctx).ok()
}

/// Whether `value` is a pointer to a shared pointer where type `ty` is the same pointer to a
/// generic one (a reference to a closure's capture, see `SharedPaths::capture`).
pub(super) fn refers_to_shared(ctx: &Context, value: Value, ty: TypeHandle) -> bool {
    let pointer = |ty: TypeHandle| ty.deref(ctx).downcast_ref::<PointerType>().cloned();
    let (Some(from), Some(to)) = (pointer(value.get_type(ctx)), pointer(ty)) else { return false };
    let (Some(from_pointee), Some(to_pointee)) = (pointer(from.pointee()), pointer(to.pointee())) else {
        return false;
    };
    from.space() == to.space()
        && from_pointee.space() == AddressSpace::Shared
        && to_pointee.space() == AddressSpace::Generic
        && from_pointee.pointee() == to_pointee.pointee()
}

/// Whether `value` is a pointer into shared memory.
pub(super) fn is_shared_pointer(ctx: &Context, value: Value) -> bool {
    value
        .get_type(ctx)
        .deref(ctx)
        .downcast_ref::<PointerType>()
        .is_some_and(|pointer| pointer.space() == AddressSpace::Shared)
}

pub(super) fn pointer_pointee(ctx: &Context, pointer: Value) -> Option<TypeHandle> {
    pointer.get_type(ctx).deref(ctx).downcast_ref::<PointerType>().map(PointerType::pointee)
}

/// Whether dropping a value of type `ty` can do nothing the model sees: every destructor in its
/// drop glue is the standard library's (which only drops fields in place) and the value holds
/// no pointer, reference or other handle through which that glue could reach memory beyond the
/// value itself (`core::array::IntoIter<f32, 8>` of a `for v in array` loop). A destructor of
/// the kernel's own crates may wait at a barrier, so its drop stays outside the model.
pub(super) fn drop_is_inert<'tcx>(tcx: ty::TyCtxt<'tcx>, ty: Ty<'tcx>) -> bool {
    inert_within(tcx, ty, INERT_DEPTH)
}

/// Nesting of types [`drop_is_inert`] looks through (`array::IntoIter<f32, N>` is 9 deep:
/// `ManuallyDrop`, `MaybeDangling`, `MaybeUninit` wrap its elements).
const INERT_DEPTH: u32 = 16;

fn inert_within<'tcx>(tcx: ty::TyCtxt<'tcx>, ty: Ty<'tcx>, depth: u32) -> bool {
    if depth == 0 {
        return false;
    }
    match ty.kind() {
        ty::Bool | ty::Char | ty::Int(_) | ty::Uint(_) | ty::Float(_) | ty::Never => true,
        ty::Array(element, _) | ty::Slice(element) => inert_within(tcx, *element, depth - 1),
        ty::Tuple(elements) => elements.iter().all(|element| inert_within(tcx, element, depth - 1)),
        ty::Adt(adt, args) => {
            let own_destructor = tcx
                .adt_destructor(adt.did())
                .is_some_and(|destructor| !is_standard_crate(tcx, destructor.did));
            !own_destructor
                && adt
                    .all_fields()
                    .all(|field| inert_within(tcx, field.ty(tcx, args).skip_normalization(), depth - 1))
        }
        _ => false,
    }
}

fn is_standard_crate(tcx: ty::TyCtxt<'_>, def_id: rustc_hir::def_id::DefId) -> bool {
    matches!(tcx.crate_name(def_id.krate).as_str(), "core" | "alloc")
}
