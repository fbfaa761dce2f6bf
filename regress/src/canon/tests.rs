//! Synthetic pairs made from the real PTX in the committed snapshots: each test changes one
//! kernel in one way and expects exactly that class. (Pairs from real builds are in
//! `xtask/tests/canon_check.rs`.)

use regex::Regex;

use super::*;

fn snapshot(entry: &str) -> String {
    let snapshots = crate::ptx::tests::committed_snapshot_ptx();
    snapshots.into_iter().find(|(name, _)| name == entry).unwrap().1
}

fn side(name: &str, text: &str) -> Vec<(String, String)> {
    vec![(name.to_string(), text.to_string())]
}

/// The class of `entry` after `change` turns its PTX into the new side.
fn class_after(entry: &str, change: impl Fn(&str) -> String) -> (Class, Option<String>) {
    let old = snapshot(entry);
    let new = change(&old);
    assert_ne!(old, new, "the change must change the text of {entry}");
    let report = compare("old", &side("old.ptx", &old), "new", &side("new.ptx", &new)).unwrap();
    assert_eq!(report.entries.len(), 1);
    let comparison = &report.entries[0];
    assert_eq!(comparison.entry, entry);
    (comparison.class, comparison.diff.clone())
}

fn replace_once(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "`{from}` is in the PTX");
    text.replacen(from, to, 1)
}

#[test]
fn other_crate_hashes_and_comments_are_identical() {
    let class = class_after("shared_memory_helper_cross_crate", |ptx| {
        ptx.replace("CscrateHash1_", "CsOTHERhash1_").replace("\tret;", "\tret; // a comment")
    });
    assert_eq!(class, (Class::Identical, None));
}

#[test]
fn shifted_register_numbers_are_renumbering_only() {
    let class = class_after("saxpy", |ptx| {
        let number = Regex::new(r"%rd(\d+)").unwrap();
        number
            .replace_all(ptx, |c: &regex::Captures| format!("%rd{}", c[1].parse::<u32>().unwrap() + 40))
            .into_owned()
    });
    assert_eq!(class, (Class::RegisterRenumbering, None));
}

#[test]
fn a_load_of_an_input_becoming_non_coherent_is_nc_only_if_the_parameters_do_not_overlap() {
    // saxpy reads x (`%r6`) and writes y: `.nc` on x is harmless unless the launch aliases them.
    let class =
        class_after("saxpy", |ptx| replace_once(ptx, "ld.global.b32 \t%r6,", "ld.global.nc.b32 \t%r6,"));
    assert_eq!(class, (Class::NonCoherentLoadsIfParametersDistinct, None));
}

#[test]
fn a_load_of_memory_the_kernel_writes_becoming_non_coherent_is_other() {
    // `%r7` is y, which saxpy stores to.
    let (class, _) =
        class_after("saxpy", |ptx| replace_once(ptx, "ld.global.b32 \t%r7,", "ld.global.nc.b32 \t%r7,"));
    assert_eq!(class, Class::Other);
}

#[test]
fn two_swapped_instructions_in_a_block_are_order_only() {
    let class = class_after("vector_add", |ptx| {
        let lines: Vec<&str> = ptx.lines().collect();
        let first = lines.iter().position(|l| l.trim_start().starts_with("mov.u32")).unwrap();
        assert!(lines[first + 1].trim_start().starts_with("mov.u32"), "two moves in a row in vector_add");
        let mut swapped: Vec<&str> = lines.clone();
        swapped.swap(first, first + 1);
        swapped.join("\n") + "\n"
    });
    assert_eq!(class, (Class::OrderWithinBlocks, None));
}

#[test]
fn a_global_load_made_generic_through_a_global_window_address_is_other() {
    // The address is still `cvta.to.global` of the parameter: a generic access through a
    // global-window address is not the same access.
    let (class, _) = class_after("saxpy", |ptx| replace_once(ptx, "ld.global.b32", "ld.b32"));
    assert_eq!(class, Class::Other);
}

#[test]
fn a_dropped_address_conversion_is_state_space_only() {
    let old = ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\t.reg .b32 \t%r<3>;\n\t.reg .b64 \t%rd<4>;\n\
               \tld.param.b64 \t%rd1, [k_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\
               \tld.global.b32 \t%r1, [%rd2];\n\tst.global.b32 \t[%rd2+4], %r1;\n\tret;\n}\n";
    let new = ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\t.reg .b32 \t%r<3>;\n\t.reg .b64 \t%rd<3>;\n\
               \tld.param.b64 \t%rd1, [k_param_0];\n\
               \tld.b32 \t%r1, [%rd1];\n\tst.b32 \t[%rd1+4], %r1;\n\tret;\n}\n";
    let report = compare("old", &side("old.ptx", old), "new", &side("new.ptx", new)).unwrap();
    assert_eq!(report.entries[0].class, Class::StateSpace);
}

