//! `cargo xtask prune-backends`: installed backends pile up, one folder per key (every edit of
//! the driver, every pin or toolchain is a new key). Pruning keeps, per backend folder of the
//! backends root, the installs the project's current `backends.toml` needs (their keys, computed
//! as `check-backend` does) and the newest `keep` others (by PROVENANCE's `built_at`, so that
//! switching back to a recent configuration stays free), and removes the rest: older installs,
//! installs a build never completed, and the temporary folders of killed builds.
//!
//! A key whose lock (`KEY.lock`, see [`super::lock`]) a running build holds is never touched.
//! Pruning holds the same lock while it removes a key's folders, so no build of that key can
//! start meanwhile; the folder is first renamed to `KEY.pruning-*` (a name the guard ignores),
//! so a reader never sees half an install. Lock files stay: removing one a build is about to
//! open would let two builds of one key run at once.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use regress::layout::Layout;

use super::description::{DESCRIPTION_FILE, parse};
use super::error::BackendError;
use super::inputs::BuildInputs;
use super::provenance::{PROVENANCE_FILE, Provenance};
use super::rustc::Rustc;
use super::store::backends_root;

/// How many installs beyond those the description needs are kept per backend by default: the
/// last few configurations (a pin and the one before it, a toolchain bump and back) stay a
/// no-op to return to.
pub const DEFAULT_KEEP: usize = 3;

/// Why a folder was kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeptBecause {
    /// The current description's key for this backend.
    Needed,
    /// Among the newest `keep` installs of its backend.
    Recent,
    /// A running build holds its key's lock.
    Held,
}

/// What pruning did (or, in a dry run, would do) to one folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub path: PathBuf,
    /// The folder's size in bytes (files only, links not followed).
    pub bytes: u64,
    /// What it is: `built 2026-…`, `incomplete (no PROVENANCE)`, `temporary folder`.
    pub what: String,
}

/// The outcome of a prune.
#[derive(Debug, Default)]
pub struct Pruned {
    pub removed: Vec<Entry>,
    pub kept: Vec<(Entry, KeptBecause)>,
}

impl Pruned {
    pub fn freed_bytes(&self) -> u64 {
        self.removed.iter().map(|e| e.bytes).sum()
    }

    /// One line per folder, then the total.
    pub fn report(&self, dry_run: bool) -> String {
        let mut out = String::new();
        for (entry, why) in &self.kept {
            let why = match why {
                KeptBecause::Needed => "needed by the current backends.toml",
                KeptBecause::Recent => "one of the newest installs",
                KeptBecause::Held => "its key is locked by a running build",
            };
            out.push_str(&format!(
                "kept    {} ({}, {}): {why}\n",
                entry.path.display(),
                entry.what,
                size(entry.bytes)
            ));
        }
        let verb = if dry_run { "would remove" } else { "removed" };
        for entry in &self.removed {
            out.push_str(&format!(
                "{verb} {} ({}, {})\n",
                entry.path.display(),
                entry.what,
                size(entry.bytes)
            ));
        }
        let held = self.kept.iter().filter(|(_, why)| *why == KeptBecause::Held).count();
        out.push_str(&format!(
            "{} {} ({} bytes) in {} folder(s); kept {} folder(s), {held} of them held by a running build\n",
            if dry_run { "would free" } else { "freed" },
            size(self.freed_bytes()),
            self.freed_bytes(),
            self.removed.len(),
            self.kept.len(),
        ));
        out
    }
}

/// `cargo xtask prune-backends`: prunes the backends root of the project at `layout`.
pub fn prune_backends(layout: &Layout, keep: usize, dry_run: bool) -> Result<Pruned> {
    let root = backends_root(layout)?;
    let needed = needed_keys(layout.root())?;
    prune_root(&root, &needed, keep, dry_run)
}

