//! `x-kubernetes-list-type` uniqueness (reference §6.7, apiextensions
//! `listtype.ValidateListSetsAndMaps`): set items and map-list keys must be unique. Only
//! the second occurrence of a repeated value is reported. Paths use `field.Path`
//! (`a.b`, `a[key]`, `a[0]`).

use crate::field_error::{ErrorType, FieldError};
use crate::schema::{AdditionalProperties, Schema};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::fmt::Write;

/// The duplicate errors of `value` (an object; anything else has none) under `schema`.
pub fn validate_list_sets_and_maps(value: &Value, schema: &Schema) -> Vec<FieldError> {
    let mut walk = Walk {
        path: String::new(),
        out: Vec::new(),
    };
    if let Value::Object(map) = value {
        walk.object(schema, map);
    }
    walk.out
}

struct Walk {
    /// The rendered `field.Path` of the current value; empty at the root.
    path: String,
    out: Vec<FieldError>,
}

impl Walk {
    fn object(&mut self, schema: &Schema, map: &Map<String, Value>) {
        if let Some(AdditionalProperties::Schema(additional)) = &schema.additional_properties {
            for (key, v) in map {
                let len = self.push(format_args!("[{key}]"));
                self.value(additional, v);
                self.path.truncate(len);
            }
        }
        for (key, v) in map {
            if let Some(property) = schema.property(key) {
                let len = if key.is_empty() {
                    self.push(format_args!("[]"))
                } else if self.path.is_empty() {
                    self.push(format_args!("{key}"))
                } else {
                    self.push(format_args!(".{key}"))
                };
                self.value(property, v);
                self.path.truncate(len);
            }
        }
    }

    fn value(&mut self, schema: &Schema, value: &Value) {
        match value {
            Value::Object(map) => self.object(schema, map),
            Value::Array(items) => self.array(schema, items),
            _ => {}
        }
    }

    fn array(&mut self, schema: &Schema, items: &[Value]) {
        match schema.list_type.as_deref() {
            Some("set") => {
                for i in repeated(items.iter().map(Key::of)) {
                    self.duplicate(i, items[i].clone());
                }
            }
            Some("map") => self.list_map(&schema.list_map_keys, items),
            _ => {}
        }
        if let Some(item_schema) = &schema.items {
            for (i, v) in items.iter().enumerate() {
                let len = self.push(format_args!("[{i}]"));
                self.value(item_schema, v);
                self.path.truncate(len);
            }
        }
    }

    /// Items must be objects or null; keys compare as the tuple of present key fields
    /// (a null item has none).
    fn list_map(&mut self, key_fields: &[String], items: &[Value]) {
        if let Some(i) = items.iter().position(|x| !x.is_object() && !x.is_null()) {
            let len = self.push(format_args!("[{i}]"));
            self.out.push(FieldError::invalid(
                self.path.clone(),
                items[i].clone(),
                "must be an object for an array of list-type map",
            ));
            self.path.truncate(len);
            return;
        }
        let key_map = |item: &Value| -> Map<String, Value> {
            key_fields
                .iter()
                .filter_map(|k| Some((k.clone(), item.get(k)?.clone())))
                .collect()
        };
        let keys: Vec<Key> = match key_fields {
            [single] => items
                .iter()
                .map(|x| x.get(single).map_or(Key::Unspecified, Key::of))
                .collect(),
            _ => items
                .iter()
                .map(|x| Key::Compound(canonical_json(&Value::Object(key_map(x)))))
                .collect(),
        };
        for i in repeated(keys.into_iter()) {
            self.duplicate(i, Value::Object(key_map(&items[i])));
        }
    }

    fn duplicate(&mut self, index: usize, value: Value) {
        let len = self.push(format_args!("[{index}]"));
        self.out.push(FieldError::new(
            ErrorType::Duplicate,
            self.path.clone(),
            value,
            "",
        ));
        self.path.truncate(len);
    }

    fn push(&mut self, segment: std::fmt::Arguments) -> usize {
        let len = self.path.len();
        let _ = self.path.write_fmt(segment);
        len
    }
}

/// How Go's `validateListSet` tells items apart: scalars by Go equality (int64 and
/// float64 differ), objects and lists by their JSON encoding.
#[derive(PartialEq, Eq, Hash)]
enum Key {
    Null,
    Bool(bool),
    Int(i64),
    Float(u64),
    Str(String),
    Compound(String),
    /// A map-list item without the key field.
    Unspecified,
}

impl Key {
    fn of(v: &Value) -> Key {
        match v {
            Value::Null => Key::Null,
            Value::Bool(b) => Key::Bool(*b),
            Value::Number(n) => match n.as_i64() {
                Some(i) => Key::Int(i),
                None => Key::Float(canonical_float_bits(n.as_f64().unwrap_or(f64::NAN))),
            },
            Value::String(s) => Key::Str(s.clone()),
            compound => Key::Compound(canonical_json(compound)),
        }
    }
}

