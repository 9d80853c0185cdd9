//! Structural schemas (`schema.NewStructural` and `ValidateStructural`, reference §3.1): the
//! spine (properties, items, additionalProperties) carries every type and Kubernetes
//! extension, junctors (allOf/anyOf/oneOf/not) only value validations on fields the spine
//! defines, and metadata is restricted to name and generateName.

use super::errs::{child, forbidden, index, invalid, invalid_str, key, required};
use super::node::Node;
use crate::field_error::FieldError;
use serde_json::{json, Value};

const JUNCTORS: [&str; 3] = ["allOf", "anyOf", "oneOf"];

#[derive(Clone, Copy, PartialEq)]
enum Level {
    Root,
    Item,
    Field,
}

/// Why `NewStructural` would refuse `s` (an unsupported keyword anywhere), if it would.
pub fn conversion_error(s: Node<'_>) -> Option<String> {
    let unsupported = [
        ("id", s.non_empty("id")),
        ("schema", s.non_empty("$schema")),
        ("$ref", s.non_empty("$ref")),
        ("patternProperties", s.non_empty("patternProperties")),
        ("dependencies", s.non_empty("dependencies")),
        ("additionalItems", s.has("additionalItems")),
        ("definitions", s.non_empty("definitions")),
    ];
    if let Some((name, _)) = unsupported.iter().find(|(_, bad)| *bad) {
        return Some(format!("OpenAPIV3Schema '{name}' is not supported"));
    }
    if s.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(false)) {
        return Some(
            "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined"
                .into(),
        );
    }
    if s.get("items")
        .is_some_and(|v| v.as_array().is_some_and(|a| !a.is_empty()))
    {
        return Some("OpenAPIV3Schema 'items' must be a schema, but is an array".into());
    }
    let mut children: Vec<Node<'_>> = s.properties().into_iter().map(|(_, p)| p).collect();
    children.extend(s.items());
    children.extend(s.additional().flatten());
    children.extend(s.schema("not"));
    for junctor in JUNCTORS {
        children.extend(s.branches(junctor));
    }
    children.into_iter().find_map(conversion_error)
}

/// Whether `NewStructural` accepts `s`.
pub fn convertible(s: Node<'_>) -> bool {
    conversion_error(s).is_none()
}

/// `ValidateStructural`: every violation, sorted by full text.
pub fn check(schema: &Value, path: &str) -> Vec<FieldError> {
    let s = Node::new(schema);
    let mut out = Vec::new();
    spine(s, Level::Root, path, &mut out);
    completeness(s, s, path, path, &mut out);
    out.sort_by_cached_key(|e| e.to_string());
    out
}

fn is_int_or_string_any_of(branches: &[Value]) -> bool {
    branches == [json!({"type": "integer"}), json!({"type": "string"})]
}

