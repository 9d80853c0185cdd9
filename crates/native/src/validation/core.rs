//! core/v1 kinds other than Service and PVC: Pod, PodTemplate, ReplicationController,
//! ConfigMap, Secret (`pkg/apis/core/validation`).

use super::container::config_key_errors;
use super::labels::validate_labels;
use super::pod::{containers_only_for_pod, validate_spec, validate_template};
use super::util::{get, int_of, key, list, nonnegative, not_supported, obj, str_of, Errors};
use super::Minor;
use kadmit_schema::field_error::FieldError;
use serde_json::{json, Value};
use std::collections::BTreeSet;

/// `ValidatePodCreate` after ObjectMeta: the spec (as a pod: `ResourceIsPod`),
/// whitespace around images, no ephemeral containers on create.
pub fn pod(obj: &Value, minor: Minor) -> Errors {
    let empty = json!({});
    let spec = get(obj, "spec").unwrap_or(&empty);
    let mut errs = validate_spec(spec, "spec", true, minor);
    containers_only_for_pod(spec, "spec", &mut errs);
    if !list(spec, "ephemeralContainers").is_empty() {
        errs.push(FieldError::forbidden(
            "spec.ephemeralContainers",
            "cannot be set on create",
        ));
    }
    errs
}

/// `ValidatePodTemplate`: the template at `template`.
pub fn pod_template(obj: &Value, minor: Minor) -> Errors {
    validate_template(get(obj, "template"), "template", minor)
}

/// `ValidateReplicationControllerSpec`.
pub fn replication_controller(obj: &Value, minor: Minor) -> Errors {
    let empty = json!({});
    let spec = get(obj, "spec").unwrap_or(&empty);
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
    let selector: Vec<(String, String)> = super::util::string_map(spec, "selector")
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    if selector.is_empty() {
        errs.push(FieldError::required("spec.selector", ""));
    }
    validate_labels(spec, "selector", "spec.selector", &mut errs);
    match get(spec, "template") {
        None => errs.push(FieldError::required("spec.template", "")),
        Some(t) => {
            let labels = get(t, "metadata").and_then(|m| get(m, "labels"));
            let matches = selector.iter().all(|(k, v)| {
                labels.and_then(|l| get(l, k)).and_then(Value::as_str) == Some(v.as_str())
            });
            if !selector.is_empty() && !matches {
                errs.push(FieldError::invalid(
                    "spec.template.metadata.labels",
                    labels.cloned().unwrap_or(Value::Null),
                    "`selector` does not match template `labels`",
                ));
            }
            errs.extend(validate_template(Some(t), "spec.template", minor));
            let pod = get(t, "spec").unwrap_or(&empty);
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
                    "activeDeadlineSeconds in ReplicationController is not Supported",
                ));
            }
        }
    }
    errs
}

fn keys<'a>(v: &'a Value, k: &str) -> Vec<&'a str> {
    let mut keys: Vec<&str> = obj(v, k)
        .into_iter()
        .flatten()
        .map(|(k, _)| k.as_str())
        .collect();
    keys.sort();
    keys
}

/// `ValidateConfigMap`: `data` and `binaryData` keys are config keys, and no key in both.
pub fn config_map(obj: &Value, _minor: Minor) -> Errors {
    let mut errs = Errors::new();
    let data = keys(obj, "data");
    for k in &data {
        for msg in config_key_errors(k) {
            errs.push(FieldError::invalid(key("data", k), json!(k), msg));
        }
    }
    for k in keys(obj, "binaryData") {
        for msg in config_key_errors(k) {
            errs.push(FieldError::invalid(key("binaryData", k), json!(k), msg));
        }
        if data.contains(&k) {
            errs.push(FieldError::invalid(
                key("data", k),
                json!(k),
                "duplicate of key present in binaryData",
            ));
        }
    }
    errs
}

/// `ValidateSecret`: keys of `data` (with `stringData` merged in by the strategy) are
/// config keys; typed secrets need their keys.
pub fn secret(obj: &Value, _minor: Minor) -> Errors {
    let mut errs = Errors::new();
    let all: BTreeSet<&str> = keys(obj, "data")
        .into_iter()
        .chain(keys(obj, "stringData"))
        .collect();
    for k in &all {
        for msg in config_key_errors(k) {
            errs.push(FieldError::invalid(key("data", k), json!(k), msg));
        }
    }
    let required: &[&str] = match str_of(obj, "type") {
        "kubernetes.io/dockercfg" => &[".dockercfg"],
        "kubernetes.io/dockerconfigjson" => &[".dockerconfigjson"],
        "kubernetes.io/tls" => &["tls.key", "tls.crt"],
        _ => &[],
    };
    for k in required {
        if !all.contains(k) {
            errs.push(FieldError::required(key("data", k), ""));
        }
    }
    errs
}
