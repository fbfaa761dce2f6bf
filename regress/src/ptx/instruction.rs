//! One PTX instruction: its guard predicate, opcode, modifiers, state space and operands.

use std::fmt;

/// A PTX state space, as named in an instruction's modifiers (`ld.global`, `cvta.to.shared`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StateSpace {
    Global,
    Shared,
    Local,
    Param,
    Const,
    /// No state space named: a memory instruction on a generic address.
    Generic,
}

impl StateSpace {
    /// The state space a modifier names: `global`, `shared::cta`, `param::entry`, ….
    pub fn from_modifier(modifier: &str) -> Option<StateSpace> {
        let base = modifier.split("::").next().unwrap_or(modifier);
        Some(match base {
            "global" => StateSpace::Global,
            "shared" => StateSpace::Shared,
            "local" => StateSpace::Local,
            "param" => StateSpace::Param,
            "const" => StateSpace::Const,
            _ => return None,
        })
    }
}

/// Opcodes that read or write memory through an address operand, whose state space is generic
/// when no modifier names one.
pub const MEMORY_OPCODES: &[&str] = &["ld", "ldu", "st", "atom", "red", "prefetch", "prefetchu"];

/// One indivisible piece of an operand.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Atom {
    /// A register, special register, symbol, label or the sink `_`.
    Name(String),
    /// A literal, without its sign (a sign is a `Punct`).
    Number(String),
    /// An operator inside an operand: `+` in `[%rd1+4]`, `|` in `%p1|%p2`, `-`, `!`.
    Punct(char),
    /// A bracketed group: an address `[…]`, a vector `{…}` or a call's list `(…)`.
    Group { open: char, items: Vec<Operand> },
}

/// One comma-separated operand.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Operand(pub Vec<Atom>);

impl Operand {
    /// Every name in the operand, however deeply grouped, in order.
    pub fn names(&self) -> Vec<&str> {
        let mut names = Vec::new();
        collect_names(&self.0, &mut names);
        names
    }

    /// The operand with every name passed through `rename`.
    pub fn map_names(&self, rename: &mut impl FnMut(&str) -> String) -> Operand {
        Operand(self.0.iter().map(|atom| map_atom(atom, rename)).collect())
    }

    /// Is the operand an address (`[…]`)?
    pub fn is_address(&self) -> bool {
        matches!(self.0.as_slice(), [Atom::Group { open: '[', .. }])
    }
}

fn collect_names<'a>(atoms: &'a [Atom], names: &mut Vec<&'a str>) {
    for atom in atoms {
        match atom {
            Atom::Name(name) => names.push(name),
            Atom::Group { items, .. } => items.iter().for_each(|item| collect_names(&item.0, names)),
            Atom::Number(_) | Atom::Punct(_) => {}
        }
    }
}

fn map_atom(atom: &Atom, rename: &mut impl FnMut(&str) -> String) -> Atom {
    match atom {
        Atom::Name(name) => Atom::Name(rename(name)),
        Atom::Group { open, items } => {
            Atom::Group { open: *open, items: items.iter().map(|item| item.map_names(rename)).collect() }
        }
        other => other.clone(),
    }
}

/// One instruction, with where it starts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Instruction {
    /// The guard predicate, `%p1` or `!%p1`, without the `@`.
    pub guard: Option<String>,
    /// The opcode with its modifiers, as written: `ld.global.nc.f32`.
    pub opcode: String,
    pub operands: Vec<Operand>,
    pub line: usize,
    pub column: usize,
}

impl Instruction {
    /// The base opcode: `ld` of `ld.global.nc.f32`.
    pub fn name(&self) -> &str {
        self.opcode.split('.').next().unwrap_or_default()
    }

    /// The modifiers after the base opcode: `global`, `nc`, `f32` of `ld.global.nc.f32`.
    pub fn modifiers(&self) -> impl Iterator<Item = &str> {
        self.opcode.split('.').skip(1)
    }

    pub fn has_modifier(&self, modifier: &str) -> bool {
        self.modifiers().any(|m| m == modifier)
    }

    /// The first state space the modifiers name; for a memory instruction that names none,
    /// [`StateSpace::Generic`]; otherwise `None`.
    pub fn state_space(&self) -> Option<StateSpace> {
        self.modifiers()
            .find_map(StateSpace::from_modifier)
            .or_else(|| self.is_memory_access().then_some(StateSpace::Generic))
    }

    /// Does the instruction read or write memory through an address operand?
    pub fn is_memory_access(&self) -> bool {
        MEMORY_OPCODES.contains(&self.name())
    }

    /// Does the instruction end a basic block (a branch, a return, an exit, a trap)?
    pub fn ends_block(&self) -> bool {
        matches!(self.name(), "bra" | "brx" | "ret" | "exit" | "trap")
    }

    /// For a `call`, the function it calls: the first operand that is a single name (the
    /// return list and the argument list are groups).
    pub fn callee(&self) -> Option<&str> {
        if self.name() != "call" {
            return None;
        }
        self.operands.iter().find_map(|operand| match operand.0.as_slice() {
            [Atom::Name(name)] => Some(name.as_str()),
            _ => None,
        })
    }

    /// The instruction with every name in its guard and operands passed through `rename`.
    pub fn map_names(&self, mut rename: impl FnMut(&str) -> String) -> Instruction {
        let guard = self.guard.as_ref().map(|guard| match guard.strip_prefix('!') {
            Some(predicate) => format!("!{}", rename(predicate)),
            None => rename(guard),
        });
        let operands = self.operands.iter().map(|operand| operand.map_names(&mut rename)).collect();
        Instruction { guard, operands, opcode: self.opcode.clone(), ..*self }
    }
}

impl fmt::Display for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Atom::Name(text) | Atom::Number(text) => f.write_str(text),
            Atom::Punct(c) => write!(f, "{c}"),
            Atom::Group { open, items } => {
                let close = match open {
                    '[' => ']',
                    '{' => '}',
                    _ => ')',
                };
                write!(f, "{open}")?;
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}")?;
                }
                write!(f, "{close}")
            }
        }
    }
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|atom| write!(f, "{atom}"))
    }
}

/// The instruction in one normal spelling: `@%p1 add.s32 %r1, %r2, 4;`.
impl fmt::Display for Instruction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(guard) = &self.guard {
            write!(f, "@{guard} ")?;
        }
        f.write_str(&self.opcode)?;
        for (index, operand) in self.operands.iter().enumerate() {
            f.write_str(if index == 0 { " " } else { ", " })?;
            write!(f, "{operand}")?;
        }
        f.write_str(";")
    }
}
