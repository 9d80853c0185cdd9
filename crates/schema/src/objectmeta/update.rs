//! `ValidateObjectMetaAccessorUpdate` (apimachinery `api/validation/objectmeta.go`) after
//! `rest.BeforeUpdate` has carried the server-owned fields over from the stored object:
//! a uid, creation and deletion timestamps and the deletion grace period the request
//! leaves out are the old ones, the generation is always the old one, and the resource
//! version is the stored one (kadmit admits manifests, which an apply sends as a patch
//! of the stored object, so a missing `resourceVersion` is never the user's error).

use crate::field_error::{BadValue, ErrorType, FieldError};
use kadmit_go::strconv::quote;
use serde_json::Value;

/// The update errors of `new` metadata replacing `old` (both the `metadata` objects);
/// `path` is the metadata's field path (`metadata`). The create-time rules (labels,
/// annotations, owner references) are the caller's.
pub fn validate_object_meta_update(new: &Value, old: &Value, path: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let field = |name: &str| new.get(name).filter(|v| !v.is_null());
    let old_field = |name: &str| old.get(name).filter(|v| !v.is_null());
    if old_field("deletionTimestamp").is_some() {
        errs.extend(no_new_finalizers(new, old, &format!("{path}.finalizers")));
    }
    for name in ["name", "namespace"] {
        let before = old_field(name).and_then(Value::as_str).unwrap_or("");
        let after = field(name).and_then(Value::as_str).unwrap_or("");
        // A manifest (or an old object rendered without one) that names no namespace is
        // in the request's namespace, which the server writes into the object before
        // admission; kadmit matched the two in the same namespace already.
        if name == "namespace" && (before.is_empty() || after.is_empty()) {
            continue;
        }
        if before != after {
            errs.push(immutable(
                &format!("{path}.{name}"),
                Value::String(after.into()),
            ));
        }
    }
    // BeforeUpdate keeps the old uid when the request has none.
    let old_uid = old_field("uid").and_then(Value::as_str).unwrap_or("");
    if let Some(uid) = field("uid")
        .and_then(Value::as_str)
        .filter(|u| !u.is_empty())
    {
        if uid != old_uid {
            errs.push(immutable(&format!("{path}.uid"), Value::String(uid.into())));
        }
    }
    // creationTimestamp and deletionTimestamp are overwritten with the old ones; a
    // deletion grace period can be set by a delete only.
    if old_field("deletionGracePeriodSeconds").is_none() {
        if let Some(seconds) = field("deletionGracePeriodSeconds") {
            errs.push(immutable(
                &format!("{path}.deletionGracePeriodSeconds"),
                seconds.clone(),
            ));
        }
    }
    errs
}

/// `field is immutable` with the new value.
fn immutable(field: &str, value: Value) -> FieldError {
    FieldError::new(ErrorType::Invalid, field, value, "field is immutable")
}

/// `ValidateNoNewFinalizers`: an object being deleted takes no new finalizers.
fn no_new_finalizers(new: &Value, old: &Value, field: &str) -> Vec<FieldError> {
    let names = |meta: &Value| -> Vec<String> {
        meta.get("finalizers")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    let before = names(old);
    let mut extra: Vec<String> = names(new)
        .into_iter()
        .filter(|f| !before.contains(f))
        .collect();
    extra.sort();
    extra.dedup();
    if extra.is_empty() {
        return Vec::new();
    }
    let listed: Vec<String> = extra.iter().map(|f| quote(f, false)).collect();
    vec![FieldError {
        kind: ErrorType::Forbidden,
        field: field.to_owned(),
        value: BadValue::Omit,
        detail: format!(
            "no new finalizers can be added if the object is being deleted, found new finalizers []string{{{}}}",
            listed.join(", ")
        ),
    }]
}
