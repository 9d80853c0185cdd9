//! Checks for `validate_crd_structural` (each listed error of a non-structural schema, from
//! the upstream test schema that produces it) and `deprecation_warnings`, plus: every CRD
//! of the kubectl-validate corpus loads.

use crate::{each_case, load_yaml, Check};
use kadmit_schema::definition::Crd;
use kadmit_schema::structural::{is_crd, validate_crd};
use serde_json::{json, Value};
use std::path::Path;

/// The checks for `op`, or `None` when this module does not handle that op.
pub fn checks(op: &str, cases: &[Value]) -> Option<Vec<(String, Check)>> {
    match op {
        "validate_crd_structural" => {
            let mut checks: Vec<(String, Check)> =
                cases.iter().flat_map(structural_examples).collect();
            checks.extend(kubectl_validate_crds());
            Some(checks)
        }
        "deprecation_warnings" => Some(each_case(cases, deprecation_warnings)),
        _ => None,
    }
}

/// Schemas of upstream's `TestNonStructuralSchemaCondition`, keyed by the error text that
/// follows the schema path in the example they produce.
fn schema_for(example_tail: &str) -> Option<Value> {
    let nested_forbidden = json!({
        "type": "object", "properties": {"foo": {"type": "string"}},
        "not": {"type": "string", "additionalProperties": true, "title": "hello", "description": "world", "nullable": true},
        "allOf": [{"properties": {"foo": {"type": "string", "additionalProperties": true, "title": "hello", "description": "world", "nullable": true}}}],
        "anyOf": [{"items": {"type": "string", "additionalProperties": true, "title": "hello", "description": "world", "nullable": true}}],
        "oneOf": [{"properties": {"foo": {"type": "string", "additionalProperties": true, "title": "hello", "description": "world", "nullable": true}}}]
    });
    let table = [
        (
            ".type: Required value: must not be empty at the root",
            json!({"properties": {"bar": {"items": {}}}}),
        ),
        (
            ".properties[a].type: Required value",
            json!({"type": "object", "properties": {"a": {}}, "not": {"properties": {"b": {}}}}),
        ),
        (
            ".properties[bar].items.type: Required value",
            json!({"properties": {"bar": {"items": {}}}}),
        ),
        (
            ".type: Invalid value: \"integer\": must be object at the root",
            json!({"type": "integer"}),
        ),
        (".anyOf[0].items.type: Forbidden", nested_forbidden.clone()),
        (
            ".allOf[0].properties[foo].nullable: Forbidden",
            nested_forbidden.clone(),
        ),
        (
            ".items: Required value: because it is defined in",
            nested_forbidden,
        ),
        (
            ".properties[a]: Required value: because it is defined in",
            json!({
                "type": "object",
                "properties": {"b": {"type": "object", "properties": {"b": {"type": "array"}}}, "d": {"type": "array"}},
                "not": {"properties": {"a": {}, "b": {"not": {"properties": {"a": {}, "b": {"items": {}}}}}, "d": {"items": {}}}}
            }),
        ),
        (
            ".properties[slice].items: Required value: must be specified",
            json!({"type": "object", "properties": {"slice": {"type": "array"}}}),
        ),
        (
            ".x-kubernetes-preserve-unknown-fields: Invalid value: true",
            json!({"x-kubernetes-preserve-unknown-fields": true, "x-kubernetes-int-or-string": true}),
        ),
        (
            ".properties: Required value: must not be empty if x-kubernetes-embedded-resource",
            json!({"type": "object", "x-kubernetes-embedded-resource": true}),
        ),
        (
            ".type: Invalid value: \"array\": must be object if x-kubernetes-embedded-resource",
            json!({"type": "array", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}),
        ),
        (
            ".properties[foo].pattern: Invalid value",
            json!({"type": "object", "properties": {"foo": {"type": "string", "pattern": "+"}}}),
        ),
        (
            ".properties[slice].items: Forbidden: items must be a schema object",
            json!({"type": "object", "properties": {"slice": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}}}),
        ),
    ];
    table
        .into_iter()
        .find(|(tail, _)| example_tail.starts_with(tail))
        .map(|(_, schema)| schema)
}

