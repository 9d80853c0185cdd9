//! AssignMetadata: adds one label or annotation, never overwriting one that exists. It has
//! no `applyTo` (it applies to every kind its `match` allows) and no schema.

use super::spec::{self, assign_field, EXTERNAL_DATA_UNSUPPORTED};
use super::{Action, Built};
use crate::engines::gatekeeper::edits::Written;
use crate::engines::gatekeeper::path::tester::Tester;
use crate::engines::gatekeeper::path::Node;
use crate::engines::gatekeeper::walk::{put, Setter};
use serde_json::{Map, Value};
use std::borrow::Cow;

pub struct AssignMetadata {
    source: Source,
}

enum Source {
    Value(Value),
    Name,
    Namespace,
}

pub fn build(name: &str, spec: &Value) -> Result<Built, String> {
    let path = spec::location(spec, |loc, e| {
        format!("invalid location format for AssignMetadata {name}: {loc}: {e}")
    })?;
    let is_label_or_annotation = match path.nodes.as_slice() {
        [Node::Object(m), Node::Object(field), Node::Object(_)] => {
            m == "metadata" && (field == "labels" || field == "annotations")
        }
        _ => false,
    };
    if !is_label_or_annotation {
        return Err(format!(
            "invalid location for assignmetadata {name}: {}",
            spec::string_at(spec, &["location"])
        ));
    }
    let source = if let Some(value) = assign_field(spec, "value") {
        match value {
            Value::String(_) => Source::Value(value.clone()),
            _ => {
                return Err(format!(
                "spec.parameters.assign.value field must be a string for AssignMetadata {name:?}"
            ))
            }
        }
    } else if let Some(from) = assign_field(spec, "fromMetadata") {
        match from.get("field").and_then(Value::as_str).unwrap_or("") {
            "name" => Source::Name,
            "namespace" => Source::Namespace,
            other => {
                return Err(format!(
                    "field {other} is not recognized: invalid fromMetadata field"
                ))
            }
        }
    } else if let Some(external) = assign_field(spec, "externalData") {
        if external.get("dataSource").and_then(Value::as_str) != Some("Username") {
            return Err(format!(
                "only username data source is supported for assignmetadata {name}"
            ));
        }
        return Err(format!(
            "AssignMetadata {name}: {EXTERNAL_DATA_UNSUPPORTED}"
        ));
    } else {
        return Err(format!(
            "spec.parameters.assign.value field must be a string for AssignMetadata {name:?}"
        ));
    };
    Ok(Built {
        apply_to: None,
        tester: Tester::must_not_exist_at(path.nodes.len() - 1),
        path,
        action: Action::AssignMetadata(AssignMetadata { source }),
    })
}

impl AssignMetadata {
    /// The setter for one object (`fromMetadata` reads that object's metadata).
    pub fn setter(&self, object: &Value) -> MetadataSetter<'_> {
        let from_metadata = |field| {
            Cow::Owned(Value::String(
                spec::string_at(object, &["metadata", field]).into(),
            ))
        };
        let value = match &self.source {
            Source::Value(v) => Cow::Borrowed(v),
            Source::Name => from_metadata("name"),
            Source::Namespace => from_metadata("namespace"),
        };
        MetadataSetter { value }
    }
}

/// Sets a string (the implicit MustNotExist test keeps it from overwriting).
pub struct MetadataSetter<'a> {
    value: Cow<'a, Value>,
}

impl Setter for MetadataSetter<'_> {
    fn set_value(&self, map: &mut Map<String, Value>, key: &str) -> Result<Written, String> {
        Ok(put(map, key, &self.value))
    }
}
