//! The only module that touches CUDA: one launch of one corpus kernel under the contract, its
//! output read back. cudarc opens libcuda at run time, so building needs no CUDA.

use std::path::Path;

use anyhow::{Context, Result, bail};
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;

use crate::expected::Contract;

/// What an output element holds before the launch: a NaN no sum of the contract's inputs makes,
/// so an element no thread wrote shows as wrong.
pub const POISON: u32 = 0x7fc0_dead;

/// Launches `kernel` of the PTX at `ptx` once under `contract` and returns its output. An error
/// (the launch, or the synchronisation after it) is the kernel's fault, as CUDA reports it.
pub fn run_kernel(ptx: &Path, kernel: &str, contract: &Contract) -> Result<Vec<f32>> {
    // SAFETY: only tries to open libcuda; cudarc would panic at the first call without it.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        bail!("no CUDA driver library (libcuda.so) here: the GPU runs need an NVIDIA GPU and its driver");
    }
    let context = CudaContext::new(0).context("could not open CUDA device 0")?;
    let module = context
        .load_module(Ptx::from_file(ptx))
        .with_context(|| format!("the driver could not load {}", ptx.display()))?;
    let function =
        module.load_function(kernel).with_context(|| format!("{} has no entry `{kernel}`", ptx.display()))?;
    let stream = context.default_stream();
    let input = stream.clone_htod(&contract.input())?;
    let mut output = stream.clone_htod(&vec![f32::from_bits(POISON); contract.output_len()])?;
    let config = LaunchConfig {
        grid_dim: (contract.grid_blocks, 1, 1),
        block_dim: (contract.block_threads, 1, 1),
        shared_mem_bytes: contract.shared_bytes,
    };
    let tiles = contract.tiles;
    let mut launch = stream.launch_builder(&function);
    launch.arg(&input).arg(&tiles).arg(&mut output);
    // SAFETY: the corpus's contract: `(input: *const f32, tiles: u32, out: *mut f32)` with
    // `tiles * tile_floats` inputs and `grid_blocks * consumers` outputs.
    unsafe { launch.launch(config) }.with_context(|| format!("launching {kernel}"))?;
    stream.synchronize().with_context(|| format!("{kernel} failed on the device"))?;
    Ok(stream.clone_dtoh(&output)?)
}
