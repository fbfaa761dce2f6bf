//! Tokens of PTX text, each with the line and column where it starts.
//!
//! Comments are dropped here, so nothing after the lexer ever mistakes a name in a comment for
//! a reference. A word is a directive (`.reg`), an opcode with its modifiers
//! (`ld.param::entry.b64`), a register (`%r12`, `%tid.x`), a label or a symbol; `::` belongs to
//! the word, a single `:` ends a label. A number is everything from a leading digit through
//! letters, digits and dots (`16`, `0f3F800000`, `0x1F`, `1.5`); a sign is its own token.

use super::PtxError;

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    Word,
    Number,
    /// A string literal, quotes included (`.pragma "nounroll";`).
    Str,
    /// One punctuation character: `{ } ( ) [ ] , ; : @ ! + - < > = |`.
    Punct(char),
}

/// One token and where it starts (1-based line and column).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token<'t> {
    pub kind: TokenKind,
    pub text: &'t str,
    pub line: usize,
    pub column: usize,
}

impl Token<'_> {
    pub fn is_punct(&self, c: char) -> bool {
        self.kind == TokenKind::Punct(c)
    }
}

const PUNCTUATION: &str = "{}()[],;:@!+-<>=|*";

fn is_word_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || matches!(c, b'_' | b'$' | b'%' | b'.')
}

fn is_word_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.')
}

/// Splits `text`, which starts at `line`:`column` of its file, into tokens.
pub fn tokenize(text: &str, line: usize, column: usize) -> Result<Vec<Token<'_>>, PtxError> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let (mut i, mut line, mut column) = (0usize, line, column);
    // Moves `i` forward to `end`, keeping line and column in step (text is ASCII up to `end`
    // except inside comments and strings, where a non-ASCII character counts as one column).
    let advance = |i: &mut usize, end: usize, line: &mut usize, column: &mut usize| {
        for &b in &bytes[*i..end] {
            if b == b'\n' {
                *line += 1;
                *column = 1;
            } else if b & 0xC0 != 0x80 {
                *column += 1;
            }
        }
        *i = end;
    };
    while i < bytes.len() {
        let c = bytes[i];
        let (start_line, start_column) = (line, column);
        let error = |message: String| PtxError { line: start_line, column: start_column, message };
        if c.is_ascii_whitespace() {
            let end = i + 1;
            advance(&mut i, end, &mut line, &mut column);
            continue;
        }
        let end = if c == b'/' && bytes.get(i + 1) == Some(&b'/') {
            let end = text[i..].find('\n').map_or(bytes.len(), |e| i + e);
            advance(&mut i, end, &mut line, &mut column);
            continue;
        } else if c == b'/' && bytes.get(i + 1) == Some(&b'*') {
            let Some(close) = text[i + 2..].find("*/") else {
                return Err(error("unterminated block comment (`/*` without `*/`)".into()));
            };
            let end = i + 2 + close + 2;
            advance(&mut i, end, &mut line, &mut column);
            continue;
        } else if c == b'"' {
            match text[i + 1..].find(['"', '\n']) {
                Some(close) if bytes[i + 1 + close] == b'"' => {
                    push(&mut tokens, TokenKind::Str, text, i, i + close + 2, line, column);
                    i + close + 2
                }
                _ => return Err(error("unterminated string literal".into())),
            }
        } else if is_word_start(c) {
            let mut end = i + 1;
            loop {
                if end < bytes.len() && is_word_char(bytes[end]) {
                    end += 1;
                } else if bytes[end..].starts_with(b"::")
                    && bytes.get(end + 2).is_some_and(|&b| is_word_char(b))
                {
                    end += 2;
                } else {
                    break;
                }
            }
            push(&mut tokens, TokenKind::Word, text, i, end, line, column);
            end
        } else if c.is_ascii_digit() {
            let mut end = i + 1;
            while end < bytes.len() && is_word_char(bytes[end]) {
                end += 1;
            }
            push(&mut tokens, TokenKind::Number, text, i, end, line, column);
            end
        } else if c.is_ascii() && PUNCTUATION.contains(char::from(c)) {
            push(&mut tokens, TokenKind::Punct(char::from(c)), text, i, i + 1, line, column);
            i + 1
        } else {
            let shown = text[i..].chars().next().unwrap_or('?');
            return Err(error(format!("unexpected character `{shown}`")));
        };
        advance(&mut i, end, &mut line, &mut column);
    }
    Ok(tokens)
}

fn push<'t>(
    tokens: &mut Vec<Token<'t>>,
    kind: TokenKind,
    text: &'t str,
    start: usize,
    end: usize,
    line: usize,
    column: usize,
) {
    tokens.push(Token { kind, text: &text[start..end], line, column });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(TokenKind, &str)> {
        tokenize(text, 1, 1).unwrap().into_iter().map(|t| (t.kind, t.text)).collect()
    }

    #[test]
    fn words_keep_modifiers_and_double_colons_but_labels_end_at_one_colon() {
        use TokenKind::*;
        assert_eq!(
            kinds("$L__BB3_2:\n\tld.param::entry.b64 %rd9, [p+8]; // note"),
            [
                (Word, "$L__BB3_2"),
                (Punct(':'), ":"),
                (Word, "ld.param::entry.b64"),
                (Word, "%rd9"),
                (Punct(','), ","),
                (Punct('['), "["),
                (Word, "p"),
                (Punct('+'), "+"),
                (Number, "8"),
                (Punct(']'), "]"),
                (Punct(';'), ";"),
            ]
        );
        assert_eq!(kinds("mov.b32 %r1, 0f3F800000;")[3], (Number, "0f3F800000"));
    }

    #[test]
    fn positions_count_from_the_given_start_and_skip_comments() {
        let tokens = tokenize("/* a\n b */ ret;\n  exit;", 10, 5).unwrap();
        let at: Vec<_> = tokens.iter().map(|t| (t.text, t.line, t.column)).collect();
        assert_eq!(at, [("ret", 11, 7), (";", 11, 10), ("exit", 12, 3), (";", 12, 7)]);
    }

    #[test]
    fn stray_characters_and_open_comments_are_errors_with_positions() {
        let error = tokenize("ret;\n  mov ^", 1, 1).unwrap_err();
        assert_eq!((error.line, error.column), (2, 7));
        assert!(error.message.contains('^'));
        let error = tokenize("ret; /* open", 3, 1).unwrap_err();
        assert_eq!((error.line, error.column), (3, 6));
        assert!(tokenize("x \"open\n\";", 1, 1).is_err());
    }
}
