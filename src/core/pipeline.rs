//! The admission order (docs/architecture.md), the traits engines implement, and the record of what
//! each resource went through.
//!
//! For each real resource: schema prune + default → mutating phase → prune + default again
//! (when there are mutators) → schema validation → validating phase. A resource the first
//! prune + default refuses (the server's 400) goes no further. Like the API server, the mutating phase runs
//! every mutator once, then reinvokes those that ask for it (`reinvocationPolicy:
//! IfNeeded`) until a round changes nothing, bounded. KubeMod and Gatekeeper converge
//! inside their own mutator and are not reinvoked.
//! Generators run first (in `generate`), and what they produce is admitted like any input.

use crate::core::config::ConfigItem;
use crate::core::diagnostic::{Diagnostic, Severity};
use crate::core::kinds::{KindTable, Scope};
use crate::core::resource::Resource;
use serde_json::Value;
use std::collections::BTreeMap;

/// How many times the mutating phase may run before kadmit gives up on convergence.
pub const MAX_MUTATION_ROUNDS: usize = 10;

/// The admission operation kadmit pretends to perform (`--operation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    Create,
    Update,
    Delete,
    Connect,
}

impl Operation {
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Create => "CREATE",
            Operation::Update => "UPDATE",
            Operation::Delete => "DELETE",
            Operation::Connect => "CONNECT",
        }
    }
}

/// What engines may know about the run besides the resource in hand.
pub struct Context {
    pub kinds: KindTable,
    /// `Namespace` objects from the stream and from `--config`, by name.
    pub namespaces: BTreeMap<String, Value>,
    pub default_namespace: String,
    pub operation: Operation,
}

impl Context {
    /// The namespace a resource is matched in: its own, `--namespace` for a namespaced
    /// resource without one, none for cluster-scoped kinds.
    pub fn effective_namespace<'a>(&'a self, resource: &'a Resource) -> Option<&'a str> {
        match self.kinds.scope_of(&resource.id.group, &resource.id.kind) {
            Scope::Cluster => None,
            Scope::Namespaced => Some(
                resource
                    .id
                    .namespace
                    .as_deref()
                    .unwrap_or(&self.default_namespace),
            ),
        }
    }

    /// The Namespace object for `name`: from the stream or `--config`, else for `default`
    /// one without labels (as gator does), else none.
    pub fn namespace_object(&self, name: &str) -> Option<Value> {
        match self.namespaces.get(name) {
            Some(ns) => Some(ns.clone()),
            None if name == "default" => Some(serde_json::json!({
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": {"name": "default"},
            })),
            None => None,
        }
    }
}

/// One change a mutator made: where, and which rule did it.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// JSON Pointer into the resource (`/spec/replicas`).
    pub path: String,
    pub rule: String,
}

/// What a mutator did to one resource.
#[derive(Debug, Default)]
pub struct Mutation {
    pub changes: Vec<Change>,
    /// Warnings (a rule skipped) and errors (a rule that must not be skipped).
    pub diagnostics: Vec<Diagnostic>,
}

/// A configured rule that matched no object in the whole run.
#[derive(Debug, Clone, PartialEq)]
pub struct Unmatched {
    /// The rule as the change record names it (`Assign always-pull`).
    pub rule: String,
    /// The kinds it applies to, when the rule names them (`applyTo`, `kinds`).
    pub kinds: Vec<String>,
}

/// Changes one resource in place and says what it changed.
pub trait Mutator {
    fn mutate(&self, resource: &mut Resource, cx: &Context) -> Mutation;

    /// After the run: the rules of this stage that matched no object.
    fn unmatched(&self) -> Vec<Unmatched> {
        Vec::new()
    }

    /// Whether to run again when later mutators changed the object (the API server's
    /// `reinvocationPolicy: IfNeeded`).
    fn reinvoke(&self) -> bool {
        false
    }
}

/// Reads one resource and reports what is wrong with it.
pub trait Validator {
    fn validate(&self, resource: &Resource, cx: &Context) -> Vec<Diagnostic>;

    /// After the run: the rules of this stage that matched no object.
    fn unmatched(&self) -> Vec<Unmatched> {
        Vec::new()
    }
}

/// What a generator made of one virtual resource.
#[derive(Debug, Default)]
pub struct Generated {
    pub objects: Vec<Value>,
    /// Warnings about the virtual resource (deprecated version, pruned fields).
    pub warnings: Vec<Diagnostic>,
}

