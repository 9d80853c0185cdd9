//! `ValidateCustomResourceDefinitionOpenAPISchema`: the per-node rules on a CRD schema that
//! are not about structurality (reference §3.2): valid types, unsupported keywords, defaults
//! where they may not be, `additionalProperties` with `properties`, list and map types,
//! map-list keys, and the shape of `x-kubernetes-validations` entries.

use super::errs::{
    child, forbidden, has_newlines, index, invalid, invalid_str, key, not_supported, required, trim,
};
use super::fieldpath;
use super::node::Node;
use crate::field_error::FieldError;
use serde_json::Value;

const TYPES: [&str; 6] = ["array", "boolean", "integer", "number", "object", "string"];
const REASONS: [&str; 4] = [
    "FieldValueDuplicate",
    "FieldValueForbidden",
    "FieldValueInvalid",
    "FieldValueRequired",
];
const META_FIELDS: [&str; 3] = ["metadata", "kind", "apiVersion"];

/// Where in the resource a node sits (Go's `specStandardValidatorV3`).
#[derive(Clone, Default)]
struct Context {
    /// `Some(reason)` when defaults are forbidden here.
    defaults_forbidden: Option<String>,
    inside_resource_meta: bool,
}

impl Context {
    fn forbid_defaults(&self, reason: String) -> Context {
        Context {
            defaults_forbidden: Some(reason),
            ..self.clone()
        }
    }
}

/// Every keyword-level problem of the schema rooted at `path`.
pub fn check(schema: &Value, path: &str) -> Vec<FieldError> {
    let mut out = Vec::new();
    walk(Node::new(schema), path, &Context::default(), true, &mut out);
    out
}

fn walk(s: Node<'_>, path: &str, ctx: &Context, is_root: bool, out: &mut Vec<FieldError>) {
    unsupported(s, path, ctx, out);
    if s.flag("uniqueItems") {
        out.push(forbidden(
            child(path, "uniqueItems"),
            "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
        ));
    }
    if let Some(additional) = s.additional() {
        let schema_or_false =
            additional.is_some() || s.get("additionalProperties") == Some(&Value::Bool(false));
        if s.non_empty("properties") && schema_or_false {
            out.push(forbidden(
                child(path, "additionalProperties"),
                "additionalProperties and properties are mutual exclusive",
            ));
        }
        if let Some(a) = additional {
            let sub = if ctx.inside_resource_meta {
                ctx.forbid_defaults(
                    "inside additionalProperties applying to object metadata".into(),
                )
            } else {
                ctx.clone()
            };
            walk(a, &child(path, "additionalProperties"), &sub, false, out);
        }
    }
    for (name, p) in s.properties() {
        let mut sub = ctx.clone();
        if (is_root || s.flag("x-kubernetes-embedded-resource")) && META_FIELDS.contains(&name) {
            sub.inside_resource_meta = true;
            if is_root {
                sub = sub.forbid_defaults(format!("in top-level {name}"));
            }
        }
        walk(p, &key(&child(path, "properties"), name), &sub, false, out);
    }
    if let Some(not) = s.schema("not") {
        walk(not, &child(path, "not"), ctx, false, out);
    }
    for junctor in ["allOf", "oneOf", "anyOf"] {
        for (i, b) in s.branches(junctor).into_iter().enumerate() {
            walk(b, &index(&child(path, junctor), i), ctx, false, out);
        }
    }
    for (name, d) in s.entries("definitions") {
        walk(
            Node::new(d),
            &key(&child(path, "definitions"), name),
            ctx,
            false,
            out,
        );
    }
    match s.get("items") {
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                walk(
                    Node::new(item),
                    &index(&child(path, "items"), i),
                    ctx,
                    false,
                    out,
                );
            }
        }
        Some(_) => walk(
            s.items().expect("object items"),
            &child(path, "items"),
            ctx,
            false,
            out,
        ),
        None => {}
    }
    for (name, d) in s.entries("dependencies") {
        if d.is_object() {
            walk(
                Node::new(d),
                &key(&child(path, "dependencies"), name),
                ctx,
                false,
                out,
            );
        }
    }
    if s.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(false)) {
        out.push(invalid(
            child(path, "x-kubernetes-preserve-unknown-fields"),
            Value::Bool(false),
            "must be true or undefined",
        ));
    }
    map_and_list_types(s, path, out);
    validation_rules(s, path, out);
}

