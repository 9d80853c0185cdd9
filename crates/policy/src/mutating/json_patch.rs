//! A MutatingAdmissionPolicy JSONPatch applied to the object (reference
//! admission-policies.md §9.3; AP `mutating/patch/json_patch.go`), with the semantics of the
//! library the API server uses (evanphx/json-patch v4):
//!
//! - a `test` that fails skips the **whole** patch, silently: [`apply`] returns `Ok(None)`
//!   and the caller keeps the object unchanged (json_patch.go returns the original object
//!   when the error is `ErrTestFailed`);
//! - `replace` of a missing map key adds it (the library only checks that the parent
//!   exists); `replace` of a missing list index, or of `/-`, fails:
//!   `JSON Patch: replace operation does not apply: doc is missing key: <path>: missing value`;
//! - `add` of an existing member replaces it, `add` at `/-` appends, negative list indices
//!   count from the end;
//! - `copy` and `move` read `from` first (`move` removes it before finding `path`);
//! - errors carry the library's texts after `JSON Patch: `.
//!
//! `kadmit_jsonpatch::patch` is not used for the operations: its `replace` requires the
//! member to exist, its errors are worded differently, and it knows neither `test`'s
//! skip-everything rule nor the library's order of checks for `move` and `copy`, all of
//! which the messages and results above depend on. Pointer tokens are unescaped by
//! `kadmit_jsonpatch::pointer`, which matches the library's `decodePatchKey`.

use kadmit_jsonpatch::pointer::unescape;
use serde_json::Value;

/// `ErrMissing`'s text.
const MISSING: &str = "missing value";
/// `ErrInvalidIndex`'s text.
const INVALID_INDEX: &str = "invalid index referenced";

/// Why one operation stopped the patch.
enum Failure {
    /// A `test` did not hold (`ErrTestFailed`): the patch is skipped.
    TestFailed,
    Error(String),
}

impl From<String> for Failure {
    fn from(text: String) -> Self {
        Failure::Error(text)
    }
}

/// Applies `ops` (RFC 6902 operations as JSON objects, as
/// `Invocation::evaluate_json_patch` returns them) to a copy of `object`: `Ok(Some(result))`,
/// `Ok(None)` when a `test` failed (the patch is skipped; the object stays as it was), or
/// the error text (`JSON Patch: ...`).
pub fn apply(object: &Value, ops: &[Value]) -> Result<Option<Value>, String> {
    let mut doc = object.clone();
    for op in ops {
        match apply_op(&mut doc, op) {
            Ok(()) => {}
            Err(Failure::TestFailed) => return Ok(None),
            Err(Failure::Error(text)) => return Err(format!("JSON Patch: {text}")),
        }
    }
    Ok(Some(doc))
}

/// A string member of the operation (`Operation.Path`, `Operation.From`, `Operation.Kind`).
fn member<'a>(op: &'a Value, name: &str) -> Option<&'a str> {
    op.get(name).and_then(Value::as_str)
}

fn apply_op(doc: &mut Value, op: &Value) -> Result<(), Failure> {
    let kind = member(op, "op").unwrap_or("unknown");
    let path = member(op, "path");
    let from = member(op, "from");
    // `Operation.value()`: an absent or null `value` is the library's nil node.
    let value = op.get("value").filter(|v| !v.is_null());
    let need_path = |what: &str| {
        path.ok_or_else(|| {
            Failure::Error(format!("{what} operation failed to decode path: {MISSING}"))
        })
    };
    let need_from = |what: &str| {
        from.ok_or_else(|| {
            Failure::Error(format!("{what} operation failed to decode from: {MISSING}"))
        })
    };
    let value_or_null = || value.cloned().unwrap_or(Value::Null);
    match kind {
        "add" => {
            let path = need_path("add")?;
            let (con, key) = find_object(doc, path).ok_or_else(|| {
                format!("add operation does not apply: doc is missing path: \"{path}\": {MISSING}")
            })?;
            add(con, &key, value_or_null())
                .map_err(|e| format!("error in add for path: '{path}': {e}"))?;
        }
        "remove" => {
            let path = need_path("remove")?;
            let (con, key) = find_object(doc, path).ok_or_else(|| {
                format!(
                    "remove operation does not apply: doc is missing path: \"{path}\": {MISSING}"
                )
            })?;
            remove(con, &key).map_err(|e| format!("error in remove for path: '{path}': {e}"))?;
        }
        "replace" => {
            let path = need_path("replace")?;
            let (con, key) = find_object(doc, path).ok_or_else(|| {
                format!("replace operation does not apply: doc is missing path: {path}: {MISSING}")
            })?;
            if get(con, &key).is_err() {
                return Err(Failure::Error(format!(
                    "replace operation does not apply: doc is missing key: {path}: {MISSING}"
                )));
            }
            set(con, &key, value_or_null())
                .map_err(|e| format!("error in remove for path: '{path}': {e}"))?;
        }
        "move" => {
            let from = need_from("move")?;
            let (con, key) = find_object(doc, from).ok_or_else(|| {
                format!(
                    "move operation does not apply: doc is missing from path: {from}: {MISSING}"
                )
            })?;
            get(con, &key).map_err(|e| format!("error in move for path: '{key}': {e}"))?;
            let moved =
                remove(con, &key).map_err(|e| format!("error in move for path: '{key}': {e}"))?;
            let path = need_path("move")?;
            let (con, key) = find_object(doc, path).ok_or_else(|| {
                format!(
                    "move operation does not apply: doc is missing destination path: {path}: {MISSING}"
                )
            })?;
            add(con, &key, moved).map_err(|e| format!("error in move for path: '{path}': {e}"))?;
        }
        "copy" => {
            let from = need_from("copy")?;
            let missing_from = || {
                format!(
                    "copy operation does not apply: doc is missing from path: {from}: {MISSING}"
                )
            };
            let (con, key) = find_object(doc, from).ok_or_else(missing_from)?;
            let copied = get(con, &key)
                .map_err(|e| format!("error in copy for from: '{from}': {e}"))?
                .cloned()
                .ok_or_else(missing_from)?;
            let path = need_path("copy")?;
            let (con, key) = find_object(doc, path).ok_or_else(|| {
                format!(
                    "copy operation does not apply: doc is missing destination path: {path}: {MISSING}"
                )
            })?;
            add(con, &key, copied)
                .map_err(|e| format!("error while adding value during copy: {e}"))?;
        }
        "test" => {
            let path = need_path("test")?;
            let (con, key) = find_object(doc, path).ok_or_else(|| {
                format!("test operation does not apply: is missing path: {path}: {MISSING}")
            })?;
            let found =
                get(con, &key).map_err(|e| format!("error in test for path: '{path}': {e}"))?;
            let holds = match (found, value) {
                (None, None) => true,
                (Some(found), Some(expected)) => found == expected,
                (Some(found), None) => found.is_null(),
                (None, Some(_)) => false,
            };
            if !holds {
                return Err(Failure::TestFailed);
            }
        }
        other => return Err(Failure::Error(format!("Unexpected kind: {other}"))),
    }
    Ok(())
}

