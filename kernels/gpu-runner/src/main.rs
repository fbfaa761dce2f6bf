//! `gpu-runner`: every kernel on the GPU, checked against its host reference and timed against
//! the copy bandwidth and PyTorch. `cargo xtask gpu` builds and runs it; on a machine without
//! Rust, run the binary `cargo xtask gpu --bundle DIR` leaves in DIR. See `lib.rs` for the flow.
//! `--compare OLD.ptx NEW.ptx` runs every case on both modules instead (`compare_modules`).

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Parser;
use gpu_runner::cases::contract::{self, ContractRun};
use gpu_runner::cases::{self, Case, CaseId, Kernel};
use gpu_runner::compare::{compare, written_past_end};
use gpu_runner::gemm_sweep::{self, VerifierVerdicts};
use gpu_runner::gpu::Gpu;
use gpu_runner::module_compare::{CaseComparison, Comparison, Medians};
use gpu_runner::peer;
use gpu_runner::report::{self, Row, RunDocument, RunOn};
use gpu_runner::timing::{self, Method};

#[derive(Parser)]
#[command(name = "gpu-runner", about = "Run every kernel of kernels.ptx on the GPU: correctness and speed")]
struct Cli {
    /// The PTX module to load (`just kernels` builds it).
    #[arg(long, required_unless_present = "compare")]
    ptx: Option<PathBuf>,
    /// Two builds of the module (before and after a pin bump): every case on both, checked
    /// for each, timing cases timed in interleaved rounds; kernels more than 3 % slower are
    /// flagged. Exits 1 if the new module fails a case or a kernel is slower.
    #[arg(long, num_args = 2, value_names = ["OLD", "NEW"], conflicts_with_all = ["ptx", "peer_script", "correctness_only", "profile_launches"])]
    compare: Option<Vec<PathBuf>>,
    /// PyTorch's side of the comparison; skipped when absent or when python3 has no torch.
    #[arg(long)]
    peer_script: Option<PathBuf>,
    /// Only the correctness cases, each launched once (for compute-sanitizer runs; with
    /// `--peer-script`, the special-value cases are still compared with PyTorch).
    #[arg(long)]
    correctness_only: bool,
    /// Only the large timing cases, each launched once and checked (for Nsight Compute runs).
    #[arg(long, conflicts_with = "correctness_only")]
    profile_launches: bool,
    /// Only kernels whose entry name contains this (repeat for several: any of them).
    #[arg(long)]
    kernel: Vec<String>,
    /// Seed of the random inputs (default: from the clock; printed, so a run can be repeated).
    #[arg(long)]
    seed: Option<u64>,
    /// Timed event pairs per large or decode case, each around a graph of back-to-back
    /// launches, after five untimed replays (with `--compare`: rounds).
    #[arg(long, default_value_t = 30)]
    repeats: usize,
    /// Also write every row and verdict as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// The kernels build's verify reports (`kernels/target/verify-reports`): the verifier's
    /// verdict on each wgmma entry is printed and recorded beside the GEMM shape sweep.
    #[arg(long, conflicts_with = "compare")]
    verify_reports: Option<PathBuf>,
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let seed = cli.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
    });
    let kernels: Vec<Kernel> = Kernel::ALL
        .into_iter()
        .filter(|k| cli.kernel.is_empty() || cli.kernel.iter().any(|f| k.entry().contains(f.as_str())))
        .collect();
    if kernels.is_empty() {
        bail!(
            "no kernel entry contains {:?}; the entries are {:?}",
            cli.kernel,
            Kernel::ALL.map(Kernel::entry)
        );
    }
    if let Some(pair) = &cli.compare {
        return compare_modules(&cli, &pair[0], &pair[1], &kernels, seed);
    }
    let ptx = cli.ptx.as_deref().context("--ptx or --compare is required")?;
    // Read before the GPU work, so that a wrong folder fails the run at once.
    let verifier: Option<VerifierVerdicts> =
        cli.verify_reports.as_deref().map(gemm_sweep::read_verdicts).transpose()?;
    let gpu = Gpu::open(ptx, &kernels)?;
    println!(
        "device: {} ({} multiprocessors, {} MiB L2); PTX: {}; seed {seed}",
        gpu.name,
        gpu.multiprocessors,
        gpu.l2_bytes >> 20,
        ptx.display()
    );
    let mut rng = fastrand::Rng::with_seed(seed);

    let launch_once = cli.correctness_only || cli.profile_launches;
    // The GEMM shape sweep against cuBLAS runs in timed runs of its entry.
    let sweep = !launch_once && gemm_sweep::ENTRIES.iter().any(|entry| kernels.contains(entry));
    let copy = if launch_once {
        None
    } else {
        let method = Method { launches: timing::LARGE_LAUNCHES, repeats: 20 };
        let copy = gpu.copy_bandwidth(1 << 30, method)?;
        println!(
            "device-to-device copy (1 GiB, read + write counted): {:.0} GB/s (median of {} event pairs, \
             each around {} stream-ordered copies, per copy; decode shapes are judged against copies of \
             their own bytes, timed as their kernels are)",
            copy / 1e9,
            method.repeats,
            method.launches
        );
        Some(copy)
    };

    let mut rows = Vec::new();
    let mut specials = Vec::new();
    // Copies of each decode shape's traffic, timed as its kernel is: milliseconds by bytes.
    let mut same_bytes_copies: HashMap<usize, f64> = HashMap::new();
    for (number, &kernel) in kernels.iter().enumerate() {
        let started = Instant::now();
        let mut cases = Vec::new();
        if !cli.profile_launches {
            cases.extend(cases::correctness_cases(kernel, gpu.multiprocessors));
        }
        let correctness = cases.len();
        if !cli.correctness_only {
            cases.extend(cases::timing_cases(kernel, gpu.multiprocessors));
        }
        if sweep && gemm_sweep::ENTRIES.contains(&kernel) {
            let extra = sweep_cases_beyond(kernel, &cases[correctness..])?;
            cases.extend(extra);
        }
        let large = cases.len();
        if !cli.correctness_only {
            cases.extend(cases::decode_cases(kernel));
        }
        let mut inputs_by_shape: HashMap<String, cases::Inputs> = HashMap::new();
        for (index, case) in cases.iter().enumerate() {
            let kind = match index {
                i if i < correctness => CaseKind::Correctness,
                i if i < large => CaseKind::Large,
                _ => CaseKind::Decode,
            };
            let mut special_inputs = None;
            let inputs = case_inputs(case, &mut inputs_by_shape, &mut special_inputs, &mut rng);
            // A case that cannot run (a launch the device refuses) is a failed row, so that the
            // other cases still run and the table shows which one.
            match run_case(&gpu, case, inputs, kind, launch_once, &cli, &mut same_bytes_copies) {
                Ok((row, output)) => {
                    if case.values == cases::Values::Special && peer::output_request(case).is_some() {
                        specials.push(SpecialRun {
                            row: rows.len(),
                            case: *case,
                            inputs: inputs.clone(),
                            output,
                        });
                    }
                    rows.push(row);
                }
                Err(error) => {
                    eprintln!("{kernel} on {} with {}: {error:#}", case.label(), case.launch);
                    rows.push(failed_row(case, kind, &error));
                }
            }
        }
        if !cli.profile_launches {
            for case in cases::chained_cases(kernel) {
                let inputs = cases::inputs(&case, &mut rng);
                rows.push(match check_chained(&gpu, &case, &inputs) {
                    Ok(row) => row,
                    Err(error) => {
                        eprintln!("{kernel} chained on {} with {}: {error:#}", case.label(), case.launch);
                        untimed_row(
                            &case,
                            CaseKind::Correctness,
                            chained_label(&case),
                            false,
                            did_not_run(&error),
                        )
                    }
                });
            }
        }
        eprintln!(
            "[{}/{}] {kernel}: {} cases in {:.1} s",
            number + 1,
            kernels.len(),
            cases.len(),
            started.elapsed().as_secs_f64()
        );
    }

    // Each entry once outside its contract: every one must be refused before the driver. After
    // the cases, so that a launch the check failed to refuse (reaching the GPU) spoils none.
    let contracts = launch_out_of_contract(&gpu, &kernels, seed);

    // The special-value cases are compared with PyTorch whenever a peer script is given, with
    // `--correctness-only` too (a quick check of the special values alone).
    match &cli.peer_script {
        Some(script) if peer::torch_available() => {
            eprintln!("peer: PyTorch's outputs on {} special-value cases", specials.len());
            compare_with_peer(script, &specials, &mut rows)?;
        }
        Some(_) => eprintln!("peer: python3 cannot import torch with a GPU here; no PyTorch outputs"),
        None => {}
    }
    let failures = rows.iter().filter(|row| !row.passed).count();

    let peers = match (&cli.peer_script, launch_once) {
        (Some(script), false) if peer::torch_available() => {
            let requests: Vec<_> = peer_shapes(&kernels, gpu.multiprocessors, sweep)?;
            eprintln!("peer: timing PyTorch on {} shapes ({})", requests.len(), script.display());
            match peer::run(script, &requests) {
                Ok(timings) => timings,
                Err(error) => {
                    eprintln!("peer: no PyTorch timings: {error:#}");
                    Vec::new()
                }
            }
        }
        (Some(_), false) => {
            eprintln!("peer: python3 cannot import torch with a GPU here; no peer timings");
            Vec::new()
        }
        _ => Vec::new(),
    };

    let copy_for_tables = copy.unwrap_or(f64::NAN);
    for &kernel in &kernels {
        print!("{}", report::kernel_table(kernel, &rows, copy_for_tables, &peers));
    }
    let verdicts = report::verdicts(&rows, copy_for_tables, &peers);
    if copy.is_some() {
        print!("{}", report::summary_table(&verdicts));
        for timing in &peers {
            println!("peer {} {:?}: {} {:.4} ms", timing.kernel, timing.dims, timing.call, timing.median_ms);
        }
    }
    let gemm_sweep =
        sweep.then(|| report::sweep_of(&gemm_sweep::SWEEP, &rows, &peers, verifier, gpu.multiprocessors));
    if let Some(sweep) = &gemm_sweep {
        print!("{}", report::sweep_table(sweep));
    }
    println!("{}", contracts.line());
    for launch in contracts.not_refused() {
        println!("  {} {}: {}", launch.entry, launch.launch, launch.outcome);
    }
    if let Some(path) = &cli.json {
        let document = RunDocument {
            run: RunOn { device: gpu.name.clone(), seed },
            multiprocessors: gpu.multiprocessors,
            copy_bytes_per_s: copy,
            rows,
            verdicts,
            peers,
            gemm_sweep,
            launch_contracts: Some(contracts.clone()),
        };
        write_json(path, &serde_json::to_value(&document)?)?;
        eprintln!("wrote {}", path.display());
        return finish(failures, document.rows.len(), &contracts, seed);
    }
    finish(failures, rows.len(), &contracts, seed)
}

