//! MutatingAdmissionPolicy dispatch (AP `policy/mutating/dispatcher.go`,
//! `generic/policy_dispatcher.go`; reference §3, §4, §9, §11).
//!
//! [`mutate`] is the first pass: every invocation (policy × binding × param, in
//! [`plan`]'s stable order, planned once on the object as it came in) runs once on the
//! current object: its `matchConditions` (§3), then its mutations in order, each on the
//! result of the previous one (§9.1). [`reinvoke`] is the reinvocation round (§9.4). The
//! [`Reinvocation`] state of the first pass is what the caller keeps between the two;
//! the admission chain runs the round when a mutator asked for it
//! ([`Reinvocation::requested`], or a webhook changed the object).
//!
//! Reinvocation as the server does it (`policyReinvokeContext`): an `IfNeeded` invocation
//! that ran is "previously invoked"; an invocation that changes the object marks every
//! previously invoked one for reinvocation, and so does the end of a pass in which any
//! mutation was applied (`VersionedAttributes.Dirty`), and the start of the round when
//! the object changed since the pass. In the round only the marked invocations run (their
//! matchConditions are evaluated first, as for every invocation). So after a first pass
//! that applied anything, every `IfNeeded` invocation that ran runs once more (upstream:
//! 3 policies `+1` each, two `IfNeeded`: `0→3→5`, whatever their order).
//!
//! Errors (§9.5, `generic/policy_dispatcher.go`): a configuration error ends the (policy,
//! binding); an erroring matchCondition ends the invocation; an expression that fails or
//! a patch that does not apply ends that mutation only (the next mutation still runs).
//! Under `failurePolicy: Ignore` they are dropped; otherwise they are
//! `policy '<P>' with binding '<B>' denied request: <err>` (`policy "<P>" denied
//! request: <err>` for a policy-level configuration error), the configuration errors
//! first, as the server collects them before it invokes anything. A kind without a
//! schema is the server's ServiceUnavailable status error: reported as is whatever the
//! failurePolicy, it stops the dispatch ([`MutatingError::internal`]).
//!
//! Texts: an ApplyConfiguration merge error is `error applying patch: <merge error>`; a
//! JSONPatch error is the patcher's `JSON Patch: …`; an evaluation error is cel's text
//! (`no such key: x`, `type mismatch: …`, `must evaluate to Object but got …`); a
//! compile error kept by [`MutatingPolicy`] is `compilation error: <detail>`.
//!
//! Offline differences, said here:
//! - the API server re-defaults the object after every mutation (native defaulting, CRD
//!   schema defaults); this library cannot, and calls the optional
//!   [`MutationContext::defaulter`] after each applied mutation instead;
//! - the object is not converted to the version a `matchPolicy: Equivalent` rule matched;
//!   the schema used is that of the request's kind;
//! - strict decoding of a patched object into its kind (an InternalError upstream) is not
//!   done here.

use crate::compiled::{Binding, FailurePolicy, PolicyCore, OUT_OF_BUDGET};
use crate::conditions::{self, ConditionsResult};
use crate::dispatch::{plan, Step};
use crate::matching::{Equivalents, Matched};
use crate::mutating::json_patch;
use crate::mutating::policy::{MutatingPolicy, Mutation, PatchType, ReinvocationPolicy};
use crate::mutating::touched;
use crate::params::ParamSource;
use crate::request::{AdmissionRequest, RequestValues};
use crate::validating::VALIDATION_BUDGET;
use kadmit_jsonpatch::diff::changed_paths;
use kadmit_schema::cel::expression::{EvalError, Invocation};
use kadmit_schema::kinds::KindSchemas;
use kadmit_schema::merge::{
    apply_configuration, apply_configuration_in_place, apply_configuration_to_converted,
};
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

/// Which invocation (`keyFor`): policy, binding, and the param's `namespace/name` (`""`
/// without a param).
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

/// The reinvocation state the plugin keeps in the request's reinvocation context
/// (`policyReinvokeContext`): the `IfNeeded` invocations that ran since the last change,
/// those to run again in the reinvocation round, and the object the last pass left.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reinvocation {
    previously_invoked: Vec<InvocationKey>,
    reinvoke: Vec<InvocationKey>,
    last_output: Option<Value>,
    requested: bool,
}

impl Reinvocation {
    /// `RequireReinvokingPreviouslyInvokedPlugins`.
    fn require_reinvoking_previously_invoked(&mut self) {
        for key in self.previously_invoked.drain(..) {
            if !self.reinvoke.contains(&key) {
                self.reinvoke.push(key);
            }
        }
    }

