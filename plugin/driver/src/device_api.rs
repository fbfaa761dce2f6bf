//! Recognising the device API's calls that carry protocol meaning, by the callee's path.
//!
//! The kernels reach every protocol instruction through `device::` (the kernels crate's device
//! API, or the same module included by a test crate), so a call is recognised by the path of
//! its callee *below the crate root*: `device::pipeline::Pipeline::producer_acquire` is the
//! producer's acquire whichever crate holds the `device` module. Methods are named by their
//! type's path and their own name; generic arguments play no part.
//!
//! The cuda-oxide kernels (`kernels/oxide`) reach theirs through cuda-oxide's `cuda_device`
//! crate instead, whose functions are compiler markers: on the host triple, where the driver
//! reads them, their bodies are `unreachable!()`, and the cuda-oxide backend replaces each call.
//! So no `cuda_device` function is followed: every call of one is classified here by its path
//! below that crate's root ([`CudaDeviceCall`]), the two the model knows as protocol operations
//! (`shared::DynamicSharedArray::get`, `thread::sync_threads`) answer [`DeviceOp::of_callee`]
//! like the default device API's, and a path the table does not hold is outside the model.

use rustc_hir::def::DefKind;
use rustc_hir::def_id::DefId;
use rustc_hir::definitions::DefPathData;
use rustc_middle::ty::{self, TyCtxt};

/// A device-API operation that the verifier models as a semantic operation rather than as a
/// call into an ordinary function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeviceOp {
    /// `PipelineState::new` (or `default`): the consumer's starting state.
    ConsumerStateNew,
    /// `PipelineState::producer_start`: the producer's starting state.
    ProducerStateNew,
    /// `PipelineState::advance`.
    StateAdvance,
    /// `PipelineState::index`: the stage a state points at.
    StateIndex,
    /// `Pipeline::producer_acquire`.
    ProducerAcquire,
    /// `Pipeline::producer_expect_tx`.
    ProducerExpectTx,
    /// `Pipeline::producer_barrier`: the *full* barrier of the producer's current stage.
    ProducerBarrier,
    /// `Pipeline::producer_tail`.
    ProducerTail,
    /// `Pipeline::consumer_wait`.
    ConsumerWait,
    /// `Pipeline::consumer_release`.
    ConsumerRelease,
    /// `bulk_copy_global_to_shared`.
    BulkCopy,
    /// `tensor_copy_2d_global_to_shared`: a bulk copy whose source is a tensor map (the box's
    /// coordinates are not modelled), imported as `semantic.bulk_copy` with the box's bytes.
    TensorCopy2d,
    /// `dynamic_shared_base`: the generic pointer to dynamic shared memory.
    DynamicSharedBase,
    /// `dynamic_shared_window_address`: the 32-bit shared-window address of the same memory.
    DynamicSharedWindow,
    /// `barrier`: the block-wide barrier.
    Barrier,
    /// `wgmma::fence(&mut accumulators)`.
    WgmmaFence,
    /// `wgmma::mma_m64n128k16_bf16(&mut accumulators, a, b, accumulate)`.
    WgmmaMma,
    /// `wgmma::commit_group()`.
    WgmmaCommit,
    /// `wgmma::wait_group::<PENDING>(&mut accumulators)`.
    WgmmaWait,
    /// `fence_proxy_async_shared()`.
    ProxyFence,
}

/// Every recognised operation with its path below the crate root.
const PATHS: &[(&str, DeviceOp)] = &[
    ("device::pipeline::PipelineState::new", DeviceOp::ConsumerStateNew),
    ("device::pipeline::PipelineState::producer_start", DeviceOp::ProducerStateNew),
    // `Default` is the consumer's start (`new`).
    ("device::pipeline::PipelineState::default", DeviceOp::ConsumerStateNew),
    ("device::pipeline::PipelineState::advance", DeviceOp::StateAdvance),
    ("device::pipeline::PipelineState::index", DeviceOp::StateIndex),
    ("device::pipeline::Pipeline::producer_acquire", DeviceOp::ProducerAcquire),
    ("device::pipeline::Pipeline::producer_expect_tx", DeviceOp::ProducerExpectTx),
    ("device::pipeline::Pipeline::producer_barrier", DeviceOp::ProducerBarrier),
    ("device::pipeline::Pipeline::producer_tail", DeviceOp::ProducerTail),
    ("device::pipeline::Pipeline::consumer_wait", DeviceOp::ConsumerWait),
    ("device::pipeline::Pipeline::consumer_release", DeviceOp::ConsumerRelease),
    ("device::pipeline::bulk_copy_global_to_shared", DeviceOp::BulkCopy),
    ("device::pipeline::tensor_copy_2d_global_to_shared", DeviceOp::TensorCopy2d),
    ("device::shared::dynamic_shared_base", DeviceOp::DynamicSharedBase),
    ("device::shared::dynamic_shared_window_address", DeviceOp::DynamicSharedWindow),
    ("device::shared::barrier", DeviceOp::Barrier),
    ("device::wgmma::fence", DeviceOp::WgmmaFence),
    ("device::wgmma::mma_m64n128k16_bf16", DeviceOp::WgmmaMma),
    ("device::wgmma::commit_group", DeviceOp::WgmmaCommit),
    ("device::wgmma::wait_group", DeviceOp::WgmmaWait),
    ("device::pipeline::fence_proxy_async_shared", DeviceOp::ProxyFence),
];

