//! A module in the pipeline: for each resource its `match` selects, build the admission
//! request, call the module, check the answer, and turn it into a change, a rejection,
//! warnings, or an error naming the module and the resource.

use super::kubewarden::validation_verdict;
use super::order::in_original_order;
use super::program::Runner;
use super::response::{admission_verdict, read_envelope, Decision, Verdict};
use super::review::{
    admission_request, admission_review, envelope, request_uid, Requester, Subject,
};
use super::spec::{ModuleSpec, Protocol};
use crate::core::diagnostic::Diagnostic;
use crate::core::kinds::Scope;
use crate::core::pipeline::{Change, Context, Mutation, Mutator, Unmatched, Validator};
use crate::core::resource::Resource;
use kadmit_jsonpatch::diff::changed_paths;
use kadmit_match::matching::Target;
use serde_json::Value;
use std::sync::atomic::{AtomicBool, Ordering};

/// A compiled `AdmissionModule`.
pub struct ModuleStage {
    /// `metadata.name`, as the reference host names modules in messages.
    pub name: String,
    /// `AdmissionModule <name>`, as the change report and diagnostics name rules.
    pub rule: String,
    pub spec: ModuleSpec,
    pub runner: Runner,
    pub requester: Requester,
    /// Whether the module's `match` took any object of the run.
    pub matched: AtomicBool,
}

/// What admission of one resource by one module came to.
struct Answer {
    verdict: Verdict,
    /// The namespace kadmit lent a namespaced resource that names none.
    lent_namespace: Option<String>,
}

impl ModuleStage {
    fn describe(&self) -> String {
        format!("admission {} module {:?}", self.runner.noun(), self.name)
    }

    fn problem(&self, resource: &Resource, message: String) -> Diagnostic {
        Diagnostic::config(message)
            .with_resource(&resource.id)
            .with_rule(self.rule.clone())
            .with_origin(&resource.origin)
    }

    /// Runs the module on `resource` when its match selects it; `Ok(None)` when not.
    fn consult(&self, resource: &Resource, cx: &Context) -> Result<Option<Answer>, Diagnostic> {
        let scope = cx.kinds.scope_of(&resource.id.group, &resource.id.kind);
        let namespace = match scope {
            Scope::Cluster => None,
            Scope::Namespaced => cx.effective_namespace(resource).map(str::to_owned),
        };
        let lent_namespace = namespace
            .clone()
            .filter(|_| resource.id.namespace.is_none());
        // On DELETE the module matches and judges the object being deleted.
        let lend = |value: &Value| {
            let mut value = value.clone();
            if let (Some(ns), Some(Value::Object(metadata))) =
                (&lent_namespace, value.get_mut("metadata"))
            {
                metadata
                    .entry("namespace")
                    .or_insert_with(|| Value::String(ns.clone()));
            }
            value
        };
        let object = lend(cx.content_of(resource));
        let old_object = resource.old.as_deref().map(lend);
        let namespace_value = namespace.as_deref().and_then(|ns| cx.namespace_object(ns));
        let target = Target {
            object: &object,
            namespace: namespace_value.as_ref(),
            source: "",
        };
        match self.spec.matcher.matches(&target) {
            Ok(true) => self.matched.store(true, Ordering::Relaxed),
            Ok(false) => return Ok(None),
            Err(e) => {
                return Err(self.problem(resource, format!("{}: spec.match: {e}", self.describe())))
            }
        }
        let resource_name = cx.kinds.resource_of(&resource.id.group, &resource.id.kind);
        let subject = Subject {
            group: &resource.id.group,
            version: &resource.id.version,
            kind: &resource.id.kind,
            resource: &resource_name,
            name: (!resource.id.generated_name).then_some(resource.id.name.as_str()),
            namespace: namespace.as_deref(),
            operation: cx.operation_of(resource).as_str(),
        };
        let uid = request_uid(&subject);
        let request = admission_request(
            &subject,
            &self.requester,
            &uid,
            &object,
            old_object.as_ref(),
        );
        let sent_object = request.get("object").cloned();
        let request = match self.spec.protocol {
            Protocol::K8sWasi => admission_review(request),
            Protocol::KubewardenWasi => request,
        };
        let stdin = serde_json::to_vec(&envelope(
            self.spec.protocol,
            request,
            self.spec.settings.as_ref(),
        ))
        .expect("a JSON value serializes");
        let output = self
            .runner
            .call(self.spec.protocol, "validate", stdin, self.spec.limits)
            .map_err(|failure| {
                self.problem(resource, format!("{} failed: {failure}", self.describe()))
            })?;
        let verdict = match self.spec.protocol {
            Protocol::K8sWasi => read_envelope(&output.stdout).and_then(|review| {
                admission_verdict(&review, &uid, self.spec.mutating, sent_object.as_ref())
            }),
            Protocol::KubewardenWasi => {
                validation_verdict(&output.stdout, self.spec.mutating, sent_object.as_ref())
            }
        }
        .map_err(|e| {
            self.problem(
                resource,
                format!("{} returned an invalid response: {e}", self.describe()),
            )
        })?;
        Ok(Some(Answer {
            verdict,
            lent_namespace,
        }))
    }