/// `specStandardValidatorV3.validate`.
fn unsupported(s: Node<'_>, path: &str, ctx: &Context, out: &mut Vec<FieldError>) {
    let t = s.type_();
    if !t.is_empty() && !TYPES.contains(&t) {
        out.push(not_supported(child(path, "type"), t, &TYPES));
    }
    if let (Some(_), Some(reason)) = (s.default(), &ctx.defaults_forbidden) {
        out.push(forbidden(
            child(path, "default"),
            format!("must not be set {reason}"),
        ));
    }
    let checks = [
        ("id", s.non_empty("id"), "id is not supported"),
        (
            "additionalItems",
            s.has("additionalItems"),
            "additionalItems is not supported",
        ),
        (
            "patternProperties",
            s.non_empty("patternProperties"),
            "patternProperties is not supported",
        ),
        (
            "definitions",
            s.non_empty("definitions"),
            "definitions is not supported",
        ),
        (
            "dependencies",
            s.has("dependencies"),
            "dependencies is not supported",
        ),
        ("$ref", s.has("$ref"), "$ref is not supported"),
        (
            "type",
            t == "null",
            "type cannot be set to null, use nullable as an alternative",
        ),
        (
            "items",
            s.get("items")
                .and_then(Value::as_array)
                .is_some_and(|a| !a.is_empty()),
            "items must be a schema object and not an array",
        ),
        (
            "x-kubernetes-embedded-resource",
            ctx.inside_resource_meta && s.flag("x-kubernetes-embedded-resource"),
            "must not be used inside of resource meta",
        ),
    ];
    for (keyword, bad, detail) in checks {
        if bad {
            out.push(forbidden(child(path, keyword), detail));
        }
    }
}

fn type_must_be(s: Node<'_>, path: &str, want: &str, because: &str) -> FieldError {
    let detail = format!("must be {want} if {because} is specified");
    match s.type_() {
        "" => required(child(path, "type"), detail),
        t => invalid_str(child(path, "type"), t, detail),
    }
}

fn map_and_list_types(s: Node<'_>, path: &str, out: &mut Vec<FieldError>) {
    if s.has("x-kubernetes-map-type") {
        let map_type = s.str("x-kubernetes-map-type");
        if s.type_() != "object" {
            out.push(type_must_be(s, path, "object", "x-kubernetes-map-type"));
        }
        if map_type != "atomic" && map_type != "granular" {
            out.push(not_supported(
                child(path, "x-kubernetes-map-type"),
                map_type,
                &["atomic", "granular"],
            ));
        }
    }
    let list_type = s
        .has("x-kubernetes-list-type")
        .then(|| s.str("x-kubernetes-list-type"));
    let items = s.items();
    if list_type.is_some() && s.type_() != "array" {
        out.push(type_must_be(s, path, "array", "x-kubernetes-list-type"));
    } else if let (Some("set"), Some(item)) = (list_type, items) {
        let atomic = "must be atomic as item of a list with x-kubernetes-list-type=set";
        let items_path = child(path, "items");
        match item.type_() {
            "array"
                if item.has("x-kubernetes-list-type")
                    && item.str("x-kubernetes-list-type") != "atomic" =>
            {
                out.push(invalid(
                    child(&items_path, "x-kubernetes-list-type"),
                    item.get("x-kubernetes-list-type")
                        .cloned()
                        .unwrap_or(Value::Null),
                    atomic,
                ))
            }
            // Upstream reports the items' list type here, which is unset on an object.
            "object" if item.str("x-kubernetes-map-type") != "atomic" => out.push(invalid(
                child(&items_path, "x-kubernetes-map-type"),
                item.get("x-kubernetes-list-type")
                    .cloned()
                    .unwrap_or(Value::Null),
                atomic,
            )),
            _ => {}
        }
    }
    if let Some(lt) = list_type.filter(|lt| !["atomic", "set", "map"].contains(lt)) {
        out.push(not_supported(
            child(path, "x-kubernetes-list-type"),
            lt,
            &["atomic", "set", "map"],
        ));
    }
    let keys = s.strings("x-kubernetes-list-map-keys");
    let keys_value = || {
        s.get("x-kubernetes-list-map-keys")
            .cloned()
            .unwrap_or(Value::Null)
    };
    if !s.list("x-kubernetes-list-map-keys").is_empty() {
        let detail = "must be map if x-kubernetes-list-map-keys is non-empty";
        match list_type {
            None => out.push(required(child(path, "x-kubernetes-list-type"), detail)),
            Some(lt) if lt != "map" => out.push(invalid_str(
                child(path, "x-kubernetes-list-type"),
                lt,
                detail,
            )),
            _ => {}
        }
    }
    if list_type == Some("map") {
        if keys.is_empty() {
            out.push(required(
                child(path, "x-kubernetes-list-map-keys"),
                "must not be empty if x-kubernetes-list-type is map",
            ));
        }
        match s.get("items") {
            None => out.push(required(
                child(path, "items"),
                "must have a schema if x-kubernetes-list-type is map",
            )),
            Some(v @ Value::Array(_)) => out.push(invalid(
                child(path, "items"),
                v.clone(),
                "must only have a single schema if x-kubernetes-list-type is map",
            )),
            Some(_) => {}
        }
        if let Some(item) = items {
            if item.type_() != "object" {
                out.push(invalid_str(
                    child(&child(path, "items"), "type"),
                    item.type_(),
                    "must be object if parent array's x-kubernetes-list-type is map",
                ));
            } else {
                let mut seen = Vec::new();
                for k in &keys {
                    match item.property(k) {
                        Some(p) if matches!(p.type_(), "array" | "object") => out
                            .push(invalid_str(
                            child(&key(&child(&child(path, "items"), "properties"), k), "type"),
                            item.type_(),
                            "must be a scalar type if parent array's x-kubernetes-list-type is map",
                        )),
                        Some(_) => {}
                        None => out.push(invalid(
                            child(path, "x-kubernetes-list-map-keys"),
                            keys_value(),
                            "entries must all be names of item properties",
                        )),
                    }
                    if seen.contains(k) {
                        out.push(invalid(
                            child(path, "x-kubernetes-list-map-keys"),
                            keys_value(),
                            "must not contain duplicate entries",
                        ));
                    }
                    seen.push(k);
                }
            }
        }
    }
    map_list_keys_and_set_items(s, list_type, path, out);
}