/// `(backend, key)` of every backend the description at `project` declares, as the guard
/// computes them now. A description that cannot be read refuses the prune: without it, what
/// is needed is unknown.
pub fn needed_keys(project: &Path) -> Result<BTreeSet<(String, String)>> {
    let file = project.join(DESCRIPTION_FILE);
    let text = std::fs::read_to_string(&file).map_err(|error| BackendError::BadDescription {
        file: file.clone(),
        reason: format!("cannot be read ({error}); prune-backends keeps what it declares"),
    })?;
    let project_rustc = Rustc::of_toolchain(project)?;
    let mut needed = BTreeSet::new();
    for (name, backend) in parse(&text, project, &file)? {
        // A backend with a toolchain of its own is keyed by that toolchain's rustc; one not
        // installed here cannot have been built here either, so it keeps nothing.
        let rustc = match &backend.toolchain {
            None => project_rustc.clone(),
            Some(toolchain) => match Rustc::for_backend(project, Some(&toolchain.channel)) {
                Ok(rustc) => rustc,
                Err(_) => continue,
            },
        };
        let inputs = BuildInputs::read(project, backend, rustc)
            .with_context(|| format!("computing the key backend `{name}` needs"))?;
        needed.insert((name, inputs.key()));
    }
    Ok(needed)
}

/// The folders of one key in a backend folder.
#[derive(Default)]
struct KeyFolders {
    /// The install folder, with its PROVENANCE's `built_at` if it has a readable one.
    install: Option<(PathBuf, Option<String>)>,
    /// `KEY.staging-*`, `KEY.work-*`, `KEY.pruning-*`.
    temporaries: Vec<PathBuf>,
}

/// Prunes `root`: in every backend folder, keeps the installs `needed` names and the newest
/// `keep` other complete installs, and removes every other folder of a key whose lock is free.
pub fn prune_root(
    root: &Path,
    needed: &BTreeSet<(String, String)>,
    keep: usize,
    dry_run: bool,
) -> Result<Pruned> {
    let mut pruned = Pruned::default();
    let Ok(backends) = std::fs::read_dir(root) else { return Ok(pruned) };
    let mut backend_dirs: Vec<PathBuf> =
        backends.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    backend_dirs.sort();
    for backend_dir in backend_dirs {
        let backend = backend_dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let keys = key_folders(&backend_dir)?;
        let mut complete: Vec<(&String, &String)> = keys
            .iter()
            .filter(|(key, _)| !needed.contains(&(backend.clone(), (*key).clone())))
            .filter_map(|(key, folders)| folders.install.as_ref()?.1.as_ref().map(|built| (key, built)))
            .collect();
        complete.sort_by(|a, b| b.1.cmp(a.1));
        let recent: BTreeSet<&String> = complete.iter().take(keep).map(|(key, _)| *key).collect();
        for (key, folders) in &keys {
            let why_kept = if needed.contains(&(backend.clone(), key.clone())) {
                Some(KeptBecause::Needed)
            } else if recent.contains(key) {
                Some(KeptBecause::Recent)
            } else {
                None
            };
            prune_key(&backend_dir, key, folders, why_kept, dry_run, &mut pruned)?;
        }
    }
    Ok(pruned)
}

/// The folders of `backend_dir`, by key. Files (lock files) and names that are not a key's are
/// left out.
fn key_folders(backend_dir: &Path) -> Result<BTreeMap<String, KeyFolders>> {
    let mut keys: BTreeMap<String, KeyFolders> = BTreeMap::new();
    let entries =
        std::fs::read_dir(backend_dir).with_context(|| format!("listing {}", backend_dir.display()))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if !path.is_dir() || path.is_symlink() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        match name.split_once('.') {
            None => {
                let built = Provenance::read(&path).ok().map(|p| p.built_at);
                keys.entry(name).or_default().install = Some((path, built));
            }
            Some((key, rest))
                if ["staging-", "work-", "pruning-"].iter().any(|prefix| rest.starts_with(prefix)) =>
            {
                keys.entry(key.to_owned()).or_default().temporaries.push(path);
            }
            Some(_) => {}
        }
    }
    Ok(keys)
}

/// Keeps or removes the folders of one key, under its lock.
fn prune_key(
    backend_dir: &Path,
    key: &str,
    folders: &KeyFolders,
    why_kept: Option<KeptBecause>,
    dry_run: bool,
    pruned: &mut Pruned,
) -> Result<()> {
    let describe = |path: &Path, what: String| -> Result<Entry> {
        Ok(Entry { path: path.to_owned(), bytes: folder_bytes(path)?, what })
    };
    let install = match &folders.install {
        Some((path, Some(built))) => Some(describe(path, format!("built {built}"))?),
        Some((path, None)) if !path.join(PROVENANCE_FILE).is_file() => {
            Some(describe(path, "incomplete: no PROVENANCE".into())?)
        }
        Some((path, None)) => Some(describe(path, "unreadable PROVENANCE".into())?),
        None => None,
    };
    let temporaries = folders
        .temporaries
        .iter()
        .map(|path| describe(path, "temporary folder of a build".into()))
        .collect::<Result<Vec<_>>>()?;
    let KeyLock::Free(_lock) = lock_key(&backend_dir.join(format!("{key}.lock")), !dry_run)? else {
        pruned.kept.extend(install.into_iter().chain(temporaries).map(|entry| (entry, KeptBecause::Held)));
        return Ok(());
    };
    let mut remove = temporaries;
    match (install, why_kept) {
        (Some(entry), Some(why)) => pruned.kept.push((entry, why)),
        (Some(entry), None) => remove.push(entry),
        (None, _) => {}
    }
    for entry in remove {
        if !dry_run {
            remove_folder(backend_dir, key, &entry.path)?;
        }
        pruned.removed.push(entry);
    }
    Ok(())
}

