//! Strict configuration (`--config-validation`, docs/cli.md "Strict configuration"): before
//! any engine compiles, every configuration document of a kind kadmit reads is decoded
//! against that kind's CRD (`crds/`, embedded) as the API server decodes a custom resource
//! with `fieldValidation=Strict`, and every CustomResourceDefinition as the server decodes
//! the typed `apiextensions.k8s.io` structs. A field the schema does not have (a typo: a
//! `matchValu:` the engines would never read) is an error naming the document, the field
//! path and, when one is close, the field that was meant; kubectl refuses such documents
//! too. With `Warn` each is a warning and the engines see the document without it, with
//! `Ignore` it is dropped silently.
//!
//! In `Strict` mode a document with unknown fields goes no further (the server refuses it
//! at decode, before any validation); a CRD is left to the CRD engine, whose
//! `Crd::from_value` refuses it with the server's strict-decoding error.

use crate::core::config::{ConfigItem, Family, Source};
use crate::core::decode::decode_all;
use crate::core::diagnostic::Diagnostic;
use crate::core::engine::CrdDocument;
use crate::core::resource::{Identity, Resource};
use kadmit_schema::admission::FieldValidation;
use kadmit_schema::schema::Schema;
use kadmit_schema::typed;
use kadmit_schema::unknown::{strip_custom_resource, UnknownField};
use serde_json::Value;
use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

/// The fields kustomize reads from a legacy exec plugin's configuration (the arguments it
/// runs the plugin with): at the root of a document of any kind, and only there.
const KUSTOMIZE_PLUGIN_FIELDS: [&str; 2] = ["argsOneLiner", "argsFromFile"];

/// The CRD of one configuration kind: its text, compiled on first use.
struct KindCrd {
    group: &'static str,
    kind: &'static str,
    file: &'static str,
    text: &'static str,
    compiled: OnceLock<Compiled>,
}

/// The structural schema of every version of a kind's CRD.
struct Compiled {
    versions: Vec<(String, Schema)>,
    /// The index of the storage version (used for a version the CRD does not have).
    storage: usize,
}

macro_rules! kind_crd {
    ($group:literal, $kind:literal, $file:literal) => {
        KindCrd {
            group: $group,
            kind: $kind,
            file: $file,
            text: include_str!(concat!("crds/", $file)),
            compiled: OnceLock::new(),
        }
    };
}

static KIND_CRDS: [KindCrd; 11] = [
    kind_crd!(
        "api.kubemod.io",
        "ModRule",
        "kubemod/api.kubemod.io_modrules.yaml"
    ),
    kind_crd!(
        "mutations.gatekeeper.sh",
        "Assign",
        "gatekeeper/mutations.gatekeeper.sh_assign.yaml"
    ),
    kind_crd!(
        "mutations.gatekeeper.sh",
        "AssignMetadata",
        "gatekeeper/mutations.gatekeeper.sh_assignmetadata.yaml"
    ),
    kind_crd!(
        "mutations.gatekeeper.sh",
        "ModifySet",
        "gatekeeper/mutations.gatekeeper.sh_modifyset.yaml"
    ),
    kind_crd!(
        "mutations.gatekeeper.sh",
        "AssignImage",
        "gatekeeper/mutations.gatekeeper.sh_assignimage.yaml"
    ),
    kind_crd!(
        "expansion.gatekeeper.sh",
        "ExpansionTemplate",
        "gatekeeper/expansion.gatekeeper.sh_expansiontemplate.yaml"
    ),
    kind_crd!(
        "kadmit.dev",
        "PolicySet",
        "kadmit/kadmit.dev_policysets.yaml"
    ),
    kind_crd!("kadmit.dev", "Settings", "kadmit/kadmit.dev_settings.yaml"),
    kind_crd!(
        "kadmit.dev",
        "Generator",
        "kadmit/kadmit.dev_generators.yaml"
    ),
    kind_crd!(
        "kadmit.dev",
        "AdmissionModule",
        "kadmit/kadmit.dev_admissionmodules.yaml"
    ),
    kind_crd!("kadmit.dev", "Test", "kadmit/kadmit.dev_tests.yaml"),
];

