//! A node's JSON value as the CEL value Kubernetes binds to `self`
//! (`apiserver/pkg/cel/common/values.go`): typed by the schema, with property names escaped,
//! null fields absent, set and map lists with their own equality, and only `apiVersion`,
//! `kind`, `metadata.name` and `metadata.generateName` visible on a resource.

use super::klist::{Element, KList, ListKind};
use super::library::time::{duration_from_go, timestamp_from_rfc3339};
use super::sorted::SortedMap;
use crate::schema::Schema;
use base64::Engine;
use cel::common::types::{
    CelBool, CelBytes, CelDouble, CelInt, CelList, CelMap, CelMapKey, CelNull, CelString,
};
use cel::common::value::Val;
use serde_json::Value;
use std::collections::HashMap;

/// The CEL value of `value` under `schema`; `resource` restricts it to what a resource root or
/// an embedded resource exposes.
pub fn to_cel(value: &Value, schema: &Schema, resource: bool) -> Box<dyn Val> {
    if value.is_null() {
        return Box::new(CelNull);
    }
    if schema.int_or_string {
        return untyped(value);
    }
    match schema.type_.as_deref() {
        Some("integer") => match value {
            Value::Number(n) => match n.as_i64() {
                Some(i) => Box::new(CelInt::from(i)),
                None => Box::new(CelDouble::from(n.as_f64().unwrap_or(f64::NAN))),
            },
            other => untyped(other),
        },
        Some("number") => match value.as_f64() {
            Some(f) => Box::new(CelDouble::from(f)),
            None => untyped(value),
        },
        Some("string") => match value.as_str() {
            Some(s) => string(s, schema.format.as_deref()),
            None => untyped(value),
        },
        Some("array") => array(value, schema),
        Some("object") => object(value, schema, resource || schema.embedded_resource),
        _ if !schema.properties.is_empty() || schema.additional_properties.is_some() => {
            object(value, schema, resource || schema.embedded_resource)
        }
        _ if schema.items.is_some() => array(value, schema),
        _ => untyped(value),
    }
}

fn string(s: &str, format: Option<&str>) -> Box<dyn Val> {
    match format {
        Some("byte") => {
            let engines = [
                base64::engine::general_purpose::URL_SAFE,
                base64::engine::general_purpose::STANDARD,
            ];
            match engines.iter().find_map(|e| e.decode(s).ok()) {
                Some(bytes) => Box::new(CelBytes::from(bytes)),
                None => Box::new(CelString::from(s.to_owned())),
            }
        }
        Some("duration") => {
            duration_from_go(s).unwrap_or_else(|| Box::new(CelString::from(s.to_owned())))
        }
        Some("date") => timestamp_from_rfc3339(&format!("{s}T00:00:00Z"))
            .unwrap_or_else(|| Box::new(CelString::from(s.to_owned()))),
        Some("date-time") => {
            date_time(s).unwrap_or_else(|| Box::new(CelString::from(s.to_owned())))
        }
        _ => Box::new(CelString::from(s.to_owned())),
    }
}

/// strfmt's date-time accepts RFC 3339 and its variants without a zone (read as UTC).
fn date_time(s: &str) -> Option<Box<dyn Val>> {
    timestamp_from_rfc3339(s).or_else(|| {
        let normalized = s.replacen(' ', "T", 1);
        timestamp_from_rfc3339(&normalized)
            .or_else(|| timestamp_from_rfc3339(&format!("{normalized}Z")))
    })
}

fn array(value: &Value, schema: &Schema) -> Box<dyn Val> {
    let Some(items) = value.as_array() else {
        return untyped(value);
    };
    let empty = Schema::default();
    let item_schema = schema.items.as_deref().unwrap_or(&empty);
    let list: Vec<Box<dyn Val>> = items
        .iter()
        .map(|item| to_cel(item, item_schema, false))
        .collect();
    let element = match (item_schema.type_.as_deref(), item_schema.format.as_deref()) {
        (Some("integer"), _) => Element::Int,
        (Some("number"), _) => Element::Double,
        (Some("string"), Some("duration")) => Element::Duration,
        _ => Element::Other,
    };
    let empty = list.is_empty();
    let list = CelList::from(list);
    match schema.list_type.as_deref() {
        Some("set") => Box::new(KList::new(list, ListKind::Set, element)),
        Some("map") => {
            let keys = schema
                .list_map_keys
                .iter()
                .map(|k| escape(k).unwrap_or_default())
                .collect();
            Box::new(KList::new(list, ListKind::Map(keys), element))
        }
        _ if empty && element != Element::Other => {
            Box::new(KList::new(list, ListKind::Atomic, element))
        }
        _ => Box::new(list),
    }
}

