//! The one PTX reader of the project, in two layers.
//!
//! The top level ([`Module::parse`]) splits a module into items (entries, functions,
//! prototypes, module-scope variables), keeps each item's text verbatim and answers which items
//! an entry reaches by name; the snapshot suite needs no more. Below it, [`function`] reads an
//! entry's or function's inside (parameters, register declarations by class, `.local` and other
//! variables, basic blocks of [`instruction::Instruction`]s with opcode, modifiers, state space
//! and operands, and the body as written, scopes included), and [`program::Program`] reads every
//! body of a module, its call graph and what an entry reaches, for the shapes and canon-check.
//!
//! Data flow: text → [`Module`] (items, by braces and semicolons, comments and strings
//! skipped) → per item, [`lexer`] tokens with positions → [`function::Function`].
//! Malformed input yields a [`PtxError`] with line and column in the module's text; the reader
//! never panics. It knows nothing about snapshots, shapes, reports or files.

use std::collections::{BTreeSet, HashMap};

pub mod function;
pub mod instruction;
mod lexer;
pub mod program;

/// A malformed PTX module: what is wrong and where (1-based line and column).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct PtxError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// What a top-level item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemKind {
    /// `.version`, `.target`, `.address_size`, `.file`: one line each.
    ModuleDirective,
    /// A kernel entry point with its body (`.entry name(…) { … }`).
    Entry,
    /// A device function with its body.
    Function,
    /// A function prototype (`.func name(…);`), as LLVM emits before first use.
    FunctionDeclaration,
    /// A module-scope variable: `.global`, `.shared`, `.const`, `.extern .shared`, ….
    Variable,
    /// Anything else at the top level (a debug `.section`, say).
    Other,
}

/// One top-level item, with its text exactly as in the module.
#[derive(Debug, Clone)]
pub struct Item {
    pub kind: ItemKind,
    /// The symbol the item defines or declares, where it has one.
    pub name: Option<String>,
    pub text: String,
    /// 1-based line and column of the item's first character.
    pub line: usize,
    pub column: usize,
}

/// A PTX module split into its top-level items, in order.
#[derive(Debug, Clone)]
pub struct Module {
    pub items: Vec<Item>,
}

/// Top-level directives that end at the end of their line instead of at a `;`.
const LINE_DIRECTIVES: &[&str] = &[".version", ".target", ".address_size", ".file"];

impl Module {
    /// Splits PTX text into top-level items.
    pub fn parse(text: &str) -> Result<Module, PtxError> {
        Splitter::new(text).split()
    }

    /// The kernel entries, in module order.
    pub fn entries(&self) -> impl Iterator<Item = &Item> {
        self.items.iter().filter(|item| item.kind == ItemKind::Entry)
    }

    /// The entry named `name`.
    pub fn entry(&self, name: &str) -> Option<&Item> {
        self.entries().find(|item| item.name.as_deref() == Some(name))
    }

    /// The module directives (`.version`, `.target`, …), in module order.
    pub fn directives(&self) -> impl Iterator<Item = &Item> {
        self.items.iter().filter(|item| item.kind == ItemKind::ModuleDirective)
    }

    /// Reads the inside of an entry or function item (an error for other kinds of item).
    pub fn function(&self, item: &Item) -> Result<function::Function, PtxError> {
        if !matches!(item.kind, ItemKind::Entry | ItemKind::Function | ItemKind::FunctionDeclaration) {
            return Err(PtxError {
                line: item.line,
                column: item.column,
                message: "not an entry or a function".to_string(),
            });
        }
        function::parse(&item.text, item.line, item.column)
    }

    /// Every named item that `entry` reaches through references, transitively (calls, the
    /// shared arrays it addresses, function prototypes), plus `entry` itself, in module order.
    pub fn reachable_from(&self, entry: &Item) -> Vec<&Item> {
        let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
        for (index, item) in self.items.iter().enumerate() {
            if let Some(name) = &item.name {
                by_name.entry(name.as_str()).or_default().push(index);
            }
        }
        let start = self.items.iter().position(|item| std::ptr::eq(item, entry));
        let mut reached: BTreeSet<usize> = start.into_iter().collect();
        let mut pending: Vec<usize> = reached.iter().copied().collect();
        while let Some(index) = pending.pop() {
            for identifier in identifiers(&self.items[index].text) {
                for &target in by_name.get(identifier).map(Vec::as_slice).unwrap_or_default() {
                    if reached.insert(target) {
                        pending.push(target);
                    }
                }
            }
        }
        reached.into_iter().map(|index| &self.items[index]).collect()
    }
}