/// A key's lock, as pruning finds it.
enum KeyLock {
    /// A running build holds it.
    Held,
    /// Taken by this process (released on drop); `None` in a dry run where no lock file exists.
    Free(Option<File>),
}

/// Takes the lock at `path` without waiting. A missing lock file is created (no build of the
/// key runs then, and none can start while this holds it), except in a dry run, which writes
/// nothing.
fn lock_key(path: &Path, create: bool) -> Result<KeyLock> {
    let file = match OpenOptions::new().create(create).truncate(false).write(true).open(path) {
        Ok(file) => file,
        Err(error) if !create && error.kind() == std::io::ErrorKind::NotFound => {
            return Ok(KeyLock::Free(None));
        }
        Err(error) => return Err(error).with_context(|| format!("opening the lock file {}", path.display())),
    };
    match file.try_lock() {
        Ok(()) => Ok(KeyLock::Free(Some(file))),
        Err(TryLockError::WouldBlock) => Ok(KeyLock::Held),
        Err(TryLockError::Error(error)) => Err(error).with_context(|| format!("locking {}", path.display())),
    }
}

/// Moves `path` out of the guard's sight (into a `KEY.pruning-*` folder), then removes it; the
/// leftover of an interrupted prune is removed as it is.
fn remove_folder(backend_dir: &Path, key: &str, path: &Path) -> Result<()> {
    let prefix = format!("{key}.pruning-");
    let doomed = if path.file_name().is_some_and(|n| n.to_string_lossy().starts_with(&prefix)) {
        path.to_owned()
    } else {
        let aside = tempfile::Builder::new()
            .prefix(&prefix)
            .tempdir_in(backend_dir)
            .with_context(|| format!("creating a folder in {}", backend_dir.display()))?
            .keep();
        std::fs::rename(path, aside.join("old"))
            .with_context(|| format!("moving {} aside", path.display()))?;
        aside
    };
    std::fs::remove_dir_all(&doomed).with_context(|| format!("removing {}", doomed.display()))
}

/// The bytes of the files under `path`, links not followed.
fn folder_bytes(path: &Path) -> Result<u64> {
    let mut bytes = 0;
    for entry in walkdir::WalkDir::new(path) {
        let entry = entry.with_context(|| format!("listing {}", path.display()))?;
        if entry.file_type().is_file() {
            bytes += entry.metadata().with_context(|| format!("reading {}", entry.path().display()))?.len();
        }
    }
    Ok(bytes)
}

