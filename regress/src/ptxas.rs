//! Reading `ptxas -v` reports (registers, barriers, spills, stack frame per entry and per
//! `.func`) and writing them as the TSV pinned in `regress/ptxas-sm90.tsv`.
//!
//! `cargo xtask setup` installs a pinned `ptxas` ((from [`crate::layout::CUDA_TOOL_PACKAGES`])) that runs
//! without a GPU, so `just test` assembles every kernel and holds its figures to the TSV
//! (`tests/ptxas_figures.rs`); a report captured on the GPU machine reads the same way. The reader knows the lines that matter and skips the
//! rest (compile times, `gmem` totals, warnings); a line it knows but cannot read is an error
//! with its line number, never a panic.

use std::fmt::Write as _;

/// What `ptxas -v` says about one compiled function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionReport {
    /// The entry's or function's name, mangling hashes normalised as in the snapshots.
    pub name: String,
    pub kind: FunctionKind,
    /// The target, e.g. `sm_90`.
    pub sm: String,
    /// Registers per thread; `ptxas` reports none for a `.func` it compiled into its callers.
    pub registers: Option<u32>,
    pub barriers: Option<u32>,
    pub spill_store_bytes: u32,
    pub spill_load_bytes: u32,
    pub stack_frame_bytes: u32,
}

