//! The report renders in a real browser: headless Chromium loads the page from a file, runs
//! its script, and the dumped DOM holds one row per pinned kernel (built by the script from the
//! page's data), the canon-check counts, and the order `#sort=` asks for. Skipped, with the
//! reason printed, only where Chromium is not installed.

use std::path::{Path, PathBuf};
use std::process::Command;

use regress::canon;
use regress::layout::Layout;
use regress::shapes::ShapeTable;

fn chromium() -> Option<PathBuf> {
    let installed = Path::new("/usr/bin/chromium");
    if installed.is_file() {
        return Some(installed.to_path_buf());
    }
    ["chromium", "chromium-browser"].iter().find_map(|name| xtask::shapes::on_path(name))
}

/// The DOM of `page` after its scripts ran, as headless Chromium dumps it.
fn dump_dom(browser: &Path, page: &Path, fragment: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let output = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(format!("file://{}{fragment}", page.display()))
        .output()
        .unwrap();
    assert!(output.status.success(), "chromium failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn the_report_renders_its_tables_in_headless_chromium() {
    let Some(browser) = chromium() else {
        println!(
            "SKIPPED: Chromium is not installed (/usr/bin/chromium); install it with `apt-get install chromium`"
        );
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
    xtask::report::write(&page, &table, "regress/ptx-shapes.tsv", Some(&result)).unwrap();
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

#[test]
fn without_a_canon_check_the_page_says_so() {
    let table = ShapeTable::empty();
    let page = xtask::report::render(&table, "t.tsv", None);
    assert!(page.contains(r#""canon":null"#));
    assert!(page.contains("No canon-check has run yet"));
    assert!(!page.contains("http"), "the page fetches nothing");
}
