//! canon-check's probe corpus: pairs made from the real kernels' PTX (frozen in `regress/probes/base/`),
//! each with the class it must get, one test per probe (`canon_probe::<name>`); a property test
//! that random semantic mutations of real entries never come out harmless; and the twin swap run
//! through the snapshot suite's own comparison.
//!
//! The probes live in `regress/probes/probes.json`: an entry, edits applied to both sides
//! (`both`), edits applied to the new side only (`new`), the expected class and why.

use std::fs;
use std::path::Path;
use std::process::ExitCode;

use libtest_mimic::{Arguments, Failed, Trial};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use regex::Regex;
use regress::canon::{self, Class};
use regress::layout::Layout;
use regress::ptx::Module;
use regress::ptx::function::Statement;
use regress::ptx::program::Program;
use regress::snapshots::{EntryCase, render};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Corpus {
    /// What the file is, for its readers.
    #[allow(dead_code)]
    about: Vec<String>,
    probe: Vec<Probe>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Probe {
    name: String,
    entry: String,
    class: Class,
    why: String,
    #[serde(default)]
    both: Vec<Edit>,
    #[serde(default)]
    new: Vec<Edit>,
}

/// One edit of a PTX text; each must change something, or the probe is wrong.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Edit {
    /// Replace this text, which must occur exactly once…
    replace: Option<String>,
    /// …or every match of this regular expression (at least one)…
    regex: Option<String>,
    /// …by this.
    with: Option<String>,
    /// Exchange every occurrence of the two texts.
    swap: Option<[String; 2]>,
}

impl Edit {
    fn apply(&self, text: &str) -> Result<String, String> {
        match (&self.replace, &self.regex, &self.swap, &self.with) {
            (Some(from), None, None, Some(to)) => match text.matches(from.as_str()).count() {
                1 => Ok(text.replacen(from.as_str(), to, 1)),
                n => Err(format!("`{from}` occurs {n} times, not once")),
            },
            (None, Some(pattern), None, Some(to)) => {
                let regex = Regex::new(pattern).map_err(|e| format!("regex `{pattern}`: {e}"))?;
                if !regex.is_match(text) {
                    return Err(format!("regex `{pattern}` matches nothing"));
                }
                Ok(regex.replace_all(text, to.as_str()).into_owned())
            }
            (None, None, Some([a, b]), None) => {
                if !text.contains(a.as_str()) || !text.contains(b.as_str()) {
                    return Err(format!("`{a}` and `{b}` must both occur"));
                }
                let placeholder = "\u{1}";
                Ok(text.replace(a.as_str(), placeholder).replace(b.as_str(), a).replace(placeholder, b))
            }
            _ => Err("an edit is `replace` + `with`, `regex` + `with`, or `swap`".to_string()),
        }
    }
}

fn apply_all(text: &str, edits: &[Edit]) -> Result<String, String> {
    edits.iter().enumerate().try_fold(text.to_string(), |text, (index, edit)| {
        let changed = edit.apply(&text).map_err(|e| format!("edit {}: {e}", index + 1))?;
        if changed == text {
            return Err(format!("edit {} changes nothing", index + 1));
        }
        Ok(changed)
    })
}

/// The PTX in a committed snapshot, with the numbered hashes turned back into hashes.
fn snapshot_ptx(dir: &Path, entry: &str) -> Result<String, String> {
    let path = dir.join(format!("{entry}.snap"));
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let body =
        text.splitn(3, "---\n").nth(2).ok_or_else(|| format!("{} has no insta header", path.display()))?;
    let numbered = Regex::new(r"<crate-hash-([0-9]+)>").expect("a valid regex");
    Ok(numbered.replace_all(body, "crateHash$1").into_owned())
}

fn classify(entry: &str, old: &str, new: &str) -> Result<Class, String> {
    let side = |name: &str, text: &str| vec![(name.to_string(), text.to_string())];
    let report = canon::compare("old", &side("old.ptx", old), "new", &side("new.ptx", new))
        .map_err(|e| e.to_string())?;
    match report.entries.as_slice() {
        [comparison] if comparison.entry == entry => Ok(comparison.class),
        _ => Err(format!("expected one matched entry `{entry}`:\n{}", report.render_text())),
    }
}