/// Device-API functions that the scope follows and whose own assembly is part of the model:
/// `Pipeline::init` initialises the ring's mbarriers (one arrival for *full*, the consumer count
/// for *empty*) and fences them for the async proxy, which is what the rules assume of a
/// pipeline; `mbarrier_init` is its private step.
const MODELLED_BODIES: &[&str] = &["device::pipeline::Pipeline::init", "device::pipeline::mbarrier_init"];

/// The crate of cuda-oxide's device API (`vendor/cuda-oxide/crates/cuda-device`).
pub const CUDA_DEVICE_CRATE: &str = "cuda_device";

/// What a call of a `cuda_device` function stands for (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CudaDeviceCall {
    /// A protocol operation the model knows, imported as the default device API's is.
    Op(DeviceOp),
    /// A read of the thread geometry, imported as a call of the standard library's intrinsic of
    /// the same register (`core::arch::nvptx::_thread_idx_x`), which is the name the rules read
    /// the geometry by: the default backend's kernels reach the same intrinsics.
    Geometry(&'static str),
    /// A function of its operands that touches no memory (fast math, a warp shuffle, the
    /// block's place in its cluster, the same in every thread of a block): an ordinary call
    /// outside the scope.
    Value,
    /// `shared::cvta_generic_to_shared_offset`: the shared-window address of a pointer, a number
    /// that only assembly reads; nothing is accessed.
    WindowAddress,
    /// A `ptx_asm!` marker (`ptx::__ptx_asm_void_N`, `__ptx_asm_out_N`): inline PTX, register-only
    /// when the macro was given `options(register_only)`.
    InlinePtx,
    /// Outside the model, with the reason a scope holding it is unverified.
    Unmodelled(&'static str),
}

/// cuda-device's protocol operations, by path below its crate root.
const CUDA_DEVICE_OPS: &[(&str, DeviceOp)] = &[
    ("shared::DynamicSharedArray::get", DeviceOp::DynamicSharedBase),
    ("thread::sync_threads", DeviceOp::Barrier),
];

/// cuda-device's special-register reads of the thread geometry, and the standard library's
/// intrinsic that reads the same register.
const CUDA_DEVICE_GEOMETRY: &[(&str, &str)] = &[
    ("thread::threadIdx_x", "core::arch::nvptx::_thread_idx_x"),
    ("thread::threadIdx_y", "core::arch::nvptx::_thread_idx_y"),
    ("thread::threadIdx_z", "core::arch::nvptx::_thread_idx_z"),
    ("thread::blockIdx_x", "core::arch::nvptx::_block_idx_x"),
    ("thread::blockIdx_y", "core::arch::nvptx::_block_idx_y"),
    ("thread::blockIdx_z", "core::arch::nvptx::_block_idx_z"),
    ("thread::blockDim_x", "core::arch::nvptx::_block_dim_x"),
    ("thread::blockDim_y", "core::arch::nvptx::_block_dim_y"),
    ("thread::blockDim_z", "core::arch::nvptx::_block_dim_z"),
    ("thread::gridDim_x", "core::arch::nvptx::_grid_dim_x"),
    ("thread::gridDim_y", "core::arch::nvptx::_grid_dim_y"),
    ("thread::gridDim_z", "core::arch::nvptx::_grid_dim_z"),
];

/// cuda-device functions of their operands alone: exact paths, then path prefixes (the
/// generated fast-math intrinsics, the warp shuffles). The cluster reads are the same in every
/// thread of a block, which is how the rules read an argument-less call outside the scope.
const CUDA_DEVICE_VALUES: &[&str] =
    &["cluster::cluster_idx", "cluster::num_clusters", "cluster::block_rank", "cluster::cluster_size"];
const CUDA_DEVICE_VALUE_PREFIXES: &[&str] = &["float::", "warp::shuffle"];

/// cuda-device's operations outside the model, by path prefix, with the reason reported.
const CUDA_DEVICE_UNMODELLED: &[(&str, &str)] = &[
    (
        "barrier::mbarrier",
        "a raw mbarrier operation of cuda-device (the model knows mbarriers only through the default \
         device API's `Pipeline` protocol)",
    ),
    ("barrier::fence_proxy_async", "an async-proxy fence of cuda-device outside a modelled pipeline"),
    ("tma::", "a bulk tensor copy (TMA) of cuda-device"),
    ("async_copy::", "an asynchronous copy of cuda-device"),
    ("cluster::barrier_cluster", "a cluster barrier of cuda-device (the model knows block barriers only)"),
    ("cluster::", "distributed shared memory of cuda-device (another block's shared memory)"),
    (
        "shared::DynamicSharedArray::",
        "dynamic shared memory reached at a byte offset or as raw bytes (`DynamicSharedArray::offset`, \
         `get_raw`), which the import does not place",
    ),
];

impl CudaDeviceCall {
    /// The classification of a call of `callee`, or `None` outside the `cuda_device` crate.
    pub fn of_callee<'tcx>(tcx: TyCtxt<'tcx>, callee: ty::Instance<'tcx>) -> Option<CudaDeviceCall> {
        if tcx.crate_name(callee.def_id().krate).as_str() != CUDA_DEVICE_CRATE {
            return None;
        }
        let path = path_below_crate_root(tcx, callee.def_id()).join("::");
        Some(Self::of_path(&path))
    }

    /// The classification of a path below `cuda_device`'s root; deny by default.
    pub fn of_path(path: &str) -> CudaDeviceCall {
        if let Some((_, op)) = CUDA_DEVICE_OPS.iter().find(|(known, _)| *known == path) {
            return CudaDeviceCall::Op(*op);
        }
        if let Some((_, intrinsic)) = CUDA_DEVICE_GEOMETRY.iter().find(|(known, _)| *known == path) {
            return CudaDeviceCall::Geometry(intrinsic);
        }
        if CUDA_DEVICE_VALUES.contains(&path)
            || CUDA_DEVICE_VALUE_PREFIXES.iter().any(|p| path.starts_with(p))
        {
            return CudaDeviceCall::Value;
        }
        if path == "shared::cvta_generic_to_shared_offset" {
            return CudaDeviceCall::WindowAddress;
        }
        if path.starts_with("ptx::__ptx_asm_void_") || path.starts_with("ptx::__ptx_asm_out_") {
            return CudaDeviceCall::InlinePtx;
        }
        match CUDA_DEVICE_UNMODELLED.iter().find(|(prefix, _)| path.starts_with(prefix)) {
            Some((_, reason)) => CudaDeviceCall::Unmodelled(reason),
            None => CudaDeviceCall::Unmodelled("a cuda-device function the verifier has no entry for"),
        }
    }

    /// Whether a `ptx_asm!` marker instance was given `options(register_only)`: the macro
    /// passes its options as a byte string whose length is the marker's third const argument
    /// (`OPTIONS_LEN`), empty exactly when the assembly may touch memory.
    pub fn register_only_ptx(callee: ty::Instance<'_>) -> bool {
        callee
            .args
            .consts()
            .nth(2)
            .and_then(|length| length.try_to_leaf())
            .is_some_and(|length| !length.is_null())
    }
}

