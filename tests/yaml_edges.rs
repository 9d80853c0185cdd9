//! Edges of the YAML reader and writer found by fuzzing and by real-world manifests: no
//! panic on any scalar, output every reader accepts (document markers, long keys), go-yaml's
//! refusal of control characters, and two places where go-yaml v2 (kubectl) is laxer than
//! YAML 1.2.

use assert_cmd::Command;
use serde_json::{json, Value};

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
    let (code, stdout, stderr) = run(&["-o", "json"], input);
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
