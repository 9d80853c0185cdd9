//! Go's `fmt.Sprintf("%v")` of values decoded by `encoding/json` (every number a
//! float64), which KubeMod and Go templates use whenever a value becomes text.

use serde_json::Value;

/// `%v` of a float64: `strconv.FormatFloat(f, 'g', -1, 64)`, shortest round-trip digits,
/// exponent form when the decimal exponent is below -4 or at least 6 (`1e+06`).
pub fn format_float(f: f64) -> String {
    super::fmtfloat::format_float(f, 'g', -1)
}

/// `%v` of a JSON value as Go holds it after `encoding/json`: maps print as
/// `map[k:v ...]` with sorted keys, slices as `[a b]`, null as `<nil>`.
pub fn format_value(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("<nil>"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&format_float(n.as_f64().unwrap_or(f64::NAN))),
        Value::String(s) => out.push_str(s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push_str("map[");
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(key);
                out.push(':');
                write_value(out, &map[key]);
            }
            out.push(']');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn floats_format_like_go() {
        for (f, text) in [
            (80.0, "80"),
            (123456.0, "123456"),
            (1_000_000.0, "1e+06"),
            (1_234_567.0, "1.234567e+06"),
            (0.5, "0.5"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-2.5e-7, "-2.5e-07"),
            (1e21, "1e+21"),
            (1.5e300, "1.5e+300"),
            (-0.0, "-0"),
        ] {
            assert_eq!(format_float(f), text, "{f}");
        }
    }

    #[test]
    fn values_format_like_go() {
        assert_eq!(
            format_value(&json!({"b": [1, "x", null], "a": {"c": true}})),
            "map[a:map[c:true] b:[1 x <nil>]]"
        );
        assert_eq!(
            format_value(&json!(["123.12.34.1", "123.12.35.2"])),
            "[123.12.34.1 123.12.35.2]"
        );
    }
}
