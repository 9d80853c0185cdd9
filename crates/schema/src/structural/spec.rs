//! The CRD object's own rules (`ValidateCustomResourceDefinition` outside the schemas):
//! metadata name, group, scope, versions, names, subresources, printer columns,
//! conversion, stored versions, API approval and `spec.preserveUnknownFields`.

use super::errs::{child, enum_string, forbidden, index, invalid, invalid_str, key, required};
use super::internal::{Crd, Version};
use super::node::Node;
use crate::field_error::FieldError;
use crate::objectmeta::{
    dns1035_label_errors as dns1035_label, dns1123_subdomain_errors as dns1123_subdomain,
};
use crate::objectmeta::{validate_object_meta_with, NameRule};
use serde_json::{json, Value};

/// Checks each version's schema: `(schema container, path, status enabled)` → errors.
pub type SchemaCheck<'f> = dyn Fn(&Value, &str, bool) -> Vec<FieldError> + 'f;

pub fn check(crd: &Crd<'_>, raw: &Value, schemas: &SchemaCheck<'_>) -> Vec<FieldError> {
    let mut out = metadata(crd, raw);
    spec(crd, raw, schemas, &mut out);
    stored_versions(crd, &mut out);
    out.extend(api_approval(crd));
    if crd.v1 && crd.preserve_unknown_fields == Some(true) {
        out.push(invalid(
            "spec.preserveUnknownFields".into(),
            Value::Bool(true),
            "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
        ));
    }
    out
}

/// `ValidateObjectMeta` of a cluster-scoped object whose name must also be
/// `<plural>.<group>` (that message follows the name's own ones, as Go's name function
/// returns them together).
fn metadata(crd: &Crd<'_>, raw: &Value) -> Vec<FieldError> {
    let meta = raw.get("metadata").unwrap_or(&Value::Null);
    let mut out = validate_object_meta_with(meta, false, NameRule::DnsSubdomain, "metadata");
    let name = crd.metadata.str("name");
    if !name.is_empty() && name != format!("{}.{}", crd.names.plural, crd.group) {
        let after_names = out
            .iter()
            .rposition(|e| e.field == "metadata.name" || e.field == "metadata.generateName")
            .map_or(0, |i| i + 1);
        let detail = r#"must be spec.names.plural+"."+spec.group"#;
        out.insert(
            after_names,
            invalid_str("metadata.name".into(), name, detail),
        );
    }
    out
}

fn versions_value(raw: &Value) -> Value {
    raw.pointer("/spec/versions")
        .cloned()
        .unwrap_or(Value::Null)
}

fn spec(crd: &Crd<'_>, raw: &Value, schemas: &SchemaCheck<'_>, out: &mut Vec<FieldError>) {
    let group = crd.group;
    if group.is_empty() {
        out.push(required("spec.group".into(), ""));
    } else if let errs @ [_, ..] = dns1123_subdomain(group).as_slice() {
        out.push(invalid_str("spec.group".into(), group, errs.join(",")));
    } else if !group.contains('.') {
        out.push(invalid_str(
            "spec.group".into(),
            group,
            "should be a domain with at least one dot",
        ));
    }
    out.extend(enum_string(
        "spec.scope".into(),
        crd.scope,
        &["Cluster", "Namespaced"],
    ));
    let top_schema = crd
        .validation
        .and_then(|v| v.get("openAPIV3Schema"))
        .is_some_and(|s| !s.is_null());
    if !top_schema {
        for (i, v) in crd.versions.iter().enumerate() {
            if v.schema
                .and_then(|s| s.get("openAPIV3Schema"))
                .is_none_or(Value::is_null)
            {
                out.push(required(
                    format!("spec.versions[{i}].schema.openAPIV3Schema"),
                    "",
                ));
            }
        }
    }
    if crd.preserve_unknown_fields != Some(false) && has_defaults(crd) {
        out.push(invalid(
            "spec.preserveUnknownFields".into(),
            Value::Bool(true),
            "must be false in order to use defaults in the schema",
        ));
    }
    let any_status = crd.subresources.is_some_and(has_status)
        || crd
            .versions
            .iter()
            .any(|v| v.subresources.is_some_and(has_status));
    for (i, v) in crd.versions.iter().enumerate() {
        let at = index("spec.versions", i);
        if let errs @ [_, ..] = dns1035_label(v.name).as_slice() {
            out.push(invalid_str(child(&at, "name"), v.name, errs.join(",")));
        }
        version(crd, i, v, &at, schemas, out);
    }
    if !crd.v1 {
        per_version_exclusivity(crd, raw, out);
    }
    let mut seen = Vec::new();
    if crd.versions.iter().any(|v| {
        let dup = seen.contains(&v.name);
        seen.push(v.name);
        dup
    }) {
        out.push(invalid(
            "spec.versions".into(),
            versions_value(raw),
            "must contain unique version names",
        ));
    }
    if crd.versions.iter().filter(|v| v.storage).count() != 1 {
        out.push(invalid(
            "spec.versions".into(),
            versions_value(raw),
            "must have exactly one version marked as storage version",
        ));
    }
    if !crd.version.is_empty() {
        if let errs @ [_, ..] = dns1035_label(crd.version).as_slice() {
            out.push(invalid_str(
                "spec.version".into(),
                crd.version,
                errs.join(","),
            ));
        }
        if crd.versions.first().is_some_and(|v| v.name != crd.version) {
            out.push(invalid_str(
                "spec.version".into(),
                crd.version,
                "must match the first version in spec.versions",
            ));
        }
    }
    names(crd, out);
    if let Some(validation) = crd.validation {
        out.extend(schemas(validation, "spec.validation", any_status));
    }
    subresources(crd.subresources, "spec.subresources", out);
    for (i, c) in crd.columns.iter().enumerate() {
        column(c, &index("spec.additionalPrinterColumns", i), out);
    }
    super::conversion::check(crd, out);
}

