//! The oracle-agreement corpus: small random kernels (up to nine blocks, random operations
//! on `u32` values, random control flow with loops, unreachable blocks and correlated guards)
//! on which every verifier must reach the same verdict as the others.
//!
//! [`blocks`] is the proptest strategy (`plugin/tests/agreement.rs` runs the indexed verifier
//! against the oracle on it, with shrinking); [`corpus`] draws a fixed sample of it from a
//! deterministic seed, so that programs built with different pliron builds can be compared on
//! the very same kernels (`regress/tests/carried_pliron.rs` compares the patched and the
//! pristine `verifier-probe` on it, as printed text). [`build`] turns one drawn kernel into a
//! module through [`crate::ir::builder`].

use pliron::{basic_block::BasicBlock, context::Context, context::Ptr, operation::Operation, value::Value};
use proptest::{prelude::*, strategy::ValueTree, test_runner::TestRunner};

use crate::ir::{
    builder::{FnKind, FunctionBuilder, ModuleBuilder, SourceLoc},
    mir::arith::{BinOpKind, CmpPredicate},
    semantic::pipeline::PipelineRole,
    types::{
        AddressSpace, AdtType, Mutability, PointerKind,
        shorthand::{int_type, ptr_type, u32_type},
    },
};

/// One generated operation; operands pick from the values available at that point.
#[derive(Clone, Debug)]
pub enum Step {
    NewState(bool),
    Acquire(u8, u8),
    ExpectTx(u8),
    Copy(u8),
    Advance(u8, u8),
    Tail(u8, u8),
    Wait(u8, u8),
    Release(u8),
    Add(u8, u8),
    /// `Mul`, `Rem` or `BitXor` (by the first pick) of two values: copy destinations.
    Arith(u8, u8, u8),
    /// A copy whose destination (second pick) differs from its barrier's stage (first).
    CopyInto(u8, u8),
    /// The pipeline the following pipeline operations of the block name: none, or one of two.
    OnPipeline(u8),
    Store(u8, bool),
    Load(bool),
    /// A step of the wgmma protocol (by the first pick): fence, multiply, commit, wait (for
    /// 0, 1 or 2 pending groups), proxy fence, a shared store, an accumulator load or store;
    /// on one of two accumulator arrays (the second pick).
    Wgmma(u8, u8),
}

/// How a block ends.
#[derive(Clone, Debug)]
pub enum End {
    Goto(u8, u8, u8),
    Branch(u8, u8, u8),
    Return,
}

#[derive(Clone, Debug)]
pub struct BlockSpec {
    pub has_args: bool,
    pub steps: Vec<Step>,
    pub end: End,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        any::<bool>().prop_map(Step::NewState),
        (any::<u8>(), any::<u8>()).prop_map(|(a, b)| Step::Acquire(a, b)),
        any::<u8>().prop_map(Step::ExpectTx),
        any::<u8>().prop_map(Step::Copy),
        (any::<u8>(), any::<u8>()).prop_map(|(a, b)| Step::Advance(a, b)),
        (any::<u8>(), any::<u8>()).prop_map(|(a, b)| Step::Tail(a, b)),
        (any::<u8>(), any::<u8>()).prop_map(|(a, b)| Step::Wait(a, b)),
        any::<u8>().prop_map(Step::Release),
        (any::<u8>(), any::<u8>()).prop_map(|(a, b)| Step::Add(a, b)),
        (any::<u8>(), any::<u8>(), any::<u8>()).prop_map(|(k, a, b)| Step::Arith(k, a, b)),
        (any::<u8>(), any::<u8>()).prop_map(|(a, b)| Step::CopyInto(a, b)),
        any::<u8>().prop_map(Step::OnPipeline),
        (any::<u8>(), any::<bool>()).prop_map(|(a, b)| Step::Store(a, b)),
        any::<bool>().prop_map(Step::Load),
        (any::<u8>(), any::<u8>()).prop_map(|(k, a)| Step::Wgmma(k, a)),
    ]
}

fn block() -> impl Strategy<Value = BlockSpec> {
    let end = prop_oneof![
        (any::<u8>(), any::<u8>(), any::<u8>()).prop_map(|(t, a, b)| End::Goto(t, a, b)),
        (any::<u8>(), any::<u8>(), any::<u8>()).prop_map(|(c, t, e)| End::Branch(c, t, e)),
        Just(End::Return),
    ];
    (any::<bool>(), prop::collection::vec(step(), 0..6), end).prop_map(|(has_args, steps, end)| BlockSpec {
        has_args,
        steps,
        end,
    })
}

