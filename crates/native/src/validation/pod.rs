//! `ValidatePodSpec` and `ValidatePodTemplateSpec` (`pkg/apis/core/validation`), in the
//! order upstream appends: volumes, containers, initContainers, ephemeralContainers,
//! hostNetwork ports, restartPolicy, dnsPolicy, nodeSelector, securityContext, dnsConfig,
//! then the scalar fields.

use super::container::{validate_common, validate_lifecycle, validate_probe};
use super::labels::{validate_annotations, validate_labels};
use super::util::{
    child, dns1123_label, dns1123_subdomain, duplicate, get, id_range, index, int_of, list,
    not_supported, str_of, Errors,
};
use super::volume::validate_volumes;
use super::Minor;
use kadmit_schema::field_error::FieldError;
use serde_json::{json, Value};
use std::collections::BTreeSet;

/// `ValidatePodTemplateSpec(template, path)`: template labels and annotations (reported
/// at `<path>.labels`, not `<path>.metadata.labels`, as upstream does), the pod spec, and
/// no ephemeral containers.
pub fn validate_template(template: Option<&Value>, path: &str, minor: Minor) -> Errors {
    let empty = json!({});
    let template = template.unwrap_or(&empty);
    let meta = get(template, "metadata").unwrap_or(&empty);
    let spec = get(template, "spec").unwrap_or(&empty);
    let mut errs = Errors::new();
    validate_labels(meta, "labels", &child(path, "labels"), &mut errs);
    validate_annotations(meta, "annotations", &child(path, "annotations"), &mut errs);
    errs.extend(validate_spec(spec, &child(path, "spec"), false, minor));
    if !list(spec, "ephemeralContainers").is_empty() {
        errs.push(FieldError::forbidden(
            child(&child(path, "spec"), "ephemeralContainers"),
            "ephemeral containers not allowed in pod template",
        ));
    }
    errs
}

/// `ValidatePodSpec`. `is_pod` is `opts.ResourceIsPod`.
pub fn validate_spec(spec: &Value, path: &str, is_pod: bool, minor: Minor) -> Errors {
    let mut errs = Errors::new();
    let grace = int_of(spec, "terminationGracePeriodSeconds");
    if grace.is_none() {
        errs.push(FieldError::required(
            child(path, "terminationGracePeriodSeconds"),
            "",
        ));
    }
    let volumes = validate_volumes(spec, &child(path, "volumes"), &mut errs);
    validate_containers(
        spec,
        &volumes,
        grace,
        &child(path, "containers"),
        minor,
        &mut errs,
    );
    validate_init_containers(
        spec,
        &volumes,
        grace,
        &child(path, "initContainers"),
        minor,
        &mut errs,
    );
    validate_ephemeral_containers(
        spec,
        &volumes,
        &child(path, "ephemeralContainers"),
        minor,
        &mut errs,
    );
    host_network_ports(spec, path, is_pod, &mut errs);
    let rp = child(path, "restartPolicy");
    match str_of(spec, "restartPolicy") {
        "Always" | "OnFailure" | "Never" => {}
        "" => errs.push(FieldError::required(rp, "")),
        other => errs.push(not_supported(
            rp,
            json!(other),
            &["Always", "OnFailure", "Never"],
        )),
    }
    let dp = child(path, "dnsPolicy");
    let dns_policy = str_of(spec, "dnsPolicy");
    match dns_policy {
        "ClusterFirstWithHostNet" | "ClusterFirst" | "Default" | "None" => {}
        "" => errs.push(FieldError::required(dp, "")),
        other => errs.push(not_supported(
            dp,
            json!(other),
            &["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"],
        )),
    }
    validate_labels(
        spec,
        "nodeSelector",
        &child(path, "nodeSelector"),
        &mut errs,
    );
    if let Some(sc) = get(spec, "securityContext") {
        let at = child(path, "securityContext");
        for k in ["fsGroup", "runAsUser", "runAsGroup"] {
            if let Some(id) = int_of(sc, k) {
                id_range(id, &child(&at, k), &mut errs);
            }
        }
        for (g, id) in list(sc, "supplementalGroups").iter().enumerate() {
            if let Some(id) = super::util::as_int(id) {
                id_range(id, &index(&child(&at, "supplementalGroups"), g), &mut errs);
            }
        }
    }
    if dns_policy == "None" {
        let dc = child(path, "dnsConfig");
        match get(spec, "dnsConfig") {
            None => errs.push(FieldError::required(
                dc,
                "must provide `dnsConfig` when `dnsPolicy` is None",
            )),
            Some(c) if list(c, "nameservers").is_empty() => errs.push(FieldError::required(
                child(&dc, "nameservers"),
                "must provide at least one DNS nameserver when `dnsPolicy` is None",
            )),
            _ => {}
        }
    }
    for (k, check) in [
        (
            "serviceAccountName",
            dns1123_subdomain as fn(&str, &str, &mut Errors),
        ),
        ("nodeName", dns1123_subdomain),
    ] {
        let v = str_of(spec, k);
        if !v.is_empty() {
            check(v, &child(path, k), &mut errs);
        }
    }
    if let Some(ads) = int_of(spec, "activeDeadlineSeconds") {
        if !(1..=2147483647).contains(&ads) {
            errs.push(FieldError::invalid(
                child(path, "activeDeadlineSeconds"),
                json!(ads),
                "must be between 1 and 2147483647, inclusive",
            ));
        }
    }
    for k in ["hostname", "subdomain"] {
        let v = str_of(spec, k);
        if !v.is_empty() {
            dns1123_label(v, &child(path, k), &mut errs);
        }
    }
    validate_tolerations(spec, &child(path, "tolerations"), &mut errs);
    let pcn = str_of(spec, "priorityClassName");
    if !pcn.is_empty() {
        dns1123_subdomain(pcn, &child(path, "priorityClassName"), &mut errs);
    }
    errs
}

