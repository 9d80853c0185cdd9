//! ValidatingAdmissionPolicy and MutatingAdmissionPolicy through the binary: every kind of
//! configuration error (exit 2) and every outcome (Deny → exit 1, Warn → a warning, Audit →
//! an info line and the report, MAP changes in the report, failurePolicy, params, userInfo,
//! the operation), with the server's texts. The upstream cases run in
//! `admission_policies_conformance`; these pin what the user sees around them.

use predicates::prelude::*;
use serde_json::Value;

mod common;

use common::{kadmit_isolated as kadmit, write};

/// A synthetic Deployment (admitted without built-in admission, which is not tested here).
const DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels: {team: a}
spec:
  replicas: 5
";

fn vap(name: &str, spec_tail: &str) -> String {
    format!(
        "apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: {name}
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [apps]
      apiVersions: [v1]
      operations: [CREATE, UPDATE, DELETE]
      resources: [deployments]
{spec_tail}---
"
    )
}

fn binding(name: &str, policy: &str, actions: &str, tail: &str) -> String {
    format!(
        "apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: {name}
spec:
  policyName: {policy}
  validationActions: {actions}
{tail}---
"
    )
}

const MAX_3: &str = "  validations:
  - expression: object.spec.replicas <= 3
    message: too many replicas
";

fn transform(args: &[&str], stdin: String) -> assert_cmd::assert::Assert {
    let mut cmd = kadmit();
    cmd.args(["transform", "--no-builtins"]).args(args);
    cmd.write_stdin(stdin).assert()
}

#[test]
fn deny_refuses_the_resource_with_the_servers_message() {
    let stdin = vap("max", MAX_3) + &binding("max", "max", "[Deny]", "") + DEPLOYMENT;
    transform(&[], stdin).code(1).stdout("").stderr(predicate::str::contains(
        "error: Deployment shop/web: ValidatingAdmissionPolicy 'max' with binding 'max' denied request: too many replicas",
    ));
}

#[test]
fn a_denial_names_its_policy_and_binding_as_the_rule_in_reports_not_twice_on_the_line() {
    let stdin = vap("max", MAX_3) + &binding("max-b", "max", "[Deny]", "") + DEPLOYMENT;
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    transform(&["--report", report.to_str().unwrap()], stdin)
        .code(1)
        .stderr(predicate::str::contains(
            "denied request: too many replicas [",
        ))
        .stderr(predicate::str::contains("(ValidatingAdmissionPolicy max").not());
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let rules: Vec<&Value> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| &d["rule"])
        .collect();
    assert_eq!(
        rules,
        [&Value::from(
            "ValidatingAdmissionPolicy max (binding max-b)"
        )],
        "{report}"
    );
}

#[test]
fn warn_and_audit_report_without_refusing() {
    let stdin = vap("max", MAX_3) + &binding("max", "max", "[Warn, Audit]", "") + DEPLOYMENT;
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let assert = transform(&["--report", report.to_str().unwrap()], stdin)
        .success()
        .stdout(predicate::str::contains("name: web"))
        .stderr(predicate::str::contains(
            "warning: Deployment shop/web: Validation failed for ValidatingAdmissionPolicy 'max' with binding 'max': too many replicas",
        ))
        .stderr(predicate::str::contains(
            "info: Deployment shop/web: audit annotation validation.policy.admission.k8s.io/validation_failure: [{\"message\":\"too many replicas\",\"policy\":\"max\",\"binding\":\"max\",\"expressionIndex\":0,\"validationActions\":[\"Warn\",\"Audit\"]}]",
        ));
    drop(assert);
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let text = report.to_string();
    assert!(
        text.contains("validation.policy.admission.k8s.io/validation_failure"),
        "{text}"
    );
}

#[test]
fn message_expressions_and_policy_audit_annotations() {
    let spec = "  validations:
  - expression: object.spec.replicas <= 3
    messageExpression: \"'replicas ' + string(object.spec.replicas) + ' > 3'\"
    reason: Forbidden
  auditAnnotations:
  - key: replicas
    valueExpression: string(object.spec.replicas)
";
    let stdin = vap("max", spec) + &binding("max", "max", "[Deny]", "") + DEPLOYMENT;
    transform(&[], stdin)
        .code(1)
        .stderr(predicate::str::contains("denied request: replicas 5 > 3"))
        .stderr(predicate::str::contains("audit annotation max/replicas: 5"));
}

