//! The peer: what a user would otherwise call (PyTorch's own kernels, cuBLAS through
//! `torch.matmul`), timed by `peer/peer_timings.py` on the same shapes in the same run.
//!
//! The runner writes the shapes as JSON to the script's standard input and reads one median
//! per shape back from its standard output. Both sides are timed alike ([`crate::timing`]):
//! the script captures `launches` calls into a CUDA graph and times its replays, per call. Timing PyTorch needs Python; timing our kernels and
//! checking them does not, so the split keeps every comparison in Rust and the peer optional.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use crate::cases::{Case, Inputs, Kernel, Shape, output_len};

/// One shape for the peer to time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PeerRequest {
    pub kernel: String,
    /// The shape's dimensions: `[n]`, `[rows, cols]` or `[m, n, k]`; tiles are given in floats.
    pub dims: Vec<usize>,
    /// Calls per timed graph replay, as our kernel is timed on this shape.
    pub launches: usize,
}

/// The peer's answer for one shape.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct PeerTiming {
    pub kernel: String,
    pub dims: Vec<usize>,
    /// What was called, e.g. `torch.nn.functional.rms_norm`.
    pub call: String,
    /// Median time per call.
    pub median_ms: f64,
    /// How the calls were timed; none in a file from before graphs (its fields absent).
    #[serde(flatten)]
    pub method: Option<PeerMethod>,
}

/// How the peer script timed a shape.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
pub struct PeerMethod {
    /// Calls per timed replay.
    pub launches: usize,
    /// How the calls were timed, in the script's words.
    pub timed: String,
}

/// The peer request for a kernel timed on `shape`, or `None` where PyTorch has no counterpart
/// (the shared-memory helper stencils); `launches` calls per timed replay.
pub fn request(kernel: Kernel, shape: Shape, launches: usize) -> Option<PeerRequest> {
    if !kernel.has_peer() {
        return None;
    }
    Some(PeerRequest { kernel: kernel.entry().to_owned(), dims: peer_dims(kernel, &shape.dims()), launches })
}

/// The dimensions the peer is asked for, given a shape's [`Shape::dims`]: the same, except
/// that `pipeline_sum`'s tiles are given in floats.
pub fn peer_dims(kernel: Kernel, dims: &[usize]) -> Vec<usize> {
    kernel.peer_dims(dims)
}

/// One special-value case for the peer to compute PyTorch's output on. Its inputs are raw
/// little-endian files in the exchange folder: `f32` for `floats`, binary16 bits for `halves`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OutputRequest {
    pub kernel: String,
    /// The shape's dimensions ([`Shape::dims`]; tiles in tiles).
    pub dims: Vec<usize>,
    pub grid: u32,
    pub block: u32,
    /// SAXPY's `alpha`, RMSNorm's `eps`.
    pub scalar: f32,
    pub floats: Vec<String>,
    pub halves: Option<String>,
    /// Where the script writes PyTorch's output (raw little-endian `f32`).
    pub output: String,
}

/// The output request for a case, without its file names, or `None` where PyTorch has no
/// counterpart (the shared-memory helper stencils).
pub fn output_request(case: &Case) -> Option<OutputRequest> {
    if !case.kernel.has_peer() {
        return None;
    }
    Some(OutputRequest {
        kernel: case.kernel.entry().to_owned(),
        dims: case.shape.dims(),
        grid: case.launch.grid.0,
        block: case.launch.block.0,
        scalar: 0.0,
        floats: Vec::new(),
        halves: None,
        output: String::new(),
    })
}

fn write_raw(path: &Path, bytes: impl Iterator<Item = u8>) -> Result<()> {
    std::fs::write(path, bytes.collect::<Vec<u8>>()).with_context(|| format!("writing {}", path.display()))
}

/// Has the peer script compute PyTorch's output for each case on its inputs (`--outputs
/// FOLDER`, the inputs and outputs exchanged as files in `folder`), and returns the outputs
/// in the order of `cases`.
pub fn outputs(script: &Path, folder: &Path, cases: &[(Case, &Inputs)]) -> Result<Vec<Vec<f32>>> {
    let mut requests = Vec::new();
    for (index, (case, inputs)) in cases.iter().enumerate() {
        let mut request = output_request(case).with_context(|| format!("PyTorch has no {}", case.kernel))?;
        request.scalar = inputs.scalar;
        for (k, values) in inputs.floats.iter().enumerate() {
            let name = format!("case{index}-in{k}.f32");
            write_raw(&folder.join(&name), values.iter().flat_map(|v| v.to_le_bytes()))?;
            request.floats.push(name);
        }
        if let Some(bits) = &inputs.halves {
            let name = format!("case{index}-halves.f16");
            write_raw(&folder.join(&name), bits.iter().flat_map(|v| v.to_le_bytes()))?;
            request.halves = Some(name);
        }
        request.output = format!("case{index}-out.f32");
        requests.push(request);
    }
    let listing = folder.join("requests.json");
    std::fs::write(&listing, serde_json::to_string(&requests)?)
        .with_context(|| format!("writing {}", listing.display()))?;
    let status = Command::new("python3")
        .arg(script)
        .arg("--outputs")
        .arg(folder)
        .stdin(Stdio::null())
        .status()
        .with_context(|| format!("could not start python3 {}", script.display()))?;
    if !status.success() {
        bail!("python3 {} --outputs failed ({status})", script.display());
    }
    let mut outputs = Vec::new();
    for (request, (case, _)) in requests.iter().zip(cases) {
        let path = folder.join(&request.output);
        let bytes =
            std::fs::read(&path).with_context(|| format!("reading PyTorch's output {}", path.display()))?;
        let values: Vec<f32> = bytes.as_chunks::<4>().0.iter().map(|b| f32::from_le_bytes(*b)).collect();
        if values.len() != output_len(case) {
            bail!(
                "PyTorch's output for {} {} holds {} values, not {}",
                case.kernel,
                case.label(),
                values.len(),
                output_len(case)
            );
        }
        outputs.push(values);
    }
    Ok(outputs)
}

