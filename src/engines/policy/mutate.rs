//! The MutatingAdmissionPolicy stage: every policy and binding of the run applied to each
//! resource (`kadmit_policy::mutating::dispatch`), first of the mutating phase. Each change
//! is recorded as `MutatingAdmissionPolicy <policy> (binding <binding>)` with the paths it
//! changed; an error refuses the resource with the server's message (exit 1). The
//! invocations of `reinvocationPolicy: IfNeeded` policies are reinvoked one by one in the
//! pipeline's reinvocation round ([`Rerun`]), each only if the object changed since it
//! last left it.
//!
//! The server defaults the object after every mutation; kadmit defaults it after the
//! mutating phase (the pipeline's second defaulting pass), so a later mutation of the same
//! phase sees the object without the defaults the earlier one would have caused
//! (docs/admission-policies.md, differences).

use super::request::{namespace_object, Builder};
use crate::core::diagnostic::{Diagnostic, Severity};
use crate::core::pipeline::{Change, Context, Mutation, Mutator, Rerun, Unmatched};
use crate::core::resource::Resource;
use kadmit_policy::compiled::Binding;
use kadmit_policy::mutating::dispatch::{
    mutate, reinvoke, MutatingOutcome, MutationContext, Reinvocation,
};
use kadmit_policy::mutating::policy::{MutatingPolicy, ReinvocationPolicy};
use kadmit_schema::definition::Crd;
use kadmit_schema::kinds::Builtin;
use kadmit_schema::lazy::LazyCrd;
use serde_json::Value;

pub(super) struct Mutate {
    pub policies: Vec<MutatingPolicy>,
    pub bindings: Vec<Binding>,
    pub request: Builder,
    /// The schemas ApplyConfiguration merges with: built-in kinds, then the run's CRDs.
    pub schemas: (Builtin, Vec<LazyCrd<Crd>>),
}

impl Mutate {
    /// Runs the first pass (`state` `None`) or the reinvocation round on a copy of the
    /// object, then writes it back.
    fn run(
        &self,
        resource: &mut Resource,
        cx: &Context,
        state: Option<&Reinvocation>,
    ) -> (Mutation, Reinvocation) {
        // The object is mutated out of the resource, which only the request reads
        // meanwhile (and never its `object`: the dispatch binds the one it mutates). It
        // is copied only when it is also the request's `oldObject` (an UPDATE or DELETE
        // without `--old` sees the object as its own previous version).
        let old_is_object = cx
            .old_object_of(resource)
            .is_some_and(|old| std::ptr::eq(old, &resource.value));
        let mut object: Value = if old_is_object {
            resource.value.clone()
        } else {
            std::mem::take(&mut resource.value)
        };
        let outcome = {
            let namespace = namespace_object(resource, cx);
            let request = self.request.request(resource, cx, namespace.as_ref());
            let params = self.request.params(cx);
            let context = MutationContext {
                request: &request,
                equivalents: &self.request.equivalents,
                params: &params,
                schemas: &self.schemas,
                defaulter: None,
            };
            match state {
                None => mutate(&self.policies, &self.bindings, &context, &mut object),
                Some(state) => {
                    reinvoke(&self.policies, &self.bindings, &context, state, &mut object)
                }
            }
        };
        resource.value = object;
        record(outcome, resource)
    }
}

/// The outcome as the pipeline records it.
fn record(outcome: MutatingOutcome, resource: &Resource) -> (Mutation, Reinvocation) {
    let mut mutation = Mutation::default();
    for change in outcome.changes {
        let rule = format!(
            "MutatingAdmissionPolicy {} (binding {})",
            change.policy, change.binding
        );
        mutation
            .changes
            .extend(change.paths.into_iter().map(|path| Change {
                path,
                rule: rule.clone(),
            }));
    }
    for error in outcome.errors {
        mutation.diagnostics.push(
            Diagnostic::rejected(error.message)
                .with_resource(&resource.id)
                .with_origin(&resource.origin),
        );
    }
    (mutation, outcome.reinvocation)
}

impl Mutator for Mutate {
    fn mutate(&self, resource: &mut Resource, cx: &Context) -> Mutation {
        self.run(resource, cx, None).0
    }

    fn first_pass<'s>(
        &'s self,
        resource: &mut Resource,
        cx: &Context,
    ) -> (Mutation, Option<Box<dyn Rerun + 's>>) {
        let (mutation, state) = self.run(resource, cx, None);
        // A refused request goes no further: nothing is reinvoked after an error.
        let reinvocable = !mutation
            .diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
            && self
                .policies
                .iter()
                .any(|p| p.reinvocation_policy == ReinvocationPolicy::IfNeeded);
        let rerun =
            reinvocable.then(|| Box::new(Again { stage: self, state }) as Box<dyn Rerun + 's>);
        (mutation, rerun)
    }

    fn unmatched(&self) -> Vec<Unmatched> {
        let names = self.policies.iter().map(|p| p.core.name.as_str());
        super::unmatched::unmatched("MutatingAdmissionPolicy", names, &self.bindings)
    }
}

/// The `IfNeeded` invocations after the first pass, with the object each left.
struct Again<'s> {
    stage: &'s Mutate,
    state: Reinvocation,
}

impl Rerun for Again<'_> {
    fn wanted(&self, current: &Value) -> bool {
        self.state.wanted(current)
    }

    fn run(self: Box<Self>, resource: &mut Resource, cx: &Context) -> Mutation {
        self.stage.run(resource, cx, Some(&self.state)).0
    }
}
