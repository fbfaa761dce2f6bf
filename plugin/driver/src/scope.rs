//! Kernel scopes: each `extern "ptx-kernel"` function (and each cuda-oxide `#[kernel]`, see
//! [`kernel_entries`]) and every function it reaches through calls, with the MIR body the
//! import reads.
//!
//! Bodies of this crate's functions come from `mir_drops_elaborated_and_const_checked`, the MIR
//! from before MIR inlining, so the calls into the device API are still calls. Bodies of other
//! workspace crates' functions (the helper crate) come from their encoded MIR (`instance_mir`),
//! which exists because this driver compiles every workspace crate with `-Zalways-encode-mir`
//! (see `main.rs`). Calls into the standard library crates are followed only where they are
//! handed a raw pointer or a closure and have a body (their encoded MIR: generic or inline
//! functions; see [`is_followed_standard`]); the recognised device-API operations never are:
//! those become semantic operations, not scope members. Nor is any function of cuda-oxide's
//! `cuda_device` crate: on the host triple its bodies are `unreachable!()` markers that the
//! cuda-oxide backend replaces, so each call is classified at the call instead
//! ([`crate::device_api::CudaDeviceCall`]).
//! Every body is instantiated with its instance's generic arguments, so the import sees
//! concrete types, and the branches those arguments decide are folded before anything reads it
//! ([`crate::decided_branches`]): calls in code that cannot run do not join the scope. So are,
//! once the scope is collected, the branches decided by arguments every call in the scope passes
//! alike ([`crate::constant_arguments`]), and functions only those branches called leave it.

use std::collections::VecDeque;
use std::rc::Rc;

use rustc_data_structures::fx::{FxHashMap, FxHashSet};

use rustc_abi::ExternAbi;
use rustc_hir::def::DefKind;
use rustc_hir::def_id::{DefId, LocalDefId};
use rustc_middle::mir::{Body, Terminator, TerminatorKind};
use rustc_middle::ty::{self, EarlyBinder, Instance, InstanceKind, ShimKind, TyCtxt, TypingEnv};
use rustc_span::Span;

use crate::constant_arguments::prune_by_agreed_arguments;
use crate::decided_branches::prune_decided_branches;
use crate::device_api::{CUDA_DEVICE_CRATE, DeviceOp};
use crate::inlined_helpers::{Calls, inline_helpers};
use crate::threaded_dispatch::thread_dispatches;
use crate::unused_device_reads::drop_unused_device_reads;

/// Crates whose functions are never followed into: their bodies are the toolchain's, and
/// calls to them stay ordinary calls in the imported IR.
const STANDARD_CRATES: &[&str] = &["core", "alloc", "std", "compiler_builtins"];

/// The symbol prefix cuda-oxide's `#[kernel]` gives a kernel (`fn vector_add` becomes
/// `#[no_mangle] fn cuda_oxide_codegen_v1_cuda_oxide_kernel_246e25db_vector_add`), by which its
/// backend's collector finds the entries; the PTX entry is the name after it. The constant is
/// `KERNEL_PREFIX` of `vendor/cuda-oxide/crates/reserved-oxide-symbols`, which that crate
/// promises never to change (a cache protocol would bump `v1`).
pub const CUDA_OXIDE_KERNEL_PREFIX: &str = "cuda_oxide_codegen_v1_cuda_oxide_kernel_246e25db_";

/// One kernel and everything it reaches.
pub struct KernelScope<'tcx> {
    /// The kernel's name (its PTX entry name: kernels are `#[no_mangle]`).
    pub name: String,
    /// The kernel first, then every reached function in discovery order.
    pub functions: Vec<ScopeFunction<'tcx>>,
    /// Reached functions of workspace crates whose MIR is not available, with the call that
    /// reached them; they are imported as calls without a body.
    pub without_mir: Vec<(Instance<'tcx>, Span)>,
    /// Blocks of the bodies that the instances' constants cut off ([`prune_decided_branches`]).
    pub pruned_blocks: usize,
}

