//! A module with every entry and function body read, and its call graph.

use std::collections::{BTreeMap, HashMap};

use super::function::{Function, FunctionKind};
use super::{ItemKind, Module, PtxError};

/// Every entry and function of a module, read.
#[derive(Debug, Clone)]
pub struct Program {
    pub module: Module,
    /// Entries and functions with bodies, in module order (prototypes are left out).
    pub functions: Vec<Function>,
    by_name: HashMap<String, usize>,
}

impl Program {
    /// Reads `text`: the top level, then every body.
    pub fn read(text: &str) -> Result<Program, PtxError> {
        let module = Module::parse(text)?;
        let mut functions = Vec::new();
        for item in
            module.items.iter().filter(|item| matches!(item.kind, ItemKind::Entry | ItemKind::Function))
        {
            functions.push(module.function(item)?);
        }
        let by_name = functions.iter().enumerate().map(|(index, f)| (f.name.clone(), index)).collect();
        Ok(Program { module, functions, by_name })
    }

    /// The kernel entries, in module order.
    pub fn entries(&self) -> impl Iterator<Item = &Function> {
        self.functions.iter().filter(|f| f.kind == FunctionKind::Entry)
    }

    /// The entry or function with a body named `name`.
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.by_name.get(name).map(|&index| &self.functions[index])
    }

    /// Caller → callees (in order of first call), for every function with a body. A callee
    /// without a body here (an external function) is listed but has no entry of its own.
    pub fn call_graph(&self) -> BTreeMap<&str, Vec<&str>> {
        self.functions.iter().map(|f| (f.name.as_str(), f.callees())).collect()
    }

    /// `root` and every function with a body that it reaches, transitively, through calls or
    /// by naming it in an operand (a function pointer, `mov.u64 %rd1, f;`, called indirectly
    /// later): `root` first, then breadth-first in order of first mention, each once.
    pub fn reachable_from<'p>(&'p self, root: &'p Function) -> Vec<&'p Function> {
        let mut reached: Vec<&Function> = vec![root];
        let mut index = 0;
        while index < reached.len() {
            let mut mentioned: Vec<&str> = Vec::new();
            for instruction in reached[index].instructions() {
                for name in instruction.operands.iter().flat_map(|operand| operand.names()) {
                    if self.by_name.contains_key(name) && !mentioned.contains(&name) {
                        mentioned.push(name);
                    }
                }
            }
            index += 1;
            for callee in mentioned {
                if let Some(function) = self.function(callee)
                    && !reached.iter().any(|f| f.name == function.name)
                {
                    reached.push(function);
                }
            }
        }
        reached
    }
}