impl KindCrd {
    fn of(id: &Identity) -> Option<&'static KindCrd> {
        KIND_CRDS
            .iter()
            .find(|k| k.group == id.group && k.kind == id.kind)
    }

    fn compiled(&self) -> &Compiled {
        self.compiled.get_or_init(|| compile(self.file, self.text))
    }

    /// The schema for documents of `version`: that version's, else the storage version's.
    fn schema(&self, version: &str) -> &Schema {
        let compiled = self.compiled();
        let found = compiled.versions.iter().find(|(name, _)| name == version);
        &found.unwrap_or(&compiled.versions[compiled.storage]).1
    }
}

/// Reads an embedded CRD (tested to load with every CRD rule) into its version schemas.
fn compile(file: &str, text: &str) -> Compiled {
    let (documents, problems) = decode_all(text.as_bytes(), &Arc::from(file));
    assert!(
        problems.is_empty(),
        "crds/{file} does not read: {problems:?}"
    );
    let crd = &documents.first().expect("one CRD per file").value;
    let mut versions = Vec::new();
    let mut storage = 0;
    for (i, version) in crd["spec"]["versions"]
        .as_array()
        .expect("spec.versions")
        .iter()
        .enumerate()
    {
        let schema = Schema::from_value(&version["schema"]["openAPIV3Schema"])
            .unwrap_or_else(|e| panic!("crds/{file}: the schema of version {i}: {e}"));
        let name = version["name"].as_str().expect("a version name").to_owned();
        if version["storage"] == Value::Bool(true) {
            storage = i;
        }
        versions.push((name, schema));
    }
    Compiled { versions, storage }
}

/// The configuration the engines see after the strict check, and what the check found.
pub struct Checked<'a> {
    pub items: Vec<Cow<'a, ConfigItem>>,
    pub crds: Vec<CrdDocument>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Decodes every item of a configuration kind and every CRD strictly, per `mode`.
pub fn check(
    items: Vec<&ConfigItem>,
    crds: Vec<CrdDocument>,
    mode: FieldValidation,
) -> Checked<'_> {
    let mut checked = Checked {
        items: Vec::with_capacity(items.len()),
        crds: Vec::with_capacity(crds.len()),
        diagnostics: Vec::new(),
    };
    for item in items {
        if !is_configuration(item) {
            checked.items.push(Cow::Borrowed(item));
            continue;
        }
        let Some((value, unknown)) = decode_document(&item.resource, item.source) else {
            checked.items.push(Cow::Borrowed(item));
            continue;
        };
        checked
            .diagnostics
            .extend(report(&item.resource, &unknown, mode));
        if mode == FieldValidation::Strict {
            continue;
        }
        let mut stripped = item.clone();
        stripped.resource.value = value;
        checked.items.push(Cow::Owned(stripped));
    }
    for mut crd in crds {
        if mode == FieldValidation::Strict {
            // The CRD engine refuses it (`Crd::from_value`), with every unknown field.
            checked.crds.push(crd);
            continue;
        }
        let mut value = Value::clone(&crd.value);
        let unknown = typed::strip_crd(&mut value);
        if !unknown.is_empty() {
            if mode == FieldValidation::Warn {
                checked.diagnostics.extend(unknown.iter().map(|f| {
                    Diagnostic::warning(f.server_text())
                        .with_rule(crd.id.to_string())
                        .with_origin(&crd.origin)
                }));
            }
            crd.value = Arc::new(value);
        }
        checked.crds.push(crd);
    }
    checked
}

/// The strict decode of one document read outside the configuration (a `Generator` found
/// under a plugin root): its unknown fields are reported per `mode` and stripped, so the
/// engine compiles it without them (in `Strict` mode the run fails before any resource is
/// admitted).
pub fn check_document(resource: &mut Resource, mode: FieldValidation) -> Vec<Diagnostic> {
    let Some((value, unknown)) = decode_document(resource, Source::File) else {
        return Vec::new();
    };
    resource.value = value;
    report(resource, &unknown, mode)
}

/// A document of a kind with a CRD here, decoded: the value without its unknown fields
/// and those fields; `None` when it has none (or is of no such kind).
fn decode_document(resource: &Resource, source: Source) -> Option<(Value, Vec<UnknownField>)> {
    let crd = KindCrd::of(&resource.id)?;
    let mut value = resource.value.clone();
    let mut unknown = decode(&mut value, crd, &resource.id.version);
    if source == Source::PluginConfig {
        // kustomize's own fields of a legacy exec plugin's configuration, for kustomize.
        unknown.retain(|f| !KUSTOMIZE_PLUGIN_FIELDS.contains(&f.path.as_str()));
    }
    (!unknown.is_empty()).then_some((value, unknown))
}

