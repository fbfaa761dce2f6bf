//! What the runner reads from a module's PTX text about its entries: whether it has one (a
//! module built before an entry was added, the old side of `--compare`, launches the kernel's
//! own entry in its place), and which may be launched with programmatic dependent launch:
//! those whose PTX waits for the prior grid (`griddepcontrol.wait`) before touching memory
//! (`kernels::device::dependent`). The runner launches exactly those with the attribute, so an
//! older module whose entry lacks the wait keeps its ordinary launch instead of racing with the
//! launch before it.

/// The text of entry `name`'s body in `ptx`: from its `.entry name(` line to the next
/// `.entry` (or the end); `None` when the module has no such entry.
fn entry_body<'a>(ptx: &'a str, name: &str) -> Option<&'a str> {
    let header = format!(".entry {name}(");
    let start = ptx.find(&header)? + header.len();
    let rest = &ptx[start..];
    let end = rest.find(".entry ").unwrap_or(rest.len());
    Some(&rest[..end])
}

/// Whether the PTX module `ptx` has an entry `name`.
pub fn has_entry(ptx: &str, name: &str) -> bool {
    entry_body(ptx, name).is_some()
}

/// Whether entry `name` of the PTX module `ptx` waits for the prior grid, and so may be
/// launched with programmatic dependent launch.
pub fn waits_for_prior_grid(ptx: &str, name: &str) -> bool {
    entry_body(ptx, name).is_some_and(|body| body.contains("griddepcontrol.wait"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODULE: &str = "\
.visible .entry first(
\t.param .u64 first_param_0
)
{
\tgriddepcontrol.wait;
\tret;
}
.visible .entry second(
\t.param .u64 second_param_0
)
{
\tret;
}
";

    #[test]
    fn only_an_entry_whose_own_body_waits_is_dependent() {
        assert!(waits_for_prior_grid(MODULE, "first"));
        // The wait in `first` does not leak into the entry after it.
        assert!(!waits_for_prior_grid(MODULE, "second"));
        assert!(!waits_for_prior_grid(MODULE, "absent"));
        // A name that is a prefix of another entry's is not that entry.
        assert!(!waits_for_prior_grid(MODULE, "firs"));
        assert!(has_entry(MODULE, "first") && has_entry(MODULE, "second"));
        assert!(!has_entry(MODULE, "firs") && !has_entry(MODULE, "absent"));
    }

    /// The snapshots of the built kernels: the row kernels wait, the element-wise ones do not
    /// (so the runner launches only the row kernels with the attribute).
    #[test]
    fn the_row_kernels_snapshots_wait_for_the_prior_grid() {
        let snapshots = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ptx-snapshots");
        let read = |name: &str| {
            let path = snapshots.join(format!("{name}.snap"));
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        };
        for name in ["rms_norm", "softmax_rows"] {
            assert!(waits_for_prior_grid(&read(name), name), "{name} should wait for the prior grid");
        }
        for name in ["vector_add", "saxpy", "gemv_f16"] {
            assert!(!waits_for_prior_grid(&read(name), name), "{name} has no dependent launch");
        }
    }
}
