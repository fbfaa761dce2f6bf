//! The compile-fail fixture workspace, generated from one template and a mutation per fixture.
//!
//! `tests/fixtures/` holds what the fixture crates are made from, not the crates:
//! - `template.rs`: a correct two-stage pipeline kernel (the `pipeline-good` fixture) with named
//!   holes, `{{name}}`, at the points where the fixtures vary (see [`Holes`]);
//! - `mutations/<fixture>.mutation`: what one fixture changes, applied to the template or to a
//!   whole source it names;
//! - `whole/<fixture>.rs`: the few fixtures that are really other programs (a wgmma kernel set,
//!   a tensor-copy GEMM producer, a shared-memory helper, a cluster barrier), kept whole because
//!   a mutation would be larger than the program;
//! - `workspace.toml`, `crate.toml`, `fixture_root.rs` and `.cargo/config.toml`: the
//!   workspace's manifest, each crate's manifest, the file every crate includes at its root (the
//!   real device API as its `device` module, and the panic handler) and the kernels' target
//!   settings.
//!
//! [`generate`] writes the workspace (its `Cargo.toml` and `Cargo.lock`, `<fixture>/Cargo.toml`,
//! `<fixture>/src/lib.rs`) into a scratch folder, each file through a writer-unique temporary and a rename, and only where its
//! content changed.
//!
//! A mutation file is a header of `key: value` lines (and `#` comments), then hunks:
//!
//! ```text
//! # what the fixture is about
//! doc: The producer advances its state before it announces the expected bytes.
//! launch-contract: none
//! @@ the advance moves up
//!              pipeline.producer_acquire(&state);
//! +            state.advance(); //~ ERROR producer-order
//! ```
//!
//! Keys: `base: <fixture>` (start from `whole/<fixture>.rs` instead of the template), `doc:`
//! (repeated: the crate's `//!` lines, replacing the base's), `opt-out: <reason>` (the kernel
//! opts out of verification with `#[kernel_verifier::unverified(reason = …)]`), and the
//! template's holes: `launch-contract: none`, `copy-bytes: <expression>`, `consumer-read: one`.
//! A hunk starts at `@@` (the rest of the line is a label) and lists lines as a diff does without
//! line numbers: ` ` kept, `-` removed, `+` added; an empty line is a kept empty line. Its kept
//! and removed lines must stand, in that order, exactly once in the text the previous hunks
//! left; anything else refuses the mutation, naming its file and the hunk's line.

use std::path::{Path, PathBuf};

/// One generated fixture crate: its package name and the text of its `src/lib.rs`.
#[derive(Debug, Clone)]
pub struct Generated {
    pub package: String,
    pub source: String,
}

/// The fixture sources' folder (`tests/fixtures`).
pub fn sources_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Every fixture's `src/lib.rs`, sorted by name, from the fixture sources in `sources`.
pub fn render_all(sources: &Path) -> Result<Vec<Generated>, String> {
    let mut fixtures = Vec::new();
    for (folder, extension) in [("mutations", "mutation"), ("whole", "rs")] {
        let dir = sources.join(folder);
        let entries =
            std::fs::read_dir(&dir).map_err(|error| format!("reading {}: {error}", dir.display()))?;
        for entry in entries {
            let path = entry.map_err(|error| format!("reading {}: {error}", dir.display()))?.path();
            if path.extension().is_none_or(|found| found != extension) {
                continue;
            }
            let package = path.file_stem().unwrap_or_default().to_string_lossy().into_owned();
            let source = if extension == "rs" { read(&path)? } else { apply_mutation(sources, &path)? };
            fixtures.push(Generated { package, source });
        }
    }
    fixtures.sort_by(|a, b| a.package.cmp(&b.package));
    if let Some(pair) = fixtures.windows(2).find(|pair| pair[0].package == pair[1].package) {
        return Err(format!("fixture {} is both a mutation and a whole source", pair[0].package));
    }
    Ok(fixtures)
}