/// One launch per entry of `kernels` outside its contract, through the runner's own launch
/// path ([`Gpu::run`]), each expected to be refused before the driver
/// ([`contract::launch_out_of_contract`]); each refusal on stderr.
fn launch_out_of_contract(gpu: &Gpu, kernels: &[Kernel], seed: u64) -> ContractRun {
    let mut rng = fastrand::Rng::with_seed(seed);
    let run = contract::launch_out_of_contract(kernels, gpu.multiprocessors, |case| {
        gpu.run(case, &cases::inputs(case, &mut rng)).map(drop)
    });
    for launch in run.launches.iter().filter(|launch| launch.refused) {
        eprintln!("out of contract, refused as expected: {}", launch.outcome);
    }
    run
}

/// The run's last line, and its exit status: failed cases, or an out-of-contract launch that
/// was not refused, fail the run.
fn finish(failures: usize, cases: usize, contracts: &ContractRun, seed: u64) -> Result<()> {
    if !contracts.all_refused() {
        let entries: Vec<&str> = contracts.not_refused().map(|launch| launch.entry.as_str()).collect();
        bail!(
            "{} of {} out-of-contract launches were not refused ({}){}",
            contracts.entries - contracts.refused,
            contracts.entries,
            entries.join(", "),
            if failures > 0 {
                format!("; {failures} of {cases} cases failed (seed {seed})")
            } else {
                String::new()
            }
        );
    }
    if failures > 0 {
        bail!("{failures} of {cases} cases failed their correctness check (seed {seed})");
    }
    println!("\nall {cases} cases passed their correctness checks (seed {seed})");
    Ok(())
}

