//! apimachinery's ObjectMeta validation on create (`api/validation/objectmeta.go`,
//! `ValidateObjectMetaAccessor`), with Kubernetes' messages. `managedFields` are not
//! checked: on create the API server's field manager replaces them before validation.

use super::names::{label_value_errors, parse_group_version, qualified_name_errors, NameRule};
use crate::field_error::{ErrorType, FieldError};
use serde_json::{json, Value};

const TOTAL_ANNOTATION_SIZE_LIMIT: usize = 256 * 1024;

/// The fields of a decoded `metadata` that validation reads; a missing, null or (after a
/// lenient decode) wrongly typed field reads as Go's zero value.
pub(super) struct Meta<'a> {
    pub name: &'a str,
    pub generate_name: &'a str,
    pub namespace: &'a str,
    generation: i64,
    labels: Vec<(&'a str, &'a str)>,
    annotations: Vec<(&'a str, &'a str)>,
    owner_references: Vec<OwnerReference<'a>>,
    finalizers: Vec<&'a str>,
}

struct OwnerReference<'a> {
    api_version: &'a str,
    kind: &'a str,
    name: &'a str,
    uid: &'a str,
    controller: Option<bool>,
    block_owner_deletion: Option<bool>,
}

impl<'a> Meta<'a> {
    pub fn read(metadata: &'a Value) -> Meta<'a> {
        let pairs = |key: &str| -> Vec<(&'a str, &'a str)> {
            let Some(Value::Object(m)) = member(metadata, key) else {
                return Vec::new();
            };
            m.iter()
                .map(|(k, v)| (k.as_str(), v.as_str().unwrap_or("")))
                .collect()
        };
        let list = |key: &str| {
            member(metadata, key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
        };
        let owner_references = list("ownerReferences")
            .map(|r| OwnerReference {
                api_version: str_of(member(r, "apiVersion")),
                kind: str_of(member(r, "kind")),
                name: str_of(member(r, "name")),
                uid: str_of(member(r, "uid")),
                controller: member(r, "controller").and_then(Value::as_bool),
                block_owner_deletion: member(r, "blockOwnerDeletion").and_then(Value::as_bool),
            })
            .collect();
        Meta {
            name: str_of(member(metadata, "name")),
            generate_name: str_of(member(metadata, "generateName")),
            namespace: str_of(member(metadata, "namespace")),
            generation: member(metadata, "generation").and_then(int64).unwrap_or(0),
            labels: pairs("labels"),
            annotations: pairs("annotations"),
            owner_references,
            finalizers: list("finalizers").map(|f| str_of(Some(f))).collect(),
        }
    }

    /// `ValidateObjectMetaAccessor` with `path` the metadata's field path, after name
    /// generation.
    pub fn validate(
        &self,
        requires_namespace: bool,
        names: NameRule,
        path: &str,
    ) -> Vec<FieldError> {
        let at = |key: &str| child(path, key);
        let mut errors = Vec::new();
        if !self.generate_name.is_empty() {
            for msg in names.errors(self.generate_name, true) {
                errors.push(FieldError::invalid(
                    at("generateName"),
                    json!(self.generate_name),
                    msg,
                ));
            }
        }
        if self.name.is_empty() {
            // The server generates a name from generateName before validating, and
            // checks that random name; kadmit cannot know it.
            if self.generate_name.is_empty() {
                errors.push(FieldError::required(
                    at("name"),
                    "name or generateName is required",
                ));
            }
        } else {
            for msg in names.errors(self.name, false) {
                errors.push(FieldError::invalid(at("name"), json!(self.name), msg));
            }
        }
        if requires_namespace {
            if self.namespace.is_empty() {
                errors.push(FieldError::required(at("namespace"), ""));
            } else {
                for msg in NameRule::DnsLabel.errors(self.namespace, false) {
                    errors.push(FieldError::invalid(
                        at("namespace"),
                        json!(self.namespace),
                        msg,
                    ));
                }
            }
        } else if !self.namespace.is_empty() {
            errors.push(FieldError::forbidden(
                at("namespace"),
                "not allowed on this type",
            ));
        }
        if self.generation < 0 {
            errors.push(FieldError::invalid(
                at("generation"),
                json!(self.generation),
                "must be greater than or equal to 0",
            ));
        }
        self.validate_labels(&at("labels"), &mut errors);
        self.validate_annotations(&at("annotations"), &mut errors);
        self.validate_owner_references(&at("ownerReferences"), &mut errors);
        self.validate_finalizers(&at("finalizers"), &mut errors);
        errors
    }

    fn validate_labels(&self, path: &str, errors: &mut Vec<FieldError>) {
        for (key, value) in &self.labels {
            for msg in qualified_name_errors(key) {
                errors.push(FieldError::invalid(path, json!(key), msg));
            }
            for msg in label_value_errors(value) {
                errors.push(FieldError::invalid(path, json!(value), msg));
            }
        }
    }

    fn validate_annotations(&self, path: &str, errors: &mut Vec<FieldError>) {
        for (key, _) in &self.annotations {
            for msg in qualified_name_errors(&key.to_lowercase()) {
                errors.push(FieldError::invalid(path, json!(key), msg));
            }
        }
        let size: usize = self
            .annotations
            .iter()
            .map(|(k, v)| k.len() + v.len())
            .sum();
        if size > TOTAL_ANNOTATION_SIZE_LIMIT {
            errors.push(FieldError::new(
                ErrorType::TooLong,
                path,
                Value::Null,
                format!("may not be more than {TOTAL_ANNOTATION_SIZE_LIMIT} bytes"),
            ));
        }
    }

    fn validate_owner_references(&self, path: &str, errors: &mut Vec<FieldError>) {
        let mut first_controller: Option<String> = None;
        for r in &self.owner_references {
            let (group, version) = parse_group_version(r.api_version).unwrap_or(("", ""));
            let empty_checks = [
                (
                    "apiVersion",
                    r.api_version,
                    version.is_empty(),
                    "version must not be empty",
                ),
                ("kind", r.kind, r.kind.is_empty(), "kind must not be empty"),
                ("name", r.name, r.name.is_empty(), "name must not be empty"),
                ("uid", r.uid, r.uid.is_empty(), "uid must not be empty"),
            ];
            for (key, value, empty, msg) in empty_checks {
                if empty {
                    errors.push(FieldError::invalid(child(path, key), json!(value), msg));
                }
            }
            if group.is_empty() && version == "v1" && r.kind == "Event" {
                errors.push(FieldError::invalid(
                    path,
                    r.as_value(),
                    "/v1, Kind=Event is disallowed from being an owner",
                ));
            }
            if r.controller == Some(true) {
                let name = format!("{}/{}", r.kind, r.name);
                match &first_controller {
                    Some(first) => errors.push(FieldError::invalid(
                        path,
                        Value::Array(self.owner_references.iter().map(OwnerReference::as_value).collect()),
                        format!("Only one reference can have Controller set to true. Found \"true\" in references for {first} and {name}"),
                    )),
                    None => first_controller = Some(name),
                }
            }
        }
    }

    fn validate_finalizers(&self, path: &str, errors: &mut Vec<FieldError>) {
        for finalizer in &self.finalizers {
            for msg in qualified_name_errors(finalizer) {
                errors.push(FieldError::invalid(path, json!(finalizer), msg));
            }
        }
        if self.finalizers.contains(&"orphan") && self.finalizers.contains(&"foregroundDeletion") {
            errors.push(FieldError::invalid(
                path,
                json!(self.finalizers),
                "finalizer orphan and foregroundDeletion cannot be both set",
            ));
        }
    }
}

impl OwnerReference<'_> {
    /// The reference as Go marshals the struct (pointer fields omitted when nil).
    fn as_value(&self) -> Value {
        let mut v = json!({"apiVersion": self.api_version, "kind": self.kind, "name": self.name, "uid": self.uid});
        if let Some(controller) = self.controller {
            v["controller"] = json!(controller);
        }
        if let Some(block) = self.block_owner_deletion {
            v["blockOwnerDeletion"] = json!(block);
        }
        v
    }
}

/// `field.Path.Child`: `key` under `path`, or `key` alone at the root.
pub(super) fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

fn member<'v>(v: &'v Value, key: &str) -> Option<&'v Value> {
    v.as_object().and_then(|m| m.get(key))
}

fn str_of(v: Option<&Value>) -> &str {
    v.and_then(Value::as_str).unwrap_or("")
}

fn int64(v: &Value) -> Option<i64> {
    v.as_i64()
        .or_else(|| v.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
}
