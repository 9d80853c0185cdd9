//! ModRules through the binary: bad rules are configuration errors naming rule, field and
//! position; good rules patch, reject, and show up in the report.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::{json, Value};

fn kadmit(args: &[&str], input: &str) -> assert_cmd::assert::Assert {
    Command::cargo_bin("kadmit")
        .unwrap()
        .args(args)
        .write_stdin(input)
        .assert()
}

fn rule(namespace: Option<&str>, name: &str, spec: &str) -> String {
    let ns = namespace.map_or(String::new(), |n| format!("  namespace: {n}\n"));
    format!("apiVersion: api.kubemod.io/v1beta1\nkind: ModRule\nmetadata:\n  name: {name}\n{ns}spec:\n{spec}---\n")
}

const POD: &str = "apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: team-a
spec:
  containers:
  - name: app
    image: nginx:1.14.2
";

fn stderr(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(a.get_output().stderr.clone()).unwrap()
}

fn stdout(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(a.get_output().stdout.clone()).unwrap()
}

fn bad_rule(spec: &str, expected: &[&str]) {
    let input = rule(Some("team-a"), "bad", spec) + POD;
    let a = kadmit(&["transform"], &input).code(2).stdout("");
    let err = stderr(&a);
    for e in expected {
        assert!(err.contains(e), "expected {e:?} in:\n{err}");
    }
}

#[test]
fn unparseable_select_names_rule_field_and_column() {
    bad_rule(
        "  type: Reject\n  match:\n  - select: '$.spec.containers[?(@.image == )]'\n",
        &["ModRule team-a/bad", "spec.match[0].select", "column"],
    );
}

#[test]
fn bad_regex_is_a_configuration_error() {
    bad_rule(
        "  type: Reject\n  match:\n  - select: '$.kind'\n    matchRegex: '(unclosed'\n",
        &[
            "ModRule team-a/bad",
            "spec.match[0].matchRegex",
            "invalid regular expression",
        ],
    );
}

#[test]
fn template_syntax_error_is_a_configuration_error() {
    bad_rule(
        "  type: Patch\n  match:\n  - select: '$.kind'\n  patch:\n  - op: add\n    path: /metadata/labels/x\n    value: '{{ .Target.metadata.name'\n",
        &["ModRule team-a/bad", "spec.patch[0].value", "unclosed action"],
    );
}

#[test]
fn forbidden_template_functions_are_refused_by_name() {
    for function in ["now", "randAlphaNum 5", "uuidv4", "env \"HOME\""] {
        let name = function.split(' ').next().unwrap();
        bad_rule(
            &format!("  type: Patch\n  match:\n  - select: '$.kind'\n  patch:\n  - op: add\n    path: /metadata/labels/x\n    value: '{{{{ {function} }}}}'\n"),
            &["ModRule team-a/bad", "spec.patch[0].value", &format!("\"{name}\"")],
        );
    }
}

#[test]
fn unknown_op_and_missing_fields_are_all_reported() {
    bad_rule(
        "  type: Patch\n  executionTier: 40000\n  match:\n  - select: '$.kind'\n    matchFor: Some\n  patch:\n  - op: move\n    path: /a\n  - op: add\n",
        &[
            "spec.patch[0].op: unsupported value \"move\"",
            "spec.patch[1].path: required value",
            "spec.match[0].matchFor",
            "spec.executionTier",
        ],
    );
    bad_rule(
        "  type: Reject\n  match: []\n",
        &["spec.match: required value"],
    );
    bad_rule(
        "  type: Reject\n  match:\n  - select: '$.kind'\n  patch:\n  - op: remove\n    path: /a\n",
        &["spec.patch: forbidden"],
    );
}

#[test]
fn patches_apply_and_are_reported_and_annotated() {
    let input = rule(
        Some("team-a"),
        "nonroot",
        "  type: Patch\n  match:\n  - select: '$.spec.containers[*].image'\n    matchRegex: 'nginx:1\\.14\\..*'\n  patch:\n  - op: add\n    path: /spec/securityContext\n    value: |-\n      runAsNonRoot: true\n      runAsUser: 101\n  - op: add\n    select: '$.spec.containers[*]'\n    path: /spec/containers/#0/imagePullPolicy\n    value: Always\n",
    ) + POD;
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("r.json");
    // The Pod is valid; the native defaults it would get (and their `defaults v1 Pod` entry
    // in the annotation and the report) would bury the two ModRule changes this test shows.
    let a = kadmit(
        &[
            "transform",
            "--no-defaults",
            "--annotate",
            "--report",
            report.to_str().unwrap(),
        ],
        &input,
    )
    .success();
    let out = stdout(&a);
    assert!(
        out.contains("securityContext:\n    runAsNonRoot: true\n    runAsUser: 101\n"),
        "{out}"
    );
    assert!(out.contains("imagePullPolicy: Always"), "{out}");
    assert!(
        out.contains("kadmit.dev/changed-by: ModRule team-a/nonroot"),
        "{out}"
    );
    let r: Value = serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    assert_eq!(
        r["changes"][0]["changes"],
        json!([
            {"path": "/spec/securityContext", "rule": "ModRule team-a/nonroot"},
            {"path": "/spec/containers/0/imagePullPolicy", "rule": "ModRule team-a/nonroot"}
        ])
    );
}

