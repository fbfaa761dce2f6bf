//! The report renders in a real browser: headless Chromium loads the page from a file, runs
//! its script, and the dumped DOM holds one row per pinned kernel (built by the script from the
//! page's data), the canon-check counts, the default-vs-cuda-oxide table's rows, the order
//! `#sort=` asks for, and the four charts drawn
//! from the committed inputs in `tests/fixtures/report/` (every bar and point of each); a
//! screenshot is taken. Where Chromium is not installed those tests skip through
//! `xtask::skips`, so `just test` counts them as skipped; a test here shows that it does.
//! `KERNELS_CHROMIUM` names the browser (a missing file: not installed);
//! `KERNELS_REPORT_SCREENSHOT` keeps the screenshot at that path.

use std::path::{Path, PathBuf};
use std::process::Command;

use gpu_runner::module_compare::Comparison;
use gpu_runner::report::RunDocument;
use regress::canon::{self, CanonReport};
use regress::layout::Layout;
use regress::ptxas::{FunctionKind, FunctionReport};
use regress::shapes::ShapeTable;
use regress::timing_record::TimingRecord;
use xtask::report::{BAR, BAR_FLAGGED, BackendComparison, Backends, Inputs, SERIES, Sources, count_filled};

const CHROMIUM_VAR: &str = "KERNELS_CHROMIUM";
const WHY_SKIPPED: &str = "Chromium is not installed (/usr/bin/chromium, or KERNELS_CHROMIUM); install it with `apt-get install chromium`";

fn chromium() -> Option<PathBuf> {
    if let Some(named) = std::env::var_os(CHROMIUM_VAR) {
        let named = PathBuf::from(named);
        return named.is_file().then_some(named);
    }
    let installed = Path::new("/usr/bin/chromium");
    if installed.is_file() {
        return Some(installed.to_path_buf());
    }
    ["chromium", "chromium-browser"].iter().find_map(|name| xtask::shapes::on_path(name))
}

/// Chromium, or `None` after test `name` said it skipped for want of it ([`WHY_SKIPPED`]).
fn chromium_or_skip(name: &str) -> Option<PathBuf> {
    let browser = chromium();
    if browser.is_none() {
        xtask::skips::skip(name, WHY_SKIPPED);
    }
    browser
}

/// Headless Chromium with a throwaway profile and nothing fetched in the background.
fn headless(browser: &Path, profile: &Path) -> Command {
    let mut command = Command::new(browser);
    command
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.display()));
    command
}

