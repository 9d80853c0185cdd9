//! examples/kubewarden every way its README runs it: through the real
//! `kubectl kustomize --enable-alpha-plugins` (the example, and `rejected/` failing with the
//! policy's messages), through `kpt fn eval --exec`, and through the kadmit binary alone
//! (`--config`, in a pipe). Each output must hold the documents of expected.yaml.
//!
//! The kubectl and kpt tests skip loudly without their tool (or python3 + PyYAML) and fail
//! instead under `CI=true`.
//!
//! expected.yaml is what `kubectl kustomize` prints. Regenerate it from the repository root
//! with the binary under test on `PATH`: `kadmit install-plugins /tmp/kp &&
//! KUSTOMIZE_PLUGIN_HOME=/tmp/kp kubectl kustomize --enable-alpha-plugins examples/kubewarden
//! > examples/kubewarden/expected.yaml`.

mod common;

use common::{
    kadmit_bin, require_python_yaml, require_tool, run, rust_yaml_docs, shell_quote, yaml_docs,
};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/kubewarden")
}

fn read(name: &str) -> String {
    let path = example().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn assert_expected(got: &[Value], ran: &str) {
    let expected = rust_yaml_docs(&read("expected.yaml"));
    common::assert_same_documents(got, &expected, "examples/kubewarden/expected.yaml", ran);
}

/// The example's module is the test module, byte for byte.
#[test]
fn the_example_module_is_the_test_module() {
    let name = "kubewarden-wapc-policy.wasm";
    let here = std::fs::read(example().join("policies").join(name)).unwrap();
    let there = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/modules/wasm")
            .join(name),
    )
    .unwrap();
    assert!(
        here == there,
        "examples/kubewarden/policies/{name} differs from testdata/modules/wasm/{name}"
    );
}

/// expected.yaml shows the policy at work: the Deployment labelled, the ConfigMap as given.
#[test]
fn expected_yaml_shows_the_policy_at_work() {
    let expected = rust_yaml_docs(&read("expected.yaml"));
    let deployment = expected.iter().find(|d| d["kind"] == "Deployment").unwrap();
    assert_eq!(deployment["metadata"]["labels"]["team"], "shop");
}

#[test]
fn example_through_the_binary_alone() {
    let ran = run(
        Command::new(kadmit_bin())
            .args(["transform", "--config", "policies"])
            .current_dir(example()),
        Some(read("workloads.yaml").as_bytes()),
    )
    .expect_success();
    assert_expected(&rust_yaml_docs(&ran.stdout), &ran.describe());
    let rejected = run(
        Command::new(kadmit_bin())
            .args(["transform", "--config", "policies"])
            .current_dir(example()),
        Some(read("rejected/workloads.yaml").as_bytes()),
    );
    assert!(!rejected.success(), "{}", rejected.describe());
    assert!(
        rejected.stdout.is_empty(),
        "nothing partial\n{}",
        rejected.describe()
    );
}

#[test]
fn example_through_kustomize() {
    if !require_tool("kubectl") || !require_python_yaml() {
        return;
    }
    let home = common::plugin_home(&[]);
    let built = common::kubectl_kustomize(&example(), home.path()).expect_success();
    assert_expected(&yaml_docs(&built.stdout), &built.describe());
}

#[test]
fn rejected_example_fails_the_build_with_the_policy_messages() {
    if !require_tool("kubectl") {
        return;
    }
    let home = common::plugin_home(&[]);
    let built = common::kubectl_kustomize(&example().join("rejected"), home.path());
    assert!(
        !built.success(),
        "the build must fail\n{}",
        built.describe()
    );
    assert!(
        built.stdout.trim().is_empty(),
        "nothing partial\n{}",
        built.describe()
    );
    for message in [
        "Deployment staging/orphan: admission WASM module \"require-config\" denied the request: configmap app-config is required: configmaps \"app-config\" not found (code 404)",
        "Deployment shop/debug: admission WASM module \"require-config\" denied the request: container shell uses image busybox:latest",
    ] {
        assert!(built.stderr.contains(message), "{message:?} missing\n{}", built.describe());
    }
}

#[test]
fn example_through_kpt_from_stdin() {
    if !require_tool("kpt") || !require_python_yaml() {
        return;
    }
    let exec = format!(
        "{} transform",
        shell_quote(&kadmit_bin().display().to_string())
    );
    let ran = run(
        Command::new("kpt")
            .args(["fn", "eval", "-", "--exec", &exec])
            .args(["--fn-config", "admission.yaml", "-o", "unwrap"])
            .current_dir(example()),
        Some(read("workloads.yaml").as_bytes()),
    )
    .expect_success();
    assert_expected(&yaml_docs(&ran.stdout), &ran.describe());
}