/// The library's `findObject`: the container holding the last token of `path` (an object
/// or a list reached through existing members), and that token unescaped. `None` for the
/// root pointer `""` and when a parent is missing, null or a scalar.
fn find_object<'a>(doc: &'a mut Value, path: &str) -> Option<(&'a mut Value, String)> {
    let split: Vec<&str> = path.split('/').collect();
    if split.len() < 2 {
        return None;
    }
    let (key, parents) = split[1..].split_last()?;
    let mut current = doc;
    for part in parents {
        let part = unescape(part);
        let next = match current {
            Value::Object(map) => map.get_mut(part.as_ref()),
            Value::Array(items) => {
                let i = index(&part, items.len()).ok()?;
                items.get_mut(i)
            }
            _ => None,
        }?;
        if !matches!(next, Value::Object(_) | Value::Array(_)) {
            return None;
        }
        current = next;
    }
    Some((current, unescape(key).into_owned()))
}

/// Go's `strconv.Atoi`: an optional sign and decimal digits.
fn atoi(key: &str) -> Result<i64, String> {
    let digits = key.strip_prefix(['+', '-']).unwrap_or(key);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("strconv.Atoi: parsing \"{key}\": invalid syntax"));
    }
    key.parse::<i64>()
        .map_err(|_| format!("strconv.Atoi: parsing \"{key}\": value out of range"))
}

/// An existing index of a list of `len` elements (negative ones from the end), as
/// `partialArray.get`, `set` and `remove` accept it.
fn index(key: &str, len: usize) -> Result<usize, String> {
    let idx = atoi(key)?;
    let len = len as i64;
    let invalid = || format!("Unable to access invalid index: {idx}: {INVALID_INDEX}");
    let resolved = if idx < 0 {
        if idx < -len {
            return Err(invalid());
        }
        idx + len
    } else {
        idx
    };
    if resolved >= len {
        return Err(invalid());
    }
    Ok(resolved as usize)
}

/// `container.get`: a missing map key is `Ok(None)`; a bad list index an error.
fn get<'a>(con: &'a Value, key: &str) -> Result<Option<&'a Value>, String> {
    match con {
        Value::Object(map) => Ok(map.get(key)),
        Value::Array(items) => Ok(Some(&items[index(key, items.len())?])),
        _ => Err(MISSING.into()),
    }
}

/// `container.set`: a map key is inserted or overwritten; a list element must exist.
fn set(con: &mut Value, key: &str, value: Value) -> Result<(), String> {
    match con {
        Value::Object(map) => {
            map.insert(key.to_owned(), value);
            Ok(())
        }
        Value::Array(items) => {
            let i = index(key, items.len())?;
            items[i] = value;
            Ok(())
        }
        _ => Err(MISSING.into()),
    }
}

