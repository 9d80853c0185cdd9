//! What kube-apiserver checks when a CustomResourceDefinition is created (reference §3):
//! the CRD object (names, versions, conversion, subresources, printer columns) and every
//! version's schema: keyword rules, structural invariants, defaults, and the shape of
//! `x-kubernetes-validations` rules. Compiling the rules and validating defaults against
//! their schema (ObjectMeta, OpenAPI, CEL) belong to other engines, reached through
//! [`Engines`]; [`Builtin`] is kadmit's.
//!
//! Paths follow the internal form the server validates: `spec.validation.openAPIV3Schema`
//! when every version carries the same schema, else `spec.versions[i].schema...`. Errors
//! come in the server's order; the structural ones of a schema are sorted by full text.
//!
//! Known differences: values the server prints from internal Go structs (the version list
//! of `spec.versions` errors, a whole root schema) are shown as the CRD's JSON;
//! `selectableFields`, CEL cost limits and the ObjectMeta decoding (`Coerce`) of defaults
//! are not checked; rules are compiled only when the whole schema is otherwise valid
//! (upstream decides per node).

mod conversion;
mod defaults;
mod errs;
mod fieldpath;
mod internal;
mod invariants;
mod keywords;
mod node;
mod spec;

use crate::field_error::FieldError;
use crate::schema::Schema;
use errs::{child, forbidden, invalid, invalid_str, not_supported};
use node::Node;
use serde_json::Value;

pub use fieldpath::Step as FieldPathStep;
pub use internal::{Crd as InternalCrd, V1, V1BETA1};

/// The engines CRD validation calls into. Every method's error paths are relative to what
/// it was given (`<nil>` for the value itself, `properties[a]...` below a schema root).
pub trait Engines {
    /// `objectmeta.Validate` of a `default` (its embedded resources' apiVersion, kind
    /// and metadata; the value itself too when `resource_root`).
    fn validate_embedded(
        &self,
        value: &Value,
        schema: &Schema,
        resource_root: bool,
    ) -> Vec<FieldError>;
    /// kube-openapi validation of a `default` against its own schema node.
    fn validate_default(&self, value: &Value, schema: &Schema) -> Vec<FieldError>;
    /// The node's CEL rules run on its `default` (only reached when the OpenAPI check passed).
    fn check_default_rules(
        &self,
        value: &Value,
        schema: &Schema,
        resource_root: bool,
    ) -> Vec<FieldError>;
    /// Compile-time problems of every `x-kubernetes-validations` rule of a schema that is
    /// otherwise valid (type checks, `oldSelf` placement, `optionalOldSelf`).
    fn compile_rules(&self, schema: &Schema) -> Vec<FieldError>;
}

/// kadmit's own engines: ObjectMeta checks, kube-openapi validation and CEL.
pub struct Builtin;

impl Engines for Builtin {
    fn validate_embedded(
        &self,
        value: &Value,
        schema: &Schema,
        resource_root: bool,
    ) -> Vec<FieldError> {
        crate::objectmeta::validate(value, schema, resource_root)
    }

    fn validate_default(&self, value: &Value, schema: &Schema) -> Vec<FieldError> {
        crate::openapi::validate(value, schema)
    }

    fn check_default_rules(
        &self,
        value: &Value,
        schema: &Schema,
        resource_root: bool,
    ) -> Vec<FieldError> {
        crate::cel::compile_unchecked(schema)
            .validate(value, schema, resource_root)
            .errors
    }

    fn compile_rules(&self, schema: &Schema) -> Vec<FieldError> {
        crate::cel::compile(schema).err().unwrap_or_default()
    }
}

/// Whether `value` is an `apiextensions.k8s.io` CustomResourceDefinition (v1 or v1beta1).
pub fn is_crd(value: &Value) -> bool {
    InternalCrd::read(value).is_some()
}

/// Every error the API server would return when creating `crd`.
pub fn validate_crd(crd: &Value) -> Vec<FieldError> {
    validate_crd_with(crd, &Builtin)
}

/// [`validate_crd`] with the given engines for defaults and CEL rules.
pub fn validate_crd_with(crd: &Value, engines: &dyn Engines) -> Vec<FieldError> {
    let Some(internal) = InternalCrd::read(crd) else {
        return not_a_crd(crd);
    };
    spec::check(&internal, crd, &|container, at, status| {
        let Some(schema) = container.get("openAPIV3Schema").filter(|s| !s.is_null()) else {
            return Vec::new();
        };
        validate_schema(schema, &child(at, "openAPIV3Schema"), status, engines)
    })
}

