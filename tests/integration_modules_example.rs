//! examples/modules every way its README runs it: through the real
//! `kubectl kustomize --enable-alpha-plugins` (the example, and `rejected/` failing with
//! both modules' messages), through `kpt fn eval --exec` (stdin, and a package rewritten in
//! place), and through the kadmit binary alone (the kustomize plugin protocol and
//! `--config`). Each output must hold the documents of expected.yaml.
//!
//! The kubectl and kpt tests skip loudly without their tool (or python3 + PyYAML) and fail
//! instead under `CI=true`.
//!
//! expected.yaml is what `kubectl kustomize` prints, built-in kinds admitted as the API
//! server admits them (their native defaults written). Regenerate it from the repository
//! root with the binary under test on `PATH`, then read the diff:
//! `kadmit install-plugins /tmp/kp && KUSTOMIZE_PLUGIN_HOME=/tmp/kp kubectl kustomize
//! --enable-alpha-plugins examples/modules > examples/modules/expected.yaml`.

mod common;

use common::{
    by_identity, identity, kadmit_bin, require_python_yaml, require_tool, run, rust_yaml_docs,
    shell_quote, snapshot, write, yaml_docs, Ran,
};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/modules")
}

fn read(name: &str) -> String {
    let path = example().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn assert_expected(got: &[Value], expected: &[Value], ran: &str) {
    common::assert_same_documents(got, expected, "examples/modules/expected.yaml", ran);
}

fn kpt_eval(target: &str, extra: &[&str], stdin: Option<&[u8]>) -> Ran {
    let exec = format!(
        "{} transform",
        shell_quote(&kadmit_bin().display().to_string())
    );
    run(
        Command::new("kpt")
            .args(["fn", "eval", target, "--exec", &exec])
            .args(["--fn-config", "admission.yaml"])
            .args(extra)
            .current_dir(example()),
        stdin,
    )
}

/// The example's modules are the test modules, byte for byte: they cannot drift from the
/// sources under testdata/modules/src.
#[test]
fn the_example_modules_are_the_test_modules() {
    let testdata = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/modules/wasm");
    for name in ["magic-mutator", "magic-validator", "kubewarden-policy"] {
        let file = format!("{name}.wasm");
        let here = std::fs::read(example().join("policies").join(&file)).unwrap();
        let there = std::fs::read(testdata.join(&file)).unwrap();
        assert!(
            here == there,
            "examples/modules/policies/{file} differs from testdata/modules/wasm/{file}"
        );
    }
}

/// expected.yaml shows each module at work, so regenerating it cannot quietly turn the
/// example into a pass-through.
#[test]
fn expected_yaml_shows_every_module_at_work() {
    let input = by_identity(&rust_yaml_docs(&read("workloads.yaml")));
    let expected = by_identity(&rust_yaml_docs(&read("expected.yaml")));
    assert_eq!(
        input.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>()
    );
    assert_eq!(
        expected["v1 ConfigMap shop/settings"]["data"]["magic-value"],
        "foobar"
    );
    assert_eq!(
        expected["apps/v1 Deployment shop/web"]["metadata"]["labels"]["images.kadmit.dev/checked"],
        "true"
    );
    // No module matches Services: the Service is only admitted as a built-in, i.e. it is
    // what kadmit with no rules makes of it (the input with its native defaults).
    let service = serde_json::to_string(&input["v1 Service shop/web"]).unwrap();
    let defaulted = run(
        Command::new(kadmit_bin()).arg("transform"),
        Some(service.as_bytes()),
    )
    .expect_success();
    let defaulted = rust_yaml_docs(&defaulted.stdout);
    assert_eq!(defaulted.len(), 1);
    assert_eq!(
        expected["v1 Service shop/web"], defaulted[0],
        "no module matches Services"
    );
}

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
        rust_yaml_docs(&workloads)
            .iter()
            .map(identity)
            .collect::<Vec<_>>(),
        "kadmit keeps the input's order"
    );
    let config = run(
        Command::new(kadmit_bin())
            .args(["transform", "--config", "policies"])
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
    let built = common::kubectl_kustomize(&example(), home.path()).expect_success();
    assert_expected(
        &yaml_docs(&built.stdout),
        &yaml_docs(&read("expected.yaml")),
        &built.describe(),
    );
}

#[test]
fn rejected_example_fails_the_build_with_both_messages() {
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
        "Pod shop/debug: admission WASM module \"image-tags\" denied the request: container shell uses image busybox:latest",
        "ConfigMap shop/legacy: admission WASM module \"magic-validator\" denied the request: value not-allowed-value not allowed in configmap",
    ] {
        assert!(built.stderr.contains(message), "{message:?} missing\n{}", built.describe());
    }
}

#[test]
fn example_through_kpt_from_stdin() {
    if !require_tool("kpt") || !require_python_yaml() {
        return;
    }
    let workloads = read("workloads.yaml");
    let ran = kpt_eval("-", &["-o", "unwrap"], Some(workloads.as_bytes())).expect_success();
    assert_expected(
        &yaml_docs(&ran.stdout),
        &yaml_docs(&read("expected.yaml")),
        &ran.describe(),
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
}
