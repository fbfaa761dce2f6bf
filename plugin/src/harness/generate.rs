//! Generated kernel scopes of a chosen block count, deterministic by seed: what the timing
//! regression (`regress/tests/verifier_timing.rs`, `cargo xtask timing`) and the criterion
//! benchmark verify at growing sizes.
//!
//! Two families, with the same shape apart from the semantic operations:
//!
//! - [`Family::Guard`]: no semantic operation and no shared-memory pointer, so the scope
//!   guard skips the scope. What it measures is the cost of deciding to skip.
//! - [`Family::Story`]: a producer and a consumer pipeline state, with the pipeline story
//!   spread through the scope in rounds (acquire, expect-tx, bulk copy, advance; wait, stage
//!   read with a wgmma fence, multiply, commit and wait on one accumulator array, release,
//!   advance), some rounds being loops, and the producer tail after the last
//!   round. The scope verifies. It is the worst case for the provenance fixpoint: every block
//!   has a `u32` block argument carrying a stage index (except loop heads, which `mir.cond_br`
//!   enters and which therefore take none), loads its input from the `mir.alloca` local its
//!   predecessor wrote and stores its result to a local of its own (the importer gives every
//!   MIR local an alloca, so a kernel has about as many places as blocks), and computes several
//!   `u32` values.
//!
//! Besides, [`pipeline_chain`] builds a simpler shape: one producer step per block on a state
//! kept in a place (a `mir.alloca` with index and phase fields), the chain looping back to
//! its start; without semantic operations the same CFG carries plain integers. The verifier's
//! own agreement tests and timing example use it.
//!
//! How the layout is made: [`plan`] lays out the blocks in control order (entry, then the
//! rounds, then the exit block); each round's blocks are then placed in a seeded random order,
//! so that facts also flow backwards through the region's block order, as they do in real
//! kernels with loops. [`generate`] builds the planned blocks as pliron IR through
//! [`crate::ir::builder`].

use pliron::{
    basic_block::BasicBlock,
    builtin::{op_interfaces::OneRegionInterface, ops::FuncOp},
    context::{Context, Ptr},
    linked_list::ContainsLinkedList,
    operation::Operation,
    r#type::TypeHandle,
    value::Value,
};

use crate::{
    ir::{
        builder::{BuildError, FnKind, FunctionBuilder, ModuleBuilder, SourceLoc},
        mir::arith::{BinOpKind, CastKind, CmpPredicate},
        semantic::pipeline::PipelineRole,
        types::{
            AddressSpace, AdtType, Mutability, PointerKind,
            shorthand::{int_type, ptr_type, u32_type},
        },
    },
    scope::{Scope, scopes_of_module},
};

/// Which kind of scope to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// No semantic operation: the scope guard's case.
    Guard,
    /// The pipeline story spread through the scope: the fact analysis's worst case.
    Story,
}

impl Family {
    /// Both families, guard first.
    pub const ALL: [Family; 2] = [Family::Guard, Family::Story];

    /// A short name for tables and machine-readable lines (`guard`, `story`).
    pub fn name(self) -> &'static str {
        match self {
            Family::Guard => "guard",
            Family::Story => "story",
        }
    }
}

/// A generated module holding one kernel scope.
pub struct Generated {
    /// The `builtin.module`.
    pub module: Ptr<Operation>,
    /// The kernel's scope (the kernel alone: generated kernels call nothing).
    pub scope: Scope,
    /// Blocks in the scope (the requested count, never fewer than the smallest round needs).
    pub blocks: usize,
    /// Semantic operations in the scope.
    pub semantic_ops: usize,
}

/// Where each generated operation claims to come from: one line per block, so rejections
/// (there should be none) name the block.
const GENERATED_FILE: &str = "generated/scope.rs";

/// Stages of the generated pipelines.
const STAGES: u32 = 4;
/// Bytes per stage.
const STAGE_BYTES: i128 = 4096;

/// What a block does, besides its loads, stores and arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// The entry block: locals, the two states (story), the shared base (story).
    Entry,
    /// A round's first block: loads the producer state. No block argument.
    Head,
    Acquire,
    ExpectTx,
    Copy,
    AdvanceProducer,
    Wait,
    StageRead,
    Release,
    AdvanceConsumer,
    /// Integer work only.
    Pad,
    /// The producer tail and the return. No block argument.
    Exit,
}

