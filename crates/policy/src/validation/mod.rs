//! What kube-apiserver refuses when an admission policy object is created
//! (`pkg/apis/admissionregistration/validation/validation.go`, reference §8):
//! ValidatingAdmissionPolicy, MutatingAdmissionPolicy and their bindings, in
//! `admissionregistration.k8s.io` v1, v1beta1 and v1alpha1, with the server's field paths
//! and messages.
//!
//! Upstream validates the *internal* type after the versioned defaults ran
//! (`pkg/apis/admissionregistration/v1*/defaults.go`), so [`validate_policy`] first applies
//! those defaults (failurePolicy, matchPolicy, selectors, rule scope, reinvocationPolicy;
//! `paramRef.parameterNotFoundAction` only in v1alpha1) and then checks.
//!
//! Expressions are compiled (`kadmit_schema::cel::expression`) in the environment the
//! server gives each kind of expression (`expressions`): compile errors, result types,
//! `params` only with a `paramKind`, variables in order. Not covered: the static cost
//! estimate at creation, type checks the partial checker cannot decide (lenient), MAP
//! mutation expressions.

mod binding;
mod expressions;
mod gofmt;
mod policy;
mod rules;
#[cfg(test)]
mod tests;

use kadmit_schema::field_error::FieldError;
use kadmit_schema::objectmeta::validate_object_meta;
use serde_json::{json, Value};

/// The API group of the four kinds.
pub const GROUP: &str = "admissionregistration.k8s.io";

/// The kinds [`validate_policy`] checks.
pub const KINDS: [&str; 4] = [
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionPolicyBinding",
];

/// The field errors kube-apiserver reports when `object` (a whole
/// ValidatingAdmissionPolicy, MutatingAdmissionPolicy or one of their bindings, as JSON) is
/// created; empty when it would be accepted, and for objects of any other kind or API
/// version. The errors come in upstream's order; `ErrorList.ToAggregate` would print them
/// joined with `, ` inside `[...]`.
pub fn validate_policy(object: &Value) -> Vec<FieldError> {
    let api_version = object
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    let Some(version) = api_version
        .strip_prefix(GROUP)
        .and_then(|rest| rest.strip_prefix('/'))
    else {
        return Vec::new();
    };
    if !matches!(version, "v1" | "v1beta1" | "v1alpha1") {
        return Vec::new();
    }
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or("");
    if !KINDS.contains(&kind) {
        return Vec::new();
    }
    let mut object = object.clone();
    apply_defaults(&mut object, kind, version);

    let empty = json!({});
    let metadata = object
        .get("metadata")
        .filter(|m| m.is_object())
        .unwrap_or(&empty);
    // genericvalidation.ValidateObjectMeta(&p.ObjectMeta, false, NameIsDNSSubdomain, "metadata")
    let mut errors = validate_object_meta(metadata, false, "metadata");
    let name = str_at(metadata, "name");
    let spec = object
        .get("spec")
        .filter(|s| s.is_object())
        .unwrap_or(&empty);
    match kind {
        "ValidatingAdmissionPolicy" => policy::validating(name, spec, &mut errors),
        "MutatingAdmissionPolicy" => policy::mutating(spec, &mut errors),
        "ValidatingAdmissionPolicyBinding" => binding::validating(spec, &mut errors),
        _ => binding::mutating(spec, &mut errors),
    }
    errors
}

/// The versioned defaults (`SetDefaults_ValidatingAdmissionPolicySpec`,
/// `SetDefaults_MutatingAdmissionPolicySpec`, `SetDefaults_MatchResources`, `SetDefaults_Rule`
/// through `NamedRuleWithOperations`, and v1alpha1's `SetDefaults_ParamRef`).
fn apply_defaults(object: &mut Value, kind: &str, version: &str) {
    let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    let is_policy = !kind.ends_with("Binding");
    if is_policy {
        default_key(spec, "failurePolicy", json!("Fail"));
    }
    if kind == "MutatingAdmissionPolicy" {
        default_key(spec, "reinvocationPolicy", json!("Never"));
    }
    let resources_key = if is_policy {
        "matchConstraints"
    } else {
        "matchResources"
    };
    if let Some(mr) = spec.get_mut(resources_key).and_then(Value::as_object_mut) {
        default_key(mr, "matchPolicy", json!("Equivalent"));
        default_key(mr, "namespaceSelector", json!({}));
        default_key(mr, "objectSelector", json!({}));
        for list in ["resourceRules", "excludeResourceRules"] {
            if let Some(rules) = mr.get_mut(list).and_then(Value::as_array_mut) {
                for rule in rules.iter_mut().filter_map(Value::as_object_mut) {
                    default_key(rule, "scope", json!("*"));
                }
            }
        }
    }
    if version == "v1alpha1" {
        if let Some(pr) = spec.get_mut("paramRef").and_then(Value::as_object_mut) {
            default_key(pr, "parameterNotFoundAction", json!("Deny"));
        }
    }
}

fn default_key(map: &mut serde_json::Map<String, Value>, key: &str, value: Value) {
    if map.get(key).is_none_or(Value::is_null) {
        map.insert(key.to_owned(), value);
    }
}

/// A string member, `""` when absent or not a string (Go's zero value).
pub(crate) fn str_at<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

/// An optional string member: `None` when absent or null (a nil pointer upstream).
pub(crate) fn opt_str<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    match value.get(key) {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_str().unwrap_or("")),
    }
}

/// A list member, empty when absent (a nil slice upstream).
pub(crate) fn list_at<'a>(value: &'a Value, key: &str) -> &'a [Value] {
    value
        .get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// A list of strings; non-strings read as `""`.
pub(crate) fn strings_at<'a>(value: &'a Value, key: &str) -> Vec<&'a str> {
    list_at(value, key)
        .iter()
        .map(|v| v.as_str().unwrap_or(""))
        .collect()
}

/// An object member that is present and not null (a non-nil pointer upstream).
pub(crate) fn present<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    value.get(key).filter(|v| !v.is_null())
}
