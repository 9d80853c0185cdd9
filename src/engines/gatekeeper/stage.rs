//! Gatekeeper in the admission pipeline: one mutating stage that runs the mutation system
//! on every resource, as the webhook would for the `--operation` kadmit pretends to do.

use super::mutators::{Mutator as GkMutator, MutatorId};
use super::system::{Outcome, System};
use crate::core::config::ConfigItem;
use crate::core::diagnostic::Diagnostic;
use crate::core::kinds::Scope;
use crate::core::pipeline::{Change, Context, Mutation, Mutator, Operation, Unmatched};
use crate::core::resource::Resource;
use serde_json::Value;
use std::collections::BTreeSet;

/// The annotation the webhook writes with `--mutation-annotations`.
pub const MUTATIONS_ANNOTATION: &str = "gatekeeper.sh/mutations";

/// How Gatekeeper is configured for this run.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// Write `gatekeeper.sh/mutations` on mutated resources (`--gatekeeper-annotations`).
    pub annotations: bool,
}

/// Builds the mutation system from every mutator in `items`, in input order (a later
/// mutator with the same kind and name replaces an earlier one, as in gator).
pub fn build_system(items: &[&ConfigItem]) -> Result<System, Vec<Diagnostic>> {
    let mut system = System::new();
    let mut problems = Vec::new();
    for item in items {
        let label = item.resource.id.to_string();
        let report = |message: String| {
            Diagnostic::config(message)
                .with_rule(label.clone())
                .with_origin(&item.resource.origin)
        };
        match GkMutator::from_value(&item.resource.value) {
            Ok(mutator) => {
                if let Err(e) = system.upsert(mutator) {
                    problems.push(report(e));
                }
            }
            Err(e) => problems.push(report(e)),
        }
    }
    if problems.is_empty() {
        Ok(system)
    } else {
        Err(problems)
    }
}

/// The mutating stage; absent when no mutator is configured.
pub fn stage(system: std::sync::Arc<System>, settings: &Settings) -> Option<Box<dyn Mutator>> {
    (!system.is_empty()).then(|| {
        Box::new(Stage {
            rules: system
                .mutators()
                .iter()
                .map(|m| rule_label(&m.id))
                .collect(),
            system,
            annotations: settings.annotations,
        }) as Box<dyn Mutator>
    })
}

struct Stage {
    system: std::sync::Arc<System>,
    annotations: bool,
    /// `rule_label` of each mutator, by index.
    rules: Vec<String>,
}

impl Mutator for Stage {
    fn mutate(&self, resource: &mut Resource, cx: &Context) -> Mutation {
        // The webhook is registered for CREATE and UPDATE only.
        let operation = match cx.operation_of(resource) {
            op @ (Operation::Create | Operation::Update) => op.as_str(),
            Operation::Delete | Operation::Connect => return Mutation::default(),
        };
        match run(&self.system, resource, cx, "Original", operation) {
            Ok(outcome) => {
                if self.annotations && !outcome.applied.is_empty() {
                    resource.set_annotation(
                        MUTATIONS_ANNOTATION,
                        mutations_annotation(&self.system, &outcome),
                    );
                }
                Mutation {
                    changes: changes(&self.rules, outcome),
                    diagnostics: Vec::new(),
                    unrecorded: false,
                }
            }
            Err(message) => Mutation {
                changes: Vec::new(),
                diagnostics: vec![Diagnostic::rejected(message)
                    .with_resource(&resource.id)
                    .with_origin(&resource.origin)],
                unrecorded: false,
            },
        }
    }

    fn unmatched(&self) -> Vec<Unmatched> {
        let mutators = self.system.mutators().iter().enumerate();
        mutators
            .filter(|(index, _)| !self.system.has_matched(*index))
            .map(|(index, mutator)| Unmatched {
                rule: self.rules[index].clone(),
                kinds: mutator
                    .apply_to
                    .iter()
                    .flatten()
                    .flat_map(|a| a.kinds.iter().cloned())
                    .collect(),
            })
            .collect()
    }
}

/// The change record's name for a mutator: `Assign always-pull-image`.
pub fn rule_label(id: &MutatorId) -> String {
    if id.namespace.is_empty() {
        format!("{} {}", id.kind, id.name)
    } else {
        format!("{} {}/{}", id.kind, id.namespace, id.name)
    }
}

fn changes(rules: &[String], outcome: Outcome) -> Vec<Change> {
    let change = |(index, path): (usize, String)| Change {
        path,
        rule: rules[index].clone(),
    };
    outcome.changes.into_iter().map(change).collect()
}

/// `Kind/Namespace/Name:Generation` of every mutator applied, sorted, joined with `, `.
fn mutations_annotation(system: &System, outcome: &Outcome) -> String {
    let applied: BTreeSet<String> = outcome
        .applied
        .iter()
        .map(|&index| {
            let m = &system.mutators()[index];
            format!(
                "{}/{}/{}:{}",
                m.id.kind, m.id.namespace, m.id.name, m.generation
            )
        })
        .collect();
    applied.into_iter().collect::<Vec<_>>().join(", ")
}

/// Runs the system on one resource the way the webhook sees it: a namespaced resource
/// carries its namespace (kadmit's `--namespace` when it has none; removed again after)
/// and comes with its Namespace object; a cluster-scoped one has neither.
pub fn run(
    system: &System,
    resource: &mut Resource,
    cx: &Context,
    source: &str,
    operation: &str,
) -> Result<Outcome, String> {
    let namespace = match cx.kinds.scope_of(&resource.id.group, &resource.id.kind) {
        Scope::Cluster => None,
        Scope::Namespaced => cx.effective_namespace(resource).map(str::to_owned),
    };
    let lent_namespace = namespace
        .as_deref()
        .filter(|_| resource.id.namespace.is_none());
    if let (Some(ns), Some(Value::Object(metadata))) =
        (lent_namespace, resource.value.get_mut("metadata"))
    {
        metadata.insert("namespace".into(), Value::String(ns.to_owned()));
    }
    let namespace_object = namespace.as_deref().and_then(|ns| cx.namespace_object(ns));
    let result = system
        .mutate(
            &mut resource.value,
            namespace_object.as_ref(),
            source,
            operation,
        )
        .map_err(|e| explain_missing_namespace(e, namespace.as_deref()));
    if let (Some(ns), Some(Value::Object(metadata))) =
        (lent_namespace, resource.value.get_mut("metadata"))
    {
        if metadata.get("namespace").and_then(Value::as_str) == Some(ns) {
            metadata.shift_remove("namespace");
        }
    }
    result
}

fn explain_missing_namespace(error: String, namespace: Option<&str>) -> String {
    match namespace {
        Some(ns) if error.contains("missing Namespace") => format!(
            "{error}: a mutator's namespaceSelector needs the labels of Namespace {ns:?}; add that Namespace object to the input or to --config"
        ),
        _ => error,
    }
}
