//! PTX shapes: per kernel entry (with every function it calls), registers by class, local
//! bytes, local loads and stores, instruction counts by family and calls; and the table that
//! pins them, one row per kernel, each with its `PIN(YYYY-MM-DD): reason`. Each backend's PTX
//! has its own table (`regress/ptx-shapes.tsv` for the default backend,
//! `regress/ptx-shapes-cuda-oxide.tsv` for cuda-oxide's): the two compilers give the same
//! kernels different shapes, and a row must move only when its own compiler's output does.
//!
//! The families are read from the opcode and its state-space modifier, not from register names
//! or spelling, so they hold for both compilers' PTX: rustc's LLVM (`ld.param::entry`, generic
//! accesses to a shared window) and cuda-oxide's LLVM 22 (`ld.shared`, `st.shared::cluster`
//! inside inline-asm scopes, `mbarrier.init` on a symbol, `cp.async.bulk`); a unit test holds
//! the families to counts made from cuda-oxide's committed snapshots.
//!
//! Data flow: [`crate::ptx::program::Program`] → [`Shape::of`] per entry → compared with the
//! pinned [`ShapeTable`] by [`ShapeTable::check`] (the suite) or merged into it by
//! [`ShapeTable::update`] (`just shapes --update`, which writes the file).
//!
//! The table is a TSV with a header row. Columns this module does not compute (the `ptxas_*`
//! figures recorded on the GPU machine, say) are kept as they are, never compared here, so
//! other tools can add columns without touching this code. The pin is the last column.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::ptx::function::{Function, register_class};
use crate::ptx::instruction::{Instruction, StateSpace};
use crate::ptx::program::Program;

/// The columns computed from PTX, in table order (after `kernel`).
pub const PTX_COLUMNS: &[&str] = &[
    "reg_pred",
    "reg_16",
    "reg_32",
    "reg_64",
    "reg_128",
    "local_bytes",
    "local_ld",
    "local_st",
    "mem_global",
    "mem_shared",
    "mem_generic",
    "mem_local",
    "mem_param",
    "arith",
    "control",
    "barrier",
    "async_copy",
    "mbarrier",
    "warp",
    "other",
    "calls",
];

/// The first column: the kernel entry's name.
pub const KERNEL_COLUMN: &str = "kernel";
/// The last column: `PIN(YYYY-MM-DD): reason`.
pub const PIN_COLUMN: &str = "pin";

/// The shape of one kernel entry: a value per [`PTX_COLUMNS`] entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    pub kernel: String,
    pub values: BTreeMap<&'static str, u64>,
}

/// Opcodes of register arithmetic, comparison, selection, conversion and moves.
const ARITHMETIC: &[&str] = &[
    "add", "sub", "mul", "mad", "mul24", "mad24", "sad", "fma", "div", "rem", "abs", "neg", "min", "max",
    "sqrt", "rsqrt", "rcp", "ex2", "lg2", "sin", "cos", "tanh", "and", "or", "xor", "not", "cnot", "lop3",
    "shl", "shr", "shf", "bfe", "bfi", "brev", "bfind", "popc", "clz", "fns", "prmt", "dp4a", "dp2a",
    "copysign", "testp", "setp", "set", "selp", "slct", "cvt", "cvta", "mov", "isspacep", "addc", "subc",
    "madc",
];

/// The family an instruction counts in: a `mem_*` column, or another family column.
pub fn family(instruction: &Instruction) -> &'static str {
    let name = instruction.name();
    if instruction.is_memory_access() {
        return match instruction.state_space() {
            Some(StateSpace::Global) => "mem_global",
            Some(StateSpace::Shared) => "mem_shared",
            Some(StateSpace::Local) => "mem_local",
            Some(StateSpace::Param | StateSpace::Const) => "mem_param",
            Some(StateSpace::Generic) | None => "mem_generic",
        };
    }
    match name {
        "cp" if instruction.has_modifier("async") => "async_copy",
        "cp" if instruction.modifiers().any(|m| m == "reduce") => "async_copy",
        "mbarrier" => "mbarrier",
        "bar" | "barrier" | "membar" | "fence" => "barrier",
        "bra" | "brx" | "ret" | "exit" | "call" | "trap" => "control",
        "shfl" | "vote" | "match" | "redux" | "activemask" | "elect" => "warp",
        _ if ARITHMETIC.contains(&name) => "arith",
        _ => "other",
    }
}

impl Shape {
    /// The shape of `entry` and every function it reaches in `program`.
    pub fn of(program: &Program, entry: &Function) -> Shape {
        let mut values: BTreeMap<&'static str, u64> = PTX_COLUMNS.iter().map(|c| (*c, 0)).collect();
        let mut add = |column: &'static str, amount: u64| *values.entry(column).or_default() += amount;
        for function in program.reachable_from(entry) {
            for register in &function.registers {
                let column = match register_class(&register.ty) {
                    "pred" => "reg_pred",
                    "8" | "16" => "reg_16",
                    "32" => "reg_32",
                    "64" => "reg_64",
                    _ => "reg_128",
                };
                add(column, register.count);
            }
            add("local_bytes", function.local_bytes());
            for instruction in function.instructions() {
                add(family(instruction), 1);
                let local = instruction.state_space() == Some(StateSpace::Local);
                match instruction.name() {
                    "ld" if local => add("local_ld", 1),
                    "st" if local => add("local_st", 1),
                    "call" => add("calls", 1),
                    _ => {}
                }
            }
        }
        Shape { kernel: entry.name.clone(), values }
    }

