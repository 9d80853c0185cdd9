//! apps/v1 workloads (`pkg/apis/apps/validation`): Deployment, ReplicaSet, StatefulSet,
//! DaemonSet.

use super::labels::{
    selector_is_empty, selector_matches, selector_parses, validate_annotations, validate_labels,
    validate_selector,
};
use super::pod::validate_template;
use super::util::{
    as_int, child, get, int_of, is_percent, nonnegative, nonnegative_opt, not_supported, str_of,
    Errors, PERCENT_MSG,
};
use super::Minor;
use kadmit_schema::field_error::FieldError;
use serde_json::{json, Value};

fn empty() -> Value {
    json!({})
}

/// The selector part shared by Deployment and ReplicaSet (and StatefulSet with its own
/// "empty selector" text): required, valid, not empty.
fn selector_checks(spec: &Value, what: &str, errs: &mut Errors) {
    let path = "spec.selector";
    match get(spec, "selector") {
        None => errs.push(FieldError::required(path, "")),
        Some(sel) => {
            validate_selector(Some(sel), path, errs);
            if selector_is_empty(Some(sel)) {
                errs.push(FieldError::invalid(
                    path,
                    sel.clone(),
                    format!("empty selector is invalid for {what}"),
                ));
            }
        }
    }
}

/// `ValidatePodTemplateSpecForReplicaSet`.
fn template_for_replica_set(spec: &Value, kind: &str, minor: Minor, errs: &mut Errors) {
    let selector = get(spec, "selector");
    if !selector_parses(selector) {
        errs.push(FieldError::invalid(
            "spec.selector",
            selector.cloned().unwrap_or_default(),
            "invalid label selector",
        ));
        return;
    }
    let template = get(spec, "template");
    let labels = template
        .and_then(|t| get(t, "metadata"))
        .and_then(|m| get(m, "labels"));
    if let Some(sel) = selector.filter(|s| !selector_is_empty(Some(s))) {
        if !selector_matches(sel, labels) {
            errs.push(FieldError::invalid(
                "spec.template.metadata.labels",
                labels.cloned().unwrap_or(Value::Null),
                "`selector` does not match template `labels`",
            ));
        }
    }
    errs.extend(validate_template(template, "spec.template", minor));
    restart_always_and_no_deadline(template, kind, errs);
}

/// Workload templates must restart Always and have no activeDeadlineSeconds.
fn restart_always_and_no_deadline(template: Option<&Value>, kind: &str, errs: &mut Errors) {
    let e = empty();
    let pod = template.and_then(|t| get(t, "spec")).unwrap_or(&e);
    let rp = str_of(pod, "restartPolicy");
    if rp != "Always" {
        errs.push(not_supported(
            "spec.template.spec.restartPolicy",
            json!(rp),
            &["Always"],
        ));
    }
    if get(pod, "activeDeadlineSeconds").is_some() {
        errs.push(FieldError::forbidden(
            "spec.template.spec.activeDeadlineSeconds",
            format!("activeDeadlineSeconds in {kind} is not Supported"),
        ));
    }
}

/// `ValidateDeploymentSpec`.
pub fn deployment(obj: &Value, minor: Minor) -> Errors {
    let e = empty();
    let spec = get(obj, "spec").unwrap_or(&e);
    let mut errs = Errors::new();
    nonnegative(
        int_of(spec, "replicas").unwrap_or(0),
        "spec.replicas",
        &mut errs,
    );
    selector_checks(spec, "deployment", &mut errs);
    template_for_replica_set(spec, "ReplicaSet", minor, &mut errs);
    deployment_strategy(spec, &mut errs);
    let min_ready = int_of(spec, "minReadySeconds").unwrap_or(0);
    nonnegative(min_ready, "spec.minReadySeconds", &mut errs);
    nonnegative_opt(spec, "revisionHistoryLimit", "spec", &mut errs);
    if let Some(pds) = int_of(spec, "progressDeadlineSeconds") {
        nonnegative(pds, "spec.progressDeadlineSeconds", &mut errs);
        if pds <= min_ready {
            errs.push(FieldError::invalid(
                "spec.progressDeadlineSeconds",
                json!(pds),
                "must be greater than minReadySeconds",
            ));
        }
    }
    errs
}

/// `ValidateDeploymentStrategy`.
fn deployment_strategy(spec: &Value, errs: &mut Errors) {
    let e = empty();
    let strategy = get(spec, "strategy").unwrap_or(&e);
    let path = "spec.strategy";
    match str_of(strategy, "type") {
        "Recreate" => {
            if get(strategy, "rollingUpdate").is_some() {
                errs.push(FieldError::forbidden(
                    "spec.strategy.rollingUpdate",
                    "may not be specified when strategy `type` is 'Recreate'",
                ));
            }
        }
        "RollingUpdate" => match get(strategy, "rollingUpdate") {
            None => errs.push(FieldError::required(
                "spec.strategy.rollingUpdate",
                "this should be defaulted and never be nil",
            )),
            Some(ru) => {
                let mu = get(ru, "maxUnavailable");
                let ms = get(ru, "maxSurge");
                let ru_path = "spec.strategy.rollingUpdate";
                positive_int_or_percent(mu, &child(ru_path, "maxUnavailable"), errs);
                positive_int_or_percent(ms, &child(ru_path, "maxSurge"), errs);
                if int_or_percent_value(mu) == 0 && int_or_percent_value(ms) == 0 {
                    errs.push(FieldError::invalid(
                        child(ru_path, "maxUnavailable"),
                        mu.cloned().unwrap_or(json!(0)),
                        "may not be 0 when `maxSurge` is 0",
                    ));
                }
                not_more_than_100_percent(mu, &child(ru_path, "maxUnavailable"), errs);
            }
        },
        _ => errs.push(not_supported(
            path,
            strategy.clone(),
            &["Recreate", "RollingUpdate"],
        )),
    }
}