/// Which list a case came from.
#[derive(Clone, Copy, PartialEq)]
enum CaseKind {
    Correctness,
    Large,
    Decode,
}

/// A special-value case as it ran: what the peer needs to compute PyTorch's output, and ours.
struct SpecialRun {
    row: usize,
    case: Case,
    inputs: cases::Inputs,
    /// Our output, guard elements included.
    output: Vec<f32>,
}

/// Compares each special-value case's output with PyTorch's on the same inputs, under the
/// kernel's tolerance ([`gpu_runner::compare::Tolerance::against_peer`]), and records the
/// verdict in its row: a case passes only if it matches both the host reference and PyTorch.
fn compare_with_peer(script: &std::path::Path, specials: &[SpecialRun], rows: &mut [Row]) -> Result<()> {
    let folder = tempfile::tempdir().context("a temporary folder for the peer's inputs and outputs")?;
    let requests: Vec<_> = specials.iter().map(|s| (s.case, &s.inputs)).collect::<Vec<_>>();
    let outputs = peer::outputs(script, folder.path(), &requests)?;
    for (special, torch) in specials.iter().zip(outputs) {
        let expected = cases::expected(&special.case, &special.inputs);
        let comparison = compare(
            &special.output,
            &torch,
            expected.tolerance.against_peer(),
            expected.magnitudes.as_deref(),
        )
        .with_context(|| format!("{} {}: PyTorch's output", special.case.kernel, special.case.label()))?;
        let row = &mut rows[special.row];
        row.passed &= comparison.passed();
        row.result = format!("{}; torch: {}", row.result, comparison.summary());
    }
    Ok(())
}

