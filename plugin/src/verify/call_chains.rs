//! The integer parameters of a helper under each call chain from the kernel: what the thread
//! model gives each argument of each call, per thread, bound to the callee's parameter. An
//! interval read inside a helper (a stage offset built from a thread index handed down) is the
//! union over these bindings; the race check keeps its own, richer bindings (shared offsets and
//! pointers known to point elsewhere) in `races.rs`.

use rustc_hash::FxHashMap;

use pliron::{context::Context, r#type::Typed, value::Value};

use super::{index::ScopeIndex, thread_model::ThreadModel, thread_values::Val};
use pliron::builtin::types::IntegerType;

/// Calls a chain follows from the kernel down to a helper.
const CHAIN_DEPTH: u32 = 4;
/// Call chains read per function.
const MAX_CHAINS: usize = 8;

/// The integer parameters of function `f` under each call chain from the kernel (at most
/// [`MAX_CHAINS`], [`CHAIN_DEPTH`] calls deep), as the thread model evaluates each call's
/// arguments: the kernel has one empty binding; a helper no chain reaches (or one reached
/// deeper) has none, and then no interval.
pub(crate) fn integer_bindings(
    ctx: &Context,
    index: &ScopeIndex,
    model: &ThreadModel,
    f: usize,
) -> Vec<FxHashMap<Value, Val>> {
    bindings_within(ctx, index, model, f, CHAIN_DEPTH)
}

fn bindings_within(
    ctx: &Context,
    index: &ScopeIndex,
    model: &ThreadModel,
    f: usize,
    depth: u32,
) -> Vec<FxHashMap<Value, Val>> {
    if f == 0 {
        return vec![FxHashMap::default()];
    }
    if depth == 0 {
        return Vec::new();
    }
    let Some(parameters) = index.parameters(ctx, f) else { return Vec::new() };
    let mut found = Vec::new();
    for &call in &index.callers[f] {
        let caller = index.block_function[index.op_block[call]];
        let arguments: Vec<Value> = index.ops[call].deref(ctx).operands().collect();
        if arguments.len() != parameters.len() {
            continue;
        }
        for outer in bindings_within(ctx, index, model, caller, depth - 1) {
            if found.len() == MAX_CHAINS {
                return found;
            }
            let binding = parameters
                .iter()
                .zip(&arguments)
                .filter(|(parameter, _)| parameter.get_type(ctx).deref(ctx).is::<IntegerType>())
                .map(|(parameter, argument)| (*parameter, model.eval(*argument, &outer)))
                .collect();
            found.push(binding);
        }
    }
    found
}