fn has_status(subresources: &Value) -> bool {
    subresources.get("status").is_some_and(|s| !s.is_null())
}

fn has_defaults(crd: &Crd<'_>) -> bool {
    fn any_default(v: &Value) -> bool {
        match v {
            Value::Object(m) => m
                .iter()
                .any(|(k, v)| (k == "default" && !v.is_null()) || any_default(v)),
            Value::Array(a) => a.iter().any(any_default),
            _ => false,
        }
    }
    let schema = |c: Option<&Value>| {
        c.and_then(|c| c.get("openAPIV3Schema"))
            .is_some_and(any_default)
    };
    schema(crd.validation) || crd.versions.iter().any(|v| schema(v.schema))
}

fn version(
    crd: &Crd<'_>,
    i: usize,
    v: &Version<'_>,
    at: &str,
    schemas: &SchemaCheck<'_>,
    out: &mut Vec<FieldError>,
) {
    let warning_path = child(at, "deprecationWarning");
    let warning = v.deprecation_warning.cloned().unwrap_or(Value::Null);
    for problem in
        deprecation_warning_problems(v.deprecated, v.deprecation_warning.and_then(Value::as_str))
    {
        out.push(invalid(warning_path.clone(), warning.clone(), problem));
    }
    if let Some(schema) = v.schema {
        let status = crd.subresources_of(i).is_some_and(has_status);
        out.extend(schemas(schema, &child(at, "schema"), status));
    }
    subresources(v.subresources, &child(at, "subresources"), out);
    for (j, c) in v.columns.iter().enumerate() {
        column(c, &index(&child(at, "additionalPrinterColumns"), j), out);
    }
}

/// `validateDeprecationWarning`.
fn deprecation_warning_problems(deprecated: bool, warning: Option<&str>) -> Vec<String> {
    let Some(w) = warning else { return Vec::new() };
    if !deprecated {
        return vec!["can only be set for deprecated versions".into()];
    }
    let mut problems = Vec::new();
    if w.len() > 256 {
        problems.push("must be <= 256 characters long".into());
    }
    if w.is_empty() {
        problems.push("must not be an empty string".into());
    }
    if let Some((i, _)) = w.char_indices().find(|&(_, c)| !is_print(c)) {
        problems.push(format!(
            "must only contain printable UTF-8 characters; non-printable character found at index {i}"
        ));
    }
    problems
}

/// Go's `unicode.IsPrint`: graphic characters and the ASCII space.
fn is_print(c: char) -> bool {
    let format = matches!(c, '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{feff}');
    c == ' ' || !(c.is_control() || c.is_whitespace() || format)
}

