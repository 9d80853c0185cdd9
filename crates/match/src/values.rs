//! JSON value equality as the webhook sees it: deep, type-sensitive except that numbers
//! compare by value (`8080` equals `8080.0`; gator's int64/float64 split is a documented
//! deviation, docs/gatekeeper.md).

use serde_json::{Map, Value};

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

/// Exact equality, as the output would show it: maps in the same key order, numbers in the
/// same representation (`80` is not `80.0`, `0.0` is not `-0.0`).
pub fn identical(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x == y && x.as_f64().map(f64::to_bits) == y.as_f64().map(f64::to_bits)
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| identical(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((k, v), (l, w))| k == l && identical(v, w))
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

/// `map[key]`. A few keys are compared rather than hashed: that is cheaper than SipHash.
pub fn field<'m>(map: &'m Map<String, Value>, key: &str) -> Option<&'m Value> {
    match map.len() <= SCANNED {
        true => map.iter().find_map(|(k, v)| (k == key).then_some(v)),
        false => map.get(key),
    }
}

/// `map[key]`, to change it.
pub fn field_mut<'m>(map: &'m mut Map<String, Value>, key: &str) -> Option<&'m mut Value> {
    match map.len() <= SCANNED {
        true => map.iter_mut().find_map(|(k, v)| (k == key).then_some(v)),
        false => map.get_mut(key),
    }
}

/// The largest map `field` searches by comparing keys.
const SCANNED: usize = 8;

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

    #[test]
    fn identical_values_look_the_same_when_written() {
        assert!(identical(
            &json!({"a": [1, 2.5], "b": null}),
            &json!({"a": [1, 2.5], "b": null})
        ));
        assert!(!identical(
            &json!({"a": 1, "b": 2}),
            &json!({"b": 2, "a": 1})
        ));
        assert!(!identical(&json!(80), &json!(80.0)));
        assert!(!identical(&json!(0.0), &json!(-0.0)));
    }
}
