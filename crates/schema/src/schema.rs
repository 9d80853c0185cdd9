//! A CRD's OpenAPI v3 schema (`JSONSchemaProps`) as the schema engine reads it. Unit-test
//! fragments omit `type`, so every field is optional; `from_value` only reads, the
//! CRD-time rules live in `structural_checks`.

use serde_json::{Map, Value};
use std::collections::HashMap;

/// One schema node.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Schema {
    pub type_: Option<String>,
    pub format: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    pub nullable: bool,
    pub default: Option<Value>,
    /// In declaration order, indexed by name.
    pub properties: Properties,
    pub additional_properties: Option<AdditionalProperties>,
    pub items: Option<Box<Schema>>,
    pub required: Vec<String>,
    pub enum_: Option<Vec<Value>>,
    pub maximum: Option<f64>,
    pub exclusive_maximum: bool,
    pub minimum: Option<f64>,
    pub exclusive_minimum: bool,
    pub multiple_of: Option<f64>,
    pub max_length: Option<i64>,
    pub min_length: Option<i64>,
    pub pattern: Option<String>,
    pub max_items: Option<i64>,
    pub min_items: Option<i64>,
    pub unique_items: bool,
    pub max_properties: Option<i64>,
    pub min_properties: Option<i64>,
    pub all_of: Vec<Schema>,
    pub any_of: Vec<Schema>,
    pub one_of: Vec<Schema>,
    pub not: Option<Box<Schema>>,
    pub preserve_unknown_fields: bool,
    pub embedded_resource: bool,
    pub int_or_string: bool,
    pub list_type: Option<String>,
    pub list_map_keys: Vec<String>,
    pub map_type: Option<String>,
    pub validations: Vec<ValidationRule>,
}

/// `properties`: the entries in declaration order (messages and output follow it) and an
/// index by name, so that looking a field up is not a scan: admission looks up every
/// field of an object, and a scan made that O(fields x properties).
#[derive(Clone, Default)]
pub struct Properties {
    entries: Vec<(String, Schema)>,
    index: HashMap<String, usize>,
}

impl Properties {
    /// Appends a property; a repeated name keeps the first one for lookups.
    pub fn push(&mut self, name: String, schema: Schema) {
        self.index.entry(name.clone()).or_insert(self.entries.len());
        self.entries.push((name, schema));
    }

    pub fn get(&self, name: &str) -> Option<&Schema> {
        self.index.get(name).map(|&i| &self.entries[i].1)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// In declaration order.
    pub fn iter(&self) -> std::slice::Iter<'_, (String, Schema)> {
        self.entries.iter()
    }

    /// In declaration order; names stay fixed so the index stays valid.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&String, &mut Schema)> {
        self.entries.iter_mut().map(|(k, s)| (&*k, s))
    }
}

impl std::fmt::Debug for Properties {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(&self.entries).finish()
    }
}

/// Equal when the entries are (the index follows from them).
impl PartialEq for Properties {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries
    }
}

impl<'a> IntoIterator for &'a Properties {
    type Item = &'a (String, Schema);
    type IntoIter = std::slice::Iter<'a, (String, Schema)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter()
    }
}

impl FromIterator<(String, Schema)> for Properties {
    fn from_iter<I: IntoIterator<Item = (String, Schema)>>(iter: I) -> Self {
        let mut out = Properties::default();
        for (name, schema) in iter {
            out.push(name, schema);
        }
        out
    }
}

/// `additionalProperties`: a boolean or a schema.
#[derive(Debug, Clone, PartialEq)]
pub enum AdditionalProperties {
    Allowed(bool),
    Schema(Box<Schema>),
}

/// One `x-kubernetes-validations` entry.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ValidationRule {
    pub rule: String,
    pub message: Option<String>,
    pub message_expression: Option<String>,
    pub reason: Option<String>,
    pub field_path: Option<String>,
    pub optional_old_self: Option<bool>,
}

impl Schema {
    /// Reads a schema node leniently: unknown keywords are ignored, a wrongly typed one
    /// is an error naming it. `null` reads as the empty schema.
    pub fn from_value(value: &Value) -> Result<Schema, String> {
        let Some(map) = value.as_object() else {
            return match value {
                Value::Null => Ok(Schema::default()),
                other => Err(format!("a schema must be an object, got {other}")),
            };
        };
        let mut s = Schema::default();
        for (key, v) in map {
            read_keyword(&mut s, key, v).map_err(|e| format!("{key}: {e}"))?;
        }
        Ok(s)
    }

    /// The property schema for `name`.
    pub fn property(&self, name: &str) -> Option<&Schema> {
        self.properties.get(name)
    }

    /// The schema of a field of an object: the property `name`, else the map's value
    /// schema (`additionalProperties`). One step of [`Schema::at`].
    pub fn field(&self, name: &str) -> Option<&Schema> {
        self.property(name).or_else(|| self.additional_schema())
    }