#[test]
fn changed_arithmetic_is_other_with_a_short_diff() {
    let (class, diff) = class_after("vector_add", |ptx| replace_once(ptx, "add.rn.f32", "sub.rn.f32"));
    assert_eq!(class, Class::Other);
    let diff = diff.unwrap();
    assert!(diff.contains("-  add.rn.f32") && diff.contains("+  sub.rn.f32"), "{diff}");
    assert!(diff.lines().count() <= DIFF_LINES + 1);
}

#[test]
fn two_kinds_of_change_at_once_are_other() {
    let (class, _) = class_after("saxpy", |ptx| {
        replace_once(&replace_once(ptx, "ld.global.b32", "ld.global.nc.b32"), "mul.wide.u32", "mul.lo.u32")
    });
    assert_eq!(class, Class::Other);
}

#[test]
fn a_report_counts_every_class_and_lists_unmatched_entries() {
    let old = [snapshot("saxpy"), snapshot("vector_add"), snapshot("silu_mul")];
    let new = [
        replace_once(&old[0], "ld.global.b32", "ld.global.nc.b32"),
        replace_once(&old[1], "add.rn.f32", "sub.rn.f32"),
        snapshot("rms_norm"),
    ];
    let sides = |texts: &[String]| -> Vec<(String, String)> {
        texts.iter().enumerate().map(|(i, t)| (format!("{i}.ptx"), t.clone())).collect()
    };
    let report = compare("OLD", &sides(&old), "NEW", &sides(&new)).unwrap();
    assert_eq!(report.count(Class::NonCoherentLoadsIfParametersDistinct), 1);
    assert_eq!(report.count(Class::Other), 1);
    assert_eq!(report.count(Class::Identical), 0);
    assert_eq!(
        (report.only_old.as_slice(), report.only_new.as_slice()),
        (&["silu_mul".to_string()][..], &["rms_norm".to_string()][..])
    );
    let text = report.render_text();
    assert!(text.contains(".nc only, if pointer parameters do not overlap"), "{text}");
    assert!(text.contains("\nother: vector_add\n"), "{text}");
    let json = serde_json::to_string(&report).unwrap();
    assert_eq!(serde_json::from_str::<CanonReport>(&json).unwrap(), report);
}

#[test]
fn malformed_input_names_the_file_line_and_column() {
    let error = compare("old", &side("a/k.ptx", ".visible .entry k()\n{\n  ret\n"), "new", &[]).unwrap_err();
    assert_eq!(error.to_string(), "a/k.ptx:2:1: `{` is never closed");
}

#[test]
fn a_statement_dominates_only_what_every_path_passes_it_to_reach() {
    let text = ".visible .entry k()\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\tmov.u32 %r1, 0;\n\
                \t@%p1 bra L1;\n\tmov.u32 %r2, 1;\nL1:\n\tmov.u32 %r3, 2;\n\tret;\n}\n";
    let program = Program::read(text).unwrap();
    let dominance = super::cfg::Dominance::of(program.function("k").unwrap());
    // Statements: 0, 1 declarations; 2 mov %r1; 3 branch; 4 mov %r2; 5 label; 6 mov %r3; 7 ret.
    assert!(dominance.dominates(2, 6), "the entry block dominates the join");
    assert!(dominance.dominates(3, 4), "the branch comes before its fall-through");
    assert!(!dominance.dominates(4, 6), "the branch skips the fall-through block");
    assert!(!dominance.dominates(6, 2), "nothing later dominates the start");
}

fn entry(name: &str, class: Class) -> EntryComparison {
    EntryComparison { entry: name.into(), class, diff: None }
}

#[test]
fn the_summary_counts_every_entry_and_names_each_kind_of_difference() {
    let report = CanonReport {
        old: "old".into(),
        new: "new".into(),
        entries: vec![
            entry("a", Class::Identical),
            entry("b", Class::NonCoherentLoads),
            entry("c", Class::NonCoherentLoads),
            entry("d", Class::Other),
        ],
        only_old: vec![],
        only_new: vec!["e".into()],
    };
    assert_eq!(
        report.summary_line(),
        "canon-check: 4/5 entries differ (2 ld.global <-> ld.global.nc only, 1 other, 1 only in new)"
    );
    let same = CanonReport { entries: vec![entry("a", Class::Identical)], only_new: vec![], ..report };
    assert_eq!(same.summary_line(), "canon-check: 0/1 entries differ");
}
