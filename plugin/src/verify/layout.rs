//! Rule `shared-layout`: the pipelines' barriers and rings occupy disjoint shared memory, every
//! `attach` names barriers an `init` set up, and every bulk copy stays inside one stage.
//!
//! Addresses are shared-window addresses (`u32`), read as affine forms `window + k·index + c`
//! where `window` is `dynamic_shared_window_address()`, `index` a state's stage index and `c`
//! an interval of constants (the evaluator follows constants, arithmetic, integer casts and
//! locals stored once). A barrier area is `[c, c + 16·STAGES)` from an `init` or `attach`
//! operand; a copy writes `[c, c + bytes)` in stage `index` of a ring whose stages are `k`
//! bytes apart. What the evaluator cannot place is a gap: the scope is then unverified.
//!
//! Barrier areas must be 8-byte aligned (an mbarrier is an 8-byte object), bulk copies' shared
//! addresses (every stage's) and sizes multiples of 16. The window itself is taken as aligned
//! to 16 bytes, as dynamic shared memory is.
//!
//! *Hazards:* a copy landing on a barrier corrupts its phase (hang, fault); two pipelines on one
//! ring or one set of barriers overwrite each other's data or arrivals; a copy larger than its
//! stage overwrites the next stage that consumers may still read (race); a misaligned mbarrier
//! or bulk copy faults.

mod affine;
mod barrier_setups;
mod copy_sources;
mod possible_bits;
mod stage_accesses;
mod stage_parts;
mod wgmma_reads;

use affine::{Affine, add, agreed, bitwise_constant, disjoint_sum, divide_exactly, masked_index, scale};
use stage_parts::{inside_a_part, spilled_stage, stage_parts};

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use rustc_hash::FxHashMap;

use pliron::{
    builtin::types::{FP16Type, FP32Type, FP64Type, IntegerType},
    context::{Context, Ptr},
    operation::Operation,
    r#type::{TypeHandle, Typed},
    value::{DefiningEntity, Value},
};

use super::{
    Gap, GapKind, Rule, StateId,
    call_chains::integer_bindings,
    dataflow::returned_at,
    facts::{Fact, FactStore, is_tracked},
    flow::Flow,
    index::{CallBinding, OpClass, ScopeIndex},
    memory::{
        LocalStores, StageSource, StageWalk, declared_constant, is_slice_element, is_slice_from_parts,
        slice_from_parts, stage_handed_to_call, stage_pointer,
    },
    pipeline_calls::{calls_pipeline_method, is_pipeline_init},
    progression::{Assumed, Progression, Progressions},
    rules::Reporter,
    thread_model::SharedThreadModel,
    thread_values::{Val, wrap_to},
};
use crate::ir::{
    mir::{
        arith::{AddrSpaceCastOp, BinOp, BinOpKind, CastKind, CastOp},
        constant::ConstIntOp,
        control::CallOp,
        int_width,
        memory::{FieldAddrOp, IndexAddrOp, LoadOp},
        opaque::OpaqueOp,
        pointer_type_of,
    },
    semantic::{
        memory::{BulkCopyOp, DynamicSharedBaseOp},
        pipeline::StateNewOp,
    },
    types::AdtType,
};

/// Bytes of one pipeline's barriers per stage (a *full* and an *empty* mbarrier of 8 bytes).
const BARRIER_BYTES_PER_STAGE: i64 = 16;
/// The alignment of an mbarrier (an 8-byte object).
const MBARRIER_ALIGN: i64 = 8;
/// The alignment of a bulk copy's shared address and of its size.
const BULK_COPY_ALIGN: i64 = 16;
/// The alignment of the dynamic shared window's own address.
const WINDOW_ALIGN: i64 = 16;
/// Definitions the evaluator looks through for one address.
const DEPTH: u32 = 24;
/// Values one thread's index may take for the evaluator to bound it.
const MAX_INTERVAL_VALUES: usize = 4096;

/// [`Evaluator::interval`]'s answers by (value, access block), shared by the evaluator's copies.
type IntervalsRead = FxHashMap<(Value, usize), Option<Affine>>;

