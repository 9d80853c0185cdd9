//! Tricky scalars: kadmit's output must mean to a YAML 1.1 reader (PyYAML here, standing
//! in for kubectl's go-yaml v2) exactly what the input meant to kubectl.

#[path = "common/yaml_shapes.rs"]
mod yaml_shapes;

mod common;

use assert_cmd::Command;
use common::{pyyaml_load, require_python_yaml};
use serde_json::{json, Map, Value};

/// (scalar as written in the input, what kubectl reads it as, whether PyYAML reads the
/// input the same way kubectl does).
fn cases() -> Vec<(&'static str, Value, bool)> {
    vec![
        ("yes", json!(true), true),
        ("\"yes\"", json!("yes"), true),
        ("'on'", json!("on"), true),
        ("on", json!(true), true),
        ("y", json!(true), false), // PyYAML has no y/n booleans; go-yaml v2 does
        ("'y'", json!("y"), true),
        ("n", json!(false), false),
        ("NO", json!(false), true),
        ("Off", json!(false), true),
        ("'True'", json!("True"), true),
        ("0755", json!(493), true),
        ("\"0755\"", json!("0755"), true),
        ("1_000", json!(1000), true),
        ("'1_000'", json!("1_000"), true),
        ("12:30", json!("12:30"), false), // PyYAML: sexagesimal 750
        ("\"12:30\"", json!("12:30"), true),
        ("'1:20:30.5'", json!("1:20:30.5"), true),
        ("null", Value::Null, true),
        ("~", Value::Null, true),
        ("'null'", json!("null"), true),
        ("'~'", json!("~"), true),
        ("''", json!(""), true),
        ("1e3", json!(1000), false), // PyYAML: the string "1e3"
        ("'1e3'", json!("1e3"), true),
        ("1.5", json!(1.5), true),
        ("1.0", json!(1), true),
        (".5", json!(0.5), true),
        ("3.14e-10", json!(3.14e-10), true),
        ("1e30", json!(1e30), false),
        ("'0.1'", json!("0.1"), true),
        ("0x1F", json!(31), true),
        ("0o17", json!(15), false), // PyYAML: the string "0o17"
        ("'0o17'", json!("0o17"), true),
        ("0b101", json!(5), true),
        ("08", json!(8), false), // go-yaml v2: a float; PyYAML: the string "08"
        ("'08'", json!("08"), true),
        ("+12", json!(12), true),
        ("-0", json!(0), true),
        ("9223372036854775807", json!(i64::MAX), true),
        ("-9223372036854775808", json!(i64::MIN), true),
        (
            "'18446744073709551616'",
            json!("18446744073709551616"),
            true,
        ),
        ("2001-12-14", json!("2001-12-14"), false), // PyYAML: a date
        ("'2001-12-14'", json!("2001-12-14"), true),
        (
            "'2001-12-14T21:59:43.10-05:00'",
            json!("2001-12-14T21:59:43.10-05:00"),
            true,
        ),
        ("'='", json!("="), true),
        ("'<<'", json!("<<"), true),
        ("'-.inf'", json!("-.inf"), true),
        ("'.NaN'", json!(".NaN"), true),
        ("\"a\\tb\"", json!("a\tb"), true),
        ("\"line1\\nline2\\n\"", json!("line1\nline2\n"), true),
        (
            "\"  lead\\n  indented\\n\"",
            json!("  lead\n  indented\n"),
            true,
        ),
        ("\"x\\n\\n\\n\"", json!("x\n\n\n"), true),
        (
            "\"no newline at end\\nok\"",
            json!("no newline at end\nok"),
            true,
        ),
        ("\"  leading\"", json!("  leading"), true),
        ("\"trailing  \"", json!("trailing  "), true),
        ("\"#notcomment\"", json!("#notcomment"), true),
        ("\"a: b\"", json!("a: b"), true),
        ("\"a #b\"", json!("a #b"), true),
        ("\"- x\"", json!("- x"), true),
        ("\"@at\"", json!("@at"), true),
        ("\"*star\"", json!("*star"), true),
        ("\"!bang\"", json!("!bang"), true),
        ("\"%pct\"", json!("%pct"), true),
        ("\"{brace}\"", json!("{brace}"), true),
        ("\"ctrl\\u0001\"", json!("ctrl\u{1}"), true),
        ("\"nbsp\\u00a0x\"", json!("nbsp\u{a0}x"), true),
        ("ünïcödé", json!("ünïcödé"), true),
        (
            "\"quote \\\" and \\\\ backslash\"",
            json!("quote \" and \\ backslash"),
            true,
        ),
        ("nginx:1.25", json!("nginx:1.25"), true),
        ("1.2.3", json!("1.2.3"), true),
        ("100m", json!("100m"), true),
        ("--reporter.type=grpc", json!("--reporter.type=grpc"), true),
        ("-v", json!("-v"), true),
        ("'-'", json!("-"), true),
        ("'---'", json!("---"), true),
        ("'- x'", json!("- x"), true),
    ]
}

