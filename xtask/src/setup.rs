//! Preparing a machine: the pinned toolchain's components and the tools the recipes use.

use std::path::Path;
use std::process::Command;

use anyhow::Result;

use crate::process;
use crate::toolchain::Toolchain;

/// A cargo-installed tool at a pinned version.
pub struct Tool {
    /// The crate to `cargo install`.
    pub krate: &'static str,
    pub version: &'static str,
    /// The command that prints the installed version (`just --version`).
    pub version_command: &'static [&'static str],
}

/// The tools the justfile and the review loop need.
pub const TOOLS: &[Tool] = &[
    Tool { krate: "just", version: "1.59.0", version_command: &["just", "--version"] },
    Tool { krate: "cargo-insta", version: "1.49.0", version_command: &["cargo", "insta", "--version"] },
];

/// Adds any missing component of the pinned toolchain (rustup does nothing for present ones).
pub fn ensure_components(root: &Path) -> Result<()> {
    let toolchain = Toolchain::read(root)?;
    let mut command = Command::new("rustup");
    command.current_dir(root).args(["component", "add", "--toolchain", &toolchain.channel]);
    command.args(&toolchain.components);
    process::run(&mut command, "installing the toolchain's components")
}

/// Installs the toolchain of every backend that names its own (rustup does nothing for a
/// toolchain and components already present).
pub fn ensure_backend_toolchains(root: &Path) -> Result<()> {
    for backend in crate::backend::description::read_all(root)?.values() {
        let Some(toolchain) = &backend.toolchain else { continue };
        let mut command = Command::new("rustup");
        command.args([
            "toolchain",
            "install",
            &toolchain.channel,
            "--profile",
            "minimal",
            "--no-self-update",
        ]);
        for component in &toolchain.components {
            command.args(["--component", component]);
        }
        let what = format!("installing toolchain {} for backend `{}`", toolchain.channel, backend.name);
        process::run(&mut command, &what)?;
    }
    Ok(())
}

/// Installs the pinned CUDA tool packages (ptxas, libdevice) into the project's `target/tools`
/// (pip, `--target`, so nothing outside the project changes), unless they are there already.
pub fn ensure_cuda_tools(layout: &regress::layout::Layout) -> Result<()> {
    let packages = regress::layout::CUDA_TOOL_PACKAGES;
    let dir = layout.cuda_tools_dir();
    let needed = [layout.ptxas(), layout.cuda_home().join("nvvm/libdevice/libdevice.10.bc")];
    if needed.iter().all(|path| path.is_file()) {
        eprintln!("the CUDA tools are installed: {}", layout.cuda_home().display());
        return Ok(());
    }
    let parent = dir.parent().unwrap_or(layout.root());
    std::fs::create_dir_all(parent)?;
    // Into a scratch folder renamed into place, so an interrupted install is never taken for one.
    let scratch = tempfile::Builder::new().prefix(".cuda-tools-").tempdir_in(parent)?;
    let mut command = Command::new("python3");
    command.args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", "--target"]);
    command.arg(scratch.path());
    command.args(packages.iter().map(|(name, version)| format!("{name}=={version}")));
    let listed: Vec<String> = packages.iter().map(|(name, version)| format!("{name} {version}")).collect();
    process::run(&mut command, &format!("installing {} with pip", listed.join(", ")))?;
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::rename(scratch.keep(), &dir)?;
    if let Some(missing) = needed.iter().find(|path| !path.is_file()) {
        anyhow::bail!("{} installed, but {} is not there", listed.join(", "), missing.display());
    }
    eprintln!("installed {}: {}", listed.join(", "), layout.cuda_home().display());
    Ok(())
}

/// Installs each tool whose pinned version is not the one on the PATH.
pub fn ensure_tools(root: &Path) -> Result<()> {
    for tool in TOOLS {
        if installed_version_matches(tool) {
            eprintln!("{} {} is installed", tool.krate, tool.version);
            continue;
        }
        eprintln!(
            "installing {} {} (compiles from source; a few minutes on 2 cores)",
            tool.krate, tool.version
        );
        let mut command = process::cargo(root);
        command.args(["install", "--locked", &format!("{}@{}", tool.krate, tool.version)]);
        process::run(&mut command, &format!("installing {}", tool.krate))?;
    }
    Ok(())
}

fn installed_version_matches(tool: &Tool) -> bool {
    let (program, args) = tool.version_command.split_first().expect("a version command has a program");
    let output = Command::new(program).args(args).output();
    output
        .is_ok_and(|o| o.status.success() && version_line_matches(&String::from_utf8_lossy(&o.stdout), tool))
}

/// Whether `just 1.59.0` / `cargo-insta 1.49.0` is what the version command printed.
fn version_line_matches(printed: &str, tool: &Tool) -> bool {
    printed.split_whitespace().any(|word| word == tool.version)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_lines_match_exactly() {
        let just = &TOOLS[0];
        assert!(version_line_matches("just 1.59.0\n", just));
        assert!(!version_line_matches("just 1.59.01\n", just));
        assert!(!version_line_matches("just 1.5.0\n", just));
    }
}
