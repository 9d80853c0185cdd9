//! The pieces of Go's `strconv` (and of Go's numeric conversions) that the select
//! language leans on: `Unquote` for string literals, `Quote` for placeholder keys,
//! `ParseFloat` for number literals and numeric strings, `Atoi` for key parts, and the
//! amd64 behaviour of `int(f)` for floats that do not fit.

/// Go `strconv.Unquote` of a `"…"`, `` `…` `` or `'…'` literal. Bytes that `\x` or octal
/// escapes produce outside UTF-8 are replaced by U+FFFD (Rust strings are UTF-8; Go's
/// are not required to be).
pub(crate) fn unquote(literal: &str) -> Result<String, String> {
    let invalid = || "invalid syntax".to_string();
    let mut chars = literal.chars();
    let quote = chars.next().ok_or_else(invalid)?;
    if literal.len() < 2 || !literal.ends_with(quote) {
        return Err(invalid());
    }
    let body = &literal[1..literal.len() - 1];
    match quote {
        '`' => {
            if body.contains('`') {
                return Err(invalid());
            }
            Ok(body.replace('\r', ""))
        }
        '"' | '\'' => {
            if body.contains('\n') {
                return Err(invalid());
            }
            let mut out: Vec<u8> = Vec::with_capacity(body.len());
            let mut rest = body;
            let mut count = 0usize;
            while !rest.is_empty() {
                let (piece, tail) = unquote_char(rest, quote).ok_or_else(invalid)?;
                match piece {
                    Piece::Char(c) => {
                        let mut buf = [0u8; 4];
                        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                    }
                    Piece::Byte(b) => out.push(b),
                }
                rest = tail;
                count += 1;
            }
            if quote == '\'' && count != 1 {
                return Err(invalid());
            }
            Ok(String::from_utf8(out)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
        }
        _ => Err(invalid()),
    }
}

enum Piece {
    Char(char),
    Byte(u8),
}

/// Go `strconv.UnquoteChar`: one character or escape from the front of `s`.
fn unquote_char(s: &str, quote: char) -> Option<(Piece, &str)> {
    let mut chars = s.chars();
    let c = chars.next()?;
    if c == quote && (quote == '\'' || quote == '"') {
        return None;
    }
    if c != '\\' {
        return Some((Piece::Char(c), chars.as_str()));
    }
    let e = chars.next()?;
    let rest = chars.as_str();
    let simple = |ch: char| Some((Piece::Char(ch), rest));
    match e {
        'a' => simple('\u{7}'),
        'b' => simple('\u{8}'),
        'f' => simple('\u{c}'),
        'n' => simple('\n'),
        'r' => simple('\r'),
        't' => simple('\t'),
        'v' => simple('\u{b}'),
        '\\' => simple('\\'),
        '\'' | '"' if e == quote => simple(e),
        'x' | 'u' | 'U' => {
            let n = match e {
                'x' => 2,
                'u' => 4,
                _ => 8,
            };
            let digits = rest.get(..n)?;
            let v = u32::from_str_radix(digits, 16).ok()?;
            if !digits.chars().all(|d| d.is_ascii_hexdigit()) {
                return None;
            }
            let tail = &rest[n..];
            if e == 'x' {
                return Some((byte_or_char(v, quote), tail));
            }
            Some((Piece::Char(char::from_u32(v)?), tail))
        }
        '0'..='7' => {
            let digits = s.get(1..4)?;
            if !digits.chars().all(|d| ('0'..='7').contains(&d)) {
                return None;
            }
            let v = u32::from_str_radix(digits, 8).ok()?;
            if v > 255 {
                return None;
            }
            Some((byte_or_char(v, quote), &s[4..]))
        }
        _ => None,
    }
}

fn byte_or_char(v: u32, quote: char) -> Piece {
    // In a single-quoted literal the value is a rune; in a string it is a raw byte.
    match (quote, char::from_u32(v)) {
        ('\'', Some(c)) => Piece::Char(c),
        _ if v < 0x80 => Piece::Char(char::from(v as u8)),
        _ => Piece::Byte(v as u8),
    }
}

/// Go `strconv.Quote`: double-quoted, with Go escapes for `"`, `\` and non-printable
/// characters. "Printable" follows `unicode.IsPrint` for ASCII exactly; beyond ASCII,
/// control, separator-space and the common format characters are escaped.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if is_print(c) => out.push(c),
            c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

fn is_print(c: char) -> bool {
    if c.is_ascii() {
        return (' '..='~').contains(&c);
    }
    let format = matches!(c as u32, 0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F
        | 0x180E | 0x200B..=0x200F | 0x2028..=0x202E | 0x2060..=0x206F | 0xFEFF
        | 0xFFF9..=0xFFFB | 0xE000..=0xF8FF);
    !(c.is_control() || c.is_whitespace() || format)
}

/// Go `strconv.ParseFloat(s, 64)`: `None` where Go returns an error, including a value
/// that overflows to ±Inf without being written as an infinity.
pub(crate) fn parse_float(s: &str) -> Option<f64> {
    let (negative, body) = match s.as_bytes().first() {
        Some(b'+') => (false, &s[1..]),
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    let lower = body.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" {
        return Some(if negative {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        });
    }
    if lower == "nan" {
        return (body.len() == s.len()).then_some(f64::NAN);
    }
    let magnitude = if let Some(hex) = lower.strip_prefix("0x") {
        parse_hex_float(hex)?
    } else {
        let ok = !body.is_empty()
            && body
                .bytes()
                .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
            && body
                .bytes()
                .next()
                .is_some_and(|b| b.is_ascii_digit() || b == b'.');
        if !ok {
            return None;
        }
        body.parse::<f64>().ok()?
    };
    if magnitude.is_infinite() {
        return None;
    }
    Some(if negative { -magnitude } else { magnitude })
}

/// The part after `0x` of a Go hexadecimal float: mantissa digits (with an optional
/// point) and a mandatory `p` exponent.
fn parse_hex_float(s: &str) -> Option<f64> {
    let (mantissa, exponent) = s.split_once('p')?;
    let exponent: i32 = exponent.parse().ok()?;
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    let mut value = 0f64;
    for d in int_part.chars().chain(frac_part.chars()) {
        value = value * 16.0 + f64::from(d.to_digit(16)?);
    }
    let scale = exponent - 4 * i32::try_from(frac_part.len()).ok()?;
    Some(value * 2f64.powi(scale))
}

/// Go `strconv.Atoi`: optional sign, decimal digits, fits in 64 bits.
pub(crate) fn atoi(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.strip_prefix('+').unwrap_or(s).parse().ok()
}

/// Go's `int(f)` on amd64: truncation, and the "integer indefinite" value
/// `math.MinInt64` for NaN and anything out of range.
pub(crate) fn float_to_int(f: f64) -> i64 {
    if (-TWO_63..TWO_63).contains(&f) {
        f as i64
    } else {
        i64::MIN
    }
}

/// 2^63, the first float64 past `i64::MAX`.
const TWO_63: f64 = 9_223_372_036_854_775_808.0;

/// Go's `uint64(f)` on amd64 (used for shift counts).
pub(crate) fn float_to_uint(f: f64) -> u64 {
    if f < TWO_63 {
        float_to_int(f) as u64
    } else if f < 2.0 * TWO_63 {
        (float_to_int(f - TWO_63) as u64) ^ (1 << 63)
    } else {
        1 << 63
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unquotes_like_go() {
        assert_eq!(unquote(r#""a\"b\\c\n""#).unwrap(), "a\"b\\c\n");
        assert_eq!(unquote(r#""nginx:1\\.14""#).unwrap(), "nginx:1\\.14");
        assert_eq!(unquote("`raw\\n`").unwrap(), "raw\\n");
        assert_eq!(unquote("'a'").unwrap(), "a");
        assert_eq!(unquote(r#""\x41\101\u00e9""#).unwrap(), "AAé");
        assert!(unquote("'nginx'").is_err());
        assert!(unquote(r#""\'""#).is_err());
        assert!(unquote(r#""\q""#).is_err());
        assert!(unquote("\"open").is_err());
    }

    #[test]
    fn quotes_like_go() {
        assert_eq!(quote("a"), "\"a\"");
        assert_eq!(quote("a\"b"), "\"a\\\"b\"");
        assert_eq!(quote("t\tx\u{1}é"), "\"t\\tx\\x01é\"");
        assert_eq!(quote("\u{a0}"), "\"\\u00a0\"");
    }

    #[test]
    fn parses_floats_like_go() {
        assert_eq!(parse_float("80"), Some(80.0));
        assert_eq!(parse_float("1.0"), Some(1.0));
        assert_eq!(parse_float(".5"), Some(0.5));
        assert_eq!(parse_float("1e3"), Some(1000.0));
        assert_eq!(parse_float("-Inf"), Some(f64::NEG_INFINITY));
        assert!(parse_float("NaN").is_some_and(f64::is_nan));
        assert_eq!(parse_float("+NaN"), None);
        assert_eq!(parse_float("1e400"), None);
        assert_eq!(parse_float(" 1"), None);
        assert_eq!(parse_float("0x1p4"), Some(16.0));
        assert_eq!(parse_float("0x10"), None);
        assert_eq!(parse_float("1_0"), None);
        assert_eq!(parse_float(""), None);
        assert_eq!(parse_float("abc"), None);
    }

    #[test]
    fn converts_ints_like_go() {
        assert_eq!(atoi("12"), Some(12));
        assert_eq!(atoi("+5"), Some(5));
        assert_eq!(atoi("-5"), Some(-5));
        assert_eq!(atoi("007"), Some(7));
        assert_eq!(atoi("99999999999999999999"), None);
        assert_eq!(atoi("1a"), None);
        assert_eq!(float_to_int(f64::NAN), i64::MIN);
        assert_eq!(float_to_int(-2.7), -2);
        assert_eq!(float_to_uint(-1.0), u64::MAX);
    }
}
