//! The values stored into each local (`mir.alloca`) of a scope and into each part of one (a
//! struct or tuple field, an array element at a constant index: both `mir.field_addr`), gathered
//! in one pass: a stage pointer, a slice or a loop bound kept in a local or a field is followed
//! through it.
//!
//! A local whose address leaves the local's own loads and stores (handed to a call, stored into
//! memory, captured by reference) may also be written through that copy of its address. Such a
//! local is *escaped*; a store whose address the pass cannot trace to a local, a kernel
//! parameter (global memory) or the dynamic shared base is *unresolved*, and may write any
//! escaped local. A read of an escaped local at a type some unresolved store writes (or after an
//! unresolved store of an aggregate) is not answered, nor is any read of a local written at a
//! position the pass cannot name (an element at a runtime index), handed to a function outside
//! the scope, or captured by an operation the import left opaque. The types are the IR's: a
//! store of an `f32` is taken not to write a local's `*const u16` (Rust code that puns one type
//! through a pointer to another is outside the model).

use rustc_hash::{FxHashMap, FxHashSet};

use pliron::{
    context::{Context, Ptr},
    operation::Operation,
    r#type::{TypeHandle, Typed},
    value::{DefiningEntity, Value},
};

use super::{
    index::{OpClass, ScopeIndex},
    rules::PipelineKind,
};
use crate::ir::{
    mir::{
        arith::{AddrSpaceCastOp, CastKind, CastOp},
        control::CallOp,
        may_carry_address,
        memory::{AllocaOp, FieldAddrOp, IndexAddrOp, LoadOp, StoreOp},
        opaque::OpaqueOp,
        pointer_type_of,
    },
    semantic::memory::DynamicSharedBaseOp,
    types::AdtType,
};

/// Parts of one local's address one walk follows (fields and constant indices).
const MAX_PATH: usize = 8;

/// The stores into the scope's locals (module doc).
pub(crate) struct LocalStores {
    by_local: FxHashMap<Value, Vec<PartStores>>,
    /// Locals whose address leaves their own loads and stores.
    escaped: FxHashSet<Value>,
    /// Locals written where the pass cannot tell which part (or by code it cannot see).
    clobbered: FxHashSet<Value>,
    /// The clobbered locals written by something other than a call outside the scope (a store
    /// at a part the pass cannot name, an operation the import left opaque): what such a write
    /// stores is not seen anywhere, whereas a call outside the scope is judged by the arguments
    /// it is handed.
    written_unseen: FxHashSet<Value>,
    /// The types unresolved stores write.
    unresolved_types: FxHashSet<TypeHandle>,
    /// Whether an unresolved store writes an aggregate (whose parts' types the IR does not
    /// name).
    unresolved_aggregate: bool,
    /// Copies of a local's address (or a part's) that a walk up the address's definitions does
    /// not reach the local from: a reference kept in a local stored once (`let r = &cx;`), and
    /// a helper's pointer parameter every call binds to the same place (`fn f(cx: &Ctx)`).
    aliases: FxHashMap<Value, (Value, Vec<u32>)>,
}

/// The values stored into one part of a local (the empty path: the whole local). A local has
/// few such parts, so a lookup reads its own stores, not the scope's.
struct PartStores {
    path: Vec<u32>,
    values: Vec<Value>,
    /// The block (number) of each store, beside `values`.
    blocks: Vec<usize>,
}

impl LocalStores {
    /// Whether a store this table records runs in a block that `among` admits.
    pub(crate) fn stores_in(&self, among: impl Fn(usize) -> bool) -> bool {
        self.by_local.values().flatten().flat_map(|part| &part.blocks).any(|b| among(*b))
    }

    /// Whether every write of `local` is a store this table records: its address never
    /// leaves its own loads and stores, and no store the pass cannot place may reach it.
    pub(crate) fn only_written_by_stores(&self, local: Value) -> bool {
        !self.escaped.contains(&local) && !self.clobbered.contains(&local)
    }

