//! networking.k8s.io/v1 (pkg/apis/networking/v1/defaults.go). Ingress has no defaults in v1
//! (the `pathType` default was v1beta1 only).

use super::value::{default_nil, each_obj, is_empty_collection, obj_mut, obj_or_new, set, Obj};
use serde_json::Value;

/// `SetDefaults_NetworkPolicy` (policyTypes empty → [Ingress], plus Egress when egress rules
/// exist), then `SetDefaults_NetworkPolicyPort` (protocol nil → TCP) for every ingress and
/// egress rule port.
pub fn network_policy(o: &mut Obj) {
    let Some(spec) = obj_or_new(o, "spec") else {
        return;
    };
    if is_empty_collection(spec, "policyTypes") {
        let has_egress = spec
            .get("egress")
            .and_then(Value::as_array)
            .is_some_and(|e| !e.is_empty());
        let mut types = vec![Value::from("Ingress")];
        if has_egress {
            types.push(Value::from("Egress"));
        }
        set(spec, "policyTypes", Value::Array(types));
    }
    for direction in ["ingress", "egress"] {
        for rule in each_obj(spec, direction) {
            for port in each_obj(rule, "ports") {
                default_nil(port, "protocol", Value::from("TCP"));
            }
        }
    }
}

/// `SetDefaults_IngressClass`: parameters set and scope nil → Cluster.
pub fn ingress_class(o: &mut Obj) {
    if let Some(params) = obj_mut(o, "spec").and_then(|s| obj_mut(s, "parameters")) {
        default_nil(params, "scope", Value::from("Cluster"));
    }
}