/// (key as written, the key kubectl sees)
fn key_cases() -> Vec<(&'static str, &'static str)> {
    vec![
        ("yes", "true"),
        ("'yes'", "yes"),
        ("off", "false"),
        ("'off'", "off"),
        ("1", "1"),
        ("0755", "493"),
        ("'0755'", "0755"),
        ("'12:30'", "12:30"),
        ("'null'", "null"),
        ("'1e3'", "1e3"),
        ("\"a: b\"", "a: b"),
        ("plain", "plain"),
    ]
}

fn same_meaning(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

fn input_document() -> String {
    let mut doc = String::from(
        "apiVersion: example.com/v1\nkind: Tricky\nmetadata:\n  name: scalars\nspec:\n",
    );
    for (i, (raw, _, _)) in cases().iter().enumerate() {
        doc.push_str(&format!("  k{i}: {raw}\n"));
    }
    doc.push_str("  list:\n");
    for (raw, _, _) in cases() {
        doc.push_str(&format!("  - {raw}\n"));
    }
    doc.push_str("keys:\n");
    for (i, (raw, _)) in key_cases().iter().enumerate() {
        doc.push_str(&format!("  {raw}: {i}\n"));
    }
    doc
}

fn kadmit_output(input: &str) -> String {
    kadmit_output_with(&[], input)
}

fn kadmit_output_with(args: &[&str], input: &str) -> String {
    let out = Command::cargo_bin("kadmit")
        .unwrap()
        .arg("transform")
        .args(args)
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn pyyaml_reads_kadmit_output_as_kubectl_read_the_input() {
    if !require_python_yaml() {
        return;
    }
    let input = input_document();
    let output = kadmit_output(&input);
    let read_back = &pyyaml_load(&output)[0];
    let read_input = &pyyaml_load(&input)[0];
    let mut failures = Vec::new();
    for (i, (raw, kubectl, pyyaml_agrees)) in cases().into_iter().enumerate() {
        let got = &read_back["spec"][format!("k{i}")];
        if !same_meaning(got, &kubectl) {
            failures.push(format!(
                "{raw}: kubectl reads {kubectl}, PyYAML reads kadmit's output as {got}"
            ));
        }
        let in_list = &read_back["spec"]["list"][i];
        if !same_meaning(in_list, &kubectl) {
            failures.push(format!(
                "{raw} in a list: expected {kubectl}, got {in_list}"
            ));
        }
        let input_meaning = &read_input["spec"][format!("k{i}")];
        if pyyaml_agrees && !same_meaning(input_meaning, got) {
            failures.push(format!(
                "{raw}: PyYAML read the input as {input_meaning} but the output as {got}"
            ));
        }
    }
    for (i, (raw, kubectl_key)) in key_cases().into_iter().enumerate() {
        if read_back["keys"].get(kubectl_key) != Some(&json!(i)) {
            failures.push(format!(
                "key {raw}: expected key {kubectl_key:?} in {}",
                read_back["keys"]
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n--- output ---\n{output}",
        failures.join("\n")
    );
}

#[test]
fn kadmit_output_is_a_fixed_point() {
    let once = kadmit_output(&input_document());
    let twice = kadmit_output(&once);
    assert_eq!(
        once, twice,
        "running the output through kadmit again changes nothing"
    );
}

/// Every awkward string (document markers, long keys, indicators, YAML 1.1 scalars, control
/// characters, line breaks...) as a top-level key, a value, a nested key and a list item:
/// PyYAML reads kadmit's output as the JSON that went in.
#[test]
fn pyyaml_reads_every_string_shape_as_kadmit_wrote_it() {
    if !require_python_yaml() {
        return;
    }
    let mut object = Map::new();
    object.insert("apiVersion".into(), json!("v1"));
    object.insert("kind".into(), json!("ConfigMap"));
    object.insert("metadata".into(), json!({"name": "shapes"}));
    let mut data = Map::new();
    let mut list = Vec::new();
    for shape in yaml_shapes::string_shapes() {
        object.insert(shape.clone(), json!(shape));
        data.insert(shape.clone(), json!(shape));
        list.push(json!([shape, { shape.clone(): shape }]));
    }
    object.insert("data".into(), Value::Object(data));
    object.insert("list".into(), Value::Array(list));
    let input = Value::Object(object);
    // A synthetic ConfigMap (keys beside data, lists): the YAML is what this test is about,
    // not built-in admission.
    let output = kadmit_output_with(&["--no-builtins"], &input.to_string());
    let read_back = &pyyaml_load(&output)[0];
    let mut failures = Vec::new();
    for (key, value) in input.as_object().unwrap() {
        if read_back.get(key) != Some(value) {
            failures.push(format!("{key:?}: PyYAML read {:?}", read_back.get(key)));
        }
    }
    assert!(
        failures.is_empty() && read_back == &input,
        "{}\n--- output ---\n{output}",
        failures.join("\n")
    );
}