/// The DOM of `page` after its scripts ran, as headless Chromium dumps it.
fn dump_dom(browser: &Path, page: &Path, fragment: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let output = headless(browser, profile.path())
        .arg("--dump-dom")
        .arg(format!("file://{}{fragment}", page.display()))
        .output()
        .unwrap();
    assert!(output.status.success(), "chromium failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn the_report_renders_its_tables_in_headless_chromium() {
    let Some(browser) = chromium_or_skip("report::the_report_renders_its_tables_in_headless_chromium") else {
        return;
    };
    let layout = Layout::from_build();
    let table = ShapeTable::parse(&std::fs::read_to_string(layout.shapes_table()).unwrap()).unwrap();
    assert!(table.rows.len() >= 10);
    // A canon-check result with one `other` entry whose diff holds markup-like text.
    let old = ".visible .entry k()\n{\n\t.reg .b32 %r<3>;\n\tadd.s32 %r1, %r2, 1;\n\tret;\n}\n";
    let new = old.replace("add.s32", "sub.s32");
    let result = canon::compare(
        "old </script> side",
        &[("a.ptx".into(), old.into())],
        "new",
        &[("b.ptx".into(), new)],
    )
    .unwrap();

    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("index.html");
    let inputs = Inputs {
        canon: Some(xtask::report::Loaded { source: "test".into(), data: result }),
        backends: Some(Backends::Compared(small_backends())),
        ..Inputs::default()
    };
    xtask::report::write(&page, &table, "regress/ptx-shapes.tsv", &inputs).unwrap();
    let dom = dump_dom(&browser, &page, "");
    assert!(dom.contains(r#"<body data-rendered="yes">"#), "the script ran to its end:\n{dom}");
    for row in &table.rows {
        assert!(
            dom.contains(&format!(r#"<tr data-kernel="{}">"#, row.kernel)),
            "row of {}:\n{dom}",
            row.kernel
        );
        assert!(dom.contains(&row.pin.reason), "pin reason of {}", row.kernel);
    }
    assert!(dom.contains(r#"<tr data-entry="k">"#), "{dom}");
    assert!(dom.contains("old &lt;/script&gt; side"), "text is shown as text:\n{dom}");
    assert!(dom.contains("+  sub.s32"), "the diff of the `other` entry:\n{dom}");
    for entry in ["k", "same"] {
        assert!(
            dom.contains(&format!(r#"<tr data-backend-entry="{entry}">"#)),
            "backends row {entry}:\n{dom}"
        );
    }
    assert!(dom.contains("only in default: only_default"), "{dom}");

    // Sorted by reg_32 on load, largest first: the rows' order in the DOM follows the values.
    let reg_32 = |kernel: &str| -> u64 { table.row(kernel).unwrap().values["reg_32"].parse().unwrap() };
    let row_order = |dom: &str| -> Vec<u64> {
        let mut rows: Vec<(usize, u64)> = table
            .rows
            .iter()
            .map(|row| {
                (dom.find(&format!(r#"<tr data-kernel="{}">"#, row.kernel)).unwrap(), reg_32(&row.kernel))
            })
            .collect();
        rows.sort();
        rows.into_iter().map(|(_, registers)| registers).collect()
    };
    let unsorted = row_order(&dom);
    assert!(
        unsorted.windows(2).any(|w| w[0] < w[1]),
        "the table's own order is not already sorted: {unsorted:?}"
    );
    let sorted = row_order(&dump_dom(&browser, &page, "#sort=reg_32"));
    assert!(sorted.windows(2).all(|w| w[0] >= w[1]), "sorted by reg_32, largest first: {sorted:?}");
}

/// The committed inputs of the chart test: a canon-check and a timing record (fixtures), a GPU
/// run and a GPU comparison (the H200's results).
fn fixture_sources(layout: &Layout) -> Sources {
    let fixture = |name: &str| Some(layout.resolve("xtask/tests/fixtures/report").join(name));
    Sources {
        canon: fixture("canon.json"),
        timing: fixture("timing.json"),
        gpu_run: Some(layout.resolve("kernels/gpu-runner/results/h200-run.json")),
        gpu_compare: Some(layout.resolve("kernels/gpu-runner/results/h200-compare-opt3-vs-opt1.json")),
    }
}

/// The `<svg data-chart="id">…</svg>` element of `dom`.
fn chart<'a>(dom: &'a str, id: &str) -> &'a str {
    let start =
        dom.find(&format!(r#"<svg data-chart="{id}""#)).unwrap_or_else(|| panic!("chart {id} in the DOM"));
    let end = start + dom[start..].find("</svg>").expect("the chart's end");
    &dom[start..end]
}

/// Width and height from a PNG's header.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG");
    let word = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (word(16), word(20))
}

#[test]
fn the_report_draws_its_four_charts_in_headless_chromium() {
    let Some(browser) = chromium_or_skip("report::the_report_draws_its_four_charts_in_headless_chromium")
    else {
        return;
    };
    let layout = Layout::from_build();
    let inputs = Inputs::load(&layout, &fixture_sources(&layout)).unwrap();
    let (canon, timing, run, compare): (&CanonReport, &TimingRecord, &RunDocument, &Comparison) = (
        &inputs.canon.as_ref().unwrap().data,
        &inputs.timing.as_ref().unwrap().data,
        &inputs.gpu_run.as_ref().unwrap().data,
        &inputs.gpu_compare.as_ref().unwrap().data,
    );
    let table = ShapeTable::parse(&std::fs::read_to_string(layout.shapes_table()).unwrap()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("index.html");
    xtask::report::write(&page, &table, "regress/ptx-shapes.tsv", &inputs).unwrap();
    let dom = dump_dom(&browser, &page, "");
    assert!(dom.contains(r#"<body data-rendered="yes">"#), "the script ran to its end");
    for id in ["canon", "timing", "gpu-run", "gpu-compare"] {
        assert!(!dom.contains(&format!(r#"data-missing="{id}""#)), "the input of {id} was given");
    }
    assert_eq!(dom.matches("<svg data-chart=").count(), 4, "four charts");

    // The canon-check: one bar per class and per unmatched side, `other` in red.
    let bars = |svg: &str| count_filled(svg, BAR) + count_filled(svg, BAR_FLAGGED);
    assert_eq!(bars(chart(&dom, "canon")), canon.counts().len() + 2);
    assert!(dom.contains(&canon.summary_line()), "the summary line");
    // The timing: every point of every series, in its series' colour, and each exponent.
    let timing_chart = chart(&dom, "timing");
    for (series, colour) in timing.series.iter().zip(SERIES) {
        assert_eq!(count_filled(timing_chart, colour), series.points.len(), "points of {}", series.name);
        let growth = series.growth.as_ref().expect("the fixture's series are fitted");
        assert!(timing_chart.contains(&format!("k = {:.2}", growth.exponent)), "exponent of {}", series.name);
    }
    assert!(
        timing.series.iter().any(|s| s.verifier == "pristine")
            && timing.series.iter().any(|s| s.verifier == "patched")
    );
    // The GPU run: a bar per verdict with a copy fraction and per verdict with a peer ratio.
    let with_copy = run.verdicts.iter().filter(|v| v.fraction_of_copy.is_some()).count();
    let with_peer = run.verdicts.iter().filter(|v| v.ours_over_peer.is_some()).count();
    assert!(with_copy > 0 && with_peer > 0, "the fixture has both");
    assert_eq!(bars(chart(&dom, "gpu-run")), with_copy + with_peer);
    // The comparison: a bar per timing shape, the slower ones red.
    let compare_chart = chart(&dom, "gpu-compare");
    assert_eq!(bars(compare_chart), compare.shapes.iter().filter(|s| s.medians.ratio.is_some()).count());
    assert_eq!(count_filled(compare_chart, BAR_FLAGGED), compare.shapes.iter().filter(|s| s.slower).count());
    for kernel in &compare.kernels {
        assert!(
            dom.contains(&format!(r#"<tr data-compare-kernel="{}">"#, kernel.kernel)),
            "{}",
            kernel.kernel
        );
    }

    // A screenshot of the whole page, as a person would see it.
    let shot = std::env::var_os("KERNELS_REPORT_SCREENSHOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| dir.path().join("report.png"));
    let profile = tempfile::tempdir().unwrap();
    let output = headless(&browser, profile.path())
        .arg("--hide-scrollbars")
        .arg("--window-size=1440,5200")
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    assert!(output.status.success(), "chromium failed: {}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(png_size(&std::fs::read(&shot).unwrap()), (1440, 5200), "the screenshot of the page");
}

#[test]
fn without_chromium_the_browser_tests_are_counted_as_skipped_not_passed() {
    // This test binary again, with no browser: the run's counts move both browser tests from
    // passed to skipped, each named with its reason.
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.args([
        "--exact",
        "the_report_renders_its_tables_in_headless_chromium",
        "the_report_draws_its_four_charts_in_headless_chromium",
    ]);
    command.env(CHROMIUM_VAR, "/nonexistent/chromium");
    let (counts, skips) = xtask::process::run_tests(&mut command, "the browser tests").unwrap();
    assert_eq!((counts.passed, counts.failed), (2, 0), "libtest counts a skipped test as passed");
    let names: Vec<&str> = skips.iter().map(|s| s.test.as_str()).collect();
    assert_eq!(
        names,
        [
            "report::the_report_draws_its_four_charts_in_headless_chromium",
            "report::the_report_renders_its_tables_in_headless_chromium"
        ]
    );
    assert!(skips.iter().all(|s| s.reason.contains("Chromium is not installed")));
    assert_eq!(
        xtask::skips::closing_line(counts.passed, counts.failed, &skips),
        format!(
            "0 passed, 0 failed, 2 skipped: report::the_report_draws_its_four_charts_in_headless_chromium ({WHY_SKIPPED}); \
             report::the_report_renders_its_tables_in_headless_chromium ({WHY_SKIPPED})"
        )
    );
}

#[test]
fn without_inputs_each_section_says_which_command_produces_it() {
    let table = ShapeTable::empty();
    let page = xtask::report::render(&table, "t.tsv", &Inputs::default()).unwrap();
    assert!(page.contains(r#""canon":null"#));
    for (id, command) in [
        ("canon", "just canon-check OLD NEW"),
        ("timing", "just test"),
        ("gpu-run", "just gpu"),
        ("gpu-compare", "just gpu --compare OLD.ptx NEW.ptx"),
        ("backends", "just kernels; just kernels-oxide"),
        ("gemm-sweep", "just gpu (gemm_bf16_wgmma_bf16 among the kernels"),
    ] {
        let at = page.find(&format!(r#"data-missing="{id}""#)).unwrap_or_else(|| panic!("section {id}"));
        let paragraph = &page[at..at + page[at..].find("</p>").unwrap()];
        assert!(paragraph.contains(command), "{id}: {paragraph}");
    }
    assert!(!page.contains("<svg"), "no chart without data");
    assert!(!page.contains("http"), "the page fetches nothing");
}

#[test]
fn a_named_input_that_does_not_exist_is_an_error_naming_it() {
    let layout = Layout::from_build();
    let sources = Sources { gpu_compare: Some("no/such/compare.json".into()), ..Sources::default() };
    let error = Inputs::load(&layout, &sources).unwrap_err().to_string();
    assert!(error.contains("no/such/compare.json") && error.contains("does not exist"), "{error}");
}

/// Two small modules as the two backends' PTX: `k` differs, `same` does not, `only_default`
/// is the default backend's alone; ptxas figures for both sides of `k` and one of `same`.
fn small_backends() -> BackendComparison {
    let default = ".visible .entry k()\n{\n\t.reg .b32 %r<3>;\n\tadd.s32 %r1, %r2, 1;\n\tret;\n}\n\
                   .visible .entry same()\n{\n\tret;\n}\n.visible .entry only_default()\n{\n\tret;\n}\n";
    let oxide = ".visible .entry same()\n{\n\tret;\n}\n\
                 .visible .entry k()\n{\n\t.reg .b32 %r<3>;\n\tsub.s32 %r1, %r2, 1;\n\tret;\n}\n";
    let entry = |name: &str, registers: u32, spills: (u32, u32)| FunctionReport {
        name: name.into(),
        kind: FunctionKind::Entry,
        sm: "sm_90a".into(),
        registers: Some(registers),
        barriers: Some(0),
        spill_store_bytes: spills.0,
        spill_load_bytes: spills.1,
        stack_frame_bytes: 0,
    };
    BackendComparison::of(
        ("kernels.ptx", default),
        ("kernels_oxide.ptx", oxide),
        vec![entry("k", 40, (0, 0)), entry("same", 8, (16, 8))],
        vec![entry("k", 48, (4, 4))],
    )
    .unwrap()
}

#[test]
fn the_backends_section_holds_a_row_per_shared_entry_or_names_the_missing_build() {
    let table = ShapeTable::empty();
    let inputs = Inputs { backends: Some(Backends::Compared(small_backends())), ..Inputs::default() };
    let page = xtask::report::render(&table, "t.tsv", &inputs).unwrap();
    assert!(!page.contains(r#"data-missing="backends""#));
    assert!(
        page.contains(
            r#"id="backends-summary">default vs cuda-oxide: 2 entries in both (1 identical, 1 other); 1 only in default</p>"#
        ),
        "{page}"
    );
    assert!(page.contains("just canon-check kernels.ptx kernels_oxide.ptx"), "the command for the diffs");
    let data = xtask::report::page_data(&table, "t.tsv", &inputs);
    let backends = &data["backends"];
    assert_eq!(backends["columns"][2], "default registers");
    assert_eq!(
        backends["rows"],
        serde_json::json!([
            ["k", "other", "40", "0/0", "48", "4/4"],
            ["same", "identical", "8", "16/8", "—", "—"]
        ])
    );
    assert_eq!(backends["only_default"], serde_json::json!(["only_default"]));
    assert_eq!(backends["diffs"][0][0], "k");
    assert!(backends["diffs"][0][1].as_str().unwrap().contains("+  sub.s32"), "the diff of `k`");

    let missing =
        Backends::Missing(vec![("kernels/oxide/target/ptx/kernels_oxide.ptx".into(), "just kernels-oxide")]);
    let inputs = Inputs { backends: Some(missing), ..Inputs::default() };
    let page = xtask::report::render(&table, "t.tsv", &inputs).unwrap();
    let at = page.find(r#"data-missing="backends""#).expect("the section says what is missing");
    let paragraph = &page[at..at + page[at..].find("</p>").unwrap()];
    assert!(
        paragraph.contains("kernels/oxide/target/ptx/kernels_oxide.ptx")
            && paragraph.contains("just kernels-oxide"),
        "{paragraph}"
    );
    assert_eq!(page.matches(r#"data-missing="backends""#).count(), 1, "only the missing side is named");
    assert_eq!(xtask::report::page_data(&table, "t.tsv", &inputs)["backends"], serde_json::Value::Null);
}
