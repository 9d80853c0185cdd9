//! Pruning of unknown fields (apiextensions `pruning/algorithm.go`, reference §4): what a
//! structural schema does not specify is deleted, and the deleted paths are reported in
//! the pruning dialect (`a.b`, map keys dotted, `[i]` for list items).

use crate::schema::{AdditionalProperties, Schema};
use serde_json::Value;

/// The keys a resource root or an `x-kubernetes-embedded-resource` object keeps untouched.
const META_FIELDS: [&str; 3] = ["apiVersion", "kind", "metadata"];

/// Deletes every field of `value` that `schema` does not specify and returns the deleted
/// paths, sorted. With `is_resource_root` the root is treated as an embedded resource
/// (its `apiVersion`, `kind` and `metadata` are neither pruned nor descended into);
/// without it those three keys are deleted from the root when unspecified, unrecorded.
pub fn prune(value: &mut Value, schema: Option<&Schema>, is_resource_root: bool) -> Vec<String> {
    prune_with(value, schema, is_resource_root, false)
        .into_iter()
        .map(|(path, _)| path)
        .collect()
}

/// [`prune`], each deleted path with the property it was probably meant to be, when one
/// of the properties beside it is close ([`crate::unknown::did_you_mean`]).
pub fn prune_suggesting(
    value: &mut Value,
    schema: Option<&Schema>,
    is_resource_root: bool,
) -> Vec<(String, Option<String>)> {
    prune_with(value, schema, is_resource_root, true)
}

fn prune_with(
    value: &mut Value,
    schema: Option<&Schema>,
    is_resource_root: bool,
    suggest: bool,
) -> Vec<(String, Option<String>)> {
    let empty = Schema::default();
    let schema = if is_resource_root {
        Some(schema.unwrap_or(&empty))
    } else {
        schema
    };
    let mut pruner = Pruner {
        suggest,
        ..Pruner::default()
    };
    pruner.prune(value, schema, is_resource_root || is_embedded(schema));
    pruner.pruned.sort();
    pruner.pruned
}

/// The schema values under a map key that no property names: `None` when
/// `additionalProperties` is absent, `Some(None)` when it is a boolean.
pub fn additional(schema: &Schema) -> Option<Option<&Schema>> {
    schema.additional_properties.as_ref().map(|ap| match ap {
        AdditionalProperties::Allowed(_) => None,
        AdditionalProperties::Schema(s) => Some(&**s),
    })
}

#[derive(Default)]
struct Pruner {
    path: String,
    /// Whether anything was appended to `path`; upstream tests the segment count, which
    /// differs from `path.is_empty()` for an empty map key.
    nested: bool,
    /// Whether each deleted field is given the closest property beside it.
    suggest: bool,
    pruned: Vec<(String, Option<String>)>,
}

impl Pruner {
    fn prune(&mut self, x: &mut Value, s: Option<&Schema>, embedded: bool) {
        if let Some(s) = s.filter(|s| s.preserve_unknown_fields) {
            return self.skip_prune(x, s, embedded);
        }
        match x {
            Value::Object(map) => {
                let Some(s) = s else {
                    for key in map.keys() {
                        self.record(key, None);
                    }
                    map.clear();
                    return;
                };
                map.retain(|key, v| {
                    if embedded && META_FIELDS.contains(&key.as_str()) {
                        return true;
                    }
                    if let Some(p) = s.property(key) {
                        self.within_key(key, |me| me.prune(v, Some(p), p.embedded_resource));
                    } else if let Some(ap) = additional(s) {
                        self.within_key(key, |me| me.prune(v, ap, is_embedded(ap)));
                    } else {
                        if !META_FIELDS.contains(&key.as_str()) || self.nested {
                            self.record(key, Some(s));
                        }
                        return false;
                    }
                    true
                });
            }
            Value::Array(items) => {
                let items_schema = s.and_then(|s| s.items.as_deref());
                for (i, v) in items.iter_mut().enumerate() {
                    self.within_index(i, |me| me.prune(v, items_schema, is_embedded(items_schema)));
                }
            }
            _ => {}
        }
    }