#[derive(Clone)]
struct Evaluator<'a, 'm> {
    ctx: &'a Context,
    index: &'a ScopeIndex,
    facts: &'a dyn FactStore,
    /// Values stored into each local of the scope and each field of one.
    locals: &'a LocalStores,
    /// Each function's `mir.return` operations (numbers).
    returns: &'a [Vec<usize>],
    /// Whether an integer the forms cannot read exactly is read as the interval of its values
    /// (only where an interval is judged as one: a stage access inside its stage).
    intervals: bool,
    /// The threads of the block, for such integers.
    thread_model: &'a SharedThreadModel<'m>,
    /// The block (number) of the access whose address is read as intervals: only the threads
    /// reaching it give its integers values.
    access_block: Cell<Option<usize>>,
    /// The rounding of the window every form of the layout is read on (see [`Affine`]): the one
    /// its barriers and copies agree on; `None` until that is known, 0 where they disagree.
    rounding: Cell<Option<i64>>,
    /// Intervals already read, by value and access block: one address's forms ask for the
    /// same sub-expression's interval at every depth of their walk, each an evaluation per thread.
    intervals_read: Rc<RefCell<IntervalsRead>>,
    /// The helpers the walk entered from a call, innermost last: each one's parameters and
    /// the call's arguments, so that a helper both roles call (`stage_byte(state.index())`)
    /// is read with this call's arguments, not the ones all calls agree on.
    frames: RefCell<Vec<CallBinding>>,
}

impl Evaluator<'_, '_> {
    fn stages(&self, state: StateId) -> Option<i64> {
        super::rules::stages_of(self.ctx, self.index, state).map(i64::from)
    }

    /// The form of `value`; an integer the forms cannot read exactly (a row counter, a thread's
    /// column) is the interval of every value any thread gives it, where that is bounded.
    fn eval(&self, value: Value, depth: u32) -> Option<Affine> {
        self.eval_exact(value, depth).or_else(|| if self.intervals { self.interval(value) } else { None })
    }

    /// `value`, an integer, as the interval `[lo, hi]` of its values over every thread of the
    /// block and every iteration of the loops whose counters it is built from (a progression the
    /// thread model bounds per thread: `r` of `while r < ROWS { …; r += 1 }`, `tid % 32`).
    fn interval(&self, value: Value) -> Option<Affine> {
        let block = self.access_block.get()?;
        if let Some(read) = self.intervals_read.borrow().get(&(value, block)) {
            return *read;
        }
        let read = self.interval_uncached(value, block);
        self.intervals_read.borrow_mut().insert((value, block), read);
        read
    }

    fn interval_uncached(&self, value: Value, block: usize) -> Option<Affine> {
        value.get_type(self.ctx).deref(self.ctx).downcast_ref::<IntegerType>()?;
        let model = self.thread_model.get();
        let reach = model.reach[block].as_ref()?;
        let (mut lo, mut hi) = (i64::MAX, i64::MIN);
        // In a helper, over every call chain's integer arguments (a thread index handed down).
        let function = self.index.block_function[block];
        for params in integer_bindings(self.ctx, self.index, model, function) {
            let progressions = Progressions {
                ctx: self.ctx,
                index: self.index,
                model,
                assumed: &Assumed::default(),
                locals: self.locals,
                params: &params,
                bound: &FxHashMap::default(),
                relevant: Some(&reach.threads),
            };
            let progression = progressions.of(value).filter(Progression::bounded)?;
            for t in reach.threads.members() {
                for v in progression.values(t, i64::MAX, MAX_INTERVAL_VALUES)? {
                    lo = lo.min(v);
                    hi = hi.max(v);
                }
            }
        }
        (lo <= hi).then_some(Affine { lo, hi, ..Affine::constant(0) })
    }

    /// The form of `value`, or, for an integer the forms cannot read, the one constant the
    /// thread model gives it in every thread (an offset a layout builder's methods computed).
    fn eval_exact(&self, value: Value, depth: u32) -> Option<Affine> {
        self.form(value, depth).or_else(|| {
            value.get_type(self.ctx).deref(self.ctx).downcast_ref::<IntegerType>()?;
            match self.thread_model.get().eval(value, &FxHashMap::default()) {
                Val::Const(constant) => Some(Affine::constant(constant)),
                _ => None,
            }
        })
    }

