//! Textual IR: pliron's format, parsed into a module and printed back.
//!
//! Operations parsed from text carry their position in the file (line and column of the
//! operation) unless the text gives them an outlined location (`!N` … `outlined_attributes:`),
//! which is what printed IR from the builder carries. Parsing never panics: a malformed or
//! truncated text gives a [`ParseError`] with file, line and column.

use std::{
    panic::{AssertUnwindSafe, catch_unwind},
    path::{Path, PathBuf},
};

use pliron::{
    builtin::{op_interfaces::OneRegionInterface, ops::ModuleOp},
    combine::{Parser, eof, parser::char::spaces},
    common_traits::Named,
    context::{Context, Ptr},
    identifier::Identifier,
    linked_list::ContainsLinkedList,
    location::Source,
    operation::Operation,
    parsable::{State, state_stream_from_iterator},
    printable::Printable,
};

/// Why a text is not a module of kernel IR.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}:{line}:{column}: {message}", file.display())]
pub struct ParseError {
    pub file: PathBuf,
    pub line: u32,
    pub column: u32,
    pub message: String,
}

/// Parses `text` (read from `file`, which locations will name) into a `builtin.module`.
///
/// On error the context may hold parts of the partly-parsed IR; they are not linked to
/// anything, so the context stays usable.
pub fn parse_module(ctx: &mut Context, text: &str, file: &Path) -> Result<Ptr<Operation>, ParseError> {
    let error = |line: i32, column: i32, message: String| ParseError {
        file: file.to_path_buf(),
        line: u32::try_from(line).unwrap_or(0),
        column: u32::try_from(column).unwrap_or(0),
        message,
    };
    let parsed = catch_unwind(AssertUnwindSafe(|| {
        let source = Source::new_from_file(ctx, file.to_path_buf());
        let stream = state_stream_from_iterator(text.chars(), State::new(ctx, source));
        let mut parser = spaces().with(Operation::top_level_parser()).skip(spaces()).skip(eof());
        match parser.parse(stream) {
            Ok((op, _)) => Ok(op),
            Err(err) => {
                let message = err.errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; ");
                let message = if message.is_empty() { "malformed IR".to_string() } else { message };
                Err(error(err.position.line, err.position.column, message.replace('\n', " ")))
            }
        }
    }));
    let op = match parsed {
        Ok(result) => result?,
        Err(_) => {
            return Err(error(
                0,
                0,
                "the IR parser failed on this input (a pliron parser panic)".to_string(),
            ));
        }
    };
    let Some(module) = Operation::get_op::<ModuleOp>(op, ctx) else {
        return Err(error(1, 1, "the top-level operation must be a builtin.module".to_string()));
    };
    normalize_block_labels(ctx, module);
    Ok(op)
}

/// pliron prints a block as its label followed by `_block<N>v<M>` (its arena id) and parses
/// the whole as the new label, so each print → parse cycle would grow the labels. Dropping the
/// id suffix after parsing makes print → parse → print a fixed point.
fn normalize_block_labels(ctx: &mut Context, module: ModuleOp) {
    let mut blocks = Vec::new();
    let mut regions = vec![module.get_region(ctx)];
    while let Some(region) = regions.pop() {
        for block in region.deref(ctx).iter(ctx) {
            blocks.push(block);
            for op in block.deref(ctx).iter(ctx) {
                regions.extend(op.deref(ctx).regions());
            }
        }
    }
    for block in blocks {
        let Some(label) = block.deref(ctx).given_name(ctx) else { continue };
        let label = label.to_string();
        let stripped = match label.rsplit_once("_block") {
            Some((base, id)) if is_block_id(id) => Some(base.to_string()),
            _ => label.strip_prefix("block").filter(|id| is_block_id(id)).map(|_| String::new()),
        };
        if let Some(base) = stripped {
            let new_label = if base.is_empty() { None } else { Identifier::try_new(base).ok() };
            block.deref_mut(ctx).set_label(new_label);
        }
    }
}

/// `<digits>v<digits>`: the arena id pliron appends to block labels.
fn is_block_id(id: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    id.split_once('v').is_some_and(|(index, version)| digits(index) && digits(version))
}

/// Prints an operation (a module) in pliron's textual format, locations outlined.
pub fn print(ctx: &Context, op: Ptr<Operation>) -> String {
    op.deref(ctx).disp(ctx).to_string()
}
