//! The validate half of create for a built-in kind: native validation
//! (`kadmit_native::validation`) of the object as the server holds it (defaulted),
//! refused as the server's 422 in kubectl's words (`The Deployment
//! "web" is invalid: …`, every field error at once). On UPDATE, the update rules
//! (`kadmit_native::validation::validate_update`) compare it with the old object, read
//! as the server stores it (decoded and defaulted like the new one).

use super::Stage;
use crate::core::diagnostic::Diagnostic;
use crate::core::pipeline::{Context, Operation, Validator};
use crate::core::resource::Resource;
use kadmit_schema::admission::{FieldValidation, Refused};
use kadmit_schema::builtin::strict_decode;
use serde_json::Value;

pub(super) struct Validate(pub Stage);

impl Validator for Validate {
    fn validate(&self, resource: &Resource, cx: &Context) -> Vec<Diagnostic> {
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
        let native_kind = stage.native_kind(resource);
        let mut causes = kadmit_native::validation::validate(native_kind, value, stage.minor);
        if cx.operation_of(resource) == Operation::Update {
            if let Some(old) = cx.old_object_of(resource) {
                let old = stored(stage, &kind, resource, old);
                causes.extend(kadmit_native::validation::validate_update(
                    native_kind,
                    value,
                    &old,
                    stage.minor,
                ));
            }
        }
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

/// The old object as the server holds it: decoded (unknown fields dropped) and defaulted
/// with the rules of the new one's version.
fn stored(
    stage: &Stage,
    kind: &kadmit_schema::builtin::KindSchema,
    resource: &Resource,
    old: &Value,
) -> Value {
    let mut old = old.clone();
    let decoded = strict_decode(kind, &old, FieldValidation::Ignore);
    decoded.apply(&mut old);
    kadmit_native::defaults::run(stage.native_kind(resource), &mut old, stage.minor);
    old
}