    fn form(&self, value: Value, depth: u32) -> Option<Affine> {
        if is_tracked(self.ctx, value)
            && let Some(Fact::Index(state)) = self.facts.get(value)
        {
            let stages = self.stages(state)?;
            return (stages > 0).then_some(Affine { index: Some((state, 1)), ..Affine::constant(0) });
        }
        let def = match value.defining_entity() {
            DefiningEntity::Op(def) => def,
            DefiningEntity::Block(_) => return self.parameter(value, &[], depth),
        };
        if let Some(constant) = Operation::get_op::<ConstIntOp>(def, self.ctx) {
            return Some(Affine::constant(constant.get_attr_int_value(self.ctx)?.value().to_u64() as i64));
        }
        if let Some(opaque) = Operation::get_op::<OpaqueOp>(def, self.ctx) {
            let what = opaque.what(self.ctx)?;
            return (what == "dynamic_shared_window_address()").then_some(Affine::window(1));
        }
        if depth == 0 {
            return None;
        }
        // A pointer into dynamic shared memory has the form of its window address: the base
        // is the window's byte 0, and an element offset scales by the pointee's size.
        if Operation::get_op::<DynamicSharedBaseOp>(def, self.ctx).is_some() {
            return Some(Affine::window(1));
        }
        let operands: Vec<Value> = def.deref(self.ctx).operands().collect();
        if Operation::get_op::<IndexAddrOp>(def, self.ctx).is_some() {
            let element = pointee_bytes(self.ctx, operands[0].get_type(self.ctx))?;
            let base = self.eval(operands[0], depth - 1)?;
            return add(base, scale(self.eval(operands[1], depth - 1)?, element)?);
        }
        if field_at_struct_start(self.ctx, def) {
            return self.eval(operands[0], depth - 1);
        }
        if Operation::get_op::<AddrSpaceCastOp>(def, self.ctx).is_some()
            || Operation::get_op::<CastOp>(def, self.ctx).is_some_and(|cast| {
                matches!(cast.kind(self.ctx), Some(CastKind::IntToInt | CastKind::PtrToPtr))
            })
        {
            return self.eval(operands[0], depth - 1);
        }
        if Operation::get_op::<LoadOp>(def, self.ctx).is_some() {
            return self
                .load_form(operands[0], &[], depth - 1)
                .or_else(|| self.pointee_form(value, operands[0], depth - 1));
        }
        if let Some(call) = Operation::get_op::<CallOp>(def, self.ctx) {
            // A slice made over a pointer (`from_raw_parts(stage, len)`) starts where it points.
            if call.callee(self.ctx).is_some_and(|callee| is_slice_from_parts(callee.as_ref())) {
                return self.eval(operands[0], depth - 1);
            }
            // A slice's element (`slice.get_unchecked(i)`): `i` elements past the slice's start.
            if call.callee(self.ctx).is_some_and(|callee| is_slice_element(callee.as_ref()))
                && let [slice, element_index] = operands.as_slice()
                && int_width(self.ctx, element_index.get_type(self.ctx)).is_some()
            {
                let element = pointee_bytes(self.ctx, value.get_type(self.ctx))?;
                let base = self.eval(*slice, depth - 1)?;
                return add(base, scale(self.eval(*element_index, depth - 1)?, element)?);
            }
            return self.called_form(def, value, &[], depth - 1);
        }
        let binop = Operation::get_op::<BinOp>(def, self.ctx)?;
        let a = self.eval(operands[0], depth - 1)?;
        let b = self.eval(operands[1], depth - 1)?;
        let kind = binop.kind(self.ctx)?;
        if let Some(constant) = bitwise_constant(self.ctx, value, kind, a, b) {
            return Some(Affine::constant(constant));
        }
        if let Some(sum) = disjoint_sum(kind, a, b, |state| self.stages(state), WINDOW_ALIGN) {
            return Some(sum);
        }
        // Fields packed by OR (`stage | row << 5 | lane`) whose bits cannot meet: their sum.
        if matches!(kind, BinOpKind::BitOr | BinOpKind::BitXor)
            && let (Some(x), Some(y)) =
                (self.possible_bits(operands[0], depth), self.possible_bits(operands[1], depth))
            && x & y == 0
        {
            return add(a, b);
        }
        match kind {
            BinOpKind::Add => add(a, b),
            BinOpKind::Sub => add(a, scale(b, -1)?),
            BinOpKind::Mul if b.is_constant() && b.lo == b.hi => scale(a, b.lo),
            BinOpKind::Mul if a.is_constant() && a.lo == a.hi => scale(b, a.lo),
            BinOpKind::Shl if b.is_constant() && b.lo == b.hi && (0..32).contains(&b.lo) => {
                scale(a, 1 << b.lo)
            }
            // Division by a constant is exact on a form whose every part it divides
            // (`index * STRIDE / 4`, `RING_OFFSET / 4`); anything else rounds.
            BinOpKind::Div if b.is_constant() && b.lo == b.hi && b.lo > 0 => divide_exactly(a, b.lo),
            BinOpKind::Shr if b.is_constant() && b.lo == b.hi && (0..32).contains(&b.lo) => {
                divide_exactly(a, 1 << b.lo)
            }
            BinOpKind::BitAnd => {
                masked_index(a, b, |state| self.stages(state)).or_else(|| self.rounded_up_window(value, a, b))
            }
            _ => None,
        }
    }

