//! The `json_patch_test-*` cases of `../shared/peer-fixtures/admission-policies/cases.yaml`
//! (AP `pkg/admission/plugin/policy/mutating/patch/json_patch_test.go` `TestJSONPatch`), one
//! named test each: the MutatingAdmissionPolicy's JSONPatch mutations are compiled with the
//! MAP declarations (`Declarations::with_mutation_types`), evaluated with `object` = the
//! case's object (`oldObject`, a minimal `request`, `params` null), applied with
//! `kadmit_policy::mutating::json_patch::apply`, and the result compared with
//! `expect.object` after `run_cases.py`'s normalisation (nulls and empty maps/lists dropped
//! on both sides), or the error, as the dispatcher words it (`policy '<P>' with binding
//! '<B>' denied request: <err>`), checked against `message_prefix`/`message_contains`.

mod fixtures;

use kadmit_policy::mutating::json_patch;
use kadmit_schema::cel::expression::{
    compile, Activation, CompiledExpression, Declarations, Invocation, ResultType, VariablesDecl,
};
use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::{json, Value};

const PREFIX: &str = "json_patch_test-";
const EXPECTED_CASES: usize = 47;

/// Cases not expected to pass, with the reason. A listed case that passes fails, so the
/// list stays honest.
const ALLOW_LIST: &[(&str, &str)] = &[(
    "json_patch_test-25",
    "needs strict decoding of the patched object into the kind's schema (unknown field containerPortZ), outside the patcher",
)];

/// cel-go's per-invocation budget (`RuntimeCELCostBudget`).
const BUDGET: u64 = 10_000_000;

fn of_kind<'a>(case: &'a Value, kind: &str) -> Option<&'a Value> {
    case["policies"]
        .as_array()?
        .iter()
        .find(|p| p["kind"] == kind)
}

fn name(object: &Value) -> &str {
    object["metadata"]["name"].as_str().unwrap_or("")
}

/// The minimal `request` of the case.
fn request(case: &Value) -> Value {
    let r = &case["request"];
    let text = |v: &Value| v.as_str().unwrap_or("").to_owned();
    json!({
        "operation": text(&r["operation"]),
        "name": text(&r["name"]),
        "namespace": text(&r["namespace"]),
        "resource": r["resource"],
        "requestResource": r["resource"],
        "userInfo": r.get("userInfo").cloned().unwrap_or_else(|| json!({})),
        "dryRun": false,
    })
}

/// Runs the policy's mutations in order: the patched object, or the error text.
fn mutate(case: &Value) -> Result<Value, String> {
    let policy = of_kind(case, "MutatingAdmissionPolicy").ok_or("no MutatingAdmissionPolicy")?;
    let spec = &policy["spec"];
    let params = spec.get("paramKind").is_some_and(|p| !p.is_null());
    let base = Declarations::admission(params, false).with_mutation_types();
    let mut variables: Vec<(String, CompiledExpression)> = Vec::new();
    for variable in spec["variables"].as_array().into_iter().flatten() {
        let declared = VariablesDecl::Fields(
            variables
                .iter()
                .map(|(n, e)| (n.clone(), e.output_type()))
                .collect(),
        );
        let source = variable["expression"].as_str().unwrap_or("");
        let compiled =
            compile(source, &base.clone().with_variables(declared)).map_err(|e| e.to_string())?;
        variables.push((variable["name"].as_str().unwrap_or("").to_owned(), compiled));
    }
    let declarations = if variables.is_empty() {
        base
    } else {
        base.with_variables(VariablesDecl::Fields(
            variables
                .iter()
                .map(|(n, e)| (n.clone(), e.output_type()))
                .collect(),
        ))
    };
    let mut object = case["object"].clone();
    for mutation in spec["mutations"].as_array().into_iter().flatten() {
        let source = mutation["jsonPatch"]["expression"]
            .as_str()
            .ok_or("not a JSONPatch mutation")?;
        let expression = compile(source, &declarations).map_err(|e| e.to_string())?;
        expression.check_output(&[ResultType::JsonPatchList])?;
        let activation = Activation::new()
            .with("object", object.clone())
            .with("oldObject", case["oldObject"].clone())
            .with("request", request(case))
            .with("params", Value::Null)
            .with("namespaceObject", case["namespaceObject"].clone());
        let mut invocation = Invocation::new(&activation, &variables, BUDGET);
        let ops = invocation
            .evaluate_json_patch(&expression)
            .map_err(|e| e.to_string())?;
        if let Some(patched) = json_patch::apply(&object, &ops)? {
            object = patched;
        }
    }
    Ok(object)
}

/// `None` when the case passes, else why not.
fn check(case: &Value) -> Option<String> {
    let expect = &case["expect"];
    let result = mutate(case);
    if expect["allowed"].as_bool() != Some(false) {
        let want = expect.get("object").unwrap_or(&case["object"]);
        return match result {
            Ok(got) if fixtures::norm(&got) == fixtures::norm(want) => None,
            Ok(got) => Some(format!(
                "object differs\n  got:  {}\n  want: {}",
                fixtures::norm(&got),
                fixtures::norm(want)
            )),
            Err(e) => Some(format!("expected the object, got the error {e:?}")),
        };
    }
    let error = match result {
        Ok(got) => return Some(format!("expected an error, got the object {got}")),
        Err(e) => e,
    };
    let policy = of_kind(case, "MutatingAdmissionPolicy").map_or("", name);
    let message = match of_kind(case, "MutatingAdmissionPolicyBinding") {
        Some(binding) => format!(
            "policy '{policy}' with binding '{}' denied request: {error}",
            name(binding)
        ),
        None => format!("policy {policy:?} denied request: {error}"),
    };
    let prefix = expect["message_prefix"].as_str().unwrap_or("");
    let contains = expect["message_contains"].as_str().unwrap_or("");
    (!message.starts_with(prefix) || !message.contains(contains)).then(|| {
        format!("expected a message starting {prefix:?} containing {contains:?}, got {message:?}")
    })
}

fn main() {
    let args = Arguments::from_args();
    let cases: Vec<Value> = fixtures::load()
        .unwrap_or_default()
        .into_iter()
        .filter(|c| c["id"].as_str().is_some_and(|id| id.starts_with(PREFIX)))
        .collect();
    let mut trials = Vec::new();
    if !cases.is_empty() {
        let count = cases.len();
        trials.push(Trial::test("json_patch_case_count", move || {
            if count == EXPECTED_CASES {
                Ok(())
            } else {
                Err(Failed::from(format!(
                    "{count} {PREFIX}* cases, expected {EXPECTED_CASES}"
                )))
            }
        }));
        let listed_missing: Vec<&str> = ALLOW_LIST
            .iter()
            .map(|(id, _)| *id)
            .filter(|id| !cases.iter().any(|c| c["id"] == *id))
            .collect();
        trials.push(Trial::test(
            "json_patch_allow_list_names_cases",
            move || {
                if listed_missing.is_empty() {
                    Ok(())
                } else {
                    Err(Failed::from(format!(
                        "ALLOW_LIST names unknown cases: {listed_missing:?}"
                    )))
                }
            },
        ));
    }
    for case in cases {
        let id = case["id"].as_str().unwrap_or_default().to_owned();
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
