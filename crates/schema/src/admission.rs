//! The create path of a custom resource, in the API server's order (reference §1): the
//! version is routed, the root metadata coerced, unknown fields pruned (and reported per
//! `--field-validation`), non-nullable nulls dropped, defaults applied, and the object
//! validated (ObjectMeta, OpenAPI, embedded resources, list types, then CEL).

use super::cel::CompiledRules;
use super::definition::{no_matches, Crd, Scope, Version};
use super::field_error::{ErrorType, FieldError};
use super::schema::Schema;
use super::{defaulting, listtype, objectmeta, openapi, prune};
use serde_json::{json, Value};
use std::sync::OnceLock;

/// The server's `fieldValidation`: what unknown fields do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldValidation {
    /// An error listing every unknown field (kubectl's default).
    Strict,
    /// Pruned from the output, a warning each.
    Warn,
    /// Pruned silently.
    Ignore,
}

/// A CRD version ready to admit objects: its schema with the defaults the server keeps,
/// its validator and its compiled rules.
struct Compiled {
    /// The version's schema, defaults pruned as the server prunes them on load.
    schema: Option<Schema>,
    /// Whether the schema has an `x-kubernetes-embedded-resource` anywhere (else the
    /// embedded-resource walks are skipped).
    embedded: bool,
    validator: Option<openapi::Validator>,
    rules: Option<CompiledRules>,
}

impl Compiled {
    fn new(version: &Version) -> Compiled {
        let mut schema = version.schema.clone();
        if let Some(schema) = schema.as_mut() {
            // A default that does not survive pruning was refused when the CRD was
            // validated; what is left to prune is only dropped here.
            let _ = defaulting::prune_defaults(schema);
        }
        Compiled {
            embedded: schema.as_ref().is_some_and(any_embedded),
            validator: schema.as_ref().map(openapi::Validator::new),
            rules: schema.as_ref().map(super::cel::compile_unchecked),
            schema,
        }
    }
}

/// One version of a definition as a request sees it.
struct Served<'a> {
    version: &'a Version,
    compiled: &'a Compiled,
}

/// A loaded CRD whose versions are compiled on first use, each at most once (a run pays
/// only for the versions its resources ask for; the cells are thread-safe, so admission
/// may share a definition across threads).
pub struct Definition {
    pub crd: Crd,
    compiled: Vec<OnceLock<Compiled>>,
}

impl Definition {
    /// A CRD that `Crd::from_value` accepted (its CEL rules were compiled and checked
    /// there), its versions to be compiled when a request first asks for them: defaults
    /// pruned as the server prunes them on load, the OpenAPI validator and the CEL
    /// programs built once.
    pub fn new(crd: Crd) -> Definition {
        let compiled = crd.versions.iter().map(|_| OnceLock::new()).collect();
        Definition { crd, compiled }
    }

    fn served_at(&self, index: usize) -> Served<'_> {
        let version = &self.crd.versions[index];
        Served {
            version,
            compiled: self.compiled[index].get_or_init(|| Compiled::new(version)),
        }
    }

    /// How many versions have been compiled so far (each at most once).
    pub fn compiled_versions(&self) -> usize {
        self.compiled.iter().filter(|c| c.get().is_some()).count()
    }
}

/// How an object is admitted.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    pub field_validation: FieldValidation,
    /// Apply schema defaults to the output (`--no-defaults` turns this off; validation
    /// still sees the defaulted object).
    pub write_defaults: bool,
}

/// What the create path did to one object.
#[derive(Debug, Default)]
pub struct Created {
    /// The object as the server would store and return it (minus server-set fields).
    pub object: Value,
    /// The server's warnings (deprecated version, unknown fields under Warn, ...).
    pub warnings: Vec<String>,
    /// JSON Pointers the schema defaults set (empty when defaults are not written).
    pub defaulted: Vec<String>,
    /// Transition rules (`oldSelf`) that do not run on create.
    pub skipped_transition_rules: usize,
}

