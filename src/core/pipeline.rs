//! The admission order (docs/architecture.md), the traits engines implement, and the record of what
//! each resource went through.
//!
//! For each real resource: schema prune + default → mutating phase → prune + default again
//! (when there are mutators) → schema validation → validating phase. A resource the first
//! prune + default refuses (the server's 400) goes no further. Like the API server
//! (`reinvocationPolicy`, admission/plugin/webhook/mutating and policy/mutating), the
//! mutating phase runs every mutator once, then, when the object changed after a mutator
//! that asks for it ran, exactly one reinvocation round runs those mutators again, each
//! only if the object changed since it last saw it. KubeMod and Gatekeeper converge
//! inside their own mutator and are not reinvoked.
//! Generators run first (in `generate`), and what they produce is admitted like any input.

use crate::core::config::ConfigItem;
use crate::core::diagnostic::{Diagnostic, Severity};
use crate::core::kinds::{KindTable, Scope};
use crate::core::resource::{Identity, Origin, Resource};
use crate::core::update;
use kadmit_schema::cel::expression::ActivationValue;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, OnceLock};

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
    /// Objects of the kinds stages look up ([`Pipeline::lookup_kinds`]: the params of
    /// admission policies), from `--config` and the stream, by (group, kind).
    pub objects: BTreeMap<(String, String), Objects>,
}

/// The objects of one kind, in input order, indexed by name and by namespace.
#[derive(Debug, Default)]
pub struct Objects {
    all: Vec<Value>,
    /// Positions in `all`, ascending, by `metadata.name`.
    by_name: HashMap<String, Vec<usize>>,
    /// Positions in `all`, ascending, by `metadata.namespace` (`""` when none).
    by_namespace: HashMap<String, Vec<usize>>,
    /// Each object of `all` as a policy's `params`, converted when first bound and then
    /// shared by every resource's evaluations.
    as_params: Box<[OnceLock<ActivationValue<'static>>]>,
}

fn metadata_str<'a>(object: &'a Value, key: &str) -> &'a str {
    object["metadata"]
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or("")
}

impl Objects {
    pub fn new(all: Vec<Value>) -> Objects {
        let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
        let mut by_namespace: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, object) in all.iter().enumerate() {
            let name = metadata_str(object, "name");
            let namespace = metadata_str(object, "namespace");
            by_name.entry(name.to_owned()).or_default().push(i);
            by_namespace
                .entry(namespace.to_owned())
                .or_default()
                .push(i);
        }
        Objects {
            as_params: all.iter().map(|_| OnceLock::new()).collect(),
            all,
            by_name,
            by_namespace,
        }
    }

    /// `object`, when it is one of these (by address: what [`Self::named`] and
    /// [`Self::in_namespace`] handed out), as a policy's `params`, converted once.
    pub fn as_params(&self, object: &Value) -> Option<ActivationValue<'static>> {
        let start = self.all.as_ptr() as usize;
        let offset = (object as *const Value as usize).checked_sub(start)?;
        let index = offset / std::mem::size_of::<Value>();
        let own = self.all.get(index).filter(|o| std::ptr::eq(*o, object))?;
        Some(
            self.as_params[index]
                .get_or_init(|| ActivationValue::from_json(own))
                .clone(),
        )
    }

    /// The first object named `name` (in `namespace` when given) that `keep` keeps, in
    /// input order.
    pub fn named(
        &self,
        namespace: Option<&str>,
        name: &str,
        keep: impl Fn(&Value) -> bool,
    ) -> Option<&Value> {
        self.by_name
            .get(name)?
            .iter()
            .map(|&i| &self.all[i])
            .find(|o| namespace.is_none_or(|ns| metadata_str(o, "namespace") == ns) && keep(o))
    }

    /// The objects in `namespace` (all when `None`), in input order.
    pub fn in_namespace<'a>(
        &'a self,
        namespace: Option<&str>,
    ) -> Box<dyn Iterator<Item = &'a Value> + 'a> {
        match namespace {
            None => Box::new(self.all.iter()),
            Some(ns) => Box::new(
                self.by_namespace
                    .get(ns)
                    .into_iter()
                    .flatten()
                    .map(|&i| &self.all[i]),
            ),
        }
    }
}