fn run_probe(dir: &Path, probe: &Probe) -> Result<(), Failed> {
    let base = snapshot_ptx(dir, &probe.entry)?;
    let old = apply_all(&base, &probe.both).map_err(|e| format!("probe {} (both): {e}", probe.name))?;
    let new = apply_all(&old, &probe.new).map_err(|e| format!("probe {} (new): {e}", probe.name))?;
    let class = classify(&probe.entry, &old, &new)?;
    if class != probe.class {
        return Err(format!(
            "probe {}: expected {:?} ({}), got {:?}",
            probe.name, probe.class, probe.why, class
        )
        .into());
    }
    Ok(())
}

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let layout = Layout::from_build();
    let dir = layout.snapshot_dir();
    let probes_dir = layout.root().join("regress").join("probes");
    // The probes' edits are written against the PTX of one day: they read a frozen copy of
    // that day's snapshots, so a later codegen change (a kernel edit, a pin bump) cannot make
    // an edit miss its text. The mutation test and the twin swap read the live snapshots.
    let base_dir = probes_dir.join("base");
    let corpus_path = probes_dir.join("probes.json");
    let corpus: Corpus = match fs::read_to_string(&corpus_path)
        .map_err(|e| e.to_string())
        .and_then(|text| serde_json::from_str(&text).map_err(|e| e.to_string()))
    {
        Ok(corpus) => corpus,
        Err(error) => {
            let message = format!("{}: {error}", corpus_path.display());
            let trial = Trial::test("canon_probe::read_corpus", move || Err(Failed::from(message)));
            return libtest_mimic::run(&args, vec![trial]).exit_code();
        }
    };
    let mut trials: Vec<Trial> = Vec::new();
    let probes = corpus.probe.clone();
    let corpus_dir = base_dir.clone();
    trials.push(Trial::test("canon_probe::the_corpus_covers_every_class", move || {
        corpus_covers_every_class(&probes, &corpus_dir)
    }));
    for probe in corpus.probe {
        let dir = base_dir.clone();
        trials.push(Trial::test(format!("canon_probe::{}", probe.name), move || run_probe(&dir, &probe)));
    }
    let mutation_dir = dir.clone();
    trials.push(Trial::test("canon_probe::semantic_mutations_are_never_harmless", move || {
        semantic_mutations_are_never_harmless(&mutation_dir)
    }));
    let twin_dir = dir.clone();
    trials.push(Trial::test("canon_probe::a_twin_swap_fails_the_snapshot_suite", move || {
        twin_swap_fails_the_snapshot_suite(&twin_dir)
    }));
    libtest_mimic::run(&args, trials).exit_code()
}

/// At least 60 probes, every class expected somewhere (both `.nc` classes too), harmful ones
/// outnumbering none, and no two probes with one name.
fn corpus_covers_every_class(probes: &[Probe], dir: &Path) -> Result<(), Failed> {
    if probes.len() < 60 {
        return Err(format!("only {} probes; the corpus keeps at least 60", probes.len()).into());
    }
    for class in Class::ALL {
        if !probes.iter().any(|p| p.class == class) {
            return Err(format!("no probe expects {class:?}").into());
        }
    }
    let mut names: Vec<&str> = probes.iter().map(|p| p.name.as_str()).collect();
    names.sort();
    if let Some(pair) = names.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("two probes are named {}", pair[0]).into());
    }
    let entries: std::collections::BTreeSet<&str> = probes.iter().map(|p| p.entry.as_str()).collect();
    for entry in entries {
        snapshot_ptx(dir, entry)?;
    }
    Ok(())
}