    /// `(window + A - 1) & !(A - 1)` (`a & mask`, `value` the result): the window rounded up to
    /// `A`, a power of two above the window's own 16-byte alignment. It lies `δ` bytes above the
    /// window, `0 ≤ δ ≤ A - 16`, the same `δ` for every form built on it.
    fn rounded_up_window(&self, value: Value, a: Affine, mask: Affine) -> Option<Affine> {
        let width = int_width(self.ctx, value.get_type(self.ctx))?;
        let mask = Some(mask.lo).filter(|lo| mask.is_constant() && mask.lo == mask.hi && *lo >= 0)?;
        let alignment = wrap_to(width, !mask).checked_add(1)?;
        let rounds_up = alignment.count_ones() == 1
            && alignment > WINDOW_ALIGN
            && a == Affine { lo: alignment - 1, hi: alignment - 1, ..Affine::window(1) };
        rounds_up.then_some(Affine::window(alignment))
    }

    /// The form of `value` where the layout is judged: a form on the window rounded otherwise
    /// than the scope's layout (`rounding`) is not comparable with it and is not read.
    fn place(&self, value: Value) -> Option<Affine> {
        self.eval(value, DEPTH).filter(|form| self.comparable(form))
    }

    /// Whether `form` is read on the scope's window (or on none).
    fn comparable(&self, form: &Affine) -> bool {
        form.window == 0 || Some(form.rounding) == self.rounding.get()
    }
}

impl Evaluator<'_, '_> {
    /// What every return of the helper `call` calls returns at `result`'s position.
    fn returned(&self, call: Ptr<Operation>, result: Value) -> Option<Vec<Value>> {
        returned_at(self.ctx, self.index, self.returns, call, result)
    }

    /// The form of field `path` of what a load from `address` reads: the stores to that field,
    /// and fields of the whole aggregates stored around it.
    fn load_form(&self, address: Value, path: &[u32], depth: u32) -> Option<Affine> {
        let reads = self.locals.reads(self.ctx, address, path, None)?;
        agreed(reads.into_iter().map(|(value, inside)| self.field_form(value, &inside, depth)))
    }

    /// The form of `load`, a read through `address` that is no local's: every value the walk
    /// through memory finds stored where `address` points (a closure's captured `&window`, a
    /// reference handed down), when they all have one form.
    fn pointee_form(&self, load: Value, address: Value, depth: u32) -> Option<Affine> {
        let stored = self.walk().stored_through_memory(self.ctx, address, load.get_type(self.ctx))?;
        self.same_form(stored, depth)
    }