#[test]
fn reject_rules_see_the_patched_object_and_exit_1() {
    let input = rule(
        Some("team-a"),
        "label",
        "  type: Patch\n  match:\n  - select: '$.kind'\n    matchValue: Pod\n  patch:\n  - op: add\n    path: /metadata/labels/tier\n    value: frontend\n",
    ) + &rule(
        Some("team-a"),
        "no-frontend-pods",
        "  type: Reject\n  rejectMessage: 'pods may not be {{ .Target.metadata.labels.tier }} in {{ .Namespace }}'\n  match:\n  - select: '$.metadata.labels.tier'\n    matchValue: frontend\n",
    ) + &rule(Some("team-a"), "any-pod", "  type: Reject\n  match:\n  - select: '$.kind == \"Pod\"'\n")
        + POD;
    let a = kadmit(&["transform"], &input).code(1).stdout("");
    let err = stderr(&a);
    assert!(err.contains("Pod team-a/web: rejected by ModRule team-a/no-frontend-pods: \"pods may not be frontend in team-a\""), "{err}");
    assert!(err.contains("rejected by ModRule team-a/any-pod"), "{err}");
}

#[test]
fn tiers_run_lowest_first_and_match_on_the_tier_start() {
    let input = rule(
        None,
        "second",
        "  type: Patch\n  executionTier: 5\n  match:\n  - select: '$.metadata.labels.step'\n    matchValue: one\n  patch:\n  - op: replace\n    path: /metadata/labels/step\n    value: two\n",
    ) + &rule(
        None,
        "first",
        "  type: Patch\n  executionTier: -1\n  match:\n  - select: '$.kind'\n    matchValue: Pod\n  patch:\n  - op: add\n    path: /metadata/labels/step\n    value: one\n",
    ) + POD;
    kadmit(&["transform"], &input)
        .success()
        .stdout(predicate::str::contains("labels:\n    step: two\n"));
}

#[test]
fn operations_scope_and_cluster_rules() {
    let labeler = |ns: Option<&str>, name: &str, extra: &str| {
        rule(
            ns,
            name,
            &format!("  type: Patch\n{extra}  match:\n  - select: '$.kind'\n  patch:\n  - op: add\n    path: /metadata/labels/{name}\n    value: 'yes'\n"),
        )
    };
    let input = labeler(Some("team-a"), "same-ns", "")
        + &labeler(Some("team-b"), "other-ns", "")
        + &labeler(None, "everywhere", "")
        + &labeler(
            Some("kubemod-system"),
            "cluster-regex",
            "  targetNamespaceRegex: 'team-.*'\n",
        )
        + &labeler(Some("kubemod-system"), "cluster-only", "")
        + &labeler(
            Some("team-a"),
            "on-update",
            "  admissionOperations: [UPDATE]\n",
        )
        + POD;
    // The labels are set to the boolean `true` (`'yes'` read as YAML 1.1), not a valid label
    // value: a synthetic object, built-in admission is not what this test is about.
    let a = kadmit(&["transform", "--no-builtins"], &input).success();
    let out = stdout(&a);
    for present in ["same-ns: true", "everywhere: true", "cluster-regex: true"] {
        assert!(out.contains(present), "{present} missing:\n{out}");
    }
    for absent in ["other-ns", "cluster-only", "on-update"] {
        assert!(!out.contains(absent), "{absent} present:\n{out}");
    }
    let a = kadmit(
        &["transform", "--no-builtins", "--operation", "UPDATE"],
        &input,
    )
    .success();
    assert!(stdout(&a).contains("on-update: true"));
    // A namespaced resource without a namespace is matched in --namespace.
    let pod = POD.replace("  namespace: team-a\n", "");
    let a = kadmit(
        &["transform", "--no-builtins", "--namespace", "team-a"],
        &(labeler(Some("team-a"), "same-ns", "") + &pod),
    )
    .success();
    let out = stdout(&a);
    assert!(
        out.contains("same-ns: true") && !out.contains("namespace: team-a"),
        "{out}"
    );
}

