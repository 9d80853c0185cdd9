//! ObjectMeta of a built-in object (`ValidateObjectMeta` with the kind's name rule), by
//! way of `kadmit_schema::objectmeta`. Whether a namespaced object has a namespace is the
//! caller's business (it knows the request's namespace), so an empty namespace is never
//! reported here; a cluster-scoped object's namespace is wiped by `rest.BeforeCreate`
//! before validation, so it is never reported either.

use super::util::{get, Errors};
use kadmit_schema::objectmeta::{validate_object_meta_with, NameRule};
use serde_json::Value;

/// How a kind's `metadata.name` is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Name {
    /// `NameIsDNSSubdomain`: most kinds.
    Subdomain,
    /// `NameIsDNSLabel`: Namespace, StatefulSet.
    Label,
    /// `NameIsDNS1035Label`: Service.
    Dns1035,
    /// `path.ValidatePathSegmentName`: RBAC kinds (`ValidateRBACName`).
    PathSegment,
}

/// `ValidateObjectMeta(&obj.ObjectMeta, namespaced, nameFn, field.NewPath("metadata"))`.
pub fn validate(object: &Value, namespaced: bool, name: Name) -> Errors {
    let empty = Value::Object(Default::default());
    let metadata = get(object, "metadata").unwrap_or(&empty);
    let namespace = get(metadata, "namespace")
        .and_then(Value::as_str)
        .unwrap_or("");
    let check_namespace = namespaced && !namespace.is_empty();
    let stripped;
    let metadata = if !check_namespace && !namespace.is_empty() {
        let mut m = metadata.clone();
        if let Some(map) = m.as_object_mut() {
            map.shift_remove("namespace");
        }
        stripped = m;
        &stripped
    } else {
        metadata
    };
    match name {
        Name::Subdomain => validate_object_meta_with(
            metadata,
            check_namespace,
            NameRule::DnsSubdomain,
            "metadata",
        ),
        Name::Label => {
            validate_object_meta_with(metadata, check_namespace, NameRule::DnsLabel, "metadata")
        }
        Name::PathSegment => {
            validate_object_meta_with(metadata, check_namespace, NameRule::PathSegment, "metadata")
        }
        Name::Dns1035 => dns1035(metadata, check_namespace),
    }
}

/// `NameIsDNS1035Label` is not one of `NameRule`'s rules: validate with the label rule
/// (same shape of errors) and swap the name errors for DNS-1035 ones.
fn dns1035(metadata: &Value, check_namespace: bool) -> Errors {
    let mut errs =
        validate_object_meta_with(metadata, check_namespace, NameRule::DnsLabel, "metadata");
    let name = get(metadata, "name").and_then(Value::as_str).unwrap_or("");
    let generate = get(metadata, "generateName")
        .and_then(Value::as_str)
        .unwrap_or("");
    errs.retain(|e| {
        !((e.field == "metadata.name" && e.kind != kadmit_schema::field_error::ErrorType::Required)
            || e.field == "metadata.generateName")
    });
    let mut replaced = Vec::new();
    if !generate.is_empty() {
        let masked = mask_trailing_dash(generate);
        for msg in kadmit_schema::objectmeta::dns1035_label_errors(&masked) {
            replaced.push(kadmit_schema::field_error::FieldError::invalid(
                "metadata.generateName",
                serde_json::json!(generate),
                msg,
            ));
        }
    }
    if !name.is_empty() {
        for msg in kadmit_schema::objectmeta::dns1035_label_errors(name) {
            replaced.push(kadmit_schema::field_error::FieldError::invalid(
                "metadata.name",
                serde_json::json!(name),
                msg,
            ));
        }
    }
    // generateName and name come first in ValidateObjectMetaAccessor.
    let mut out = replaced;
    out.extend(errs);
    out
}

/// `mask_trailing_dash` of apimachinery's `NameIsDNS1035Label(name, prefix=true)`.
fn mask_trailing_dash(name: &str) -> String {
    let bytes = name.as_bytes();
    if bytes.len() > 1 && bytes.ends_with(b"-") {
        let mut masked = bytes[..bytes.len() - 2].to_vec();
        masked.push(b'a');
        String::from_utf8_lossy(&masked).into_owned()
    } else {
        name.to_owned()
    }
}