/// A semantic change of one instruction line, or of a declaration.
#[derive(Debug, Clone)]
enum Mutation {
    /// Exchange two different source operands of a non-commutative instruction.
    SwapOperands(usize),
    /// Change an integer or float immediate.
    ChangeConstant(usize),
    /// Move a memory access (not an entry-parameter read) past a barrier in its block.
    MoveAcrossBarrier(usize),
    /// Move an instruction above the instruction that defines a register it reads.
    MoveAboveDefinition(usize),
    /// Turn a specific state space into another.
    ChangeSpace(usize, usize),
    /// Add or change a performance directive, or an alignment.
    ChangeDirective(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::SwapOperands),
        any::<usize>().prop_map(Mutation::ChangeConstant),
        any::<usize>().prop_map(Mutation::MoveAcrossBarrier),
        any::<usize>().prop_map(Mutation::MoveAboveDefinition),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::ChangeSpace(a, b)),
        any::<usize>().prop_map(Mutation::ChangeDirective),
    ]
}

/// One instruction of the entry function, with its place in the text and in its block.
struct Site {
    line: usize,
    block: usize,
    instruction: regress::ptx::instruction::Instruction,
}

/// The entry's instructions, with block numbers (a label or a branch starts a new block).
fn sites(text: &str, entry: &str) -> Vec<Site> {
    let program = Program::read(text).expect("the snapshot reads");
    let function = program.function(entry).expect("the entry is in its snapshot");
    let mut block = 0;
    let mut sites = Vec::new();
    for statement in &function.statements {
        match statement {
            Statement::Label(_) | Statement::OpenScope | Statement::CloseScope => block += 1,
            Statement::Instruction(instruction) => {
                sites.push(Site { line: instruction.line, block, instruction: instruction.clone() });
                if instruction.ends_block() {
                    block += 1;
                }
            }
            Statement::Directive { .. } => {}
        }
    }
    sites
}

const NON_COMMUTATIVE: &[&str] = &["sub", "shl", "shr", "div", "rem", "selp", "mad"];
const BARRIERS: &[&str] = &["bar", "barrier", "fence", "membar", "mbarrier", "call", "shfl"];

