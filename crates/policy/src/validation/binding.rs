//! Binding specs: validation.go `validateValidatingAdmissionPolicyBindingSpec`,
//! `validateParamRef`, `validateValidationActions`. The MutatingAdmissionPolicyBinding
//! checks are the same minus validationActions (derived; see `policy.rs`).

use super::gofmt::{duplicate, invalid_rendered, not_supported, string_slice};
use super::rules::{label_selector, match_resources};
use super::{opt_str, present, str_at, strings_at};
use kadmit_schema::field_error::FieldError;
use kadmit_schema::objectmeta::NameRule;
use serde_json::Value;

/// `validValidationActions.List()` (sorted).
const VALIDATION_ACTIONS: [&str; 3] = ["Audit", "Deny", "Warn"];
/// The list `validateParamRef` passes, in its (unsorted) order.
const NOT_FOUND_ACTIONS: [&str; 2] = ["Deny", "Allow"];

/// policyName, paramRef, matchResources. Upstream's VAP binding path really reads
/// `spec.matchResouces` (sic, validation.go); the MAP binding's is assumed spelled right.
fn common(spec: &Value, match_resources_path: &str, errors: &mut Vec<FieldError>) {
    let policy_name = str_at(spec, "policyName");
    if policy_name.is_empty() {
        errors.push(FieldError::required("spec.policyName", ""));
    } else {
        for msg in NameRule::DnsSubdomain.errors(policy_name, false) {
            errors.push(FieldError::invalid(
                "spec.policyName",
                Value::from(policy_name),
                msg,
            ));
        }
    }
    if let Some(pr) = present(spec, "paramRef") {
        param_ref(pr, "spec.paramRef", errors);
    }
    match_resources(
        present(spec, "matchResources"),
        match_resources_path,
        errors,
    );
}

/// ValidatingAdmissionPolicyBinding spec.
pub fn validating(spec: &Value, errors: &mut Vec<FieldError>) {
    common(spec, "spec.matchResouces", errors);
    validation_actions(
        &strings_at(spec, "validationActions"),
        "spec.validationActions",
        errors,
    );
}

/// MutatingAdmissionPolicyBinding spec (derived).
pub fn mutating(spec: &Value, errors: &mut Vec<FieldError>) {
    common(spec, "spec.matchResources", errors);
}

/// `validateParamRef`: name xor selector, parameterNotFoundAction required.
fn param_ref(pr: &Value, path: &str, errors: &mut Vec<FieldError>) {
    const EXCLUSIVE: &str = "name and selector are mutually exclusive";
    let name = str_at(pr, "name");
    let selector = present(pr, "selector");
    if !name.is_empty() {
        for msg in NameRule::PathSegment.errors(name, false) {
            errors.push(FieldError::invalid(
                format!("{path}.name"),
                Value::from(name),
                msg,
            ));
        }
        if selector.is_some() {
            errors.push(FieldError::forbidden(format!("{path}.name"), EXCLUSIVE));
        }
    }
    if let Some(selector) = selector {
        label_selector(selector, &format!("{path}.selector"), errors);
        if !name.is_empty() {
            errors.push(FieldError::forbidden(format!("{path}.selector"), EXCLUSIVE));
        }
    }
    if name.is_empty() && selector.is_none() {
        errors.push(FieldError::required(
            path,
            "one of name or selector must be specified",
        ));
    }
    match opt_str(pr, "parameterNotFoundAction") {
        None | Some("") => errors.push(FieldError::required(
            format!("{path}.parameterNotFoundAction"),
            "",
        )),
        Some(a) if !NOT_FOUND_ACTIONS.contains(&a) => errors.push(not_supported(
            &format!("{path}.parameterNotFoundAction"),
            a,
            &NOT_FOUND_ACTIONS,
        )),
        Some(_) => {}
    }
}

/// `validateValidationActions`: each supported, no duplicates, not Deny with Warn, ≥1.
fn validation_actions(actions: &[&str], path: &str, errors: &mut Vec<FieldError>) {
    let mut seen: Vec<&str> = Vec::new();
    for (i, action) in actions.iter().enumerate() {
        let at = format!("{path}[{i}]");
        if !VALIDATION_ACTIONS.contains(action) {
            errors.push(not_supported(&at, action, &VALIDATION_ACTIONS));
        }
        if seen.contains(action) {
            errors.push(duplicate(&at, action));
        } else {
            seen.push(action);
        }
    }
    if seen.contains(&"Deny") && seen.contains(&"Warn") {
        errors.push(invalid_rendered(
            path,
            string_slice("admissionregistration.ValidationAction", actions),
            "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)",
        ));
    }
    if seen.is_empty() {
        errors.push(FieldError::required(
            path,
            "at least one validation action is required",
        ));
    }
}
