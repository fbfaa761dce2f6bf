//! The per-kernel opt-out: `#[kernel_verifier::unverified(reason = "…")]` on a kernel entry
//! accepts that its scope is unverified. The build goes on; the reason is shown in the build
//! summary and the report. Nothing else is passed: a rejection still fails the build.
//!
//! The attribute is a tool attribute: the crate declares the tool once
//! (`#![feature(register_tool)]`, `#![register_tool(kernel_verifier)]`), and plain rustc
//! ignores it, so a kernel crate still builds without this driver.

use rustc_hir::def_id::LocalDefId;
use rustc_middle::ty::TyCtxt;
use rustc_span::Symbol;

/// The tool name and the attribute's name.
pub const TOOL: &str = "kernel_verifier";
pub const ATTRIBUTE: &str = "unverified";

/// The reason the kernel's opt-out states, or `None` without one. An opt-out that states no
/// reason is an error at the attribute: the point of the attribute is the reason.
pub fn reason(tcx: TyCtxt<'_>, kernel: LocalDefId) -> Option<String> {
    let path = [Symbol::intern(TOOL), Symbol::intern(ATTRIBUTE)];
    // A tool attribute is never a parsed attribute, so `find_attr!` cannot see it: the raw
    // attribute list is the way to it.
    #[allow(deprecated)]
    let attributes = tcx.get_all_attrs(kernel.to_def_id());
    let attribute = attributes.iter().find(|attribute| attribute.path_matches(&path))?;
    let stated = attribute.meta_item_list().and_then(|items| {
        items
            .iter()
            .find_map(|item| (item.has_name(Symbol::intern("reason"))).then(|| item.value_str()).flatten())
    });
    match stated {
        Some(reason) if !reason.as_str().trim().is_empty() => Some(reason.as_str().trim().to_string()),
        _ => {
            tcx.dcx().span_err(
                attribute.span(),
                "kernel verifier: an opt-out must state its reason: `#[kernel_verifier::unverified(reason = \"why this kernel cannot be proven\")]`",
            );
            None
        }
    }
}
