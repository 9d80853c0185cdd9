//! Assign: sets any value (or the object's name or namespace) at a location outside
//! `metadata`; the only mutator that may end in a keyed list element.

use super::spec::{self, assign_field, EXTERNAL_DATA_UNSUPPORTED};
use super::{check_key_not_changed, starts_at_metadata, tests_and_apply_to, Action, Built};
use crate::engines::gatekeeper::edits::Written;
use crate::engines::gatekeeper::path::{KeyValue, Node};
use crate::engines::gatekeeper::walk::{key_equals, put, Setter};
use serde_json::{Map, Value};
use std::borrow::Cow;

pub struct Assign {
    source: ValueSource,
}

enum ValueSource {
    Value(Value),
    FromMetadata(MetadataField),
}

#[derive(Clone, Copy)]
enum MetadataField {
    Name,
    Namespace,
}

pub fn build(name: &str, spec: &Value) -> Result<Built, String> {
    let path = spec::location(spec, |loc, e| {
        format!("invalid location format `{loc}` for Assign {name}: {e}")
    })?;
    if starts_at_metadata(&path) {
        return Err(format!("assign {name} can't change metadata"));
    }
    check_key_not_changed(&path)?;
    let value = assign_field(spec, "value");
    let from_metadata = assign_field(spec, "fromMetadata");
    let external_data = assign_field(spec, "externalData");
    let set = [value, from_metadata, external_data]
        .iter()
        .filter(|f| f.is_some())
        .count();
    if set == 0 {
        return Err(
            "assign must set one of `externalData`, `value` or `fromMetadata`: invalid assign field"
                .into(),
        );
    }
    if set > 1 {
        return Err(
            "assign must only set one of `externalData`, `value` or `fromMetadata`: invalid assign field"
                .into(),
        );
    }
    let metadata_field = from_metadata.map(metadata_field).transpose()?;
    if let Some(Node::List {
        key_field,
        key_value,
    }) = path.nodes.last()
    {
        if let Some(value) = value {
            check_keyed_list_value(key_field, key_value.as_ref(), value)?;
        }
        if metadata_field.is_some() {
            return Err("cannot assign a metadata field to a list".into());
        }
        if external_data.is_some() {
            return Err("cannot assign external data response to a list".into());
        }
    }
    let (tester, apply_to) = tests_and_apply_to("Assign", name, spec, &path)?;
    if external_data.is_some() {
        return Err(format!("Assign {name}: {EXTERNAL_DATA_UNSUPPORTED}"));
    }
    let source = match (value, metadata_field) {
        (Some(v), _) => ValueSource::Value(v.clone()),
        (None, Some(field)) => ValueSource::FromMetadata(field),
        (None, None) => unreachable!("exactly one assign field is set"),
    };
    Ok(Built {
        apply_to: Some(apply_to),
        path,
        tester,
        action: Action::Assign(Assign { source }),
    })
}

fn metadata_field(from_metadata: &Value) -> Result<MetadataField, String> {
    match from_metadata
        .get("field")
        .and_then(Value::as_str)
        .unwrap_or("")
    {
        "name" => Ok(MetadataField::Name),
        "namespace" => Ok(MetadataField::Namespace),
        other => Err(format!(
            "field {other} is not recognized: invalid fromMetadata field"
        )),
    }
}

/// A value for a location ending in `[key: value]` must be an object carrying that key.
fn check_keyed_list_value(
    key_field: &str,
    key_value: Option<&KeyValue>,
    value: &Value,
) -> Result<(), String> {
    let Some(wanted) = key_value else {
        return Err("can't append to a globbed list".into());
    };
    if !value.is_object() {
        return Err(format!(
            "invalid value: `{}`, only objects can be added to keyed lists",
            kadmit_go::fmt::format_value(value)
        ));
    }
    match value.get(key_field) {
        Some(actual) if key_equals(actual, wanted) => Ok(()),
        actual => Err(format!(
            "adding object to list with different key {key_field}: list key {}, object key {}",
            match wanted {
                KeyValue::String(s) => s.clone(),
                KeyValue::Int(i) => i.to_string(),
            },
            actual
                .map(kadmit_go::fmt::format_value)
                .unwrap_or_else(|| "<nil>".into())
        )),
    }
}

impl Assign {
    /// The setter for one object (`fromMetadata` reads that object's metadata).
    pub fn setter(&self, object: &Value) -> AssignSetter<'_> {
        let from_metadata = |field| {
            Cow::Owned(Value::String(
                spec::string_at(object, &["metadata", field]).into(),
            ))
        };
        let value = match &self.source {
            ValueSource::Value(v) => Cow::Borrowed(v),
            ValueSource::FromMetadata(MetadataField::Name) => from_metadata("name"),
            ValueSource::FromMetadata(MetadataField::Namespace) => from_metadata("namespace"),
        };
        AssignSetter { value }
    }
}

pub struct AssignSetter<'a> {
    value: Cow<'a, Value>,
}

impl Setter for AssignSetter<'_> {
    fn set_value(&self, map: &mut Map<String, Value>, key: &str) -> Result<Written, String> {
        Ok(put(map, key, &self.value))
    }

    fn keyed_list_value(&self) -> Result<Value, String> {
        Ok(self.value.as_ref().clone())
    }
}
