//! The `mir` dialect: MIR-shaped kernel IR.
//!
//! Functions are pliron's `builtin.func` inside a `builtin.module` (a kernel carries the unit
//! attribute [`KERNEL_ATTR`]); blocks take arguments; values are SSA. Rust locals become
//! `mir.alloca` places that are read and written with `mir.load` and `mir.store`. Anything the
//! importer does not model becomes `mir.opaque`, so no MIR statement is dropped silently.
//!
//! One file per op family: [`constant`], [`arith`] (binary operations, comparisons, casts and the
//! address-space adaptation), [`memory`] (places, loads, stores, field and index addresses),
//! [`control`] (calls and terminators), [`opaque`].

pub mod arith;
pub mod constant;
pub mod control;
pub mod memory;
pub mod opaque;

/// The attribute key that marks a `builtin.func` as a kernel entry (a scope root).
pub const KERNEL_ATTR: &str = "mir_kernel";

use pliron::{context::Context, r#type::TypeHandle};

/// The pointer type of `value`, if it has one.
pub(crate) fn pointer_type_of(ctx: &Context, ty: TypeHandle) -> Option<crate::ir::types::PointerType> {
    ty.deref(ctx).downcast_ref::<crate::ir::types::PointerType>().cloned()
}

/// Whether a value of type `ty` may carry an address: a pointer, or an aggregate (the IR knows
/// an aggregate only by name, so its fields may hold pointers: a slice iterator, a closure's
/// captures, a struct of stage pointers).
pub(crate) fn may_carry_address(ctx: &Context, ty: TypeHandle) -> bool {
    let ty = ty.deref(ctx);
    ty.is::<crate::ir::types::PointerType>()
        || ty.downcast_ref::<crate::ir::types::AdtType>().is_some_and(|adt| !only_numbers(adt.name()))
}

/// Whether an aggregate named `name` (as Rust prints a type) is made of numbers only: tuples
/// and arrays of integers, floats, `bool` and `char` (`(f32,)`, `[u32; 4]`, `()`), and the
/// standard library's ranges, `Option` and counting iterator adaptors over those
/// (`core::iter::Rev<core::ops::Range<usize>>`), whose fields are their type parameters and
/// counters: none holds an address.
fn only_numbers(name: &str) -> bool {
    const SCALARS: &[&str] = &[
        "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f16", "f32",
        "f64", "bool", "char",
    ];
    // Types of `core` (no other crate can name a path there) that hold only their parameters,
    // integers and flags.
    const NUMBER_WRAPPERS: &[&str] =
        &["Range", "RangeInclusive", "Option", "Rev", "StepBy", "Take", "Skip", "Enumerate", "Zip"];
    let wrapper = |token: &str| {
        token.starts_with("core::")
            && token.rsplit("::").next().is_some_and(|last| NUMBER_WRAPPERS.contains(&last))
    };
    name.split(['(', ')', '[', ']', ',', ';', ' ', '<', '>'])
        .filter(|token| !token.is_empty())
        .all(|token| SCALARS.contains(&token) || token.chars().all(|c| c.is_ascii_digit()) || wrapper(token))
}

/// The width of `ty` if it is an integer type.
pub(crate) fn int_width(ctx: &Context, ty: TypeHandle) -> Option<u32> {
    ty.deref(ctx).downcast_ref::<pliron::builtin::types::IntegerType>().map(|int| int.width())
}

#[cfg(test)]
mod tests {
    use super::only_numbers;

    #[test]
    fn tuples_and_arrays_of_numbers_hold_no_address() {
        assert!(only_numbers("(f32,)"));
        assert!(only_numbers("[u32; 4]"));
        assert!(only_numbers("()"));
        assert!(only_numbers("((f32, u32), [bool; 2])"));
        assert!(!only_numbers("(*const f32, u32)"));
        assert!(!only_numbers("core::slice::Iter<'_, f32>"));
        assert!(!only_numbers("[&f32; 2]"));
        assert!(!only_numbers("{closure@src/lib.rs:3:5: 3:8}"));
    }

    #[test]
    fn ranges_and_counting_adaptors_over_numbers_hold_no_address() {
        assert!(only_numbers("core::ops::Range<usize>"));
        assert!(only_numbers("core::iter::Rev<core::ops::Range<usize>>"));
        assert!(only_numbers("core::iter::StepBy<core::ops::RangeInclusive<u32>>"));
        assert!(only_numbers("core::option::Option<(u32, f32)>"));
        // An adaptor over a slice iterator holds its pointers.
        assert!(!only_numbers("core::iter::Rev<core::slice::Iter<'_, f32>>"));
        assert!(!only_numbers("core::option::Option<*const f32>"));
        // A kernel crate's own `Range` is not the standard library's.
        assert!(!only_numbers("ring::Range<u32>"));
    }
}
