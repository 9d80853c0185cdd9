//! `create` cases: the whole create path (`kadmit_schema::admission::create`) with the case's
//! CRD, written in the fixtures' short form (`group`, `kind`, `scope`, `version` +
//! `schema`, or `versions`), made into a full `apiextensions.k8s.io/v1` CRD.

use crate::{each_case, Check};
use kadmit_schema::admission::{create_at, Definition, FieldValidation, Settings};
use kadmit_schema::definition::Crd;
use serde_json::{json, Map, Value};

pub fn checks(op: &str, cases: &[Value]) -> Option<Vec<(String, Check)>> {
    (op == "create").then(|| each_case(cases, check))
}

/// The full CRD for a case's short form.
pub fn full_crd(short: &Value) -> Value {
    let group = short["group"].as_str().unwrap_or("");
    let kind = short["kind"].as_str().unwrap_or("");
    let plural = format!("{}s", kind.to_lowercase());
    let versions = match short.get("versions") {
        Some(Value::Array(versions)) => versions
            .iter()
            .map(|v| {
                let mut v = v.clone();
                if let Some(schema) = v.as_object_mut().and_then(|m| m.remove("schema")) {
                    v["schema"] = json!({"openAPIV3Schema": schema});
                }
                v
            })
            .collect(),
        _ => {
            let mut version = json!({
                "name": short["version"],
                "served": true,
                "storage": true,
                "schema": {"openAPIV3Schema": short["schema"]},
            });
            if let Some(sub) = short.get("subresources") {
                version["subresources"] = sub.clone();
            }
            vec![version]
        }
    };
    let mut spec = Map::new();
    spec.insert("group".into(), json!(group));
    spec.insert(
        "names".into(),
        json!({"kind": kind, "plural": plural, "singular": kind.to_lowercase(), "listKind": format!("{kind}List")}),
    );
    spec.insert("scope".into(), short["scope"].clone());
    spec.insert("versions".into(), Value::Array(versions));
    if let Some(strategy) = short.get("conversion").and_then(Value::as_str) {
        spec.insert("conversion".into(), json!({"strategy": strategy}));
    }
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.{group}")},
        "spec": spec,
    })
}

/// The value at a dotted path (`spec.a`); keys may themselves hold no dots except where
/// the case writes `spanning.embedded` for a nested key, which is tried both ways.
fn at<'a>(value: &'a Value, path: &str) -> Option<&'a Value> {
    if let Some(v) = value.get(path) {
        return Some(v);
    }
    let (head, rest) = path.split_once('.')?;
    at(value.get(head)?, rest)
}

fn check(case: Value) -> Result<(), String> {
    let crd = Crd::from_value(&full_crd(&case["crd"]))
        .map_err(|e| format!("the case's CRD does not load: {e:?}"))?;
    let definition = Definition::new(crd);
    let settings = Settings {
        field_validation: FieldValidation::Ignore,
        write_defaults: true,
    };
    let result = create_at(
        &definition,
        &case["input"],
        settings,
        case["request_version"].as_str(),
    );
    if let Some(substrings) = case["expected_error_substrings"].as_array() {
        let refused = match &result {
            Ok(created) => return Err(format!("created, want an error: {}", created.object)),
            Err(refused) => refused,
        };
        let message = format!(
            "{}\n{}",
            refused.status()["message"].as_str().unwrap_or(""),
            refused.kubectl_message()
        );
        for want in substrings.iter().filter_map(Value::as_str) {
            if !message.contains(want) {
                return Err(format!("error {message:?} does not contain {want:?}"));
            }
        }
        for absent in case["expected_error_absent_substrings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if message.contains(absent) {
                return Err(format!("error {message:?} contains {absent:?}"));
            }
        }
        return Ok(());
    }
    let created = result.map_err(|r| format!("refused: {}", r.kubectl_message()))?;
    let object = &created.object;
    if let Some(want) = case.get("expected_output_excluding_metadata") {
        let mut got = object.clone();
        if let Some(map) = got.as_object_mut() {
            map.remove("metadata");
        }
        if &got != want {
            return Err(format!("output differs\n  got:  {got}\n  want: {want}"));
        }
    }
    for path in case["expected_paths_present"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let path = path.as_str().unwrap_or("");
        if at(object, path).is_none() {
            return Err(format!("{path} is absent from {object}"));
        }
    }
    for path in case["expected_paths_absent"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let path = path.as_str().unwrap_or("");
        if at(object, path).is_some() {
            return Err(format!("{path} is present in {object}"));
        }
    }
    if let Some(Value::Object(values)) = case.get("expected_values_at_paths") {
        for (path, want) in values {
            match at(object, path) {
                Some(got) if got == want => {}
                got => return Err(format!("{path}: got {got:?}, want {want}")),
            }
        }
    }
    Ok(())
}
