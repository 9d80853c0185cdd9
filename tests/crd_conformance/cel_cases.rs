//! Checks for op `validate_cel` and for every expression of `cel_expressions.yaml`.
use crate::{each_case, Check};
use kadmit_schema::cel::compile_unchecked;
use kadmit_schema::field_error::FieldError;
use kadmit_schema::schema::Schema;
use serde_json::{json, Value};

/// The checks for `op`, or `None` when this module does not handle that op.
pub fn checks(op: &str, cases: &[Value]) -> Option<Vec<(String, Check)>> {
    (op == "validate_cel").then(|| each_case(cases, check_case))
}

/// One check per expression of `cel_expressions.yaml` (`<group>::valid-<n>` / `<group>::error-<n>`).
pub fn expression_checks(doc: &Value) -> Vec<(String, Check)> {
    let mut out: Vec<(String, Check)> = Vec::new();
    for group in doc["groups"].as_array().expect("no groups: list") {
        let name = group["name"]
            .as_str()
            .expect("group without name")
            .to_owned();
        let valid = group["valid"].as_array().cloned().unwrap_or_default();
        for (n, expression) in valid.into_iter().enumerate() {
            let (group, expression) = (group.clone(), expression.as_str().unwrap_or("").to_owned());
            let check = move || expect_valid(&group, &expression);
            out.push((format!("{name}::valid-{n}"), Box::new(check)));
        }
        let errors = group["errors"].as_array().cloned().unwrap_or_default();
        for (n, entry) in errors.into_iter().enumerate() {
            let group = group.clone();
            let check = move || expect_error(&group, &entry);
            out.push((format!("{name}::error-{n}"), Box::new(check)));
        }
    }
    out
}

/// The error strings of evaluating `rules` (x-kubernetes-validations entries) on the root of
/// `schema` against `data`.
fn evaluate(
    schema: &Value,
    rules: Value,
    data: &Value,
    resource_root: bool,
) -> Result<Vec<String>, String> {
    let mut schema = schema.clone();
    schema["x-kubernetes-validations"] = rules;
    let schema = Schema::from_value(&schema)?;
    let outcome = compile_unchecked(&schema).validate(data, &schema, resource_root);
    Ok(outcome.errors.iter().map(FieldError::to_string).collect())
}

fn run_expression(group: &Value, expression: &str) -> Result<Vec<String>, String> {
    let resource_root = group["is_resource_root"].as_bool().unwrap_or(false);
    evaluate(
        &group["schema"],
        json!([{ "rule": expression }]),
        &group["self"],
        resource_root,
    )
}

fn expect_valid(group: &Value, expression: &str) -> Result<(), String> {
    let errors = run_expression(group, expression)?;
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!("{expression}: expected true, got {errors:?}"))
    }
}

fn expect_error(group: &Value, entry: &Value) -> Result<(), String> {
    let expression = entry["expression"].as_str().unwrap_or("");
    let wanted = entry["error_contains"].as_str().unwrap_or("");
    let errors = run_expression(group, expression)?;
    if errors.iter().any(|e| e.contains(wanted)) && !errors.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{expression}: expected an error containing {wanted:?}, got {errors:?}"
        ))
    }
}

/// `path_root: root` cases render paths under `root`.
fn rooted(field: &str, root: Option<&str>) -> String {
    match (root, field) {
        (None, f) => f.to_owned(),
        (Some(r), "<nil>") => r.to_owned(),
        (Some(r), f) if f.starts_with('[') => format!("{r}{f}"),
        (Some(r), f) => format!("{r}.{f}"),
    }
}

fn check_case(case: Value) -> Result<(), String> {
    let root = case["path_root"].as_str();
    if let Some(rows) = case["rows"].as_array() {
        return rows.iter().try_for_each(|row| check_row(&case, row));
    }
    let schema = Schema::from_value(&case["schema"])?;
    let outcome = compile_unchecked(&schema).validate(&case["input"], &schema, false);
    let mut got: Vec<(String, String)> = outcome
        .errors
        .iter()
        .map(|e| (format!("{:?}", e.kind), rooted(&e.field, root)))
        .collect();
    let rendered: Vec<String> = outcome
        .errors
        .iter()
        .map(|e| format!("{}: {}", rooted(&e.field, root), e.body()))
        .collect();
    if let Some(expected) = case["expected_errors"].as_array() {
        let mut want: Vec<(String, String)> = expected
            .iter()
            .map(|e| {
                let text = |k: &str| e[k].as_str().unwrap_or("").to_owned();
                (text("type"), text("field"))
            })
            .collect();
        want.sort();
        got.sort();
        if want != got {
            return Err(format!("errors: want {want:?}, got {got:?} ({rendered:?})"));
        }
    }
    if let Some(messages) = case["derived_expected_messages"].as_array() {
        let mut want: Vec<&str> = messages.iter().filter_map(Value::as_str).collect();
        let mut have: Vec<&str> = rendered.iter().map(String::as_str).collect();
        want.sort();
        have.sort();
        if want != have {
            return Err(format!("messages: want {want:?}, got {have:?}"));
        }
    }
    for wanted in case["expected_error_substrings"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let wanted = wanted.as_str().unwrap_or("");
        if !rendered.iter().any(|e| e.contains(wanted)) {
            return Err(format!("no error contains {wanted:?}: {rendered:?}"));
        }
    }
    Ok(())
}

fn check_row(case: &Value, row: &Value) -> Result<(), String> {
    let mut rule = json!({ "rule": row["rule"] });
    for key in ["message", "messageExpression"] {
        if !row[key].is_null() {
            rule[key] = row[key].clone();
        }
    }
    let errors = evaluate(&case["schema"], json!([rule]), &case["input"], false)?;
    let wanted = row["expected_error_contains"].as_str().unwrap_or("");
    if errors.iter().any(|e| e.contains(wanted)) {
        Ok(())
    } else {
        Err(format!(
            "{row}: expected an error containing {wanted:?}, got {errors:?}"
        ))
    }
}
