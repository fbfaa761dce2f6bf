//! `just report`: one self-contained HTML page (inline CSS, script and SVG, nothing fetched)
//! with what a reviewer of a pin bump needs: the last canon-check (summary line, a chart of
//! entries per class, sortable tables), the verifier timing curves on log-log axes with their
//! fitted exponents (patched and pristine pliron, and the oracle), the last GPU run as bars
//! (% of copy bandwidth, ratio to PyTorch), its GEMM shape sweep against cuBLAS with the
//! verifier's verdict on each wgmma entry (`sweep`), and the last `gpu-runner --compare` as a
//! per-kernel ratio chart; then "default vs cuda-oxide", canon-check's class of each entry
//! both backends build with both sides' ptxas registers and spills, computed from the two PTX
//! files on disk each time the page is written (`backends`); then the pinned PTX shapes with
//! their pins and reasons.
//!
//! Data flow: [`Inputs::load`] reads each input's last result (or the file given for it), a
//! missing one becoming a section that says which command produces it; [`render`] draws the
//! charts (`charts`, plotters into SVG text) and puts the tables' data into the page as JSON,
//! from which the page's script builds the rows (so a headless browser that shows the rows
//! has also run the script). `#sort=<column>` in the address sorts the shapes table on load.

mod backends;
mod charts;
mod sweep;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use gpu_runner::gemm_sweep::VerifierVerdicts;
use gpu_runner::module_compare::Comparison;
use gpu_runner::report::RunDocument;
use regress::canon::{CanonReport, Class};
use regress::layout::Layout;
use regress::shapes::ShapeTable;
use regress::timing_record::TimingRecord;
use serde_json::{Value, json};

pub use backends::{BackendComparison, Backends};
pub use charts::{BAR, BAR_FLAGGED, SERIES, count_filled};

use crate::atomic::write_file;

/// Where `just report` writes the page.
pub fn report_path(layout: &Layout) -> PathBuf {
    layout.root().join("target").join("report").join("index.html")
}

/// Files to read instead of the last results (`just report --canon FILE …`).
#[derive(Debug, Default, Clone)]
pub struct Sources {
    pub canon: Option<PathBuf>,
    pub timing: Option<PathBuf>,
    pub gpu_run: Option<PathBuf>,
    pub gpu_compare: Option<PathBuf>,
}

/// One input of the page: where it came from and what it holds.
#[derive(Debug, Clone)]
pub struct Loaded<T> {
    pub source: String,
    pub data: T,
}

/// Everything the page shows besides the shapes table; `None` where the input is missing.
#[derive(Debug, Default, Clone)]
pub struct Inputs {
    pub canon: Option<Loaded<CanonReport>>,
    pub timing: Option<Loaded<TimingRecord>>,
    pub gpu_run: Option<Loaded<RunDocument>>,
    pub gpu_compare: Option<Loaded<Comparison>>,
    /// The wgmma entries' verdicts in the local kernels build's verify reports: shown beside the
    /// GEMM sweep when the run recorded none of its own.
    pub gemm_verdicts: Option<Loaded<VerifierVerdicts>>,
    /// The default backend's PTX against cuda-oxide's; `None` where not read (a page made from
    /// given inputs only), which the section shows as both builds missing.
    pub backends: Option<Backends>,
}

/// What produces each input, for the sections whose input is missing.
const HOW_CANON: &str = "just canon-check OLD NEW";
const HOW_TIMING: &str = "just test (its verifier timing step writes target/timing/last.json)";
const HOW_GPU_RUN: &str = "just gpu (on a GPU machine; from a bundle: just report --gpu-run last-run.json)";
const HOW_GPU_COMPARE: &str =
    "just gpu --compare OLD.ptx NEW.ptx (from a bundle: just report --gpu-compare compare.json)";
const HOW_BACKENDS: &str = "just kernels; just kernels-oxide";

/// Reads `path` with `read`, or `None` if it does not exist (the section then says so).
fn optional<T>(
    layout: &Layout,
    path: &Path,
    read: impl FnOnce(&Path) -> Result<T>,
) -> Result<Option<Loaded<T>>> {
    if !path.exists() {
        return Ok(None);
    }
    let shown = path.strip_prefix(layout.root()).unwrap_or(path).display().to_string();
    Ok(Some(Loaded { source: shown, data: read(path)? }))
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path, what: &str) -> Result<T> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not {what}", path.display()))
}

