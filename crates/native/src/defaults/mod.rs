//! Native defaults (reference §3): the `SetDefaults_*` functions kube-apiserver runs when it
//! decodes a built-in object, in the generated (`zz_generated.defaults.go`) order — the
//! kind's own function first, then nested structs parent first — for a given minor version
//! and its default feature gates.
//!
//! Defaulting works on the JSON as kubectl sends it, with Go zero-value semantics (see
//! [`value`]); a value of the wrong type is left alone (the strict decoder reports it).
//! Not reproduced: `SetDefaults_ResourceList` (milli rounding of quantities, left as given),
//! PodLevelResources' pod-level requests/limits (quantity arithmetic), and everything the
//! server fills from cluster state or in the registry (clusterIP, ipFamilies, uid, status).

mod apps;
mod autoscaling;
mod batch;
mod container;
mod core;
mod image;
mod networking;
mod other;
mod pod;
mod rbac;
mod service;
mod value;
mod volume;

#[cfg(test)]
mod tests;

use crate::{Kind, Minor};
use serde_json::Value;
use value::Obj;

type Defaulter = fn(&mut Obj, Minor);

/// Applies every native default of `kind` to `object`, in the server's order. Returns
/// whether anything changed.
pub fn apply(kind: Kind<'_>, object: &mut Value, minor: Minor) -> bool {
    if !applies_to(kind) {
        return false;
    }
    let before = object.clone();
    run(kind, object, minor);
    *object != before
}

/// Applies every native default of `kind` to `object` without saying what changed (for a
/// caller that compares with its own copy, so the object is not copied twice).
pub fn run(kind: Kind<'_>, object: &mut Value, minor: Minor) {
    if let (Some(defaulter), Some(o)) = (defaulter(kind), object.as_object_mut()) {
        defaulter(o, minor);
    }
}

/// Whether `kind` has native defaults at all (a caller that records what changed need not
/// copy an object no default can touch).
pub fn applies_to(kind: Kind<'_>) -> bool {
    defaulter(kind).is_some()
}

/// The `SetObjectDefaults_<Kind>` of a served built-in kind, if it has any defaults.
fn defaulter(kind: Kind<'_>) -> Option<Defaulter> {
    let d: Defaulter = match (kind.group, kind.version, kind.kind) {
        ("", "v1", "Pod") => pod::pod,
        ("", "v1", "PodTemplate") => core::pod_template_kind,
        ("", "v1", "ReplicationController") => core::replication_controller,
        ("", "v1", "Service") => |o, _| service::service(o),
        ("", "v1", "Namespace") => |o, _| core::namespace(o),
        ("", "v1", "PersistentVolume") => |o, _| core::persistent_volume(o),
        ("", "v1", "PersistentVolumeClaim") => |o, _| core::persistent_volume_claim(o),
        ("", "v1", "Secret") => |o, _| core::secret(o),
        ("", "v1", "Endpoints") => |o, _| core::endpoints(o),
        ("", "v1", "LimitRange") => |o, _| core::limit_range(o),
        ("", "v1", "Node") => |o, _| core::node(o),
        ("apps", "v1", "Deployment") => apps::deployment,
        ("apps", "v1", "StatefulSet") => apps::stateful_set,
        ("apps", "v1", "DaemonSet") => apps::daemon_set,
        ("apps", "v1", "ReplicaSet") => apps::replica_set,
        ("batch", "v1", "Job") => batch::job,
        ("batch", "v1", "CronJob") => batch::cron_job,
        ("networking.k8s.io", "v1", "NetworkPolicy") => |o, _| networking::network_policy(o),
        ("networking.k8s.io", "v1", "IngressClass") => |o, _| networking::ingress_class(o),
        ("rbac.authorization.k8s.io", "v1", "RoleBinding" | "ClusterRoleBinding") => {
            |o, _| rbac::binding(o)
        }
        ("autoscaling", "v1", "HorizontalPodAutoscaler") => |o, _| autoscaling::hpa_v1(o),
        ("autoscaling", "v2", "HorizontalPodAutoscaler") => |o, _| autoscaling::hpa_v2(o),
        ("storage.k8s.io", "v1", "StorageClass") => |o, _| other::storage_class(o),
        ("storage.k8s.io", "v1", "CSIDriver") => |o, _| other::csi_driver(o),
        ("discovery.k8s.io", "v1", "EndpointSlice") => |o, _| other::endpoint_slice(o),
        ("scheduling.k8s.io", "v1", "PriorityClass") => |o, _| other::priority_class(o),
        ("certificates.k8s.io", "v1alpha1" | "v1beta1", "PodCertificateRequest") => {
            |o, _| other::pod_certificate_request(o)
        }
        _ => return None,
    };
    Some(d)
}
