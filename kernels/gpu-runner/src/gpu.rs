//! The GPU side: load `kernels.ptx` through the CUDA driver API (cudarc, which opens libcuda at
//! run time, so nothing here needs CUDA to build), move a case's buffers, launch, time with
//! CUDA events around CUDA graphs of back-to-back launches ([`crate::timing`] says why). What to
//! launch, on what, and what to expect come from [`crate::cases`].

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use std::ffi::c_void;

use cudarc::driver::sys::{
    self, CUdevice_attribute, CUevent_flags, CUgraphInstantiate_flags, CUstreamCaptureMode,
};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaGraph, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig,
    PushKernelArg,
};
use cudarc::nvrtc::Ptx;

use crate::cases::{self, Case, Inputs, Kernel, Param, Shape, contract, output_len};
use crate::compare::{GUARD, POISON, with_guard, written_past_end};
use crate::gemm_wgmma::GemmShape;
use crate::gemm_wgmma_gpu::{BF16_POISON, WgmmaOperands, widen_bf16_output};
use crate::module_compare::{Paired, Side, interleaved_order};
use crate::ptx_entries;
use crate::timing::{Method, Spread, per_launch};

/// The binary16 NaN that pads the half-precision buffers.
const HALF_POISON: u16 = 0x7e01;

/// A context on device 0 with one or more builds of the kernels' module loaded (two for
/// `--compare`: old, then new).
pub struct Gpu {
    stream: Arc<CudaStream>,
    /// Per module, its loaded entries by name.
    modules: Vec<HashMap<&'static str, Entry>>,
    pub name: String,
    pub multiprocessors: usize,
    pub l2_bytes: usize,
}

/// A loaded entry of a module.
struct Entry {
    /// Its name in the PTX: the contract its launches are checked against.
    name: &'static str,
    function: CudaFunction,
    /// Its PTX waits for the prior grid, so it is launched with programmatic dependent launch
    /// ([`crate::ptx_entries`]).
    dependent: bool,
}

/// How [`Gpu::launch_with_attributes`] launches a row kernel.
#[derive(Clone, Copy)]
struct RowLaunch {
    /// With programmatic dependent launch.
    dependent: bool,
    /// Reading the case's output buffer and writing its input buffer (a chain's second launch).
    swapped: bool,
}

/// One case's buffers on the device: inputs and output, each with [`GUARD`] poisoned elements
/// past its end.
struct DeviceCase {
    floats: Vec<CudaSlice<f32>>,
    halves: Option<CudaSlice<u16>>,
    output: CudaSlice<f32>,
    scalar: f32,
    /// `gemm_bf16_wgmma`'s bf16 operands and tensor maps (its `floats` are not uploaded).
    wgmma: Option<WgmmaOperands>,
    /// A bf16 C (the wgmma entries with a bf16 epilogue), instead of `output`.
    bf16_output: Option<CudaSlice<u16>>,
}

/// A case timed on two modules in interleaved rounds: each module's first output and the
/// rounds' times.
pub struct Interleaved {
    pub old_output: Vec<f32>,
    pub new_output: Vec<f32>,
    pub paired: Paired,
}

/// A timed case: its time per launch and the output of the first launch.
pub struct Timed {
    pub spread: Spread,
    pub first_output: Vec<f32>,
}

impl Gpu {
    /// Opens device 0 and loads `kernels` from `ptx`, failing with the name of any entry the
    /// PTX lacks.
    pub fn open(ptx: &Path, kernels: &[Kernel]) -> Result<Gpu> {
        Gpu::open_modules(&[ptx], kernels)
    }

