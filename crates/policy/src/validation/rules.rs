//! `MatchResources`, rules and label selectors (validation.go `validateMatchResources`,
//! `validateNamedRuleWithOperations`, `validateRuleWithOperations`, `validateRule`,
//! `validateResources`; apimachinery `metav1validation.ValidateLabelSelector` with strict
//! label values).

use super::gofmt::{duplicate, invalid_rendered, not_supported, string_slice};
use super::{list_at, opt_str, present, str_at, strings_at};
use kadmit_schema::field_error::FieldError;
use kadmit_schema::objectmeta::{label_value_errors, qualified_name_errors, NameRule};
use serde_json::Value;

/// `supportedMatchPolicies.List()` (sorted).
const MATCH_POLICIES: [&str; 2] = ["Equivalent", "Exact"];
/// `supportedOperations.List()` (sorted).
const OPERATIONS: [&str; 5] = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"];
/// `validScopes.List()` (sorted).
const SCOPES: [&str; 3] = ["*", "Cluster", "Namespaced"];

/// `validateMatchResources`; a nil `MatchResources` is valid.
pub fn match_resources(mr: Option<&Value>, path: &str, errors: &mut Vec<FieldError>) {
    let Some(mr) = mr else { return };
    match opt_str(mr, "matchPolicy") {
        None => errors.push(FieldError::required(format!("{path}.matchPolicy"), "")),
        Some(p) if !MATCH_POLICIES.contains(&p) => errors.push(not_supported(
            &format!("{path}.matchPolicy"),
            p,
            &MATCH_POLICIES,
        )),
        Some(_) => {}
    }
    // "validate selector strictly, this type was released after issue #99139 was resolved"
    for key in ["namespaceSelector", "objectSelector"] {
        match present(mr, key) {
            None => errors.push(FieldError::required(format!("{path}.{key}"), "")),
            Some(s) => label_selector(s, &format!("{path}.{key}"), errors),
        }
    }
    for list in ["resourceRules", "excludeResourceRules"] {
        for (i, rule) in list_at(mr, list).iter().enumerate() {
            named_rule(rule, &format!("{path}.{list}[{i}]"), errors);
        }
    }
}

/// `validateNamedRuleWithOperations`: resourceNames are path segments without duplicates.
fn named_rule(rule: &Value, path: &str, errors: &mut Vec<FieldError>) {
    let mut seen = Vec::new();
    for (i, name) in strings_at(rule, "resourceNames").into_iter().enumerate() {
        let at = format!("{path}.resourceNames[{i}]");
        for msg in NameRule::PathSegment.errors(name, false) {
            errors.push(FieldError::invalid(&at, Value::from(name), msg));
        }
        if seen.contains(&name) {
            errors.push(duplicate(&at, name));
        } else {
            seen.push(name);
        }
    }
    rule_with_operations(rule, path, errors);
}

/// `validateRuleWithOperations` (subresources allowed).
pub fn rule_with_operations(rule: &Value, path: &str, errors: &mut Vec<FieldError>) {
    let ops = strings_at(rule, "operations");
    if ops.is_empty() {
        errors.push(FieldError::required(format!("{path}.operations"), ""));
    }
    if ops.len() > 1 && ops.contains(&"*") {
        errors.push(invalid_rendered(
            &format!("{path}.operations"),
            string_slice("admissionregistration.OperationType", &ops),
            "if '*' is present, must not specify other operations",
        ));
    }
    for (i, op) in ops.iter().enumerate() {
        if !OPERATIONS.contains(op) {
            errors.push(not_supported(
                &format!("{path}.operations[{i}]"),
                op,
                &OPERATIONS,
            ));
        }
    }
    validate_rule(rule, path, errors);
}

/// `validateRule` with `allowSubResource == true`.
fn validate_rule(rule: &Value, path: &str, errors: &mut Vec<FieldError>) {
    let groups = strings_at(rule, "apiGroups");
    if groups.is_empty() {
        errors.push(FieldError::required(format!("{path}.apiGroups"), ""));
    }
    if groups.len() > 1 && groups.contains(&"*") {
        errors.push(invalid_rendered(
            &format!("{path}.apiGroups"),
            string_slice("string", &groups),
            "if '*' is present, must not specify other API groups",
        ));
    }
    // Note: group could be empty, e.g., the legacy "v1" API
    let versions = strings_at(rule, "apiVersions");
    if versions.is_empty() {
        errors.push(FieldError::required(format!("{path}.apiVersions"), ""));
    }
    if versions.len() > 1 && versions.contains(&"*") {
        errors.push(invalid_rendered(
            &format!("{path}.apiVersions"),
            string_slice("string", &versions),
            "if '*' is present, must not specify other API versions",
        ));
    }
    for (i, v) in versions.iter().enumerate() {
        if v.is_empty() {
            errors.push(FieldError::required(format!("{path}.apiVersions[{i}]"), ""));
        }
    }
    resources(
        &strings_at(rule, "resources"),
        &format!("{path}.resources"),
        errors,
    );
    if let Some(scope) = opt_str(rule, "scope") {
        if !SCOPES.contains(&scope) {
            errors.push(not_supported(&format!("{path}.scope"), scope, &SCOPES));
        }
    }
}