impl Context {
    /// The operation `resource` is admitted with: UPDATE when it has a previous state
    /// (`--old`), DELETE for an old object the stream no longer has
    /// ([`Resource::deletion`]), else the run's operation (`--operation`, CREATE by
    /// default).
    pub fn operation_of(&self, resource: &Resource) -> Operation {
        if resource.is_deletion() {
            Operation::Delete
        } else if resource.old.is_some() {
            Operation::Update
        } else {
            self.operation
        }
    }

    /// The old object an UPDATE or DELETE of `resource` is judged against: its previous
    /// state (`--old`); without one, under `--operation UPDATE|DELETE|CONNECT`, the object
    /// itself (nothing changed); none for a CREATE.
    pub fn old_object_of<'a>(&self, resource: &'a Resource) -> Option<&'a Value> {
        match (&resource.old, self.operation_of(resource)) {
            (Some(old), _) => Some(old),
            (None, Operation::Create) => None,
            (None, _) => Some(&resource.value),
        }
    }

    /// The object rules that select by content look at: the object, or for a DELETE the
    /// object being deleted (KubeMod, module `match`, as their webhooks read `oldObject`).
    pub fn content_of<'a>(&self, resource: &'a Resource) -> &'a Value {
        match &resource.old {
            Some(old) if resource.is_deletion() => old,
            _ => &resource.value,
        }
    }

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
    /// The stage changed the resource in a way `changes` does not show (pruning, a field
    /// strict decoding drops). Every stage records each other change it makes.
    pub unrecorded: bool,
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
pub trait Mutator: Send + Sync {
    fn mutate(&self, resource: &mut Resource, cx: &Context) -> Mutation;

    /// After the run: the rules of this stage that matched no object.
    fn unmatched(&self) -> Vec<Unmatched> {
        Vec::new()
    }

    /// Whether the whole stage runs again in the reinvocation round when a later mutator
    /// changed the object (the API server's `reinvocationPolicy: IfNeeded`).
    fn reinvoke(&self) -> bool {
        false
    }

    /// The first pass of a stage whose parts are reinvoked one by one (the invocations of
    /// MutatingAdmissionPolicies): the mutation, and what the reinvocation round needs to
    /// know of the parts (what each saw). `None`: nothing of this stage is reinvoked, or
    /// the whole stage is ([`Mutator::reinvoke`]).
    fn first_pass<'s>(
        &'s self,
        resource: &mut Resource,
        cx: &Context,
    ) -> (Mutation, Option<Box<dyn Rerun + 's>>) {
        (self.mutate(resource, cx), None)
    }
}

/// A stage's reinvocable parts, as they were after the first pass.
pub trait Rerun {
    /// Whether a part asks to run again: the object changed since it last saw it.
    fn wanted(&self, current: &Value) -> bool;
    /// The reinvocation round for this stage: runs every part that asks for it.
    fn run(self: Box<Self>, resource: &mut Resource, cx: &Context) -> Mutation;
}

