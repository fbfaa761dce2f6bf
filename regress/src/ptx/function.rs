//! The inside of one `.entry` or `.func`: parameters, register and variable declarations, and
//! the body as basic blocks of instructions.
//!
//! Nested scopes (`{ // callseq … }`, inline-assembly blocks with their own `.reg`) are
//! flattened into the function's blocks: their declarations count as the function's, their
//! instructions stay in order. A block ends at a label and after a branch, return, exit or trap.
//! The body is also kept as written, as [`Statement`]s with the scope boundaries in place, for
//! readers to whom a scope matters (which register a name means, what may move where).

use super::PtxError;
use super::instruction::{Atom, Instruction, Operand};
use super::lexer::{Token, TokenKind, tokenize};

/// Whether a function is a kernel entry or a device function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FunctionKind {
    Entry,
    Func,
}

/// A parameter (or return value) declaration: `.param .u64 .ptr .align 1 k_param_0`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    pub name: String,
    /// The directive words before the name, in order: `.param`, `.u64`, `.ptr`, `.align`.
    pub attributes: Vec<String>,
    /// The element count of an array parameter (`[16]`).
    pub array: Option<u64>,
}

/// A register declaration: `.reg .b32 %r<12>;` declares `%r0`…`%r11`; `.reg .pred done;`
/// declares one register by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisterDecl {
    /// The register type: `pred`, `b32`, `f64`, ….
    pub ty: String,
    /// The name, or for a parameterized declaration the prefix (`%r`).
    pub name: String,
    /// How many registers the declaration makes: the `N` of `%r<N>`, else 1.
    pub count: u64,
    pub parameterized: bool,
}

impl RegisterDecl {
    /// The register class by width: `pred`, `16`, `32`, `64` or `128`.
    pub fn class(&self) -> &'static str {
        register_class(&self.ty)
    }
}

/// The class of a register type: `pred`, or its width in bits.
pub fn register_class(ty: &str) -> &'static str {
    match ty {
        "pred" => "pred",
        "b8" | "u8" | "s8" => "8",
        "b16" | "u16" | "s16" | "f16" | "bf16" => "16",
        "b32" | "u32" | "s32" | "f32" | "f16x2" | "bf16x2" => "32",
        "b64" | "u64" | "s64" | "f64" => "64",
        "b128" => "128",
        _ => "other",
    }
}

/// A variable declared inside a function: `.local .align 4 .b8 __local_depot0[32];`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariableDecl {
    /// `local`, `shared`, `param`, `const` or `global`.
    pub space: String,
    pub name: String,
    /// The element type: `b8`, `u32`, ….
    pub ty: String,
    /// The element count (1 for a scalar).
    pub count: u64,
}

impl VariableDecl {
    /// Size in bytes: element width times count (0 for an element type of unknown width).
    pub fn bytes(&self) -> u64 {
        let bits: u64 = self.ty.trim_start_matches(|c: char| c.is_ascii_alphabetic()).parse().unwrap_or(0);
        bits / 8 * self.count
    }
}

/// One statement of a body in source order, scope boundaries included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Statement {
    /// `{`: a nested scope opens.
    OpenScope,
    /// `}`: the innermost nested scope closes.
    CloseScope,
    Label(String),
    /// A declaration or other directive, its tokens joined by single spaces (`.local .align 8
    /// .b8 __local_depot0 [ 32 ]`), with the registers it declares (none for other directives).
    Directive {
        text: String,
        registers: Vec<RegisterDecl>,
    },
    Instruction(Instruction),
}

/// A straight-line run of instructions: from a label (or the start, or the end of the
/// previous block) to the next label or past a branch.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Block {
    pub label: Option<String>,
    pub instructions: Vec<Instruction>,
}

