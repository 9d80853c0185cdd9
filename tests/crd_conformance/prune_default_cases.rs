//! Cases of the algorithms that rewrite a custom resource before validation: `default`,
//! `prune_non_nullable_nulls_without_defaults`, `prune` (with the pruned paths) and
//! `validate_embedded_resources` (expected errors as full strings or `{type, field}`,
//! compared as unordered sets).

use crate::common::conformance::each_case;
use crate::Check;
use kadmit_schema::field_error::FieldError;
use kadmit_schema::schema::Schema;
use kadmit_schema::{defaulting, objectmeta, prune};
use serde_json::Value;
use std::collections::BTreeSet;

/// The checks for `op`, or `None` when this module does not handle that op.
pub fn checks(op: &str, cases: &[Value]) -> Option<Vec<(String, Check)>> {
    let check: fn(Value) -> Result<(), String> = match op {
        "default" => default_case,
        "prune_non_nullable_nulls_without_defaults" => prune_nulls_case,
        "prune" => prune_case,
        "validate_embedded_resources" => embedded_case,
        _ => return None,
    };
    Some(each_case(cases, check))
}

fn default_case(case: Value) -> Result<(), String> {
    let schema = schema_of(&case)?;
    let mut value = case["input"].clone();
    defaulting::default(&mut value, schema.as_ref());
    same("output", &value, &case["expected"])
}

fn prune_nulls_case(case: Value) -> Result<(), String> {
    let schema = schema_of(&case)?;
    let mut value = case["input"].clone();
    defaulting::prune_non_nullable_nulls_without_defaults(&mut value, schema.as_ref());
    same("output", &value, &case["expected"])
}

fn prune_case(case: Value) -> Result<(), String> {
    let schema = schema_of(&case)?;
    let mut value = case["input"].clone();
    let is_root = case["is_resource_root"].as_bool().unwrap_or(false);
    let pruned = prune::prune(&mut value, schema.as_ref(), is_root);
    same("output", &value, &case["expected"])?;
    same(
        "pruned paths",
        &Value::from(pruned),
        &case["expected_pruned_paths"],
    )
}

fn embedded_case(case: Value) -> Result<(), String> {
    let schema = schema_of(&case)?.unwrap_or_default();
    let is_root = case["is_resource_root"].as_bool().unwrap_or(false);
    let errors = objectmeta::validate(&case["input"], &schema, is_root);
    let expected = case["expected_errors"]
        .as_array()
        .ok_or("no expected_errors")?;
    let got: BTreeSet<String> = errors.iter().map(|e| shown_like(e, expected)).collect();
    let want: BTreeSet<String> = expected.iter().map(expectation).collect();
    if got == want {
        Ok(())
    } else {
        Err(format!(
            "errors differ\n  got:  {got:#?}\n  want: {want:#?}"
        ))
    }
}

fn schema_of(case: &Value) -> Result<Option<Schema>, String> {
    match &case["schema"] {
        Value::Null => Ok(None),
        s => Schema::from_value(s).map(Some),
    }
}

fn same(what: &str, got: &Value, want: &Value) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what} differs\n  got:  {got}\n  want: {want}"))
    }
}

/// An expected error: its full text, or `<type> <field>` when only those are given.
fn expectation(e: &Value) -> String {
    match e {
        Value::String(text) => text.clone(),
        other => format!(
            "{} {}",
            other["type"].as_str().unwrap_or("?"),
            other["field"].as_str().unwrap_or("?")
        ),
    }
}

/// An error in the form its expectations take.
fn shown_like(e: &FieldError, expected: &[Value]) -> String {
    if expected.iter().all(Value::is_string) {
        e.to_string()
    } else {
        format!("{:?} {}", e.kind, e.field)
    }
}
