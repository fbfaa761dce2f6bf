//! `gemm_bf16_wgmma` on the GPU: the tiled tensor maps (the driver's `cuTensorMapEncodeTiled`),
//! copied to device memory where the kernel's bulk tensor copies read them, the launch, and
//! timing with CUDA events.

use std::ffi::c_void;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use cudarc::driver::sys::{self, CUevent_flags};
use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DevicePtrMut};
use cudarc::nvrtc::Ptx;
use half::bf16;

use crate::gemm_wgmma::{BLOCK_THREADS, BOX_K, BOX_ROWS, GemmShape, SHARED_BYTES};

/// The kernel's entry in `kernels.ptx`.
pub const ENTRY: &str = "gemm_bf16_wgmma";

/// Device 0 with `gemm_bf16_wgmma` loaded and its shared-memory limit raised.
pub struct WgmmaGemm {
    stream: Arc<CudaStream>,
    function: CudaFunction,
    pub name: String,
}

/// A product's buffers on the device: A, B, their tensor maps, and C.
pub struct Operands {
    shape: GemmShape,
    _a: CudaSlice<u16>,
    _b: CudaSlice<u16>,
    a_map: CudaSlice<u8>,
    b_map: CudaSlice<u8>,
    c: CudaSlice<f32>,
}

impl WgmmaGemm {
    pub fn open(ptx: &Path) -> Result<WgmmaGemm> {
        // SAFETY: only tries to open libcuda.
        if !unsafe { sys::is_culib_present() } {
            bail!(
                "no CUDA driver library (libcuda.so) here: {ENTRY} needs an NVIDIA Hopper GPU and its driver"
            );
        }
        let context = CudaContext::new(0).context("could not open CUDA device 0")?;
        // SAFETY: one stream only.
        unsafe { context.disable_event_tracking() };
        let name = context.name()?;
        let module = context.load_module(Ptx::from_file(ptx)).with_context(|| {
            format!("the driver could not load {} (it needs an sm_90a GPU: H100/H200)", ptx.display())
        })?;
        let function = module.load_function(ENTRY).with_context(|| {
            format!("{} has no entry `{ENTRY}`: rebuild it with `just kernels`", ptx.display())
        })?;
        // SAFETY: a valid function handle and an attribute the driver documents.
        unsafe {
            sys::cuFuncSetAttribute(
                function.cu_function(),
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                SHARED_BYTES as i32,
            )
        }
        .result()
        .with_context(|| format!("raising {ENTRY}'s dynamic shared memory to {SHARED_BYTES} bytes"))?;
        Ok(WgmmaGemm { stream: context.default_stream(), function, name })
    }

    /// Uploads A (`m × k`) and B (`n × k`) and encodes their tensor maps; C starts as NaN, so
    /// an element the kernel does not write fails the check.
    pub fn upload(&self, shape: GemmShape, a: &[bf16], b: &[bf16]) -> Result<Operands> {
        if let Some(reason) = shape.unsupported() {
            bail!("{ENTRY}: {reason}");
        }
        let bits = |values: &[bf16]| values.iter().map(|v| v.to_bits()).collect::<Vec<u16>>();
        let a_dev = self.stream.clone_htod(&bits(a))?;
        let b_dev = self.stream.clone_htod(&bits(b))?;
        let a_map = tensor_map(a_dev.device_ptr(&self.stream).0, shape.k, shape.m)?;
        let b_map = tensor_map(b_dev.device_ptr(&self.stream).0, shape.k, shape.n)?;
        let c = self.stream.clone_htod(&vec![f32::NAN; shape.m * shape.n])?;
        Ok(Operands {
            shape,
            _a: a_dev,
            _b: b_dev,
            a_map: self.stream.clone_htod(&a_map)?,
            b_map: self.stream.clone_htod(&b_map)?,
            c,
        })
    }