/// Walks the text once, tracking line, column, brace depth, comments and strings.
struct Splitter<'t> {
    text: &'t str,
    items: Vec<Item>,
}

/// Where an item started: byte offset, line, column.
#[derive(Clone, Copy)]
struct Start {
    offset: usize,
    line: usize,
    column: usize,
}

impl<'t> Splitter<'t> {
    fn new(text: &'t str) -> Self {
        Splitter { text, items: Vec::new() }
    }

    fn split(mut self) -> Result<Module, PtxError> {
        let text = self.text;
        let mut chars = text.char_indices().peekable();
        let (mut line, mut column) = (1usize, 1usize);
        let mut depth = 0usize;
        let mut current: Option<Start> = None;
        let mut line_directive = false;
        let mut opened_at = Start { offset: 0, line: 1, column: 1 };

        while let Some((offset, c)) = chars.next() {
            let here = Start { offset, line, column };
            let next = chars.peek().map(|&(_, n)| n);
            // Advance the position past `c` before handling it.
            if c == '\n' {
                line += 1;
                column = 1;
            } else {
                column += 1;
            }

            if c == '/' && next == Some('/') {
                // A line comment: skip to the end of the line (the newline is handled as usual).
                while let Some(&(_, n)) = chars.peek() {
                    if n == '\n' {
                        break;
                    }
                    chars.next();
                    column += 1;
                }
                continue;
            }
            if c == '/' && next == Some('*') {
                chars.next();
                column += 1;
                let mut closed = false;
                while let Some((_, n)) = chars.next() {
                    if n == '\n' {
                        line += 1;
                        column = 1;
                    } else {
                        column += 1;
                    }
                    if n == '*' && chars.peek().map(|&(_, m)| m) == Some('/') {
                        chars.next();
                        column += 1;
                        closed = true;
                        break;
                    }
                }
                if !closed {
                    return Err(error(here, "unterminated block comment (`/*` without `*/`)"));
                }
                continue;
            }
            if c == '"' {
                let mut closed = false;
                for (_, n) in chars.by_ref() {
                    if n == '\n' {
                        break;
                    }
                    column += 1;
                    if n == '"' {
                        closed = true;
                        break;
                    }
                }
                if !closed {
                    return Err(error(here, "unterminated string literal"));
                }
                continue;
            }

            if current.is_none() {
                if c.is_whitespace() {
                    continue;
                }
                current = Some(here);
                line_directive = LINE_DIRECTIVES.iter().any(|d| starts_with_word(&text[offset..], d));
            }
            let start = current.expect("an item is open here");

            match c {
                '\n' if line_directive => {
                    self.push(start, offset);
                    current = None;
                }
                '{' => {
                    if depth == 0 {
                        opened_at = here;
                    }
                    depth += 1;
                }
                '}' => {
                    if depth == 0 {
                        return Err(error(here, "`}` without a matching `{`"));
                    }
                    depth -= 1;
                    if depth == 0 {
                        self.push(start, offset + 1);
                        current = None;
                    }
                }
                ';' if depth == 0 && !line_directive => {
                    self.push(start, offset + 1);
                    current = None;
                }
                _ => {}
            }
        }

        match current {
            None => Ok(Module { items: self.items }),
            Some(start) if line_directive => {
                self.push(start, text.len());
                Ok(Module { items: self.items })
            }
            Some(_) if depth > 0 => Err(error(opened_at, "`{` is never closed")),
            Some(start) => Err(error(start, "the module ends inside this item (missing `;`)")),
        }
    }

    fn push(&mut self, start: Start, end: usize) {
        let text = self.text[start.offset..end].trim_end().to_string();
        let (kind, name) = classify(&text);
        self.items.push(Item { kind, name, text, line: start.line, column: start.column });
    }
}

fn error(at: Start, message: &str) -> PtxError {
    PtxError { line: at.line, column: at.column, message: message.to_string() }
}

