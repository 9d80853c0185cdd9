//! examples/gatekeeper every way its README runs it: through the real
//! `kubectl kustomize --enable-alpha-plugins`, through `kpt fn eval --exec` (a stream on
//! stdin, and a package rewritten in place), and through the kadmit binary alone (the
//! kustomize plugin protocol and `--config`), so the example is checked on every machine.
//! Each output must hold the documents of expected.yaml, compared as parsed documents
//! (kustomize sorts documents and keys; kpt keeps the input's order).
//!
//! The kubectl and kpt tests skip loudly without their tool (or python3 + PyYAML, the
//! independent YAML reader) and fail instead under `CI=true`.
//!
//! expected.yaml is what `kubectl kustomize` prints, built-in kinds admitted as the API
//! server admits them (their native defaults written). Regenerate it from the repository
//! root with the binary under test on `PATH`, then read the diff:
//! `kadmit install-plugins /tmp/kp && KUSTOMIZE_PLUGIN_HOME=/tmp/kp kubectl kustomize
//! --enable-alpha-plugins examples/gatekeeper > examples/gatekeeper/expected.yaml`.

mod common;

use common::{
    by_identity, identity, kadmit_bin, require_python_yaml, require_tool, run, rust_yaml_docs,
    shell_quote, snapshot, write, yaml_docs, Ran,
};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/gatekeeper")
}

