//! CEL in CRD schemas (kadmit-schema): a tiny CRD whose `spec` carries one
//! `x-kubernetes-validations` rule, the fuzz input, goes through CRD validation (where
//! the rule is parsed, type-checked and cost-estimated, as the API server does on CRD
//! create); when the CRD is accepted, a fixed custom resource goes through the create
//! path (prune, default, OpenAPI validation, then the rule, under the runtime cost
//! budget). Input: `rule` or `rule NUL messageExpression`. A panic is a crash.

#![no_main]

use kadmit_schema::admission::{create, Definition, FieldValidation, Settings};
use kadmit_schema::definition::Crd;
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};
use std::sync::OnceLock;

/// Longer rules are skipped: the CEL limits bound everything below this.
const MAX_INPUT: usize = 64 << 10;

/// The properties of `spec`: one of each type the CEL libraries see differently.
fn spec_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "s": {"type": "string", "maxLength": 64},
            "n": {"type": "integer", "format": "int64"},
            "i32": {"type": "integer", "format": "int32", "minimum": 0, "maximum": 100},
            "f": {"type": "number"},
            "b": {"type": "boolean"},
            "ts": {"type": "string", "format": "date-time"},
            "dur": {"type": "string", "format": "duration"},
            "raw": {"type": "string", "format": "byte"},
            "ios": {"x-kubernetes-int-or-string": true},
            "q": {"x-kubernetes-int-or-string": true, "pattern": "^[0-9]+(m|Mi|Gi)?$"},
            "list": {"type": "array", "maxItems": 8, "items": {"type": "string", "maxLength": 16}},
            "set": {
                "type": "array", "maxItems": 8, "x-kubernetes-list-type": "set",
                "items": {"type": "integer"}
            },
            "entries": {
                "type": "array", "maxItems": 8,
                "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                "items": {
                    "type": "object", "required": ["name"],
                    "properties": {"name": {"type": "string", "maxLength": 16}, "v": {"type": "integer"}}
                }
            },
            "labels": {
                "type": "object", "maxProperties": 8,
                "additionalProperties": {"type": "string", "maxLength": 16}
            },
            "nested": {
                "type": "object",
                "properties": {"deep": {"type": "object", "properties": {"x": {"type": "string", "maxLength": 8}}}}
            },
            "any": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            "defaulted": {"type": "string", "default": "dflt", "maxLength": 8},
        }
    })
}

fn crd(rule: &str, message_expression: Option<&str>) -> Value {
    let mut validation = json!({"rule": rule});
    if let Some(m) = message_expression {
        validation["messageExpression"] = json!(m);
    }
    let mut spec = spec_schema();
    spec["x-kubernetes-validations"] = json!([validation]);
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.fuzz.example.com"},
        "spec": {
            "group": "fuzz.example.com",
            "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
            "scope": "Namespaced",
            "versions": [{
                "name": "v1",
                "served": true,
                "storage": true,
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "properties": {"spec": spec},
                }},
            }],
        },
    })
}

fn object() -> &'static Value {
    static OBJECT: OnceLock<Value> = OnceLock::new();
    OBJECT.get_or_init(|| {
        json!({
            "apiVersion": "fuzz.example.com/v1",
            "kind": "Widget",
            "metadata": {"name": "w", "namespace": "default", "labels": {"app": "w"}},
            "spec": {
                "s": "hello wörld",
                "n": 9223372036854775807i64,
                "i32": 42,
                "f": 1.5,
                "b": true,
                "ts": "2024-02-29T12:00:00Z",
                "dur": "1h30m",
                "raw": "aGVsbG8=",
                "ios": "50%",
                "q": "100Mi",
                "list": ["a", "b", "a"],
                "set": [1, 2, 3],
                "entries": [{"name": "x", "v": 1}, {"name": "y", "v": -1}],
                "labels": {"k": "v", "empty": ""},
                "nested": {"deep": {"x": "y"}},
                "any": {"free": [1, {"form": null}]},
            },
        })
    })
}

fuzz_target!(|data: &[u8]| {
    if data.len() > MAX_INPUT {
        return;
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (rule, message_expression) = match text.split_once('\0') {
        Some((rule, message)) => (rule, Some(message)),
        None => (text, None),
    };
    let Ok(crd) = Crd::from_value(&crd(rule, message_expression)) else {
        return;
    };
    let definition = Definition::new(crd);
    let settings = Settings {
        field_validation: FieldValidation::Strict,
        write_defaults: true,
    };
    if let Err(refused) = create(&definition, object(), settings) {
        let _ = refused.kubectl_message();
        let _ = refused.status();
    }
});
