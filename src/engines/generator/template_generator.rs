//! One generator at work: the virtual resource admitted against the generator's schema
//! (defaults written, every field error reported), its templates rendered with the
//! defaulted resource, and the rendered documents checked before they join the stream.

use super::definition::Definition;
use super::helpers::FileRoots;
use super::render::Templates;
use crate::core::config::ConfigItem;
use crate::core::decode::decode_all;
use crate::core::diagnostic::Diagnostic;
use crate::core::kinds::Scope;
use crate::core::lists::flatten;
use crate::core::pipeline::{Context, Generated, Generator};
use crate::core::resource::Resource;
use kadmit_schema::admission::{create, FieldValidation, Refused, Settings};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Arc;

/// Annotations kustomize and kpt put on configuration for their own bookkeeping: never
/// part of the virtual resource a template sees.
const BOOKKEEPING_ANNOTATIONS: &[&str] = &[
    crate::core::resource::LOCAL_CONFIG,
    crate::core::resource::FUNCTION_ANNOTATION,
    "config.kubernetes.io/index",
    "config.kubernetes.io/path",
    "config.k8s.io/id",
    "kustomize.config.k8s.io/id",
];
const BOOKKEEPING_PREFIX: &str = "internal.config.kubernetes.io/";
/// Fields of a kustomize legacy plugin configuration that are kustomize's, not the
/// virtual resource's: the arguments kustomize passes to the plugin.
const KUSTOMIZE_PLUGIN_FIELDS: &[&str] = &["argsOneLiner", "argsFromFile"];

pub struct TemplateGenerator {
    definition: Definition,
    templates: Templates,
    field_validation: FieldValidation,
    allow_outside_root: bool,
}

impl TemplateGenerator {
    pub fn new(
        definition: Definition,
        templates: Templates,
        field_validation: FieldValidation,
        allow_outside_root: bool,
    ) -> TemplateGenerator {
        TemplateGenerator {
            definition,
            templates,
            field_validation,
            allow_outside_root,
        }
    }

    fn config_error(&self, item: &ConfigItem, message: String) -> Vec<Diagnostic> {
        vec![Diagnostic::config(message)
            .with_rule(&self.definition.rule)
            .with_resource(&item.resource.id)
            .with_origin(&item.resource.origin)]
    }

    /// The virtual resource as the API server would store it, or why it would refuse it.
    fn admit_input(&self, item: &ConfigItem) -> Result<(Value, Vec<Diagnostic>), Vec<Diagnostic>> {
        let mut input = item.resource.value.clone();
        strip_bookkeeping(&mut input);
        let settings = Settings {
            field_validation: self.field_validation,
            write_defaults: true,
        };
        let diagnostic = |d: Diagnostic| {
            d.with_rule(&self.definition.rule)
                .with_resource(&item.resource.id)
                .with_origin(&item.resource.origin)
        };
        match create(&self.definition.crd, &input, settings) {
            Ok(created) => {
                let warnings = created
                    .warnings
                    .into_iter()
                    .map(|w| diagnostic(Diagnostic::warning(w)))
                    .collect();
                Ok((created.object, warnings))
            }
            Err(refused @ Refused::NotFound(_)) => Err(vec![diagnostic(Diagnostic::config(
                refused.kubectl_message(),
            ))]),
            Err(refused) => Err(vec![diagnostic(Diagnostic::rejected(
                refused.kubectl_message(),
            ))]),
        }
    }

    /// Parses one template's output: zero or more documents, each a complete object.
    fn documents(
        &self,
        item: &ConfigItem,
        template: &str,
        text: &str,
        cx: &Context,
        namespace: Option<&str>,
    ) -> Result<Vec<Value>, Vec<Diagnostic>> {
        let source: Arc<str> = Arc::from(format!("{} template {template}", self.definition.rule));
        let (documents, problems) = decode_all(text.as_bytes(), &source);
        if !problems.is_empty() {
            return Err(problems
                .into_iter()
                .flat_map(|p| {
                    let line = p.origin.as_ref().map_or(0, |o| o.line);
                    self.config_error(
                        item,
                        format!(
                            "template {template} rendered text that is not YAML (line {line} of its output): {}",
                            p.message
                        ),
                    )
                })
                .collect());
        }
        let mut out = Vec::new();
        let mut errors = Vec::new();
        for (i, document) in flatten(documents).into_iter().enumerate() {
            let mut value = document.value;
            if value.is_null() {
                continue;
            }
            if let Some(missing) = missing_field(&value) {
                errors.extend(self.config_error(
                    item,
                    format!(
                        "template {template} document {} has no {missing}: every generated document needs apiVersion, kind and metadata.name",
                        i + 1
                    ),
                ));
                continue;
            }
            inherit_namespace(&mut value, namespace, cx);
            out.push(value);
        }
        if errors.is_empty() {
            Ok(out)
        } else {
            Err(errors)
        }
    }
}

