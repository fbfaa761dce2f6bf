//! `gemm-wgmma`: `gemm_bf16_wgmma` on the GPU. Checks it on small shapes in full and on the
//! issue's shapes at sampled elements against the host reference, times it, and times
//! `torch.matmul` on the same bf16 shapes in the same run (through the peer script).

use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::Parser;
use gpu_runner::gemm_wgmma::{self, GemmShape, check, checked_elements, random_bf16};
use gpu_runner::gemm_wgmma_gpu::{ENTRY, WgmmaGemm};
use gpu_runner::peer::{self, PeerRequest};

#[derive(Parser)]
#[command(name = "gemm-wgmma", about = "gemm_bf16_wgmma on an sm_90a GPU: correctness, speed, torch.matmul")]
struct Cli {
    /// The PTX module holding `gemm_bf16_wgmma` (`just kernels` builds it).
    #[arg(long)]
    ptx: PathBuf,
    /// PyTorch's side (`peer/peer_timings.py`); skipped when absent.
    #[arg(long)]
    peer_script: Option<PathBuf>,
    /// Only the small correctness shapes, each launched once (for compute-sanitizer runs).
    #[arg(long)]
    correctness_only: bool,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Timed launches per shape, after five untimed ones.
    #[arg(long, default_value_t = 30)]
    repeats: usize,
    /// Elements of C checked per large shape.
    #[arg(long, default_value_t = 4096)]
    samples: usize,
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let gpu = WgmmaGemm::open(&cli.ptx)?;
    let mut rng = fastrand::Rng::with_seed(cli.seed);
    println!("{ENTRY} on {} (seed {})", gpu.name, cli.seed);
    let mut failed = 0;
    let mut run_shape =
        |shape: GemmShape, samples: usize, rng: &mut fastrand::Rng| -> Result<(bool, Option<(f64, f64)>)> {
            let a = random_bf16(rng, shape.m * shape.k);
            let b = random_bf16(rng, shape.n * shape.k);
            let mut operands = gpu.upload(shape, &a, &b)?;
            let c = gpu.run(&mut operands)?;
            let elements = checked_elements(shape, samples, rng);
            let result = check(&a, &b, &c, shape, &elements);
            let ok = result.failures == 0;
            print!(
                "{:<18} checked {:>8} worst {:>6.3} of tolerance {}",
                shape.to_string(),
                result.checked,
                result.worst_fraction,
                if ok { "ok" } else { "FAIL" }
            );
            if let Some(first) = &result.first_failure {
                print!(" ({} failures; first: {first})", result.failures);
            }
            println!();
            if !ok {
                failed += 1;
            }
            let timed =
                if cli.correctness_only { None } else { Some(gpu.time(&mut operands, 5, cli.repeats)?) };
            Ok((ok, timed.map(|(median, _)| (median, shape.flops() / (median * 1e-3) / 1e12))))
        };
    println!("correctness (every element):");
    for shape in gemm_wgmma::correctness_shapes() {
        run_shape(shape, usize::MAX, &mut rng)?;
    }
    if !cli.correctness_only {
        let shapes = gemm_wgmma::timing_shapes();
        println!("the issue's shapes ({} sampled elements each):", cli.samples);
        let mut ours = Vec::new();
        for &shape in &shapes {
            let (_, timed) = run_shape(shape, cli.samples.max(4), &mut rng)?;
            ours.push(timed.expect("timed outside --correctness-only"));
        }
        let peers = match &cli.peer_script {
            Some(script) if peer::torch_available() => {
                let requests: Vec<PeerRequest> = shapes
                    .iter()
                    // Ours is timed one launch per event pair (`Gpu::time`): the peer times one call
                    // per replay, the nearest like-for-like its graph timing offers.
                    .map(|s| PeerRequest { kernel: ENTRY.to_owned(), dims: vec![s.m, s.n, s.k], launches: 1 })
                    .collect();
                Some(peer::run(script, &requests)?)
            }
            _ => None,
        };
        println!(
            "\n{:<18} {:>10} {:>9} {:>12} {:>9} {:>14}",
            "shape m×n×k", "ours ms", "TFLOP/s", "torch ms", "TFLOP/s", "ours/torch"
        );
        for (i, shape) in shapes.iter().enumerate() {
            let (ms, tflops) = ours[i];
            match peers.as_ref().map(|p| p[i].median_ms) {
                Some(torch_ms) => println!(
                    "{:<18} {ms:>10.4} {tflops:>9.1} {torch_ms:>12.4} {:>9.1} {:>13.2}×",
                    shape.to_string(),
                    shape.flops() / (torch_ms * 1e-3) / 1e12,
                    torch_ms / ms
                ),
                None => println!("{:<18} {ms:>10.4} {tflops:>9.1} {:>12}", shape.to_string(), "no torch"),
            }
        }
        if let Some(p) = &peers {
            println!("peer: {}", p[0].call);
        }
    }
    if failed > 0 {
        bail!("{failed} shape(s) failed the check");
    }
    Ok(())
}