/// `validateResources`: the wildcard combinations of `resource/subresource` entries.
pub fn resources(resources: &[&str], path: &str, errors: &mut Vec<FieldError>) {
    if resources.is_empty() {
        errors.push(FieldError::required(path, ""));
    }
    let mut wildcard_sub_of: Vec<&str> = Vec::new(); // x/*
    let mut wildcard_res_for: Vec<&str> = Vec::new(); // */x
    let mut double_wildcard = false;
    let mut single_wildcard = false;
    let mut without_subresource = false;
    for (i, res_sub) in resources.iter().enumerate() {
        let at = format!("{path}[{i}]");
        if res_sub.is_empty() {
            errors.push(FieldError::required(at, ""));
            continue;
        }
        if *res_sub == "*/*" {
            double_wildcard = true;
        }
        if *res_sub == "*" {
            single_wildcard = true;
        }
        let Some((res, sub)) = res_sub.split_once('/') else {
            // Upstream assigns (not ORs) this flag: only the last plain entry counts.
            without_subresource = *res_sub != "*";
            continue;
        };
        if wildcard_sub_of.contains(&res) {
            errors.push(FieldError::invalid(
                &at,
                Value::from(*res_sub),
                format!("if '{res}/*' is present, must not specify {res_sub}"),
            ));
        }
        if wildcard_res_for.contains(&sub) {
            errors.push(FieldError::invalid(
                &at,
                Value::from(*res_sub),
                format!("if '*/{sub}' is present, must not specify {res_sub}"),
            ));
        }
        if sub == "*" {
            wildcard_sub_of.push(res);
        }
        if res == "*" {
            wildcard_res_for.push(sub);
        }
    }
    if resources.len() > 1 && double_wildcard {
        errors.push(invalid_rendered(
            path,
            string_slice("string", resources),
            "if '*/*' is present, must not specify other resources",
        ));
    }
    if single_wildcard && without_subresource {
        errors.push(invalid_rendered(
            path,
            string_slice("string", resources),
            "if '*' is present, must not specify other resources without subresources",
        ));
    }
}

/// `metav1validation.ValidateLabelSelector` with `AllowInvalidLabelValueInSelector: false`.
/// Go iterates `matchLabels` in random order; here keys come sorted.
pub fn label_selector(selector: &Value, path: &str, errors: &mut Vec<FieldError>) {
    if let Some(labels) = selector.get("matchLabels").and_then(Value::as_object) {
        let at = format!("{path}.matchLabels");
        let mut keys: Vec<&String> = labels.keys().collect();
        keys.sort();
        for k in keys {
            label_name(k, &at, errors);
            let v = labels[k].as_str().unwrap_or("");
            for msg in label_value_errors(v) {
                errors.push(FieldError::invalid(&at, Value::from(v), msg));
            }
        }
    }
    for (i, req) in list_at(selector, "matchExpressions").iter().enumerate() {
        let at = format!("{path}.matchExpressions[{i}]");
        let values = strings_at(req, "values");
        match str_at(req, "operator") {
            "In" | "NotIn" if values.is_empty() => errors.push(FieldError::required(
                format!("{at}.values"),
                "must be specified when `operator` is 'In' or 'NotIn'",
            )),
            "Exists" | "DoesNotExist" if !values.is_empty() => errors.push(FieldError::forbidden(
                format!("{at}.values"),
                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            )),
            "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
            op => errors.push(FieldError::invalid(
                format!("{at}.operator"),
                Value::from(op),
                "not a valid selector operator",
            )),
        }
        label_name(str_at(req, "key"), &format!("{at}.key"), errors);
        for (j, v) in values.iter().enumerate() {
            for msg in label_value_errors(v) {
                errors.push(FieldError::invalid(
                    format!("{at}.values[{j}]"),
                    Value::from(*v),
                    msg,
                ));
            }
        }
    }
}

/// `ValidateLabelName`: a qualified name.
fn label_name(name: &str, path: &str, errors: &mut Vec<FieldError>) {
    for msg in qualified_name_errors(name) {
        errors.push(FieldError::invalid(path, Value::from(name), msg));
    }
}
