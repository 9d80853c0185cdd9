//! Writes values as YAML that every YAML 1.1 and 1.2 reader reads back to the same JSON:
//! block style with kustomize's layout (two-space indent, sequences not indented under
//! their key), strings quoted whenever a plain scalar could mean something else.

use super::scalar::needs_quotes;
use serde_json::{Number, Value};
use std::fmt::Write as _;

/// Appends one document (without separator) to `out`, ending in a newline.
pub fn write_document(out: &mut String, value: &Value) {
    match value {
        Value::Object(map) if !map.is_empty() => write_mapping(out, map, 0),
        Value::Array(items) if !items.is_empty() => write_sequence(out, items, 0),
        scalar => {
            write_inline(out, scalar, 0);
            out.push('\n');
        }
    }
}

/// Appends `value` as one item of a top-level block sequence (`- ...`).
pub fn write_sequence_item(out: &mut String, value: &Value) {
    write_sequence(out, std::slice::from_ref(value), 0);
}

fn indent(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// A mapping whose first line is already positioned (after `- ` or at column `level`).
fn write_mapping(out: &mut String, map: &serde_json::Map<String, Value>, level: usize) {
    for (i, (key, value)) in map.iter().enumerate() {
        if i > 0 {
            indent(out, level);
        }
        write_entry(out, key, value, level);
    }
}

/// One `key: value` entry of a block mapping at column `level`, its first line already
/// positioned there (a writer splicing entries of its own between copied ones uses it).
pub fn write_entry(out: &mut String, key: &str, value: &Value, level: usize) {
    write_key(out, key, level);
    out.push(':');
    match value {
        Value::Object(m) if !m.is_empty() => {
            out.push('\n');
            indent(out, level + 2);
            write_mapping(out, m, level + 2);
        }
        Value::Array(items) if !items.is_empty() => {
            out.push('\n');
            indent(out, level);
            write_sequence(out, items, level);
        }
        scalar => {
            out.push(' ');
            write_inline(out, scalar, level);
            out.push('\n');
        }
    }
}

/// YAML readers (libyaml, PyYAML, go-yaml, yaml-rust2) give up on an implicit key longer
/// than 1024 characters, counted from its first character to the `:`. Bytes are never fewer
/// than characters (nor than UTF-16 units), so measuring bytes is on the safe side.
const MAX_IMPLICIT_KEY: usize = 1024;

/// A key, written so that the `:` that follows it ends it: as an implicit key (`key:`), or,
/// when its written form is too long for one, as an explicit key (`? key` then `:` on the
/// next line at the same indentation).
fn write_key(out: &mut String, key: &str, level: usize) {
    // A written character takes at most 6 bytes (`\u001A` for one byte), plus two quotes.
    if key.len() * 6 + 2 <= MAX_IMPLICIT_KEY {
        write_string(out, key, level, true);
        return;
    }
    let mut written = String::new();
    write_string(&mut written, key, level, true);
    if written.len() <= MAX_IMPLICIT_KEY {
        out.push_str(&written);
    } else {
        out.push_str("? ");
        out.push_str(&written);
        out.push('\n');
        indent(out, level);
    }
}

fn write_sequence(out: &mut String, items: &[Value], level: usize) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            indent(out, level);
        }
        out.push_str("- ");
        match item {
            Value::Object(m) if !m.is_empty() => write_mapping(out, m, level + 2),
            Value::Array(inner) if !inner.is_empty() => write_sequence(out, inner, level + 2),
            scalar => {
                write_inline(out, scalar, level);
                out.push('\n');
            }
        }
    }
}

/// A scalar as the writer spells it on one line (`true`, `null`, `8080`, `0.5`).
pub(crate) fn write_scalar(out: &mut String, value: &Value) {
    write_inline(out, value, 0);
}

/// A scalar or empty collection on the current line; block strings continue below it.
fn write_inline(out: &mut String, value: &Value, level: usize) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_string(out, s, level, false),
        Value::Array(_) => out.push_str("[]"),
        Value::Object(_) => out.push_str("{}"),
    }
}

/// Integers as digits; floats always with a fraction and a signed exponent, the only float
/// form YAML 1.1 readers (PyYAML) and go-yaml agree on.
fn write_number(out: &mut String, n: &Number) {
    if n.is_i64() || n.is_u64() {
        let _ = write!(out, "{n}");
        return;
    }
    let text = n.to_string();
    let (mantissa, exponent) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e)),
        None => (text.as_str(), None),
    };
    out.push_str(mantissa);
    if !mantissa.contains('.') {
        out.push_str(".0");
    }
    if let Some(e) = exponent {
        out.push('e');
        if !e.starts_with(['-', '+']) {
            out.push('+');
        }
        out.push_str(e);
    }
}