impl Step {
    /// Whether the block takes the carried `u32` as its argument.
    fn has_argument(self) -> bool {
        !matches!(self, Step::Entry | Step::Head | Step::Exit)
    }
}

/// One block of the plan, in control order.
#[derive(Clone, Debug)]
struct PlannedBlock {
    step: Step,
    /// For a round's last block: the round's head, when the round is a loop.
    loop_head: Option<usize>,
}

/// The story of one round, in order; padding goes between the steps.
const ROUND: [Step; 8] = [
    Step::Acquire,
    Step::ExpectTx,
    Step::Copy,
    Step::AdvanceProducer,
    Step::Wait,
    Step::StageRead,
    Step::Release,
    Step::AdvanceConsumer,
];

/// Blocks of the smallest possible scope: entry, one round (head and steps), exit.
pub const MIN_BLOCKS: usize = ROUND.len() + 3;

/// The blocks in control order, and the order they are laid out in the function's region
/// (`layout[k]` is the control-order number of the k-th block in the region).
fn plan(blocks: usize, rng: &mut fastrand::Rng) -> (Vec<PlannedBlock>, Vec<usize>) {
    let blocks = blocks.max(MIN_BLOCKS);
    let mut planned = vec![PlannedBlock { step: Step::Entry, loop_head: None }];
    // Blocks left for rounds, keeping one for the exit.
    let mut left = blocks - 2;
    let mut rounds = Vec::new();
    while left > ROUND.len() {
        // Padding for this round: up to twice the story's length, as long as it fits and
        // leaves either nothing or a whole round for later.
        let room = left - (ROUND.len() + 1);
        let mut padding = rng.usize(..2 * ROUND.len() + 1).min(room);
        if room - padding < ROUND.len() + 1 {
            padding = room;
        }
        let head = planned.len();
        planned.push(PlannedBlock { step: Step::Head, loop_head: None });
        let mut pads = vec![0usize; ROUND.len()];
        for _ in 0..padding {
            pads[rng.usize(..ROUND.len())] += 1;
        }
        for (step, pad) in ROUND.iter().zip(pads) {
            planned.push(PlannedBlock { step: *step, loop_head: None });
            for _ in 0..pad {
                planned.push(PlannedBlock { step: Step::Pad, loop_head: None });
            }
        }
        let last = planned.len() - 1;
        if rng.usize(..2) == 0 {
            planned[last].loop_head = Some(head);
        }
        rounds.push(head..planned.len());
        left -= ROUND.len() + 1 + padding;
    }
    planned.push(PlannedBlock { step: Step::Exit, loop_head: None });
    let mut layout = vec![0];
    for round in rounds {
        let mut order: Vec<usize> = round.collect();
        // Fisher–Yates.
        for i in (1..order.len()).rev() {
            order.swap(i, rng.usize(..i + 1));
        }
        layout.extend(order);
    }
    layout.push(planned.len() - 1);
    (planned, layout)
}

/// The locals every block may touch.
struct Locals {
    producer_index: Value,
    producer_phase: Value,
    consumer_index: Value,
    consumer_phase: Value,
    counter: Value,
    scratch: Vec<Value>,
}

