//! The YAML/JSON decoder with a round-trip oracle: whatever the decoder reads from the
//! input, kadmit's encoder writes (as a YAML stream, a JSON List and a KRM ResourceList)
//! and the decoder reads back as the same tree. A panic, an output the decoder refuses,
//! or a different tree is a crash.
//!
//! "The same tree" compares numbers by value: a JSON `1.0` is kept as a float and written
//! as `1.0`, which YAML reads back as the integer 1 (go-yaml's rule; docs/yaml.md), and
//! `-0.0` reads back as 0. Everything else (key order included) must be identical.
//!
//! Found here and fixed (fuzz/artifacts-found/yaml_roundtrip/): serde_json's default float
//! parser is not correctly rounded (`1.1234511611201235e+23` read back as `...37e+23`);
//! kadmit now builds serde_json with `float_roundtrip`, and every check is exact.

#![no_main]

use kadmit::testing::core::decode::decode_all;
use kadmit::testing::io::encode::{Encoder, Format};
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use std::sync::Arc;

/// Larger inputs are skipped: the decoder's own limits bound everything below this.
const MAX_INPUT: usize = 64 << 10;

/// How far apart (in units in the last place) two floats may be after the JSON reader: none
/// since the finding above was fixed.
const JSON_FLOAT_ULPS: u64 = 0;

/// How many representable float64 values lie between `a` and `b` (finite, same sign).
fn ulps_apart(a: f64, b: f64) -> u64 {
    if a == b {
        return 0;
    }
    if a.is_sign_negative() != b.is_sign_negative() {
        return u64::MAX;
    }
    a.to_bits().abs_diff(b.to_bits())
}

/// `a` and `b` are the same tree, numbers compared by value (integers exactly, otherwise as
/// float64: an integral float equals the integer, `-0.0` equals `0`), two floats at most
/// `ulps` apart.
fn same(a: &Value, b: &Value, ulps: u64) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(i), Some(j), _, _) => i == j,
                (_, _, Some(i), Some(j)) => i == j,
                _ if x.is_f64() && y.is_f64() => {
                    let (f, g) = (x.as_f64().unwrap(), y.as_f64().unwrap());
                    ulps_apart(f, g) <= ulps
                }
                _ if x.is_f64() || y.is_f64() => x.as_f64() == y.as_f64(),
                _ => false,
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b, ulps))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((ka, va), (kb, vb))| ka == kb && same(va, vb, ulps))
        }
        _ => a == b,
    }
}

fn same_all(a: &[Value], b: &[Value], ulps: u64) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same(a, b, ulps))
}

fn encode(format: Format, documents: &[Value]) -> String {
    let mut encoder = Encoder::new(format);
    for document in documents {
        encoder.push(document);
    }
    encoder.finish(None, &[])
}

/// Decodes `text` (the encoder's output), which must read without a problem.
fn read_back(format: Format, text: &str, input: &[Value]) -> Vec<Value> {
    let (documents, problems) = decode_all(text.as_bytes(), &Arc::from("encoded"));
    if let Some(problem) = problems.first() {
        panic!(
            "{format:?}: kadmit cannot read its own output: {}\ninput tree: {input:?}\noutput:\n{text}",
            problem.message
        );
    }
    documents.into_iter().map(|d| d.value).collect()
}

fuzz_target!(|data: &[u8]| {
    if data.len() > MAX_INPUT {
        return;
    }
    let (documents, _problems) = decode_all(data, &Arc::from("fuzz"));
    let values: Vec<Value> = documents.into_iter().map(|d| d.value).collect();
    if values.is_empty() {
        return;
    }

    // A YAML stream: every document back, in order. Not checked when the first document
    // is an empty mapping: the writer puts `{}` first, and a stream starting with `{` is
    // read as a JSON stream (as kubectl reads it), where `---` is an error. kadmit never
    // writes such a stream (every document it writes is a resource, with an apiVersion);
    // see docs/fuzzing.md.
    if !matches!(&values[0], Value::Object(map) if map.is_empty()) {
        let yaml = encode(Format::Yaml, &values);
        let back = read_back(Format::Yaml, &yaml, &values);
        assert!(
            same_all(&back, &values, 0),
            "YAML round trip differs\n before: {values:?}\n after:  {back:?}\noutput:\n{yaml}"
        );
    }

    // A JSON v1 List holding every document.
    let list = encode(Format::Json, &values);
    let back = read_back(Format::Json, &list, &values);
    let expected = json!({"apiVersion": "v1", "kind": "List", "items": values});
    assert!(
        same_all(&back, std::slice::from_ref(&expected), JSON_FLOAT_ULPS),
        "JSON round trip differs\n before: {expected:?}\n after:  {back:?}\noutput:\n{list}"
    );

    // A ResourceList: the documents one level down.
    let resource_list = encode(Format::ResourceList, &values);
    let back = read_back(Format::ResourceList, &resource_list, &values);
    let expected = json!({
        "apiVersion": "config.kubernetes.io/v1",
        "kind": "ResourceList",
        "items": values,
    });
    assert!(
        same_all(&back, std::slice::from_ref(&expected), 0),
        "ResourceList round trip differs\n before: {expected:?}\n after:  {back:?}\noutput:\n{resource_list}"
    );
});
