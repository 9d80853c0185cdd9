//! `defaulting.ValidateDefaults` (reference §3.2, §5.3): every `default` on the spine must
//! survive pruning unchanged, and must validate against its own node (OpenAPI, then CEL).
//! `additionalProperties` is not followed, as upstream does not.

use super::errs::{child, invalid, key};
use super::node::Node;
use super::Engines;
use crate::field_error::FieldError;
use crate::schema::Schema;
use serde_json::Value;

const META_FIELDS: [&str; 3] = ["metadata", "apiVersion", "kind"];

/// The default problems of a structurally valid schema rooted at `path` (a resource root).
pub fn check(schema: &Value, path: &str, engines: &dyn Engines) -> Vec<FieldError> {
    let mut walk = Walk {
        engines,
        out: Vec::new(),
    };
    let root = Node::new(schema);
    walk.node(root, path, root, &mut Vec::new(), true, false);
    walk.out
}

/// A step from the enclosing resource root down to a node: a property or a list item.
enum Step<'a> {
    Field(&'a str),
    Item,
}

struct Walk<'e> {
    engines: &'e dyn Engines,
    out: Vec<FieldError>,
}

impl Walk<'_> {
    /// `root` is the enclosing resource root (the schema root or an embedded resource) and
    /// `steps` lead from it to `s`; `inside_meta` marks its apiVersion, kind and metadata.
    fn node<'a>(
        &mut self,
        s: Node<'a>,
        path: &str,
        root: Node<'a>,
        steps: &mut Vec<Step<'a>>,
        resource_root: bool,
        inside_meta: bool,
    ) {
        let embedded = resource_root || s.flag("x-kubernetes-embedded-resource");
        let (root, inside_meta, mut fresh) = if embedded {
            (s, false, Vec::new())
        } else {
            (root, inside_meta, Vec::new())
        };
        let steps = if embedded { &mut fresh } else { steps };
        if let Some(default) = s.default() {
            self.default(
                default,
                s,
                &child(path, "default"),
                root,
                steps,
                embedded,
                inside_meta,
            );
        }
        if let Some(items) = s.items() {
            steps.push(Step::Item);
            self.node(
                items,
                &child(path, "items"),
                root,
                steps,
                false,
                inside_meta,
            );
            steps.pop();
        }
        for (name, p) in s.properties() {
            let meta = inside_meta || (embedded && META_FIELDS.contains(&name));
            steps.push(Step::Field(name));
            self.node(
                p,
                &key(&child(path, "properties"), name),
                root,
                steps,
                false,
                meta,
            );
            steps.pop();
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn default(
        &mut self,
        default: &Value,
        s: Node<'_>,
        at: &str,
        root: Node<'_>,
        steps: &[Step<'_>],
        embedded: bool,
        inside_meta: bool,
    ) {
        let node = Schema::from_value(s.value()).unwrap_or_default();
        let meta_errors = if inside_meta {
            let root_schema = Schema::from_value(root.value()).unwrap_or_default();
            let found =
                self.engines
                    .validate_embedded(&surround(default, steps), &root_schema, true);
            let texts: Vec<String> = found.iter().map(ToString::to_string).collect();
            match texts.as_slice() {
                [] => Vec::new(),
                [one] => vec![invalid(
                    at.to_owned(),
                    default.clone(),
                    format!("must result in valid metadata: {one}"),
                )],
                many => vec![invalid(
                    at.to_owned(),
                    default.clone(),
                    format!("must result in valid metadata: [{}]", many.join(", ")),
                )],
            }
        } else {
            if prunes(default, Some(s), embedded) {
                self.out.push(invalid(
                    at.to_owned(),
                    default.clone(),
                    "must not have unknown fields",
                ));
            }
            rebase(at, self.engines.validate_embedded(default, &node, embedded))
        };
        if !meta_errors.is_empty() {
            self.out.extend(meta_errors);
            return;
        }
        let found = self.engines.validate_default(default, &node);
        if found.is_empty() {
            let rules = self.engines.check_default_rules(default, &node, embedded);
            self.out.extend(rebase(at, rules));
        } else {
            self.out.extend(rebase(at, found));
        }
    }
}

/// The object a default inside resource metadata is checked in: the default placed at
/// its position below a root with `apiVersion: validation/v1` and `kind: Validation`.
fn surround(default: &Value, steps: &[Step<'_>]) -> Value {
    let mut value = default.clone();
    for step in steps.iter().rev() {
        value = match step {
            Step::Field(k) => Value::Object([(k.to_string(), value)].into_iter().collect()),
            Step::Item => Value::Array(vec![value]),
        };
    }
    if let Value::Object(map) = &mut value {
        map.entry("kind")
            .or_insert_with(|| Value::from("Validation"));
        map.entry("apiVersion")
            .or_insert_with(|| Value::from("validation/v1"));
    }
    value
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
