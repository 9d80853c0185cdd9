//! Generators: `kadmit.dev/v1alpha1` `Generator` definitions (a CRD-shaped schema plus
//! Tera templates), found the way KEP-993 finds plugins, that turn virtual resources into
//! real ones.

pub mod budget;
pub mod definition;
pub mod discovery;
pub mod engine;
pub mod helpers;
pub mod instrument;
pub mod render;

use crate::config::{ConfigItem, Family, Source};
use crate::diagnostic::Diagnostic;
use crate::pipeline::Pipeline;
use crate::run::{Mode, Options};
use definition::{Location, Problem};
use discovery::{Catalog, Search};
use engine::{MissingGenerator, TemplateGenerator};
use render::Templates;
use std::collections::BTreeSet;

/// Whether `item` is a virtual resource this run generates from: every one in `generate`,
/// only the functionConfig in a KRM function call, none in `transform`.
pub fn is_generated(item: &ConfigItem, mode: Mode) -> bool {
    item.is_generator_input()
        && match mode {
            Mode::Generate => true,
            Mode::Krm => item.source == Source::FunctionConfig,
            Mode::Transform => false,
        }
}

/// The group/kinds the `Generator` definitions among `items` define.
pub fn explicit_kinds(items: &[ConfigItem]) -> BTreeSet<(String, String)> {
    items
        .iter()
        .filter(|item| item.family == Some(Family::GeneratorDefinition))
        .filter_map(|item| definition::declared_kind(&item.resource))
        .collect()
}

/// Compiles the generators of a run: every definition given in configuration or on
/// stdin, and for each virtual resource to generate from, the definition found under the
/// plugin roots (or a generator that reports the places searched).
pub fn compile(
    items: &[ConfigItem],
    catalog: &mut Catalog,
    options: &Options,
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
        add(&item.resource, location, options, pipeline, diagnostics);
    }
    let wanted: BTreeSet<(String, String)> = items
        .iter()
        .filter(|item| is_generated(item, options.mode))
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
                options,
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

fn add(
    resource: &crate::resource::Resource,
    location: Location,
    options: &Options,
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
    let definition = match definition::load(resource, location, options.allow_paths_outside_root) {
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
        options.field_validation,
        options.allow_paths_outside_root,
    )));
}