    /// The walk back from a pointer to its stage, over this evaluator's facts and stores.
    fn walk(&self) -> StageWalk<'_> {
        StageWalk { facts: self.facts, locals: self.locals, index: self.index, returns: self.returns }
    }

    /// The form of field `path` inside the aggregate `value` (`value` itself for an empty path):
    /// an aggregate read from a local, or returned by a helper (a tuple `(window, ring)`).
    fn field_form(&self, value: Value, path: &[u32], depth: u32) -> Option<Affine> {
        if path.is_empty() {
            return self.eval(value, depth);
        }
        if depth == 0 {
            return None;
        }
        // A struct handed to a helper by value (`consume(pipe, l_ring, …)`): the field of what
        // its call passes.
        let Some(def) = value.defining_op() else { return self.parameter(value, path, depth) };
        if Operation::get_op::<LoadOp>(def, self.ctx).is_some() {
            return self.load_form(def.deref(self.ctx).get_operand(0), path, depth - 1);
        }
        if Operation::get_op::<CallOp>(def, self.ctx).is_some() {
            return self.called_form(def, value, path, depth - 1);
        }
        None
    }

    /// The form of the stage an access at `address` starts from: the outermost pointer on the
    /// way from `address` down to `stage` (the stage pointer the access walk found) whose form
    /// is a constant plus a multiple of a stage index, so that offsets applied to the stage
    /// pointer before the access's own (`end - TILE`, from the stage's end) are counted.
    fn stage_form(&self, address: Value, stage: Value) -> Option<Affine> {
        let mut at = address;
        for _ in 0..DEPTH {
            if let Some(form) = self.place(at)
                && form.window == 1
                && form.index.is_some()
            {
                return Some(form);
            }
            if at == stage {
                return None;
            }
            let def = at.defining_op()?;
            let follows = Operation::get_op::<IndexAddrOp>(def, self.ctx).is_some()
                || Operation::get_op::<AddrSpaceCastOp>(def, self.ctx).is_some()
                || Operation::get_op::<CastOp>(def, self.ctx)
                    .is_some_and(|cast| cast.kind(self.ctx) == Some(CastKind::PtrToPtr));
            if !follows {
                break;
            }
            at = def.deref(self.ctx).get_operand(0);
        }
        self.place(stage)
    }

    /// The one form all `values` have, if they agree (and there is at least one).
    fn same_form(&self, values: Vec<Value>, depth: u32) -> Option<Affine> {
        agreed(values.into_iter().map(|value| self.eval(value, depth)))
    }

    /// A parameter of a function of the scope (an argument of its entry block): the form every
    /// call of the function passes for it, when all agree (a helper handed the window address
    /// and an offset). A kernel parameter, or arguments that differ, have no form.
    /// `path` names a field of the parameter, if it is an aggregate (empty: the parameter).
    fn parameter(&self, value: Value, path: &[u32], depth: u32) -> Option<Affine> {
        if depth == 0 {
            return None;
        }
        let from_call = self.frames.borrow().last().and_then(|call| call.argument_for(value));
        if let Some(argument) = from_call {
            // The argument is read in the caller's frame.
            let frame = self.frames.borrow_mut().pop();
            let found = self.field_form(argument, path, depth - 1);
            self.frames.borrow_mut().extend(frame);
            return found;
        }
        let arguments = self.index.call_arguments(self.ctx, value)?;
        agreed(arguments.into_iter().map(|argument| self.field_form(argument, path, depth - 1)))
    }

    /// What the helper `call` calls returns at `result` (field `path` of it; empty: the whole),
    /// read in a frame binding its parameters to this call's arguments: a helper called with
    /// different arguments (`local_buffer(0).addr`, `local_buffer(1024).ptr`) returns a
    /// different value at each call.
    fn called_form(&self, call: Ptr<Operation>, result: Value, path: &[u32], depth: u32) -> Option<Affine> {
        let returned = self.returned(call, result)?;
        let Some(binding) = self.index.call_binding(self.ctx, call) else {
            return agreed(returned.into_iter().map(|returned| self.field_form(returned, path, depth)));
        };
        self.frames.borrow_mut().push(binding);
        let found = agreed(returned.into_iter().map(|returned| self.field_form(returned, path, depth)));
        self.frames.borrow_mut().pop();
        found
    }
}

/// The size in bytes of what a pointer of type `ty` points to, where the IR knows it (integers,
/// floats, and aggregates the import gave a size).
/// Whether `def` is a `mir.field_addr` whose field is as large as its whole struct (a newtype
/// over a stage's array, `(*slot).0[i]`): such a field can only start at the struct's first byte,
/// so its address is the struct's. Any other field starts where the compiler lays it out, which
/// the import does not read. The layout rule and the race check both place fields by this.
pub(crate) fn field_at_struct_start(ctx: &Context, def: Ptr<Operation>) -> bool {
    if Operation::get_op::<FieldAddrOp>(def, ctx).is_none() {
        return false;
    }
    let operation = def.deref(ctx);
    let whole = pointee_bytes(ctx, operation.get_operand(0).get_type(ctx));
    whole.is_some() && whole == pointee_bytes(ctx, operation.get_result(0).get_type(ctx))
}

