//! What a bump asks for: `BACKEND WHAT=VALUE…`, read against the backend's description, so that
//! each change knows which pin it moves, where that pin is written and what it was.

use std::path::Path;

use crate::backend::description::{Backend, Upstream, read_backend};
use crate::refusal::Refused;
use crate::toolchain::Toolchain;

/// Which pin one change moves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The toolchain of `rust-toolchain.toml` (every backend is keyed by it).
    Toolchain,
    /// The revision of a git upstream (`pin` in backends.toml).
    GitRev,
    /// The version of the backend's registry-package upstream.
    UpstreamPackage { package: String },
    /// The version of a registry package an in-tree backend carries (`carry`).
    CarriedPackage { package: String },
}

/// One pin to move: from `old` to `new`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub target: Target,
    pub old: String,
    pub new: String,
}

impl Change {
    /// How the change is written on the command line (`toolchain=1.99.0`).
    pub fn what(&self) -> String {
        format!("{}={}", self.key(), self.new)
    }

    /// The word before `=`.
    pub fn key(&self) -> &str {
        match &self.target {
            Target::Toolchain => "toolchain",
            Target::GitRev => "rev",
            Target::UpstreamPackage { package } | Target::CarriedPackage { package } => package,
        }
    }

    /// The old pin as the tag names it: the value, prefixed by the package for a carried one.
    pub fn old_id(&self) -> String {
        match &self.target {
            Target::CarriedPackage { package } => format!("{package}-{}", self.old),
            _ => self.old.clone(),
        }
    }

    /// The new pin, named the same way.
    pub fn new_id(&self) -> String {
        match &self.target {
            Target::CarriedPackage { package } => format!("{package}-{}", self.new),
            _ => self.new.clone(),
        }
    }
}

/// A whole bump: one backend, one or more changes.
#[derive(Debug, Clone)]
pub struct Request {
    pub backend: Backend,
    pub changes: Vec<Change>,
}

impl Request {
    /// `bump-pin default toolchain=1.99.0`, as people type it.
    pub fn describe(&self) -> String {
        let whats: Vec<String> = self.changes.iter().map(Change::what).collect();
        format!("bump-pin {} {}", self.backend.name, whats.join(" "))
    }

    /// The new toolchain, if the bump moves it.
    pub fn new_toolchain(&self) -> Option<&str> {
        self.changes.iter().find(|c| c.target == Target::Toolchain).map(|c| c.new.as_str())
    }

    /// The git tag that marks the last commit at the old pin: `pin/<backend>-<old pin id>`.
    pub fn tag(&self) -> String {
        let ids: Vec<String> = self.changes.iter().map(Change::old_id).collect();
        format!("pin/{}-{}", self.backend.name, ids.join("-"))
    }

    /// The folder name of this bump's builds: `<backend>-<old>-to-<new>`.
    pub fn label(&self) -> String {
        let old: Vec<String> = self.changes.iter().map(Change::old_id).collect();
        let new: Vec<String> = self.changes.iter().map(Change::new_id).collect();
        format!("{}-{}-to-{}", self.backend.name, old.join("-"), new.join("-"))
    }
}

/// Reads `WHAT=VALUE` arguments for backend `name` of the project at `root`. Refuses (exit 70)
/// a malformed argument, a pin the backend does not have, a value that is not a pin, and a
/// change to the value already pinned.
pub fn read(root: &Path, name: &str, arguments: &[String]) -> anyhow::Result<Request> {
    let backend = read_backend(root, name)?;
    let mut changes: Vec<Change> = Vec::new();
    for argument in arguments {
        let change = parse_one(root, &backend, argument)?;
        if changes.iter().any(|c| c.target == change.target) {
            return Err(refused(format!("`{argument}` moves a pin that an earlier argument already moves")));
        }
        changes.push(change);
    }
    if changes.is_empty() {
        return Err(refused(format!(
            "nothing to bump: name the pin and its new value, e.g. `just bump-pin {name} toolchain=1.99.0` ({})",
            pins_of(&backend).join(", ")
        )));
    }
    Ok(Request { backend, changes })
}

fn parse_one(root: &Path, backend: &Backend, argument: &str) -> anyhow::Result<Change> {
    let Some((key, new)) = argument.split_once('=').filter(|(k, v)| !k.is_empty() && !v.is_empty()) else {
        return Err(refused(format!(
            "`{argument}` is not WHAT=VALUE; backend `{}` has these pins: {}",
            backend.name,
            pins_of(backend).join(", ")
        )));
    };
    let (target, old) = match (key, &backend.upstream) {
        ("toolchain", _) => (Target::Toolchain, Toolchain::read(root)?.channel),
        ("rev", Upstream::Git { pin, .. }) => (Target::GitRev, pin.clone()),
        (_, Upstream::Package { package, version, .. }) if package == key => {
            (Target::UpstreamPackage { package: package.clone() }, version.clone())
        }
        _ => match backend.carried.iter().find(|c| c.package == key) {
            Some(carried) => (Target::CarriedPackage { package: key.to_owned() }, carried.version.clone()),
            None => {
                return Err(refused(format!(
                    "backend `{}` has no pin `{key}`; its pins: {}",
                    backend.name,
                    pins_of(backend).join(", ")
                )));
            }
        },
    };
    let well_formed = match target {
        Target::Toolchain => valid_toolchain(new),
        Target::GitRev => (7..=40).contains(&new.len()) && new.chars().all(|c| c.is_ascii_hexdigit()),
        _ => valid_version(new),
    };
    if !well_formed {
        let expected = match target {
            Target::Toolchain => "a toolchain release such as 1.99.0",
            Target::GitRev => "a commit id: 7 to 40 hexadecimal digits",
            _ => "one exact version, MAJOR.MINOR.PATCH",
        };
        return Err(refused(format!("`{argument}`: `{new}` is not {expected}")));
    }
    let new = if target == Target::GitRev { new.to_lowercase() } else { new.to_owned() };
    if new == old {
        return Err(refused(format!("`{argument}`: backend `{}` is already pinned at {old}", backend.name)));
    }
    Ok(Change { target, old, new })
}

