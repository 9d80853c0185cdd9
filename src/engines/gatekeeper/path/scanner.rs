//! The location-path tokenizer (`pkg/mutation/path/token/scanner.go`).

use super::ErrorKind;
use kadmit_go::strconv::quote;
use std::fmt;
use std::iter::Peekable;
use std::str::Chars;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TokenType {
    Error,
    Eof,
    Ident,
    Int,
    Separator,
    LBracket,
    RBracket,
    Glob,
    Colon,
}

impl TokenType {
    fn name(self) -> &'static str {
        match self {
            TokenType::Error => "ERROR",
            TokenType::Eof => "EOF",
            TokenType::Ident => "IDENT",
            TokenType::Int => "INT",
            TokenType::Separator => "SEPARATOR",
            TokenType::LBracket => "LBRACKET",
            TokenType::RBracket => "RBRACKET",
            TokenType::Glob => "GLOB",
            TokenType::Colon => "COLON",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Token {
    pub kind: TokenType,
    pub literal: String,
}

impl Token {
    fn new(kind: TokenType, literal: impl Into<String>) -> Token {
        Token {
            kind,
            literal: literal.into(),
        }
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.name(), quote(&self.literal, false))
    }
}

pub(super) struct Scanner<'a> {
    chars: Peekable<Chars<'a>>,
    err: Option<ErrorKind>,
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

impl<'a> Scanner<'a> {
    pub fn new(input: &'a str) -> Scanner<'a> {
        Scanner {
            chars: input.chars().peekable(),
            err: None,
        }
    }

    /// The first error met so far; once set, every later identifier or integer is an ERROR.
    #[cfg(test)]
    pub fn error(&self) -> Option<ErrorKind> {
        self.err
    }

    pub fn next_token(&mut self) -> Token {
        while self
            .chars
            .next_if(|c| matches!(c, ' ' | '\t' | '\r' | '\n'))
            .is_some()
        {}
        let Some(c) = self.chars.next() else {
            return Token::new(TokenType::Eof, "");
        };
        let single = match c {
            '.' => Some(TokenType::Separator),
            '[' => Some(TokenType::LBracket),
            ']' => Some(TokenType::RBracket),
            '*' => Some(TokenType::Glob),
            ':' => Some(TokenType::Colon),
            _ => None,
        };
        if let Some(kind) = single {
            return Token::new(kind, c);
        }
        match c {
            '"' | '\'' => self.quoted(c),
            c if c.is_ascii_digit() => self.run(c, TokenType::Int, |c| c.is_ascii_digit()),
            c if is_ident_char(c) => self.run(c, TokenType::Ident, is_ident_char),
            c => {
                self.fail(ErrorKind::InvalidCharacter);
                Token::new(TokenType::Error, c)
            }
        }
    }

    fn fail(&mut self, err: ErrorKind) {
        self.err.get_or_insert(err);
    }

    fn sticky(&self, kind: TokenType, literal: String) -> Token {
        let kind = if self.err.is_some() {
            TokenType::Error
        } else {
            kind
        };
        Token::new(kind, literal)
    }

    fn run(&mut self, first: char, kind: TokenType, accept: fn(char) -> bool) -> Token {
        let mut literal = String::from(first);
        while let Some(c) = self.chars.next_if(|&c| accept(c)) {
            literal.push(c);
        }
        self.sticky(kind, literal)
    }

    fn quoted(&mut self, delimiter: char) -> Token {
        let mut literal = String::new();
        loop {
            match self.chars.next() {
                Some(c) if c == delimiter => return self.sticky(TokenType::Ident, literal),
                Some('\\') => match self.chars.next() {
                    Some(escaped) => literal.push(escaped),
                    None => break,
                },
                Some(c) => literal.push(c),
                None => break,
            }
        }
        self.fail(ErrorKind::UnterminatedString);
        Token::new(TokenType::Error, literal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use TokenType::*;

    fn scan(input: &str) -> (Vec<(TokenType, String)>, Option<ErrorKind>) {
        let mut s = Scanner::new(input);
        let mut out = Vec::new();
        loop {
            let t = s.next_token();
            let done = t.kind == Eof;
            out.push((t.kind, t.literal));
            if done {
                return (out, s.error());
            }
        }
    }

    fn toks(list: &[(TokenType, &str)]) -> Vec<(TokenType, String)> {
        list.iter().map(|(k, l)| (*k, (*l).to_owned())).collect()
    }

    #[test]
    fn punctuation_identifiers_and_integers() {
        let (got, err) = scan(" a-1_b [ k :\t*]\r\n. 007x ");
        assert_eq!(
            got,
            toks(&[
                (Ident, "a-1_b"),
                (LBracket, "["),
                (Ident, "k"),
                (Colon, ":"),
                (Glob, "*"),
                (RBracket, "]"),
                (Separator, "."),
                (Int, "007"),
                (Ident, "x"),
                (Eof, ""),
            ])
        );
        assert_eq!(err, None);
    }

    #[test]
    fn a_backslash_escapes_any_rune_literally() {
        let (got, _) = scan(
            r#""a\"b\\c\td" 'it\'s' "é🐙
""#,
        );
        assert_eq!(
            got,
            toks(&[
                (Ident, "a\"b\\ctd"),
                (Ident, "it's"),
                (Ident, "é🐙\n"),
                (Eof, ""),
            ])
        );
    }

    #[test]
    fn unterminated_strings_keep_their_partial_content() {
        assert_eq!(
            scan("'ab\\'c"),
            (
                toks(&[(Error, "ab'c"), (Eof, "")]),
                Some(ErrorKind::UnterminatedString)
            )
        );
        assert_eq!(
            scan("\"ab\\"),
            (
                toks(&[(Error, "ab"), (Eof, "")]),
                Some(ErrorKind::UnterminatedString)
            )
        );
    }

    #[test]
    fn errors_are_sticky_for_identifiers_and_integers() {
        let (got, err) = scan("a/b.12@'q'[");
        assert_eq!(
            got,
            toks(&[
                (Ident, "a"),
                (Error, "/"),
                (Error, "b"),
                (Separator, "."),
                (Error, "12"),
                (Error, "@"),
                (Error, "q"),
                (LBracket, "["),
                (Eof, ""),
            ])
        );
        assert_eq!(err, Some(ErrorKind::InvalidCharacter));
    }

    #[test]
    fn tokens_print_like_go() {
        assert_eq!(Token::new(Error, "/").to_string(), r#"ERROR: "/""#);
        assert_eq!(Token::new(Eof, "").to_string(), r#"EOF: """#);
        assert_eq!(
            Token::new(Ident, "a\"b\n\u{7}").to_string(),
            r#"IDENT: "a\"b\n\a""#
        );
    }
}
