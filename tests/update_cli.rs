//! `--old` through the binary (docs/update.md): matching by identity (namespaced,
//! cluster-scoped, `--namespace`), duplicates and conflicting flags as bad input, the
//! server's UPDATE fields seen by rules and never written, DELETE through the validating
//! stages that match it, each engine's operation matching, and the operation in `kadmit
//! diff` and the reports.

mod common;

use assert_cmd::Command;
use serde_json::Value;
use std::time::Duration;

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
    /// The json report.
    report: Value,
}

/// `kadmit SUBCOMMAND -f new.yaml --old old.yaml [--config admission.yaml] EXTRA…` in a
/// fresh directory.
fn kadmit(subcommand: &str, new: &str, old: &str, config: &str, extra: &[&str]) -> Ran {
    let dir = tempfile::tempdir().unwrap();
    let new_path = common::write(dir.path(), "new.yaml", new);
    let old_path = common::write(dir.path(), "old.yaml", old);
    let report = dir.path().join("report.json");
    let mut cmd = Command::cargo_bin("kadmit").unwrap();
    cmd.current_dir(dir.path())
        .env_remove("NO_COLOR")
        .arg(subcommand)
        .arg("-f")
        .arg(&new_path)
        .arg("--old")
        .arg(&old_path)
        .arg("--report")
        .arg(&report)
        .args(extra)
        .timeout(Duration::from_secs(60));
    if !config.is_empty() {
        cmd.arg("--config")
            .arg(common::write(dir.path(), "admission.yaml", config));
    }
    let output = cmd.output().unwrap();
    let report = std::fs::read_to_string(&report).unwrap_or_else(|_| "null".into());
    Ran {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
        report: serde_json::from_str(&report).unwrap(),
    }
}