    /// Diagnostics for the verdict's warnings and a denial.
    fn report(&self, resource: &Resource, verdict: &Verdict, out: &mut Vec<Diagnostic>) {
        for warning in &verdict.warnings {
            out.push(
                Diagnostic::warning(warning.clone())
                    .with_resource(&resource.id)
                    .with_rule(self.rule.clone())
                    .with_origin(&resource.origin),
            );
        }
        if let Decision::Denied(message) = &verdict.decision {
            out.push(
                Diagnostic::rejected(format!("{} denied the request: {message}", self.describe()))
                    .with_resource(&resource.id)
                    .with_rule(self.rule.clone())
                    .with_origin(&resource.origin),
            );
        }
    }
}

impl ModuleStage {
    fn unmatched_rule(&self) -> Vec<Unmatched> {
        match self.matched.load(Ordering::Relaxed) {
            true => Vec::new(),
            false => vec![Unmatched {
                rule: self.rule.clone(),
                kinds: Vec::new(),
            }],
        }
    }
}

impl Mutator for ModuleStage {
    fn unmatched(&self) -> Vec<Unmatched> {
        self.unmatched_rule()
    }

    fn mutate(&self, resource: &mut Resource, cx: &Context) -> Mutation {
        let mut mutation = Mutation::default();
        let answer = match self.consult(resource, cx) {
            Ok(Some(answer)) => answer,
            Ok(None) => return mutation,
            Err(problem) => {
                mutation.diagnostics.push(problem);
                return mutation;
            }
        };
        self.report(resource, &answer.verdict, &mut mutation.diagnostics);
        if let Decision::Allowed(Some(mut patched)) = answer.verdict.decision {
            if let (Some(ns), Some(Value::Object(metadata))) =
                (&answer.lent_namespace, patched.get_mut("metadata"))
            {
                if metadata.get("namespace").and_then(Value::as_str) == Some(ns.as_str()) {
                    metadata.shift_remove("namespace");
                }
            }
            let patched = in_original_order(&resource.value, patched);
            let mut paths = Vec::new();
            changed_paths(&mut String::new(), &resource.value, &patched, &mut paths);
            mutation.changes = paths
                .into_iter()
                .map(|path| Change {
                    path,
                    rule: self.rule.clone(),
                })
                .collect();
            resource.value = patched;
        }
        mutation
    }
}

impl Validator for ModuleStage {
    fn unmatched(&self) -> Vec<Unmatched> {
        self.unmatched_rule()
    }

    fn validate(&self, resource: &Resource, cx: &Context) -> Vec<Diagnostic> {
        let mut diagnostics = Vec::new();
        match self.consult(resource, cx) {
            Ok(Some(answer)) => self.report(resource, &answer.verdict, &mut diagnostics),
            Ok(None) => {}
            Err(problem) => diagnostics.push(problem),
        }
        diagnostics
    }
}
