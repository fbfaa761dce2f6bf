//! The refusals of the backend flow. Every variant names the thing refused and the fix; `main`
//! turns any of them into exit status 70 (see [`crate::refusal`]). Failures that are not
//! refusals (a tool that cannot start, a build that fails to compile) travel as `anyhow`
//! errors with context instead.

use std::fmt;
use std::path::PathBuf;

/// A backend, patch or configuration refused by name.
#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    #[error("{file}: {reason}")]
    BadDescription { file: PathBuf, reason: String },

    #[error("no backend named `{name}` in {file} (declared: {known}); pick one of those or declare it there")]
    UnknownBackend { name: String, file: PathBuf, known: String },

    #[error(
        "backend `{backend}`: its upstream host {host} cannot be reached from this machine \
         (`git ls-remote {url}`: {detail}); materialise it on a machine that reaches {host}, \
         or use the `default` backend here"
    )]
    UnreachableUpstream { backend: String, url: String, host: String, detail: String },

    #[error(
        "backend `{backend}`: the pin `{pin}` is not a commit of {url} ({detail}); \
         fix the pin in backends.toml"
    )]
    PinNotFound { backend: String, pin: String, url: String, detail: String },

    #[error(
        "backend `{backend}`: the vendor tree {path} has local changes, and patches are carried only in \
         compiler-patches/: move the change into a patch of the series, then {restore} (changes: {changes})"
    )]
    DirtyVendor { backend: String, path: PathBuf, changes: String, restore: String },

    #[error(
        "backend `{backend}`: {path} exists but does not hold its upstream as build-backend leaves it (a git \
         checkout, or a package unpacked by cargo vendor); remove it and run `just build-backend {backend}` again"
    )]
    ForeignVendor { backend: String, path: PathBuf },

    #[error(
        "backend `{backend}`: package `{package}` version {version} cannot be fetched (cargo vendor: {detail}); \
         check the name and version in backends.toml, or materialise it on a machine that reaches the \
         package registry (a mirror configured in the project's .cargo/config.toml is used)"
    )]
    PackageUnavailable { backend: String, package: String, version: String, detail: String },

    #[error(
        "backend `{backend}`: {series} names patch `{patch}`, which does not exist; add the file or drop the line"
    )]
    MissingPatch { backend: String, patch: String, series: PathBuf },

    #[error(
        "backend `{backend}`: patch `{patch}` is in {folder} but not in its series; add it to the series \
         (in order) or delete it"
    )]
    UnlistedPatch { backend: String, patch: String, folder: PathBuf },

    #[error(
        "backend `{backend}`: {series} lists patch `{patch}` twice; each patch is applied once, remove the \
         second line"
    )]
    RepeatedPatch { backend: String, patch: String, series: PathBuf },

    #[error(
        "backend `{backend}` is built in-tree, so it has nothing to patch: change the source with a commit \
         and empty {series} (it lists `{patch}`)"
    )]
    InTreePatches { backend: String, patch: String, series: PathBuf },

    #[error(
        "backend `{backend}`: patch `{patch}` no longer applies to {revision}: {hunk}; rebase the patch onto \
         the pin (git's report: {detail})"
    )]
    PatchDoesNotApply { backend: String, patch: String, revision: String, hunk: String, detail: String },

    #[error(
        "backend `{backend}`: patch `{patch}` is already upstream at {revision} (it applies in reverse): \
         drop this patch from {series}"
    )]
    PatchAlreadyUpstream { backend: String, patch: String, revision: String, series: PathBuf },

    #[error(
        "backend `{backend}`: the patched {package} fails its own test suite, so the backend is not installed \
         ({detail}); fix the patch that breaks them (run `cargo test` in target/backend-work/{backend}/{package} \
         to see each failure)"
    )]
    UpstreamTestsFailed { backend: String, package: String, detail: String },

    #[error(
        "backend `{backend}`: its build changed its own in-tree sources ({}), so no PROVENANCE can say what \
         it was built from; make the build leave them alone (for cargo: commit Cargo.lock and build with \
         --locked), then run `just build-backend {backend}` again",
        join(changes)
    )]
    BuildChangedSources { backend: String, changes: Vec<StaleReason> },

    #[error(
        "backend `{backend}` is not built for this configuration (nothing at {dir}){note}; run \
         `just build-backend {backend}`"
    )]
    NotBuilt { backend: String, dir: PathBuf, note: String },

    #[error(
        "backend `{backend}` at {dir} is incomplete: it has no PROVENANCE (its build was interrupted); \
         run `just build-backend {backend}`"
    )]
    Incomplete { backend: String, dir: PathBuf },

    #[error("backend `{backend}` is stale: {}; run `just build-backend {backend}`", join(reasons))]
    Stale { backend: String, reasons: Vec<StaleReason> },

    #[error(
        "backend `{backend}`: {path} holds the upstream at {recorded}, but backends.toml pins {described}; \
         run `cargo xtask vendor-snapshot {backend} --from GIT_DIR` with a clone that has the pinned commit"
    )]
    SnapshotCommit { backend: String, path: PathBuf, recorded: String, described: String },

    #[error(
        "backend `{backend}`: the build regenerated {path} as {found}, but the pinned commit has {expected}; \
         the generator or its inputs differ from the upstream's (a patch touching them, or another toolchain): \
         fix that, or record the new file in a patch of the series"
    )]
    RegeneratedMismatch { backend: String, path: String, expected: String, found: String },

    #[error(
        "backend `{backend}`: backends.toml builds it with toolchain `{described}`, but the upstream's {file} \
         asks for `{upstream}`; make them agree (a toolchain bump is a change of the pin)"
    )]
    ToolchainDisagrees { backend: String, described: String, file: PathBuf, upstream: String },

    #[error(
        "the kernels' target settings (xtask/src/host_config.rs) were chosen for LLVM {expected}, but the \
         toolchain's rustc reports LLVM {found}; check each flag of that table against LLVM {found} \
         (the PTX ISA feature above all) and update its `llvm_major`"
    )]
    LlvmMismatch { expected: u32, found: String },
}

