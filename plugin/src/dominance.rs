//! Local verification in time linear in the IR's size: pliron's own checks of every
//! operation, then the SSA rule (every definition dominates its uses) answered in constant
//! time per use.
//!
//! Why not `pliron::operation::verify_operation`: its dominance check walks the dominator
//! tree from the use's block up towards the definition's for every use. Kernels imported from
//! MIR keep their locals as `mir.alloca`s in the entry block and use them in every block, and
//! a kernel's dominator tree is about as deep as it has blocks, so that check is quadratic in
//! the block count (the timing regression, `regress/tests/verifier_timing.rs`, measured N^1.8
//! before this module). Here each region's dominator tree (pliron's, computed once) is
//! numbered by a depth-first walk; `a` dominates `b` exactly when `b`'s interval lies inside
//! `a`'s, one comparison. Operations get their position in their block once, so "strictly
//! precedes" is one comparison too.
//!
//! The verdicts and the error (the first use, in pliron's walk order, that its definition
//! does not dominate, reported as pliron reports it) are the same as pliron's; the tests at
//! the bottom compare both on valid and broken IR.

use std::collections::HashMap;

use pliron::{
    basic_block::BasicBlock,
    common_traits::{Named, Verify},
    context::{Context, Ptr},
    graph::{
        dominance::compute_dominator_tree, find_ancestor_block_of_block_in_region,
        find_ancestor_op_of_op_in_region,
    },
    linked_list::ContainsLinkedList,
    operation::{DefUseVerifyErr, Operation},
    region::Region,
    result::Result,
    value::{DefiningEntity, Value},
    verify_error,
};

/// Verifies `root` and everything in it, like `pliron::operation::verify_operation`, in time
/// linear in the number of operations, blocks and uses.
pub fn verify_operation(root: Ptr<Operation>, ctx: &Context) -> Result<()> {
    root.deref(ctx).verify(ctx)?;
    verify_value_dominance(root, ctx)
}

/// A region's dominator tree, numbered: block → (entry, exit) of a depth-first walk.
struct Numbering {
    interval: HashMap<Ptr<BasicBlock>, (u32, u32)>,
    ssa: bool,
}

impl Numbering {
    fn of(ctx: &Context, region: Ptr<Region>) -> Numbering {
        let tree = compute_dominator_tree(ctx, &region);
        let mut interval = HashMap::new();
        if let Some(root) = tree.root() {
            let mut clock = 0u32;
            // (block, whether its children have been pushed)
            let mut stack = vec![(root, false)];
            let mut entered = HashMap::new();
            while let Some((block, expanded)) = stack.pop() {
                if expanded {
                    interval.insert(block, (entered[&block], clock));
                    clock += 1;
                    continue;
                }
                entered.insert(block, clock);
                clock += 1;
                stack.push((block, true));
                for child in tree.children(&block) {
                    stack.push((child, false));
                }
            }
        }
        Numbering { interval, ssa: region.deref(ctx).has_ssa_dominance(ctx) }
    }

    /// Whether block `a` dominates block `b` (reflexively), as pliron's `DomTree::dominates`:
    /// a block outside the tree (unreachable) is dominated only by itself.
    fn dominates(&self, a: Ptr<BasicBlock>, b: Ptr<BasicBlock>) -> bool {
        if a == b {
            return true;
        }
        match (self.interval.get(&a), self.interval.get(&b)) {
            (Some((a_in, a_out)), Some((b_in, b_out))) => a_in <= b_in && b_out <= a_out,
            _ => false,
        }
    }
}

/// The state of one verification: numberings by region, operation positions in blocks.
struct Dominance<'a> {
    ctx: &'a Context,
    numbering: HashMap<Ptr<Region>, Numbering>,
    position: HashMap<Ptr<Operation>, u32>,
}

impl Dominance<'_> {
    fn numbering(&mut self, region: Ptr<Region>) -> &Numbering {
        let ctx = self.ctx;
        self.numbering.entry(region).or_insert_with(|| Numbering::of(ctx, region))
    }

    fn region_of(&self, block: Ptr<BasicBlock>) -> Ptr<Region> {
        block.deref(self.ctx).get_parent_region().expect("a block is in a region")
    }

    /// pliron's `DomInfo::value_strictly_dominates_op`.
    fn value_dominates_op(&mut self, value: Value, user: Ptr<Operation>) -> bool {
        let ctx = self.ctx;
        match value.defining_entity() {
            DefiningEntity::Op(def) => {
                let Some(def_block) = def.deref(ctx).get_parent_block() else { return false };
                let region = self.region_of(def_block);
                let Some(user) = find_ancestor_op_of_op_in_region(ctx, user, region) else { return false };
                let Some(user_block) = user.deref(ctx).get_parent_block() else { return false };
                if def_block == user_block {
                    let precedes = self.position.get(&def) < self.position.get(&user) && def != user;
                    return !self.numbering(region).ssa || precedes;
                }
                self.numbering(region).dominates(def_block, user_block)
            }
            DefiningEntity::Block(def_block) => {
                let Some(user_block) = user.deref(ctx).get_parent_block() else { return false };
                let region = self.region_of(def_block);
                find_ancestor_block_of_block_in_region(ctx, user_block, region)
                    .is_some_and(|user_block| self.numbering(region).dominates(def_block, user_block))
            }
        }
    }

    fn check_value(&mut self, value: Value) -> Result<()> {
        for r#use in value.uses(self.ctx) {
            let user = r#use.user_op();
            if !self.value_dominates_op(value, user) {
                return Err(verify_error!(
                    user.deref(self.ctx).loc(),
                    DefUseVerifyErr::UseNotDominatedByDef(value.unique_name(self.ctx))
                ));
            }
        }
        Ok(())
    }

    /// Numbers the operations of every block under `op` by position.
    fn record_positions(&mut self, op: Ptr<Operation>) {
        let ctx = self.ctx;
        let mut pending = vec![op];
        while let Some(op) = pending.pop() {
            for region in op.deref(ctx).regions() {
                for block in region.deref(ctx).iter(ctx) {
                    for (i, inner) in block.deref(ctx).iter(ctx).enumerate() {
                        self.position.insert(inner, i as u32);
                        pending.push(inner);
                    }
                }
            }
        }
    }

    /// Checks the results of `op`, then, region by region and block by block, each block's
    /// arguments and operations: pliron's pre-order, forward walk.
    fn check_op(&mut self, op: Ptr<Operation>) -> Result<()> {
        let ctx = self.ctx;
        let results: Vec<Value> = op.deref(ctx).results().collect();
        for result in results {
            self.check_value(result)?;
        }
        let regions: Vec<Ptr<Region>> = op.deref(ctx).regions().collect();
        for region in regions {
            let blocks: Vec<Ptr<BasicBlock>> = region.deref(ctx).iter(ctx).collect();
            for block in blocks {
                let arguments: Vec<Value> = block.deref(ctx).arguments().collect();
                for argument in arguments {
                    self.check_value(argument)?;
                }
                let ops: Vec<Ptr<Operation>> = block.deref(ctx).iter(ctx).collect();
                for inner in ops {
                    self.check_op(inner)?;
                }
            }
        }
        Ok(())
    }
}

