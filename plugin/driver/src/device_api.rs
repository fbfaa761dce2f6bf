//! Recognising the device API's calls that carry protocol meaning, by the callee's path.
//!
//! The kernels reach every protocol instruction through `device::` (the kernels crate's device
//! API, or the same module included by a test crate), so a call is recognised by the path of
//! its callee *below the crate root*: `device::pipeline::Pipeline::producer_acquire` is the
//! producer's acquire whichever crate holds the `device` module. Methods are named by their
//! type's path and their own name; generic arguments play no part.

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

impl DeviceOp {
    /// Whether `def_id` is a device-API function whose inline assembly the model accounts for.
    pub fn is_modelled_body(tcx: TyCtxt<'_>, def_id: DefId) -> bool {
        let path = path_below_crate_root(tcx, def_id).join("::");
        MODELLED_BODIES.contains(&path.as_str())
    }

    /// The operation a callee stands for, if it is one of the device API's protocol functions.
    pub fn of_callee(tcx: TyCtxt<'_>, callee: DefId) -> Option<DeviceOp> {
        let path = path_below_crate_root(tcx, callee).join("::");
        Self::of_path(&path)
    }

    /// The operation named by a path below the crate root.
    pub fn of_path(path: &str) -> Option<DeviceOp> {
        PATHS.iter().find(|(known, _)| *known == path).map(|(_, op)| *op)
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
    fn paths_outside_the_device_module_are_ordinary_calls() {
        assert_eq!(DeviceOp::of_path("pipeline::Pipeline::consumer_wait"), None);
        assert_eq!(DeviceOp::of_path("device::pipeline::Pipeline::init"), None);
        assert_eq!(DeviceOp::of_path("helpers::device::shared::barrier"), None);
    }
}