/// `validateContainers`.
fn validate_containers(
    spec: &Value,
    volumes: &BTreeSet<String>,
    grace: Option<i64>,
    path: &str,
    minor: Minor,
    errs: &mut Errors,
) {
    let containers = list(spec, "containers");
    if containers.is_empty() {
        errs.push(FieldError::required(path, ""));
        return;
    }
    let mut names = BTreeSet::new();
    for (i, c) in containers.iter().enumerate() {
        let at = index(path, i);
        errs.extend(validate_common(c, volumes, &at, minor));
        let name = str_of(c, "name");
        if !names.insert(name) {
            errs.push(duplicate(child(&at, "name"), json!(name)));
        }
        validate_lifecycle(c, grace, &at, errs);
        for probe in ["livenessProbe", "readinessProbe", "startupProbe"] {
            validate_probe(c, probe, grace, &at, errs);
        }
        if get(c, "restartPolicy").is_some() {
            errs.push(FieldError::forbidden(
                child(&at, "restartPolicy"),
                "may not be set for non-init containers",
            ));
        }
    }
    host_port_conflicts(containers, path, errs);
}

/// `validateInitContainers`.
fn validate_init_containers(
    spec: &Value,
    volumes: &BTreeSet<String>,
    grace: Option<i64>,
    path: &str,
    minor: Minor,
    errs: &mut Errors,
) {
    let mut names: BTreeSet<&str> = list(spec, "containers")
        .iter()
        .map(|c| str_of(c, "name"))
        .collect();
    for (i, c) in list(spec, "initContainers").iter().enumerate() {
        let at = index(path, i);
        errs.extend(validate_common(c, volumes, &at, minor));
        let mut restart_always = false;
        if let Some(rp) = get(c, "restartPolicy") {
            let rp_str = rp.as_str().unwrap_or("");
            if rp_str != "Always" {
                errs.push(not_supported(
                    child(&at, "restartPolicy"),
                    rp.clone(),
                    &["Always"],
                ));
            }
            restart_always = rp_str == "Always";
        }
        let name = str_of(c, "name");
        if names.contains(name) {
            errs.push(duplicate(child(&at, "name"), json!(name)));
        } else if !name.is_empty() {
            names.insert(name);
        }
        host_port_conflicts(std::slice::from_ref(c), path, errs);
        if restart_always {
            validate_lifecycle(c, grace, &at, errs);
            for probe in ["livenessProbe", "readinessProbe", "startupProbe"] {
                validate_probe(c, probe, grace, &at, errs);
            }
        } else {
            for k in [
                "lifecycle",
                "livenessProbe",
                "readinessProbe",
                "startupProbe",
            ] {
                if get(c, k).is_some() {
                    errs.push(FieldError::forbidden(
                        child(&at, k),
                        "may not be set for init containers without restartPolicy=Always",
                    ));
                }
            }
        }
        if !list(c, "resizePolicy").is_empty() {
            errs.push(FieldError::invalid(
                child(&at, "resizePolicy"),
                get(c, "resizePolicy").cloned().unwrap_or_default(),
                "must not be set for init containers",
            ));
        }
    }
}