/// Checks that every value under `root` dominates all its uses (pliron's SSA rule).
pub fn verify_value_dominance(root: Ptr<Operation>, ctx: &Context) -> Result<()> {
    let mut dominance = Dominance { ctx, numbering: HashMap::new(), position: HashMap::new() };
    if let Some(block) = root.deref(ctx).get_parent_block() {
        for (i, op) in block.deref(ctx).iter(ctx).enumerate() {
            dominance.position.insert(op, i as u32);
        }
    }
    dominance.record_positions(root);
    dominance.check_op(root)
}

#[cfg(test)]
mod tests {
    use pliron::printable::Printable;

    use super::*;
    use crate::{
        generate::{Family, generate},
        ir::{
            builder::{FnKind, ModuleBuilder, SourceLoc},
            mir::arith::BinOpKind,
            types::shorthand::u32_type,
        },
    };

    /// The verdict and the error's location and message (not its backtrace, which names the
    /// functions that found it).
    fn same_verdict(ctx: &Context, root: Ptr<Operation>) -> bool {
        let describe = |e: pliron::result::Error| {
            let text = e.disp(ctx).to_string();
            text.split("\nError backtrace").next().unwrap_or_default().to_string()
        };
        let ours = verify_operation(root, ctx).map_err(describe);
        let pliron = pliron::operation::verify_operation(root, ctx).map_err(describe);
        assert_eq!(ours, pliron);
        ours.is_ok()
    }

    #[test]
    fn generated_scopes_verify_as_pliron_verifies_them() {
        for family in Family::ALL {
            let mut ctx = crate::new_context();
            let generated = generate(&mut ctx, family, 300, 9).unwrap();
            assert!(same_verdict(&ctx, generated.module));
        }
    }

    #[test]
    fn a_use_its_definition_does_not_dominate_fails_as_in_pliron() {
        // entry → (left | right) → join; a value defined in `left` used in `join`, and one
        // defined later in a block than its use.
        let ctx = &mut crate::new_context();
        let at = SourceLoc::new("t.rs", 1, 1);
        let module = ModuleBuilder::new(ctx, "m").unwrap();
        let u32_ty = u32_type(ctx);
        let mut f = module.function(ctx, "k", FnKind::Kernel, &[u32_ty.into()], &[], &at).unwrap();
        let param = f.params(ctx)[0];
        let left = f.add_block(ctx, &[], &at);
        let right = f.add_block(ctx, &[], &at);
        let join = f.add_block(ctx, &[], &at);
        let one = f.const_int(ctx, u32_ty, 1, &at);
        let cond = f.cmp(ctx, crate::ir::mir::arith::CmpPredicate::Lt, param, one, &at);
        f.cond_br(ctx, cond, left, right, &at);
        f.switch_to(left);
        let in_left = f.binop(ctx, BinOpKind::Add, param, one, &at);
        f.goto(ctx, join, &[], &at);
        f.switch_to(right);
        f.goto(ctx, join, &[], &at);
        f.switch_to(join);
        let sum = f.binop(ctx, BinOpKind::Add, param, one, &at);
        f.ret(ctx, &[], &at);
        assert!(same_verdict(ctx, module.op()));

        // The use in `join` of a value from `left`: not dominated.
        let user = sum.defining_op().unwrap();
        Operation::replace_operand(user, ctx, 0, in_left);
        assert!(!same_verdict(ctx, module.op()));
        Operation::replace_operand(user, ctx, 0, param);
        assert!(same_verdict(ctx, module.op()));

        // A use before its definition in the same block.
        let early = in_left.defining_op().unwrap();
        let later = f.const_int(ctx, u32_ty, 2, &at);
        let later_op = later.defining_op().unwrap();
        later_op.unlink(ctx);
        later_op.insert_after(ctx, early);
        Operation::replace_operand(early, ctx, 1, later);
        assert!(!same_verdict(ctx, module.op()));
    }
}
