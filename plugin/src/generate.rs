//! Generated scopes of a chosen size, for timing the verifier (the timing regression and
//! `plugin`'s own measurements) and for tests that need big inputs.
//!
//! [`pipeline_chain`] builds one kernel of `blocks` blocks in the shape the importer produces
//! from MIR: the pipeline state lives in a place (a `mir.alloca` with the index and phase
//! fields); every block loads it, runs one producer step (acquire, expect-tx, advance) and
//! stores it back, then jumps to the next block; the last block loops back to the first
//! under a condition, or leaves through the producer tail. Without semantic operations, the
//! same CFG and memory traffic carry plain integers (and the scope guard skips it).

use pliron::{
    basic_block::BasicBlock,
    context::{Context, Ptr},
    operation::Operation,
};

use crate::ir::{
    builder::{FnKind, ModuleBuilder, SourceLoc},
    mir::arith::{BinOpKind, CmpPredicate},
    semantic::pipeline::PipelineRole,
    types::{AdtType, shorthand::u32_type},
};

/// A module with one kernel of `blocks` blocks (at least 3), with or without semantic
/// operations. Returns the module operation.
pub fn pipeline_chain(ctx: &mut Context, blocks: usize, with_semantic_ops: bool) -> Ptr<Operation> {
    let blocks = blocks.max(3);
    let file = "generated/pipeline_chain.rs";
    let at = |line: usize| SourceLoc::new(file, line as u32 + 1, 5);
    let module = ModuleBuilder::new(ctx, "generated").expect("a valid symbol");
    let u32_ty = u32_type(ctx);
    let mut f = module
        .function(ctx, "pipeline_chain", FnKind::Kernel, &[u32_ty.into()], &[], &at(0))
        .expect("a valid symbol");
    let tiles = f.params(ctx)[0];
    let adt = AdtType::get(ctx, "PipelineState".to_string()).into();
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
