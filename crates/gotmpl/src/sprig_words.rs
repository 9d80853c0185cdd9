//! Sprig v3.2.2 word and case functions, with the helpers behind them (`goutils` and
//! `xstrings` v1.3) ported for their exact behaviour, byte offsets included.

use super::funcs::{f, Args, Ctx, Table, P};
use super::sprig_strings::{lower1, upper1};
use super::value::Value;

type Res = Result<Value, String>;

pub(crate) const FUNCS: Table = &[
    ("abbrev", f(&[P::Int, P::Str], abbrev)),
    ("abbrevboth", f(&[P::Int, P::Int, P::Str], abbrevboth)),
    ("title", f(&[P::Str], title)),
    ("untitle", f(&[P::Str], untitle)),
    ("nospace", f(&[P::Str], nospace)),
    ("initials", f(&[P::Str], initials)),
    ("swapcase", f(&[P::Str], swapcase)),
    (
        "snakecase",
        f(&[P::Str], |_, a| {
            Ok(Value::str(to_lower_case(&a.s(0), '_')))
        }),
    ),
    (
        "kebabcase",
        f(&[P::Str], |_, a| {
            Ok(Value::str(to_lower_case(&a.s(0), '-')))
        }),
    ),
    ("camelcase", f(&[P::Str], camelcase)),
    (
        "wrap",
        f(&[P::Int, P::Str], |_, a| {
            Ok(Value::str(wrap(&a.s(1), a.i(0), "", false)))
        }),
    ),
    (
        "wrapWith",
        f(&[P::Int, P::Str, P::Str], |_, a| {
            Ok(Value::str(wrap(&a.s(2), a.i(0), &a.s(1), true)))
        }),
    ),
];
fn abbreviate(s: &str, offset: i64, max: i64) -> String {
    let b = s.as_bytes();
    let len = b.len() as i64;
    if s.is_empty() || max < 4 || len <= max {
        return s.to_string();
    }
    let mut offset = offset.min(len);
    if len - offset < max - 3 {
        offset = len - (max - 3);
    }
    if offset <= 4 {
        return format!("{}...", String::from_utf8_lossy(&b[..(max - 3) as usize]));
    }
    if max < 7 {
        return String::new();
    }
    if offset + max - 3 < len {
        return format!(
            "...{}",
            abbreviate(&String::from_utf8_lossy(&b[offset as usize..]), 0, max - 3)
        );
    }
    format!(
        "...{}",
        String::from_utf8_lossy(&b[(len - (max - 3)) as usize..])
    )
}

fn abbrev(_: &mut Ctx, a: &Args) -> Res {
    let (w, s) = (a.i(0), a.s(1));
    if w < 4 {
        return Ok(Value::str(s));
    }
    Ok(Value::str(abbreviate(&s, 0, w)))
}

fn abbrevboth(_: &mut Ctx, a: &Args) -> Res {
    let (left, right, s) = (a.i(0), a.i(1), a.s(2));
    if right < 4 || (left > 0 && right < 7) {
        return Ok(Value::str(s));
    }
    Ok(Value::str(abbreviate(&s, left, right)))
}

fn untitle(_: &mut Ctx, a: &Args) -> Res {
    let mut next = true;
    let out: String = a
        .s(0)
        .chars()
        .map(|c| {
            if c.is_whitespace() {
                next = true;
                c
            } else if next {
                next = false;
                lower1(c)
            } else {
                c
            }
        })
        .collect();
    Ok(Value::str(out))
}

fn initials(_: &mut Ctx, a: &Args) -> Res {
    let mut out = String::new();
    let mut gap = true;
    for b in a.s(0).bytes() {
        let c = char::from(b);
        if c.is_whitespace() || b == 0x85 || b == 0xA0 {
            gap = true;
        } else if gap {
            out.push(c);
            gap = false;
        }
    }
    Ok(Value::str(out))
}

/// Go's `strings.Title`.
fn title(_: &mut Ctx, a: &Args) -> Res {
    let is_sep = |c: char| {
        if c.is_ascii() {
            return !(c.is_ascii_alphanumeric() || c == '_');
        }
        if c.is_alphabetic() || c.is_numeric() {
            return false;
        }
        c.is_whitespace()
    };
    let mut prev = ' ';
    let out: String = a
        .s(0)
        .chars()
        .map(|c| {
            let r = if is_sep(prev) { upper1(c) } else { c };
            prev = c;
            r
        })
        .collect();
    Ok(Value::str(out))
}

/// goutils' `DeleteWhiteSpace`, byte by byte as Go's does (each byte read as a Latin-1
/// rune, so the result of mixed text is Latin-1 re-encoded, as in Sprig).
fn nospace(_: &mut Ctx, a: &Args) -> Res {
    let s = a.s(0);
    let out: String = s
        .bytes()
        .map(char::from)
        .filter(|c| !c.is_whitespace())
        .collect();
    if out.chars().count() == s.len() {
        return Ok(Value::str(s));
    }
    Ok(Value::str(out))
}

/// goutils' `SwapCase`: upper to lower, lower to upper, title case after white space.
fn swapcase(_: &mut Ctx, a: &Args) -> Res {
    let mut ws = true;
    let out: String = a
        .s(0)
        .chars()
        .map(|c| {
            if c.is_uppercase() {
                ws = false;
                lower1(c)
            } else if c.is_lowercase() {
                // Title case after white space is upper case for these scripts.
                ws = false;
                upper1(c)
            } else {
                ws = c.is_whitespace();
                c
            }
        })
        .collect();
    Ok(Value::str(out))
}

