//! Generators: `kadmit.dev/v1alpha1` `Generator` definitions (a CRD-shaped schema plus
//! Tera templates), found the way KEP-993 finds plugins, that turn virtual resources into
//! real ones.

pub mod budget;
pub mod definition;
pub mod discovery;
pub mod helpers;
pub mod instrument;
pub mod render;
pub mod template_generator;

use crate::core::config::{ConfigItem, Family, Mode};
use crate::core::diagnostic::Diagnostic;
use crate::core::engine::{Configuration, Engine};
use crate::core::pipeline::Pipeline;
use definition::{Location, Problem};
use discovery::{Catalog, Search};
use kadmit_schema::admission::FieldValidation;
use render::Templates;
use std::collections::BTreeSet;
use template_generator::{MissingGenerator, TemplateGenerator};

/// The group/kinds the `Generator` definitions among `items` define.
pub fn explicit_kinds(items: &[ConfigItem]) -> BTreeSet<(String, String)> {
    items
        .iter()
        .filter(|item| item.family == Some(Family::GeneratorDefinition))
        .filter_map(|item| definition::declared_kind(&item.resource))
        .collect()
}

/// What the generator engine is told by the run.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Which virtual resources are generated from.
    pub mode: Mode,
    /// What unknown fields of a virtual resource do (`--field-validation`).
    pub field_validation: FieldValidation,
    /// `--allow-paths-outside-root`: template paths may leave the plugin directory.
    pub allow_paths_outside_root: bool,
}

/// The generator engine: its settings and the plugin roots' catalogue of definitions.
pub struct Generators {
    pub settings: Settings,
    pub catalog: Catalog,
}

impl Engine for Generators {
    /// Compiles the generators of a run: every definition given in configuration or on
    /// stdin, and for each virtual resource to generate from, the definition found under
    /// the plugin roots (or a generator that reports the places searched).
    fn compile(&mut self, config: &Configuration<'_>, pipeline: &mut Pipeline) -> Vec<Diagnostic> {
        let mut diagnostics = Vec::new();
        compile(
            config.items,
            &mut self.catalog,
            &self.settings,
            pipeline,
            &mut diagnostics,
        );
        diagnostics
    }
}

fn compile(
    items: &[&ConfigItem],
    catalog: &mut Catalog,
    settings: &Settings,
    pipeline: &mut Pipeline,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let mut defined = BTreeSet::new();
    for item in items
        .iter()
        .filter(|item| item.family == Some(Family::GeneratorDefinition))
    {
        let location = Location {
            base_dir: item.base_dir.clone(),
            root: item.root.clone(),
        };
        let kind = definition::declared_kind(&item.resource);
        if let Some(kind) = &kind {
            if !defined.insert(kind.clone()) {
                diagnostics.push(
                    Diagnostic::config(format!(
                        "{} {} is defined by more than one Generator in the configuration",
                        kind.0, kind.1
                    ))
                    .with_rule(format!("Generator {}", item.resource.id.name))
                    .with_origin(&item.resource.origin),
                );
                continue;
            }
        }
        add(
            &item.resource,
            location,
            item.trusted,
            settings,
            pipeline,
            diagnostics,
        );
    }
    let wanted: BTreeSet<(String, String)> = items
        .iter()
        .filter(|item| item.is_generated_in(settings.mode))
        .map(|item| {
            (
                item.resource.id.group.clone(),
                item.resource.id.kind.clone(),
            )
        })
        .filter(|kind| !defined.contains(kind))
        .collect();
    for (group, kind) in wanted {
        match catalog.search(&group, &kind) {
            Search::Found(found) => add(
                &found.resource,
                found.location,
                true,
                settings,
                pipeline,
                diagnostics,
            ),
            Search::Missing(searched) => pipeline.generators.push(Box::new(MissingGenerator {
                group,
                kind,
                searched,
            })),
        }
    }
    diagnostics.extend(catalog.problems.drain(..).map(Diagnostic::config));
}

/// Compiles one definition. `trusted`: it came from a plugin root or from trusted
/// configuration; a stream definition's template paths and `file()` reads stay inside its
/// root whatever `--allow-paths-outside-root` says.
fn add(
    resource: &crate::core::resource::Resource,
    location: Location,
    trusted: bool,
    settings: &Settings,
    pipeline: &mut Pipeline,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let rule = format!("Generator {}", resource.id.name);
    let report = |problem: Problem| {
        let message = match problem.field {
            Some(field) => format!("{field}: {}", problem.message),
            None => problem.message,
        };
        Diagnostic::config(message)
            .with_rule(&rule)
            .with_origin(&resource.origin)
    };
    let allow_outside_root = settings.allow_paths_outside_root && trusted;
    let definition = match definition::load(resource, location, allow_outside_root) {
        Ok(definition) => definition,
        Err(problems) => return diagnostics.extend(problems.into_iter().map(report)),
    };
    let templates = match Templates::compile(&definition.templates) {
        Ok(templates) => templates,
        Err(problems) => {
            return diagnostics.extend(problems.into_iter().map(|message| {
                report(Problem {
                    field: None,
                    message,
                })
            }))
        }
    };
    pipeline.generators.push(Box::new(TemplateGenerator::new(
        definition,
        templates,
        settings.field_validation,
        allow_outside_root,
    )));
}