/// Mutual exclusion of top-level and per-version fields (only possible in v1beta1 input).
fn per_version_exclusivity(crd: &Crd<'_>, raw: &Value, out: &mut Vec<FieldError>) {
    let per_version = [
        (
            "validation",
            crd.validation.is_some(),
            crd.versions.iter().any(|v| v.schema.is_some()),
            "schemas",
        ),
        (
            "subresources",
            crd.subresources.is_some(),
            crd.versions.iter().any(|v| v.subresources.is_some()),
            "subresources",
        ),
        (
            "additionalPrinterColumns",
            !crd.columns.is_empty(),
            crd.versions.iter().any(|v| !v.columns.is_empty()),
            "additionalPrinterColumns",
        ),
    ];
    for (field, top, versioned, what) in per_version {
        if top && versioned {
            out.push(forbidden(
                child("spec", field),
                format!("top-level and per-version {what} are mutually exclusive"),
            ));
        }
    }
    // Compared in place: a schema can be megabytes, and every CRD is checked.
    fn same<'a>(versions: &[Version<'a>], get: impl Fn(&Version<'a>) -> Option<&'a Value>) -> bool {
        let first = versions.first().and_then(&get);
        first.is_some() && versions.iter().all(|v| get(v) == first)
    }
    let same_columns = {
        let first = crd.versions.first().map(|v| v.columns);
        first.is_some_and(|c| !c.is_empty())
            && crd.versions.iter().all(|v| Some(v.columns) == first)
    };
    let identical_checks: [(bool, &str, &str); 3] = [
        (same(&crd.versions, |v| v.schema), "schemas", "validation"),
        (
            same(&crd.versions, |v| v.subresources),
            "subresources",
            "subresources",
        ),
        (
            same_columns,
            "additionalPrinterColumns",
            "additionalPrinterColumns",
        ),
    ];
    for (same, what, top) in identical_checks {
        if same {
            out.push(invalid(
                "spec.versions".into(),
                versions_value(raw),
                format!("per-version {what} may not all be set to identical values (top-level {top} should be used instead)"),
            ));
        }
    }
}

fn names(crd: &Crd<'_>, out: &mut Vec<FieldError>) {
    let n = &crd.names;
    for (field, value) in [
        ("plural", n.plural),
        ("singular", &n.singular),
        ("kind", n.kind),
        ("listKind", &n.list_kind),
    ] {
        if value.is_empty() {
            out.push(required(child("spec.names", field), ""));
        }
    }
    for (field, value) in [("plural", n.plural), ("singular", &n.singular)] {
        if let errs @ [_, ..] = dns1035_label(value).as_slice() {
            if !value.is_empty() {
                out.push(invalid_str(
                    child("spec.names", field),
                    value,
                    errs.join(","),
                ));
            }
        }
    }
    for (field, value) in [("kind", n.kind), ("listKind", &n.list_kind)] {
        if let errs @ [_, ..] = dns1035_label(&value.to_lowercase()).as_slice() {
            if !value.is_empty() {
                let detail = format!(
                    "may have mixed case, but should otherwise match: {}",
                    errs.join(",")
                );
                out.push(invalid_str(child("spec.names", field), value, detail));
            }
        }
    }
    for (i, short) in n.short_names.iter().enumerate() {
        let s = short.as_str().unwrap_or("");
        if let errs @ [_, ..] = dns1035_label(s).as_slice() {
            out.push(invalid_str(
                index("spec.names.shortNames", i),
                s,
                errs.join(","),
            ));
        }
    }
    if !n.kind.is_empty() && n.kind == n.list_kind {
        out.push(invalid_str(
            "spec.names.listKind".into(),
            &n.list_kind,
            "kind and listKind may not be the same",
        ));
    }
    for (i, category) in n.categories.iter().enumerate() {
        let c = category.as_str().unwrap_or("");
        if let errs @ [_, ..] = dns1035_label(c).as_slice() {
            out.push(invalid_str(
                index("spec.names.categories", i),
                c,
                errs.join(","),
            ));
        }
    }
}

/// `validateSimpleJSONPath`.
fn simple_json_path(s: &str, path: String) -> Option<FieldError> {
    match s.chars().next() {
        None => Some(invalid_str(path, s, "must not be empty")),
        Some('.') => None,
        Some(_) => Some(invalid_str(
            path,
            s,
            "must be a simple json path starting with .",
        )),
    }
}

