//! Rules the upstream fixture cases do not reach: bindings, paramRef, selectors,
//! wildcards, MutatingAdmissionPolicy, defaults and dispatch. Expected texts follow
//! validation.go and apimachinery's `field.Error` rendering.

use super::validate_policy;
use serde_json::{json, Value};

fn errors(object: Value) -> Vec<String> {
    validate_policy(&object)
        .iter()
        .map(ToString::to_string)
        .collect()
}

fn vap(spec: Value) -> Value {
    json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
           "metadata": {"name": "p"}, "spec": spec})
}

fn rules() -> Value {
    json!({"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                              "operations": ["CREATE"], "resources": ["pods"]}]})
}

fn vapb(spec: Value) -> Value {
    json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
           "metadata": {"name": "b"}, "spec": spec})
}

#[test]
fn a_minimal_valid_policy_and_binding_pass_after_defaulting() {
    assert_eq!(
        errors(vap(
            json!({"matchConstraints": rules(), "validations": [{"expression": "true"}]})
        )),
        Vec::<String>::new()
    );
    assert_eq!(
        errors(vapb(
            json!({"policyName": "p", "validationActions": ["Deny"]})
        )),
        Vec::<String>::new()
    );
}

#[test]
fn other_kinds_and_versions_are_not_checked() {
    assert!(validate_policy(&json!({"apiVersion": "v1", "kind": "ConfigMap"})).is_empty());
    let mut p = vap(json!({}));
    p["apiVersion"] = json!("admissionregistration.k8s.io/v2");
    assert!(validate_policy(&p).is_empty());
    p["apiVersion"] = json!("admissionregistration.k8s.io/v1beta1");
    assert!(!validate_policy(&p).is_empty());
}

#[test]
fn binding_validation_actions() {
    assert_eq!(
        errors(vapb(json!({"policyName": "p", "validationActions": ["Deny", "Warn", "Deny", "Log"]}))),
        vec![
            "spec.validationActions[2]: Duplicate value: \"Deny\"",
            "spec.validationActions[3]: Unsupported value: \"Log\": supported values: \"Audit\", \"Deny\", \"Warn\"",
            "spec.validationActions: Invalid value: []admissionregistration.ValidationAction{\"Deny\", \"Warn\", \"Deny\", \"Log\"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)",
        ]
    );
    assert_eq!(
        errors(vapb(json!({}))),
        vec![
            "spec.policyName: Required value",
            "spec.validationActions: Required value: at least one validation action is required",
        ]
    );
}

#[test]
fn binding_param_ref() {
    let both = json!({"policyName": "p", "validationActions": ["Audit"],
        "paramRef": {"name": "x", "selector": {}, "parameterNotFoundAction": "Maybe"}});
    assert_eq!(
        errors(vapb(both)),
        vec![
            "spec.paramRef.name: Forbidden: name and selector are mutually exclusive",
            "spec.paramRef.selector: Forbidden: name and selector are mutually exclusive",
            "spec.paramRef.parameterNotFoundAction: Unsupported value: \"Maybe\": supported values: \"Deny\", \"Allow\"",
        ]
    );
    let neither = json!({"policyName": "p", "validationActions": ["Audit"], "paramRef": {}});
    assert_eq!(
        errors(vapb(neither.clone())),
        vec![
            "spec.paramRef: Required value: one of name or selector must be specified",
            "spec.paramRef.parameterNotFoundAction: Required value",
        ]
    );
    // v1alpha1 defaults parameterNotFoundAction to Deny.
    let mut alpha = vapb(neither);
    alpha["apiVersion"] = json!("admissionregistration.k8s.io/v1alpha1");
    assert_eq!(
        errors(alpha),
        vec!["spec.paramRef: Required value: one of name or selector must be specified"]
    );
}

#[test]
fn binding_match_resources_path_keeps_upstreams_typo() {
    let spec = json!({"policyName": "p", "validationActions": ["Deny"],
        "matchResources": {"matchPolicy": "Loose",
            "namespaceSelector": {"matchExpressions": [{"key": "a", "operator": "In"}]}}});
    assert_eq!(
        errors(vapb(spec)),
        vec![
            "spec.matchResouces.matchPolicy: Unsupported value: \"Loose\": supported values: \"Equivalent\", \"Exact\"",
            "spec.matchResouces.namespaceSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
        ]
    );
}