    pub(crate) fn of(ctx: &Context, index: &ScopeIndex) -> LocalStores {
        let mut stores = LocalStores {
            by_local: FxHashMap::default(),
            escaped: FxHashSet::default(),
            clobbered: FxHashSet::default(),
            written_unseen: FxHashSet::default(),
            unresolved_types: FxHashSet::default(),
            unresolved_aggregate: false,
            aliases: FxHashMap::default(),
        };
        // Stores whose address reaches no local by its own definitions: kept until the aliases
        // are known, since a store through a reference parameter writes the caller's local.
        let mut unresolved: Vec<(Value, Value, usize)> = Vec::new();
        for (n, op) in index.ops_where(|class| matches!(class, OpClass::Alloca | OpClass::Store)) {
            if Operation::get_op::<AllocaOp>(op, ctx).is_some() {
                let local = op.deref(ctx).get_result(0);
                stores.follow_address_uses(ctx, index, local, local, 0);
                continue;
            }
            if Operation::get_op::<StoreOp>(op, ctx).is_none() {
                continue;
            }
            let (value, address) = {
                let operation = op.deref(ctx);
                (operation.get_operand(0), operation.get_operand(1))
            };
            let block = index.op_block[n];
            match stores.slot(ctx, address) {
                Some((local, path)) => stores.record(local, path, value, block),
                None => match address_root(ctx, index, address) {
                    Root::Local(local) => {
                        stores.clobbered.insert(local);
                        stores.written_unseen.insert(local);
                    }
                    Root::Outside => {}
                    Root::Unknown => {
                        stores.note_unresolved(ctx, value);
                        unresolved.push((value, address, block));
                    }
                },
            }
        }
        stores.find_aliases(ctx, index);
        if !stores.aliases.is_empty() {
            // The aliases were found while every unresolved store was taken to write anything;
            // the ones they now place write only their local.
            stores.unresolved_types.clear();
            stores.unresolved_aggregate = false;
            for (value, address, block) in unresolved {
                match stores.slot(ctx, address) {
                    Some((local, path)) => stores.record(local, path, value, block),
                    None => stores.note_unresolved(ctx, value),
                }
            }
        }
        stores
    }

    fn record(&mut self, local: Value, path: Vec<u32>, value: Value, block: usize) {
        let parts = self.by_local.entry(local).or_default();
        match parts.iter_mut().find(|part| part.path == path) {
            Some(part) => {
                part.values.push(value);
                part.blocks.push(block);
            }
            None => parts.push(PartStores { path, values: vec![value], blocks: vec![block] }),
        }
    }

    fn note_unresolved(&mut self, ctx: &Context, value: Value) {
        let ty = value.get_type(ctx);
        if is_aggregate(ctx, ty) {
            self.unresolved_aggregate = true;
        }
        self.unresolved_types.insert(ty);
    }

    /// Finds the aliases (the field's doc): every pointer a load reads or a helper's parameter
    /// holds that resolves to one place. A copy found is a use of the local's address like any
    /// other (handed to a call, stored away), which may mark the local escaped or clobbered and
    /// so undo an alias through it: repeated until no alias is lost.
    fn find_aliases(&mut self, ctx: &Context, index: &ScopeIndex) {
        let mut candidates: Vec<Value> = index
            .ops_of_class(OpClass::Load)
            .map(|(_, op)| op.deref(ctx).get_result(0))
            .filter(|value| pointer_type_of(ctx, value.get_type(ctx)).is_some())
            .collect();
        for f in 1..index.functions.len() {
            let Some(entry) = index.entry_block(f) else { continue };
            candidates.extend(
                index.blocks[entry]
                    .deref(ctx)
                    .arguments()
                    .filter(|value| pointer_type_of(ctx, value.get_type(ctx)).is_some()),
            );
        }
        loop {
            let mut resolved: FxHashMap<Value, Option<(Value, Vec<u32>)>> = FxHashMap::default();
            let found: Vec<(Value, (Value, Vec<u32>))> = candidates
                .iter()
                .filter_map(|value| {
                    Some((*value, self.resolve(ctx, index, *value, &mut resolved, MAX_PATH)?))
                })
                .collect();
            let (escaped, clobbered) = (self.escaped.len(), self.clobbered.len());
            for (copy, (local, _)) in &found {
                self.follow_address_uses(ctx, index, *local, *copy, 0);
            }
            let settled = self.escaped.len() == escaped && self.clobbered.len() == clobbered;
            self.aliases = found.into_iter().collect();
            if settled {
                return;
            }
        }
    }