/// A function of a scope and the body the import reads: this crate's MIR from before MIR
/// inlining, or another workspace crate's encoded MIR (after that crate's own optimisations),
/// instantiated and with its decided branches folded. Shared with every other scope of the
/// crate that calls the same instance ([`PreparedBodies`]), unless this scope's agreed
/// arguments folded more of it (then it is this scope's own copy).
pub struct ScopeFunction<'tcx> {
    pub instance: Instance<'tcx>,
    pub body: Rc<Body<'tcx>>,
}

/// The bodies of one crate's scope functions, prepared once per instance: read, instantiated,
/// their decided branches folded and their followed callees found. Kernels of one crate share
/// most of their callees (the device API's helpers, a generic body several entries
/// instantiate alike), and before this each scope paid for every one of them again; in the
/// kernels crate the eight `gemv_f16_batched*` scopes spent about 30 ms each there, most of it
/// on instances another scope had already prepared.
#[derive(Default)]
pub struct PreparedBodies<'tcx> {
    by_instance: FxHashMap<Instance<'tcx>, Option<Prepared<'tcx>>>,
}

/// One instance's prepared body (`None` in [`PreparedBodies`]: its crate encoded no MIR).
struct Prepared<'tcx> {
    body: Rc<Body<'tcx>>,
    /// Blocks the folding of its decided branches emptied.
    emptied: usize,
    callees: Vec<(Instance<'tcx>, Span)>,
}

impl<'tcx> PreparedBodies<'tcx> {
    fn get(&mut self, tcx: TyCtxt<'tcx>, instance: Instance<'tcx>) -> Option<&Prepared<'tcx>> {
        self.by_instance.entry(instance).or_insert_with(|| prepare(tcx, instance)).as_ref()
    }
}

/// Reads `instance`'s body, instantiates it and folds the branches its arguments decide.
fn prepare<'tcx>(tcx: TyCtxt<'tcx>, instance: Instance<'tcx>) -> Option<Prepared<'tcx>> {
    let body = body_of(tcx, instance)?;
    let mut body = instance.instantiate_mir_and_normalize_erasing_regions(
        tcx,
        TypingEnv::fully_monomorphized(),
        EarlyBinder::bind(tcx, body),
    );
    let mut emptied = prune_decided_branches(tcx, &mut body);
    // Helpers handing back an iterator the import counts, or stepping a state handed to them,
    // written in where they are called (`inlined_helpers`).
    let calls = Calls {
        resolve: &|func_ty| resolve_callee(tcx, func_ty),
        followed_body: &|callee, wanted| {
            if !is_followed(tcx, callee.def_id()) {
                return None;
            }
            with_body_as_written(tcx, callee, |body| wanted(body).then(|| body.clone())).flatten()
        },
    };
    if inline_helpers(tcx, &mut body, &calls) > 0 {
        emptied += prune_decided_branches(tcx, &mut body);
    }
    // A state machine's jumps threaded, then what its arms' constants decide folded (a
    // `match` arm's `if` on a variant now reached from one store only).
    if thread_dispatches(tcx, &mut body) > 0 {
        emptied += prune_decided_branches(tcx, &mut body);
    }
    // What the folded branches held may have been the only use of a shared-memory base.
    drop_unused_device_reads(tcx, &mut body, &|func_ty| resolve_callee(tcx, func_ty));
    let callees = followed_callees(tcx, &body);
    Some(Prepared { body: Rc::new(body), emptied, callees })
}

/// The kernel entries of the crate being compiled, in source order: every `extern "ptx-kernel"`
/// function, and every non-generic function whose symbol carries cuda-oxide's kernel prefix
/// (on the host triple, where cuda-oxide's kernels are compiled, they have the Rust ABI).
pub fn kernel_entries(tcx: TyCtxt<'_>) -> Vec<LocalDefId> {
    tcx.hir_body_owners()
        .filter(|&owner| matches!(tcx.def_kind(owner), DefKind::Fn))
        .filter(|&owner| {
            tcx.fn_sig(owner).skip_binder().abi() == ExternAbi::PtxKernel
                || cuda_oxide_entry(tcx, owner).is_some()
        })
        .collect()
}

