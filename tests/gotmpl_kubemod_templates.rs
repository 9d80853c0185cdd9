//! KubeMod's templates through kadmit's Go template engine: every patch `value` and
//! `rejectMessage` in the KubeMod fixtures parses exactly when KubeMod's does (after
//! KubeMod's `.#N` → `(index .SelectKeyParts N)` rewrite), and the templated cases render
//! what `cases.yaml` expects.

mod common;

use kadmit_gotmpl::{parse, Data, Template};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/peer-fixtures/kubemod")
}

fn read_yaml(path: &Path) -> Vec<Value> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (docs, problems) =
        kadmit::testing::core::decode::decode_all(&bytes, &Arc::from(path.display().to_string()));
    assert!(problems.is_empty(), "{}: {problems:?}", path.display());
    docs.into_iter().map(|d| d.value).collect()
}

fn resource(name: &str) -> Value {
    let path = fixtures()
        .join("core/testdata/resources")
        .join(format!("{name}.json"));
    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap()
}

/// KubeMod's `util.PreProcessModRuleGoTemplate`.
fn preprocess(text: &str) -> String {
    regex::Regex::new(r"\.#(\d+)")
        .unwrap()
        .replace_all(text, "(index .SelectKeyParts $1)")
        .into_owned()
}

/// A ModRule scalar as the string field KubeMod reads it into.
fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// Every (file, template name, text) in the ModRule fixtures.
fn templates() -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for kind in ["patch", "reject"] {
        let dir = fixtures().join("core/testdata/modrules").join(kind);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
            .collect();
        files.sort();
        for file in files {
            let stem = file.file_stem().unwrap().to_string_lossy().to_string();
            for doc in read_yaml(&file) {
                let spec = &doc["spec"];
                if let Some(text) = scalar_text(&spec["rejectMessage"]) {
                    out.push((stem.clone(), "rejectMessage".to_string(), text));
                }
                for item in spec["patch"].as_array().into_iter().flatten() {
                    if let Some(text) = scalar_text(&item["value"]) {
                        let name = item["path"].as_str().unwrap_or_default().to_string();
                        out.push((stem.clone(), name, text));
                    }
                }
            }
        }
    }
    out
}

fn cases() -> Value {
    read_yaml(&fixtures().join("cases.yaml")).remove(0)
}

fn case<'a>(cases: &'a Value, section: &str, id: &str) -> &'a Value {
    cases[section]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no case {id}"))
}

#[test]
fn every_fixture_template_parses_as_kubemod_does() {
    if !common::peer_fixtures_present("kubemod") {
        return;
    }
    let cases = cases();
    let load_error = case(
        &cases,
        "determine_rejections",
        "reject-08-bad-reject-message-1-service-3",
    )["expected_load_error"]
        .as_str()
        .unwrap()
        .trim_start_matches("failed to add ModRule to ModRuleStore: ")
        .to_string();
    let all = templates();
    assert_eq!(
        all.len(),
        41,
        "every value and rejectMessage in the fixtures"
    );
    let mut templated = 0;
    for (file, name, text) in &all {
        let text = preprocess(text);
        if text.contains("{{") {
            templated += 1;
        }
        let parsed = parse(name, &text);
        if file == "bad-reject-message-1" {
            assert_eq!(parsed.unwrap_err().message, load_error, "{file}");
        } else {
            assert!(parsed.is_ok(), "{file} {name}: {:?}", parsed.err());
        }
    }
    assert_eq!(templated, 10, "templated values and messages");
}

#[test]
fn preprocessing_matches_kubemod_unit_row() {
    if !common::peer_fixtures_present("kubemod") {
        return;
    }
    let cases = cases();
    let row = &cases["template_preprocess"][0];
    assert_eq!(
        preprocess(row["input"].as_str().unwrap()),
        row["expected"].as_str().unwrap()
    );
}

fn template_of(file: &str, name: &str) -> Template {
    let (_, name, text) = templates()
        .into_iter()
        .find(|(f, n, _)| f == file && n == name)
        .unwrap_or_else(|| panic!("no template {file} {name}"));
    parse(&name, &preprocess(&text)).unwrap()
}

fn patch_context<'a>(
    target: &'a Value,
    selected: Option<&'a Value>,
    keys: Vec<Data<'a>>,
) -> Data<'a> {
    Data::Map(vec![
        ("Target".into(), Data::Json(target)),
        ("Namespace".into(), Data::String("my-namespace".into())),
        (
            "SelectedItem".into(),
            selected.map(Data::Json).unwrap_or(Data::Nil),
        ),
        ("SelectKeyParts".into(), Data::List(keys)),
    ])
}

fn expected_value(cases: &Value, id: &str, path: &str) -> Value {
    case(cases, "calculate_patch", id)["expected_patch"]
        .as_array()
        .unwrap()
        .iter()
        .find(|op| op["path"] == path)
        .unwrap_or_else(|| panic!("{id}: no op at {path}"))["value"]
        .clone()
}

