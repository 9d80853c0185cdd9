//! `pattern`: a Go RE2 expression searched unanchored, compiled once per schema node.
//! A pattern Go cannot compile fails every string with Go's parser error text.

use regex::Regex;

pub(super) struct Pattern {
    pub source: String,
    /// The compiled expression, or Go's `error parsing regexp: ...` text.
    pub compiled: Result<Regex, String>,
}

impl Pattern {
    pub fn new(source: &str) -> Pattern {
        let compiled = match go_syntax_error(source) {
            Some(err) => Err(err),
            None => kadmit_go::regexp::compile(&rewrite_go_syntax(source)).map_err(|e| {
                format!(
                    "error parsing regexp: {}",
                    rust_error_summary(&e.to_string())
                )
            }),
        };
        Pattern {
            source: source.to_owned(),
            compiled,
        }
    }
}

/// The `error: ...` line of a `regex` crate error.
fn rust_error_summary(s: &str) -> &str {
    s.lines()
        .rfind(|l| l.starts_with("error:"))
        .map_or(s, |l| l.trim_start_matches("error: "))
}

/// Go syntax the `regex` crate reads otherwise, rewritten: `\Q...\E` quoting, `\<` and
/// `\>` (word boundaries in Rust, plain characters in Go) and a `{` that does not start
/// a valid repetition (a literal in Go).
fn rewrite_go_syntax(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(i) = rest.find(['\\', '{']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 1..];
        if rest[i..].starts_with('{') {
            out.push_str(if repeat_count(&rest[i..]).is_some() {
                "{"
            } else {
                "\\{"
            });
            rest = tail;
            continue;
        }
        match tail.chars().next() {
            Some('Q') => {
                let quoted = &tail[1..];
                let (literal, after) = quoted.split_once("\\E").unwrap_or((quoted, ""));
                out.push_str(&regex::escape(literal));
                rest = after;
            }
            Some(c @ ('<' | '>')) => {
                out.push(c);
                rest = &tail[1..];
            }
            Some('p' | 'P' | 'x') if tail[1..].starts_with('{') => {
                let end = tail.find('}').map_or(tail.len(), |e| e + 1);
                out.push('\\');
                out.push_str(&tail[..end]);
                rest = &tail[end..];
            }
            Some(c) => {
                out.push('\\');
                out.push(c);
                rest = &tail[c.len_utf8()..];
            }
            None => {
                out.push('\\');
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The first error Go's `regexp/syntax` parser reports for the mistakes it checks while
/// scanning: repetition without an operand, stacked repetition, bad repeat counts,
/// unbalanced parentheses and brackets, a trailing backslash, unknown escapes and
/// malformed `(?` groups.
fn go_syntax_error(src: &str) -> Option<String> {
    let err = |code: &str, expr: &str| Some(format!("error parsing regexp: {code}: `{expr}`"));
    let b = src.as_bytes();
    let mut depth = 0usize;
    let mut operand = false;
    let mut last_repeat: Option<usize> = None;
    let mut i = 0;
    while i < b.len() {
        let start = i;
        let mut repeat = None;
        match b[i] {
            b'(' if b.get(i + 1) == Some(&b'?') => match perl_group(&src[i..]) {
                Ok((len, opens)) => {
                    i += len;
                    if opens {
                        depth += 1;
                        operand = false;
                    }
                }
                Err(expr) => return err("invalid or unsupported Perl syntax", expr),
            },
            b'(' => {
                depth += 1;
                operand = false;
                i += 1;
            }
            b'|' => {
                operand = false;
                i += 1;
            }
            b')' => {
                if depth == 0 {
                    return err("unexpected )", src);
                }
                depth -= 1;
                operand = true;
                i += 1;
            }
            b'[' => match class_len(&src[i..]) {
                Some(len) => {
                    i += len;
                    operand = true;
                }
                None => return err("missing closing ]", &src[start..]),
            },
            b'*' | b'+' | b'?' | b'{' => {
                let counted = if b[i] == b'{' {
                    repeat_count(&src[i..])
                } else {
                    Some((1, None))
                };
                let Some((len, bad)) = counted else {
                    operand = true;
                    i += 1;
                    last_repeat = None;
                    continue;
                };
                i += len;
                if let Some(()) = bad {
                    return err("invalid repeat count", &src[start..i]);
                }
                if b.get(i) == Some(&b'?') {
                    i += 1;
                }
                if let Some(last) = last_repeat {
                    return err("invalid nested repetition operator", &src[last..i]);
                }
                if !operand {
                    return err("missing argument to repetition operator", &src[start..i]);
                }
                repeat = Some(start);
            }
            b'\\' => match escape_len(&src[i..]) {
                Ok(len) => {
                    i += len;
                    operand = true;
                }
                Err(None) => return err("trailing backslash at end of expression", ""),
                Err(Some(expr)) => return err("invalid escape sequence", expr),
            },
            _ => {
                i += src[i..].chars().next().map_or(1, char::len_utf8);
                operand = true;
            }
        }
        last_repeat = repeat;
    }
    if depth > 0 {
        return err("missing closing )", src);
    }
    None
}

/// A `(?...` construct: its length and whether it opens a group; `Err` with the text Go
/// reports for a malformed one.
fn perl_group(t: &str) -> Result<(usize, bool), &str> {
    for prefix in ["(?P<", "(?<"] {
        if let Some(name) = t.strip_prefix(prefix) {
            let end = name.find('>').ok_or(t)?;
            let valid = !name[..end].is_empty()
                && name[..end].chars().all(|c| c == '_' || c.is_alphanumeric());
            return if valid {
                Ok((prefix.len() + end + 1, true))
            } else {
                Err(&t[..prefix.len() + end + 1])
            };
        }
    }
    let mut negated = false;
    let mut saw_flag = false;
    for (i, c) in t.char_indices().skip(2) {
        match c {
            'i' | 'm' | 's' | 'U' => saw_flag = true,
            '-' if !negated => {
                negated = true;
                saw_flag = false;
            }
            ':' | ')' if !negated || saw_flag => return Ok((i + 1, c == ':')),
            _ => return Err(&t[..i + c.len_utf8()]),
        }
    }
    Err(t)
}

/// The length of a bracket expression starting at `[`, or `None` when it never closes.
fn class_len(t: &str) -> Option<usize> {
    let b = t.as_bytes();
    let mut i = 1;
    if b.get(i) == Some(&b'^') {
        i += 1;
    }
    let mut first = true;
    while i < b.len() {
        match b[i] {
            b']' if !first => return Some(i + 1),
            b'[' if b.get(i + 1) == Some(&b':') => {
                i += t[i + 2..].find(":]").map_or(1, |end| end + 4);
            }
            b'\\' => i += 2,
            _ => i += 1,
        }
        first = false;
    }
    None
}

/// A `{n}`, `{n,}` or `{n,m}` repetition: its length and whether the counts are out of
/// Go's range (over 1000, or n > m); `None` when the braces are a literal.
fn repeat_count(t: &str) -> Option<(usize, Option<()>)> {
    let end = t.find('}')?;
    let body = &t[1..end];
    let number = |s: &str| {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u64>().unwrap_or(u64::MAX))
    };
    let (min, max) = match body.split_once(',') {
        None => {
            let n = number(body)?;
            (n, Some(n))
        }
        Some((lo, "")) => (number(lo)?, None),
        Some((lo, hi)) => (number(lo)?, Some(number(hi)?)),
    };
    let bad = min > 1000 || max.is_some_and(|m| m > 1000 || min > m);
    Some((end + 1, bad.then_some(())))
}

/// The length of an escape at `\`; `Err(None)` for a trailing backslash, `Err(expr)`
/// for an escape Go does not know.
fn escape_len(t: &str) -> Result<usize, Option<&str>> {
    let mut chars = t[1..].chars();
    let c = chars.next().ok_or(None)?;
    let len = 1 + c.len_utf8();
    match c {
        'A' | 'z' | 'b' | 'B' | 'd' | 'D' | 's' | 'S' | 'w' | 'W' => Ok(len),
        'a' | 'f' | 'n' | 'r' | 't' | 'v' => Ok(len),
        'p' | 'P' => match t[2..].strip_prefix('{') {
            Some(name) => name.find('}').map(|e| 3 + e + 1).ok_or(Some(t)),
            None => Ok(len + t[len..].chars().next().map_or(0, char::len_utf8)),
        },
        'Q' => Ok(t.find("\\E").map_or(t.len(), |e| e + 2)),
        '0' => Ok(len
            + t[len..]
                .bytes()
                .take(2)
                .take_while(|b| (b'0'..=b'7').contains(b))
                .count()),
        '1'..='7' if t.as_bytes().get(2).is_some_and(u8::is_ascii_digit) => Ok(len
            + t[len..]
                .bytes()
                .take(2)
                .take_while(|b| (b'0'..=b'7').contains(b))
                .count()),
        'x' => match t[2..].strip_prefix('{') {
            Some(hex) => hex.find('}').map(|e| 3 + e + 1).ok_or(Some(t)),
            None if t.len() >= 4 && t.as_bytes()[2..4].iter().all(u8::is_ascii_hexdigit) => Ok(4),
            // Go's text is `\x` and the two characters after it (not bytes: `\x1é`).
            None => Err(Some(
                &t[..t[2..].char_indices().nth(2).map_or(t.len(), |(i, _)| 2 + i)],
            )),
        },
        c if c.is_ascii() && !c.is_ascii_alphanumeric() => Ok(len),
        _ => Err(Some(&t[..len])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(src: &str) -> String {
        Pattern::new(src).compiled.err().unwrap_or_default()
    }

    #[test]
    fn go_parser_errors() {
        assert_eq!(
            error("+"),
            "error parsing regexp: missing argument to repetition operator: `+`"
        );
        assert_eq!(
            error("a|*?"),
            "error parsing regexp: missing argument to repetition operator: `*?`"
        );
        assert_eq!(
            error("a**"),
            "error parsing regexp: invalid nested repetition operator: `**`"
        );
        assert_eq!(
            error("a{2}{3}"),
            "error parsing regexp: invalid nested repetition operator: `{2}{3}`"
        );
        assert_eq!(
            error("a{1001}"),
            "error parsing regexp: invalid repeat count: `{1001}`"
        );
        assert_eq!(error("(a"), "error parsing regexp: missing closing ): `(a`");
        assert_eq!(error("a)"), "error parsing regexp: unexpected ): `a)`");
        assert_eq!(error("[a"), "error parsing regexp: missing closing ]: `[a`");
        assert_eq!(
            error("a\\"),
            "error parsing regexp: trailing backslash at end of expression: ``"
        );
        assert_eq!(
            error("\\q"),
            "error parsing regexp: invalid escape sequence: `\\q`"
        );
        // The two characters after `\x`, one of them multi-byte (was a panic).
        assert_eq!(
            error("\\x1é"),
            "error parsing regexp: invalid escape sequence: `\\x1é`"
        );
        assert_eq!(
            error("\\xéab"),
            "error parsing regexp: invalid escape sequence: `\\xéa`"
        );
        assert_eq!(
            error("\\xg"),
            "error parsing regexp: invalid escape sequence: `\\xg`"
        );
        assert_eq!(
            error("(?z)"),
            "error parsing regexp: invalid or unsupported Perl syntax: `(?z`"
        );
    }

    #[test]
    fn go_only_syntax_compiles() {
        for (src, yes, no) in [
            (r"^\Qa.b\E$", "a.b", "axb"),
            (r"\<x\>", "<x>", "x"),
            (r"^[]a]+$", "]a", "b"),
            (r"a{,2}", "a{,2}", "a"),
            (r"^\d+$", "12", "١٢"),
            (r"(?i)^abc$", "ABC", "abd"),
        ] {
            let re = Pattern::new(src)
                .compiled
                .unwrap_or_else(|e| panic!("{src}: {e}"));
            assert!(re.is_match(yes), "{src} ~ {yes}");
            assert!(!re.is_match(no), "{src} !~ {no}");
        }
    }
}
