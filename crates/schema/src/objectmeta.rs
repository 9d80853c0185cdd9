//! TypeMeta and ObjectMeta of custom resources (apiextensions `objectmeta/`, reference
//! §1.1, §1.2): the root `metadata` and every `x-kubernetes-embedded-resource` object's
//! `apiVersion`, `kind` and `metadata` are coerced at decode and validated on create.
//!
//! What kadmit writes back. The API server decodes each `metadata` into Go's ObjectMeta and
//! stores the re-encoded struct. Of that round trip kadmit applies what changes meaning:
//! unknown keys are deleted (and reported as unknown fields), and so are fields the
//! server drops for being malformed where it drops rather than rejects them (defaults at
//! CRD load). The re-encoding itself is not written back: empty `labels`, `annotations`,
//! `finalizers` or strings vanishing, `creationTimestamp: null` appearing at the root,
//! timestamps rewritten in UTC, a null label value becoming `""` all describe the same
//! object, and in output meant for people they would be churn nobody asked for (the
//! server sets or wipes the timestamps on create anyway). Checks read metadata the way Go
//! decodes it (null as the zero value), so they see what the server sees.

mod decode;
mod names;
mod update;
mod validation;

pub use names::{
    dns1035_label_errors, dns1123_label_errors, dns1123_subdomain_errors, label_value_errors,
    parse_group_version, qualified_name_errors, NameRule,
};
pub use update::validate_object_meta_update;

use crate::field_error::FieldError;
use crate::prune::additional;
use crate::schema::Schema;
use serde_json::{Map, Value};
use validation::{child, Meta};

/// The root `metadata` of `object` as `unstructuredSchemaCoercer` decodes it: unknown keys
/// are deleted and returned as unknown-field paths (`metadata.foo`, in Go's order); a
/// wrongly typed known key is `Err` with Go's decode error (`json: cannot unmarshal
/// number into Go struct field ObjectMeta.labels of type string`), which fails the
/// request (HTTP 400, `<Kind> in version "<v>" cannot be handled as a <Kind>: <err>`).
pub fn coerce_root_metadata(object: &mut Value) -> Result<Vec<String>, String> {
    let Some(metadata) = object.get_mut("metadata") else {
        return Ok(Vec::new());
    };
    let decoded = decode::decode(metadata, false)?;
    decoded.remove_from(metadata);
    Ok(decoded
        .unknown
        .into_iter()
        .map(|u| format!("metadata.{}", u.path))
        .collect())
}

pub(crate) use decode::{object_meta_fields, remove_at, strict_path, Seg};

/// The unknown fields of a `metadata` value decoded as ObjectMeta, each with its strict
/// path (relative to `metadata`) and where it sits; empty when the value does not decode
/// (a type error is reported by whoever reads the metadata).
pub(crate) fn unknown_metadata_fields(metadata: &Value) -> Vec<(String, Vec<Seg>)> {
    decode::decode(metadata, false)
        .map(|decoded| {
            decoded
                .unknown
                .into_iter()
                .map(|u| (u.path, u.at))
                .collect()
        })
        .unwrap_or_default()
}

/// `objectmeta.CoerceWithOptions` (unknown field paths returned): in every embedded
/// resource (and the root with `is_resource_root`) `apiVersion` and `kind` must be
/// strings and `metadata` must decode as ObjectMeta; its unknown keys are deleted and
/// returned, sorted (`spec.template.metadata.foo`). A wrongly typed field is `Err` with
/// the field error's text (`embedded.kind: Invalid value: 1: must be a string`), which
/// fails the request like a root metadata error; with `drop_invalid` it is deleted.
pub fn coerce(
    value: &mut Value,
    schema: Option<&Schema>,
    is_resource_root: bool,
    drop_invalid: bool,
) -> Result<Vec<String>, String> {
    let empty = Schema::default();
    let schema = if is_resource_root {
        Some(schema.unwrap_or(&empty))
    } else {
        schema
    };
    let mut coercer = Coercer {
        drop_invalid,
        unknown: Vec::new(),
    };
    let embedded = is_resource_root || schema.is_some_and(|s| s.embedded_resource);
    coercer.coerce("", value, schema, embedded)?;
    coercer.unknown.sort();
    Ok(coercer.unknown)
}

/// `objectmeta.Validate`: every embedded resource (and the root with `is_resource_root`)
/// needs a string `apiVersion` that parses as a group version, a string `kind` that is
/// a DNS-1035 label ignoring case, and valid ObjectMeta if it has `metadata` (path-segment
/// name rules, a fake name when it has none, a namespace only checked when set).
pub fn validate(value: &Value, schema: &Schema, is_resource_root: bool) -> Vec<FieldError> {
    let mut errors = Vec::new();
    validate_node(
        "",
        value,
        Some(schema),
        is_resource_root || schema.embedded_resource,
        &mut errors,
    );
    errors
}

/// ObjectMeta validation of a custom resource's root `metadata` on create (`metadata.name`
/// a DNS-1123 subdomain, a namespace required for namespaced kinds and forbidden for
/// cluster-scoped ones, labels, annotations, owner references, finalizers). `path` is
/// the field path of the metadata, `metadata` at the root.
pub fn validate_object_meta(metadata: &Value, namespaced: bool, path: &str) -> Vec<FieldError> {
    validate_object_meta_with(metadata, namespaced, NameRule::DnsSubdomain, path)
}

