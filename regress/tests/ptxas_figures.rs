//! Every kernel assembles, and its `ptxas -v` figures are the pinned ones: the PTX of the last
//! kernels build (`$KERNELS_PTX` for another build) goes through the pinned `ptxas` that
//! `cargo xtask setup` installs (no GPU needed) for sm_90a, and each function's registers,
//! barriers, spills and stack frame are compared with `regress/ptxas-sm90.tsv`.

use std::process::Command;

use regress::layout::Layout;
use regress::ptxas::{moved, parse};

#[test]
fn every_kernel_assembles_for_sm_90a_with_its_pinned_registers_and_spills() {
    let layout = Layout::from_build();
    let ptxas = layout.ptxas();
    assert!(
        ptxas.is_file(),
        "{} is missing: run `cargo xtask setup`, which installs ptxas from the pinned Python package",
        ptxas.display()
    );
    let ptx = layout.checked_ptx();
    assert!(ptx.is_file(), "{} is missing: run `just kernels` first (`just test` does)", ptx.display());
    let out = layout.root().join("target/ptxas");
    std::fs::create_dir_all(&out).unwrap();
    let output = Command::new(&ptxas)
        .args(["-arch=sm_90a", "-v", "-o"])
        .arg(out.join("kernels.cubin"))
        .arg(&ptx)
        .output()
        .unwrap();
    let report =
        format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    let saved = out.join("ptxas-sm90a.txt");
    std::fs::write(&saved, &report).unwrap();
    assert!(output.status.success(), "ptxas refused {} ({}):\n{report}", ptx.display(), output.status);

    let functions = parse(&report).unwrap();
    let pinned = std::fs::read_to_string(layout.ptxas_table()).unwrap();
    let lines = moved(&pinned, &functions);
    assert!(
        lines.is_empty(),
        "the ptxas figures of {} functions moved from {}:\n  {}\nif intended, re-pin with `cargo xtask ptxas-tsv --from {}`",
        lines.len(),
        layout.ptxas_table().display(),
        lines.join("\n  "),
        saved.display()
    );
}
