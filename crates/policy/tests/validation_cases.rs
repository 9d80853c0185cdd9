//! The `policy-validation` cases of `../shared/peer-fixtures/admission-policies/cases.yaml`
//! (upstream `validation_test.go` `TestValidateValidatingAdmissionPolicy`, `condition_test.go`
//! `TestCompile`, the integration type-checking cases) against
//! `kadmit_policy::validation::validate_policy`.

mod fixtures;

use kadmit_policy::validation::validate_policy;
use serde_json::Value;

/// Cases not expected to pass yet, with the reason. A listed case that passes fails the
/// test, so the list stays honest.
const ALLOW_LIST: &[(&str, &str)] = &[];

/// Cases whose `typeCheckingWarnings` are not checked (acceptance still is): the type
/// checking controller's warnings need the matched kinds' OpenAPI schemas; `validate_policy`
/// does not produce them.
const WARNINGS_NOT_CHECKED: &[(&str, &str)] = &[(
    "validatingadmissionpolicy_test-tc2",
    "type-checking warnings (status.typeChecking) are not produced by validate_policy",
)];

/// The errors of every object of a case, each as the apiserver prints it, joined as
/// `ErrorList.ToAggregate` joins them.
fn errors_of(case: &Value) -> String {
    let mut all = Vec::new();
    for object in case["policies"].as_array().into_iter().flatten() {
        all.extend(validate_policy(object).iter().map(ToString::to_string));
    }
    all.join(", ")
}

/// `None` when the case passes, else why not.
fn check(case: &Value) -> Option<String> {
    let expect = &case["expect"];
    let errors = errors_of(case);
    let accepted = expect["accepted"].as_bool().expect("expect.accepted");
    if accepted {
        return (!errors.is_empty()).then(|| format!("expected acceptance, got [{errors}]"));
    }
    let wanted = expect["error_contains"].as_str().expect("error_contains");
    if errors.contains(wanted) {
        None
    } else {
        Some(format!(
            "expected an error containing {wanted:?}, got [{errors}]"
        ))
    }
}

#[test]
fn policy_validation_cases() {
    let Some(cases) = fixtures::load() else {
        return;
    };
    let cases: Vec<&Value> = cases
        .iter()
        .filter(|c| c["kind"] == "policy-validation")
        .collect();
    assert!(cases.len() >= 45, "found only {} cases", cases.len());
    let mut failures = Vec::new();
    let (mut passed, mut allowed) = (0, 0);
    for case in &cases {
        let id = case["id"].as_str().expect("id");
        let listed = ALLOW_LIST.iter().find(|(a, _)| *a == id);
        let warnings = case["expect"]["typeCheckingWarnings"]
            .as_array()
            .is_some_and(|w| !w.is_empty());
        if warnings && !WARNINGS_NOT_CHECKED.iter().any(|(a, _)| *a == id) {
            failures.push(format!("{id}: has typeCheckingWarnings and is not listed"));
        }
        match (check(case), listed) {
            (None, None) => passed += 1,
            (None, Some(_)) => {
                failures.push(format!("{id}: passes but is on the allow-list; remove it"))
            }
            (Some(why), None) => failures.push(format!("{id}: {why}")),
            (Some(_), Some((_, reason))) => {
                allowed += 1;
                eprintln!("allow-listed {id}: {reason}");
            }
        }
    }
    eprintln!(
        "policy-validation: {passed} of {} passed, {allowed} allow-listed",
        cases.len()
    );
    assert!(
        failures.is_empty(),
        "{} failing case(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
