//! `ValidatePodUpdate` (pkg/apis/core/validation, kube-apiserver 1.30–1.35): a Pod's spec
//! is immutable but for container images, `activeDeadlineSeconds` (set, or lowered),
//! added tolerations (and any `tolerationSeconds`), removed scheduling gates, and a
//! `terminationGracePeriodSeconds` that was negative set to 1.
//!
//! The server names the difference with `cmp.Diff` of the two Go `core.PodSpec`s; kadmit
//! has no Go structs, so the fixed part of the message is the server's and the
//! difference is kadmit's list of changed values ([`semantic::changes`]).
//!
//! Not applied: the relaxations for a Pod that still has scheduling gates (additions to
//! `nodeSelector` and node affinity), where kadmit reports the change as the general
//! error.

use super::semantic;
use kadmit_schema::field_error::{ErrorType, FieldError};
use serde_json::{Map, Value};

/// The server's list of what a Pod update may change (`updatablePodSpecFields`, joined
/// with `,`).
const UPDATABLE: &str = "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

/// The fields of a Pod spec the server's admission fills in and a manifest leaves out
/// (ServiceAccount, Priority, the scheduler's binding): taken from the old spec when the
/// new one has none, as an apply's patch of the stored Pod keeps them.
const SERVER_FILLED: [&str; 5] = [
    "nodeName",
    "serviceAccountName",
    "serviceAccount",
    "priority",
    "preemptionPolicy",
];

/// The prefix of the token volume the ServiceAccount admission plugin adds.
const TOKEN_VOLUME: &str = "kube-api-access-";

/// The tolerations DefaultTolerationSeconds adds to every Pod.
const DEFAULT_TOLERATION_KEYS: [&str; 2] = [
    "node.kubernetes.io/not-ready",
    "node.kubernetes.io/unreachable",
];

pub fn pod(new: &Value, old: &Value) -> Vec<FieldError> {
    let old_spec = old.get("spec").cloned().unwrap_or(Value::Null);
    let mut spec = new.get("spec").cloned().unwrap_or(Value::Null);
    carry_server_filled(&mut spec, &old_spec);
    let mut errs = Vec::new();
    for key in ["containers", "initContainers"] {
        let (after, before) = (list(&spec, key), list(&old_spec, key));
        if after.len() != before.len() {
            errs.push(FieldError::forbidden(
                format!("spec.{key}"),
                "pod updates may not add or remove containers",
            ));
            return errs;
        }
        for (i, c) in after.iter().enumerate() {
            let image = c.get("image").and_then(Value::as_str).unwrap_or("");
            let path = format!("spec.{key}[{i}].image");
            if image.is_empty() {
                errs.push(FieldError::required(path, ""));
            } else if image.trim() != image {
                errs.push(FieldError::invalid(
                    path,
                    Value::from(image),
                    "must not have leading or trailing whitespace",
                ));
            }
        }
    }
    match active_deadline(&spec, &old_spec) {
        // The server stops at a deadline out of range or raised.
        Some((err, true)) => {
            errs.push(err);
            return errs;
        }
        Some((err, false)) => errs.push(err),
        None => {}
    }
    errs.extend(only_added_tolerations(&spec, &old_spec));
    errs.extend(only_deleted_scheduling_gates(&spec, &old_spec));
    if semantic::equal(Some(&spec), Some(&old_spec)) {
        return errs;
    }
    let munged = munge(&spec, &old_spec);
    if !semantic::equal(Some(&munged), Some(&old_spec)) {
        errs.push(FieldError {
            kind: ErrorType::Forbidden,
            field: "spec".to_owned(),
            value: kadmit_schema::field_error::BadValue::Omit,
            detail: format!(
                "pod updates may not change fields other than {UPDATABLE}\n{}",
                semantic::changes("spec", Some(&old_spec), Some(&munged))
            ),
        });
    }
    errs
}

fn list<'a>(spec: &'a Value, key: &str) -> &'a [Value] {
    spec.get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

fn carry_server_filled(spec: &mut Value, old: &Value) {
    let Some(new) = spec.as_object_mut() else {
        return;
    };
    for key in SERVER_FILLED {
        if let (None, Some(v)) = (new.get(key), old.get(key)) {
            new.insert(key.to_owned(), v.clone());
        }
    }
    let token_volumes: Vec<&Value> = list(old, "volumes")
        .iter()
        .filter(|v| is_token_volume(v.get("name")))
        .collect();
    if !token_volumes.is_empty() && !list_has(new.get("volumes"), is_token_volume) {
        append(new, "volumes", token_volumes.into_iter().cloned());
        for key in ["containers", "initContainers"] {
            carry_token_mounts(new, old, key);
        }
    }
    let defaults: Vec<Value> = list(old, "tolerations")
        .iter()
        .filter(|t| {
            let key = t.get("key").and_then(Value::as_str).unwrap_or("");
            DEFAULT_TOLERATION_KEYS.contains(&key)
                && !list_has(new.get("tolerations"), |k| k == t.get("key"))
        })
        .cloned()
        .collect();
    append(new, "tolerations", defaults.into_iter());
}

fn is_token_volume(name: Option<&Value>) -> bool {
    name.and_then(Value::as_str)
        .is_some_and(|n| n.starts_with(TOKEN_VOLUME))
}