/// The CRD-time problems outside its schemas (`ObjectMeta`, names, scope, versions,
/// subresources, printer columns, conversion, stored versions): what a CRD must pass to
/// define its kind at all, cheap at any schema size. [`validate_crd_with`] is these and
/// every schema's problems.
pub fn validate_crd_identity(crd: &Value) -> Vec<FieldError> {
    let Some(internal) = InternalCrd::read(crd) else {
        return not_a_crd(crd);
    };
    spec::check(&internal, crd, &|_, _, _| Vec::new())
}

fn not_a_crd(value: &Value) -> Vec<FieldError> {
    let text = |k: &str| value.get(k).and_then(Value::as_str).unwrap_or("");
    let mut out = Vec::new();
    if text("kind") != "CustomResourceDefinition" {
        out.push(invalid_str(
            "kind".into(),
            text("kind"),
            "must be CustomResourceDefinition",
        ));
    }
    let api_version = text("apiVersion");
    if api_version != V1 && api_version != V1BETA1 {
        out.push(not_supported(
            "apiVersion".into(),
            api_version,
            &[V1, V1BETA1],
        ));
    }
    out
}

/// The CRD-time problems of one `openAPIV3Schema` reported under `path`
/// (`ValidateCustomResourceDefinitionValidation`).
pub fn validate_schema(
    schema: &Value,
    path: &str,
    status_enabled: bool,
    engines: &dyn Engines,
) -> Vec<FieldError> {
    let s = Node::new(schema);
    let mut out = Vec::new();
    if status_enabled {
        out.extend(status_root_restriction(s, path));
    }
    if s.flag("nullable") {
        out.push(forbidden(
            child(path, "nullable"),
            "nullable cannot be true at the root",
        ));
    }
    let mut conversion = Vec::new();
    let mut rules_may_compile = false;
    match invariants::conversion_error(s) {
        Some(e) => conversion.push(invalid_str(path.to_owned(), "", e)),
        None => {
            let structural = invariants::check(schema, path);
            if structural.is_empty() {
                let defaults = defaults::check(schema, path, engines);
                rules_may_compile = defaults.is_empty();
                out.extend(defaults);
            } else {
                out.extend(structural);
            }
        }
    }
    let keyword_errors = keywords::check(schema, path);
    rules_may_compile &= keyword_errors.is_empty();
    out.extend(keyword_errors);
    let decoded = Schema::from_value(schema);
    if let (true, Ok(decoded)) = (rules_may_compile, &decoded) {
        out.extend(engines.compile_rules(decoded).into_iter().map(|mut e| {
            e.field = format!("{path}.{}", e.field);
            e
        }));
    }
    if out.is_empty() {
        out.extend(conversion);
    }
    if let (true, Err(e)) = (out.is_empty(), decoded) {
        out.push(invalid_str(
            path.to_owned(),
            "",
            format!("cannot be decoded: {e}"),
        ));
    }
    out
}