/// The pins of `backend`, as `WHAT=CURRENT` for messages.
fn pins_of(backend: &Backend) -> Vec<String> {
    let mut pins = vec!["toolchain=<release>".to_owned()];
    match &backend.upstream {
        Upstream::Git { pin, .. } => pins.push(format!("rev=<sha> (now {pin})")),
        Upstream::Package { package, version, .. } => {
            pins.push(format!("{package}=<version> (now {version})"))
        }
        // A snapshot moves by vendoring another commit (`cargo xtask vendor-snapshot`).
        Upstream::InTree { .. } | Upstream::Snapshot(_) => {}
    }
    pins.extend(backend.carried.iter().map(|c| format!("{}=<version> (now {})", c.package, c.version)));
    pins
}

/// A release channel rustup can install by number: `1.99.0` (a bare `1.99` too).
fn valid_toolchain(value: &str) -> bool {
    let parts: Vec<&str> = value.split('.').collect();
    (2..=3).contains(&parts.len())
        && parts.iter().all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
}

fn valid_version(version: &str) -> bool {
    let core = version.split(['-', '+']).next().unwrap_or_default();
    let numbers: Vec<&str> = core.split('.').collect();
    numbers.len() == 3 && numbers.iter().all(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

fn refused(message: String) -> anyhow::Error {
    Refused(message).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(backends: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("backends.toml"), backends).unwrap();
        std::fs::write(dir.path().join("rust-toolchain.toml"), "[toolchain]\nchannel = \"1.99.1\"\n")
            .unwrap();
        dir
    }

    const BACKENDS: &str = r#"
[backend.default]
summary = "in-tree"
patches = "p/default"
upstream = { in-tree = ["src"] }
build = { command = ["cargo", "build"], produces = ["target/tool"] }
carry = [{ package = "pliron", version = "0.20.0", vendor = "vendor/pliron", patches = "p/pliron" }]

[backend.up]
summary = "git"
patches = "p/up"
upstream = { git = "https://example.org/up.git", pin = "9df9e7ce", vendor = "vendor/up" }
build = { command = ["cargo", "build"], produces = ["target/up"] }
"#;

    #[test]
    fn each_change_knows_its_pin_and_the_tag_names_the_old_one() {
        let dir = project(BACKENDS);
        let args = ["toolchain=1.99.0".to_owned(), "pliron=0.20.1".to_owned()];
        let request = read(dir.path(), "default", &args).unwrap();
        assert_eq!(
            request.changes[0],
            Change { target: Target::Toolchain, old: "1.99.1".into(), new: "1.99.0".into() }
        );
        assert_eq!(request.changes[1].target, Target::CarriedPackage { package: "pliron".into() });
        assert_eq!(request.tag(), "pin/default-1.99.1-pliron-0.20.0");
        assert_eq!(request.label(), "default-1.99.1-pliron-0.20.0-to-1.99.0-pliron-0.20.1");
        assert_eq!(request.new_toolchain(), Some("1.99.0"));
        let git = read(dir.path(), "up", &["rev=ABCDEF12".to_owned()]).unwrap();
        assert_eq!(git.changes[0].new, "abcdef12");
        assert_eq!(git.tag(), "pin/up-9df9e7ce");
    }

    #[test]
    fn bad_requests_are_refused_naming_the_pins_there_are() {
        let dir = project(BACKENDS);
        let cases: [(&str, &[&str], &str); 7] = [
            (
                "default",
                &["rev=abcdef12"],
                "has no pin `rev`; its pins: toolchain=<release>, pliron=<version> (now 0.20.0)",
            ),
            ("default", &["toolchain"], "is not WHAT=VALUE"),
            ("default", &["toolchain=nightly"], "is not a toolchain release"),
            ("default", &["toolchain=1.99.1"], "already pinned at 1.99.1"),
            ("default", &["pliron=0.21"], "one exact version"),
            ("up", &["rev=main"], "7 to 40 hexadecimal digits"),
            ("up", &[], "nothing to bump"),
        ];
        for (backend, args, expected) in cases {
            let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
            let error = read(dir.path(), backend, &args).unwrap_err();
            assert!(error.to_string().contains(expected), "{args:?}: {error}");
            assert_eq!(crate::refusal::exit_status(&error), crate::refusal::REFUSED);
        }
    }
}
