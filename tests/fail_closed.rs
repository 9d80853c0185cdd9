//! Fail closed: what kadmit does not run or cannot read is said, never passed silently.

use predicates::prelude::*;

mod common;

use common::kadmit_isolated as kadmit;

const NO_INPUT: &str = "no input: stdin held no document";

#[test]
fn an_empty_plain_stream_is_an_error_unless_allowed() {
    for subcommand in ["transform", "generate"] {
        for stdin in ["", "\n\n", "# only a comment\n", "---\n---\n"] {
            kadmit()
                .arg(subcommand)
                .write_stdin(stdin)
                .assert()
                .code(2)
                .stdout("")
                .stderr(predicate::str::contains(NO_INPUT));
            kadmit()
                .args([subcommand, "--allow-empty"])
                .write_stdin(stdin)
                .assert()
                .success()
                .stdout("");
        }
    }
}

#[test]
fn the_legacy_plugin_protocol_and_krm_keep_their_meaning_of_empty() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("admission.yaml");
    std::fs::write(
        &config,
        "apiVersion: kadmit.dev/v1alpha1\nkind: PolicySet\nmetadata:\n  name: p\n",
    )
    .unwrap();
    // kustomize's legacy exec plugin: argv[1] is the plugin configuration.
    kadmit()
        .arg(&config)
        .current_dir(dir.path())
        .write_stdin("")
        .assert()
        .success();
    kadmit()
        .write_stdin("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n")
        .assert()
        .success();
}

#[test]
fn an_unreadable_stream_is_reported_once() {
    kadmit()
        .arg("transform")
        .write_stdin("a: [\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(NO_INPUT).not());
}

#[test]
fn a_plugin_dir_that_does_not_exist_is_an_error() {
    kadmit()
        .args(["generate", "--plugin-dir", "/nonexistent/plugins"])
        .write_stdin("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--plugin-dir /nonexistent/plugins: no such directory",
        ));
}

#[test]
fn config_and_crd_paths_that_do_not_exist_are_errors() {
    for flag in ["--config", "--crd"] {
        kadmit()
            .args(["transform", flag, "/nonexistent/policies"])
            .write_stdin("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
            .assert()
            .code(2)
            .stderr(predicate::str::contains("/nonexistent/policies"));
    }
}

#[test]
fn transform_says_it_consumed_generator_input_without_generating() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = dir.path().join("plugins/team.example.com");
    std::fs::create_dir_all(&plugins).unwrap();
    std::fs::write(
        plugins.join("notes.yaml"),
        "\
apiVersion: kadmit.dev/v1alpha1
kind: Generator
metadata: {name: notes}
spec:
  group: team.example.com
  names: {kind: Notes}
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        type: object
  templates:
  - template: \"apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: notes}\\n\"
",
    )
    .unwrap();
    let input = "apiVersion: team.example.com/v1\nkind: Notes\nmetadata:\n  name: team-notes\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n";
    kadmit()
        .arg("transform")
        .current_dir(dir.path())
        .write_stdin(input)
        .assert()
        .success()
        .stderr(predicate::str::contains("consumed it without generating"))
        .stderr(predicate::str::contains("run `kadmit generate`"));
}

const KYVERNO: &str = "\
apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: require-labels
spec:
  validationFailureAction: Enforce
  rules:
  - name: check-team
    match:
      any:
      - resources:
          kinds: [Deployment]
    validate:
      message: label team is required
      pattern:
        metadata:
          labels:
            team: \"?*\"
";

/// A synthetic Deployment (no selector, no template: native validation refuses it); the
/// invocations that must admit it pass `--no-builtins`.
const DEPLOYMENT: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
";

fn policy(api_version: &str, kind: &str) -> String {
    format!("apiVersion: {api_version}\nkind: {kind}\nmetadata:\n  name: p\n")
}

