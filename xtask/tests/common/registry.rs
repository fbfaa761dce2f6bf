//! Packages published into a test's own registry: a cargo directory source, which a project's
//! `.cargo/config.toml` puts in place of the public registry, the way a team configures a
//! mirror. Nothing here reaches the network.

use std::path::Path;

/// Writes `text` to `path`, creating its folder.
pub fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A package's manifest: `name` at `version`, edition 2021, then `rest` (a `[dependencies]`
/// table, say) as given.
pub fn manifest(name: &str, version: &str, rest: &str) -> String {
    format!("[package]\nname = \"{name}\"\nversion = \"{version}\"\nedition = \"2021\"\n{rest}")
}

/// Makes `project`'s cargo take packages from the directory registry `registry` in place of
/// crates.io (its `.cargo/config.toml`).
pub fn use_registry(project: &Path, registry: &Path) {
    write(
        &project.join(".cargo/config.toml"),
        &format!(
            "[source.crates-io]\nreplace-with = \"test-registry\"\n\n[source.test-registry]\ndirectory = {:?}\n",
            registry.to_string_lossy()
        ),
    );
}

/// Publishes package `name` at `version` into the directory registry `registry`: a manifest,
/// the given files (path in the package, text) and the `.cargo-checksum.json` a directory
/// source must have.
pub fn publish(registry: &Path, name: &str, version: &str, files: &[(String, String)]) {
    let package = registry.join(format!("{name}-{version}"));
    let manifest = manifest(name, version, "");
    let sha256 = |bytes: &[u8]| format!("{:x}", <sha2::Sha256 as sha2::Digest>::digest(bytes));
    let mut listing = serde_json::Map::new();
    for (path, text) in std::iter::once(("Cargo.toml", manifest.as_str()))
        .chain(files.iter().map(|(path, text)| (path.as_str(), text.as_str())))
    {
        write(&package.join(path), text);
        listing.insert(path.to_owned(), sha256(text.as_bytes()).into());
    }
    let checksums =
        serde_json::json!({ "files": listing, "package": sha256(format!("{name} {version}").as_bytes()) });
    write(&package.join(".cargo-checksum.json"), &checksums.to_string());
}
