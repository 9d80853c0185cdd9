//! Checks for the matching case kinds: `match`, `wildcard`, `applyto-operation`,
//! `applyto-operations-validate` and `applyto-gvk`.
use crate::Check;
use kadmit::testing::gatekeeper::apply_to::{self, ApplyTo};
use kadmit::testing::gatekeeper::matching::{Match, Target};
use kadmit::testing::gatekeeper::{wildcard, Gvk};
use serde_json::{json, Value};

/// The checks for `kind`, or `None` when this module does not handle that kind.
pub fn checks(kind: &str, cases: &[Value]) -> Option<Vec<(String, Check)>> {
    let check: fn(Value) -> Result<(), String> = match kind {
        "match" => check_match,
        "wildcard" => check_wildcard,
        "applyto-operation" => check_operation,
        "applyto-operations-validate" => check_operations_validate,
        "applyto-gvk" => check_gvk,
        _ => return None,
    };
    Some(
        cases
            .iter()
            .map(|case| {
                let id = case["id"].as_str().expect("case without id").to_owned();
                let case = case.clone();
                (id, Box::new(move || check(case)) as Check)
            })
            .collect(),
    )
}

fn check_match(case: Value) -> Result<(), String> {
    let object = &case["object"];
    let namespace = match &case["namespace"] {
        Value::Null => None,
        Value::String(s) if s == "GATOR_RESOLVE" => {
            gator_namespace(object, std::slice::from_ref(object))
        }
        given => Some(namespace_object(&given["name"], &given["labels"])),
    };
    let matcher = Match::from_spec(case.get("match"))?;
    let result = matcher.matches(&Target {
        object,
        namespace: namespace.as_ref(),
        source: case["source"].as_str().unwrap_or(""),
    });
    expect_outcome(&case["expect"], "matches", result)
}

/// gator's `NamespaceForResource`: no namespace gives an empty Namespace; otherwise a
/// Namespace among the inputs (the last of that name), else a label-less `default`.
fn gator_namespace(object: &Value, inputs: &[Value]) -> Option<Value> {
    let name = object["metadata"]["namespace"].as_str().unwrap_or("");
    if name.is_empty() {
        return Some(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {}}));
    }
    let given = inputs.iter().rev().find(|input| {
        let gvk = Gvk::of(input);
        gvk.kind == "Namespace" && gvk.group.is_empty() && input["metadata"]["name"] == name
    });
    match given {
        Some(namespace) => Some(namespace.clone()),
        None if name == "default" => Some(namespace_object(&json!("default"), &Value::Null)),
        None => None,
    }
}

fn namespace_object(name: &Value, labels: &Value) -> Value {
    let mut metadata = json!({"name": name});
    if !labels.is_null() {
        metadata["labels"] = labels.clone();
    }
    json!({"apiVersion": "v1", "kind": "Namespace", "metadata": metadata})
}

fn check_wildcard(case: Value) -> Result<(), String> {
    let pattern = case["pattern"].as_str().ok_or("no pattern")?;
    let candidate = case["candidate"].as_str().ok_or("no candidate")?;
    let expect = &case["expect"];
    let (got, want) = if let Some(want) = expect["matches"].as_bool() {
        (wildcard::matches(pattern, candidate), want)
    } else {
        let want = expect["matches_generate_name"]
            .as_bool()
            .ok_or("no expected outcome")?;
        (wildcard::matches_generate_name(pattern, candidate), want)
    };
    compare(got, want)
}

fn check_operation(case: Value) -> Result<(), String> {
    let entries = apply_to::from_spec(Some(&json!([{"operations": case["operations"]}])))?;
    let got = entries[0].matches_operation(case["operation"].as_str().ok_or("no operation")?);
    compare(
        got,
        case["expect"]["matches"]
            .as_bool()
            .ok_or("no expect.matches")?,
    )
}

fn check_operations_validate(case: Value) -> Result<(), String> {
    let lists = case["operations_per_entry"]
        .as_array()
        .ok_or("no operations_per_entry")?;
    let spec: Vec<Value> = lists.iter().map(|ops| json!({"operations": ops})).collect();
    let entries = apply_to::from_spec(Some(&Value::Array(spec)))?;
    let result = apply_to::validate_operations(&entries)
        .map(|()| true)
        .map_err(|errors| errors.join("; "));
    expect_outcome(&case["expect"], "ok", result)
}

fn check_gvk(case: Value) -> Result<(), String> {
    let entries: Vec<ApplyTo> = apply_to::from_spec(case.get("applyTo"))?;
    let gvk = Gvk {
        group: case["gvk"]["group"].as_str().unwrap_or("").to_owned(),
        version: case["gvk"]["version"].as_str().unwrap_or("").to_owned(),
        kind: case["gvk"]["kind"].as_str().unwrap_or("").to_owned(),
    };
    let got = entries.iter().any(|e| e.matches_gvk(&gvk));
    compare(
        got,
        case["expect"]["matches"]
            .as_bool()
            .ok_or("no expect.matches")?,
    )
}

/// `expect.error` is a substring of the error; otherwise `expect.<field>` is the outcome.
fn expect_outcome(expect: &Value, field: &str, result: Result<bool, String>) -> Result<(), String> {
    match (expect["error"].as_str(), result) {
        (Some(want), Err(got)) if got.contains(want) => Ok(()),
        (Some(want), got) => Err(format!(
            "expected an error containing {want:?}, got {got:?}"
        )),
        (None, Err(got)) => Err(format!("unexpected error: {got}")),
        (None, Ok(got)) => compare(
            got,
            expect[field]
                .as_bool()
                .ok_or(format!("no expect.{field}"))?,
        ),
    }
}

fn compare(got: bool, want: bool) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("expected {want}, got {got}"))
    }
}