    /// The place `value`, a pointer, points to (see [`LocalStores::aliases`]); `None` when it
    /// is not one place, or a store the pass cannot see may change the reference on the way.
    fn resolve(
        &self,
        ctx: &Context,
        index: &ScopeIndex,
        value: Value,
        resolved: &mut FxHashMap<Value, Option<(Value, Vec<u32>)>>,
        depth: usize,
    ) -> Option<(Value, Vec<u32>)> {
        if let Some(known) = resolved.get(&value) {
            return known.clone();
        }
        if depth == 0 {
            return None;
        }
        // A cycle of parameters (recursion) resolves to nothing.
        resolved.insert(value, None);
        let mut parts = Vec::new();
        let mut at = value;
        let found = loop {
            if parts.len() > MAX_PATH {
                break None;
            }
            let def = match at.defining_entity() {
                DefiningEntity::Op(def) => def,
                DefiningEntity::Block(_) => {
                    let Some(arguments) = index.call_arguments(ctx, at) else { break None };
                    let places: Option<Vec<_>> = arguments
                        .into_iter()
                        .map(|argument| self.resolve(ctx, index, argument, resolved, depth - 1))
                        .collect();
                    break places.and_then(|places| agreed_place(places, &parts));
                }
            };
            if Operation::get_op::<AllocaOp>(def, ctx).is_some() {
                break Some(with_parts((at, Vec::new()), &parts));
            }
            if let Some(field) = Operation::get_op::<FieldAddrOp>(def, ctx) {
                let Some(field) = field.field(ctx) else { break None };
                parts.push(field);
            } else if Operation::get_op::<LoadOp>(def, ctx).is_some() {
                // A reference kept in a local: the one value ever stored there.
                let address = def.deref(ctx).get_operand(0);
                let Some((local, path)) = self.resolve(ctx, index, address, resolved, depth - 1) else {
                    break None;
                };
                match self.stored_once(ctx, local, &path, at.get_type(ctx)) {
                    Some(stored) => {
                        let place = self.resolve(ctx, index, stored, resolved, depth - 1);
                        break place.map(|place| with_parts(place, &parts));
                    }
                    None => break None,
                }
            } else if !is_same_pointee_cast(ctx, def) {
                break None;
            }
            at = def.deref(ctx).get_operand(0);
        };
        resolved.insert(value, found.clone());
        found
    }

    /// The place whose value `place` holds a copy of: through places written once, as a whole,
    /// with a value loaded from another place (`let q = p;`, a struct moved into a method's
    /// by-value `self`), back to the first place that is not such a copy. Pipeline identity
    /// names a pipeline by this place, so that a moved `Producer { pipe, .. }` still names the
    /// pipeline its caller's `p.pipe` names.
    pub(crate) fn origin(
        &self,
        ctx: &Context,
        index: &ScopeIndex,
        place: (Value, Vec<u32>),
    ) -> (Value, Vec<u32>) {
        let mut at = place;
        for _ in 0..MAX_PATH {
            match self.copied_from(ctx, index, &at) {
                Some(source) if source != at => at = source,
                _ => break,
            }
        }
        at
    }

