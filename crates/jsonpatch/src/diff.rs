//! Which fields a mutation changed, as JSON Pointers, for the change record.

use crate::pointer::{push_index, push_token};
use serde_json::Value;

/// Adds to `out` the pointers under `at` where `after` differs from `before`: the deepest
/// changed map field or list element of equal-length lists, the whole list when its length
/// changed. `at` is the pointer of `before`/`after` and is left as it was.
pub fn changed_paths(at: &mut String, before: &Value, after: &Value, out: &mut Vec<String>) {
    match (before, after) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, new) in b {
                let old = a.get(key);
                if old == Some(new) {
                    // Unchanged: nothing to name below.
                    continue;
                }
                let len = at.len();
                push_token(at, key);
                match old {
                    Some(old) => changed_paths(at, old, new, out),
                    None => out.push(at.clone()),
                }
                at.truncate(len);
            }
            for key in a.keys().filter(|k| !b.contains_key(*k)) {
                let len = at.len();
                push_token(at, key);
                out.push(at.clone());
                at.truncate(len);
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (old, new)) in a.iter().zip(b).enumerate() {
                if old == new {
                    continue;
                }
                let len = at.len();
                push_index(at, i);
                changed_paths(at, old, new, out);
                at.truncate(len);
            }
        }
        _ if before == after => {}
        _ if at.is_empty() => out.push("/".into()),
        _ => out.push(at.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn paths(before: Value, after: Value) -> Vec<String> {
        let mut out = Vec::new();
        changed_paths(&mut String::new(), &before, &after, &mut out);
        out
    }

    #[test]
    fn reports_the_deepest_changed_fields() {
        let before = json!({"a": {"b": 1, "c": [1, 2]}, "d": "x", "gone": 1});
        let after = json!({"a": {"b": 2, "c": [1, 2, 3]}, "d": "x", "new/key": {}});
        assert_eq!(paths(before, after), ["/a/b", "/a/c", "/new~1key", "/gone"]);
        assert_eq!(paths(json!(1), json!(2)), ["/"]);
    }

    #[test]
    fn reports_under_the_pointer_it_is_given() {
        let mut at = "/x/0".to_owned();
        let mut out = Vec::new();
        changed_paths(&mut at, &json!({"a~b": 1}), &json!({"a~b": 2}), &mut out);
        assert_eq!(out, ["/x/0/a~0b"]);
        assert_eq!(at, "/x/0");
    }
}