    /// `AddReinvocablePolicyToPreviouslyInvoked`.
    fn add_previously_invoked(&mut self, key: InvocationKey) {
        if !self.previously_invoked.contains(&key) {
            self.previously_invoked.push(key);
        }
    }

    /// Whether the pass asked the admission chain for a reinvocation round
    /// (`SetShouldReinvoke`): a mutation was applied (even one that left the object
    /// equal) or changed the object.
    pub fn requested(&self) -> bool {
        self.requested
    }

    /// Whether a reinvocation round on `current` would rerun an invocation (when it
    /// still matches): one is marked, or the object changed since the last pass (another
    /// mutator changed it) and an `IfNeeded` invocation ran since the last change.
    pub fn wanted(&self, current: &Value) -> bool {
        !self.reinvoke.is_empty()
            || (!self.previously_invoked.is_empty() && self.last_output.as_ref() != Some(current))
    }
}

/// What a dispatch did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MutatingOutcome {
    /// Every error the request is refused with: the configuration errors, then the
    /// invocations' errors, in order; `errors[0]` is the server's message (an internal
    /// error is put first: the server returns it alone).
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

/// Why a mutation (or an invocation's matchConditions) failed.
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

/// The reinvocation round: with `state` the first pass's
/// [`MutatingOutcome::reinvocation`], only the marked `IfNeeded` invocations run again
/// (all that ran since the last change when the object changed after the first pass),
/// once, in order. The outcome's `reinvocation` is the updated state.
pub fn reinvoke(
    policies: &[MutatingPolicy],
    bindings: &[Binding],
    context: &MutationContext,
    state: &Reinvocation,
    object: &mut Value,
) -> MutatingOutcome {
    dispatch(policies, bindings, context, object, Some(state))
}

/// What an applied mutation kept of the object it changed, to find the invocation's
/// changes with.
enum Before {
    /// The whole object it replaced.
    Whole(Value),
    /// A mutation done in place: the object's parts it could change
    /// ([`touched::project`]) and their shape (an ApplyConfiguration's patch, a JSON
    /// Patch's [`touched::json_patch_shape`]).
    Parts { parts: Value, shape: Value },
}

/// `PolicyError.Error()`: `policy 'P' with binding 'B' denied request: …` or
/// `policy "P" denied request: …`.
fn denied(policy: &str, binding: Option<&str>, detail: &str) -> String {
    match binding {
        Some(b) => format!("policy '{policy}' with binding '{b}' denied request: {detail}"),
        None => format!("policy {policy:?} denied request: {detail}"),
    }
}

/// A policy error, unless the policy's failurePolicy is `Ignore` (any other value fails).
fn policy_error(
    core: &PolicyCore,
    binding: Option<&str>,
    detail: String,
    reason: &str,
) -> Option<MutatingError> {
    if core.failure_policy == FailurePolicy::Ignore {
        return None;
    }
    Some(MutatingError {
        policy: core.name.clone(),
        binding: binding.map(str::to_owned),
        message: denied(&core.name, binding, &detail),
        detail,
        reason: reason.to_owned(),
        internal: false,
    })
}