/// `container.add`: a map key is inserted or overwritten; into a list at `-` (the end) or at
/// an index up to its length (negative from the end).
fn add(con: &mut Value, key: &str, value: Value) -> Result<(), String> {
    match con {
        Value::Object(map) => {
            map.insert(key.to_owned(), value);
            Ok(())
        }
        Value::Array(items) => {
            if key == "-" {
                items.push(value);
                return Ok(());
            }
            let idx = atoi(key)
                .map_err(|e| format!("value was not a proper array index: '{key}': {e}"))?;
            let size = items.len() as i64 + 1;
            let invalid = || format!("Unable to access invalid index: {idx}: {INVALID_INDEX}");
            if idx >= size {
                return Err(invalid());
            }
            let at = if idx < 0 {
                if idx < -size {
                    return Err(invalid());
                }
                idx + size
            } else {
                idx
            };
            items.insert(at as usize, value);
            Ok(())
        }
        _ => Err(MISSING.into()),
    }
}

/// `container.remove`, returning what was removed.
fn remove(con: &mut Value, key: &str) -> Result<Value, String> {
    match con {
        Value::Object(map) => map
            .remove(key)
            .ok_or_else(|| format!("Unable to remove nonexistent key: {key}: {MISSING}")),
        Value::Array(items) => {
            let i = index(key, items.len())?;
            Ok(items.remove(i))
        }
        _ => Err(MISSING.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::apply;
    use serde_json::{json, Value};

    fn patch(doc: Value, ops: Value) -> Result<Option<Value>, String> {
        apply(&doc, ops.as_array().unwrap())
    }

    #[test]
    fn a_failed_test_skips_the_whole_patch() {
        let doc = json!({"spec": {"replicas": 1}});
        let ops = json!([
            {"op": "replace", "path": "/spec/replicas", "value": 3},
            {"op": "test", "path": "/spec/replicas", "value": 100},
        ]);
        assert_eq!(patch(doc.clone(), ops), Ok(None));
        let ops = json!([
            {"op": "test", "path": "/spec/replicas", "value": 1},
            {"op": "replace", "path": "/spec/replicas", "value": 3},
        ]);
        assert_eq!(patch(doc, ops), Ok(Some(json!({"spec": {"replicas": 3}}))));
    }

    #[test]
    fn replace_adds_a_missing_map_key_but_not_a_list_element() {
        let doc = json!({"metadata": {}, "l": [1]});
        assert_eq!(
            patch(
                doc.clone(),
                json!([{"op": "replace", "path": "/metadata/labels", "value": {"a": "b"}}])
            ),
            Ok(Some(json!({"metadata": {"labels": {"a": "b"}}, "l": [1]})))
        );
        assert_eq!(
            patch(doc.clone(), json!([{"op": "replace", "path": "/l/-", "value": 2}])),
            Err("JSON Patch: replace operation does not apply: doc is missing key: /l/-: missing value".into())
        );
        assert_eq!(
            patch(doc, json!([{"op": "replace", "path": "/x/y", "value": 2}])),
            Err("JSON Patch: replace operation does not apply: doc is missing path: /x/y: missing value".into())
        );
    }

    #[test]
    fn add_replaces_appends_and_inserts() {
        let doc = json!({"m": {"a": 1}, "l": [1, 2]});
        let ops = json!([
            {"op": "add", "path": "/m", "value": {"b": 2}},
            {"op": "add", "path": "/l/-", "value": 3},
            {"op": "add", "path": "/l/0", "value": 0},
            {"op": "add", "path": "/l/-1", "value": 9},
        ]);
        assert_eq!(
            patch(doc, ops),
            Ok(Some(json!({"m": {"b": 2}, "l": [0, 1, 2, 3, 9]})))
        );
        assert_eq!(
            patch(json!({"l": []}), json!([{"op": "add", "path": "/l/2", "value": 1}])),
            Err("JSON Patch: error in add for path: '/l/2': Unable to access invalid index: 2: invalid index referenced".into())
        );
        assert_eq!(
            patch(json!({}), json!([{"op": "add", "path": "/a/b", "value": 1}])),
            Err("JSON Patch: add operation does not apply: doc is missing path: \"/a/b\": missing value".into())
        );
    }

    #[test]
    fn copy_move_remove() {
        let doc = json!({"m": {"x": 1}, "l": [{"n": "a"}, {"n": "b"}]});
        let ops = json!([
            {"op": "copy", "from": "/m/x", "path": "/m/y"},
            {"op": "move", "from": "/l/0", "path": "/l/-"},
            {"op": "remove", "path": "/m/x"},
        ]);
        assert_eq!(
            patch(doc, ops),
            Ok(Some(json!({"m": {"y": 1}, "l": [{"n": "b"}, {"n": "a"}]})))
        );
        assert_eq!(
            patch(json!({"m": {}}), json!([{"op": "remove", "path": "/m/x"}])),
            Err("JSON Patch: error in remove for path: '/m/x': Unable to remove nonexistent key: x: missing value".into())
        );
        assert_eq!(
            patch(json!({"m": {}}), json!([{"op": "frob", "path": "/m"}])),
            Err("JSON Patch: Unexpected kind: frob".into())
        );
    }

    #[test]
    fn escaped_tokens() {
        assert_eq!(
            patch(
                json!({"l": {}}),
                json!([{"op": "add", "path": "/l/k8s.io~1x~0y", "value": "1"}])
            ),
            Ok(Some(json!({"l": {"k8s.io/x~y": "1"}})))
        );
    }
}
