//! Defaulting (apiextensions `defaulting/`, reference §5): applying `default`s to a custom
//! resource, removing nulls that nothing would default, and pruning the defaults of a
//! schema itself when its CRD is loaded.

use crate::objectmeta;
use crate::prune::{additional, prune};
use crate::schema::{AdditionalProperties, Schema};
use serde_json::{Map, Value};

/// `defaulting.Default`: fills absent properties that have a default, and nulls whose
/// schema is not nullable, with a copy of the default. A node's own default is applied
/// by its parent; `items` and `additionalProperties` defaults only replace nulls.
pub fn default(value: &mut Value, schema: Option<&Schema>) {
    Defaulter { record: None }.default(value, schema);
}

/// [`default`], returning the JSON Pointers of the values it set, in the order set.
pub fn default_with_record(value: &mut Value, schema: Option<&Schema>) -> Vec<String> {
    let mut defaulter = Defaulter {
        record: Some(Record::default()),
    };
    defaulter.default(value, schema);
    defaulter.record.map(|r| r.set).unwrap_or_default()
}

/// `defaulting.PruneNonNullableNullsWithoutDefaults`: deletes object and map values that
/// are null where the schema is neither nullable nor defaulted. List items and values
/// without a schema are left alone.
pub fn prune_non_nullable_nulls_without_defaults(value: &mut Value, schema: Option<&Schema>) {
    match value {
        Value::Object(map) => map.retain(|key, v| {
            let s = schema.and_then(|s| s.field(key));
            let drop = v.is_null() && s.is_some_and(|s| !s.nullable && default_of(s).is_none());
            if !drop {
                prune_non_nullable_nulls_without_defaults(v, s);
            }
            !drop
        }),
        Value::Array(items) => {
            let items_schema = schema.and_then(|s| s.items.as_deref());
            for v in items {
                prune_non_nullable_nulls_without_defaults(v, items_schema);
            }
        }
        _ => {}
    }
}

/// `defaulting.PruneDefaults`: every default is placed in the object around it, that
/// object is coerced (embedded ObjectMeta, invalid fields dropped) and pruned with the
/// whole schema as a resource root, and the default becomes what survives, or none.
pub fn prune_defaults(schema: &mut Schema) -> Result<(), String> {
    let root = schema.clone();
    prune_defaults_at(schema, &root, &mut Vec::new())
}

/// A default that is JSON `null` is no default.
fn default_of(s: &Schema) -> Option<&Value> {
    s.default.as_ref().filter(|d| !d.is_null())
}

#[derive(Default)]
struct Record {
    pointer: String,
    set: Vec<String>,
}

struct Defaulter {
    record: Option<Record>,
}

impl Defaulter {
    fn default(&mut self, x: &mut Value, s: Option<&Schema>) {
        let Some(s) = s else { return };
        match x {
            Value::Object(map) => self.default_object(map, s),
            Value::Array(items) => {
                let Some(items_schema) = s.items.as_deref() else {
                    return;
                };
                for (i, v) in items.iter_mut().enumerate() {
                    self.within(i, |me| {
                        me.replace_null(v, items_schema);
                        me.default(v, Some(items_schema));
                    });
                }
            }
            _ => {}
        }
    }

    fn default_object(&mut self, map: &mut Map<String, Value>, s: &Schema) {
        for (key, p) in &s.properties {
            let Some(d) = default_of(p) else { continue };
            let absent_or_null = match map.get(key) {
                None => true,
                Some(v) => v.is_null() && !p.nullable,
            };
            if absent_or_null {
                map.insert(key.clone(), d.clone());
                self.within(key, |me| me.mark());
            }
        }
        let ap = additional(s);
        for (key, v) in map.iter_mut() {
            if let Some(p) = s.property(key) {
                self.within(key, |me| me.default(v, Some(p)));
            } else if let Some(ap) = ap {
                self.within(key, |me| {
                    if let Some(ap) = ap {
                        me.replace_null(v, ap);
                    }
                    me.default(v, ap);
                });
            }
        }
    }

    /// A null under a non-nullable `items` or `additionalProperties` schema becomes its
    /// default, or stays null when it has none.
    fn replace_null(&mut self, v: &mut Value, s: &Schema) {
        if v.is_null() && !s.nullable {
            if let Some(d) = default_of(s) {
                *v = d.clone();
                self.mark();
            }
        }
    }

    fn mark(&mut self) {
        if let Some(r) = &mut self.record {
            r.set.push(r.pointer.clone());
        }
    }

    /// Runs `f` one JSON Pointer token (a key or an index) deeper.
    fn within(&mut self, token: impl std::fmt::Display, f: impl FnOnce(&mut Self)) {
        let Some(r) = &mut self.record else {
            return f(self);
        };
        let len = r.pointer.len();
        r.pointer.push('/');
        r.pointer
            .push_str(&token.to_string().replace('~', "~0").replace('/', "~1"));
        f(self);
        if let Some(r) = &mut self.record {
            r.pointer.truncate(len);
        }
    }
}

/// Where a default sits relative to the resource root, as `SurroundingObjectFunc` builds
/// it: a property or the `*` placeholder for `additionalProperties`, or a list item.
#[derive(Clone)]
enum Step {
    Child(String),
    Index,
}

