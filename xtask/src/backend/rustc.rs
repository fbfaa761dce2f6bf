//! The toolchain a backend is built with, as `rustc -vV` reports it: its release, commit, host
//! and the LLVM version of its code generator.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::process::read;

/// The rustc of the toolchain in use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rustc {
    /// The program to run (beside `$CARGO` when xtask runs under cargo).
    pub program: PathBuf,
    /// `rustc 1.99.1 (58cf8f9c3 2026-10-13)`
    pub version: String,
    pub commit_hash: String,
    pub host: String,
    /// `23.1.1`
    pub llvm_version: String,
}

impl Rustc {
    /// The rustc of the toolchain that runs this xtask: the one beside `$CARGO` (the pinned
    /// toolchain's, whatever folder the command runs in), else `rustc` from the project root,
    /// where `rust-toolchain.toml` selects the toolchain.
    pub fn of_toolchain(project: &Path) -> Result<Rustc> {
        let beside_cargo =
            std::env::var_os("CARGO").map(|cargo| PathBuf::from(cargo).with_file_name("rustc"));
        let program = beside_cargo.filter(|p| p.is_file()).unwrap_or_else(|| PathBuf::from("rustc"));
        let text = read(Command::new(&program).arg("-vV").current_dir(project))
            .with_context(|| format!("running `{} -vV`", program.display()))?;
        Rustc::parse(&text, program).with_context(|| format!("reading the output of `rustc -vV`:\n{text}"))
    }

    /// The rustc a backend is built with: that of its own rustup toolchain `channel`, else the
    /// project's ([`Rustc::of_toolchain`]).
    pub fn for_backend(project: &Path, channel: Option<&str>) -> Result<Rustc> {
        let Some(channel) = channel else { return Rustc::of_toolchain(project) };
        let which = read(Command::new("rustup").args(["which", "rustc", "--toolchain", channel]))
            .with_context(|| format!("finding the rustc of toolchain {channel}; run `cargo xtask setup`"))?;
        let program = PathBuf::from(which);
        let text = read(Command::new(&program).arg("-vV"))
            .with_context(|| format!("running `{} -vV`", program.display()))?;
        Rustc::parse(&text, program).with_context(|| format!("reading the output of `rustc -vV`:\n{text}"))
    }

    /// Reads the text of `rustc -vV`.
    pub fn parse(text: &str, program: PathBuf) -> Result<Rustc> {
        let field = |key: &str| {
            text.lines()
                .find_map(|line| line.strip_prefix(key).map(|v| v.trim().to_owned()))
                .with_context(|| format!("no `{key}` line"))
        };
        let version = text.lines().next().unwrap_or_default().trim().to_owned();
        if !version.starts_with("rustc ") {
            bail!("the first line does not start with `rustc `");
        }
        Ok(Rustc {
            program,
            version,
            commit_hash: field("commit-hash:")?,
            host: field("host:")?,
            llvm_version: field("LLVM version:")?,
        })
    }

    /// The major version of LLVM (`23` for `23.1.1`).
    pub fn llvm_major(&self) -> Option<u32> {
        self.llvm_version.split('.').next()?.parse().ok()
    }

    /// How the toolchain is named in PROVENANCE and in the build key.
    pub fn identity(&self) -> String {
        format!("{} [{}] on {}, LLVM {}", self.version, self.commit_hash, self.host, self.llvm_version)
    }

    /// The toolchain's library folder, which a `rustc_driver` binary needs at run time.
    pub fn lib_dir(&self) -> Result<PathBuf> {
        let sysroot = read(Command::new(&self.program).args(["--print", "sysroot"]))
            .with_context(|| format!("running `{} --print sysroot`", self.program.display()))?;
        Ok(PathBuf::from(sysroot).join("lib"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VV: &str = "rustc 1.99.1 (58cf8f9c3 2026-10-13)\nbinary: rustc\ncommit-hash: \
                      58cf8f9c35b355199727627d07ae34a4e2846d67\ncommit-date: 2026-10-13\nhost: \
                      x86_64-unknown-linux-gnu\nrelease: 1.99.1\nLLVM version: 23.1.1\n";

    #[test]
    fn reads_version_commit_host_and_llvm() {
        let rustc = Rustc::parse(VV, "rustc".into()).unwrap();
        assert_eq!(rustc.version, "rustc 1.99.1 (58cf8f9c3 2026-10-13)");
        assert_eq!(rustc.llvm_major(), Some(23));
        assert!(rustc.identity().contains("58cf8f9c35b355199727627d07ae34a4e2846d67"));
        assert!(Rustc::parse("rustc 1.99.1\nhost: x\n", "rustc".into()).is_err());
    }
}
