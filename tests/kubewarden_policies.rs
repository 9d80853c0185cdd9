//! Kubewarden's own kinds given as configuration: a `ClusterAdmissionPolicy` or
//! `AdmissionPolicy` with a local `file://` module runs with its rules, selectors,
//! matchConditions, settings and `mutating`; a remote module is refused pointing to
//! `kwctl pull`; in the stream the same documents are objects and pass through.

use assert_cmd::Command;
use std::path::PathBuf;

fn root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("policies")).unwrap();
    std::fs::copy(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/modules/wasm/kubewarden-wapc-policy.wasm"),
        dir.path().join("policies/policy.wasm"),
    )
    .unwrap();
    dir
}

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

fn transform(root: &tempfile::TempDir, config: &str, input: &str) -> Ran {
    std::fs::write(root.path().join("policy.yaml"), config).unwrap();
    let output = Command::cargo_bin("kadmit")
        .unwrap()
        .args(["transform", "--config", "policy.yaml"])
        .current_dir(root.path())
        .write_stdin(input)
        .output()
        .unwrap();
    Ran {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn pod(name: &str, namespace: &str, image: &str, labels: &str) -> String {
    format!("apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: {namespace}\n{labels}spec:\n  containers:\n  - name: app\n    image: {image}\n---\n")
}

const CLUSTER_POLICY: &str = "apiVersion: policies.kubewarden.io/v1
kind: ClusterAdmissionPolicy
metadata:
  name: no-latest
spec:
  module: file://policies/policy.wasm
  mutating: false
  rules:
  - apiGroups: [\"\"]
    apiVersions: [\"v1\"]
    resources: [\"pods\"]
    operations: [\"CREATE\"]
  namespaceSelector:
    matchExpressions:
    - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}
  objectSelector:
    matchExpressions:
    - {key: skip, operator: DoesNotExist}
  matchConditions:
  - name: not-legacy
    expression: \"!has(object.metadata.annotations) || !('legacy' in object.metadata.annotations)\"
";

#[test]
fn a_cluster_admission_policy_honours_its_rules_selectors_and_conditions() {
    let root = root();
    let input = [
        pod("bad", "prod", "nginx:latest", ""),
        pod("system", "kube-system", "nginx:latest", ""),
        pod("skipped", "prod", "nginx:latest", "  labels:\n    skip: \"yes\"\n"),
        pod("legacy", "prod", "nginx:latest", "  annotations:\n    legacy: \"yes\"\n"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: dep\n  namespace: prod\nspec:\n  selector:\n    matchLabels: {app: x}\n  template:\n    metadata:\n      labels: {app: x}\n    spec:\n      containers:\n      - name: app\n        image: nginx:latest\n".to_owned(),
    ]
    .concat();
    let ran = transform(&root, CLUSTER_POLICY, &input);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let denied: Vec<&str> = ran
        .stderr
        .lines()
        .filter(|l| l.starts_with("error:"))
        .collect();
    assert_eq!(denied.len(), 1, "{}", ran.stderr);
    assert!(denied[0].starts_with("error: Pod prod/bad: admission WASM module \"no-latest\" denied the request: container app uses image nginx:latest"), "{}", denied[0]);
    assert!(
        denied[0].contains("(ClusterAdmissionPolicy no-latest)"),
        "{}",
        denied[0]
    );
}

#[test]
fn a_mutating_policy_with_settings_changes_objects() {
    let root = root();
    let config = CLUSTER_POLICY.replace(
        "mutating: false",
        "mutating: true\n  settings:\n    addLabel: {key: team, value: web}",
    );
    let ran = transform(&root, &config, &pod("web", "prod", "nginx:1.25", ""));
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stdout.contains("labels:\n    team: web"),
        "{}",
        ran.stdout
    );
}

#[test]
fn an_admission_policy_applies_in_its_own_namespace() {
    let root = root();
    let config = "apiVersion: policies.kubewarden.io/v1
kind: AdmissionPolicy
metadata:
  name: no-latest
  namespace: prod
spec:
  module: file://policies/policy.wasm
  rules:
  - apiGroups: [\"\"]
    apiVersions: [\"v1\"]
    resources: [\"pods\"]
    operations: [\"*\"]
";
    let input = [
        pod("a", "prod", "nginx:latest", ""),
        pod("b", "dev", "nginx:latest", ""),
    ]
    .concat();
    let ran = transform(&root, config, &input);
    assert_eq!(ran.code, 1);
    assert!(
        ran.stderr.contains("Pod prod/a: admission WASM module"),
        "{}",
        ran.stderr
    );
    assert!(!ran.stderr.contains("Pod dev/b"), "{}", ran.stderr);
}

#[test]
fn remote_modules_are_refused_pointing_to_kwctl_pull() {
    let root = root();
    let config = CLUSTER_POLICY.replace(
        "file://policies/policy.wasm",
        "registry://ghcr.io/kubewarden/policies/pod-privileged:v0.2.2",
    );
    let ran = transform(&root, &config, &pod("web", "prod", "nginx:1.25", ""));
    assert_eq!(ran.code, 2);
    assert!(ran.stdout.is_empty());
    assert!(ran.stderr.contains("spec.module: Unsupported value: \"registry://ghcr.io/kubewarden/policies/pod-privileged:v0.2.2\": kadmit evaluates offline and does not pull policies; fetch it with `kwctl pull registry://ghcr.io/kubewarden/policies/pod-privileged:v0.2.2`"), "{}", ran.stderr);
    let escape = CLUSTER_POLICY.replace("file://policies/policy.wasm", "file://../policy.wasm");
    let ran = transform(&root, &escape, &pod("web", "prod", "nginx:1.25", ""));
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(ran.stderr.contains("spec.module:"), "{}", ran.stderr);
}

#[test]
fn in_the_stream_kubewarden_policies_are_objects() {
    let root = root();
    let ran = transform(
        &root,
        "",
        &format!(
            "{CLUSTER_POLICY}---\n{}",
            pod("bad", "prod", "nginx:latest", "")
        ),
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stdout.contains("kind: ClusterAdmissionPolicy"),
        "{}",
        ran.stdout
    );
    assert!(ran.stdout.contains("name: bad"));
}
