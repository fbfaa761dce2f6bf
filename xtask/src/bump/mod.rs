//! `just bump-pin BACKEND WHAT=VALUE…`: move one backend's pin (its toolchain, its git
//! revision, the version of its registry package or of a package it carries) in one command a
//! reviewer can trust.
//!
//! Data flow: [`request`] reads the arguments against `backends.toml` and `rust-toolchain.toml`;
//! [`repo`] refuses a dirty tree; [`obtain`] installs or fetches the new pin (refusing, exit 70,
//! what cannot be had, before anything is written); [`repo`] tags the old pin's commit
//! `pin/<backend>-<old>`; [`side`] builds the old backend (usually already installed) and the
//! kernels with it; [`pin_file`] writes the new pin; a child xtask under the new toolchain
//! builds the new backend beside the old one (a failure is read by [`port_errors`] into the
//! compiler's errors grouped by rustc crate and item, exit 70; a patch that no longer applies
//! or is already upstream comes back as the backend flow's refusal) and the kernels with it;
//! [`suites`] compares the two PTX builds (canon-check's summary line), runs the snapshot suite
//! on the new PTX (each changed entry left pending) and the shapes table (moved rows); last, the
//! checklist of what to review and commit, in order. Both PTX builds stay in
//! `target/bump/<backend>-<old>-to-<new>/{old,new}/`.

pub mod obtain;
pub mod pin_file;
pub mod port_errors;
pub mod repo;
pub mod request;
pub mod side;
pub mod suites;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use regress::layout::Layout;

use self::port_errors::PortErrors;
use self::repo::Tagged;
use self::request::{Request, Target};
use crate::canon_check;
use crate::process::Steps;
use crate::refusal::{REFUSED, Refused};

/// The folder of one bump's builds, below the project's `target/`.
pub fn bump_dir(layout: &Layout, request: &Request) -> PathBuf {
    layout.root().join("target").join("bump").join(request.label())
}

/// `cargo xtask bump-pin BACKEND WHAT=VALUE…` for the project at `layout`.
pub fn bump_pin(layout: &Layout, backend: &str, arguments: &[String]) -> Result<()> {
    let root = layout.root();
    let mut steps = Steps::new(10);
    let request = steps.step("read the request; the work tree must be clean", || {
        let request = request::read(root, backend, arguments)?;
        repo::refuse_dirty(root, &request.describe())?;
        for change in &request.changes {
            eprintln!("{}: {} -> {} ({})", change.key(), change.old, change.new, pin_file::file_of(change));
        }
        Ok(request)
    })?;
    let what = request.describe();
    let obtained = steps.step("get what the new pin needs", || obtain::obtain(root, &request))?;
    let tag = request.tag();
    steps.step("tag the old pin", || {
        match repo::tag_old_pin(root, &tag)? {
            Tagged::Created { commit } => eprintln!("tagged {commit} `{tag}`"),
            Tagged::Already { commit } => eprintln!("`{tag}` already tags {commit}: nothing to do"),
            Tagged::Elsewhere { commit } => {
                eprintln!("`{tag}` already tags {commit} (an earlier bump from this pin): left as it is")
            }
        }
        Ok(())
    })?;
    let dir = bump_dir(layout, &request);
    let (old_dir, new_dir) = (dir.join("old"), dir.join("new"));
    steps.step("the old backend and the kernels built with it", || {
        side::build_side(layout, &request.backend.name, &old_dir).map(drop)
    })?;
    let written = steps.step("write the new pin", || write_pins(root, &request))?;
    let back = format!(
        "the new pin is written ({}); `git checkout -- {}` goes back to the old one, tagged `{tag}`",
        shown(root, &written).join(", "),
        shown(root, &written).join(" ")
    );
    let cargo = obtained.toolchain_cargo.as_deref();
    steps.step("build the new backend beside the old one", || {
        let mut build = side::child(root, cargo, &["build-backend", &request.backend.name])?;
        let run = side::run_teed(&mut build)?;
        check_child(&run, &what, "the new backend does not build", &back)
    })?;
    steps.step("the kernels built with the new backend", || {
        let out = new_dir.to_string_lossy().into_owned();
        let mut build = side::child(root, cargo, &["bump-kernels", &request.backend.name, "--out", &out])?;
        let run = side::run_teed(&mut build)?;
        check_child(&run, &what, "the kernels do not build with the new backend", &back)
    })?;
    let summary = steps.step("canon-check, snapshots and shapes on the new PTX", || {
        suites_across(layout, &old_dir, &new_dir, &dir)
    })?;
    let bundle =
        steps.step("the GPU bundle: the runner and both modules", || gpu_bundle(layout, &summary, &dir))?;
    steps.step("what to review and commit", || {
        print!("{}", checklist(&request, &summary, bundle.as_deref(), &written, root, &dir));
        Ok(())
    })?;
    steps.finish(&what);
    println!("{}", summary.canon_line);
    Ok(())
}

