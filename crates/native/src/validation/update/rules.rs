//! The per-kind UPDATE rules, with the server's paths and texts (kube-apiserver 1.35,
//! unchanged since 1.30 unless noted).

use super::gofmt;
use super::semantic;
use kadmit_schema::field_error::{BadValue, ErrorType, FieldError};
use serde_json::{Map, Value};

/// `ValidateImmutableField` with a value Go prints as a struct (`%#v`).
fn immutable_struct(field: &str, rendered: String) -> FieldError {
    FieldError {
        kind: ErrorType::Invalid,
        field: field.to_owned(),
        value: BadValue::Omit,
        detail: format!("{rendered}: field is immutable"),
    }
}

/// `ValidateImmutableField` with a scalar value (`"x"`, `3`, or `null` when unset).
fn immutable_scalar(field: &str, new: Option<&Value>) -> FieldError {
    FieldError::new(
        ErrorType::Invalid,
        field,
        new.cloned().unwrap_or(Value::Null),
        "field is immutable",
    )
}

pub(super) fn at<'a>(v: &'a Value, pointer: &str) -> Option<&'a Value> {
    v.pointer(pointer).filter(|x| !x.is_null())
}

/// apps/v1 Deployment, ReplicaSet, DaemonSet: the selector may not change (the
/// strategies' `ValidateUpdate` for every apps/v1 request).
pub fn apps_selector(new: &Value, old: &Value) -> Vec<FieldError> {
    let (after, before) = (at(new, "/spec/selector"), at(old, "/spec/selector"));
    if after == before {
        return Vec::new();
    }
    vec![immutable_struct(
        "spec.selector",
        gofmt::label_selector(after),
    )]
}

/// The StatefulSet spec fields an update may change.
const STATEFULSET_MUTABLE: [&str; 7] = [
    "replicas",
    "ordinals",
    "template",
    "updateStrategy",
    "revisionHistoryLimit",
    "persistentVolumeClaimRetentionPolicy",
    "minReadySeconds",
];

/// `ValidateStatefulSetUpdate`: the spec without the mutable fields must be unchanged.
pub fn stateful_set(new: &Value, old: &Value) -> Vec<FieldError> {
    let rest = |v: &Value| without(at(v, "/spec"), &STATEFULSET_MUTABLE);
    let (after, before) = (Value::Object(rest(new)), Value::Object(rest(old)));
    if semantic::equal(Some(&after), Some(&before)) {
        return Vec::new();
    }
    vec![FieldError::forbidden(
        "spec",
        "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    )]
}

/// An object without `keys` and without null fields (Go's decoder leaves a null field
/// unset, so it compares as absent).
fn without(v: Option<&Value>, keys: &[&str]) -> Map<String, Value> {
    v.and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter(|(k, v)| !keys.contains(&k.as_str()) && !v.is_null())
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
        .unwrap_or_default()
}

/// The labels the Job controller puts on a Job's pod template and selector.
const JOB_GENERATED_LABELS: [&str; 4] = [
    "controller-uid",
    "batch.kubernetes.io/controller-uid",
    "job-name",
    "batch.kubernetes.io/job-name",
];

/// `validateJobSpecUpdate`: selector, pod template (but for a suspended Job that never
/// started: labels, annotations, node affinity, tolerations and scheduling gates),
/// completions (an Indexed Job's only with parallelism), completionMode,
/// podFailurePolicy, backoffLimitPerIndex, managedBy and successPolicy.
pub fn job(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let old_selector = at(old, "/spec/selector");
    // A generated selector (and the labels it selects) stays as the server set it.
    let selector = at(new, "/spec/selector").or(old_selector);
    let completions = (at(new, "/spec/completions"), at(old, "/spec/completions"));
    if completions.0 != completions.1 {
        let indexed = at(new, "/spec/completionMode").and_then(Value::as_str) == Some("Indexed");
        if !indexed {
            errs.push(immutable_scalar("spec.completions", completions.0));
        } else if let Some(c) = completions.0 {
            if Some(c) != at(new, "/spec/parallelism") {
                errs.push(FieldError::invalid(
                    "spec.completions",
                    c.clone(),
                    "can only be modified in tandem with spec.parallelism",
                ));
            }
        }
    }
    if selector != old_selector {
        errs.push(immutable_struct(
            "spec.selector",
            gofmt::label_selector(selector),
        ));
    }
    let mut template = at(new, "/spec/template").cloned().unwrap_or(Value::Null);
    carry_generated_labels(&mut template, at(old, "/spec/template/metadata/labels"));
    let mut old_template = at(old, "/spec/template").cloned().unwrap_or(Value::Null);
    let suspended_never_started = at(old, "/spec/suspend") == Some(&Value::Bool(true))
        && at(old, "/status/startTime").is_none();
    if suspended_never_started {
        for t in [&mut template, &mut old_template] {
            drop_mutable_while_suspended(t);
        }
    }
    if !semantic::equal(Some(&template), Some(&old_template)) {
        errs.push(immutable_struct(
            "spec.template",
            "core.PodTemplateSpec{…}".to_owned(),
        ));
    }
    for (field, name) in [
        ("/spec/completionMode", "spec.completionMode"),
        ("/spec/backoffLimitPerIndex", "spec.backoffLimitPerIndex"),
        ("/spec/managedBy", "spec.managedBy"),
    ] {
        let after = at(new, field);
        if after != at(old, field) {
            errs.push(immutable_scalar(name, after));
        }
    }
    for (field, name, go_type) in [
        (
            "/spec/podFailurePolicy",
            "spec.podFailurePolicy",
            "batch.PodFailurePolicy",
        ),
        (
            "/spec/successPolicy",
            "spec.successPolicy",
            "batch.SuccessPolicy",
        ),
    ] {
        let after = at(new, field);
        if after != at(old, field) {
            let shown = if after.is_some() {
                format!("{go_type}{{…}}")
            } else {
                "null".into()
            };
            errs.push(immutable_struct(name, shown));
        }
    }
    errs
}

fn carry_generated_labels(template: &mut Value, old_labels: Option<&Value>) {
    let Some(old_labels) = old_labels.and_then(Value::as_object) else {
        return;
    };
    let Some(t) = template.as_object_mut() else {
        return;
    };
    let metadata = t
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(metadata) = metadata.as_object_mut() else {
        return;
    };
    let labels = metadata
        .entry("labels")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(labels) = labels.as_object_mut() else {
        return;
    };
    for key in JOB_GENERATED_LABELS {
        if let (None, Some(v)) = (labels.get(key), old_labels.get(key)) {
            labels.insert(key.to_owned(), v.clone());
        }
    }
}

fn drop_mutable_while_suspended(template: &mut Value) {
    if let Some(metadata) = template.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.shift_remove("labels");
        metadata.shift_remove("annotations");
    }
    if let Some(spec) = template.get_mut("spec").and_then(Value::as_object_mut) {
        spec.shift_remove("tolerations");
        spec.shift_remove("schedulingGates");
        if let Some(affinity) = spec.get_mut("affinity").and_then(Value::as_object_mut) {
            affinity.shift_remove("nodeAffinity");
        }
    }
}

const WHEN_IMMUTABLE: &str = "field is immutable when `immutable` is set";

fn is_immutable(v: &Value) -> bool {
    at(v, "/immutable") == Some(&Value::Bool(true))
}

/// `ValidateConfigMapUpdate`.
pub fn config_map(new: &Value, old: &Value) -> Vec<FieldError> {
    immutable_data(new, old, &["data", "binaryData"])
}

fn immutable_data(new: &Value, old: &Value, fields: &[&str]) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if !is_immutable(old) {
        return errs;
    }
    if !is_immutable(new) {
        errs.push(FieldError::forbidden("immutable", WHEN_IMMUTABLE));
    }
    for field in fields {
        if at(new, &format!("/{field}")) != at(old, &format!("/{field}")) {
            errs.push(FieldError::forbidden(*field, WHEN_IMMUTABLE));
        }
    }
    errs
}

