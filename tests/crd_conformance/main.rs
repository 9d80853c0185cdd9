//! CRD peer conformance: every case of `../shared/peer-fixtures/apiextensions/cases.yaml`
//! (by `op`) and every expression of `cel_expressions.yaml` is one named test. Deviations
//! are listed with reasons in `tests/allowlist/crd.yaml`.

mod cel_cases;
#[path = "../common/mod.rs"]
mod common;
mod create_cases;
mod kubectl_validate_cases;
mod openapi_cases;
mod prune_default_cases;
mod structural_cases;

use common::conformance::{allowlist, allowlist_names_real_cases, trials};
pub use common::conformance::{each_case, load_yaml, Check};
use libtest_mimic::{Arguments, Trial};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

pub fn fixtures() -> PathBuf {
    common::conformance::fixtures("apiextensions")
}

fn main() {
    let args = Arguments::from_args();
    let doc = load_yaml(&fixtures().join("cases.yaml"))
        .into_iter()
        .next()
        .expect("cases.yaml is empty");
    let allowed = allowlist("crd");
    let mut by_op: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for case in doc["cases"].as_array().expect("no cases: list") {
        let op = case["op"].as_str().expect("case without op").to_owned();
        by_op.entry(op).or_default().push(case.clone());
    }
    let mut all = Vec::new();
    let mut unclaimed = Vec::new();
    for (op, cases) in by_op {
        let checks = structural_cases::checks(&op, &cases)
            .or_else(|| prune_default_cases::checks(&op, &cases))
            .or_else(|| openapi_cases::checks(&op, &cases))
            .or_else(|| cel_cases::checks(&op, &cases))
            .or_else(|| create_cases::checks(&op, &cases));
        match checks {
            Some(checks) => all.extend(trials(&op, checks, &allowed, "crd")),
            None => unclaimed.push(op),
        }
    }
    let expressions = load_yaml(&fixtures().join("cel_expressions.yaml"))
        .into_iter()
        .next()
        .expect("cel_expressions.yaml is empty");
    all.extend(trials(
        "cel_expression",
        cel_cases::expression_checks(&expressions),
        &allowed,
        "crd",
    ));
    all.extend(trials(
        "kubectl_validate",
        kubectl_validate_cases::checks(),
        &allowed,
        "crd",
    ));
    all.push(allowlist_names_real_cases(&all, &allowed));
    all.push(Trial::test("harness::every_op_is_checked", move || {
        if unclaimed.is_empty() {
            Ok(())
        } else {
            Err(format!("no checks for ops: {unclaimed:?}").into())
        }
    }));
    libtest_mimic::run(&args, all).exit();
}
