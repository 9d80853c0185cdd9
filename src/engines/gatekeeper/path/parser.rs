//! The location-path parser (`pkg/mutation/path/parser/parser.go`) and the canonical
//! rendering of a path (`Path.String()` in `node.go`).

use super::scanner::{Scanner, Token, TokenType};
use super::{KeyValue, Node, Path};
use std::fmt;

/// Gatekeeper's error kinds (`ErrTrailingSeparator`, `ErrUnexpectedToken`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    TrailingSeparator,
    UnexpectedToken,
    InvalidInteger,
    InvalidCharacter,
    UnterminatedString,
}

/// A location that does not parse; `message` is Gatekeeper's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub kind: ErrorKind,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseError {}

/// Parses a location. The empty string is a valid, empty path.
pub fn parse(input: &str) -> Result<Path, ParseError> {
    let mut scanner = Scanner::new(input);
    let cur = scanner.next_token();
    let peek = scanner.next_token();
    Parser { scanner, cur, peek }.path()
}

/// A one-token-lookahead parser: `cur` is the token being looked at, `peek` the next one.
struct Parser<'a> {
    scanner: Scanner<'a>,
    cur: Token,
    peek: Token,
}

fn unexpected(expected: &str, got: &Token) -> ParseError {
    ParseError {
        kind: ErrorKind::UnexpectedToken,
        message: format!("unexpected token: expected {expected}, got: {got}"),
    }
}

impl Parser<'_> {
    fn advance(&mut self) {
        self.cur = std::mem::replace(&mut self.peek, self.scanner.next_token());
    }

    /// Advances when the next token is `kind`; otherwise the "expected ..." error.
    fn expect_peek(&mut self, kind: TokenType, expected: &str) -> Result<(), ParseError> {
        if self.peek.kind != kind {
            return Err(unexpected(expected, &self.peek));
        }
        self.advance();
        Ok(())
    }

    fn path(mut self) -> Result<Path, ParseError> {
        let mut nodes = Vec::new();
        while self.cur.kind != TokenType::Eof {
            if self.cur.kind != TokenType::Ident {
                return Err(unexpected("field name or eof", &self.cur));
            }
            nodes.push(Node::Object(std::mem::take(&mut self.cur.literal)));
            if self.peek.kind == TokenType::LBracket {
                self.advance();
                nodes.push(self.list_spec()?);
            }
            match self.peek.kind {
                TokenType::Eof => {}
                TokenType::Separator => {
                    self.advance();
                    if self.peek.kind == TokenType::Eof {
                        return Err(ParseError {
                            kind: ErrorKind::TrailingSeparator,
                            message: "trailing separators are forbidden".to_owned(),
                        });
                    }
                }
                _ => return Err(unexpected("'.' or eof", &self.peek)),
            }
            self.advance();
        }
        Ok(Path { nodes })
    }

    /// `[key: value]` or `[key: *]`, starting with `[` as the current token.
    fn list_spec(&mut self) -> Result<Node, ParseError> {
        self.expect_peek(TokenType::Ident, "keyField in listSpec")?;
        let key_field = std::mem::take(&mut self.cur.literal);
        self.expect_peek(
            TokenType::Colon,
            &format!("':' following keyField {key_field}"),
        )?;
        let key_value = match self.peek.kind {
            TokenType::Glob => None,
            TokenType::Ident => Some(KeyValue::String(self.peek.literal.clone())),
            TokenType::Int => Some(KeyValue::Int(parse_int(&self.peek.literal, &key_field)?)),
            _ => return Err(unexpected("key value or glob in listSpec", &self.peek)),
        };
        self.advance();
        self.expect_peek(TokenType::RBracket, "']' following listSpec")?;
        Ok(Node::List {
            key_field,
            key_value,
        })
    }
}

/// An INT token's value; the scanner guarantees ASCII digits only.
fn parse_int(digits: &str, key_field: &str) -> Result<i64, ParseError> {
    digits
        .bytes()
        .try_fold(0i64, |n, d| n.checked_mul(10)?.checked_add(i64::from(d - b'0')))
        .ok_or_else(|| ParseError {
            kind: ErrorKind::InvalidInteger,
            message: format!(
                "invalid integer: overflow in integer string: {digits}: parsing key value for key: {key_field}"
            ),
        })
}

