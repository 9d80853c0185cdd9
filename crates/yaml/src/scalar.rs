//! Plain-scalar resolution the way kubectl reads YAML (go-yaml v2, YAML 1.1), and the
//! inverse question the emitter asks: would any YAML 1.1 or 1.2 reader take this string
//! for something else?

use regex::{Regex, RegexSet};
use serde_json::{Number, Value};
use std::sync::OnceLock;

/// What a plain scalar means to kubectl, or why it cannot be carried in JSON.
#[derive(Debug, PartialEq)]
pub enum Resolved {
    Value(Value),
    /// `.inf`, `.nan` and friends: YAML floats JSON cannot hold.
    NonFinite,
    /// An integer outside the 64-bit range kubectl can carry exactly.
    IntegerOverflow,
}

fn go_yaml_float() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$").expect("static regex")
    })
}

// A `Regex` keeps its search state in a pool that is fast only for the thread that used
// it first; documents are read on several threads at once (`--jobs`), and every other
// thread went through the pool's lock on each match (a sixth of the extra CPU of two
// jobs). Each thread matches with its own clone: the compiled program is shared, the
// search state is not.
thread_local! {
    static GO_YAML_FLOAT: Regex = go_yaml_float().clone();
    static AMBIGUOUS_PATTERNS: RegexSet = ambiguous_patterns().clone();
}

fn is_go_yaml_float(text: &str) -> bool {
    GO_YAML_FLOAT.with(|re| re.is_match(text))
}

fn is_ambiguous(text: &str) -> bool {
    // Every pattern but the timestamp's matches whole strings of `AMBIGUOUS_BYTES` only:
    // a string with any other byte (`100m`, `/healthz`, `v1.2.3-rc`) is ambiguous only as
    // a timestamp, which is a prefix checked by hand; the set is not searched.
    if text.bytes().any(|b| {
        !AMBIGUOUS_BYTES
            .get(usize::from(b))
            .is_some_and(|&member| member)
    }) {
        return starts_with_date(text.as_bytes());
    }
    AMBIGUOUS_PATTERNS.with(|set| set.is_match(text))
}

/// The bytes the whole-string patterns of [`ambiguous_patterns`] can match: digits,
/// signs, `_ . : ~ < =`, the hex digits, and the letters of the booleans, nulls,
/// `.inf`/`.nan` and the `0x`/`0o`/`0b` prefixes.
const AMBIGUOUS_BYTES: [bool; 128] =
    ascii_set(b"0123456789+-_.:~<=abcdefABCDEFxXoOyYsSnNtTrRuUlLiI");

/// The timestamp pattern of [`ambiguous_patterns`], `^[0-9]{4}-[0-9][0-9]?-[0-9][0-9]?`, a
/// prefix (a timestamp goes on with a time): taking the optional digit whenever there is
/// one decides as the regex's backtracking would, since a `-` must follow.
fn starts_with_date(text: &[u8]) -> bool {
    let digit = |i: usize| text.get(i).is_some_and(u8::is_ascii_digit);
    let dash = |i: usize| text.get(i) == Some(&b'-');
    if !((0..4).all(digit) && dash(4) && digit(5)) {
        return false;
    }
    let month_end = if digit(6) { 7 } else { 6 };
    dash(month_end) && digit(month_end + 1)
}

/// Resolves an untagged plain scalar exactly as go-yaml v2 `resolve()` does, then as
/// `sigs.k8s.io/yaml` hands it to the API server (integral floats become integers, the way
/// a float64 round-trips through JSON into an unstructured object).
pub fn resolve_plain(text: &str) -> Resolved {
    let Some(&first) = text.as_bytes().first() else {
        return Resolved::Value(Value::Null);
    };
    // Only these first bytes can start a non-string; most Kubernetes strings skip all work.
    if !matches!(
        first,
        b'y' | b'Y'
            | b'n'
            | b'N'
            | b'o'
            | b'O'
            | b't'
            | b'T'
            | b'f'
            | b'F'
            | b'~'
            | b'.'
            | b'+'
            | b'-'
            | b'0'..=b'9'
    ) {
        return string(text);
    }
    match text {
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "true" | "True" | "TRUE" => {
            return Resolved::Value(Value::Bool(true))
        }
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "false" | "False" | "FALSE" => {
            return Resolved::Value(Value::Bool(false))
        }
        "~" | "null" | "Null" | "NULL" => return Resolved::Value(Value::Null),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF"
        | ".nan" | ".NaN" | ".NAN" => return Resolved::NonFinite,
        _ => {}
    }
    match first {
        // go-yaml keeps text whose float overflows (`1e400`) as a string.
        b'.' => match text.parse::<f64>() {
            Ok(f) if f.is_finite() && is_go_yaml_float(text) => float_value(f),
            _ => string(text),
        },
        b'0'..=b'9' | b'+' | b'-' => resolve_numeric(text),
        _ => string(text),
    }
}