fn subresources(subresources: Option<&Value>, at: &str, out: &mut Vec<FieldError>) {
    let Some(scale) = subresources.map(Node::new).and_then(|s| s.schema("scale")) else {
        return;
    };
    for (field, prefix, place) in [
        ("specReplicasPath", ".spec.", ".spec"),
        ("statusReplicasPath", ".status.", ".status"),
    ] {
        let path = child(at, &format!("scale.{field}"));
        match scale.str(field) {
            "" => out.push(required(path, "")),
            p => match simple_json_path(p, path.clone()) {
                Some(e) => out.push(e),
                None if !p.starts_with(prefix) => out.push(invalid_str(
                    path,
                    p,
                    format!("should be a json path under {place}"),
                )),
                None => {}
            },
        }
    }
    let selector = scale.str("labelSelectorPath");
    if !selector.is_empty() {
        let path = child(at, "scale.labelSelectorPath");
        match simple_json_path(selector, path.clone()) {
            Some(e) => out.push(e),
            None if !selector.starts_with(".spec.") && !selector.starts_with(".status.") => out
                .push(invalid_str(
                    path,
                    selector,
                    "should be a json path under either .spec or .status",
                )),
            None => {}
        }
    }
}

fn column(c: &Value, at: &str, out: &mut Vec<FieldError>) {
    const TYPES: &str = "boolean,date,integer,number,string";
    const FORMATS: &str = "byte,date,date-time,double,float,int32,int64,password";
    let c = Node::new(c);
    if c.str("name").is_empty() {
        out.push(required(child(at, "name"), ""));
    }
    match c.str("type") {
        "" => out.push(required(
            child(at, "type"),
            format!("must be one of {TYPES}"),
        )),
        t if !TYPES.split(',').any(|x| x == t) => out.push(invalid_str(
            child(at, "type"),
            t,
            format!("must be one of {TYPES}"),
        )),
        _ => {}
    }
    let format = c.str("format");
    if !format.is_empty() && !FORMATS.split(',').any(|x| x == format) {
        out.push(invalid_str(
            child(at, "format"),
            format,
            format!("must be one of {FORMATS}"),
        ));
    }
    let json_path = match c.str("jsonPath") {
        "" => c.str("JSONPath"),
        p => p,
    };
    let path = child(at, "JSONPath");
    if json_path.is_empty() {
        out.push(required(path, ""));
    } else {
        out.extend(simple_json_path(json_path, path));
    }
}

/// `status.storedVersions` as `PrepareForCreate` sets it: the first storage version.
fn stored_versions(crd: &Crd<'_>, out: &mut Vec<FieldError>) {
    let Some(stored) = crd.versions.iter().find(|v| v.storage).map(|v| v.name) else {
        out.push(invalid(
            "status.storedVersions".into(),
            Value::Null,
            "must have at least one stored version",
        ));
        return;
    };
    for v in crd
        .versions
        .iter()
        .filter(|v| v.storage && v.name != stored)
    {
        out.push(invalid(
            "status.storedVersions".into(),
            json!([stored]),
            format!("must have the storage version {}", v.name),
        ));
    }
}

/// `validateAPIApproval`: groups under k8s.io and kubernetes.io need the approval annotation.
fn api_approval(crd: &Crd<'_>) -> Option<FieldError> {
    const ANNOTATION: &str = "api-approved.kubernetes.io";
    let g = crd.group;
    let protected = ["k8s.io", "kubernetes.io"]
        .iter()
        .any(|d| g == *d || g.ends_with(&format!(".{d}")));
    if !protected {
        return None;
    }
    let value = crd
        .metadata
        .schema("annotations")
        .map_or("", |a| a.str(ANNOTATION));
    let at = key("metadata.annotations", ANNOTATION);
    let see = "see https://github.com/kubernetes/enhancements/pull/1111";
    if value.is_empty() {
        return Some(required(
            at,
            format!("protected groups must have approval annotation \"{ANNOTATION}\", {see}"),
        ));
    }
    let approved = value.split_once("://").is_some_and(|(scheme, rest)| {
        !scheme.is_empty() && !rest.split('/').next().unwrap_or("").is_empty()
    });
    (!value.starts_with("unapproved") && !approved).then(|| {
        invalid_str(
            at,
            value,
            format!("protected groups must have approval annotation \"{ANNOTATION}\" with either a URL or a reason starting with \"unapproved\", {see}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deprecation_warnings() {
        assert_eq!(
            deprecation_warning_problems(false, Some("x")),
            ["can only be set for deprecated versions"]
        );
        assert!(deprecation_warning_problems(true, Some("use v2")).is_empty());
        assert_eq!(
            deprecation_warning_problems(true, Some("")),
            ["must not be an empty string"]
        );
        assert_eq!(
            deprecation_warning_problems(true, Some("a\tb")),
            ["must only contain printable UTF-8 characters; non-printable character found at index 1"]
        );
        assert_eq!(
            deprecation_warning_problems(true, Some(&"x".repeat(257))),
            ["must be <= 256 characters long"]
        );
    }
}
