//! examples/kubemod through the real `kubectl kustomize --enable-alpha-plugins`: the KubeMod
//! README's rules patch the workloads as committed in expected.yaml, and the CVE-2020-8554
//! rule fails the build of examples/kubemod/rejected with KubeMod's message.

mod common;

use common::{kadmit_bin, require_tool, run};
use std::path::Path;
use std::process::Command;

fn kustomize(dir: &Path, plugin_home: &Path) -> common::Ran {
    run(
        Command::new("kubectl")
            .args(["kustomize", "--enable-alpha-plugins"])
            .arg(dir)
            .env("KUSTOMIZE_PLUGIN_HOME", plugin_home)
            .env("TMPDIR", plugin_home),
        None,
    )
}

fn plugin_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    run(
        Command::new(kadmit_bin())
            .arg("install-plugins")
            .arg(home.path()),
        None,
    )
    .expect_success();
    home
}

#[test]
fn kubemod_readme_examples_through_kustomize() {
    if !require_tool("kubectl") {
        return;
    }
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/kubemod");
    let home = plugin_home();
    let built = kustomize(&example, home.path()).expect_success();
    let expected = std::fs::read_to_string(example.join("expected.yaml")).unwrap();
    assert_eq!(
        built.stdout, expected,
        "regenerate examples/kubemod/expected.yaml if the change is intended"
    );
    for effect in [
        "runAsNonRoot: true",
        "name: jaeger-agent",
        "pod.namespace=shop",
        "sidecar.istio.io/inject: \"false\"",
        "ownerReferences: []",
    ] {
        assert!(built.stdout.contains(effect), "{effect} missing");
    }
}

#[test]
fn kubemod_external_ip_rule_fails_the_build() {
    if !require_tool("kubectl") {
        return;
    }
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/kubemod/rejected");
    let home = plugin_home();
    let built = kustomize(&example, home.path());
    assert!(!built.success(), "{}", built.describe());
    assert!(built.stdout.is_empty());
    assert!(
        built.stderr.contains(
            "rejected by ModRule reject-malicious-external-ips: \"One or more of the following external IPs are not allowed [123.45.67.10 8.8.8.8]\""
        ),
        "{}",
        built.describe()
    );
}
