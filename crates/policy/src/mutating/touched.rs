//! The change record of an ApplyConfiguration merged in place, without a copy of the whole
//! object: a merge changes only the fields its patch names (`kadmit_schema::merge`: map
//! fields merge key by key, anything else is replaced, nothing is removed), so the object
//! before it is kept as [`project`]ed on the patch, and [`changed_paths`] compares only
//! there. The paths are those `kadmit_jsonpatch::diff::changed_paths` gives for the whole
//! objects, in the same order.

use kadmit_jsonpatch::diff;
use kadmit_jsonpatch::pointer::push_token;
use serde_json::Value;

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
}
