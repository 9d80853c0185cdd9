//! Compiles configuration into the pipeline: each engine family turns its virtual
//! resources into compiled rules, once, before any resource is touched.

use crate::core::config::{known_kind, ConfigItem, Family, KNOWN_KINDS};

use crate::core::diagnostic::Diagnostic;
use crate::engines::gatekeeper;
use crate::engines::generator;
use crate::engines::kubemod;
use crate::engines::module;
use crate::core::pipeline::Pipeline;
use crate::core::resource::Resource;
use crate::run::{Mode, Options};
use std::sync::Arc;

/// Builds the pipeline for `items`; every unusable item is reported, not just the first.
pub fn compile(
    items: &[ConfigItem],
    crds: &[&Resource],
    generators: &mut generator::discovery::Catalog,
    options: &Options,
) -> (Pipeline, Vec<Diagnostic>) {
    let mut pipeline = Pipeline::default();
    let mut diagnostics = Vec::new();
    let mut kubemod_rules = Vec::new();
    let mut gatekeeper_mutators = Vec::new();
    let mut expansion_templates = Vec::new();
    let mut modules = Vec::new();
    for item in items {
        let id = &item.resource.id;
        let rule = id.to_string();
        let report = |message: String| {
            Diagnostic::config(message)
                .with_rule(rule.clone())
                .with_origin(&item.resource.origin)
        };
        if let Some(known) = known_kind(id) {
            if !known.versions.contains(&id.version.as_str()) {
                diagnostics.push(report(format!(
                    "{}/{} {} is not a version kadmit reads (known: {})",
                    id.group,
                    id.version,
                    id.kind,
                    known.versions.join(", ")
                )));
                continue;
            }
        }
        match item.family {
            Some(Family::KubeMod) => kubemod_rules.push(item),
            Some(Family::GatekeeperMutation) => gatekeeper_mutators.push(item),
            Some(Family::GatekeeperExpansion) => expansion_templates.push(item),
            Some(Family::AdmissionModule) => modules.push(item),
            Some(Family::Kadmit) if known_kind(id).is_none() => {
                let known: Vec<&str> = KNOWN_KINDS
                    .iter()
                    .filter(|k| k.group == id.group)
                    .map(|k| k.kind)
                    .collect();
                diagnostics.push(report(format!(
                    "unknown kind {}/{} {} (kadmit.dev kinds: {})",
                    id.group,
                    id.version,
                    id.kind,
                    known.join(", ")
                )));
            }
            Some(Family::Kadmit | Family::GeneratorDefinition | Family::LocalConfig) | None => {}
        }
    }
    let settings = kubemod::engine::Settings {
        cluster_modrules_namespace: options.cluster_modrules_namespace.clone(),
        strict: options.strict,
    };
    match kubemod::engine::build(&kubemod_rules, &settings) {
        Ok(stages) => {
            pipeline.mutating.extend(stages.patcher);
            pipeline.validating.extend(stages.rejecter);
        }
        Err(problems) => diagnostics.extend(problems),
    }
    compile_crds(crds, options, &mut pipeline, &mut diagnostics);
    generator::compile(items, generators, options, &mut pipeline, &mut diagnostics);
    compile_gatekeeper(
        &gatekeeper_mutators,
        &expansion_templates,
        options,
        &mut pipeline,
        &mut diagnostics,
    );
    // Modules come last in each phase: after KubeMod and Gatekeeper, in configuration order.
    module::compile(&modules, crds, options, &mut pipeline, &mut diagnostics);
    (pipeline, diagnostics)
}

/// Gatekeeper's mutating stage, and in `generate` the expansion of every resource through
/// the ExpansionTemplates (mutated by the same system, as `Generated`).
fn compile_gatekeeper(
    mutators: &[&ConfigItem],
    templates: &[&ConfigItem],
    options: &Options,
    pipeline: &mut Pipeline,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let system = match gatekeeper::engine::build_system(mutators) {
        Ok(system) => Arc::new(system),
        Err(problems) => return diagnostics.extend(problems),
    };
    let settings = gatekeeper::engine::Settings {
        annotations: options.gatekeeper_annotations,
    };
    pipeline
        .mutating
        .extend(gatekeeper::engine::stage(system.clone(), &settings));
    if templates.is_empty() {
        return;
    }
    if options.mode != Mode::Generate {
        for item in templates {
            diagnostics.push(
                Diagnostic::warning(
                    "ExpansionTemplates act only in `kadmit generate` (as `gator expand`); this one is ignored here",
                )
                .with_rule(item.resource.id.to_string())
                .with_origin(&item.resource.origin),
            );
        }
        return;
    }
    match gatekeeper::expander::build_templates(templates) {
        Ok(templates) => {
            pipeline.expander = Some(Box::new(gatekeeper::expander::TemplateExpander {
                templates,
                system,
            }))
        }
        Err(problems) => diagnostics.extend(problems),
    }
}

/// The CRD engine: custom resources are pruned and defaulted in the defaulting stage and
/// validated in the schema-validation stage.
fn compile_crds(
    crds: &[&Resource],
    options: &Options,
    pipeline: &mut Pipeline,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let (definitions, problems) = crate::engines::crd::Definitions::load(crds);
    diagnostics.extend(problems);
    if definitions.is_empty() {
        return;
    }
    let settings = kadmit_schema::admission::Settings {
        field_validation: options.field_validation,
        write_defaults: options.write_defaults,
    };
    let (decode, validate) = crate::engines::crd::stages(definitions, settings);
    pipeline.defaulting.push(decode);
    pipeline.schema_validation.push(validate);
}