/// Reads one resource and reports what is wrong with it.
pub trait Validator: Send + Sync {
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
pub trait Generator: Send + Sync {
    /// Whether this generator handles the virtual resource's group and kind.
    fn handles(&self, virtual_resource: &Resource) -> bool;
    /// `item` is the virtual resource with the directories its relative paths resolve in.
    fn generate(&self, item: &ConfigItem, cx: &Context) -> Result<Generated, Vec<Diagnostic>>;
}

/// Turns an admitted resource into what a controller would create from it (Gatekeeper
/// ExpansionTemplates: a Deployment into its Pod). Runs in `kadmit generate` only.
pub trait Expander: Send + Sync {
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
    /// The (group, kind) of objects stages look up at admission ([`Context::objects`]).
    pub lookup_kinds: Vec<(String, String)>,
}

/// What admission did to one resource.
#[derive(Debug, Default)]
pub struct Admission {
    pub changes: Vec<Change>,
    pub diagnostics: Vec<Diagnostic>,
    /// A stage changed the resource without recording it ([`Mutation::unrecorded`]).
    pub unrecorded: bool,
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
        // The old object as the server stores it ([`Pipeline::stored`]). When it is the
        // manifest itself (a resource the change leaves alone, most of a review), that is
        // what the first defaulting step makes of the resource: the copy is taken then,
        // instead of defaulting the same object twice, and nothing needs carrying.
        let unchanged = resource.old.as_deref() == Some(&resource.value);
        if let (Some(old), false) = (resource.old.take(), unchanged) {
            let old = Arc::try_unwrap(old).unwrap_or_else(|shared| (*shared).clone());
            let stored = self.stored(old, &resource.id, &resource.origin, cx);
            resource.old = Some(Arc::new(stored));
        } else if unchanged {
            resource.old = Some(Arc::new(resource.value.clone()));
        }
        let old = resource.old.clone().filter(|_| !unchanged);
        let (group, kind) = (resource.id.group.clone(), resource.id.kind.clone());
        let status_subresource = cx.kinds.has_status_subresource(&group, &kind);
        // An UPDATE sees what the server's UPDATE carries over from the stored object;
        // the manifest's own values are put back afterwards (core/update.rs).
        let carried = old
            .as_deref()
            .map(|old| update::carry(&mut resource.value, old, status_subresource));
        let after_defaulting = |resource: &mut Resource| {
            if unchanged {
                resource.old = Some(Arc::new(resource.value.clone()));
            }
        };
        let record = self.admit_carried(resource, cx, after_defaulting, |object| {
            if let Some(old) = old.as_deref() {
                let custom = cx.kinds.is_custom(&group, &kind);
                update::bump_generation(object, old, custom, status_subresource);
            }
        });
        if let Some(carried) = carried {
            carried.restore(&mut resource.value);
        }
        record
    }

    /// [`Pipeline::admit`] once the server's fields are in place; `after_defaulting` runs
    /// after the first defaulting step, `before_validation` between the mutating and the
    /// validating steps (the server's `BeforeUpdate`).
    fn admit_carried(
        &self,
        resource: &mut Resource,
        cx: &Context,
        after_defaulting: impl FnOnce(&mut Resource),
        before_validation: impl FnOnce(&mut Value),
    ) -> Admission {
        let mut record = Admission::default();
        run_mutators(self.defaulting.iter(), resource, cx, &mut record);
        after_defaulting(resource);
        // A resource the decode step refuses (the server's 400) goes no further.
        if record.rejected() {
            return record;
        }
        self.run_mutating_phase(resource, cx, &mut record);
        if !self.mutating.is_empty() {
            run_mutators(self.defaulting.iter(), resource, cx, &mut record);
        }
        before_validation(&mut resource.value);
        for validator in self.schema_validation.iter().chain(&self.validating) {
            record.diagnostics.extend(validator.validate(resource, cx));
        }
        record
    }

    /// An old object (`--old`) as the server stores it: defaulted like any object it
    /// admits. A render of the base branch has no defaults and an export from the cluster
    /// has them all (defaulting it again changes nothing); either way a rule comparing
    /// with `oldObject` sees no default as a change. What is wrong with the old object
    /// is not the change's to answer for: not reported.
    pub fn stored(&self, old: Value, id: &Identity, origin: &Origin, cx: &Context) -> Value {
        if self.defaulting.is_empty() {
            return old;
        }
        let mut stored = Resource {
            value: old,
            id: id.clone(),
            origin: origin.clone(),
            old: None,
        };
        run_mutators(
            self.defaulting.iter(),
            &mut stored,
            cx,
            &mut Admission::default(),
        );
        stored.value
    }

    /// The DELETE of an old object the stream no longer has ([`Resource::deletion`]): the
    /// validating phase only, whose stages decide by the operation whether their rules
    /// apply (a DELETE is neither defaulted, mutated nor schema-validated: there is no
    /// new object).
    pub fn admit_deletion(&self, resource: &Resource, cx: &Context) -> Admission {
        let mut record = Admission::default();
        for validator in &self.validating {
            record.diagnostics.extend(validator.validate(resource, cx));
        }
        record
    }

