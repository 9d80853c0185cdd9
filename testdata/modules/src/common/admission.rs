//! Reading an `admission.k8s.io/v1` AdmissionReview request and building
//! its response, in the k8s-wasi flavour (`patchType: "Full"` allowed).
#![allow(dead_code)]

use crate::base64;
use crate::json::Value;

/// The review's `request` (the AdmissionRequest), or an error.
pub fn request_of(review: &Value) -> Result<&Value, String> {
    match review.get("request") {
        Some(r) if r.is_object() => Ok(r),
        _ => Err("the AdmissionReview has no \"request\"".to_string()),
    }
}

pub fn uid(request: &Value) -> String {
    request.get("uid").and_then(Value::as_str).unwrap_or("").to_string()
}

/// `request.kind.kind`, else the object's own `kind`.
pub fn kind(request: &Value) -> String {
    let declared = request.at(&["kind", "kind"]).and_then(Value::as_str);
    let of_object = request.at(&["object", "kind"]).and_then(Value::as_str);
    declared.or(of_object).unwrap_or("").to_string()
}

/// The object under review (absent or null on DELETE).
pub fn object(request: &Value) -> Option<&Value> {
    request.get("object").filter(|o| o.is_object())
}

/// An AdmissionReview carrying `response`, with the review's apiVersion.
pub fn review(request_review: &Value, response: Value) -> Value {
    let api_version = request_review.get("apiVersion").and_then(Value::as_str).unwrap_or("admission.k8s.io/v1");
    Value::object(vec![
        ("kind", Value::str("AdmissionReview")),
        ("apiVersion", Value::str(api_version)),
        ("response", response),
    ])
}

pub fn allow(uid: &str) -> Value {
    Value::object(vec![("uid", Value::str(uid)), ("allowed", Value::Bool(true))])
}

/// A rejection whose `status` is a `v1 Status` with `message`.
pub fn reject(uid: &str, message: &str) -> Value {
    let status = Value::object(vec![
        ("apiVersion", Value::str("v1")),
        ("kind", Value::str("Status")),
        ("message", Value::str(message)),
    ]);
    Value::object(vec![("uid", Value::str(uid)), ("allowed", Value::Bool(false)), ("status", status)])
}

/// k8s-wasi's own patch type: the complete new object, as base64 JSON.
pub fn full_patch(uid: &str, new_object: &Value) -> Value {
    let mut response = allow(uid);
    response.set("patchType", Value::str("Full"));
    response.set("patch", Value::String(base64::encode(new_object.to_json().as_bytes())));
    response
}

/// An RFC 6902 patch (an array of operations), as base64 JSON.
pub fn json_patch(uid: &str, operations: &Value) -> Value {
    let mut response = allow(uid);
    response.set("patchType", Value::str("JSONPatch"));
    response.set("patch", Value::String(base64::encode(operations.to_json().as_bytes())));
    response
}
