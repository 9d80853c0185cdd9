//! A CustomResourceDefinition loaded for admitting custom resources: names, scope and the
//! versions with their schemas, subresources and deprecation, read from
//! `apiextensions.k8s.io/v1` (or `v1beta1`, whose top-level validation, subresources and
//! version apply to every version) once the CRD passed the server's CRD-time checks.

use crate::admission::Refused;
use crate::schema::Schema;
use crate::structural::{self, Engines, InternalCrd};
use serde_json::{Map, Value};
use std::cmp::Ordering;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Namespaced,
    Cluster,
}

#[derive(Debug, Clone)]
pub struct Crd {
    pub name: String,
    pub group: String,
    pub kind: String,
    pub plural: String,
    pub singular: String,
    pub list_kind: String,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    pub scope: Scope,
    pub versions: Vec<Version>,
    pub conversion_none: bool,
    pub preserve_unknown_fields: bool,
}

#[derive(Debug, Clone)]
pub struct Version {
    pub name: String,
    pub served: bool,
    pub storage: bool,
    pub deprecated: bool,
    pub deprecation_warning: Option<String>,
    pub schema: Option<Schema>,
    pub raw_schema: Option<Value>,
    pub status_subresource: bool,
    pub scale: Option<Scale>,
}

/// The scale subresource's paths (`.spec.replicas`-style JSON paths).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scale {
    pub spec_replicas_path: String,
    pub status_replicas_path: String,
    pub label_selector_path: Option<String>,
}

impl Crd {
    /// Loads `apiextensions.k8s.io/v1` (or `v1beta1`) CRD as the server creates it: `Err`
    /// is the server's refusal, a strict-decoding error (400 BadRequest) listing every
    /// field the typed CRD structs do not have ([`crate::typed`]), or else every error
    /// of the CRD checks (422 Invalid, [`structural::validate_crd`]).
    pub fn from_value(crd: &Value) -> Result<Crd, Refused> {
        Crd::from_value_with(crd, &structural::Builtin)
    }

