//! The ValidatingAdmissionPolicy stage: every policy and binding of the run evaluated on
//! each resource (`kadmit_policy::validating::validate`). Each denial is an error naming
//! the resource (exit 1; kadmit reports every denial, the server only the first), each
//! `Warn` a warning with the server's text, each audit annotation an info line under its
//! server key (`validation.policy.admission.k8s.io/validation_failure`, `<policy>/<key>`).

use super::request::{namespace_object, Builder};
use crate::core::diagnostic::Diagnostic;
use crate::core::pipeline::{Context, Unmatched, Validator};
use crate::core::resource::Resource;
use kadmit_policy::compiled::{Binding, ValidatingPolicy};
use kadmit_policy::validating::validate;

pub(super) struct Validate {
    pub policies: Vec<ValidatingPolicy>,
    pub bindings: Vec<Binding>,
    pub request: Builder,
}

impl Validator for Validate {
    fn validate(&self, resource: &Resource, cx: &Context) -> Vec<Diagnostic> {
        let namespace = namespace_object(resource, cx);
        let request = self.request.request(resource, cx, namespace.as_ref());
        let params = self.request.params(cx);
        let outcome = validate(
            &self.policies,
            &self.bindings,
            &request,
            &self.request.equivalents,
            &params,
        );
        let about = |d: Diagnostic| d.with_resource(&resource.id).with_origin(&resource.origin);
        let mut out = Vec::new();
        // The server's message names the policy and the binding already; reports get
        // them as the rule.
        for denial in outcome.denials {
            let rule = match &denial.binding {
                Some(binding) => {
                    format!(
                        "ValidatingAdmissionPolicy {} (binding {binding})",
                        denial.policy
                    )
                }
                None => format!("ValidatingAdmissionPolicy {}", denial.policy),
            };
            out.push(about(
                Diagnostic::rejected(denial.message).with_rule_named_in_message(rule),
            ));
        }
        out.extend(
            outcome
                .warnings
                .into_iter()
                .map(|w| about(Diagnostic::warning(w))),
        );
        out.extend(outcome.audit_annotations.into_iter().map(|(key, value)| {
            about(Diagnostic::info(format!("audit annotation {key}: {value}")))
        }));
        out
    }

    fn unmatched(&self) -> Vec<Unmatched> {
        let names = self.policies.iter().map(|p| p.core.name.as_str());
        super::unmatched::unmatched("ValidatingAdmissionPolicy", names, &self.bindings)
    }
}