/// Whether a list has an item whose `name` (or `key`) satisfies `test`.
fn list_has(items: Option<&Value>, test: impl Fn(Option<&Value>) -> bool) -> bool {
    items
        .and_then(Value::as_array)
        .is_some_and(|a| a.iter().any(|v| test(v.get("name").or(v.get("key")))))
}

fn append(map: &mut Map<String, Value>, key: &str, items: impl Iterator<Item = Value>) {
    let items: Vec<Value> = items.collect();
    if items.is_empty() {
        return;
    }
    let entry = map.entry(key).or_insert_with(|| Value::Array(Vec::new()));
    if let Some(list) = entry.as_array_mut() {
        list.extend(items);
    }
}

/// The token volume's mounts, container by container (matched by name).
fn carry_token_mounts(new: &mut Map<String, Value>, old: &Value, key: &str) {
    let Some(containers) = new.get_mut(key).and_then(Value::as_array_mut) else {
        return;
    };
    for c in containers {
        let name = c.get("name").cloned();
        let Some(before) = list(old, key)
            .iter()
            .find(|o| o.get("name") == name.as_ref())
        else {
            continue;
        };
        let mounts: Vec<Value> = list(before, "volumeMounts")
            .iter()
            .filter(|m| is_token_volume(m.get("name")))
            .cloned()
            .collect();
        if let Some(c) = c.as_object_mut() {
            if !list_has(c.get("volumeMounts"), is_token_volume) {
                append(c, "volumeMounts", mounts.into_iter());
            }
        }
    }
}

/// `spec.activeDeadlineSeconds` may be set, or lowered, never raised or unset; with
/// whether the server stops there.
fn active_deadline(spec: &Value, old: &Value) -> Option<(FieldError, bool)> {
    let path = "spec.activeDeadlineSeconds";
    let after = spec.get("activeDeadlineSeconds").and_then(Value::as_i64);
    let before = old.get("activeDeadlineSeconds").and_then(Value::as_i64);
    match (after, before) {
        (Some(a), _) if !(0..=i64::from(i32::MAX)).contains(&a) => Some((
            FieldError::invalid(
                path,
                Value::from(a),
                format!("must be between 0 and {}, inclusive", i32::MAX),
            ),
            true,
        )),
        (Some(a), Some(b)) if b < a => Some((
            FieldError::invalid(
                path,
                Value::from(a),
                "must be less than or equal to previous value",
            ),
            true,
        )),
        (None, Some(_)) => Some((
            FieldError::invalid(
                path,
                Value::Null,
                "must not update from a positive integer to nil value",
            ),
            false,
        )),
        _ => None,
    }
}

/// A toleration as Go compares it: without `tolerationSeconds`, empty fields dropped.
fn toleration_core(t: &Value) -> Value {
    let mut t = t.clone();
    if let Some(m) = t.as_object_mut() {
        m.shift_remove("tolerationSeconds");
        m.retain(|_, v| !v.is_null() && v != "");
    }
    t
}

/// `validateOnlyAddedTolerations`.
fn only_added_tolerations(spec: &Value, old: &Value) -> Option<FieldError> {
    let after: Vec<Value> = list(spec, "tolerations")
        .iter()
        .map(toleration_core)
        .collect();
    let kept = list(old, "tolerations")
        .iter()
        .all(|t| after.contains(&toleration_core(t)));
    (!kept).then(|| {
        FieldError::forbidden(
            "spec.tolerations",
            "existing toleration can not be modified except its tolerationSeconds",
        )
    })
}

/// `validateOnlyDeletedSchedulingGates`: no gate the old Pod did not have.
fn only_deleted_scheduling_gates(spec: &Value, old: &Value) -> Vec<FieldError> {
    let name = |g: &Value| {
        g.get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let before: Vec<String> = list(old, "schedulingGates").iter().map(name).collect();
    list(spec, "schedulingGates")
        .iter()
        .enumerate()
        .filter(|(_, g)| !before.contains(&name(g)))
        .map(|(i, g)| {
            FieldError::forbidden(
                format!("spec.schedulingGates[{i}].name"),
                format!(
                    "only deletion is allowed, but found new scheduling gate '{}'",
                    name(g)
                ),
            )
        })
        .collect()
}

/// The new spec with what may change set back to the old values (upstream's
/// `mungedPodSpec`).
fn munge(spec: &Value, old: &Value) -> Value {
    let mut munged = spec.clone();
    let Some(m) = munged.as_object_mut() else {
        return munged;
    };
    for key in ["containers", "initContainers"] {
        if let Some(containers) = m.get_mut(key).and_then(Value::as_array_mut) {
            for (c, before) in containers.iter_mut().zip(list(old, key)) {
                if let Some(c) = c.as_object_mut() {
                    match before.get("image") {
                        Some(image) => c.insert("image".into(), image.clone()),
                        None => c.shift_remove("image"),
                    };
                }
            }
        }
    }
    for key in ["activeDeadlineSeconds", "schedulingGates", "tolerations"] {
        match old.get(key) {
            Some(v) => m.insert(key.into(), v.clone()),
            None => m.shift_remove(key),
        };
    }
    let grace = |v: &Value| {
        v.get("terminationGracePeriodSeconds")
            .and_then(Value::as_i64)
    };
    if grace(old).is_some_and(|g| g < 0) && grace(spec) == Some(1) {
        m.insert(
            "terminationGracePeriodSeconds".into(),
            old["terminationGracePeriodSeconds"].clone(),
        );
    }
    munged
}