/// A CRD whose first version has `schema`; with `per_version`, a second version with a
/// different valid schema keeps the schemas from being hoisted to `spec.validation`.
fn crd_with(schema: Value, per_version: bool) -> Value {
    let version = |name: &str, storage: bool, schema: Value| json!({"name": name, "served": true, "storage": storage, "schema": {"openAPIV3Schema": schema}});
    let mut versions = vec![version("v1", true, schema)];
    if per_version {
        versions.push(version(
            "v2",
            false,
            json!({"type": "object", "properties": {"other": {"type": "string"}}}),
        ));
    }
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "foos.tests.example.com"},
        "spec": {"group": "tests.example.com", "scope": "Namespaced",
                 "names": {"plural": "foos", "singular": "foo", "kind": "Foo", "listKind": "FooList"},
                 "versions": versions}
    })
}

fn structural_examples(case: &Value) -> Vec<(String, Check)> {
    let id = case["id"].as_str().unwrap_or("?").to_owned();
    let examples = case["expected_error_examples"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    examples
        .into_iter()
        .enumerate()
        .map(|(i, example)| {
            let example = example.as_str().unwrap_or_default().to_owned();
            let check: Check = Box::new(move || {
                let (per_version, tail) = if let Some(t) =
                    example.strip_prefix("spec.versions[0].schema.openAPIV3Schema")
                {
                    (true, t)
                } else if let Some(t) = example.strip_prefix("spec.validation.openAPIV3Schema") {
                    (false, t)
                } else {
                    return Err(format!("unexpected schema path in {example:?}"));
                };
                let schema =
                    schema_for(tail).ok_or_else(|| format!("no input schema for {example:?}"))?;
                let errors: Vec<String> = validate_crd(&crd_with(schema, per_version))
                    .iter()
                    .map(ToString::to_string)
                    .collect();
                if errors.contains(&example) {
                    Ok(())
                } else {
                    Err(format!("expected {example:?} among {errors:#?}"))
                }
            });
            (format!("{id}[{i}]"), check)
        })
        .collect()
}

fn deprecation_warnings(case: Value) -> Result<(), String> {
    let fragment = &case["crd"];
    let group = fragment["group"].as_str().unwrap_or_default();
    let kind = fragment["kind"].as_str().unwrap_or_default();
    let plural = format!("{}s", kind.to_lowercase());
    let versions: Vec<Value> = fragment["versions"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|mut v| {
            let obj = v.as_object_mut().expect("a version is a map");
            obj.entry("storage").or_insert(json!(false));
            obj.entry("schema")
                .or_insert(json!({"openAPIV3Schema": {"type": "object"}}));
            v
        })
        .collect();
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.{group}")},
        "spec": {"group": group, "scope": fragment["scope"], "names": {"plural": plural, "kind": kind},
                 "versions": versions}
    });
    let crd = Crd::from_value(&crd).map_err(|e| format!("CRD refused: {e:?}"))?;
    let version = case["request_version"].as_str().unwrap_or_default();
    let got: Vec<String> = crd.deprecation_warning(version).into_iter().collect();
    let want: Vec<String> =
        serde_json::from_value(case["expected_warnings"].clone()).map_err(|e| e.to_string())?;
    if got == want {
        Ok(())
    } else {
        Err(format!("got {got:?}, want {want:?}"))
    }
}

/// One check per document of the kubectl-validate CRD folders: a CRD loads without error,
/// anything else is recognised as not being one.
fn kubectl_validate_crds() -> Vec<(String, Check)> {
    let root = crate::fixtures().join("../kubectl-validate");
    let mut files: Vec<std::path::PathBuf> = ["testcases/crds", "testcases/more-crds"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(root.join(dir)).unwrap_or_else(|e| panic!("{dir}: {e}")))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.push(root.join("pkg/validator/testdata/crds/cronjob.yaml"));
    files.sort();
    let mut checks: Vec<(String, Check)> = Vec::new();
    for file in files {
        let name = file
            .strip_prefix(&root)
            .unwrap_or(&file)
            .display()
            .to_string();
        for (i, doc) in load_yaml(Path::new(&file)).into_iter().enumerate() {
            let id = format!("kubectl-validate/{name}#{i}");
            let expect_crd = !name.contains("not-a-crd");
            checks.push((
                id,
                Box::new(move || match (expect_crd, is_crd(&doc)) {
                    (true, true) => Crd::from_value(&doc)
                        .map(|_| ())
                        .map_err(|refused| format!("CRD refused: {}", refused.kubectl_message())),
                    (false, false) => Ok(()),
                    (true, false) => Err("not read as a CRD".into()),
                    (false, true) => Err("read as a CRD".into()),
                }),
            ));
        }
    }
    checks
}
