//! The `kadmit.dev/v1alpha1` `Generator` format: a CRD-shaped schema for the virtual
//! resource plus the Tera templates that render it.
//!
//! ```yaml
//! apiVersion: kadmit.dev/v1alpha1
//! kind: Generator
//! metadata: {name: commonapp}
//! spec:
//!   group: team.example.com
//!   names: {kind: CommonApp}          # plural, singular: optional
//!   scope: Namespaced                 # optional
//!   versions:
//!   - name: v1
//!     schema: {openAPIV3Schema: {...}}
//!   values: {sizes: {small: {replicas: 1}}}   # optional: constants for the templates
//!   templates:
//!   - path: templates/deployment.yaml.tera
//!   - name: service
//!     template: "apiVersion: v1\n..."
//! ```
//!
//! The schema part is handed to the CRD engine as a CustomResourceDefinition, so every
//! CRD rule (structural schema, defaults, CEL) applies with the API server's messages.

use crate::core::resource::Resource;
use kadmit_schema::admission::{Definition as CrdDefinition, Refused};
use kadmit_schema::definition::Crd;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

/// Where a definition's relative paths resolve and may not escape.
#[derive(Debug, Clone)]
pub struct Location {
    /// The directory of the file the definition came from.
    pub base_dir: PathBuf,
    /// The plugin's root (its group directory) or the configuration root.
    pub root: PathBuf,
}

/// One template as the definition names it.
#[derive(Debug, Clone)]
pub struct TemplateSource {
    /// How errors name it: the path as written, or `<generator>/templates[i]` (or its name).
    pub name: String,
    pub text: String,
}

/// A compiled-ready generator: identity, schema and template texts.
pub struct Definition {
    /// `Generator <metadata.name>`, as diagnostics name it.
    pub rule: String,
    pub group: String,
    pub kind: String,
    pub crd: CrdDefinition,
    pub templates: Vec<TemplateSource>,
    /// `spec.values`: constant data the templates see as `values` (a size table, say).
    pub values: Value,
    pub location: Location,
}

/// The fields of a Generator's `spec`.
const SPEC_FIELDS: &[&str] = &["group", "names", "scope", "versions", "values", "templates"];

/// A problem with a definition: a message and, when it is about one field, its path.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub field: Option<String>,
    pub message: String,
}

impl Problem {
    fn at(field: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem {
            field: Some(field.into()),
            message: message.into(),
        }
    }
}

/// Reads the group and kind a definition declares, without checking the rest (discovery
/// indexes definitions by them before deciding which ones to load).
pub fn declared_kind(resource: &Resource) -> Option<(String, String)> {
    let spec = resource.value.get("spec")?;
    let group = spec.get("group")?.as_str()?;
    let kind = spec.get("names")?.get("kind")?.as_str()?;
    Some((group.to_owned(), kind.to_owned()))
}

/// Loads a definition: its schema through the CRD engine, its templates from the
/// definition or from files confined to `location.root`.
pub fn load(
    resource: &Resource,
    location: Location,
    allow_outside_root: bool,
) -> Result<Definition, Vec<Problem>> {
    let name = resource
        .value
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let rule = format!("Generator {name}");
    let Some(spec) = resource.value.get("spec").and_then(Value::as_object) else {
        return Err(vec![Problem::at("spec", "Required value")]);
    };
    let mut problems: Vec<Problem> = spec
        .keys()
        .filter(|key| !SPEC_FIELDS.contains(&key.as_str()))
        .map(|key| Problem::at(format!("spec.{key}"), "unknown field"))
        .collect();
    let group = required_string(spec, "group", "spec.group", &mut problems);
    let kind = spec
        .get("names")
        .and_then(Value::as_object)
        .map(|names| required_string(names, "kind", "spec.names.kind", &mut problems))
        .unwrap_or_else(|| {
            problems.push(Problem::at("spec.names.kind", "Required value"));
            String::new()
        });
    let templates = read_templates(spec, &name, &location, allow_outside_root, &mut problems);
    if !problems.is_empty() {
        return Err(problems);
    }
    let crd_value = as_crd(spec, &group, &kind);
    let crd = Crd::from_value(&crd_value).map_err(|refusal| {
        let errors = match refusal {
            Refused::Invalid { causes, .. } => causes,
            // Unknown fields of the schema part (`spec.versions[i]...`, the same paths in
            // the Generator), refused before any check.
            other => {
                return vec![Problem {
                    field: None,
                    message: other.kubectl_message(),
                }]
            }
        };
        // The server reports a schema shared by every version under `spec.validation`;
        // a Generator has no such field.
        let versions = crd_value["spec"]["versions"].as_array().map_or(0, Vec::len);
        let shared = if versions == 1 {
            "spec.versions[0].schema."
        } else {
            "spec.versions[*].schema."
        };
        errors
            .iter()
            .map(|e| Problem {
                field: None,
                message: e.to_string().replace("spec.validation.", shared),
            })
            .collect::<Vec<_>>()
    })?;
    Ok(Definition {
        rule,
        group,
        kind,
        crd: CrdDefinition::new(crd),
        templates,
        values: spec.get("values").cloned().unwrap_or_else(|| json!({})),
        location,
    })
}