fn read(name: &str) -> String {
    let path = example().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// `got` holds the same documents as examples/gatekeeper/expected.yaml, in any order.
fn assert_expected(got: &[Value], expected: &[Value], ran: &str) {
    common::assert_same_documents(got, expected, "examples/gatekeeper/expected.yaml", ran);
}

/// The identities of workloads.yaml's documents, in order.
fn input_order() -> Vec<String> {
    rust_yaml_docs(&read("workloads.yaml"))
        .iter()
        .map(identity)
        .collect()
}

/// `--exec` for kpt: kadmit's path, quoted for kpt's shell-like splitting, then `transform`.
fn exec_transform() -> String {
    format!(
        "{} transform",
        shell_quote(&kadmit_bin().display().to_string())
    )
}

/// `kpt fn eval <target> --exec "<kadmit> transform" --fn-config admission.yaml <extra>`,
/// run in the example directory (the PolicySet's `mutators` path resolves against it).
fn kpt_eval(target: &str, extra: &[&str], stdin: Option<&[u8]>) -> Ran {
    run(
        Command::new("kpt")
            .args(["fn", "eval", target, "--exec", &exec_transform()])
            .args(["--fn-config", "admission.yaml"])
            .args(extra)
            .current_dir(example()),
        stdin,
    )
}

/// expected.yaml shows what each mutator in the example is there to show; checked here so
/// that regenerating it cannot quietly turn the example into a pass-through.
#[test]
fn expected_yaml_shows_every_mutator_at_work() {
    let input = by_identity(&rust_yaml_docs(&read("workloads.yaml")));
    let expected = by_identity(&rust_yaml_docs(&read("expected.yaml")));
    assert_eq!(
        input.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>()
    );
    let at = |id: &str, pointer: &str| {
        expected[id]
            .pointer(pointer)
            .cloned()
            .unwrap_or(Value::Null)
    };
    let pod = "v1 Pod shop/nginx-test-pod";
    for (pointer, value) in [
        ("/spec/containers/0/imagePullPolicy", "Always"),
        ("/spec/containers/1/imagePullPolicy", "Always"),
        (
            "/spec/containers/0/image",
            "registry.example.com/nginx:latest",
        ),
        (
            "/spec/containers/1/image",
            "registry.example.com/prometheus/node-exporter:v1.8.2",
        ),
    ] {
        assert_eq!(at(pod, pointer), value, "{pod} {pointer}");
    }
    // always-pull excludes the `system` namespace; the registry mirror does not.
    let agent = "v1 Pod system/node-agent";
    assert_eq!(
        at(agent, "/spec/containers/0/imagePullPolicy"),
        "IfNotPresent"
    );
    assert_eq!(
        at(agent, "/spec/containers/0/image"),
        "registry.example.com/busybox:1.36"
    );
    assert_eq!(
        at("v1 ConfigMap shop/mutate-cm", "/metadata/labels/owner"),
        "gatekeeper"
    );
    // No selector label, no owner.
    assert_eq!(
        expected["v1 ConfigMap shop/settings"],
        input["v1 ConfigMap shop/settings"]
    );
    assert_eq!(
        at("v1 Service shop/mutate-svc", "/spec/externalIPs"),
        Value::Array(vec![])
    );
    assert_eq!(
        at(
            "apps/v1 Deployment shop/web",
            "/spec/template/spec/containers/0/image"
        ),
        "registry.example.com/nginx@sha256:0b970013351304af46f322da1263516b188318682b2ab1091862497591189ff1"
    );
}

/// What `kubectl kustomize` does, without kubectl: the plugin entry is called with the
/// PolicySet's path and the resources on stdin, in the kustomization's directory. Also
/// `kadmit transform --config mutators`, as the README's last recipe.
#[test]
fn example_through_the_binary_alone() {
    let expected = rust_yaml_docs(&read("expected.yaml"));
    let workloads = read("workloads.yaml");
    let outside = tempfile::tempdir().unwrap();
    let plugin = run(
        Command::new(kadmit_bin())
            .arg(example().join("admission.yaml"))
            .env("KUSTOMIZE_PLUGIN_CONFIG_ROOT", example())
            .current_dir(outside.path()),
        Some(workloads.as_bytes()),
    )
    .expect_success();
    let got = rust_yaml_docs(&plugin.stdout);
    assert_expected(&got, &expected, &plugin.describe());
    assert_eq!(
        got.iter().map(identity).collect::<Vec<_>>(),
        input_order(),
        "kadmit keeps the input's order"
    );

    let config = run(
        Command::new(kadmit_bin())
            .args(["transform", "--config", "mutators"])
            .current_dir(example()),
        Some(workloads.as_bytes()),
    )
    .expect_success();
    assert_eq!(config.stdout, plugin.stdout, "{}", config.describe());
}

#[test]
fn example_through_kustomize() {
    if !require_tool("kubectl") || !require_python_yaml() {
        return;
    }
    let home = common::plugin_home(&[]);
    let built = run(
        Command::new("kubectl")
            .args(["kustomize", "--enable-alpha-plugins"])
            .arg(example())
            .env("KUSTOMIZE_PLUGIN_HOME", home.path())
            .env("TMPDIR", home.path()),
        None,
    )
    .expect_success();
    assert_expected(
        &yaml_docs(&built.stdout),
        &yaml_docs(&read("expected.yaml")),
        &built.describe(),
    );
}

#[test]
fn example_through_kpt_from_stdin() {
    if !require_tool("kpt") || !require_python_yaml() {
        return;
    }
    let workloads = read("workloads.yaml");
    let ran = kpt_eval("-", &["-o", "unwrap"], Some(workloads.as_bytes())).expect_success();
    let got = yaml_docs(&ran.stdout);
    assert_expected(&got, &yaml_docs(&read("expected.yaml")), &ran.describe());
    assert_eq!(
        got.iter().map(identity).collect::<Vec<_>>(),
        input_order(),
        "kpt keeps the input's order\n{}",
        ran.describe()
    );
}

#[test]
fn example_through_kpt_on_a_package() {
    if !require_tool("kpt") || !require_python_yaml() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let pkg = tmp.path().join("pkg");
    write(&pkg, "workloads.yaml", &read("workloads.yaml"));
    let ran = kpt_eval(&pkg.display().to_string(), &[], None).expect_success();
    let files = snapshot(&pkg);
    assert_eq!(
        files.keys().collect::<Vec<_>>(),
        vec!["workloads.yaml"],
        "kpt + kadmit added, moved or removed files\n{}",
        ran.describe()
    );
    let text = String::from_utf8(files["workloads.yaml"].clone()).unwrap();
    assert_expected(
        &yaml_docs(&text),
        &yaml_docs(&read("expected.yaml")),
        &format!("--- workloads.yaml ---\n{text}\n{}", ran.describe()),
    );
    assert!(
        text.contains("# In the `system` namespace, which always-pull excludes"),
        "the comment was lost:\n{text}"
    );
}
