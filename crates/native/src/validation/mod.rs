//! Native validation (reference §4): what `strategy.Validate` of kube-apiserver's
//! registry (`pkg/apis/<group>/validation.Validate<Kind>`) reports for a CREATE of a
//! built-in object, with the server's paths and texts, all errors at once in the order
//! upstream appends them. The object is the strictly decoded, defaulted one.
//!
//! Maps (labels, resources) are walked in sorted key order: Go walks them in random order,
//! so where a map holds several bad entries the server's order varies between requests.

mod apps;
mod autoscaling;
mod batch;
mod container;
mod core;
mod cron;
mod labels;
mod meta;
mod networking;
mod pod;
mod policy;

mod rbac;
mod resources;
mod service;
mod storage;
mod update;
mod util;
mod volume;

#[cfg(test)]
mod tests;

use crate::{Kind, Minor};
use kadmit_schema::field_error::FieldError;
use meta::Name;
use serde_json::Value;
pub use update::validate_update;

/// Every native validation error of `object` (a `kind`), in the server's order.
pub fn validate(kind: Kind<'_>, object: &Value, minor: Minor) -> Vec<FieldError> {
    let (namespaced, name, spec): (bool, Name, Option<SpecFn>) = match (kind.group, kind.kind) {
        ("", "Pod") => (true, Name::Subdomain, Some(core::pod)),
        ("", "PodTemplate") => (true, Name::Subdomain, Some(core::pod_template)),
        ("", "ReplicationController") => {
            (true, Name::Subdomain, Some(core::replication_controller))
        }
        ("", "Service") => (true, Name::Dns1035, Some(service::service)),
        ("", "Namespace") => (false, Name::Label, None),
        ("", "ConfigMap") => (true, Name::Subdomain, Some(core::config_map)),
        ("", "Secret") => (true, Name::Subdomain, Some(core::secret)),
        ("", "ServiceAccount") => (true, Name::Subdomain, None),
        ("", "PersistentVolumeClaim") => (true, Name::Subdomain, Some(storage::pvc)),
        ("", "PersistentVolume") => (false, Name::Subdomain, None),
        ("", "Node") => (false, Name::Subdomain, None),
        ("apps", "Deployment") => (true, Name::Subdomain, Some(apps::deployment)),
        ("apps", "ReplicaSet") => (true, Name::Subdomain, Some(apps::replica_set)),
        ("apps", "DaemonSet") => (true, Name::Subdomain, Some(apps::daemon_set)),
        ("apps", "StatefulSet") => (true, Name::Label, Some(|o, _| apps::stateful_set(o))),
        ("batch", "Job") => (true, Name::Subdomain, Some(batch::job)),
        ("batch", "CronJob") => (true, Name::Subdomain, Some(batch::cron_job)),
        ("networking.k8s.io", "Ingress") => (true, Name::Subdomain, Some(networking::ingress)),
        ("networking.k8s.io", "IngressClass") => (false, Name::Subdomain, None),
        ("networking.k8s.io", "NetworkPolicy") => {
            (true, Name::Subdomain, Some(networking::network_policy))
        }
        ("rbac.authorization.k8s.io", "Role") => (true, Name::PathSegment, Some(rbac::role)),
        ("rbac.authorization.k8s.io", "ClusterRole") => {
            (false, Name::PathSegment, Some(rbac::cluster_role))
        }
        ("rbac.authorization.k8s.io", "RoleBinding") => {
            (true, Name::PathSegment, Some(rbac::role_binding))
        }
        ("rbac.authorization.k8s.io", "ClusterRoleBinding") => {
            (false, Name::PathSegment, Some(rbac::cluster_role_binding))
        }
        ("autoscaling", "HorizontalPodAutoscaler") => {
            (true, Name::Subdomain, Some(autoscaling::hpa))
        }
        ("policy", "PodDisruptionBudget") => {
            // ValidatePodDisruptionBudget checks the spec only; the name gets the
            // generic path-segment check of rest.BeforeCreate below.
            let mut errs = policy::pdb(object, minor);
            if errs.is_empty() {
                errs = meta::validate(object, true, Name::PathSegment);
            }
            return errs;
        }
        ("storage.k8s.io", "StorageClass") => {
            (false, Name::Subdomain, Some(storage::storage_class))
        }
        ("storage.k8s.io", "CSIDriver") => (false, Name::Subdomain, None),
        ("scheduling.k8s.io", "PriorityClass") => (false, Name::Subdomain, None),
        _ => (true, Name::Subdomain, None),
    };
    let mut errs = meta::validate(object, namespaced, name);
    if let Some(spec) = spec {
        errs.extend(spec(object, minor));
    }
    if kind.group == "batch" && kind.kind == "CronJob" {
        errs.extend(batch::cron_job_name_length(object));
    }
    errs
}

type SpecFn = fn(&Value, Minor) -> Vec<FieldError>;