/// Gatekeeper's `quote`: double quotes (escaping only `"` and `\`) when the string is
/// empty, starts with a digit or holds a character with meaning in a path. Other
/// characters that are not valid in a bare identifier are left unquoted, as upstream does.
fn write_name(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    let needs_quotes = s.is_empty()
        || s.starts_with(|c: char| c.is_ascii_digit())
        || s.contains(['\'', '"', '\t', '\n', ' ', '\\', '*', '[', ']', ':', '.']);
    if !needs_quotes {
        return f.write_str(s);
    }
    f.write_str("\"")?;
    for c in s.chars() {
        if matches!(c, '"' | '\\') {
            f.write_str("\\")?;
        }
        write!(f, "{c}")?;
    }
    f.write_str("\"")
}

impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Node::Object(name) => write_name(f, name),
            Node::List {
                key_field,
                key_value,
            } => {
                f.write_str("[")?;
                write_name(f, key_field)?;
                f.write_str(": ")?;
                match key_value {
                    None => f.write_str("*")?,
                    Some(KeyValue::String(s)) => write_name(f, s)?,
                    Some(KeyValue::Int(n)) => write!(f, "{n}")?,
                }
                f.write_str("]")
            }
        }
    }
}

/// `Path.String()`: object segments joined by `.`, list segments appended directly.
impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, node) in self.nodes.iter().enumerate() {
            if i > 0 && matches!(node, Node::Object(_)) {
                f.write_str(".")?;
            }
            write!(f, "{node}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int_value(input: &str) -> Result<i64, ParseError> {
        match parse(input)?.nodes.last() {
            Some(Node::List {
                key_value: Some(KeyValue::Int(n)),
                ..
            }) => Ok(*n),
            other => panic!("{input}: not an int list node: {other:?}"),
        }
    }

    #[test]
    fn integers_reject_anything_above_i64_max() {
        assert_eq!(int_value("a[k: 0009223372036854775807]"), Ok(i64::MAX));
        for digits in [
            "9223372036854775808",
            "18446744073709551616",
            "99999999999999999999",
        ] {
            let err = parse(&format!("a[k: {digits}]")).unwrap_err();
            assert_eq!(err.kind, ErrorKind::InvalidInteger, "{digits}");
            assert!(
                err.message.contains(&format!("string: {digits}: ")),
                "{err}"
            );
        }
    }

    #[test]
    fn overflow_is_reported_before_a_missing_bracket() {
        let err = parse("a[k: 99999999999999999999 x").unwrap_err();
        assert_eq!(err.kind, ErrorKind::InvalidInteger);
    }

    #[test]
    fn scanner_errors_surface_as_unexpected_tokens() {
        let err = parse("a.\"open").unwrap_err();
        assert_eq!(err.kind, ErrorKind::UnexpectedToken);
        assert_eq!(
            err.message,
            r#"unexpected token: expected field name or eof, got: ERROR: "open""#
        );
        let err = parse("a[k: @]").unwrap_err();
        assert_eq!(
            err.message,
            r#"unexpected token: expected key value or glob in listSpec, got: ERROR: "@""#
        );
    }

    #[test]
    fn trailing_separator_after_a_list() {
        let err = parse("a[k: v].").unwrap_err();
        assert_eq!(err.kind, ErrorKind::TrailingSeparator);
    }

    #[test]
    fn quoted_names_render_with_only_quote_and_backslash_escaped() {
        let path = parse(r#"'a\'b'."c\"d"."e\\f"."tab	in"[k: 'x"y']"#).unwrap();
        assert_eq!(
            path.to_string(),
            "\"a'b\".\"c\\\"d\".\"e\\\\f\".\"tab\tin\"[k: \"x\\\"y\"]"
        );
        assert_eq!(parse(&path.to_string()), Ok(path));
    }

    #[test]
    fn rendering_of_globs_and_integers() {
        let path = parse("a[\"*\": *].b[\"\": 7].c").unwrap();
        assert_eq!(path.to_string(), r#"a["*": *].b["": 7].c"#);
    }
}