#[test]
fn reject_messages_render_like_kubemod() {
    if !common::peer_fixtures_present("kubemod") {
        return;
    }
    let cases = cases();
    let target = resource("service-3");
    let ctx = Data::Map(vec![
        ("Target".into(), Data::Json(&target)),
        ("Namespace".into(), Data::String("my-namespace".into())),
    ]);
    for (id, file) in [
        (
            "reject-03-boolean-service-malicious-external-ips-1-service-3",
            "boolean-service-malicious-external-ips-1",
        ),
        (
            "reject-07-boolean-service-malicious-external-ips-3-service-3",
            "boolean-service-malicious-external-ips-3",
        ),
    ] {
        let expected = case(&cases, "determine_rejections", id)["expected_rejections"][0]
            .as_str()
            .unwrap()
            .to_string();
        let message = expected
            .strip_prefix("my-namespace/modrule-1: \"")
            .and_then(|m| m.strip_suffix('"'))
            .unwrap();
        let rendered = template_of(file, "rejectMessage")
            .execute_data(&ctx)
            .unwrap();
        assert_eq!(rendered, message, "{id}");
    }
    // bad-reject-message-2 parses but fails to execute: KubeMod then reports only <ns>/<name>.
    let err = template_of("bad-reject-message-2", "rejectMessage")
        .execute_data(&ctx)
        .unwrap_err();
    assert_eq!(
        err.message,
        "template: rejectMessage:1:61: executing \"rejectMessage\" at <index .Target 1>: error calling index: value has type int; should be string"
    );
    let expected = &case(
        &cases,
        "determine_rejections",
        "reject-09-bad-reject-message-2-service-3",
    )["expected_rejections"];
    assert_eq!(expected[0], "my-namespace/modrule-1");
}

#[test]
fn patch_1_renders_namespace_and_generate_name() {
    if !common::peer_fixtures_present("kubemod") {
        return;
    }
    let cases = cases();
    let target = resource("pod-1");
    let out = template_of("patch-1", "/spec/securityContext")
        .execute_data(&patch_context(&target, None, vec![]))
        .unwrap();
    let hello = expected_value(
        &cases,
        "calc-01-patch-1-pod-1",
        "/spec/securityContext/hello",
    );
    let hello2 = expected_value(
        &cases,
        "calc-01-patch-1-pod-1",
        "/spec/securityContext/hello2",
    );
    assert_eq!(
        out,
        format!(
            "runAsNonRoot: false\nrunAsUser: 1000\nhello: {}\nhello2: {}",
            hello.as_str().unwrap(),
            hello2.as_str().unwrap()
        )
    );
}

#[test]
fn patch_8_uses_select_key_parts() {
    if !common::peer_fixtures_present("kubemod") {
        return;
    }
    let cases = cases();
    let target = resource("pod-5");
    let tmpl = template_of("patch-8", "/spec/containers/#0/ports");
    let containers = target["spec"]["containers"].as_array().unwrap();
    for (i, c) in containers.iter().enumerate() {
        for (j, port) in c["ports"].as_array().unwrap().iter().enumerate() {
            let keys = vec![Data::Int(i as i64), Data::Int(j as i64)];
            let out = tmpl
                .execute_data(&patch_context(&target, Some(port), keys))
                .unwrap();
            let name = expected_value(
                &cases,
                "calc-08-patch-8-pod-5",
                &format!("/spec/containers/{i}/ports/0/name"),
            );
            assert_eq!(
                out,
                format!(
                    "- containerPort: 1234\n  protocol: TCP\n  name: {}",
                    name.as_str().unwrap()
                )
            );
        }
    }
}

#[test]
fn patches_11_and_12_rewrite_images_with_sprig() {
    if !common::peer_fixtures_present("kubemod") {
        return;
    }
    let cases = cases();
    let target = resource("pod-6");
    let repo1 = regex::Regex::new("repo1/.+").unwrap();
    for (file, id, whole_container) in [
        ("patch-11", "calc-13-patch-11-pod-6", true),
        ("patch-12", "calc-14-patch-12-pod-6", false),
    ] {
        let tmpl = template_of(file, "/spec/containers/#0/image");
        let mut rendered = 0;
        for (i, c) in target["spec"]["containers"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
        {
            if !repo1.is_match(c["image"].as_str().unwrap()) {
                continue;
            }
            let selected = if whole_container { c } else { &c["image"] };
            let out = tmpl
                .execute_data(&patch_context(
                    &target,
                    Some(selected),
                    vec![Data::Int(i as i64)],
                ))
                .unwrap();
            let want = expected_value(&cases, id, &format!("/spec/containers/{i}/image"));
            assert_eq!(out, want.as_str().unwrap(), "{id} container {i}");
            rendered += 1;
        }
        assert_eq!(rendered, 2, "{id}");
    }
}

#[test]
fn patch_33_reads_synthetic_node_labels() {
    if !common::peer_fixtures_present("kubemod") {
        return;
    }
    let cases = cases();
    let webhook = &cases["webhook"][0];
    let mut target = resource("pod-7");
    target["syntheticRefs"] =
        serde_json::json!({"node": webhook["synthetic_refs"]["node"].clone()});
    for (path, label) in [
        (
            "/metadata/labels/topology.kubernetes.io~1region",
            "topology.kubernetes.io/region",
        ),
        (
            "/metadata/labels/topology.kubernetes.io~1zone",
            "topology.kubernetes.io/zone",
        ),
    ] {
        let out = template_of("patch-33", path)
            .execute_data(&patch_context(&target, None, vec![]))
            .unwrap();
        let want = webhook["expected_patch"]
            .as_array()
            .unwrap()
            .iter()
            .find(|op| op["path"] == path)
            .unwrap()["value"]
            .clone();
        assert_eq!(out, format!("\"{}\"", want.as_str().unwrap()), "{label}");
    }
}
