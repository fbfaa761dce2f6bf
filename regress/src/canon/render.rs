//! One side of an entry as canonical lines, under a view: the module items it names, then per
//! function its signature with performance directives, then its body statement by statement,
//! scope boundaries and declarations (alignment, array shape) included. Labels are numbered by
//! definition, immediates spelled one way (`0f3F800000`, `0x1F`), and mangling hashes numbered
//! per crate by first appearance over the whole text ([`number_hashes`]).

use std::collections::HashMap;

use super::facts::{self, Effect, Facts, Lineage};
use super::side::Side;
use crate::ptx::function::Statement;
use crate::ptx::instruction::{Atom, Instruction, Operand};
use crate::snapshots::number_hashes;

/// What a view relaxes.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct View {
    /// Registers renamed by first appearance (one bijection per declaration); declared counts
    /// left out.
    pub renumber: bool,
    /// `.nc` left out of global loads.
    pub drop_nc: bool,
    /// Address conversions (`cvta`) folded into the registers they define, and the state space
    /// of memory instructions moved out of the text into [`Access`], where the checker decides.
    pub state_space: bool,
}

/// One canonical line.
#[derive(Debug, Clone)]
pub(super) struct Line {
    pub text: String,
    pub instruction: Option<LineInstruction>,
}

/// What the checkers need of an instruction line.
#[derive(Debug, Clone)]
pub(super) struct LineInstruction {
    /// Where it is: index into the side's functions, index into that function's statements.
    pub function: usize,
    pub statement: usize,
    pub effect: Effect,
    pub defs: Vec<String>,
    pub uses: Vec<String>,
    /// Under the state-space view, a memory access's space (`None`: generic) and the lineage of
    /// its address.
    pub access: Option<Access>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Access {
    pub space: Option<String>,
    pub lineage: Lineage,
}

/// Memory opcodes whose one address operand may be spelled generic or specific.
const SPACE_OPCODES: &[&str] = &["ld", "ldu", "st", "atom", "red", "prefetch", "prefetchu"];

pub(super) fn render(side: &Side, facts: &[Facts], view: View) -> Vec<Line> {
    let mut lines: Vec<Line> =
        side.module_items.iter().map(|text| Line { text: text.clone(), instruction: None }).collect();
    for index in 0..side.functions.len() {
        FunctionRenderer::new(side, facts, index, view).render(&mut lines);
    }
    let joined: Vec<&str> = lines.iter().map(|line| line.text.as_str()).collect();
    let numbered = number_hashes(&joined.join("\n"));
    for (line, text) in lines.iter_mut().zip(numbered.split('\n')) {
        line.text = text.to_string();
    }
    lines
}

struct FunctionRenderer<'a, 'p> {
    side: &'a Side<'p>,
    facts: &'a Facts,
    index: usize,
    view: View,
    labels: HashMap<String, String>,
    /// Erased conversions: destination → source.
    aliases: HashMap<String, String>,
    /// Renumbering: (declaration, name) → canonical name; per declaration, the next number.
    numbering: HashMap<(usize, String), String>,
    next: HashMap<usize, usize>,
    /// Name → declaration, anywhere in the function: for the source of an erased conversion,
    /// which the statement using its destination does not name.
    declarations: HashMap<String, usize>,
}

impl<'a, 'p> FunctionRenderer<'a, 'p> {
    fn new(side: &'a Side<'p>, facts: &'a [Facts], index: usize, view: View) -> Self {
        let function = side.functions[index].function;
        let mut labels = HashMap::new();
        for statement in &function.statements {
            if let Statement::Label(label) = statement {
                let next = format!("L{}", labels.len());
                labels.entry(label.clone()).or_insert(next);
            }
        }
        let facts = &facts[index];
        let mut aliases = HashMap::new();
        if view.state_space {
            for statement in &function.statements {
                if let Statement::Instruction(instruction) = statement
                    && let Some((destination, source)) = erasable_conversion(instruction, facts, side)
                {
                    aliases.insert(destination, source);
                }
            }
        }
        let mut declarations = HashMap::new();
        for registers in &side.functions[index].registers {
            for (name, (declaration, _)) in registers {
                declarations.entry(name.clone()).or_insert(*declaration);
            }
        }
        FunctionRenderer {
            declarations,
            side,
            facts,
            index,
            view,
            labels,
            aliases,
            numbering: HashMap::new(),
            next: HashMap::new(),
        }
    }

