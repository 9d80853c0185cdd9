//! Go's `encoding/json` for template values: `Marshal` (sorted keys, Go's float format,
//! `<>&` escaped unless raw), `MarshalIndent`, and `Unmarshal` into `interface {}`.

use super::value::{from_json, Value};
use super::MAX_NESTING;

/// `json.Marshal` (`html` escapes `<`, `>`, `&`), or `MarshalIndent(v, "", "  ")` when
/// `pretty`.
pub(crate) fn marshal(v: &Value, html: bool, pretty: bool) -> Result<String, String> {
    let mut out = String::new();
    write(&mut out, v, html, pretty, 0)?;
    Ok(out)
}

fn newline(out: &mut String, pretty: bool, depth: usize) {
    if pretty {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    }
}

fn write(
    out: &mut String,
    v: &Value,
    html: bool,
    pretty: bool,
    depth: usize,
) -> Result<(), String> {
    if depth > MAX_NESTING {
        return Err(format!(
            "json: unsupported value: encountered a cycle via {}",
            v.type_name()
        ));
    }
    if out.len() > super::MAX_OUTPUT {
        return Err(format!(
            "json: value is larger than {} bytes",
            super::MAX_OUTPUT
        ));
    }
    match v {
        Value::Nil => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) | Value::Int64(i) => out.push_str(&i.to_string()),
        Value::Uint(u, _) => out.push_str(&u.to_string()),
        Value::Float(f) => out.push_str(&float(*f)?),
        Value::Str(s) => string(out, s, html),
        Value::Version(ver) => string(out, &ver.to_string(), html),
        Value::List(items, _) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, pretty, depth + 1);
                write(out, item, html, pretty, depth + 1)?;
            }
            if !items.is_empty() {
                newline(out, pretty, depth);
            }
            out.push(']');
        }
        Value::Map(m, _) => {
            let entries = m.borrow().clone();
            out.push('{');
            for (i, (k, val)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, pretty, depth + 1);
                string(out, k, html);
                out.push(':');
                if pretty {
                    out.push(' ');
                }
                write(out, val, html, pretty, depth + 1)?;
            }
            if !entries.is_empty() {
                newline(out, pretty, depth);
            }
            out.push('}');
        }
    }
    Ok(())
}

/// `encoding/json`'s float64; Go refuses NaN and the infinities.
fn float(f: f64) -> Result<String, String> {
    if !f.is_finite() {
        let shown = kadmit_go::fmtfloat::format_float(f, 'g', -1);
        return Err(format!("json: unsupported value: {shown}"));
    }
    Ok(kadmit_go::json::float(f))
}

fn string(out: &mut String, s: &str, html: bool) {
    kadmit_go::json::write_string(out, s, html);
}

/// `json.Unmarshal` into `interface {}`: numbers are float64.
pub(crate) fn unmarshal(s: &str) -> Result<Value, String> {
    if s.trim().is_empty() {
        return Err("unexpected end of JSON input".into());
    }
    let v: serde_json::Value = serde_json::from_str(s).map_err(|e| e.to_string())?;
    from_json(&v, 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn marshals_like_go() {
        let mut m = BTreeMap::new();
        m.insert(
            "b".to_string(),
            Value::list(vec![Value::Float(1.0), Value::Float(2.5), Value::Nil]),
        );
        m.insert("a".to_string(), Value::str("<&>"));
        let v = Value::map(m);
        assert_eq!(
            marshal(&v, true, false).unwrap(),
            r#"{"a":"\u003c\u0026\u003e","b":[1,2.5,null]}"#
        );
        assert_eq!(
            marshal(&v, false, false).unwrap(),
            r#"{"a":"<&>","b":[1,2.5,null]}"#
        );
        assert_eq!(
            marshal(&v, true, true).unwrap(),
            "{\n  \"a\": \"\\u003c\\u0026\\u003e\",\n  \"b\": [\n    1,\n    2.5,\n    null\n  ]\n}"
        );
        assert_eq!(marshal(&Value::Float(1e21), true, false).unwrap(), "1e+21");
        assert_eq!(marshal(&Value::Float(1e-7), true, false).unwrap(), "1e-7");
        assert_eq!(
            marshal(&Value::Float(1e20), true, false).unwrap(),
            "100000000000000000000"
        );
        assert_eq!(marshal(&Value::list(vec![]), true, true).unwrap(), "[]");
        assert!(marshal(&Value::Float(f64::NAN), true, false)
            .unwrap_err()
            .contains("NaN"));
    }

    #[test]
    fn unmarshals_numbers_as_float64() {
        let v = unmarshal(r#"{"a": [1, 2]}"#).unwrap();
        assert_eq!(marshal(&v, true, false).unwrap(), r#"{"a":[1,2]}"#);
        assert!(unmarshal("{").is_err());
    }
}
