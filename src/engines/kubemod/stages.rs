//! KubeMod in the admission pipeline: Patch rules in the mutating phase, Reject rules in
//! the validating phase.

use super::rule::{self, RuleType};
use super::store::{Request, Store};
use crate::core::config::ConfigItem;
use crate::core::diagnostic::Diagnostic;
use crate::core::pipeline::{Change, Context, Mutation, Mutator, Unmatched, Validator};
use crate::core::resource::Resource;
use serde_json::Map;
use std::sync::Arc;

/// How KubeMod is configured for this run.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Rules here are cluster rules (`--cluster-modrules-namespace`).
    pub cluster_modrules_namespace: String,
    /// A rule that matches but cannot be applied is an error instead of a warning.
    pub strict: bool,
}

/// KubeMod's two pipeline stages; either is absent when no rule of its type exists.
pub struct Stages {
    pub patcher: Option<Box<dyn Mutator>>,
    pub rejecter: Option<Box<dyn Validator>>,
}

/// Compiles every ModRule; returns the pipeline stages, or every problem found.
pub fn build(items: &[&ConfigItem], settings: &Settings) -> Result<Stages, Vec<Diagnostic>> {
    let mut rules = Vec::new();
    let mut problems = Vec::new();
    for item in items {
        match rule::compile(&item.resource) {
            Ok(r) => rules.push(r),
            Err(mut p) => problems.append(&mut p),
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let store = Arc::new(Store::new(rules, &settings.cluster_modrules_namespace));
    let patcher = store.has(RuleType::Patch).then(|| {
        Box::new(Patcher {
            store: store.clone(),
            strict: settings.strict,
        }) as Box<dyn Mutator>
    });
    let rejecter = store
        .has(RuleType::Reject)
        .then(|| Box::new(Rejecter { store }) as Box<dyn Validator>);
    Ok(Stages { patcher, rejecter })
}

/// The namespace KubeMod sees (`""` for cluster-scoped kinds), and the `syntheticRefs`:
/// the resource's Namespace object when the stream or `--config` holds it.
fn namespace_and_refs(
    resource: &Resource,
    cx: &Context,
) -> (String, Map<String, serde_json::Value>) {
    let namespace = cx.effective_namespace(resource).unwrap_or("").to_owned();
    let mut synthetic_refs = Map::new();
    if let Some(ns) = cx.namespaces.get(&namespace) {
        synthetic_refs.insert("namespace".into(), ns.clone());
    }
    (namespace, synthetic_refs)
}

struct Patcher {
    store: Arc<Store>,
    strict: bool,
}

impl Mutator for Patcher {
    fn mutate(&self, resource: &mut Resource, cx: &Context) -> Mutation {
        let (namespace, synthetic_refs) = namespace_and_refs(resource, cx);
        let req = Request {
            namespace: &namespace,
            operation: cx.operation_of(resource).as_str(),
            synthetic_refs,
        };
        let report = self.store.patch(&mut resource.value, &req);
        let changes = report
            .applied
            .iter()
            .flat_map(|(label, ops)| {
                ops.iter().map(|op| Change {
                    path: op.path().to_owned(),
                    rule: label.clone(),
                })
            })
            .collect();
        let diagnostics = report
            .failed
            .into_iter()
            .map(|(label, reason)| {
                let message = format!("rule skipped, it changed nothing: {reason}");
                let d = if self.strict {
                    Diagnostic::rejected(message)
                } else {
                    Diagnostic::warning(message)
                };
                d.with_rule(label)
                    .with_resource(&resource.id)
                    .with_origin(&resource.origin)
            })
            .collect();
        Mutation {
            changes,
            diagnostics,
            unrecorded: false,
        }
    }

    fn unmatched(&self) -> Vec<Unmatched> {
        unmatched(&self.store, RuleType::Patch)
    }
}

struct Rejecter {
    store: Arc<Store>,
}

impl Validator for Rejecter {
    fn validate(&self, resource: &Resource, cx: &Context) -> Vec<Diagnostic> {
        let (namespace, synthetic_refs) = namespace_and_refs(resource, cx);
        let req = Request {
            namespace: &namespace,
            operation: cx.operation_of(resource).as_str(),
            synthetic_refs,
        };
        // On DELETE KubeMod's webhook judges the object being deleted (`oldObject`).
        self.store
            .rejections(cx.content_of(resource), &req)
            .into_iter()
            .map(|(label, message)| {
                Diagnostic::rejected(format!("rejected by ModRule {message}"))
                    .with_rule(label)
                    .with_resource(&resource.id)
                    .with_origin(&resource.origin)
            })
            .collect()
    }

    fn unmatched(&self) -> Vec<Unmatched> {
        unmatched(&self.store, RuleType::Reject)
    }
}

/// ModRules select with their own language, not by kind: only the rule is named.
fn unmatched(store: &Store, rule_type: RuleType) -> Vec<Unmatched> {
    store
        .unmatched(rule_type)
        .into_iter()
        .map(|rule| Unmatched {
            rule,
            kinds: Vec::new(),
        })
        .collect()
}