pub(crate) fn pointee_bytes(ctx: &Context, ty: TypeHandle) -> Option<i64> {
    let pointee = pointer_type_of(ctx, ty)?.pointee();
    let pointee = pointee.deref(ctx);
    if let Some(int) = pointee.downcast_ref::<IntegerType>() {
        return (int.width() % 8 == 0).then(|| i64::from(int.width() / 8));
    }
    if pointee.is::<FP32Type>() {
        Some(4)
    } else if pointee.is::<FP16Type>() {
        Some(2)
    } else if pointee.is::<FP64Type>() {
        Some(8)
    } else {
        pointee.downcast_ref::<AdtType>().and_then(AdtType::bytes).and_then(|bytes| i64::try_from(bytes).ok())
    }
}

/// One byte range `[lo, hi)` of the shared window some operation occupies.
#[derive(Clone, Copy)]
struct Extent {
    op: Ptr<Operation>,
    lo: i64,
    hi: i64,
}

fn overlaps(a: &Extent, b: &Extent) -> bool {
    a.lo < b.hi && b.lo < a.hi
}

/// The window bytes a pipeline scope's layout occupies (its rings and barrier areas, each
/// widened by the window's rounding slack), where its ordinary shared memory must not reach;
/// `None` where part of the layout is not placed, or a stage table of its own lies beside it.
pub(crate) type Occupied = Option<Vec<(i64, i64)>>;