fn required_string(
    map: &Map<String, Value>,
    key: &str,
    field: &str,
    problems: &mut Vec<Problem>,
) -> String {
    match map.get(key) {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        Some(Value::String(_)) | None => {
            problems.push(Problem::at(field, "Required value"));
            String::new()
        }
        Some(_) => {
            problems.push(Problem::at(field, "must be a string"));
            String::new()
        }
    }
}

/// The CustomResourceDefinition the API server would be given for this generator.
fn as_crd(spec: &Map<String, Value>, group: &str, kind: &str) -> Value {
    let mut names = spec
        .get("names")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let lower = kind.to_lowercase();
    names
        .entry("plural")
        .or_insert_with(|| Value::String(format!("{lower}s")));
    names
        .entry("singular")
        .or_insert_with(|| Value::String(lower.clone()));
    names
        .entry("listKind")
        .or_insert_with(|| Value::String(format!("{kind}List")));
    let plural = names["plural"].as_str().unwrap_or_default().to_owned();
    let mut versions = spec
        .get("versions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let any_storage = versions
        .iter()
        .any(|v| v.get("storage").is_some_and(|s| s.as_bool() == Some(true)));
    for (i, version) in versions.iter_mut().enumerate() {
        if let Value::Object(version) = version {
            version.entry("served").or_insert(Value::Bool(true));
            version
                .entry("storage")
                .or_insert(Value::Bool(!any_storage && i == 0));
        }
    }
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.{group}")},
        "spec": {
            "group": group,
            "names": names,
            "scope": spec.get("scope").cloned().unwrap_or_else(|| json!("Namespaced")),
            "versions": versions,
        }
    })
}

fn read_templates(
    spec: &Map<String, Value>,
    generator: &str,
    location: &Location,
    allow_outside_root: bool,
    problems: &mut Vec<Problem>,
) -> Vec<TemplateSource> {
    let entries = match spec.get("templates") {
        Some(Value::Array(entries)) if !entries.is_empty() => entries,
        Some(Value::Array(_)) | None => {
            problems.push(Problem::at(
                "spec.templates",
                "Required value: at least one template",
            ));
            return Vec::new();
        }
        Some(_) => {
            problems.push(Problem::at("spec.templates", "must be a list"));
            return Vec::new();
        }
    };
    let mut templates = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let field = format!("spec.templates[{i}]");
        let name = entry.get("name").and_then(Value::as_str);
        match (
            entry.get("path").and_then(Value::as_str),
            entry.get("template").and_then(Value::as_str),
        ) {
            (Some(path), None) => {
                match read_confined(path, &location.base_dir, &location.root, allow_outside_root) {
                    Ok(text) => templates.push(TemplateSource {
                        name: name.unwrap_or(path).to_owned(),
                        text,
                    }),
                    Err(message) => problems.push(Problem::at(format!("{field}.path"), message)),
                }
            }
            (None, Some(text)) => templates.push(TemplateSource {
                name: name.map_or_else(
                    || format!("{generator}/templates[{i}]"),
                    |n| format!("{generator}/{n}"),
                ),
                text: text.to_owned(),
            }),
            (Some(_), Some(_)) => problems.push(Problem::at(
                field,
                "Invalid value: set one of path and template, not both",
            )),
            (None, None) => problems.push(Problem::at(
                field,
                "Required value: a template needs a path or an inline template",
            )),
        }
    }
    let mut names: Vec<&str> = templates.iter().map(|t| t.name.as_str()).collect();
    names.sort_unstable();
    if let Some(pair) = names.windows(2).find(|w| w[0] == w[1]) {
        problems.push(Problem::at(
            "spec.templates",
            format!("Duplicate value: template {:?} is listed twice", pair[0]),
        ));
    }
    templates
}

