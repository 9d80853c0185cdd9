//! `ValidatePersistentVolumeClaimUpdate` (kube-apiserver 1.30–1.35): the spec is
//! immutable but for the storage request and `volumeAttributesClassName` of a bound
//! claim and a `volumeName` set once; the storage request may not shrink.
//!
//! The server appends a `cmp.Diff` of the two Go specs to the immutability error; kadmit
//! appends its own list of the changed values ([`semantic::changes`]). What a manifest
//! leaves out and the cluster filled in (the default storage class, the bound volume) is
//! taken from the old claim, as an apply's patch of the stored claim keeps it.

use super::rules::at;
use super::semantic;
use crate::Minor;
use kadmit_schema::field_error::{BadValue, ErrorType, FieldError};
use kadmit_schema::quantity::Quantity;
use serde_json::Value;
use std::cmp::Ordering;

/// Spec fields the cluster fills in and a manifest usually leaves out.
const CLUSTER_FILLED: [&str; 2] = ["storageClassName", "volumeName"];

/// The first minor where RecoverVolumeExpansionFailure is on by default (beta in 1.32,
/// GA in 1.34): a request may shrink down to just above the recorded capacity.
const RECOVER_FROM_EXPANSION_FAILURE: Minor = 32;

fn storage(v: &Value, pointer: &str) -> Quantity {
    at(v, pointer)
        .and_then(|q| match q {
            Value::String(s) => Quantity::parse(s).ok(),
            Value::Number(n) => Quantity::parse(&n.to_string()).ok(),
            _ => None,
        })
        .unwrap_or_else(|| Quantity::parse("0").expect("0 is a quantity"))
}

pub fn pvc(new: &Value, old: &Value, minor: Minor) -> Vec<FieldError> {
    let old_spec = at(old, "/spec").cloned().unwrap_or(Value::Null);
    let mut spec = at(new, "/spec").cloned().unwrap_or(Value::Null);
    if let Some(m) = spec.as_object_mut() {
        for key in CLUSTER_FILLED {
            if let (None, Some(v)) = (m.get(key).filter(|v| !v.is_null()), old_spec.get(key)) {
                m.insert(key.to_owned(), v.clone());
            }
        }
    }
    let mut errs = Vec::new();
    let comparable = comparable(&spec, &old_spec, old);
    if !semantic::equal(Some(&comparable), Some(&old_spec)) {
        errs.push(FieldError {
            kind: ErrorType::Forbidden,
            field: "spec".to_owned(),
            value: BadValue::Omit,
            detail: format!(
                "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n{}",
                semantic::changes("spec", Some(&old_spec), Some(&comparable))
            ),
        });
    }
    let requested = storage(&spec, "/resources/requests/storage");
    let before = storage(&old_spec, "/resources/requests/storage");
    if requested.compare(&before) == Ordering::Less {
        let path = "spec.resources.requests.storage";
        if minor < RECOVER_FROM_EXPANSION_FAILURE {
            errs.push(FieldError::forbidden(
                path,
                "field can not be less than previous value",
            ));
        } else if requested.compare(&storage(old, "/status/capacity/storage")) != Ordering::Greater
        {
            errs.push(FieldError::forbidden(
                path,
                "field can not be less than status.capacity",
            ));
        }
    }
    errs
}

/// The new spec with what may change set back to the old values.
fn comparable(spec: &Value, old_spec: &Value, old: &Value) -> Value {
    let bound = at(old, "/status/phase").and_then(Value::as_str) == Some("Bound");
    let mut out = spec.clone();
    let Some(m) = out.as_object_mut() else {
        return out;
    };
    if old_spec
        .get("volumeName")
        .is_none_or(|v| v.is_null() || v == "")
    {
        m.shift_remove("volumeName");
    }
    if bound {
        match old_spec.get("volumeAttributesClassName") {
            Some(v) => m.insert("volumeAttributesClassName".into(), v.clone()),
            None => m.shift_remove("volumeAttributesClassName"),
        };
        if let Some(Value::Object(requests)) =
            m.get_mut("resources").and_then(|r| r.get_mut("requests"))
        {
            match old_spec.pointer("/resources/requests/storage") {
                Some(s) => requests.insert("storage".into(), s.clone()),
                None => requests.shift_remove("storage"),
            };
        }
    }
    out
}
