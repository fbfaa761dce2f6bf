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

# Run every check: rustfmt, the kernels build, all tests (one per kernel entry's PTX snapshot), clippy.
test:
    cargo xtask test

# Review PTX snapshot changes after a codegen change: accept or reject each entry.
review:
    cargo insta review

# Format the host workspace and the kernels workspace.
fmt:
    cargo xtask fmt

# Time the verifier on generated scopes up to 102,400 blocks, and kernel builds from 100 to 1,600 blocks.
timing *ARGS:
    cargo xtask timing {{ARGS}}
# Verify textual kernel IR with the plugin's verifier: exit 0 if all verify, 1 on a rejection, 2 if unparsable.
verify-ir +FILES:
    cargo xtask verify-ir {{FILES}}
