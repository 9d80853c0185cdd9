//! `template-validate`, `template-set`, `expand-resource` and `expand-system`: ExpansionTemplate
//! validation, the template database, and expansion with and without mutation.
use crate::Check;
use kadmit::testing::gatekeeper::expansion::{
    expand, expand_resource, NoMutation, ResultantMutator, Template, Templates,
};
use serde_json::{json, Value};

/// The checks for `kind`, or `None` when this module does not handle that kind.
pub fn checks(kind: &str, cases: &[Value]) -> Option<Vec<(String, Check)>> {
    let check: fn(&Value) -> Result<(), String> = match kind {
        "template-validate" => check_validate,
        "template-set" => check_set,
        "expand-resource" => check_expand_resource,
        "expand-system" => check_expand_system,
        _ => return None,
    };
    Some(
        cases
            .iter()
            .map(|case| {
                let id = case["id"].as_str().unwrap_or("?").to_owned();
                let case = case.clone();
                (id, Box::new(move || check(&case)) as Check)
            })
            .collect(),
    )
}

/// The mutation system that mutates resultants, built from a case's mutators: each
/// resultant runs through it with its Namespace, the given source and no operation.
fn resultant_mutator(mutators: &[Value]) -> Result<Box<dyn ResultantMutator>, String> {
    if mutators.is_empty() {
        return Ok(Box::new(NoMutation));
    }
    Ok(Box::new(SystemMutator(crate::mutate_cases::system(
        mutators,
    )?)))
}

struct SystemMutator(kadmit::testing::gatekeeper::system::System);

impl ResultantMutator for SystemMutator {
    fn mutate(
        &self,
        object: &mut Value,
        namespace: Option<&Value>,
        source: &str,
    ) -> Result<(), String> {
        self.0.mutate(object, namespace, source, "").map(|_| ())
    }
}

fn check_validate(case: &Value) -> Result<(), String> {
    outcome(
        &case["expect"],
        Template::from_value(&case["template"]).map(|_| ()),
    )
}

/// Upserts in order, failing as gator does on the first template it cannot upsert.
fn check_set(case: &Value) -> Result<(), String> {
    outcome(
        &case["expect"],
        upsert_all(list(&case["templates"])).map(|_| ()),
    )
}

fn check_expand_resource(case: &Value) -> Result<(), String> {
    let template = Template::convert(&case["template"])?;
    let namespace = namespace_object(&case["namespace"]);
    let got = expand_resource(&case["object"], namespace.as_ref(), &template);
    let expect = &case["expect"];
    match (got, expect.get("object")) {
        (Ok(object), Some(want)) if object == *want => Ok(()),
        (Ok(object), Some(want)) => Err(format!("expected {want:#}\ngot {object:#}")),
        (result, None) => outcome(expect, result.map(|_| ())),
        (Err(e), Some(_)) => Err(format!("expected an object, got error {e:?}")),
    }
}

fn check_expand_system(case: &Value) -> Result<(), String> {
    let templates = upsert_all(list(&case["templates"]))?;
    let mutator = resultant_mutator(list(&case["mutators"]))?;
    let namespace = namespace_object(&case["namespace"]);
    let got = expand(
        &case["generator"],
        namespace.as_ref(),
        &templates,
        &*mutator,
    );
    let expect = &case["expect"];
    let Some(want) = expect.get("resultants") else {
        return outcome(expect, got.map(|_| ()));
    };
    let got: Vec<Value> = got?
        .into_iter()
        .map(|r| json!({"template": r.template, "enforcementAction": r.enforcement_action, "object": r.object}))
        .collect();
    let mut unmatched: Vec<&Value> = list(want).iter().collect();
    for resultant in &got {
        match unmatched.iter().position(|w| *w == resultant) {
            Some(at) => {
                unmatched.remove(at);
            }
            None => {
                return Err(format!(
                    "unexpected resultant {resultant:#}\nexpected {want:#}"
                ))
            }
        }
    }
    if unmatched.is_empty() {
        Ok(())
    } else {
        Err(format!("missing resultants {unmatched:#?}"))
    }
}

fn upsert_all(documents: &[Value]) -> Result<Templates, String> {
    let mut templates = Templates::new();
    for document in documents {
        let name = document["metadata"]["name"].as_str().unwrap_or("");
        Template::from_value(document)
            .and_then(|t| templates.upsert(t))
            .map_err(|e| format!("error upserting template {name}: {e}"))?;
    }
    Ok(templates)
}

/// The Namespace object a case's `namespace: {name, labels}` stands for.
fn namespace_object(given: &Value) -> Option<Value> {
    if given.is_null() {
        return None;
    }
    let mut metadata = json!({"name": given["name"]});
    if let Some(labels) = given.get("labels") {
        metadata["labels"] = labels.clone();
    }
    Some(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": metadata}))
}

fn list(value: &Value) -> &[Value] {
    value.as_array().map(Vec::as_slice).unwrap_or_default()
}

/// `expect: {ok: true}` or `expect: {error: <substring>}`.
fn outcome(expect: &Value, got: Result<(), String>) -> Result<(), String> {
    match (got, expect["error"].as_str()) {
        (Ok(()), None) if expect["ok"].as_bool() != Some(false) => Ok(()),
        (Ok(()), want) => Err(format!("expected error {want:?}, got ok")),
        (Err(e), Some(want)) if e.contains(want) => Ok(()),
        (Err(e), want) => Err(format!("expected {want:?}, got error {e:?}")),
    }
}