/// Bytes for people: `512 B`, `3.4 KiB`, `118.0 MiB`, `2.1 GiB`.
pub fn size(bytes: u64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < units.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 { format!("{bytes} B") } else { format!("{value:.1} {}", units[unit]) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An install of `backend` at `key`, built at `built` (no PROVENANCE when `None`), with a
    /// product of `bytes` bytes.
    fn install(root: &Path, backend: &str, key: &str, built: Option<&str>, bytes: usize) {
        let dir = root.join(backend).join(key);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("tool"), vec![0u8; bytes]).unwrap();
        if let Some(built) = built {
            let provenance = Provenance {
                backend: backend.into(),
                key: key.into(),
                upstream: "in-tree".into(),
                pin: "1.99.1".into(),
                revision: "0".repeat(40),
                series_sha256: "0".repeat(64),
                toolchain: "rustc 1.99.1".into(),
                llvm_version: "23.1.1".into(),
                build_command: vec!["cargo".into()],
                built_at: built.into(),
                patches: vec![],
                sources: vec![],
                products: vec![],
                carried: vec![],
                snapshots: vec![],
                upstream_tests: vec![],
            };
            provenance.write(&dir).unwrap();
        }
    }

    fn names(root: &Path, backend: &str) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(root.join(backend))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn needed(pairs: &[(&str, &str)]) -> BTreeSet<(String, String)> {
        pairs.iter().map(|(b, k)| ((*b).to_owned(), (*k).to_owned())).collect()
    }

    #[test]
    fn keeps_the_needed_and_the_newest_and_removes_the_rest_with_their_bytes() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path();
        install(root, "default", "aaaa", Some("2026-11-01T10:00:00Z"), 1000);
        install(root, "default", "bbbb", Some("2026-11-02T10:00:00Z"), 2000);
        install(root, "default", "cccc", Some("2026-11-03T10:00:00Z"), 4000);
        install(root, "default", "dddd", None, 8000);
        std::fs::create_dir_all(root.join("default/eeee.work-x1")).unwrap();
        std::fs::write(root.join("default/eeee.work-x1/half"), vec![0u8; 16]).unwrap();
        std::fs::write(root.join("default/aaaa.lock"), "").unwrap();

        // `aaaa` is the oldest but the description needs it; `cccc` is the newest other one.
        let provenance_bytes =
            std::fs::metadata(root.join("default/bbbb").join(PROVENANCE_FILE)).unwrap().len();
        let dry = prune_root(root, &needed(&[("default", "aaaa")]), 1, true).unwrap();
        assert_eq!(dry.freed_bytes(), 2000 + provenance_bytes + 8000 + 16);
        assert_eq!(names(root, "default").len(), 6, "a dry run removes (and writes) nothing");
        let text = dry.report(true);
        assert!(text.contains("would remove") && text.contains("would free"), "{text}");

        let pruned = prune_root(root, &needed(&[("default", "aaaa")]), 1, false).unwrap();
        assert_eq!(pruned.freed_bytes(), dry.freed_bytes());
        assert_eq!(pruned.removed.len(), 3, "{pruned:?}");
        // Lock files stay (see the module's doc); the lock of each pruned key was taken.
        assert_eq!(
            names(root, "default"),
            ["aaaa", "aaaa.lock", "bbbb.lock", "cccc", "cccc.lock", "dddd.lock", "eeee.lock"]
        );
        let report = pruned.report(false);
        assert!(report.contains("needed by the current backends.toml"), "{report}");
        assert!(report.contains("one of the newest installs"), "{report}");
        assert!(report.contains("in 3 folder(s)"), "{report}");
        assert!(report.contains("incomplete: no PROVENANCE"), "{report}");

        // With nothing more to remove, a second run frees nothing.
        let again = prune_root(root, &needed(&[("default", "aaaa")]), 1, false).unwrap();
        assert_eq!((again.removed.len(), again.freed_bytes()), (0, 0));
    }

    #[test]
    fn a_key_locked_by_a_running_build_is_never_removed() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path();
        install(root, "default", "aaaa", Some("2026-11-01T10:00:00Z"), 10);
        install(root, "default", "bbbb", None, 10);
        std::fs::create_dir_all(root.join("default/bbbb.staging-x1")).unwrap();
        // A build of `bbbb` in progress: it holds the lock (as `Lock::acquire` does).
        let build = crate::backend::lock::Lock::acquire(&root.join("default/bbbb.lock"), "bbbb").unwrap();
        let pruned = prune_root(root, &BTreeSet::new(), 0, false).unwrap();
        let held: Vec<&Path> = pruned
            .kept
            .iter()
            .filter(|(_, why)| *why == KeptBecause::Held)
            .map(|(e, _)| e.path.as_path())
            .collect();
        assert_eq!(held, [root.join("default/bbbb"), root.join("default/bbbb.staging-x1")]);
        assert_eq!(pruned.removed.len(), 1, "only the unlocked key's install: {pruned:?}");
        assert!(pruned.report(false).contains("2 of them held by a running build"));
        assert!(root.join("default/bbbb.staging-x1").is_dir() && !root.join("default/aaaa").exists());
        drop(build);
        let pruned = prune_root(root, &BTreeSet::new(), 0, false).unwrap();
        assert_eq!(pruned.removed.len(), 2, "released, its leftovers go: {pruned:?}");
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(size(512), "512 B");
        assert_eq!(size(3 * 1024 + 512), "3.5 KiB");
        assert_eq!(size(118 * 1024 * 1024), "118.0 MiB");
    }
}
