//! `cargo xtask shapes --update` never re-pins silently: without `--reason` and without a
//! terminal to ask on, it refuses with exit status 70, naming the table and the fix, before
//! building anything; for the cuda-oxide backend's table too.

use std::process::{Command, Stdio};

#[test]
fn update_without_a_reason_or_a_terminal_is_refused_by_name() {
    let output = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["shapes", "--update"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(70), "{stderr}");
    assert!(stderr.contains("regress/ptx-shapes.tsv"), "names the table: {stderr}");
    assert!(stderr.contains("--reason"), "says the fix: {stderr}");
    assert!(!stderr.contains("building the kernels"), "refuses before building: {stderr}");
}

#[test]
fn update_of_the_cuda_oxide_table_without_a_reason_is_refused_naming_it() {
    let output = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["shapes", "--backend", "cuda-oxide", "--update"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(70), "{stderr}");
    assert!(stderr.contains("regress/ptx-shapes-cuda-oxide.tsv"), "names the table: {stderr}");
    assert!(stderr.contains("just shapes --backend cuda-oxide --update"), "names the command: {stderr}");
    assert!(!stderr.contains("building the kernels"), "refuses before building: {stderr}");
}

#[test]
fn a_reason_needs_update() {
    let output = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["shapes", "--reason", "why"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "clap rejects --reason without --update");
}