#[test]
fn params_are_looked_up_in_the_configuration_and_the_stream() {
    let spec = "  paramKind: {apiVersion: v1, kind: ConfigMap}
  validations:
  - expression: object.spec.replicas <= int(params.data.max)
    messageExpression: \"'at most ' + params.data.max\"
";
    let policy = vap("max", spec)
        + &binding(
            "max",
            "max",
            "[Deny]",
            "  paramRef: {name: limits, parameterNotFoundAction: Deny}\n",
        );
    let limits = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: limits, namespace: shop}\ndata: {max: \"4\"}\n";
    // In the stream: the param is in the request's namespace.
    transform(&[], policy.clone() + limits + "---\n" + DEPLOYMENT)
        .code(1)
        .stderr(predicate::str::contains("denied request: at most 4"));
    // In a configuration file.
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "limits.yaml", &limits.replace("\"4\"", "\"9\""));
    transform(
        &["--config", file.to_str().unwrap()],
        policy.clone() + DEPLOYMENT,
    )
    .success();
    // Missing, with parameterNotFoundAction Deny: the server's configuration error.
    transform(&[], policy + DEPLOYMENT).code(1).stderr(predicate::str::contains(
        "ValidatingAdmissionPolicy 'max' with binding 'max' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
    ));
}

#[test]
fn failure_policy_decides_what_an_evaluation_error_does() {
    let spec = |failure: &str| {
        format!(
            "  failurePolicy: {failure}
  validations:
  - expression: object.spec.missing == 1
"
        )
    };
    let stdin =
        |failure: &str| vap("p", &spec(failure)) + &binding("p", "p", "[Deny]", "") + DEPLOYMENT;
    transform(&[], stdin("Fail")).code(1).stderr(predicate::str::contains(
        "ValidatingAdmissionPolicy 'p' with binding 'p' denied request: expression 'object.spec.missing == 1' resulted in error: no such key: missing",
    ));
    transform(&[], stdin("Ignore")).success();
}

#[test]
fn user_info_and_operation_reach_the_request() {
    let spec = "  validations:
  - expression: \"request.userInfo.username == 'ci-bot' && 'deployers' in request.userInfo.groups\"
    message: not the deploy bot
  - expression: request.operation != 'DELETE' || object == null
    message: object on DELETE
";
    let stdin = vap("who", spec) + &binding("who", "who", "[Deny]", "") + DEPLOYMENT;
    transform(&["--user", "ci-bot", "--group", "deployers"], stdin.clone()).success();
    transform(&["--user", "someone"], stdin.clone())
        .code(1)
        .stderr(predicate::str::contains(
            "denied request: not the deploy bot",
        ));
    transform(
        &[
            "--user",
            "ci-bot",
            "--group",
            "deployers",
            "--operation",
            "DELETE",
        ],
        stdin,
    )
    .success();
}

#[test]
fn a_policy_without_a_binding_does_nothing_and_policies_in_the_stream_are_consumed() {
    transform(&[], vap("max", MAX_3) + DEPLOYMENT)
        .success()
        .stdout(predicate::str::contains("ValidatingAdmissionPolicy").not())
        .stderr("info: 1 rule matched no object: ValidatingAdmissionPolicy max (no binding)\n");
    transform(&["--keep-config"], vap("max", MAX_3) + DEPLOYMENT)
        .success()
        .stdout(predicate::str::contains("kind: ValidatingAdmissionPolicy"));
}

#[test]
fn bindings_that_applied_to_no_object_are_reported_with_the_rules_that_matched_nothing() {
    // `deployment` for `deployments`: the server accepts the policy, which then never
    // applies; a binding may name a policy that is not there.
    let typo = vap("typo", MAX_3).replace("[deployments]", "[deployment]");
    let stream = typo
        + &binding("typo", "typo", "[Deny]", "")
        + &vap("max", MAX_3)
        + &binding("max", "max", "[Deny]", "")
        + &binding("orphan", "gone", "[Deny]", "")
        + DEPLOYMENT.replace("replicas: 5", "replicas: 2").as_str();
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    transform(&["--report", report.to_str().unwrap()], stream)
        .success()
        .stderr(
            "info: 2 rules matched no object: ValidatingAdmissionPolicy typo (binding typo), \
             ValidatingAdmissionPolicy gone (binding orphan: no such policy)\n",
        );
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let rules: Vec<&str> = report["unmatchedRules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["rule"].as_str().unwrap())
        .collect();
    assert_eq!(
        rules,
        [
            "ValidatingAdmissionPolicy typo (binding typo)",
            "ValidatingAdmissionPolicy gone (binding orphan: no such policy)"
        ]
    );
}

#[test]
fn configuration_errors_name_the_object_and_every_field() {
    // Refused on create: every field error at once, in kubectl's envelope, exit 2.
    let spec = "  failurePolicy: Sometimes
  validations:
  - expression: object.spec.replicas <=
";
    let stdin = vap("bad", spec) + &binding("bad", "bad", "[Deny, Warn]", "") + DEPLOYMENT;
    transform(&[], stdin)
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "error: The ValidatingAdmissionPolicy \"bad\" is invalid: \n* spec.failurePolicy: Unsupported value: \"Sometimes\": supported values: \"Fail\", \"Ignore\"\n* spec.validations[0].expression: Invalid value: \"object.spec.replicas <=\": compilation failed: ERROR: <input>:1:24: Syntax error:",
        ))
        .stderr(predicate::str::contains(
            "error: The ValidatingAdmissionPolicyBinding \"bad\" is invalid: spec.validationActions: Invalid value: []admissionregistration.ValidationAction{\"Deny\", \"Warn\"}: must not contain both Deny and Warn",
        ));
    // Strictly decoded: an unknown field is refused with the server's text.
    let stdin = vap("typo", &format!("  validationz: []\n{MAX_3}")) + DEPLOYMENT;
    transform(&[], stdin).code(2).stderr(predicate::str::contains(
        "ValidatingAdmissionPolicy in version \"v1\" cannot be handled as a ValidatingAdmissionPolicy: strict decoding error: unknown field \"spec.validationz\"",
    ));
    // A version kadmit does not read.
    let stdin = vap("old", MAX_3).replace(
        "admissionregistration.k8s.io/v1",
        "admissionregistration.k8s.io/v1alpha1",
    ) + DEPLOYMENT;
    transform(&["--config", "/dev/null"], stdin).code(2).stderr(predicate::str::contains(
        "admissionregistration.k8s.io/v1alpha1 ValidatingAdmissionPolicy is not a version kadmit reads (known: v1, v1beta1)",
    ));
}