/// A function with its body read.
#[derive(Debug, Clone)]
pub struct Function {
    pub kind: FunctionKind,
    pub name: String,
    pub returns: Vec<Param>,
    pub params: Vec<Param>,
    pub registers: Vec<RegisterDecl>,
    pub variables: Vec<VariableDecl>,
    /// Directives in the body other than declarations, verbatim (`.pragma "nounroll"`).
    pub other_directives: Vec<String>,
    /// Performance directives between the signature and the body, each as its tokens joined by
    /// single spaces (`.reqntid 128 , 1 , 1`), in order.
    pub performance_directives: Vec<String>,
    /// The body as written, with nested scopes (empty for a prototype).
    pub statements: Vec<Statement>,
    /// `None` for a prototype (`.func f(…);`).
    pub blocks: Option<Vec<Block>>,
    pub line: usize,
    pub column: usize,
}

impl Function {
    /// Every instruction of the body, in order.
    pub fn instructions(&self) -> impl Iterator<Item = &Instruction> {
        self.blocks.iter().flatten().flat_map(|block| &block.instructions)
    }

    /// The names of the functions this one calls, in order of first call.
    pub fn callees(&self) -> Vec<&str> {
        let mut callees: Vec<&str> = Vec::new();
        for callee in self.instructions().filter_map(Instruction::callee) {
            if !callees.contains(&callee) {
                callees.push(callee);
            }
        }
        callees
    }

    /// Bytes of `.local` variables: the depot LLVM makes for spills and stack arrays.
    pub fn local_bytes(&self) -> u64 {
        self.variables.iter().filter(|v| v.space == "local").map(VariableDecl::bytes).sum()
    }

    /// Is `name` a register this function declares?
    pub fn declares_register(&self, name: &str) -> bool {
        self.registers.iter().any(|decl| {
            if decl.parameterized {
                name.strip_prefix(decl.name.as_str())
                    .is_some_and(|index| !index.is_empty() && index.bytes().all(|b| b.is_ascii_digit()))
            } else {
                name == decl.name
            }
        })
    }
}

/// Reads the function defined by `text`, which starts at `line`:`column` of its file.
pub fn parse(text: &str, line: usize, column: usize) -> Result<Function, PtxError> {
    let tokens = tokenize(text, line, column)?;
    let mut parser = Parser { tokens: &tokens, at: 0, end: (line, column) };
    if let Some(last) = tokens.last() {
        parser.end = (last.line, last.column);
    }
    parser.function()
}

struct Parser<'a, 't> {
    tokens: &'a [Token<'t>],
    at: usize,
    /// Where errors at the end of input point: the last token.
    end: (usize, usize),
}