/// Generates a module with one kernel scope of `family`, with `blocks` blocks (at least
/// [`MIN_BLOCKS`]), shaped by `seed`.
pub fn generate(
    ctx: &mut Context,
    family: Family,
    blocks: usize,
    seed: u64,
) -> Result<Generated, BuildError> {
    // fastrand's wyrand, seeded: the same shapes for the same seed.
    let mut rng = fastrand::Rng::with_seed(seed ^ (family as u64).wrapping_mul(0xA076_1D64_78BD_642F));
    let (planned, layout) = plan(blocks, &mut rng);
    let u32_ty: TypeHandle = u32_type(ctx).into();
    let u64_ty: TypeHandle = int_type(ctx, 64, false).into();
    let source_ty: TypeHandle =
        ptr_type(ctx, AddressSpace::Global, Mutability::Const, PointerKind::Raw, u32_ty).into();
    let at = |line: usize| SourceLoc::new(GENERATED_FILE, line as u32 + 1, 5);

    let module = ModuleBuilder::new(ctx, "generated")?;
    let kernel_name = format!("{}_{}_blocks", family.name(), planned.len());
    let mut f = module.function(ctx, &kernel_name, FnKind::Kernel, &[source_ty, u32_ty], &[], &at(0))?;
    let params = f.params(ctx);
    let (source, bound) = (params[0], params[1]);

    // Blocks in layout order; the entry block exists already.
    let mut block_of = vec![f.entry_block(ctx); planned.len()];
    for &c in &layout[1..] {
        let args: &[TypeHandle] = if planned[c].step.has_argument() { &[u32_ty] } else { &[] };
        block_of[c] = f.add_block(ctx, args, &at(c));
    }

    // The entry block: locals, their first stores, the states and the shared base.
    let entry_at = at(0);
    let alloca = |f: &FunctionBuilder, ctx: &mut Context| f.alloca(ctx, u32_ty, &entry_at);
    let locals = Locals {
        producer_index: alloca(&f, ctx),
        producer_phase: alloca(&f, ctx),
        consumer_index: alloca(&f, ctx),
        consumer_phase: alloca(&f, ctx),
        counter: alloca(&f, ctx),
        scratch: (0..planned.len()).map(|_| alloca(&f, ctx)).collect(),
    };
    let zero = f.const_int(ctx, u32_type(ctx), 0, &entry_at);
    f.store(ctx, zero, locals.counter, &entry_at);
    f.store(ctx, zero, locals.scratch[0], &entry_at);
    // The story's wgmma accumulators: one f32 array the stage reads multiply into.
    let accumulators = (family == Family::Story).then(|| {
        let f32_ty: TypeHandle = pliron::builtin::types::FP32Type::get(ctx).into();
        f.alloca(ctx, f32_ty, &entry_at)
    });
    let shared = match family {
        Family::Story => {
            for (role, index_local, phase_local) in [
                (PipelineRole::Producer, locals.producer_index, locals.producer_phase),
                (PipelineRole::Consumer, locals.consumer_index, locals.consumer_phase),
            ] {
                let (index, phase) = f.state_new(ctx, role, STAGES, &entry_at);
                f.store(ctx, index, index_local, &entry_at);
                f.store(ctx, phase, phase_local, &entry_at);
            }
            Some(f.dynamic_shared_base(ctx, u32_ty, &entry_at))
        }
        Family::Guard => {
            // The same locals, holding plain integers.
            for local in
                [locals.producer_index, locals.producer_phase, locals.consumer_index, locals.consumer_phase]
            {
                f.store(ctx, zero, local, &entry_at);
            }
            None
        }
    };
    f.goto(ctx, block_of[1], &[], &entry_at);

    let mut semantic_ops = if family == Family::Story { 3 } else { 0 };
    for c in 1..planned.len() {
        let here = at(c);
        let block = block_of[c];
        f.switch_to(block);
        let step = planned[c].step;
        // The carried value: the block's argument, or what a head loads.
        let carried = if step.has_argument() { f.block_args(ctx, block)[0] } else { zero };
        let story = family == Family::Story;

        // Integer work every block does, as MIR statements on temporaries: load the local the
        // previous block wrote, combine it with the carried value, compare, widen, and store
        // the result to this block's own local.
        let scratch_in = locals.scratch[c - 1];
        let scratch_out = locals.scratch[c];
        let loaded = f.load(ctx, scratch_in, &here);
        let kind = [BinOpKind::Add, BinOpKind::BitXor, BinOpKind::Mul][rng.usize(..3)];
        let mixed = f.binop(ctx, kind, carried, loaded, &here);
        let limit = f.const_int(ctx, u32_type(ctx), rng.usize(..1 << 16) as i128, &here);
        let _small = f.cmp(ctx, CmpPredicate::Lt, mixed, limit, &here);
        let _wide = f.cast(ctx, CastKind::IntToInt, mixed, u64_ty, &here);
        f.store(ctx, mixed, scratch_out, &here);

        // The step itself; `next` is what the block passes on.
        let next = match (step, shared) {
            (Step::Head, _) => f.load(ctx, locals.producer_index, &here),
            (Step::Acquire, Some(_)) => {
                let phase = f.load(ctx, locals.producer_phase, &here);
                f.producer_acquire(ctx, carried, phase, &here);
                semantic_ops += 1;
                carried
            }
            (Step::ExpectTx, Some(_)) => {
                let bytes = f.const_int(ctx, u32_type(ctx), STAGE_BYTES, &here);
                f.producer_expect_tx(ctx, carried, bytes, &here);
                semantic_ops += 1;
                carried
            }
            (Step::Copy, Some(_)) => {
                let bytes = f.const_int(ctx, u32_type(ctx), STAGE_BYTES, &here);
                let destination = f.binop(ctx, BinOpKind::Mul, carried, bytes, &here);
                f.bulk_copy(ctx, destination, source, bytes, carried, &here);
                semantic_ops += 1;
                carried
            }
            (Step::AdvanceProducer, Some(_)) => {
                let phase = f.load(ctx, locals.producer_phase, &here);
                let (index, phase) = f.state_advance(ctx, carried, phase, &here);
                f.store(ctx, index, locals.producer_index, &here);
                f.store(ctx, phase, locals.producer_phase, &here);
                semantic_ops += 1;
                index
            }
            (Step::Wait, Some(_)) => {
                let index = f.load(ctx, locals.consumer_index, &here);
                let phase = f.load(ctx, locals.consumer_phase, &here);
                f.consumer_wait(ctx, index, phase, &here);
                semantic_ops += 1;
                index
            }
            (Step::StageRead, Some(shared)) => {
                // Read the first word of the stage: shared + index * (bytes / 4).
                let words = f.const_int(ctx, u32_type(ctx), STAGE_BYTES / 4, &here);
                let offset = f.binop(ctx, BinOpKind::Mul, carried, words, &here);
                let offset = f.cast(ctx, CastKind::IntToInt, offset, u64_ty, &here);
                let address = f.index_addr(ctx, shared, offset, &here);
                let word = f.load(ctx, address, &here);
                f.store(ctx, word, scratch_out, &here);
                // The tensor cores read the stage too: fence, multiply, commit, wait for it.
                let accumulators = accumulators.expect("the story family has accumulators");
                f.wgmma_fence(ctx, accumulators, &here);
                // Its descriptors are the stage's word offset (not a descriptor the device API
                // makes, so the layout rule cannot place the tiles it reads).
                f.wgmma_mma(ctx, accumulators, [offset, offset], &here);
                f.wgmma_commit(ctx, &here);
                let pending = f.const_int(ctx, u32_type(ctx), 0, &here);
                f.wgmma_wait(ctx, pending, accumulators, &here);
                semantic_ops += 4;
                carried
            }
            (Step::Release, Some(_)) => {
                f.consumer_release(ctx, carried, &here);
                semantic_ops += 1;
                carried
            }
            (Step::AdvanceConsumer, Some(_)) => {
                let phase = f.load(ctx, locals.consumer_phase, &here);
                let (index, phase) = f.state_advance(ctx, carried, phase, &here);
                f.store(ctx, index, locals.consumer_index, &here);
                f.store(ctx, phase, locals.consumer_phase, &here);
                semantic_ops += 1;
                index
            }
            (Step::Exit, _) => {
                if story {
                    let index = f.load(ctx, locals.producer_index, &here);
                    let phase = f.load(ctx, locals.producer_phase, &here);
                    f.producer_tail(ctx, index, phase, &here);
                    semantic_ops += 1;
                }
                f.ret(ctx, &[], &here);
                continue;
            }
            // The guard family's steps, and padding: integer work on the carried value.
            _ => {
                let one = f.const_int(ctx, u32_type(ctx), 1, &here);
                let bumped = f.binop(ctx, BinOpKind::Add, mixed, one, &here);
                f.store(ctx, bumped, scratch_out, &here);
                carried
            }
        };

        // The terminator: a loop's back edge, or on to the next block.
        let successor = block_of[c + 1];
        match planned[c].loop_head {
            Some(head) => {
                let count = f.load(ctx, locals.counter, &here);
                let one = f.const_int(ctx, u32_type(ctx), 1, &here);
                let count = f.binop(ctx, BinOpKind::Add, count, one, &here);
                f.store(ctx, count, locals.counter, &here);
                let again = f.cmp(ctx, CmpPredicate::Lt, count, bound, &here);
                f.cond_br(ctx, again, block_of[head], successor, &here);
            }
            None if planned[c + 1].step.has_argument() => {
                f.goto(ctx, successor, &[next], &here);
            }
            None => {
                f.goto(ctx, successor, &[], &here);
            }
        }
    }

    let scope = scopes_of_module(ctx, module.op()).into_iter().next().expect("the module has its kernel");
    Ok(Generated { module: module.op(), scope, blocks: planned.len(), semantic_ops })
}

