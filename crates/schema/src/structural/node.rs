//! Read-only access to a raw `JSONSchemaProps` object. The CRD-time rules look at keywords
//! as written (present-but-false, `items` as an array, `$ref`, ...), which `Schema` folds
//! away. A `null` or missing schema reads as the empty schema, as Go decodes it.

use serde_json::{Map, Value};

#[derive(Clone, Copy)]
pub struct Node<'a>(&'a Value);

impl<'a> Node<'a> {
    pub fn new(value: &'a Value) -> Node<'a> {
        Node(value)
    }

    /// The schema as written.
    pub fn value(self) -> &'a Value {
        self.0
    }

    fn map(self) -> Option<&'a Map<String, Value>> {
        self.0.as_object()
    }

    /// A keyword's value, `null` counting as absent.
    pub fn get(self, key: &str) -> Option<&'a Value> {
        self.map()?.get(key).filter(|v| !v.is_null())
    }

    pub fn has(self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// A string keyword, `""` when absent.
    pub fn str(self, key: &str) -> &'a str {
        self.get(key).and_then(Value::as_str).unwrap_or("")
    }

    pub fn flag(self, key: &str) -> bool {
        self.get(key) == Some(&Value::Bool(true))
    }

    pub fn type_(self) -> &'a str {
        self.str("type")
    }

    /// A keyword holding a schema object.
    pub fn schema(self, key: &str) -> Option<Node<'a>> {
        self.get(key).filter(|v| v.is_object()).map(Node::new)
    }

    pub fn list(self, key: &str) -> &'a [Value] {
        self.get(key)
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    pub fn strings(self, key: &str) -> Vec<&'a str> {
        self.list(key).iter().filter_map(Value::as_str).collect()
    }

    /// A keyword holding a map (`properties`, `definitions`, ...), in declaration order.
    pub fn entries(self, key: &str) -> Vec<(&'a str, &'a Value)> {
        self.get(key)
            .and_then(Value::as_object)
            .map(|m| m.iter().map(|(k, v)| (k.as_str(), v)).collect())
            .unwrap_or_default()
    }

    pub fn properties(self) -> Vec<(&'a str, Node<'a>)> {
        self.entries("properties")
            .into_iter()
            .map(|(k, v)| (k, Node::new(v)))
            .collect()
    }

    pub fn property(self, name: &str) -> Option<Node<'a>> {
        self.get("properties")?.get(name).map(Node::new)
    }

    /// `additionalProperties` as written: `Some(None)` for a boolean, `Some(Some(_))` for a schema.
    pub fn additional(self) -> Option<Option<Node<'a>>> {
        match self.get("additionalProperties")? {
            Value::Bool(_) => Some(None),
            other => Some(Some(Node::new(other))),
        }
    }

    /// `items` when it is a single schema.
    pub fn items(self) -> Option<Node<'a>> {
        self.get("items").filter(|v| !v.is_array()).map(Node::new)
    }

    /// The junctor branches (`allOf`, `anyOf`, `oneOf`).
    pub fn branches(self, key: &str) -> Vec<Node<'a>> {
        self.list(key).iter().map(Node::new).collect()
    }

    /// A keyword that Go reads into a non-empty string, slice or map.
    pub fn non_empty(self, key: &str) -> bool {
        match self.get(key) {
            Some(Value::String(s)) => !s.is_empty(),
            Some(Value::Array(a)) => !a.is_empty(),
            Some(Value::Object(o)) => !o.is_empty(),
            Some(Value::Bool(b)) => *b,
            Some(Value::Number(_)) => true,
            Some(Value::Null) | None => false,
        }
    }

    /// The default value, `null` counting as none (Go decodes `default: null` to nil).
    pub fn default(self) -> Option<&'a Value> {
        self.get("default")
    }
}