/// Why an installed backend no longer matches its description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StaleReason {
    /// The installed one was built from another upstream or pin.
    Pin { installed: String, described: String },
    /// The installed one was built by another toolchain.
    Toolchain { installed: String, described: String },
    /// A patch's content changed since the build.
    PatchChanged { patch: String, installed: String, now: String },
    /// A patch is in the series now but was not applied to the installed build.
    PatchAdded { patch: String },
    /// A patch was applied to the installed build but is no longer in the series.
    PatchRemoved { patch: String },
    /// Same patches, another order.
    SeriesOrder,
    /// Same patches in the same order, but the series file's bytes changed.
    SeriesFile,
    /// The series has patches, but none was applied to the installed build.
    Unpatched { count: usize },
    /// An in-tree source file changed, appeared or disappeared since the build.
    Source { path: String, change: &'static str },
    /// The build command changed.
    BuildCommand,
    /// An installed file no longer has the content that was built.
    ProductTampered { path: PathBuf },
    /// The PROVENANCE itself cannot be read.
    UnreadableProvenance { path: PathBuf, detail: String },
    /// The PROVENANCE names another key than the folder it sits in.
    KeyMismatch { path: PathBuf, recorded: String, folder: String },
    /// A carried package's version or series differs from the build's.
    Carried { change: String },
}

impl fmt::Display for StaleReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StaleReason::Pin { installed, described } => {
                write!(f, "stale pin: installed from {installed}, described as {described}")
            }
            StaleReason::Toolchain { installed, described } => {
                write!(f, "toolchain changed: built by {installed}, the toolchain now is {described}")
            }
            StaleReason::PatchChanged { patch, installed, now } => write!(
                f,
                "patch `{patch}` was tampered with since the build (sha256 {} in PROVENANCE, {} on disk)",
                short(installed),
                short(now)
            ),
            StaleReason::PatchAdded { patch } => {
                write!(f, "patch `{patch}` was added to the series after the build")
            }
            StaleReason::PatchRemoved { patch } => {
                write!(f, "patch `{patch}` was removed from the series after the build")
            }
            StaleReason::SeriesOrder => write!(f, "the series was reordered after the build"),
            StaleReason::SeriesFile => write!(f, "the series file changed after the build"),
            StaleReason::Unpatched { count } => {
                write!(f, "unpatched: it was built without any of the {count} patches of its series")
            }
            StaleReason::Source { path, change } => write!(f, "source `{path}` {change} since the build"),
            StaleReason::BuildCommand => write!(f, "the build command changed since the build"),
            StaleReason::ProductTampered { path } => {
                write!(f, "installed file {} does not match its sha256 in PROVENANCE", path.display())
            }
            StaleReason::UnreadableProvenance { path, detail } => {
                write!(f, "{} cannot be read ({detail})", path.display())
            }
            StaleReason::KeyMismatch { path, recorded, folder } => write!(
                f,
                "{} records key `{recorded}` but sits in the folder of key `{folder}` (a key is its folder's \
                 name: the record was edited, or copied from another build)",
                path.display()
            ),
            StaleReason::Carried { change } => write!(f, "carried package: {change}"),
        }
    }
}

fn short(sha: &str) -> &str {
    &sha[..sha.len().min(12)]
}

fn join(reasons: &[StaleReason]) -> String {
    reasons.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
}