fn dispatch(
    policies: &[MutatingPolicy],
    bindings: &[Binding],
    context: &MutationContext,
    object: &mut Value,
    rerun: Option<&Reinvocation>,
) -> MutatingOutcome {
    let mut state = rerun.cloned().unwrap_or_default();
    state.requested = false;
    let reinvoking = rerun.is_some();
    if reinvoking && state.last_output.as_ref() != Some(object) {
        // Another mutator changed the object since the last pass.
        state.require_reinvoking_previously_invoked();
    }
    let steps = {
        let mut attributes = context.request.attributes.clone();
        attributes.object = Some(&*object);
        plan(
            policies,
            bindings,
            &attributes,
            context.equivalents,
            context.params,
        )
    };
    let values = RequestValues::new(context.request).with_param_source(context.params);
    let mut config_errors = Vec::new();
    let mut errors = Vec::new();
    let mut changes = Vec::new();
    // `VersionedAttributes.Dirty`: a mutation was applied in this pass.
    let mut dirty = false;
    let mut internal = None;
    // Whether the object is known to convert to the kind's typed object (an
    // ApplyConfiguration merge checked it, and only such merges changed it since).
    let mut converted = false;
    'steps: for step in steps {
        let (policy, binding, matched, params) = match step {
            Step::ConfigError {
                policy,
                binding,
                message,
            } => {
                // The reason stays the Forbidden error's (`PolicyError.Reason` is empty).
                config_errors.extend(policy_error(
                    &policy.core,
                    binding.map(|b| b.name.as_str()),
                    message,
                    "Forbidden",
                ));
                continue;
            }
            Step::Invoke {
                policy,
                binding,
                matched,
                params,
            } => (policy, binding, matched, params),
        };
        let core = &policy.core;
        for param in &params {
            let param = param.as_deref();
            let fail = |error: InvocationError, errors: &mut Vec<MutatingError>| {
                errors.extend(policy_error(
                    core,
                    Some(&binding.name),
                    error.detail,
                    "Invalid",
                ));
            };
            match matches(policy, &values, &matched, param, object) {
                Ok(true) => {}
                Ok(false) => continue,
                Err(e) => {
                    fail(e, &mut errors);
                    continue;
                }
            }
            let key = InvocationKey::new(&core.name, &binding.name, param);
            if reinvoking && !state.reinvoke.contains(&key) {
                continue;
            }
            // The object before the invocation: the one its first applied mutation replaced.
            let mut before: Option<Before> = None;
            for mutation in &policy.mutations {
                if object.is_null() {
                    // No object to patch (DELETE).
                    continue;
                }
                let bound = Bound {
                    values: &values,
                    matched: &matched,
                    params: param,
                };
                let applied =
                    apply_mutation(policy, mutation, context, &bound, object, &mut converted);
                match applied {
                    Ok(previous) => {
                        dirty = true;
                        if let Some(previous) = previous {
                            before.get_or_insert(previous);
                        }
                    }
                    Err(e) if e.status.is_some() => {
                        internal = Some(MutatingError {
                            policy: core.name.clone(),
                            binding: Some(binding.name.clone()),
                            message: e.detail.clone(),
                            detail: e.detail,
                            reason: e.status.unwrap_or_default().to_owned(),
                            internal: true,
                        });
                        break 'steps;
                    }
                    Err(e) => fail(e, &mut errors),
                }
            }
            let mut paths = Vec::new();
            match &before {
                None => {}
                Some(Before::Whole(before)) => {
                    changed_paths(&mut String::new(), before, object, &mut paths)
                }
                Some(Before::Parts { parts, shape }) => {
                    touched::changed_paths(&mut String::new(), parts, object, shape, &mut paths)
                }
            }
            // Paths are found exactly where the object changed.
            if !paths.is_empty() {
                changes.push(Change {
                    policy: core.name.clone(),
                    binding: binding.name.clone(),
                    paths,
                });
                state.require_reinvoking_previously_invoked();
                state.requested = true;
            }
            if policy.reinvocation_policy == ReinvocationPolicy::IfNeeded {
                state.add_previously_invoked(key);
            }
        }
    }
    if dirty && !object.is_null() {
        state.require_reinvoking_previously_invoked();
        state.requested = true;
    }
    // Only a round with an `IfNeeded` invocation behind it compares the object with the
    // one this pass left (`wanted`, and the start of `reinvoke`): without one, no copy.
    state.last_output = (!state.previously_invoked.is_empty()).then(|| object.clone());
    let mut all: Vec<MutatingError> = internal.into_iter().collect();
    all.extend(config_errors);
    all.extend(errors);
    MutatingOutcome {
        errors: all,
        changes,
        reinvocation: state,
    }
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

/// Whether `expression` reads `object` (one that did not compile reads nothing).
fn references_object(expression: &crate::compiled::Expr) -> bool {
    expression
        .program
        .as_ref()
        .is_ok_and(|p| p.references("object"))
}

/// The invocation's matchConditions (§3): whether it applies, or the error under `Fail`.
fn matches(
    policy: &MutatingPolicy,
    values: &RequestValues,
    matched: &Matched,
    params: Option<&Value>,
    object: &Value,
) -> Result<bool, InvocationError> {
    if policy.core.match_conditions.is_empty() {
        return Ok(true);
    }
    let used = policy
        .core
        .match_conditions
        .iter()
        .any(|c| references_object(&c.expression));
    let activation = values.activation_on(used.then_some(object), matched, params, false);
    match conditions::evaluate(&policy.core, &activation) {
        ConditionsResult::Matches => Ok(true),
        ConditionsResult::NotMatched { .. } => Ok(false),
        ConditionsResult::Error(e) => Err(InvocationError::policy(e)),
    }
}

