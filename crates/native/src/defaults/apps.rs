//! apps/v1 (pkg/apis/apps/v1/defaults.go): each kind's `SetDefaults_*` first, then the pod
//! template walk (and, for StatefulSet, the claim templates).

use super::core::persistent_volume_claim;
use super::pod::pod_template;
use super::value::{default_nil, default_str, each_obj, obj_mut, obj_or_new, str_of, Obj};
use crate::Minor;
use serde_json::Value;

/// `SetDefaults_Deployment`: replicas 1; strategy RollingUpdate with maxUnavailable and
/// maxSurge "25%" (strings); revisionHistoryLimit 10; progressDeadlineSeconds 600.
pub fn deployment(o: &mut Obj, minor: Minor) {
    let Some(spec) = obj_or_new(o, "spec") else {
        return;
    };
    default_nil(spec, "replicas", Value::from(1));
    if let Some(strategy) = obj_or_new(spec, "strategy") {
        default_str(strategy, "type", "RollingUpdate");
        if str_of(strategy, "type") == Some("RollingUpdate") {
            if let Some(rolling) = obj_or_new(strategy, "rollingUpdate") {
                default_nil(rolling, "maxUnavailable", Value::from("25%"));
                default_nil(rolling, "maxSurge", Value::from("25%"));
            }
        }
    }
    default_nil(spec, "revisionHistoryLimit", Value::from(10));
    default_nil(spec, "progressDeadlineSeconds", Value::from(600));
    template(spec, minor);
}

/// `SetDefaults_DaemonSet`: updateStrategy RollingUpdate with maxUnavailable 1 and maxSurge
/// 0 (ints); revisionHistoryLimit 10.
pub fn daemon_set(o: &mut Obj, minor: Minor) {
    let Some(spec) = obj_or_new(o, "spec") else {
        return;
    };
    if let Some(strategy) = obj_or_new(spec, "updateStrategy") {
        default_str(strategy, "type", "RollingUpdate");
        if str_of(strategy, "type") == Some("RollingUpdate") {
            if let Some(rolling) = obj_or_new(strategy, "rollingUpdate") {
                default_nil(rolling, "maxUnavailable", Value::from(1));
                default_nil(rolling, "maxSurge", Value::from(0));
            }
        }
    }
    default_nil(spec, "revisionHistoryLimit", Value::from(10));
    template(spec, minor);
}

/// `SetDefaults_StatefulSet`: podManagementPolicy OrderedReady; updateStrategy type
/// RollingUpdate (and `rollingUpdate: {}` only when the type was empty); partition 0 when
/// rollingUpdate is present; persistentVolumeClaimRetentionPolicy Retain/Retain (gate
/// StatefulSetAutoDeletePVC: beta on 1.27, GA 1.32, so on in 1.30–1.35); replicas 1;
/// revisionHistoryLimit 10. Then the template, then each claim template as a
/// PersistentVolumeClaim (status.phase Pending shows in stored objects).
pub fn stateful_set(o: &mut Obj, minor: Minor) {
    let Some(spec) = obj_or_new(o, "spec") else {
        return;
    };
    default_str(spec, "podManagementPolicy", "OrderedReady");
    if let Some(strategy) = obj_or_new(spec, "updateStrategy") {
        if default_str(strategy, "type", "RollingUpdate") {
            obj_or_new(strategy, "rollingUpdate");
        }
        if str_of(strategy, "type") == Some("RollingUpdate") {
            if let Some(rolling) = obj_mut(strategy, "rollingUpdate") {
                default_nil(rolling, "partition", Value::from(0));
            }
        }
    }
    if let Some(policy) = obj_or_new(spec, "persistentVolumeClaimRetentionPolicy") {
        default_str(policy, "whenDeleted", "Retain");
        default_str(policy, "whenScaled", "Retain");
    }
    default_nil(spec, "replicas", Value::from(1));
    default_nil(spec, "revisionHistoryLimit", Value::from(10));
    template(spec, minor);
    for claim in each_obj(spec, "volumeClaimTemplates") {
        persistent_volume_claim(claim);
    }
}

/// `SetDefaults_ReplicaSet`: replicas 1.
pub fn replica_set(o: &mut Obj, minor: Minor) {
    let Some(spec) = obj_or_new(o, "spec") else {
        return;
    };
    default_nil(spec, "replicas", Value::from(1));
    template(spec, minor);
}

/// `spec.template` is a non-pointer PodTemplateSpec.
fn template(spec: &mut Obj, minor: Minor) {
    if let Some(t) = obj_or_new(spec, "template") {
        pod_template(t, minor);
    }
}