/// `(operation, "Kind ns/name")` of every resource in the json report, in order.
fn operations(report: &Value) -> Vec<(String, String)> {
    report["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let resource = &r["resource"];
            let name = match resource["namespace"].as_str() {
                Some(ns) => format!(
                    "{} {ns}/{}",
                    resource["kind"].as_str().unwrap(),
                    resource["name"].as_str().unwrap()
                ),
                None => format!(
                    "{} {}",
                    resource["kind"].as_str().unwrap(),
                    resource["name"].as_str().unwrap()
                ),
            };
            (r["operation"].as_str().unwrap().to_owned(), name)
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

fn configmap(name: &str, namespace: Option<&str>, value: &str) -> String {
    let namespace = namespace.map_or(String::new(), |ns| format!("  namespace: {ns}\n"));
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n{namespace}data:\n  k: {value}\n---\n")
}

/// A ValidatingAdmissionPolicy and its binding, for `operations` on `resources` of the
/// core group, with one validation.
fn vap(
    name: &str,
    operations: &str,
    resources: &str,
    expression: &str,
    message: &str,
    action: &str,
) -> String {
    format!(
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: {name}\nspec:\n  failurePolicy: Fail\n  matchConstraints:\n    resourceRules:\n    - apiGroups: [\"\", apps]\n      apiVersions: [v1]\n      operations: {operations}\n      resources: {resources}\n  validations:\n  - expression: {expression:?}\n    messageExpression: {message:?}\n---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata:\n  name: {name}\nspec:\n  policyName: {name}\n  validationActions: [{action}]\n---\n"
    )
}

#[test]
fn resources_match_old_objects_by_group_kind_namespace_and_name() {
    let new = configmap("same", None, "new")
        + &configmap("moved", Some("b"), "x")
        + &configmap("fresh", None, "x")
        + "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team\n  labels: {a: b}\n---\n";
    // `same` is in --namespace (team-a) on both sides; `moved` changed namespace;
    // a Namespace is cluster-scoped: a stray namespace field does not split it.
    let old = configmap("same", Some("team-a"), "old")
        + &configmap("moved", Some("a"), "x")
        + "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team\n  namespace: ignored\n---\n";
    let ran = kadmit("transform", &new, &old, "", &["-n", "team-a"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        operations(&ran.report),
        pairs(&[
            ("UPDATE", "ConfigMap same"),
            ("CREATE", "ConfigMap b/moved"),
            ("CREATE", "ConfigMap fresh"),
            ("UPDATE", "Namespace team"),
            ("DELETE", "ConfigMap a/moved"),
        ])
    );
    // DELETEs are reported, never written.
    assert_eq!(
        ran.stdout.matches("kind: ConfigMap").count(),
        3,
        "{}",
        ran.stdout
    );
    assert!(!ran.stdout.contains("namespace: a\n"), "{}", ran.stdout);
}

#[test]
fn an_old_input_without_matching_identities_makes_everything_a_create() {
    let ran = kadmit(
        "transform",
        &configmap("a", None, "x"),
        &configmap("b", Some("elsewhere"), "x"),
        "",
        &[],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        operations(&ran.report),
        pairs(&[
            ("CREATE", "ConfigMap a"),
            ("DELETE", "ConfigMap elsewhere/b")
        ])
    );
}

#[test]
fn an_identity_twice_in_the_old_input_is_bad_input_naming_both_places() {
    let old = configmap("a", None, "1") + &configmap("a", Some("default"), "2");
    let ran = kadmit("transform", &configmap("a", None, "x"), &old, "", &[]);
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(ran.stdout.is_empty());
    assert!(
        ran.stderr
            .contains("--old holds ConfigMap default/a twice: at ")
            && ran.stderr.contains("old.yaml, document 1, line 1 and at ")
            && ran.stderr.contains("old.yaml, document 2, line"),
        "{}",
        ran.stderr
    );
}

#[test]
fn old_conflicts_with_another_operation_and_with_a_second_stdin_reader() {
    let ran = kadmit(
        "transform",
        &configmap("a", None, "x"),
        "",
        "",
        &["--operation", "UPDATE"],
    );
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("--old cannot be combined with --operation UPDATE"),
        "{}",
        ran.stderr
    );
    let out = Command::cargo_bin("kadmit")
        .unwrap()
        .args(["transform", "--old", "-"])
        .write_stdin(configmap("a", None, "x"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("stdin can be read only once"));
}

const DEPLOYMENT_OLD: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  uid: 0b5c-1\n  generation: 4\n  resourceVersion: \"812\"\n  creationTimestamp: \"2024-05-01T10:00:00Z\"\n  managedFields: [{manager: kubectl, operation: Update}]\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '{}'\nspec:\n  replicas: 6\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: \"nginx:1.25\"}]}\nstatus:\n  replicas: 6\n---\n";

fn deployment(replicas: u32, image: &str) -> String {
    format!("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: {replicas}\n  selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata: {{labels: {{app: web}}}}\n    spec: {{containers: [{{name: web, image: \"{image}\"}}]}}\n---\n")
}

#[test]
fn rules_see_the_servers_update_fields_and_the_output_never_gains_them() {
    // What validating admission sees on the server: uid, creationTimestamp and
    // resourceVersion of the stored object, its status (a subresource), and the stored
    // generation bumped by one because the spec changed.
    let policy = vap(
        "server-fields",
        "[UPDATE]",
        "[deployments]",
        "object.metadata.uid == oldObject.metadata.uid && object.metadata.generation == 5 && object.metadata.resourceVersion == '812' && object.status.replicas == 6 && object.metadata.creationTimestamp == oldObject.metadata.creationTimestamp",
        "'server fields not carried: ' + string(object.metadata)",
        "Deny",
    );
    let ran = kadmit(
        "transform",
        &deployment(4, "nginx:1.27"),
        DEPLOYMENT_OLD,
        &policy,
        &["--no-defaults"],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    // Untouched, the manifest comes back as it was written (docs/yaml.md, "Untouched
    // documents"): without the server's fields.
    assert_eq!(
        ran.stdout,
        deployment(4, "nginx:1.27").trim_end_matches("---\n"),
        "the manifest, without server fields"
    );
    for field in [
        "uid",
        "generation",
        "resourceVersion",
        "creationTimestamp",
        "managedFields",
        "status",
        "last-applied",
    ] {
        assert!(
            !ran.stdout.contains(field),
            "{field} written: {}",
            ran.stdout
        );
    }
}

#[test]
fn a_vap_compares_the_object_with_its_old_object() {
    let policy = vap(
        "replicas-may-not-halve",
        "[UPDATE]",
        "[deployments]",
        "object.spec.replicas * 2 >= oldObject.spec.replicas",
        "'replicas may not drop by more than half: ' + string(oldObject.spec.replicas) + ' -> ' + string(object.spec.replicas)",
        "Deny",
    );
    let ran = kadmit(
        "transform",
        &deployment(2, "nginx:1.27"),
        DEPLOYMENT_OLD,
        &policy,
        &[],
    );
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(ran.stdout.is_empty());
    assert!(ran.stderr.contains("error: Deployment web: ValidatingAdmissionPolicy 'replicas-may-not-halve' with binding 'replicas-may-not-halve' denied request: replicas may not drop by more than half: 6 -> 2 ["), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("new.yaml, document 1, line 1]"),
        "{}",
        ran.stderr
    );
    let ran = kadmit(
        "transform",
        &deployment(3, "nginx:1.27"),
        DEPLOYMENT_OLD,
        &policy,
        &[],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
}

#[test]
fn a_delete_runs_the_validating_rules_that_match_delete_and_nothing_else() {
    let protect = vap(
        "protect-configmaps",
        "[DELETE]",
        "[configmaps]",
        "!has(oldObject.metadata.labels) || oldObject.metadata.labels['protected'] != 'true'",
        "'ConfigMap ' + oldObject.metadata.name + ' is protected' + (object == null ? ' (no object on DELETE)' : '')",
        "Deny",
    );
    let on_create_only = vap(
        "create-only",
        "[CREATE]",
        "[configmaps]",
        "false",
        "'CREATE rule ran on ' + oldObject.metadata.name",
        "Deny",
    );
    let old = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keep\n  labels: {protected: \"true\"}\n---\n".to_owned()
        + &configmap("scratch", None, "x");
    let ran = kadmit(
        "transform",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n",
        &old,
        &(protect + &on_create_only),
        &[],
    );
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(ran.stdout.is_empty(), "nothing partial: {}", ran.stdout);
    assert!(ran.stderr.contains("error: ConfigMap keep: ValidatingAdmissionPolicy 'protect-configmaps' with binding 'protect-configmaps' denied request: ConfigMap keep is protected (no object on DELETE) ["), "{}", ran.stderr);
    assert!(
        ran.stderr.contains("old.yaml, document 1, line 1]"),
        "the old file is named: {}",
        ran.stderr
    );
    assert!(!ran.stderr.contains("scratch"), "{}", ran.stderr);
    assert!(!ran.stderr.contains("CREATE rule ran"), "{}", ran.stderr);
}

const MODRULES: &str = "apiVersion: api.kubemod.io/v1beta1\nkind: ModRule\nmetadata:\n  name: no-deleting-keep\n  namespace: default\nspec:\n  type: Reject\n  admissionOperations: [DELETE]\n  match:\n  - select: '$.metadata.name'\n    matchValue: keep\n  rejectMessage: keep stays\n---\napiVersion: api.kubemod.io/v1beta1\nkind: ModRule\nmetadata:\n  name: mark-updates\n  namespace: default\nspec:\n  type: Patch\n  admissionOperations: [UPDATE]\n  match:\n  - select: '$.kind'\n    matchValue: ConfigMap\n  patch:\n  - op: add\n    path: /metadata/labels/updated\n    value: by-kubemod\n---\n";

#[test]
fn kubemod_rules_match_the_resources_own_operation() {
    let new = configmap("changed", None, "new") + &configmap("added", None, "x");
    let old = configmap("changed", None, "old") + &configmap("keep", None, "x");
    let ran = kadmit("transform", &new, &old, MODRULES, &[]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("error: ConfigMap keep: rejected by ModRule"),
        "{}",
        ran.stderr
    );
    assert!(ran.stderr.contains("keep stays"), "{}", ran.stderr);
    // Without the DELETE, the UPDATE-only patch reaches the updated ConfigMap only.
    let ran = kadmit(
        "transform",
        &new,
        &configmap("changed", None, "old"),
        MODRULES,
        &[],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let docs = common::yaml_docs(&ran.stdout);
    assert_eq!(
        docs[0]["metadata"]["labels"]["updated"], "by-kubemod",
        "{}",
        ran.stdout
    );
    assert!(
        docs[1]["metadata"].get("labels").is_none(),
        "a CREATE: {}",
        ran.stdout
    );
}

#[test]
fn gatekeeper_mutates_updates_and_never_deletes() {
    let assign = "apiVersion: mutations.gatekeeper.sh/v1\nkind: AssignMetadata\nmetadata:\n  name: team\nspec:\n  match:\n    kinds: [{apiGroups: [\"\"], kinds: [ConfigMap]}]\n  location: metadata.labels.team\n  parameters:\n    assign:\n      value: platform\n---\n";
    let new = configmap("changed", None, "new");
    let old = configmap("changed", None, "old") + &configmap("gone", None, "x");
    let ran = kadmit("transform", &new, &old, assign, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(ran.stdout.contains("team: platform"), "{}", ran.stdout);
    let changed: Vec<&str> = ran.report["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["resource"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(changed, vec!["changed"], "a DELETE is never mutated");
}

#[test]
fn modules_get_the_operation_and_the_old_object() {
    if !common::require_tool("python3") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    common::write(
        dir.path(),
        "seen.py",
        r#"import json, sys
request = json.load(sys.stdin)["request"]["request"]
seen = {"operation": request["operation"],
        "object": (request.get("object") or {}).get("data"),
        "oldObject": (request.get("oldObject") or {}).get("data")}
print(json.dumps({"response": {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
    "response": {"uid": request["uid"], "allowed": True, "warnings": [json.dumps(seen, sort_keys=True)]}}}))
"#,
    );
    let config = "apiVersion: kadmit.dev/v1alpha1\nkind: AdmissionModule\nmetadata:\n  name: seen\nspec:\n  exec:\n    command: [python3, seen.py]\n  timeout: 20s\n";
    let config_path = common::write(dir.path(), "admission.yaml", config);
    let new = configmap("changed", None, "new") + &configmap("added", None, "x");
    let old = configmap("changed", None, "old") + &configmap("gone", None, "bye");
    let new_path = common::write(dir.path(), "new.yaml", &new);
    let old_path = common::write(dir.path(), "old.yaml", &old);
    let out = Command::cargo_bin("kadmit")
        .unwrap()
        .current_dir(dir.path())
        .arg("transform")
        .arg("-f")
        .arg(&new_path)
        .arg("--old")
        .arg(&old_path)
        .arg("--config")
        .arg(&config_path)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    for expected in [
        r#"{\"object\": {\"k\": \"new\"}, \"oldObject\": {\"k\": \"old\"}, \"operation\": \"UPDATE\"}"#,
        r#"{\"object\": {\"k\": \"x\"}, \"oldObject\": null, \"operation\": \"CREATE\"}"#,
        r#"{\"object\": null, \"oldObject\": {\"k\": \"bye\"}, \"operation\": \"DELETE\"}"#,
    ] {
        let expected = expected.replace('\\', "");
        assert!(stderr.contains(&expected), "{expected} in {stderr}");
    }
}

#[test]
fn diff_and_reports_mark_each_resources_operation() {
    let new = configmap("changed", None, "new") + &configmap("added", None, "x");
    let old = configmap("changed", None, "old") + &configmap("gone", None, "x");
    let ran = kadmit("diff", &new, &old, "", &["--no-builtins"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stdout.starts_with(
            "--- ConfigMap changed (--old)\n+++ ConfigMap changed (UPDATE, admitted; "
        ),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains("-  k: old\n+  k: new\n"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains(
            "--- ConfigMap added (not in --old)\n+++ ConfigMap added (CREATE, admitted; "
        ),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains("DELETE ConfigMap gone ("),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout
            .ends_with("0 of 3 resources changed; 1 CREATE, 1 UPDATE, 1 DELETE\n"),
        "{}",
        ran.stdout
    );

    let dir = tempfile::tempdir().unwrap();
    let new_path = common::write(dir.path(), "new.yaml", &new);
    let old_path = common::write(dir.path(), "old.yaml", &old);
    for (format, expected) in [
        ("markdown", "Operations: 1 CREATE, 1 UPDATE, 1 DELETE."),
        ("junit", "classname=\"ConfigMap changed (UPDATE)\""),
        ("openreports", "ConfigMap added (CREATE) admitted"),
    ] {
        let report = dir.path().join(format!("report.{format}"));
        let out = Command::cargo_bin("kadmit")
            .unwrap()
            .args(["transform", "--no-builtins", "-f"])
            .arg(&new_path)
            .arg("--old")
            .arg(&old_path)
            .arg("--report")
            .arg(&report)
            .args(["--report-format", format])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{format}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(&report).unwrap();
        assert!(text.contains(expected), "{format}: {expected} in {text}");
    }
}

#[test]
fn old_reads_directories_lists_and_stdin_like_f() {
    let dir = tempfile::tempdir().unwrap();
    let list = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n";
    common::write(dir.path(), "old/nested/list.yaml", list);
    common::write(
        dir.path(),
        "old/b.json",
        r#"{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}}"#,
    );
    let new_path = common::write(
        dir.path(),
        "new.yaml",
        &(configmap("a", None, "1") + &configmap("b", None, "1")),
    );
    let run = |recursive: bool| {
        let mut cmd = Command::cargo_bin("kadmit").unwrap();
        cmd.args(["transform", "--no-builtins", "-f"])
            .arg(&new_path)
            .arg("--old")
            .arg(dir.path().join("old"));
        if recursive {
            cmd.arg("-R");
        }
        let report = dir.path().join("r.json");
        cmd.arg("--report").arg(&report).output().unwrap();
        operations(&serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap())
    };
    assert_eq!(
        run(false),
        pairs(&[("CREATE", "ConfigMap a"), ("UPDATE", "ConfigMap b")])
    );
    assert_eq!(
        run(true),
        pairs(&[("UPDATE", "ConfigMap a"), ("UPDATE", "ConfigMap b")])
    );
    // --old - with the stream from -f.
    let report = dir.path().join("stdin.json");
    let out = Command::cargo_bin("kadmit")
        .unwrap()
        .args(["transform", "--no-builtins", "-f"])
        .arg(&new_path)
        .args(["--old", "-", "--report"])
        .arg(&report)
        .write_stdin(configmap("a", None, "0"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ops =
        operations(&serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap());
    assert_eq!(
        ops,
        pairs(&[("UPDATE", "ConfigMap a"), ("CREATE", "ConfigMap b")])
    );
}

#[test]
fn old_documents_keep_the_node_limit() {
    let big = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata: {a: \"1\", b: \"2\", c: \"3\", d: \"4\", e: \"5\", f: \"6\"}\n";
    let ran = kadmit(
        "transform",
        &configmap("a", None, "x"),
        big,
        "",
        &["--max-document-nodes", "12"],
    );
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(ran.stdout.is_empty());
    assert!(
        ran.stderr.contains("document holds more than 12 nodes")
            && ran.stderr.contains("--max-document-nodes raises the limit")
            && ran.stderr.contains("old.yaml, document 1"),
        "{}",
        ran.stderr
    );
}

#[test]
fn an_old_document_with_the_streams_text_is_that_document() {
    // Read once (by its text), and still the UPDATE's old object, defaulted as stored.
    let policy = vap(
        "old-is-the-document",
        "[UPDATE]",
        "[configmaps, deployments]",
        "oldObject.metadata.name == object.metadata.name && (object.kind != 'ConfigMap' || oldObject.data.k == 'same') && (object.kind != 'Deployment' || oldObject.spec.template.spec.containers[0].imagePullPolicy == 'IfNotPresent')",
        "'old object: ' + string(oldObject.metadata.name)",
        "Deny",
    );
    let same = configmap("a", None, "same") + &deployment(2, "nginx:1.27");
    let ran = kadmit("transform", &same, &same, &policy, &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        operations(&ran.report),
        pairs(&[("UPDATE", "ConfigMap a"), ("UPDATE", "Deployment web")])
    );
}

#[test]
fn gatekeeper_apply_to_operations_follow_the_resources_own_operation() {
    let assign = "apiVersion: mutations.gatekeeper.sh/v1\nkind: Assign\nmetadata:\n  name: history-on-update\nspec:\n  applyTo:\n  - groups: [apps]\n    kinds: [Deployment]\n    versions: [v1]\n    operations: [UPDATE]\n  match:\n    kinds: [{apiGroups: [apps], kinds: [Deployment]}]\n  location: spec.revisionHistoryLimit\n  parameters:\n    assign:\n      value: 3\n---\n";
    let new = deployment(2, "nginx:1.27")
        + &deployment(2, "nginx:1.27").replace("name: web", "name: api");
    let ran = kadmit(
        "transform",
        &new,
        &deployment(2, "nginx:1.25"),
        assign,
        &["--no-defaults"],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let docs = common::yaml_docs(&ran.stdout);
    assert_eq!(
        docs[0]["spec"]["revisionHistoryLimit"], 3,
        "web is an UPDATE: {}",
        ran.stdout
    );
    assert!(
        docs[1]["spec"].get("revisionHistoryLimit").is_none(),
        "api is a CREATE: {}",
        ran.stdout
    );
}

#[test]
fn an_immutable_field_change_names_the_new_value_as_the_server_does_and_the_old_one() {
    let deployment = |app: &str| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  selector:\n    matchLabels: {{app: {app}}}\n  template:\n    metadata:\n      labels: {{app: {app}}}\n    spec:\n      containers: [{{name: web, image: nginx:1.25}}]\n---\n"
        )
    };
    let ran = kadmit(
        "transform",
        &deployment("web2"),
        &deployment("web"),
        "",
        &[],
    );
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(
        ran.stderr.contains(
            "spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"web2\"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable\n  (before: spec.selector: {\"matchLabels\":{\"app\":\"web\"}})"
        ),
        "{}",
        ran.stderr
    );
    // Unchanged, the same Deployment is admitted.
    let ran = kadmit("transform", &deployment("web"), &deployment("web"), "", &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
}
