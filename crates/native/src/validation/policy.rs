//! policy/v1 PodDisruptionBudget (`ValidatePodDisruptionBudgetSpec`).

use super::apps::{not_more_than_100_percent, positive_int_or_percent};
use super::labels::validate_selector;
use super::util::{get, not_supported, Errors};
use super::Minor;
use kadmit_schema::field_error::FieldError;
use serde_json::{json, Value};

pub fn pdb(obj: &Value, _minor: Minor) -> Errors {
    let empty = json!({});
    let spec = get(obj, "spec").unwrap_or(&empty);
    let mut errs = Errors::new();
    let min = get(spec, "minAvailable");
    let max = get(spec, "maxUnavailable");
    if min.is_some() && max.is_some() {
        errs.push(FieldError::invalid(
            "spec",
            spec.clone(),
            "minAvailable and maxUnavailable cannot be both set",
        ));
    }
    for (k, v) in [("spec.minAvailable", min), ("spec.maxUnavailable", max)] {
        if v.is_some() {
            positive_int_or_percent(v, k, &mut errs);
            not_more_than_100_percent(v, k, &mut errs);
        }
    }
    validate_selector(get(spec, "selector"), "spec.selector", &mut errs);
    if let Some(p) = get(spec, "unhealthyPodEvictionPolicy") {
        let s = p.as_str().unwrap_or("");
        if s != "AlwaysAllow" && s != "IfHealthyBudget" {
            errs.push(not_supported(
                "spec.unhealthyPodEvictionPolicy",
                p.clone(),
                &["AlwaysAllow", "IfHealthyBudget"],
            ));
        }
    }
    errs
}