/// One mutation on `object` (`dispatchOne`): the kind's schema, the expression with a
/// fresh budget, the patch, the defaulter. Applied, it gives what it kept of the object
/// before it, or `None` when it left the object as it was without copying it (a JSON
/// Patch of no operation, or whose `test` failed): the invocation's changes are found by
/// comparing with the first object changed, so an unchanged one need not be kept.
///
/// The only mutation of its policy, with no defaulter, an ApplyConfiguration merges in
/// place and a JSON Patch of `add`/`replace`/`test` applies to the parts of the object it
/// names, and each keeps only those parts (`touched`): nothing else changes the object
/// before the invocation's changes are recorded.
fn apply_mutation(
    policy: &MutatingPolicy,
    mutation: &Mutation,
    context: &MutationContext,
    bound: &Bound,
    object: &mut Value,
    converted: &mut bool,
) -> Result<Option<Before>, InvocationError> {
    let Bound {
        values,
        matched,
        params,
    } = *bound;
    let core = &policy.core;
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
    let program = mutation
        .expression
        .program
        .as_ref()
        .map_err(|e| InvocationError::policy(format!("compilation error: {e}")))?;
    // The object is bound only when the mutation or a variable reads it (an
    // ApplyConfiguration of literals does not); bound, it is read lazily.
    let used =
        program.references("object") || core.variables.iter().any(|(_, v)| v.references("object"));
    // The activation borrows the object: it ends with the patch computed.
    let patch = {
        let activation = values.activation_on(used.then_some(&*object), matched, params, true);
        let mut invocation = Invocation::new(&activation, &core.variables, VALIDATION_BUDGET);
        match mutation.patch_type {
            PatchType::ApplyConfiguration => Patch::Merge(
                invocation
                    .evaluate_apply_configuration(program)
                    .map_err(|e| eval_error(e, core))?,
            ),
            PatchType::JsonPatch => Patch::Json(
                invocation
                    .evaluate_json_patch(program)
                    .map_err(|e| eval_error(e, core))?,
            ),
        }
    };
    let failed = |e| InvocationError::policy(format!("error applying patch: {e}"));
    let in_place = policy.mutations.len() == 1 && context.defaulter.is_none();
    let patched = match patch {
        Patch::Merge(patch) if in_place => {
            let parts = touched::project(object, &patch);
            let merge = match converted {
                true => apply_configuration_to_converted,
                false => apply_configuration_in_place,
            };
            merge(object, &patch, schema).map_err(failed)?;
            *converted = true;
            return Ok(Some(Before::Parts {
                parts,
                shape: patch,
            }));
        }
        Patch::Merge(patch) => Some(apply_configuration(object, &patch, schema).map_err(failed)?),
        // No operation: the object as it was, uncopied.
        Patch::Json(ops) if ops.is_empty() => None,
        Patch::Json(ops) => match touched::json_patch_shape(&ops).filter(|_| in_place) {
            Some(shape) => {
                // The operations read and write only the parts: patched there, put back.
                let parts = touched::project(object, &shape);
                let Some(patched) =
                    json_patch::apply(&parts, &ops).map_err(InvocationError::policy)?
                else {
                    // A failed `test`: the object as it was.
                    return Ok(None);
                };
                touched::restore(object, patched, &shape);
                *converted = false;
                return Ok(Some(Before::Parts { parts, shape }));
            }
            // `None` when a `test` failed: the object as it was.
            None => json_patch::apply(object, &ops).map_err(InvocationError::policy)?,
        },
    };
    let previous = patched.map(|patched| Before::Whole(std::mem::replace(object, patched)));
    if previous.is_some() || context.defaulter.is_some() {
        // Changed otherwise than by a single merge: to be checked again.
        *converted = false;
    }
    if let Some(default) = context.defaulter {
        default(object);
    }
    Ok(previous)
}

/// What an invocation's expressions are evaluated with.
#[derive(Clone, Copy)]
struct Bound<'a, 'r> {
    values: &'a RequestValues<'r>,
    matched: &'a Matched,
    params: Option<&'a Value>,
}

/// A mutation's evaluated patch.
enum Patch {
    /// An ApplyConfiguration's object.
    Merge(Value),
    /// A JSONPatch's operations.
    Json(Vec<Value>),
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

