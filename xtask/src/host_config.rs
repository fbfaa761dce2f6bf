//! The kernels' target settings, from one table: [`KERNEL_TARGET`] (target, CPU, target
//! features, build-std) is rendered into the kernels workspace's `.cargo/config.toml`, which
//! every kernels build rewrites (atomically) when the table changed. The table says which LLVM
//! major version its flags were chosen for, and a toolchain with another one is refused: a
//! target feature such as the PTX ISA version means something else, or nothing, to another LLVM.

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::atomic::write_file;
use crate::backend::BackendError;
use crate::backend::rustc::Rustc;

/// Settings of the kernels build, each with the reason it is there.
#[derive(Debug, Clone, Copy)]
pub struct KernelTarget {
    pub triple: &'static str,
    pub cpu: &'static str,
    pub cpu_reason: &'static str,
    pub features: &'static [&'static str],
    pub features_reason: &'static str,
    pub build_std: &'static [&'static str],
    pub build_std_reason: &'static str,
    /// The LLVM major version these settings were checked against.
    pub llvm_major: u32,
}

/// The table: the one place the kernels' target settings are written.
pub const KERNEL_TARGET: KernelTarget = KernelTarget {
    triple: "nvptx64-nvidia-cuda",
    cpu: "sm_90a",
    cpu_reason: "sm_90a: Hopper's bulk (tensor) async copies and mbarrier transaction counts, plus the \
                 arch-specific wgmma of gemm_bf16_wgmma; the module runs on H100/H200 only.",
    features: &["+ptx86"],
    features_reason: "`+ptx86` raises the PTX ISA from LLVM's default 7.8 to 8.6, which those instructions \
                      need (rustc warns that the feature is unstable; the CUDA 13 ptxas and driver accept \
                      the result).",
    build_std: &["core"],
    build_std_reason: "No rust-std component exists for nvptx64-nvidia-cuda: build `core` from source.",
    llvm_major: 23,
};

/// Where the generated file lives in a kernels workspace.
pub fn config_path(workspace: &Path) -> PathBuf {
    workspace.join(".cargo").join("config.toml")
}

/// The text of the kernels workspace's `.cargo/config.toml`.
pub fn render(target: &KernelTarget) -> String {
    let quoted = |items: &[&str]| items.iter().map(|i| format!("{i:?}")).collect::<Vec<_>>().join(", ");
    let mut rustflags = vec!["-C".to_owned(), format!("target-cpu={}", target.cpu)];
    if !target.features.is_empty() {
        rustflags.push("-C".to_owned());
        rustflags.push(format!("target-feature={}", target.features.join(",")));
    }
    let rustflags: Vec<&str> = rustflags.iter().map(String::as_str).collect();
    format!(
        "# Build settings for the GPU kernels workspace (read when cargo runs with `kernels/` as its\n\
         # current directory, which is how `cargo xtask kernels` invokes it).\n\
         #\n\
         # GENERATED from the table in xtask/src/host_config.rs (checked against LLVM {llvm}); every\n\
         # kernels build rewrites this file from it, so change the table, not this file.\n\
         \n\
         [build]\n\
         target = {triple:?}\n\
         {cpu_reason}\
         {features_reason}\
         rustflags = [{rustflags}]\n\
         \n\
         [unstable]\n\
         {build_std_reason}\
         build-std = [{build_std}]\n",
        llvm = target.llvm_major,
        triple = target.triple,
        cpu_reason = comment(target.cpu_reason),
        features_reason = comment(target.features_reason),
        rustflags = quoted(&rustflags),
        build_std_reason = comment(target.build_std_reason),
        build_std = quoted(target.build_std),
    )
}

/// `text` as `#` comment lines of at most 100 columns.
fn comment(text: &str) -> String {
    let mut lines = vec![String::from("#")];
    for word in text.split_whitespace() {
        let line = lines.last_mut().expect("there is a line");
        if line.len() + 1 + word.len() > 100 && line.len() > 1 {
            lines.push(format!("# {word}"));
        } else {
            line.push(' ');
            line.push_str(word);
        }
    }
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// Refuses a toolchain whose LLVM is not the one the table was checked against.
pub fn check_llvm(target: &KernelTarget, rustc: &Rustc) -> Result<(), BackendError> {
    if rustc.llvm_major() == Some(target.llvm_major) {
        return Ok(());
    }
    Err(BackendError::LlvmMismatch { expected: target.llvm_major, found: rustc.llvm_version.clone() })
}

/// Checks the toolchain's LLVM against the table, then writes the workspace's configuration
/// if its content differs. Returns whether it wrote.
pub fn prepare(workspace: &Path, target: &KernelTarget, rustc: &Rustc) -> Result<bool> {
    check_llvm(target, rustc)?;
    let path = config_path(workspace);
    let text = render(target);
    if std::fs::read_to_string(&path).is_ok_and(|current| current == text) {
        return Ok(false);
    }
    write_file(&path, &text)?;
    eprintln!("wrote {} from the kernel target table", path.display());
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rustc_with_llvm(version: &str) -> Rustc {
        let text = format!(
            "rustc 1.99.1 (58cf8f9c3 2026-10-13)\ncommit-hash: 58cf8f9c3\nhost: x86_64-unknown-linux-gnu\n\
             LLVM version: {version}\n"
        );
        Rustc::parse(&text, "rustc".into()).unwrap()
    }

    #[test]
    fn the_checked_in_configuration_is_the_rendered_table() {
        let workspace = regress::layout::Layout::from_build().kernels_workspace();
        let checked_in = std::fs::read_to_string(config_path(&workspace)).unwrap();
        assert_eq!(checked_in, render(&KERNEL_TARGET), "run `cargo xtask kernels` to regenerate it");
    }

    #[test]
    fn another_llvm_major_is_refused() {
        assert!(check_llvm(&KERNEL_TARGET, &rustc_with_llvm("23.1.1")).is_ok());
        let error = check_llvm(&KERNEL_TARGET, &rustc_with_llvm("24.0.0")).unwrap_err().to_string();
        assert!(error.contains("LLVM 23") && error.contains("LLVM 24.0.0"), "{error}");
        let dir = tempfile::tempdir().unwrap();
        assert!(prepare(dir.path(), &KERNEL_TARGET, &rustc_with_llvm("22.1.0")).is_err());
        assert!(!config_path(dir.path()).exists(), "nothing is written for a refused toolchain");
    }

    #[test]
    fn writes_once_then_leaves_an_equal_file_alone() {
        let dir = tempfile::tempdir().unwrap();
        let rustc = rustc_with_llvm("23.1.1");
        assert!(prepare(dir.path(), &KERNEL_TARGET, &rustc).unwrap());
        assert!(!prepare(dir.path(), &KERNEL_TARGET, &rustc).unwrap());
        let text = std::fs::read_to_string(config_path(dir.path())).unwrap();
        assert!(
            text.contains("rustflags = [\"-C\", \"target-cpu=sm_90a\", \"-C\", \"target-feature=+ptx86\"]")
        );
        assert!(text.contains("build-std = [\"core\"]"));
    }
}
