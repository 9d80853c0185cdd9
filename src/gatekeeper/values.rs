//! JSON value equality as the webhook sees it: deep, type-sensitive except that numbers
//! compare by value (`8080` equals `8080.0`; gator's int64/float64 split is a documented
//! deviation, docs/gatekeeper.md).

use serde_json::Value;

/// Deep equality; numbers compare by numeric value, everything else by type and content.
pub fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => numbers_equal(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equal(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| equal(v, w)))
        }
        _ => a == b,
    }
}

fn numbers_equal(x: &serde_json::Number, y: &serde_json::Number) -> bool {
    if let (Some(p), Some(q)) = (x.as_i64(), y.as_i64()) {
        return p == q;
    }
    if let (Some(p), Some(q)) = (x.as_u64(), y.as_u64()) {
        return p == q;
    }
    match (x.as_f64(), y.as_f64()) {
        (Some(p), Some(q)) => p == q,
        _ => false,
    }
}

/// Go's `%T` name for a decoded JSON value, as Gatekeeper's type errors print it.
pub fn go_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float64",
        Value::Number(_) => "int64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_compare_by_value_everything_else_by_type() {
        assert!(equal(&json!({"p": [80]}), &json!({"p": [80.0]})));
        assert!(!equal(&json!("80"), &json!(80)));
        assert!(!equal(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
        assert!(!equal(&json!(null), &json!(false)));
    }
}
