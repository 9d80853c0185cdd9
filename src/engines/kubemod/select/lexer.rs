//! Tokens the way Go's `text/scanner` produces them in `GoTokens` mode, which is what
//! gval reads: identifiers, numbers, the three kinds of quoted literal, comments skipped
//! as whitespace, and every other character as a token of its own. gval also peeks at
//! raw characters to glue operators together, so the lexer exposes that too.

/// A token's class (`scanner.Ident`, `scanner.Int`, … or a single character).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    Eof,
    Ident,
    Int,
    Float,
    /// A `'…'` literal.
    Char,
    /// A `"…"` literal.
    Str,
    /// A `` `…` `` literal.
    RawStr,
    Punct(char),
}

/// One token: its class and its byte range in the source.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Token {
    pub tok: Tok,
    pub start: usize,
    pub end: usize,
}

pub(crate) struct Lexer<'s> {
    src: &'s str,
    pos: usize,
}

impl<'s> Lexer<'s> {
    pub fn new(src: &'s str) -> Self {
        Lexer { src, pos: 0 }
    }

    pub fn text(&self, token: &Token) -> &'s str {
        &self.src[token.start..token.end]
    }

    /// The next raw character, whitespace included (`scanner.Peek`).
    pub fn peek_char(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    /// Consumes one raw character (`scanner.Next`).
    pub fn next_char(&mut self) -> Option<char> {
        let c = self.peek_char()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.src.get(self.pos + offset..)?.chars().next()
    }

    /// `scanner.Scan`: skips whitespace and comments, returns the next token.
    pub fn scan(&mut self) -> Token {
        self.skip_space_and_comments();
        let start = self.pos;
        let Some(c) = self.next_char() else {
            return Token {
                tok: Tok::Eof,
                start,
                end: start,
            };
        };
        let tok = if is_ident_start(c) {
            while self.peek_char().is_some_and(is_ident_rune) {
                self.next_char();
            }
            Tok::Ident
        } else if c.is_ascii_digit()
            || (c == '.' && self.peek_char().is_some_and(|d| d.is_ascii_digit()))
        {
            self.pos = start;
            self.scan_number()
        } else {
            match c {
                '"' => {
                    self.scan_quoted('"');
                    Tok::Str
                }
                '\'' => {
                    self.scan_quoted('\'');
                    Tok::Char
                }
                '`' => {
                    while let Some(d) = self.next_char() {
                        if d == '`' {
                            break;
                        }
                    }
                    Tok::RawStr
                }
                other => Tok::Punct(other),
            }
        };
        Token {
            tok,
            start,
            end: self.pos,
        }
    }

    fn skip_space_and_comments(&mut self) {
        loop {
            match self.peek_char() {
                Some(' ' | '\t' | '\n' | '\r') => {
                    self.next_char();
                }
                Some('/') if self.peek_at(1) == Some('/') => {
                    while let Some(c) = self.next_char() {
                        if c == '\n' {
                            break;
                        }
                    }
                }
                Some('/') if self.peek_at(1) == Some('*') => {
                    self.pos += 2;
                    match self.src[self.pos..].find("*/") {
                        Some(i) => self.pos += i + 2,
                        None => self.pos = self.src.len(),
                    }
                }
                _ => return,
            }
        }
    }

    /// Reads up to the closing quote; a newline or the end leaves the literal open,
    /// which `unquote` later rejects.
    fn scan_quoted(&mut self, quote: char) {
        while let Some(c) = self.peek_char() {
            if c == '\n' {
                return;
            }
            self.next_char();
            if c == quote {
                return;
            }
            if c == '\\' && self.peek_char().is_some_and(|d| d != '\n') {
                self.next_char();
            }
        }
    }

    /// Go 1.18 `scanNumber`: prefixes `0x 0o 0b`, `_` separators, fractions, exponents.
    fn scan_number(&mut self) -> Tok {
        let mut tok = Tok::Int;
        let mut hex = false;
        if self.peek_char() == Some('0') {
            if let Some(p) = self.peek_at(1).filter(|p| "xXoObB".contains(*p)) {
                self.pos += 2;
                hex = matches!(p, 'x' | 'X');
            }
        }
        let digit = |c: char| {
            c == '_'
                || if hex {
                    c.is_ascii_hexdigit()
                } else {
                    c.is_ascii_digit()
                }
        };
        while self.peek_char().is_some_and(digit) {
            self.next_char();
        }
        if self.peek_char() == Some('.') {
            tok = Tok::Float;
            self.next_char();
            while self.peek_char().is_some_and(digit) {
                self.next_char();
            }
        }
        let exp = if hex { ['p', 'P'] } else { ['e', 'E'] };
        if self.peek_char().is_some_and(|c| exp.contains(&c)) {
            tok = Tok::Float;
            self.next_char();
            if matches!(self.peek_char(), Some('+' | '-')) {
                self.next_char();
            }
            while self
                .peek_char()
                .is_some_and(|c| c == '_' || c.is_ascii_digit())
            {
                self.next_char();
            }
        }
        tok
    }
}

fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn is_ident_rune(c: char) -> bool {
    c == '_' || c.is_alphabetic() || c.is_ascii_digit() || (!c.is_ascii() && c.is_numeric())
}

/// 1-based line and column (in characters) of a byte offset.
pub(crate) fn line_column(src: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(src.len());
    let before = &src[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(src: &str) -> Vec<(Tok, String)> {
        let mut lexer = Lexer::new(src);
        let mut out = Vec::new();
        loop {
            let t = lexer.scan();
            if t.tok == Tok::Eof {
                return out;
            }
            out.push((t.tok, lexer.text(&t).to_string()));
        }
    }

    #[test]
    fn scans_go_tokens() {
        use Tok::*;
        let got = tokens(r#"$.a_1[0] == "x\"y" /* c */ && 'q' // rest"#);
        let want = vec![
            (Punct('$'), "$"),
            (Punct('.'), "."),
            (Ident, "a_1"),
            (Punct('['), "["),
            (Int, "0"),
            (Punct(']'), "]"),
            (Punct('='), "="),
            (Punct('='), "="),
            (Str, r#""x\"y""#),
            (Punct('&'), "&"),
            (Punct('&'), "&"),
            (Char, "'q'"),
        ];
        let want: Vec<_> = want.into_iter().map(|(t, s)| (t, s.to_string())).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn scans_numbers() {
        use Tok::*;
        assert_eq!(tokens("1.5e3")[0], (Float, "1.5e3".into()));
        assert_eq!(tokens(".5")[0], (Float, ".5".into()));
        assert_eq!(tokens("0x1F")[0], (Int, "0x1F".into()));
        assert_eq!(tokens("$.0")[1], (Float, ".0".into()));
        assert_eq!(tokens("1..2")[0], (Float, "1.".into()));
    }

    #[test]
    fn columns_count_characters() {
        assert_eq!(line_column("é$x", 3), (1, 3));
        assert_eq!(line_column("a\nbc", 3), (2, 2));
    }
}