/// `-0.0` equals `0.0` in Go.
fn canonical_float_bits(f: f64) -> u64 {
    if f == 0.0 {
        0
    } else {
        f.to_bits()
    }
}

/// The indices of the second occurrence of every repeated key.
fn repeated(keys: impl Iterator<Item = Key>) -> Vec<usize> {
    let mut seen: HashMap<Key, u32> = HashMap::new();
    let mut second = Vec::new();
    for (i, key) in keys.enumerate() {
        let times = seen.entry(key).or_insert(0);
        *times += 1;
        if *times == 2 {
            second.push(i);
        }
    }
    second
}

/// A JSON text equal for values Go's `json.Marshal` encodes equally: keys sorted,
/// numbers as Go writes them (so `1` and `1.0` coincide).
fn canonical_json(v: &Value) -> String {
    let mut out = String::new();
    write_canonical(&mut out, v);
    out
}

fn write_canonical(out: &mut String, v: &Value) {
    match v {
        Value::Number(n) => match n.as_i64() {
            Some(i) => {
                let _ = write!(out, "{i}");
            }
            None => {
                let f = n.as_f64().unwrap_or(f64::NAN);
                if f != 0.0 && (f.abs() < 1e-6 || f.abs() >= 1e21) {
                    let text = format!("{f:e}");
                    match text.split_once('e') {
                        Some((mantissa, exp)) if !exp.starts_with('-') => {
                            let _ = write!(out, "{mantissa}e+{exp}");
                        }
                        _ => out.push_str(&text),
                    }
                } else {
                    let _ = write!(out, "{f}");
                }
            }
        },
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::from(k.as_str()).to_string());
                out.push(':');
                write_canonical(out, &map[k]);
            }
            out.push('}');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errors(schema: Value, value: Value) -> Vec<String> {
        let schema = Schema::from_value(&schema).expect("test schema");
        let mut texts: Vec<String> = validate_list_sets_and_maps(&value, &schema)
            .iter()
            .map(ToString::to_string)
            .collect();
        texts.sort();
        texts
    }

    #[test]
    fn set_reports_second_occurrences_only() {
        let schema = json!({"properties": {"s": {"x-kubernetes-list-type": "set"}}});
        assert_eq!(
            errors(
                schema.clone(),
                json!({"s": ["a", "a", "b", "a", {"k": 1.0}, {"k": 1}]})
            ),
            [
                "s[1]: Duplicate value: \"a\"",
                "s[5]: Duplicate value: {\"k\":1}"
            ]
        );
        assert!(
            errors(schema.clone(), json!({"s": [1, 1.0]})).is_empty(),
            "int64 and float64 scalars differ"
        );
        assert_eq!(
            errors(schema, json!({"s": [null, null]})),
            ["s[1]: Duplicate value: null"]
        );
    }

    #[test]
    fn map_list_with_one_key() {
        let schema = json!({"properties": {"m": {"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]}}});
        assert_eq!(
            errors(
                schema.clone(),
                json!({"m": [{"name": "a"}, {"name": "a", "v": 1}, {}, null, {"name": null}]})
            ),
            [
                "m[1]: Duplicate value: {\"name\":\"a\"}",
                "m[3]: Duplicate value: {}"
            ]
        );
        assert_eq!(
            errors(schema, json!({"m": [{"name": "a"}, "x", 3]})),
            ["m[1]: Invalid value: \"x\": must be an object for an array of list-type map"]
        );
    }

    #[test]
    fn map_list_with_several_keys() {
        let schema = json!({"properties": {"ports": {
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["containerPort", "protocol"]}}});
        assert_eq!(
            errors(
                schema,
                json!({"ports": [
                {"protocol": "UDP", "containerPort": 88},
                {"containerPort": 88, "protocol": "TCP"},
                {"protocol": "TCP", "containerPort": 88, "name": "x"}]})
            ),
            ["ports[2]: Duplicate value: {\"containerPort\":88,\"protocol\":\"TCP\"}"]
        );
    }

    #[test]
    fn walks_items_and_additional_properties_with_field_paths() {
        let set = json!({"type": "array", "x-kubernetes-list-type": "set"});
        let schema = json!({"properties": {
            "labels": {"additionalProperties": set.clone()},
            "list": {"items": {"properties": {"s": set}}}}});
        assert_eq!(
            errors(
                schema,
                json!({"labels": {"k.x": [1, 1]}, "list": [{"s": [2]}, {"s": [3, 3]}]})
            ),
            [
                "labels[k.x][1]: Duplicate value: 1",
                "list[1].s[1]: Duplicate value: 3"
            ]
        );
    }

    #[test]
    fn go_json_numbers_in_keys() {
        assert_eq!(
            canonical_json(&json!({"b": 1.0, "a": [2.5, 1e21, 1.5e-7, -0.0]})),
            "{\"a\":[2.5,1e+21,1.5e-7,-0],\"b\":1}"
        );
    }
}
