//! examples/builtins every way its README runs it: as a plain pipeline (`kadmit transform <
//! app.yaml` prints expected.yaml byte for byte), through the real `kubectl kustomize
//! --enable-alpha-plugins` with `settings.yaml` as the transformer, and through `kpt fn eval
//! --exec` on a package. expected.yaml must be app.yaml with server defaults added and
//! nothing of app.yaml changed; each file of broken/ is refused with the server's message.
//!
//! The kubectl and kpt tests skip loudly without those tools (or python3 + PyYAML, the
//! independent YAML reader) and fail instead under `CI=true`.

mod common;

use common::{
    kadmit_bin, require_python_yaml, require_tool, run, rust_yaml_docs, shell_quote, yaml_docs,
};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Every file of broken/ with what kadmit must say about it.
const BROKEN: &[(&str, &[&str])] = &[
    (
        "cronjob.yaml",
        &[
            "The CronJob \"report\" is invalid: \n",
            "* spec.schedule: Invalid value: \"0 30 2 * * *\": expected exactly 5 fields, found 6: [0 30 2 * * *]\n",
            "* spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\"",
        ],
    ),
    (
        "deployment.yaml",
        &[
            "The Deployment \"Web_App\" is invalid: \n* metadata.name: Invalid value: \"Web_App\": a lowercase RFC 1123 subdomain",
            "* spec.template.metadata.labels: Invalid value: {\"app\":\"web-app\"}: `selector` does not match template `labels`\n",
            "* spec.template.spec.containers[0].imagePullPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"IfNotPresent\", \"Never\"",
        ],
    ),
    (
        "replicas-as-text.yaml",
        &["Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"],
    ),
    (
        "service.yaml",
        &[
            "The Service \"shop\" is invalid: \n* spec.ports[0].name: Required value\n* spec.ports[1].name: Required value\n",
            "* spec.ports[1].port: Invalid value: 70000: must be between 1 and 65535, inclusive\n",
        ],
    ),
    (
        "unknown-field.yaml",
        &["Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: unknown field \"spec.template.spec.containers[0].portz\""],
    ),
];

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/builtins")
}

fn read(name: &str) -> String {
    let path = example().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Whether every leaf of `input` is in `output` with the same value (the defaults only add).
fn only_added(input: &Value, output: &Value, at: &str) -> Result<(), String> {
    match (input, output) {
        (Value::Object(a), Value::Object(b)) => a.iter().try_for_each(|(k, v)| match b.get(k) {
            Some(w) => only_added(v, w, &format!("{at}/{k}")),
            None => Err(format!("{at}/{k} was removed")),
        }),
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .try_for_each(|(i, (v, w))| only_added(v, w, &format!("{at}/{i}"))),
        _ if input == output => Ok(()),
        _ => Err(format!("{at} changed from {input} to {output}")),
    }
}

#[test]
fn expected_yaml_is_the_app_with_the_server_defaults_added() {
    let input = rust_yaml_docs(&read("app.yaml"));
    let expected = rust_yaml_docs(&read("expected.yaml"));
    assert_eq!(input.len(), expected.len());
    for (i, o) in input.iter().zip(&expected) {
        only_added(i, o, "").unwrap_or_else(|e| panic!("{}: {e}", i["kind"]));
    }
    // A few defaults every reader of the README can check against `kubectl get -o yaml`.
    let deployment = &expected[0];
    assert_eq!(
        deployment.pointer("/spec/template/spec/containers/0/imagePullPolicy"),
        Some(&Value::from("IfNotPresent"))
    );
    assert_eq!(
        deployment.pointer("/spec/strategy/rollingUpdate/maxSurge"),
        Some(&Value::from("25%"))
    );
    assert_eq!(
        expected[1].pointer("/spec/ports/0/targetPort"),
        Some(&Value::from("http"))
    );
    assert_eq!(
        expected[1].pointer("/spec/type"),
        Some(&Value::from("ClusterIP"))
    );
    assert_eq!(
        expected[3].pointer("/spec/successfulJobsHistoryLimit"),
        Some(&Value::from(3))
    );
}

#[test]
fn app_through_a_plain_pipeline_is_expected_yaml_and_idempotent() {
    let expected = read("expected.yaml");
    for stdin in [read("app.yaml"), expected.clone()] {
        let ran = run(
            Command::new(kadmit_bin())
                .arg("transform")
                .current_dir(example()),
            Some(stdin.as_bytes()),
        )
        .expect_success();
        assert_eq!(ran.stdout, expected, "{}", ran.describe());
    }
}

#[test]
fn each_broken_object_is_refused_with_the_servers_message() {
    let mut names: Vec<String> = std::fs::read_dir(example().join("broken"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        BROKEN
            .iter()
            .map(|(f, _)| f.to_string())
            .collect::<Vec<_>>()
    );
    for (file, messages) in BROKEN {
        let ran = run(
            Command::new(kadmit_bin())
                .arg("transform")
                .current_dir(example()),
            Some(read(&format!("broken/{file}")).as_bytes()),
        );
        assert_eq!(ran.status.code(), Some(1), "{file}\n{}", ran.describe());
        assert_eq!(ran.stdout, "", "{file}");
        for message in *messages {
            assert!(
                ran.stderr.contains(message),
                "{file}: expected {message:?}\n{}",
                ran.describe()
            );
        }
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
        "examples/builtins/expected.yaml",
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
        "{} transform",
        shell_quote(&kadmit_bin().display().to_string())
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
        "examples/builtins/expected.yaml",
        &ran.describe(),
    );
}
