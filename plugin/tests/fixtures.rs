//! The textual-IR fixtures: every good one verifies (indexed verifier and oracle alike),
//! every bad one is rejected by the rule `bad/expected.toml` names, at the location it names;
//! every fixture round-trips through print and parse; malformed or truncated fixtures never
//! panic the parser or the verifier.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use plugin::{
    report::{FileVerdict, verify_text},
    scope::scopes_of_module,
    text::{parse_module, print},
    verify::{Rule, ScopeStatus},
};
use proptest::prelude::*;

fn fixtures(kind: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "pir"))
        .collect();
    files.sort();
    files
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

fn stem(path: &Path) -> String {
    path.file_stem().expect("a file name").to_string_lossy().into_owned()
}

#[derive(serde::Deserialize)]
struct Expected {
    rule: String,
    at: String,
}

fn expectations() -> BTreeMap<String, Expected> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bad/expected.toml");
    toml::from_str(&read(&path)).expect("bad/expected.toml parses")
}

#[test]
fn good_fixtures_verify_and_the_oracle_agrees() {
    let files = fixtures("good");
    assert!(files.len() >= 5, "good fixtures missing");
    for file in files {
        let text = read(&file);
        match verify_text(&text, &file) {
            FileVerdict::Verified(_) => {}
            other => panic!("{} should verify: {other:?}", file.display()),
        }
        let mut ctx = plugin::new_context();
        let module = parse_module(&mut ctx, &text, &file).expect("parses");
        for scope in scopes_of_module(&ctx, module) {
            let oracle = plugin::harness::oracle::analyze_scope(&ctx, &scope);
            assert!(oracle.rejections.is_empty(), "{}: the oracle rejects", file.display());
        }
    }
}

#[test]
fn bad_fixtures_are_rejected_by_the_expected_rule_at_the_expected_location() {
    let expected = expectations();
    let files = fixtures("bad");
    let names: Vec<String> = files.iter().map(|f| stem(f)).collect();
    assert_eq!(names, expected.keys().cloned().collect::<Vec<_>>(), "bad/*.pir and bad/expected.toml differ");
    let mut per_rule: BTreeMap<Rule, usize> = BTreeMap::new();
    for file in files {
        let want = &expected[&stem(&file)];
        let rule = Rule::from_name(&want.rule).unwrap_or_else(|| panic!("unknown rule {}", want.rule));
        *per_rule.entry(rule).or_default() += 1;
        let FileVerdict::Rejected(rejections) = verify_text(&read(&file), &file) else {
            panic!("{} should be rejected", file.display());
        };
        let first = &rejections[0];
        let location = format!("{}:{}", file.display(), want.at);
        let message = first.to_string();
        assert_eq!(first.rule, rule, "{}: {message}", file.display());
        assert!(message.contains(&format!("error[{}]", want.rule)), "{message}");
        assert!(message.contains(&location), "{} should name {location}: {message}", file.display());
    }
    // `pipeline-init` and `shared-layout` (new this session) are judged on Rust kernels only so
    // far: blind round 3 (`init_without_barrier`, `stride_in_floats`, `barrier_bytes_stale`) and
    // the driver corpus. Their textual-IR fixtures are still to be written; this list must shrink.
    const WITHOUT_IR_FIXTURES: [Rule; 2] = [Rule::PipelineInit, Rule::SharedLayout];
    for rule in Rule::ALL.into_iter().filter(|rule| !WITHOUT_IR_FIXTURES.contains(rule)) {
        assert!(per_rule.get(&rule).copied().unwrap_or(0) >= 3, "fewer than three bad fixtures for {rule}");
    }
}

#[test]
fn the_scope_guard_skips_a_scope_without_semantic_operations() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/good/no_semantic_ops.pir");
    let FileVerdict::Verified(reports) = verify_text(&read(&file), &file) else { panic!("verifies") };
    assert_eq!(reports.len(), 1);
    assert_eq!(reports[0].status, ScopeStatus::Skipped);
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/good/producer_loop.pir");
    let FileVerdict::Verified(reports) = verify_text(&read(&file), &file) else { panic!("verifies") };
    assert_eq!(reports[0].status, ScopeStatus::Verified);
    assert!(reports[0].facts > 0);
}

/// What the operand and tile-count rules could not judge is listed, never passed silently;
/// what they judged is not.
#[test]
fn unjudged_pipelines_and_loops_are_reported_as_not_checked() {
    let not_checked = |name: &str| {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/good").join(name);
        let FileVerdict::Verified(reports) = verify_text(&read(&file), &file) else {
            panic!("{name} verifies")
        };
        reports
            .iter()
            .flat_map(|report| report.gaps.iter().map(|gap| gap.message.clone()))
            .collect::<Vec<String>>()
            .join("\n")
    };
    // No pipeline operands, one role only: neither identity nor tile count is judged.
    let unnamed = not_checked("producer_loop.pir");
    assert!(unnamed.contains("pipeline identity of 4 pipeline operations"), "{unnamed}");
    assert!(unnamed.contains("the tile counts of 1 pipeline loops"), "{unnamed}");
    // Every operation names its pipeline; both loops read and compared.
    let judged = not_checked("tile_count_same_bound.pir");
    assert!(!judged.contains("pipeline identity of"), "{judged}");
    assert!(!judged.contains("tile counts"), "{judged}");
    // No launch contract: roles and counts are listed as not checked.
    assert!(judged.contains("thread roles and arrival counts (no launch contract"), "{judged}");
    // A declared block and branches the rule evaluates (a helper, `warp_id()`, a range, a flag
    // set on thread-dependent paths as `matches!` sets it): judged.
    for name in ["roles_by_helper_and_warp.pir", "roles_consumer_range.pir", "roles_flag_by_path.pir"] {
        let roles = not_checked(name);
        assert!(!roles.contains("thread roles"), "{name}: {roles}");
    }
}

