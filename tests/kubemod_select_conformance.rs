//! Peer conformance for KubeMod's select language and match semantics, driven by the
//! fixtures in `../shared/peer-fixtures/kubemod/` as data:
//!
//! - `jsonpath-cases.yaml`: the 65 cases of the JSONPath fork's own tests;
//! - `cases.yaml` `ismatch`: the 76 `IsMatch` cases (ModRule file + resource file);
//! - `cases.yaml` `placeholder_path`: the 12 `pathFromKeyParts` rows.
//!
//! Each suite runs every case, prints `ok <id>` / `FAIL <id>: …` per case and a closing
//! `N passed, M failed` line, and fails if any case failed. Ids listed in
//! `tests/allowlist/kubemod.yaml` are expected deviations: they still run and are
//! reported separately (`DEVIATION <id>`), and a listed case that passes is reported too.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use kadmit::testing::core::decode::decode_all;
use kadmit::testing::kubemod::matching::{is_match, MatchFor, MatchItem};
use kadmit::testing::kubemod::select::{
    compile_with, key_parts, path_from_key_parts, Dialect, Val,
};
use kadmit_go::fmt::format_float;
use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/peer-fixtures/kubemod")
}

fn load_yaml(path: &Path) -> Vec<Value> {
    let bytes =
        std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let (docs, problems) = decode_all(&bytes, &Arc::from(path.display().to_string()));
    assert!(problems.is_empty(), "{}: {problems:?}", path.display());
    docs.into_iter().map(|d| d.value).collect()
}

fn load_one(path: &Path) -> Value {
    load_yaml(path).into_iter().next().unwrap_or(Value::Null)
}

/// Expected deviations: `[{id, reason}]` in `tests/allowlist/kubemod.yaml`.
fn allowlist() -> Vec<(String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/allowlist/kubemod.yaml");
    let Ok(bytes) = std::fs::read(&path) else {
        return Vec::new();
    };
    let (docs, _) = decode_all(&bytes, &Arc::from("allowlist"));
    docs.iter()
        .filter_map(|d| d.value.as_array())
        .flatten()
        .filter_map(|e| {
            Some((
                e["id"].as_str()?.to_string(),
                e["reason"].as_str().unwrap_or("").to_string(),
            ))
        })
        .collect()
}

/// Runs `cases` (id, check) and reports; panics if an unlisted case failed.
fn report(suite: &str, cases: Vec<(String, Result<(), String>)>) {
    let allowed = allowlist();
    let (mut passed, mut failed, mut deviations) = (0, Vec::new(), 0);
    for (id, outcome) in &cases {
        let listed = allowed.iter().find(|(a, _)| a == id);
        match (outcome, listed) {
            (Ok(()), None) => {
                passed += 1;
                println!("ok {id}");
            }
            (Ok(()), Some(_)) => {
                passed += 1;
                println!(
                    "ok {id} (listed as a deviation but passes: remove it from the allow-list)"
                );
            }
            (Err(why), Some((_, reason))) => {
                deviations += 1;
                println!("DEVIATION {id}: {why} (allow-listed: {reason})");
            }
            (Err(why), None) => {
                println!("FAIL {id}: {why}");
                failed.push(id.clone());
            }
        }
    }
    println!("{suite}: {deviations} allow-listed deviations");
    println!("{passed} passed, {} failed", failed.len());
    assert!(failed.is_empty(), "{suite}: failing cases: {failed:?}");
}

/// JSON with every number as a float64 (Go's view), for comparison.
fn normalize(v: &Value) -> Value {
    match v {
        Value::Number(n) => serde_json::Number::from_f64(n.as_f64().unwrap_or(f64::NAN))
            .map_or(Value::Null, Value::Number),
        Value::Array(items) => Value::Array(items.iter().map(normalize).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, x)| (k.clone(), normalize(x))).collect())
        }
        other => other.clone(),
    }
}

fn sorted(v: Value) -> Value {
    match v {
        Value::Array(mut items) => {
            items.sort_by_key(|x| x.to_string());
            Value::Array(items)
        }
        other => other,
    }
}

fn jsonpath_case(case: &Value) -> Result<(), String> {
    let expression = case["expression"]
        .as_str()
        .ok_or("case without expression")?;
    let dialect = match case["language"].as_str() {
        Some("jsonpath") => Dialect::JsonPath,
        Some("jsonpath+placeholders") => Dialect::JsonPathPlaceholders,
        other => return Err(format!("unknown language {other:?}")),
    };
    let expect = case["expect"].as_str().unwrap_or("");
    let select = match compile_with(expression, dialect) {
        Err(_) if expect == "parse_error" => return Ok(()),
        Err(e) => return Err(format!("does not compile: {e}")),
        Ok(_) if expect == "parse_error" => return Err("compiles, expected a parse error".into()),
        Ok(s) => s,
    };
    let input = case.get("input").cloned().unwrap_or(Value::Null);
    let got = select.evaluate(&input);
    match (expect, got) {
        ("evaluation_error", Err(_)) => Ok(()),
        ("undefined", Ok(Val::Undefined)) => Ok(()),
        ("value", Ok(v)) => {
            let got = v.to_json().map(|j| normalize(&j)).ok_or("got undefined")?;
            let want = normalize(&case["value"]);
            let (got, want) = if case["unordered"].as_bool() == Some(true) {
                (sorted(got), sorted(want))
            } else {
                (got, want)
            };
            if got == want {
                Ok(())
            } else {
                Err(format!("got {got}, want {want}"))
            }
        }
        (_, Ok(v)) => Err(format!("got value {}, expected {expect}", v.format())),
        (_, Err(e)) => Err(format!("evaluation error {e:?}, expected {expect}")),
    }
}