    /// A node preserving unknown fields: nothing is deleted here, but specified children
    /// are pruned again.
    fn skip_prune(&mut self, x: &mut Value, s: &Schema, embedded: bool) {
        match x {
            Value::Object(map) => {
                for (key, v) in map.iter_mut() {
                    if embedded && META_FIELDS.contains(&key.as_str()) {
                        continue;
                    }
                    if let Some(p) = s.property(key) {
                        self.within_key(key, |me| me.prune(v, Some(p), p.embedded_resource));
                    } else if let Some(ap) = additional(s) {
                        self.within_key(key, |me| me.prune(v, ap, is_embedded(ap)));
                    }
                }
            }
            Value::Array(items) => {
                let Some(items_schema) = s.items.as_deref() else {
                    return;
                };
                for (i, v) in items.iter_mut().enumerate() {
                    self.within_index(i, |me| {
                        me.skip_prune(v, items_schema, items_schema.embedded_resource)
                    });
                }
            }
            _ => {}
        }
    }

    /// Records a deleted field; `beside` is the schema whose properties it is not one of.
    fn record(&mut self, key: &str, beside: Option<&Schema>) {
        let path = if self.nested {
            format!("{}.{key}", self.path)
        } else {
            key.to_owned()
        };
        let suggestion = match beside {
            Some(s) if self.suggest => crate::unknown::did_you_mean(
                key,
                s.properties.iter().map(|(name, _)| name.as_str()),
            )
            .map(str::to_owned),
            _ => None,
        };
        self.pruned.push((path, suggestion));
    }

    fn within_key(&mut self, key: &str, f: impl FnOnce(&mut Self)) {
        let (len, nested) = (self.path.len(), self.nested);
        if self.nested {
            self.path.push('.');
        }
        self.path.push_str(key);
        self.nested = true;
        f(self);
        self.path.truncate(len);
        self.nested = nested;
    }

    fn within_index(&mut self, i: usize, f: impl FnOnce(&mut Self)) {
        let (len, nested) = (self.path.len(), self.nested);
        self.path.push_str(&format!("[{i}]"));
        self.nested = true;
        f(self);
        self.path.truncate(len);
        self.nested = nested;
    }
}

fn is_embedded(schema: Option<&Schema>) -> bool {
    schema.is_some_and(|s| s.embedded_resource)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(v: Value) -> Schema {
        Schema::from_value(&v).unwrap()
    }

    #[test]
    fn resource_root_without_schema_keeps_only_type_and_object_meta() {
        let mut obj = json!({"apiVersion": "v1", "kind": "K", "metadata": {"x": 1}, "spec": {}});
        assert_eq!(prune(&mut obj, None, true), vec!["spec"]);
        assert_eq!(
            obj,
            json!({"apiVersion": "v1", "kind": "K", "metadata": {"x": 1}})
        );
    }

    #[test]
    fn meta_fields_below_the_root_of_a_non_root_prune_are_recorded() {
        let mut obj = json!([{"apiVersion": "v1"}]);
        let s = schema(json!({"items": {"properties": {"a": {}}}}));
        assert_eq!(prune(&mut obj, Some(&s), false), vec!["[0].apiVersion"]);
    }

    #[test]
    fn preserving_lists_resume_pruning_in_specified_item_properties() {
        let s = schema(json!({
            "x-kubernetes-preserve-unknown-fields": true,
            "items": {"properties": {"a": {"properties": {"b": {}}}}}
        }));
        let mut obj = json!([{"a": {"b": 1, "c": 2}, "d": 3}]);
        assert_eq!(prune(&mut obj, Some(&s), false), vec!["[0].a.c"]);
        assert_eq!(obj, json!([{"a": {"b": 1}, "d": 3}]));
    }

    #[test]
    fn key_order_is_kept() {
        let s = schema(json!({"properties": {"z": {}, "a": {}}}));
        let mut obj = json!({"z": 1, "drop": 2, "a": 3});
        prune(&mut obj, Some(&s), false);
        let keys: Vec<&String> = obj.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["z", "a"]);
    }
}
