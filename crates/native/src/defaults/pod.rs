//! Pod-level defaults: `SetDefaults_Pod` (kind Pod only) and the pod-spec walk every pod
//! template gets (`SetDefaults_PodSpec`, then volumes, init containers, containers, ephemeral
//! containers — core/v1 `zz_generated.defaults.go`).

use super::container::container;
use super::value::{default_nil, default_str, each_obj, is_nil, obj_mut, obj_or_new, Obj};
use super::volume::volume;
use crate::Minor;
use serde_json::Value;

/// `SetObjectDefaults_Pod`: `SetDefaults_Pod`, then the pod spec walk. `spec` is a
/// non-pointer struct, so it is defaulted even when absent.
pub fn pod(pod: &mut Obj, minor: Minor) {
    if let Some(spec) = obj_or_new(pod, "spec") {
        set_defaults_pod(spec);
        pod_spec(spec, minor);
    }
}

/// The walk of a `PodTemplateSpec` (Deployment … PodTemplate): `template.spec` is a
/// non-pointer struct, defaulted even when absent; no `SetDefaults_Pod`.
pub fn pod_template(template: &mut Obj, minor: Minor) {
    if let Some(spec) = obj_or_new(template, "spec") {
        pod_spec(spec, minor);
    }
}

/// `SetDefaults_Pod` ("we only want this defaulting semantic to take place on a v1.Pod and
/// not a v1.PodTemplate"): requests default to limits per container and init container;
/// enableServiceLinks nil → true; with hostNetwork, ports' hostPort 0 → containerPort.
///
/// Not reproduced: the PodLevelResources (beta, on from 1.34) pod-level requests/limits,
/// which aggregate container quantities; they only apply when `spec.resources` is set.
fn set_defaults_pod(spec: &mut Obj) {
    for key in ["containers", "initContainers"] {
        for c in each_obj(spec, key) {
            requests_from_limits(c);
        }
    }
    default_nil(spec, "enableServiceLinks", Value::Bool(true));
    if spec.get("hostNetwork") == Some(&Value::Bool(true)) {
        for key in ["containers", "initContainers"] {
            for c in each_obj(spec, key) {
                host_network_ports(c);
            }
        }
    }
}

/// `requests[k] = limits[k]` for every limit whose key requests lacks. The Go code makes an
/// empty requests map when limits is non-nil, but an empty map is omitted on output, so
/// `requests` is only created when something is copied.
fn requests_from_limits(c: &mut Obj) {
    let Some(resources) = obj_mut(c, "resources") else {
        return;
    };
    let Some(limits) = resources.get("limits").and_then(Value::as_object).cloned() else {
        return;
    };
    let requests_ok = matches!(
        resources.get("requests"),
        None | Some(Value::Null | Value::Object(_))
    );
    if limits.is_empty() || !requests_ok {
        return;
    }
    let Some(requests) = obj_or_new(resources, "requests") else {
        return;
    };
    for (k, v) in limits {
        requests.entry(k).or_insert(v);
    }
}

/// `defaultHostNetworkPorts`: hostPort 0 → containerPort.
fn host_network_ports(c: &mut Obj) {
    for port in each_obj(c, "ports") {
        let container_port = port.get("containerPort").and_then(Value::as_i64);
        if let Some(cp) = container_port.filter(|&cp| cp != 0) {
            if super::value::is_zero_int(port, "hostPort") {
                port.insert("hostPort".to_owned(), Value::from(cp));
            }
        }
    }
}

/// `SetDefaults_PodSpec` then the nested walk (volumes, init containers, containers,
/// ephemeral containers). `SetDefaults_ResourceList(Overhead)` is not reproduced (quantities
/// are left as given).
pub fn pod_spec(spec: &mut Obj, minor: Minor) {
    default_str(spec, "dnsPolicy", "ClusterFirst");
    default_str(spec, "restartPolicy", "Always");
    if is_nil(spec, "securityContext") {
        spec.insert("securityContext".to_owned(), Value::Object(Obj::new()));
    }
    default_nil(spec, "terminationGracePeriodSeconds", Value::from(30));
    default_str(spec, "schedulerName", "default-scheduler");
    for v in each_obj(spec, "volumes") {
        volume(v, minor);
    }
    for key in ["initContainers", "containers", "ephemeralContainers"] {
        for c in each_obj(spec, key) {
            container(c, minor);
        }
    }
}
