//! examples/kubemod through the real `kubectl kustomize --enable-alpha-plugins`: the KubeMod
//! README's rules patch the workloads as committed in expected.yaml, and the CVE-2020-8554
//! rule fails the build of examples/kubemod/rejected with KubeMod's message.
//!
//! expected.yaml is what `kubectl kustomize` prints, built-in kinds admitted as the API
//! server admits them (their native defaults written). Regenerate it from the repository
//! root with the binary under test on `PATH`, then read the diff:
//! `kadmit install-plugins /tmp/kp && KUSTOMIZE_PLUGIN_HOME=/tmp/kp kubectl kustomize
//! --enable-alpha-plugins examples/kubemod > examples/kubemod/expected.yaml`.

mod common;

use common::require_tool;
use std::path::Path;

#[test]
fn kubemod_readme_examples_through_kustomize() {
    if !require_tool("kubectl") {
        return;
    }
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/kubemod");
    let home = common::plugin_home(&[]);
    let built = common::kubectl_kustomize(&example, home.path()).expect_success();
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
    let home = common::plugin_home(&[]);
    let built = common::kubectl_kustomize(&example, home.path());
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
