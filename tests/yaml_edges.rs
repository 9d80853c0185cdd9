//! Edges of the YAML reader and writer found by fuzzing and by real-world manifests: no
//! panic on any scalar, output every reader accepts (document markers, long keys), go-yaml's
//! refusal of control characters, and two places where go-yaml v2 (kubectl) is laxer than
//! YAML 1.2.

#[path = "common/yaml_shapes.rs"]
mod yaml_shapes;

use assert_cmd::Command;
use kadmit::testing::core::decode::decode_all;
use kadmit::testing::io::encode::{Encoder, Format};
use serde_json::{json, Map, Value};
use std::sync::Arc;

fn kadmit() -> Command {
    let mut cmd = Command::cargo_bin("kadmit").expect("binary builds");
    cmd.env_remove("KUSTOMIZE_PLUGIN_CONFIG_ROOT");
    cmd
}

/// `kadmit transform [args]` on `input`: (exit code, stdout, stderr).
fn run(args: &[&str], input: impl Into<Vec<u8>>) -> (i32, String, String) {
    let out = kadmit()
        .arg("transform")
        .args(args)
        .write_stdin(input.into())
        .output()
        .expect("kadmit runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("utf-8 stdout"),
        String::from_utf8(out.stderr).expect("utf-8 stderr"),
    )
}

/// The items kadmit reads from `input` (`-o json`), or its error.
fn items(input: impl Into<Vec<u8>>) -> Result<Vec<Value>, String> {
    items_with(&[], input)
}

/// `items` with built-in admission off, for synthetic ConfigMaps (top-level keys beside
/// `data`, `data` values that are not strings): what those tests read and write is YAML.
fn items_no_builtins(input: impl Into<Vec<u8>>) -> Result<Vec<Value>, String> {
    items_with(&["--no-builtins"], input)
}

fn items_with(args: &[&str], input: impl Into<Vec<u8>>) -> Result<Vec<Value>, String> {
    let args: Vec<&str> = args.iter().copied().chain(["-o", "json"]).collect();
    let (code, stdout, stderr) = run(&args, input);
    if code != 0 {
        return Err(format!("exit {code}: {stderr}"));
    }
    let list: Value = serde_json::from_str(&stdout).expect("a JSON list");
    Ok(list["items"].as_array().expect("items").clone())
}

fn config_map(data: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n{data}")
}

// 1. Plain scalars: a digit then a multi-byte character ------------------------------------

#[test]
fn a_digit_before_a_multi_byte_character_is_a_string_not_a_panic() {
    // Was a panic (exit 101): `end byte index 2 is not a char boundary; it is inside '°'`.
    let input = config_map("  low: 5°C\n  range: 1–2\n  time: 9µs\n  o: 0ó\n  neg: -1é\n");
    let got = items(input).unwrap();
    assert_eq!(
        got[0]["data"],
        json!({"low": "5°C", "range": "1–2", "time": "9µs", "o": "0ó", "neg": "-1é"})
    );
}

#[test]
fn a_kubemod_patch_value_with_an_en_dash_is_a_string() {
    let input = "apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: {name: t, namespace: default}
spec:
  type: Patch
  match:
  - select: '$.kind'
    matchValue: ConfigMap
  patch:
  - op: add
    path: /data/x
    value: '1–2'
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: default}
data: {a: b}
";
    let got = items(input).unwrap();
    assert_eq!(got[0]["data"], json!({"a": "b", "x": "1–2"}));
}

#[test]
fn the_three_byte_fuzz_input_is_an_error_not_a_panic() {
    let (code, _, stderr) = run(&[], b"7\xcb\x8f".to_vec());
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("must be a mapping"), "{stderr}");
}

#[test]
fn kadmit_reads_its_own_output_of_a_multi_byte_value() {
    let json =
        r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"5°C"}}"#;
    let (code, yaml, stderr) = run(&[], json);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(items(yaml).unwrap()[0]["data"], json!({"a": "5°C"}));
}

// 2. The writer: output every reader accepts --------------------------------------------

#[test]
fn a_top_level_key_starting_with_a_document_marker_is_quoted() {
    // Synthetic ConfigMaps (keys beside data, values that are not strings): the YAML is
    // what this test is about, not built-in admission.
    // The tag makes kadmit write the document anew (an untouched document every reader
    // reads alike comes back as it was written).
    let input = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: !!str c\n'... x': 1\n'--- y': 2\n'...': 3\n";
    let (code, yaml, stderr) = run(&["--no-builtins"], input);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        yaml.contains("\n\"... x\": 1\n\"--- y\": 2\n\"...\": 3\n"),
        "{yaml}"
    );
    let got = items_no_builtins(yaml).unwrap();
    assert_eq!((&got[0]["... x"], &got[0]["--- y"]), (&json!(1), &json!(2)));
}

