//! The shared-memory tiles a `wgmma.mma_async` reads. Each of its two descriptors is followed
//! back to the tile address it was made from (`device::wgmma::k_major_swizzle_128b_descriptor`,
//! through locals stored once); the multiply reads that tile asynchronously, from its issue until
//! a `wait_group` covers it. The typestate rules treat the multiply as a read of the stage its
//! tile address is computed from (so it must come while the consumer holds that stage), and the
//! layout rule ([`super::layout`]) asks that every byte it reads lie inside that stage.
//!
//! A descriptor made any other way, or a tile address the rules cannot place, leaves the scope
//! unverified: which bytes the tensor cores read is then unknown.

use pliron::{
    context::{Context, Ptr},
    operation::Operation,
    value::Value,
};

use super::{
    facts::{Fact, FactStore, StateId, is_tracked},
    locals::LocalStores,
    memory::offset_index,
};
use crate::ir::{
    mir::{control::CallOp, memory::LoadOp},
    semantic::wgmma::WgmmaMmaOp,
};

/// Rows of A (`m64`) and of B (`n128`) one `m64n128k16` multiply reads, in descriptor order.
pub(crate) const TILE_ROWS: [i64; 2] = [64, 128];
/// Bytes between rows in the 128-byte swizzled K-major layout. The swizzle permutes the 16-byte
/// chunks inside a row, so the bytes a multiply reads of one row stay inside its 128 bytes.
pub(crate) const SWIZZLE_ROW_BYTES: i64 = 128;
/// The device API function that makes the descriptors the model reads.
const DESCRIPTOR_MAKER: &str = "device__wgmma__k_major_swizzle_128b_descriptor";
/// Locals looked through from a descriptor to the call that made it.
const DEPTH: u32 = 4;
/// Arithmetic steps looked through from a tile address to its stage index.
const INDEX_BUDGET: u32 = 16;

/// The shared-window address the descriptor `descriptor` was made from, where it was made by
/// [`DESCRIPTOR_MAKER`].
pub(crate) fn descriptor_address(ctx: &Context, locals: &LocalStores, descriptor: Value) -> Option<Value> {
    let mut value = descriptor;
    for _ in 0..DEPTH {
        let def = value.defining_op()?;
        if let Some(call) = Operation::get_op::<CallOp>(def, ctx) {
            let made_here = call.callee(ctx).is_some_and(|name| {
                let name: &str = name.as_ref();
                name == DESCRIPTOR_MAKER
            });
            return made_here.then(|| def.deref(ctx).get_operand(0));
        }
        Operation::get_op::<LoadOp>(def, ctx)?;
        value = locals.only_store_into(ctx, def.deref(ctx).get_operand(0))?;
    }
    None
}

/// The tile addresses of the multiply `op` (A's, B's), where `op` is one and both descriptors
/// lead to one.
pub(crate) fn tile_addresses(
    ctx: &Context,
    locals: &LocalStores,
    op: Ptr<Operation>,
) -> Option<[Option<Value>; 2]> {
    let mma = Operation::get_op::<WgmmaMmaOp>(op, ctx)?;
    Some(mma.descriptors(ctx).map(|descriptor| descriptor_address(ctx, locals, descriptor)))
}

/// The stage the multiply `op` reads, as the state whose index both tile addresses are computed
/// from, with that index value (for the typestate: the multiply is a read of that stage).
/// `None` when `op` is not a multiply, or its tiles do not both come from one state's index.
pub(crate) fn multiply_stage(
    ctx: &Context,
    facts: &dyn FactStore,
    locals: &LocalStores,
    op: Ptr<Operation>,
) -> Option<(StateId, Value)> {
    let mut found: Option<(StateId, Value)> = None;
    for address in tile_addresses(ctx, locals, op)? {
        let index = offset_index(ctx, facts, address?, &mut { INDEX_BUDGET })?;
        let state = match (is_tracked(ctx, index), facts.get(index)) {
            (true, Some(Fact::Index(state))) => state,
            _ => return None,
        };
        if found.is_some_and(|(seen, _)| seen != state) {
            return None;
        }
        found.get_or_insert((state, index));
    }
    found
}