fn pick(values: &[Value], n: u8) -> Value {
    values[n as usize % values.len()]
}

/// Builds the generated kernel; every value is a `u32`, so any pick is well-typed.
pub fn build(ctx: &mut Context, specs: &[BlockSpec]) -> Ptr<Operation> {
    let at = SourceLoc::new("generated.rs", 1, 1);
    let module = ModuleBuilder::new(ctx, "generated").expect("symbol");
    let u32_ty = u32_type(ctx);
    let bool_ty = int_type(ctx, 1, false);
    let source_ty = ptr_type(ctx, AddressSpace::Global, Mutability::Const, PointerKind::Raw, u32_ty.into());
    let mut f: FunctionBuilder = module
        .function(ctx, "kernel", FnKind::Kernel, &[u32_ty.into(), bool_ty.into(), source_ty.into()], &[], &at)
        .expect("symbol");
    // A flag every branch may test: correlated guards for the typestate's path sensitivity.
    let (flag, source) = (f.params(ctx)[1], f.params(ctx)[2]);
    let adt = AdtType::get(ctx, "PipelineState".to_string(), None).into();
    let place = f.alloca(ctx, adt, &at);
    let fields =
        [f.field_addr(ctx, place, 0, u32_ty.into(), &at), f.field_addr(ctx, place, 1, u32_ty.into(), &at)];
    let pipeline_ty = AdtType::get(ctx, "Pipeline".to_string(), None).into();
    let pipelines = [f.alloca(ctx, pipeline_ty, &at), f.alloca(ctx, pipeline_ty, &at)];
    let f32_ty: pliron::r#type::TypeHandle = pliron::builtin::types::FP32Type::get(ctx).into();
    let accumulators = [f.alloca(ctx, f32_ty, &at), f.alloca(ctx, f32_ty, &at)];
    let shared = f.dynamic_shared_base(ctx, f32_ty, &at);
    let param = f.params(ctx)[0];
    let mut entry_values = vec![param, f.const_int(ctx, u32_ty, 7, &at)];
    let blocks: Vec<Ptr<BasicBlock>> = specs
        .iter()
        .map(|spec| {
            let args = if spec.has_args { vec![u32_ty.into(), u32_ty.into()] } else { vec![] };
            f.add_block(ctx, &args, &at)
        })
        .collect();
    // The entry creates one state (so most scopes are verified, not skipped) and jumps on.
    let (i, p) = f.state_new(ctx, PipelineRole::Producer, 4, &at);
    entry_values.extend([i, p]);
    let first_args = if specs[0].has_args { vec![i, p] } else { vec![] };
    f.goto(ctx, blocks[0], &first_args, &at);
    // The blocks a `mir.cond_br` may target.
    let without_args: Vec<usize> = (0..specs.len()).filter(|t| !specs[*t].has_args).collect();
    for (b, spec) in specs.iter().enumerate() {
        f.switch_to(blocks[b]);
        let mut values = entry_values.clone();
        values.extend(f.block_args(ctx, blocks[b]));
        let mut pipeline: Option<Value> = None;
        for step in &spec.steps {
            let named = move |ctx: &mut Context, op| {
                if let Some(pipeline) = pipeline {
                    pliron::operation::Operation::push_operand(op, ctx, pipeline);
                }
            };
            match *step {
                Step::NewState(producer) => {
                    let role = if producer { PipelineRole::Producer } else { PipelineRole::Consumer };
                    let (i, p) = f.state_new(ctx, role, 2, &at);
                    values.extend([i, p]);
                }
                Step::Acquire(a, b) => {
                    let op = f.producer_acquire(ctx, pick(&values, a), pick(&values, b), &at);
                    named(ctx, op);
                }
                Step::ExpectTx(a) => {
                    let op = f.producer_expect_tx(ctx, pick(&values, a), values[1], &at);
                    named(ctx, op);
                }
                Step::Copy(a) => {
                    let stage = pick(&values, a);
                    let op = f.bulk_copy(ctx, stage, source, values[1], stage, &at);
                    named(ctx, op);
                }
                Step::CopyInto(a, b) => {
                    let op = f.bulk_copy(ctx, pick(&values, b), source, values[1], pick(&values, a), &at);
                    named(ctx, op);
                }
                Step::Arith(k, a, b) => {
                    let kind = [BinOpKind::Mul, BinOpKind::Rem, BinOpKind::BitXor][k as usize % 3];
                    let result = f.binop(ctx, kind, pick(&values, a), pick(&values, b), &at);
                    values.push(result);
                }
                Step::OnPipeline(n) => {
                    pipeline = [None, Some(pipelines[0]), Some(pipelines[1])][n as usize % 3];
                }
                Step::Advance(a, b) => {
                    let (i, p) = f.state_advance(ctx, pick(&values, a), pick(&values, b), &at);
                    values.extend([i, p]);
                }
                Step::Tail(a, b) => {
                    let op = f.producer_tail(ctx, pick(&values, a), pick(&values, b), &at);
                    named(ctx, op);
                }
                Step::Wait(a, b) => {
                    let op = f.consumer_wait(ctx, pick(&values, a), pick(&values, b), &at);
                    named(ctx, op);
                }
                Step::Release(a) => {
                    let op = f.consumer_release(ctx, pick(&values, a), &at);
                    named(ctx, op);
                }
                Step::Add(a, b) => {
                    let sum = f.binop(ctx, BinOpKind::Add, pick(&values, a), pick(&values, b), &at);
                    values.push(sum);
                }
                Step::Store(a, field) => {
                    f.store(ctx, pick(&values, a), fields[field as usize], &at);
                }
                Step::Load(field) => {
                    let loaded = f.load(ctx, fields[field as usize], &at);
                    values.push(loaded);
                }
                Step::Wgmma(k, a) => {
                    let array = accumulators[a as usize % 2];
                    match k % 8 {
                        0 => {
                            f.wgmma_fence(ctx, array, &at);
                        }
                        1 => {
                            let descriptor = f.const_int(ctx, int_type(ctx, 64, false), 0, &at);
                            f.wgmma_mma(ctx, array, [descriptor, descriptor], &at);
                        }
                        2 => {
                            f.wgmma_commit(ctx, &at);
                        }
                        3 => {
                            let pending = f.const_int(ctx, u32_ty, i128::from(a % 3), &at);
                            f.wgmma_wait(ctx, pending, array, &at);
                        }
                        4 => {
                            f.proxy_fence(ctx, &at);
                        }
                        5 => {
                            let zero = f.const_float(ctx, f32_ty, 0.0, &at);
                            f.store(ctx, zero, shared, &at);
                        }
                        6 => {
                            f.load(ctx, array, &at);
                        }
                        _ => {
                            let zero = f.const_float(ctx, f32_ty, 0.0, &at);
                            f.store(ctx, zero, array, &at);
                        }
                    }
                }
            }
        }
        match spec.end {
            End::Goto(t, a, b) => {
                let target = t as usize % specs.len();
                let args =
                    if specs[target].has_args { vec![pick(&values, a), pick(&values, b)] } else { vec![] };
                f.goto(ctx, blocks[target], &args, &at);
            }
            End::Branch(c, t, e) if !without_args.is_empty() => {
                let cond = if c % 2 == 0 {
                    flag
                } else {
                    f.cmp(ctx, CmpPredicate::Lt, pick(&values, c), param, &at)
                };
                let then = blocks[without_args[t as usize % without_args.len()]];
                let otherwise = blocks[without_args[e as usize % without_args.len()]];
                f.cond_br(ctx, cond, then, otherwise, &at);
            }
            _ => {
                f.ret(ctx, &[], &at);
            }
        }
    }
    module.op()
}

/// A random kernel: one to nine blocks.
pub fn blocks() -> impl Strategy<Value = Vec<BlockSpec>> {
    prop::collection::vec(block(), 1..10)
}

/// `count` kernels drawn from [`blocks`] with proptest's deterministic seed: the same kernels
/// in every program and on every run.
pub fn corpus(count: usize) -> Vec<Vec<BlockSpec>> {
    let mut runner = TestRunner::deterministic();
    let strategy = blocks();
    (0..count)
        .map(|_| strategy.new_tree(&mut runner).expect("the kernel strategy never rejects a draw").current())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corpus_is_the_same_on_every_draw_and_varied() {
        let (first, second) = (corpus(50), corpus(50));
        assert_eq!(format!("{first:?}"), format!("{second:?}"));
        let sizes: std::collections::BTreeSet<usize> = first.iter().map(Vec::len).collect();
        assert!(sizes.len() > 3, "kernels of varied block counts: {sizes:?}");
    }
}
