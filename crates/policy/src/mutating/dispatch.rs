//! MutatingAdmissionPolicy dispatch (AP `policy/mutating/dispatcher.go`,
//! `generic/policy_dispatcher.go`; reference §3, §4, §9, §11).
//!
//! [`mutate`] is the first pass: every invocation (policy × binding × param, in
//! [`plan`]'s stable order, planned once on the object as it came in) runs once on the
//! current object: its `matchConditions` (§3), then its mutations in order, each on the
//! result of the previous one (§9.1). [`reinvoke`] is the reinvocation round (§9.4): only
//! the invocations of `reinvocationPolicy: IfNeeded` policies whose object changed since
//! they last ran, once each, in the same order. The [`Reinvocation`] state of the first
//! pass is what the caller keeps between the two (the admission chain decides whether a
//! round happens: with no other mutator, when the first pass changed the object).
//!
//! Errors (§9.5): a configuration error, an erroring matchCondition, an expression that
//! fails or a patch that does not apply end the invocation; under `failurePolicy: Ignore`
//! they are dropped, under `Fail` they become `policy '<P>' with binding '<B>' denied
//! request: <err>` (`policy "<P>" denied request: <err>` for a policy-level configuration
//! error) and the dispatch goes on. A kind without a schema is the server's
//! ServiceUnavailable status error, reported as is whatever the failurePolicy, and stops
//! the dispatch ([`MutatingError::internal`]). The server reports the first error;
//! [`MutatingOutcome::errors`] keeps them all in order.
//!
//! Texts: an ApplyConfiguration merge error is `error applying patch: <merge error>`; a
//! JSONPatch error is the patcher's `JSON Patch: …`; an evaluation error is cel's text
//! (`no such key: x`, `type mismatch: …`, `must evaluate to Object but got …`); a
//! compile error kept by [`MutatingPolicy`] is `compilation error: <detail>`.
//!
//! Offline differences, said here:
//! - the API server re-defaults the object after every mutation (native defaulting, CRD
//!   schema defaults); this library cannot, and takes an optional callback
//!   ([`MutationContext::defaulter`]) called after each applied mutation;
//! - mutations already applied when a later mutation of the same invocation fails stay
//!   applied (the server updates the versioned object after each patch);
//! - one cost budget ([`VALIDATION_BUDGET`]) per invocation, shared by its mutations; the
//!   variables are evaluated again for each mutation (they see its `object`);
//! - the object is not converted to the version a `matchPolicy: Equivalent` rule matched;
//!   the schema used is that of the request's kind;
//! - strict decoding of a patched object into its kind (an InternalError upstream) is not
//!   done here.

use crate::compiled::{Binding, FailurePolicy, PolicyCore, OUT_OF_BUDGET};
use crate::conditions::{self, ConditionsResult};
use crate::dispatch::{plan, Step};
use crate::matching::{Equivalents, Matched};
use crate::mutating::json_patch;
use crate::mutating::policy::{MutatingPolicy, PatchType, ReinvocationPolicy};
use crate::params::ParamSource;
use crate::request::AdmissionRequest;
use crate::validating::VALIDATION_BUDGET;
use kadmit_jsonpatch::diff::changed_paths;
use kadmit_schema::cel::expression::{EvalError, Invocation};
use kadmit_schema::kinds::KindSchemas;
use kadmit_schema::merge::apply_configuration;
use serde_json::Value;

/// What a dispatch needs besides the policies, bindings and the object.
pub struct MutationContext<'a> {
    /// The request. Its `attributes.object` is ignored: the object is the one being
    /// mutated, passed to [`mutate`] / [`reinvoke`].
    pub request: &'a AdmissionRequest<'a>,
    pub equivalents: &'a dyn Equivalents,
    pub params: &'a dyn ParamSource,
    /// The schemas ApplyConfiguration mutations merge with.
    pub schemas: &'a dyn KindSchemas,
    /// Called on the object after every applied mutation (the server's defaulting);
    /// `None` leaves defaulting to the caller.
    pub defaulter: Option<&'a dyn Fn(&mut Value)>,
}

