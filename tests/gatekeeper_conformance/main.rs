//! Gatekeeper peer conformance: every case of
//! `../shared/peer-fixtures/gatekeeper/cases.yaml` is one named test (`<kind>::<id>`).
//!
//! Cases listed in `tests/allowlist/gatekeeper.yaml` are deliberate deviations: they run,
//! and their test passes only while kadmit still differs (the name gains `[deviation]`),
//! so a deviation that disappears is noticed and removed from the list.

mod expansion_cases;
mod gator_expand_cases;
mod image_cases;
mod match_cases;
mod mutate_cases;
mod path_cases;

use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/peer-fixtures/gatekeeper")
}

/// Reads a YAML stream with kadmit's own reader (the way kubectl reads it).
pub fn load_yaml(path: &Path) -> Vec<Value> {
    let bytes =
        std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let (docs, problems) =
        kadmit::io::decode::decode_all(&bytes, &Arc::from(path.display().to_string()));
    assert!(problems.is_empty(), "{}: {problems:?}", path.display());
    docs.into_iter().map(|d| d.value).collect()
}

/// Every case in `cases.yaml`, in file order.
fn all_cases() -> Vec<Value> {
    let doc = load_yaml(&fixtures().join("cases.yaml"))
        .into_iter()
        .next()
        .expect("cases.yaml is empty");
    doc["cases"].as_array().expect("no cases: list").clone()
}

/// The case ids kadmit deliberately differs on, with the reason.
fn allowlist() -> BTreeMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/allowlist/gatekeeper.yaml");
    let Ok(_) = std::fs::metadata(&path) else {
        return BTreeMap::new();
    };
    load_yaml(&path)
        .iter()
        .filter_map(|d| d.as_array())
        .flatten()
        .map(|e| {
            (
                e["id"]
                    .as_str()
                    .expect("allow-list entry without id")
                    .to_owned(),
                e["reason"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

/// A check for one case: `Err` carries what differed.
pub type Check = Box<dyn FnOnce() -> Result<(), String> + Send>;

/// Turns `(id, check)` pairs of one case kind into named trials.
fn trials(
    kind: &str,
    checks: Vec<(String, Check)>,
    allowed: &BTreeMap<String, String>,
) -> Vec<Trial> {
    checks
        .into_iter()
        .map(|(id, check)| match allowed.get(&id) {
            None => Trial::test(format!("{kind}::{id}"), move || check().map_err(Failed::from)),
            Some(reason) => {
                let reason = reason.clone();
                Trial::test(format!("{kind}::{id} [deviation]"), move || match check() {
                    Err(_) => Ok(()),
                    Ok(()) => Err(Failed::from(format!(
                        "listed in tests/allowlist/gatekeeper.yaml ({reason}) but now passes: remove it from the list"
                    ))),
                })
            }
        })
        .collect()
}

fn main() {
    let args = Arguments::from_args();
    let cases = all_cases();
    let allowed = allowlist();
    let mut by_kind: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for case in cases {
        let kind = case["kind"].as_str().expect("case without kind").to_owned();
        by_kind.entry(kind).or_default().push(case);
    }
    let mut all = Vec::new();
    let mut unclaimed = Vec::new();
    for (kind, cases) in by_kind {
        let checks = path_cases::checks(&kind, &cases)
            .or_else(|| match_cases::checks(&kind, &cases))
            .or_else(|| image_cases::checks(&kind, &cases))
            .or_else(|| expansion_cases::checks(&kind, &cases))
            .or_else(|| gator_expand_cases::checks(&kind, &cases))
            .or_else(|| mutate_cases::checks(&kind, &cases));
        match checks {
            Some(checks) => all.extend(trials(&kind, checks, &allowed)),
            None => unclaimed.push(kind),
        }
    }
    let every_listed_case_exists = {
        let names: Vec<String> = all.iter().map(|t| t.name().to_owned()).collect();
        allowed
            .keys()
            .filter(|id| !names.iter().any(|n| n.contains(&format!("::{id} "))))
            .cloned()
            .collect::<Vec<_>>()
    };
    all.push(Trial::test(
        "harness::every_case_kind_is_checked",
        move || {
            if unclaimed.is_empty() {
                Ok(())
            } else {
                Err(format!("no checks for case kinds: {unclaimed:?}").into())
            }
        },
    ));
    all.push(Trial::test("harness::allowlist_names_real_cases", move || {
        if every_listed_case_exists.is_empty() {
            Ok(())
        } else {
            Err(format!("allow-listed ids that are not deviations in cases.yaml: {every_listed_case_exists:?}").into())
        }
    }));
    libtest_mimic::run(&args, all).exit();
}
