//! The small groups: storage.k8s.io/v1, discovery.k8s.io/v1, scheduling.k8s.io/v1 and
//! certificates.k8s.io PodCertificateRequest (a declarative `+default`).

use super::value::{default_nil, each_obj, is_empty_collection, obj_or_new, set, Obj};
use serde_json::Value;

/// `SetDefaults_StorageClass`: reclaimPolicy nil → Delete, volumeBindingMode nil → Immediate.
pub fn storage_class(o: &mut Obj) {
    default_nil(o, "reclaimPolicy", Value::from("Delete"));
    default_nil(o, "volumeBindingMode", Value::from("Immediate"));
}

/// `SetDefaults_CSIDriver`. fsGroupPolicy and volumeLifecycleModes were gated
/// (CSIVolumeFSGroupPolicy, CSIInlineVolume) before 1.30, GA since; seLinuxMount false under
/// SELinuxMountReadWriteOncePod (beta, on by default from 1.28).
pub fn csi_driver(o: &mut Obj) {
    let Some(spec) = obj_or_new(o, "spec") else {
        return;
    };
    default_nil(spec, "attachRequired", Value::Bool(true));
    default_nil(spec, "podInfoOnMount", Value::Bool(false));
    default_nil(spec, "storageCapacity", Value::Bool(false));
    default_nil(
        spec,
        "fsGroupPolicy",
        Value::from("ReadWriteOnceWithFSType"),
    );
    if is_empty_collection(spec, "volumeLifecycleModes") {
        set(
            spec,
            "volumeLifecycleModes",
            Value::Array(vec![Value::from("Persistent")]),
        );
    }
    default_nil(spec, "requiresRepublish", Value::Bool(false));
    default_nil(spec, "seLinuxMount", Value::Bool(false));
}

/// `SetDefaults_EndpointPort` for each EndpointSlice port: name nil → "" (a pointer, so it
/// shows), protocol nil → TCP.
pub fn endpoint_slice(o: &mut Obj) {
    for port in each_obj(o, "ports") {
        default_nil(port, "name", Value::from(""));
        default_nil(port, "protocol", Value::from("TCP"));
    }
}

/// `SetDefaults_PriorityClass`: preemptionPolicy nil → PreemptLowerPriority.
pub fn priority_class(o: &mut Obj) {
    default_nil(o, "preemptionPolicy", Value::from("PreemptLowerPriority"));
}

/// PodCertificateRequestSpec.maxExpirationSeconds `+default=86400`.
pub fn pod_certificate_request(o: &mut Obj) {
    if let Some(spec) = obj_or_new(o, "spec") {
        default_nil(spec, "maxExpirationSeconds", Value::from(86400));
    }
}