/// A case's inputs, drawn from `rng`: random ones are shared by the cases of one shape (drawn
/// for the first, kept in `by_shape`); special ones belong to their case (where they are planted
/// depends on the launch), kept in `special`.
fn case_inputs<'a>(
    case: &Case,
    by_shape: &'a mut HashMap<String, cases::Inputs>,
    special: &'a mut Option<cases::Inputs>,
    rng: &mut fastrand::Rng,
) -> &'a cases::Inputs {
    if case.values == cases::Values::Special {
        special.insert(cases::inputs(case, rng))
    } else {
        by_shape.entry(case.shape.to_string()).or_insert_with(|| cases::inputs(case, rng))
    }
}

/// Runs (and, unless `launch_once`, times) one case and compares its output; returns the row
/// and the output (guard elements included).
fn run_case(
    gpu: &Gpu,
    case: &Case,
    inputs: &cases::Inputs,
    kind: CaseKind,
    launch_once: bool,
    cli: &Cli,
    same_bytes_copies: &mut HashMap<usize, f64>,
) -> Result<(Row, Vec<f32>)> {
    let work = cases::work(case.kernel, case.shape);
    let method = method_for(kind, cli.repeats);
    let (output, median_ms) = if launch_once {
        (gpu.run(case, inputs)?, f64::NAN)
    } else {
        let warmup = if kind == CaseKind::Correctness { 2 } else { 5 };
        let timed = gpu.time(case, inputs, warmup, method)?;
        (timed.first_output, timed.spread.median_ms)
    };
    let same_bytes_copy_ms = if kind == CaseKind::Decode && !launch_once {
        let bytes = timing::copy_bytes_for(work.bytes);
        Some(match same_bytes_copies.get(&bytes) {
            Some(&ms) => ms,
            None => {
                let ms = gpu.copy_time(bytes, method)?.median_ms;
                same_bytes_copies.insert(bytes, ms);
                ms
            }
        })
    } else {
        None
    };
    let expected = cases::cheap_to_check(case).then(|| cases::expected(case, inputs));
    let result = check_output(case, inputs, expected.as_ref(), &output)?;
    let row = Row {
        case: case.id(),
        dims: case.shape.dims(),
        passed: result.0,
        result: result.1,
        median_ms,
        work,
        timing_shape: kind != CaseKind::Correctness,
        decode: kind == CaseKind::Decode,
        method: (!launch_once).then_some(method),
        same_bytes_copy_ms,
    };
    Ok((row, output))
}