    /// The place `place`'s one store copied its value from, if that store wrote the place (or
    /// an aggregate around it) as a whole.
    fn copied_from(
        &self,
        ctx: &Context,
        index: &ScopeIndex,
        (local, path): &(Value, Vec<u32>),
    ) -> Option<(Value, Vec<u32>)> {
        let (value, _, inside) = self.only_store_over(ctx, *local, path, None)?;
        let (source, mut source_path) = self.copy_source(ctx, index, value, 0)?;
        source_path.extend_from_slice(&inside);
        Some((source, source_path))
    }

    /// The place a value is a copy of: a load from a place, or a helper's parameter every call
    /// passes a copy of the same place.
    fn copy_source(
        &self,
        ctx: &Context,
        index: &ScopeIndex,
        value: Value,
        depth: usize,
    ) -> Option<(Value, Vec<u32>)> {
        match value.defining_entity() {
            DefiningEntity::Op(def) => {
                Operation::get_op::<LoadOp>(def, ctx)?;
                self.slot(ctx, def.deref(ctx).get_operand(0))
            }
            DefiningEntity::Block(_) if depth < MAX_PATH => {
                let sources: Option<Vec<_>> = index
                    .call_arguments(ctx, value)?
                    .into_iter()
                    .map(|argument| self.copy_source(ctx, index, argument, depth + 1))
                    .collect();
                agreed_place(sources?, &[])
            }
            DefiningEntity::Block(_) => None,
        }
    }

    /// The one value place `path` of `local` ever holds, read at type `read`: the one store to
    /// exactly that place, or the capture at that position of the one closure (or array literal)
    /// stored whole around it (`|s| window + s.index() * SIZE` captures `&window`).
    fn stored_once(&self, ctx: &Context, local: Value, path: &[u32], read: TypeHandle) -> Option<Value> {
        // Only the count is asked here, so nothing is collected: a local stored in every block
        // is asked once per load of it.
        if let Some(([stored], _)) = self.stores_into_place(ctx, local, path, Some(read)) {
            return Some(*stored);
        }
        let (mut value, _, inside) = self.only_store_over(ctx, local, path, Some(read))?;
        for field in inside {
            value = captured(ctx, value, field)?;
        }
        Some(value)
    }

    /// The local and the path an address names: a chain of parts (`mir.field_addr`) and casts
    /// between pointers to one type, down to a local or to one of the aliases.
    pub(crate) fn slot(&self, ctx: &Context, address: Value) -> Option<(Value, Vec<u32>)> {
        let mut parts = Vec::new();
        let mut at = address;
        for _ in 0..MAX_PATH * 2 {
            if let Some(place) = self.aliases.get(&at) {
                return Some(with_parts(place.clone(), &parts)).filter(|(_, path)| path.len() <= MAX_PATH);
            }
            let def = at.defining_op()?;
            if Operation::get_op::<AllocaOp>(def, ctx).is_some() {
                return Some(with_parts((at, Vec::new()), &parts)).filter(|(_, path)| path.len() <= MAX_PATH);
            }
            if let Some(field) = Operation::get_op::<FieldAddrOp>(def, ctx) {
                parts.push(field.field(ctx)?);
            } else if !is_same_pointee_cast(ctx, def) {
                return None;
            }
            at = def.deref(ctx).get_operand(0);
        }
        None
    }