    /// Every mutator once, then at most one reinvocation round (the API server's rule).
    fn run_mutating_phase(&self, resource: &mut Resource, cx: &Context, record: &mut Admission) {
        // What each reinvocable stage saw last: its reruns, or the object it left.
        let mut reinvocable: Vec<Reinvocable<'_>> = Vec::new();
        for mutator in &self.mutating {
            let (mutation, rerun) = mutator.first_pass(resource, cx);
            record.changes.extend(mutation.changes);
            record.diagnostics.extend(mutation.diagnostics);
            record.unrecorded |= mutation.unrecorded;
            if rerun.is_some() || mutator.reinvoke() {
                reinvocable.push((mutator.as_ref(), rerun, resource.value.clone()));
            }
        }
        let wanted = |rerun: &Option<Box<dyn Rerun + '_>>, seen: &Value, now: &Value| match rerun {
            Some(rerun) => rerun.wanted(now),
            None => seen != now,
        };
        if !reinvocable
            .iter()
            .any(|(_, rerun, seen)| wanted(rerun, seen, &resource.value))
        {
            return;
        }
        for (mutator, rerun, seen) in reinvocable {
            if !wanted(&rerun, &seen, &resource.value) {
                continue;
            }
            let mutation = match rerun {
                Some(rerun) => rerun.run(resource, cx),
                None => mutator.mutate(resource, cx),
            };
            record.changes.extend(mutation.changes);
            record.diagnostics.extend(mutation.diagnostics);
            record.unrecorded |= mutation.unrecorded;
        }
    }
}

/// A reinvocable stage after the first pass: the stage, its parts' reruns (if it is
/// reinvoked part by part) and the object as it left it.
type Reinvocable<'s> = (&'s dyn Mutator, Option<Box<dyn Rerun + 's>>, Value);

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
        record.unrecorded |= mutation.unrecorded;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::resource::Origin;
    use serde_json::json;
    use std::sync::Arc;

    #[test]
    fn only_its_own_objects_are_converted_as_params() {
        let cm = |name: &str| json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}});
        let objects = Objects::new(vec![cm("a"), cm("b"), cm("c")]);
        for name in ["a", "b", "c"] {
            let own = objects.named(None, name, |_| true).unwrap();
            assert!(objects.as_params(own).is_some(), "{name}");
            // Found again: the conversion made the first time.
            assert!(objects.as_params(own).is_some(), "{name}");
            // An equal object that is not one of them (a copy) is not converted.
            assert!(objects.as_params(&own.clone()).is_none(), "{name}");
        }
        let other = Objects::new(vec![cm("a")]);
        assert!(objects.as_params(&other.all[0]).is_none());
        assert!(Objects::new(Vec::new()).as_params(&cm("a")).is_none());
    }

    fn cx() -> Context {
        Context {
            kinds: KindTable::default(),
            namespaces: BTreeMap::new(),
            default_namespace: "default".into(),
            operation: Operation::Create,
            objects: BTreeMap::new(),
        }
    }

    fn deployment() -> Resource {
        Resource::new(
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {"replicas": 1}}),
            Origin { source: Arc::from("test"), index: 0, line: 1, list_item: None, declared: None },
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
            unrecorded: false,
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
    fn reinvocation_is_one_round_only() {
        // A reinvocable mutator that never settles runs twice, as the server runs it.
        let pipeline = Pipeline {
            mutating: vec![Box::new(Grow { reinvoke: true })],
            ..Pipeline::default()
        };
        let mut r = deployment();
        let record = pipeline.admit(&mut r, &cx());
        assert!(!record.rejected());
        // Alone, nothing changed the object after it ran: no reinvocation.
        assert_eq!(r.value["spec"]["replicas"], json!(2));
        // Followed by a mutator that changes the object: run again once.
        let pipeline = Pipeline {
            mutating: vec![
                Box::new(Grow { reinvoke: true }),
                Box::new(Grow { reinvoke: false }),
            ],
            ..Pipeline::default()
        };
        let mut r = deployment();
        pipeline.admit(&mut r, &cx());
        assert_eq!(r.value["spec"]["replicas"], json!(4));
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
    fn the_reinvocation_round_runs_each_mutator_whose_object_changed() {
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
