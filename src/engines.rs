//! Compiles configuration into the pipeline: each engine family turns its virtual
//! resources into compiled rules, once, before any resource is touched.

use crate::config::{known_kind, ConfigItem, Family, KNOWN_KINDS};
use crate::diagnostic::Diagnostic;
use crate::gatekeeper;
use crate::kubemod;
use crate::pipeline::Pipeline;
use crate::run::Options;
use std::sync::Arc;

/// Builds the pipeline for `items`; every unusable item is reported, not just the first.
pub fn compile(items: &[ConfigItem], options: &Options) -> (Pipeline, Vec<Diagnostic>) {
    let mut pipeline = Pipeline::default();
    let mut diagnostics = Vec::new();
    let mut kubemod_rules = Vec::new();
    let mut gatekeeper_mutators = Vec::new();
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
            Some(Family::GatekeeperExpansion) => {
                diagnostics.push(report(format!(
                    "this kadmit build has no engine for {} {} yet, and will not pretend to apply it",
                    id.group, id.kind
                )));
            }
            Some(Family::Kadmit) if known_kind(id).is_none() => {
                let known: Vec<&str> = KNOWN_KINDS
                    .iter()
                    .filter(|k| k.family == Family::Kadmit)
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
            Some(Family::Kadmit | Family::LocalConfig) | None => {}
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
    match gatekeeper::engine::build_system(&gatekeeper_mutators) {
        Ok(system) => {
            let settings = gatekeeper::engine::Settings {
                annotations: options.gatekeeper_annotations,
            };
            pipeline
                .mutating
                .extend(gatekeeper::engine::stage(Arc::new(system), &settings));
        }
        Err(problems) => diagnostics.extend(problems),
    }
    (pipeline, diagnostics)
}