/// [`validate_object_meta`] with the name rule chosen: the API server checks a valid
/// create's root once more with [`NameRule::PathSegment`].
pub fn validate_object_meta_with(
    metadata: &Value,
    requires_namespace: bool,
    names: NameRule,
    path: &str,
) -> Vec<FieldError> {
    Meta::read(metadata).validate(requires_namespace, names, path)
}

struct Coercer {
    drop_invalid: bool,
    unknown: Vec<String>,
}

impl Coercer {
    fn coerce(
        &mut self,
        path: &str,
        x: &mut Value,
        s: Option<&Schema>,
        embedded: bool,
    ) -> Result<(), String> {
        let Some(s) = s else { return Ok(()) };
        match x {
            Value::Object(map) => {
                if embedded {
                    self.coerce_type_and_object_meta(path, map)?;
                }
                let ap = additional(s);
                for (key, v) in map.iter_mut() {
                    if let Some(p) = s.property(key) {
                        self.coerce(&child(path, key), v, Some(p), p.embedded_resource)?;
                    } else if let Some(ap) = ap {
                        let embedded = ap.is_some_and(|ap| ap.embedded_resource);
                        self.coerce(&format!("{path}[{key}]"), v, ap, embedded)?;
                    }
                }
            }
            Value::Array(items) => {
                let items_schema = s.items.as_deref();
                let embedded = items_schema.is_some_and(|s| s.embedded_resource);
                for (i, v) in items.iter_mut().enumerate() {
                    self.coerce(&format!("{path}[{i}]"), v, items_schema, embedded)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn coerce_type_and_object_meta(
        &mut self,
        path: &str,
        map: &mut Map<String, Value>,
    ) -> Result<(), String> {
        for key in ["apiVersion", "kind"] {
            match map.get(key) {
                Some(v) if !v.is_string() && self.drop_invalid => {
                    map.shift_remove(key);
                }
                Some(v) if !v.is_string() => {
                    let error =
                        FieldError::invalid(child(path, key), v.clone(), "must be a string");
                    return Err(error.to_string());
                }
                _ => {}
            }
        }
        let Some(metadata) = map.get_mut("metadata") else {
            return Ok(());
        };
        let meta_path = child(path, "metadata");
        match decode::decode(metadata, self.drop_invalid) {
            Ok(decoded) => {
                decoded.remove_from(metadata);
                let found = decoded
                    .unknown
                    .into_iter()
                    .map(|u| format!("{meta_path}.{}", u.path));
                self.unknown.extend(found);
            }
            Err(_) if self.drop_invalid => {}
            Err(e) => return Err(FieldError::invalid(meta_path, metadata.clone(), e).to_string()),
        }
        Ok(())
    }
}

fn validate_node(
    path: &str,
    x: &Value,
    s: Option<&Schema>,
    embedded: bool,
    errors: &mut Vec<FieldError>,
) {
    let Some(s) = s else { return };
    match x {
        Value::Object(map) => {
            if embedded {
                validate_embedded_resource(path, map, errors);
            }
            let ap = additional(s);
            for (key, v) in map {
                if let Some(p) = s.property(key) {
                    validate_node(&child(path, key), v, Some(p), p.embedded_resource, errors);
                } else if let Some(ap) = ap {
                    let embedded = ap.is_some_and(|ap| ap.embedded_resource);
                    validate_node(&format!("{path}[{key}]"), v, ap, embedded, errors);
                }
            }
        }
        Value::Array(items) => {
            let items_schema = s.items.as_deref();
            let embedded = items_schema.is_some_and(|s| s.embedded_resource);
            for (i, v) in items.iter().enumerate() {
                validate_node(&format!("{path}[{i}]"), v, items_schema, embedded, errors);
            }
        }
        _ => {}
    }
}

fn validate_embedded_resource(path: &str, map: &Map<String, Value>, errors: &mut Vec<FieldError>) {
    for key in ["apiVersion", "kind"] {
        if !map.contains_key(key) {
            errors.push(FieldError::required(child(path, key), ""));
        }
    }
    if let Some(v) = map.get("apiVersion") {
        let at = child(path, "apiVersion");
        match v.as_str() {
            None => errors.push(FieldError::invalid(at, v.clone(), "must be a string")),
            Some("") => errors.push(FieldError::invalid(at, v.clone(), "must not be empty")),
            Some(api_version) => {
                if let Err(e) = parse_group_version(api_version) {
                    errors.push(FieldError::invalid(at, v.clone(), e));
                }
            }
        }
    }
    if let Some(v) = map.get("kind") {
        let at = child(path, "kind");
        match v.as_str() {
            None => errors.push(FieldError::invalid(at, v.clone(), "must be a string")),
            Some("") => errors.push(FieldError::invalid(at, v.clone(), "must not be empty")),
            Some(kind) => {
                let problems = dns1035_label_errors(&kind.to_lowercase());
                if !problems.is_empty() {
                    let detail = format!(
                        "may have mixed case, but should otherwise match: {}",
                        problems.join(",")
                    );
                    errors.push(FieldError::invalid(at, v.clone(), detail));
                }
            }
        }
    }
    if let Some(metadata) = map.get("metadata") {
        let at = child(path, "metadata");
        match decode::decode(metadata, false) {
            Err(e) => errors.push(FieldError::invalid(at, metadata.clone(), e)),
            Ok(_) => {
                let mut meta = Meta::read(metadata);
                if meta.name.is_empty() {
                    meta.name = "fakename";
                }
                let requires_namespace = !meta.namespace.is_empty();
                errors.extend(meta.validate(requires_namespace, NameRule::PathSegment, &at));
            }
        }
    }
}

#[cfg(test)]
mod tests;