/// Turns one virtual resource into real resources.
pub trait Generator {
    /// Whether this generator handles the virtual resource's group and kind.
    fn handles(&self, virtual_resource: &Resource) -> bool;
    /// `item` is the virtual resource with the directories its relative paths resolve in.
    fn generate(&self, item: &ConfigItem, cx: &Context) -> Result<Generated, Vec<Diagnostic>>;
}

/// Turns an admitted resource into what a controller would create from it (Gatekeeper
/// ExpansionTemplates: a Deployment into its Pod). Runs in `kadmit generate` only.
pub trait Expander {
    fn expand(&self, resource: &Resource, cx: &Context) -> Result<Vec<Value>, Vec<Diagnostic>>;

    /// Puts the resultants of the whole run in the order the peer writes them.
    fn order(&self, resultants: &mut [Value]);
}

/// The compiled engines, by admission phase.
#[derive(Default)]
pub struct Pipeline {
    /// Schema pruning and defaulting; runs before and after the mutating phase.
    pub defaulting: Vec<Box<dyn Mutator>>,
    /// The mutating phase, in order: KubeMod Patch rules by tier, Gatekeeper mutators,
    /// mutating modules.
    pub mutating: Vec<Box<dyn Mutator>>,
    /// Schema and CEL validation.
    pub schema_validation: Vec<Box<dyn Validator>>,
    /// The validating phase: KubeMod Reject rules, validating modules.
    pub validating: Vec<Box<dyn Validator>>,
    pub generators: Vec<Box<dyn Generator>>,
    /// When set, `kadmit generate` prints only the expansion of every admitted resource.
    pub expander: Option<Box<dyn Expander>>,
}

/// What admission did to one resource.
#[derive(Debug, Default)]
pub struct Admission {
    pub changes: Vec<Change>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Admission {
    pub fn rejected(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }
}

impl Pipeline {
    pub fn is_empty(&self) -> bool {
        self.defaulting.is_empty()
            && self.mutating.is_empty()
            && self.schema_validation.is_empty()
            && self.validating.is_empty()
    }

    /// Runs the admission chain on one resource, in place.
    /// After the run: every configured rule that matched no object, in stage order.
    pub fn unmatched(&self) -> Vec<Unmatched> {
        let mutators = self.mutating.iter().flat_map(|m| m.unmatched());
        let validators = self.validating.iter().flat_map(|v| v.unmatched());
        mutators.chain(validators).collect()
    }

    pub fn admit(&self, resource: &mut Resource, cx: &Context) -> Admission {
        let mut record = Admission::default();
        run_mutators(self.defaulting.iter(), resource, cx, &mut record);
        // A resource the decode step refuses (the server's 400) goes no further.
        if record.rejected() {
            return record;
        }
        run_mutators(self.mutating.iter(), resource, cx, &mut record);
        let reinvoked: Vec<&Box<dyn Mutator>> =
            self.mutating.iter().filter(|m| m.reinvoke()).collect();
        let mut converged = reinvoked.is_empty();
        for _ in 1..MAX_MUTATION_ROUNDS {
            if converged {
                break;
            }
            // Converged when a whole round leaves the object as it found it (Gatekeeper's
            // rule); a round may still report changes that cancel out.
            let snapshot = resource.value.clone();
            run_mutators(reinvoked.iter().copied(), resource, cx, &mut record);
            converged = resource.value == snapshot;
        }
        if !converged {
            record.diagnostics.push(
                Diagnostic::rejected(format!(
                    "mutators did not converge after {MAX_MUTATION_ROUNDS} rounds; rules involved: {}",
                    rules_involved(&record.changes)
                ))
                .with_resource(&resource.id)
                .with_origin(&resource.origin),
            );
            return record;
        }
        if !self.mutating.is_empty() {
            run_mutators(self.defaulting.iter(), resource, cx, &mut record);
        }
        for validator in self.schema_validation.iter().chain(&self.validating) {
            record.diagnostics.extend(validator.validate(resource, cx));
        }
        record
    }
}

fn run_mutators<'a>(
    mutators: impl Iterator<Item = &'a Box<dyn Mutator>>,
    resource: &mut Resource,
    cx: &Context,
    record: &mut Admission,
) {
    for mutator in mutators {
        let mutation = mutator.mutate(resource, cx);
        record.changes.extend(mutation.changes);
        record.diagnostics.extend(mutation.diagnostics);
    }
}

