//! `mutate`, `mutator-validate` and `schema-conflict` cases: mutators built from their
//! YAML, registered in one mutation System, run through its convergence loop.

use crate::common::conformance::each_case;
use crate::Check;
use kadmit::testing::gatekeeper::mutators::Mutator;
use kadmit::testing::gatekeeper::system::System;
use serde_json::{json, Value};

pub fn checks(kind: &str, cases: &[Value]) -> Option<Vec<(String, Check)>> {
    let check: fn(Value) -> Result<(), String> = match kind {
        "mutate" => mutate,
        "mutator-validate" => validate,
        "schema-conflict" => schema_conflict,
        _ => return None,
    };
    Some(each_case(cases, check))
}

/// A System holding `mutators`, upserted in order.
pub fn system(mutators: &[Value]) -> Result<System, String> {
    let mut system = System::new();
    for m in mutators {
        system.upsert(Mutator::from_value(m)?)?;
    }
    Ok(system)
}

/// The Namespace object a case's `namespace: {name, labels}` stands for.
pub fn namespace_object(context: &Value) -> Option<Value> {
    let ns = context.get("namespace").filter(|n| !n.is_null())?;
    let mut metadata = json!({"name": ns["name"]});
    if let Some(labels) = ns.get("labels") {
        metadata["labels"] = labels.clone();
    }
    Some(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": metadata}))
}

/// Compares an outcome with `expect.error` (substring) or `expect.error_regex`.
fn expect_error(expect: &Value, got: Result<(), String>) -> Result<(), String> {
    let error = match got {
        Ok(()) => return Err(format!("expected an error, got none (expect: {expect})")),
        Err(e) => e,
    };
    if let Some(want) = expect["error"].as_str() {
        if !error.contains(want) {
            return Err(format!("error {error:?} does not contain {want:?}"));
        }
    }
    if let Some(pattern) = expect["error_regex"].as_str() {
        let re = regex::Regex::new(pattern).map_err(|e| e.to_string())?;
        if !re.is_match(&error) {
            return Err(format!("error {error:?} does not match /{pattern}/"));
        }
    }
    Ok(())
}

fn wants_error(expect: &Value) -> bool {
    expect.get("error").is_some() || expect.get("error_regex").is_some()
}

fn mutate(case: Value) -> Result<(), String> {
    let expect = &case["expect"];
    let context = &case["context"];
    let mut object = case["object"].clone();
    let namespace = namespace_object(context);
    let run = system(case["mutators"].as_array().map_or(&[][..], |v| v)).and_then(|s| {
        s.mutate(
            &mut object,
            namespace.as_ref(),
            context["source"].as_str().unwrap_or(""),
            context["operation"].as_str().unwrap_or(""),
        )
    });
    if wants_error(expect) {
        return expect_error(expect, run.map(|_| ()));
    }
    let outcome = run?;
    if let Some(want) = expect.get("object") {
        if &object != want {
            return Err(format!("object differs\n  got:  {object}\n  want: {want}"));
        }
    }
    if let Some(want) = expect.get("mutated").and_then(Value::as_bool) {
        if outcome.mutated != want {
            return Err(format!("mutated = {}, want {want}", outcome.mutated));
        }
    }
    Ok(())
}

fn validate(case: Value) -> Result<(), String> {
    let built = Mutator::from_value(&case["mutator"]).map(|_| ());
    if wants_error(&case["expect"]) {
        expect_error(&case["expect"], built)
    } else {
        built
    }
}

fn schema_conflict(case: Value) -> Result<(), String> {
    let built = system(case["mutators"].as_array().map_or(&[][..], |v| v)).map(|_| ());
    if wants_error(&case["expect"]) {
        expect_error(&case["expect"], built)
    } else {
        built
    }
}