/// Why the server would refuse the object.
#[derive(Debug, Clone, PartialEq)]
pub enum Refused {
    /// 404: the version is not served (kubectl: no matches for kind).
    NotFound(String),
    /// 400 BadRequest: a decode-time failure (strict unknown fields, metadata types).
    BadRequest(String),
    /// 422 Invalid: field errors.
    Invalid {
        kind: String,
        group: String,
        name: String,
        causes: Vec<FieldError>,
    },
}

impl Refused {
    /// The text kubectl prints for this refusal.
    pub fn kubectl_message(&self) -> String {
        match self {
            Refused::NotFound(m) | Refused::BadRequest(m) => m.clone(),
            Refused::Invalid {
                kind, name, causes, ..
            } => {
                let lines = dedup(causes.iter().map(|c| c.to_string()).collect());
                if lines.len() == 1 {
                    format!("The {kind} \"{name}\" is invalid: {}", lines[0])
                } else {
                    let mut out = format!("The {kind} \"{name}\" is invalid: ");
                    for line in lines {
                        out.push_str("\n* ");
                        out.push_str(&line);
                    }
                    out
                }
            }
        }
    }

    /// The `metav1.Status` the server answers with.
    pub fn status(&self) -> Value {
        match self {
            Refused::NotFound(m) => {
                json!({"metadata": {}, "status": "Failure", "message": m, "reason": "NotFound", "code": 404})
            }
            Refused::BadRequest(m) => {
                json!({"metadata": {}, "status": "Failure", "message": m, "reason": "BadRequest", "code": 400})
            }
            Refused::Invalid {
                kind,
                group,
                name,
                causes,
            } => {
                let lines = dedup(causes.iter().map(|c| c.to_string()).collect());
                let aggregate = if lines.len() == 1 {
                    lines[0].clone()
                } else {
                    format!("[{}]", lines.join(", "))
                };
                json!({
                    "metadata": {},
                    "status": "Failure",
                    "message": format!("{kind}.{group} \"{name}\" is invalid: {aggregate}"),
                    "reason": "Invalid",
                    "details": {
                        "name": name,
                        "group": group,
                        "kind": kind,
                        "causes": causes.iter().map(|c| json!({
                            "reason": c.kind.reason(),
                            "message": c.body(),
                            "field": c.field,
                        })).collect::<Vec<_>>(),
                    },
                    "code": 422,
                })
            }
        }
    }
}

fn dedup(lines: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    for line in lines {
        if !out.contains(&line) {
            out.push(line);
        }
    }
    out
}

/// Error types after which the server does not run CEL rules.
const BLOCKS_CEL: [ErrorType; 5] = [
    ErrorType::NotSupported,
    ErrorType::Required,
    ErrorType::TooLong,
    ErrorType::TooMany,
    ErrorType::TypeInvalid,
];

/// Admits `object` (whose group and kind `definition` defines) as the server does on
/// create: `prepare`, then `check` the prepared object.
pub fn create(
    definition: &Definition,
    object: &Value,
    settings: Settings,
) -> Result<Created, Refused> {
    create_at(definition, object, settings, None)
}

/// `create` posted to a given version's endpoint (the version in the URL, which a
/// manifest-driven client takes from the object's own `apiVersion`).
pub fn create_at(
    definition: &Definition,
    object: &Value,
    settings: Settings,
    endpoint_version: Option<&str>,
) -> Result<Created, Refused> {
    if let Some(version) = endpoint_version {
        let expected = format!("{}/{version}", definition.crd.group);
        let actual = object
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or("");
        if actual != expected {
            return Err(Refused::BadRequest(format!(
                "the API version in the data ({actual}) does not match the expected API version ({expected})"
            )));
        }
    }
    let mut created = prepare(definition, object, settings)?;
    let checked = check(definition, &created.object, "default")?;
    created.warnings.splice(0..0, checked.warnings);
    created.skipped_transition_rules = checked.skipped_transition_rules;
    Ok(created)
}

/// The served version `object` asks for, or the server's 404.
fn request_version<'a>(definition: &'a Definition, object: &Value) -> Result<Served<'a>, Refused> {
    let crd = &definition.crd;
    let api_version = object
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    let version_name = api_version.rsplit_once('/').map_or("", |(_, v)| v);
    let requested = crd
        .versions
        .iter()
        .position(|v| v.name == version_name && v.served);
    match requested {
        Some(index) => Ok(definition.served_at(index)),
        None => {
            let served: Vec<&str> = crd
                .versions
                .iter()
                .filter(|v| v.served)
                .map(|v| v.name.as_str())
                .collect();
            Err(Refused::NotFound(no_matches(
                &crd.group,
                version_name,
                &crd.kind,
                &served,
            )))
        }
    }
}