/// Writes the fixture workspace into `workspace`: the manifest naming every fixture, the
/// target settings, `fixture_root.rs` pointing at the real device API, and each fixture's crate.
pub fn generate(sources: &Path, workspace: &Path) -> Result<Vec<Generated>, String> {
    let fixtures = render_all(sources)?;
    let members: String = fixtures.iter().map(|fixture| format!("    \"{}\",\n", fixture.package)).collect();
    let manifest = fill(&read(&sources.join("workspace.toml"))?, &[("members", &members)]);
    write_if_changed(&workspace.join("Cargo.toml"), &manifest)?;
    write_if_changed(&workspace.join("Cargo.lock"), &lockfile(&fixtures))?;
    write_if_changed(&workspace.join(".cargo/config.toml"), &read(&sources.join(".cargo/config.toml"))?)?;
    let device = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../kernels/src/device/mod.rs");
    let device = device.canonicalize().map_err(|error| format!("finding {}: {error}", device.display()))?;
    let root = fill(&read(&sources.join("fixture_root.rs"))?, &[("device", &device.display().to_string())]);
    write_if_changed(&workspace.join("fixture_root.rs"), &root)?;
    let crate_manifest = read(&sources.join("crate.toml"))?;
    for fixture in &fixtures {
        let dir = workspace.join(&fixture.package);
        write_if_changed(&dir.join("Cargo.toml"), &fill(&crate_manifest, &[("package", &fixture.package)]))?;
        write_if_changed(&dir.join("src/lib.rs"), &fixture.source)?;
    }
    Ok(fixtures)
}

/// The workspace's `Cargo.lock` as cargo writes it (the crates depend on nothing), so that
/// `cargo clean -p` finds the packages before the first build.
fn lockfile(fixtures: &[Generated]) -> String {
    let mut text = String::from(
        "# This file is automatically @generated by Cargo.\n# It is not intended for manual editing.\nversion = 4\n",
    );
    for fixture in fixtures {
        text += &format!("\n[[package]]\nname = \"{}\"\nversion = \"0.1.0\"\n", fixture.package);
    }
    text
}

/// The source a mutation file makes: its base (the template with its holes filled, or a whole
/// source), its doc lines and opt-out, then its hunks in order.
pub fn apply_mutation(sources: &Path, path: &Path) -> Result<String, String> {
    let refuse =
        |line: usize, why: String| format!("{}:{line}: the mutation does not apply: {why}", path.display());
    let mutation = Mutation::parse(&read(path)?).map_err(|(line, why)| refuse(line, why))?;
    let package = path.file_stem().unwrap_or_default().to_string_lossy().into_owned();
    let mut text = match mutation.value("base") {
        Some((line, base)) => {
            if let Some((line, key)) = mutation
                .keys
                .iter()
                .find(|(_, key, _)| Holes::KEYS.contains(&key.as_str()))
                .map(|(line, key, _)| (*line, key))
            {
                return Err(refuse(
                    line,
                    format!("`{key}` fills a hole of the template, but the base is `{base}`"),
                ));
            }
            read(&sources.join("whole").join(format!("{base}.rs"))).map_err(|why| refuse(line, why))?
        }
        None => {
            let holes = Holes::of(&mutation, &package).map_err(|(line, why)| refuse(line, why))?;
            holes.fill(&read(&sources.join("template.rs"))?)
        }
    };
    let doc: Vec<&str> = mutation.values("doc").map(|(_, value)| value).collect();
    if !doc.is_empty() {
        text = replace_doc(&text, &doc);
    }
    if let Some((line, reason)) = mutation.value("opt-out") {
        text = opt_out(&text, reason).map_err(|why| refuse(line, why))?;
    }
    for hunk in &mutation.hunks {
        text = hunk.apply(&text).map_err(|why| refuse(hunk.line, why))?;
    }
    Ok(text)
}

/// A parsed mutation file: header keys (with their line numbers) and hunks.
struct Mutation {
    keys: Vec<(usize, String, String)>,
    hunks: Vec<Hunk>,
}

const KEYS: [&str; 3] = ["base", "doc", "opt-out"];

