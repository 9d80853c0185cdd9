//! RFC 6902 JSON Patch as webhooks send it (`patchType: JSONPatch`): all six operations,
//! plain RFC semantics (no created parents, no negative indices), all or nothing.
//! `add`, `replace` and `remove` are `crate::patch`'s; `move`, `copy` and `test` are
//! spelled in those terms against the document as it stands at that operation.

use crate::patch::{self, Op};
use serde_json::Value;

/// Applies `ops` (the decoded JSON array) to a copy of `doc` and returns the result.
pub fn apply(doc: &Value, ops: &Value) -> Result<Value, String> {
    let Value::Array(ops) = ops else {
        return Err("a JSON Patch must be a list of operations".into());
    };
    let mut result = doc.clone();
    for (i, op) in ops.iter().enumerate() {
        apply_op(&mut result, op).map_err(|e| format!("operation {i}: {e}"))?;
    }
    Ok(result)
}

fn apply_op(doc: &mut Value, op: &Value) -> Result<(), String> {
    let name = field(op, "op")?;
    let path = field(op, "path")?;
    let value = || {
        op.get("value")
            .cloned()
            .ok_or_else(|| format!("{name} {path}: missing \"value\""))
    };
    let from = || -> Result<(String, Value), String> {
        let from = field(op, "from")?.to_owned();
        let found = doc
            .pointer(&from)
            .cloned()
            .ok_or_else(|| format!("{name} {path}: \"from\" {from:?} does not exist"))?;
        Ok((from, found))
    };
    let steps = match name {
        "add" => vec![Op::Add {
            path: path.into(),
            value: value()?,
        }],
        "replace" => vec![Op::Replace {
            path: path.into(),
            value: value()?,
        }],
        "remove" => vec![Op::Remove { path: path.into() }],
        "copy" => vec![Op::Add {
            path: path.into(),
            value: from()?.1,
        }],
        "move" => {
            let (from, value) = from()?;
            if path.starts_with(&format!("{from}/")) {
                return Err(format!("move {path}: cannot move {from:?} into itself"));
            }
            vec![
                Op::Remove { path: from },
                Op::Add {
                    path: path.into(),
                    value,
                },
            ]
        }
        "test" => {
            let expected = value()?;
            return match doc.pointer(path) {
                Some(actual) if *actual == expected => Ok(()),
                Some(_) => Err(format!("test {path}: the value differs")),
                None => Err(format!("test {path}: the path does not exist")),
            };
        }
        other => return Err(format!("unknown operation {other:?}")),
    };
    patch::apply(doc, &steps, patch::Options::default()).map_err(|e| e.to_string())
}

fn field<'a>(op: &'a Value, name: &str) -> Result<&'a str, String> {
    op.get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("missing string {name:?} in {op}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn all_six_operations() {
        let doc = json!({"a": {"b": 1}, "list": [1, 2], "c": "x"});
        let ops = json!([
            {"op": "add", "path": "/a/d", "value": 2},
            {"op": "replace", "path": "/c", "value": "y"},
            {"op": "remove", "path": "/list/0"},
            {"op": "copy", "from": "/a/b", "path": "/e"},
            {"op": "move", "from": "/a/d", "path": "/f"},
            {"op": "test", "path": "/c", "value": "y"},
            {"op": "add", "path": "/list/-", "value": 3},
        ]);
        assert_eq!(
            apply(&doc, &ops).unwrap(),
            json!({"a": {"b": 1}, "list": [2, 3], "c": "y", "e": 1, "f": 2})
        );
    }

    #[test]
    fn a_failing_operation_fails_the_whole_patch() {
        let doc = json!({"a": 1});
        for (ops, error) in [
            (
                json!([{"op": "test", "path": "/a", "value": 2}]),
                "operation 0: test /a: the value differs",
            ),
            (
                json!([{"op": "add", "path": "/x/y", "value": 1}]),
                "operation 0: add /x/y",
            ),
            (
                json!([{"op": "remove", "path": "/b"}]),
                "operation 0: remove /b",
            ),
            (
                json!([{"op": "move", "from": "/nope", "path": "/b"}]),
                "does not exist",
            ),
            (
                json!([{"op": "frobnicate", "path": "/a"}]),
                "unknown operation",
            ),
            (json!([{"path": "/a"}]), "missing string \"op\""),
            (json!({"op": "add"}), "must be a list"),
        ] {
            let got = apply(&doc, &ops).unwrap_err();
            assert!(got.contains(error), "{got:?} should contain {error:?}");
        }
    }
}
