//! The `validate` (`validatingadmissionpolicy_test-*`) and `condition` (`condition_test-*`)
//! cases of `../shared/peer-fixtures/admission-policies/cases.yaml`, one named test each,
//! driven through `kadmit_policy::validating::validate`.
//!
//! Condition cases are run as `run_cases.py` runs them: one policy `cond-<i>` per
//! expression (the expression its only validation), bound with `validationActions: [Warn]`;
//! false gives the warning `… failed expression: <expr>`, an error a warning containing
//! `error_contains`, true no warning.

mod fixtures;

use kadmit_match::Gvk;
use kadmit_policy::compiled::{Binding, ValidatingPolicy};
use kadmit_policy::matching::{Gvr, Request, Table};
use kadmit_policy::request::{AdmissionRequest, UserInfo};
use kadmit_policy::validating::{validate, ValidatingOutcome};
use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::{json, Value};

/// Cases not expected to pass, with the reason. A listed case that passes fails, so the
/// list stays honest.
const ALLOW_LIST: &[(&str, &str)] = &[
    (
        "validatingadmissionpolicy_test-17",
        "expects upstream's expressionIndex 1 (its harness prepends a marker validation); the policy as transcribed gives 0, as the case's `derived` says",
    ),
];

/// The built-in equivalences plus the CRD `pandas.awesome.bears.com` (v1, v2) that the
/// matchPolicy cases install (a caller passes its CRDs' versions the same way).
fn equivalents() -> Table {
    let mut table = Table::builtin();
    for version in ["v1", "v2"] {
        table.add(
            "pandas.awesome.bears.com",
            Gvr::new("awesome.bears.com", version, "pandas"),
            "",
            Gvk {
                group: "awesome.bears.com".into(),
                version: version.into(),
                kind: "Panda".into(),
            },
        );
    }
    table
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

/// Runs the case's policies and bindings (`objects`) against its request.
fn run(case: &Value, objects: &[Value]) -> ValidatingOutcome {
    let policies: Vec<ValidatingPolicy> = objects
        .iter()
        .filter(|o| o["kind"] == "ValidatingAdmissionPolicy")
        .map(ValidatingPolicy::from_object)
        .collect();
    let bindings: Vec<Binding> = objects
        .iter()
        .filter(|o| o["kind"] == "ValidatingAdmissionPolicyBinding")
        .map(Binding::from_object)
        .collect();
    let req = &case["request"];
    let object = case.get("object").filter(|o| !o.is_null());
    let old_object = case.get("oldObject").filter(|o| !o.is_null());
    let kind = Gvk::of(object.or(old_object).unwrap_or(&Value::Null));
    let resource = &req["resource"];
    let params = case["params"].as_array().map_or(&[][..], Vec::as_slice);
    let user = &req["userInfo"];
    let request = AdmissionRequest {
        attributes: Request {
            operation: s(&req["operation"]),
            kind,
            resource: Gvr::new(
                s(&resource["group"]),
                s(&resource["version"]),
                s(&resource["resource"]),
            ),
            subresource: s(&req["subResource"]),
            name: s(&req["name"]),
            namespace: s(&req["namespace"]),
            object,
            old_object,
            namespace_object: case.get("namespaceObject").filter(|o| !o.is_null()),
        },
        user_info: UserInfo {
            username: s(&user["username"]).to_owned(),
            uid: s(&user["uid"]).to_owned(),
            groups: user["groups"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|g| s(g).to_owned())
                .collect(),
            extra: Vec::new(),
        },
        dry_run: false,
    };
    validate(
        &policies,
        &bindings,
        &request,
        &equivalents(),
        &fixtures::Params(params),
    )
}

fn check_validate(case: &Value) -> Result<(), String> {
    let outcome = run(case, case["policies"].as_array().expect("policies"));
    let e = &case["expect"];
    let first = outcome.denials.first();
    if e["allowed"] == false {
        let Some(denial) = first else {
            return Err(format!("expected a denial, got {outcome:?}"));
        };
        if let Some(want) = e["message_contains"].as_str() {
            if !denial.message.contains(want) {
                return Err(format!("message {:?} lacks {want:?}", denial.message));
            }
        }
        if let Some(want) = e["message_prefix"].as_str() {
            if !denial.message.starts_with(want) {
                return Err(format!(
                    "message {:?} does not start with {want:?}",
                    denial.message
                ));
            }
        }
        if let Some(want) = e["reason"].as_str() {
            if denial.reason != want {
                return Err(format!("reason {} != {want}", denial.reason));
            }
        }
        if let Some(want) = e["code"].as_u64() {
            if u64::from(denial.code) != want {
                return Err(format!("code {} != {want}", denial.code));
            }
        }
    } else if let Some(denial) = first {
        return Err(format!("expected allowed, denied: {}", denial.message));
    }
    for w in e["warnings"].as_array().into_iter().flatten() {
        if !outcome.warnings.iter().any(|got| got == s(w)) {
            return Err(format!("missing warning {w}; got {:?}", outcome.warnings));
        }
    }
    if let Some(want) = e["auditAnnotations"].as_object() {
        for (key, value) in want {
            let got = outcome.audit_annotations.iter().find(|(k, _)| k == key);
            if got.map(|(_, v)| v.as_str()) != Some(s(value)) {
                return Err(format!(
                    "audit annotation {key}: want {value}, got {:?}",
                    outcome.audit_annotations
                ));
            }
        }
    }
    Ok(())
}

fn check_condition(case: &Value) -> Result<(), String> {
    let expressions = case["expressions"].as_array().expect("expressions");
    let mut objects: Vec<Value> = Vec::new();
    for (i, ex) in expressions.iter().enumerate() {
        let mut spec = json!({
            "failurePolicy": "Fail",
            "matchConstraints": {"resourceRules": [{"apiGroups": ["*"], "apiVersions": ["*"],
                "operations": ["*"], "resources": ["*"]}]},
            "validations": [{"expression": ex["expression"]}],
        });
        if !case["paramKind"].is_null() {
            spec["paramKind"] = case["paramKind"].clone();
        }
        objects.push(json!({"apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy", "metadata": {"name": format!("cond-{i}")}, "spec": spec}));
        let mut bspec = json!({"policyName": format!("cond-{i}"), "validationActions": ["Warn"]});
        if !case["paramRef"].is_null() {
            bspec["paramRef"] = case["paramRef"].clone();
        }
        objects.push(json!({"apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": format!("cond-{i}-binding")}, "spec": bspec}));
    }
    let outcome = run(case, &objects);
    if let Some(d) = outcome.denials.first() {
        return Err(format!("expected no denial (Warn only), got {}", d.message));
    }
    for (i, ex) in expressions.iter().enumerate() {
        let prefix = format!(
            "Validation failed for ValidatingAdmissionPolicy 'cond-{i}' with binding 'cond-{i}-binding': "
        );
        let mine: Vec<&String> = outcome
            .warnings
            .iter()
            .filter(|w| w.starts_with(&prefix))
            .collect();
        let expression = s(&ex["expression"]);
        let x = &ex["expect"];
        if x["result"] == true && !mine.is_empty() {
            return Err(format!("{expression}: expected true, got {mine:?}"));
        }
        if x["result"] == false {
            let want = format!("{prefix}failed expression: {}", expression.trim());
            if !mine.iter().any(|w| **w == want) {
                return Err(format!("{expression}: expected false, got {mine:?}"));
            }
        }
        if let Some(want) = x["error_contains"].as_str() {
            if !mine.iter().any(|w| w.contains(want)) {
                return Err(format!(
                    "{expression}: expected an error containing {want:?}, got {mine:?}"
                ));
            }
        }
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let Some(cases) = fixtures::load() else {
        return;
    };
    let mut trials = Vec::new();
    let (mut validate_count, mut condition_count) = (0, 0);
    for case in cases {
        let id = s(&case["id"]).to_owned();
        let check: fn(&Value) -> Result<(), String> = match s(&case["kind"]) {
            "validate" if id.starts_with("validatingadmissionpolicy_test-") => {
                validate_count += 1;
                check_validate
            }
            "condition" if id.starts_with("condition_test-") => {
                condition_count += 1;
                check_condition
            }
            _ => continue,
        };
        let listed = ALLOW_LIST.iter().find(|(a, _)| *a == id).map(|(_, r)| *r);
        trials.push(Trial::test(id, move || match (check(&case), listed) {
            (Ok(()), None) => Ok(()),
            (Ok(()), Some(_)) => Err(Failed::from("passes but is on the allow-list; remove it")),
            (Err(why), None) => Err(Failed::from(why)),
            (Err(_), Some(_)) => Ok(()),
        }));
    }
    assert!(
        validate_count >= 52,
        "found only {validate_count} validate cases"
    );
    assert!(
        condition_count >= 16,
        "found only {condition_count} condition cases"
    );
    for (id, _) in ALLOW_LIST {
        assert!(
            trials.iter().any(|t| t.name() == *id),
            "allow-listed {id} is not a case"
        );
    }
    libtest_mimic::run(&args, trials).exit();
}
