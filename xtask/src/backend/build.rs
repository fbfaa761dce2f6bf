//! `cargo xtask build-backend NAME`: pin → materialise → apply the series to a work copy (for
//! the packages an in-tree backend carries, then run their own test suites there) → build →
//! install under the build's key → PROVENANCE, as numbered, timed steps. Two locks
//! make concurrent runs safe: one per backend in the project (the vendor tree and the build
//! folder are shared by every key) and one per key in the backends root (the install). A run
//! that finds a matching install says so and does nothing.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use regress::layout::Layout;
use tempfile::TempDir;

use super::apply::apply_series;
use super::carried;
use super::carried_record::CarriedRecord;
use super::description::{Build, PRISTINE_SUFFIX, Upstream, read_backend};
use super::error::BackendError;
use super::guard::{self, Installed, source_differences, verify};
use super::hash::{FileHash, sha256_file};
use super::inputs::{BuildInputs, hash_sources};
use super::lock::Lock;
use super::package;
use super::provenance::Provenance;
use super::rustc::Rustc;
use super::snapshot_build;
use super::store::{Slot, backends_root};
use super::upstream::{Materialised, materialise, work_copy};
use super::upstream_tests;
use crate::process::{self, Steps};

/// Whether a run built the backend or found it installed already.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Built,
    UpToDate,
}

/// Builds and installs backend `name` of the project at `layout` unless it is up to date.
pub fn build_backend(layout: &Layout, name: &str) -> Result<(Installed, Outcome)> {
    let root = layout.root();
    let snapshot_upstream = match read_backend(root, name)?.upstream {
        Upstream::Snapshot(snapshot) => Some(snapshot),
        _ => None,
    };
    // A snapshot upstream adds its `prepare` commands and its own test suites as steps.
    let mut steps = Steps::new(if snapshot_upstream.is_some() { 8 } else { 6 });
    let (inputs, slot) = steps.step("read the description, the series and the toolchain", || {
        let backend = read_backend(root, name)?;
        snapshot_build::refuse_other_toolchain(&backend)?;
        let rustc = Rustc::for_backend(root, backend.toolchain.as_ref().map(|t| t.channel.as_str()))?;
        let inputs = BuildInputs::read(root, backend, rustc)?;
        let slot = Slot::new(&backends_root(layout)?, name, &inputs.key());
        eprintln!(
            "backend `{name}`: {}; {} patch(es); {}; key {}",
            inputs.backend.summary,
            inputs.series.patches.len(),
            inputs.rustc.version,
            slot.key
        );
        Ok((inputs, slot))
    })?;

    let _project_lock =
        Lock::acquire(&root.join("target").join("backend-locks").join(format!("{name}.lock")), name)?;
    let _key_lock = Lock::acquire(&slot.lock_path(), &format!("{name} ({})", slot.key))?;
    guard::refuse_edited_vendor(&inputs.backend)?;
    if let Some(Ok(installed)) = verify(&inputs, &slot.dir()) {
        eprintln!(
            "backend `{name}` is up to date at {} (built {}); nothing to do",
            installed.dir.display(),
            installed.provenance.built_at
        );
        return Ok((installed, Outcome::UpToDate));
    }
    slot.tidy()?;

    let (revision, work) =
        steps.step("materialise the upstream at its pin", || match &inputs.backend.upstream {
            Upstream::Git { url, pin, vendor } => {
                let materialised = materialise(root, name, url, pin, vendor)?;
                eprintln!("{} is at {}", vendor.display(), materialised.revision);
                in_work_copy(&slot, materialised, work_copy)
            }
            Upstream::Package { package, version, vendor } => {
                let materialised = package::materialise(name, package, version, vendor)?;
                eprintln!("{} is {}", vendor.display(), materialised.revision);
                in_work_copy(&slot, materialised, package::work_copy)
            }
            Upstream::Snapshot(snapshot) => {
                let work = slot.temporary("work")?;
                let dir = snapshot_build::work_copies(&inputs.backend, snapshot, work.path())?;
                Ok((snapshot.commit.clone(), Some((work, dir))))
            }
            Upstream::InTree { .. } => {
                eprintln!("built in-tree from {} source files", inputs.sources.len());
                Ok((inputs.rustc.commit_hash.clone(), None))
            }
        })?;
    let mut build_dir = work.as_ref().map_or_else(|| root.to_owned(), |(_, copy)| copy.clone());

    let carried = steps.step("apply the series to the work copy", || {
        if !inputs.carried.is_empty() {
            let prepared = carried::prepare(root, name, &inputs.carried, &slot)?;
            for (input, (_, dir)) in inputs.carried.iter().zip(&prepared) {
                upstream_tests::run_upstream_tests(root, name, &input.carried, dir)?;
            }
            return Ok(prepared);
        }
        if inputs.series.patches.is_empty() {
            eprintln!("the series is empty: nothing to apply");
            return Ok(Vec::new());
        }
        apply_series(name, &inputs.series, &build_dir, &revision)?;
        Ok(Vec::new())
    })?;
    let regenerated = match &snapshot_upstream {
        Some(upstream) => steps
            .step("prepare: the upstream's generators, held to the commit's ids", || {
                snapshot_build::prepare(&inputs.backend, upstream, &build_dir)
            })?,
        None => Vec::new(),
    };
    steps.step("build", || {
        if !carried.is_empty() {
            let patched: Vec<_> =
                carried.iter().map(|(record, dir)| (record.package.clone(), dir.clone())).collect();
            build_dir = carried::workspace_copy(root, name, &patched)?;
            eprintln!("building in {}, with the patched {}", build_dir.display(), carried_names(&carried));
        }
        run_build(&inputs.backend.build, &inputs, &build_dir)?;
        if let Some(pristine) = &inputs.backend.pristine {
            eprintln!(
                "building again against the pristine {}, at {}",
                carried_names(&carried),
                root.display()
            );
            run_build(pristine, &inputs, root)?;
        }
        refuse_changed_sources(root, &inputs)
    })?;
    let (snapshots, upstream_tests) = match &snapshot_upstream {
        Some(upstream) => steps.step("the upstream's own tests, on the patched copy", || {
            let summaries = snapshot_build::run_tests(root, &inputs.backend, &build_dir)?;
            Ok((snapshot_build::records(&inputs.backend, upstream, regenerated)?, summaries))
        })?,
        None => (Vec::new(), Vec::new()),
    };

    let dir = slot.dir();
    let products = steps.step("install", || {
        let staging = slot.temporary("staging")?;
        let mut products = install_products(&inputs.backend.build.produces, &build_dir, staging.path(), "")?;
        if let Some(pristine) = &inputs.backend.pristine {
            products.extend(install_products(&pristine.produces, root, staging.path(), PRISTINE_SUFFIX)?);
        }
        std::fs::rename(staging.keep(), &dir)
            .with_context(|| format!("moving the build into {}", dir.display()))?;
        eprintln!("installed into {}", dir.display());
        Ok(products)
    })?;
    drop(work);

    let provenance = steps.step("write PROVENANCE", || {
        let provenance = Provenance {
            backend: name.into(),
            key: slot.key.clone(),
            upstream: inputs.upstream_url(),
            pin: inputs.pin(),
            revision,
            series_sha256: inputs.series.sha256.clone(),
            toolchain: inputs.rustc.identity(),
            llvm_version: inputs.rustc.llvm_version.clone(),
            build_command: inputs.backend.build.command.clone(),
            built_at: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
            patches: inputs.series.file_hashes(),
            sources: inputs.sources.clone(),
            products,
            carried: carried.into_iter().map(|(record, _)| record).collect(),
            snapshots,
            upstream_tests,
        };
        provenance.write(&dir)?;
        Ok(provenance)
    })?;
    steps.finish(&format!("build-backend {name}"));
    Ok((Installed { dir, provenance }, Outcome::Built))
}

