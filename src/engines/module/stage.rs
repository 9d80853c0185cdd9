//! A module in the pipeline: for each resource its `match` selects, build the admission
//! request, call the module, check the answer, and turn it into a change, a rejection,
//! warnings, or an error naming the module and the resource.

use super::capabilities::{Host, KindObjects, LogLevel, Logs};
use super::kubewarden::validation_verdict;
use super::kubewarden_kinds::{self as webhook, Webhook};
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
use std::sync::{Arc, OnceLock};

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
    /// What the policy's host calls see: the objects of its `contextAwareResources`,
    /// gathered from the run's context on first use.
    pub host: OnceLock<Arc<Host>>,
    /// For a Kubewarden `ClusterAdmissionPolicy` or `AdmissionPolicy`: the webhook that
    /// selects what it sees, in place of `spec.match`.
    pub webhook: Option<Webhook>,
}

/// What admission of one resource by one module came to.
struct Answer {
    verdict: Verdict,
    /// The namespace kadmit lent a namespaced resource that names none.
    lent_namespace: Option<String>,
    /// What the policy logged through the host.
    logs: Logs,
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
        let resource_name = cx.kinds.resource_of(&resource.id.group, &resource.id.kind);
        let matched = match &self.webhook {
            Some(webhook) => webhook
                .matches(&webhook::Subject {
                    operation: cx.operation.as_str(),
                    group: &resource.id.group,
                    version: &resource.id.version,
                    kind: &resource.id.kind,
                    resource: &resource_name,
                    name: &resource.id.name,
                    namespace: namespace.as_deref().unwrap_or(""),
                    object: &object,
                    namespace_object: namespace_value.as_ref(),
                })
                .map_err(|e| format!("spec.rules: {e}")),
            None => self
                .spec
                .matcher
                .matches(&target)
                .map_err(|e| format!("spec.match: {e}")),
        };
        match matched {
            Ok(true) => self.matched.store(true, Ordering::Relaxed),
            Ok(false) => return Ok(None),
            Err(e) => return Err(self.problem(resource, format!("{}: {e}", self.describe()))),
        }
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
        if let Some(webhook) = &self.webhook {
            match webhook.conditions_pass(&request) {
                Ok(true) => {}
                Ok(false) => return Ok(None),
                Err(e) => return Err(self.problem(resource, format!("{}: {e}", self.describe()))),
            }
        }
        let request = match self.spec.protocol {
            Protocol::K8sWasi => admission_review(request),
            Protocol::KubewardenWasi | Protocol::KubewardenWapc => request,
        };
        let stdin = serde_json::to_vec(&envelope(
            self.spec.protocol,
            request,
            self.spec.settings.as_ref(),
        ))
        .expect("a JSON value serializes");
        let output = self
            .runner
            .call(
                self.spec.protocol,
                "validate",
                stdin,
                self.host(cx),
                self.spec.limits,
            )
            .map_err(|failure| {
                self.problem(resource, format!("{} failed: {failure}", self.describe()))
            })?;
        let verdict = match self.spec.protocol {
            Protocol::K8sWasi => read_envelope(&output.stdout).and_then(|review| {
                admission_verdict(&review, &uid, self.spec.mutating, sent_object.as_ref())
            }),
            Protocol::KubewardenWasi | Protocol::KubewardenWapc => {
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
            logs: output.logs,
        }))
    }

    /// The objects the policy may read through the host, from `cx` (the same for every
    /// resource of the run, so gathered once).
    fn host(&self, cx: &Context) -> &Arc<Host> {
        self.host.get_or_init(|| {
            let kinds = self
                .spec
                .context_aware
                .iter()
                .map(|(api_version, kind)| {
                    let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
                    let key = (group.to_owned(), kind.clone());
                    KindObjects {
                        api_version: api_version.clone(),
                        kind: kind.clone(),
                        resource: cx.kinds.resource_of(group, kind),
                        namespaced: cx.kinds.scope_of(group, kind) == Scope::Namespaced,
                        objects: cx
                            .objects
                            .get(&key)
                            .map(|objects| objects.in_namespace(None).cloned().collect())
                            .unwrap_or_default(),
                    }
                })
                .collect();
            Arc::new(super::capabilities::host_for(kinds, &cx.default_namespace))
        })
    }

    /// Diagnostics for what the policy logged: errors and warnings as warnings, the rest
    /// as information.
    fn report_logs(&self, resource: &Resource, logs: &Logs, out: &mut Vec<Diagnostic>) {
        let describe = self.describe();
        let mut lines: Vec<(LogLevel, String)> = logs
            .lines
            .iter()
            .map(|line| (line.level, line.message.clone()))
            .collect();
        if logs.dropped > 0 {
            lines.push((
                LogLevel::Warning,
                format!("{} more log lines were dropped", logs.dropped),
            ));
        }
        for (level, message) in lines {
            let (diagnostic, name): (fn(String) -> Diagnostic, &str) = match level {
                LogLevel::Error => (Diagnostic::warning, "error"),
                LogLevel::Warning => (Diagnostic::warning, "warning"),
                LogLevel::Info => (Diagnostic::info, "info"),
                LogLevel::Debug => (Diagnostic::info, "debug"),
                LogLevel::Trace => (Diagnostic::info, "trace"),
            };
            out.push(
                diagnostic(format!("{describe} logged ({name}): {message}"))
                    .with_resource(&resource.id)
                    .with_rule(self.rule.clone())
                    .with_origin(&resource.origin),
            );
        }
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
        self.report_logs(resource, &answer.logs, &mut mutation.diagnostics);
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
            Ok(Some(answer)) => {
                self.report_logs(resource, &answer.logs, &mut diagnostics);
                self.report(resource, &answer.verdict, &mut diagnostics)
            }
            Ok(None) => {}
            Err(problem) => diagnostics.push(problem),
        }
        diagnostics
    }
}
