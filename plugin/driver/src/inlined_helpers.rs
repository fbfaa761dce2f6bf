//! Helpers written into their callers before anything reads the callers (MIR inlining), where
//! a call hides from the rules what the same code written in the caller shows them:
//!
//! - a helper that hands back an iterator the import counts. A tile loop is often `for t in
//!   my_tiles(tiles)`, with `fn my_tiles(tiles: u32) -> StepBy<Range<u32>> {
//!   (block_idx_x()..tiles).step_by(grid_dim_x() as usize) }` (written so by two blind rounds'
//!   authors independently). The import counts a range, a `step_by` or a `rev` of one built in
//!   the loop's function (`crate::import::counted`), but an iterator that crosses a return is an
//!   opaque aggregate: the loop's items, its trip count and every access they index were unknown;
//! - a step of the protocol handed a pipeline state by reference (`copy_rows(&pipe, &state, src,
//!   0, 4)` and again with rows 4 to 8). A helper's copy destination, byte count or stage access
//!   is one value per call site when the helper is summarised, so two calls with different
//!   arguments, or with different states, left the kernel unverified; written in, each call's
//!   arguments and state are the caller's own values.
//!
//! Each call is replaced by the helper's body: its locals appended to the caller's, its arguments
//! assigned to its parameters, its returns turned into a move of its return place into the call's
//! destination and a jump to the call's return block. This changes no execution. Only a helper
//! of the scope (not the standard library or the device API) is written in, not a closure (whose
//! `Fn` calls pass their arguments in a tuple), and only one whose body is small, runs no block
//! twice, calls nothing that calls it back, holds no assembly and needs no unwinding.

use rustc_index::IndexVec;
use rustc_middle::mir::visit::MutVisitor;
use rustc_middle::mir::{
    BasicBlock, BasicBlockData, Body, Local, Location, Operand, Place, RETURN_PLACE, Rvalue, SourceInfo,
    SourceScope, Statement, StatementKind, TerminatorKind, UnwindAction, WithRetag,
};
use rustc_middle::ty::{self, EarlyBinder, Instance, InstanceKind, Ty, TyCtxt, TypingEnv};

use crate::counted_types::is_counted_iterator;
use crate::decided_branches::prune_decided_branches;
use crate::device_api::is_pipeline_state;

/// The most blocks a helper written into its caller may have.
const MAX_HELPER_BLOCKS: usize = 32;
/// How many calls of such helpers one body may have written into it (a helper's body may itself
/// call one: each written-in call is looked at again).
const MAX_INLINED: usize = 16;

/// A test a helper's body as written must pass before it is copied.
pub type Wanted<'w, 'tcx> = &'w dyn Fn(&Body<'tcx>) -> bool;

/// What the scope knows of calls (`crate::scope`, which calls this while it prepares a body).
pub struct Calls<'a, 'tcx> {
    /// The instance a call of a function type runs.
    pub resolve: &'a dyn Fn(Ty<'tcx>) -> Option<Instance<'tcx>>,
    /// The body, as written, of a function the scope follows calls into, copied only where
    /// `wanted` holds of it (`None` for a function of the standard library or of the device
    /// API, one whose crate encoded no MIR, or one `wanted` refuses).
    pub followed_body: &'a dyn Fn(Instance<'tcx>, Wanted<'_, 'tcx>) -> Option<Body<'tcx>>,
}

/// Writes each call of such a helper in `body` into it (module doc); returns how many.
pub fn inline_helpers<'tcx>(tcx: TyCtxt<'tcx>, body: &mut Body<'tcx>, calls: &Calls<'_, 'tcx>) -> usize {
    let mut inlined = 0;
    // Writing a call in changes only its block and appends the helper's blocks, so the blocks
    // before it, already looked at, are not looked at again.
    let mut from = BasicBlock::from_usize(0);
    while inlined < MAX_INLINED {
        let Some((block, helper)) = next_candidate(tcx, body, calls, from) else { break };
        write_in(tcx, body, block, helper);
        from = block + 1;
        inlined += 1;
    }
    inlined
}

/// The first call of `body`, at block `from` or after, to a helper that hands back a counted
/// iterator or steps a state handed to it by reference, and may be written in, with the
/// helper's body.
fn next_candidate<'tcx>(
    tcx: TyCtxt<'tcx>,
    body: &Body<'tcx>,
    calls: &Calls<'_, 'tcx>,
    from: BasicBlock,
) -> Option<(BasicBlock, Body<'tcx>)> {
    body.basic_blocks.iter_enumerated().skip(from.as_usize()).find_map(|(block, data)| {
        let TerminatorKind::Call { func, args, destination, target: Some(_), .. } = &data.terminator().kind
        else {
            return None;
        };
        // A step of the protocol handed a state by reference (`produce(&pipe, &mut state, …)`):
        // written in, each call's state is the caller's own variable.
        let steps_a_state = args.iter().any(|arg| match arg.node.ty(body, tcx).kind() {
            ty::Ref(_, pointee, _) => is_pipeline_state(tcx, *pointee),
            _ => false,
        });
        if !is_counted_iterator(tcx, destination.ty(body, tcx).ty) && !steps_a_state {
            return None;
        }
        let callee = (calls.resolve)(func.ty(body, tcx))?;
        // A closure is called through the `Fn` traits with its arguments in a tuple, which
        // its body takes apart: not a call whose arguments are its parameters.
        if !matches!(callee.def, InstanceKind::Item(_)) || tcx.is_closure_like(callee.def_id()) {
            return None;
        }
        let written = (calls.followed_body)(callee, &|helper| small_and_straight(helper, args.len()))?;
        Some((block, helper_body(tcx, callee, written, calls)?))
    })
}

