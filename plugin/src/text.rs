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
    builtin::ops::ModuleOp,
    combine::{Parser, eof, parser::char::spaces},
    context::{Context, Ptr},
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
    if Operation::get_op::<ModuleOp>(op, ctx).is_none() {
        return Err(error(1, 1, "the top-level operation must be a builtin.module".to_string()));
    }
    Ok(op)
}

/// Prints an operation (a module) in pliron's textual format, locations outlined.
pub fn print(ctx: &Context, op: Ptr<Operation>) -> String {
    op.deref(ctx).disp(ctx).to_string()
}
