//! The names the import gives functions in the IR: a Rust path written as a pliron symbol, and
//! the crate-qualified path of a function outside the scope. Shared by the scope collection
//! (which asks whether a standard-library function is a view the rules read by name) and the
//! import (which names calls by them).

use rustc_middle::ty::TyCtxt;
use rustc_span::def_id::DefId;

/// A path as a pliron symbol: `device::reduce::block_sum` → `device__reduce__block_sum`.
pub fn symbol(path: &str) -> String {
    let mut name = String::with_capacity(path.len());
    for c in path.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            name.push(c);
        } else if c == ':' {
            if !name.ends_with("__") {
                name.push_str("__");
            }
        } else if !name.ends_with('_') {
            name.push('_');
        }
    }
    let name = name.trim_end_matches('_').to_string();
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) { format!("f_{name}") } else { name }
}

/// The path of `def_id` with its crate's name in front (`core::iter::Iterator::map`), as the
/// IR names a function outside the scope.
pub fn crate_qualified_path(tcx: TyCtxt<'_>, def_id: DefId) -> String {
    let krate = tcx.crate_name(def_id.krate);
    let path = tcx.def_path_str(def_id);
    if path.starts_with(&format!("{krate}::")) { path } else { format!("{krate}::{path}") }
}

/// The name of `def_id` when it is an item of `core`, `None` for another crate's: the callees
/// the import reads by name (pointer methods, `mem::replace`, range constructors and
/// `contains`) are all `core`'s, and a user's function of the same name is an ordinary call.
pub fn core_item_name(tcx: TyCtxt<'_>, def_id: DefId) -> Option<rustc_span::Symbol> {
    (tcx.crate_name(def_id.krate).as_str() == "core").then(|| tcx.opt_item_name(def_id)).flatten()
}

#[cfg(test)]
mod tests {
    use super::symbol;

    #[test]
    fn paths_become_pliron_symbols() {
        assert_eq!(symbol("device::reduce::block_sum"), "device__reduce__block_sum");
        assert_eq!(symbol("device::pipeline::Pipeline::<4>::init"), "device__pipeline__Pipeline__4___init");
        assert_eq!(symbol("<u32 as core::ops::Add>::add"), "_u32_as_core__ops__Add___add");
        assert_eq!(symbol("4stages"), "f_4stages");
    }
}