fn prune_defaults_at(s: &mut Schema, root: &Schema, steps: &mut Vec<Step>) -> Result<(), String> {
    if let Some(d) = s.default.take() {
        s.default = if d.is_null() {
            Some(d)
        } else {
            pruned_default(d, root, steps)
                .map_err(|e| format!("failed to prune default value: {e}"))?
        };
    }
    if let Some(AdditionalProperties::Schema(ap)) = &mut s.additional_properties {
        steps.push(Step::Child("*".to_owned()));
        prune_defaults_at(ap, root, steps)?;
        steps.pop();
    }
    if let Some(items) = &mut s.items {
        steps.push(Step::Index);
        prune_defaults_at(items, root, steps)?;
        steps.pop();
    }
    for (key, p) in s.properties.iter_mut() {
        steps.push(Step::Child(key.clone()));
        prune_defaults_at(p, root, steps)?;
        steps.pop();
    }
    Ok(())
}

fn pruned_default(default: Value, root: &Schema, steps: &[Step]) -> Result<Option<Value>, String> {
    let mut obj = steps.iter().rev().fold(default, |x, step| match step {
        Step::Child(key) => Value::Object(Map::from_iter([(key.clone(), x)])),
        Step::Index => Value::Array(vec![x]),
    });
    if !obj.is_object() {
        return Err("object root default value must be of object type".to_owned());
    }
    objectmeta::coerce(&mut obj, Some(root), true, true)?;
    prune(&mut obj, Some(root), true);
    access(obj, steps).map(|found| found.filter(|v| !v.is_null()))
}

/// The value at `steps` in `obj`, if still there; wrong types on the way are errors
/// worded as upstream's accessor chain words them (innermost step first).
fn access(obj: Value, steps: &[Step]) -> Result<Option<Value>, String> {
    let mut x = obj;
    for (depth, step) in steps.iter().enumerate() {
        let next = match (step, x) {
            (Step::Child(key), Value::Object(mut map)) => map.shift_remove(key),
            (Step::Index, Value::Array(items)) => items.into_iter().next(),
            (step, _) => {
                let mut err = match step {
                    Step::Child(key) => format!(".{key} must be of object type"),
                    Step::Index => "[] must be of array type".to_owned(),
                };
                for outer in &steps[depth + 1..] {
                    err = match outer {
                        Step::Child(key) => format!(".{key}{err}"),
                        Step::Index => format!("[]{err}"),
                    };
                }
                return Err(err);
            }
        };
        match next {
            Some(v) => x = v,
            None => return Ok(None),
        }
    }
    Ok(Some(x))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(v: Value) -> Schema {
        Schema::from_value(&v).unwrap()
    }

    #[test]
    fn records_pointers_of_set_values_including_nested_defaults() {
        let s = schema(json!({"properties": {
            "spec": {"default": {}, "properties": {"a/b": {"default": 1}}},
            "list": {"items": {"default": "x"}}
        }}));
        let mut obj = json!({"list": [null, "y"]});
        let set = default_with_record(&mut obj, Some(&s));
        assert_eq!(set, ["/spec", "/list/0", "/spec/a~1b"]);
        assert_eq!(obj, json!({"list": ["x", "y"], "spec": {"a/b": 1}}));
    }

    #[test]
    fn a_null_default_is_no_default() {
        let s = schema(json!({"properties": {"a": {"default": null}}}));
        let mut obj = json!({"a": null});
        prune_non_nullable_nulls_without_defaults(&mut obj, Some(&s));
        assert_eq!(obj, json!({}));
    }

    #[test]
    fn pruned_defaults_lose_unknown_fields_and_embedded_metadata_keys() {
        let mut s = schema(json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {"a": {"type": "string"}},
                     "default": {"a": "x", "b": "y"}},
            "e": {"type": "object", "x-kubernetes-embedded-resource": true,
                  "x-kubernetes-preserve-unknown-fields": true,
                  "properties": {"metadata": {"type": "object", "properties": {
                      "unknown": {"type": "string", "default": "u"},
                      "name": {"type": "string", "default": "n"}}}}},
            "m": {"type": "object", "additionalProperties": {
                "type": "object", "properties": {"k": {"type": "integer"}},
                "default": {"k": 1, "z": 2}}},
            "spanning": {"type": "object",
                "properties": {"embedded": {"type": "object", "x-kubernetes-embedded-resource": true,
                                            "x-kubernetes-preserve-unknown-fields": true}},
                "default": {"embedded": {"kind": "Foo", "metadata": {"name": "B", "unknown": 1}}}}
        }}));
        prune_defaults(&mut s).unwrap();
        let spec = s.property("spec").unwrap();
        assert_eq!(spec.default, Some(json!({"a": "x"})));
        let meta = s.property("e").unwrap().property("metadata").unwrap();
        assert_eq!(meta.property("unknown").unwrap().default, None);
        assert_eq!(meta.property("name").unwrap().default, Some(json!("n")));
        let m = s.property("m").unwrap().additional_schema().unwrap();
        assert_eq!(m.default, Some(json!({"k": 1})));
        let spanning = s.property("spanning").unwrap();
        let want = json!({"embedded": {"kind": "Foo", "metadata": {"name": "B"}}});
        assert_eq!(spanning.default, Some(want));
    }

    #[test]
    fn a_root_default_must_be_an_object() {
        let mut s = schema(json!({"default": 1}));
        assert_eq!(
            prune_defaults(&mut s),
            Err(
                "failed to prune default value: object root default value must be of object type"
                    .to_owned()
            )
        );
    }

    #[test]
    fn accessor_errors_name_the_steps_innermost_first() {
        let steps = [
            Step::Child("a".into()),
            Step::Index,
            Step::Child("b".into()),
        ];
        assert_eq!(
            access(json!({"a": 1}), &steps),
            Err(".b[] must be of array type".into())
        );
    }
}
