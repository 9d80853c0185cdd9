//! The `mutatingadmissionpolicy_test-*` (KK `test/integration/apiserver/cel/
//! mutatingadmissionpolicy_test.go`) and `smd_test-*` (AP `mutating/patch/smd_test.go`,
//! wrapped in a policy and binding) cases of
//! `../shared/peer-fixtures/admission-policies/cases.yaml`, one named test each, driving
//! `kadmit_policy::mutating`: the case's MutatingAdmissionPolicies and bindings, its
//! params (a [`ParamSource`] over `params`), `namespaceObject`, request (operation,
//! resource, userInfo), `object`/`oldObject`, the built-in schemas of the newest
//! Kubernetes (`kinds::Builtin::newest()`); the first pass, then, when it asked for one
//! (a mutation was applied), one reinvocation round (reference §9.4, no other
//! mutators). The result is compared with `expect.object` after `run_cases.py`'s
//! normalisation (nulls and empty maps/lists dropped on both sides), or the first error
//! with `message_prefix`/`message_contains`.

mod fixtures;

use kadmit_match::Gvk;
use kadmit_policy::compiled::Binding;
use kadmit_policy::matching::{Gvr, Request, Table};
use kadmit_policy::mutating::{mutate, reinvoke, MutatingOutcome, MutatingPolicy, MutationContext};
use kadmit_policy::request::{AdmissionRequest, UserInfo};
use kadmit_schema::kinds::Builtin;
use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value;

const PREFIXES: [(&str, usize); 2] = [("mutatingadmissionpolicy_test-", 15), ("smd_test-", 12)];

/// Cases not expected to pass, with the reason. A listed case that passes fails, so the
/// list stays honest.
const ALLOW_LIST: &[(&str, &str)] = &[(
    "mutatingadmissionpolicy_test-12",
    "a `status` subresource UPDATE of a Namespace upstream: the case's request carries no subresource (kadmit has no subresource requests), so the rule on `namespaces/status` does not match; and the expected label, `spec.finalizers` and `status.phase` come from the apiserver's Namespace strategy and defaulting, not from the policy",
)];

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

/// The first pass and, when it asked for one, the reinvocation round: the final
/// object and every outcome.
fn run(case: &Value) -> (Value, Vec<MutatingOutcome>) {
    let objects = case["policies"].as_array().map_or(&[][..], Vec::as_slice);
    let policies: Vec<MutatingPolicy> = objects
        .iter()
        .filter(|o| o["kind"] == "MutatingAdmissionPolicy")
        .map(MutatingPolicy::from_object)
        .collect();
    let bindings: Vec<Binding> = objects
        .iter()
        .filter(|o| o["kind"] == "MutatingAdmissionPolicyBinding")
        .map(Binding::from_object)
        .collect();
    let req = &case["request"];
    let object = case.get("object").filter(|o| !o.is_null());
    let old_object = case.get("oldObject").filter(|o| !o.is_null());
    let resource = &req["resource"];
    let user = &req["userInfo"];
    let params = case["params"].as_array().map_or(&[][..], Vec::as_slice);
    let metadata = &object.or(old_object).unwrap_or(&Value::Null)["metadata"];
    let request = AdmissionRequest {
        attributes: Request {
            operation: s(&req["operation"]),
            kind: Gvk::of(object.or(old_object).unwrap_or(&Value::Null)),
            resource: Gvr::new(
                s(&resource["group"]),
                s(&resource["version"]),
                s(&resource["resource"]),
            ),
            subresource: s(&req["subResource"]),
            name: req["name"].as_str().unwrap_or(s(&metadata["name"])),
            namespace: req["namespace"]
                .as_str()
                .unwrap_or(s(&metadata["namespace"])),
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
    let table = Table::builtin();
    let schemas = Builtin::newest();
    let params = fixtures::Params(params);
    let context = MutationContext {
        request: &request,
        equivalents: &table,
        params: &params,
        schemas: &schemas,
        defaulter: None,
    };
    let mut current = object.cloned().unwrap_or(Value::Null);
    let first = mutate(&policies, &bindings, &context, &mut current);
    let mut outcomes = vec![first];
    if outcomes[0].allowed() && outcomes[0].reinvocation.requested() {
        let state = outcomes[0].reinvocation.clone();
        outcomes.push(reinvoke(
            &policies,
            &bindings,
            &context,
            &state,
            &mut current,
        ));
    }
    (current, outcomes)
}

/// `None` when the case passes, else why not.
fn check(case: &Value) -> Option<String> {
    let expect = &case["expect"];
    let (object, outcomes) = run(case);
    let error = outcomes.iter().find_map(|o| o.errors.first());
    if expect["allowed"].as_bool() != Some(false) {
        if let Some(e) = error {
            return Some(format!(
                "expected the object, got the error {:?}",
                e.message
            ));
        }
        let want = expect.get("object").unwrap_or(&case["object"]);
        return (fixtures::norm(&object) != fixtures::norm(want)).then(|| {
            format!(
                "object differs\n  got:  {}\n  want: {}",
                fixtures::norm(&object),
                fixtures::norm(want)
            )
        });
    }
    let Some(error) = error else {
        return Some(format!("expected an error, got the object {object}"));
    };
    let message = &error.message;
    let prefix = s(&expect["message_prefix"]);
    let contains = s(&expect["message_contains"]);
    (!message.starts_with(prefix) || !message.contains(contains)).then(|| {
        format!("expected a message starting {prefix:?} containing {contains:?}, got {message:?}")
    })
}

fn main() {
    let args = Arguments::from_args();
    let cases: Vec<Value> = fixtures::load()
        .unwrap_or_default()
        .into_iter()
        .filter(|c| PREFIXES.iter().any(|(p, _)| s(&c["id"]).starts_with(p)))
        .collect();
    let mut trials = Vec::new();
    if !cases.is_empty() {
        for (prefix, expected) in PREFIXES {
            let count = cases
                .iter()
                .filter(|c| s(&c["id"]).starts_with(prefix))
                .count();
            trials.push(Trial::test(format!("{prefix}case_count"), move || {
                if count == expected {
                    Ok(())
                } else {
                    Err(Failed::from(format!(
                        "{count} {prefix}* cases, expected {expected}"
                    )))
                }
            }));
        }
        let listed_missing: Vec<&str> = ALLOW_LIST
            .iter()
            .map(|(id, _)| *id)
            .filter(|id| !cases.iter().any(|c| c["id"] == *id))
            .collect();
        trials.push(Trial::test("map_allow_list_names_cases", move || {
            if listed_missing.is_empty() {
                Ok(())
            } else {
                Err(Failed::from(format!(
                    "ALLOW_LIST names unknown cases: {listed_missing:?}"
                )))
            }
        }));
    }
    for case in cases {
        let id = s(&case["id"]).to_owned();
        let allowed = ALLOW_LIST
            .iter()
            .find(|(a, _)| *a == id)
            .map(|(_, why)| *why);
        let trial = Trial::test(id.clone(), move || match (check(&case), allowed) {
            (None, None) => Ok(()),
            (Some(why), None) => Err(Failed::from(why)),
            (None, Some(_)) => Err(Failed::from(format!(
                "{id} passes: remove it from ALLOW_LIST"
            ))),
            (Some(_), Some(_)) => Ok(()),
        });
        trials.push(match allowed {
            Some(_) => trial.with_kind("allow-listed"),
            None => trial,
        });
    }
    libtest_mimic::run(&args, trials).exit();
}
