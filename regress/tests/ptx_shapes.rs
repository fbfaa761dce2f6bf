//! The PTX shapes suite: one test per kernel entry of the built `kernels.ptx`, named
//! `ptx_shape::<entry>`, failing when the entry's shape differs from its pinned row in
//! `regress/ptx-shapes.tsv` (naming the columns with their pinned and current values), plus one
//! that fails on rows whose kernel is gone; the same for the cuda-oxide kernels'
//! `kernels_oxide.ptx` (`ptx_shape::cuda-oxide::<entry>`, rows in
//! `regress/ptx-shapes-cuda-oxide.tsv`), built by `cargo xtask kernels-oxide`. Each backend has
//! its own table because the two compilers give the same kernels different shapes.
//!
//! After an intended change: `just shapes --update --reason "…"` (with `--backend cuda-oxide`
//! for the cuda-oxide table). `KERNELS_PTX=path` checks another PTX file against the default
//! backend's table.

use std::path::Path;
use std::process::ExitCode;

use libtest_mimic::{Arguments, Failed, Trial};
use regress::freshness;
use regress::layout::Layout;
use regress::ptx::program::Program;
use regress::shapes::{SHAPES_COMMAND, Shape, ShapeTable};

/// One backend's suite: its PTX, its table, what builds the one and re-pins the other.
struct Suite<'a> {
    ptx: &'a Path,
    table: &'a Path,
    /// Test names are `<prefix>::<entry>`.
    prefix: &'a str,
    build: &'a str,
    shapes_command: &'a str,
}

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let layout = Layout::from_build();
    let oxide_shapes = format!("{SHAPES_COMMAND} --backend cuda-oxide");
    let mut all = trials(
        &layout,
        &Suite {
            ptx: &layout.checked_ptx(),
            table: &layout.shapes_table(),
            prefix: "ptx_shape",
            build: "just kernels",
            shapes_command: SHAPES_COMMAND,
        },
    );
    all.extend(trials(
        &layout,
        &Suite {
            ptx: &layout.oxide_ptx(),
            table: &layout.oxide_shapes_table(),
            prefix: "ptx_shape::cuda-oxide",
            build: "just kernels-oxide",
            shapes_command: &oxide_shapes,
        },
    ));
    libtest_mimic::run(&args, all).exit_code()
}

/// The trials of one suite; where it cannot list its cases, one failing trial saying why.
fn trials(layout: &Layout, suite: &Suite) -> Vec<Trial> {
    discover(layout, suite).unwrap_or_else(|message| {
        vec![Trial::test(format!("{}::discover", suite.prefix), move || Err(Failed::from(message)))]
    })
}

fn discover(layout: &Layout, suite: &Suite) -> Result<Vec<Trial>, String> {
    let Suite { ptx, table: table_path, prefix, build, shapes_command } = *suite;
    let fix = format!("if the change is intended, re-pin with `{shapes_command} --update --reason \"why\"`");
    freshness::check(ptx).map_err(|e| e.to_string())?;
    let text = std::fs::read_to_string(ptx)
        .map_err(|e| format!("reading {}: {e}; build the kernels first (`{build}`)", ptx.display()))?;
    let program = Program::read(&text).map_err(|e| format!("{}:{e}", ptx.display()))?;
    let table_text = std::fs::read_to_string(table_path).map_err(|e| {
        format!(
            "reading {}: {e}; pin its rows with `{shapes_command} --update --reason \"why\"`",
            table_path.display()
        )
    })?;
    let table = ShapeTable::parse(&table_text).map_err(|e| format!("{}: {e}", table_path.display()))?;
    let shapes = Shape::all(&program);
    if shapes.is_empty() {
        return Err(format!("{} has no `.entry`: nothing to check", ptx.display()));
    }
    let shown = table_path.strip_prefix(layout.root()).unwrap_or(table_path).display().to_string();
    let mut trials: Vec<Trial> = shapes
        .iter()
        .map(|shape| {
            let finding = table.check_one(shape);
            let (shown, fix) = (shown.clone(), fix.clone());
            Trial::test(format!("{prefix}::{}", shape.kernel), move || match finding {
                None => Ok(()),
                Some(finding) => Err(Failed::from(format!("{shown}: {finding}; {fix}"))),
            })
        })
        .collect();
    let orphans: Vec<String> = table.orphans(&shapes).iter().map(ToString::to_string).collect();
    trials.push(Trial::test(format!("{prefix}::every_row_has_a_kernel"), move || {
        if orphans.is_empty() {
            return Ok(());
        }
        Err(Failed::from(format!("{shown}:\n  {}\n{fix}", orphans.join("\n  "))))
    }));
    Ok(trials)
}