/// The decode half of create: metadata coercion, pruning (reported per
/// `--field-validation`), null pruning and defaulting. `Created::object` is what kadmit
/// writes (see `Settings::write_defaults`); it is idempotent, so the pipeline may run it
/// again after mutation.
pub fn prepare(
    definition: &Definition,
    object: &Value,
    settings: Settings,
) -> Result<Created, Refused> {
    let crd = &definition.crd;
    let request = request_version(definition, object)?;
    let cannot_handle = |err: &str| {
        format!(
            "{kind} in version \"{version}\" cannot be handled as a {kind}: {err}",
            kind = crd.kind,
            version = request.version.name
        )
    };
    let mut created = Created::default();
    let mut value = object.clone();
    let mut unknown = objectmeta::coerce_root_metadata(&mut value)
        .map_err(|e| Refused::BadRequest(cannot_handle(&e)))?;
    let schema = request.compiled.schema.as_ref();
    if !crd.preserve_unknown_fields {
        unknown.extend(prune::prune(&mut value, schema, true));
        defaulting::prune_non_nullable_nulls_without_defaults(&mut value, schema);
    }
    if request.compiled.embedded {
        let embedded = objectmeta::coerce(&mut value, schema, false, false)
            .map_err(|e| Refused::BadRequest(cannot_handle(&e)))?;
        unknown.extend(embedded);
    }
    if request.version.status_subresource {
        // PrepareForCreate: with the status subresource, create never stores status.
        if let Some(map) = value.as_object_mut() {
            map.shift_remove("status");
        }
    }
    match settings.field_validation {
        FieldValidation::Strict if !unknown.is_empty() => {
            let fields: Vec<String> = unknown
                .iter()
                .map(|p| format!("unknown field \"{p}\""))
                .collect();
            return Err(Refused::BadRequest(cannot_handle(&format!(
                "strict decoding error: {}",
                fields.join(", ")
            ))));
        }
        FieldValidation::Warn => created
            .warnings
            .extend(unknown.iter().map(|p| format!("unknown field \"{p}\""))),
        _ => {}
    }
    if settings.write_defaults {
        created.defaulted = defaulting::default_with_record(&mut value, schema);
        let (object, storage_defaults) = round_trip_storage(definition, &request, value);
        created.defaulted.extend(storage_defaults);
        created.object = object;
    } else {
        created.object = match settings.field_validation {
            FieldValidation::Strict => object.clone(),
            FieldValidation::Warn | FieldValidation::Ignore => value,
        };
    }
    Ok(created)
}

/// What `check` found that is not an error.
#[derive(Debug, Default)]
pub struct Checked {
    pub warnings: Vec<String>,
    pub skipped_transition_rules: usize,
}

/// The validate half of create, on a prepared object (defaulted here again when the
/// output keeps no defaults, so validation sees what the server would store).
///
/// Like the API server, a namespaced object without a namespace is validated in the
/// request's (`request_namespace`, kadmit's `--namespace`), and a cluster-scoped one
/// without its namespace (with a warning: the server drops it silently).
pub fn check(
    definition: &Definition,
    object: &Value,
    request_namespace: &str,
) -> Result<Checked, Refused> {
    check_with(definition, object, None, request_namespace)
}

/// The validate half of an update (`customResourceStrategy.ValidateUpdate`): `object`
/// (prepared) replaces `old`, the stored object. `old` is read as the server holds it:
/// converted to the request's version (kadmit knows only the `None` strategy, which
/// changes `apiVersion` alone), namespaced as the new one and defaulted. Then ObjectMeta
/// update rules, OpenAPI validation with ratcheting (KEP-4008), list-type uniqueness only
/// when the old object had none, and CEL with `oldSelf` and ratcheting; the failures of
/// rules ratcheting forgave are warnings, as the server returns them.
pub fn check_update(
    definition: &Definition,
    object: &Value,
    old: &Value,
    request_namespace: &str,
) -> Result<Checked, Refused> {
    check_with(definition, object, Some(old), request_namespace)
}

