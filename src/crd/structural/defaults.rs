//! `defaulting.ValidateDefaults` (reference §3.2, §5.3): every `default` on the spine must
//! survive pruning unchanged, and must validate against its own node (OpenAPI, then CEL).
//! `additionalProperties` is not followed, as upstream does not.

use super::errs::{child, invalid, key};
use super::node::Node;
use super::Engines;
use crate::crd::field_error::FieldError;
use crate::crd::schema::Schema;
use serde_json::Value;

const META_FIELDS: [&str; 3] = ["metadata", "apiVersion", "kind"];

/// The default problems of a structurally valid schema rooted at `path` (a resource root).
pub fn check(schema: &Value, path: &str, engines: &dyn Engines) -> Vec<FieldError> {
    let mut out = Vec::new();
    walk(Node::new(schema), path, true, false, engines, &mut out);
    out
}

fn walk(
    s: Node<'_>,
    path: &str,
    embedded: bool,
    inside_meta: bool,
    engines: &dyn Engines,
    out: &mut Vec<FieldError>,
) {
    let embedded = embedded || s.flag("x-kubernetes-embedded-resource");
    let inside_meta = inside_meta && !embedded;
    if let Some(default) = s.default() {
        let at = child(path, "default");
        if !inside_meta && prunes(default, Some(s), embedded) {
            out.push(invalid(
                at.clone(),
                default.clone(),
                "must not have unknown fields",
            ));
        }
        let node = Schema::from_value(s.value()).unwrap_or_default();
        let found = engines.validate_default(default, &node);
        if found.is_empty() {
            out.extend(rebase(
                &at,
                engines.check_default_rules(default, &node, embedded),
            ));
        } else {
            out.extend(rebase(&at, found));
        }
    }
    if let Some(items) = s.items() {
        walk(
            items,
            &child(path, "items"),
            false,
            inside_meta,
            engines,
            out,
        );
    }
    for (name, p) in s.properties() {
        let meta = inside_meta || (embedded && META_FIELDS.contains(&name));
        walk(
            p,
            &key(&child(path, "properties"), name),
            false,
            meta,
            engines,
            out,
        );
    }
}

/// Puts errors whose paths are relative to a default value under `at` (`<nil>` is the value).
fn rebase(at: &str, errors: Vec<FieldError>) -> Vec<FieldError> {
    errors
        .into_iter()
        .map(|mut e| {
            e.field = match e.field.as_str() {
                "<nil>" | "" => at.to_owned(),
                f if f.starts_with('[') => format!("{at}{f}"),
                f => format!("{at}.{f}"),
            };
            e
        })
        .collect()
}

/// Whether pruning `value` with `s` would change it (`pruning.Prune`, reference §4).
fn prunes(value: &Value, s: Option<Node<'_>>, embedded: bool) -> bool {
    let embedded = embedded || s.is_some_and(|s| s.flag("x-kubernetes-embedded-resource"));
    if let Some(s) = s.filter(|s| s.flag("x-kubernetes-preserve-unknown-fields")) {
        return prunes_preserving(value, s, embedded);
    }
    match value {
        Value::Object(map) => {
            let Some(s) = s else { return !map.is_empty() };
            map.iter().any(|(k, v)| {
                if embedded && is_type_meta(k, v) {
                    return false;
                }
                match (s.property(k), s.additional()) {
                    (Some(p), _) => prunes(v, Some(p), false),
                    (None, Some(a)) => prunes(v, a, false),
                    (None, None) => true,
                }
            })
        }
        Value::Array(items) => items
            .iter()
            .any(|i| prunes(i, s.and_then(|s| s.items()), false)),
        _ => false,
    }
}

/// Under `x-kubernetes-preserve-unknown-fields` unknown keys stay; known ones are pruned.
fn prunes_preserving(value: &Value, s: Node<'_>, embedded: bool) -> bool {
    match value {
        Value::Object(map) => map.iter().any(|(k, v)| {
            if embedded && META_FIELDS.contains(&k.as_str()) {
                return false;
            }
            match (s.property(k), s.additional()) {
                (Some(p), _) => prunes(v, Some(p), false),
                (None, Some(a)) => prunes(v, a, false),
                (None, None) => false,
            }
        }),
        Value::Array(items) => match s.items() {
            Some(i) => items.iter().any(|v| prunes_preserving(v, i, false)),
            None => false,
        },
        _ => false,
    }
}

/// `apiVersion`/`kind` strings and an object `metadata` of an embedded resource.
fn is_type_meta(k: &str, v: &Value) -> bool {
    match k {
        "apiVersion" | "kind" => v.is_string(),
        "metadata" => v.is_object(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pruned(value: Value, schema: Value) -> bool {
        prunes(&value, Some(Node::new(&schema)), false)
    }

    #[test]
    fn pruning_detection() {
        let s = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        assert!(!pruned(json!({"a": "x"}), s.clone()));
        assert!(pruned(json!({"a": "x", "b": 1}), s.clone()));
        let free = json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true,
            "properties": {"a": {"type": "object", "properties": {}}}});
        assert!(!pruned(json!({"z": {"q": 1}}), free.clone()));
        assert!(pruned(json!({"a": {"q": 1}}), free));
        let map = json!({"type": "object", "additionalProperties": true});
        assert!(!pruned(json!({"k": 1}), map.clone()));
        assert!(pruned(json!({"k": {"x": 1}}), map));
        let list = json!({"type": "array", "items": {"type": "object", "properties": {"a": {"type": "integer"}}}});
        assert!(pruned(json!([{"a": 1}, {"b": 2}]), list));
        let embedded = json!({"type": "object", "x-kubernetes-embedded-resource": true,
            "properties": {"spec": {"type": "object"}}});
        assert!(!prunes(
            &json!({"kind": "K", "apiVersion": "v1", "metadata": {"x": 1}}),
            Some(Node::new(&embedded)),
            false
        ));
        assert!(prunes(
            &json!({"kind": 5}),
            Some(Node::new(&embedded)),
            false
        ));
    }
}