/// xstrings v1.3 `camelCaseToLowerCase` (snakecase, kebabcase).
pub(crate) fn to_lower_case(s: &str, conn: char) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    let mut r0 = conn;
    while i < chars.len() {
        let prev = r0;
        r0 = chars[i];
        i += 1;
        if r0.is_uppercase() {
            if prev != conn && !prev.is_numeric() {
                out.push(conn);
            }
            out.push(lower1(r0));
            if i >= chars.len() {
                break;
            }
            r0 = chars[i];
            i += 1;
            if !r0.is_uppercase() {
                out.push(r0);
                continue;
            }
            let mut r1;
            loop {
                if i >= chars.len() {
                    break;
                }
                r1 = r0;
                r0 = chars[i];
                i += 1;
                if !r0.is_uppercase() {
                    if r0 == '_' || r0 == ' ' || r0 == '-' {
                        r0 = conn;
                        out.push(lower1(r1));
                    } else if r0.is_numeric() {
                        out.push(lower1(r1));
                        out.push(conn);
                        out.push(r0);
                    } else {
                        out.push(conn);
                        out.push(lower1(r1));
                        out.push(r0);
                    }
                    break;
                }
                out.push(lower1(r1));
            }
            if i >= chars.len() || r0 == conn {
                out.push(lower1(r0));
            }
        } else if r0.is_numeric() {
            if prev != conn && !prev.is_numeric() {
                out.push(conn);
            }
            out.push(r0);
        } else {
            if r0 == ' ' || r0 == '-' || r0 == '_' {
                r0 = conn;
            }
            out.push(r0);
        }
    }
    out
}

/// xstrings v1.3 `ToCamelCase`.
fn camelcase(_: &mut Ctx, a: &Args) -> Res {
    let s = a.s(0);
    let mut chars = s.chars();
    let mut out = String::new();
    let mut r0 = None;
    for c in chars.by_ref() {
        if c != '_' {
            r0 = Some(c);
            break;
        }
        out.push(c);
    }
    let Some(first) = r0 else {
        return Ok(Value::str(out));
    };
    let rest: Vec<char> = chars.collect();
    if rest.is_empty() {
        out.push(first);
        return Ok(Value::str(out));
    }
    let mut r0 = upper1(first);
    for c in rest {
        let r1 = r0;
        r0 = c;
        if r1 == '_' && r0 == '_' {
            out.push(r1);
            continue;
        }
        if r1 == '_' {
            r0 = upper1(r0);
        } else {
            r0 = lower1(r0);
            out.push(r1);
        }
    }
    out.push(r0);
    Ok(Value::str(out))
}

/// goutils' `WrapCustom`, on bytes as in Go.
fn wrap(s: &str, len: i64, newline: &str, long_words: bool) -> String {
    if s.is_empty() {
        return String::new();
    }
    let nl = if newline.is_empty() { "\n" } else { newline };
    let w = len.max(1) as usize;
    let b = s.as_bytes();
    let n = b.len();
    let mut offset = 0usize;
    let mut out: Vec<u8> = Vec::with_capacity(n + n / w + 1);
    while n - offset > w {
        if b[offset] == b' ' {
            offset += 1;
            continue;
        }
        let end = w + offset + 1;
        let at = b[offset..end].iter().rposition(|&c| c == b' ');
        if let Some(rel) = at {
            out.extend_from_slice(&b[offset..offset + rel]);
            out.extend_from_slice(nl.as_bytes());
            offset += rel + 1;
        } else if long_words {
            out.extend_from_slice(&b[offset..offset + w]);
            out.extend_from_slice(nl.as_bytes());
            offset += w;
        } else {
            let end = w + offset;
            match b[end..].iter().position(|&c| c == b' ') {
                Some(rel) => {
                    out.extend_from_slice(&b[offset..end + rel]);
                    out.extend_from_slice(nl.as_bytes());
                    offset = end + rel + 1;
                }
                None => {
                    out.extend_from_slice(&b[offset..]);
                    offset = n;
                }
            }
        }
    }
    out.extend_from_slice(&b[offset..]);
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_conversions_like_xstrings() {
        assert_eq!(to_lower_case("FirstName", '_'), "first_name");
        assert_eq!(to_lower_case("HTTPServer", '_'), "http_server");
        assert_eq!(to_lower_case("NoHTTPS", '_'), "no_https");
        assert_eq!(to_lower_case("GO_PATH", '_'), "go_path");
        assert_eq!(to_lower_case("GO PATH", '-'), "go-path");
        assert_eq!(to_lower_case("HTTP2XX", '_'), "http_2xx");
        assert_eq!(to_lower_case("http2xx", '_'), "http_2xx");
        assert_eq!(to_lower_case("HTTP20xOK", '-'), "http-20x-ok");
    }

    #[test]
    fn wrapping_like_goutils() {
        assert_eq!(
            wrap("The quick brown fox", 10, "", false),
            "The quick\nbrown fox"
        );
        assert_eq!(
            wrap("Here is a verylongword indeed", 6, "", false),
            "Here\nis a\nverylongword\nindeed"
        );
        assert_eq!(wrap("abcdefgh", 3, "<br>", true), "abc<br>def<br>gh");
    }

    #[test]
    fn abbreviations_like_goutils() {
        assert_eq!(
            abbreviate("Now is the time for all good men", 0, 15),
            "Now is the t..."
        );
        assert_eq!(abbreviate("abcdefghijklmno", 5, 10), "...fghi...");
        assert_eq!(abbreviate("abcdefghijklmno", 12, 10), "...ijklmno");
    }
}