fn string(text: &str) -> Resolved {
    Resolved::Value(Value::String(text.to_owned()))
}

fn resolve_numeric(text: &str) -> Resolved {
    let plain: String = text.chars().filter(|&c| c != '_').collect();
    match parse_go_int(&plain) {
        GoInt::Value(v) => return Resolved::Value(v),
        GoInt::Overflow => return Resolved::IntegerOverflow,
        GoInt::NotInt => {}
    }
    if is_go_yaml_float(&plain) {
        match plain.parse::<f64>() {
            Ok(f) if f.is_finite() => return float_value(f),
            _ => {}
        }
    }
    // go-yaml v2 also reads `0b…`/`-0b…` explicitly; Go's base-0 ParseInt already covered it.
    string(text)
}

enum GoInt {
    Value(Value),
    Overflow,
    NotInt,
}

/// Go's `strconv.ParseInt(s, 0, 64)` then `ParseUint(s, 0, 64)`: sign, then `0x`, `0o`, `0b`
/// or a leading `0` (octal) prefix.
fn parse_go_int(s: &str) -> GoInt {
    let (negative, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (radix, digits) = if let Some(rest) = strip_prefix_ci(body, "0x") {
        (16, rest)
    } else if let Some(rest) = strip_prefix_ci(body, "0o") {
        (8, rest)
    } else if let Some(rest) = strip_prefix_ci(body, "0b") {
        (2, rest)
    } else if body.len() > 1 && body.starts_with('0') {
        (8, &body[1..])
    } else {
        (10, body)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return GoInt::NotInt;
    }
    match u128::from_str_radix(digits, radix) {
        Ok(magnitude) => {
            if negative {
                if magnitude <= i64::MAX as u128 + 1 {
                    GoInt::Value(Value::Number(Number::from(
                        (magnitude as i128).wrapping_neg() as i64,
                    )))
                } else {
                    GoInt::Overflow
                }
            } else if magnitude <= i64::MAX as u128 {
                GoInt::Value(Value::Number(Number::from(magnitude as i64)))
            } else if magnitude <= u64::MAX as u128 {
                GoInt::Value(Value::Number(Number::from(magnitude as u64)))
            } else {
                GoInt::Overflow
            }
        }
        Err(_) => GoInt::Overflow,
    }
}

/// `s` without an ASCII `prefix`, compared case-insensitively. `get` rather than slicing:
/// the byte after a leading digit may sit inside a multi-byte character (`5°C`).
fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// A finite float as kubectl forwards it: integral values within the int64 range become
/// integers (Go's `json.Marshal(float64(1))` is `1`, which the API server reads as int64).
pub fn float_value(f: f64) -> Resolved {
    if !f.is_finite() {
        return Resolved::NonFinite;
    }
    if f.fract() == 0.0 && (i64::MIN as f64..i64::MAX as f64).contains(&f) {
        return Resolved::Value(Value::Number(Number::from(f as i64)));
    }
    match Number::from_f64(f) {
        Some(n) => Resolved::Value(Value::Number(n)),
        None => Resolved::NonFinite,
    }
}

/// Patterns for strings that some YAML reader (go-yaml v2/v3, PyYAML, the YAML 1.1 and 1.2
/// specs) would resolve to a non-string when written plain.
fn ambiguous_patterns() -> &'static RegexSet {
    static SET: OnceLock<RegexSet> = OnceLock::new();
    SET.get_or_init(|| {
        RegexSet::new([
            // booleans (YAML 1.1 and 1.2)
            r"^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$",
            // null
            r"^(~|null|Null|NULL)$",
            // YAML 1.1 ints: binary, octal, decimal, hex, sexagesimal (with underscores)
            r"^[-+]?0b[0-1_]+$",
            r"^[-+]?0[0-7_]+$",
            r"^[-+]?(0|[1-9][0-9_]*)$",
            r"^[-+]?0x[0-9a-fA-F_]+$",
            r"^[-+]?[1-9][0-9_]*(:[0-5]?[0-9])+$",
            // YAML 1.2 / Go base-0 forms
            r"^[-+]?0[oO][0-7_]+$",
            r"^[-+]?0[xXbB][0-9a-fA-F_]+$",
            r"^[-+]?[0-9][0-9_]*$",
            // floats: YAML 1.1 (dot required), 1.2 core, go-yaml's regex, sexagesimal
            r"^[-+]?([0-9][0-9_]*)?\.[0-9_]*([eE][-+]?[0-9]+)?$",
            r"^[-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?$",
            r"^[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*$",
            r"^[-+]?\.(inf|Inf|INF)$",
            r"^\.(nan|NaN|NAN)$",
            // timestamps (YAML 1.1)
            r"^[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?",
            // merge and value keys (YAML 1.1)
            r"^(<<|=)$",
        ])
        .expect("static regex set")
    })
}

