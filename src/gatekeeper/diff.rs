//! Which fields a mutation changed, as JSON Pointers, for the change record.

use crate::patch::escape;
use serde_json::Value;

/// The pointers where `after` differs from `before`: the deepest changed map field or
/// list element of equal-length lists, the whole list when its length changed.
pub fn changed_paths(before: &Value, after: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk(before, after, &mut String::new(), &mut out);
    out
}

fn walk(before: &Value, after: &Value, at: &mut String, out: &mut Vec<String>) {
    match (before, after) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, new) in b {
                let len = at.len();
                at.push('/');
                at.push_str(&escape(key));
                match a.get(key) {
                    Some(old) => walk(old, new, at, out),
                    None => out.push(at.clone()),
                }
                at.truncate(len);
            }
            for key in a.keys().filter(|k| !b.contains_key(*k)) {
                out.push(format!("{at}/{}", escape(key)));
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (old, new)) in a.iter().zip(b).enumerate() {
                let len = at.len();
                at.push('/');
                at.push_str(&i.to_string());
                walk(old, new, at, out);
                at.truncate(len);
            }
        }
        _ if before == after => {}
        _ => out.push(if at.is_empty() {
            "/".into()
        } else {
            at.clone()
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reports_the_deepest_changed_fields() {
        let before = json!({"a": {"b": 1, "c": [1, 2]}, "d": "x", "gone": 1});
        let after = json!({"a": {"b": 2, "c": [1, 2, 3]}, "d": "x", "new/key": {}});
        assert_eq!(
            changed_paths(&before, &after),
            ["/a/b", "/a/c", "/new~1key", "/gone"]
        );
    }
}
