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

use common::conformance::{allowlist, allowlist_names_real_cases, claimed_trials};
pub use common::conformance::{load_yaml, Check};
use libtest_mimic::Arguments;
use std::path::PathBuf;

pub fn fixtures() -> PathBuf {
    common::conformance::fixtures("gatekeeper")
}

fn main() {
    let args = Arguments::from_args();
    if !common::peer_fixtures_present("gatekeeper") {
        return;
    }
    let doc = load_yaml(&fixtures().join("cases.yaml"))
        .into_iter()
        .next()
        .expect("cases.yaml is empty");
    let allowed = allowlist("gatekeeper");
    let cases = doc["cases"].as_array().expect("no cases: list");
    let mut all = claimed_trials(
        cases,
        "kind",
        |kind, cases| {
            path_cases::checks(kind, cases)
                .or_else(|| match_cases::checks(kind, cases))
                .or_else(|| image_cases::checks(kind, cases))
                .or_else(|| expansion_cases::checks(kind, cases))
                .or_else(|| gator_expand_cases::checks(kind, cases))
                .or_else(|| mutate_cases::checks(kind, cases))
        },
        &allowed,
        "gatekeeper",
    );
    all.push(allowlist_names_real_cases(&all, &allowed));
    libtest_mimic::run(&args, all).exit();
}