/// `validateMapListKeysMapSet`.
fn map_list_keys_and_set_items(
    s: Node<'_>,
    list_type: Option<&str>,
    path: &str,
    out: &mut Vec<FieldError>,
) {
    let (Some(item), Some(lt @ ("set" | "map"))) = (s.items(), list_type) else {
        return;
    };
    let items_path = child(path, "items");
    if item.flag("nullable") {
        out.push(forbidden(
            child(&items_path, "nullable"),
            format!("cannot be nullable when x-kubernetes-list-type is {lt}"),
        ));
    }
    if lt != "map" {
        return;
    }
    let required_keys = item.strings("required");
    for k in s.strings("x-kubernetes-list-map-keys") {
        let Some(p) = item.property(k) else { continue };
        let p_path = key(&child(&items_path, "properties"), k);
        if !required_keys.contains(&k) && p.default().is_none() {
            out.push(required(
                child(&p_path, "default"),
                "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
            ));
        }
        if p.flag("nullable") {
            out.push(forbidden(
                child(&p_path, "nullable"),
                "this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
            ));
        }
    }
}

/// The shape of each `x-kubernetes-validations` entry (compiling the rules is CEL's part).
fn validation_rules(s: Node<'_>, path: &str, out: &mut Vec<FieldError>) {
    for (i, rule) in s.list("x-kubernetes-validations").iter().enumerate() {
        let r = Node::new(rule);
        let at = |name: &str| child(&index(&child(path, "x-kubernetes-validations"), i), name);
        let (text, message) = (r.str("rule"), r.str("message"));
        if trim(text).is_empty() {
            out.push(required(at("rule"), "rule is not specified"));
        } else if !message.is_empty() && trim(message).is_empty() {
            out.push(invalid_str(
                at("message"),
                message,
                "must be non-empty if specified",
            ));
        } else if has_newlines(trim(message)) {
            out.push(invalid_str(
                at("message"),
                message,
                "must not contain line breaks",
            ));
        } else if has_newlines(trim(text)) && trim(message).is_empty() {
            out.push(required(
                at("message"),
                "message must be specified if rule contains line breaks",
            ));
        }
        let expression = r.str("messageExpression");
        if !expression.is_empty() && trim(expression).is_empty() {
            out.push(required(
                at("messageExpression"),
                "messageExpression must be non-empty if specified",
            ));
        }
        if r.has("reason") && !REASONS.contains(&r.str("reason")) {
            out.push(not_supported(at("reason"), r.str("reason"), &REASONS));
        }
        let field_path = r.str("fieldPath");
        if !field_path.is_empty() && trim(field_path).is_empty() {
            out.push(invalid_str(
                at("fieldPath"),
                field_path,
                "must be non-empty if specified",
            ));
        }
        if has_newlines(field_path) {
            out.push(invalid_str(
                at("fieldPath"),
                field_path,
                "must not contain line breaks",
            ));
        }
        if !field_path.is_empty()
            && super::invariants::convertible(s)
            && fieldpath::resolve(field_path, s).is_err()
        {
            out.push(invalid_str(
                at("fieldPath"),
                field_path,
                "must be a valid path",
            ));
        }
    }
}