    /// Marks `local` escaped or clobbered by the uses of `address` (the local's address or one
    /// of its parts' addresses).
    fn follow_address_uses(
        &mut self,
        ctx: &Context,
        index: &ScopeIndex,
        local: Value,
        address: Value,
        depth: usize,
    ) {
        if depth > MAX_PATH {
            self.clobbered.insert(local);
            self.written_unseen.insert(local);
            return;
        }
        for address_use in address.uses(ctx) {
            let user = address_use.user_op();
            let is_address_operand = |position: usize| user.deref(ctx).get_operand(position) == address;
            // A pipeline operation only reads the `Pipeline` it is called on.
            if Operation::get_op::<LoadOp>(user, ctx).is_some() || PipelineKind::of(ctx, user).is_some() {
                continue;
            }
            if Operation::get_op::<StoreOp>(user, ctx).is_some() {
                if is_address_operand(1) && !is_address_operand(0) {
                    continue;
                }
                // The address itself is stored somewhere: written through that copy later.
                self.escaped.insert(local);
                continue;
            }
            if derives_address(ctx, user) && is_address_operand(0) {
                let result = user.deref(ctx).get_result(0);
                self.follow_address_uses(ctx, index, local, result, depth + 1);
                continue;
            }
            let scope_call = Operation::get_op::<CallOp>(user, ctx).is_some()
                && index.op_number.get(&user).is_some_and(|n| index.callee_of.contains_key(n));
            // A closure built with the address among its captures holds it like a stored copy.
            let captured = Operation::get_op::<OpaqueOp>(user, ctx)
                .is_some_and(|opaque| opaque.what(ctx).is_some_and(|what| what.starts_with("{closure@")));
            if scope_call || captured {
                // The callee's writes through it are unresolved stores of the scope.
                self.escaped.insert(local);
            } else {
                // A function outside the scope, or an operation the import left opaque.
                self.clobbered.insert(local);
                if Operation::get_op::<CallOp>(user, ctx).is_none() {
                    self.written_unseen.insert(local);
                }
            }
        }
    }

    /// Whether a read of `local` at type `read` (`None`: unknown) may see a write the pass did
    /// not record.
    fn unseen_writes(&self, ctx: &Context, local: Value, read: Option<TypeHandle>) -> bool {
        if self.clobbered.contains(&local) {
            return true;
        }
        if !self.escaped.contains(&local) {
            return false;
        }
        match read {
            Some(ty) => {
                self.unresolved_aggregate
                    || self.unresolved_types.contains(&ty)
                    || (is_aggregate(ctx, ty) && !self.unresolved_types.is_empty())
            }
            None => !self.unresolved_types.is_empty(),
        }
    }

    /// The type read at field `inside` below `address`, where the IR names it.
    fn read_type(ctx: &Context, address: Value, inside: &[u32]) -> Option<TypeHandle> {
        inside
            .is_empty()
            .then(|| pointer_type_of(ctx, address.get_type(ctx)).map(|ptr| ptr.pointee()))
            .flatten()
    }

    /// The values stored into part `path` of `local` (none if nothing was).
    fn at(&self, local: Value, path: &[u32]) -> &[Value] {
        self.by_local
            .get(&local)
            .and_then(|parts| parts.iter().find(|part| part.path == path))
            .map_or(&[], |part| part.values.as_slice())
    }

    /// The values a load from part `inside` below `address` (empty: the place itself) may read,
    /// each with the path still to take inside it: the stores to that place (path empty) and the
    /// stores of whole aggregates around it (the path from the aggregate down to the place).
    /// `None` when `address` is not a local's, or the local may be written unseen.
    ///
    /// `leaf` is the type of the value finally sought below the place (a pointer kept in a field
    /// of a closure's environment): an escaped local is answered when no unresolved store writes
    /// that type.
    pub(crate) fn reads(
        &self,
        ctx: &Context,
        address: Value,
        inside: &[u32],
        leaf: Option<TypeHandle>,
    ) -> Option<Vec<(Value, Vec<u32>)>> {
        let (local, mut path) = self.slot(ctx, address)?;
        if self.unseen_writes(ctx, local, Self::read_type(ctx, address, inside).or(leaf)) {
            return None;
        }
        path.extend_from_slice(inside);
        let mut found = Vec::new();
        for depth in 0..=path.len() {
            found.extend(self.at(local, &path[..depth]).iter().map(|value| (*value, path[depth..].to_vec())));
        }
        Some(found)
    }