fn check_with(
    definition: &Definition,
    object: &Value,
    old: Option<&Value>,
    request_namespace: &str,
) -> Result<Checked, Refused> {
    let crd = &definition.crd;
    let request = request_version(definition, object)?;
    let mut checked = Checked::default();
    if let Some(warning) = crd.deprecation_warning(&request.version.name) {
        checked.warnings.push(warning);
    }
    let object_kind = object.get("kind").and_then(Value::as_str).unwrap_or("");
    let name = object
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    if object_kind != crd.kind {
        return Err(Refused::Invalid {
            kind: object_kind.to_owned(),
            group: crd.group.clone(),
            name,
            causes: vec![FieldError::invalid(
                "kind",
                Value::String(object_kind.to_owned()),
                format!("must be {}", crd.kind),
            )],
        });
    }
    let mut value = object.clone();
    reconcile_namespace(&mut value, crd, request_namespace, &mut checked.warnings);
    defaulting::default(&mut value, request.compiled.schema.as_ref());
    let old = old.map(|old| stored_old(definition, &request, &value, old, request_namespace));
    let causes = validate(definition, &request, &value, old.as_ref(), &mut checked);
    if causes.is_empty() {
        return Ok(checked);
    }
    Err(Refused::Invalid {
        kind: crd.kind.clone(),
        group: crd.group.clone(),
        name,
        causes,
    })
}

/// The old object as validation sees it: in the new object's version, namespaced and
/// defaulted like it.
fn stored_old(
    definition: &Definition,
    request: &Served<'_>,
    new: &Value,
    old: &Value,
    request_namespace: &str,
) -> Value {
    let mut old = old.clone();
    if let (Some(map), Some(version)) = (old.as_object_mut(), new.get("apiVersion")) {
        map.insert("apiVersion".into(), version.clone());
    }
    reconcile_namespace(
        &mut old,
        &definition.crd,
        request_namespace,
        &mut Vec::new(),
    );
    defaulting::default(&mut old, request.compiled.schema.as_ref());
    old
}

fn reconcile_namespace(
    value: &mut Value,
    crd: &Crd,
    request_namespace: &str,
    warnings: &mut Vec<String>,
) {
    let Some(Value::Object(metadata)) = value.get_mut("metadata") else {
        return;
    };
    let has_namespace = metadata
        .get("namespace")
        .and_then(Value::as_str)
        .is_some_and(|ns| !ns.is_empty());
    match crd.scope {
        Scope::Namespaced if !has_namespace => {
            metadata.insert(
                "namespace".into(),
                Value::String(request_namespace.to_owned()),
            );
        }
        Scope::Cluster if has_namespace => {
            metadata.shift_remove("namespace");
            warnings.push(format!(
                "metadata.namespace is ignored: {} is cluster-scoped (the API server drops it)",
                crd.kind
            ));
        }
        _ => {}
    }
}

