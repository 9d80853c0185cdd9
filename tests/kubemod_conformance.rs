//! KubeMod's own engine test tables (CalculatePatch, DetermineRejections, the webhook
//! case), run as data from ../shared/peer-fixtures/kubemod/cases.yaml against kadmit's
//! rule store. Each case is reported by id; deliberate deviations live in
//! tests/allowlist/kubemod.yaml with their reasons.

mod common;

use kadmit::testing::core::decode::decode_all;
use kadmit::testing::core::resource::{Origin, Resource};
use kadmit::testing::kubemod::rule;
use kadmit::testing::kubemod::store::{Request, Store};
use kadmit_jsonpatch::patch;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/peer-fixtures/kubemod")
}

fn load(path: &Path) -> Vec<Value> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (docs, problems) = decode_all(&bytes, &Arc::from(path.display().to_string()));
    assert!(problems.is_empty(), "{}: {problems:?}", path.display());
    docs.into_iter().map(|d| d.value).collect()
}

fn cases(section: &str) -> Vec<Value> {
    let all = load(&fixtures().join("cases.yaml")).remove(0);
    all[section].as_array().cloned().unwrap_or_default()
}

fn allowlist() -> Vec<(String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/allowlist/kubemod.yaml");
    if !path.exists() {
        return Vec::new();
    }
    load(&path)
        .into_iter()
        .flat_map(|v| v.as_array().cloned().unwrap_or_default())
        .map(|e| {
            (
                e["id"].as_str().unwrap_or_default().to_owned(),
                e["reason"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// The harness's ModRule loading: rules without a namespace (and, for rejections, all
/// rules) are put in `my-namespace`.
fn store(case: &Value, force_namespace: bool) -> Result<Store, String> {
    let mut rules = Vec::new();
    for file in case["modrules"].as_array().unwrap() {
        for mut value in load(&fixtures().join(file.as_str().unwrap())) {
            let ns = value.pointer("/metadata/namespace").and_then(Value::as_str);
            if force_namespace || ns.is_none() {
                value["metadata"]["namespace"] = Value::String("my-namespace".into());
            }
            let origin = Origin {
                source: Arc::from(file.as_str().unwrap()),
                index: 0,
                line: 1,
                list_item: None,
                declared: None,
            };
            let resource = Resource::new(value, origin).map_err(|e| e.to_string())?;
            match rule::compile(&resource) {
                Ok(r) => rules.push(r),
                Err(problems) => {
                    return Err(problems
                        .iter()
                        .map(|p| p.to_string())
                        .collect::<Vec<_>>()
                        .join("; "))
                }
            }
        }
    }
    Ok(Store::new(rules, "kubemod-system"))
}

fn resource(case: &Value) -> Value {
    load(&fixtures().join(case["resource"].as_str().unwrap())).remove(0)
}

/// Equal as JSON, numbers compared as float64 (KubeMod decodes every number as one).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn expected_document(case: &Value, input: &Value) -> Value {
    let ops: Vec<patch::Op> = case["expected_patch"]
        .as_array()
        .unwrap()
        .iter()
        .map(|op| {
            let path = op["path"].as_str().unwrap().to_owned();
            match op["op"].as_str().unwrap() {
                "add" => patch::Op::Add {
                    path,
                    value: op["value"].clone(),
                },
                "replace" => patch::Op::Replace {
                    path,
                    value: op["value"].clone(),
                },
                _ => patch::Op::Remove { path },
            }
        })
        .collect();
    let mut expected = input.clone();
    patch::apply(&mut expected, &ops, patch::Options::default())
        .expect("the transcribed diff applies");
    expected
}

struct Tally {
    suite: &'static str,
    allow: Vec<(String, String)>,
    passed: usize,
    failed: Vec<String>,
    allowed: Vec<String>,
}

impl Tally {
    fn new(suite: &'static str) -> Tally {
        Tally {
            suite,
            allow: allowlist(),
            passed: 0,
            failed: Vec::new(),
            allowed: Vec::new(),
        }
    }

    fn record(&mut self, id: &str, result: Result<(), String>) {
        match (result, self.allow.iter().find(|(a, _)| a == id)) {
            (Ok(()), Some(_)) => {
                self.failed
                    .push(format!("{id}: passes but is on the allow-list; remove it"));
                eprintln!("FAIL {id} (allow-listed but passing)");
            }
            (Ok(()), None) => {
                self.passed += 1;
                eprintln!("ok   {id}");
            }
            (Err(e), Some((_, reason))) => {
                self.allowed.push(format!("{id}: {reason}"));
                eprintln!("DEVIATION {id}: {reason} (got: {e})");
            }
            (Err(e), None) => {
                eprintln!("FAIL {id}: {e}");
                self.failed.push(format!("{id}: {e}"));
            }
        }
    }

    fn finish(self) {
        eprintln!(
            "{}: {} passed, {} failed, {} allowed deviations",
            self.suite,
            self.passed,
            self.failed.len(),
            self.allowed.len()
        );
        assert!(
            self.failed.is_empty(),
            "{} failures:\n{}",
            self.suite,
            self.failed.join("\n")
        );
    }
}

#[test]
fn calculate_patch_cases() {
    if !common::peer_fixtures_present("kubemod") {
        return;
    }
    let mut tally = Tally::new("calculate_patch");
    for case in cases("calculate_patch") {
        let id = case["id"].as_str().unwrap().to_owned();
        let result = (|| {
            let store = store(&case, false)?;
            let input = resource(&case);
            let mut doc = input.clone();
            let request = Request {
                namespace: "my-namespace",
                operation: "CREATE",
                synthetic_refs: Map::new(),
            };
            let report = store.patch(&mut doc, &request);
            let expected = expected_document(&case, &input);
            if same(&doc, &expected) {
                Ok(())
            } else {
                Err(format!(
                    "output differs\n  got:      {}\n  expected: {}\n  failed rules: {:?}",
                    serde_json::to_string(&doc).unwrap(),
                    serde_json::to_string(&expected).unwrap(),
                    report.failed
                ))
            }
        })();
        tally.record(&id, result);
    }
    tally.finish();
}

#[test]
fn determine_rejections_cases() {
    if !common::peer_fixtures_present("kubemod") {
        return;
    }
    let mut tally = Tally::new("determine_rejections");
    for case in cases("determine_rejections") {
        let id = case["id"].as_str().unwrap().to_owned();
        let expected_error = case["expected_load_error"].as_str().map(str::to_owned);
        let result = match (store(&case, true), expected_error) {
            // KubeMod wraps the template error in its store's words; the template error
            // itself must be the same.
            (Err(e), Some(expected))
                if e.contains(
                    expected.trim_start_matches("failed to add ModRule to ModRuleStore: "),
                ) =>
            {
                Ok(())
            }
            (Err(e), _) => Err(format!("rules failed to load: {e}")),
            (Ok(_), Some(expected)) => Err(format!("expected a load error like {expected:?}")),
            (Ok(store), None) => {
                let request = Request {
                    namespace: "my-namespace",
                    operation: "CREATE",
                    synthetic_refs: Map::new(),
                };
                let got: Vec<String> = store
                    .rejections(&resource(&case), &request)
                    .into_iter()
                    .map(|(_, m)| m)
                    .collect();
                let expected: Vec<String> = case["expected_rejections"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_str().unwrap().to_owned())
                    .collect();
                if got == expected {
                    Ok(())
                } else {
                    Err(format!("rejections {got:?}, expected {expected:?}"))
                }
            }
        };
        tally.record(&id, result);
    }
    tally.finish();
}

#[test]
fn webhook_case() {
    if !common::peer_fixtures_present("kubemod") {
        return;
    }
    let mut tally = Tally::new("webhook");
    for case in cases("webhook") {
        let id = case["id"].as_str().unwrap().to_owned();
        let result = (|| {
            let store = store(&case, false)?;
            let input = resource(&case);
            let mut refs = Map::new();
            refs.insert(
                "namespace".into(),
                serde_json::json!({"apiVersion": "v1", "kind": "Namespace"}),
            );
            refs.insert("node".into(), case["synthetic_refs"]["node"].clone());
            let request = Request {
                namespace: case["namespace"].as_str().unwrap(),
                operation: case["admission_operation"].as_str().unwrap(),
                synthetic_refs: refs,
            };
            let mut doc = input.clone();
            let report = store.patch(&mut doc, &request);
            let expected = expected_document(&case, &input);
            if same(&doc, &expected) {
                Ok(())
            } else {
                Err(format!(
                    "got {doc}\nexpected {expected}\nfailed: {:?}",
                    report.failed
                ))
            }
        })();
        tally.record(&id, result);
    }
    tally.finish();
}
