//! Recursive calls between the functions of a scope. The rules follow a helper from each of its
//! calls once: the thread model evaluates a call to a bounded depth, the race check walks call
//! chains to a bounded depth, the typestate summarises a helper from its entry, the layout
//! reads an address in the callee's terms with the caller's arguments. None of them follows a
//! recursion to every depth, so what a recursive function does at the depths it was not
//! followed to (a bisection's ninth row past the window, a fold's next level racing with this
//! one) is not proven; blind round 49 had two such kernels verified. A scope in which a
//! function calls itself, directly or through others, is unverified at each recursive call.

use pliron::context::Context;

use super::{
    Gap, GapKind,
    cycles::Cycles,
    index::{OpClass, ScopeIndex},
};

/// A gap at every call that closes a cycle of calls between the scope's functions (the caller
/// and the callee reach each other through calls, or are one function).
pub(crate) fn recursion_gaps(ctx: &Context, index: &ScopeIndex) -> Vec<Gap> {
    let calls: Vec<(usize, usize, usize)> = index
        .ops_of_class(OpClass::Call)
        .filter_map(|(n, _)| {
            let callee = *index.callee_of.get(&n)?;
            Some((n, index.block_function[index.op_block[n]], callee))
        })
        .collect();
    let mut callees = vec![Vec::new(); index.functions.len()];
    for (_, caller, callee) in &calls {
        if !callees[*caller].contains(callee) {
            callees[*caller].push(*callee);
        }
    }
    let cycles = Cycles::new(&callees);
    calls
        .into_iter()
        .filter(|(_, caller, callee)| cycles.together(*caller, *callee))
        .map(|(n, caller, callee)| {
            let through = if caller == callee {
                "itself".to_string()
            } else {
                format!("itself through `{}`", index.function_names[callee])
            };
            Gap::at(
                ctx,
                index,
                index.ops[n],
                GapKind::Undecided,
                format!(
                    "a recursive call: `{}` calls {through}; the rules follow a helper from each call once, \
                     not to every depth of a recursion, so what it does at the depths not followed is not \
                     proven",
                    index.function_names[caller]
                ),
            )
        })
        .collect()
}
