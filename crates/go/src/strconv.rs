//! The parts of Go's `strconv` that the template engine, the select language and CEL's
//! conversions need: numbers (`ParseInt`/`ParseUint` with base prefixes and `_`
//! separators, `Atoi`, `ParseFloat`), `ParseBool`, string and character literals
//! (`Unquote`, `UnquoteChar`) and quoting (`Quote`, `QuoteToASCII`, `QuoteRune`,
//! `CanBackquote`) with Go's idea of a printable rune.

/// `strconv.ParseUint(s, base, 64)`; base 0 reads a `0x`, `0o`, `0b` or `0` prefix and
/// allows `_` between digits. `None` on a syntax or range error.
pub fn parse_uint(s: &str, base: u32) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    let base0 = base == 0;
    let bytes = s.as_bytes();
    let (base, digits) = if base0 {
        if bytes[0] == b'0' {
            if s.len() >= 3 && matches!(bytes[1] | 0x20, b'b' | b'o' | b'x') {
                let b = match bytes[1] | 0x20 {
                    b'b' => 2,
                    b'o' => 8,
                    _ => 16,
                };
                (b, &s[2..])
            } else {
                (8, &s[1..])
            }
        } else {
            (10, s)
        }
    } else {
        (base, s)
    };
    let mut n: u64 = 0;
    let mut underscores = false;
    for c in digits.bytes() {
        if c == b'_' && base0 {
            underscores = true;
            continue;
        }
        let d = match c {
            b'0'..=b'9' => u32::from(c - b'0'),
            b'a'..=b'z' => u32::from(c - b'a') + 10,
            b'A'..=b'Z' => u32::from(c - b'A') + 10,
            _ => return None,
        };
        if d >= base {
            return None;
        }
        n = n.checked_mul(u64::from(base))?.checked_add(u64::from(d))?;
    }
    if underscores && !underscore_ok(s) {
        return None;
    }
    Some(n)
}

