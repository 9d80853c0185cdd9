//! The validate half of create for a built-in kind: native validation
//! (`kadmit_native::validation`) of the object as the server holds it (defaulted, its
//! namespace reconciled), refused as the server's 422 in kubectl's words (`The Deployment
//! "web" is invalid: …`, every field error at once).

use super::Stage;
use crate::core::diagnostic::Diagnostic;
use crate::core::pipeline::{Context, Validator};
use crate::core::resource::Resource;
use kadmit_schema::admission::Refused;
use serde_json::Value;

pub(super) struct Validate(pub Stage);

impl Validator for Validate {
    fn validate(&self, resource: &Resource, cx: &Context) -> Vec<Diagnostic> {
        let stage = &self.0;
        let Ok(Some(kind)) = stage.kind_of(resource) else {
            return Vec::new();
        };
        let mut value = resource.value.clone();
        let mut out = Vec::new();
        if !stage.write_defaults {
            kadmit_native::defaults::apply(stage.native_kind(resource), &mut value, stage.minor);
        }
        if let Some(Value::Object(metadata)) = value.get_mut("metadata") {
            let has_namespace = metadata
                .get("namespace")
                .and_then(Value::as_str)
                .is_some_and(|ns| !ns.is_empty());
            if kind.namespaced && !has_namespace {
                metadata.insert("namespace".into(), cx.default_namespace.clone().into());
            } else if !kind.namespaced && has_namespace {
                metadata.shift_remove("namespace");
                out.push(
                    Diagnostic::warning(format!(
                        "metadata.namespace is ignored: {} is cluster-scoped (the API server drops it)",
                        kind.kind
                    ))
                    .with_resource(&resource.id)
                    .with_origin(&resource.origin),
                );
            }
        }
        let causes =
            kadmit_native::validation::validate(stage.native_kind(resource), &value, stage.minor);
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