/// The PTX entry name of a cuda-oxide `#[kernel]`: its symbol without the reserved prefix.
/// Generic kernels (instantiated by the host crate) have no symbol of their own here.
fn cuda_oxide_entry(tcx: TyCtxt<'_>, owner: LocalDefId) -> Option<String> {
    // The name first: a cheap test that keeps every other function's symbol uncomputed.
    if !tcx.item_name(owner.to_def_id()).as_str().starts_with(CUDA_OXIDE_KERNEL_PREFIX)
        || tcx.generics_of(owner).requires_monomorphization(tcx)
    {
        return None;
    }
    let symbol = tcx.symbol_name(Instance::mono(tcx, owner.to_def_id())).name;
    symbol.strip_prefix(CUDA_OXIDE_KERNEL_PREFIX).map(str::to_string)
}

/// A kernel's name: its PTX entry name (kernels are `#[no_mangle]`; a cuda-oxide `#[kernel]`'s
/// is its symbol without the reserved prefix).
pub fn kernel_name(tcx: TyCtxt<'_>, kernel: LocalDefId) -> String {
    cuda_oxide_entry(tcx, kernel).unwrap_or_else(|| tcx.item_name(kernel.to_def_id()).to_string())
}

/// Collects the scope of one kernel, its bodies from (and prepared into) `prepared`.
pub fn collect<'tcx>(
    tcx: TyCtxt<'tcx>,
    kernel: LocalDefId,
    prepared: &mut PreparedBodies<'tcx>,
) -> KernelScope<'tcx> {
    let root = Instance::mono(tcx, kernel.to_def_id());
    let mut scope = KernelScope {
        name: kernel_name(tcx, kernel),
        functions: Vec::new(),
        without_mir: Vec::new(),
        pruned_blocks: 0,
    };
    let mut seen: FxHashSet<Instance<'tcx>> = FxHashSet::from_iter([root]);
    let mut queue = VecDeque::from([(root, tcx.def_span(kernel))]);
    while let Some((instance, reached_at)) = queue.pop_front() {
        let Some(function) = prepared.get(tcx, instance) else {
            scope.without_mir.push((instance, reached_at));
            continue;
        };
        scope.pruned_blocks += function.emptied;
        for (callee, span) in &function.callees {
            if seen.insert(*callee) {
                queue.push_back((*callee, *span));
            }
        }
        scope.functions.push(ScopeFunction { instance, body: Rc::clone(&function.body) });
    }
    let mut bodies: Vec<(Instance<'tcx>, &mut Rc<Body<'tcx>>)> =
        scope.functions.iter_mut().map(|function| (function.instance, &mut function.body)).collect();
    let emptied = prune_by_agreed_arguments(tcx, &mut bodies, &|func_ty| resolve_callee(tcx, func_ty));
    if emptied > 0 {
        scope.pruned_blocks += emptied;
        keep_called_functions(tcx, &mut scope, root);
    }
    scope
}

/// Drops the functions no call of the scope reaches any more (their calls were cut off).
fn keep_called_functions<'tcx>(tcx: TyCtxt<'tcx>, scope: &mut KernelScope<'tcx>, root: Instance<'tcx>) {
    let position: FxHashMap<Instance<'tcx>, usize> =
        scope.functions.iter().enumerate().map(|(f, function)| (function.instance, f)).collect();
    let mut reached = FxHashSet::from_iter([root]);
    let mut queue = VecDeque::from([0]);
    while let Some(f) = queue.pop_front() {
        for (callee, _) in followed_callees(tcx, &scope.functions[f].body) {
            if let Some(&g) = position.get(&callee)
                && reached.insert(callee)
            {
                queue.push_back(g);
            }
        }
    }
    scope.functions.retain(|function| reached.contains(&function.instance));
}