/// The revision of `materialised` and a work copy of it (`src` in a temporary folder of
/// `slot`, kept while the folder lives), made by `copy`.
fn in_work_copy(
    slot: &Slot,
    materialised: Materialised,
    copy: fn(&Materialised, &Path) -> Result<()>,
) -> Result<(String, Option<(TempDir, PathBuf)>)> {
    let work = slot.temporary("work")?;
    let dir = work.path().join("src");
    copy(&materialised, &dir)?;
    Ok((materialised.revision, Some((work, dir))))
}

/// The carried packages' names, for messages.
fn carried_names(carried: &[(CarriedRecord, PathBuf)]) -> String {
    carried.iter().map(|(record, _)| record.package.as_str()).collect::<Vec<_>>().join(", ")
}

/// Runs `build`'s command in `dir`, its output streamed to the terminal. A cargo build is
/// made to use the very rustc the build key and PROVENANCE name, wherever `dir` is.
fn run_build(build: &Build, inputs: &BuildInputs, dir: &Path) -> Result<()> {
    let (program, args) = build.command.split_first().context("a build command has a program")?;
    let toolchain = inputs.backend.toolchain.as_ref();
    let mut command = snapshot_build::command(program, args, dir, toolchain);
    if program == "cargo" && toolchain.is_none() && inputs.rustc.program.is_absolute() {
        command.env("RUSTC", &inputs.rustc.program);
    }
    process::run(&mut command, &format!("the build of backend `{}`", inputs.backend.name))
}

/// Refuses a build that wrote into the in-tree sources it is keyed by: its PROVENANCE would
/// name sources it was not built from.
fn refuse_changed_sources(root: &Path, inputs: &BuildInputs) -> Result<()> {
    let Upstream::InTree { inputs: paths } = &inputs.backend.upstream else { return Ok(()) };
    let changes = source_differences(&inputs.sources, &hash_sources(root, paths)?);
    if changes.is_empty() {
        return Ok(());
    }
    Err(BackendError::BuildChangedSources { backend: inputs.backend.name.clone(), changes }.into())
}

/// Copies each product into `staging` under its file name (plus `suffix`) and returns their
/// sha256.
fn install_products(
    produces: &[PathBuf],
    build_dir: &Path,
    staging: &Path,
    suffix: &str,
) -> Result<Vec<FileHash>> {
    let mut products = Vec::new();
    for product in produces {
        let from = build_dir.join(product);
        let name = product.file_name().context("a product has a file name")?.to_string_lossy();
        let name = format!("{name}{suffix}");
        if !from.is_file() {
            bail!("the build succeeded but left no {} (backends.toml says it produces it)", from.display());
        }
        let to = staging.join(&name);
        std::fs::copy(&from, &to)
            .with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
        let sha256 = sha256_file(&to).with_context(|| format!("reading {}", to.display()))?;
        products.push(FileHash { path: name, sha256 });
    }
    Ok(products)
}
