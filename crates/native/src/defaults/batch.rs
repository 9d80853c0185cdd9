//! batch/v1 (pkg/apis/batch/v1/defaults.go). All of these defaults exist throughout
//! 1.30–1.35: JobPodReplacementPolicy is beta-on from 1.29 (GA 1.34) and the manualSelector
//! default landed in 1.29 (kubernetes#120206).

use super::pod::pod_template;
use super::value::{
    default_nil, default_str, each_obj, is_empty_collection, is_nil, obj_mut, obj_or_new,
    path_or_new, set, Obj,
};
use crate::Minor;
use serde_json::Value;

/// `SetObjectDefaults_Job`: `SetDefaults_Job`, then the pod failure policy patterns, then
/// the pod template.
pub fn job(o: &mut Obj, minor: Minor) {
    set_defaults_job(o);
    if let Some(spec) = obj_mut(o, "spec") {
        job_spec_walk(spec, minor);
    }
}

/// `SetObjectDefaults_CronJob`: `SetDefaults_CronJob`, then the job template's nested walk
/// (not `SetDefaults_Job`: that runs for kind Job only).
pub fn cron_job(o: &mut Obj, minor: Minor) {
    let Some(spec) = obj_or_new(o, "spec") else {
        return;
    };
    default_str(spec, "concurrencyPolicy", "Allow");
    default_nil(spec, "suspend", Value::Bool(false));
    default_nil(spec, "successfulJobsHistoryLimit", Value::from(3));
    default_nil(spec, "failedJobsHistoryLimit", Value::from(1));
    if let Some(job_spec) = path_or_new(spec, &["jobTemplate", "spec"]) {
        job_spec_walk(job_spec, minor);
    }
}

/// `SetDefaults_Job`.
fn set_defaults_job(o: &mut Obj) {
    let template_labels = o
        .get("spec")
        .and_then(|s| s.get("template"))
        .and_then(|t| t.get("metadata"))
        .and_then(|m| m.get("labels"))
        .and_then(Value::as_object)
        .filter(|l| !l.is_empty())
        .cloned();
    let Some(spec) = obj_or_new(o, "spec") else {
        return;
    };
    // Both unset: a non-parallel job, both 1.
    if is_nil(spec, "completions") && is_nil(spec, "parallelism") {
        set(spec, "completions", Value::from(1));
        set(spec, "parallelism", Value::from(1));
    }
    default_nil(spec, "parallelism", Value::from(1));
    if is_nil(spec, "backoffLimit") {
        let limit = if is_nil(spec, "backoffLimitPerIndex") {
            6
        } else {
            i64::from(i32::MAX)
        };
        set(spec, "backoffLimit", Value::from(limit));
    }
    default_nil(spec, "completionMode", Value::from("NonIndexed"));
    default_nil(spec, "suspend", Value::Bool(false));
    if is_nil(spec, "podReplacementPolicy") {
        let policy = if is_nil(spec, "podFailurePolicy") {
            "TerminatingOrFailed"
        } else {
            "Failed"
        };
        set(spec, "podReplacementPolicy", Value::from(policy));
    }
    default_nil(spec, "manualSelector", Value::Bool(false));
    // metadata.labels ← template labels (set between backoffLimit and completionMode in Go;
    // a different object, so the order is not observable).
    if let Some(labels) = template_labels {
        if let Some(meta) = obj_or_new(o, "metadata") {
            if is_empty_collection(meta, "labels") {
                set(meta, "labels", Value::Object(labels));
            }
        }
    }
}

/// The generated walk of a JobSpec: `podFailurePolicy.rules[].onPodConditions[]` →
/// `SetDefaults_PodFailurePolicyOnPodConditionsPattern` (status "" → True), then the
/// non-pointer pod template.
fn job_spec_walk(spec: &mut Obj, minor: Minor) {
    if let Some(policy) = obj_mut(spec, "podFailurePolicy") {
        for rule in each_obj(policy, "rules") {
            for pattern in each_obj(rule, "onPodConditions") {
                default_str(pattern, "status", "True");
            }
        }
    }
    if let Some(template) = obj_or_new(spec, "template") {
        pod_template(template, minor);
    }
}