/// `validateEphemeralContainers` (name uniqueness and the common checks).
fn validate_ephemeral_containers(
    spec: &Value,
    volumes: &BTreeSet<String>,
    path: &str,
    minor: Minor,
    errs: &mut Errors,
) {
    let mut names: BTreeSet<&str> = list(spec, "containers")
        .iter()
        .chain(list(spec, "initContainers"))
        .map(|c| str_of(c, "name"))
        .collect();
    for (i, c) in list(spec, "ephemeralContainers").iter().enumerate() {
        let at = index(path, i);
        errs.extend(validate_common(c, volumes, &at, minor));
        let name = str_of(c, "name");
        if !names.insert(name) {
            errs.push(duplicate(child(&at, "name"), json!(name)));
        }
    }
}

/// `checkHostPortConflicts`: `<protocol>/<hostIP>/<hostPort>` must be unique.
fn host_port_conflicts(containers: &[Value], path: &str, errs: &mut Errors) {
    let mut seen = BTreeSet::new();
    for (ci, c) in containers.iter().enumerate() {
        for (pi, p) in list(c, "ports").iter().enumerate() {
            let hp = int_of(p, "hostPort").unwrap_or(0);
            if hp == 0 {
                continue;
            }
            let key = format!("{}/{}/{hp}", str_of(p, "protocol"), str_of(p, "hostIP"));
            if !seen.insert(key.clone()) {
                let at = index(&child(&index(path, ci), "ports"), pi);
                errs.push(duplicate(child(&at, "hostPort"), json!(key)));
            }
        }
    }
}

/// `validatePodHostNetworkDeps`: with hostNetwork a hostPort must equal containerPort
/// (in templates 0 is allowed too: the pod's defaulting fills it in).
fn host_network_ports(spec: &Value, path: &str, is_pod: bool, errs: &mut Errors) {
    if get(spec, "hostNetwork").and_then(Value::as_bool) != Some(true) {
        return;
    }
    let cpath = child(path, "containers");
    for (i, c) in list(spec, "containers").iter().enumerate() {
        for (j, p) in list(c, "ports").iter().enumerate() {
            let hp = int_of(p, "hostPort").unwrap_or(0);
            let cp = int_of(p, "containerPort").unwrap_or(0);
            if (is_pod || hp != 0) && hp != cp {
                let at = index(&child(&index(&cpath, i), "ports"), j);
                errs.push(FieldError::invalid(
                    child(&at, "hostPort"),
                    json!(hp),
                    "must match `containerPort` when `hostNetwork` is true",
                ));
            }
        }
    }
}

/// `ValidateTolerations`.
fn validate_tolerations(spec: &Value, path: &str, errs: &mut Errors) {
    for (i, t) in list(spec, "tolerations").iter().enumerate() {
        let at = index(path, i);
        let key = str_of(t, "key");
        let op = str_of(t, "operator");
        let effect = str_of(t, "effect");
        if !key.is_empty() {
            super::util::qualified_name(key, &child(&at, "key"), errs);
        }
        if key.is_empty() && op != "Exists" {
            errs.push(FieldError::invalid(
                child(&at, "operator"),
                json!(op),
                "operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
            ));
        }
        if get(t, "tolerationSeconds").is_some() && effect != "NoExecute" {
            errs.push(FieldError::invalid(
                child(&at, "effect"),
                json!(effect),
                "effect must be 'NoExecute' when `tolerationSeconds` is set",
            ));
        }
        let value = str_of(t, "value");
        match op {
            "Equal" | "" => {
                let msgs = kadmit_schema::objectmeta::label_value_errors(value);
                if !msgs.is_empty() {
                    errs.push(FieldError::invalid(
                        child(&at, "operator"),
                        json!(value),
                        msgs.join(";"),
                    ));
                }
            }
            "Exists" => {
                if !value.is_empty() {
                    errs.push(FieldError::invalid(
                        child(&at, "operator"),
                        t.clone(),
                        "value must be empty when `operator` is 'Exists'",
                    ));
                }
            }
            other => errs.push(not_supported(
                child(&at, "operator"),
                json!(other),
                &["Equal", "Exists"],
            )),
        }
        if !effect.is_empty() && !["NoSchedule", "PreferNoSchedule", "NoExecute"].contains(&effect)
        {
            errs.push(not_supported(
                child(&at, "effect"),
                json!(effect),
                &["NoSchedule", "PreferNoSchedule", "NoExecute"],
            ));
        }
    }
}

/// `validateContainersOnlyForPod`: a Pod's images may not have surrounding whitespace.
pub fn containers_only_for_pod(spec: &Value, path: &str, errs: &mut Errors) {
    for k in ["containers", "initContainers"] {
        for (i, c) in list(spec, k).iter().enumerate() {
            let image = str_of(c, "image");
            if image.len() != image.trim().len() {
                errs.push(FieldError::invalid(
                    child(&index(&child(path, k), i), "image"),
                    json!(image),
                    "must not have leading or trailing whitespace",
                ));
            }
        }
    }
}