/// A chained case ([`cases::chained_cases`]): the chain with programmatic dependent launch
/// must give the bits of the same chain in stream order, guard elements included.
fn check_chained(gpu: &Gpu, case: &Case, inputs: &cases::Inputs) -> Result<Row> {
    // The dependent chain first: it refuses an entry that does not wait for the prior grid.
    let dependent = gpu.run_chained(case, inputs, true)?;
    let ordered = gpu.run_chained(case, inputs, false)?;
    let differing = ordered.iter().zip(&dependent).filter(|(a, b)| a.to_bits() != b.to_bits()).count();
    let result = if differing == 0 {
        "a dependent launch after a launch of the same kernel: the stream-ordered bits".to_owned()
    } else {
        format!("FAIL: {differing} of {} elements differ from the stream-ordered chain", ordered.len())
    };
    Ok(untimed_row(case, CaseKind::Correctness, chained_label(case), differing == 0, result))
}

/// How the table names a chained case.
fn chained_label(case: &Case) -> String {
    format!("{} chained", case.label())
}

/// How a case of `kind` is timed: graphs of how many launches, replayed how often.
fn method_for(kind: CaseKind, repeats: usize) -> Method {
    match kind {
        CaseKind::Correctness => Method { launches: timing::CORRECTNESS_LAUNCHES, repeats: 10 },
        CaseKind::Large => Method { launches: timing::LARGE_LAUNCHES, repeats },
        CaseKind::Decode => Method { launches: timing::DECODE_LAUNCHES, repeats },
    }
}

/// Elements of C a GEMM too large to check in full is checked at, against the reference.
const GEMM_SAMPLES: usize = 4096;

/// Whether an output (guard elements included) is right: against `expected` where the
/// reference is cheap enough to compute, else its writes (every element written, none past
/// the end, no NaN) and, for a GEMM, the reference at [`GEMM_SAMPLES`] elements.
fn check_output(
    case: &Case,
    inputs: &cases::Inputs,
    expected: Option<&cases::Expected>,
    output: &[f32],
) -> Result<(bool, String)> {
    // The samples depend on the shape only, so that both modules of `--compare` are checked
    // at the same elements.
    let mut rng = fastrand::Rng::with_seed(case.shape.dims().iter().fold(0, |h, &d| h * 31 + d as u64));
    if expected.is_none()
        && let Some((indices, sampled)) = cases::sampled_expected(case, inputs, GEMM_SAMPLES, &mut rng)
    {
        let len = cases::output_len(case);
        let mut gathered: Vec<f32> = indices.iter().map(|&i| output[i]).collect();
        gathered.extend_from_slice(&output[len..]);
        let comparison =
            compare(&gathered, &sampled.values, sampled.tolerance, sampled.magnitudes.as_deref())?;
        let bad = output[..len].iter().filter(|v| v.is_nan()).count();
        return Ok((
            comparison.passed() && bad == 0,
            format!("{} at {} sampled elements; {bad} NaN in all", comparison.summary(), indices.len()),
        ));
    }
    Ok(match expected {
        Some(expected) => {
            let comparison =
                compare(output, &expected.values, expected.tolerance, expected.magnitudes.as_deref())?;
            (comparison.passed(), comparison.summary())
        }
        None => {
            let len = cases::output_len(case);
            let bad = output[..len].iter().filter(|v| v.is_nan()).count();
            let past = written_past_end(&output[len..]);
            (
                bad == 0 && past == 0,
                format!("written, no NaN ({bad} NaN, {past} past the end; see smaller cases)"),
            )
        }
    })
}