    /// The values stored into exactly the place `address` names (a local or a part of one), each
    /// with the block of its store; `None` when the place is not a local's, when stores to an
    /// aggregate around it or to a part of it also write it, or when it may be written unseen.
    pub(crate) fn stores_into(&self, ctx: &Context, address: Value) -> Option<Vec<(Value, usize)>> {
        let (local, path) = self.slot(ctx, address)?;
        let (values, blocks) =
            self.stores_into_place(ctx, local, &path, Self::read_type(ctx, address, &[]))?;
        Some(values.iter().copied().zip(blocks.iter().copied()).collect())
    }

    /// [`LocalStores::stores_into`] for the place `path` of `local`, read at type `read`.
    fn stores_into_place(
        &self,
        ctx: &Context,
        local: Value,
        path: &[u32],
        read: Option<TypeHandle>,
    ) -> Option<(&[Value], &[usize])> {
        if self.unseen_writes(ctx, local, read) {
            return None;
        }
        let parts = self.by_local.get(&local)?;
        let overlapping = parts
            .iter()
            .any(|part| part.path != path && (part.path.starts_with(path) || path.starts_with(&part.path)));
        if overlapping {
            return None;
        }
        let part = parts.iter().find(|part| part.path == path)?;
        Some((&part.values, &part.blocks))
    }

    /// Whether something is stored into a part of part `inside` below `address` (a field of it,
    /// or a field of one of its fields): then the place's value is not any one store's.
    pub(crate) fn written_below(&self, ctx: &Context, address: Value, inside: &[u32]) -> bool {
        let Some((local, mut path)) = self.slot(ctx, address) else { return false };
        path.extend_from_slice(inside);
        self.by_local.get(&local).is_some_and(|parts| {
            parts.iter().any(|part| part.path.len() > path.len() && part.path.starts_with(&path))
        })
    }

    /// The one store over the memory `address` names (to it, to a part inside it or to an
    /// aggregate around it), with its block and the path from the stored value down to the
    /// place (empty when the store wrote the place itself): the local is written there and
    /// nowhere else. `None` when `address` is not a local's, it has several stores, a store
    /// inside the place, or may be written unseen.
    pub(crate) fn single_store_over(
        &self,
        ctx: &Context,
        address: Value,
    ) -> Option<(Value, usize, Vec<u32>)> {
        let (local, path) = self.slot(ctx, address)?;
        self.only_store_over(ctx, local, &path, Self::read_type(ctx, address, &[]))
    }

    /// [`LocalStores::single_store_over`] for the place `path` of `local`, read at type `read`
    /// (`None`: unknown).
    fn only_store_over(
        &self,
        ctx: &Context,
        local: Value,
        path: &[u32],
        read: Option<TypeHandle>,
    ) -> Option<(Value, usize, Vec<u32>)> {
        if self.unseen_writes(ctx, local, read) {
            return None;
        }
        let mut covering = self
            .by_local
            .get(&local)?
            .iter()
            .filter(|part| part.path.starts_with(path) || path.starts_with(&part.path));
        let part = covering.next()?;
        let ([value], [block], None) = (part.values.as_slice(), part.blocks.as_slice(), covering.next())
        else {
            return None;
        };
        Some((*value, *block, path.strip_prefix(part.path.as_slice())?.to_vec()))
    }

    /// The one value stored into exactly the place `address` names, if one store writes it
    /// ([`LocalStores::stores_into`], asked for its count only).
    pub(crate) fn only_store_into(&self, ctx: &Context, address: Value) -> Option<Value> {
        let (local, path) = self.slot(ctx, address)?;
        match self.stores_into_place(ctx, local, &path, Self::read_type(ctx, address, &[]))? {
            ([value], _) => Some(*value),
            _ => None,
        }
    }

