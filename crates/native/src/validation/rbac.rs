//! rbac.authorization.k8s.io/v1 (`pkg/apis/rbac/validation`): rules of Role and
//! ClusterRole, roleRef and subjects of the bindings.

use super::labels::validate_selector;
use super::util::{child, get, index, invalid_each, list, not_supported, str_of, Errors};
use super::Minor;
use kadmit_schema::field_error::FieldError;
use kadmit_schema::objectmeta::{dns1123_subdomain_errors, NameRule};
use serde_json::{json, Value};

const GROUP: &str = "rbac.authorization.k8s.io";

/// `ValidatePolicyRule`.
fn rules(obj: &Value, namespaced: bool, errs: &mut Errors) {
    for (i, rule) in list(obj, "rules").iter().enumerate() {
        let at = index("rules", i);
        if list(rule, "verbs").is_empty() {
            errs.push(FieldError::required(
                child(&at, "verbs"),
                "verbs must contain at least one value",
            ));
        }
        let urls = list(rule, "nonResourceURLs");
        if !urls.is_empty() {
            let up = child(&at, "nonResourceURLs");
            if namespaced {
                errs.push(FieldError::invalid(
                    &up,
                    json!(urls),
                    "namespaced rules cannot apply to non-resource URLs",
                ));
            }
            if ["apiGroups", "resources", "resourceNames"]
                .iter()
                .any(|k| !list(rule, k).is_empty())
            {
                errs.push(FieldError::invalid(
                    &up,
                    json!(urls),
                    "rules cannot apply to both regular resources and non-resource URLs",
                ));
            }
            continue;
        }
        if list(rule, "apiGroups").is_empty() {
            errs.push(FieldError::required(
                child(&at, "apiGroups"),
                "resource rules must supply at least one api group",
            ));
        }
        if list(rule, "resources").is_empty() {
            errs.push(FieldError::required(
                child(&at, "resources"),
                "resource rules must supply at least one resource",
            ));
        }
    }
}

pub fn role(obj: &Value, _minor: Minor) -> Errors {
    let mut errs = Errors::new();
    rules(obj, true, &mut errs);
    errs
}

pub fn cluster_role(obj: &Value, _minor: Minor) -> Errors {
    let mut errs = Errors::new();
    rules(obj, false, &mut errs);
    if let Some(agg) = get(obj, "aggregationRule") {
        let sels = list(agg, "clusterRoleSelectors");
        if sels.is_empty() {
            errs.push(FieldError::required(
                "aggregationRule.clusterRoleSelectors",
                "at least one clusterRoleSelector required if aggregationRule is non-nil",
            ));
        }
        for (i, s) in sels.iter().enumerate() {
            validate_selector(
                Some(s),
                &index("aggregationRule.clusterRoleSelectors", i),
                &mut errs,
            );
        }
    }
    errs
}

fn binding(obj: &Value, namespaced: bool, kinds: &[&str]) -> Errors {
    let mut errs = Errors::new();
    let empty = json!({});
    let role_ref = get(obj, "roleRef").unwrap_or(&empty);
    let group = str_of(role_ref, "apiGroup");
    if group != GROUP {
        errs.push(not_supported("roleRef.apiGroup", json!(group), &[GROUP]));
    }
    let kind = str_of(role_ref, "kind");
    if !kinds.contains(&kind) {
        errs.push(not_supported("roleRef.kind", json!(kind), kinds));
    }
    let name = str_of(role_ref, "name");
    if name.is_empty() {
        errs.push(FieldError::required("roleRef.name", ""));
    } else {
        invalid_each(
            "roleRef.name",
            name,
            NameRule::PathSegment.errors(name, false),
            &mut errs,
        );
    }
    for (i, s) in list(obj, "subjects").iter().enumerate() {
        subject(s, namespaced, &index("subjects", i), &mut errs);
    }
    errs
}

/// `ValidateRoleBindingSubject`.
fn subject(s: &Value, namespaced: bool, at: &str, errs: &mut Errors) {
    let name = str_of(s, "name");
    if name.is_empty() {
        errs.push(FieldError::required(child(at, "name"), ""));
    }
    let group = str_of(s, "apiGroup");
    match str_of(s, "kind") {
        "ServiceAccount" => {
            if !name.is_empty() {
                invalid_each(
                    &child(at, "name"),
                    name,
                    dns1123_subdomain_errors(name),
                    errs,
                );
            }
            if !group.is_empty() {
                errs.push(not_supported(child(at, "apiGroup"), json!(group), &[""]));
            }
            if !namespaced && str_of(s, "namespace").is_empty() {
                errs.push(FieldError::required(child(at, "namespace"), ""));
            }
        }
        "User" | "Group" => {
            if group != GROUP {
                errs.push(not_supported(child(at, "apiGroup"), json!(group), &[GROUP]));
            }
        }
        other => errs.push(not_supported(
            child(at, "kind"),
            json!(other),
            &["ServiceAccount", "User", "Group"],
        )),
    }
}

pub fn role_binding(obj: &Value, _minor: Minor) -> Errors {
    binding(obj, true, &["Role", "ClusterRole"])
}

pub fn cluster_role_binding(obj: &Value, _minor: Minor) -> Errors {
    binding(obj, false, &["ClusterRole"])
}