/// The mutated text, or `None` where the mutation has no site in this entry.
fn mutate(text: &str, entry: &str, mutation: &Mutation) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let sites = sites(text, entry);
    let pick = |candidates: Vec<&Site>, seed: usize| -> Option<usize> {
        (!candidates.is_empty()).then(|| candidates[seed % candidates.len()].line - 1)
    };
    let rejoin = |lines: Vec<String>| lines.join("\n") + "\n";
    let mut owned: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    let single_line = |site: &&Site| lines[site.line - 1].matches(';').count() == 1;
    match mutation {
        Mutation::SwapOperands(seed) => {
            let candidates: Vec<&Site> = sites
                .iter()
                .filter(single_line)
                .filter(|s| NON_COMMUTATIVE.contains(&s.instruction.name()))
                .filter(|s| {
                    let ops = &s.instruction.operands;
                    let (a, b) = if s.instruction.name() == "mad" { (1, 3) } else { (1, 2) };
                    ops.len() > b && ops[a] != ops[b]
                })
                .collect();
            let index = pick(candidates, *seed)?;
            let site = sites.iter().find(|s| s.line - 1 == index)?;
            let ops = &site.instruction.operands;
            let (a, b) = if site.instruction.name() == "mad" { (1, 3) } else { (1, 2) };
            let mut swapped = ops.clone();
            swapped.swap(a, b);
            let guard = site.instruction.guard.as_ref().map(|g| format!("@{g} ")).unwrap_or_default();
            let rendered: Vec<String> = swapped.iter().map(|o| o.to_string()).collect();
            owned[index] = format!("\t{guard}{} \t{};", site.instruction.opcode, rendered.join(", "));
            Some(rejoin(owned))
        }
        Mutation::ChangeConstant(seed) => {
            let number = Regex::new(r"([ ,\[+-])([0-9]+)([,;\]])").expect("a valid regex");
            let candidates: Vec<&Site> = sites
                .iter()
                .filter(single_line)
                .filter(|s| s.instruction.name() != "bra")
                .filter(|s| number.is_match(lines[s.line - 1]))
                .collect();
            let index = pick(candidates, *seed)?;
            let changed = number
                .replacen(lines[index], 1, |c: &regex::Captures| {
                    let value: u64 = c[2].parse().unwrap_or(0);
                    format!("{}{}{}", &c[1], value + 1, &c[3])
                })
                .into_owned();
            owned[index] = changed;
            Some(rejoin(owned))
        }
        Mutation::MoveAcrossBarrier(seed) => {
            let memory = |s: &Site| {
                matches!(s.instruction.name(), "ld" | "st")
                    && !s.instruction.opcode.starts_with("ld.param::entry")
                    && !s.instruction.opcode.contains(".param")
            };
            let pairs: Vec<(usize, usize)> = sites
                .iter()
                .filter(|s| memory(s))
                .flat_map(|access| {
                    sites
                        .iter()
                        .filter(|b| b.block == access.block && BARRIERS.contains(&b.instruction.name()))
                        .map(move |barrier| (access.line - 1, barrier.line - 1))
                })
                .collect();
            if pairs.is_empty() {
                return None;
            }
            let (access, barrier) = pairs[seed % pairs.len()];
            let moved = owned.remove(access);
            let barrier = if barrier > access { barrier - 1 } else { barrier };
            // Past the barrier: after it when the access was before, before it otherwise.
            let at = if barrier >= access { barrier + 1 } else { barrier };
            owned.insert(at, moved);
            Some(rejoin(owned))
        }
        Mutation::MoveAboveDefinition(seed) => {
            let pairs: Vec<(usize, usize)> = sites
                .iter()
                .enumerate()
                .flat_map(|(i, user)| {
                    let reads: Vec<&str> =
                        user.instruction.operands.iter().skip(1).flat_map(|o| o.names()).collect();
                    sites[..i]
                        .iter()
                        .filter(move |def| def.block == user.block && single_line(def) && single_line(&user))
                        .filter(move |def| {
                            def.instruction.operands.first().is_some_and(|d| {
                                !d.is_address()
                                    && d.names().iter().any(|n| n.starts_with('%') && reads.contains(n))
                            })
                        })
                        .map(move |def| (def.line - 1, user.line - 1))
                })
                .filter(|(def, user)| def < user)
                .collect();
            if pairs.is_empty() {
                return None;
            }
            let (def, user) = pairs[seed % pairs.len()];
            let moved = owned.remove(user);
            owned.insert(def, moved);
            Some(rejoin(owned))
        }
        Mutation::ChangeSpace(seed, to) => {
            const SPACES: &[&str] = &["global", "shared", "local", "param", "const"];
            let candidates: Vec<&Site> = sites
                .iter()
                .filter(single_line)
                .filter(|s| matches!(s.instruction.name(), "ld" | "st" | "cvta"))
                .filter(|s| {
                    s.instruction.modifiers().any(|m| SPACES.contains(&m.split("::").next().unwrap_or(m)))
                })
                .collect();
            let index = pick(candidates, *seed)?;
            let line = lines[index];
            let current = SPACES.iter().find(|s| line.contains(&format!(".{s}")))?;
            let others: Vec<&&str> = SPACES.iter().filter(|s| *s != current).collect();
            let target = others[to % others.len()];
            let space = Regex::new(&format!(r"\.{current}(::[a-z]+)?\.")).expect("a valid regex");
            owned[index] = space.replacen(line, 1, format!(".{target}.")).into_owned();
            Some(rejoin(owned))
        }
        Mutation::ChangeDirective(seed) => {
            let header = lines.iter().position(|l| l.contains(&format!(".entry {entry}(")))?;
            let close = header + lines[header..].iter().position(|l| l.starts_with(')'))?;
            let choices = [".reqntid 128, 1, 1", ".maxntid 256, 1, 1", ".minnctapersm 2", ".maxnreg 64"];
            match seed % 5 {
                4 => {
                    let align = lines.iter().position(|l| l.contains(".align 16"))?;
                    owned[align] = lines[align].replacen(".align 16", ".align 8", 1);
                }
                // Right after the `)`: LLVM puts a comment after it.
                choice => owned[close] = lines[close].replacen(')', &format!(") {}", choices[choice]), 1),
            }
            Some(rejoin(owned))
        }
    }
}

/// Property-test cases per run of the suite.
const CASES: u32 = 64;