/// Leaves `gpu-bundle/` in the bump's folder (`cargo xtask gpu --compare OLD NEW --bundle`):
/// the runner, both modules and the `run.sh` that compares them on a GPU machine. A project
/// without the GPU runner (a fixture backend's) gets none, and says so.
fn gpu_bundle(layout: &Layout, summary: &Summary, dir: &Path) -> Result<Option<PathBuf>> {
    if !layout.root().join("kernels/gpu-runner/Cargo.toml").is_file() {
        eprintln!("no GPU runner in this project (kernels/gpu-runner): no bundle to leave");
        return Ok(None);
    }
    crate::gpu::build_runner(layout)?;
    let folder = dir.join("gpu-bundle");
    let pair = crate::gpu::ModulePair { old: summary.old_ptx.clone(), new: summary.new_ptx.clone() };
    crate::gpu::bundle_compare(layout, &folder, &pair)?;
    eprintln!("GPU bundle: {}", folder.display());
    Ok(Some(folder))
}

/// Writes every change's new pin; for a carried package, the lock file follows, so that the
/// pristine build compares the same version.
fn write_pins(root: &Path, request: &Request) -> Result<Vec<PathBuf>> {
    let mut written: Vec<PathBuf> = Vec::new();
    for change in &request.changes {
        let file = pin_file::write(root, &request.backend.name, change)?;
        eprintln!("{} {} -> {} in {}", change.key(), change.old, change.new, file.display());
        if !written.contains(&file) {
            written.push(file);
        }
        if let Target::CarriedPackage { package } = &change.target {
            let lock = root.join("Cargo.lock");
            let locked = std::fs::read_to_string(&lock).unwrap_or_default();
            if locked.contains(&format!("name = \"{package}\"")) {
                let mut update = crate::process::cargo(root);
                update.args(["update", "--package", package, "--precise", &change.new]);
                if let Err(report) = crate::process::succeeds(&mut update)? {
                    return Err(Refused(format!(
                        "`{}`: Cargo.lock cannot move {package} to {} ({}); widen the requirement in \
                         Cargo.toml if it excludes that version",
                        change.what(),
                        change.new,
                        crate::process::one_line(&report)
                    ))
                    .into());
                }
                written.push(lock);
            }
        }
    }
    Ok(written)
}

/// Turns a failed child into the bump's refusal: the child's own refusal (a patch that no longer
/// applies or is already upstream, a stale backend), or the compiler's errors grouped by crate
/// and item (exit 70 both), or an error.
fn check_child(run: &side::ChildRun, what: &str, failure: &str, back: &str) -> Result<()> {
    if run.code == Some(0) {
        return Ok(());
    }
    if run.code == Some(i32::from(REFUSED)) {
        let refusal: Vec<&str> = run
            .stderr
            .lines()
            .skip_while(|line| !line.starts_with("refused: "))
            .map(|line| line.trim_start_matches("refused: ").trim())
            .collect();
        return Err(Refused(format!("`{what}`: {failure}: {}; {back}", refusal.join(" / "))).into());
    }
    let errors = PortErrors::read(&run.stderr);
    if !errors.is_empty() {
        return Err(Refused(format!(
            "`{what}`: {failure}: {} compiler error(s), by rustc crate and item:\n{}{back}",
            errors.count(),
            errors.render()
        ))
        .into());
    }
    bail!("`{what}`: {failure} (exit status {:?}; its output is above); {back}", run.code)
}

/// What the suites said across the bump.
pub struct Summary {
    pub canon_line: String,
    pub canon_json: PathBuf,
    pub old_ptx: PathBuf,
    pub new_ptx: PathBuf,
    pub snapshots: suites::SnapshotOutcome,
    pub shapes: Vec<regress::shapes::Finding>,
}