impl Inputs {
    /// The last results (or `sources`' files): a file named in `sources` must exist. The two
    /// backends' PTX are always the ones on disk.
    pub fn load(layout: &Layout, sources: &Sources) -> Result<Inputs> {
        let pick = |given: &Option<PathBuf>, default: PathBuf| -> Result<PathBuf> {
            match given {
                Some(path) => {
                    let path = layout.resolve(path);
                    anyhow::ensure!(path.is_file(), "{} does not exist", path.display());
                    Ok(path)
                }
                None => Ok(default),
            }
        };
        let canon = pick(&sources.canon, crate::canon_check::last_result_path(layout))?;
        let timing = pick(&sources.timing, TimingRecord::last_path(layout))?;
        let gpu_run = pick(&sources.gpu_run, layout.last_gpu_run())?;
        let gpu_compare = pick(&sources.gpu_compare, layout.last_gpu_compare())?;
        Ok(Inputs {
            canon: optional(layout, &canon, crate::canon_check::load)?,
            timing: optional(layout, &timing, |p| TimingRecord::read(p).map_err(anyhow::Error::msg))?,
            gpu_run: optional(layout, &gpu_run, |p| read_json(p, "a gpu-runner --json document"))?,
            gpu_compare: optional(layout, &gpu_compare, |p| read_json(p, "a gpu-runner --compare document"))?,
            gemm_verdicts: optional(
                layout,
                &layout.verify_reports_dir(),
                gpu_runner::gemm_sweep::read_verdicts,
            )?,
            backends: Some(backends::read(layout)?),
        })
    }
}

/// `cargo xtask report`.
pub fn report(layout: &Layout, sources: &Sources) -> Result<()> {
    let table_path = layout.shapes_table();
    let table = crate::shapes::read_table(&table_path)?;
    let inputs = Inputs::load(layout, sources)?;
    for (present, what, how) in [
        (inputs.canon.is_some(), "canon-check", HOW_CANON),
        (inputs.timing.is_some(), "verifier timing", HOW_TIMING),
        (inputs.gpu_run.is_some(), "GPU run", HOW_GPU_RUN),
        (inputs.gpu_compare.is_some(), "GPU comparison", HOW_GPU_COMPARE),
        (
            inputs.gpu_run.as_ref().is_some_and(|r| r.data.gemm_sweep.is_some()),
            "GEMM shape sweep",
            sweep::HOW_GEMM_SWEEP,
        ),
    ] {
        if !present {
            eprintln!("==> no {what} result yet (`{how}`): the page says so");
        }
    }
    if let Some(Backends::Missing(missing)) = &inputs.backends {
        for (path, how) in missing {
            eprintln!("==> no default vs cuda-oxide table: {path} is missing (`{how}`): the page says so");
        }
    }
    let shown = table_path.strip_prefix(layout.root()).unwrap_or(&table_path);
    let page = render(&table, &shown.display().to_string(), &inputs)?;
    let path = report_path(layout);
    write_file(&path, &page)?;
    eprintln!("==> report: {}", path.display());
    Ok(())
}

/// The data the page's script renders (the tables).
pub fn page_data(table: &ShapeTable, table_name: &str, inputs: &Inputs) -> Value {
    let mut columns: Vec<&str> = vec!["kernel"];
    columns.extend(table.columns.iter().map(String::as_str));
    columns.extend(["pinned", "reason"]);
    let rows: Vec<Vec<String>> = table
        .rows
        .iter()
        .map(|row| {
            let mut cells = vec![row.kernel.clone()];
            cells.extend(table.columns.iter().map(|c| row.values.get(c).cloned().unwrap_or_default()));
            cells.extend([row.pin.date.clone(), row.pin.reason.clone()]);
            cells
        })
        .collect();
    let canon = inputs.canon.as_ref().map(|loaded| {
        let report = &loaded.data;
        json!({
            "source": loaded.source,
            "summary": report.summary_line(),
            "old": report.old,
            "new": report.new,
            "counts": report.counts().iter().map(|(class, n)| json!([class.label(), n])).collect::<Vec<_>>(),
            "only_old": report.only_old,
            "only_new": report.only_new,
            "entries": report.entries.iter().map(|e| json!([e.entry, e.class.label()])).collect::<Vec<_>>(),
            "diffs": report.entries.iter().filter_map(|e| e.diff.as_ref().map(|d| json!([e.entry, d]))).collect::<Vec<_>>(),
        })
    });
    let compare = inputs.gpu_compare.as_ref().map(|loaded| {
        let c = &loaded.data;
        json!({
            "kernels": c.kernels.iter().map(|k| json!([
                k.kernel, k.cases.to_string(), k.old_failed.to_string(), k.new_failed.to_string(),
                k.outputs_differ.to_string(), if k.slower { "SLOWER" } else { "" },
            ])).collect::<Vec<_>>(),
        })
    });
    let backends = match &inputs.backends {
        Some(Backends::Compared(b)) => json!({
            "columns": backends::COLUMNS,
            "rows": b.rows(),
            "diffs": b.diffs().iter().map(|(entry, diff)| json!([entry, diff])).collect::<Vec<_>>(),
            "only_default": b.canon.only_old,
            "only_oxide": b.canon.only_new,
        }),
        _ => Value::Null,
    };
    json!({
        "table": table_name, "columns": columns, "rows": rows, "canon": canon, "compare": compare,
        "backends": backends,
    })
}

