//! The policy and binding objects as the API server takes them on create: strictly decoded
//! against their built-in schema (`admissionregistration.k8s.io`, the run's Kubernetes
//! version), then validated (`kadmit_policy::validation`). A refused object is a
//! configuration error in kubectl's words, every problem at once; the engine compiles only
//! the accepted ones.

use crate::core::config::ConfigItem;
use crate::core::diagnostic::Diagnostic;
use crate::core::resource::Resource;
use kadmit_schema::admission::{FieldValidation, Refused};
use kadmit_schema::builtin::{lookup, strict_decode, KindSchema};
use kadmit_schema::field_error::FieldError;
use serde_json::Value;

/// Versions tried, in order, when the run's Kubernetes version does not serve the object's
/// own (MutatingAdmissionPolicy v1 is GA in 1.36, after the newest embedded schemas): the
/// kinds keep one shape across versions.
const FALLBACK_VERSIONS: [&str; 3] = ["v1", "v1beta1", "v1alpha1"];

/// Decodes and validates `item`: the object the engine compiles (unknown fields dropped
/// under `Warn`/`Ignore`), or `None` with what refused it.
pub(super) fn accept(
    item: &ConfigItem,
    minor: u32,
    mode: FieldValidation,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Value> {
    let resource = &item.resource;
    let report = |message: String| {
        Diagnostic::config(message)
            .with_rule(rule_name(resource))
            .with_origin(&resource.origin)
    };
    let mut value = resource.value.clone();
    if let Some(kind) = schema_of(resource, minor) {
        let decoded = strict_decode(&kind, &value, mode);
        if let Some(message) = decoded.message {
            diagnostics.push(report(message));
            return None;
        }
        diagnostics.extend(decoded.warnings.iter().map(|w| {
            Diagnostic::warning(w.clone())
                .with_rule(rule_name(resource))
                .with_origin(&resource.origin)
        }));
        decoded.apply(&mut value);
    }
    let causes: Vec<FieldError> = kadmit_policy::validation::validate_policy(&value);
    if !causes.is_empty() {
        let refusal = Refused::Invalid {
            kind: resource.id.kind.clone(),
            group: resource.id.group.clone(),
            name: resource.id.name.clone(),
            causes,
        };
        diagnostics.push(report(refusal.kubectl_message()));
        return None;
    }
    Some(value)
}

/// `ValidatingAdmissionPolicy require-labels`: how messages name a policy object.
pub(super) fn rule_name(resource: &Resource) -> String {
    format!("{} {}", resource.id.kind, resource.id.name)
}

fn schema_of(resource: &Resource, minor: u32) -> Option<KindSchema> {
    let id = &resource.id;
    std::iter::once(id.version.as_str())
        .chain(FALLBACK_VERSIONS)
        .find_map(|version| lookup(minor, &id.group, version, &id.kind).ok().flatten())
}