/// With the status subresource the root may only use some keywords, so that `status`'s
/// schema can be taken out as `properties[status]`. Go walks `JSONSchemaProps` fields in
/// declaration order and reports the first offending one.
fn status_root_restriction(s: Node<'_>, path: &str) -> Option<FieldError> {
    const FIELDS: [(&str, &str, bool); 44] = [
        ("ID", "id", false),
        ("Schema", "$schema", false),
        ("Ref", "$ref", false),
        ("Description", "description", true),
        ("Type", "type", true),
        ("Nullable", "nullable", false),
        ("Format", "format", true),
        ("Title", "title", true),
        ("Default", "default", false),
        ("Maximum", "maximum", true),
        ("ExclusiveMaximum", "exclusiveMaximum", true),
        ("Minimum", "minimum", true),
        ("ExclusiveMinimum", "exclusiveMinimum", true),
        ("MaxLength", "maxLength", true),
        ("MinLength", "minLength", true),
        ("Pattern", "pattern", true),
        ("MaxItems", "maxItems", true),
        ("MinItems", "minItems", true),
        ("UniqueItems", "uniqueItems", true),
        ("MultipleOf", "multipleOf", true),
        ("Enum", "enum", false),
        ("MaxProperties", "maxProperties", false),
        ("MinProperties", "minProperties", false),
        ("Required", "required", true),
        ("Items", "items", true),
        ("AllOf", "allOf", false),
        ("OneOf", "oneOf", false),
        ("AnyOf", "anyOf", false),
        ("Not", "not", false),
        ("Properties", "properties", true),
        ("AdditionalProperties", "additionalProperties", false),
        ("PatternProperties", "patternProperties", false),
        ("Dependencies", "dependencies", false),
        ("AdditionalItems", "additionalItems", false),
        ("Definitions", "definitions", false),
        ("ExternalDocs", "externalDocs", true),
        ("Example", "example", true),
        (
            "XPreserveUnknownFields",
            "x-kubernetes-preserve-unknown-fields",
            true,
        ),
        ("XEmbeddedResource", "x-kubernetes-embedded-resource", false),
        ("XIntOrString", "x-kubernetes-int-or-string", false),
        ("XListMapKeys", "x-kubernetes-list-map-keys", false),
        ("XListType", "x-kubernetes-list-type", false),
        ("XMapType", "x-kubernetes-map-type", false),
        ("XValidations", "x-kubernetes-validations", true),
    ];
    let set = |k: &str| match s.get(k) {
        Some(Value::String(v)) => !v.is_empty(),
        Some(Value::Bool(b)) => *b,
        Some(_) => true,
        None => false,
    };
    for (name, keyword, allowed) in FIELDS {
        if !set(keyword) {
            continue;
        }
        if name == "Type" {
            if s.type_() == "object" {
                continue;
            }
            return Some(invalid_str(
                child(path, "type"),
                s.type_(),
                r#"only "object" is allowed as the type at the root of the schema if the status subresource is enabled"#,
            ));
        }
        if !allowed {
            let names: Vec<&str> = FIELDS.iter().filter(|f| f.2).map(|f| f.0).collect();
            return Some(invalid(
                path.to_owned(),
                s.value().clone(),
                format!(
                    "only [{}] fields are allowed at the root of the schema if the status subresource is enabled",
                    names.join(" ")
                ),
            ));
        }
    }
    None
}

/// The warnings the server returns with a created CRD: one per unrecognized `format` of a
/// string schema (`unrecognized format "xyz"`), each format once.
pub fn crd_warnings(crd: &Value) -> Vec<String> {
    const KNOWN: [&str; 26] = [
        "bsonobjectid",
        "uri",
        "email",
        "hostname",
        "ipv4",
        "ipv6",
        "cidr",
        "mac",
        "uuid",
        "uuid3",
        "uuid4",
        "uuid5",
        "isbn",
        "isbn10",
        "isbn13",
        "creditcard",
        "ssn",
        "hexcolor",
        "rgbcolor",
        "byte",
        "password",
        "date",
        "duration",
        "datetime",
        "k8sshortname",
        "k8slongname",
    ];
    let mut found: Vec<String> = Vec::new();
    let mut visit = |s: Node<'_>| {
        let format = s.str("format");
        let known = KNOWN.contains(&format.replace('-', "").as_str());
        if s.type_() == "string"
            && !format.is_empty()
            && !known
            && !found.iter().any(|f| f == format)
        {
            found.push(format.to_owned());
        }
    };
    let schemas = ["/spec/validation/openAPIV3Schema"]
        .into_iter()
        .filter_map(|p| crd.pointer(p))
        .chain(
            crd.pointer("/spec/versions")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|v| v.pointer("/schema/openAPIV3Schema")),
        );
    for schema in schemas {
        each_schema(Node::new(schema), &mut visit);
    }
    found
        .iter()
        .map(|f| {
            format!(
                "unrecognized format {}",
                kadmit_go::strconv::quote(f, false)
            )
        })
        .collect()
}

/// Calls `f` on `s` and every schema below it.
fn each_schema<'a>(s: Node<'a>, f: &mut dyn FnMut(Node<'a>)) {
    f(s);
    let mut children: Vec<Node<'a>> = s.properties().into_iter().map(|(_, p)| p).collect();
    children.extend(s.items());
    children.extend(s.additional().flatten());
    children.extend(s.schema("not"));
    for junctor in ["allOf", "anyOf", "oneOf"] {
        children.extend(s.branches(junctor));
    }
    for c in children {
        each_schema(c, f);
    }
}

#[cfg(test)]
mod tests;
