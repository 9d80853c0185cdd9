//! `encoding/json`: what Go's `json.Marshal` writes for a decoded JSON value.

use super::fmtfloat::format_float;
use serde_json::Value;

/// Go's `json.Marshal` of a decoded JSON value: keys sorted, `<`, `>`, `&`, U+2028 and
/// U+2029 escaped, floats in Go's shortest form (`1`, `0.5`, `1e+21`).
pub fn marshal(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, key, true);
                out.push(':');
                write_value(out, &map[key]);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::String(s) => write_string(out, s, true),
        Value::Number(n) if n.is_f64() => out.push_str(&float(n.as_f64().unwrap_or_default())),
        other => out.push_str(&other.to_string()),
    }
}

/// `encoding/json`'s string encoding: `"`, `\\`, `\n`, `\r`, `\t` as short escapes, other
/// control characters as `\u00XX` (Go writes `\u0008`, not `\b`), U+2028 and U+2029
/// escaped, and with `escape_html` (`json.Marshal`'s default) `<`, `>`, `&` too.
pub fn write_string(out: &mut String, s: &str, escape_html: bool) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' if escape_html => out.push_str(&format!("\\u00{:02x}", c as u32)),
            '\u{2028}' | '\u{2029}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u00{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `encoding/json`'s float64 (finite): fixed notation between 1e-6 and 1e21, else
/// exponent form with at least two exponent digits trimmed to Go's (`1e-07` → `1e-7`,
/// `1e+21`).
pub fn float(f: f64) -> String {
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let text = format_float(f, 'e', -1);
        match text.split_once("e-0") {
            Some((mantissa, exp)) if exp.len() == 1 => format!("{mantissa}e-{exp}"),
            _ => text,
        }
    } else {
        format_float(f, 'f', -1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strings_escape_as_go_does() {
        // Go writes \u0008 and \u000c where serde_json writes \b and \f.
        assert_eq!(
            marshal(&json!("a\u{8}\u{c}\u{1f}\t\n\u{2028}&")),
            r#""a\u0008\u000c\u001f\t\n\u2028\u0026""#
        );
        let mut out = String::new();
        write_string(&mut out, "<&>", false);
        assert_eq!(out, r#""<&>""#);
    }

    #[test]
    fn marshals_as_go_does() {
        assert_eq!(
            marshal(&json!({"b": 1.0, "a": [1e21, 1e-7, "<x>", 0.5, -2.5e-9]})),
            r#"{"a":[1e+21,1e-7,"\u003cx\u003e",0.5,-2.5e-9],"b":1}"#
        );
        assert_eq!(
            marshal(&json!({"b": [1, "x&y"], "a": "<"})),
            r#"{"a":"\u003c","b":[1,"x\u0026y"]}"#
        );
    }
}
