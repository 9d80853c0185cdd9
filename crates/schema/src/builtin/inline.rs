//! A node turned into the crate's [`Schema`] with every `$ref` inlined, so that the
//! validators written for CRD schemas (OpenAPI, list types, defaulting, pruning) run on
//! built-in kinds unchanged.
//!
//! Recursive definitions (apiextensions `JSONSchemaProps` refers to itself through
//! `properties`, `items`, `not`, ...) are cut where a definition would be entered again
//! inside itself: that node becomes `x-kubernetes-preserve-unknown-fields: true` (anything
//! goes), which ends the tree. The strict decoder walks the definitions themselves and
//! has no such cut.

use super::catalog::Catalog;
use super::node::Node;
use crate::schema::Schema;
use serde_json::{Map, Value};

/// The schema of `node`, fully inlined.
pub fn schema(catalog: &Catalog, node: Node) -> Schema {
    let value = inline(catalog, node, &mut Vec::new());
    Schema::from_value(&value).expect("the embedded schemas read as schemas")
}

fn inline(catalog: &Catalog, node: Node, stack: &mut Vec<&'static str>) -> Value {
    let mut out = Map::new();
    if let Some(name) = node.definition {
        if stack.contains(&name) {
            out.insert("x-kubernetes-preserve-unknown-fields".into(), true.into());
            if node.flag("nullable") {
                out.insert("nullable".into(), true.into());
            }
            return Value::Object(out);
        }
        stack.push(name);
    }
    for (key, value) in node.entries() {
        let inlined = match key.as_str() {
            "properties" => Value::Object(
                value
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(name, p)| (name.clone(), inline(catalog, Node::new(catalog, p), stack)))
                    .collect(),
            ),
            "items" => inline(catalog, Node::new(catalog, value), stack),
            "additionalProperties" if value.is_object() => {
                inline(catalog, Node::new(catalog, value), stack)
            }
            "allOf" | "anyOf" | "oneOf" => Value::Array(
                value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|s| inline(catalog, Node::new(catalog, s), stack))
                    .collect(),
            ),
            _ => value.clone(),
        };
        out.insert(key.clone(), inlined);
    }
    if node.definition.is_some() {
        stack.pop();
    }
    Value::Object(out)
}
