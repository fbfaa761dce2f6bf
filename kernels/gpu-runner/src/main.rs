//! `gpu-runner`: every kernel on the GPU, checked against its host reference and timed against
//! the copy bandwidth and PyTorch. `cargo xtask gpu` builds and runs it; on a machine without
//! Rust, run the binary `cargo xtask gpu --bundle DIR` leaves in DIR. See `lib.rs` for the flow.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Parser;
use gpu_runner::cases::{self, Case, Kernel};
use gpu_runner::compare::{compare, written_past_end};
use gpu_runner::gpu::Gpu;
use gpu_runner::peer::{self, PeerTiming};
use gpu_runner::report::{self, Row};

#[derive(Parser)]
#[command(name = "gpu-runner", about = "Run every kernel of kernels.ptx on the GPU: correctness and speed")]
struct Cli {
    /// The PTX module to load (`just kernels` builds it).
    #[arg(long)]
    ptx: PathBuf,
    /// PyTorch's side of the comparison; skipped when absent or when python3 has no torch.
    #[arg(long)]
    peer_script: Option<PathBuf>,
    /// Only the correctness cases, each launched once (for compute-sanitizer runs).
    #[arg(long)]
    correctness_only: bool,
    /// Only the large timing cases, each launched once and checked (for Nsight Compute runs).
    #[arg(long, conflicts_with = "correctness_only")]
    profile_launches: bool,
    /// Only kernels whose entry name contains this.
    #[arg(long)]
    kernel: Option<String>,
    /// Seed of the random inputs (default: from the clock; printed, so a run can be repeated).
    #[arg(long)]
    seed: Option<u64>,
    /// Timed launches per large case, after five untimed ones.
    #[arg(long, default_value_t = 30)]
    repeats: usize,
    /// Also write every row and verdict as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let seed = cli.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
    });
    let gpu = Gpu::open(&cli.ptx)?;
    println!(
        "device: {} ({} multiprocessors, {} MiB L2); PTX: {}; seed {seed}",
        gpu.name,
        gpu.multiprocessors,
        gpu.l2_bytes >> 20,
        cli.ptx.display()
    );
    let kernels: Vec<Kernel> = Kernel::ALL
        .into_iter()
        .filter(|k| cli.kernel.as_deref().is_none_or(|f| k.entry().contains(f)))
        .collect();
    if kernels.is_empty() {
        bail!(
            "no kernel entry contains {:?}; the entries are {:?}",
            cli.kernel,
            Kernel::ALL.map(Kernel::entry)
        );
    }
    let mut rng = fastrand::Rng::with_seed(seed);

    let launch_once = cli.correctness_only || cli.profile_launches;
    let copy = if launch_once {
        None
    } else {
        let copy = gpu.copy_bandwidth(1 << 30, 20)?;
        println!("device-to-device copy (1 GiB, read + write counted): {:.0} GB/s", copy / 1e9);
        Some(copy)
    };

    let mut rows = Vec::new();
    let mut specials = Vec::new();
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
        let large = cases.len();
        if !cli.correctness_only {
            cases.extend(cases::decode_cases(kernel));
        }
        // Random inputs are shared by the cases of one shape; special ones belong to their case
        // (where they are planted depends on the launch).
        let mut inputs_by_shape: HashMap<String, cases::Inputs> = HashMap::new();
        for (index, case) in cases.iter().enumerate() {
            let kind = match index {
                i if i < correctness => CaseKind::Correctness,
                i if i < large => CaseKind::Large,
                _ => CaseKind::Decode,
            };
            let special_inputs;
            let inputs = if case.values == cases::Values::Special {
                special_inputs = cases::inputs(case, &mut rng);
                &special_inputs
            } else {
                inputs_by_shape.entry(case.shape.to_string()).or_insert_with(|| cases::inputs(case, &mut rng))
            };
            // A case that cannot run (a launch the device refuses) is a failed row, so that the
            // other cases still run and the table shows which one.
            match run_case(&gpu, case, inputs, kind, launch_once, &cli) {
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
        eprintln!(
            "[{}/{}] {kernel}: {} cases in {:.1} s",
            number + 1,
            kernels.len(),
            cases.len(),
            started.elapsed().as_secs_f64()
        );
    }

    match (&cli.peer_script, launch_once) {
        (Some(script), false) if peer::torch_available() => {
            eprintln!("peer: PyTorch's outputs on {} special-value cases", specials.len());
            compare_with_peer(script, &specials, &mut rows)?;
        }
        (Some(_), false) => {
            eprintln!("peer: python3 cannot import torch with a GPU here; no PyTorch outputs")
        }
        _ => {}
    }
    let failures = rows.iter().filter(|row| !row.passed).count();

    let peers = match (&cli.peer_script, launch_once) {
        (Some(script), false) if peer::torch_available() => {
            let requests: Vec<_> = peer_shapes(&kernels, gpu.multiprocessors);
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
    if let Some(path) = &cli.json {
        write_json(path, &gpu, seed, copy, &rows, &verdicts, &peers)?;
    }
    let cases = rows.len();
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

/// Runs (and, unless `launch_once`, times) one case and compares its output; returns the row
/// and the output (guard elements included).
fn run_case(
    gpu: &Gpu,
    case: &Case,
    inputs: &cases::Inputs,
    kind: CaseKind,
    launch_once: bool,
    cli: &Cli,
) -> Result<(Row, Vec<f32>)> {
    let (output, median_ms) = if launch_once {
        (gpu.run(case, inputs)?, f64::NAN)
    } else {
        let (warmup, repeats) = if kind == CaseKind::Correctness { (2, 10) } else { (5, cli.repeats) };
        let timed = gpu.time(case, inputs, warmup, repeats)?;
        (timed.first_output, timed.median_ms)
    };
    let result = if cases::cheap_to_check(case) {
        let expected = cases::expected(case, inputs);
        let comparison =
            compare(&output, &expected.values, expected.tolerance, expected.magnitudes.as_deref())?;
        (comparison.passed(), comparison.summary())
    } else {
        // Only the writes can be checked without the reference: every element written, none
        // past the end, no NaN.
        let len = cases::output_len(case);
        let bad = output[..len].iter().filter(|v| v.is_nan()).count();
        let past = written_past_end(&output[len..]);
        (
            bad == 0 && past == 0,
            format!("written, no NaN ({bad} NaN, {past} past the end; see smaller cases)"),
        )
    };
    let work = cases::work(case.kernel, case.shape);
    let row = Row {
        kernel: case.kernel.entry().to_owned(),
        shape: case.label(),
        dims: case.shape.dims(),
        launch: case.launch.to_string(),
        passed: result.0,
        result: result.1,
        median_ms,
        bytes: work.bytes,
        flops: work.flops,
        timing_shape: kind != CaseKind::Correctness,
        decode: kind == CaseKind::Decode,
    };
    Ok((row, output))
}

/// The row of a case that could not run.
fn failed_row(case: &Case, kind: CaseKind, error: &anyhow::Error) -> Row {
    let work = cases::work(case.kernel, case.shape);
    Row {
        kernel: case.kernel.entry().to_owned(),
        shape: case.label(),
        dims: case.shape.dims(),
        launch: case.launch.to_string(),
        passed: false,
        result: format!("FAIL: did not run ({})", error.root_cause()),
        median_ms: f64::NAN,
        bytes: work.bytes,
        flops: work.flops,
        timing_shape: kind != CaseKind::Correctness,
        decode: kind == CaseKind::Decode,
    }
}

/// One peer request per kernel and timing shape.
fn peer_shapes(kernels: &[Kernel], sms: usize) -> Vec<peer::PeerRequest> {
    let mut requests = Vec::new();
    for &kernel in kernels {
        for case in cases::timing_cases(kernel, sms).into_iter().chain(cases::decode_cases(kernel)) {
            if let Some(request) = peer::request(kernel, case.shape)
                && !requests.contains(&request)
            {
                requests.push(request);
            }
        }
    }
    requests
}

fn write_json(
    path: &PathBuf,
    gpu: &Gpu,
    seed: u64,
    copy: Option<f64>,
    rows: &[Row],
    verdicts: &[report::Verdict],
    peers: &[PeerTiming],
) -> Result<()> {
    let document = serde_json::json!({
        "device": gpu.name,
        "multiprocessors": gpu.multiprocessors,
        "seed": seed,
        "copy_bytes_per_s": copy,
        "rows": rows,
        "verdicts": verdicts,
        "peers": peers,
    });
    // Written beside its destination and renamed, so a reader never sees half a file.
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    let mut temporary = tempfile::NamedTempFile::new_in(folder)
        .with_context(|| format!("creating a temporary file in {}", folder.display()))?;
    std::io::Write::write_all(&mut temporary, serde_json::to_string_pretty(&document)?.as_bytes())?;
    temporary.persist(path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}
