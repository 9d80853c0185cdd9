//! Policy specs: validation.go `validateValidatingAdmissionPolicySpec` and
//! `validateParamKind`; the MutatingAdmissionPolicy checks follow the same shape plus the
//! v1beta1/v1 types.go contract (mutations, patchType, reinvocationPolicy) — the
//! validation.go version read for the reference predates MAP, so those texts are
//! **derived**.

use super::expressions::{audit_annotations, match_conditions, validation, variables, Scope};
use super::gofmt::not_supported;
use super::rules::match_resources;
use super::{list_at, opt_str, present, str_at};
use kadmit_schema::field_error::FieldError;
use kadmit_schema::objectmeta::{dns1035_label_errors, dns1123_subdomain_errors};
use serde_json::Value;

/// `supportedFailurePolicies.List()` (sorted).
const FAILURE_POLICIES: [&str; 2] = ["Fail", "Ignore"];
/// `supportedReinvocationPolicies.List()` (sorted).
const REINVOCATION_POLICIES: [&str; 2] = ["IfNeeded", "Never"];
/// The MAP patch types (sorted).
const PATCH_TYPES: [&str; 2] = ["ApplyConfiguration", "JSONPatch"];

/// The checks both policy kinds share, in upstream order: failurePolicy, paramKind,
/// matchConstraints (with ≥1 resourceRule), matchConditions, variables.
fn common(spec: &Value, errors: &mut Vec<FieldError>) -> Scope {
    match opt_str(spec, "failurePolicy") {
        None => errors.push(FieldError::required("spec.failurePolicy", "")),
        Some(p) if !FAILURE_POLICIES.contains(&p) => {
            errors.push(not_supported("spec.failurePolicy", p, &FAILURE_POLICIES))
        }
        Some(_) => {}
    }
    if let Some(pk) = present(spec, "paramKind") {
        param_kind(pk, "spec.paramKind", errors);
    }
    match present(spec, "matchConstraints") {
        None => errors.push(FieldError::required("spec.matchConstraints", "")),
        Some(mc) => {
            match_resources(Some(mc), "spec.matchConstraints", errors);
            // "at least one resourceRule must be defined to provide type information"
            if list_at(mc, "resourceRules").is_empty() {
                errors.push(FieldError::required(
                    "spec.matchConstraints.resourceRules",
                    "",
                ));
            }
        }
    }
    let params = present(spec, "paramKind").is_some();
    match_conditions(
        list_at(spec, "matchConditions"),
        "spec.matchConditions",
        &Scope {
            params,
            variables: Vec::new(),
        },
        errors,
    );
    let variables = variables(list_at(spec, "variables"), "spec.variables", params, errors);
    Scope { params, variables }
}

/// `validateValidatingAdmissionPolicySpec`; `name` is the policy's `metadata.name` (audit
/// annotation keys are qualified by it).
pub fn validating(name: &str, spec: &Value, errors: &mut Vec<FieldError>) {
    let scope = common(spec, errors);
    let validations = list_at(spec, "validations");
    let annotations = list_at(spec, "auditAnnotations");
    if validations.is_empty() && annotations.is_empty() {
        const DETAIL: &str = "validations or auditAnnotations must contain at least one item";
        errors.push(FieldError::required("spec.validations", DETAIL));
        errors.push(FieldError::required("spec.auditAnnotations", DETAIL));
        return;
    }
    for (i, v) in validations.iter().enumerate() {
        validation(v, &format!("spec.validations[{i}]"), &scope, errors);
    }
    audit_annotations(name, annotations, "spec.auditAnnotations", &scope, errors);
}

/// MutatingAdmissionPolicy spec (derived, see the module doc).
pub fn mutating(spec: &Value, errors: &mut Vec<FieldError>) {
    common(spec, errors);
    let mutations = list_at(spec, "mutations");
    if mutations.is_empty() {
        errors.push(FieldError::required(
            "spec.mutations",
            "mutations must contain at least one item",
        ));
    }
    for (i, m) in mutations.iter().enumerate() {
        mutation(m, &format!("spec.mutations[{i}]"), errors);
    }
    match opt_str(spec, "reinvocationPolicy") {
        None | Some("") => errors.push(FieldError::required("spec.reinvocationPolicy", "")),
        Some(p) if !REINVOCATION_POLICIES.contains(&p) => errors.push(not_supported(
            "spec.reinvocationPolicy",
            p,
            &REINVOCATION_POLICIES,
        )),
        Some(_) => {}
    }
}

/// One mutation: a supported patchType whose matching member is set with an expression,
/// and not the other member (derived).
fn mutation(m: &Value, path: &str, errors: &mut Vec<FieldError>) {
    let patch_type = str_at(m, "patchType");
    let (own, other) = match patch_type {
        "" => {
            errors.push(FieldError::required(format!("{path}.patchType"), ""));
            return;
        }
        "ApplyConfiguration" => ("applyConfiguration", "jsonPatch"),
        "JSONPatch" => ("jsonPatch", "applyConfiguration"),
        t => {
            errors.push(not_supported(&format!("{path}.patchType"), t, &PATCH_TYPES));
            return;
        }
    };
    match present(m, own) {
        None => errors.push(FieldError::required(
            format!("{path}.{own}"),
            format!("must be specified when patchType is {patch_type}"),
        )),
        Some(body) if str_at(body, "expression").trim().is_empty() => {
            errors.push(FieldError::required(
                format!("{path}.{own}.expression"),
                "expression is not specified",
            ))
        }
        Some(_) => {}
    }
    if present(m, other).is_some() {
        errors.push(FieldError::forbidden(
            format!("{path}.{other}"),
            format!("must not be specified when patchType is {patch_type}"),
        ));
    }
}

/// `validateParamKind`: `apiVersion` is `group/version` or `version` with a DNS-1123
/// subdomain group and a DNS-1035 version; `kind` a DNS-1035 label up to case.
fn param_kind(pk: &Value, path: &str, errors: &mut Vec<FieldError>) {
    let api_version = str_at(pk, "apiVersion");
    let at = format!("{path}.apiVersion");
    if api_version.is_empty() {
        errors.push(FieldError::required(&at, ""));
    } else if api_version.matches('/').count() > 1 {
        errors.push(FieldError::invalid(
            &at,
            Value::from(api_version),
            format!("unexpected GroupVersion string: {api_version}"),
        ));
    } else {
        // parseGroupVersion: "/" is the empty group version.
        let (group, version) = if api_version == "/" {
            ("", "")
        } else {
            api_version.split_once('/').unwrap_or(("", api_version))
        };
        if !group.is_empty() {
            let errs = dns1123_subdomain_errors(group);
            if !errs.is_empty() {
                errors.push(FieldError::invalid(&at, Value::from(group), errs.join(",")));
            }
        }
        if version.is_empty() {
            errors.push(FieldError::invalid(
                &at,
                Value::from(api_version),
                "version must be specified",
            ));
        } else {
            let errs = dns1035_label_errors(version);
            if !errs.is_empty() {
                errors.push(FieldError::invalid(
                    &at,
                    Value::from(version),
                    errs.join(","),
                ));
            }
        }
    }
    let kind = str_at(pk, "kind");
    if kind.is_empty() {
        errors.push(FieldError::required(format!("{path}.kind"), ""));
    } else {
        let errs = dns1035_label_errors(&kind.to_lowercase());
        if !errs.is_empty() {
            errors.push(FieldError::invalid(
                format!("{path}.kind"),
                Value::from(kind),
                format!(
                    "may have mixed case, but should otherwise match: {}",
                    errs.join(",")
                ),
            ));
        }
    }
}