/// Whether a helper's body as written may be written into a call handing it `arguments`: as many
/// parameters, its arguments not spread from a tuple, at most [`MAX_HELPER_BLOCKS`] blocks and no
/// cycle. Asked before the body is copied.
fn small_and_straight(body: &Body<'_>, arguments: usize) -> bool {
    body.arg_count == arguments
        && body.spread_arg.is_none()
        && body.basic_blocks.len() <= MAX_HELPER_BLOCKS
        && !rustc_data_structures::graph::is_cyclic(&body.basic_blocks)
}

/// The helper's body (`body`, as written, [`small_and_straight`]), instantiated and with its
/// decided branches folded, where it may be written into a caller (module doc).
fn helper_body<'tcx>(
    tcx: TyCtxt<'tcx>,
    callee: Instance<'tcx>,
    body: Body<'tcx>,
    calls: &Calls<'_, 'tcx>,
) -> Option<Body<'tcx>> {
    let mut body = callee.instantiate_mir_and_normalize_erasing_regions(
        tcx,
        TypingEnv::fully_monomorphized(),
        EarlyBinder::bind(tcx, body),
    );
    prune_decided_branches(tcx, &mut body);
    let plain = body.basic_blocks.iter().all(|data| {
        !data.is_cleanup
            && match &data.terminator().kind {
                TerminatorKind::Goto { .. }
                | TerminatorKind::SwitchInt { .. }
                | TerminatorKind::Return
                | TerminatorKind::Unreachable
                | TerminatorKind::Assert { .. } => true,
                // Nothing it calls may lead back to it.
                TerminatorKind::Call { func, .. } => {
                    (calls.resolve)(func.ty(&body, tcx)).is_some_and(|called| called != callee)
                }
                _ => false,
            }
    });
    plain.then_some(body)
}

/// Replaces the call that ends `block` by `helper`'s body (module doc).
fn write_in<'tcx>(tcx: TyCtxt<'tcx>, body: &mut Body<'tcx>, block: BasicBlock, mut helper: Body<'tcx>) {
    let call = body.basic_blocks[block].terminator().clone();
    let TerminatorKind::Call { args, destination, target: Some(target), .. } = call.kind else {
        unreachable!("a candidate ends in a returning call")
    };
    let scope = call.source_info.scope;
    let first_local = body.local_decls.len();
    let first_block = body.basic_blocks.len();
    for decl in helper.local_decls.iter() {
        let mut decl = decl.clone();
        decl.source_info.scope = scope;
        body.local_decls.push(decl);
    }
    let mut renumber = Renumber { tcx, first_local, first_block, scope };
    let mut blocks: IndexVec<BasicBlock, BasicBlockData<'tcx>> = std::mem::take(helper.basic_blocks_mut());
    for (helper_block, data) in blocks.iter_enumerated_mut() {
        // A return names the return place, which a visitor may not renumber: it is made a
        // jump below, once the rest is renumbered.
        let returns = matches!(data.terminator().kind, TerminatorKind::Return);
        if returns {
            data.terminator_mut().kind = TerminatorKind::Unreachable;
        }
        renumber.visit_basic_block_data(helper_block, data);
        let terminator = data.terminator_mut();
        if returns {
            let result = Operand::Move(Place::from(renumber.local(RETURN_PLACE)));
            let source_info = SourceInfo { span: terminator.source_info.span, scope };
            data.statements.push(Statement::new(
                source_info,
                StatementKind::Assign(Box::new((destination, Rvalue::Use(result, WithRetag::Yes)))),
            ));
            data.terminator_mut().kind = TerminatorKind::Goto { target };
        }
    }
    let source_info = call.source_info;
    let calling = &mut body.basic_blocks_mut()[block];
    for (position, argument) in args.iter().enumerate() {
        let parameter = Place::from(renumber.local(Local::from_usize(position + 1)));
        calling.statements.push(Statement::new(
            source_info,
            StatementKind::Assign(Box::new((parameter, Rvalue::Use(argument.node.clone(), WithRetag::Yes)))),
        ));
    }
    calling.terminator_mut().kind = TerminatorKind::Goto { target: BasicBlock::from_usize(first_block) };
    body.basic_blocks_mut().extend(blocks);
}

/// Moves a helper's locals and blocks past the caller's, and its code into the call's scope.
struct Renumber<'tcx> {
    tcx: TyCtxt<'tcx>,
    first_local: usize,
    first_block: usize,
    scope: SourceScope,
}

impl Renumber<'_> {
    fn local(&self, local: Local) -> Local {
        Local::from_usize(self.first_local + local.as_usize())
    }
}

impl<'tcx> MutVisitor<'tcx> for Renumber<'tcx> {
    fn tcx(&self) -> TyCtxt<'tcx> {
        self.tcx
    }

    fn visit_local(&mut self, local: &mut Local, _: rustc_middle::mir::visit::PlaceContext, _: Location) {
        *local = self.local(*local);
    }

    fn visit_source_scope(&mut self, scope: &mut SourceScope) {
        *scope = self.scope;
    }

    fn visit_terminator(&mut self, terminator: &mut rustc_middle::mir::Terminator<'tcx>, location: Location) {
        self.super_terminator(terminator, location);
        let first_block = self.first_block;
        terminator.kind.successors_mut(|successor| {
            *successor = BasicBlock::from_usize(first_block + successor.as_usize());
        });
        // Panics abort on the GPU: nothing unwinds.
        if let Some(unwind) = terminator.kind.unwind_mut() {
            *unwind = UnwindAction::Unreachable;
        }
    }
}
