//! File hashes as PROVENANCE and the build key record them: sha256 in lowercase hexadecimal, and
//! paths relative to a base folder with `/` separators on every platform.

use std::path::Path;

use sha2::{Digest, Sha256};

/// A file and the sha256 of its bytes; the path is relative, with `/` separators.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct FileHash {
    pub path: String,
    pub sha256: String,
}

/// The sha256 of `bytes`, in lowercase hexadecimal.
pub fn sha256_hex(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

/// The sha256 of a file's bytes.
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    Ok(sha256_hex(&std::fs::read(path)?))
}

/// `path` relative to `base`, with `/` separators: the form PROVENANCE and cargo's checksum
/// files use on every platform.
pub fn slash_path(base: &Path, path: &Path) -> String {
    let relative = path.strip_prefix(base).unwrap_or(path);
    relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}
