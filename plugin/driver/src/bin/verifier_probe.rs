//! `verifier-probe`: the semantic verifier as a program, installed with the default backend.
//!
//! The backend builds it twice: linked with the patched pliron (`verifier-probe`, the
//! verifier that ships in `kernels-rustc`) and with the pristine registry pliron
//! (`verifier-probe-pristine`). The same source in both is what lets the timing regression
//! and the verdict comparison attribute any difference to the pliron patch series alone.
//!
//! - `verifier-probe verify-ir FILE…`: verify textual kernel IR (`just verify-ir`); prints each
//!   file's verdict, exits 0 when all verify, 1 on a rejection, 2 when one cannot be parsed.
//! - `verifier-probe timing FAMILY FOOTPRINT RUNS SIZE…`: time the verifier, as the driver runs
//!   it, on generated scopes of `FAMILY` (`guard` or `story`) at each block count; prints
//!   `BLOCKS NANOS…` lines.
//! - `verifier-probe timing-structure FOOTPRINT RUNS SIZE…`: the same for pliron's structural
//!   verification alone, on `guard` scopes (where the carried pliron series shows).
//! - `verifier-probe phases FAMILY BLOCKS RUNS`: where the time of one generated scope's
//!   verification goes, phase by phase (ms and µs a block at the fastest of the runs, share): the profile to start from
//!   when working on the verifier's per-block cost. `verifier-probe phases FILE RUNS`: the same
//!   table for a real scope (a `KERNELS_VERIFY_DUMP` file), verified as `time-ir` does.
//! - `verifier-probe time-ir FILE RUNS`: a real scope's cost, as the release driver pays it
//!   (structure trusted): parses the file (a `KERNELS_VERIFY_DUMP` scope) once, verifies it
//!   `RUNS` times, prints `BLOCKS NANOS…`. Parsing is left out: the driver builds the IR, it
//!   does not parse it.

use std::path::PathBuf;
use std::process::ExitCode;

use pliron::context::{Context, Ptr};
use pliron::operation::Operation;
use plugin::harness::generate::Family;
use plugin::harness::timing::{Verifier, format_samples, measure};
use plugin::report::{FileVerdict, render, verify_file};

const USAGE: &str = "usage: verifier-probe verify-ir FILE… | verifier-probe timing guard|story FOOTPRINT RUNS SIZE… \
                     | verifier-probe timing-structure FOOTPRINT RUNS SIZE… | verifier-probe time-ir FILE RUNS \
                     | verifier-probe phases guard|story BLOCKS RUNS | verifier-probe phases FILE RUNS";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.split_first() {
        Some((command, files)) if command == "verify-ir" && !files.is_empty() => verify_ir(files),
        Some((command, rest))
            if command == "timing"
                || command == "timing-structure"
                || command == "time-ir"
                || command == "phases" =>
        {
            let timed = match command.as_str() {
                "time-ir" => time_ir(rest),
                "phases" => phases(rest),
                _ => timing(command, rest),
            };
            match timed {
                Ok(text) => {
                    print!("{text}");
                    ExitCode::SUCCESS
                }
                Err(error) => {
                    eprintln!("verifier-probe timing: {error}\n{USAGE}");
                    ExitCode::from(2)
                }
            }
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// Verifies each file and returns the worst status: unparsable (2) > rejected (1) > verified.
fn verify_ir(files: &[String]) -> ExitCode {
    let mut status = 0;
    for file in files {
        let path = PathBuf::from(file);
        let verdict = verify_file(&path, &path);
        print!("{}", render(&path, &verdict));
        let file_status = match verdict {
            FileVerdict::Verified(_) => 0,
            FileVerdict::Rejected(_) => 1,
            FileVerdict::Unparsable(_) => 2,
        };
        status = status.max(file_status);
    }
    ExitCode::from(status)
}

/// `time-ir FILE RUNS`: the scope's block count, then each run's verification in nanoseconds.
fn time_ir(args: &[String]) -> Result<String, String> {
    let [file, runs] = args else { return Err("time-ir takes a file and a number of runs".into()) };
    let runs = runs.parse::<usize>().map_err(|e| format!("`{runs}`: {e}"))?;
    let (ctx, module) = parse_dump(file)?;
    let mut blocks = 0;
    let mut nanos = Vec::new();
    for _ in 0..runs {
        let started = std::time::Instant::now();
        let outcome = plugin::verify::verify_module_with(&ctx, module, plugin::verify::Structure::Trust);
        nanos.push(started.elapsed().as_nanos().to_string());
        // Rejected scopes report no sizes; the block count is then left at zero.
        blocks = outcome.map_or(0, |reports| reports.iter().map(|report| report.blocks).sum());
    }
    Ok(format!("{blocks} {}\n", nanos.join(" ")))
}

/// `phases FAMILY BLOCKS RUNS`: the phase table of one generated scope; `phases FILE RUNS`: of
/// the scope a dump file holds.
fn phases(args: &[String]) -> Result<String, String> {
    let number = |text: &String| text.parse::<usize>().map_err(|e| format!("`{text}`: {e}"));
    match args {
        [file, runs] => phases_of_file(file, number(runs)?),
        [family, blocks, runs] => {
            let family = Family::ALL
                .into_iter()
                .find(|f| f.name() == family)
                .ok_or_else(|| format!("no family `{family}`"))?;
            Ok(plugin::harness::timing::phase_table(family, number(blocks)?, number(runs)?))
        }
        _ => Err("phases takes a family, a block count and runs, or a file and runs".into()),
    }
}

fn phases_of_file(file: &str, runs: usize) -> Result<String, String> {
    let (ctx, module) = parse_dump(file)?;
    let verify = || plugin::verify::verify_module_with(&ctx, module, plugin::verify::Structure::Trust);
    // The first run reads the block count and warms the caches; the timed runs repeat it.
    let blocks = verify().map_or(0, |reports| reports.iter().map(|report| report.blocks).sum());
    let title = format!("{file} ({blocks} blocks)");
    Ok(plugin::harness::timing::phase_rows(&title, blocks, runs, || {
        let _ = verify();
    }))
}

fn timing(command: &str, args: &[String]) -> Result<String, String> {
    let (family, verifier, args) = if command == "timing-structure" {
        (Family::Guard, Verifier::Structure, args)
    } else {
        let [family, rest @ ..] = args else { return Err("missing arguments".into()) };
        let family = Family::ALL
            .into_iter()
            .find(|f| f.name() == family)
            .ok_or_else(|| format!("no family `{family}`"))?;
        (family, Verifier::Indexed, rest)
    };
    let [footprint, runs, sizes @ ..] = args else { return Err("missing arguments".into()) };
    let number = |text: &String| text.parse::<usize>().map_err(|e| format!("`{text}`: {e}"));
    let sizes = sizes.iter().map(number).collect::<Result<Vec<_>, _>>()?;
    if sizes.is_empty() {
        return Err("no size".into());
    }
    Ok(format_samples(&measure(family, verifier, &sizes, number(footprint)?, number(runs)?)))
}

/// The context and module of a `KERNELS_VERIFY_DUMP` file.
fn parse_dump(file: &str) -> Result<(Context, Ptr<Operation>), String> {
    let path = PathBuf::from(file);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut ctx = plugin::new_context();
    let module = plugin::text::parse_module(&mut ctx, &text, &path).map_err(|e| e.to_string())?;
    Ok((ctx, module))
}