impl DeviceOp {
    /// Whether `def_id` is a device-API function whose inline assembly the model accounts for.
    pub fn is_modelled_body(tcx: TyCtxt<'_>, def_id: DefId) -> bool {
        let path = path_below_crate_root(tcx, def_id).join("::");
        MODELLED_BODIES.contains(&path.as_str())
    }

    /// The operation a callee stands for, if it is one of the device API's protocol functions.
    pub fn of_callee(tcx: TyCtxt<'_>, callee: DefId) -> Option<DeviceOp> {
        let path = path_below_crate_root(tcx, callee).join("::");
        if tcx.crate_name(callee.krate).as_str() == CUDA_DEVICE_CRATE {
            return match CudaDeviceCall::of_path(&path) {
                CudaDeviceCall::Op(op) => Some(op),
                _ => None,
            };
        }
        Self::of_path(&path)
    }

    /// The operation named by a path below the crate root.
    pub fn of_path(path: &str) -> Option<DeviceOp> {
        PATHS.iter().find(|(known, _)| *known == path).map(|(_, op)| *op)
    }
}

/// Whether `ty` is the device API's `PipelineState`.
pub fn is_pipeline_state<'tcx>(tcx: TyCtxt<'tcx>, ty: ty::Ty<'tcx>) -> bool {
    match ty.kind() {
        ty::Adt(adt, _) => {
            path_below_crate_root(tcx, adt.did()).join("::") == "device::pipeline::PipelineState"
        }
        _ => false,
    }
}