/// The blocks of a generated scope's kernel, in region order.
pub fn kernel_blocks(ctx: &Context, generated: &Generated) -> Vec<Ptr<BasicBlock>> {
    let Some(func) = Operation::get_op::<FuncOp>(generated.scope.kernel, ctx) else {
        return Vec::new();
    };
    func.get_region(ctx).deref(ctx).iter(ctx).collect()
}

/// A module with one kernel of `blocks` blocks (at least 3), with or without semantic
/// operations. Returns the module operation.
pub fn pipeline_chain(ctx: &mut Context, blocks: usize, with_semantic_ops: bool) -> Ptr<Operation> {
    let blocks = blocks.max(3);
    let file = "generated/pipeline_chain.rs";
    let at = |line: usize| SourceLoc::new(file, line as u32 + 1, 5);
    let module = ModuleBuilder::new(ctx, "generated").expect("a valid symbol");
    let u32_ty = u32_type(ctx);
    let source_ty: TypeHandle =
        ptr_type(ctx, AddressSpace::Global, Mutability::Const, PointerKind::Raw, u32_ty.into()).into();
    let mut f = module
        .function(ctx, "pipeline_chain", FnKind::Kernel, &[u32_ty.into(), source_ty], &[], &at(0))
        .expect("a valid symbol");
    let (tiles, source) = (f.params(ctx)[0], f.params(ctx)[1]);
    let adt = AdtType::get(ctx, "PipelineState".to_string(), None).into();
    let state = f.alloca(ctx, adt, &at(0));
    let index_field = f.field_addr(ctx, state, 0, u32_ty.into(), &at(0));
    let phase_field = f.field_addr(ctx, state, 1, u32_ty.into(), &at(0));
    let (index, phase) = if with_semantic_ops {
        f.state_new(ctx, PipelineRole::Producer, 4, &at(0))
    } else {
        let zero = f.const_int(ctx, u32_ty, 0, &at(0));
        let one = f.const_int(ctx, u32_ty, 1, &at(0));
        (zero, one)
    };
    f.store(ctx, index, index_field, &at(0));
    f.store(ctx, phase, phase_field, &at(0));
    let bytes = f.const_int(ctx, u32_ty, 4096, &at(0));
    // Blocks 1..blocks-1 form the chain; the last one is the exit.
    let chain: Vec<Ptr<BasicBlock>> = (1..blocks).map(|b| f.add_block(ctx, &[], &at(b))).collect();
    f.goto(ctx, chain[0], &[], &at(0));
    let exit = *chain.last().expect("at least two chain blocks");
    for (k, block) in chain.iter().enumerate().take(chain.len() - 1) {
        let line = k + 1;
        f.switch_to(*block);
        let i = f.load(ctx, index_field, &at(line));
        let p = f.load(ctx, phase_field, &at(line));
        let (i2, p2) = if with_semantic_ops {
            f.producer_acquire(ctx, i, p, &at(line));
            f.producer_expect_tx(ctx, i, bytes, &at(line));
            let destination = f.binop(ctx, BinOpKind::Mul, i, bytes, &at(line));
            f.bulk_copy(ctx, destination, source, bytes, i, &at(line));
            f.state_advance(ctx, i, p, &at(line))
        } else {
            let i2 = f.binop(ctx, BinOpKind::Add, i, bytes, &at(line));
            let p2 = f.binop(ctx, BinOpKind::BitXor, p, bytes, &at(line));
            (i2, p2)
        };
        f.store(ctx, i2, index_field, &at(line));
        f.store(ctx, p2, phase_field, &at(line));
        let next = chain[k + 1];
        if next == exit {
            let more = f.cmp(ctx, CmpPredicate::Lt, i2, tiles, &at(line));
            f.cond_br(ctx, more, chain[0], exit, &at(line));
        } else {
            f.goto(ctx, next, &[], &at(line));
        }
    }
    f.switch_to(exit);
    let line = blocks;
    let i = f.load(ctx, index_field, &at(line));
    let p = f.load(ctx, phase_field, &at(line));
    if with_semantic_ops {
        f.producer_tail(ctx, i, p, &at(line));
    }
    f.ret(ctx, &[], &at(line));
    module.op()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::{ScopeStatus, analyze_scope, verify_module};

    #[test]
    fn both_families_have_the_requested_size_and_the_expected_verdict() {
        for blocks in [MIN_BLOCKS, 40, 200, 1000] {
            for family in Family::ALL {
                let mut ctx = crate::new_context();
                let generated = generate(&mut ctx, family, blocks, 7).unwrap();
                assert_eq!(generated.blocks, blocks);
                let reports = verify_module(&ctx, generated.module)
                    .unwrap_or_else(|rejections| panic!("{family:?} at {blocks}: {}", rejections[0]));
                assert_eq!(reports.len(), 1);
                assert_eq!(reports[0].blocks, blocks);
                assert_eq!(reports[0].semantic_ops, generated.semantic_ops);
                match family {
                    Family::Guard => {
                        assert_eq!(reports[0].status, ScopeStatus::Skipped);
                        assert_eq!(generated.semantic_ops, 0);
                    }
                    Family::Story => {
                        assert_eq!(reports[0].status, ScopeStatus::Verified);
                        // Semantic operations are spread through the scope: at least one in four blocks.
                        assert!(
                            generated.semantic_ops * 4 >= blocks,
                            "{} at {blocks}",
                            generated.semantic_ops
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_scope_and_another_seed_another_layout() {
        // The shape, block by block in region order: argument count and operation names.
        let shape = |seed| {
            let mut ctx = crate::new_context();
            let generated = generate(&mut ctx, Family::Story, 300, seed).unwrap();
            let blocks = kernel_blocks(&ctx, &generated);
            blocks
                .iter()
                .map(|block| {
                    let block = block.deref(&ctx);
                    let ops: Vec<String> =
                        block.iter(&ctx).map(|op| Operation::get_opid(op, &ctx).to_string()).collect();
                    (block.arguments().count(), ops)
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(shape(1), shape(1));
        assert_ne!(shape(1), shape(2));
    }

    #[test]
    fn every_block_but_heads_and_exit_carries_an_argument_and_stores() {
        let mut ctx = crate::new_context();
        let generated = generate(&mut ctx, Family::Story, 500, 3).unwrap();
        let blocks = kernel_blocks(&ctx, &generated);
        let with_argument = blocks.iter().filter(|b| b.deref(&ctx).arguments().count() == 1).count();
        // Only the entry, the exit and the round heads (one per round of at least nine blocks)
        // take none.
        let most_heads = (blocks.len() - 2) / (ROUND.len() + 1);
        assert!(with_argument >= blocks.len() - 2 - most_heads, "{with_argument} of {}", blocks.len());
        for block in &blocks {
            let stores = block
                .deref(&ctx)
                .iter(&ctx)
                .filter(|op| Operation::get_op::<crate::ir::mir::memory::StoreOp>(*op, &ctx).is_some())
                .count();
            assert!(stores >= 1);
        }
    }

    #[test]
    fn facts_flow_against_the_layout_order() {
        // Some block's control-order successor comes before it in the region: the fixpoint
        // must revisit blocks, as in real kernels with loops.
        let mut rng = fastrand::Rng::with_seed(11);
        let (_, layout) = plan(400, &mut rng);
        let position: std::collections::HashMap<usize, usize> =
            layout.iter().enumerate().map(|(k, c)| (*c, k)).collect();
        let backwards = (1..layout.len() - 1).filter(|c| position[&(c + 1)] < position[c]).count();
        assert!(backwards * 4 > layout.len(), "{backwards} of {}", layout.len());
    }

    #[test]
    fn a_story_scope_is_analysed_not_skipped_and_has_facts_for_its_integers() {
        let mut ctx = crate::new_context();
        let generated = generate(&mut ctx, Family::Story, 200, 5).unwrap();
        let analysis = analyze_scope(&ctx, &generated.scope);
        assert!(analysis.rejections.is_empty());
        assert!(analysis.facts.len() > 4 * 200, "{}", analysis.facts.len());
    }
}