    fn render(mut self, lines: &mut Vec<Line>) {
        let scoped = &self.side.functions[self.index];
        let function = scoped.function;
        let params = |params: &[crate::ptx::function::Param]| -> String {
            let rendered: Vec<String> = params
                .iter()
                .map(|p| {
                    let array = p.array.map(|n| format!("[{n}]")).unwrap_or_default();
                    format!("{} {}{array}", p.attributes.join(" "), p.name)
                })
                .collect();
            rendered.join(", ")
        };
        let header = format!(
            "{:?} ({}) {} ({}) {}",
            function.kind,
            params(&function.returns),
            function.name,
            params(&function.params),
            function.performance_directives.join(" ")
        );
        lines.push(Line { text: header.trim_end().to_string(), instruction: None });
        if function.blocks.is_none() {
            lines.push(Line { text: "no body".to_string(), instruction: None });
        }
        for (position, statement) in function.statements.iter().enumerate() {
            let registers = &scoped.registers[position];
            let text = match statement {
                Statement::OpenScope => "{".to_string(),
                Statement::CloseScope => "}".to_string(),
                Statement::Label(label) => format!("{}:", self.labels[label]),
                Statement::Directive { text, registers: decls }
                    if self.view.renumber && !decls.is_empty() =>
                {
                    let rendered: Vec<String> = decls
                        .iter()
                        .map(|decl| {
                            if decl.parameterized {
                                format!(".reg .{} {}<*>", decl.ty, decl.name)
                            } else {
                                let found = registers.get(&decl.name).cloned();
                                let name = match found {
                                    Some((index, _)) => self.renumbered(index, &decl.name),
                                    None => text.clone(),
                                };
                                format!(".reg .{} {name}", decl.ty)
                            }
                        })
                        .collect();
                    rendered.join("; ")
                }
                Statement::Directive { text, .. } => text.clone(),
                Statement::Instruction(instruction) => {
                    if self.view.state_space
                        && erasable_conversion(instruction, self.facts, self.side).is_some()
                    {
                        continue;
                    }
                    let (text, info) = self.instruction(instruction, position);
                    lines.push(Line { text, instruction: Some(info) });
                    continue;
                }
            };
            lines.push(Line { text, instruction: None });
        }
    }

    fn renumbered(&mut self, declaration: usize, name: &str) -> String {
        let key = (declaration, name.to_string());
        if let Some(found) = self.numbering.get(&key) {
            return found.clone();
        }
        let next = self.next.entry(declaration).or_default();
        *next += 1;
        let canonical = format!("%reg{declaration}#{next}");
        self.numbering.insert(key, canonical.clone());
        canonical
    }

    /// The canonical spelling of one name in this instruction, without lineage marker.
    fn name(&mut self, name: &str, position: usize) -> String {
        if let Some(label) = self.labels.get(name) {
            return label.clone();
        }
        let name = self.resolve_alias(name);
        if self.view.renumber {
            let here =
                self.side.functions[self.index].registers[position].get(&name).map(|(index, _)| *index);
            if let Some(index) = here.or_else(|| self.declarations.get(&name).copied()) {
                return self.renumbered(index, &name);
            }
        }
        name
    }

    fn resolve_alias(&self, name: &str) -> String {
        let mut name = name.to_string();
        let mut steps = 0;
        while let Some(source) = self.aliases.get(&name) {
            name = source.clone();
            steps += 1;
            if steps > self.aliases.len() {
                break;
            }
        }
        name
    }

    fn lineage(&self, name: &str) -> Lineage {
        self.facts.lineage_of(name, &self.side.symbol_spaces)
    }

    fn instruction(&mut self, instruction: &Instruction, position: usize) -> (String, LineInstruction) {
        let mut opcode = instruction.opcode.clone();
        if matches!(instruction.name(), "ld" | "ldu" | "st") {
            opcode = untyped_bits(&opcode);
        }
        if self.view.drop_nc && instruction.name() == "ld" && instruction.has_modifier("global") {
            opcode = without_modifiers(&opcode, |m| m == "nc");
        }
        let defines = !facts::defs(instruction).is_empty();
        // The one address whose space may move into `Access`.
        let addresses = facts::addresses(instruction);
        let spaces: Vec<String> = instruction.modifiers().filter_map(facts::space_of_modifier).collect();
        let rewritable = self.view.state_space
            && SPACE_OPCODES.contains(&instruction.name())
            && addresses.len() == 1
            && spaces.len() <= 1;
        let mut access = None;
        if rewritable {
            let base = facts::address_base(addresses[0]).map(|b| self.lineage(b)).unwrap_or(Lineage::Plain);
            access = Some(Access { space: spaces.first().cloned(), lineage: base });
            opcode = without_modifiers(&opcode, |m| facts::space_of_modifier(m).is_some());
        }
        // The carrying source of an address-carrying instruction (the first; `c` of `mad`) keeps
        // no marker when the destination's lineage is its own: the destination carries it to
        // where it is checked. Any other tagged source makes the destination mixed.
        let carrier = match instruction.name() {
            "add" | "sub" | "mov" => Some(1),
            "mad" => Some(3),
            _ => None,
        };
        let carried = carrier.is_some()
            && facts::defs(instruction).first().is_some_and(|d| !matches!(self.lineage(d), Lineage::Mixed));
        // Instructions indented, as in PTX, so that a diff reads like one.
        let mut text = String::from("  ");
        if let Some(guard) = &instruction.guard {
            let (bang, predicate) = match guard.strip_prefix('!') {
                Some(predicate) => ("!", predicate),
                None => ("", guard.as_str()),
            };
            let name = self.name(predicate, position);
            text.push_str(&format!("@{bang}{name} "));
        }
        text.push_str(&opcode);
        let mut defs = Vec::new();
        let mut uses = Vec::new();
        for (index, operand) in instruction.operands.iter().enumerate() {
            text.push_str(if index == 0 { " " } else { ", " });
            let is_def = index == 0 && defines;
            let is_address = rewritable && operand.is_address();
            let marked =
                self.view.state_space && !is_def && !is_address && !(carried && carrier == Some(index));
            let mut names = Vec::new();
            let rendered = self.operand(operand, position, marked, &mut names);
            if is_def {
                defs.extend(names)
            } else {
                uses.extend(names)
            }
            text.push_str(&rendered);
        }
        if let Some(guard) = &instruction.guard {
            uses.push(self.name(guard.trim_start_matches('!'), position));
        }
        let info = LineInstruction {
            function: self.index,
            statement: position,
            effect: facts::effect(instruction),
            defs,
            uses,
            access,
        };
        (text, info)
    }