/// Parses the script's output, checking that it answers exactly the shapes asked, each timed
/// over as many calls per replay as asked (else the ratio would not be like for like).
pub fn parse(output: &str, requests: &[PeerRequest]) -> Result<Vec<PeerTiming>> {
    let timings: Vec<PeerTiming> =
        serde_json::from_str(output.trim()).context("the peer script's output is not its JSON list")?;
    for request in requests {
        let Some(timing) = timings.iter().find(|t| t.kernel == request.kernel && t.dims == request.dims)
        else {
            bail!("the peer script gave no timing for {} {:?}", request.kernel, request.dims);
        };
        let launches = timing.method.as_ref().map(|m| m.launches);
        if launches != Some(request.launches) {
            bail!(
                "the peer script timed {} {:?} over {:?} calls per replay, not the {} asked: update peer_timings.py",
                request.kernel,
                request.dims,
                launches,
                request.launches
            );
        }
    }
    if let Some(bad) = timings.iter().find(|t| !(t.median_ms.is_finite() && t.median_ms > 0.0)) {
        bail!("the peer script reported a time of {} ms for {}", bad.median_ms, bad.kernel);
    }
    Ok(timings)
}

/// Whether `python3` can import torch here.
pub fn torch_available() -> bool {
    Command::new("python3")
        .args(["-c", "import torch; assert torch.cuda.is_available()"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs the peer script on `requests`.
pub fn run(script: &Path, requests: &[PeerRequest]) -> Result<Vec<PeerTiming>> {
    let mut child = Command::new("python3")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .env("PYTHONUNBUFFERED", "1")
        .spawn()
        .with_context(|| format!("could not start python3 {}", script.display()))?;
    let input = serde_json::to_string(requests)?;
    child.stdin.take().context("the peer's stdin")?.write_all(input.as_bytes())?;
    let output = child.wait_with_output().context("waiting for the peer script")?;
    if !output.status.success() {
        bail!("python3 {} failed ({})", script.display(), output.status);
    }
    parse(&String::from_utf8_lossy(&output.stdout), requests)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_carry_the_timed_dims() {
        let r = request(Kernel::GemvF16, Shape::Matrix { rows: 14336, cols: 4096 }, 10).unwrap();
        assert_eq!((r.kernel.as_str(), r.dims.as_slice(), r.launches), ("gemv_f16", &[14336, 4096][..], 10));
        assert_eq!(request(Kernel::PipelineSum, Shape::Tiles(2), 10).unwrap().dims, [2048]);
        assert_eq!(request(Kernel::SharedHelperLocal, Shape::Elements(8), 10), None);
    }

    #[test]
    fn parse_checks_every_shape_is_answered() {
        let asked = [request(Kernel::SoftmaxRows, Shape::Matrix { rows: 2, cols: 3 }, 100).unwrap()];
        let good = r#"[{"kernel": "softmax_rows", "dims": [2, 3], "call": "torch.softmax", "median_ms": 0.5, "launches": 100, "timed": "graph"}]"#;
        assert_eq!(parse(good, &asked).unwrap()[0].median_ms, 0.5);
        // Timed over other counts of calls (or, from an old script, none said): refused by name.
        let single = good.replace(r#""launches": 100"#, r#""launches": 1"#);
        assert!(
            parse(&single, &asked)
                .unwrap_err()
                .to_string()
                .contains("over Some(1) calls per replay, not the 100")
        );
        let old = good.replace(r#", "launches": 100, "timed": "graph""#, "");
        assert!(parse(&old, &asked).unwrap_err().to_string().contains("update peer_timings.py"));
        let other = good.replace("[2, 3]", "[3, 2]");
        assert!(parse(&other, &asked).unwrap_err().to_string().contains("no timing for softmax_rows"));
        let zero = good.replace("0.5", "0.0");
        assert!(parse(&zero, &asked).is_err());
        assert!(parse("Traceback", &asked).is_err());
    }
}
