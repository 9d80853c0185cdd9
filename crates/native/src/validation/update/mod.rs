//! Native validation of an UPDATE (reference §4; upstream `Validate<Kind>Update` and the
//! strategies' `ValidateUpdate`): the rules that compare the object with the stored one.
//! Both objects are strictly decoded and defaulted. A field the server fills in itself
//! and a manifest usually leaves out (a Service's cluster IPs, a Job's generated
//! selector) is taken from the old object when the new one has none, as the server's
//! `PrepareForUpdate` or an apply's patch of the stored object would.
//!
//! Applied: ObjectMeta (`ValidateObjectMetaUpdate`); apps/v1 Deployment, ReplicaSet and
//! DaemonSet `spec.selector`; StatefulSet's forbidden spec fields; Job `spec.selector`,
//! `spec.template` and `spec.completions`; Pod spec (`ValidatePodUpdate`); Service cluster
//! IPs, IP families and `loadBalancerClass`; ConfigMap and Secret `immutable`, Secret
//! `type`; PersistentVolumeClaim spec and storage request; PersistentVolume source,
//! `volumeMode` and node affinity; StorageClass; IngressClass `spec.controller`;
//! RoleBinding and ClusterRoleBinding `roleRef`. Comparisons are the server's semantic
//! equality ([`semantic`]): quantities by value, nil equal to empty.

mod gofmt;
mod pod;
mod pv;
mod pvc;
mod rules;
mod semantic;
mod service;

#[cfg(test)]
mod tests;

use crate::{Kind, Minor};
use kadmit_schema::field_error::FieldError;
use kadmit_schema::objectmeta::validate_object_meta_update;
use serde_json::{json, Value};

/// The UPDATE-only errors of `new` replacing `old` (both a `kind`); the caller adds the
/// create-time validation of `new`, which the server runs on update too.
pub fn validate_update(kind: Kind<'_>, new: &Value, old: &Value, minor: Minor) -> Vec<FieldError> {
    let empty = json!({});
    let mut errs = validate_object_meta_update(
        new.get("metadata").unwrap_or(&empty),
        old.get("metadata").unwrap_or(&empty),
        "metadata",
    );
    let rule: Option<fn(&Value, &Value) -> Vec<FieldError>> = match (kind.group, kind.kind) {
        ("apps", "Deployment" | "ReplicaSet" | "DaemonSet") => Some(rules::apps_selector),
        ("apps", "StatefulSet") => Some(rules::stateful_set),
        ("batch", "Job") => Some(rules::job),
        ("", "Service") => Some(service::service),
        ("", "Pod") => Some(pod::pod),
        ("", "PersistentVolume") => Some(pv::pv),
        ("", "ConfigMap") => Some(rules::config_map),
        ("", "Secret") => Some(rules::secret),
        ("storage.k8s.io", "StorageClass") => Some(rules::storage_class),
        ("networking.k8s.io", "IngressClass") => Some(rules::ingress_class),
        ("rbac.authorization.k8s.io", "RoleBinding" | "ClusterRoleBinding") => {
            Some(rules::role_binding)
        }
        _ => None,
    };
    if let Some(rule) = rule {
        errs.extend(rule(new, old));
    }
    if (kind.group, kind.kind) == ("", "PersistentVolumeClaim") {
        errs.extend(pvc::pvc(new, old, minor));
    }
    errs
}