/// `strconv.ParseInt(s, base, 64)`.
pub fn parse_int(s: &str, base: u32) -> Option<i64> {
    let (neg, rest) = match s.as_bytes().first() {
        Some(b'+') => (false, &s[1..]),
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    let u = parse_uint(rest, base)?;
    if neg {
        if u > 1u64 << 63 {
            return None;
        }
        Some((u as i64).wrapping_neg())
    } else {
        i64::try_from(u).ok()
    }
}

/// `strconv.Atoi`: optional sign, decimal digits, fits in 64 bits.
pub fn atoi(s: &str) -> Option<i64> {
    parse_int(s, 10)
}

/// `strconv.ParseBool`: `1 t T TRUE true True` and `0 f F FALSE false False`.
pub fn parse_bool(s: &str) -> Option<bool> {
    match s {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// Go's rule for `_` in number literals: only between digits, or after a base prefix.
fn underscore_ok(s: &str) -> bool {
    let mut s = s.as_bytes();
    if let Some(b'+' | b'-') = s.first() {
        s = &s[1..];
    }
    let mut saw = b'^';
    let mut i = 0;
    let mut hex = false;
    if s.len() >= 2 && s[0] == b'0' && matches!(s[1] | 0x20, b'b' | b'o' | b'x') {
        i = 2;
        saw = b'0';
        hex = s[1] | 0x20 == b'x';
    }
    while i < s.len() {
        let c = s[i];
        if c.is_ascii_digit() || (hex && (c | 0x20).is_ascii_hexdigit()) {
            saw = b'0';
        } else if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
        } else {
            if saw == b'_' {
                return false;
            }
            saw = b'!';
        }
        i += 1;
    }
    saw != b'_'
}

/// Which spellings [`parse_float`] accepts besides plain decimal and `0x…p…` hexadecimal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatSyntax {
    /// A number literal in Go source (the template lexer): `_` may separate digits;
    /// `Inf` and `NaN` are identifiers, not numbers.
    Literal,
    /// Text handed to `ParseFloat` at run time (the select language): `Inf`,
    /// `Infinity` (either signed) and an unsigned `NaN`, any case; no `_`.
    Text,
    /// Exactly `strconv.ParseFloat(s, 64)` (CEL's `double(string)`): [`Text`](Self::Text)'s
    /// infinities and `NaN`, and `_` between digits or after a base prefix, as Go's
    /// `readFloat` and `underscoreOK` allow (`1_000.5`, `0x_1p4`).
    Go,
}

/// `strconv.ParseFloat(s, 64)`: `None` where Go returns an error, including a finite
/// literal that overflows to ±Inf.
pub fn parse_float(s: &str, syntax: FloatSyntax) -> Option<f64> {
    let cleaned: String;
    let mut text = s;
    if matches!(syntax, FloatSyntax::Literal | FloatSyntax::Go) && s.contains('_') {
        if !underscore_ok(s) {
            return None;
        }
        cleaned = s.replace('_', "");
        text = &cleaned;
    }
    let (neg, body) = match text.as_bytes().first() {
        Some(b'+') => (false, &text[1..]),
        Some(b'-') => (true, &text[1..]),
        _ => (false, text),
    };
    if matches!(syntax, FloatSyntax::Text | FloatSyntax::Go) {
        let lower = body.to_ascii_lowercase();
        if lower == "inf" || lower == "infinity" {
            return Some(if neg {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            });
        }
        if lower == "nan" {
            return (body.len() == text.len()).then_some(f64::NAN);
        }
    }
    let bytes = body.as_bytes();
    let magnitude = if bytes.len() > 2 && bytes[0] == b'0' && bytes[1] | 0x20 == b'x' {
        parse_hex_float(&body[2..])?
    } else {
        let decimal = bytes
            .first()
            .is_some_and(|&c| c.is_ascii_digit() || c == b'.')
            && bytes
                .iter()
                .all(|&c| c.is_ascii_digit() || b".eE+-".contains(&c));
        if !decimal {
            return None;
        }
        body.parse::<f64>().ok()?
    };
    if magnitude.is_infinite() {
        return None;
    }
    Some(if neg { -magnitude } else { magnitude })
}

/// The part after `0x` of a Go hexadecimal float: hex digits with at most one point,
/// and a mandatory `p` exponent. `None` unless the value is finite.
fn parse_hex_float(s: &str) -> Option<f64> {
    let p = s.find(['p', 'P'])?;
    let (mant, exp) = (&s[..p], &s[p + 1..]);
    let exp: i32 = exp.parse().ok()?;
    let mut value = 0f64;
    let mut frac_digits = 0i32;
    let mut seen_dot = false;
    let mut any = false;
    for c in mant.chars() {
        if c == '.' {
            if seen_dot {
                return None;
            }
            seen_dot = true;
            continue;
        }
        let d = c.to_digit(16)?;
        any = true;
        value = value * 16.0 + f64::from(d);
        if seen_dot {
            frac_digits = frac_digits.saturating_add(1);
        }
    }
    if !any {
        return None;
    }
    let f = value * 2f64.powi(exp.saturating_sub(frac_digits.saturating_mul(4)));
    f.is_finite().then_some(f)
}

/// `strconv.UnquoteChar`: decodes the first character or escape of `s` inside a literal
/// quoted by `quote`; returns the character (a raw byte for `\x` and octal escapes, as
/// Go's `multibyte == false`) and the rest of the input.
pub fn unquote_char(s: &str, quote: char) -> Option<(Unquoted, &str)> {
    let mut chars = s.chars();
    let c = chars.next()?;
    if c == quote && (quote == '\'' || quote == '"') {
        return None;
    }
    if c != '\\' {
        return Some((Unquoted::Char(c), chars.as_str()));
    }
    let e = chars.next()?;
    let rest = chars.as_str();
    let simple = match e {
        'a' => Some('\u{7}'),
        'b' => Some('\u{8}'),
        'f' => Some('\u{c}'),
        'n' => Some('\n'),
        'r' => Some('\r'),
        't' => Some('\t'),
        'v' => Some('\u{b}'),
        '\\' => Some('\\'),
        '\'' | '"' if e == quote => Some(e),
        _ => None,
    };
    if let Some(c) = simple {
        return Some((Unquoted::Char(c), rest));
    }
    match e {
        'x' | 'u' | 'U' => {
            let n = match e {
                'x' => 2,
                'u' => 4,
                _ => 8,
            };
            let hex = rest.get(..n)?;
            let v = u32::from_str_radix(hex, 16).ok()?;
            if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            let rest = &rest[n..];
            if e == 'x' {
                return Some((Unquoted::Byte(v as u8), rest));
            }
            Some((Unquoted::Char(char::from_u32(v)?), rest))
        }
        '0'..='7' => {
            let oct = s.get(1..4)?;
            if !oct.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
                return None;
            }
            let v = u32::from_str_radix(oct, 8).ok()?;
            if v > 255 {
                return None;
            }
            Some((Unquoted::Byte(v as u8), &s[4..]))
        }
        _ => None,
    }
}

/// One decoded element of a Go literal: a character, or a raw byte from `\xHH`/`\ooo`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unquoted {
    Char(char),
    Byte(u8),
}