/// An error (`Strict`) or a warning (`Warn`) per unknown field, naming the document.
fn report(resource: &Resource, unknown: &[UnknownField], mode: FieldValidation) -> Vec<Diagnostic> {
    let diagnostic = match mode {
        FieldValidation::Strict => Diagnostic::config,
        FieldValidation::Warn => Diagnostic::warning,
        FieldValidation::Ignore => return Vec::new(),
    };
    unknown
        .iter()
        .map(|field| {
            diagnostic(field.to_string())
                .with_rule(resource.id.to_string())
                .with_origin(&resource.origin)
        })
        .collect()
}

/// Whether the item is read as configuration of its kind (not, say, a document of a
/// configuration kind that only passes through).
fn is_configuration(item: &ConfigItem) -> bool {
    matches!(
        item.family,
        Some(
            Family::KubeMod
                | Family::GatekeeperMutation
                | Family::GatekeeperExpansion
                | Family::Kadmit
                | Family::GeneratorDefinition
                | Family::AdmissionModule
        )
    )
}

/// Strips the unknown fields of `value`, a document of `crd`'s kind in `version`, and
/// returns them: the custom-resource decode, and for a `Generator` each of its
/// `spec.versions[]` entries decoded as a CRD version (schema included).
fn decode(value: &mut Value, crd: &KindCrd, version: &str) -> Vec<UnknownField> {
    let mut unknown = strip_custom_resource(value, Some(crd.schema(version)));
    if crd.kind == "Generator" {
        if let Some(Value::Array(versions)) = value.pointer_mut("/spec/versions") {
            for (i, entry) in versions.iter_mut().enumerate() {
                unknown.extend(
                    typed::strip_crd_version(entry)
                        .into_iter()
                        .map(|f| UnknownField {
                            path: format!("spec.versions[{i}].{}", f.path),
                            suggestion: f.suggestion,
                        }),
                );
            }
        }
    }
    unknown
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::config::{known_kind, KNOWN_KINDS};
    use kadmit_schema::definition::Crd;

    #[test]
    fn every_embedded_crd_loads_with_the_crd_rules_and_covers_its_kind() {
        for kind_crd in &KIND_CRDS {
            let (documents, problems) =
                decode_all(kind_crd.text.as_bytes(), &Arc::from(kind_crd.file));
            assert!(problems.is_empty(), "{}: {problems:?}", kind_crd.file);
            assert_eq!(documents.len(), 1, "{}", kind_crd.file);
            let crd = Crd::from_value(&documents[0].value)
                .unwrap_or_else(|e| panic!("{}: {}", kind_crd.file, e.kubectl_message()));
            assert_eq!(
                (crd.group.as_str(), crd.kind.as_str()),
                (kind_crd.group, kind_crd.kind)
            );
            let compiled = kind_crd.compiled();
            assert_eq!(compiled.versions.len(), crd.versions.len());
            assert_eq!(
                compiled.versions[compiled.storage].0,
                crd.storage_version().name
            );
        }
        for known in KNOWN_KINDS {
            // Kubernetes' own admission policies are strictly decoded against the built-in
            // schemas (kadmit_schema::builtin), as the API server decodes them, not here.
            if known.family == crate::core::config::Family::AdmissionPolicy {
                continue;
            }
            let id = Identity {
                group: known.group.into(),
                version: known.versions[0].into(),
                kind: known.kind.into(),
                namespace: None,
                name: "x".into(),
                generated_name: false,
            };
            assert!(known_kind(&id).is_some());
            // Admission policies are built-in kinds: the policy engine decodes them against
            // the embedded built-in schemas, as the server does.
            if known.family == Family::AdmissionPolicy {
                assert!(KindCrd::of(&id).is_none(), "{}", known.kind);
                continue;
            }
            assert!(KindCrd::of(&id).is_some(), "no CRD for {}", known.kind);
        }
    }

    #[test]
    fn a_version_the_crd_lacks_uses_the_storage_version() {
        let image = KIND_CRDS.iter().find(|k| k.kind == "AssignImage").unwrap();
        let storage = image.schema("v1alpha1") as *const Schema;
        assert_eq!(image.schema("v1") as *const Schema, storage);
    }
}