/// Text for HTML content and attribute values.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A section whose input is missing: what produces it.
fn missing(id: &str, what: &str, how: &str) -> String {
    format!(r#"<p class="missing" data-missing="{id}">No {what} yet: run <code>{}</code>.</p>"#, escape(how))
}

fn source_line(source: &str) -> String {
    format!(r#"<p class="note">From <code>{}</code>.</p>"#, escape(source))
}

fn canon_section(canon: Option<&Loaded<CanonReport>>) -> Result<String> {
    let Some(loaded) = canon else { return Ok(missing("canon", "canon-check", HOW_CANON)) };
    let report = &loaded.data;
    let mut bars: Vec<charts::Bar> = report
        .counts()
        .into_iter()
        .map(|(class, n)| charts::Bar {
            label: class.label().to_owned(),
            value: n as f64,
            flagged: class == Class::Other,
        })
        .collect();
    for (names, side) in [(&report.only_old, "only in old"), (&report.only_new, "only in new")] {
        bars.push(charts::Bar {
            label: side.to_owned(),
            value: names.len() as f64,
            flagged: !names.is_empty(),
        });
    }
    let chart = charts::bar_chart(
        "canon",
        900,
        &charts::Bars { title: "entries per class", axis: "entries", bars: &bars, base: 0.0, marks: &[] },
    )?;
    Ok(format!(
        r#"{}<p class="summary" id="canon-summary">{}</p>{chart}"#,
        source_line(&loaded.source),
        escape(&report.summary_line())
    ))
}

fn backends_section(backends: Option<&Backends>) -> String {
    match backends {
        None => missing("backends", "PTX of the two backends", HOW_BACKENDS),
        Some(Backends::Missing(files)) => {
            files.iter().map(|(path, how)| missing("backends", path, how)).collect()
        }
        Some(Backends::Compared(b)) => format!(
            r#"<p class="note">From <code>{}</code> and <code>{}</code>, compared when this page was written; registers and spills from <code>regress/ptxas-sm90.tsv</code> and <code>regress/ptxas-sm90-cuda-oxide.tsv</code>; each diff in full: <code>just canon-check {0} {1}</code>.</p><p class="summary" id="backends-summary">{}</p><table id="backends-table"><thead></thead><tbody></tbody></table>"#,
            escape(&b.canon.old),
            escape(&b.canon.new),
            escape(&b.summary())
        ),
    }
}

fn timing_section(timing: Option<&Loaded<TimingRecord>>) -> Result<String> {
    let Some(loaded) = timing else { return Ok(missing("timing", "verifier timing", HOW_TIMING)) };
    let mut curves = Vec::new();
    let mut rows = String::new();
    for series in &loaded.data.series {
        let fit = match &series.growth {
            Some(g) => format!("k = {:.2} [{:.2}, {:.2}]", g.exponent, g.low, g.high),
            None => "k not fitted".to_owned(),
        };
        curves.push(charts::Curve {
            legend: format!("{} ({}): {fit}", series.name, series.verifier),
            points: series.points.iter().map(|p| (p.blocks as f64, p.median_ms)).collect(),
        });
        let sizes = match (series.points.first(), series.points.last()) {
            (Some(a), Some(b)) => format!("{}..{}", a.blocks, b.blocks),
            _ => "—".to_owned(),
        };
        rows.push_str(&format!(
            "<tr><td class=\"text\">{}</td><td class=\"text\">{}</td><td>{sizes}</td><td>{}</td></tr>",
            escape(&series.name),
            escape(&series.verifier),
            escape(&fit)
        ));
    }
    let chart =
        charts::log_log_chart("timing", (900, 460), "verify time against scope size (log-log)", &curves)?;
    Ok(format!(
        "{}{chart}<table id=\"timing-fits\"><thead><tr><th class=\"text\">series</th><th class=\"text\">verifier</th><th>blocks</th><th>fitted exponent [95 %]</th></tr></thead><tbody>{rows}</tbody></table>",
        source_line(&loaded.source)
    ))
}

fn gpu_run_section(run: Option<&Loaded<RunDocument>>) -> Result<String> {
    let Some(loaded) = run else { return Ok(missing("gpu-run", "GPU run", HOW_GPU_RUN)) };
    let run = &loaded.data;
    let label = |kernel: &str, shape: &str| format!("{kernel} {shape}");
    let copy: Vec<charts::Bar> = run
        .verdicts
        .iter()
        .filter_map(|v| {
            let fraction = v.fraction_of_copy?;
            let missed = v.targets.iter().any(|(what, met)| what.contains("of copy") && !met);
            Some(charts::Bar { label: label(&v.kernel, &v.shape), value: 100.0 * fraction, flagged: missed })
        })
        .collect();
    let peer: Vec<charts::Bar> = run
        .verdicts
        .iter()
        .filter_map(|v| {
            let ratio = v.ours_over_peer?;
            Some(charts::Bar { label: label(&v.kernel, &v.shape), value: ratio, flagged: ratio > 1.0 })
        })
        .collect();
    let chart = charts::bar_chart_pair(
        "gpu-run",
        1400,
        &charts::Bars {
            title: "% of copy bandwidth",
            axis: "% of the measured copy bandwidth",
            bars: &copy,
            base: 0.0,
            marks: &[100.0],
        },
        &charts::Bars {
            title: "time ours / PyTorch (lower is faster)",
            axis: "ratio",
            bars: &peer,
            base: 0.0,
            marks: &[1.0],
        },
    )?;
    let copy_line =
        run.copy_bytes_per_s.map_or(String::new(), |c| format!("; copy bandwidth {:.0} GB/s", c / 1e9));
    Ok(format!(
        r#"{}<p class="summary" id="gpu-run-summary">{}: {} cases, {} failed{}; red: a target missed, or slower than PyTorch</p>{chart}"#,
        source_line(&loaded.source),
        escape(&run.run.device),
        run.rows.len(),
        run.rows.iter().filter(|r| !r.passed).count(),
        copy_line
    ))
}

fn compare_section(compare: Option<&Loaded<Comparison>>) -> Result<String> {
    let Some(loaded) = compare else { return Ok(missing("gpu-compare", "GPU comparison", HOW_GPU_COMPARE)) };
    let c = &loaded.data;
    let bars: Vec<charts::Bar> = c
        .shapes
        .iter()
        .filter_map(|s| {
            Some(charts::Bar {
                label: format!("{} {}", s.case.kernel, s.case.shape),
                value: s.medians.ratio?,
                flagged: s.slower,
            })
        })
        .collect();
    let title = format!("new / old time, median of {} interleaved rounds", c.rounds);
    let chart = charts::bar_chart(
        "gpu-compare",
        1000,
        &charts::Bars {
            title: &title,
            axis: "new / old",
            bars: &bars,
            base: 1.0,
            marks: &[1.0, c.slower_limit],
        },
    )?;
    let slower = c.slower();
    let summary = format!(
        "{}: old {} vs new {}; new fails on {} kernels; {} slower by more than {:.0} %{}",
        c.run.device,
        c.old,
        c.new,
        c.new_failures().len(),
        slower.len(),
        (c.slower_limit - 1.0) * 100.0,
        if slower.is_empty() { String::new() } else { format!(" ({})", slower.join(", ")) }
    );
    Ok(format!(
        r#"{}<p class="summary" id="gpu-compare-summary">{}</p>{chart}<table id="compare-kernels"><thead></thead><tbody></tbody></table>"#,
        source_line(&loaded.source),
        escape(&summary)
    ))
}

/// The whole page.
pub fn render(table: &ShapeTable, table_name: &str, inputs: &Inputs) -> Result<String> {
    let data = page_data(table, table_name, inputs).to_string();
    // Inside a script element only `</` could end it early.
    let data = data.replace("</", "<\\/");
    Ok(PAGE
        .replace("<!--CANON-->", &canon_section(inputs.canon.as_ref())?)
        .replace("<!--TIMING-->", &timing_section(inputs.timing.as_ref())?)
        .replace("<!--GPU-RUN-->", &gpu_run_section(inputs.gpu_run.as_ref())?)
        .replace(
            "<!--GEMM-SWEEP-->",
            &sweep::section(inputs.gpu_run.as_ref(), inputs.gemm_verdicts.as_ref())?,
        )
        .replace("<!--GPU-COMPARE-->", &compare_section(inputs.gpu_compare.as_ref())?)
        .replace("<!--BACKENDS-->", &backends_section(inputs.backends.as_ref()))
        .replace("/*DATA*/", &data))
}

/// Writes the page for `table` and `inputs` to `path` (for tests and tools).
pub fn write(path: &Path, table: &ShapeTable, table_name: &str, inputs: &Inputs) -> Result<()> {
    write_file(path, &render(table, table_name, inputs)?)
}

const PAGE: &str = r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Pin bump report: canon-check, verifier timing, GPU</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #1d1d1f; background: #fafafa; }
  h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; }
  table { border-collapse: collapse; background: white; box-shadow: 0 1px 3px #0002; }
  th, td { padding: 4px 8px; border-bottom: 1px solid #e5e5e5; text-align: right; white-space: nowrap; }
  th { position: sticky; top: 0; background: #f0f0f3; cursor: pointer; user-select: none; }
  th.sorted-asc::after { content: " \25B2"; } th.sorted-desc::after { content: " \25BC"; }
  td.text, th.text { text-align: left; } td.reason { white-space: normal; min-width: 22em; }
  .scroll { overflow-x: auto; max-width: 100%; }
  td.zero { color: #aaa; }
  tr:hover td { background: #f5f8ff; }
  .class-other { color: #b00020; font-weight: 600; }
  pre { background: #272822; color: #f8f8f2; padding: 8px; overflow-x: auto; }
  .note { color: #666; }
  .missing { color: #8a5a00; background: #fff6e0; padding: 6px 10px; display: inline-block; }
  .summary { font-weight: 600; }
  svg { display: block; margin: 8px 0; max-width: 100%; height: auto; }
</style>
</head>
<body data-rendered="no">
<h1>Pin bump report</h1>
<p class="note">Click a column heading to sort; click again to reverse.</p>
<h2>Last canon-check</h2>
<section id="canon-chart"><!--CANON--></section>
<h2>Verifier timing</h2>
<section id="timing"><!--TIMING--></section>
<h2>Last GPU run</h2>
<section id="gpu-run"><!--GPU-RUN--></section>
<h2>GEMM vs cuBLAS, shape sweep</h2>
<section id="gemm-sweep"><!--GEMM-SWEEP--></section>
<h2>Last GPU comparison (gpu-runner --compare)</h2>
<section id="gpu-compare"><!--GPU-COMPARE--></section>
<h2>canon-check entries</h2>
<div id="canon"></div>
<h2>default vs cuda-oxide</h2>
<section id="backends"><!--BACKENDS--></section>
<h2>Shapes and pins (<span id="table-name"></span>)</h2>
<div class="scroll"><table id="shapes"><thead></thead><tbody></tbody></table></div>
<script type="application/json" id="data">/*DATA*/</script>
<script>
"use strict";
const data = JSON.parse(document.getElementById("data").textContent);

function cell(row, text, numeric, extra) {
  const td = document.createElement("td");
  td.textContent = text;
  td.className = (numeric ? (text === "0" ? "zero" : "") : "text") + (extra ? " " + extra : "");
  row.appendChild(td);
  return td;
}

// Builds a sortable table: columns, rows of strings, a name for each row's data-key.
function fill(table, columns, rows, keyName) {
  const numeric = columns.map((_, i) => rows.length > 0 && rows.every(r => r[i] !== "" && !isNaN(Number(r[i]))));
  const head = document.createElement("tr");
  columns.forEach((name, i) => {
    const th = document.createElement("th");
    th.textContent = name;
    th.dataset.column = name;
    if (!numeric[i]) th.className = "text";
    th.addEventListener("click", () => sortBy(table, i, numeric[i], th.classList.contains("sorted-desc")));
    head.appendChild(th);
  });
  table.tHead.appendChild(head);
  const body = table.tBodies[0];
  rows.forEach(r => {
    const tr = document.createElement("tr");
    tr.dataset[keyName] = r[0];
    r.forEach((text, i) => cell(tr, text, numeric[i], columns[i] === "reason" ? "reason" : (columns[i] === "class" && text === "other" ? "class-other" : "")));
    body.appendChild(tr);
  });
  table.numeric = numeric;
}

// Each `other` entry's diff, folded: a bump can have hundreds.
function folded(parent, diffs) {
  diffs.forEach(([entry, diff]) => {
    const details = document.createElement("details");
    const summary = document.createElement("summary");
    summary.textContent = "other: " + entry;
    const pre = document.createElement("pre");
    pre.textContent = diff;
    details.append(summary, pre);
    parent.appendChild(details);
  });
}

// A paragraph per non-empty list of names: [label, names].
function listed(parent, lists) {
  lists.forEach(([label, names]) => {
    if (names.length > 0) {
      const p = document.createElement("p");
      p.textContent = label + ": " + names.join(", ");
      parent.appendChild(p);
    }
  });
}

function sortBy(table, index, numeric, ascending) {
  const body = table.tBodies[0];
  const rows = Array.from(body.rows);
  const value = r => r.cells[index].textContent;
  rows.sort((a, b) => {
    const order = numeric ? Number(value(a)) - Number(value(b)) : value(a).localeCompare(value(b));
    return ascending ? order : -order;
  });
  rows.forEach(r => body.appendChild(r));
  Array.from(table.tHead.rows[0].cells).forEach((th, i) => {
    th.classList.remove("sorted-asc", "sorted-desc");
    if (i === index) th.classList.add(ascending ? "sorted-asc" : "sorted-desc");
  });
}

document.getElementById("table-name").textContent = data.table;
const shapes = document.getElementById("shapes");
fill(shapes, data.columns, data.rows, "kernel");

if (data.compare !== null) {
  fill(document.getElementById("compare-kernels"), ["kernel", "cases", "old failed", "new failed", "outputs differ", "time"], data.compare.kernels, "compareKernel");
}

const canon = document.getElementById("canon");
if (data.canon !== null) {
  const c = data.canon;
  const sides = document.createElement("p");
  sides.textContent = "old: " + c.old + " \u2014 new: " + c.new;
  canon.appendChild(sides);
  const counts = document.createElement("table");
  counts.id = "canon-counts";
  counts.innerHTML = "<thead></thead><tbody></tbody>";
  const countRows = c.counts.map(([label, n]) => [label, String(n)]);
  countRows.push(["only in old", String(c.only_old.length)], ["only in new", String(c.only_new.length)]);
  fill(counts, ["class", "entries"], countRows, "class");
  canon.appendChild(counts);
  const heading = document.createElement("h3");
  heading.textContent = "Entries";
  canon.appendChild(heading);
  const entries = document.createElement("table");
  entries.id = "canon-entries";
  entries.innerHTML = "<thead></thead><tbody></tbody>";
  fill(entries, ["entry", "class"], c.entries, "entry");
  canon.appendChild(entries);
  folded(canon, c.diffs);
  listed(canon, [["only in old", c.only_old], ["only in new", c.only_new]]);
}

if (data.backends !== null) {
  const b = data.backends;
  fill(document.getElementById("backends-table"), b.columns, b.rows, "backendEntry");
  const section = document.getElementById("backends");
  folded(section, b.diffs);
  listed(section, [["only in default", b.only_default], ["only in cuda-oxide", b.only_oxide]]);
}

// `#sort=<column>`: sort the shapes table on load, numbers descending.
const wanted = new URLSearchParams(location.hash.slice(1)).get("sort");
if (wanted !== null) {
  const index = data.columns.indexOf(wanted);
  if (index >= 0) sortBy(shapes, index, shapes.numeric[index], !shapes.numeric[index]);
}
document.body.dataset.rendered = "yes";
</script>
</body>
</html>
"#;
