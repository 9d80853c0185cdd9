//! The validate half of create for a built-in kind: native validation
//! (`kadmit_native::validation`) of the object as the server holds it (defaulted),
//! refused as the server's 422 in kubectl's words (`The Deployment
//! "web" is invalid: …`, every field error at once).

use super::Stage;
use crate::core::diagnostic::Diagnostic;
use crate::core::pipeline::{Context, Validator};
use crate::core::resource::Resource;
use kadmit_schema::admission::Refused;
use serde_json::Value;

pub(super) struct Validate(pub Stage);

impl Validator for Validate {
    fn validate(&self, resource: &Resource, _: &Context) -> Vec<Diagnostic> {
        let stage = &self.0;
        let Ok(Some(kind)) = stage.kind_of(resource) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        // Validation sees the defaulted object; it is already in hand unless the defaults
        // are not written (a document's tree is not copied for nothing: docs/security.md).
        let defaulted;
        let value = if stage.write_defaults {
            &resource.value
        } else {
            let mut copy = resource.value.clone();
            kadmit_native::defaults::run(stage.native_kind(resource), &mut copy, stage.minor);
            defaulted = copy;
            &defaulted
        };
        // The server gives a namespaced object without a namespace the request's (which
        // validation does not look at), and drops the namespace of a cluster-scoped one.
        let has_namespace = value
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .is_some_and(|ns| !ns.is_empty());
        if !kind.namespaced && has_namespace {
            out.push(
                Diagnostic::warning(format!(
                    "metadata.namespace is ignored: {} is cluster-scoped (the API server drops it)",
                    kind.kind
                ))
                .with_resource(&resource.id)
                .with_origin(&resource.origin),
            );
        }
        let causes =
            kadmit_native::validation::validate(stage.native_kind(resource), value, stage.minor);
        if !causes.is_empty() {
            let refusal = Refused::Invalid {
                kind: kind.kind.clone(),
                group: kind.group.clone(),
                name: resource
                    .value
                    .pointer("/metadata/name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
                causes,
            };
            out.push(
                Diagnostic::rejected(refusal.kubectl_message())
                    .with_resource(&resource.id)
                    .with_origin(&resource.origin),
            );
        }
        out
    }
}