fn suites_across(layout: &Layout, old_dir: &Path, new_dir: &Path, dir: &Path) -> Result<Summary> {
    let report = canon_check::compare(layout, old_dir, new_dir)?;
    canon_check::save(&report, &canon_check::last_result_path(layout))?;
    let canon_json = dir.join("canon-check.json");
    canon_check::save(&report, &canon_json)?;
    print!("{}", report.render_text());
    let canon_line = report.summary_line();
    println!("{canon_line}");

    let new_ptx = canon_check::ptx_files(new_dir)?.remove(0);
    let old_ptx = canon_check::ptx_files(old_dir)?.remove(0);
    let snapshots = suites::snapshots(layout, &new_ptx)?;
    println!(
        "snapshots: {} of {} entries differ from their snapshot, pending for `cargo insta review`{}",
        snapshots.pending.len(),
        snapshots.checked,
        if snapshots.orphans.is_empty() {
            String::new()
        } else {
            format!("; {} snapshot(s) belong to no entry any more", snapshots.orphans.len())
        }
    );
    for (entry, pending) in &snapshots.pending {
        let state = if pending.exists() { "pending" } else { "NOT recorded (INSTA_UPDATE forbids it)" };
        println!("  {entry:<36} {state}: {}", pending.display());
    }
    let shapes = suites::shapes(layout, &new_ptx)?;
    println!(
        "shapes: {} row(s) of {} to re-pin",
        shapes.len(),
        shown(layout.root(), &[layout.shapes_table()])[0]
    );
    for finding in &shapes {
        println!("  {finding}");
    }
    Ok(Summary { canon_line, canon_json, old_ptx, new_ptx, snapshots, shapes })
}

/// The ordered list of what is left to a person.
fn checklist(
    request: &Request,
    summary: &Summary,
    bundle: Option<&Path>,
    written: &[PathBuf],
    root: &Path,
    dir: &Path,
) -> String {
    let what = request.describe();
    let rel = |path: &Path| shown(root, &[path.to_owned()]).remove(0);
    let mut items = vec![format!(
        "read canon-check's table above ({}); it is kept in {} for `just report`, and `just canon-check {} {}` \
         prints it again",
        summary.canon_line,
        rel(&summary.canon_json),
        rel(&summary.old_ptx),
        rel(&summary.new_ptx)
    )];
    if summary.snapshots.pending.is_empty() && summary.snapshots.orphans.is_empty() {
        items.push("snapshots: nothing to review, every entry matches".to_owned());
    } else {
        items.push(format!(
            "`cargo insta review`: accept or reject the {} pending snapshot(s){}",
            summary.snapshots.pending.len(),
            if summary.snapshots.orphans.is_empty() {
                ""
            } else {
                "; delete the snapshots of entries that are gone"
            }
        ));
    }
    if summary.shapes.is_empty() {
        items.push("shapes: every row still matches".to_owned());
    } else {
        let kernels: Vec<&str> = summary.shapes.iter().map(|f| f.kernel()).collect();
        items.push(format!(
            "`just shapes --update --reason \"{what}\"`: re-pin {} row(s) ({})",
            kernels.len(),
            kernels.join(", ")
        ));
    }
    items.push(match bundle {
        Some(bundle) => format!(
            "GPU gates across the bump: carry {} to the GPU machine and run its `run.sh` (`gpu-runner --compare \
             old.ptx new.ptx`: both modules' correctness, the time ratio per kernel, each kernel more than 3 % \
             slower flagged); `just report --gpu-compare compare.json` charts what it writes",
            rel(bundle)
        ),
        None => format!(
            "GPU gates across the bump: both modules are in {} (old/, new/); `cargo xtask gpu --compare OLD NEW \
             --bundle DIR` packs them with the runner for a GPU machine",
            rel(dir)
        ),
    });
    for change in request.changes.iter().filter(|c| request.backend.summary.contains(&c.old)) {
        items.push(format!(
            "backends.toml: the summary of backend `{}` still names {} (\"{}\"); reword it for {}",
            request.backend.name, change.old, request.backend.summary, change.new
        ));
    }
    items.push("`just test`: the whole suite on the new pin".to_owned());
    let mut files: Vec<String> = shown(root, written);
    files.extend(["ptx-snapshots".to_owned(), "regress/ptx-shapes.tsv".to_owned()]);
    items.push(format!(
        "commit: `git add {}` and `git commit -m \"{what}\"`; the old pin stays tagged `{}` and its backend \
         stays installed, so going back costs nothing",
        files.join(" "),
        request.tag()
    ));
    let mut text = format!("\nTo finish `{what}`, in order:\n");
    for (index, item) in items.iter().enumerate() {
        text.push_str(&format!("  {}. {item}\n", index + 1));
    }
    text
}

/// Paths relative to the project root, for messages.
fn shown(root: &Path, paths: &[PathBuf]) -> Vec<String> {
    paths.iter().map(|p| p.strip_prefix(root).unwrap_or(p).display().to_string()).collect()
}

/// `cargo xtask bump-kernels` (the child the new side runs in): the kernels with the installed
/// backend, their PTX copied into `out`.
pub fn bump_kernels(layout: &Layout, backend: &str, out: &Path) -> Result<()> {
    let kept = side::kernels_into(layout, backend, &layout.resolve(out))
        .with_context(|| format!("building the kernels with backend `{backend}`"))?;
    for ptx in kept {
        eprintln!("kept {}", ptx.display());
    }
    Ok(())
}
