//! One side of a matched entry: the entry, every function it reaches (by call or by naming it,
//! as a function pointer), the module items it names, and which register declaration each
//! register name in each statement means.

use std::collections::HashMap;

use crate::ptx::function::{Function, RegisterDecl, Statement};
use crate::ptx::program::Program;
use crate::ptx::{Item, ItemKind};

/// The entry and what it reaches.
pub(super) struct Side<'p> {
    /// The entry first, then the functions it reaches, breadth-first in order of first mention.
    pub functions: Vec<ScopedFunction<'p>>,
    /// Module variables and bodiless function declarations it names, text with layout
    /// collapsed (alignment, array shape and initialiser included).
    pub module_items: Vec<String>,
    /// Symbol → the state space it lives in (module variables and each function's variables).
    pub symbol_spaces: HashMap<String, String>,
    /// Names of the functions that have a body here.
    pub bodies: Vec<String>,
}

/// A function with each statement's register names resolved to their declarations.
pub(super) struct ScopedFunction<'p> {
    pub function: &'p Function,
    /// Per statement, name → (declaration index, the declaration) for every register name in it.
    pub registers: Vec<HashMap<String, (usize, RegisterDecl)>>,
}

impl<'p> Side<'p> {
    pub fn new(program: &'p Program, entry: &'p Function) -> Side<'p> {
        let item = program.module.entries().find(|item| item.name.as_deref() == Some(entry.name.as_str()));
        let functions: Vec<ScopedFunction> =
            program.reachable_from(entry).into_iter().map(ScopedFunction::new).collect();
        let bodies: Vec<String> = program.functions.iter().map(|f| f.name.clone()).collect();
        let reached: Vec<&Item> = item.map(|item| program.module.reachable_from(item)).unwrap_or_default();
        let module_items = reached
            .iter()
            .filter(|item| match item.kind {
                ItemKind::Variable => true,
                ItemKind::FunctionDeclaration => item.name.as_ref().is_none_or(|name| !bodies.contains(name)),
                _ => false,
            })
            .map(|item| item.text.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        let mut symbol_spaces = HashMap::new();
        for item in program.module.items.iter().filter(|item| item.kind == ItemKind::Variable) {
            if let (Some(name), Some(space)) = (&item.name, declared_space(&item.text)) {
                symbol_spaces.insert(name.clone(), space);
            }
        }
        for function in &program.functions {
            for variable in &function.variables {
                symbol_spaces.insert(variable.name.clone(), variable.space.clone());
            }
        }
        Side { functions, module_items, symbol_spaces, bodies }
    }
}

/// The state space a module variable's declaration names.
fn declared_space(text: &str) -> Option<String> {
    text.split_whitespace().find_map(|word| {
        let word = word.strip_prefix('.')?;
        ["global", "shared", "const", "local"].contains(&word).then(|| word.to_string())
    })
}

impl<'p> ScopedFunction<'p> {
    fn new(function: &'p Function) -> ScopedFunction<'p> {
        // Registers declared before the first statement (none: declarations are statements)
        // and in each open scope, innermost last.
        let mut scopes: Vec<Vec<(usize, RegisterDecl)>> = vec![Vec::new()];
        let mut declared = 0usize;
        let mut registers = Vec::with_capacity(function.statements.len());
        for statement in &function.statements {
            let mut resolved = HashMap::new();
            match statement {
                Statement::OpenScope => scopes.push(Vec::new()),
                Statement::CloseScope => {
                    if scopes.len() > 1 {
                        scopes.pop();
                    }
                }
                Statement::Directive { registers: decls, .. } => {
                    for decl in decls {
                        scopes.last_mut().expect("a scope is open").push((declared, decl.clone()));
                        if !decl.parameterized {
                            resolved.insert(decl.name.clone(), (declared, decl.clone()));
                        }
                        declared += 1;
                    }
                }
                Statement::Instruction(instruction) => {
                    let names = instruction
                        .operands
                        .iter()
                        .flat_map(|operand| operand.names())
                        .chain(instruction.guard.as_deref().map(|g| g.trim_start_matches('!')));
                    for name in names {
                        if let Some(found) = resolve(&scopes, name) {
                            resolved.insert(name.to_string(), found);
                        }
                    }
                }
                Statement::Label(_) => {}
            }
            registers.push(resolved);
        }
        ScopedFunction { function, registers }
    }
}

/// The innermost declaration of `name` among the open scopes.
fn resolve(scopes: &[Vec<(usize, RegisterDecl)>], name: &str) -> Option<(usize, RegisterDecl)> {
    scopes.iter().rev().flat_map(|scope| scope.iter().rev()).find(|(_, decl)| declares(decl, name)).cloned()
}

fn declares(decl: &RegisterDecl, name: &str) -> bool {
    if decl.parameterized {
        name.strip_prefix(decl.name.as_str())
            .is_some_and(|index| !index.is_empty() && index.bytes().all(|b| b.is_ascii_digit()))
    } else {
        name == decl.name
    }
}
