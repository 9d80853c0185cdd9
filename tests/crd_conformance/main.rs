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

use common::conformance::{allowlist, allowlist_names_real_cases, claimed_trials, trials};
pub use common::conformance::{each_case, load_yaml, Check};
use libtest_mimic::Arguments;
use std::path::PathBuf;

pub fn fixtures() -> PathBuf {
    common::conformance::fixtures("apiextensions")
}

fn main() {
    let args = Arguments::from_args();
    if !common::peer_fixtures_present("apiextensions")
        || !common::peer_fixtures_present("kubectl-validate")
    {
        return;
    }
    let doc = load_yaml(&fixtures().join("cases.yaml"))
        .into_iter()
        .next()
        .expect("cases.yaml is empty");
    let allowed = allowlist("crd");
    let cases = doc["cases"].as_array().expect("no cases: list");
    let mut all = claimed_trials(
        cases,
        "op",
        |op, cases| {
            structural_cases::checks(op, cases)
                .or_else(|| prune_default_cases::checks(op, cases))
                .or_else(|| openapi_cases::checks(op, cases))
                .or_else(|| cel_cases::checks(op, cases))
                .or_else(|| create_cases::checks(op, cases))
        },
        &allowed,
        "crd",
    );
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
    libtest_mimic::run(&args, all).exit();
}