#[test]
fn a_key_longer_than_1024_characters_is_written_as_an_explicit_key() {
    // Synthetic ConfigMaps (keys beside data, values that are not strings): the YAML is
    // what this test is about, not built-in admission.
    let long = "a".repeat(1100);
    let escaped = "\u{1a}".repeat(200); // written as 200 x `\u001A`: 1,202 characters
    let input = json!({
        "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"},
        "data": {long.clone(): "v", escaped.clone(): {"m": [1]}, "short": "s"},
    });
    let (code, yaml, stderr) = run(&["--no-builtins"], input.to_string());
    assert_eq!(code, 0, "{stderr}");
    assert!(yaml.contains(&format!("  ? {long}\n  : v\n")), "{yaml}");
    assert!(
        yaml.contains("\n  :\n    m:\n    - 1\n  short: s\n"),
        "{yaml}"
    );
    assert_eq!(items_no_builtins(yaml).unwrap()[0], input);
}

fn documents_for(shape: &str) -> Vec<Value> {
    let s = shape.to_owned();
    let mut top = Map::new();
    top.insert("apiVersion".into(), json!("v1"));
    top.insert(s.clone(), json!("v"));
    vec![
        json!({ "k": s }),
        Value::Object(top),
        json!({ "n": { s.clone(): s } }),
        json!({ "l": [s, { s.clone(): s }, [s], { "m": { s.clone(): [s] } }] }),
        json!(s),
        json!([s, { s.clone(): s }]),
    ]
}

/// Writes `documents` in `format` and reads the output back.
fn write_then_read(format: Format, documents: &[Value], config: Option<&Value>) -> String {
    let mut encoder = Encoder::new(format);
    for document in documents {
        encoder.push(document);
    }
    encoder.finish(config, &[])
}

fn read(text: &str) -> Result<Vec<Value>, String> {
    let (docs, problems) = decode_all(text.as_bytes(), &Arc::from("output"));
    match problems.first() {
        Some(p) => Err(p.message.clone()),
        None => Ok(docs.into_iter().map(|d| d.value).collect()),
    }
}