    /// The shapes of every entry of `program`, in module order.
    pub fn all(program: &Program) -> Vec<Shape> {
        program.entries().map(|entry| Shape::of(program, entry)).collect()
    }
}

/// A malformed shapes table: the line and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct TableError {
    pub line: usize,
    pub message: String,
}

/// One pinned row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub kernel: String,
    /// Every column but `kernel` and `pin`, as written.
    pub values: BTreeMap<String, String>,
    pub pin: Pin,
}

/// `PIN(YYYY-MM-DD): reason`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    pub date: String,
    pub reason: String,
}

impl Pin {
    pub fn parse(text: &str) -> Option<Pin> {
        let rest = text.strip_prefix("PIN(")?;
        let (date, reason) = rest.split_once("): ")?;
        let digits = date
            .bytes()
            .enumerate()
            .all(|(i, b)| if i == 4 || i == 7 { b == b'-' } else { b.is_ascii_digit() });
        let reason = reason.trim();
        (date.len() == 10 && digits && !reason.is_empty())
            .then(|| Pin { date: date.to_string(), reason: reason.to_string() })
    }
}

impl std::fmt::Display for Pin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PIN({}): {}", self.date, self.reason)
    }
}

/// The pinned shapes: the header's columns and one row per kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeTable {
    /// Every column between `kernel` and `pin`, in file order.
    pub columns: Vec<String>,
    pub rows: Vec<Row>,
}

/// One way the PTX disagrees with the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    /// The kernel's shape differs from its pinned row: (column, pinned, now).
    Moved { kernel: String, pin: Pin, changes: Vec<(String, String, String)> },
    /// A kernel with no row.
    Unpinned { kernel: String },
    /// A row whose kernel is not in the PTX.
    Orphan { kernel: String },
}

impl Finding {
    pub fn kernel(&self) -> &str {
        match self {
            Finding::Moved { kernel, .. } | Finding::Unpinned { kernel } | Finding::Orphan { kernel } => {
                kernel
            }
        }
    }
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Finding::Moved { kernel, pin, changes } => {
                let moved: Vec<String> =
                    changes.iter().map(|(column, old, new)| format!("{column} {old} -> {new}")).collect();
                write!(f, "kernel `{kernel}` moved from its pin ({pin}): {}", moved.join(", "))
            }
            Finding::Unpinned { kernel } => write!(f, "kernel `{kernel}` has no row"),
            Finding::Orphan { kernel } => {
                write!(f, "the row of kernel `{kernel}` belongs to no kernel entry in the PTX")
            }
        }
    }
}

/// The command that checks and re-pins the default backend's table.
pub const SHAPES_COMMAND: &str = "just shapes";

/// The comment a table starts with: what it is and how `shapes_command` re-pins it.
fn header_comment(shapes_command: &str) -> String {
    format!(
        "# PTX shapes of every kernel entry, with the functions it calls (see regress/src/shapes.rs).\n\
         # The suite fails when a kernel's shape moves from its row. After an intended change:\n\
         #   {shapes_command} --update --reason \"why the shape moved\"\n\
         # which rewrites the moved rows with PIN(<today>): <reason>.\n"
    )
}

impl ShapeTable {
    /// An empty table with the PTX columns.
    pub fn empty() -> ShapeTable {
        ShapeTable { columns: PTX_COLUMNS.iter().map(|c| c.to_string()).collect(), rows: Vec::new() }
    }

    /// Reads the TSV text of a table. Lines starting with `#` and blank lines are comments.
    pub fn parse(text: &str) -> Result<ShapeTable, TableError> {
        let mut lines = text.lines().enumerate().map(|(i, line)| (i + 1, line)).filter(|(_, line)| {
            let line = line.trim();
            !line.is_empty() && !line.starts_with('#')
        });
        let Some((header_line, header)) = lines.next() else {
            return Err(TableError { line: 1, message: "no header row".into() });
        };
        let header: Vec<&str> = header.split('\t').collect();
        if header.len() < 2 || header[0] != KERNEL_COLUMN || header[header.len() - 1] != PIN_COLUMN {
            return Err(TableError {
                line: header_line,
                message: format!("the header must start with `{KERNEL_COLUMN}` and end with `{PIN_COLUMN}`"),
            });
        }
        let columns: Vec<String> = header[1..header.len() - 1].iter().map(|c| c.to_string()).collect();
        if let Some(missing) = PTX_COLUMNS.iter().find(|c| !columns.iter().any(|have| have == *c)) {
            return Err(TableError {
                line: header_line,
                message: format!("the header has no column `{missing}`"),
            });
        }
        let mut rows: Vec<Row> = Vec::new();
        for (line, text) in lines {
            let fields: Vec<&str> = text.split('\t').collect();
            if fields.len() != header.len() {
                return Err(TableError {
                    line,
                    message: format!("{} fields where the header has {}", fields.len(), header.len()),
                });
            }
            let kernel = fields[0].to_string();
            if rows.iter().any(|row| row.kernel == kernel) {
                return Err(TableError { line, message: format!("a second row for kernel `{kernel}`") });
            }
            let pin = Pin::parse(fields[fields.len() - 1]).ok_or_else(|| TableError {
                line,
                message: format!(
                    "kernel `{kernel}`: the last field must be `PIN(YYYY-MM-DD): reason`, found `{}`",
                    fields[fields.len() - 1]
                ),
            })?;
            let values = columns
                .iter()
                .cloned()
                .zip(fields[1..fields.len() - 1].iter().map(|v| v.to_string()))
                .collect();
            rows.push(Row { kernel, values, pin });
        }
        Ok(ShapeTable { columns, rows })
    }