fn spine(s: Node<'_>, level: Level, path: &str, out: &mut Vec<FieldError>) {
    let t = s.type_();
    if t == "array" && s.items().is_none() {
        out.push(required(child(path, "items"), "must be specified"));
    }
    if let Some(items) = s.items() {
        spine(items, Level::Item, &child(path, "items"), out);
    }
    for (name, p) in s.properties() {
        spine(p, Level::Field, &key(&child(path, "properties"), name), out);
    }
    if let Some(additional) = s.additional() {
        if level == Level::Root {
            out.push(forbidden(
                child(path, "additionalProperties"),
                "must not be used at the root",
            ));
        }
        if let Some(a) = additional {
            spine(a, Level::Field, &child(path, "additionalProperties"), out);
        }
    }
    let (int_or_string, preserve) = (
        s.flag("x-kubernetes-int-or-string"),
        s.flag("x-kubernetes-preserve-unknown-fields"),
    );
    let embedded = s.flag("x-kubernetes-embedded-resource");
    let must_be_false = "must be false if x-kubernetes-int-or-string is true";
    if int_or_string && preserve {
        out.push(invalid(
            child(path, "x-kubernetes-preserve-unknown-fields"),
            Value::Bool(true),
            must_be_false,
        ));
    }
    if int_or_string && embedded {
        out.push(invalid(
            child(path, "x-kubernetes-embedded-resource"),
            Value::Bool(true),
            must_be_false,
        ));
    }
    let skip_any_of = is_int_or_string_any_of(s.list("anyOf"));
    let skip_first_all_of_any_of = s
        .list("allOf")
        .first()
        .is_some_and(|first| is_int_or_string_any_of(Node::new(first).list("anyOf")));
    value_validation(s, skip_any_of, skip_first_all_of_any_of, level, path, out);

    let check_metadata = level == Level::Root || embedded;
    let embedded_detail = "must be object if x-kubernetes-embedded-resource is true";
    if embedded && t != "object" {
        out.push(match t {
            "" => required(child(path, "type"), embedded_detail),
            _ => invalid_str(child(path, "type"), t, embedded_detail),
        });
    } else if t.is_empty() && !int_or_string && !preserve {
        let detail = match level {
            Level::Root => "must not be empty at the root",
            Level::Item => "must not be empty for specified array items",
            Level::Field => "must not be empty for specified object fields",
        };
        out.push(required(child(path, "type"), detail));
    }
    if embedded && s.additional().is_some() {
        out.push(forbidden(
            child(path, "additionalProperties"),
            "must not be used if x-kubernetes-embedded-resource is set",
        ));
    }
    if level == Level::Root && !t.is_empty() && t != "object" {
        out.push(invalid_str(
            child(path, "type"),
            t,
            "must be object at the root",
        ));
    }
    for name in ["kind", "apiVersion"] {
        match s.property(name) {
            Some(p) if check_metadata && p.type_() != "string" => out.push(invalid_str(
                child(&key(&child(path, "properties"), name), "type"),
                p.type_(),
                "must be string",
            )),
            _ => {}
        }
    }
    if let Some(metadata) = s.property("metadata") {
        let m_path = key(&child(path, "properties"), "metadata");
        if check_metadata && metadata.type_() != "object" {
            out.push(invalid_str(
                child(&m_path, "type"),
                metadata.type_(),
                "must be object",
            ));
        }
        if level == Level::Root && !only_names(metadata) {
            out.push(forbidden(
                m_path,
                "must not specify anything other than name and generateName, but metadata is implicitly specified",
            ));
        }
    }
    if embedded && !preserve && !s.non_empty("properties") {
        out.push(required(
            child(path, "properties"),
            "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
        ));
    }
}

/// Whether the root `metadata` schema says nothing but `type`, `default` and properties
/// `name`/`generateName`: Go compares the rest with the zero structural schema, so a
/// keyword counts when Go would hold a non-zero value for it.
fn only_names(metadata: Node<'_>) -> bool {
    let names_ok = metadata
        .properties()
        .iter()
        .all(|(k, _)| *k == "name" || *k == "generateName");
    let texts = ["description", "title", "format", "pattern"];
    let flags = [
        "nullable",
        "exclusiveMaximum",
        "exclusiveMinimum",
        "uniqueItems",
        "x-kubernetes-preserve-unknown-fields",
        "x-kubernetes-embedded-resource",
        "x-kubernetes-int-or-string",
    ];
    let present = [
        "maximum",
        "minimum",
        "maxLength",
        "minLength",
        "maxItems",
        "minItems",
        "multipleOf",
        "maxProperties",
        "minProperties",
        "x-kubernetes-list-type",
        "x-kubernetes-map-type",
        "not",
        "additionalProperties",
        "items",
        "required",
        "x-kubernetes-list-map-keys",
        "x-kubernetes-validations",
    ];
    let lists = ["enum", "allOf", "anyOf", "oneOf"];
    names_ok
        && texts.iter().all(|k| metadata.str(k).is_empty())
        && flags.iter().all(|k| !metadata.flag(k))
        && present.iter().all(|k| !metadata.has(k))
        && lists.iter().all(|k| metadata.list(k).is_empty())
}

/// `validateValueValidation`: the junctors of a node and its `pattern`.
fn value_validation(
    v: Node<'_>,
    skip_any_of: bool,
    skip_first_all_of_any_of: bool,
    level: Level,
    path: &str,
    out: &mut Vec<FieldError>,
) {
    if !skip_any_of {
        for (i, b) in v.branches("anyOf").into_iter().enumerate() {
            nested(
                b,
                false,
                false,
                level,
                &index(&child(path, "anyOf"), i),
                out,
            );
        }
    }
    for (i, b) in v.branches("allOf").into_iter().enumerate() {
        let skip = skip_first_all_of_any_of && i == 0;
        nested(b, skip, false, level, &index(&child(path, "allOf"), i), out);
    }
    for (i, b) in v.branches("oneOf").into_iter().enumerate() {
        nested(
            b,
            false,
            false,
            level,
            &index(&child(path, "oneOf"), i),
            out,
        );
    }
    if let Some(not) = v.schema("not") {
        nested(not, false, false, level, &child(path, "not"), out);
    }
    let pattern = v.str("pattern");
    if !pattern.is_empty() {
        if let Err(err) = kadmit_go::regexp::compile(pattern) {
            out.push(invalid_str(
                child(path, "pattern"),
                pattern,
                format!("must be a valid regular expression, but isn't: {err}"),
            ));
        }
    }
}