#[test]
fn every_string_shape_reads_back_as_written() {
    let mut failures = Vec::new();
    for shape in yaml_shapes::string_shapes() {
        let documents = documents_for(&shape);
        // A YAML stream: keys and values at the top level and nested, scalar documents.
        let yaml = write_then_read(Format::Yaml, &documents, None);
        match read(&yaml) {
            Ok(back) if back == documents => {}
            Ok(back) => failures.push(format!("{shape:?} (YAML): read back {back:?}\n{yaml}")),
            Err(e) => failures.push(format!("{shape:?} (YAML): {e}\n{yaml}")),
        }
        // A ResourceList: items one level down, functionConfig two spaces in.
        let objects: Vec<Value> = documents
            .iter()
            .filter(|d| d.is_object())
            .cloned()
            .collect();
        let config = json!({ shape.clone(): shape, "k": { shape.clone(): [shape] } });
        let list = write_then_read(Format::ResourceList, &objects, Some(&config));
        let expected = json!({
            "apiVersion": "config.kubernetes.io/v1",
            "kind": "ResourceList",
            "items": objects,
            "functionConfig": config,
        });
        match read(&list) {
            Ok(back) if back == [expected.clone()] => {}
            Ok(back) => failures.push(format!("{shape:?} (ResourceList): {back:?}\n{list}")),
            Err(e) => failures.push(format!("{shape:?} (ResourceList): {e}\n{list}")),
        }
        // Writing what was read gives the same text (the output is a fixed point).
        if let Ok(back) = read(&yaml) {
            let again = write_then_read(Format::Yaml, &back, None);
            if again != yaml {
                failures.push(format!("{shape:?}: not a fixed point\n{yaml}\n{again}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_string_shape_survives_the_binary_from_json_to_yaml_and_back() {
    // Synthetic ConfigMaps (keys beside data, values that are not strings): the YAML is
    // what this test is about, not built-in admission.
    let mut object = Map::new();
    object.insert("apiVersion".into(), json!("v1"));
    object.insert("kind".into(), json!("ConfigMap"));
    object.insert("metadata".into(), json!({"name": "shapes"}));
    let mut data = Map::new();
    let mut list = Vec::new();
    for (i, shape) in yaml_shapes::string_shapes().into_iter().enumerate() {
        object.insert(format!("~{shape}"), json!(i)); // top-level keys, beside the others
        object.insert(shape.clone(), json!(shape));
        data.insert(shape.clone(), json!(shape));
        list.push(json!({ shape.clone(): [shape] }));
    }
    object.insert("data".into(), Value::Object(data));
    object.insert("list".into(), Value::Array(list));
    let input = Value::Object(object);
    let (code, yaml, stderr) = run(&["--no-builtins"], input.to_string());
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        items_no_builtins(yaml.clone()).unwrap(),
        vec![input],
        "{yaml}"
    );
}

// 3. Control characters and a JSON stream with a separator --------------------------------

#[test]
fn control_characters_are_refused_as_go_yaml_refuses_them() {
    for c in [
        "\u{1a}", "\u{0}", "\u{7f}", "\u{80}", "\u{9f}", "\u{b}", "\u{c}", "\u{fffe}",
    ] {
        let input = config_map(&format!("  a: x{c}y\n"));
        let (code, stdout, stderr) = run(&[], input);
        assert_eq!(code, 2, "{c:?}: {stdout}");
        assert_eq!(
            stderr,
            "error: cannot read YAML: control characters are not allowed [stdin, document 1, line 6]\n",
            "{c:?}"
        );
    }
    // In a comment, and in a document with only a comment, as kubectl: still refused.
    let (code, _, stderr) = run(&[], config_map("  a: b # \u{1}\n"));
    assert_eq!(code, 2, "{stderr}");
    let (code, _, stderr) = run(&[], config_map("  a: b\n---\n# \u{1}\n"));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("control characters are not allowed [stdin, document 2, line 8]"),
        "{stderr}"
    );
}

#[test]
fn tab_nel_and_non_ascii_spaces_are_allowed() {
    let input =
        config_map("  a: \"x\ty\"\n  b: x\u{a0}y\n  c: x\u{fdd0}\u{10ffff}\n  d: \"\u{feff}\"\r\n");
    let got = items(input).unwrap();
    assert_eq!(
        got[0]["data"],
        json!({"a": "x\ty", "b": "x\u{a0}y", "c": "x\u{fdd0}\u{10ffff}", "d": "\u{feff}"})
    );
}

#[test]
fn escaped_control_characters_are_read_and_written_escaped() {
    let got = items(config_map("  a: \"x\\u001Ay\\x7f\"\n")).unwrap();
    assert_eq!(got[0]["data"]["a"], json!("x\u{1a}y\u{7f}"));
    // The tag makes kadmit write the document anew rather than copy it.
    let tagged = config_map("  a: \"x\\u001Ay\\x7f\"\n").replace("name: c", "name: !!str c");
    let (code, yaml, _) = run(&[], tagged);
    assert_eq!(code, 0);
    assert!(yaml.ends_with("  a: \"x\\u001Ay\\u007F\"\n"), "{yaml}");
}

#[test]
fn a_json_stream_followed_by_a_separator_is_named_as_such() {
    let input = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\"}}\n---\n{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"b\"}}\n";
    let (code, _, stderr) = run(&[], input);
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: cannot read JSON: unexpected \"---\": a JSON stream cannot contain YAML document \
         separators [stdin, document 2, line 2]\n"
    );
    // A lone `-` is a JSON syntax error, not an "integer".
    let (code, _, stderr) = run(&[], "{\"a\": -}");
    assert_eq!(code, 2);
    assert!(!stderr.contains("integer"), "{stderr}");
}

// 4. Where go-yaml v2 is laxer than YAML 1.2 ---------------------------------------------

#[test]
fn a_colon_before_a_flow_indicator_stays_in_a_plain_scalar() {
    // Synthetic ConfigMaps (keys beside data, values that are not strings): the YAML is
    // what this test is about, not built-in admission.
    // go-yaml v2 (kubectl label --local -o json) reads each of these as shown.
    let cases = [
        ("[001:db8::, x]", json!(["001:db8::", "x"])),
        ("[2001:db8::1, fe80::]", json!(["2001:db8::1", "fe80::"])),
        ("[a:, b]", json!(["a:", "b"])),
        ("[a:]", json!(["a:"])),
        ("[x::]", json!(["x::"])),
        ("[a:b:, c:]", json!(["a:b:", "c:"])),
        ("[it's:, x]", json!(["it's:", "x"])),
        ("[!!str 1:, x]", json!(["1:", "x"])),
        ("[&x a:, *x]", json!(["a:", "a:"])),
        ("{a:}", json!({"a:": null})),
        ("{a:, b: 1}", json!({"a:": null, "b": 1})),
        ("{a::, b}", json!({"a::": null, "b": null})),
        ("{\"a\":{\"b\":c:}}", json!({"a": {"b": "c:"}})),
        // Unchanged: a colon before white space, inside a scalar, after a quoted key.
        ("[a: , b]", json!([{"a": null}, "b"])),
        ("[a:b, c]", json!(["a:b", "c"])),
        ("{\"a\":b}", json!({"a": "b"})),
        ("['a':x]", json!([{"a": "x"}])),
    ];
    for (flow, expected) in cases {
        let got = items_no_builtins(config_map(&format!("  a: {flow}\n")))
            .unwrap_or_else(|e| panic!("{flow}: {e}"));
        assert_eq!(got[0]["data"]["a"], expected, "{flow}");
    }
    // go-yaml refuses these; so does kadmit.
    for flow in ["[a:[b]]", "[!!int 1:, x]"] {
        assert!(
            items_no_builtins(config_map(&format!("  a: {flow}\n"))).is_err(),
            "{flow}"
        );
    }
}

#[test]
fn a_quoted_scalar_may_continue_left_of_its_indentation() {
    // Synthetic ConfigMaps (keys beside data, values that are not strings): the YAML is
    // what this test is about, not built-in admission.
    // kpt writes a string ending in a line break with the closing quote at column 0;
    // kubectl, kustomize and kpt read it (go-yaml does not check that indentation).
    let cases = [
        ("  a: 'line1\n\n'\n", json!("line1\n")),
        ("  a: 'line1\n\n  '\n", json!("line1\n")),
        ("  a: \"line1\n\n\"\n", json!("line1\n")),
        ("  a: 'line1\nfoo\n  bar'\n", json!("line1 foo bar")),
        ("  a: \"x\\\n\ty\"\n", json!("xy")),
        ("  a: \"a\\\"\nb\"\n", json!("a\" b")),
        ("  a: 'it''s\n'\n  b: 'x\n\n\n'\n", json!("it's ")),
        ("  a: ['x\ny', \"z\n\"]\n", json!(["x y", "z "])),
        ("  a:\n  - 'p\nq'\n", json!(["p q"])),
    ];
    for (data, expected) in cases {
        let got = items_no_builtins(config_map(data)).unwrap_or_else(|e| panic!("{data:?}: {e}"));
        assert_eq!(got[0]["data"]["a"], expected, "{data:?}");
    }
    // At the top level too, and with many such scalars in one document.
    let top = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\nx: 'line1\n\n'\n";
    assert_eq!(items_no_builtins(top).unwrap()[0]["x"], json!("line1\n"));
    let many: String = (0..200).map(|i| format!("  k{i}: 'v{i}\n\n'\n")).collect();
    let got = items_no_builtins(config_map(&many)).unwrap();
    assert_eq!(got[0]["data"]["k199"], json!("v199\n"));
    // A document marker inside a quoted scalar is still an error, as for go-yaml.
    assert!(items_no_builtins(config_map("  a: 'x\n... y'\n")).is_err());
}

#[test]
fn a_flow_collection_may_continue_left_of_its_indentation() {
    // Synthetic ConfigMaps (keys beside data, values that are not strings): the YAML is
    // what this test is about, not built-in admission.
    // go-yaml does not check indentation inside flow collections (kubectl reads these).
    let cases = [
        ("  a: [x,\ny]\n", json!(["x", true])),
        ("  a: [x,\n\ty]\n", json!(["x", true])),
        ("  a: [x,\n\t\t  y]\n", json!(["x", true])),
        ("  a: {b: x,\nc: d}\n", json!({"b": "x", "c": "d"})),
        ("  a: [\n[x,\ny]]\n", json!([["x", true]])),
        (
            "  a: [x, 'a\nb',\n\t'c\n\td']\n",
            json!(["x", "a b", "c d"]),
        ),
    ];
    for (data, expected) in cases {
        let got = items_no_builtins(config_map(data)).unwrap_or_else(|e| panic!("{data:?}: {e}"));
        assert_eq!(got[0]["data"]["a"], expected, "{data:?}");
    }
    // A tab used as block indentation is still an error, as for go-yaml.
    assert!(items_no_builtins(config_map("  a:\n\t- x\n")).is_err());
}

#[test]
fn floats_keep_every_digit_through_the_compact_json_kadmit_holds() {
    // Synthetic ConfigMaps (keys beside data, values that are not strings): the YAML is
    // what this test is about, not built-in admission.
    // Found by the yaml_roundtrip fuzz target: serde_json's default float parser is not
    // correctly rounded, and kadmit re-reads every resource from compact JSON.
    let input =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\nx: 1.1234511611201235e+23\n";
    let (code, stdout, stderr) = run(&["--no-builtins"], input.to_owned());
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.ends_with("x: 1.1234511611201235e+23\n"), "{stdout}");
    let json = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c\"},\"x\":1.1234511611201235e+23}";
    let (code, stdout, _) = run(&["--no-builtins"], json.to_owned());
    assert_eq!(code, 0);
    assert!(stdout.ends_with("x: 1.1234511611201235e+23\n"), "{stdout}");
}
