//! The change record of a mutation done in place, without a copy of the whole object.
//! An ApplyConfiguration merge changes only the fields its patch names
//! (`kadmit_schema::merge`: map fields merge key by key, anything else is replaced,
//! nothing is removed); a JSON Patch of `add`, `replace` and `test` operations only the
//! members its paths name ([`json_patch_shape`]). So the object before it is kept as
//! [`project`]ed on that shape, and [`changed_paths`] compares only there. The paths are
//! those `kadmit_jsonpatch::diff::changed_paths` gives for the whole objects, in the same
//! order. A JSON Patch is applied to the projection, which holds everything its
//! operations read, and the result put back ([`restore`]).

use kadmit_jsonpatch::diff;
use kadmit_jsonpatch::pointer::{self, push_token};
use serde_json::{Map, Value};

/// The parts of `object` that merging `patch` can change: where both are maps, the
/// object's fields the patch names (in the object's order), each projected on the patch's
/// value; anywhere else the object's whole value.
pub fn project(object: &Value, patch: &Value) -> Value {
    match (object, patch) {
        (Value::Object(fields), Value::Object(shape)) => Value::Object(
            fields
                .iter()
                .filter_map(|(key, value)| {
                    let within = shape.get(key)?;
                    Some((key.clone(), project(value, within)))
                })
                .collect(),
        ),
        _ => object.clone(),
    }
}

/// Adds to `out` the pointers under `at` where `after` differs from the object `parts`
/// was [`project`]ed from with `patch`, `patch` having been merged into it.
pub fn changed_paths(
    at: &mut String,
    parts: &Value,
    after: &Value,
    patch: &Value,
    out: &mut Vec<String>,
) {
    let (Value::Object(before), Value::Object(now), Value::Object(shape)) = (parts, after, patch)
    else {
        // A whole value was kept: compare it whole.
        return diff::changed_paths(at, parts, after, out);
    };
    // The fields the patch does not name are those of the object before: unchanged.
    for (key, new) in now.iter().filter(|(key, _)| shape.contains_key(*key)) {
        let old = before.get(key);
        if old == Some(new) {
            continue;
        }
        let len = at.len();
        push_token(at, key);
        match old {
            Some(old) => changed_paths(at, old, new, &shape[key], out),
            None => out.push(at.clone()),
        }
        at.truncate(len);
    }
    for key in before.keys().filter(|key| !now.contains_key(*key)) {
        let len = at.len();
        push_token(at, key);
        out.push(at.clone());
        at.truncate(len);
    }
}

/// The shape of what `ops` can change or read, for [`project`]: a map per level of their
/// paths, a leaf (null) where a path ends (its whole value is replaced or compared),
/// covering anything under it. `None` when an operation is not one of `add`, `replace`,
/// `test` with a path of tokens (`remove`, `move` and `copy` take members out of maps,
/// which the shape would not restore in place), or for no operation.
pub fn json_patch_shape(ops: &[Value]) -> Option<Value> {
    let mut shape = Value::Object(Map::new());
    for op in ops {
        if !matches!(op.get("op")?.as_str()?, "add" | "replace" | "test") {
            return None;
        }
        let tokens = pointer::tokens(op.get("path")?.as_str()?).ok()?;
        let mut at = &mut shape;
        for token in tokens {
            let Value::Object(level) = at else {
                // Under a leaf: covered already.
                break;
            };
            at = level
                .entry(token.into_owned())
                .or_insert_with(|| Value::Object(Map::new()));
        }
        *at = Value::Null;
    }
    (!ops.is_empty()).then_some(shape)
}