    /// Every value stored over the memory `address` names, if it is a local or a part of one:
    /// stores to it, to parts inside it, and to the aggregates around it (which write it too).
    /// `None` when `address` is not a local's, or the local may be written unseen.
    pub(crate) fn stored_over(&self, ctx: &Context, address: Value) -> Option<Vec<Value>> {
        let (local, path) = self.slot(ctx, address)?;
        if self.unseen_writes(ctx, local, None) {
            return None;
        }
        Some(self.stored_over_part(local, &path))
    }

    /// The values of the stores to part `path` of `local`, to parts inside it and to the
    /// aggregates around it.
    fn stored_over_part(&self, local: Value, path: &[u32]) -> Vec<Value> {
        self.by_local
            .get(&local)
            .into_iter()
            .flatten()
            .filter(|part| part.path.starts_with(path) || path.starts_with(&part.path))
            .flat_map(|part| part.values.iter().copied())
            .collect()
    }

    /// Every value that may be in the memory `address` names, if it is a local or a part of
    /// one: what [`LocalStores::stored_over`] answers, except that a local handed to a call
    /// outside the scope is still answered. Such a call may write the local, but only what it
    /// was handed (the caller judges each such call by its arguments: `accounting::call_gaps`),
    /// so the values that may carry an address into it are still among these. `None` when
    /// `address` is not a local's, or something the pass cannot see may store into it.
    pub(crate) fn carried_in(&self, ctx: &Context, address: Value) -> Option<Vec<Value>> {
        let (local, path) = self.slot(ctx, address)?;
        // An escaped local may take any unresolved store; only one that may carry an address
        // can bring one in.
        let unseen_store = self.written_unseen.contains(&local)
            || (self.escaped.contains(&local)
                && (self.unresolved_aggregate
                    || self.unresolved_types.iter().any(|ty| may_carry_address(ctx, *ty))));
        if unseen_store {
            return None;
        }
        Some(self.stored_over_part(local, &path))
    }
}

/// Capture `field` of the closure (or element of the array literal) `aggregate` the import built
/// as an opaque operation over its captures (elements).
pub(crate) fn captured(ctx: &Context, aggregate: Value, field: u32) -> Option<Value> {
    let def = aggregate.defining_op()?;
    let opaque = Operation::get_op::<OpaqueOp>(def, ctx)?;
    let what = opaque.what(ctx)?;
    let operation = def.deref(ctx);
    let count = operation.get_num_operands();
    // `[x; N]` (one operand): every element is `x`.
    let repeat = what.starts_with('[') && what.contains("; ") && count == 1;
    // `read of _5` with operands: a struct the import built field by field, read whole.
    let built = what.starts_with("{closure@") || what.starts_with('[') || what.starts_with("read of ");
    if !built || count == 0 {
        return None;
    }
    operation.operands().nth(if repeat { 0 } else { field as usize })
}

/// `place` with `parts` (collected walking up from an address, the innermost first) below it.
fn with_parts((local, mut path): (Value, Vec<u32>), parts: &[u32]) -> (Value, Vec<u32>) {
    path.extend(parts.iter().rev());
    (local, path)
}

/// The one place every call's argument resolved to, with `parts` below it.
fn agreed_place(places: Vec<(Value, Vec<u32>)>, parts: &[u32]) -> Option<(Value, Vec<u32>)> {
    let mut places = places.into_iter();
    let first = places.next()?;
    places.all(|place| place == first).then(|| with_parts(first, parts))
}