/// Reads a file named relative to `base_dir`, refusing paths that leave `root` (`..`,
/// absolute paths, symbolic links out) unless the user allowed it.
pub fn read_confined(
    relative: &str,
    base_dir: &Path,
    root: &Path,
    allow_outside_root: bool,
) -> Result<String, String> {
    let path = crate::core::config::confine_path(relative, base_dir, root, allow_outside_root)?;
    if path.is_dir() {
        return Err(format!("{relative}: is a directory"));
    }
    std::fs::read_to_string(&path).map_err(|e| format!("{relative}: cannot read: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::resource::Origin;
    use std::sync::Arc;

    fn resource(spec: Value) -> Resource {
        Resource::new(
            json!({"apiVersion": "kadmit.dev/v1alpha1", "kind": "Generator", "metadata": {"name": "g"}, "spec": spec}),
            Origin { source: Arc::from("test"), index: 0, line: 1, list_item: None, declared: None },
        )
        .unwrap()
    }

    fn location() -> Location {
        Location {
            base_dir: PathBuf::from("."),
            root: PathBuf::from("."),
        }
    }

    fn problems(spec: Value) -> Vec<String> {
        match load(&resource(spec), location(), false) {
            Ok(_) => Vec::new(),
            Err(problems) => problems
                .into_iter()
                .map(|p| format!("{}: {}", p.field.unwrap_or_default(), p.message))
                .collect(),
        }
    }

    #[test]
    fn a_complete_definition_loads_with_crd_defaults_filled_in() {
        let definition = load(
            &resource(json!({
                "group": "team.example.com",
                "names": {"kind": "App"},
                "versions": [{"name": "v1", "schema": {"openAPIV3Schema": {"type": "object"}}}],
                "templates": [{"template": "a: 1"}],
            })),
            location(),
            false,
        )
        .unwrap_or_else(|p| panic!("{p:?}"));
        assert_eq!(
            (definition.group.as_str(), definition.kind.as_str()),
            ("team.example.com", "App")
        );
        assert_eq!(definition.crd.crd.plural, "apps");
        assert_eq!(definition.templates[0].name, "g/templates[0]");
        assert_eq!(definition.values, json!({}));
    }

    #[test]
    fn missing_and_contradictory_fields_are_each_reported() {
        let found = problems(json!({
            "valeus": {},
            "names": {},
            "templates": [{"path": "a", "template": "b"}, {}],
        }));
        assert_eq!(
            found,
            [
                "spec.valeus: unknown field",
                "spec.group: Required value",
                "spec.names.kind: Required value",
                "spec.templates[0]: Invalid value: set one of path and template, not both",
                "spec.templates[1]: Required value: a template needs a path or an inline template",
            ]
        );
    }

    #[test]
    fn duplicate_template_names_are_refused() {
        let found = problems(json!({
            "group": "g.example.com",
            "names": {"kind": "K"},
            "templates": [{"name": "a", "template": "x"}, {"name": "a", "template": "y"}],
        }));
        assert_eq!(
            found,
            ["spec.templates: Duplicate value: template \"g/a\" is listed twice"]
        );
    }

    #[test]
    fn schema_problems_come_from_the_crd_rules() {
        let found = problems(json!({
            "group": "g.example.com",
            "names": {"kind": "K"},
            "versions": [{"name": "v1", "schema": {"openAPIV3Schema": {"type": "object", "properties": {"a": {}}}}}],
            "templates": [{"template": "x"}],
        }));
        assert!(
            found.iter().any(|p| p.contains(
                "spec.versions[0].schema.openAPIV3Schema.properties[a].type: Required value"
            )),
            "{found:?}"
        );
    }
}