fn starts_with_word(text: &str, word: &str) -> bool {
    text.strip_prefix(word).is_some_and(|rest| rest.chars().next().is_none_or(|c| !is_identifier_char(c)))
}

fn is_identifier_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// Identifiers in PTX text outside comments: `[A-Za-z_$%][A-Za-z0-9_$]*`, and directive names
/// with their leading dot (`.entry`). Numbers (`16`, `0f3F800000`) are skipped whole.
fn identifiers(text: &str) -> Vec<&str> {
    let code = strip_comments(text);
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let first = bytes[i];
        let start = i;
        i += 1;
        if first.is_ascii_alphabetic() || matches!(first, b'_' | b'$' | b'%' | b'.') {
            while i < bytes.len() && is_identifier_char(char::from(bytes[i])) {
                i += 1;
            }
            // A lone `.` or `%` is punctuation, not a name.
            if i - start > 1 || !matches!(first, b'.' | b'%') {
                // `code` is `text` with comments and non-ASCII bytes blanked, byte for byte,
                // so this range lies on character boundaries of `text`.
                found.push(&text[start..i]);
            }
        } else if first.is_ascii_digit() {
            while i < bytes.len() && is_identifier_char(char::from(bytes[i])) {
                i += 1;
            }
        }
    }
    found
}

/// `text` with every comment and every non-ASCII byte replaced by a space (newlines kept), so
/// that byte offsets into the result are offsets into `text`.
fn strip_comments(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let comment_end = match (bytes[i], bytes.get(i + 1)) {
            (b'/', Some(b'/')) => Some(text[i..].find('\n').map_or(bytes.len(), |e| i + e)),
            (b'/', Some(b'*')) => Some(text[i + 2..].find("*/").map_or(bytes.len(), |e| i + 2 + e + 2)),
            _ => None,
        };
        match comment_end {
            Some(end) => {
                out.extend(bytes[i..end].iter().map(|&b| if b == b'\n' { b'\n' } else { b' ' }));
                i = end;
            }
            None => {
                out.push(if bytes[i].is_ascii() { bytes[i] } else { b' ' });
                i += 1;
            }
        }
    }
    String::from_utf8(out).expect("only ASCII bytes remain")
}

/// The kind of an item and the symbol it defines, from the text before its body.
fn classify(text: &str) -> (ItemKind, Option<String>) {
    let words = identifiers(text);
    if LINE_DIRECTIVES.iter().any(|d| starts_with_word(text, d)) {
        return (ItemKind::ModuleDirective, None);
    }
    let head_end = text.find(['{', ';']).unwrap_or(text.len());
    let head = &text[..head_end];
    let has_body = text[head_end..].starts_with('{');
    if let Some(position) = words.iter().position(|w| *w == ".entry" || *w == ".func") {
        let kind = match (words[position], has_body) {
            (".entry", _) => ItemKind::Entry,
            (_, true) => ItemKind::Function,
            (_, false) => ItemKind::FunctionDeclaration,
        };
        return (kind, function_name(head));
    }
    let is_variable = words.iter().any(|w| matches!(*w, ".global" | ".shared" | ".const" | ".local"));
    if is_variable {
        let name_end = head.find(['[', '=', '<']).unwrap_or(head.len());
        let name =
            identifiers(&head[..name_end]).into_iter().rfind(|w| !w.starts_with('.')).map(str::to_string);
        return (ItemKind::Variable, name);
    }
    (ItemKind::Other, None)
}

/// The name in `.entry NAME(` or `.func (.param … retval) NAME(`.
fn function_name(head: &str) -> Option<String> {
    let code = strip_comments(head);
    let keyword = code.find(".entry").or_else(|| code.find(".func"))?;
    let mut rest =
        code[keyword..].trim_start_matches(|c: char| c != ' ' && c != '\t' && c != '\n' && c != '(');
    rest = rest.trim_start();
    if rest.starts_with('(') {
        // A return-value list comes first: skip to its closing parenthesis.
        let close = rest.find(')')?;
        rest = rest[close + 1..].trim_start();
    }
    let end = rest.find(|c: char| !is_identifier_char(c)).unwrap_or(rest.len());
    (end > 0).then(|| rest[..end].to_string())
}

#[cfg(test)]
pub(crate) mod tests;