#[test]
fn a_failing_rule_is_skipped_with_a_warning_or_fails_under_strict() {
    let input = rule(
        Some("team-a"),
        "broken",
        "  type: Patch\n  match:\n  - select: '$.kind'\n  patch:\n  - op: add\n    path: /metadata/labels/ok\n    value: x\n  - op: replace\n    path: /spec/missing\n    value: x\n",
    ) + POD;
    // The Pod is valid; only its native defaults would change the output, and this test
    // shows that the output is the input unchanged.
    let a = kadmit(&["transform", "--no-defaults"], &input)
        .success()
        .stdout(POD);
    assert!(
        stderr(&a).contains("warning: Pod team-a/web: rule skipped, it changed nothing"),
        "{}",
        stderr(&a)
    );
    kadmit(&["transform", "--no-defaults", "--strict"], &input)
        .code(1)
        .stdout("");
}

#[test]
fn the_namespace_object_is_a_synthetic_ref() {
    let ns = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-a\n  labels:\n    env: prod\n---\n";
    let input = rule(
        Some("team-a"),
        "prod-only",
        "  type: Patch\n  match:\n  - select: '$.syntheticRefs.namespace.metadata.labels.env'\n    matchValue: prod\n  patch:\n  - op: add\n    path: /metadata/labels/env\n    value: '{{ .Target.syntheticRefs.namespace.metadata.labels.env }}'\n",
    ) + ns + POD;
    let a = kadmit(&["transform"], &input).success();
    let out = stdout(&a);
    assert!(out.contains("env: prod\nspec:"), "{out}");
    assert!(!out.contains("syntheticRefs"), "{out}");
}

#[test]
fn last_applied_configuration_is_co_patched() {
    let pod = POD.replace(
        "  namespace: team-a\n",
        "  namespace: team-a\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '{\"kind\":\"Pod\",\"metadata\":{\"name\":\"web\"}}'\n",
    );
    let input = rule(
        Some("team-a"),
        "label",
        "  type: Patch\n  match:\n  - select: '$.kind'\n  patch:\n  - op: add\n    path: /metadata/labels/x\n    value: '<y>'\n",
    ) + &pod;
    // The label value `<y>` is not a valid label value: it is there to show Go's HTML-safe
    // JSON escaping in the co-patched annotation. A synthetic object: built-in admission is
    // not what this test is about.
    let a = kadmit(&["transform", "--no-builtins"], &input).success();
    assert!(
        stdout(&a).contains(r#"'{"kind":"Pod","metadata":{"labels":{"x":"\u003cy\u003e"},"name":"web"}}'"#)
            || stdout(&a).contains(r#""{\"kind\":\"Pod\",\"metadata\":{\"labels\":{\"x\":\"\\u003cy\\u003e\"},\"name\":\"web\"}}""#),
        "{}",
        stdout(&a)
    );
}

#[test]
fn non_idempotent_appends_run_once() {
    let input = rule(
        Some("team-a"),
        "sidecar",
        "  type: Patch\n  match:\n  - select: '$.kind'\n  patch:\n  - op: add\n    path: /spec/containers/-1\n    value: '{name: sidecar, image: busybox}'\n",
    ) + POD;
    let a = kadmit(&["transform"], &input).success();
    assert_eq!(stdout(&a).matches("name: sidecar").count(), 1);
}

/// `matchRegex` is Go's RE2: `a{` is the literal `a{` (not a syntax error), `\Q…\E`
/// quotes; what Go refuses is refused with Go's text.
#[test]
fn match_regex_is_a_go_regular_expression() {
    let pod = POD.replace(
        "  namespace: team-a\n",
        "  namespace: team-a\n  annotations:\n    note: 'a{b'\n",
    );
    let reject = |regex: &str| {
        rule(
            Some("team-a"),
            "braces",
            &format!("  type: Reject\n  match:\n  - select: '$.metadata.annotations.note'\n    matchRegex: '{regex}'\n"),
        ) + &pod
    };
    let a = kadmit(&["transform"], &reject("a{")).code(1).stdout("");
    let err = stderr(&a);
    assert!(
        err.contains("Pod team-a/web: rejected by ModRule team-a/braces"),
        "{err}"
    );
    kadmit(&["transform"], &reject(r"^\Qa{b\E$")).code(1);
    kadmit(&["transform"], &reject("a{c")).success();

    bad_rule(
        "  type: Reject\n  match:\n  - select: '$.kind'\n    matchRegex: '(?=a)'\n",
        &[
            "spec.match[0].matchRegex",
            "invalid regular expression: error parsing regexp: invalid or unsupported Perl syntax: `(?=`",
        ],
    );
}
