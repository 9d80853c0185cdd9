//! core/v1 kinds other than Pod and Service (pkg/apis/core/v1/defaults.go and the generated
//! `SetObjectDefaults_*`). ConfigMap (`data` nil → `{}`), ResourceQuota, ServiceAccount
//! and friends have nothing visible: an empty map is omitted on output and
//! `SetDefaults_ResourceList` rounding is left to the codec.

use super::pod::pod_template;
use super::value::{
    default_nil, default_str, each_obj, is_empty_collection, obj_mut, obj_or_new, path_or_new, set,
    str_of, Obj,
};
use super::volume::{azure_disk, host_path, iscsi, persistent_volume_claim_spec, rbd, scale_io};
use crate::Minor;
use serde_json::Value;

/// `SetObjectDefaults_PodTemplate`: only the pod spec walk (no `SetDefaults_Pod`).
pub fn pod_template_kind(o: &mut Obj, minor: Minor) {
    if let Some(template) = obj_or_new(o, "template") {
        pod_template(template, minor);
    }
}

/// `SetDefaults_ReplicationController`, `replicas` 1 (declarative from 1.34, a Go default
/// before: same value, same place), then the template (a pointer: skipped when absent).
pub fn replication_controller(o: &mut Obj, minor: Minor) {
    let labels = o
        .get("spec")
        .and_then(|s| s.get("template"))
        .and_then(|t| t.get("metadata"))
        .and_then(|m| m.get("labels"))
        .and_then(Value::as_object)
        .filter(|l| !l.is_empty())
        .cloned();
    if let Some(labels) = labels {
        if let Some(spec) = obj_or_new(o, "spec") {
            if is_empty_collection(spec, "selector") {
                set(spec, "selector", Value::Object(labels.clone()));
            }
        }
        if let Some(meta) = obj_or_new(o, "metadata") {
            if is_empty_collection(meta, "labels") {
                set(meta, "labels", Value::Object(labels));
            }
        }
    }
    let Some(spec) = obj_or_new(o, "spec") else {
        return;
    };
    default_nil(spec, "replicas", Value::from(1));
    if let Some(template) = obj_mut(spec, "template") {
        pod_template(template, minor);
    }
}

/// `SetDefaults_Namespace`: a named namespace gets label `kubernetes.io/metadata.name`
/// (overwriting); `SetDefaults_NamespaceStatus`: phase → Active.
pub fn namespace(o: &mut Obj) {
    let name = o
        .get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .map(str::to_owned);
    if let Some(name) = name {
        if let Some(labels) = path_or_new(o, &["metadata", "labels"]) {
            set(labels, "kubernetes.io/metadata.name", Value::from(name));
        }
    }
    if let Some(status) = obj_or_new(o, "status") {
        default_str(status, "phase", "Active");
    }
}

/// `SetDefaults_PersistentVolume` (status.phase Pending, reclaim policy Retain, volumeMode
/// Filesystem), then the source defaults of the generated walk.
pub fn persistent_volume(o: &mut Obj) {
    if let Some(status) = obj_or_new(o, "status") {
        default_str(status, "phase", "Pending");
    }
    let Some(spec) = obj_or_new(o, "spec") else {
        return;
    };
    default_str(spec, "persistentVolumeReclaimPolicy", "Retain");
    default_nil(spec, "volumeMode", Value::from("Filesystem"));
    if let Some(s) = obj_mut(spec, "hostPath") {
        host_path(s);
    }
    if let Some(s) = obj_mut(spec, "rbd") {
        rbd(s);
    }
    if let Some(s) = obj_mut(spec, "iscsi") {
        iscsi(s);
    }
    if let Some(s) = obj_mut(spec, "azureDisk") {
        azure_disk(s);
    }
    if let Some(s) = obj_mut(spec, "scaleIO") {
        scale_io(s);
    }
}

/// `SetDefaults_PersistentVolumeClaim` (status.phase Pending) and
/// `SetDefaults_PersistentVolumeClaimSpec`. Also each StatefulSet `volumeClaimTemplates[i]`.
pub fn persistent_volume_claim(o: &mut Obj) {
    if let Some(status) = obj_or_new(o, "status") {
        default_str(status, "phase", "Pending");
    }
    if let Some(spec) = obj_or_new(o, "spec") {
        persistent_volume_claim_spec(spec);
    }
}

/// `SetDefaults_Secret`: type "" → Opaque.
pub fn secret(o: &mut Obj) {
    default_str(o, "type", "Opaque");
}

/// `SetDefaults_Endpoints`: every subset port's protocol → TCP.
pub fn endpoints(o: &mut Obj) {
    for subset in each_obj(o, "subsets") {
        for port in each_obj(subset, "ports") {
            default_str(port, "protocol", "TCP");
        }
    }
}

/// `SetDefaults_LimitRangeItem` for each `spec.limits[i]` of type Container: default ← max,
/// then defaultRequest ← default, then ← min, each only for missing keys. The Go code makes
/// both maps; an empty one is omitted on output, so it is only kept when non-empty.
pub fn limit_range(o: &mut Obj) {
    let Some(spec) = obj_mut(o, "spec") else {
        return;
    };
    for item in each_obj(spec, "limits") {
        if str_of(item, "type") == Some("Container") {
            fill_missing(item, "default", "max");
            fill_missing(item, "defaultRequest", "default");
            fill_missing(item, "defaultRequest", "min");
        }
    }
}

/// `to[k] = from[k]` for each key of `from` missing in `to` (both maps of quantities).
fn fill_missing(item: &mut Obj, to: &str, from: &str) {
    let Some(source) = item.get(from).and_then(Value::as_object).cloned() else {
        return;
    };
    if source.is_empty() || !matches!(item.get(to), None | Some(Value::Null | Value::Object(_))) {
        return;
    }
    if let Some(target) = obj_or_new(item, to) {
        for (k, v) in source {
            target.entry(k).or_insert(v);
        }
    }
}

/// `SetDefaults_NodeStatus`: allocatable nil and capacity set → allocatable = capacity.
pub fn node(o: &mut Obj) {
    let Some(status) = obj_mut(o, "status") else {
        return;
    };
    let capacity = status.get("capacity").filter(|c| c.is_object()).cloned();
    if let Some(capacity) = capacity {
        default_nil(status, "allocatable", capacity);
    }
}