    /// First pass, then (when it asked for one) one reinvocation round.
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
            .reinvocation
            .requested()
            .then(|| reinvoke(policies, bindings, &context, &first.reinvocation, object));
        (first, second)
    }

    fn foo(object: &Value) -> &str {
        object["data"]["foo"].as_str().unwrap_or("")
    }

    #[test]
    fn one_reinvocation_round_reruns_if_needed_invocations() {
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
        assert!(first.reinvocation.wanted(&object));
        let second = second.expect("a reinvocation round");
        let rerun: Vec<&str> = second.changes.iter().map(|c| c.policy.as_str()).collect();
        assert_eq!(rerun, ["policy-1", "policy-2"]);
        assert_eq!(foo(&object), "5");
    }

    #[test]
    fn the_last_if_needed_invocation_reruns_too() {
        // Whatever the order: the end of a pass that applied a mutation marks every
        // IfNeeded invocation that ran.
        let policies = [
            policy("a", "Never", increment()),
            policy("b", "IfNeeded", increment()),
            policy("c", "IfNeeded", increment()),
        ];
        let bindings = [binding("a"), binding("b"), binding("c")];
        let mut object = configmap("0");
        let (first, second) = run(&policies, &bindings, &mut object);
        assert!(first.reinvocation.requested());
        let second = second.unwrap();
        let rerun: Vec<&str> = second.changes.iter().map(|c| c.policy.as_str()).collect();
        assert_eq!(rerun, ["b", "c"]);
        assert_eq!(foo(&object), "5");
    }

    #[test]
    fn reinvocation_follows_applied_patches() {
        let skipped = json!([{"patchType": "JSONPatch", "jsonPatch": {"expression":
            "[JSONPatch{op: 'test', path: '/data/foo', value: 'x'}, JSONPatch{op: 'add', path: '/data/bar', value: 'y'}]"}}]);
        let policies = [
            policy("a", "IfNeeded", json!([])),
            policy("b", "Never", skipped),
        ];
        let bindings = [binding("a"), binding("b")];
        let mut object = configmap("0");
        let (first, second) = run(&policies, &bindings, &mut object);
        // The failed `test` skips the patch, yet the patch was applied: a round is asked
        // for, and `a` (no mutation) is marked.
        assert!(first.changes.is_empty());
        assert!(first.reinvocation.requested());
        assert!(second.unwrap().changes.is_empty());
        assert_eq!(foo(&object), "0");

        let only_if_needed = [policy("a", "IfNeeded", json!([]))];
        let mut object = configmap("0");
        let (first, second) = run(&only_if_needed, &[binding("a")], &mut object);
        assert!(!first.reinvocation.requested() && second.is_none());
        assert!(!first.reinvocation.wanted(&object));
        // Another mutator changes the object: the round wants `a` again.
        object["data"]["foo"] = json!("9");
        assert!(first.reinvocation.wanted(&object));
    }

    #[test]
    fn a_json_patch_has_the_live_object_converted_again() {
        // `a` merges (the object is checked); `b` adds a field ConfigMap does not
        // declare; `c` must find the live object no longer converts, `d` too.
        let undeclared = json!([{"patchType": "JSONPatch", "jsonPatch": {"expression":
            "[JSONPatch{op: 'add', path: '/spec', value: {'x': 'y'}}]"}}]);
        let policies = [
            policy("a", "Never", increment()),
            policy("b", "Never", undeclared),
            policy("c", "Never", increment()),
            policy("d", "Never", increment()),
        ];
        let bindings = [binding("a"), binding("b"), binding("c"), binding("d")];
        let mut object = configmap("0");
        let (first, _) = run(&policies, &bindings, &mut object);
        let failed: Vec<&str> = first.errors.iter().map(|e| e.policy.as_str()).collect();
        assert_eq!(failed, ["c", "d"]);
        assert!(
            first.errors[0].detail.starts_with(
                "error applying patch: failed to convert original object to typed object: .spec"
            ),
            "{}",
            first.errors[0].detail
        );
        assert_eq!(foo(&object), "1");
        let changed: Vec<(&str, &[String])> = first
            .changes
            .iter()
            .map(|c| (c.policy.as_str(), c.paths.as_slice()))
            .collect();
        assert_eq!(
            changed,
            [
                ("a", &["/data/foo".to_owned()][..]),
                ("b", &["/spec".to_owned()][..])
            ]
        );
    }

    #[test]
    fn errors_follow_failure_policy_and_schemas_are_required() {
        let failing = json!([
            {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": INCREMENT}},
            {"patchType": "JSONPatch", "jsonPatch": {"expression": "[JSONPatch{op: 'replace', path: '/data/nope/x', value: 'v'}]"}},
            {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": INCREMENT}},
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
        // A failed mutation ends only itself: the next ones run, in both policies.
        assert_eq!(foo(&object), "4");

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