    /// Opens device 0 and loads `kernels` from each of `modules` (module `i` is the one
    /// `*_in(i, …)` launches from); a module may lack entries the run does not use, and entries
    /// added after it was built (the kernel's own entry is launched in their place).
    pub fn open_modules(modules: &[&Path], kernels: &[Kernel]) -> Result<Gpu> {
        // SAFETY: only tries to open libcuda; cudarc would panic at the first call without it.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            bail!(
                "no CUDA driver library (libcuda.so) here: the GPU runner needs an NVIDIA GPU and its driver"
            );
        }
        let context = CudaContext::new(0).context(
            "could not open CUDA device 0 (the runner needs an NVIDIA GPU and its driver's libcuda)",
        )?;
        // One stream only: cudarc's per-buffer event tracking would add events to every launch.
        // SAFETY: nothing here uses more than the one stream made below.
        unsafe { context.disable_event_tracking() };
        // Not the legacy default stream: launches are captured into graphs, which it refuses.
        let stream = context.new_stream().context("creating the runner's stream")?;
        let name = context.name()?;
        let multiprocessors =
            context.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as usize;
        let l2_bytes = context.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)? as usize;
        let mut loaded = Vec::new();
        for ptx in modules {
            let text = std::fs::read_to_string(ptx).with_context(|| format!("reading {}", ptx.display()))?;
            let module = context.load_module(Ptx::from_src(text.as_str())).with_context(|| {
                format!("the driver could not load {} (ptxas rejected it?)", ptx.display())
            })?;
            let mut functions = HashMap::new();
            for &kernel in kernels {
                for entry in kernel.entries() {
                    // A module from before an entry was added (the old side of `--compare`)
                    // launches the kernel's own entry in its place (`Gpu::entry`).
                    if entry != kernel.entry() && !ptx_entries::has_entry(&text, entry) {
                        continue;
                    }
                    let function = module.load_function(entry).with_context(|| {
                        format!("{} has no entry `{entry}`: rebuild it with `just kernels`", ptx.display())
                    })?;
                    if let Some(bytes) = cases::dynamic_shared_limit(kernel) {
                        raise_dynamic_shared(&function, bytes).with_context(|| {
                            format!("raising {entry}'s dynamic shared memory to {bytes} bytes")
                        })?;
                    }
                    if cases::splits_rows_across_clusters(kernel) {
                        allow_large_clusters(&function)
                            .with_context(|| format!("letting {entry} run in clusters of 16 blocks"))?;
                    }
                    let dependent = ptx_entries::waits_for_prior_grid(&text, entry);
                    functions.insert(entry, Entry { name: entry, function, dependent });
                }
            }
            loaded.push(functions);
        }
        Ok(Gpu { stream, modules: loaded, name, multiprocessors, l2_bytes })
    }

    /// Uploads a case's buffers: `case.offset` poisoned elements, the values, [`GUARD`]
    /// poisoned elements. The kernel sees each buffer from `case.offset` on.
    fn upload(&self, case: &Case, inputs: &Inputs) -> Result<DeviceCase> {
        let poison = f32::from_bits(POISON);
        let mut floats = Vec::new();
        let mut wgmma = None;
        let mut bf16_output = None;
        if let (Some(epilogue), Shape::Gemm { m, n, k }) = (case.kernel.wgmma_variant(), case.shape) {
            if case.offset != 0 {
                bail!("{} takes no offset: its tensor maps need 16-byte aligned rows", case.kernel);
            }
            let shape = GemmShape::new(m, n, k);
            let f = &inputs.floats;
            let bias = if epilogue.bias {
                Some(f.get(2).with_context(|| format!("{} needs its bias", case.kernel))?.as_slice())
            } else {
                None
            };
            let entry = case.kernel.entry();
            wgmma =
                Some(WgmmaOperands::upload(&self.stream, entry, shape, &f[0], &f[1], bias, epilogue.wide)?);
            if epilogue.bf16_output {
                let poisoned = vec![BF16_POISON; output_len(case) + GUARD];
                bf16_output = Some(self.stream.clone_htod(&poisoned)?);
            }
        }
        for values in inputs.floats.iter().filter(|_| wgmma.is_none()) {
            let mut padded = vec![poison; case.offset];
            padded.extend(with_guard(values));
            floats.push(self.stream.clone_htod(&padded)?);
        }
        let halves = match &inputs.halves {
            Some(bits) => {
                // A binary16 NaN around the data: a read outside it poisons the result.
                let mut padded = vec![HALF_POISON; case.offset];
                padded.extend_from_slice(bits);
                padded.extend(std::iter::repeat_n(HALF_POISON, GUARD));
                Some(self.stream.clone_htod(&padded)?)
            }
            None => None,
        };
        // SAXPY works in place on `y`, its second input (`Kernel::writes_in_place`); everything
        // else has its own output.
        let output = if case.kernel.writes_in_place() {
            floats.pop().with_context(|| format!("{} needs x and y", case.kernel))?
        } else if bf16_output.is_some() {
            // Unused: the kernel writes `bf16_output`.
            self.stream.clone_htod(&[poison])?
        } else {
            self.stream.clone_htod(&vec![poison; case.offset + output_len(case) + GUARD])?
        };
        Ok(DeviceCase { floats, halves, output, scalar: inputs.scalar, wgmma, bf16_output })
    }

    /// Launches a case on its uploaded buffers: with launch attributes (clusters, programmatic
    /// dependent launch) through [`Gpu::launch_with_attributes`], else through cudarc; either
    /// way only once [`Gpu::checked_entry`] has held the launch to its entry's contract.
    fn launch(&self, module: usize, case: &Case, buffers: &mut DeviceCase) -> Result<()> {
        let entry = self.entry(module, case);
        if case.launch.cluster > 1 || entry.dependent {
            let row_launch = RowLaunch { dependent: entry.dependent, swapped: false };
            return self.launch_with_attributes(module, case, buffers, row_launch);
        }
        let function = &self.checked_entry(module, case)?.function;
        let config = LaunchConfig {
            grid_dim: (case.launch.grid.0, case.launch.grid.1, 1),
            block_dim: (case.launch.block.0, case.launch.block.1, 1),
            shared_mem_bytes: case.launch.shared_bytes,
        };
        // Counts the entry takes as `u32`, narrowed before anything is pushed.
        let params = case.kernel.params(case.shape);
        let narrowed = params
            .iter()
            .map(|param| match *param {
                Param::Count32(count) => {
                    u32::try_from(count).with_context(|| format!("{} takes its counts in u32", case.kernel))
                }
                _ => Ok(0),
            })
            .collect::<Result<Vec<u32>>>()?;
        let mut args = self.stream.launch_builder(function);
        let offset = case.offset;
        let f: Vec<_> = buffers.floats.iter().map(|buffer| buffer.slice(offset..)).collect();
        let halves = buffers.halves.as_ref().map(|buffer| buffer.slice(offset..));
        let mut output = buffers.output.slice_mut(offset..);
        let mut output = Some(&mut output);
        // A bf16 C (the wgmma entries with a bf16 epilogue) is the output instead.
        let mut bf16_output = buffers.bf16_output.as_mut();
        let tensor_maps =
            || buffers.wgmma.as_ref().with_context(|| format!("{} needs its tensor maps", case.kernel));
        for (param, count32) in params.iter().zip(&narrowed) {
            match param {
                Param::Input(index) => args.arg(&f[*index]),
                Param::Halves => {
                    args.arg(halves.as_ref().with_context(|| format!("{} needs its weights", case.kernel))?)
                }
                Param::Output => match bf16_output.take() {
                    Some(c) => args.arg(c),
                    None => args.arg(output.take().context("an entry has one output")?),
                },
                Param::Scalar => args.arg(&buffers.scalar),
                Param::Count(count) => args.arg(count),
                Param::Count32(_) => args.arg(count32),
                Param::TensorMapA => args.arg(&tensor_maps()?.a_map),
                Param::TensorMapB => args.arg(&tensor_maps()?.b_map),
                Param::MatrixA => args.arg(&tensor_maps()?.a),
                Param::MatrixB => args.arg(&tensor_maps()?.b),
                Param::Bias => args.arg(
                    tensor_maps()?
                        .bias
                        .as_ref()
                        .with_context(|| format!("{} needs its bias", case.kernel))?,
                ),
            };
        }
        // SAFETY: the parameters are the entry's, in its order (`Kernel::params`, each family's
        // contract), and the buffers hold what the contract asks for the case's shape (the
        // catalogue's inputs, each followed by poisoned guards): element-wise kernels `n` floats
        // each; the block reduction and `pipeline_sum` `gridDim.x` partials out; the GEMVs
        // `rows * cols` halves; `gemm_tiled` `m*k`, `k*n` and `m*n` floats in 16×16 blocks
        // covering C; for the wgmma entries, the maps describe A (k × m) and B (k × n) bf16
        // with the box and swizzle the kernel reads, C holds m·n values (plus guards) and the
        // shared memory is what the function was raised to (`open_modules`); `pipeline_sum`
        // whole tiles, 256-byte aligned (cudaMalloc); the launch's block, grid and shared bytes
        // are inside the entry's contract (`checked_entry` refused it otherwise).
        unsafe { args.launch(config) }?;
        Ok(())
    }

    /// Launches a row kernel (`rms_norm`, `softmax_rows`) with launch attributes: in clusters of
    /// `case.launch.cluster` blocks when that is more than one, and with programmatic dependent
    /// launch when `row_launch.dependent`; the arguments are those [`Gpu::launch`] would pass,
    /// with input and output exchanged when `row_launch.swapped`. cudarc's launch builder has no
    /// launch attributes, so this goes through `cuLaunchKernelEx`.
    fn launch_with_attributes(
        &self,
        module: usize,
        case: &Case,
        buffers: &mut DeviceCase,
        row_launch: RowLaunch,
    ) -> Result<()> {
        let entry = self.checked_entry(module, case)?;
        if !cases::splits_rows_across_clusters(case.kernel) {
            bail!("{} {}: only row kernels are launched with attributes", case.kernel, case.launch)
        }
        let offset_bytes = 4 * case.offset as u64;
        let inputs: Vec<_> = buffers.floats.iter().map(|buffer| buffer.device_ptr(&self.stream)).collect();
        let (out, _out_sync) = buffers.output.device_ptr_mut(&self.stream);
        let mut pointers: Vec<u64> = inputs.iter().map(|(pointer, _sync)| pointer + offset_bytes).collect();
        let mut out = out + offset_bytes;
        if row_launch.swapped {
            std::mem::swap(&mut pointers[0], &mut out);
        }
        /// A parameter's value, which `cuLaunchKernelEx` takes by pointer.
        enum Value {
            Pointer(u64),
            Count(usize),
            Scalar(f32),
        }
        let mut values = Vec::new();
        for param in case.kernel.params(case.shape) {
            values.push(match param {
                Param::Input(index) => Value::Pointer(pointers[index]),
                Param::Output => Value::Pointer(out),
                Param::Count(count) => Value::Count(count),
                Param::Scalar => Value::Scalar(buffers.scalar),
                _ => bail!("{} is not launched with attributes", case.kernel),
            });
        }
        fn param<T>(value: &mut T) -> *mut c_void {
            (value as *mut T).cast()
        }
        let mut params: Vec<*mut c_void> = values
            .iter_mut()
            .map(|value| match value {
                Value::Pointer(pointer) => param(pointer),
                Value::Count(count) => param(count),
                Value::Scalar(scalar) => param(scalar),
            })
            .collect();
        let mut attributes = Vec::new();
        if case.launch.cluster > 1 {
            attributes.push(sys::CUlaunchAttribute {
                id: sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
                pad: [0; 4],
                value: sys::CUlaunchAttributeValue {
                    clusterDim: sys::CUlaunchAttributeValue_union__bindgen_ty_1 {
                        x: case.launch.cluster,
                        y: 1,
                        z: 1,
                    },
                },
            });
        }
        if row_launch.dependent {
            attributes.push(sys::CUlaunchAttribute {
                id: sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
                pad: [0; 4],
                value: sys::CUlaunchAttributeValue { programmaticStreamSerializationAllowed: 1 },
            });
        }
        let config = sys::CUlaunchConfig {
            gridDimX: case.launch.grid.0,
            gridDimY: case.launch.grid.1,
            gridDimZ: 1,
            blockDimX: case.launch.block.0,
            blockDimY: case.launch.block.1,
            blockDimZ: 1,
            sharedMemBytes: case.launch.shared_bytes,
            hStream: self.stream.cu_stream(),
            attrs: attributes.as_mut_ptr(),
            numAttrs: attributes.len() as u32,
        };
        self.stream.context().bind_to_thread()?;
        // SAFETY: `params` holds one pointer per kernel parameter, in order, each to a live value
        // of the parameter's type (device pointers as u64, `usize` counts, `f32` eps); the
        // buffers hold what the kernel's contract asks (see `launch`); the grid is a multiple
        // of the cluster size (`cases::rows::Rows::cluster_launch`); the programmatic dependent launch is
        // given only to an entry that waits for the prior grid before touching memory.
        unsafe {
            sys::cuLaunchKernelEx(
                &config,
                entry.function.cu_function(),
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        }
        .result()
        .with_context(|| format!("launching {} {} in clusters", case.kernel, case.launch))?;
        Ok(())
    }

    /// The entry `case` launches from `module`, once the launch is inside that entry's contract
    /// ([`contract::check`]): both launch paths take their function from here, so every launch
    /// is checked once and one outside its contract never reaches the driver.
    fn checked_entry(&self, module: usize, case: &Case) -> Result<&Entry> {
        let entry = self.entry(module, case);
        contract::check(entry.name, case)?;
        Ok(entry)
    }

    /// The entry `case` launches from `module`: [`Case::entry`], or the kernel's own entry in a
    /// module that lacks it (one built before that entry was added).
    fn entry(&self, module: usize, case: &Case) -> &Entry {
        let functions = &self.modules[module];
        // `open_modules` loaded every kernel's own entry or failed.
        functions.get(case.entry()).unwrap_or_else(|| &functions[case.kernel.entry()])
    }

    /// Runs a row kernel's case as a chain of two launches, the second reading the first's
    /// output as its input and writing over the first's input (the same buffers, exchanged),
    /// and returns the second's output (guard elements included). With `dependent`, the second
    /// launch (and the first) is a programmatic dependent launch, which may start while the
    /// first is still running: only the entry's wait for the prior grid keeps it from reading
    /// the first's output before it is written. Without, the stream orders them.
    pub fn run_chained(&self, case: &Case, inputs: &Inputs, dependent: bool) -> Result<Vec<f32>> {
        if dependent && !self.entry(0, case).dependent {
            bail!("{} does not wait for the prior grid: no programmatic dependent launch", case.entry());
        }
        let mut buffers = self.upload(case, inputs)?;
        for swapped in [false, true] {
            self.launch_with_attributes(0, case, &mut buffers, RowLaunch { dependent, swapped })
                .with_context(|| format!("launching {} {} in a chain", case.kernel, case.launch))?;
        }
        self.stream
            .synchronize()
            .with_context(|| format!("{} {} failed on the device in a chain", case.kernel, case.launch))?;
        let mut second = self.stream.clone_dtoh(&buffers.floats[0])?;
        Ok(second.split_off(case.offset))
    }

    /// Launches a case once on its uploaded buffers, waits for it and returns its output
    /// buffer from `case.offset` on, guard elements included; a write before that offset is
    /// an error.
    fn launch_and_read(&self, module: usize, case: &Case, buffers: &mut DeviceCase) -> Result<Vec<f32>> {
        self.launch(module, case, buffers)
            .with_context(|| format!("launching {} {}", case.kernel, case.launch))?;
        self.stream
            .synchronize()
            .with_context(|| format!("{} {} failed on the device", case.kernel, case.launch))?;
        let mut output = match &buffers.bf16_output {
            Some(bits) => widen_bf16_output(&self.stream.clone_dtoh(bits)?),
            None => self.stream.clone_dtoh(&buffers.output)?,
        };
        let before = written_past_end(&output[..case.offset]);
        if before > 0 {
            bail!("{} {} wrote {before} elements before the start of its output", case.kernel, case.launch);
        }
        Ok(output.split_off(case.offset))
    }

    /// Runs a case once and returns its output buffer, guard elements included.
    pub fn run(&self, case: &Case, inputs: &Inputs) -> Result<Vec<f32>> {
        self.run_in(0, case, inputs)
    }

    /// Runs a case once with `module`'s kernel and returns its output buffer, guard elements
    /// included.
    pub fn run_in(&self, module: usize, case: &Case, inputs: &Inputs) -> Result<Vec<f32>> {
        let mut buffers = self.upload(case, inputs)?;
        self.launch_and_read(module, case, &mut buffers)
    }

    /// Times a case on module 0 (old) and module 1 (new), each on its own copy of the same
    /// inputs: the first launch of each is read back, then each module's launches are captured
    /// into a graph of `method.launches` ([`crate::timing`]), replayed `warmup` times untimed,
    /// then `method.repeats` rounds in [`interleaved_order`], each replay between its own two
    /// events; the rounds' times are per launch.
    pub fn time_interleaved(
        &self,
        case: &Case,
        inputs: &Inputs,
        warmup: usize,
        method: Method,
    ) -> Result<Interleaved> {
        if self.modules.len() != 2 {
            bail!("interleaved timing needs two modules, {} are loaded", self.modules.len());
        }
        let mut old = self.upload(case, inputs)?;
        let mut new = self.upload(case, inputs)?;
        let old_output = self.launch_and_read(0, case, &mut old)?;
        let new_output = self.launch_and_read(1, case, &mut new)?;
        let old_graph = self.capture(method.launches, || self.launch(0, case, &mut old))?;
        let new_graph = self.capture(method.launches, || self.launch(1, case, &mut new))?;
        for _ in 0..warmup {
            old_graph.launch()?;
            new_graph.launch()?;
        }
        let timing = Some(CUevent_flags::CU_EVENT_DEFAULT);
        let mut launches = Vec::with_capacity(2 * method.repeats);
        for order in interleaved_order(method.repeats) {
            for side in order {
                let start = self.stream.record_event(timing)?;
                match side {
                    Side::Old => old_graph.launch()?,
                    Side::New => new_graph.launch()?,
                }
                let end = self.stream.record_event(timing)?;
                launches.push((side, start, end));
            }
        }
        self.stream.synchronize().context("a timed launch failed on the device")?;
        let mut paired = Paired::default();
        for (side, start, end) in &launches {
            paired.push(*side, f64::from(start.elapsed_ms(end)?) / method.launches as f64);
        }
        Ok(Interleaved { old_output, new_output, paired })
    }

    /// Launches a case once and keeps its output, captures `method.launches` launches of it
    /// into a graph, replays the graph `warmup` times untimed, then `method.repeats` times
    /// between events ([`crate::timing`]). (SAXPY's timed launches keep updating `y` in place;
    /// only the first output is compared.)
    pub fn time(&self, case: &Case, inputs: &Inputs, warmup: usize, method: Method) -> Result<Timed> {
        let mut buffers = self.upload(case, inputs)?;
        let first_output = self.launch_and_read(0, case, &mut buffers)?;
        let spread = self.time_graph(method, warmup, || self.launch(0, case, &mut buffers))?;
        Ok(Timed { spread, first_output })
    }

    /// Captures `launches` calls of `work` (each enqueueing one launch or copy on the stream)
    /// into a graph, ready to replay. The capture is ended even when `work` fails, so the
    /// stream stays usable.
    fn capture(&self, launches: usize, mut work: impl FnMut() -> Result<()>) -> Result<CudaGraph> {
        self.stream
            .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .context("beginning a graph capture")?;
        let captured = (0..launches).try_for_each(|_| work());
        let graph = self.stream.end_capture(CUgraphInstantiate_flags(0));
        captured?;
        let graph = graph.context("ending the graph capture")?.context("the capture made no graph")?;
        graph.upload().context("uploading the graph")?;
        Ok(graph)
    }

    /// Times `work` as [`crate::timing`] describes: a graph of `method.launches` calls,
    /// replayed `warmup` times, then `method.repeats` times each between two events.
    fn time_graph(&self, method: Method, warmup: usize, work: impl FnMut() -> Result<()>) -> Result<Spread> {
        let graph = self.capture(method.launches, work)?;
        for _ in 0..warmup {
            graph.launch()?;
        }
        let elapsed = self.between_events(method.repeats, "launch", || Ok(graph.launch()?))?;
        per_launch(&elapsed, method.launches).context("no timed repeats")
    }

    /// Enqueues `work` `repeats` times, each between two events, waits for the stream, and
    /// returns each repeat's elapsed milliseconds; a failure on the device is a timed `what`
    /// that failed.
    fn between_events(
        &self,
        repeats: usize,
        what: &str,
        mut work: impl FnMut() -> Result<()>,
    ) -> Result<Vec<f64>> {
        let timing = Some(CUevent_flags::CU_EVENT_DEFAULT);
        let mut pairs = Vec::with_capacity(repeats);
        for _ in 0..repeats {
            let start = self.stream.record_event(timing)?;
            work()?;
            let end = self.stream.record_event(timing)?;
            pairs.push((start, end));
        }
        self.stream.synchronize().with_context(|| format!("a timed {what} failed on the device"))?;
        let mut elapsed = Vec::with_capacity(repeats);
        for (start, end) in &pairs {
            elapsed.push(f64::from(start.elapsed_ms(end)?));
        }
        Ok(elapsed)
    }

    /// The time of one device-to-device copy of `bytes` bytes (rounded down to whole floats,
    /// at least one), timed as the kernels are (a graph of copy nodes): the roofline at decode
    /// sizes, where the copy too is bound by its launch and the data sits in the L2.
    pub fn copy_time(&self, bytes: usize, method: Method) -> Result<Spread> {
        let len = (bytes / 4).max(1);
        let source = self.stream.clone_htod(&vec![1.5f32; len])?;
        let mut destination = self.stream.alloc_zeros::<f32>(len)?;
        self.time_graph(method, 3, || {
            self.stream.memcpy_dtod(&source, &mut destination)?;
            Ok(())
        })
        .with_context(|| format!("timing a device copy of {} bytes", 4 * len))
    }

    /// The device-to-device copy bandwidth in bytes per second (bytes read plus bytes
    /// written), measured on `bytes`-long buffers: the roofline the large shapes are judged by.
    /// Timed as stream-ordered copies, `method.launches` enqueued between each event pair, not
    /// as a graph: a graph's copy node runs on the copy engine (2.77 TB/s on the H200's 1 GiB,
    /// against 4.25 TB/s for the stream's copy), and at 0.25 ms a copy the host keeps ahead.
    pub fn copy_bandwidth(&self, bytes: usize, method: Method) -> Result<f64> {
        let len = bytes / 4;
        let source = self.stream.clone_htod(&vec![1.5f32; len])?;
        let mut destination = self.stream.alloc_zeros::<f32>(len)?;
        for _ in 0..3 {
            self.stream.memcpy_dtod(&source, &mut destination)?;
        }
        let elapsed = self.between_events(method.repeats, "copy", || {
            for _ in 0..method.launches {
                self.stream.memcpy_dtod(&source, &mut destination)?;
            }
            Ok(())
        })?;
        let spread = per_launch(&elapsed, method.launches).context("no timed copies")?;
        Ok(2.0 * (len * 4) as f64 / (spread.median_ms * 1e-3))
    }
}

/// Raises `function`'s limit of dynamic shared memory to `bytes` (the driver refuses launches
/// asking more than 48 KiB otherwise).
/// Lets `function` run in clusters of more than 8 blocks (up to the device's largest, 16 on
/// the H200): larger clusters are "non-portable" and refused unless the function opts in.
fn allow_large_clusters(function: &CudaFunction) -> Result<()> {
    function
        .set_attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)?;
    Ok(())
}

fn raise_dynamic_shared(function: &CudaFunction, bytes: u32) -> Result<()> {
    let bytes = i32::try_from(bytes).context("a shared-memory size in i32")?;
    function
        .set_attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes)?;
    Ok(())
}
