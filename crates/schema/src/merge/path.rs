//! structured-merge-diff's path elements as its `PathElement.String()` prints them:
//! `.field`, `[key1=value1,key2=value2]` (keys sorted by name, values as JSON),
//! `[=value]` for a set item, `[3]` for an index.

use super::atom::{List, Type};
use serde_json::{Map, Value};
use std::fmt;

/// One step of a path.
#[derive(Debug, Clone, PartialEq)]
pub enum Element {
    Field(String),
    /// A keyed list item: its key fields, sorted by name.
    Key(Vec<(String, Value)>),
    /// A set item.
    Value(Value),
    Index(usize),
}

impl fmt::Display for Element {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Element::Field(name) => write!(f, ".{name}"),
            Element::Key(keys) => {
                let keys: Vec<String> = keys
                    .iter()
                    .map(|(k, v)| format!("{k}={}", kadmit_go::json::marshal(v)))
                    .collect();
                write!(f, "[{}]", keys.join(","))
            }
            Element::Value(v) => write!(f, "[={}]", kadmit_go::json::marshal(v)),
            Element::Index(i) => write!(f, "[{i}]"),
        }
    }
}

/// A whole path, printed as its elements one after the other.
pub fn render(path: &[Element]) -> String {
    path.iter().map(Element::to_string).collect()
}

/// The element naming `item` of an associative `list` (upstream `listItemToPathElement`);
/// the errors are upstream's. A key field the item omits takes the default its schema
/// declares (a port's `protocol: TCP`).
pub fn list_item(list: &List<'_>, item: &Value) -> Result<Element, String> {
    if list.keys.is_empty() {
        return match item {
            Value::Object(_) => {
                Err("associative list without keys has an element that's a map type".into())
            }
            Value::Array(_) => Err("not supported: associative list with lists as elements".into()),
            Value::Null => {
                Err("associative list without keys has an element that's an explicit null".into())
            }
            scalar => Ok(Element::Value(scalar.clone())),
        };
    }
    let fields = match item {
        Value::Null => return Err("associative list with keys may not have a null element".into()),
        Value::Object(fields) => fields,
        _ => return Err("associative list with keys may not have non-map elements".into()),
    };
    let mut keys = Vec::with_capacity(list.keys.len());
    for name in list.keys {
        let value = fields
            .get(name)
            .cloned()
            .or_else(|| key_default(list.item, name))
            .ok_or_else(|| {
                format!(
                    "associative list with keys has an element that omits key field {} (and doesn't have default value)",
                    kadmit_go::strconv::quote(name, false)
                )
            })?;
        keys.push((name.clone(), value));
    }
    keys.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(Element::Key(keys))
}

fn key_default(item: Type<'_>, name: &str) -> Option<Value> {
    match item {
        Type::Node(s, _) | Type::Resource(s) => s.property(name)?.default.clone(),
        _ => None,
    }
}

/// The key of a list item for matching live items to patch items: the rendered element.
pub fn item_key(list: &List<'_>, item: &Value) -> Option<String> {
    list_item(list, item).ok().map(|e| e.to_string())
}

/// Go's `%v` of an SMD value (`&{...}`: the value is a pointer to a struct holding the
/// unstructured Go value), as in `expected map, got &{3}`.
pub fn go_value(v: &Value) -> String {
    format!("&{{{}}}", go_plain(v))
}

/// Go's `%#v` of an SMD value, as in `expected string, got &value.valueUnstructured{Value:3}`.
pub fn go_value_sharp(v: &Value) -> String {
    format!("&value.valueUnstructured{{Value:{}}}", go_sharp(v))
}

/// Go's `%T` of the unstructured value, as in `expected numeric (int or float), got string`.
pub fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float64",
        Value::Number(_) => "int64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

/// Unstructured numbers are int64 when integral, float64 otherwise.
fn number(n: &serde_json::Number) -> String {
    match n.as_i64() {
        Some(i) => i.to_string(),
        None => kadmit_go::fmt::format_float(n.as_f64().unwrap_or(f64::NAN)),
    }
}

fn sorted(map: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut entries: Vec<_> = map.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    entries
}

fn go_plain(v: &Value) -> String {
    match v {
        Value::Null => "<nil>".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number(n),
        Value::String(s) => s.clone(),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(go_plain).collect();
            format!("[{}]", items.join(" "))
        }
        Value::Object(map) => {
            let entries: Vec<String> = sorted(map)
                .into_iter()
                .map(|(k, v)| format!("{k}:{}", go_plain(v)))
                .collect();
            format!("map[{}]", entries.join(" "))
        }
    }
}

fn go_sharp(v: &Value) -> String {
    match v {
        Value::Null => "interface {}(nil)".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number(n),
        Value::String(s) => kadmit_go::strconv::quote(s, false),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(go_sharp).collect();
            format!("[]interface {{}}{{{}}}", items.join(", "))
        }
        Value::Object(map) => {
            let entries: Vec<String> = sorted(map)
                .into_iter()
                .map(|(k, v)| format!("{}:{}", kadmit_go::strconv::quote(k, false), go_sharp(v)))
                .collect();
            format!("map[string]interface {{}}{{{}}}", entries.join(", "))
        }
    }
}