    /// The table as TSV text, with its explanatory comment naming [`SHAPES_COMMAND`].
    pub fn render(&self) -> String {
        self.render_for(SHAPES_COMMAND)
    }

    /// The table as TSV text, its comment naming `shapes_command` as the way to re-pin it
    /// (`just shapes --backend cuda-oxide` for cuda-oxide's table).
    pub fn render_for(&self, shapes_command: &str) -> String {
        let mut text = header_comment(shapes_command);
        let header: Vec<&str> = std::iter::once(KERNEL_COLUMN)
            .chain(self.columns.iter().map(String::as_str))
            .chain([PIN_COLUMN])
            .collect();
        text.push_str(&header.join("\t"));
        text.push('\n');
        for row in &self.rows {
            text.push_str(&row.kernel);
            for column in &self.columns {
                let _ = write!(text, "\t{}", row.values.get(column).map_or("", String::as_str));
            }
            let _ = writeln!(text, "\t{}", row.pin);
        }
        text
    }

    pub fn row(&self, kernel: &str) -> Option<&Row> {
        self.rows.iter().find(|row| row.kernel == kernel)
    }

    /// How `shapes` (every entry of one PTX) disagree with the table, in kernel order, then
    /// orphan rows.
    pub fn check(&self, shapes: &[Shape]) -> Vec<Finding> {
        let mut findings: Vec<Finding> = shapes.iter().filter_map(|shape| self.check_one(shape)).collect();
        findings.extend(self.orphans(shapes));
        findings
    }

    /// Rows whose kernel is not among `shapes`.
    pub fn orphans(&self, shapes: &[Shape]) -> Vec<Finding> {
        self.rows
            .iter()
            .filter(|row| !shapes.iter().any(|shape| shape.kernel == row.kernel))
            .map(|row| Finding::Orphan { kernel: row.kernel.clone() })
            .collect()
    }

    /// How one kernel's shape disagrees with its row, if it does.
    pub fn check_one(&self, shape: &Shape) -> Option<Finding> {
        let Some(row) = self.row(&shape.kernel) else {
            return Some(Finding::Unpinned { kernel: shape.kernel.clone() });
        };
        let changes: Vec<(String, String, String)> = PTX_COLUMNS
            .iter()
            .filter_map(|column| {
                let now = shape.values.get(column).copied().unwrap_or(0).to_string();
                let pinned = row.values.get(*column).cloned().unwrap_or_default();
                (pinned != now).then(|| (column.to_string(), pinned, now))
            })
            .collect();
        (!changes.is_empty()).then(|| Finding::Moved {
            kernel: shape.kernel.clone(),
            pin: row.pin.clone(),
            changes,
        })
    }

    /// The table re-pinned to `shapes`: moved and new kernels get their new values and `pin`;
    /// unchanged rows keep theirs; rows of kernels no longer in the PTX are dropped. Rows follow
    /// the order of `shapes`. Columns not computed from PTX keep their values (empty for a new
    /// kernel).
    pub fn update(&self, shapes: &[Shape], pin: &Pin) -> ShapeTable {
        let rows = shapes
            .iter()
            .map(|shape| match (self.row(&shape.kernel), self.check_one(shape)) {
                (Some(row), None) => row.clone(),
                (old, _) => {
                    let mut values = old.map(|row| row.values.clone()).unwrap_or_default();
                    for (column, value) in &shape.values {
                        values.insert(column.to_string(), value.to_string());
                    }
                    Row { kernel: shape.kernel.clone(), values, pin: pin.clone() }
                }
            })
            .collect();
        ShapeTable { columns: self.columns.clone(), rows }
    }
}

/// Today's date (UTC) as `YYYY-MM-DD`, from the system clock.
pub fn today() -> String {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    civil_date(seconds / 86_400)
}

/// The proleptic Gregorian date `days` days after 1970-01-01, as `YYYY-MM-DD`.
pub fn civil_date(days: u64) -> String {
    // Count in 400-year eras starting on 0000-03-01, so that the leap day ends each year.
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153; // 0 = March
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 { month_index + 3 } else { month_index - 9 };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests;