/// `validateNestedValueValidation`: inside a junctor only value validations may appear.
fn nested(
    v: Node<'_>,
    skip_any_of: bool,
    skip_all_of_any_of: bool,
    level: Level,
    path: &str,
    out: &mut Vec<FieldError>,
) {
    value_validation(v, skip_any_of, skip_all_of_any_of, level, path, out);
    if let Some(items) = v.items() {
        nested(items, false, false, level, &child(path, "items"), out);
    }
    for (name, p) in v.properties() {
        nested(
            p,
            false,
            false,
            Level::Field,
            &key(&child(path, "properties"), name),
            out,
        );
    }
    let rules: [(&str, bool, &str); 12] = [
        (
            "type",
            !v.type_().is_empty(),
            "must be empty to be structural",
        ),
        (
            "additionalProperties",
            v.additional().is_some(),
            "must be undefined to be structural",
        ),
        (
            "default",
            v.default().is_some(),
            "must be undefined to be structural",
        ),
        (
            "title",
            !v.str("title").is_empty(),
            "must be empty to be structural",
        ),
        (
            "description",
            !v.str("description").is_empty(),
            "must be empty to be structural",
        ),
        (
            "nullable",
            v.flag("nullable"),
            "must be false to be structural",
        ),
        (
            "x-kubernetes-preserve-unknown-fields",
            v.flag("x-kubernetes-preserve-unknown-fields"),
            "must be false to be structural",
        ),
        (
            "x-kubernetes-embedded-resource",
            v.flag("x-kubernetes-embedded-resource"),
            "must be false to be structural",
        ),
        (
            "x-kubernetes-int-or-string",
            v.flag("x-kubernetes-int-or-string"),
            "must be false to be structural",
        ),
        (
            "x-kubernetes-list-map-keys",
            v.non_empty("x-kubernetes-list-map-keys"),
            "must be empty to be structural",
        ),
        (
            "x-kubernetes-list-type",
            v.has("x-kubernetes-list-type"),
            "must be undefined to be structural",
        ),
        (
            "x-kubernetes-map-type",
            v.has("x-kubernetes-map-type"),
            "must be undefined to be structural",
        ),
    ];
    for (keyword, bad, detail) in rules {
        if bad {
            out.push(forbidden(child(path, keyword), detail));
        }
    }
    if v.non_empty("x-kubernetes-validations") {
        out.push(forbidden(
            child(path, "x-kubernetes-validations"),
            "must be empty to be structural",
        ));
    }
    if v.property("metadata").is_some() {
        out.push(forbidden(
            key(&child(path, "properties"), "metadata"),
            "must not be specified in a nested context",
        ));
    }
}

/// `validateStructuralCompleteness`: whatever the root's junctors constrain must exist on
/// the spine (`s` is the spine node the junctor node `v` applies to).
fn completeness(v: Node<'_>, s: Node<'_>, s_path: &str, v_path: &str, out: &mut Vec<FieldError>) {
    if let Some(not) = v.schema("not") {
        nested_completeness(not, Some(s), s_path, &child(v_path, "not"), out);
    }
    for junctor in JUNCTORS {
        for (i, b) in v.branches(junctor).into_iter().enumerate() {
            nested_completeness(b, Some(s), s_path, &index(&child(v_path, junctor), i), out);
        }
    }
}

fn nested_completeness(
    v: Node<'_>,
    s: Option<Node<'_>>,
    s_path: &str,
    v_path: &str,
    out: &mut Vec<FieldError>,
) {
    let Some(s) = s else {
        out.push(required(
            s_path.to_owned(),
            format!("because it is defined in {v_path}"),
        ));
        return;
    };
    completeness(v, s, s_path, v_path, out);
    if let Some(items) = v.items() {
        nested_completeness(
            items,
            s.items(),
            &child(s_path, "items"),
            &child(v_path, "items"),
            out,
        );
    }
    for (name, p) in v.properties() {
        let s_child = key(&child(s_path, "properties"), name);
        let v_child = key(&child(v_path, "properties"), name);
        match s.property(name) {
            Some(sp) => nested_completeness(p, Some(sp), &s_child, &v_child, out),
            None => out.push(required(
                s_child,
                format!("because it is defined in {v_child}"),
            )),
        }
    }
}