#[test]
fn every_fixture_round_trips_through_print_and_parse() {
    for file in fixtures("good").into_iter().chain(fixtures("bad")) {
        let mut ctx = plugin::new_context();
        let module = parse_module(&mut ctx, &read(&file), &file).expect("parses");
        let first = print(&ctx, module);
        let mut ctx2 = plugin::new_context();
        let reparsed = parse_module(&mut ctx2, &first, Path::new("printed.pir"))
            .unwrap_or_else(|e| panic!("{}: printed text does not parse: {e}\n{first}", file.display()));
        assert_eq!(first, print(&ctx2, reparsed), "{}: print → parse → print differs", file.display());
    }
}

#[test]
fn a_parse_error_names_file_line_and_column() {
    let file = Path::new("broken.pir");
    let mut ctx = plugin::new_context();
    let error =
        parse_module(&mut ctx, "builtin.module @m {\n  ^top():\n  mir.nonsense\n}\n", file).unwrap_err();
    assert_eq!(error.file, file);
    assert_eq!(error.line, 3, "{error}");
    assert!(error.to_string().starts_with("broken.pir:3:"), "{error}");
    let FileVerdict::Unparsable(_) = verify_text("builtin.module @m {", file) else {
        panic!("truncated text parses")
    };
}

/// A fixture with one mutation: truncated, a span removed, or a character inserted.
fn mutated_fixture() -> impl Strategy<Value = String> {
    let texts: Vec<String> = fixtures("good").iter().chain(fixtures("bad").iter()).map(|f| read(f)).collect();
    (
        0..texts.len(),
        any::<u16>(),
        any::<u16>(),
        0..3u8,
        prop::sample::select(vec![
            '}', '{', '(', ')', ':', ',', ';', '%', '^', '@', '<', '>', 'x', '9', ' ', '"', '\n',
        ]),
    )
        .prop_map(move |(which, at, len, kind, ch)| {
            let text: Vec<char> = texts[which].chars().collect();
            let at = at as usize % (text.len() + 1);
            let mut out = text.clone();
            match kind {
                0 => out.truncate(at),
                1 => {
                    let end = (at + len as usize % 40).min(out.len());
                    out.drain(at..end);
                }
                _ => out.insert(at, ch),
            }
            out.into_iter().collect()
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    /// Parsing and verifying mutated fixtures gives a verdict or an error, never a panic (and
    /// the parser's own panic guard never fires).
    #[test]
    fn malformed_ir_never_panics(text in mutated_fixture()) {
        let verdict = verify_text(&text, Path::new("mutated.pir"));
        if let FileVerdict::Unparsable(error) = &verdict {
            prop_assert!(!error.message.contains("parser panic"), "pliron's parser panicked: {}", error);
        }
    }
}

/// The scope guard counts the wgmma operations as semantic: a scope whose only protocol work
/// is a multiply and its wait is verified (and its rules run), not skipped.
#[test]
fn the_scope_guard_verifies_a_scope_whose_only_semantic_operations_are_wgmma() {
    for name in ["good/wgmma_wait_keeps_the_newest_group.pir", "bad/wgmma_read_before_wait.pir"] {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
        let text = read(&file);
        assert!(!text.contains("semantic.state_new") && !text.contains("semantic.dynamic_shared_base"));
        match verify_text(&text, &file) {
            FileVerdict::Verified(reports) => {
                assert_eq!(reports[0].status, ScopeStatus::Verified, "{name}");
                assert!(reports[0].semantic_ops >= 4, "{name}");
            }
            FileVerdict::Rejected(rejections) => {
                assert_eq!(rejections[0].rule, Rule::WgmmaAccumulatorRead, "{name}");
            }
            other => panic!("{name}: {other:?}"),
        }
    }
}

/// The oracle reaches the same rejections as the indexed verifier on every fixture, good and
/// bad: the wgmma rules' worklist and the oracle's full rounds agree on what they reject.
#[test]
fn the_oracle_rejects_what_the_indexed_verifier_rejects_on_every_fixture() {
    for file in fixtures("good").into_iter().chain(fixtures("bad")) {
        let text = read(&file);
        let mut ctx = plugin::new_context();
        let module = parse_module(&mut ctx, &text, &file).expect("every fixture parses");
        for scope in scopes_of_module(&ctx, module) {
            let indexed = plugin::verify::analyze_scope(&ctx, &scope);
            let oracle = plugin::harness::oracle::analyze_scope(&ctx, &scope);
            assert_eq!(indexed.rejections, oracle.rejections, "{}", file.display());
        }
    }
}