/// One error of the dispatch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MutatingError {
    pub policy: String,
    /// `None` for a policy-level configuration error.
    pub binding: Option<String>,
    /// The whole server message (`policy 'P' with binding 'B' denied request: …`, or the
    /// status error's own text when [`Self::internal`]).
    pub message: String,
    /// The error itself (after `denied request: `).
    pub detail: String,
    /// `Invalid`, or the status error's reason (`ServiceUnavailable`).
    pub reason: String,
    /// A status error returned as is (no prefix, no failurePolicy); it stopped the
    /// dispatch.
    pub internal: bool,
}

/// An invocation that changed the object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub policy: String,
    pub binding: String,
    /// JSON Pointers of what changed (`kadmit_jsonpatch::diff::changed_paths`).
    pub paths: Vec<String>,
}

/// Which invocation: policy, binding, and the param's `namespace/name` (`""` without a
/// param).
#[derive(Debug, Clone, PartialEq, Eq)]
struct InvocationKey {
    policy: String,
    binding: String,
    param: String,
}

impl InvocationKey {
    fn new(policy: &str, binding: &str, param: Option<&Value>) -> InvocationKey {
        let param = param.map_or(String::new(), |p| {
            let meta = &p["metadata"];
            format!(
                "{}/{}",
                meta["namespace"].as_str().unwrap_or(""),
                meta["name"].as_str().unwrap_or("")
            )
        });
        InvocationKey {
            policy: policy.to_owned(),
            binding: binding.to_owned(),
            param,
        }
    }
}

/// The reinvocation state: for every invocation of an `IfNeeded` policy that ran, the
/// object as it left it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reinvocation {
    seen: Vec<(InvocationKey, Value)>,
}

impl Reinvocation {
    fn record(&mut self, key: InvocationKey, object: &Value) {
        match self.seen.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => *v = object.clone(),
            None => self.seen.push((key, object.clone())),
        }
    }

    fn last_seen(&self, key: &InvocationKey) -> Option<&Value> {
        self.seen.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Whether a reinvocation round on `current` would rerun at least one invocation: an
    /// `IfNeeded` invocation last left the object different from `current`.
    pub fn wanted(&self, current: &Value) -> bool {
        self.seen.iter().any(|(_, v)| v != current)
    }

    /// The number of `IfNeeded` invocations recorded.
    pub fn len(&self) -> usize {
        self.seen.len()
    }

    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }
}

/// What a dispatch did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MutatingOutcome {
    /// Every error, in dispatch order (the server reports the first).
    pub errors: Vec<MutatingError>,
    /// The invocations that changed the object, in order.
    pub changes: Vec<Change>,
    /// The state for the reinvocation round.
    pub reinvocation: Reinvocation,
}

impl MutatingOutcome {
    /// No error: the request goes on.
    pub fn allowed(&self) -> bool {
        self.errors.is_empty()
    }

    /// Whether an invocation changed the object.
    pub fn changed(&self) -> bool {
        !self.changes.is_empty()
    }
}

/// Why an invocation stopped.
struct InvocationError {
    detail: String,
    /// The status error's reason when the error bypasses failurePolicy.
    status: Option<&'static str>,
}

impl InvocationError {
    fn policy(detail: String) -> InvocationError {
        InvocationError {
            detail,
            status: None,
        }
    }
}

/// The first pass: every invocation once, in order, on `object`.
pub fn mutate(
    policies: &[MutatingPolicy],
    bindings: &[Binding],
    context: &MutationContext,
    object: &mut Value,
) -> MutatingOutcome {
    dispatch(policies, bindings, context, object, None)
}

/// The reinvocation round: the `IfNeeded` invocations of `state` (the first pass's
/// [`MutatingOutcome::reinvocation`]) that find the object different from how they last
/// left it run again, once, in order. The outcome's `reinvocation` is the updated state.
pub fn reinvoke(
    policies: &[MutatingPolicy],
    bindings: &[Binding],
    context: &MutationContext,
    state: &Reinvocation,
    object: &mut Value,
) -> MutatingOutcome {
    dispatch(policies, bindings, context, object, Some(state))
}

/// `policy 'P' with binding 'B' denied request: …` or `policy "P" denied request: …`.
fn denied(policy: &str, binding: Option<&str>, detail: &str) -> String {
    match binding {
        Some(b) => format!("policy '{policy}' with binding '{b}' denied request: {detail}"),
        None => format!("policy {policy:?} denied request: {detail}"),
    }
}

