//! apps/v1 and batch/v1 workloads: the kind's defaults, then the template's.

use super::{case, container_defaults as cd, plus, pod_spec_defaults as psd, Case, ALL};
use serde_json::{json, Value};

/// A workload `spec` with a one-container template (image nginx, so Always).
fn with_template(spec: Value) -> Value {
    plus(
        &spec,
        json!({"template": {"metadata": {"labels": {"app": "a"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}),
    )
}

/// What the template walk adds to `with_template`'s template.
fn template_defaults() -> Value {
    json!({"template": {"spec": plus(&psd(), json!({"containers": [cd("Always")]}))}})
}

pub fn cases() -> Vec<Case> {
    let recreate =
        json!({"spec": with_template(json!({"strategy": {"type": "Recreate"}, "replicas": 0}))});
    let deploy_user = json!({"spec": with_template(json!({"strategy": {"rollingUpdate": {"maxSurge": 1}},
        "revisionHistoryLimit": 0, "progressDeadlineSeconds": 60}))});
    let sts = json!({"spec": with_template(json!({"serviceName": "s", "volumeClaimTemplates": [
        {"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"]}}
    ]}))});
    let sts_ondelete = json!({"spec": {"updateStrategy": {"type": "OnDelete"}, "podManagementPolicy": "Parallel",
        "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Delete"}, "template": {"spec": {"containers": []}}}});
    let ds = json!({"spec": with_template(json!({}))});
    let rs = json!({"spec": with_template(json!({"replicas": 2}))});
    let job = json!({"metadata": {"name": "j"}, "spec": with_template(json!({}))});
    let job_indexed = json!({"metadata": {"name": "j", "labels": {"own": "x"}}, "spec": with_template(json!({
        "completions": 5, "backoffLimitPerIndex": 1, "completionMode": "Indexed",
        "podFailurePolicy": {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}, {"type": "X", "status": "False"}]}]}
    }))});
    let cron = json!({"spec": {"schedule": "* * * * *", "jobTemplate": {"spec": with_template(json!({
        "podFailurePolicy": {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}
    }))}}});
    vec![
        case(
            "SetDefaults_Deployment: Recreate gets no rollingUpdate; replicas 0 kept",
            ("apps", "v1", "Deployment"),
            ALL,
            recreate.clone(),
            plus(&recreate, json!({"spec": plus(&template_defaults(), json!({"revisionHistoryLimit": 10, "progressDeadlineSeconds": 600}))})),
        ),
        case(
            "SetDefaults_Deployment: user values kept, missing maxUnavailable filled",
            ("apps", "v1", "Deployment"),
            ALL,
            deploy_user.clone(),
            plus(&deploy_user, json!({"spec": plus(&template_defaults(), json!({"replicas": 1,
                "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%"}}}))})),
        ),
        case(
            "SetDefaults_StatefulSet + claim templates as PVCs",
            ("apps", "v1", "StatefulSet"),
            ALL,
            sts.clone(),
            plus(&sts, json!({"spec": plus(&template_defaults(), json!({
                "podManagementPolicy": "OrderedReady",
                "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
                "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Retain"},
                "replicas": 1,
                "revisionHistoryLimit": 10,
                "volumeClaimTemplates": [{"spec": {"volumeMode": "Filesystem"}, "status": {"phase": "Pending"}}]
            }))})),
        ),
        case(
            "SetDefaults_StatefulSet: OnDelete gets no rollingUpdate; user policy kept",
            ("apps", "v1", "StatefulSet"),
            ALL,
            sts_ondelete.clone(),
            plus(&sts_ondelete, json!({"spec": {
                "persistentVolumeClaimRetentionPolicy": {"whenScaled": "Retain"},
                "replicas": 1,
                "revisionHistoryLimit": 10,
                "template": {"spec": psd()}
            }})),
        ),
        case(
            "SetDefaults_StatefulSet: RollingUpdate given without rollingUpdate stays so",
            ("apps", "v1", "StatefulSet"),
            ALL,
            json!({"spec": {"updateStrategy": {"type": "RollingUpdate"}, "template": {"spec": {"containers": []}}}}),
            json!({"spec": {"updateStrategy": {"type": "RollingUpdate"}, "podManagementPolicy": "OrderedReady",
                "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Retain"},
                "replicas": 1, "revisionHistoryLimit": 10, "template": {"spec": plus(&psd(), json!({"containers": []}))}}}),
        ),
        case(
            "SetDefaults_DaemonSet: int maxUnavailable 1 / maxSurge 0",
            ("apps", "v1", "DaemonSet"),
            ALL,
            ds.clone(),
            plus(&ds, json!({"spec": plus(&template_defaults(), json!({
                "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}},
                "revisionHistoryLimit": 10
            }))})),
        ),
        case(
            "SetDefaults_ReplicaSet",
            ("apps", "v1", "ReplicaSet"),
            ALL,
            rs.clone(),
            plus(&rs, json!({"spec": template_defaults()})),
        ),
        case(
            "SetDefaults_ReplicaSet: replicas 1 when absent",
            ("apps", "v1", "ReplicaSet"),
            ALL,
            json!({"spec": {"template": {"spec": {"containers": []}}}}),
            json!({"spec": {"replicas": 1, "template": {"spec": plus(&psd(), json!({"containers": []}))}}}),
        ),
        case(
            "SetDefaults_Job: non-parallel job, labels from the template",
            ("batch", "v1", "Job"),
            ALL,
            job.clone(),
            plus(&job, json!({"metadata": {"labels": {"app": "a"}}, "spec": plus(&template_defaults(), json!({
                "completions": 1, "parallelism": 1, "backoffLimit": 6, "completionMode": "NonIndexed",
                "suspend": false, "podReplacementPolicy": "TerminatingOrFailed", "manualSelector": false
            }))})),
        ),
        case(
            "SetDefaults_Job: backoffLimitPerIndex ⇒ MaxInt32, podFailurePolicy ⇒ Failed; pattern status True",
            ("batch", "v1", "Job"),
            ALL,
            job_indexed.clone(),
            plus(&job_indexed, json!({"spec": plus(&template_defaults(), json!({
                "parallelism": 1, "backoffLimit": 2147483647, "suspend": false,
                "podReplacementPolicy": "Failed", "manualSelector": false,
                "podFailurePolicy": {"rules": [{"onPodConditions": [{"status": "True"}, {}]}]}
            }))})),
        ),
        case(
            "SetDefaults_CronJob; the job template gets no SetDefaults_Job",
            ("batch", "v1", "CronJob"),
            ALL,
            cron.clone(),
            plus(&cron, json!({"spec": {
                "concurrencyPolicy": "Allow", "suspend": false, "successfulJobsHistoryLimit": 3, "failedJobsHistoryLimit": 1,
                "jobTemplate": {"spec": plus(&template_defaults(), json!({
                    "podFailurePolicy": {"rules": [{"onPodConditions": [{"status": "True"}]}]}
                }))}
            }})),
        ),
    ]
}
