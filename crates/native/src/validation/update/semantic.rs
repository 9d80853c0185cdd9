//! `apiequality.Semantic.DeepEqual` on decoded JSON, and the change list kadmit prints
//! where the server prints `cmp.Diff` of two Go structs.
//!
//! Semantic equality, as upstream: a null field, an empty list and an empty map equal an
//! absent one (Go decodes all of them to the zero value or nil, and the equalities treat
//! nil and empty alike); quantities compare by value (`1Gi` equals `1024Mi`). A value is
//! read as a quantity where the API has them: the entries of a resource list
//! (`requests`, `limits`, `capacity`, `overhead`, `hard`) and an `emptyDir`'s `sizeLimit`.

use kadmit_schema::quantity::Quantity;
use serde_json::Value;
use std::cmp::Ordering;

/// The keys whose object holds quantities by resource name.
const RESOURCE_LISTS: [&str; 5] = ["requests", "limits", "capacity", "overhead", "hard"];

/// Whether `a` and `b` are semantically equal, `a` and `b` being the values of `key`
/// (`None` at the top).
pub fn equal(a: Option<&Value>, b: Option<&Value>) -> bool {
    equal_at(a, b, Position::Other)
}

#[derive(Clone, Copy, PartialEq)]
enum Position {
    /// The values of a resource list or a `sizeLimit`.
    Quantity,
    /// A resource list itself.
    ResourceList,
    Other,
}

fn position_of(parent: Position, key: &str) -> Position {
    if parent == Position::ResourceList || key == "sizeLimit" {
        Position::Quantity
    } else if RESOURCE_LISTS.contains(&key) {
        Position::ResourceList
    } else {
        Position::Other
    }
}

fn is_zero(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => true,
        Some(Value::Array(a)) => a.is_empty(),
        Some(Value::Object(m)) => m.is_empty(),
        _ => false,
    }
}

fn quantity(v: &Value) -> Option<Quantity> {
    match v {
        Value::String(s) => Quantity::parse(s).ok(),
        Value::Number(n) => Quantity::parse(&n.to_string()).ok(),
        _ => None,
    }
}

fn equal_at(a: Option<&Value>, b: Option<&Value>, at: Position) -> bool {
    if is_zero(a) && is_zero(b) {
        return true;
    }
    let (Some(a), Some(b)) = (a, b) else {
        return false;
    };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => x
            .keys()
            .chain(y.keys())
            .all(|k| equal_at(x.get(k), y.get(k), position_of(at, k))),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(p, q)| equal_at(Some(p), Some(q), Position::Other))
        }
        _ if at == Position::Quantity => match (quantity(a), quantity(b)) {
            (Some(p), Some(q)) => p.compare(&q) == Ordering::Equal,
            _ => a == b,
        },
        _ => a == b,
    }
}

/// The changes from `old` to `new` under `path`, one pair of lines per changed value
/// (`- spec.containers[0].args: ["a"]`, `+ spec.containers[0].args: ["b"]`), where the
/// server prints a `cmp.Diff` of the Go structs (which kadmit does not have).
pub fn changes(path: &str, old: Option<&Value>, new: Option<&Value>) -> String {
    let mut lines = Vec::new();
    collect(path, old, new, Position::Other, &mut lines);
    lines.join("\n")
}

fn collect(
    path: &str,
    old: Option<&Value>,
    new: Option<&Value>,
    at: Position,
    lines: &mut Vec<String>,
) {
    if equal_at(old, new, at) {
        return;
    }
    match (old, new) {
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            let mut keys: Vec<&String> = x.keys().collect();
            keys.extend(y.keys().filter(|k| !x.contains_key(*k)));
            for k in keys {
                let child = format!("{path}.{k}");
                collect(&child, x.get(k), y.get(k), position_of(at, k), lines);
            }
        }
        (Some(Value::Array(x)), Some(Value::Array(y))) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                collect(
                    &format!("{path}[{i}]"),
                    Some(p),
                    Some(q),
                    Position::Other,
                    lines,
                );
            }
        }
        _ => {
            let shown = |v: Option<&Value>| match v {
                Some(v) if !is_zero(Some(v)) => v.to_string(),
                _ => "null".to_owned(),
            };
            lines.push(format!("- {path}: {}", shown(old)));
            lines.push(format!("+ {path}: {}", shown(new)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn quantities_compare_by_value_where_the_api_has_them() {
        let a = json!({"resources": {"requests": {"storage": "1Gi"}}});
        let b = json!({"resources": {"requests": {"storage": "1024Mi"}}});
        assert!(equal(Some(&a), Some(&b)));
        let c = json!({"resources": {"requests": {"storage": "2Gi"}}});
        assert!(!equal(Some(&a), Some(&c)));
        // Elsewhere a string is a string.
        assert!(!equal(
            Some(&json!({"x": "1Gi"})),
            Some(&json!({"x": "1024Mi"}))
        ));
        assert!(equal(
            Some(&json!({"sizeLimit": "1000m"})),
            Some(&json!({"sizeLimit": 1}))
        ));
    }

    #[test]
    fn null_empty_and_absent_are_equal() {
        assert!(equal(
            Some(&json!({"a": null, "b": [], "c": {}})),
            Some(&json!({}))
        ));
        assert!(!equal(Some(&json!({"a": ""})), Some(&json!({}))));
    }

    #[test]
    fn changes_name_each_changed_value() {
        let old = json!({"containers": [{"name": "c", "args": ["a"]}], "nodeName": "n"});
        let new = json!({"containers": [{"name": "c", "args": ["b"]}], "hostname": "h"});
        assert_eq!(
            changes("spec", Some(&old), Some(&new)),
            "- spec.containers[0].args[0]: \"a\"\n+ spec.containers[0].args[0]: \"b\"\n- spec.nodeName: \"n\"\n+ spec.nodeName: null\n- spec.hostname: null\n+ spec.hostname: \"h\""
        );
    }
}
