//! `gator expand` in `kadmit generate`: every admitted resource is expanded through the
//! ExpansionTemplates, each resultant mutated by the Gatekeeper mutators as `Generated`.

use super::expansion::{self, ResultantMutator, Template, Templates};
use super::stage;
use super::system::System;
use crate::core::config::ConfigItem;
use crate::core::diagnostic::Diagnostic;
use crate::core::pipeline::{Context, Expander};
use crate::core::resource::Resource;
use serde_json::Value;
use std::sync::Arc;

/// Builds the template database from every ExpansionTemplate in `items`, in input order.
pub fn build_templates(items: &[&ConfigItem]) -> Result<Templates, Vec<Diagnostic>> {
    let mut templates = Templates::new();
    let mut problems = Vec::new();
    for item in items {
        let upserted = Template::convert(&item.resource.value).and_then(|template| {
            let name = template.name.clone();
            templates
                .upsert(template)
                .map_err(|e| format!("error upserting template {name}: {e}"))
        });
        if let Err(e) = upserted {
            problems.push(
                Diagnostic::config(e)
                    .with_rule(item.resource.id.to_string())
                    .with_origin(&item.resource.origin),
            );
        }
    }
    if problems.is_empty() {
        Ok(templates)
    } else {
        Err(problems)
    }
}

pub struct TemplateExpander {
    pub templates: Templates,
    pub system: Arc<System>,
}

impl Expander for TemplateExpander {
    fn expand(&self, resource: &Resource, cx: &Context) -> Result<Vec<Value>, Vec<Diagnostic>> {
        let mutator = Mutate {
            system: &self.system,
            generator: resource,
            cx,
        };
        // The resultants take the generator's namespace, or none when it has none (kadmit
        // leaves namespace defaulting to whoever applies the output).
        let namespace = resource
            .id
            .namespace
            .as_deref()
            .and_then(|ns| cx.namespaces.get(ns));
        expansion::expand(&resource.value, namespace, &self.templates, &mutator)
            .map(|resultants| resultants.into_iter().map(|r| r.object).collect())
            .map_err(|e| {
                vec![Diagnostic::rejected(format!(
                    "error expanding resource {}: {e}",
                    resource.id.name
                ))
                .with_resource(&resource.id)
                .with_origin(&resource.origin)]
            })
    }

    fn order(&self, resultants: &mut [Value]) {
        sort_like_gator(resultants);
    }
}

/// Mutates a resultant like any resource kadmit admits: scope from kadmit's scope table,
/// its Namespace from the stream or `--config`, no admission operation (as Gatekeeper's
/// expansion passes none).
struct Mutate<'a> {
    system: &'a System,
    generator: &'a Resource,
    cx: &'a Context,
}

impl ResultantMutator for Mutate<'_> {
    fn mutate(&self, object: &mut Value, _: Option<&Value>, source: &str) -> Result<(), String> {
        if self.system.is_empty() {
            return Ok(());
        }
        let mut resultant = Resource::new(std::mem::take(object), self.generator.origin.clone())?;
        let result = stage::run(self.system, &mut resultant, self.cx, source, "");
        *object = resultant.value;
        result.map(|_| ())
    }
}

/// gator's output order: descending by name + apiVersion + kind.
fn sort_like_gator(resultants: &mut [Value]) {
    let key = |v: &Value| {
        let field = |p: &str| {
            v.pointer(p)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        field("/metadata/name") + &field("/apiVersion") + &field("/kind")
    };
    resultants.sort_by_cached_key(|v| std::cmp::Reverse(key(v)));
}