/// `strconv.Unquote` of a `"…"`, `` `…` `` or `'…'` literal. Bytes that do not form
/// UTF-8 (from `\x` or octal escapes in a string) are replaced by U+FFFD. In a `'…'`
/// literal such an escape is read as the rune it names (`'\xe9'` is "é"), where Go keeps
/// the lone byte, which a Rust string cannot hold.
pub fn unquote(s: &str) -> Option<String> {
    let quote = s.chars().next()?;
    if !matches!(quote, '"' | '\'' | '`') || s.len() < 2 || !s.ends_with(quote) {
        return None;
    }
    let body = &s[1..s.len() - 1];
    if quote == '`' {
        if body.contains('`') {
            return None;
        }
        return Some(body.replace('\r', ""));
    }
    if body.contains('\n') {
        return None;
    }
    let mut bytes = Vec::with_capacity(body.len());
    let mut rest = body;
    let mut count = 0;
    while !rest.is_empty() {
        let (u, tail) = unquote_char(rest, quote)?;
        let c = match u {
            Unquoted::Byte(b) if quote == '"' => {
                bytes.push(b);
                None
            }
            Unquoted::Byte(b) => Some(char::from(b)),
            Unquoted::Char(c) => Some(c),
        };
        if let Some(c) = c {
            bytes.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        }
        rest = tail;
        count += 1;
    }
    if quote == '\'' && count != 1 {
        return None;
    }
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// Go's `unicode.IsPrint`, approximated: letters, marks, numbers, punctuation and
/// symbols are printable, as is U+0020; controls, other spaces, format characters,
/// surrogates, private use and non-characters are not.
pub fn is_print(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    let u = c as u32;
    !matches!(u,
        0x00AD | 0x0600..=0x0605 | 0x061C | 0x06DD | 0x070F | 0x0890..=0x0891 | 0x08E2
        | 0x180E | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x206F | 0xFEFF
        | 0xFFF9..=0xFFFB | 0x110BD | 0x110CD | 0x13430..=0x1343F | 0x1BCA0..=0x1BCA3
        | 0x1D173..=0x1D17A | 0xE0001 | 0xE0020..=0xE007F
        | 0xE000..=0xF8FF | 0xF0000..=0x10FFFF | 0xFDD0..=0xFDEF)
        && (u & 0xFFFE) != 0xFFFE
}

fn push_escaped(out: &mut String, c: char, quote: char, ascii_only: bool) {
    if c == quote || c == '\\' {
        out.push('\\');
        out.push(c);
        return;
    }
    if (!ascii_only || c.is_ascii()) && is_print(c) {
        out.push(c);
        return;
    }
    match c {
        '\u{7}' => out.push_str("\\a"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{b}' => out.push_str("\\v"),
        c if (c as u32) < 0x20 || c as u32 == 0x7f => {
            out.push_str(&format!("\\x{:02x}", c as u32));
        }
        c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
        c => out.push_str(&format!("\\U{:08x}", c as u32)),
    }
}

/// `strconv.Quote` (or `QuoteToASCII` when `ascii_only`).
pub fn quote(s: &str, ascii_only: bool) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        push_escaped(&mut out, c, '"', ascii_only);
    }
    out.push('"');
    out
}

/// `strconv.QuoteRune` (or `QuoteRuneToASCII`); invalid code points quote as U+FFFD.
pub fn quote_rune(r: i64, ascii_only: bool) -> String {
    let c = u32::try_from(r)
        .ok()
        .and_then(char::from_u32)
        .unwrap_or('\u{FFFD}');
    let mut out = String::from("'");
    push_escaped(&mut out, c, '\'', ascii_only);
    out.push('\'');
    out
}

/// `strconv.CanBackquote`: can `s` be written as a raw string literal unchanged?
pub fn can_backquote(s: &str) -> bool {
    s.chars()
        .all(|c| c != '`' && c != '\u{FEFF}' && (c == '\t' || !(c < ' ' || c == '\u{7f}')))
}

#[cfg(test)]
mod tests {
    use super::*;
    use FloatSyntax::{Go, Literal, Text};

    #[test]
    fn integers_like_go() {
        assert_eq!(parse_int("0x1F", 0), Some(31));
        assert_eq!(parse_int("0755", 0), Some(493));
        assert_eq!(parse_int("0b101", 0), Some(5));
        assert_eq!(parse_int("0o17", 0), Some(15));
        assert_eq!(parse_int("1_000", 0), Some(1000));
        assert_eq!(parse_int("1__0", 0), None);
        assert_eq!(parse_int("08", 0), None);
        assert_eq!(parse_int("-9223372036854775808", 0), Some(i64::MIN));
        assert_eq!(parse_int("9223372036854775808", 0), None);
        assert_eq!(parse_uint("18446744073709551615", 0), Some(u64::MAX));
        assert_eq!(parse_int("1_0", 10), None);
        assert_eq!(parse_int("+7", 10), Some(7));
    }