#[test]
fn selectors_are_strict() {
    let mut mc = rules();
    mc["objectSelector"] = json!({"matchLabels": {"a": "b c"},
        "matchExpressions": [{"key": "-k", "operator": "Exists", "values": ["x"]},
                             {"key": "k", "operator": "Has", "values": ["$"]}]});
    let got = errors(vap(
        json!({"matchConstraints": mc, "validations": [{"expression": "true"}]}),
    ));
    assert_eq!(got.len(), 5, "{got:#?}");
    assert!(got[0].starts_with("spec.matchConstraints.objectSelector.matchLabels: Invalid value: \"b c\": a valid label must be"));
    assert_eq!(got[1], "spec.matchConstraints.objectSelector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
    assert!(got[2].starts_with(
        "spec.matchConstraints.objectSelector.matchExpressions[0].key: Invalid value: \"-k\": name part must consist"
    ));
    assert_eq!(got[3], "spec.matchConstraints.objectSelector.matchExpressions[1].operator: Invalid value: \"Has\": not a valid selector operator");
    assert!(got[4].starts_with(
        "spec.matchConstraints.objectSelector.matchExpressions[1].values[0]: Invalid value: \"$\""
    ));
}

#[test]
fn rule_wildcards_and_scope() {
    let mc = json!({"resourceRules": [{"apiGroups": ["*", "apps"], "apiVersions": ["v1", ""],
        "operations": ["*", "CREATE"], "resources": ["pods", ""], "scope": "Global"}]});
    assert_eq!(
        errors(vap(json!({"matchConstraints": mc, "validations": [{"expression": "true"}]}))),
        vec![
            "spec.matchConstraints.resourceRules[0].operations: Invalid value: []admissionregistration.OperationType{\"*\", \"CREATE\"}: if '*' is present, must not specify other operations",
            "spec.matchConstraints.resourceRules[0].apiGroups: Invalid value: []string{\"*\", \"apps\"}: if '*' is present, must not specify other API groups",
            "spec.matchConstraints.resourceRules[0].apiVersions[1]: Required value",
            "spec.matchConstraints.resourceRules[0].resources[1]: Required value",
            "spec.matchConstraints.resourceRules[0].scope: Unsupported value: \"Global\": supported values: \"*\", \"Cluster\", \"Namespaced\"",
        ]
    );
}

#[test]
fn validations_messages_and_match_conditions() {
    let spec = json!({"matchConstraints": rules(),
        "matchConditions": [{"name": "a", "expression": "true"}, {"name": "a", "expression": " "},
                            {"name": "b!", "expression": "true"}],
        "variables": [{"name": "in", "expression": "1"}, {"name": "ok", "expression": ""}],
        "validations": [{"expression": "true", "message": "two\nlines", "messageExpression": "  "},
                        {"expression": "true", "message": "  ", "reason": "Unauthorized"}]});
    let got = errors(vap(spec));
    assert_eq!(got[0], "spec.matchConditions[1].expression: Required value");
    assert_eq!(
        got[1],
        "spec.matchConditions[1].name: Duplicate value: \"a\""
    );
    assert!(got[2].starts_with(
        "spec.matchConditions[2].name: Invalid value: \"b!\": name part must consist"
    ));
    assert_eq!(
        got[3..],
        [
            "spec.variables[0].name: Invalid value: \"in\": name is not a valid CEL identifier",
            "spec.variables[1].expression: Required value: expression is not specified",
            "spec.validations[0].messageExpression: Invalid value: \"  \": must be non-empty if specified",
            "spec.validations[0].message: Invalid value: \"two\\nlines\": message must not contain line breaks",
            "spec.validations[1].message: Invalid value: \"  \": message must be non-empty if specified",
            "spec.validations[1].reason: Unsupported value: \"Unauthorized\": supported values: \"Forbidden\", \"Invalid\", \"RequestEntityTooLarge\"",
        ]
    );
}

#[test]
fn too_many_match_conditions_and_audit_annotations() {
    let conditions: Vec<Value> = (0..65)
        .map(|i| json!({"name": format!("c{i}"), "expression": "true"}))
        .collect();
    let annotations: Vec<Value> = (0..21)
        .map(|i| json!({"key": format!("k{i}"), "valueExpression": "'x'"}))
        .collect();
    let got = errors(vap(json!({"matchConstraints": rules(),
        "matchConditions": conditions, "auditAnnotations": annotations})));
    assert_eq!(got.len(), 2, "{got:#?}");
    assert_eq!(
        got[0],
        "spec.matchConditions: Too many: 65: must have at most 64 items"
    );
    assert!(got[1].starts_with("spec.auditAnnotations: Invalid value: []admissionregistration.AuditAnnotation{admissionregistration.AuditAnnotation{Key:\"k0\", ValueExpression:\"'x'\"}, "));
    assert!(got[1].ends_with("}: must not have more than 20 auditAnnotations"));
}

#[test]
fn audit_annotation_value_expression_limits() {
    let long = "a".repeat(5 * 1024 + 1);
    let spec = json!({"matchConstraints": rules(),
        "auditAnnotations": [{"key": "k"}, {"key": "l", "valueExpression": long}]});
    assert_eq!(
        errors(vap(spec)),
        vec![
            "spec.auditAnnotations[0].valueExpression: Required value: valueExpression is not specified",
            "spec.auditAnnotations[1].valueExpression: Required value: must not exceed 5120 bytes in length",
        ]
    );
}

#[test]
fn param_kind_forms() {
    let spec = |pk: Value| {
        json!({"paramKind": pk, "matchConstraints": rules(),
        "validations": [{"expression": "true"}]})
    };
    assert_eq!(
        errors(vap(spec(json!({"apiVersion": "a/b/c", "kind": "Foo"})))),
        vec!["spec.paramKind.apiVersion: Invalid value: \"a/b/c\": unexpected GroupVersion string: a/b/c"]
    );
    assert_eq!(
        errors(vap(spec(json!({"apiVersion": "example.com/", "kind": "Foo_Bar"})))),
        vec![
            "spec.paramKind.apiVersion: Invalid value: \"example.com/\": version must be specified",
            "spec.paramKind.kind: Invalid value: \"Foo_Bar\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
        ]
    );
    assert_eq!(
        errors(vap(spec(json!({"apiVersion": "v1", "kind": "ConfigMap"})))),
        Vec::<String>::new()
    );
}

fn map(spec: Value) -> Value {
    json!({"apiVersion": "admissionregistration.k8s.io/v1beta1", "kind": "MutatingAdmissionPolicy",
           "metadata": {"name": "m"}, "spec": spec})
}

#[test]
fn mutating_policy() {
    let ok = json!({"matchConstraints": rules(), "mutations": [
        {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": "Object{}"}}]});
    assert_eq!(errors(map(ok)), Vec::<String>::new());
    let bad = json!({"matchConstraints": rules(), "reinvocationPolicy": "Always", "mutations": [
        {"patchType": "JSONPatch", "applyConfiguration": {"expression": "Object{}"}},
        {"patchType": "Merge"}, {}]});
    assert_eq!(
        errors(map(bad)),
        vec![
            "spec.mutations[0].jsonPatch: Required value: must be specified when patchType is JSONPatch",
            "spec.mutations[0].applyConfiguration: Forbidden: must not be specified when patchType is JSONPatch",
            "spec.mutations[1].patchType: Unsupported value: \"Merge\": supported values: \"ApplyConfiguration\", \"JSONPatch\"",
            "spec.mutations[2].patchType: Required value",
            "spec.reinvocationPolicy: Unsupported value: \"Always\": supported values: \"IfNeeded\", \"Never\"",
        ]
    );
    assert_eq!(
        errors(map(json!({"matchConstraints": {}}))),
        vec![
            "spec.matchConstraints.resourceRules: Required value",
            "spec.mutations: Required value: mutations must contain at least one item",
        ]
    );
}

#[test]
fn mutating_binding_has_no_validation_actions() {
    let b = json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding",
        "metadata": {"name": "b", "namespace": "x"}, "spec": {"policyName": "Bad_Name"}});
    let got = errors(b);
    assert_eq!(got.len(), 2, "{got:#?}");
    assert!(
        got[0].starts_with("metadata.namespace: Forbidden"),
        "{got:#?}"
    );
    assert!(got[1].starts_with(
        "spec.policyName: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain"
    ));
}

#[test]
fn plain_resource_flag_is_assigned_not_accumulated() {
    // validateResources sets hasResourceWithoutSubresource = resSub != "*" on every plain
    // entry, so `["a", "*"]` passes while `["*", "a"]` is refused.
    let mut errors = Vec::new();
    super::rules::resources(&["a", "*"], "r", &mut errors);
    assert!(errors.is_empty());
    super::rules::resources(&["*", "a"], "r", &mut errors);
    assert_eq!(
        errors[0].to_string(),
        "r: Invalid value: []string{\"*\", \"a\"}: if '*' is present, must not specify other resources without subresources"
    );
}