    fn operand(
        &mut self,
        operand: &Operand,
        position: usize,
        marked: bool,
        names: &mut Vec<String>,
    ) -> String {
        operand.0.iter().map(|atom| self.atom(atom, position, marked, names)).collect()
    }

    fn atom(&mut self, atom: &Atom, position: usize, marked: bool, names: &mut Vec<String>) -> String {
        match atom {
            Atom::Name(name) => {
                let canonical = self.name(name, position);
                names.push(canonical.clone());
                let marker = if marked { self.lineage(name).marker() } else { String::new() };
                format!("{canonical}{marker}")
            }
            Atom::Number(number) => normal_number(number),
            Atom::Punct(c) => c.to_string(),
            Atom::Group { open, items } => {
                let close = match open {
                    '[' => ']',
                    '{' => '}',
                    _ => ')',
                };
                let inner: Vec<String> =
                    items.iter().map(|item| self.operand(item, position, marked, names)).collect();
                format!("{open}{}{close}", inner.join(", "))
            }
        }
    }
}

/// `cvta[.to].SPACE d, s`, or `mov d, SYMBOL` of a variable, that can be folded into `d`, so
/// that every use of `d` reads `s`: unguarded, `d` defined only here and with a lineage of its
/// own (not mixed), `s` a symbol or a register defined once by an unguarded instruction that
/// dominates this one, and this one dominating every use of `d`. Then at each use, `s` still
/// holds the value converted.
fn erasable_conversion(instruction: &Instruction, facts: &Facts, side: &Side) -> Option<(String, String)> {
    let [destination, source] = instruction.operands.as_slice() else { return None };
    let (destination_names, source_names) = (destination.names(), source.names());
    let ([d], [s]) = (destination_names.as_slice(), source_names.as_slice()) else { return None };
    let symbol = side.symbol_spaces.contains_key(*s);
    let symbol_address = instruction.name() == "mov" && symbol;
    if !(instruction.name() == "cvta" || symbol_address) || instruction.guard.is_some() {
        return None;
    }
    if destination.0.len() != 1 || source.0.len() != 1 {
        return None;
    }
    let [here] = facts.definitions.get(*d)?.as_slice() else { return None };
    if matches!(facts.lineage.get(*d), Some(Lineage::Mixed) | None) {
        return None;
    }
    let source_ready = symbol
        || match facts.definitions.get(*s).map(Vec::as_slice) {
            Some([definition]) => {
                facts.dominance.dominates(*definition, *here) && facts.guarded.get(definition) == Some(&false)
            }
            _ => false,
        };
    let dominates_uses =
        facts.uses.get(*d).is_none_or(|uses| uses.iter().all(|&u| facts.dominance.dominates(*here, u)));
    (source_ready && dominates_uses).then(|| (d.to_string(), s.to_string()))
}

fn without_modifiers(opcode: &str, drop: impl Fn(&str) -> bool) -> String {
    let mut parts = opcode.split('.');
    let base = parts.next().unwrap_or_default().to_string();
    parts.filter(|m| !drop(m)).fold(base, |text, m| format!("{text}.{m}"))
}

/// `.u32` and `.f32` of a load or store spelled `.b32` (and so for each width): the same bits
/// move, zero-extended alike. Signed types (sign extension) keep their spelling.
fn untyped_bits(opcode: &str) -> String {
    let mut parts = opcode.split('.');
    let base = parts.next().unwrap_or_default().to_string();
    parts.fold(base, |text, m| {
        let bits = m.strip_prefix(['u', 'f']).filter(|w| ["8", "16", "32", "64"].contains(w));
        match bits {
            Some(width) => format!("{text}.b{width}"),
            None => format!("{text}.{m}"),
        }
    })
}

/// Hexadecimal digits of an immediate in upper case (`0f3f800000` → `0f3F800000`).
fn normal_number(number: &str) -> String {
    for prefix in ["0f", "0F", "0d", "0D", "0x", "0X"] {
        if let Some(digits) = number.strip_prefix(prefix) {
            return format!("{}{}", prefix.to_ascii_lowercase(), digits.to_ascii_uppercase());
        }
    }
    number.to_string()
}