/// Characters that start something other than a plain scalar (as bytes: a `str` search
/// for one character costs more than the rest of the question).
const INDICATORS: [bool; 128] = ascii_set(b"-?:,[]{}#&*!|>'\"%@`");
/// The bytes `needs_quotes` looks at in its pass over a string: `:`, `#`, control
/// characters and DEL, and the first byte of each character from U+0080 (`0xc0` and up).
const SCANNED: [bool; 256] = {
    let mut set = [false; 256];
    let mut b = 0;
    while b < 256 {
        set[b] = b == b':' as usize || b == b'#' as usize || b < 0x20 || b == 0x7f || b >= 0xc0;
        b += 1;
    }
    set
};
/// The letters that start a YAML 1.1 boolean or null.
const AMBIGUOUS_LETTERS: [bool; 128] = ascii_set(b"yYnNtTfFoO");

const fn ascii_set(members: &[u8]) -> [bool; 128] {
    let mut set = [false; 128];
    let mut i = 0;
    while i < members.len() {
        set[members[i] as usize] = true;
        i += 1;
    }
    set
}

fn in_ascii_set(set: &[bool; 128], c: char) -> bool {
    set.get(c as usize).copied().unwrap_or(false)
}

/// True when `s` cannot be written as a plain scalar without changing its meaning for some
/// reader, or without breaking YAML syntax.
pub fn needs_quotes(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return true;
    };
    let last = s.chars().last().unwrap_or(first);
    // `-x` and `--flag` are plain scalars to every reader; `- x`, `-` and `---` are not, and
    // numbers like `-1` are caught by the patterns below.
    let dash_word = first == '-'
        && !s.starts_with("---")
        && s.chars()
            .nth(1)
            .is_some_and(|c| c == '-' || c.is_alphabetic());
    let indicator = in_ascii_set(&INDICATORS, first);
    if indicator && !dash_word {
        return true;
    }
    if first.is_whitespace() || last.is_whitespace() || last == ':' {
        return true;
    }
    // `---` and `...` alone or before white space are document markers at column 0 (a
    // top-level key, a scalar document).
    if (s.starts_with("---") || s.starts_with("..."))
        && s[3..].chars().next().is_none_or(char::is_whitespace)
    {
        return true;
    }
    // One pass: `: ` and ` #` (with tabs too) break plain scalars; control characters and
    // Unicode line breaks cannot be written plain. Only the bytes of `SCANNED` need a
    // look; the search for the next one is a table lookup per byte.
    let bytes = s.as_bytes();
    let mut from = 0;
    while let Some(offset) = bytes[from..].iter().position(|&b| SCANNED[b as usize]) {
        let i = from + offset;
        from = i + 1;
        let b = bytes[i];
        let breaks = match b {
            b':' => matches!(bytes.get(i + 1), Some(b' ' | b'\t')),
            b'#' => i > 0 && matches!(bytes[i - 1], b' ' | b'\t'),
            0..=0x1f | 0x7f => true,
            0xc0.. => s[i..].chars().next().is_some_and(|c| {
                c.is_control()
                    || matches!(
                        c,
                        '\u{feff}' | '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{fffe}' | '\u{ffff}'
                    )
            }),
            _ => false,
        };
        if breaks {
            return true;
        }
    }
    // The only ambiguous patterns that start with a letter are YAML 1.1's booleans and
    // nulls: one of these letters, five characters at most.
    let may_be_ambiguous = if first.is_alphabetic() {
        in_ascii_set(&AMBIGUOUS_LETTERS, first) && s.len() <= 5
    } else {
        true
    };
    may_be_ambiguous && is_ambiguous(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn v(text: &str) -> Value {
        match resolve_plain(text) {
            Resolved::Value(v) => v,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn yaml_1_1_booleans_and_nulls() {
        for t in ["yes", "Yes", "on", "ON", "y", "True"] {
            assert_eq!(v(t), json!(true), "{t}");
        }
        for t in ["no", "off", "n", "N", "FALSE"] {
            assert_eq!(v(t), json!(false), "{t}");
        }
        for t in ["", "~", "null", "NULL"] {
            assert_eq!(v(t), Value::Null, "{t}");
        }
        assert_eq!(v("yES"), json!("yES"));
    }

    #[test]
    fn go_base_zero_integers() {
        assert_eq!(v("0755"), json!(493));
        assert_eq!(v("1_000"), json!(1000));
        assert_eq!(v("0x1F"), json!(31));
        assert_eq!(v("0o17"), json!(15));
        assert_eq!(v("0b101"), json!(5));
        assert_eq!(v("-0x10"), json!(-16));
        assert_eq!(v("+7"), json!(7));
        assert_eq!(v("-9223372036854775808"), json!(i64::MIN));
        assert_eq!(v("18446744073709551615"), json!(u64::MAX));
        assert_eq!(
            resolve_plain("18446744073709551616"),
            Resolved::IntegerOverflow
        );
        assert_eq!(
            resolve_plain("-9223372036854775809"),
            Resolved::IntegerOverflow
        );
    }

    #[test]
    fn multi_byte_characters_after_a_digit_are_strings() {
        // Regression: `5°C` sliced the text at byte 2, inside `°`, and panicked.
        for text in [
            "5°C", "5€", "2½", "1–2", "9µs", "0ó", "-1é", "+0€", "7\u{2cf}", "0😀", "-0ó", "12é",
        ] {
            assert_eq!(v(text), json!(text), "{text}");
            assert!(
                !needs_quotes(text) || text.starts_with(['-', '+']),
                "{text}"
            );
        }
    }

    /// Every string of one to four characters of `alphabet`.
    fn every_text_up_to_four(alphabet: &[&str]) -> Vec<String> {
        let (mut level, mut texts) = (vec![String::new()], Vec::new());
        for _ in 0..4 {
            level = level
                .iter()
                .flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}")))
                .collect();
            texts.extend(level.iter().cloned());
        }
        texts
    }

    #[test]
    fn the_byte_shortcut_answers_as_the_patterns_do() {
        // Every string of up to four characters from the characters the patterns are made
        // of and a few they are not, plus dates and words: the shortcut (any byte outside
        // the patterns' alphabet leaves only the date prefix) must agree with searching
        // the whole set.
        let alphabet = [
            "0", "1", "7", "9", "-", "+", "_", ".", ":", "e", "x", "b", "o", "n", "a", "f", "i",
            "N", "Y", "s", "~", "<", "=", "m", "/", "g", " ",
        ];
        let mut texts = every_text_up_to_four(&alphabet);
        texts.extend(
            [
                "2024-01-01",
                "2024-1-1T10:00:00Z",
                "2024-12-5 x",
                "2024-123-5",
                "2024-1-",
                "202-01-01",
                "2001-12-14t21:59:43.10-05:00",
                "1:30:00",
                "0x1F",
                "0o17",
                "0b101",
                "-.inf",
                ".NaN",
                "190:20:30.15",
                "1e3",
                "+1_000",
                "100m",
                "1.25.3",
                "v1",
                "TRUE",
                "Off",
                "<<",
            ]
            .map(String::from),
        );
        let set = ambiguous_patterns();
        let mut ambiguous = 0;
        for text in &texts {
            let expected = set.is_match(text);
            assert_eq!(is_ambiguous(text), expected, "{text:?}");
            ambiguous += usize::from(expected);
        }
        assert!(ambiguous > 1_000, "{ambiguous} ambiguous texts");
    }

    #[test]
    fn a_short_text_written_plain_reads_back_as_itself() {
        // Every string of up to four characters from an alphabet of the characters the
        // quoting question looks at: when it says plain is safe, a mapping value and a
        // sequence item written plain read back as the same string.
        let alphabet = [
            "a", "y", "n", "o", "0", "-", ".", ":", "#", " ", "\t", "\u{1}", "\u{7f}", "é",
            "\u{85}", "\u{2028}", "\u{feff}", "~",
        ];
        let texts = every_text_up_to_four(&alphabet);
        let mut plain = 0;
        for text in texts.iter().filter(|t| !needs_quotes(t)) {
            plain += 1;
            for document in [format!("k: {text}\n"), format!("- {text}\n")] {
                let read = crate::compose::compose(&document)
                    .unwrap_or_else(|e| panic!("{document:?}: {e:?}"));
                let value = &read[0].value;
                let got = value.get("k").or_else(|| value.get(0));
                assert_eq!(got, Some(&json!(text)), "{document:?}");
            }
        }
        assert!(plain > 1000, "{plain} plain texts");
    }

    #[test]
    fn no_short_text_panics() {
        // Every string of up to three characters from an alphabet of number syntax and
        // multi-byte characters: resolving and the quoting question never panic.
        let alphabet = [
            "0", "1", "9", "+", "-", ".", "_", ":", "x", "X", "o", "b", "e", "°", "é", "€", "😀",
            "\u{85}", "\u{2028}", " ", "#",
        ];
        let mut texts = vec![String::new()];
        for _ in 0..3 {
            let longer: Vec<String> = texts
                .iter()
                .flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}")))
                .collect();
            texts.extend(longer);
        }
        for text in &texts {
            let _ = resolve_plain(text);
            let _ = needs_quotes(text);
        }
    }

    #[test]
    fn floats_and_go_yaml_oddities() {
        assert_eq!(v("1e3"), json!(1000));
        assert_eq!(v("1.5"), json!(1.5));
        assert_eq!(v(".5"), json!(0.5));
        assert_eq!(v("5."), json!(5));
        assert_eq!(v("1.0"), json!(1));
        assert_eq!(v("08"), json!(8)); // invalid octal, valid go-yaml float
        assert_eq!(v("12:30"), json!("12:30")); // go-yaml v2 has no sexagesimal
        assert_eq!(v("2001-12-14"), json!("2001-12-14"));
        assert_eq!(v("1e"), json!("1e"));
        assert_eq!(v("-"), json!("-"));
        assert_eq!(v("1.2.3"), json!("1.2.3"));
        assert_eq!(v("1e400"), json!("1e400"));
        assert_eq!(v(".5e400"), json!(".5e400"));
        assert_eq!(resolve_plain(".inf"), Resolved::NonFinite);
        assert_eq!(resolve_plain("-.INF"), Resolved::NonFinite);
        assert_eq!(resolve_plain(".NaN"), Resolved::NonFinite);
    }

    #[test]
    fn strings_that_must_be_quoted() {
        for s in [
            "yes",
            "on",
            "y",
            "FALSE",
            "False",
            "NULL",
            "Off",
            "0755",
            "1_000",
            "12:30",
            "null",
            "1e3",
            "",
            "~",
            "0x1F",
            "0o17",
            ".inf",
            "2001-12-14",
            "<<",
            "=",
            "-1",
            "+1",
            ".5",
            "1.",
            "true",
            "a: b",
            "#x",
            " lead",
            "trail ",
            "x:",
            "- item",
            "*alias",
            "&anchor",
            "!tag",
            "{",
            "[",
            "@x",
            "`x",
            "a #b",
            "line\nbreak",
            "tab\there",
            "685230",
            "1:20:30.5",
        ] {
            assert!(needs_quotes(s), "{s:?} must be quoted");
        }
        for s in [
            "web",
            "nginx:1.25",
            "1.2.3",
            "a-b",
            "http://x/y",
            "yES",
            "100m",
            "1Gi",
            "v1",
            "app.kubernetes.io/name",
            "a b",
            "x#y",
            "ReadWriteOnce",
            "falsey",
            "nulls",
            "yesno",
            "onward",
        ] {
            assert!(!needs_quotes(s), "{s:?} may stay plain");
        }
    }
}