/// Whether `op` casts a pointer to another pointer to the same type (a reference to a raw
/// pointer, `*mut` to `*const`), or a pointer to a pointer to another pointer to a pointer (a
/// captured `&smem` whose pointee the import typed shared on one side and generic on the other):
/// the parts below it are the same parts.
fn is_same_pointee_cast(ctx: &Context, op: Ptr<Operation>) -> bool {
    let is_pointer_cast =
        Operation::get_op::<CastOp>(op, ctx).is_some_and(|cast| cast.kind(ctx) == Some(CastKind::PtrToPtr));
    if !is_pointer_cast {
        return false;
    }
    let operation = op.deref(ctx);
    let pointee = |value: Value| pointer_type_of(ctx, value.get_type(ctx)).map(|ptr| ptr.pointee());
    let (from, to) = (pointee(operation.get_operand(0)), pointee(operation.get_result(0)));
    let is_pointer = |ty: Option<TypeHandle>| ty.is_some_and(|ty| pointer_type_of(ctx, ty).is_some());
    from.is_some() && (from == to || (is_pointer(from) && is_pointer(to)))
}

/// Whether `ty` is an aggregate the IR knows only by name.
fn is_aggregate(ctx: &Context, ty: TypeHandle) -> bool {
    ty.deref(ctx).is::<AdtType>()
}

/// Whether `op` computes an address from its first operand (a field, an element, a cast): what it
/// points into is what its operand points into.
fn derives_address(ctx: &Context, op: Ptr<Operation>) -> bool {
    Operation::get_op::<FieldAddrOp>(op, ctx).is_some()
        || Operation::get_op::<IndexAddrOp>(op, ctx).is_some()
        || Operation::get_op::<CastOp>(op, ctx).is_some()
        || Operation::get_op::<AddrSpaceCastOp>(op, ctx).is_some()
}

/// Where a store's address leads.
enum Root {
    /// Into this local, at a part the pass cannot name.
    Local(Value),
    /// Outside every local: a kernel parameter's memory (global, by the launch contract) or
    /// dynamic shared memory.
    Outside,
    /// Anywhere.
    Unknown,
}

fn address_root(ctx: &Context, index: &ScopeIndex, address: Value) -> Root {
    let mut at = address;
    for _ in 0..=MAX_PATH * 4 {
        match at.defining_entity() {
            DefiningEntity::Block(block) => {
                let kernel_entry = index.entry_block(0).map(|b| index.blocks[b]);
                return if kernel_entry == Some(block) { Root::Outside } else { Root::Unknown };
            }
            DefiningEntity::Op(def) => {
                if Operation::get_op::<AllocaOp>(def, ctx).is_some() {
                    return Root::Local(at);
                }
                if Operation::get_op::<DynamicSharedBaseOp>(def, ctx).is_some() {
                    return Root::Outside;
                }
                if !derives_address(ctx, def) {
                    return Root::Unknown;
                }
                at = def.deref(ctx).get_operand(0);
            }
        }
    }
    Root::Unknown
}

/// Whether `value` is the result of a `mir.load` from exactly `place` (a local or a part of one,
/// as [`local_slot`] names it).
pub(crate) fn loads_place(ctx: &Context, value: Value, place: &(Value, Vec<u32>)) -> bool {
    value.defining_op().is_some_and(|read| {
        Operation::get_op::<LoadOp>(read, ctx).is_some()
            && local_slot(ctx, read.deref(ctx).get_operand(0)).as_ref() == Some(place)
    })
}

/// The local (`mir.alloca`) and the path an address names, if it is one: a chain of at most
/// [`MAX_PATH`] `mir.field_addr` on the local (the import addresses an array's element at a
/// constant index as a part too; pointer arithmetic, `mir.index_addr`, names no part).
pub(crate) fn local_slot(ctx: &Context, address: Value) -> Option<(Value, Vec<u32>)> {
    let mut parts = Vec::new();
    let mut at = address;
    for _ in 0..MAX_PATH {
        let def = at.defining_op()?;
        if Operation::get_op::<AllocaOp>(def, ctx).is_some() {
            parts.reverse();
            return Some((at, parts));
        }
        parts.push(Operation::get_op::<FieldAddrOp>(def, ctx)?.field(ctx)?);
        at = def.deref(ctx).get_operand(0);
    }
    None
}