    #[test]
    fn atoi_like_go() {
        assert_eq!(atoi("12"), Some(12));
        assert_eq!(atoi("+5"), Some(5));
        assert_eq!(atoi("-5"), Some(-5));
        assert_eq!(atoi("007"), Some(7));
        assert_eq!(atoi("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(atoi("99999999999999999999"), None);
        assert_eq!(atoi("1a"), None);
        assert_eq!(atoi("0x1"), None);
        assert_eq!(atoi("1_0"), None);
        assert_eq!(atoi("+-5"), None);
        assert_eq!(atoi("-"), None);
        assert_eq!(atoi(""), None);
    }

    #[test]
    fn floats_like_go() {
        for syntax in [Literal, Text, Go] {
            assert_eq!(parse_float("80", syntax), Some(80.0));
            assert_eq!(parse_float("1.5", syntax), Some(1.5));
            assert_eq!(parse_float(".5", syntax), Some(0.5));
            assert_eq!(parse_float("-2.", syntax), Some(-2.0));
            assert_eq!(parse_float("1e3", syntax), Some(1000.0));
            assert_eq!(parse_float("+1E-3", syntax), Some(0.001));
            assert_eq!(parse_float("0x1p-2", syntax), Some(0.25));
            assert_eq!(parse_float("0x1.8p1", syntax), Some(3.0));
            assert_eq!(parse_float("-0X1P4", syntax), Some(-16.0));
            assert!(parse_float("-0", syntax).is_some_and(|f| f == 0.0 && f.is_sign_negative()));
            for bad in [
                "", "-", "abc", " 1", "1 ", "--1", "+-1", "e5", "0x", "0x10", "0x.p1",
            ] {
                assert_eq!(parse_float(bad, syntax), None, "{bad:?}");
            }
            for overflow in ["1e400", "-1e400", "0x1p1024"] {
                assert_eq!(parse_float(overflow, syntax), None, "{overflow:?}");
            }
        }
    }

    #[test]
    fn float_literals_take_separators_not_infinities() {
        assert_eq!(parse_float("1_000.5", Literal), Some(1000.5));
        assert_eq!(parse_float("0x_1p4", Literal), Some(16.0));
        assert_eq!(parse_float("1__0", Literal), None);
        assert_eq!(parse_float("1_", Literal), None);
        for special in ["Inf", "-Inf", "+Infinity", "NaN"] {
            assert_eq!(parse_float(special, Literal), None, "{special}");
        }
    }

    #[test]
    fn float_text_takes_infinities_not_separators() {
        assert_eq!(parse_float("-Inf", Text), Some(f64::NEG_INFINITY));
        assert_eq!(parse_float("+infinity", Text), Some(f64::INFINITY));
        assert!(parse_float("NaN", Text).is_some_and(f64::is_nan));
        assert!(parse_float("nan", Text).is_some_and(f64::is_nan));
        assert_eq!(parse_float("+NaN", Text), None);
        assert_eq!(parse_float("1_0", Text), None);
        assert_eq!(parse_float("0x1_0p0", Text), None);
    }

    /// `atof_test.go`'s underscore and special rows, for `ParseFloat` itself.
    #[test]
    fn parse_float_takes_separators_and_infinities() {
        assert_eq!(parse_float("1_23.50_0_0e+1_2", Go), Some(1.235e14));
        assert_eq!(parse_float("0x_1_2.3_4_5p+1_2", Go), Some(74565.0));
        for bad in [
            "-_123.5e+12",
            "+_123.5e+12",
            "_123.5e+12",
            "1__23.5e+12",
            "123_.5e+12",
            "123._5e+12",
            "123.5_e+12",
            "123.5e_+12",
            "123.5e+_12",
            "123.5e+12_",
        ] {
            assert_eq!(parse_float(bad, Go), None, "{bad:?}");
        }
        assert_eq!(parse_float("-Inf", Go), Some(f64::NEG_INFINITY));
        assert_eq!(parse_float("infinity", Go), Some(f64::INFINITY));
        assert!(parse_float("NaN", Go).is_some_and(f64::is_nan));
        assert_eq!(parse_float("-NaN", Go), None);
        assert_eq!(parse_float("infin", Go), None);
        assert_eq!(parse_float("1e400", Go), None);
    }

    #[test]
    fn bools_like_go() {
        for t in ["1", "t", "T", "TRUE", "true", "True"] {
            assert_eq!(parse_bool(t), Some(true), "{t}");
        }
        for f in ["0", "f", "F", "FALSE", "false", "False"] {
            assert_eq!(parse_bool(f), Some(false), "{f}");
        }
        for bad in ["", "tRUE", "yes", " true", "2", "truE"] {
            assert_eq!(parse_bool(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn unquoting_like_go() {
        assert_eq!(unquote(r#""a\tb\"c""#).as_deref(), Some("a\tb\"c"));
        assert_eq!(unquote(r#""a\"b\\c\n""#).as_deref(), Some("a\"b\\c\n"));
        assert_eq!(
            unquote(r#""nginx:1\\.14""#).as_deref(),
            Some("nginx:1\\.14")
        );
        assert_eq!(unquote(r#""\u00e9\x41\101""#).as_deref(), Some("éAA"));
        assert_eq!(unquote(r#""\x41\101\u00e9""#).as_deref(), Some("AAé"));
        assert_eq!(
            unquote(r#""\xe9\351""#).as_deref(),
            Some("\u{FFFD}\u{FFFD}")
        );
        assert_eq!(unquote(r#""\xc3\xa9""#).as_deref(), Some("é"));
        assert_eq!(unquote("`raw\\n`").as_deref(), Some("raw\\n"));
        assert_eq!(unquote("`a\r\nb`").as_deref(), Some("a\nb"));
        assert_eq!(unquote("'a'").as_deref(), Some("a"));
        assert_eq!(unquote(r"'\xe9'").as_deref(), Some("é"));
        assert_eq!(unquote(r"'\351'").as_deref(), Some("é"));
        assert_eq!(unquote(r"'\''").as_deref(), Some("'"));
        for bad in [
            r#""bad\q""#,
            r#""it\'s""#,
            r#""\'""#,
            "'nginx'",
            "''",
            "\"open",
            "\"a\nb\"",
            "`a`b`",
            "\"",
            "",
            "éaé",
            r#""\400""#,
            r#""\x4""#,
            r#""\u+041""#,
        ] {
            assert_eq!(unquote(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn unquoting_one_char_like_go() {
        assert_eq!(
            unquote_char("\\n'", '\''),
            Some((Unquoted::Char('\n'), "'"))
        );
        assert_eq!(
            unquote_char(r"\xe9'", '\''),
            Some((Unquoted::Byte(0xe9), "'"))
        );
        assert_eq!(
            unquote_char(r"\101x", '"'),
            Some((Unquoted::Byte(b'A'), "x"))
        );
        assert_eq!(
            unquote_char(r"\U0001F600", '"'),
            Some((Unquoted::Char('\u{1F600}'), ""))
        );
        assert_eq!(unquote_char(r"\ud800", '"'), None);
        assert_eq!(unquote_char("'", '\''), None);
        assert_eq!(unquote_char("'", '"'), Some((Unquoted::Char('\''), "")));
    }

    #[test]
    fn quoting_like_go() {
        assert_eq!(quote("a", false), "\"a\"");
        assert_eq!(quote("a\"b\\c\n\u{1}é", false), r#""a\"b\\c\n\x01é""#);
        assert_eq!(quote("t\tx\u{7f}\u{85}", false), r#""t\tx\x7f\u0085""#);
        assert_eq!(
            quote("\u{a0}\u{200b}\u{2028}", false),
            r#""\u00a0\u200b\u2028""#
        );
        assert_eq!(quote("\u{F0000}", false), r#""\U000f0000""#);
        assert_eq!(quote("é☺", true), r#""\u00e9\u263a""#);
        assert_eq!(quote("\u{1F600}", true), r#""\U0001f600""#);
        assert_eq!(quote_rune(97, false), "'a'");
        assert_eq!(quote_rune('\'' as i64, false), r"'\''");
        assert_eq!(quote_rune(-1, false), "'�'");
        assert!(can_backquote("a\tb\"c"));
        assert!(!can_backquote("a`b"));
        assert!(!can_backquote("a\nb"));
    }

    #[test]
    fn printable_like_go() {
        for c in [' ', 'a', '~', 'é', '☺', '\u{1F600}'] {
            assert!(is_print(c), "{c:?}");
        }
        for c in [
            '\t', '\u{7f}', '\u{85}', '\u{a0}', '\u{ad}', '\u{2028}', '\u{feff}', '\u{e000}',
            '\u{fffe}',
        ] {
            assert!(!is_print(c), "{c:?}");
        }
    }
}
