//! Go's `encoding/json.Marshal` of a decoded value: compact, object keys sorted, and
//! `<`, `>`, `&`, U+2028, U+2029 escaped. KubeMod rewrites the last-applied-configuration
//! annotation this way.

use serde_json::Value;

pub fn marshal(value: &Value) -> String {
    let mut out = String::new();
    write(&mut out, value);
    out
}

fn write(out: &mut String, value: &Value) {
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
                write(out, &map[key]);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(out, item);
            }
            out.push(']');
        }
        Value::String(s) => write_string(out, s),
        Value::Number(n) => out.push_str(&go_number(n)),
        other => out.push_str(&other.to_string()),
    }
}

/// Go formats float64 with 'f' between 1e-6 and 1e21 and 'e' (with a trimmed exponent)
/// outside it; integers decoded from JSON are float64 too, so `3` stays `3`.
fn go_number(n: &serde_json::Number) -> String {
    if n.is_i64() || n.is_u64() {
        return n.to_string();
    }
    let f = n.as_f64().unwrap_or(0.0);
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let text = format!("{f:e}");
        let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        let exponent: i32 = exponent.parse().unwrap_or(0);
        let sign = if exponent < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exponent.abs());
    }
    format!("{f}")
}

fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sorted_compact_and_html_safe() {
        assert_eq!(
            marshal(&json!({"b": [1, 2.5, null, true], "a": {"y": "<&>", "x": "\u{1}"}})),
            r#"{"a":{"x":"\u0001","y":"\u003c\u0026\u003e"},"b":[1,2.5,null,true]}"#
        );
        assert_eq!(marshal(&json!(1e21)), "1e+21");
        assert_eq!(marshal(&json!(0.0000001)), "1e-07");
    }
}
