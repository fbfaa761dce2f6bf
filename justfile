# The commands people type. Each recipe is one line; the logic lives in xtask/.

# List the recipes.
default:
    @just --list --unsorted

# Install the toolchain's components, just and cargo-insta, and build everything.
setup:
    cargo xtask setup

# Build the GPU kernels into kernels/target/nvptx64-nvidia-cuda/release/kernels.ptx.
kernels:
    cargo xtask kernels

# Build the cuda-oxide kernels (kernels/oxide) into kernels/oxide/target/ptx/kernels_oxide.ptx.
kernels-oxide:
    cargo xtask kernels-oxide

# Run every check: rustfmt, the kernels build, all tests (one per kernel entry's PTX snapshot), clippy.
test:
    cargo xtask test

# Review PTX snapshot changes after a codegen change: accept or reject each entry.
review:
    cargo insta review

# Format the host workspace and the kernels workspace.
fmt:
    cargo xtask fmt

# Build a backend (pin, patch series, build) into the backends root and write its PROVENANCE.
build-backend NAME="default":
    cargo xtask build-backend {{NAME}}

# Exit 0 if the installed backend matches its pin, series and toolchain; 70 with the reason if not.
check-backend NAME="default":
    cargo xtask check-backend {{NAME}}

# Remove installed backends that backends.toml and the newest N builds do not need: `--keep N` (default 3), `--dry-run`.
[positional-arguments]
prune-backends *ARGS:
    cargo xtask prune-backends "$@"

# Move a backend's pin (`toolchain=1.99.0`, `pliron=0.20.1`, `rev=SHA`): tag the old pin, build both, canon-check, snapshots, shapes, checklist.
bump-pin BACKEND +CHANGES:
    cargo xtask bump-pin {{BACKEND}} {{CHANGES}}

# PTX shapes of every kernel against regress/ptx-shapes.tsv (`--backend cuda-oxide`: regress/ptx-shapes-cuda-oxide.tsv); `--update --reason "…"` re-pins moved rows.
[positional-arguments]
shapes *ARGS:
    cargo xtask shapes "$@"

# Compare the PTX of two builds (files or folders): a table of entries per kind of difference; --json for tools.
[positional-arguments]
canon-check *ARGS:
    cargo xtask canon-check "$@"

# Write one self-contained HTML page (target/report/index.html): canon-check, verifier timing and GPU charts, default vs cuda-oxide, shapes and pins.
[positional-arguments]
report *ARGS:
    cargo xtask report "$@"

# Time the verifier on generated scopes up to 102,400 blocks, and kernel builds from 100 to 1,600 blocks (`--phases BLOCKS`: where its time goes, phase by phase).
timing *ARGS:
    cargo xtask timing {{ARGS}}

# Criterion benchmark of the verifier with the patched pliron the backend ships (report: target/criterion/report/index.html).
bench *ARGS:
    cargo xtask bench -- {{ARGS}}

# Verify textual kernel IR with the plugin's verifier: exit 0 if all verify, 1 on a rejection, 2 if unparsable.
verify-ir +FILES:
    cargo xtask verify-ir {{FILES}}

# Run every kernel on the GPU (needs an NVIDIA GPU): correctness, time, roofline, PyTorch peer.
gpu *ARGS:
    cargo xtask gpu {{ARGS}}

# Build the verifier corpus in report mode, judge its verdicts, run every corpus kernel on the GPU (`--bundle DIR` for a GPU machine without Rust).
verifier-truth *ARGS:
    cargo xtask verifier-truth {{ARGS}}
