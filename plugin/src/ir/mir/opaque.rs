//! `mir.opaque`: a statement or value the importer does not model, kept so that nothing is
//! dropped silently. Its results carry no provenance: the verifier treats them as unrelated
//! to any pipeline state, except those of an [`UNFOLLOWED_STATE`] operation, which stand for a
//! state's index and phase and may be any state's.

use pliron::{
    builtin::attributes::StringAttr, common_traits::Verify, context::Context, derive::pliron_op, op::Op,
    result::Result, verify_err,
};

/// How the description of an opaque operation standing for a pipeline state the import cannot
/// follow begins (an array element at a run-time index, a state written through a pointer).
pub const UNFOLLOWED_STATE: &str = "a pipeline state";

/// `r = mir.opaque "what it was" (a, b) : (…) -> (…)`.
#[pliron_op(
    name = "mir.opaque",
    format = "attr($opaque_what, $StringAttr) ` (` operands(CharSpace(`,`)) `) : ` typesig",
    interfaces = [],
    attributes = (opaque_what: StringAttr)
)]
pub struct OpaqueOp;

impl OpaqueOp {
    /// Whether it stands for a pipeline state the import cannot follow ([`UNFOLLOWED_STATE`]).
    pub fn is_unfollowed_state(&self, ctx: &Context) -> bool {
        self.what(ctx).is_some_and(|what| what.starts_with(UNFOLLOWED_STATE))
    }

    /// What the operation stands for (the MIR the importer did not model, as it printed it).
    pub fn what(&self, ctx: &Context) -> Option<String> {
        self.get_attr_opaque_what(ctx).map(|what| what.clone().into())
    }
}

impl Verify for OpaqueOp {
    fn verify(&self, ctx: &Context) -> Result<()> {
        if self.get_attr_opaque_what(ctx).is_none() {
            return verify_err!(self.loc(ctx), "mir.opaque has no description attribute");
        }
        Ok(())
    }
}
