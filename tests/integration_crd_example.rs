//! examples/crd every way its README runs it: through the real
//! `kubectl kustomize --enable-alpha-plugins` (the valid Databases, and the invalid ones
//! failing the build), through the kadmit binary as kustomize calls it (the legacy plugin
//! protocol, with the PolicySet's `argsOneLiner`), and as a plain pipeline
//! (`kadmit transform --crd crd.yaml < valid/x.yaml`). The valid outputs must hold the
//! documents of expected.yaml, compared as parsed documents; each invalid Database must be
//! refused (exit 1) with its own message.
//!
//! The kubectl tests skip loudly without kubectl (or python3 + PyYAML, the independent YAML
//! reader) and fail instead under `CI=true`.

mod common;

use common::{
    kadmit_bin, require_python_yaml, require_tool, run, rust_yaml_docs, write, yaml_docs,
};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Every file of invalid/ with what kadmit must say about it (kubectl's text).
const INVALID: &[(&str, &[&str])] = &[
    (
        "admin-privilege.yaml",
        &[r#"The Database "admin-privilege" is invalid: spec.users[0]: Invalid value: only users named admin_* may have the admin privilege"#],
    ),
    (
        "duplicate-user.yaml",
        &[r#"The Database "duplicate-user" is invalid: spec.users[1]: Duplicate value: {"name":"app"}"#],
    ),
    (
        "ephemeral-backup.yaml",
        &[r#"The Database "ephemeral-backup" is invalid: spec: Invalid value: backups need persistent storage, not the ephemeral class"#],
    ),
    (
        "even-replicas.yaml",
        &[r#"The Database "even-replicas" is invalid: spec.replicas: Invalid value: replicas must be odd so that a quorum exists, got 2"#],
    ),
    (
        "missing-storage.yaml",
        &[
            "The Database \"missing-storage\" is invalid: \n* spec.storage: Required value\n",
            "* <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
        ],
    ),
    (
        "unknown-field.yaml",
        &[r#"Database in version "v1" cannot be handled as a Database: strict decoding error: unknown field "spec.replica""#],
    ),
    (
        "unsupported-engine.yaml",
        &[
            "The Database \"unsupported-engine\" is invalid: \n* spec.engine: Unsupported value: \"oracle\": supported values: \"postgres\", \"mysql\"\n",
            "* <nil>: Invalid value: null: some validation rules were not checked",
        ],
    ),
];

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/crd")
}

fn read(name: &str) -> String {
    let path = example().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The files of a directory of the example, by name.
fn files_in(dir: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(example().join(dir))
        .unwrap_or_else(|e| panic!("cannot list {dir}: {e}"))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `got` holds the same documents as examples/crd/expected.yaml, in any order.
fn assert_expected(got: &[Value], expected: &[Value], ran: &str) {
    common::assert_same_documents(got, expected, "examples/crd/expected.yaml", ran);
}

/// The kustomization's `namespace:` and its `resources:`.
fn kustomization() -> (String, Vec<String>) {
    let docs = rust_yaml_docs(&read("kustomization.yaml"));
    let k = &docs[0];
    let namespace = k["namespace"].as_str().expect("a namespace").to_owned();
    let resources = k["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .map(|r| r.as_str().unwrap().to_owned())
        .collect();
    (namespace, resources)
}

/// The arguments kustomize appends from admission.yaml's `argsOneLiner` (no quoting in it).
fn args_one_liner() -> Vec<String> {
    let docs = rust_yaml_docs(&read("admission.yaml"));
    docs[0]["argsOneLiner"]
        .as_str()
        .expect("argsOneLiner")
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

/// The document of expected.yaml named `name`, without the namespace kustomize set.
fn expected_without_namespace(name: &str) -> Value {
    let mut doc = rust_yaml_docs(&read("expected.yaml"))
        .into_iter()
        .find(|d| d["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in expected.yaml"));
    doc["metadata"]
        .as_object_mut()
        .unwrap()
        .shift_remove("namespace");
    doc
}

/// Every leaf of `doc` as (JSON Pointer, value).
fn leaves(doc: &Value, at: String, out: &mut BTreeMap<String, Value>) {
    match doc {
        Value::Object(map) if !map.is_empty() => {
            for (k, v) in map {
                leaves(v, format!("{at}/{k}"), out);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for (i, v) in items.iter().enumerate() {
                leaves(v, format!("{at}/{i}"), out);
            }
        }
        _ => {
            out.insert(at, doc.clone());
        }
    }
}

/// expected.yaml is the valid Databases with their defaults: every field they set is kept,
/// and what was added is exactly the schema defaults the README names (so regenerating it
/// cannot quietly turn the example into a pass-through or drop a field).
#[test]
fn expected_yaml_is_the_valid_databases_with_their_defaults() {
    let (namespace, resources) = kustomization();
    let mut listed = resources.clone();
    listed.sort();
    assert_eq!(
        listed,
        files_in("valid")
            .iter()
            .map(|f| format!("valid/{f}"))
            .collect::<Vec<_>>(),
        "the kustomization builds every valid Database"
    );
    let expected = rust_yaml_docs(&read("expected.yaml"));
    assert!(
        expected.iter().all(|d| d["kind"] == "Database"),
        "the CRD given with --crd is not a resource of the build"
    );
    let mut added = BTreeMap::new();
    for file in &resources {
        let input = &rust_yaml_docs(&read(file))[0];
        let name = input["metadata"]["name"].as_str().unwrap();
        let output = expected
            .iter()
            .find(|d| d["metadata"]["name"] == name)
            .unwrap_or_else(|| panic!("{name} is not in expected.yaml"));
        assert_eq!(output["metadata"]["namespace"], namespace.as_str());
        let (mut before, mut after) = (BTreeMap::new(), BTreeMap::new());
        leaves(input, String::new(), &mut before);
        leaves(output, String::new(), &mut after);
        for (pointer, value) in &before {
            let got = output.pointer(pointer);
            match value {
                // An empty object the defaults may fill (`backup: {}`).
                Value::Object(_) => assert!(
                    got.is_some_and(Value::is_object),
                    "{name} {pointer} was changed"
                ),
                _ => assert_eq!(got, Some(value), "{name} {pointer} was changed"),
            }
        }
        for (pointer, value) in after {
            if !before.contains_key(&pointer) && pointer != "/metadata/namespace" {
                added.insert(format!("{name} {pointer}"), value);
            }
        }
    }
    let want: BTreeMap<String, Value> = [
        ("analytics /spec/version", Value::from("16")),
        ("analytics /spec/replicas", Value::from(1)),
        ("analytics /spec/storage/class", Value::from("standard")),
        ("analytics /spec/backup/schedule", Value::from("0 3 * * *")),
        ("analytics /spec/backup/retentionDays", Value::from(7)),
        ("orders /spec/users/2/privileges/0", Value::from("read")),
        ("sessions /spec/replicas", Value::from(1)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    assert_eq!(added, want, "the defaults expected.yaml adds");
}

/// The README's plain pipeline: each valid Database through `kadmit transform --crd
/// crd.yaml` comes out as in expected.yaml (without the namespace kustomize sets), and
/// `--report -` lists what the defaults set.
#[test]
fn valid_databases_through_a_plain_pipeline() {
    for file in files_in("valid") {
        let input = read(&format!("valid/{file}"));
        let ran = run(
            Command::new(kadmit_bin())
                .args(["transform", "--crd", "crd.yaml"])
                .current_dir(example()),
            Some(input.as_bytes()),
        )
        .expect_success();
        let got = rust_yaml_docs(&ran.stdout);
        assert_eq!(got.len(), 1, "{}", ran.describe());
        let name = got[0]["metadata"]["name"].as_str().unwrap().to_owned();
        assert_eq!(
            got[0],
            expected_without_namespace(&name),
            "{file}\n{}",
            ran.describe()
        );
        assert!(
            !ran.stderr.contains("error"),
            "{file} has no error\n{}",
            ran.describe()
        );
    }

    let ran = run(
        Command::new(kadmit_bin())
            .args(["transform", "--crd", "crd.yaml", "--report", "-"])
            .current_dir(example()),
        Some(read("valid/orders.yaml").as_bytes()),
    )
    .expect_success();
    let report_start = ran.stderr.find("\n{").expect("a JSON report on stderr") + 1;
    let report: Value = serde_json::from_str(&ran.stderr[report_start..])
        .unwrap_or_else(|e| panic!("{e}\n{}", ran.describe()));
    assert_eq!(
        report["changes"][0]["changes"],
        serde_json::json!([{
            "path": "/spec/users/2/privileges",
            "rule": "CustomResourceDefinition databases.db.example.com"
        }]),
        "{}",
        ran.describe()
    );
    // The README says the transition rule is skipped on create, with a warning.
    assert!(
        ran.stderr.contains(
            "warning: Database orders: 1 transition rule(s) (oldSelf) not evaluated: they run on update only"
        ),
        "{}",
        ran.describe()
    );
}

/// What `kubectl kustomize` does, without kubectl: the plugin entry is called with the
/// PolicySet's path and the `argsOneLiner` arguments, in the kustomization's directory, with
/// the resources (namespace already set) on stdin.
#[test]
fn example_through_the_binary_as_a_kustomize_plugin() {
    let (namespace, resources) = kustomization();
    let mut stream = String::new();
    for file in &resources {
        let mut doc = rust_yaml_docs(&read(file)).remove(0);
        doc["metadata"]["namespace"] = Value::from(namespace.clone());
        stream.push_str("---\n");
        stream.push_str(&serde_yaml::to_string(&doc).unwrap());
    }
    let ran = run(
        Command::new(kadmit_bin())
            .arg(example().join("admission.yaml"))
            .args(args_one_liner())
            .env("KUSTOMIZE_PLUGIN_CONFIG_ROOT", example())
            .current_dir(example()),
        Some(stream.as_bytes()),
    )
    .expect_success();
    assert_expected(
        &rust_yaml_docs(&ran.stdout),
        &rust_yaml_docs(&read("expected.yaml")),
        &ran.describe(),
    );
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
fn the_table_covers_every_invalid_database() {
    assert_eq!(
        INVALID
            .iter()
            .map(|(f, _)| f.to_string())
            .collect::<Vec<_>>(),
        files_in("invalid")
    );
}

/// Each invalid Database alone: exit 1, nothing on stdout, kubectl's message on stderr.
#[test]
fn each_invalid_database_is_refused_with_its_message() {
    for (file, messages) in INVALID {
        let ran = run(
            Command::new(kadmit_bin())
                .args(["transform", "--crd", "crd.yaml"])
                .current_dir(example()),
            Some(read(&format!("invalid/{file}")).as_bytes()),
        );
        assert_eq!(ran.status.code(), Some(1), "{file}\n{}", ran.describe());
        assert_eq!(ran.stdout, "", "{file}\n{}", ran.describe());
        for message in *messages {
            assert!(
                ran.stderr.contains(message),
                "{file}: expected {message:?}\n{}",
                ran.describe()
            );
        }
        assert_eq!(
            ran.stderr
                .lines()
                .filter(|l| l.starts_with("error: "))
                .count(),
            1,
            "{file} is broken in one way\n{}",
            ran.describe()
        );
    }
}

/// The unknown field is an error only under Strict: Warn prunes it with a warning (and the
/// Database is then valid), Ignore prunes it silently.
#[test]
fn the_unknown_field_under_warn_and_ignore() {
    let input = read("invalid/unknown-field.yaml");
    for (mode, warns) in [("Warn", true), ("Ignore", false)] {
        let ran = run(
            Command::new(kadmit_bin())
                .args(["transform", "--crd", "crd.yaml", "--field-validation", mode])
                .current_dir(example()),
            Some(input.as_bytes()),
        )
        .expect_success();
        let got = rust_yaml_docs(&ran.stdout);
        assert_eq!(got.len(), 1, "{}", ran.describe());
        assert_eq!(got[0]["spec"].get("replica"), None, "{}", ran.describe());
        assert_eq!(got[0]["spec"]["replicas"], 1, "{}", ran.describe());
        assert_eq!(
            ran.stderr.contains(r#"unknown field "spec.replica""#),
            warns,
            "{mode}\n{}",
            ran.describe()
        );
    }
}

/// All the invalid Databases in one kustomization: the build fails, and kustomize shows
/// kadmit's message for every one of them.
#[test]
fn invalid_databases_fail_the_kustomize_build() {
    if !require_tool("kubectl") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("invalid");
    write(&dir, "crd.yaml", &read("crd.yaml"));
    write(&dir, "admission.yaml", &read("admission.yaml"));
    let mut kustomization = String::from("resources:\n");
    for (file, _) in INVALID {
        write(&dir, file, &read(&format!("invalid/{file}")));
        kustomization.push_str(&format!("- {file}\n"));
    }
    kustomization.push_str("transformers:\n- admission.yaml\n");
    write(&dir, "kustomization.yaml", &kustomization);
    let home = common::plugin_home(&[]);
    let ran = common::kubectl_kustomize(&dir, home.path());
    assert!(!ran.success(), "{}", ran.describe());
    assert_eq!(ran.stdout, "", "{}", ran.describe());
    assert!(
        ran.stderr.contains("exit status 1"),
        "kadmit's exit code reaches kustomize\n{}",
        ran.describe()
    );
    for (file, messages) in INVALID {
        // kustomize indents kadmit's stderr by a tab: compare line by line.
        for message in *messages {
            for line in message.lines().filter(|l| !l.is_empty()) {
                assert!(
                    ran.stderr.contains(line),
                    "{file}: expected {line:?}\n{}",
                    ran.describe()
                );
            }
        }
    }
}
