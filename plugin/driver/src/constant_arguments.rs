//! Arguments a scope always passes alike. A kernel that hands a shared body a constant
//! (`halves_body(input, tiles, out, false)`, one entry per variant) never runs that body's other
//! variant: within this kernel's scope the parameter is that constant wherever it is read, so the
//! branches it decides are folded as an instance's own are (`crate::decided_branches`). The
//! verifier then judges the code the kernel runs, not a variant only another kernel runs.
//!
//! A parameter is known when every call of its function in the scope passes the same value,
//! computed from constants and the caller's own known parameters, and the function never
//! assigns or borrows it. Functions that may be called otherwise than by the scope's direct
//! calls are left alone: a closure (its arguments arrive as a tuple), a trait's method or a
//! method of a trait's impl (the standard library's generic code, which the scope does not
//! follow, may call it), a function used as a value (a function pointer may call it with
//! anything), and every function of a scope that holds a call through a pointer or a `dyn`
//! method (its target could be any of them). Rounds repeat while the folding
//! cuts calls off (fewer calls may agree on more), up to [`MAX_ROUNDS`].

use std::rc::Rc;

use rustc_data_structures::fx::{FxHashMap, FxHashSet};
use rustc_middle::mir::{Body, ConstOperand, Local, Location, Operand, TerminatorKind, visit::Visitor};
use rustc_middle::ty::{self, Instance, InstanceKind, Ty, TyCtxt};
use rustc_span::def_id::DefId;

use crate::decided_branches::{Evaluator, Scalar, prune_shared_with_arguments};

/// Rounds of agreeing on arguments and folding.
const MAX_ROUNDS: usize = 4;

/// Folds, in every function of a scope (the kernel first), the branches its agreed arguments
/// decide; returns how many blocks were emptied. `resolve` gives the instance a call's callee
/// type runs.
pub fn prune_by_agreed_arguments<'tcx>(
    tcx: TyCtxt<'tcx>,
    functions: &mut [(Instance<'tcx>, &mut Rc<Body<'tcx>>)],
    resolve: &dyn Fn(Ty<'tcx>) -> Option<Instance<'tcx>>,
) -> usize {
    let mut known: Vec<FxHashMap<Local, Scalar>> = vec![FxHashMap::default(); functions.len()];
    let mut emptied = 0;
    for _ in 0..MAX_ROUNDS {
        let Some(agreed) = agreed_arguments(tcx, functions, &known, resolve) else { return emptied };
        if agreed == known {
            break;
        }
        for (f, arguments) in agreed.iter().enumerate() {
            if *arguments != known[f] {
                emptied += prune_shared_with_arguments(tcx, functions[f].1, arguments);
            }
        }
        known = agreed;
    }
    emptied
}

/// Each function's parameters that every call of it passes alike; `None` when the scope calls
/// through a pointer or a `dyn` method.
fn agreed_arguments<'tcx>(
    tcx: TyCtxt<'tcx>,
    functions: &[(Instance<'tcx>, &mut Rc<Body<'tcx>>)],
    known: &[FxHashMap<Local, Scalar>],
    resolve: &dyn Fn(Ty<'tcx>) -> Option<Instance<'tcx>>,
) -> Option<Vec<FxHashMap<Local, Scalar>>> {
    let position: FxHashMap<Instance<'tcx>, usize> =
        functions.iter().enumerate().map(|(f, (instance, _))| (*instance, f)).collect();
    // Per function: the values its calls pass, position by position (`None` where they differ).
    let mut passed: Vec<Option<Vec<Option<Scalar>>>> = vec![None; functions.len()];
    let mut as_values = FunctionValues::default();
    for (caller, (_, body)) in functions.iter().enumerate() {
        let body: &Body<'tcx> = body;
        as_values.visit_body(body);
        let mut evaluator = Evaluator::new(tcx, body, &known[caller]);
        for data in body.basic_blocks.iter() {
            let TerminatorKind::Call { func, args, .. } = &data.terminator().kind else { continue };
            let func_ty = func.ty(body, tcx);
            if !matches!(func_ty.kind(), ty::FnDef(..)) {
                return None;
            }
            let callee = resolve(func_ty);
            if callee.is_some_and(|callee| matches!(callee.def, InstanceKind::Virtual(..))) {
                return None;
            }
            let Some(f) = callee.and_then(|callee| position.get(&callee).copied()) else { continue };
            let values: Vec<Option<Scalar>> = args.iter().map(|arg| evaluator.operand(&arg.node)).collect();
            passed[f] = Some(match passed[f].take() {
                None => values,
                Some(before) => {
                    before.into_iter().zip(values).map(|(a, b)| a.filter(|a| Some(*a) == b)).collect()
                }
            });
        }
    }
    let escaped = as_values.escaped();
    Some(
        functions
            .iter()
            .zip(passed)
            .enumerate()
            .map(|(f, ((instance, body), passed))| {
                let def_id = instance.def_id();
                let called_directly_only = f != 0
                    && !escaped.contains(&def_id)
                    && !tcx.is_closure_like(def_id)
                    && tcx.trait_of_assoc(def_id).is_none()
                    && tcx.trait_impl_of_assoc(def_id).is_none()
                    && body.spread_arg.is_none();
                match passed {
                    Some(values) if called_directly_only && values.len() == body.arg_count => body
                        .args_iter()
                        .zip(values)
                        .filter_map(|(parameter, value)| value.map(|value| (parameter, value)))
                        .collect(),
                    _ => FxHashMap::default(),
                }
            })
            .collect(),
    )
}

/// How often each function item appears as a constant, and how often as the callee of a call:
/// one that appears more often is used as a value somewhere (a function pointer, an argument).
#[derive(Default)]
struct FunctionValues {
    mentioned: FxHashMap<DefId, usize>,
    called: FxHashMap<DefId, usize>,
}

impl FunctionValues {
    fn escaped(&self) -> FxHashSet<DefId> {
        self.mentioned
            .iter()
            .filter(|(def_id, mentioned)| self.called.get(*def_id).copied().unwrap_or(0) < **mentioned)
            .map(|(def_id, _)| *def_id)
            .collect()
    }
}

impl<'tcx> Visitor<'tcx> for FunctionValues {
    fn visit_const_operand(&mut self, constant: &ConstOperand<'tcx>, _location: Location) {
        if let ty::FnDef(def_id, _) = constant.ty().kind() {
            *self.mentioned.entry(*def_id).or_default() += 1;
        }
    }

    fn visit_terminator(&mut self, terminator: &rustc_middle::mir::Terminator<'tcx>, location: Location) {
        if let TerminatorKind::Call { func: Operand::Constant(constant), .. } = &terminator.kind
            && let ty::FnDef(def_id, _) = constant.ty().kind()
        {
            *self.called.entry(*def_id).or_default() += 1;
        }
        self.super_terminator(terminator, location);
    }
}