/// `--compare OLD NEW`: every case of `kernels` on both modules, on the same inputs. The
/// correctness cases run once on each; the timing and decode cases are timed in interleaved
/// rounds (the first launch of each module checked). Prints the per-shape table, writes the
/// [`Comparison`] to `--json`, and fails if the new module fails a case or a kernel is slower.
fn compare_modules(
    cli: &Cli,
    old: &std::path::Path,
    new: &std::path::Path,
    kernels: &[Kernel],
    seed: u64,
) -> Result<()> {
    let gpu = Gpu::open_modules(&[old, new], kernels)?;
    println!(
        "device: {} ({} multiprocessors); old: {}; new: {}; seed {seed}; {} interleaved rounds",
        gpu.name,
        gpu.multiprocessors,
        old.display(),
        new.display(),
        cli.repeats
    );
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut compared = Vec::new();
    for (number, &kernel) in kernels.iter().enumerate() {
        let started = Instant::now();
        let untimed = cases::correctness_cases(kernel, gpu.multiprocessors);
        let timed: Vec<(Case, bool)> = cases::timing_cases(kernel, gpu.multiprocessors)
            .into_iter()
            .map(|case| (case, false))
            .chain(cases::decode_cases(kernel).into_iter().map(|case| (case, true)))
            .collect();
        let mut inputs_by_shape: HashMap<String, cases::Inputs> = HashMap::new();
        let all = untimed
            .iter()
            .map(|case| (case, None))
            .chain(timed.iter().map(|(case, decode)| (case, Some(*decode))));
        for (case, timing) in all {
            let mut special_inputs = None;
            let inputs = case_inputs(case, &mut inputs_by_shape, &mut special_inputs, &mut rng);
            compared.push(compare_case(&gpu, case, inputs, timing, cli.repeats).unwrap_or_else(|error| {
                eprintln!("{kernel} on {} with {}: {error:#}", case.label(), case.launch);
                let failed = format!("FAIL: did not run ({})", error.root_cause());
                CaseComparison {
                    case: case.id(),
                    timed: timing.is_some(),
                    decode: timing == Some(true),
                    old_passed: false,
                    new_passed: false,
                    old_result: failed.clone(),
                    new_result: failed,
                    identical_outputs: false,
                    medians: Medians::default(),
                }
            }));
        }
        eprintln!(
            "[{}/{}] {kernel}: {} cases on both modules in {:.1} s",
            number + 1,
            kernels.len(),
            untimed.len() + timed.len(),
            started.elapsed().as_secs_f64()
        );
    }
    let comparison = Comparison::judge(
        &gpu.name,
        &old.display().to_string(),
        &new.display().to_string(),
        seed,
        cli.repeats,
        compared,
    );
    for case in comparison.cases.iter().filter(|c| !c.old_passed || !c.new_passed) {
        println!(
            "FAIL {} {} {}: old {}; new {}",
            case.case.kernel, case.case.shape, case.case.launch, case.old_result, case.new_result
        );
    }
    print!("{}", comparison.render());
    if let Some(path) = &cli.json {
        write_json(path, &serde_json::to_value(&comparison)?)?;
        eprintln!("wrote {}", path.display());
    }
    let mut problems = Vec::new();
    if !comparison.new_failures().is_empty() {
        problems.push(format!("the new module fails cases of {}", comparison.new_failures().join(", ")));
    }
    if !comparison.slower().is_empty() {
        problems.push(format!("more than 3 % slower: {}", comparison.slower().join(", ")));
    }
    if !problems.is_empty() {
        bail!("{} (seed {seed})", problems.join("; "));
    }
    Ok(())
}

