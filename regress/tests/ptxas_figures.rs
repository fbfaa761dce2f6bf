//! Every kernel of both backends assembles, and its `ptxas -v` figures are the pinned ones: the
//! PTX of the last kernels builds (`kernels.ptx`, or `$KERNELS_PTX` for another build, and the
//! cuda-oxide kernels' `kernels_oxide.ptx`) goes through the pinned `ptxas` that
//! `cargo xtask setup` installs (no GPU needed) for sm_90a, and each function's registers,
//! barriers, spills and stack frame are compared with the backend's table in `regress/`.

use std::path::Path;
use std::process::Command;

use regress::layout::Layout;
use regress::ptxas::{moved, parse};

#[test]
fn every_default_kernel_assembles_for_sm_90a_with_its_pinned_registers_and_spills() {
    let layout = Layout::from_build();
    check(&layout, &layout.checked_ptx(), &layout.ptxas_table(), "just kernels");
}

#[test]
fn every_cuda_oxide_kernel_assembles_for_sm_90a_with_its_pinned_registers_and_spills() {
    let layout = Layout::from_build();
    check(&layout, &layout.oxide_ptx(), &layout.oxide_ptxas_table(), "just kernels-oxide");
}

/// Assembles `ptx` with the pinned ptxas and compares its figures with the table at `pinned`;
/// `build` is the command that makes `ptx`.
fn check(layout: &Layout, ptx: &Path, pinned: &Path, build: &str) {
    let ptxas = layout.ptxas();
    assert!(
        ptxas.is_file(),
        "{} is missing: run `cargo xtask setup`, which installs ptxas from the pinned Python package",
        ptxas.display()
    );
    assert!(ptx.is_file(), "{} is missing: run `{build}` first (`just test` does)", ptx.display());
    let out = layout.root().join("target/ptxas");
    std::fs::create_dir_all(&out).unwrap();
    let stem = ptx.file_stem().unwrap().to_string_lossy().into_owned();
    let output = Command::new(&ptxas)
        .args(["-arch=sm_90a", "-v", "-o"])
        .arg(out.join(format!("{stem}.cubin")))
        .arg(ptx)
        .output()
        .unwrap();
    let report =
        format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    let saved = out.join(format!("{stem}-sm90a.txt"));
    std::fs::write(&saved, &report).unwrap();
    assert!(output.status.success(), "ptxas refused {} ({}):\n{report}", ptx.display(), output.status);

    let functions = parse(&report).unwrap();
    let table = std::fs::read_to_string(pinned).unwrap_or_default();
    let lines = moved(&table, &functions);
    assert!(
        lines.is_empty(),
        "the ptxas figures of {} functions moved from {}:\n  {}\nif intended, re-pin with `cargo xtask ptxas-tsv --from {} --into {}`",
        lines.len(),
        pinned.display(),
        lines.join("\n  "),
        saved.display(),
        pinned.display()
    );
}