/// The rule; returns the gaps (addresses it could not place) and what the layout occupies.
/// `returns` holds each function's `mir.return` operations (numbers).
pub(crate) fn check_layout(
    reporter: &mut Reporter,
    facts: &dyn FactStore,
    locals: &LocalStores,
    returns: &[Vec<usize>],
    thread_model: &SharedThreadModel,
    copy_passes: &FxHashMap<usize, i64>,
) -> (Vec<Gap>, Occupied) {
    let ctx = reporter.ctx;
    let index = reporter.index;
    let copies: Vec<Ptr<Operation>> = index
        .ops_of_class(OpClass::Semantic)
        .map(|(_, op)| op)
        .filter(|op| Operation::get_op::<BulkCopyOp>(*op, ctx).is_some())
        .collect();
    let barrier_setups: Vec<(Ptr<Operation>, bool)> = index
        .ops_of_class(OpClass::Call)
        .filter_map(|(_, op)| {
            if is_pipeline_init(ctx, op) {
                Some((op, true))
            } else if calls_pipeline_method(ctx, op, "attach") {
                Some((op, false))
            } else {
                None
            }
        })
        .collect();
    let multiplies = wgmma_reads::multiplies(ctx, index);
    if copies.is_empty() && barrier_setups.is_empty() && multiplies.is_empty() {
        return (Vec::new(), None);
    }
    let evaluator = Evaluator {
        ctx,
        index,
        facts,
        locals,
        returns,
        intervals: false,
        thread_model,
        access_block: Cell::new(None),
        rounding: Cell::new(None),
        intervals_read: Rc::default(),
        frames: RefCell::default(),
    };
    // The barriers' and the copies' addresses, read once: the window the layout is read on is
    // the one they name.
    let address_form = |op: &Ptr<Operation>| evaluator.eval(op.deref(ctx).get_operand(0), DEPTH);
    let setup_forms: Vec<Option<Affine>> = barrier_setups.iter().map(|(op, _)| address_form(op)).collect();
    let destination_forms: Vec<Option<Affine>> = copies.iter().map(address_form).collect();
    let mut roundings: Vec<i64> = setup_forms
        .iter()
        .chain(&destination_forms)
        .flatten()
        .filter(|form| form.window == 1)
        .map(|form| form.rounding)
        .collect();
    roundings.sort_unstable();
    roundings.dedup();
    evaluator.rounding.set(Some(match roundings[..] {
        [one] => one,
        [] => 1,
        _ => 0,
    }));
    let stages = index
        .ops
        .iter()
        .filter_map(|op| Operation::get_op::<StateNewOp>(*op, ctx).and_then(|new| new.stages(ctx)))
        .max()
        .unwrap_or(1) as i64;
    let mut gaps = Vec::new();
    let mut unplaced = |op: Ptr<Operation>, what: &str| {
        let message = format!(
            "the shared-memory layout: {what} is not a constant offset from the dynamic shared window"
        );
        gaps.push(Gap::at(ctx, index, op, GapKind::Undecided, message))
    };
    // Barrier areas.
    let mut inits: Vec<Extent> = Vec::new();
    let mut attaches: Vec<Extent> = Vec::new();
    for ((op, is_init), form) in barrier_setups.into_iter().zip(setup_forms) {
        match form.filter(|form| evaluator.comparable(form)) {
            Some(form) if form.window == 1 && form.index.is_none() && form.lo == form.hi => {
                if form.lo % MBARRIER_ALIGN != 0 {
                    reporter.reject(
                        Rule::SharedLayout,
                        op,
                        format!(
                            "this pipeline's barriers start at window byte {}, which is not a multiple of \
                             {MBARRIER_ALIGN}: an mbarrier is an 8-byte object that must be 8-byte aligned (a \
                             misaligned one faults)",
                            form.lo
                        ),
                        vec![],
                    );
                }
                // The setup's own stage count where its callee names it; the scope's largest
                // otherwise (an area read too large can only add overlaps).
                let own = barrier_setups::setup_stages(ctx, op).unwrap_or(stages);
                let extent = Extent { op, lo: form.lo, hi: form.lo + BARRIER_BYTES_PER_STAGE * own };
                if is_init { inits.push(extent) } else { attaches.push(extent) }
            }
            _ => unplaced(op, "the address of a pipeline's barriers"),
        }
    }
    copy_sources::check_copy_sources(reporter, &evaluator, &copies);
    // Copies, grouped by the state whose stage they fill.
    let mut rings: Vec<(Extent, Option<(StateId, i64)>)> = Vec::new();
    for (op, destination) in copies.into_iter().zip(destination_forms) {
        let bytes = evaluator.place(op.deref(ctx).get_operand(2)).filter(Affine::is_constant);
        match (destination.filter(|form| evaluator.comparable(form)), bytes) {
            (Some(form), Some(bytes)) if form.window == 1 => {
                let stride = form.index.map_or(0, |(_, stride)| stride);
                // The typestate counted every pass of a copy loop; one destination for all of
                // them fills the same bytes again and leaves the rest of the stage unfilled.
                if let Some(passes) = index.op_number.get(&op).and_then(|n| copy_passes.get(n))
                    && *passes > 1
                    && form.lo == form.hi
                {
                    reporter.reject(
                        Rule::SharedLayout,
                        op,
                        format!(
                            "this bulk copy runs {passes} times from a counted loop, every time into window byte {} \
                             + {stride}·index: the copies overwrite each other's bytes, and the rest of what the \
                             stage's `expect_tx` announced is never delivered where it is read",
                            form.lo
                        ),
                        vec![],
                    );
                }
                let aligned = [form.lo, form.hi, stride, bytes.lo].iter().all(|v| v % BULK_COPY_ALIGN == 0);
                if !aligned {
                    reporter.reject(
                        Rule::SharedLayout,
                        op,
                        format!(
                            "this bulk copy writes window bytes {}..{} + {stride}·index, {} bytes: a bulk copy's \
                             shared address and size must be multiples of {BULK_COPY_ALIGN} (a misaligned copy \
                             faults)",
                            form.lo,
                            form.hi,
                            bytes.lo
                        ),
                        vec![],
                    );
                }
                let extent = Extent { op, lo: form.lo, hi: form.hi + bytes.hi };
                rings.push((extent, form.index));
            }
            _ => unplaced(op, "a bulk copy's destination or byte count"),
        }
    }
    let whole_ring = |extent: &Extent, index: Option<(StateId, i64)>| -> Extent {
        match index {
            Some((state, stride)) => {
                let stages = evaluator.stages(state).unwrap_or(1);
                let span = stride.abs() * (stages - 1);
                Extent {
                    op: extent.op,
                    lo: extent.lo.min(extent.lo + stride * (stages - 1)),
                    hi: extent.hi + span,
                }
            }
            None => *extent,
        }
    };
    for (copy, copy_index) in &rings {
        let ring = whole_ring(copy, *copy_index);
        for barriers in inits.iter().chain(&attaches) {
            if overlaps(&ring, barriers) {
                reporter.reject(
                    Rule::SharedLayout,
                    copy.op,
                    format!(
                        "this bulk copy's ring (window bytes {}..{}) overlaps a pipeline's barriers (bytes {}..{}): \
                         a copy landing on an mbarrier corrupts its phase",
                        ring.lo, ring.hi, barriers.lo, barriers.hi
                    ),
                    vec![reporter.related("the barriers are set up here", barriers.op)],
                );
            }
        }
        // A stage holds the copies of one index: each part of it must fit in one stride, and no
        // part of one stage may reach into another stage's parts.
        if let Some((state, stride)) = copy_index
            && let Some(why) =
                spilled_stage(&stage_parts(&rings, *state), copy, *stride, evaluator.stages(*state))
        {
            reporter.reject(Rule::SharedLayout, copy.op, why, vec![]);
        }
    }
    // Rings of different states (pipelines) apart.
    for (i, (a, a_index)) in rings.iter().enumerate() {
        for (b, b_index) in rings.iter().skip(i + 1) {
            let (Some((s, _)), Some((t, _))) = (a_index, b_index) else { continue };
            // Only producer states copy, and a pipeline has one producer state: two copying
            // states are two pipelines.
            if s == t {
                continue;
            }
            if overlaps(&whole_ring(a, *a_index), &whole_ring(b, *b_index)) {
                reporter.reject(
                    Rule::SharedLayout,
                    b.op,
                    "two producer states copy into overlapping rings: one pipeline's copies overwrite the other's \
                     stages"
                        .to_string(),
                    vec![reporter.related("the other ring is written here", a.op)],
                );
            }
        }
    }
    // Barriers of two inits apart; an attach names an init's barriers.
    for (i, a) in inits.iter().enumerate() {
        for b in inits.iter().skip(i + 1) {
            if overlaps(a, b) {
                reporter.reject(
                    Rule::SharedLayout,
                    b.op,
                    format!(
                        "this init sets up barriers at bytes {}..{}, overlapping those of another init (bytes {}..{}): \
                         one pipeline resets the other's barriers",
                        b.lo, b.hi, a.lo, a.hi
                    ),
                    vec![reporter.related("the other init", a.op)],
                );
            }
        }
    }
    let occupied: Vec<Extent> = rings
        .iter()
        .map(|(extent, ring_index)| whole_ring(extent, *ring_index))
        .chain(inits.iter().chain(&attaches).copied())
        .collect();
    // The same evaluator reading a thread's own terms and loop counters as intervals.
    let intervals = Evaluator { intervals: true, ..evaluator.clone() };
    let placed = gaps.is_empty() && evaluator.rounding.get() != Some(0);
    let mut own_tables = false;
    stage_accesses::check_stage_accesses(
        reporter,
        (&evaluator, &intervals),
        &rings,
        &occupied,
        &mut gaps,
        &mut own_tables,
    );
    wgmma_reads::check_wgmma_reads(&intervals, &rings, &multiplies, &mut gaps);
    let declared = declared_constant(ctx, index, SHARED_BYTES_SYMBOL);
    if declared.is_none()
        && let Some(last) = occupied.iter().max_by_key(|extent| extent.hi)
    {
        // Without the launch's size the layout's upper end is only the launcher's promise:
        // barriers past the window fault, or corrupt what lies beyond, and nothing here says so.
        gaps.push(Gap::at(
            ctx,
            index,
            last.op,
            GapKind::Undecided,
            format!(
                "the end of the shared-memory layout: it uses window bytes up to {}, and the kernel does not \
                 declare the dynamic shared memory its launch provides (declare \
                 `device::launch::dynamic_shared_bytes(N)`)",
                last.hi
            ),
        ));
    }
    // A rounded window lies up to its rounding less 16 bytes above the window itself.
    let slack = evaluator.rounding.get().map_or(0, |rounding| (rounding - WINDOW_ALIGN).max(0));
    if let Some(window) = declared {
        for extent in &occupied {
            if extent.lo < 0 || extent.hi + slack > window {
                reporter.reject(
                    Rule::SharedLayout,
                    extent.op,
                    format!(
                        "this uses window bytes {}..{}, but the kernel declares {window} bytes of dynamic shared \
                         memory (`dynamic_shared_bytes`): past the end of the window (fault)",
                        extent.lo, extent.hi
                    ),
                    vec![],
                );
            }
        }
    }
    barrier_setups::check_attaches(reporter, &inits, &attaches);
    let beside = (placed && !own_tables)
        .then(|| occupied.iter().map(|extent| (extent.lo, extent.hi + slack)).collect());
    (gaps, beside)
}

/// The symbol of the launch contract's shared-memory declaration.
pub(crate) const SHARED_BYTES_SYMBOL: &str = "device__launch__dynamic_shared_bytes";
