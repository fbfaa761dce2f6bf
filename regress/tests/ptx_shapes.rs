//! The PTX shapes suite: one test per kernel entry of the built `kernels.ptx`, named
//! `ptx_shape::<entry>`, failing when the entry's shape differs from its pinned row in
//! `regress/ptx-shapes.tsv` (naming the columns with their pinned and current values), plus one
//! that fails on rows whose kernel is gone.
//!
//! After an intended change: `just shapes --update --reason "…"`. `KERNELS_PTX=path` checks
//! another PTX file against the same table.

use std::process::ExitCode;

use libtest_mimic::{Arguments, Failed, Trial};
use regress::freshness;
use regress::layout::Layout;
use regress::ptx::program::Program;
use regress::shapes::{Shape, ShapeTable};

const FIX: &str = "if the change is intended, re-pin with `just shapes --update --reason \"why\"`";

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let layout = Layout::from_build();
    let trials = match discover(&layout) {
        Ok(trials) => trials,
        Err(message) => vec![Trial::test("ptx_shape::discover", move || Err(Failed::from(message)))],
    };
    libtest_mimic::run(&args, trials).exit_code()
}

fn discover(layout: &Layout) -> Result<Vec<Trial>, String> {
    let ptx = layout.checked_ptx();
    let table_path = layout.shapes_table();
    freshness::check(&ptx).map_err(|e| e.to_string())?;
    let text = std::fs::read_to_string(&ptx)
        .map_err(|e| format!("reading {}: {e}; build the kernels first (`just kernels`)", ptx.display()))?;
    let program = Program::read(&text).map_err(|e| format!("{}:{e}", ptx.display()))?;
    let table_text =
        std::fs::read_to_string(&table_path).map_err(|e| format!("reading {}: {e}", table_path.display()))?;
    let table = ShapeTable::parse(&table_text).map_err(|e| format!("{}: {e}", table_path.display()))?;
    let shapes = Shape::all(&program);
    if shapes.is_empty() {
        return Err(format!("{} has no `.entry`: nothing to check", ptx.display()));
    }
    let shown = table_path.strip_prefix(layout.root()).unwrap_or(&table_path).display().to_string();
    let mut trials: Vec<Trial> = shapes
        .iter()
        .map(|shape| {
            let finding = table.check_one(shape);
            let shown = shown.clone();
            Trial::test(format!("ptx_shape::{}", shape.kernel), move || match finding {
                None => Ok(()),
                Some(finding) => Err(Failed::from(format!("{shown}: {finding}; {FIX}"))),
            })
        })
        .collect();
    let orphans: Vec<String> = table.orphans(&shapes).iter().map(ToString::to_string).collect();
    trials.push(Trial::test("ptx_shape::every_row_has_a_kernel", move || {
        if orphans.is_empty() {
            return Ok(());
        }
        Err(Failed::from(format!("{shown}:\n  {}\n{FIX}", orphans.join("\n  "))))
    }));
    Ok(trials)
}