fn map(name: &str, failure: &str, mutation: &str) -> String {
    format!(
        "apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicy
metadata:
  name: {name}
spec:
  failurePolicy: {failure}
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
    - apiGroups: [apps]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [deployments]
  mutations:
{mutation}---
apiVersion: admissionregistration.k8s.io/v1beta1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: {name}
spec:
  policyName: {name}
---
"
    )
}

#[test]
fn mutations_are_written_and_recorded_per_policy_and_binding() {
    let apply = "  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: \"Object{metadata: Object.metadata{labels: {'checked': 'yes'}}}\"
";
    let patch = "  - patchType: JSONPatch
    jsonPatch:
      expression: \"[JSONPatch{op: 'replace', path: '/spec/replicas', value: 2}]\"
";
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    transform(
        &["--report", report.to_str().unwrap(), "--annotate"],
        map("label", "Fail", apply) + &map("scale", "Fail", patch) + DEPLOYMENT,
    )
    .success()
    .stdout(predicate::str::contains("checked: \"yes\""))
    .stdout(predicate::str::contains("replicas: 2"))
    .stdout(predicate::str::contains(
        "kadmit.dev/changed-by: MutatingAdmissionPolicy label (binding label), MutatingAdmissionPolicy scale (binding scale)",
    ));
    let text = std::fs::read_to_string(&report).unwrap();
    assert!(text.contains("/spec/replicas"), "{text}");
    assert!(
        text.contains("MutatingAdmissionPolicy scale (binding scale)"),
        "{text}"
    );
}

#[test]
fn a_mutation_the_server_refuses_refuses_the_resource_unless_ignored() {
    let atomic = "  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: \"Object{spec: Object.spec{selector: Object.spec.selector{matchLabels: {'a': 'b'}}}}\"
";
    transform(&[], map("sel", "Fail", atomic) + DEPLOYMENT)
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains(
            "error: Deployment shop/web: policy 'sel' with binding 'sel' denied request: error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector",
        ));
    transform(&[], map("sel", "Ignore", atomic) + DEPLOYMENT)
        .success()
        .stdout(predicate::str::contains("matchLabels").not());
}

#[test]
fn an_expression_over_its_cost_limit_is_stopped_with_the_servers_message() {
    // 1,500 × 1,500 comparisons: past the 1,000,000 per-expression limit.
    let items: Vec<String> = (0..1500).map(|i| i.to_string()).collect();
    let thing = format!(
        "apiVersion: example.com/v1\nkind: Thing\nmetadata: {{name: big}}\nitems: [{}]\n",
        items.join(", ")
    );
    let stdin = format!(
        "apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: quadratic
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [example.com]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [things]
  validations:
  - expression: object.items.all(x, object.items.all(y, x == y || x != y))
---
{}{thing}",
        binding("quadratic", "quadratic", "[Deny]", "")
    );
    transform(&[], stdin).code(1).stderr(predicate::str::contains(
        "ValidatingAdmissionPolicy 'quadratic' with binding 'quadratic' denied request: expression 'object.items.all(x, object.items.all(y, x == y || x != y))' resulted in error: operation cancelled: actual cost limit exceeded",
    ));
}
