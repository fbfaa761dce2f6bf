//! `just report`: one self-contained HTML page (inline CSS and script, nothing fetched) with the
//! pinned PTX shapes, their pins and reasons, and the last canon-check, every table sortable by
//! clicking a column.
//!
//! The data goes into the page as JSON; the page's script builds the table rows from it, so a
//! headless browser that shows the rows has also run the script. `#sort=<column>` in the
//! address sorts the shapes table on load (descending for numbers).

use std::path::{Path, PathBuf};

use anyhow::Result;
use regress::canon::CanonReport;
use regress::layout::Layout;
use regress::shapes::ShapeTable;
use serde_json::{Value, json};

use crate::atomic::write_file;

/// Where `just report` writes the page.
pub fn report_path(layout: &Layout) -> PathBuf {
    layout.root().join("target").join("report").join("index.html")
}

/// `cargo xtask report`.
pub fn report(layout: &Layout) -> Result<()> {
    let table_path = layout.shapes_table();
    let table = crate::shapes::read_table(&table_path)?;
    let last = crate::canon_check::last_result_path(layout);
    let canon = if last.exists() {
        Some(crate::canon_check::load(&last)?)
    } else {
        eprintln!("==> no canon-check has run yet (`just canon-check OLD NEW`): the page says so");
        None
    };
    let shown = table_path.strip_prefix(layout.root()).unwrap_or(&table_path);
    let page = render(&table, &shown.display().to_string(), canon.as_ref());
    let path = report_path(layout);
    write_file(&path, &page)?;
    eprintln!("==> report: {}", path.display());
    Ok(())
}

/// The data the page's script renders.
pub fn page_data(table: &ShapeTable, table_name: &str, canon: Option<&CanonReport>) -> Value {
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
    let canon = canon.map(|report| {
        json!({
            "old": report.old,
            "new": report.new,
            "counts": report.counts().iter().map(|(class, n)| json!([class.label(), n])).collect::<Vec<_>>(),
            "only_old": report.only_old,
            "only_new": report.only_new,
            "entries": report.entries.iter().map(|e| json!([e.entry, e.class.label()])).collect::<Vec<_>>(),
            "diffs": report.entries.iter().filter_map(|e| e.diff.as_ref().map(|d| json!([e.entry, d]))).collect::<Vec<_>>(),
        })
    });
    json!({ "table": table_name, "columns": columns, "rows": rows, "canon": canon })
}

/// The whole page.
pub fn render(table: &ShapeTable, table_name: &str, canon: Option<&CanonReport>) -> String {
    let data = page_data(table, table_name, canon).to_string();
    // Inside a script element only `</` could end it early.
    let data = data.replace("</", "<\\/");
    PAGE.replace("/*DATA*/", &data)
}

/// Writes the page for `table` and `canon` to `path` (for tests and tools).
pub fn write(path: &Path, table: &ShapeTable, table_name: &str, canon: Option<&CanonReport>) -> Result<()> {
    write_file(path, &render(table, table_name, canon))
}

const PAGE: &str = r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>PTX shapes and canon-check</title>
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
</style>
</head>
<body data-rendered="no">
<h1>PTX shapes and canon-check</h1>
<p class="note">Click a column heading to sort; click again to reverse.</p>
<h2>Shapes and pins (<span id="table-name"></span>)</h2>
<div class="scroll"><table id="shapes"><thead></thead><tbody></tbody></table></div>
<h2>Last canon-check</h2>
<div id="canon"></div>
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

const canon = document.getElementById("canon");
if (data.canon === null) {
  canon.innerHTML = '<p class="note">No canon-check has run yet: <code>just canon-check OLD NEW</code>.</p>';
} else {
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
  c.diffs.forEach(([entry, diff]) => {
    const h = document.createElement("h3");
    h.textContent = "other: " + entry;
    const pre = document.createElement("pre");
    pre.textContent = diff;
    canon.append(h, pre);
  });
  [["only in old", c.only_old], ["only in new", c.only_new]].forEach(([label, names]) => {
    if (names.length > 0) {
      const p = document.createElement("p");
      p.textContent = label + ": " + names.join(", ");
      canon.appendChild(p);
    }
  });
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