fn object(value: &Value, schema: &Schema, resource: bool) -> Box<dyn Val> {
    let Some(fields) = value.as_object() else {
        return untyped(value);
    };
    let mut map: HashMap<CelMapKey<'static>, Box<dyn Val>> = HashMap::new();
    if let Some(additional) = schema.additional_schema() {
        for (k, v) in fields {
            map.insert(CelMapKey::from(k.clone()), to_cel(v, additional, false));
        }
        return Box::new(SortedMap(CelMap::from(map)));
    }
    for (name, property) in &schema.properties {
        if resource && name == "metadata" {
            continue;
        }
        let Some(field) = fields.get(name).filter(|v| !v.is_null()) else {
            continue;
        };
        if property.type_.is_none() && property.preserve_unknown_fields && !property.int_or_string {
            continue;
        }
        if let Some(escaped) = escape(name) {
            map.insert(CelMapKey::from(escaped), to_cel(field, property, false));
        }
    }
    if resource {
        for name in ["apiVersion", "kind"] {
            if let Some(Value::String(s)) = fields.get(name) {
                map.insert(
                    CelMapKey::from(name.to_owned()),
                    Box::new(CelString::from(s.clone())),
                );
            }
        }
        if let Some(Value::Object(meta)) = fields.get("metadata") {
            let mut visible: HashMap<CelMapKey<'static>, Box<dyn Val>> = HashMap::new();
            for name in ["name", "generateName"] {
                if let Some(Value::String(s)) = meta.get(name) {
                    visible.insert(
                        CelMapKey::from(name.to_owned()),
                        Box::new(CelString::from(s.clone())),
                    );
                }
            }
            map.insert(
                CelMapKey::from("metadata".to_owned()),
                Box::new(SortedMap(CelMap::from(visible))),
            );
        }
    }
    Box::new(SortedMap(CelMap::from(map)))
}

/// A value without a schema type (int-or-string, preserve-unknown-fields): by its JSON type.
pub(crate) fn untyped(value: &Value) -> Box<dyn Val> {
    match value {
        Value::Null => Box::new(CelNull),
        Value::Bool(b) => Box::new(CelBool::from(*b)),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Box::new(CelInt::from(i)),
            None => Box::new(CelDouble::from(n.as_f64().unwrap_or(f64::NAN))),
        },
        Value::String(s) => Box::new(CelString::from(s.clone())),
        Value::Array(items) => {
            Box::new(CelList::from(items.iter().map(untyped).collect::<Vec<_>>()))
        }
        Value::Object(fields) => Box::new(SortedMap(CelMap::from(
            fields
                .iter()
                .map(|(k, v)| (CelMapKey::from(k.clone()), untyped(v)))
                .collect::<HashMap<_, _>>(),
        ))),
    }
}

const RESERVED: [&str; 21] = [
    "true",
    "false",
    "null",
    "in",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// `isCELIdentifier` (apiserver `pkg/apis/admissionregistration/validation`):
/// `^[_a-zA-Z][_a-zA-Z0-9]*$` minus the CEL reserved words, as for variable names.
pub fn is_identifier(name: &str) -> bool {
    let mut bytes = name.bytes();
    let first_ok = bytes
        .next()
        .is_some_and(|b| b == b'_' || b.is_ascii_alphabetic());
    first_ok && bytes.all(|b| b == b'_' || b.is_ascii_alphanumeric()) && !RESERVED.contains(&name)
}

/// The CEL field name of a property (`apiserver/pkg/cel/escaping.go`), `None` when the name
/// cannot be expressed.
pub fn escape(name: &str) -> Option<String> {
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, '_' | '.' | '-' | '/'));
    let rest_ok = chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '/'));
    if !first_ok || !rest_ok {
        return None;
    }
    if RESERVED.contains(&name) {
        return Some(format!("__{name}__"));
    }
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("__") {
            out.push_str("__underscores__");
            rest = after;
            continue;
        }
        match c {
            '.' => out.push_str("__dot__"),
            '-' => out.push_str("__dash__"),
            '/' => out.push_str("__slash__"),
            other => out.push(other),
        }
        rest = &rest[c.len_utf8()..];
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escaping_follows_kubernetes() {
        assert_eq!(escape("dash-dash").as_deref(), Some("dash__dash__dash"));
        assert_eq!(escape("a__b").as_deref(), Some("a__underscores__b"));
        assert_eq!(escape("namespace").as_deref(), Some("__namespace__"));
        assert_eq!(escape("int").as_deref(), Some("int"));
        assert_eq!(escape("a@b"), None);
        assert_eq!(escape("9"), None);
    }
}