fn write_string(out: &mut String, s: &str, level: usize, is_key: bool) {
    if !needs_quotes(s) {
        out.push_str(s);
    } else if !is_key && literal_block_safe(s) {
        write_literal_block(out, s, level);
    } else {
        write_double_quoted(out, s);
    }
}

/// Multi-line text that a literal block scalar reproduces exactly.
fn literal_block_safe(s: &str) -> bool {
    // Only line breaks: a block with no content line reads as "" whatever its chomping.
    s.contains('\n')
        && !s.trim_end_matches('\n').is_empty()
        && !s
            .chars()
            .any(|c| (c.is_control() && c != '\n' && c != '\t') || is_special_break(c))
        && s.split('\n')
            .all(|line| line.is_empty() || !line.trim_matches(' ').is_empty())
        && !s.starts_with('\t')
        && !s.split('\n').any(|line| line.starts_with('\t'))
}

/// Characters a literal block cannot hold: line breaks other than LF, the byte-order mark,
/// and the non-characters YAML readers refuse (`U+FFFE`, `U+FFFF`).
fn is_special_break(c: char) -> bool {
    matches!(
        c,
        '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
    )
}

fn write_literal_block(out: &mut String, s: &str, level: usize) {
    out.push('|');
    if s.starts_with(' ') || s.starts_with('\n') {
        out.push('2');
    }
    let body = s.trim_end_matches('\n');
    match s.len() - body.len() {
        0 => out.push('-'),
        1 => {}
        _ => out.push('+'),
    }
    for line in s.strip_suffix('\n').unwrap_or(s).split('\n') {
        out.push('\n');
        if !line.is_empty() {
            indent(out, level + 2);
            out.push_str(line);
        }
    }
}

fn write_double_quoted(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{85}' => out.push_str("\\N"),
            '\u{a0}' => out.push_str("\\_"),
            '\u{2028}' => out.push_str("\\L"),
            '\u{2029}' => out.push_str("\\P"),
            c if c.is_control() || matches!(c, '\u{feff}' | '\u{fffe}' | '\u{ffff}') => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn yaml(v: Value) -> String {
        let mut out = String::new();
        write_document(&mut out, &v);
        out
    }

    #[test]
    fn kustomize_layout() {
        let v = json!({"a": {"b": [1, {"c": "x", "d": []}], "e": {}}, "f": [[1, 2], "s"]});
        assert_eq!(
            yaml(v),
            "a:\n  b:\n  - 1\n  - c: x\n    d: []\n  e: {}\nf:\n- - 1\n  - 2\n- s\n"
        );
    }

    #[test]
    fn ambiguous_strings_are_quoted() {
        let v = json!({"yes": "on", "n": "0755", "t": "12:30", "e": "", "q": "say \"hi\"\u{1}"});
        assert_eq!(
            yaml(v),
            "\"yes\": \"on\"\n\"n\": \"0755\"\nt: \"12:30\"\ne: \"\"\nq: say \"hi\"\u{1}\n"
                .replace("q: say \"hi\"\u{1}", "q: \"say \\\"hi\\\"\\u0001\"")
        );
    }

    #[test]
    fn multi_line_strings_use_literal_blocks() {
        let v = json!({"a": "x\ny\n", "b": "x\ny", "c": "x\n\n", "d": " x\ny", "e": "x\n  \ny"});
        assert_eq!(
            yaml(v),
            "a: |\n  x\n  y\nb: |-\n  x\n  y\nc: |+\n  x\n\nd: |2-\n   x\n  y\ne: \"x\\n  \\ny\"\n"
        );
    }

    #[test]
    fn document_markers_long_keys_and_bare_line_breaks() {
        let v = json!({"... x": "--- y", "...": "...\tz", "---x": "...x", "x": ["\n", "\n\n"]});
        assert_eq!(
            yaml(v),
            "\"... x\": \"--- y\"\n\"...\": \"...\\tz\"\n\"---x\": ...x\nx:\n- \"\\n\"\n- \"\\n\\n\"\n"
        );
        // A key written longer than 1024 bytes becomes an explicit key; 1024 stay implicit.
        let (long, limit) = ("k".repeat(1025), "k".repeat(1024));
        let v = json!({"m": {long.clone(): {"a": 1}, limit.clone(): [1], "b": long.clone()}});
        assert_eq!(
            yaml(v),
            format!("m:\n  ? {long}\n  :\n    a: 1\n  {limit}:\n  - 1\n  b: {long}\n")
        );
        let v = json!([{"\u{1}".repeat(171): "v"}]);
        assert_eq!(
            yaml(v),
            format!("- ? \"{}\"\n  : v\n", "\\u0001".repeat(171))
        );
    }

    #[test]
    fn floats_keep_a_fraction_and_signed_exponent() {
        assert_eq!(
            yaml(json!([1.5, 1e30, 1e-7, 2.0])),
            "- 1.5\n- 1.0e+30\n- 1.0e-7\n- 2.0\n"
        );
    }
}
