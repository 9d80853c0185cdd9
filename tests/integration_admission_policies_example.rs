//! examples/admission-policies every way its README runs it: as a plain pipeline
//! (`kadmit transform --config policies.yaml < app.yaml` prints expected.yaml byte for byte,
//! with the VAP warning and audit lines, and admitting expected.yaml again changes nothing),
//! through the real `kubectl kustomize --enable-alpha-plugins` with `policies.yaml` as the
//! transformer, and through `kpt fn eval --exec` on a package; the refused Deployment and
//! the refused policy with the server's messages.
//!
//! The kubectl and kpt tests skip loudly without those tools (or python3 + PyYAML, the
//! independent YAML reader) and fail instead under `CI=true`.

mod common;

use common::{
    kadmit_bin, require_python_yaml, require_tool, run, rust_yaml_docs, shell_quote, yaml_docs,
};
use std::path::{Path, PathBuf};
use std::process::Command;

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/admission-policies")
}

fn read(name: &str) -> String {
    let path = example().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn transform(config: &str, stdin: &str) -> common::Ran {
    run(
        Command::new(kadmit_bin())
            .args(["transform", "--config", config])
            .current_dir(example()),
        Some(stdin.as_bytes()),
    )
}

#[test]
fn app_through_a_plain_pipeline_is_expected_yaml_and_idempotent() {
    let expected = read("expected.yaml");
    for stdin in [read("app.yaml"), expected.clone()] {
        let ran = transform("policies.yaml", &stdin).expect_success();
        assert_eq!(ran.stdout, expected, "{}", ran.describe());
        // The Warn binding's warning and the Audit annotation of the worker, which has no
        // tier label; the web Deployment's tier as the policy's audit annotation.
        for line in [
            "warning: Deployment default/worker: Validation failed for ValidatingAdmissionPolicy 'recommend-tier' with binding 'recommend-tier': Deployment worker has no tier label",
            "info: Deployment default/worker: audit annotation validation.policy.admission.k8s.io/validation_failure: [{\"message\":\"Deployment worker has no tier label\",\"policy\":\"recommend-tier\",\"binding\":\"recommend-tier\",\"expressionIndex\":0,\"validationActions\":[\"Warn\",\"Audit\"]}]",
            "info: Deployment default/web: audit annotation recommend-tier/tier: frontend",
        ] {
            assert!(ran.stderr.contains(line), "{line}\n{}", ran.describe());
        }
    }
}

#[test]
fn expected_yaml_holds_what_the_mutating_policies_did() {
    let expected = rust_yaml_docs(&read("expected.yaml"));
    let web = &expected[0];
    // JSONPatch: the image mirrored; ApplyConfiguration: the sidecar merged in by name.
    assert_eq!(
        web.pointer("/spec/template/spec/containers/0/image"),
        Some(&"registry.example.com/mirror/nginx:1.27".into())
    );
    assert_eq!(
        web.pointer("/spec/template/spec/initContainers/0/name"),
        Some(&"mesh-proxy".into())
    );
    let worker = &expected[1];
    assert_eq!(
        worker.pointer("/spec/template/spec/containers/0/image"),
        Some(&"registry.example.com/storefront/worker:2.4.1".into()),
        "already in the registry: left alone"
    );
    assert_eq!(
        worker.pointer("/spec/template/spec/containers/1/image"),
        Some(&"registry.example.com/mirror/prom/statsd-exporter:v0.27.1".into())
    );
}

#[test]
fn the_deployment_over_its_replica_limit_is_refused_with_the_servers_messages() {
    let ran = transform("policies.yaml", &read("rejected/too-many-replicas.yaml"));
    assert_eq!(ran.status.code(), Some(1), "{}", ran.describe());
    assert_eq!(ran.stdout, "");
    for message in [
        "error: Deployment default/batch: ValidatingAdmissionPolicy 'replicalimit-policy.example.com' with binding 'replicalimit-binding-test.example.com' denied request: object.spec.replicas must be no greater than 3",
        "error: Deployment default/batch: ValidatingAdmissionPolicy 'require-owner' with binding 'require-owner' denied request: every Deployment needs a team label",
    ] {
        assert!(ran.stderr.contains(message), "{message}\n{}", ran.describe());
    }
}

#[test]
fn the_broken_policy_is_refused_as_the_server_refuses_it_on_create() {
    let ran = transform("broken/policy.yaml", &read("app.yaml"));
    assert_eq!(ran.status.code(), Some(2), "{}", ran.describe());
    assert_eq!(ran.stdout, "");
    for message in [
        "The ValidatingAdmissionPolicy \"broken\" is invalid: \n* spec.failurePolicy: Unsupported value: \"Sometimes\": supported values: \"Fail\", \"Ignore\"\n",
        "* spec.validations[0].expression: Invalid value: \"object.spec.replicas <= \": compilation failed: ERROR: <input>:1:25: Syntax error:",
        "* spec.validations[0].reason: Unsupported value: \"TooMany\"",
        "The ValidatingAdmissionPolicyBinding \"broken\" is invalid: spec.validationActions: Invalid value: []admissionregistration.ValidationAction{\"Deny\", \"Warn\"}: must not contain both Deny and Warn",
    ] {
        assert!(ran.stderr.contains(message), "{message}\n{}", ran.describe());
    }
}

#[test]
fn example_through_kustomize() {
    if !require_tool("kubectl") || !require_python_yaml() {
        return;
    }
    let home = common::plugin_home(&[]);
    let built = common::kubectl_kustomize(&example(), home.path()).expect_success();
    common::assert_same_documents(
        &yaml_docs(&built.stdout),
        &yaml_docs(&read("expected.yaml")),
        "examples/admission-policies/expected.yaml",
        &built.describe(),
    );
}

#[test]
fn example_through_kpt_on_a_package() {
    if !require_tool("kpt") || !require_python_yaml() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("pkg");
    std::fs::create_dir(&pkg).unwrap();
    std::fs::copy(example().join("app.yaml"), pkg.join("app.yaml")).unwrap();
    let exec = format!(
        "{} transform --config {}",
        shell_quote(&kadmit_bin().display().to_string()),
        shell_quote(&example().join("policies.yaml").display().to_string())
    );
    let ran = run(
        Command::new("kpt")
            .args(["fn", "eval", "pkg", "--exec", &exec])
            .current_dir(dir.path()),
        None,
    );
    assert!(ran.status.success(), "{}", ran.describe());
    let after = std::fs::read_to_string(pkg.join("app.yaml")).unwrap();
    common::assert_same_documents(
        &yaml_docs(&after),
        &yaml_docs(&read("expected.yaml")),
        "examples/admission-policies/expected.yaml",
        &ran.describe(),
    );
}