/// Puts `parts`, the [`project`]ion of `object` on `shape` after a patch changed it, back
/// into `object`: members it had keep their place, new ones follow in `parts`' order (as
/// the patch appended them).
pub fn restore(object: &mut Value, parts: Value, shape: &Value) {
    let (Value::Object(fields), Value::Object(shape)) = (&mut *object, shape) else {
        *object = parts;
        return;
    };
    let Value::Object(parts) = parts else {
        *object = parts;
        return;
    };
    for (key, part) in parts {
        match (fields.get_mut(&key), shape.get(&key)) {
            (Some(field), Some(within)) => restore(field, part, within),
            (Some(field), None) => *field = part,
            (None, _) => {
                fields.insert(key, part);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The paths of the whole objects, and of the projection.
    fn both(before: &Value, after: &Value, patch: &Value) -> (Vec<String>, Vec<String>) {
        let mut whole = Vec::new();
        diff::changed_paths(&mut String::new(), before, after, &mut whole);
        let mut projected = Vec::new();
        let parts = project(before, patch);
        changed_paths(&mut String::new(), &parts, after, patch, &mut projected);
        (whole, projected)
    }

    #[test]
    fn keeps_only_what_the_patch_names() {
        let object =
            json!({"metadata": {"name": "a", "labels": {"x": "1"}}, "spec": {"big": [1, 2]}});
        let patch = json!({"metadata": {"labels": {"y": "2"}}});
        // `labels` has no `y` yet: an empty map, where the merge adds it.
        assert_eq!(
            project(&object, &patch),
            json!({"metadata": {"labels": {}}})
        );
        // A field the object lacks is not there to keep; a list or scalar is kept whole.
        let patch = json!({"spec": {"big": [3], "new": 1}, "status": {}});
        assert_eq!(project(&object, &patch), json!({"spec": {"big": [1, 2]}}));
    }

    #[test]
    fn gives_the_paths_of_the_whole_objects_in_their_order() {
        let before = json!({"metadata": {"name": "a", "labels": {"x": "1", "z": "3"}},
            "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "c"}]}}}});
        let cases = [
            (
                json!({"metadata": {"name": "a", "labels": {"x": "1", "z": "4", "y": "2"}},
                    "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "c"}]}}}}),
                json!({"metadata": {"labels": {"y": "2", "z": "4"}}}),
            ),
            (
                json!({"metadata": {"name": "a", "labels": {"x": "1", "z": "3"}},
                    "spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "c"}, {"name": "d"}],
                        "securityContext": {"runAsNonRoot": true}}}}}),
                json!({"spec": {"replicas": 2, "template": {"spec": {"securityContext": {"runAsNonRoot": true},
                    "containers": [{"name": "d"}]}}}}),
            ),
            // Unchanged: no path.
            (before.clone(), json!({"metadata": {"labels": {"x": "1"}}})),
            // A map replaced by a scalar, a field with ~ and /.
            (
                json!({"metadata": 1, "spec": {"replicas": 1, "a/b~c": 1,
                    "template": {"spec": {"containers": [{"name": "c"}]}}}}),
                json!({"metadata": 1, "spec": {"a/b~c": 1}}),
            ),
        ];
        for (after, patch) in cases {
            let (whole, projected) = both(&before, &after, &patch);
            assert_eq!(whole, projected, "patch {patch}");
        }
        let (whole, _) = both(&before, &before, &json!({}));
        assert!(whole.is_empty());
    }

    #[test]
    fn a_json_patch_in_place_gives_the_whole_object_and_paths() {
        use crate::mutating::json_patch;
        let object = json!({"metadata": {"name": "a", "annotations": {"x": "1"}},
            "spec": {"template": {"spec": {"containers": [{"image": "docker.io/a"}, {"image": "b"}]}}}});
        let cases = [
            json!([{"op": "add", "path": "/metadata/annotations/y~1z", "value": "2"}]),
            json!([{"op": "add", "path": "/metadata/annotations", "value": {}},
                   {"op": "add", "path": "/metadata/annotations/o", "value": "p"}]),
            json!([{"op": "replace", "path": "/spec/template/spec/containers/0/image", "value": "m/a"},
                   {"op": "add", "path": "/status", "value": {"n": 1}},
                   {"op": "add", "path": "/metadata/labels", "value": {"l": "v"}}]),
            json!([{"op": "test", "path": "/metadata/name", "value": "a"},
                   {"op": "replace", "path": "/metadata/name", "value": "b"}]),
            json!([{"op": "add", "path": "/spec/template/spec/containers/-", "value": {"image": "c"}}]),
        ];
        for ops in cases {
            let ops = ops.as_array().unwrap().clone();
            let whole = json_patch::apply(&object, &ops).unwrap().unwrap();
            let shape = json_patch_shape(&ops).unwrap();
            let parts = project(&object, &shape);
            let patched = json_patch::apply(&parts, &ops).unwrap().unwrap();
            let mut in_place = object.clone();
            restore(&mut in_place, patched, &shape);
            assert_eq!(
                serde_json::to_string(&in_place).unwrap(),
                serde_json::to_string(&whole).unwrap(),
                "{ops:?}"
            );
            let mut expected = Vec::new();
            diff::changed_paths(&mut String::new(), &object, &whole, &mut expected);
            let mut paths = Vec::new();
            changed_paths(&mut String::new(), &parts, &in_place, &shape, &mut paths);
            assert_eq!(paths, expected, "{ops:?}");
        }
        // Operations that take members out, and paths that are no pointer: none.
        for ops in [
            json!([{"op": "remove", "path": "/metadata/name"}]),
            json!([{"op": "move", "from": "/a", "path": "/b"}]),
            json!([{"op": "add", "path": "", "value": {}}]),
            json!([]),
        ] {
            assert_eq!(json_patch_shape(ops.as_array().unwrap()), None, "{ops}");
        }
    }
}