/// `ValidatePositiveIntOrPercent`.
pub fn positive_int_or_percent(v: Option<&Value>, path: &str, errs: &mut Errors) {
    match v {
        Some(Value::String(s)) if !is_percent(s) => {
            errs.push(FieldError::invalid(path, json!(s), PERCENT_MSG));
        }
        Some(Value::String(_)) => {}
        Some(v) => nonnegative(as_int(v).unwrap_or(0), path, errs),
        None => {}
    }
}

fn percent_value(v: Option<&Value>) -> Option<i64> {
    match v {
        Some(Value::String(s)) if is_percent(s) => s[..s.len() - 1].parse().ok().or(Some(i64::MAX)),
        _ => None,
    }
}

/// `getIntOrPercentValue`: a percent's number, an int's value, 0 otherwise.
fn int_or_percent_value(v: Option<&Value>) -> i64 {
    percent_value(v).unwrap_or_else(|| v.and_then(as_int).unwrap_or(0))
}

/// `IsNotMoreThan100Percent`.
pub fn not_more_than_100_percent(v: Option<&Value>, path: &str, errs: &mut Errors) {
    if percent_value(v).is_some_and(|p| p > 100) {
        errs.push(FieldError::invalid(
            path,
            v.cloned().unwrap_or_default(),
            "must not be greater than 100%",
        ));
    }
}

/// `ValidateReplicaSetSpec`.
pub fn replica_set(obj: &Value, minor: Minor) -> Errors {
    let e = empty();
    let spec = get(obj, "spec").unwrap_or(&e);
    let mut errs = Errors::new();
    nonnegative(
        int_of(spec, "replicas").unwrap_or(0),
        "spec.replicas",
        &mut errs,
    );
    nonnegative(
        int_of(spec, "minReadySeconds").unwrap_or(0),
        "spec.minReadySeconds",
        &mut errs,
    );
    // Upstream's ReplicaSet text also says "deployment".
    selector_checks(spec, "deployment", &mut errs);
    template_for_replica_set(spec, "ReplicaSet", minor, &mut errs);
    errs
}

/// `ValidateDaemonSetSpec`.
pub fn daemon_set(obj: &Value, minor: Minor) -> Errors {
    let e = empty();
    let spec = get(obj, "spec").unwrap_or(&e);
    let mut errs = Errors::new();
    let selector = get(spec, "selector");
    validate_selector(selector, "spec.selector", &mut errs);
    let template = get(spec, "template");
    let labels = template
        .and_then(|t| get(t, "metadata"))
        .and_then(|m| get(m, "labels"));
    // A nil selector converts to labels.Nothing(), which matches no labels.
    if selector_parses(selector) && !selector.is_some_and(|s| selector_matches(s, labels)) {
        errs.push(FieldError::invalid(
            "spec.template.metadata.labels",
            labels.cloned().unwrap_or(Value::Null),
            "`selector` does not match template `labels`",
        ));
    }
    if let Some(sel) = selector.filter(|s| selector_is_empty(Some(s))) {
        errs.push(FieldError::invalid(
            "spec.selector",
            sel.clone(),
            "empty selector is invalid for daemonset",
        ));
    }
    errs.extend(validate_template(template, "spec.template", minor));
    restart_always_and_no_deadline(template, "DaemonSet", &mut errs);
    nonnegative(
        int_of(spec, "minReadySeconds").unwrap_or(0),
        "spec.minReadySeconds",
        &mut errs,
    );
    nonnegative(
        int_of(spec, "templateGeneration").unwrap_or(0),
        "spec.templateGeneration",
        &mut errs,
    );
    let us = get(spec, "updateStrategy").cloned().unwrap_or_else(empty);
    match str_of(&us, "type") {
        "OnDelete" => {}
        "RollingUpdate" => match get(&us, "rollingUpdate") {
            None => errs.push(FieldError::required(
                "spec.updateStrategy.rollingUpdate",
                "",
            )),
            Some(ru) => {
                let p = "spec.updateStrategy.rollingUpdate";
                let mu = get(ru, "maxUnavailable");
                let ms = get(ru, "maxSurge");
                positive_int_or_percent(mu, &child(p, "maxUnavailable"), &mut errs);
                positive_int_or_percent(ms, &child(p, "maxSurge"), &mut errs);
                not_more_than_100_percent(mu, &child(p, "maxUnavailable"), &mut errs);
                not_more_than_100_percent(ms, &child(p, "maxSurge"), &mut errs);
                let (has_u, has_s) = (int_or_percent_value(mu) != 0, int_or_percent_value(ms) != 0);
                if has_u && has_s {
                    errs.push(FieldError::invalid(
                        child(p, "maxSurge"),
                        ms.cloned().unwrap_or(json!(0)),
                        "may not be set when maxUnavailable is non-zero",
                    ));
                } else if !has_u && !has_s {
                    errs.push(FieldError::required(
                        child(p, "maxUnavailable"),
                        "cannot be 0 when maxSurge is 0",
                    ));
                }
            }
        },
        _ => errs.push(not_supported(
            "spec.updateStrategy",
            us.clone(),
            &["RollingUpdate", "OnDelete"],
        )),
    }
    nonnegative_opt(spec, "revisionHistoryLimit", "spec", &mut errs);
    errs
}