#[test]
fn jsonpath_dialect_cases() {
    if !common::peer_fixtures_present("kubemod") {
        return;
    }
    let file = load_one(&fixtures().join("jsonpath-cases.yaml"));
    let cases = file["cases"].as_array().expect("cases list");
    assert_eq!(cases.len(), 65, "the fixture has 65 cases");
    let results = cases
        .iter()
        .enumerate()
        .map(|(i, case)| {
            let id = format!(
                "jsonpath-{:02} {}",
                i + 1,
                case["name"].as_str().unwrap_or("?")
            );
            (id, jsonpath_case(case))
        })
        .collect();
    report("jsonpath", results);
}

/// A YAML scalar in a Go string field, the way sigs.k8s.io/yaml converts it.
fn go_string(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(n.to_string()),
        Value::Number(n) => Some(format_float(n.as_f64().unwrap_or(f64::NAN))),
        other => Some(other.to_string()),
    }
}

/// Test-only reading of a ModRule's `spec.match[]`.
fn match_items(modrule: &Value) -> Result<Vec<MatchItem>, String> {
    let items = modrule["spec"]["match"]
        .as_array()
        .ok_or("spec.match is not a list")?;
    items
        .iter()
        .map(|item| {
            let select = item["select"].as_str().ok_or("select is not a string")?;
            let select = compile_with(select, Dialect::KubeMod)
                .map_err(|e| format!("select {select:?}: {e}"))?;
            let match_regex = match go_string(&item["matchRegex"]) {
                Some(p) => Some(kadmit_go::regexp::compile(&p).map_err(|e| e.to_string())?),
                None => None,
            };
            Ok(MatchItem {
                select,
                match_for: match item["matchFor"].as_str().unwrap_or("") {
                    "" | "Any" => MatchFor::Any,
                    _ => MatchFor::All,
                },
                match_value: go_string(&item["matchValue"]),
                match_values: item["matchValues"]
                    .as_array()
                    .map(|vs| vs.iter().filter_map(go_string).collect())
                    .unwrap_or_default(),
                match_regex,
                negate: item["negate"].as_bool().unwrap_or(false),
            })
        })
        .collect()
}

fn ismatch_case(case: &Value) -> Result<(), String> {
    let root = fixtures();
    let modrule = load_one(&root.join(case["modrule"].as_str().ok_or("no modrule")?));
    let resource_path = root.join(case["resource"].as_str().ok_or("no resource")?);
    let resource: Value =
        serde_json::from_slice(&std::fs::read(&resource_path).map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
    let items = match_items(&modrule)?;
    let want = case["expected_match"]
        .as_bool()
        .ok_or("no expected_match")?;
    let got = is_match(&items, &resource);
    if got == want {
        Ok(())
    } else {
        Err(format!("got {got}, want {want}"))
    }
}

#[test]
fn ismatch_cases() {
    if !common::peer_fixtures_present("kubemod") {
        return;
    }
    let cases_file = load_one(&fixtures().join("cases.yaml"));
    let cases = cases_file["ismatch"].as_array().expect("ismatch list");
    assert_eq!(cases.len(), 76, "the fixture has 76 IsMatch cases");
    let results = cases
        .iter()
        .map(|case| {
            (
                case["id"].as_str().unwrap_or("?").to_string(),
                ismatch_case(case),
            )
        })
        .collect();
    report("ismatch", results);
}

fn placeholder_row(row: &Value) -> Result<(), String> {
    let key = row["select_key"].as_str().ok_or("no select_key")?;
    let template = row["path_template"].as_str().ok_or("no path_template")?;
    let want = row["expected_path"].as_str().ok_or("no expected_path")?;
    match path_from_key_parts(template, &key_parts(key)) {
        Ok(got) if got == want => Ok(()),
        Err(e) if want.contains("#(BADINDEX)") && e.contains(&format!("\"{want}\"")) => Ok(()),
        Ok(got) => Err(format!("got {got:?}, want {want:?}")),
        Err(e) => Err(format!("got error {e:?}, want {want:?}")),
    }
}

#[test]
fn placeholder_path_rows() {
    if !common::peer_fixtures_present("kubemod") {
        return;
    }
    let cases_file = load_one(&fixtures().join("cases.yaml"));
    let rows = cases_file["placeholder_path"]
        .as_array()
        .expect("placeholder_path list");
    assert_eq!(rows.len(), 12, "the fixture has 12 pathFromKeyParts rows");
    let results = rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            (
                format!("placeholder_path-{:02}", i + 1),
                placeholder_row(row),
            )
        })
        .collect();
    report("placeholder_path", results);
}