fn rules_involved(changes: &[Change]) -> String {
    let mut rules: Vec<&str> = changes.iter().map(|c| c.rule.as_str()).collect();
    rules.sort_unstable();
    rules.dedup();
    rules.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::resource::Origin;
    use serde_json::json;
    use std::sync::Arc;

    fn cx() -> Context {
        Context {
            kinds: KindTable::default(),
            namespaces: BTreeMap::new(),
            default_namespace: "default".into(),
            operation: Operation::Create,
        }
    }

    fn deployment() -> Resource {
        Resource::new(
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {"replicas": 1}}),
            Origin { source: Arc::from("test"), index: 0, line: 1, list_item: None },
        )
        .unwrap()
    }

    fn changed(rule: String) -> Mutation {
        Mutation {
            changes: vec![Change {
                path: "/spec/replicas".into(),
                rule,
            }],
            diagnostics: vec![],
        }
    }

    struct SetReplicas(i64);
    impl Mutator for SetReplicas {
        fn mutate(&self, r: &mut Resource, _: &Context) -> Mutation {
            if r.value["spec"]["replicas"] == json!(self.0) {
                return Mutation::default();
            }
            r.value["spec"]["replicas"] = json!(self.0);
            changed(format!("Set {}", self.0))
        }
        fn reinvoke(&self) -> bool {
            true
        }
    }

    struct MinReplicas;
    impl Validator for MinReplicas {
        fn validate(&self, r: &Resource, _: &Context) -> Vec<Diagnostic> {
            if r.value["spec"]["replicas"].as_i64() < Some(2) {
                vec![Diagnostic::rejected("too few replicas").with_resource(&r.id)]
            } else {
                vec![]
            }
        }
    }

    #[test]
    fn empty_pipeline_is_identity() {
        let mut r = deployment();
        let before = r.value.clone();
        let record = Pipeline::default().admit(&mut r, &cx());
        assert_eq!(r.value, before);
        assert!(record.changes.is_empty() && record.diagnostics.is_empty());
    }

    #[test]
    fn mutations_then_validation_in_order() {
        let pipeline = Pipeline {
            mutating: vec![Box::new(SetReplicas(3))],
            validating: vec![Box::new(MinReplicas)],
            ..Pipeline::default()
        };
        let mut r = deployment();
        let record = pipeline.admit(&mut r, &cx());
        assert_eq!(r.value["spec"]["replicas"], json!(3));
        assert_eq!(record.changes.len(), 1);
        assert!(!record.rejected());
    }

    struct Grow {
        reinvoke: bool,
    }
    impl Mutator for Grow {
        fn mutate(&self, r: &mut Resource, _: &Context) -> Mutation {
            let n = r.value["spec"]["replicas"].as_i64().unwrap_or(0);
            r.value["spec"]["replicas"] = json!(n + 1);
            changed("Grow".into())
        }
        fn reinvoke(&self) -> bool {
            self.reinvoke
        }
    }

    #[test]
    fn mutators_that_never_settle_are_reported() {
        let pipeline = Pipeline {
            mutating: vec![Box::new(Grow { reinvoke: true })],
            ..Pipeline::default()
        };
        let record = pipeline.admit(&mut deployment(), &cx());
        assert!(record.rejected());
        assert!(
            record.diagnostics[0]
                .message
                .contains("rules involved: Grow"),
            "{:?}",
            record.diagnostics
        );
    }

    #[test]
    fn mutators_that_are_not_reinvoked_run_once() {
        let pipeline = Pipeline {
            mutating: vec![Box::new(Grow { reinvoke: false })],
            ..Pipeline::default()
        };
        let mut r = deployment();
        let record = pipeline.admit(&mut r, &cx());
        assert!(!record.rejected());
        assert_eq!(r.value["spec"]["replicas"], json!(2));
    }

    #[test]
    fn a_round_that_ends_where_it_started_has_converged() {
        let pipeline = Pipeline {
            mutating: vec![Box::new(SetReplicas(2)), Box::new(SetReplicas(4))],
            ..Pipeline::default()
        };
        let mut r = deployment();
        let record = pipeline.admit(&mut r, &cx());
        assert!(!record.rejected());
        assert_eq!(r.value["spec"]["replicas"], json!(4));
    }

    #[test]
    fn effective_namespace_follows_scope() {
        let cx = cx();
        let r = deployment();
        assert_eq!(cx.effective_namespace(&r), Some("default"));
        let ns = Resource::new(
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}),
            r.origin.clone(),
        )
        .unwrap();
        assert_eq!(cx.effective_namespace(&ns), None);
    }
}