impl MutatingOutcome {
    /// Records an error under `core`'s failurePolicy; `true` when it stops the dispatch.
    fn fail(&mut self, core: &PolicyCore, binding: Option<&str>, error: InvocationError) -> bool {
        if let Some(reason) = error.status {
            self.errors.push(MutatingError {
                policy: core.name.clone(),
                binding: binding.map(str::to_owned),
                message: error.detail.clone(),
                detail: error.detail,
                reason: reason.to_owned(),
                internal: true,
            });
            return true;
        }
        let detail = match &core.failure_policy {
            FailurePolicy::Ignore => return false,
            FailurePolicy::Fail => error.detail,
            FailurePolicy::Other(v) => format!("unrecognized failure policy: '{v}'"),
        };
        self.errors.push(MutatingError {
            policy: core.name.clone(),
            binding: binding.map(str::to_owned),
            message: denied(&core.name, binding, &detail),
            detail,
            reason: "Invalid".to_owned(),
            internal: false,
        });
        false
    }
}

fn dispatch(
    policies: &[MutatingPolicy],
    bindings: &[Binding],
    context: &MutationContext,
    object: &mut Value,
    rerun: Option<&Reinvocation>,
) -> MutatingOutcome {
    let mut outcome = MutatingOutcome {
        reinvocation: rerun.cloned().unwrap_or_default(),
        ..MutatingOutcome::default()
    };
    let steps = {
        let incoming = object.clone();
        let mut request = context.request.clone();
        request.attributes.object = Some(&incoming);
        plan(
            policies,
            bindings,
            &request.attributes,
            context.equivalents,
            context.params,
        )
    };
    for step in steps {
        match step {
            Step::ConfigError {
                policy,
                binding,
                message,
            } => {
                if rerun.is_some() {
                    // Configuration errors were reported in the first pass.
                    continue;
                }
                let binding = binding.map(|b| b.name.as_str());
                if outcome.fail(&policy.core, binding, InvocationError::policy(message)) {
                    break;
                }
            }
            Step::Invoke {
                policy,
                binding,
                matched,
                params,
            } => {
                let if_needed = policy.reinvocation_policy == ReinvocationPolicy::IfNeeded;
                if rerun.is_some() && !if_needed {
                    continue;
                }
                for param in &params {
                    let key = InvocationKey::new(&policy.core.name, &binding.name, param.as_ref());
                    if let Some(state) = rerun {
                        match state.last_seen(&key) {
                            Some(seen) if seen != object => {}
                            _ => continue,
                        }
                    }
                    let before = object.clone();
                    let result = invoke(policy, context, &matched, param.as_ref(), object);
                    if *object != before {
                        let mut paths = Vec::new();
                        changed_paths(&mut String::new(), &before, object, &mut paths);
                        outcome.changes.push(Change {
                            policy: policy.core.name.clone(),
                            binding: binding.name.clone(),
                            paths,
                        });
                    }
                    if if_needed {
                        outcome.reinvocation.record(key, object);
                    }
                    if let Err(e) = result {
                        if outcome.fail(&policy.core, Some(&binding.name), e) {
                            return outcome;
                        }
                    }
                }
            }
        }
    }
    outcome
}

/// `schema.GroupVersionKind.String()`.
fn gvk_string(kind: &kadmit_match::Gvk) -> String {
    format!("{}/{}, Kind={}", kind.group, kind.version, kind.kind)
}

fn eval_error(e: EvalError, core: &PolicyCore) -> InvocationError {
    let detail = match e {
        EvalError::BudgetExhausted => OUT_OF_BUDGET.to_owned(),
        other => {
            let text = other.to_string();
            match core.variable_compile_error(&text) {
                Some(compile) => format!("compilation error: {compile}"),
                None => text,
            }
        }
    };
    InvocationError::policy(detail)
}

