//! The race check's call chains: a helper's parameters bound to what each chain of calls from
//! the kernel passes them (a thread index handed down, a shared tile's offset per thread), and
//! where that is blocked by a uniform variable of the kernel (a buffer chosen by a flag, `s +
//! (parity ^ 1) · TILE`), which variable blocked it, so that `symbols` can read it as one value
//! per interval and the chain be bound again under that value.

use rustc_hash::{FxHashMap, FxHashSet};

use pliron::{r#type::Typed, value::Value};

use super::{ADDRESS_DEPTH, points_elsewhere, shared_offset};
use crate::ir::mir::pointer_type_of;
use crate::verify::{
    flow::Flow,
    progression::{Assumed, Place, Progression, Progressions},
    thread_model::{ThreadModel, Val},
};

/// Call chains from the kernel followed per function.
const MAX_CONTEXTS: usize = 8;

/// A helper's parameters bound to what one call chain passes them.
#[derive(Clone, Default)]
pub(super) struct Binding {
    pub integers: FxHashMap<Value, Val>,
    /// Pointer parameters into dynamic shared memory: their byte offset per thread.
    pub shared: FxHashMap<Value, Val>,
    /// Pointer parameters that point elsewhere in this chain (into a local or a kernel
    /// parameter's memory): an access through one is not an access of shared memory here.
    pub elsewhere: FxHashSet<Value>,
    /// The chain's call in the kernel function (operation number); `None` for the kernel's own
    /// binding. An access in the helper runs, for the interval walk of the kernel function,
    /// where this call does.
    pub site: Option<usize>,
    /// The uniform variables of the kernel (each with one load) whose values the chain's
    /// arguments could not read, leaving a parameter unknown.
    pub blocked: Vec<(Place, Value)>,
    /// The loads of uniform variables read at an assumed value (`Assumed::loads`) to bind it.
    pub used: Vec<Value>,
}

/// Each function's bindings, one per call chain from the kernel (at most [`MAX_CONTEXTS`]),
/// computed on demand; the kernel has one, empty. A function called from no chain has none.
pub(super) struct Contexts<'f, 'a> {
    flow: &'f Flow<'a>,
    model: &'f ThreadModel<'a>,
    /// The uniform variables read at given values (empty outside `symbols`' assignments).
    assumed: &'f Assumed,
    of: Vec<Option<Vec<Binding>>>,
}

impl<'f, 'a> Contexts<'f, 'a> {
    pub(super) fn new(flow: &'f Flow<'a>, model: &'f ThreadModel<'a>, assumed: &'f Assumed) -> Self {
        Contexts { flow, model, assumed, of: vec![None; flow.index.functions.len()] }
    }

    /// The bindings of function `f`.
    pub(super) fn of(&mut self, f: usize) -> Vec<Binding> {
        let mut visiting = FxHashSet::default();
        self.bindings(f, &mut visiting)
    }

    fn bindings(&mut self, f: usize, visiting: &mut FxHashSet<usize>) -> Vec<Binding> {
        let (ctx, index) = (self.flow.ctx, self.flow.index);
        if let Some(known) = &self.of[f] {
            return known.clone();
        }
        if f == 0 {
            self.of[0] = Some(vec![Binding::default()]);
            return vec![Binding::default()];
        }
        // A cycle of calls: no chain from the kernel is followed through it.
        if !visiting.insert(f) {
            return Vec::new();
        }
        let mut found = Vec::new();
        let parameters = index.parameters(ctx, f).unwrap_or_default();
        for call in index.callers[f].clone() {
            let caller = index.block_function[index.op_block[call]];
            let arguments: Vec<Value> = index.ops[call].deref(ctx).operands().collect();
            if arguments.len() != parameters.len() {
                continue;
            }
            for outer in self.bindings(caller, visiting) {
                if found.len() == MAX_CONTEXTS {
                    break;
                }
                found.push(self.bind(&outer, (call, caller), &parameters, &arguments));
            }
        }
        visiting.remove(&f);
        self.of[f] = Some(found.clone());
        found
    }

    /// The binding of a callee's `parameters` to the `arguments` of `call` (in function
    /// `caller`), under the caller's binding `outer`.
    fn bind(
        &self,
        outer: &Binding,
        (call, caller): (usize, usize),
        parameters: &[Value],
        arguments: &[Value],
    ) -> Binding {
        let (ctx, flow, model) = (self.flow.ctx, self.flow, self.model);
        // What this call's arguments read at assumed values, or could not read: the loads are
        // recorded in the shared `Assumed`, so they are taken out around the evaluation.
        let used_before = std::mem::take(&mut *self.assumed.used.borrow_mut());
        let blocked_before = std::mem::take(&mut *self.assumed.blocked.borrow_mut());
        let mut binding = Binding {
            site: outer.site.or((caller == 0).then_some(call)),
            blocked: outer.blocked.clone(),
            used: outer.used.clone(),
            ..Binding::default()
        };
        let progressions = Progressions {
            ctx,
            index: flow.index,
            model,
            assumed: self.assumed,
            locals: flow.locals,
            params: &outer.integers,
            bound: &FxHashMap::default(),
            relevant: None,
        };
        for (parameter, argument) in parameters.iter().zip(arguments) {
            if pointer_type_of(ctx, parameter.get_type(ctx)).is_some() {
                // A pointer indexed by the caller's loop counter is not one offset per thread.
                let offset = shared_offset(flow, model, outer, self.assumed, *argument, ADDRESS_DEPTH)
                    .filter(Progression::per_thread);
                if let Some(offset) = offset {
                    binding.shared.insert(*parameter, offset.base);
                } else if points_elsewhere(flow, outer, *argument, ADDRESS_DEPTH) {
                    binding.elsewhere.insert(*parameter);
                }
            } else {
                // An integer blocked by a uniform variable is read at its assumed value.
                let value = match model.eval(*argument, &outer.integers) {
                    known @ (Val::Const(_) | Val::Threads(_)) => known,
                    unknown => progressions
                        .of(*argument)
                        .filter(Progression::per_thread)
                        .map_or(unknown, |progression| progression.base),
                };
                binding.integers.insert(*parameter, value);
            }
        }
        // Only a variable of the kernel is read as one value per interval, and only where the
        // kernel's own call hands it down.
        if caller == 0 {
            binding.blocked.extend(self.assumed.blocked.borrow().iter().map(|(p, v)| (p.clone(), *v)));
        }
        binding.used.extend(self.assumed.used.borrow().iter().copied());
        *self.assumed.used.borrow_mut() = used_before;
        *self.assumed.blocked.borrow_mut() = blocked_before;
        binding
    }
}
