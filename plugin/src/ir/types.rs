//! The types the kernel IR adds to pliron's builtin ones: pointers that carry their address
//! space, mutability and kind, and named aggregates (a Rust struct, enum or union the IR does
//! not look inside).
//!
//! Integers and floats are pliron's builtin types: `builtin.integer` with Rust's signedness
//! (`si32` for `i32`, `ui32` for `u32`, `ui1` for `bool`) and `builtin.fp16/bf16/fp32/fp64`.

use pliron::{
    builtin::types::{IntegerType, Signedness},
    context::Context,
    derive::{format, pliron_type},
    r#type::{TypeHandle, TypedHandle},
};

/// Where a pointer points.
///
/// `Generic` is the default for Rust raw pointers and references; `Shared` and `Global` are
/// known only where the IR says so (the dynamic-shared-memory base is `Shared`; a kernel
/// parameter may be `Global`). Passing a `Shared` pointer where a `Generic` one is expected
/// needs the explicit adaptation `mir.addrspace_cast`.
#[format]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AddressSpace {
    Generic,
    Global,
    Shared,
}

/// Whether the pointee may be written through the pointer (`*mut T`, `&mut T`).
#[format]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mutability {
    Const,
    Mut,
}

/// Which Rust pointer the value is: a raw pointer or a reference.
#[format]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PointerKind {
    Raw,
    Ref,
}

/// A pointer: `mir.ptr <Shared, Mut, Raw, builtin.fp32>`.
#[pliron_type(
    name = "mir.ptr",
    format = "`<` $space `,` $mutability `,` $kind `,` $pointee `>`",
    generate_get = true,
    verifier = "succ"
)]
#[derive(Hash, PartialEq, Eq, Debug, Clone)]
pub struct PointerType {
    space: AddressSpace,
    mutability: Mutability,
    kind: PointerKind,
    pointee: TypeHandle,
}

impl PointerType {
    /// The address space the pointer points into.
    pub fn space(&self) -> AddressSpace {
        self.space
    }

    /// Whether writes through the pointer are allowed.
    pub fn mutability(&self) -> Mutability {
        self.mutability
    }

    /// Raw pointer or reference.
    pub fn kind(&self) -> PointerKind {
        self.kind
    }

    /// The type pointed at.
    pub fn pointee(&self) -> TypeHandle {
        self.pointee
    }
}

/// A named aggregate whose fields the IR does not model, e.g. `mir.adt <"PipelineState">`, with
/// its size in bytes where the producer of the IR knows it (`mir.adt <"[f32; 4]" 16>`): a Rust
/// array, tuple or struct has one layout, so the size lets an access through a pointer to it be
/// placed byte for byte (a 16-byte quad staged per thread) without the IR looking inside it. An
/// unsized aggregate (`[f32]`) and a hand-written one carry no size. Two `mir.adt` types are the
/// same type exactly when their names and sizes are equal.
#[pliron_type(name = "mir.adt", format = "`<` $name opt($bytes) `>`", generate_get = true, verifier = "succ")]
#[derive(Hash, PartialEq, Eq, Debug, Clone)]
pub struct AdtType {
    name: String,
    bytes: Option<u64>,
}

impl AdtType {
    /// The aggregate's name as the producer of the IR spelled it (e.g. a Rust path).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its size in bytes, where the producer of the IR gave one.
    pub fn bytes(&self) -> Option<u64> {
        self.bytes
    }
}

/// Shorthands for the types the verifier and the builders use most.
pub mod shorthand {
    use super::*;

    /// Rust's `u32`: the type of stage indices, phase bits and byte counts.
    pub fn u32_type(ctx: &Context) -> TypedHandle<IntegerType> {
        IntegerType::get(ctx, 32, Signedness::Unsigned)
    }

    /// Rust's `bool`.
    pub fn bool_type(ctx: &Context) -> TypedHandle<IntegerType> {
        IntegerType::get(ctx, 1, Signedness::Unsigned)
    }

    /// An integer of `width` bits, signed as Rust's `iN` or unsigned as `uN`.
    pub fn int_type(ctx: &Context, width: u32, signed: bool) -> TypedHandle<IntegerType> {
        let signedness = if signed { Signedness::Signed } else { Signedness::Unsigned };
        IntegerType::get(ctx, width, signedness)
    }

    /// A pointer type.
    pub fn ptr_type(
        ctx: &Context,
        space: AddressSpace,
        mutability: Mutability,
        kind: PointerKind,
        pointee: TypeHandle,
    ) -> TypedHandle<PointerType> {
        PointerType::get(ctx, space, mutability, kind, pointee)
    }
}
