//! Scopes: a kernel and every function of the module it reaches through `mir.call`.
//!
//! A callee that the module does not define (a helper whose body the importer did not see) is
//! not part of any scope; calls to it are still checked at the call site.

use rustc_hash::{FxHashMap, FxHashSet};

use pliron::{
    builtin::{
        op_interfaces::{OneRegionInterface, SymbolOpInterface},
        ops::{FuncOp, ModuleOp},
    },
    context::{Context, Ptr},
    identifier::Identifier,
    linked_list::ContainsLinkedList,
    op::op_cast,
    operation::Operation,
};

use crate::ir::mir::{KERNEL_ATTR, control::CallOp};

/// A kernel and the functions it reaches, kernel first, then in the order calls reach them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scope {
    /// The kernel's `builtin.func`.
    pub kernel: Ptr<Operation>,
    /// The kernel and every function it reaches (each once), kernel first.
    pub functions: Vec<Ptr<Operation>>,
}

impl Scope {
    /// The kernel's symbol name.
    pub fn kernel_name(&self, ctx: &Context) -> String {
        function_name(ctx, self.kernel)
    }
}

/// The symbol name of a `builtin.func` (empty for anything else).
pub fn function_name(ctx: &Context, func: Ptr<Operation>) -> String {
    let op = Operation::get_op_dyn(func, ctx);
    op_cast::<dyn SymbolOpInterface>(&*op)
        .map(|symbol| symbol.get_symbol_name(ctx).to_string())
        .unwrap_or_default()
}

/// Every `builtin.func` directly inside `module`, by name.
pub fn functions_by_name(ctx: &Context, module: Ptr<Operation>) -> FxHashMap<Identifier, Ptr<Operation>> {
    let mut functions = FxHashMap::default();
    let Some(module) = Operation::get_op::<ModuleOp>(module, ctx) else {
        return functions;
    };
    let Some(body) = module.get_region(ctx).deref(ctx).get_head() else {
        return functions;
    };
    for op in body.deref(ctx).iter(ctx) {
        if let Some(func) = Operation::get_op::<FuncOp>(op, ctx) {
            functions.insert(func.get_symbol_name(ctx), op);
        }
    }
    functions
}

/// Whether `func` is marked as a kernel entry.
pub fn is_kernel(ctx: &Context, func: Ptr<Operation>) -> bool {
    let key: Identifier = KERNEL_ATTR.try_into().expect("KERNEL_ATTR is an identifier");
    func.deref(ctx).attributes.0.contains_key(&key)
}

/// Every operation of a function, block by block, in order.
pub fn operations_of(ctx: &Context, func: Ptr<Operation>) -> Vec<Ptr<Operation>> {
    let mut ops = Vec::new();
    let Some(func) = Operation::get_op::<FuncOp>(func, ctx) else {
        return ops;
    };
    for block in func.get_region(ctx).deref(ctx).iter(ctx) {
        ops.extend(block.deref(ctx).iter(ctx));
    }
    ops
}

/// The scopes of a module: one per kernel, in the module's order.
pub fn scopes_of_module(ctx: &Context, module: Ptr<Operation>) -> Vec<Scope> {
    let functions = functions_by_name(ctx, module);
    let mut kernels = Vec::new();
    if let Some(module_op) = Operation::get_op::<ModuleOp>(module, ctx)
        && let Some(body) = module_op.get_region(ctx).deref(ctx).get_head()
    {
        for op in body.deref(ctx).iter(ctx) {
            if Operation::get_op::<FuncOp>(op, ctx).is_some() && is_kernel(ctx, op) {
                kernels.push(op);
            }
        }
    }
    kernels.into_iter().map(|kernel| scope_of(ctx, kernel, &functions)).collect()
}

/// The scope rooted at `kernel`, with callees resolved through `functions`.
pub fn scope_of(
    ctx: &Context,
    kernel: Ptr<Operation>,
    functions: &FxHashMap<Identifier, Ptr<Operation>>,
) -> Scope {
    let mut seen = FxHashSet::from_iter([kernel]);
    let mut order = vec![kernel];
    let mut next = 0;
    while next < order.len() {
        let func = order[next];
        next += 1;
        for op in operations_of(ctx, func) {
            let Some(call) = Operation::get_op::<CallOp>(op, ctx) else {
                continue;
            };
            if let Some(callee) = call.callee(ctx).and_then(|name| functions.get(&name))
                && seen.insert(*callee)
            {
                order.push(*callee);
            }
        }
    }
    Scope { kernel, functions: order }
}