/// `customResourceStrategy.Validate` (reference §1, step 6), or `ValidateUpdate` when
/// there is an `old` object.
fn validate(
    definition: &Definition,
    request: &Served<'_>,
    value: &Value,
    old: Option<&Value>,
    checked: &mut Checked,
) -> Vec<FieldError> {
    let crd = &definition.crd;
    let empty = json!({});
    let metadata = value.get("metadata").unwrap_or(&empty);
    let mut errors =
        objectmeta::validate_object_meta(metadata, crd.scope == Scope::Namespaced, "metadata");
    if let Some(old) = old {
        let old_metadata = old.get("metadata").unwrap_or(&empty);
        errors.extend(objectmeta::validate_object_meta_update(
            metadata,
            old_metadata,
            "metadata",
        ));
    }
    if let Some(validator) = &request.compiled.validator {
        match (old, &request.compiled.schema) {
            (Some(old), Some(schema)) => {
                errors.extend(validator.validate_update(value, old, schema))
            }
            _ => errors.extend(validator.validate(value)),
        }
    }
    if let Some(schema) = &request.compiled.schema {
        if request.compiled.embedded {
            errors.extend(objectmeta::validate(value, schema, false));
        }
        // Ratcheting of list types: an update is checked only if the old object passed.
        let old_lists_valid =
            old.is_none_or(|old| listtype::validate_list_sets_and_maps(old, schema).is_empty());
        if old_lists_valid {
            errors.extend(listtype::validate_list_sets_and_maps(value, schema));
        }
        if let Some(rules) = request.compiled.rules.as_ref().filter(|r| !r.is_empty()) {
            if errors.iter().any(|e| BLOCKS_CEL.contains(&e.kind)) {
                errors.push(FieldError::invalid(
                    "<nil>",
                    Value::Null,
                    "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
                ));
            } else {
                let outcome = match old {
                    Some(old) => rules.validate_update(value, old, schema, true),
                    None => rules.validate(value, schema, true),
                };
                checked.skipped_transition_rules = outcome.skipped_transition_rules;
                checked
                    .warnings
                    .extend(outcome.ratcheted.iter().map(FieldError::to_string));
                errors.extend(outcome.errors);
            }
        }
    }
    errors
}

/// The storage round trip (reference §1, step 8): with a storage version other than the
/// request's, the response is the object pruned and defaulted by the storage schema, then
/// pruned by the request schema again. Returns it with the defaults that survived.
fn round_trip_storage(
    definition: &Definition,
    request: &Served<'_>,
    mut value: Value,
) -> (Value, Vec<String>) {
    let Some(storage) = definition.crd.versions.iter().position(|v| v.storage) else {
        return (value, Vec::new());
    };
    let storage = definition.served_at(storage);
    if storage.version.name == request.version.name || definition.crd.preserve_unknown_fields {
        return (value, Vec::new());
    }
    let storage_schema = storage.compiled.schema.as_ref();
    let request_schema = request.compiled.schema.as_ref();
    prune::prune(&mut value, storage_schema, true);
    let mut defaulted = defaulting::default_with_record(&mut value, storage_schema);
    prune::prune(&mut value, request_schema, true);
    defaulted.retain(|pointer| value.pointer(pointer).is_some());
    (value, defaulted)
}

/// Whether `s` or any node under it is an embedded resource.
fn any_embedded(s: &Schema) -> bool {
    s.embedded_resource
        || s.properties.iter().any(|(_, p)| any_embedded(p))
        || s.additional_schema().is_some_and(any_embedded)
        || s.items.as_deref().is_some_and(any_embedded)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Regression (finding 13): every field of an object was looked up in its schema's
    /// properties by a scan, so admitting an object with N fields against N properties
    /// took O(N^2) (100,000 properties: 176 s). With the index it is linear: here the
    /// create path takes about 0.1 s in a debug build and took about a minute before,
    /// so the bound below is generous. (Loading the CRD is linear and not timed.)
    #[test]
    fn many_properties_are_admitted_in_linear_time() {
        const N: usize = 30_000;
        let props: serde_json::Map<String, Value> = (0..N)
            .map(|i| (format!("p{i}"), json!({"type": "string", "maxLength": 8})))
            .collect();
        let fields: serde_json::Map<String, Value> =
            (0..N).map(|i| (format!("p{i}"), json!("x"))).collect();
        let crd = json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {
                "group": "example.com",
                "scope": "Namespaced",
                "names": {"kind": "Widget", "plural": "widgets"},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                        "spec": {"type": "object", "properties": props}}}}}]
            }
        });
        let object = json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w", "namespace": "default"}, "spec": fields});
        let definition = Definition::new(Crd::from_value(&crd).unwrap());
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let settings = Settings {
                field_validation: FieldValidation::Strict,
                write_defaults: true,
            };
            let created = create(&definition, &object, settings);
            let _ = done.send(
                created
                    .map(|c| c.object == object)
                    .map_err(|e| e.kubectl_message()),
            );
        });
        let outcome = finished
            .recv_timeout(Duration::from_secs(15))
            .expect("admitting 30,000 fields against 30,000 properties took over 15 s");
        assert_eq!(outcome, Ok(true));
    }
}