/// The callee of a call, resolved to the instance that runs (trait methods to their impl).
pub fn resolve_callee<'tcx>(tcx: TyCtxt<'tcx>, func_ty: ty::Ty<'tcx>) -> Option<Instance<'tcx>> {
    let ty::FnDef(def_id, args) = *func_ty.kind() else { return None };
    let args = args.no_bound_vars()?;
    Instance::try_resolve(tcx, TypingEnv::fully_monomorphized(), def_id, args).ok().flatten()
}

/// The function item a call through `Fn::call`, `FnMut::call_mut` or `FnOnce::call_once` runs,
/// where the callable is a function item (`warp_reduce(value)` in a helper generic over `impl
/// Fn(f32) -> f32`, handed `warp_sum`). rustc resolves such a call to a shim that calls the
/// item; the scope follows the item itself, so its body is verified, and the import spreads the
/// argument tuple over its parameters.
pub fn fn_item_behind_trait_call<'tcx>(tcx: TyCtxt<'tcx>, callee: Instance<'tcx>) -> Option<Instance<'tcx>> {
    let InstanceKind::Shim(ShimKind::FnPtr(_, callable)) = callee.def else { return None };
    if !matches!(callable.kind(), ty::FnDef(..)) {
        return None;
    }
    resolve_callee(tcx, callable).filter(|item| matches!(item.def, InstanceKind::Item(_)))
}

/// Whether calls to `def_id` are followed into its body.
pub fn is_followed(tcx: TyCtxt<'_>, def_id: DefId) -> bool {
    let crate_name = tcx.crate_name(def_id.krate);
    !STANDARD_CRATES.contains(&crate_name.as_str())
        && crate_name.as_str() != CUDA_DEVICE_CRATE
        && DeviceOp::of_callee(tcx, def_id).is_none()
}

/// Whether a standard-library function is followed into: only one with a body (generic or
/// inline), and only where it is handed something that may hold a pointer, so that what it does
/// with the pointer is verified instead of left as a call the verifier cannot see into. A view
/// or reader of a stage (`plugin::verify::is_memory_view`, `is_view_reader`: `iter`, `sum`, …),
/// which the stage-access rules read at the call, is followed only where it is handed a closure
/// (`(0..8).map(|k| …).sum()`): the closure may access memory itself, and only following the
/// call shows where it runs.
fn is_followed_standard(tcx: TyCtxt<'_>, def_id: DefId, handed: Handed) -> bool {
    let crate_name = tcx.crate_name(def_id.krate);
    if !(handed.pointer || handed.closure)
        || !STANDARD_CRATES.contains(&crate_name.as_str())
        || !tcx.is_mir_available(def_id)
    {
        return false;
    }
    if handed.closure {
        return true;
    }
    let name = crate::naming::symbol(&crate::naming::crate_qualified_path(tcx, def_id));
    !plugin::verify::is_memory_view(&name) && !plugin::verify::is_view_reader(&name)
}

/// What a call's arguments may hold, anywhere inside them.
#[derive(Clone, Copy)]
struct Handed {
    /// A raw pointer, or a value the verifier takes for one that may hold an address.
    pointer: bool,
    /// A closure (whose captures may be pointers or references, and whose body may access
    /// memory).
    closure: bool,
}