    /// [`Crd::from_value`] with the given engines checking defaults and CEL rules.
    pub fn from_value_with(crd: &Value, engines: &dyn Engines) -> Result<Crd, Refused> {
        if let Some(message) = crate::typed::strict_decoding_error(crd) {
            return Err(Refused::BadRequest(message));
        }
        let errors = structural::validate_crd_with(crd, engines);
        if !errors.is_empty() {
            return Err(Refused::Invalid {
                kind: "CustomResourceDefinition".into(),
                group: "apiextensions.k8s.io".into(),
                name: crd
                    .pointer("/metadata/name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
                causes: errors,
            });
        }
        let internal = InternalCrd::read(crd).expect("a validated CRD reads");
        let strings = |values: &[Value]| {
            values
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        };
        let versions = internal
            .versions
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let raw_schema = internal.schema_of(i).map(|(s, _)| s.clone());
                let subresources = internal.subresources_of(i);
                Version {
                    name: v.name.to_owned(),
                    served: v.served,
                    storage: v.storage,
                    deprecated: v.deprecated,
                    deprecation_warning: v
                        .deprecation_warning
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    schema: raw_schema
                        .as_ref()
                        .map(|s| Schema::from_value(s).expect("a validated schema decodes")),
                    raw_schema,
                    status_subresource: subresources
                        .and_then(|s| s.get("status"))
                        .is_some_and(|s| !s.is_null()),
                    scale: subresources.and_then(|s| s.get("scale")).and_then(scale),
                }
            })
            .collect();
        Ok(Crd {
            name: internal.metadata.str("name").to_owned(),
            group: internal.group.to_owned(),
            kind: internal.names.kind.to_owned(),
            plural: internal.names.plural.to_owned(),
            singular: internal.names.singular.clone(),
            list_kind: internal.names.list_kind.clone(),
            short_names: strings(internal.names.short_names),
            categories: strings(internal.names.categories),
            scope: match internal.scope {
                "Cluster" => Scope::Cluster,
                _ => Scope::Namespaced,
            },
            versions,
            conversion_none: internal.conversion.strategy == "None",
            preserve_unknown_fields: internal.preserve_unknown_fields == Some(true),
        })
    }

    /// The checks a CRD must pass before its schemas are read: strict decoding of
    /// everything but the schemas, and the CRD rules outside them
    /// ([`structural::validate_crd_identity`]). `Err` is the refusal of the whole CRD,
    /// every problem at once, as [`Crd::from_value`] gives it; `Ok` means the CRD defines
    /// its kind and only its schemas are left to check ([`crate::lazy`]).
    pub fn check_identity(crd: &Value) -> Result<(), Refused> {
        let clean = crate::typed::strict_decoding_error(&without_schemas(crd)).is_none()
            && structural::validate_crd_identity(crd).is_empty();
        if clean {
            return Ok(());
        }
        // Refused anyway: check it all, so the message lists its schemas' problems too.
        Crd::from_value(crd).map(|_| ())
    }

    pub fn version(&self, name: &str) -> Option<&Version> {
        self.versions.iter().find(|v| v.name == name)
    }

    /// The one version marked `storage` (a loaded CRD always has exactly one).
    pub fn storage_version(&self) -> &Version {
        self.versions
            .iter()
            .find(|v| v.storage)
            .expect("a loaded CRD has a storage version")
    }

    /// The warning the server sends with every request on a deprecated `version`: its
    /// `deprecationWarning`, or `<group>/<version> <Kind> is deprecated` followed by
    /// `; use <group>/<v> <Kind>` for the highest-priority served, non-deprecated version
    /// `v` that ranks above it (when there is one).
    pub fn deprecation_warning(&self, version: &str) -> Option<String> {
        let v = self.version(version).filter(|v| v.deprecated)?;
        if let Some(custom) = &v.deprecation_warning {
            return Some(custom.clone());
        }
        let mut text = format!("{}/{} {} is deprecated", self.group, version, self.kind);
        let replacement = self
            .versions
            .iter()
            .filter(|c| c.served && !c.deprecated)
            .map(|c| c.name.as_str())
            .filter(|c| compare_kube_versions(version, c) == Ordering::Less)
            .max_by(|a, b| compare_kube_versions(a, b));
        if let Some(r) = replacement {
            text.push_str(&format!("; use {}/{} {}", self.group, r, self.kind));
        }
        Some(text)
    }
}