/// The names on the way from the crate root to `def_id`; an impl's items (inherent or of a
/// trait) are named by the impl's self type (`device::pipeline::Pipeline::consumer_wait`,
/// `device::pipeline::PipelineState::default`).
pub fn path_below_crate_root(tcx: TyCtxt<'_>, def_id: DefId) -> Vec<String> {
    if let Some(parent) = tcx.opt_parent(def_id)
        && matches!(tcx.def_kind(parent), DefKind::Impl { .. })
    {
        let mut path = match tcx.type_of(parent).instantiate_identity().skip_normalization().kind() {
            ty::Adt(adt, _) => path_below_crate_root(tcx, adt.did()),
            _ => vec!["<impl>".to_string()],
        };
        path.push(tcx.item_name(def_id).to_string());
        return path;
    }
    tcx.def_path(def_id)
        .data
        .iter()
        .map(|segment| match segment.data {
            DefPathData::TypeNs(name) | DefPathData::ValueNs(name) => name.to_string(),
            _ => format!("{{{:?}}}", segment.data),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_is_found_by_its_own_path_and_no_two_share_one() {
        let mut paths: Vec<&str> = PATHS.iter().map(|(path, _)| *path).collect();
        paths.sort();
        paths.dedup();
        assert_eq!(paths.len(), PATHS.len());
        for (path, op) in PATHS {
            assert_eq!(DeviceOp::of_path(path), Some(*op));
        }
    }

    #[test]
    fn cuda_device_paths_are_classified_and_unknown_ones_are_outside_the_model() {
        use CudaDeviceCall::*;
        assert_eq!(
            CudaDeviceCall::of_path("shared::DynamicSharedArray::get"),
            Op(DeviceOp::DynamicSharedBase)
        );
        assert_eq!(CudaDeviceCall::of_path("thread::sync_threads"), Op(DeviceOp::Barrier));
        assert_eq!(
            CudaDeviceCall::of_path("thread::threadIdx_x"),
            Geometry("core::arch::nvptx::_thread_idx_x")
        );
        assert_eq!(CudaDeviceCall::of_path("float::ex2_approx_f32"), Value);
        assert_eq!(CudaDeviceCall::of_path("cluster::block_rank"), Value);
        assert_eq!(CudaDeviceCall::of_path("ptx::__ptx_asm_void_3"), InlinePtx);
        assert!(
            matches!(CudaDeviceCall::of_path("barrier::mbarrier_init"), Unmodelled(why) if why.contains("mbarrier"))
        );
        assert!(
            matches!(CudaDeviceCall::of_path("tma::cp_async_bulk_tensor_2d"), Unmodelled(why) if why.contains("TMA"))
        );
        assert!(matches!(
            CudaDeviceCall::of_path("cluster::barrier_cluster_wait_aligned"),
            Unmodelled(why) if why.contains("cluster barrier")
        ));
        assert!(matches!(CudaDeviceCall::of_path("shared::DynamicSharedArray::offset"), Unmodelled(_)));
        assert!(
            matches!(CudaDeviceCall::of_path("atomic::anything_new"), Unmodelled(why) if why.contains("no entry"))
        );
        // The geometry names are the ones the rules read by their last segment.
        for (_, intrinsic) in CUDA_DEVICE_GEOMETRY {
            assert!(intrinsic.starts_with("core::arch::nvptx::_"));
        }
    }

    #[test]
    fn paths_outside_the_device_module_are_ordinary_calls() {
        assert_eq!(DeviceOp::of_path("pipeline::Pipeline::consumer_wait"), None);
        assert_eq!(DeviceOp::of_path("device::pipeline::Pipeline::init"), None);
        assert_eq!(DeviceOp::of_path("helpers::device::shared::barrier"), None);
    }
}