    fn launch(&self, operands: &mut Operands) -> Result<()> {
        let shape = operands.shape;
        let (grid_x, grid_y) = shape.grid();
        let mut a_map = operands.a_map.device_ptr(&self.stream).0;
        let mut b_map = operands.b_map.device_ptr(&self.stream).0;
        let mut c = operands.c.device_ptr_mut(&self.stream).0;
        let (mut m, mut n, mut k) = (shape.m as u32, shape.n as u32, shape.k as u32);
        fn param<T>(value: &mut T) -> *mut c_void {
            (value as *mut T).cast()
        }
        let mut params = [
            param(&mut a_map),
            param(&mut b_map),
            param(&mut c),
            param(&mut m),
            param(&mut n),
            param(&mut k),
        ];
        self.stream.context().bind_to_thread()?;
        // SAFETY: one pointer per kernel parameter, in order, each to a live value of its type;
        // the maps describe A and B as the kernel's contract asks; C holds m·n floats.
        unsafe {
            sys::cuLaunchKernel(
                self.function.cu_function(),
                grid_x,
                grid_y,
                1,
                BLOCK_THREADS,
                1,
                1,
                SHARED_BYTES,
                self.stream.cu_stream(),
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        }
        .result()
        .with_context(|| format!("launching {ENTRY} on {shape}"))
    }

    /// Launches once and returns C.
    pub fn run(&self, operands: &mut Operands) -> Result<Vec<f32>> {
        self.launch(operands)?;
        self.stream
            .synchronize()
            .with_context(|| format!("{ENTRY} {} failed on the device", operands.shape))?;
        Ok(self.stream.clone_dtoh(&operands.c)?)
    }

    /// The median and (min, max) of `repeats` launches, each between two events, after
    /// `warmup` untimed ones (as the PyTorch peer times `torch.matmul`).
    pub fn time(&self, operands: &mut Operands, warmup: usize, repeats: usize) -> Result<(f64, (f64, f64))> {
        for _ in 0..warmup {
            self.launch(operands)?;
        }
        let timing = Some(CUevent_flags::CU_EVENT_DEFAULT);
        let mut pairs = Vec::with_capacity(repeats);
        for _ in 0..repeats {
            let start = self.stream.record_event(timing)?;
            self.launch(operands)?;
            let end = self.stream.record_event(timing)?;
            pairs.push((start, end));
        }
        self.stream.synchronize().context("a timed launch failed on the device")?;
        let mut times =
            pairs.iter().map(|(s, e)| s.elapsed_ms(e).map(f64::from)).collect::<Result<Vec<_>, _>>()?;
        times.sort_by(f64::total_cmp);
        Ok((times[times.len() / 2], (times[0], times[times.len() - 1])))
    }
}

/// Encodes the tiled tensor map of a row-major bf16 matrix of `rows` rows of `columns` values
/// at `address`: box 64 × 128, 128-byte swizzle (what the kernel's wgmma descriptors read),
/// zeros past the edges. Returns the map's 128 bytes.
fn tensor_map(address: sys::CUdeviceptr, columns: usize, rows: usize) -> Result<Vec<u8>> {
    let mut map = std::mem::MaybeUninit::<sys::CUtensorMap>::zeroed();
    let dims = [columns as u64, rows as u64];
    let strides = [(columns * 2) as u64];
    let boxes = [BOX_K, BOX_ROWS];
    let element_strides = [1u32, 1];
    // SAFETY: the arrays hold rank (2) entries, rank − 1 for the strides; `address` is a device
    // allocation of rows × columns bf16 values that outlives every launch using the map.
    unsafe {
        sys::cuTensorMapEncodeTiled(
            map.as_mut_ptr(),
            sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
            2,
            address as *mut c_void,
            dims.as_ptr(),
            strides.as_ptr(),
            boxes.as_ptr(),
            element_strides.as_ptr(),
            sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
            sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
    }
    .result()
    .with_context(|| format!("encoding the tensor map of a {rows} × {columns} bf16 matrix"))?;
    // SAFETY: the encode call initialised the map.
    let map = unsafe { map.assume_init() };
    // SAFETY: CUtensorMap is 128 plain bytes.
    let bytes = unsafe { std::slice::from_raw_parts((&map as *const sys::CUtensorMap).cast::<u8>(), 128) };
    Ok(bytes.to_vec())
}