/// `crd` with every schema (`spec.versions[*].schema`, v1beta1's `spec.validation`)
/// replaced by an empty one, copied without copying the schemas.
fn without_schemas(crd: &Value) -> Value {
    let empty_schema = |key: &str, value: &Value| match (key, value) {
        ("schema" | "validation", Value::Object(_)) => Value::Object(Map::new()),
        _ => value.clone(),
    };
    let version = |version: &Value| match version {
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(k, v)| (k.clone(), empty_schema(k, v)))
                .collect(),
        ),
        other => other.clone(),
    };
    let spec = |spec: &Value| match spec {
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(k, v)| {
                    let v = match (k.as_str(), v) {
                        ("versions", Value::Array(versions)) => {
                            Value::Array(versions.iter().map(version).collect())
                        }
                        _ => empty_schema(k, v),
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        other => other.clone(),
    };
    match crd {
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(k, v)| match k.as_str() {
                    "spec" => (k.clone(), spec(v)),
                    _ => (k.clone(), v.clone()),
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

fn scale(value: &Value) -> Option<Scale> {
    let text = |k: &str| value.get(k).and_then(Value::as_str).map(str::to_owned);
    Some(Scale {
        spec_replicas_path: text("specReplicasPath")?,
        status_replicas_path: text("statusReplicasPath")?,
        label_selector_path: text("labelSelectorPath").filter(|p| !p.is_empty()),
    })
}

/// kubectl's error for a kind in a version the cluster does not serve:
/// `no matches for kind "<Kind>" in version "<group>/<version>"`, followed by what this
/// CRD serves: ` (served: <group>/<v1>, <group>/<v2>)`, or ` (no version of <group>/<Kind>
/// is served)` when nothing is.
pub fn no_matches(group: &str, version: &str, kind: &str, served: &[&str]) -> String {
    let group_version = |v: &str| match group {
        "" => v.to_owned(),
        g => format!("{g}/{v}"),
    };
    let suffix = if served.is_empty() {
        let group_kind = match group {
            "" => kind.to_owned(),
            g => format!("{g}/{kind}"),
        };
        format!("no version of {group_kind} is served")
    } else {
        let names: Vec<String> = served.iter().map(|v| group_version(v)).collect();
        format!("served: {}", names.join(", "))
    };
    format!(
        "no matches for kind \"{kind}\" in version \"{}\" ({suffix})",
        group_version(version)
    )
}

/// Kubernetes' version priority (`version.CompareKubeAwareVersionStrings`): `Greater`
/// when `a` ranks above `b`. Names like `v2`, `v1beta1`, `v1alpha2` rank GA over beta over
/// alpha, then by major, then by minor number; other names rank below them and among
/// themselves in reverse lexical order (`foo1` above `foo10`).
pub fn compare_kube_versions(a: &str, b: &str) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    match (parse_kube_version(a), parse_kube_version(b)) {
        (None, None) => b.cmp(a),
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some((a_major, a_kind, a_minor)), Some((b_major, b_kind, b_minor))) => a_kind
            .cmp(&b_kind)
            .then(a_major.cmp(&b_major))
            .then(a_minor.cmp(&b_minor)),
    }
}

/// `v<major>[(alpha|beta)<minor>]` as (major, 0 alpha | 1 beta | 2 GA, minor).
fn parse_kube_version(v: &str) -> Option<(u64, u8, u64)> {
    let number = |s: &str| {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u64>().ok())
            .flatten()
    };
    let rest = v.strip_prefix('v')?;
    let split = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let (major, tail) = rest.split_at(split);
    let major = number(major)?;
    if tail.is_empty() {
        return Some((major, 2, 0));
    }
    let (kind, minor) = match tail.strip_prefix("alpha") {
        Some(minor) => (0, minor),
        None => (1, tail.strip_prefix("beta")?),
    };
    Some((major, kind, number(minor)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn kube_version_priority() {
        let mut names = vec![
            "v1alpha1",
            "foo10",
            "v10",
            "v11alpha2",
            "v1",
            "v2",
            "foo1",
            "v3beta1",
            "v12alpha1",
            "v10beta3",
            "v11beta2",
        ];
        names.sort_by(|a, b| compare_kube_versions(b, a));
        assert_eq!(
            names,
            [
                "v10",
                "v2",
                "v1",
                "v11beta2",
                "v10beta3",
                "v3beta1",
                "v12alpha1",
                "v11alpha2",
                "v1alpha1",
                "foo1",
                "foo10"
            ]
        );
        assert_eq!(compare_kube_versions("v1beta", "v1beta1"), Ordering::Less);
        assert_eq!(compare_kube_versions("v01", "v1"), Ordering::Equal);
    }

    #[test]
    fn no_matches_texts() {
        assert_eq!(
            no_matches("example.com", "v2", "Foo", &["v1", "v1beta1"]),
            r#"no matches for kind "Foo" in version "example.com/v2" (served: example.com/v1, example.com/v1beta1)"#
        );
        assert_eq!(
            no_matches("example.com", "v2", "Foo", &[]),
            r#"no matches for kind "Foo" in version "example.com/v2" (no version of example.com/Foo is served)"#
        );
    }

    fn crd(extra_version: Value, spec_extra: Value) -> Value {
        let mut crd = json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "foos.example.com"},
            "spec": {
                "group": "example.com",
                "names": {"plural": "foos", "kind": "Foo"},
                "scope": "Cluster",
                "versions": [
                    {"name": "v1", "served": true, "storage": true,
                     "schema": {"openAPIV3Schema": {"type": "object"}},
                     "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.r", "statusReplicasPath": ".status.r"}}},
                    extra_version
                ]
            }
        });
        if let (Some(spec), Some(extra)) = (crd["spec"].as_object_mut(), spec_extra.as_object()) {
            spec.extend(extra.clone());
        }
        crd
    }

    #[test]
    fn loads_names_versions_and_subresources() {
        let v2 = json!({"name": "v2beta1", "served": true, "storage": false, "deprecated": true,
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {"a": {"type": "string"}}}}});
        let c = Crd::from_value(&crd(v2, json!({}))).unwrap();
        assert_eq!(
            (c.singular.as_str(), c.list_kind.as_str()),
            ("foo", "FooList")
        );
        assert_eq!(c.scope, Scope::Cluster);
        assert!(c.conversion_none && !c.preserve_unknown_fields);
        assert_eq!(c.storage_version().name, "v1");
        let v1 = c.version("v1").unwrap();
        assert!(v1.status_subresource);
        assert_eq!(v1.scale.as_ref().unwrap().spec_replicas_path, ".spec.r");
        let beta = c.version("v2beta1").unwrap();
        assert!(!beta.status_subresource && beta.scale.is_none());
        assert!(beta.schema.as_ref().unwrap().property("a").is_some());
        assert_eq!(
            c.deprecation_warning("v2beta1").as_deref(),
            Some("example.com/v2beta1 Foo is deprecated; use example.com/v1 Foo")
        );
        assert_eq!(c.deprecation_warning("v1"), None);
    }

    #[test]
    fn unknown_fields_are_a_strict_decoding_error_before_any_check() {
        let v2 = json!({"name": "v2", "served": true, "storage": true, "sevred": true,
            "schema": {"openAPIV3Schema": {"type": "object", "maxium": 1}}});
        assert_eq!(
            Crd::from_value(&crd(v2, json!({}))).unwrap_err(),
            Refused::BadRequest(
                "CustomResourceDefinition in version \"v1\" cannot be handled as a \
                 CustomResourceDefinition: strict decoding error: unknown field \
                 \"spec.versions[1].schema.openAPIV3Schema.maxium\", unknown field \
                 \"spec.versions[1].sevred\""
                    .into()
            )
        );
    }

    #[test]
    fn v1beta1_top_level_fields_apply_to_every_version() {
        let c = Crd::from_value(&json!({
            "apiVersion": "apiextensions.k8s.io/v1beta1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "foos.example.com"},
            "spec": {
                "group": "example.com", "version": "v1",
                "names": {"plural": "foos", "kind": "Foo"},
                "validation": {"openAPIV3Schema": {"type": "object"}},
                "subresources": {"status": {}}
            }
        }))
        .unwrap();
        assert_eq!(c.scope, Scope::Namespaced);
        assert!(c.preserve_unknown_fields);
        let v = c.storage_version();
        assert!(v.served && v.status_subresource && v.schema.is_some());
    }

    #[test]
    fn invalid_crds_report_every_error() {
        let two_storage = json!({"name": "v2", "served": true, "storage": true,
            "schema": {"openAPIV3Schema": {"type": "object"}}});
        let Err(Refused::Invalid { causes, .. }) = Crd::from_value(&crd(two_storage, json!({})))
        else {
            panic!("the CRD is invalid");
        };
        let errors: Vec<String> = causes.iter().map(ToString::to_string).collect();
        assert!(errors
            .iter()
            .any(|e| e.starts_with("spec.versions: Invalid value: [")
                && e.ends_with(": must have exactly one version marked as storage version")));
        assert!(errors.contains(
            &r#"status.storedVersions: Invalid value: ["v1"]: must have the storage version v2"#
                .to_owned()
        ));
    }
}