/// Random semantic mutations of real entries never come out in a harmless class.
fn semantic_mutations_are_never_harmless(dir: &Path) -> Result<(), Failed> {
    let entries = [
        "block_reduce_sum",
        "gemm_tiled",
        "gemv_f16",
        "pipeline_sum",
        "rms_norm",
        "saxpy",
        "shared_memory_helper_cross_crate",
        "softmax_rows",
        "vector_add",
    ];
    let texts: Vec<(&str, String)> =
        entries.iter().map(|e| snapshot_ptx(dir, e).map(|t| (*e, t))).collect::<Result<_, _>>()?;
    // More cases for a longer hunt: `CANON_MUTATION_CASES=5000 cargo test --test canon_probes`.
    let cases: u32 = std::env::var("CANON_MUTATION_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(CASES);
    let mut runner = TestRunner::new(Config { cases, failure_persistence: None, ..Config::default() });
    let applied = std::cell::Cell::new(0usize);
    let strategy = (0..texts.len(), mutation());
    let result = runner.run(&strategy, |(which, mutation)| {
        let (entry, old) = &texts[which];
        let Some(new) = mutate(old, entry, &mutation) else { return Ok(()) };
        prop_assume!(new != *old);
        applied.set(applied.get() + 1);
        let class = classify(entry, old, &new).map_err(TestCaseError::fail)?;
        let changed: Vec<String> = similar::TextDiff::from_lines(old.as_str(), new.as_str())
            .unified_diff()
            .context_radius(1)
            .to_string()
            .lines()
            .take(12)
            .map(str::to_string)
            .collect();
        prop_assert_eq!(
            class,
            Class::Other,
            "{:?} of {} came out harmless:\n{}",
            mutation,
            entry,
            changed.join("\n")
        );
        Ok(())
    });
    result.map_err(|e| Failed::from(e.to_string()))?;
    if applied.get() < cases as usize / 2 {
        return Err(format!("only {} of {cases} cases found a site to mutate", applied.get()).into());
    }
    Ok(())
}

/// Two functions whose names differ only in the crate hash, each called once: swapping the
/// call sites must fail the snapshot suite (through `EntryCase::check`, as the suite runs it),
/// while renaming both hashes consistently passes.
fn twin_swap_fails_the_snapshot_suite(dir: &Path) -> Result<(), Failed> {
    let base = snapshot_ptx(dir, "shared_memory_helper_cross_crate")?;
    let probes: Corpus = serde_json::from_str(
        &fs::read_to_string(Layout::from_build().root().join("regress/probes/probes.json"))
            .map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let find = |name: &str| {
        probes.probe.iter().find(|p| p.name == name).cloned().ok_or_else(|| format!("no probe {name}"))
    };
    let swap = find("twin-call-sites-swapped-v0")?;
    let rename = find("twin-hashes-renamed-consistently")?;
    let original = apply_all(&base, &swap.both)?;
    let swapped = apply_all(&original, &swap.new)?;
    let renamed = apply_all(&original, &rename.new)?;

    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    // A case exactly as the suite makes one from a built PTX file.
    let case = |text: &str| -> Result<EntryCase, String> {
        let module = Module::parse(text).map_err(|e| e.to_string())?;
        let entry = module.entry("shared_memory_helper_cross_crate").ok_or("no entry")?;
        Ok(EntryCase {
            entry: "shared_memory_helper_cross_crate".to_string(),
            source_file: None,
            text: render(&module, entry),
        })
    };
    let snapshots = scratch.path().join("snapshots");
    fs::create_dir_all(&snapshots).map_err(|e| e.to_string())?;
    let accepted = case(&original)?;
    fs::write(
        snapshots.join("shared_memory_helper_cross_crate.snap"),
        format!("---\nsource: regress/src/snapshots.rs\n---\n{}", accepted.text),
    )
    .map_err(|e| e.to_string())?;
    accepted.check(&snapshots).map_err(|e| format!("the accepted snapshot itself fails: {e}"))?;
    case(&renamed)?.check(&snapshots).map_err(|e| format!("a consistent hash rename fails: {e}"))?;
    if case(&swapped)?.check(&snapshots).is_ok() {
        return Err("swapping the call sites of two hash twins passes the snapshot suite".into());
    }
    Ok(())
}