impl Generator for TemplateGenerator {
    fn handles(&self, virtual_resource: &Resource) -> bool {
        virtual_resource.id.group == self.definition.group
            && virtual_resource.id.kind == self.definition.kind
    }

    fn generate(&self, item: &ConfigItem, cx: &Context) -> Result<Generated, Vec<Diagnostic>> {
        let (object, warnings) = self.admit_input(item)?;
        let namespace = item.resource.id.namespace.clone();
        let context = template_context(&object, &self.definition);
        let roots = FileRoots {
            config: Some((item.base_dir.clone(), item.root.clone())),
            plugin: Some((
                self.definition.location.base_dir.clone(),
                self.definition.location.root.clone(),
            )),
            allow_outside_root: self.allow_outside_root,
        };
        let rendered = self
            .templates
            .render(&context, roots)
            .map_err(|message| self.config_error(item, message))?;
        let mut generated = Vec::new();
        let mut errors = Vec::new();
        for r in &rendered {
            match self.documents(item, r.template, &r.text, cx, namespace.as_deref()) {
                Ok(mut values) => generated.append(&mut values),
                Err(mut problems) => errors.append(&mut problems),
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        Ok(Generated {
            objects: generated,
            warnings,
        })
    }
}

/// What templates see: the defaulted resource and its parts.
fn template_context(object: &Value, definition: &Definition) -> tera::Context {
    let metadata = object.get("metadata").cloned().unwrap_or(json!({}));
    let data = json!({
        "resource": object,
        "spec": object.get("spec").cloned().unwrap_or(json!({})),
        "metadata": metadata,
        "name": metadata.get("name").cloned().unwrap_or(Value::Null),
        "namespace": metadata.get("namespace").cloned().unwrap_or(Value::Null),
        "values": definition.values,
        "generator": {
            "name": definition.rule.trim_start_matches("Generator "),
            "group": definition.group,
            "kind": definition.kind,
        },
    });
    tera::Context::from_serialize(&data).expect("a JSON object is a valid context")
}

fn strip_bookkeeping(value: &mut Value) {
    if let Value::Object(fields) = value {
        fields.retain(|key, _| !KUSTOMIZE_PLUGIN_FIELDS.contains(&key.as_str()));
    }
    let Some(Value::Object(metadata)) = value.get_mut("metadata") else {
        return;
    };
    let Some(Value::Object(annotations)) = metadata.get_mut("annotations") else {
        return;
    };
    annotations.retain(|key, _| {
        !BOOKKEEPING_ANNOTATIONS.contains(&key.as_str()) && !key.starts_with(BOOKKEEPING_PREFIX)
    });
    if annotations.is_empty() {
        metadata.remove("annotations");
    }
}

fn missing_field(value: &Value) -> Option<&'static str> {
    let text = |pointer: &str| {
        value
            .pointer(pointer)
            .and_then(Value::as_str)
            .is_some_and(|s| !s.is_empty())
    };
    if !text("/apiVersion") {
        Some("apiVersion")
    } else if !text("/kind") {
        Some("kind")
    } else if !text("/metadata/name") {
        Some("metadata.name")
    } else {
        None
    }
}

/// Namespaced objects without a namespace take the virtual resource's.
fn inherit_namespace(value: &mut Value, namespace: Option<&str>, cx: &Context) {
    let Some(namespace) = namespace else {
        return;
    };
    let (group, kind) = match crate::core::resource::Identity::of(value) {
        Ok(id) => (id.group, id.kind),
        Err(_) => return,
    };
    if cx.kinds.scope_of(&group, &kind) != Scope::Namespaced {
        return;
    }
    if let Some(Value::Object(metadata)) = value.get_mut("metadata") {
        if !metadata.contains_key("namespace") {
            let after_name = metadata
                .keys()
                .position(|k| k == "name")
                .map_or(0, |i| i + 1);
            metadata.shift_insert(after_name, "namespace".into(), namespace.into());
        }
    }
}

/// A virtual resource of a group/kind no generator defines: the KEP's "exits non-0 if no
/// plugins are found", naming every place searched.
pub struct MissingGenerator {
    pub group: String,
    pub kind: String,
    pub searched: Vec<PathBuf>,
}

impl Generator for MissingGenerator {
    fn handles(&self, virtual_resource: &Resource) -> bool {
        virtual_resource.id.group == self.group && virtual_resource.id.kind == self.kind
    }

    fn generate(&self, item: &ConfigItem, _: &Context) -> Result<Generated, Vec<Diagnostic>> {
        let places: Vec<String> = std::iter::once("--config and stdin".to_owned())
            .chain(self.searched.iter().map(|p| p.display().to_string()))
            .collect();
        Err(vec![Diagnostic::config(format!(
            "no generator found for group {} kind {}: searched {}",
            self.group,
            self.kind,
            places.join(", ")
        ))
        .with_resource(&item.resource.id)
        .with_origin(&item.resource.origin)])
    }
}
