//! Gatekeeper peer conformance: every case of
//! `../shared/peer-fixtures/gatekeeper/cases.yaml` is one named test (`<kind>::<id>`).
//!
//! Cases listed in `tests/allowlist/gatekeeper.yaml` are deliberate deviations: they run,
//! and their test passes only while kadmit still differs (the name gains `[deviation]`),
//! so a deviation that disappears is noticed and removed from the list.

#[path = "../common/mod.rs"]
mod common;
mod expansion_cases;
mod gator_expand_cases;
mod image_cases;
mod match_cases;
mod mutate_cases;
mod path_cases;

use common::conformance::{allowlist, allowlist_names_real_cases, trials};
pub use common::conformance::{load_yaml, Check};
use libtest_mimic::{Arguments, Trial};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

pub fn fixtures() -> PathBuf {
    common::conformance::fixtures("gatekeeper")
}

fn main() {
    let args = Arguments::from_args();
    let doc = load_yaml(&fixtures().join("cases.yaml"))
        .into_iter()
        .next()
        .expect("cases.yaml is empty");
    let allowed = allowlist("gatekeeper");
    let mut by_kind: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for case in doc["cases"].as_array().expect("no cases: list") {
        let kind = case["kind"].as_str().expect("case without kind").to_owned();
        by_kind.entry(kind).or_default().push(case.clone());
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
            Some(checks) => all.extend(trials(&kind, checks, &allowed, "gatekeeper")),
            None => unclaimed.push(kind),
        }
    }
    all.push(allowlist_names_real_cases(&all, &allowed));
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
    libtest_mimic::run(&args, all).exit();
}
