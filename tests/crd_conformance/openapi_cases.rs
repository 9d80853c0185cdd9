//! Cases of the schema validators: `validate_openapi` (kube-openapi keywords; every
//! valid input must pass, every failing input must give exactly its error strings) and
//! `validate_list_types` (duplicates as `{type, field}`). Error lists compare as
//! unordered sets.

use crate::common::conformance::each_case;
use crate::Check;
use kadmit_schema::field_error::FieldError;
use kadmit_schema::listtype::validate_list_sets_and_maps;
use kadmit_schema::openapi::Validator;
use kadmit_schema::schema::Schema;
use serde_json::Value;
use std::collections::BTreeSet;

/// The checks for `op`, or `None` when this module does not handle that op.
pub fn checks(op: &str, cases: &[Value]) -> Option<Vec<(String, Check)>> {
    let check: fn(Value) -> Result<(), String> = match op {
        "validate_openapi" => openapi_case,
        "validate_list_types" => list_type_case,
        _ => return None,
    };
    Some(each_case(cases, check))
}

fn openapi_case(case: Value) -> Result<(), String> {
    let validator = Validator::new(&Schema::from_value(&case["schema"])?);
    let mut problems = Vec::new();
    for input in list(&case["valid_inputs"]) {
        let got = texts(&validator.validate(input));
        if !got.is_empty() {
            problems.push(format!("valid input {input} gave {got:#?}"));
        }
    }
    for failing in list(&case["failing_inputs"]) {
        let input = &failing["input"];
        let got = texts(&validator.validate(input));
        let want: BTreeSet<String> = list(&failing["expected_errors"])
            .iter()
            .filter_map(|e| e.as_str().map(str::to_owned))
            .collect();
        if got != want {
            problems.push(format!(
                "input {input}\n  got:  {got:#?}\n  want: {want:#?}"
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

fn list_type_case(case: Value) -> Result<(), String> {
    let schema = Schema::from_value(&case["schema"])?;
    let errors = validate_list_sets_and_maps(&case["input"], &schema);
    let got: BTreeSet<String> = errors
        .iter()
        .map(|e| format!("{:?} {}", e.kind, e.field))
        .collect();
    let want: BTreeSet<String> = list(&case["expected_errors"])
        .iter()
        .map(|e| format!("{} {}", text(&e["type"]), text(&e["field"])))
        .collect();
    if got == want {
        Ok(())
    } else {
        Err(format!(
            "errors differ\n  got:  {got:#?}\n  want: {want:#?}"
        ))
    }
}

fn texts(errors: &[FieldError]) -> BTreeSet<String> {
    errors.iter().map(ToString::to_string).collect()
}

fn list(v: &Value) -> &[Value] {
    v.as_array().map_or(&[], Vec::as_slice)
}

fn text(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}