impl<'t> Parser<'_, 't> {
    fn peek(&self) -> Option<Token<'t>> {
        self.tokens.get(self.at).copied()
    }

    fn next(&mut self) -> Result<Token<'t>, PtxError> {
        let token = self.peek().ok_or_else(|| self.error_at_end("the function ends too early"))?;
        self.at += 1;
        Ok(token)
    }

    fn error_at_end(&self, message: &str) -> PtxError {
        PtxError { line: self.end.0, column: self.end.1, message: message.to_string() }
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek().is_some_and(|t| t.is_punct(c)) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char, what: &str) -> Result<Token<'t>, PtxError> {
        let token = self.next()?;
        if token.is_punct(c) { Ok(token) } else { Err(error(token, &format!("expected `{c}` {what}"))) }
    }

    fn function(&mut self) -> Result<Function, PtxError> {
        let first = self.peek().ok_or_else(|| self.error_at_end("an empty function"))?;
        let kind = loop {
            let token = self.next()?;
            match token.text {
                ".entry" => break FunctionKind::Entry,
                ".func" => break FunctionKind::Func,
                ".visible" | ".extern" | ".weak" | ".common" => {}
                _ => return Err(error(token, "expected `.entry` or `.func`")),
            }
        };
        let returns = if self.peek().is_some_and(|t| t.is_punct('(')) { self.params()? } else { Vec::new() };
        let name = self.next()?;
        if name.kind != TokenKind::Word {
            return Err(error(name, "expected the function's name"));
        }
        let params = if self.peek().is_some_and(|t| t.is_punct('(')) { self.params()? } else { Vec::new() };
        let mut function = Function {
            kind,
            name: name.text.to_string(),
            returns,
            params,
            registers: Vec::new(),
            variables: Vec::new(),
            other_directives: Vec::new(),
            performance_directives: Vec::new(),
            statements: Vec::new(),
            blocks: None,
            line: first.line,
            column: first.column,
        };
        // Performance directives (`.maxntid 128, 1, 1`, `.noreturn`) until the body or `;`.
        loop {
            let token = self.next()?;
            if token.is_punct(';') {
                break;
            }
            if token.is_punct('{') {
                let mut body = Body { blocks: vec![Block::default()], statements: Vec::new() };
                self.body(&mut function, &mut body)?;
                body.blocks.retain(|block| block.label.is_some() || !block.instructions.is_empty());
                function.blocks = Some(body.blocks);
                function.statements = body.statements;
                break;
            }
            match token.kind {
                TokenKind::Word if token.text.starts_with('.') => {
                    function.performance_directives.push(token.text.to_string());
                }
                TokenKind::Word | TokenKind::Number | TokenKind::Punct(',') => {
                    let Some(directive) = function.performance_directives.last_mut() else {
                        return Err(error(token, "expected a performance directive, `{` or `;`"));
                    };
                    directive.push(' ');
                    directive.push_str(token.text);
                }
                _ => return Err(error(token, "expected a performance directive, `{` or `;`")),
            }
        }
        if let Some(extra) = self.peek() {
            return Err(error(extra, "text after the end of the function"));
        }
        Ok(function)
    }

    /// `( decl, decl, … )`.
    fn params(&mut self) -> Result<Vec<Param>, PtxError> {
        self.expect('(', "to open the parameter list")?;
        let mut params = Vec::new();
        if self.eat(')') {
            return Ok(params);
        }
        loop {
            let mut attributes = Vec::new();
            let mut last_word: Option<Token> = None;
            let mut array = None;
            loop {
                let token = self.next()?;
                match token.kind {
                    TokenKind::Word if token.text.starts_with('.') => {
                        if let Some(word) = last_word.take() {
                            return Err(error(word, "a parameter's name must come last"));
                        }
                        attributes.push(token.text.to_string());
                    }
                    TokenKind::Word => last_word = Some(token),
                    TokenKind::Number if last_word.is_none() => attributes.push(token.text.to_string()),
                    TokenKind::Punct('[') => {
                        let count = self.next()?;
                        array = Some(number(count)?);
                        self.expect(']', "after the array size")?;
                    }
                    TokenKind::Punct(',') | TokenKind::Punct(')') => {
                        let Some(name) = last_word else {
                            return Err(error(token, "a parameter without a name"));
                        };
                        params.push(Param { name: name.text.to_string(), attributes, array });
                        if token.is_punct(')') {
                            return Ok(params);
                        }
                        break;
                    }
                    _ => return Err(error(token, "unexpected token in a parameter list")),
                }
            }
        }
    }

    /// Statements until the `}` that closes the current scope (nested scopes recurse).
    fn body(&mut self, function: &mut Function, body: &mut Body) -> Result<(), PtxError> {
        loop {
            let token = self.next().map_err(|_| self.error_at_end("the function body is never closed"))?;
            match token.kind {
                TokenKind::Punct('}') => return Ok(()),
                TokenKind::Punct('{') => {
                    body.statements.push(Statement::OpenScope);
                    self.body(function, body)?;
                    body.statements.push(Statement::CloseScope);
                }
                TokenKind::Punct(';') => {}
                TokenKind::Word if self.peek().is_some_and(|t| t.is_punct(':')) => {
                    self.at += 1;
                    body.statements.push(Statement::Label(token.text.to_string()));
                    body.blocks.push(Block { label: Some(token.text.to_string()), instructions: Vec::new() });
                }
                TokenKind::Word if token.text.starts_with('.') => {
                    let declared = function.registers.len();
                    if let Some(text) = self.directive(function, token)? {
                        let registers = function.registers[declared..].to_vec();
                        body.statements.push(Statement::Directive { text, registers });
                    }
                }
                TokenKind::Word | TokenKind::Punct('@') => {
                    let instruction = self.instruction(token)?;
                    let ends = instruction.ends_block();
                    body.statements.push(Statement::Instruction(instruction.clone()));
                    body.blocks.last_mut().expect("a body has a block").instructions.push(instruction);
                    if ends {
                        body.blocks.push(Block::default());
                    }
                }
                _ => return Err(error(token, "expected an instruction, a directive or a label")),
            }
        }
    }

    /// A directive in a body, `first` already read; its text, except for debug-line
    /// directives (which carry no meaning).
    fn directive(&mut self, function: &mut Function, first: Token<'t>) -> Result<Option<String>, PtxError> {
        // Debug-line directives end at the end of their line.
        if matches!(first.text, ".loc" | ".file") {
            while self.peek().is_some_and(|t| t.line == first.line) {
                self.at += 1;
            }
            return Ok(None);
        }
        let start = self.at;
        while !self.peek().is_some_and(|t| t.is_punct(';')) {
            let token = self.next().map_err(|_| error(first, "this directive has no `;`"))?;
            if token.is_punct('{') || token.is_punct('}') {
                return Err(error(token, "a directive may not contain a brace before its `;`"));
            }
        }
        let words = &self.tokens[start..self.at];
        self.at += 1;
        let text =
            std::iter::once(first.text).chain(words.iter().map(|t| t.text)).collect::<Vec<_>>().join(" ");
        match first.text {
            ".reg" => {
                let ty = words
                    .iter()
                    .find(|t| {
                        t.kind == TokenKind::Word
                            && t.text.starts_with('.')
                            && t.text != ".v2"
                            && t.text != ".v4"
                    })
                    .ok_or_else(|| error(first, "a register declaration without a type"))?;
                let ty = ty.text.trim_start_matches('.').to_string();
                for declaration in split_top_level(words, ',') {
                    let names: Vec<&Token> = declaration
                        .iter()
                        .filter(|t| t.kind == TokenKind::Word && !t.text.starts_with('.'))
                        .collect();
                    let Some(name) = names.first() else { continue };
                    let open = declaration.iter().position(|t| t.is_punct('<'));
                    let (count, parameterized) = match open {
                        Some(open) => {
                            let count = declaration
                                .get(open + 1)
                                .ok_or_else(|| error(declaration[open], "`<` without a count"))?;
                            (number(*count)?, true)
                        }
                        None => (1, false),
                    };
                    function.registers.push(RegisterDecl {
                        ty: ty.clone(),
                        name: name.text.to_string(),
                        count,
                        parameterized,
                    });
                }
            }
            ".local" | ".shared" | ".param" | ".const" | ".global" => {
                let ty = words
                    .iter()
                    .rev()
                    .find(|t| t.kind == TokenKind::Word && t.text.starts_with('.'))
                    .map_or("b8", |t| t.text.trim_start_matches('.'))
                    .to_string();
                let name = words
                    .iter()
                    .find(|t| t.kind == TokenKind::Word && !t.text.starts_with('.'))
                    .ok_or_else(|| error(first, "a variable declaration without a name"))?;
                let mut count = 1;
                if let Some(open) = words.iter().position(|t| t.is_punct('[')) {
                    let size = words.get(open + 1).ok_or_else(|| error(first, "`[` without a size"))?;
                    count = number(*size)?;
                }
                let space = first.text.trim_start_matches('.').to_string();
                function.variables.push(VariableDecl { space, name: name.text.to_string(), ty, count });
            }
            _ => function.other_directives.push(text.clone()),
        }
        Ok(Some(text))
    }

    /// An instruction: `[@[!]pred] opcode operand, …;`, its first token already read.
    fn instruction(&mut self, first: Token<'t>) -> Result<Instruction, PtxError> {
        let mut guard = None;
        let mut opcode = first;
        if first.is_punct('@') {
            let negated = self.eat('!');
            let predicate = self.next()?;
            if predicate.kind != TokenKind::Word {
                return Err(error(predicate, "expected a predicate register after `@`"));
            }
            guard = Some(if negated { format!("!{}", predicate.text) } else { predicate.text.to_string() });
            opcode = self.next()?;
        }
        if opcode.kind != TokenKind::Word || opcode.text.starts_with(['.', '%']) {
            return Err(error(opcode, "expected an opcode"));
        }
        let mut operands = Vec::new();
        if !self.eat(';') {
            loop {
                let (operand, end) = self.operand(&[',', ';'])?;
                if operand.0.is_empty() {
                    return Err(error(end, "an empty operand"));
                }
                operands.push(operand);
                if end.is_punct(';') {
                    break;
                }
            }
        }
        Ok(Instruction {
            guard,
            opcode: opcode.text.to_string(),
            operands,
            line: first.line,
            column: first.column,
        })
    }

    /// Atoms up to one of `terminators` at this nesting level; returns the operand and the
    /// terminator read.
    fn operand(&mut self, terminators: &[char]) -> Result<(Operand, Token<'t>), PtxError> {
        let mut atoms = Vec::new();
        loop {
            let token = self.next().map_err(|_| self.error_at_end("an instruction without `;`"))?;
            match token.kind {
                TokenKind::Punct(c) if terminators.contains(&c) => return Ok((Operand(atoms), token)),
                TokenKind::Punct(open @ ('[' | '{' | '(')) => {
                    let close = match open {
                        '[' => ']',
                        '{' => '}',
                        _ => ')',
                    };
                    let mut items = Vec::new();
                    if !self.eat(close) {
                        loop {
                            let (item, end) = self.operand(&[',', close])?;
                            items.push(item);
                            if end.is_punct(close) {
                                break;
                            }
                        }
                    }
                    atoms.push(Atom::Group { open, items });
                }
                TokenKind::Punct(c @ ('+' | '-' | '|' | '!' | '*' | '<' | '>')) => atoms.push(Atom::Punct(c)),
                TokenKind::Word => atoms.push(Atom::Name(token.text.to_string())),
                TokenKind::Number => atoms.push(Atom::Number(token.text.to_string())),
                _ => return Err(error(token, "unexpected token in an operand")),
            }
        }
    }
}

struct Body {
    blocks: Vec<Block>,
    statements: Vec<Statement>,
}

fn error(token: Token, message: &str) -> PtxError {
    PtxError { line: token.line, column: token.column, message: message.to_string() }
}

fn number(token: Token) -> Result<u64, PtxError> {
    if token.kind != TokenKind::Number {
        return Err(error(token, "expected a number"));
    }
    token.text.parse().map_err(|_| error(token, "expected a decimal count"))
}

/// `tokens` split at `separator` outside brackets.
fn split_top_level<'a, 't>(tokens: &'a [Token<'t>], separator: char) -> Vec<&'a [Token<'t>]> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (index, token) in tokens.iter().enumerate() {
        match token.kind {
            TokenKind::Punct('<' | '[' | '(') => depth += 1,
            TokenKind::Punct('>' | ']' | ')') => depth -= 1,
            TokenKind::Punct(c) if c == separator && depth == 0 => {
                parts.push(&tokens[start..index]);
                start = index + 1;
            }
            _ => {}
        }
    }
    parts.push(&tokens[start..]);
    parts
}
