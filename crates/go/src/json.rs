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
                write_string(out, key);
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
        Value::String(s) => write_string(out, s),
        Value::Number(n) if n.is_f64() => out.push_str(&float(n.as_f64().unwrap_or_default())),
        other => out.push_str(&other.to_string()),
    }
}

fn write_string(out: &mut String, s: &str) {
    let encoded = serde_json::to_string(s).expect("a string always serializes");
    for c in encoded.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
}

/// `encoding/json`'s float64: fixed notation between 1e-6 and 1e21, else exponent form
/// with at least two exponent digits trimmed to Go's (`1e-07` → `1e-7`, `1e+21`).
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