/// One case on both modules: `timing` is `None` for a correctness case (run once each),
/// `Some(decode)` for a timing case (interleaved rounds).
fn compare_case(
    gpu: &Gpu,
    case: &Case,
    inputs: &cases::Inputs,
    timing: Option<bool>,
    rounds: usize,
) -> Result<CaseComparison> {
    let (old_output, new_output, paired) = match timing {
        None => (gpu.run_in(0, case, inputs)?, gpu.run_in(1, case, inputs)?, None),
        Some(decode) => {
            let kind = if decode { CaseKind::Decode } else { CaseKind::Large };
            let timed = gpu.time_interleaved(case, inputs, 5, method_for(kind, rounds))?;
            (timed.old_output, timed.new_output, Some(timed.paired))
        }
    };
    let expected = cases::cheap_to_check(case).then(|| cases::expected(case, inputs));
    let old = check_output(case, inputs, expected.as_ref(), &old_output)?;
    let new = check_output(case, inputs, expected.as_ref(), &new_output)?;
    let identical = old_output.len() == new_output.len()
        && old_output.iter().zip(&new_output).all(|(a, b)| a.to_bits() == b.to_bits());
    Ok(CaseComparison {
        case: case.id(),
        timed: timing.is_some(),
        decode: timing == Some(true),
        old_passed: old.0,
        new_passed: new.0,
        old_result: old.1,
        new_result: new.1,
        identical_outputs: identical,
        medians: paired.as_ref().map(Medians::of).unwrap_or_default(),
    })
}

/// The row of a case that could not run.
fn failed_row(case: &Case, kind: CaseKind, error: &anyhow::Error) -> Row {
    untimed_row(case, kind, case.label(), false, did_not_run(error))
}

/// The result of a case that could not run.
fn did_not_run(error: &anyhow::Error) -> String {
    format!("FAIL: did not run ({})", error.root_cause())
}

/// A row without a time: a case that could not run, or a chained check.
fn untimed_row(case: &Case, kind: CaseKind, shape: String, passed: bool, result: String) -> Row {
    let work = cases::work(case.kernel, case.shape);
    Row {
        case: CaseId { shape, ..case.id() },
        dims: case.shape.dims(),
        passed,
        result,
        median_ms: f64::NAN,
        work,
        timing_shape: kind != CaseKind::Correctness,
        decode: kind == CaseKind::Decode,
        method: None,
        same_bytes_copy_ms: None,
    }
}

/// The GEMM sweep's cases ([`gemm_sweep::SWEEP`]) on `entry` whose shapes `timed` (the entry's
/// catalogue timing cases) lacks: timed as large cases beside them.
fn sweep_cases_beyond(entry: Kernel, timed: &[Case]) -> Result<Vec<Case>> {
    let cases = gemm_sweep::cases(&gemm_sweep::SWEEP, entry).map_err(anyhow::Error::msg)?;
    Ok(cases.into_iter().filter(|case| !timed.iter().any(|t| t.shape == case.shape)).collect())
}

/// One peer request per kernel and timing shape (with `sweep`, the GEMM sweep's shapes too, for
/// its narrow entry, whose peer the sweep reads), timed over as many calls per replay as our
/// kernel is on that shape.
fn peer_shapes(kernels: &[Kernel], sms: usize, sweep: bool) -> Result<Vec<peer::PeerRequest>> {
    let mut requests = Vec::new();
    for &kernel in kernels {
        let mut timed = cases::timing_cases(kernel, sms);
        if sweep && kernel == gemm_sweep::ENTRIES[0] {
            let extra = sweep_cases_beyond(kernel, &timed)?;
            timed.extend(extra);
        }
        let large = timed.into_iter().map(|case| (case, timing::LARGE_LAUNCHES));
        let decode = cases::decode_cases(kernel).into_iter().map(|case| (case, timing::DECODE_LAUNCHES));
        for (case, launches) in large.chain(decode) {
            if let Some(request) = peer::request(kernel, case.shape, launches)
                && !requests.contains(&request)
            {
                requests.push(request);
            }
        }
    }
    Ok(requests)
}

/// Writes `document` to `path` beside its destination and renames it, so a reader never sees
/// half a file.
fn write_json(path: &std::path::Path, document: &serde_json::Value) -> Result<()> {
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    let mut temporary = tempfile::NamedTempFile::new_in(folder)
        .with_context(|| format!("creating a temporary file in {}", folder.display()))?;
    std::io::Write::write_all(&mut temporary, serde_json::to_string_pretty(document)?.as_bytes())?;
    temporary.persist(path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}