impl Handed {
    fn of<'tcx>(tcx: TyCtxt<'tcx>, types: impl Iterator<Item = ty::Ty<'tcx>>) -> Handed {
        let mut handed = Handed { pointer: false, closure: false };
        for ty in types {
            handed.scan(tcx, ty);
        }
        handed
    }

    /// Looks through `ty` and its type arguments. A struct or enum of the kernel's crates counts
    /// as a pointer: the verifier reads an aggregate by its type's name, so it takes any such
    /// value for one that may hold an address (`bool::then_some(Col(c))`, `ok_or(Idle)` and the
    /// `?` operator's `branch` on a `Result<Role, Idle>` were calls it could not see into).
    fn scan<'tcx>(&mut self, tcx: TyCtxt<'tcx>, ty: ty::Ty<'tcx>) {
        for part in ty.walk().filter_map(|part| part.as_type()) {
            match part.kind() {
                ty::RawPtr(..) => self.pointer = true,
                ty::Closure(..) => self.closure = true,
                ty::Adt(adt, _)
                    if !STANDARD_CRATES.contains(&tcx.crate_name(adt.did().krate).as_str())
                        && !is_device_api_type(tcx, adt.did()) =>
                {
                    self.pointer = true
                }
                _ => {}
            }
        }
    }
}

/// Whether `def_id` is a type of the device API (`device::pipeline::PipelineState`, `Pipeline`):
/// the import carries those across a call of the standard library itself (a state through
/// `core::mem::swap`, `replace` or an `Option` the import follows), and the verifier reads them
/// by their semantic operations, not as aggregates that may hold an address.
fn is_device_api_type(tcx: TyCtxt<'_>, def_id: DefId) -> bool {
    crate::device_api::path_below_crate_root(tcx, def_id).first().is_some_and(|root| root == "device")
}

/// The calls of a (monomorphic) body that the scope follows, with their spans.
fn followed_callees<'tcx>(tcx: TyCtxt<'tcx>, body: &Body<'tcx>) -> Vec<(Instance<'tcx>, Span)> {
    let mut callees = Vec::new();
    for block in body.basic_blocks.iter() {
        let terminator = block.terminator();
        if let Some(callee) = followed_callee(tcx, body, terminator, &|ty| ty) {
            callees.push((callee, terminator.source_info.span));
        }
    }
    callees
}

/// The function a call terminator of `body` hands control to, where the scope follows it.
/// `instantiate` gives a type of the body as the calling instance sees it: the identity for an
/// instantiated body, the instance's generic arguments for a body as written
/// ([`crate::guard::prescan`]).
pub(crate) fn followed_callee<'tcx>(
    tcx: TyCtxt<'tcx>,
    body: &Body<'tcx>,
    terminator: &Terminator<'tcx>,
    instantiate: &dyn Fn(ty::Ty<'tcx>) -> ty::Ty<'tcx>,
) -> Option<Instance<'tcx>> {
    let TerminatorKind::Call { func, args, .. } = &terminator.kind else { return None };
    let callee = resolve_callee(tcx, instantiate(func.ty(body, tcx)))?;
    let callee = fn_item_behind_trait_call(tcx, callee).unwrap_or(callee);
    let handed = Handed::of(tcx, args.iter().map(|arg| instantiate(arg.node.ty(body, tcx))));
    (matches!(callee.def, InstanceKind::Item(_))
        && (is_followed(tcx, callee.def_id()) || is_followed_standard(tcx, callee.def_id(), handed)))
    .then_some(callee)
}

/// The body of a scope function, uninstantiated, or `None` when its crate encoded no MIR.
pub(crate) fn body_of<'tcx>(tcx: TyCtxt<'tcx>, instance: Instance<'tcx>) -> Option<Body<'tcx>> {
    with_body_as_written(tcx, instance, |body| body.clone())
}

/// `read` applied to the body of a scope function as written (uninstantiated, borrowed from
/// rustc), or `None` when its crate encoded no MIR.
pub(crate) fn with_body_as_written<'tcx, R>(
    tcx: TyCtxt<'tcx>,
    instance: Instance<'tcx>,
    read: impl FnOnce(&Body<'tcx>) -> R,
) -> Option<R> {
    let def_id = instance.def_id();
    if let Some(local) = def_id.as_local() {
        let steal = tcx.mir_drops_elaborated_and_const_checked(local);
        return Some(read(&steal.borrow()));
    }
    if !tcx.is_mir_available(def_id) {
        return None;
    }
    Some(read(tcx.instance_mir(instance.def)))
}