#[test]
fn policies_kadmit_does_not_run_are_refused_as_configuration() {
    let cases = [
        (KYVERNO.to_owned(), "Kyverno policies"),
        (
            policy("policies.kyverno.io/v1alpha1", "ValidatingPolicy"),
            "Kyverno policies",
        ),
        (
            policy("templates.gatekeeper.sh/v1", "ConstraintTemplate"),
            "Gatekeeper constraint templates and constraints",
        ),
        (
            policy("constraints.gatekeeper.sh/v1beta1", "K8sRequiredLabels"),
            "Gatekeeper constraint templates and constraints",
        ),
        (
            policy("policies.kubewarden.io/v1", "ClusterAdmissionPolicyGroup"),
            "Kubewarden policy groups",
        ),
        (
            policy(
                "admissionregistration.k8s.io/v1",
                "ValidatingWebhookConfiguration",
            ),
            "admission webhook configurations",
        ),
    ];
    for (document, family) in cases {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("policy.yaml"), &document).unwrap();
        kadmit()
            .args(["transform", "--config", "policy.yaml"])
            .current_dir(dir.path())
            .write_stdin(DEPLOYMENT)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(format!(
                "kadmit does not run {family}, so this policy would not be applied"
            )))
            .stderr(predicate::str::contains("--skip-unsupported"));
        kadmit()
            // A synthetic object: built-in admission is not what this test is about.
            .args([
                "transform",
                "--no-builtins",
                "--config",
                "policy.yaml",
                "--skip-unsupported",
            ])
            .current_dir(dir.path())
            .write_stdin(DEPLOYMENT)
            .assert()
            .success()
            .stdout(DEPLOYMENT)
            .stderr(predicate::str::contains("warning:"))
            .stderr(predicate::str::contains("(skipped: --skip-unsupported)"));
    }
}

#[test]
fn policies_in_the_stream_pass_through_with_one_info_line() {
    let input = format!("{KYVERNO}---\n{DEPLOYMENT}");
    let a = kadmit()
        .arg("transform")
        // A synthetic object: built-in admission is not what this test is about.
        .arg("--no-builtins")
        .write_stdin(input.clone())
        .assert()
        .success()
        .stdout(predicate::str::contains("kind: ClusterPolicy"))
        .stdout(predicate::str::contains("kind: Deployment"));
    let stderr = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("1 policy in the stream was passed through as a resource: kadmit does not run it (ClusterPolicy require-labels: Kyverno policies)"),
        "{stderr}"
    );
}

#[test]
fn rules_that_matched_no_object_are_one_info_line_and_in_the_report() {
    let dir = tempfile::tempdir().unwrap();
    // The Gatekeeper docs' Pod-targeted Assign, run on Deployments.
    std::fs::write(
        dir.path().join("assign.yaml"),
        "\
apiVersion: mutations.gatekeeper.sh/v1
kind: Assign
metadata:
  name: always-pull
spec:
  applyTo:
  - groups: [\"\"]
    kinds: [Pod]
    versions: [v1]
  location: \"spec.containers[name:*].imagePullPolicy\"
  parameters:
    assign:
      value: Always
",
    )
    .unwrap();
    // A misspelt kind in a ModRule's match: it can never match.
    std::fs::write(
        dir.path().join("modrule.yaml"),
        "\
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata:
  name: owner
  namespace: default
spec:
  type: Patch
  match:
  - select: '$.kind'
    matchValue: Deploymnet
  patch:
  - op: add
    path: /metadata/labels/owner
    value: platform
",
    )
    .unwrap();
    let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: default\nspec:\n  replicas: 1\n";
    let a = kadmit()
        // A synthetic object: built-in admission is not what this test is about.
        .args([
            "transform",
            "--no-builtins",
            "--config",
            ".",
            "--report",
            "report.json",
        ])
        .current_dir(dir.path())
        .write_stdin(deployment)
        .assert()
        .success()
        .stdout(deployment);
    let stderr = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert_eq!(
        stderr,
        "info: 2 rules matched no object: ModRule default/owner, Assign always-pull (applyTo Pod; \
         the stream has Deployment — Pods of workloads are mutated through ExpansionTemplates in \
         `kadmit generate`)\n"
    );
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("report.json")).unwrap()).unwrap();
    assert_eq!(
        report["unmatchedRules"],
        serde_json::json!([
            {"rule": "ModRule default/owner", "kinds": []},
            {"rule": "Assign always-pull", "kinds": ["Pod"]},
        ])
    );
    assert_eq!(report["exitCode"], 0, "never an error");
}

#[test]
fn crd_directories_skip_documents_that_are_not_crds_even_without_an_identity() {
    let dir = tempfile::tempdir().unwrap();
    common::write(
        dir.path(),
        "crds/kustomization.yaml",
        "resources:\n- widget.yaml\n",
    );
    common::write(
        dir.path(),
        "crds/widget.yaml",
        "\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, maximum: 3}
",
    );
    kadmit()
        .args(["transform", "--crd", "crds"])
        .current_dir(dir.path())
        .write_stdin(
            "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 5\n",
        )
        .assert()
        .code(1)
        .stderr(predicate::str::contains("spec.size"))
        .stderr(predicate::str::contains("kustomization").not());
}
