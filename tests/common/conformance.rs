//! Data-driven peer conformance on libtest-mimic: one named test per fixture case, and an
//! allow-list of deliberate deviations whose tests pass only while kadmit still differs.

use libtest_mimic::{Failed, Trial};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// A check for one case: `Err` carries what differed.
pub type Check = Box<dyn FnOnce() -> Result<(), String> + Send>;

#[allow(unused_imports)] // Not every test crate that includes `common` runs conformance cases.
pub use super::peer_fixtures as fixtures;

/// Reads a YAML stream with kadmit's own reader (the way kubectl reads it).
pub fn load_yaml(path: &Path) -> Vec<Value> {
    let bytes =
        std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let (docs, problems) =
        kadmit::testing::core::decode::decode_all(&bytes, &Arc::from(path.display().to_string()));
    assert!(problems.is_empty(), "{}: {problems:?}", path.display());
    docs.into_iter().map(|d| d.value).collect()
}

/// The ids in `tests/allowlist/<name>.yaml` (`[{id, reason}]`), with their reasons.
pub fn allowlist(name: &str) -> BTreeMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/allowlist")
        .join(format!("{name}.yaml"));
    if !path.exists() {
        return BTreeMap::new();
    }
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

/// Turns `(id, check)` pairs of one case kind into named trials (`<kind>::<id>`). A listed
/// id becomes `<kind>::<id> [deviation]` and passes only while its check fails.
pub fn trials(
    kind: &str,
    checks: Vec<(String, Check)>,
    allowed: &BTreeMap<String, String>,
    allowlist_name: &str,
) -> Vec<Trial> {
    checks
        .into_iter()
        .map(|(id, check)| match allowed.get(&id) {
            None => Trial::test(format!("{kind}::{id}"), move || check().map_err(Failed::from)),
            Some(reason) => {
                let message = format!(
                    "listed in tests/allowlist/{allowlist_name}.yaml ({reason}) but now passes: remove it from the list"
                );
                Trial::test(format!("{kind}::{id} [deviation]"), move || match check() {
                    Err(_) => Ok(()),
                    Ok(()) => Err(Failed::from(message)),
                })
            }
        })
        .collect()
}

/// A trial failing when an allow-listed id names no case.
pub fn allowlist_names_real_cases(trials: &[Trial], allowed: &BTreeMap<String, String>) -> Trial {
    let names: Vec<String> = trials.iter().map(|t| t.name().to_owned()).collect();
    let stale: Vec<String> = allowed
        .keys()
        .filter(|id| !names.iter().any(|n| n.contains(&format!("::{id} "))))
        .cloned()
        .collect();
    Trial::test("harness::allowlist_names_real_cases", move || {
        if stale.is_empty() {
            Ok(())
        } else {
            Err(
                format!("allow-listed ids that are not deviations in the fixtures: {stale:?}")
                    .into(),
            )
        }
    })
}

/// Wraps a per-case function into `(id, Check)` pairs.
pub fn each_case(cases: &[Value], check: fn(Value) -> Result<(), String>) -> Vec<(String, Check)> {
    cases
        .iter()
        .map(|case| {
            let id = case["id"].as_str().unwrap_or("?").to_owned();
            let case = case.clone();
            (id, Box::new(move || check(case)) as Check)
        })
        .collect()
}

/// Groups `cases` by the string at `key` (`kind`, `op`) and asks `claim` for each group's
/// checks; the groups nobody claims fail the `harness::every_<key>_is_checked` trial.
pub fn claimed_trials(
    cases: &[Value],
    key: &str,
    claim: impl Fn(&str, &[Value]) -> Option<Vec<(String, Check)>>,
    allowed: &BTreeMap<String, String>,
    allowlist_name: &str,
) -> Vec<Trial> {
    let mut groups: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for case in cases {
        let group = case[key]
            .as_str()
            .unwrap_or_else(|| panic!("case without {key}: {case}"))
            .to_owned();
        groups.entry(group).or_default().push(case.clone());
    }
    let mut out = Vec::new();
    let mut unclaimed = Vec::new();
    for (group, cases) in groups {
        match claim(&group, &cases) {
            Some(checks) => out.extend(trials(&group, checks, allowed, allowlist_name)),
            None => unclaimed.push(group),
        }
    }
    out.push(Trial::test(
        format!("harness::every_{key}_is_checked"),
        move || {
            if unclaimed.is_empty() {
                Ok(())
            } else {
                Err(format!("no checks for: {unclaimed:?}").into())
            }
        },
    ));
    out
}