    /// The schema at `path` (JSON field names; any step under a list goes to its items;
    /// a map's keys are any name), or `None` when there is no such field. The walk is
    /// [`crate::path::walk`], shared with the built-in kinds' `schema_at`.
    pub fn at<S: AsRef<str>>(&self, path: &[S]) -> Option<&Schema> {
        crate::path::walk(self, path)
    }

    /// The schema of `additionalProperties` when it is a schema (`true`/`false` give none).
    pub fn additional_schema(&self) -> Option<&Schema> {
        match &self.additional_properties {
            Some(AdditionalProperties::Schema(s)) => Some(s),
            _ => None,
        }
    }
}

fn read_keyword(s: &mut Schema, key: &str, v: &Value) -> Result<(), String> {
    match key {
        "type" => s.type_ = Some(string(v)?),
        "format" => s.format = Some(string(v)?),
        "title" => s.title = Some(string(v)?),
        "description" => s.description = Some(string(v)?),
        "nullable" => s.nullable = boolean(v)?,
        "default" => s.default = Some(v.clone()),
        "properties" => {
            for (name, p) in object(v)? {
                let p = Schema::from_value(p).map_err(|e| format!("{name}: {e}"))?;
                s.properties.push(name.clone(), p);
            }
        }
        "additionalProperties" => {
            s.additional_properties = Some(match v {
                Value::Bool(b) => AdditionalProperties::Allowed(*b),
                other => AdditionalProperties::Schema(Box::new(Schema::from_value(other)?)),
            })
        }
        "items" => s.items = Some(Box::new(Schema::from_value(v)?)),
        "required" => s.required = strings(v)?,
        "enum" => s.enum_ = Some(array(v)?.clone()),
        "maximum" => s.maximum = Some(number(v)?),
        "exclusiveMaximum" => s.exclusive_maximum = boolean(v)?,
        "minimum" => s.minimum = Some(number(v)?),
        "exclusiveMinimum" => s.exclusive_minimum = boolean(v)?,
        "multipleOf" => s.multiple_of = Some(number(v)?),
        "maxLength" => s.max_length = Some(integer(v)?),
        "minLength" => s.min_length = Some(integer(v)?),
        "pattern" => s.pattern = Some(string(v)?),
        "maxItems" => s.max_items = Some(integer(v)?),
        "minItems" => s.min_items = Some(integer(v)?),
        "uniqueItems" => s.unique_items = boolean(v)?,
        "maxProperties" => s.max_properties = Some(integer(v)?),
        "minProperties" => s.min_properties = Some(integer(v)?),
        "allOf" => s.all_of = schemas(v)?,
        "anyOf" => s.any_of = schemas(v)?,
        "oneOf" => s.one_of = schemas(v)?,
        "not" => s.not = Some(Box::new(Schema::from_value(v)?)),
        "x-kubernetes-preserve-unknown-fields" => s.preserve_unknown_fields = boolean(v)?,
        "x-kubernetes-embedded-resource" => s.embedded_resource = boolean(v)?,
        "x-kubernetes-int-or-string" => s.int_or_string = boolean(v)?,
        "x-kubernetes-list-type" => s.list_type = Some(string(v)?),
        "x-kubernetes-list-map-keys" => s.list_map_keys = strings(v)?,
        "x-kubernetes-map-type" => s.map_type = Some(string(v)?),
        "x-kubernetes-validations" => {
            s.validations = array(v)?
                .iter()
                .map(validation_rule)
                .collect::<Result<_, _>>()?
        }
        _ => {}
    }
    Ok(())
}

fn validation_rule(v: &Value) -> Result<ValidationRule, String> {
    let map = object(v)?;
    let text = |key: &str| map.get(key).map(string).transpose();
    Ok(ValidationRule {
        rule: text("rule")?.unwrap_or_default(),
        message: text("message")?,
        message_expression: text("messageExpression")?,
        reason: text("reason")?,
        field_path: text("fieldPath")?,
        optional_old_self: map.get("optionalOldSelf").map(boolean).transpose()?,
    })
}

fn string(v: &Value) -> Result<String, String> {
    v.as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("must be a string, got {v}"))
}

fn boolean(v: &Value) -> Result<bool, String> {
    match v {
        Value::Null => Ok(false),
        Value::Bool(b) => Ok(*b),
        other => Err(format!("must be a boolean, got {other}")),
    }
}

fn number(v: &Value) -> Result<f64, String> {
    v.as_f64()
        .ok_or_else(|| format!("must be a number, got {v}"))
}

fn integer(v: &Value) -> Result<i64, String> {
    v.as_i64()
        .ok_or_else(|| format!("must be an integer, got {v}"))
}

fn object(v: &Value) -> Result<&Map<String, Value>, String> {
    v.as_object()
        .ok_or_else(|| format!("must be an object, got {v}"))
}

fn array(v: &Value) -> Result<&Vec<Value>, String> {
    v.as_array()
        .ok_or_else(|| format!("must be a list, got {v}"))
}

fn strings(v: &Value) -> Result<Vec<String>, String> {
    array(v)?.iter().map(string).collect()
}

fn schemas(v: &Value) -> Result<Vec<Schema>, String> {
    array(v)?.iter().map(Schema::from_value).collect()
}