impl Mutation {
    fn parse(text: &str) -> Result<Mutation, (usize, String)> {
        let mut mutation = Mutation { keys: Vec::new(), hunks: Vec::new() };
        for (index, line) in text.lines().enumerate() {
            let number = index + 1;
            if line.starts_with("@@") {
                mutation.hunks.push(Hunk { line: number, old: Vec::new(), new: Vec::new() });
                continue;
            }
            let Some(hunk) = mutation.hunks.last_mut() else {
                if line.trim().is_empty() || line.starts_with('#') {
                    continue;
                }
                let Some((key, value)) = line.split_once(':') else {
                    return Err((number, format!("`{line}` is neither `key: value` nor a hunk")));
                };
                if !KEYS.contains(&key) && !Holes::KEYS.contains(&key) {
                    return Err((number, format!("unknown key `{key}`")));
                }
                mutation.keys.push((number, key.into(), value.trim().into()));
                continue;
            };
            match line.split_at_checked(1) {
                None => hunk.keep(""),
                Some((" ", rest)) => hunk.keep(rest),
                Some(("-", rest)) => hunk.old.push(rest.into()),
                Some(("+", rest)) => hunk.new.push(rest.into()),
                Some(_) => {
                    return Err((number, format!("`{line}` in a hunk starts with none of ` `, `-`, `+`")));
                }
            }
        }
        for hunk in &mut mutation.hunks {
            // Trailing empty lines separate hunks; they are not context.
            while hunk.old.last().is_some_and(String::is_empty)
                && hunk.new.last().is_some_and(String::is_empty)
            {
                hunk.old.pop();
                hunk.new.pop();
            }
            if hunk.old.is_empty() {
                return Err((
                    hunk.line,
                    "a hunk needs a kept or removed line to say where it applies".into(),
                ));
            }
        }
        Ok(mutation)
    }

    fn values<'a>(&'a self, key: &'a str) -> impl Iterator<Item = (usize, &'a str)> {
        self.keys
            .iter()
            .filter(move |(_, found, _)| found == key)
            .map(|(line, _, value)| (*line, value.as_str()))
    }

    fn value(&self, key: &str) -> Option<(usize, &str)> {
        self.keys.iter().find(|(_, found, _)| found == key).map(|(line, _, value)| (*line, value.as_str()))
    }
}

/// A hunk: the lines it expects (kept and removed) and the lines it leaves (kept and added).
struct Hunk {
    /// Its `@@` line in the mutation file.
    line: usize,
    old: Vec<String>,
    new: Vec<String>,
}

impl Hunk {
    fn keep(&mut self, line: &str) {
        self.old.push(line.into());
        self.new.push(line.into());
    }

    fn apply(&self, text: &str) -> Result<String, String> {
        let lines: Vec<&str> = text.lines().collect();
        let found: Vec<usize> = lines
            .windows(self.old.len())
            .enumerate()
            .filter(|(_, window)| window.iter().zip(&self.old).all(|(line, old)| line == old))
            .map(|(start, _)| start)
            .collect();
        let start = match found.as_slice() {
            [start] => *start,
            [] => {
                return Err(format!("the hunk's lines are not in the text; its first is `{}`", self.old[0]));
            }
            more => {
                let at: Vec<String> = more.iter().map(|start| (start + 1).to_string()).collect();
                return Err(format!(
                    "the hunk's lines stand {} times (at lines {})",
                    more.len(),
                    at.join(", ")
                ));
            }
        };
        let mut out: Vec<&str> = lines[..start].to_vec();
        out.extend(self.new.iter().map(String::as_str));
        out.extend(&lines[start + self.old.len()..]);
        Ok(out.iter().map(|line| format!("{line}\n")).collect())
    }
}

/// The template's holes, filled from a mutation's keys; the defaults make `pipeline-good`.
struct Holes {
    /// `{{kernel}}`: the kernel's name, the fixture's name with `_` for `-`.
    kernel: String,
    /// `{{launch_contract}}`: the kernel declares its block size and its dynamic shared memory
    /// (`launch-contract: none`: it does not).
    launch_contract: bool,
    /// `{{byte_constants}}`, `{{expected_bytes}}`, `{{copy_bytes}}`: with `copy-bytes: EXPR`, the
    /// announced and copied byte counts are constants, `EXPECTED_BYTES = TILE_BYTES` and
    /// `COPY_BYTES = EXPR`; without, both are `TILE_BYTES`.
    copy_bytes: Option<String>,
    /// `{{consumer_read}}`: a consumer sums its share of the stage, `CONSUMERS` floats apart
    /// (`consumer-read: one`: reads one float, its thread's).
    read_one: bool,
}

impl Holes {
    const KEYS: [&str; 3] = ["launch-contract", "copy-bytes", "consumer-read"];