impl FunctionReport {
    /// A function as `ptxas` first names it: its figures come on the lines that follow.
    fn announced(name: String, kind: FunctionKind, sm: &str) -> FunctionReport {
        FunctionReport {
            name,
            kind,
            sm: sm.to_owned(),
            registers: None,
            barriers: None,
            spill_store_bytes: 0,
            spill_load_bytes: 0,
            stack_frame_bytes: 0,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FunctionKind {
    Entry,
    Function,
}

impl FunctionKind {
    fn as_str(self) -> &'static str {
        match self {
            FunctionKind::Entry => "entry",
            FunctionKind::Function => "func",
        }
    }
}

/// A line of the report that looks like one the reader knows but does not read as one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("ptxas report line {line}: {message}: {text:?}")]
pub struct PtxasError {
    pub line: usize,
    pub message: &'static str,
    pub text: String,
}

/// Parses a `ptxas -v` report, in the order functions appear in it.
pub fn parse(report: &str) -> Result<Vec<FunctionReport>, PtxasError> {
    // Numbered over the whole report, as the snapshots number theirs over the whole module, so
    // two functions whose names differ only in the crate hash stay two rows.
    let report = crate::snapshots::number_hashes(report);
    let mut functions: Vec<FunctionReport> = Vec::new();
    // The target of the entry being compiled; `.func` reports follow their entry.
    let mut sm = String::new();
    for (index, raw) in report.lines().enumerate() {
        let error = |message| PtxasError { line: index + 1, message, text: raw.to_owned() };
        let text = raw.trim();
        let info =
            text.strip_prefix("ptxas info").map(|rest| rest.trim_start().trim_start_matches(':').trim());
        if let Some(rest) = info.and_then(|i| i.strip_prefix("Compiling entry function ")) {
            let (name, target) =
                rest.split_once(" for ").ok_or_else(|| error("an entry without its target"))?;
            sm = unquote(target).ok_or_else(|| error("a target that is not quoted"))?.to_owned();
            let name = unquote(name).ok_or_else(|| error("an entry name that is not quoted"))?;
            functions.push(FunctionReport::announced(name.to_owned(), FunctionKind::Entry, &sm));
        } else if let Some(name) = info.and_then(|i| i.strip_prefix("Function properties for ")) {
            let name = name.trim().to_owned();
            // The entry just announced by "Compiling entry function" gets its properties here;
            // any other name is a `.func`.
            let is_current_entry =
                functions.last().is_some_and(|f| f.kind == FunctionKind::Entry && f.name == name);
            if !is_current_entry {
                if sm.is_empty() {
                    return Err(error("function properties before any entry named its target"));
                }
                functions.push(FunctionReport::announced(name, FunctionKind::Function, &sm));
            }
        } else if text.contains("bytes stack frame") {
            let current = functions.last_mut().ok_or_else(|| error("properties before any function"))?;
            current.stack_frame_bytes =
                number_before(text, "bytes stack frame").ok_or_else(|| error("no stack size"))?;
            current.spill_store_bytes =
                number_before(text, "bytes spill stores").ok_or_else(|| error("no spill stores"))?;
            current.spill_load_bytes =
                number_before(text, "bytes spill loads").ok_or_else(|| error("no spill loads"))?;
        } else if let Some(rest) = info.and_then(|i| i.strip_prefix("Used ")) {
            let current =
                functions.last_mut().ok_or_else(|| error("a register count before any function"))?;
            current.registers =
                Some(number_before(rest, "registers").ok_or_else(|| error("no register count"))?);
            current.barriers = number_before(rest, "barriers");
        }
    }
    Ok(functions)
}

fn unquote(text: &str) -> Option<&str> {
    text.trim().strip_prefix('\'')?.strip_suffix('\'')
}

/// The number just before `unit` in `text` ("16 bytes stack frame" → 16).
fn number_before(text: &str, unit: &str) -> Option<u32> {
    let before = &text[..text.find(unit)?];
    before.split(|c: char| !c.is_ascii_digit()).rfind(|word| !word.is_empty())?.parse().ok()
}

/// The header of the TSV.
pub const TSV_HEADER: &str =
    "name\tkind\tregisters\tbarriers\tspill_store_bytes\tspill_load_bytes\tstack_frame_bytes\tsm";

/// The report as TSV, one row per function, sorted by kind then name so that the file only
/// moves when a figure does. Figures `ptxas` did not report are `-`.
pub fn to_tsv(functions: &[FunctionReport]) -> String {
    let mut sorted: Vec<&FunctionReport> = functions.iter().collect();
    sorted.sort_by(|a, b| (a.kind.as_str(), &a.name).cmp(&(b.kind.as_str(), &b.name)));
    let figure = |value: Option<u32>| value.map_or("-".to_owned(), |v| v.to_string());
    let mut out = format!("{TSV_HEADER}\n");
    for f in sorted {
        let _ = writeln!(
            out,
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            f.name,
            f.kind.as_str(),
            figure(f.registers),
            figure(f.barriers),
            f.spill_store_bytes,
            f.spill_load_bytes,
            f.stack_frame_bytes,
            f.sm
        );
    }
    out
}

/// A line of a ptxas TSV that does not read as a row of [`TSV_HEADER`]'s columns.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct TsvError {
    pub line: usize,
    pub message: String,
}

/// Reads a TSV written by [`to_tsv`] back into its functions (the report and other readers of
/// a pinned table).
pub fn from_tsv(text: &str) -> Result<Vec<FunctionReport>, TsvError> {
    let mut lines = text.lines().enumerate().filter(|(_, line)| !line.trim().is_empty());
    match lines.next() {
        Some((_, header)) if header == TSV_HEADER => {}
        found => {
            return Err(TsvError {
                line: found.map_or(1, |(index, _)| index + 1),
                message: format!("the header must be `{}`", TSV_HEADER.replace('\t', " ")),
            });
        }
    }
    lines
        .map(|(index, line)| {
            let error = |message: String| TsvError { line: index + 1, message };
            let fields: Vec<&str> = line.split('\t').collect();
            let [name, kind, registers, barriers, stores, loads, stack, sm] = fields[..] else {
                return Err(error(format!("{} fields where the header has 8", fields.len())));
            };
            let number = |what: &str, text: &str| -> Result<u32, TsvError> {
                text.parse().map_err(|_| error(format!("{what} `{text}` is not a number")))
            };
            let figure = |what: &str, text: &str| -> Result<Option<u32>, TsvError> {
                if text == "-" { Ok(None) } else { number(what, text).map(Some) }
            };
            let kind = match kind {
                "entry" => FunctionKind::Entry,
                "func" => FunctionKind::Function,
                other => return Err(error(format!("kind `{other}` is neither `entry` nor `func`"))),
            };
            Ok(FunctionReport {
                name: name.to_owned(),
                kind,
                sm: sm.to_owned(),
                registers: figure("registers", registers)?,
                barriers: figure("barriers", barriers)?,
                spill_store_bytes: number("spill_store_bytes", stores)?,
                spill_load_bytes: number("spill_load_bytes", loads)?,
                stack_frame_bytes: number("stack_frame_bytes", stack)?,
            })
        })
        .collect()
}

/// The functions whose figures in `now` differ from the pinned TSV `pinned`, one line each
/// (`name: registers 40 -> 42, spill stores 0 -> 8`), with functions new to or gone from it.
pub fn moved(pinned: &str, now: &[FunctionReport]) -> Vec<String> {
    let fields = |line: &str| line.split('\t').map(str::to_owned).collect::<Vec<_>>();
    let pinned_rows: Vec<Vec<String>> =
        pinned.lines().skip(1).filter(|l| !l.is_empty()).map(fields).collect();
    let now_rows: Vec<Vec<String>> = to_tsv(now).lines().skip(1).map(fields).collect();
    let key = |row: &Vec<String>| (row[0].clone(), row.get(1).cloned().unwrap_or_default());
    let columns = TSV_HEADER.split('\t').collect::<Vec<_>>();
    let mut lines = Vec::new();
    for row in &now_rows {
        match pinned_rows.iter().find(|p| key(p) == key(row)) {
            None => lines.push(format!("{} ({}): not pinned", row[0], row[1])),
            Some(old) => {
                let changes: Vec<String> = (2..row.len())
                    .filter(|&i| old.get(i) != row.get(i))
                    .map(|i| {
                        format!("{} {} -> {}", columns[i], old.get(i).map_or("?", String::as_str), row[i])
                    })
                    .collect();
                if !changes.is_empty() {
                    lines.push(format!("{} ({}): {}", row[0], row[1], changes.join(", ")));
                }
            }
        }
    }
    for old in pinned_rows.iter().filter(|p| !now_rows.iter().any(|r| key(r) == key(p))) {
        lines.push(format!(
            "{} ({}): pinned but no longer compiled",
            old[0],
            old.get(1).map_or("", String::as_str)
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moved_figures_new_and_gone_functions_are_named() {
        let report = "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n\
                      ptxas info    : Function properties for k\n\
                      \x20   8 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n\
                      ptxas info    : Used 42 registers, used 1 barriers\n\
                      ptxas info    : Compiling entry function 'fresh' for 'sm_90a'\n\
                      ptxas info    : Used 8 registers, used 0 barriers\n";
        let pinned =
            format!("{TSV_HEADER}\nk\tentry\t40\t1\t0\t0\t0\tsm_90a\ngone\tentry\t8\t0\t0\t0\t0\tsm_90a\n");
        let lines = moved(&pinned, &parse(report).unwrap());
        assert_eq!(
            lines,
            [
                "fresh (entry): not pinned",
                "k (entry): registers 40 -> 42, spill_store_bytes 0 -> 8, spill_load_bytes 0 -> 8, stack_frame_bytes 0 -> 8",
                "gone (entry): pinned but no longer compiled",
            ]
        );
        let same = to_tsv(&parse(report).unwrap());
        assert!(moved(&same, &parse(report).unwrap()).is_empty());
    }

    /// `ptxas -arch=sm_90a -v` on this repository's kernels.ptx, captured on the H200 (CUDA 13.0).
    const CAPTURED: &str = include_str!("../fixtures/ptxas-sm90-h200.txt");

    #[test]
    fn reads_every_entry_and_func_of_a_real_report() {
        let functions = parse(CAPTURED).unwrap();
        let entries: Vec<&str> =
            functions.iter().filter(|f| f.kind == FunctionKind::Entry).map(|f| f.name.as_str()).collect();
        // Every entry the report compiled, counted apart from the parser.
        let compiled = CAPTURED.lines().filter(|l| l.contains("Compiling entry function '")).count();
        assert!(compiled >= 16, "the fixture holds every kernel entry");
        assert_eq!(entries.len(), compiled, "{entries:?}");
        assert!(entries.contains(&"gemv_f16") && entries.contains(&"pipeline_sum"));
        let add = functions.iter().find(|f| f.name == "vector_add").unwrap();
        assert_eq!(
            (add.registers, add.barriers, add.spill_store_bytes, add.stack_frame_bytes, add.sm.as_str()),
            (Some(56), Some(0), 0, 0, "sm_90a")
        );
        let helpers: Vec<&FunctionReport> =
            functions.iter().filter(|f| f.kind == FunctionKind::Function).collect();
        assert_eq!(helpers.len(), 2);
        assert!(helpers.iter().all(|f| f.name.contains("Cs<crate-hash-1>_") && f.registers.is_none()));
    }

    #[test]
    fn tsv_is_sorted_and_marks_unreported_figures() {
        let tsv = to_tsv(&parse(CAPTURED).unwrap());
        let lines: Vec<&str> = tsv.lines().collect();
        assert_eq!(lines[0], TSV_HEADER);
        let reported =
            CAPTURED.lines().filter(|l| l.contains("ptxas info    : Function properties for ")).count();
        assert_eq!(lines.len(), 1 + reported, "a row per entry and function the report compiled");
        assert!(lines[1].starts_with("block_reduce_sum\tentry\t"));
        assert!(lines.last().unwrap().contains("\tfunc\t-\t-\t0\t0\t0\tsm_90a"), "{tsv}");
    }

    #[test]
    fn spills_and_stack_are_read() {
        let report = "ptxas info    : Compiling entry function 'k' for 'sm_90'\n\
                      ptxas info    : Function properties for k\n\
                      \x20   48 bytes stack frame, 24 bytes spill stores, 16 bytes spill loads\n\
                      ptxas info    : Used 255 registers, used 1 barriers, 8 bytes smem\n";
        let k = &parse(report).unwrap()[0];
        assert_eq!((k.stack_frame_bytes, k.spill_store_bytes, k.spill_load_bytes), (48, 24, 16));
        assert_eq!((k.registers, k.barriers), (Some(255), Some(1)));
    }

    #[test]
    fn malformed_known_lines_are_errors_with_their_line() {
        let report = "ptxas info    : Compiling entry function 'k' for 'sm_90'\n\
                      ptxas info    : Used many registers\n";
        let error = parse(report).unwrap_err();
        assert_eq!((error.line, error.message), (2, "no register count"));
        let orphan =
            parse("    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n").unwrap_err();
        assert_eq!(orphan.message, "properties before any function");
        assert!(parse("ptxas info    : Compiling entry function k for 'sm_90'\n").is_err());
    }

    #[test]
    fn a_tsv_reads_back_into_its_functions_and_a_bad_line_is_named() {
        let functions = parse(CAPTURED).unwrap();
        let mut sorted = functions.clone();
        sorted.sort_by(|a, b| (a.kind.as_str(), &a.name).cmp(&(b.kind.as_str(), &b.name)));
        assert_eq!(from_tsv(&to_tsv(&functions)).unwrap(), sorted);
        let bad =
            format!("{TSV_HEADER}\nk\tentry\t40\t1\t0\t0\t0\tsm_90a\nj\tentry\tmany\t1\t0\t0\t0\tsm_90a\n");
        let error = from_tsv(&bad).unwrap_err();
        assert_eq!(error.line, 3, "{error}");
        assert!(error.to_string().contains("registers `many`"), "{error}");
        assert_eq!(from_tsv("name\tregisters\n").unwrap_err().line, 1);
    }

    #[test]
    fn committed_tsv_is_the_captured_report() {
        let committed = include_str!("../ptxas-sm90.tsv");
        assert_eq!(committed, to_tsv(&parse(CAPTURED).unwrap()), "regenerate with `cargo xtask ptxas-tsv`");
    }
}
