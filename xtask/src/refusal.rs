//! Exit statuses: 70 for a refusal by name (a backend or configuration the guard will not
//! accept, or a command that will not go on without what it needs, with the fix in its
//! message), 1 for any other failure.

/// The exit status of a refusal by name.
pub const REFUSED: u8 = 70;

/// A refusal other than the backend guard's: the message says what was refused and the fix.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Refused(pub String);

/// The exit status for a failed command: [`REFUSED`] when a refusal ([`Refused`] or a
/// [`crate::backend::BackendError`]) is anywhere in the error's chain of causes (context added
/// on the way up does not hide it), else 1.
pub fn exit_status(error: &anyhow::Error) -> u8 {
    let refused = error.chain().any(|cause| {
        cause.downcast_ref::<crate::backend::BackendError>().is_some()
            || cause.downcast_ref::<Refused>().is_some()
    });
    if refused { REFUSED } else { 1 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::BackendError;
    use anyhow::Context;

    #[test]
    fn refusals_exit_70_through_context_and_other_failures_exit_1() {
        let refusal: anyhow::Result<()> =
            Err(BackendError::Incomplete { backend: "default".into(), dir: "/b/default/k".into() }.into());
        let wrapped = refusal.context("step 1/5 (kernels)").unwrap_err();
        assert_eq!(exit_status(&wrapped), REFUSED);
        assert!(format!("{wrapped:#}").contains("no PROVENANCE"));
        assert_eq!(exit_status(&anyhow::anyhow!("cargo failed")), 1);
        let refused = anyhow::Error::from(Refused("no reason given".into())).context("shapes");
        assert_eq!(exit_status(&refused), REFUSED);
    }
}