    fn of(mutation: &Mutation, package: &str) -> Result<Holes, (usize, String)> {
        let choice = |key: &str, only: &str| match mutation.value(key) {
            None => Ok(false),
            Some((_, value)) if value == only => Ok(true),
            Some((line, value)) => Err((line, format!("`{key}` is `{only}` or absent, not `{value}`"))),
        };
        Ok(Holes {
            kernel: package.replace('-', "_"),
            launch_contract: !choice("launch-contract", "none")?,
            copy_bytes: mutation.value("copy-bytes").map(|(_, value)| value.to_string()),
            read_one: choice("consumer-read", "one")?,
        })
    }

    fn fill(&self, template: &str) -> String {
        let contract = "    // The launch contract: one-dimensional blocks of 64 threads (lane 0 produces, warp 1 consumes)\n    // and 4 KiB of dynamic shared memory (the ring and its barriers use 2080 bytes).\n    device::launch::block_threads(64);\n    device::launch::dynamic_shared_bytes(4096);\n";
        let read = if self.read_one {
            "            // SAFETY: inside a stage the full barrier says is loaded.\n            partial += unsafe { *stage.add((tid - WARP_SIZE) as usize) };\n"
        } else {
            "            let mut k = (tid - WARP_SIZE) as usize;\n            while k < TILE_FLOATS as usize {\n                // SAFETY: `k < TILE_FLOATS`, inside a stage the full barrier says is loaded.\n                partial += unsafe { *stage.add(k) };\n                k += CONSUMERS as usize;\n            }\n"
        };
        let constants = match &self.copy_bytes {
            Some(copy) => {
                format!("const EXPECTED_BYTES: u32 = TILE_BYTES;\nconst COPY_BYTES: u32 = {copy};\n\n")
            }
            None => String::new(),
        };
        let named = self.copy_bytes.is_some();
        fill(
            template,
            &[
                ("kernel", &self.kernel),
                ("launch_contract", if self.launch_contract { contract } else { "" }),
                ("byte_constants", &constants),
                ("expected_bytes", if named { "EXPECTED_BYTES" } else { "TILE_BYTES" }),
                ("copy_bytes", if named { "COPY_BYTES" } else { "TILE_BYTES" }),
                ("consumer_read", read),
            ],
        )
    }
}

/// `text` with its holes filled: a hole alone on its line is replaced with its line (the value
/// holds its own line ends, so an empty value removes the line), any other in place.
fn fill(text: &str, holes: &[(&str, &str)]) -> String {
    let mut text = text.to_string();
    for (name, value) in holes {
        text = text.replace(&format!("{{{{{name}}}}}\n"), value).replace(&format!("{{{{{name}}}}}"), value);
    }
    text
}

/// `text` with its leading `//!` lines replaced by `doc`.
fn replace_doc(text: &str, doc: &[&str]) -> String {
    let rest: String =
        text.lines().skip_while(|line| line.starts_with("//!")).map(|line| format!("{line}\n")).collect();
    let doc: String = doc.iter().map(|line| format!("//! {line}\n")).collect();
    doc + &rest
}

/// `text` with the kernel opted out of verification for `reason`: the `register_tool` feature,
/// the `kernel_verifier` tool, and the attribute before the kernel's `#[unsafe(no_mangle)]`.
fn opt_out(text: &str, reason: &str) -> Result<String, String> {
    let mut out = String::new();
    let (mut features, mut kernels) = (0, 0);
    for line in text.lines() {
        if let Some(list) = line.strip_prefix("#![feature(").and_then(|rest| rest.strip_suffix(")]")) {
            out += &format!("#![feature({list}, register_tool)]\n#![register_tool(kernel_verifier)]\n");
            features += 1;
            continue;
        }
        if line == "#[unsafe(no_mangle)]" {
            out += &format!("#[kernel_verifier::unverified(reason = \"{reason}\")]\n");
            kernels += 1;
        }
        out += &format!("{line}\n");
    }
    if (features, kernels) != (1, 1) {
        return Err(format!(
            "`opt-out` needs one `#![feature(…)]` line and one kernel; the base has {features} and {kernels}"
        ));
    }
    Ok(out)
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|error| format!("reading {}: {error}", path.display()))
}

/// Writes `text` to `path` (through a temporary and a rename) unless it already holds it.
fn write_if_changed(path: &Path, text: &str) -> Result<(), String> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    xtask::atomic::write_file(path, text).map_err(|error| format!("writing {}: {error:#}", path.display()))
}