/// `ValidateStatefulSetSpec`. The pod template is not validated beyond its labels and
/// annotations (upstream's TODO in `ValidatePodTemplateSpecForStatefulSet`).
pub fn stateful_set(obj: &Value) -> Errors {
    let e = empty();
    let spec = get(obj, "spec").unwrap_or(&e);
    let mut errs = Errors::new();
    match str_of(spec, "podManagementPolicy") {
        "" => errs.push(FieldError::required("spec.podManagementPolicy", "")),
        "OrderedReady" | "Parallel" => {}
        other => errs.push(FieldError::invalid(
            "spec.podManagementPolicy",
            json!(other),
            "must be 'OrderedReady' or 'Parallel'",
        )),
    }
    let us = get(spec, "updateStrategy").cloned().unwrap_or_else(empty);
    match str_of(&us, "type") {
        "" => errs.push(FieldError::required("spec.updateStrategy", "")),
        "OnDelete" => {
            if let Some(ru) = get(&us, "rollingUpdate") {
                errs.push(FieldError::invalid(
                    "spec.updateStrategy.rollingUpdate",
                    ru.clone(),
                    "only allowed for updateStrategy 'RollingUpdate'",
                ));
            }
        }
        "RollingUpdate" => {
            if let Some(ru) = get(&us, "rollingUpdate") {
                let p = "spec.updateStrategy.rollingUpdate";
                nonnegative(
                    int_of(ru, "partition").unwrap_or(0),
                    &child(p, "partition"),
                    &mut errs,
                );
                if let Some(mu) = get(ru, "maxUnavailable") {
                    let at = child(p, "maxUnavailable");
                    positive_int_or_percent(Some(mu), &at, &mut errs);
                    if int_or_percent_value(Some(mu)) == 0 {
                        errs.push(FieldError::invalid(&at, mu.clone(), "cannot be 0"));
                    }
                    not_more_than_100_percent(Some(mu), &at, &mut errs);
                }
            }
        }
        _ => errs.push(FieldError::invalid(
            "spec.updateStrategy",
            us.clone(),
            "must be 'RollingUpdate' or 'OnDelete'",
        )),
    }
    if let Some(policy) = get(spec, "persistentVolumeClaimRetentionPolicy") {
        for k in ["whenDeleted", "whenScaled"] {
            let v = str_of(policy, k);
            if v != "Retain" && v != "Delete" {
                errs.push(not_supported(
                    format!("spec.persistentVolumeClaimRetentionPolicy.{k}"),
                    json!(v),
                    &["Retain", "Delete"],
                ));
            }
        }
    }
    nonnegative(
        int_of(spec, "replicas").unwrap_or(0),
        "spec.replicas",
        &mut errs,
    );
    nonnegative(
        int_of(spec, "minReadySeconds").unwrap_or(0),
        "spec.minReadySeconds",
        &mut errs,
    );
    if let Some(ord) = get(spec, "ordinals") {
        nonnegative(
            int_of(ord, "start").unwrap_or(0),
            "spec.ordinals.start",
            &mut errs,
        );
    }
    selector_checks(spec, "statefulset", &mut errs);
    let selector = get(spec, "selector");
    if !selector_parses(selector) {
        errs.push(FieldError::invalid(
            "spec.selector",
            selector.cloned().unwrap_or_default(),
            "",
        ));
    } else {
        let template = get(spec, "template").cloned().unwrap_or_else(empty);
        let meta = get(&template, "metadata").cloned().unwrap_or_else(empty);
        let labels = get(&meta, "labels");
        if let Some(sel) = selector.filter(|s| !selector_is_empty(Some(s))) {
            if !selector_matches(sel, labels) {
                errs.push(FieldError::invalid(
                    "spec.template.metadata.labels",
                    labels.cloned().unwrap_or(Value::Null),
                    "`selector` does not match template `labels`",
                ));
            }
        }
        validate_labels(&meta, "labels", "spec.template.labels", &mut errs);
        validate_annotations(&meta, "annotations", "spec.template.annotations", &mut errs);
    }
    restart_always_and_no_deadline(get(spec, "template"), "StatefulSet", &mut errs);
    errs
}