/// `ValidateSecretUpdate`: the type never changes; with `immutable`, neither does the
/// data (`stringData` is part of it: the server merges it into `data`).
pub fn secret(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let kind = |v: &Value| {
        at(v, "/type")
            .and_then(Value::as_str)
            .unwrap_or("Opaque")
            .to_owned()
    };
    if kind(new) != kind(old) {
        errs.push(immutable_scalar("type", Some(&Value::String(kind(new)))));
    }
    errs.extend(immutable_data(&merged(new), &merged(old), &["data"]));
    errs
}

/// A Secret with `stringData` merged into `data` (the v1 conversion does it).
fn merged(secret: &Value) -> Value {
    use base64::Engine;
    let mut out = secret.clone();
    let Some(strings) = at(secret, "/stringData").and_then(Value::as_object) else {
        return out;
    };
    if let Some(map) = out.as_object_mut() {
        let data = map
            .entry("data")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(data) = data.as_object_mut() {
            for (k, v) in strings {
                let text = v.as_str().unwrap_or("");
                let encoded = base64::engine::general_purpose::STANDARD.encode(text);
                data.insert(k.clone(), Value::String(encoded));
            }
        }
        map.shift_remove("stringData");
    }
    out
}

/// `ValidateStorageClassUpdate`.
pub fn storage_class(new: &Value, old: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for field in ["parameters", "provisioner", "reclaimPolicy"] {
        let pointer = format!("/{field}");
        if at(new, &pointer) != at(old, &pointer) {
            errs.push(FieldError::forbidden(
                field,
                format!("updates to {field} are forbidden."),
            ));
        }
    }
    let mode = at(new, "/volumeBindingMode");
    if mode != at(old, "/volumeBindingMode") {
        errs.push(immutable_scalar("volumeBindingMode", mode));
    }
    errs
}

/// `ValidateIngressClassUpdate`: the controller is immutable.
pub fn ingress_class(new: &Value, old: &Value) -> Vec<FieldError> {
    let controller = at(new, "/spec/controller");
    if controller == at(old, "/spec/controller") {
        return Vec::new();
    }
    vec![immutable_scalar(
        "spec.controller",
        Some(controller.cloned().unwrap_or(Value::String(String::new()))).as_ref(),
    )]
}

/// `ValidateRoleBindingUpdate` / `ValidateClusterRoleBindingUpdate`.
pub fn role_binding(new: &Value, old: &Value) -> Vec<FieldError> {
    let role_ref = at(new, "/roleRef");
    if role_ref == at(old, "/roleRef") {
        return Vec::new();
    }
    vec![FieldError {
        kind: ErrorType::Invalid,
        field: "roleRef".to_owned(),
        value: BadValue::Omit,
        detail: format!("{}: cannot change roleRef", gofmt::role_ref(role_ref)),
    }]
}