/// One invocation (`dispatchOne` after the matchConditions): mutates `object` in place,
/// mutation after mutation.
fn invoke(
    policy: &MutatingPolicy,
    context: &MutationContext,
    matched: &Matched,
    params: Option<&Value>,
    object: &mut Value,
) -> Result<(), InvocationError> {
    let core = &policy.core;
    let request_with = |current: &Value| {
        let mut request = context.request.clone();
        request.attributes.object = Some(current);
        let conditions = request.activation(matched, params, Value::Null);
        let full = request.activation(matched, params, request.namespace_object());
        (conditions, full)
    };
    if !core.match_conditions.is_empty() {
        let (conditions, _) = request_with(object);
        match conditions::evaluate(core, &conditions) {
            ConditionsResult::Matches => {}
            ConditionsResult::NotMatched { .. } => return Ok(()),
            ConditionsResult::Error(e) => return Err(InvocationError::policy(e)),
        }
    }
    if context.request.attributes.operation == "DELETE" || object.is_null() {
        return Ok(());
    }
    let kind = &context.request.attributes.kind;
    let Some(schema) = context
        .schemas
        .schema(&kind.group, &kind.version, &kind.kind)
    else {
        return Err(InvocationError {
            detail: format!(
                "Resource kind {} not found. There can be a delay between when CustomResourceDefinitions are created and when they are available.",
                gvk_string(kind)
            ),
            status: Some("ServiceUnavailable"),
        });
    };
    let mut budget = VALIDATION_BUDGET;
    for mutation in &policy.mutations {
        let program = mutation
            .expression
            .program
            .as_ref()
            .map_err(|e| InvocationError::policy(format!("compilation error: {e}")))?;
        let (_, activation) = request_with(object);
        let mut invocation = Invocation::new(&activation, &core.variables, budget);
        let patched =
            match mutation.patch_type {
                PatchType::ApplyConfiguration => {
                    let patch = invocation
                        .evaluate_apply_configuration(program)
                        .map_err(|e| eval_error(e, core))?;
                    Some(apply_configuration(object, &patch, schema).map_err(|e| {
                        InvocationError::policy(format!("error applying patch: {e}"))
                    })?)
                }
                PatchType::JsonPatch => {
                    let ops = invocation
                        .evaluate_json_patch(program)
                        .map_err(|e| eval_error(e, core))?;
                    json_patch::apply(object, &ops).map_err(InvocationError::policy)?
                }
            };
        budget = invocation.remaining_budget();
        if let Some(mut patched) = patched {
            if let Some(default) = context.defaulter {
                default(&mut patched);
            }
            *object = patched;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matching::{Gvr, Request, Table};
    use crate::params::ParamScope;
    use kadmit_match::Gvk;
    use kadmit_schema::kinds::Builtin;
    use serde_json::json;

    struct NoParams;

    impl ParamSource for NoParams {
        fn scope(&self, _: &str, _: &str) -> Option<ParamScope> {
            None
        }
        fn objects(&self, _: &str, _: &str) -> Vec<&Value> {
            Vec::new()
        }
    }

    fn policy(name: &str, reinvocation: &str, mutations: Value) -> MutatingPolicy {
        MutatingPolicy::from_object(&json!({"metadata": {"name": name}, "spec": {
            "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                "operations": ["*"], "resources": ["configmaps"]}]},
            "reinvocationPolicy": reinvocation,
            "mutations": mutations,
        }}))
    }

    fn binding(policy: &str) -> Binding {
        Binding::from_object(&json!({"metadata": {"name": format!("{policy}-binding")},
            "spec": {"policyName": policy}}))
    }

    const INCREMENT: &str = "Object{data: Object.data{foo: string(int(object.data['foo']) + 1)}}";

    fn increment() -> Value {
        json!([{"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": INCREMENT}}])
    }

    fn configmap(foo: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "cm", "namespace": "ns"}, "data": {"foo": foo}})
    }

    fn request(object: &Value) -> AdmissionRequest<'_> {
        AdmissionRequest {
            attributes: Request {
                operation: "CREATE",
                kind: Gvk {
                    group: String::new(),
                    version: "v1".into(),
                    kind: "ConfigMap".into(),
                },
                resource: Gvr::new("", "v1", "configmaps"),
                name: "cm",
                namespace: "ns",
                object: Some(object),
                ..Request::default()
            },
            ..AdmissionRequest::default()
        }
    }

    /// First pass, then (when it changed the object) one reinvocation round.
    fn run(
        policies: &[MutatingPolicy],
        bindings: &[Binding],
        object: &mut Value,
    ) -> (MutatingOutcome, Option<MutatingOutcome>) {
        let incoming = object.clone();
        let request = request(&incoming);
        let table = Table::builtin();
        let schemas = Builtin::newest();
        let context = MutationContext {
            request: &request,
            equivalents: &table,
            params: &NoParams,
            schemas: &schemas,
            defaulter: None,
        };
        let first = mutate(policies, bindings, &context, object);
        let second = first
            .changed()
            .then(|| reinvoke(policies, bindings, &context, &first.reinvocation, object));
        (first, second)
    }

    #[test]
    fn one_reinvocation_round_reruns_if_needed_policies_that_see_a_change() {
        let policies = [
            policy("policy-1", "IfNeeded", increment()),
            policy("policy-2", "IfNeeded", increment()),
            policy("policy-3", "Never", increment()),
        ];
        let bindings = [
            binding("policy-1"),
            binding("policy-2"),
            binding("policy-3"),
        ];
        let mut object = configmap("0");
        let (first, second) = run(&policies, &bindings, &mut object);
        assert!(first.allowed(), "{:?}", first.errors);
        assert_eq!(first.changes.len(), 3);
        assert_eq!(first.changes[0].paths, ["/data/foo"]);
        assert_eq!(first.reinvocation.len(), 2);
        let second = second.expect("a reinvocation round");
        let rerun: Vec<&str> = second.changes.iter().map(|c| c.policy.as_str()).collect();
        assert_eq!(rerun, ["policy-1", "policy-2"]);
        assert_eq!(object["data"]["foo"], "5");
        // policy-1 left "4": only the single round (the chain's rule) stops it here.
        assert!(second.reinvocation.wanted(&object));
    }

    #[test]
    fn an_unchanged_object_is_not_reinvoked() {
        // The last IfNeeded invocation saw its own result: nothing changed since.
        let policies = [
            policy("a", "Never", increment()),
            policy("b", "IfNeeded", increment()),
        ];
        let bindings = [binding("a"), binding("b")];
        let mut object = configmap("0");
        let (first, second) = run(&policies, &bindings, &mut object);
        assert!(!first.reinvocation.wanted(&object));
        assert!(second.unwrap().changes.is_empty());
        assert_eq!(object["data"]["foo"], "2");
    }

    #[test]
    fn errors_follow_failure_policy_and_schemas_are_required() {
        let failing = json!([
            {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": INCREMENT}},
            {"patchType": "JSONPatch", "jsonPatch": {"expression": "[JSONPatch{op: 'replace', path: '/data/nope/x', value: 'v'}]"}},
        ]);
        let mut ignore = policy("ignore", "Never", failing.clone());
        ignore.core.failure_policy = FailurePolicy::Ignore;
        let fail = policy("fail", "Never", failing);
        let bindings = [binding("ignore"), binding("fail")];
        let mut object = configmap("0");
        let (first, _) = run(&[ignore, fail], &bindings, &mut object);
        assert_eq!(first.errors.len(), 1);
        let e = &first.errors[0];
        assert!(
            e.message.starts_with(
                "policy 'fail' with binding 'fail-binding' denied request: JSON Patch: "
            ),
            "{}",
            e.message
        );
        assert!(!e.internal);
        // The applied first mutations stay.
        assert_eq!(object["data"]["foo"], "2");

        let mut unknown = json!({"apiVersion": "v1", "kind": "Nope", "metadata": {"name": "cm"}});
        let request = AdmissionRequest {
            attributes: Request {
                kind: Gvk {
                    group: "example.com".into(),
                    version: "v1".into(),
                    kind: "Nope".into(),
                },
                ..request(&Value::Null).attributes
            },
            ..AdmissionRequest::default()
        };
        let table = Table::builtin();
        let schemas = Builtin::newest();
        let context = MutationContext {
            request: &request,
            equivalents: &table,
            params: &NoParams,
            schemas: &schemas,
            defaulter: None,
        };
        let mut p = policy("p", "Never", increment());
        p.core.failure_policy = FailurePolicy::Ignore;
        let out = mutate(&[p], &[binding("p")], &context, &mut unknown);
        assert_eq!(out.errors.len(), 1);
        assert!(out.errors[0].internal);
        assert_eq!(out.errors[0].reason, "ServiceUnavailable");
        assert!(out.errors[0]
            .message
            .starts_with("Resource kind example.com/v1, Kind=Nope not found."));
    }
}
