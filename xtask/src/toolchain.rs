//! The pinned toolchain, as `rust-toolchain.toml` declares it.

use std::path::Path;

use anyhow::{Context, Result};
use file_format::ToolchainFile;

/// The channel and components of the pinned toolchain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toolchain {
    pub channel: String,
    pub components: Vec<String>,
}

impl Toolchain {
    /// Reads `rust-toolchain.toml` at the repository root.
    pub fn read(root: &Path) -> Result<Toolchain> {
        let path = root.join("rust-toolchain.toml");
        let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        Toolchain::parse(&text).with_context(|| format!("{} is not a valid toolchain file", path.display()))
    }

    /// Parses the text of a `rust-toolchain.toml`.
    pub fn parse(text: &str) -> Result<Toolchain> {
        let file: ToolchainFile = toml::from_str(text)?;
        Ok(Toolchain { channel: file.toolchain.channel, components: file.toolchain.components })
    }
}

/// The shape of the file, for `toml`'s deserialiser.
mod file_format {
    #[derive(serde::Deserialize)]
    pub struct ToolchainFile {
        pub toolchain: ToolchainTable,
    }

    #[derive(serde::Deserialize)]
    pub struct ToolchainTable {
        pub channel: String,
        #[serde(default)]
        pub components: Vec<String>,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_repositorys_own_toolchain_file() {
        let toolchain = Toolchain::read(regress::layout::Layout::from_build().root()).unwrap();
        assert_eq!(toolchain.channel, "1.99.1");
        for needed in ["rustc-dev", "rust-src", "llvm-tools", "llvm-bitcode-linker"] {
            assert!(
                toolchain.components.iter().any(|c| c == needed),
                "{needed} missing from rust-toolchain.toml"
            );
        }
    }

    #[test]
    fn a_file_without_a_channel_is_an_error() {
        assert!(Toolchain::parse("[toolchain]\ncomponents = []\n").is_err());
    }
}
